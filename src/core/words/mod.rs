//! The sentences of the core's refusals, in German and English: one exhaustive `match` per
//! refusal type, so the compiler checks that every reason has its words.

mod leave_director;
mod refusal;

pub use leave_director::{FORMS_DE, FORMS_EN};
