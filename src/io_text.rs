//! The text of an I/O error as an operator reads it in a one-line message.

use std::io;

/// An I/O error's text without the trailing ` (os error N)`, e.g. `No such file or directory`.
pub(crate) fn io_message(e: &io::Error) -> String {
    let s = e.to_string();
    match s.rfind(" (os error ") {
        Some(i) if s.ends_with(')') => s.get(..i).unwrap_or(&s).to_string(),
        _ => s,
    }
}
