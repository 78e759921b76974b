//! Chess notation: reading a player's move text in any usual form, writing a move in the form
//! of the player it goes to, a plain-text diagram and the piece lists a screen reader reads (TO §2
//! with its Anhang, §3, §5, §8–§10).
//!
//! Pure: depends only on `shakmaty` and [`crate::lang::Lang`].

mod diagram;
mod error;
mod form;
mod read;
mod write;

#[cfg(test)]
mod tests;

pub use diagram::{diagram, piece_list};
pub use error::{IllegalReason, NotationError};
pub use form::Form;
pub use form::letter as piece_letter;
pub use read::{Reading, capitals_as_files, fits_form, letters_of, read_move, read_move_in};
pub use write::write_move;
