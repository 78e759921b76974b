//! The sentences of the core's refusals, in German and English: one exhaustive `match` per
//! refusal type, so the compiler checks that every reason has its words.

mod leave_director;
mod refusal;

pub use leave_director::{FORMS_DE, FORMS_EN};

use crate::lang::Lang;

/// A number of days in `lang`: `1 Tag`, `2 Tage`; `1 day`, `2 days` (also the templates'
/// `tage` and `days` filters).
pub fn days(n: i64, lang: Lang) -> String {
    match (n, lang) {
        (1, Lang::De) => "1 Tag".into(),
        (1, Lang::En) => "1 day".into(),
        (n, Lang::De) => format!("{n} Tage"),
        (n, Lang::En) => format!("{n} days"),
    }
}
