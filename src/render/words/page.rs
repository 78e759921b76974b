//! The words of the tournament pages (`crate::pages`) that are not in their templates
//! (`templates/web/`): the answer to a path that names no page, and the board's caption that a
//! screen reader reads instead of the picture.

use crate::lang::Lang;

/// The plain-text answer to a path that names no page (404).
pub fn page_not_found(lang: Lang) -> &'static str {
    match lang {
        Lang::De => "Diese Seite gibt es nicht.\n",
        Lang::En => "There is no such page.\n",
    }
}

/// The board's caption: each side's pieces with their squares, as a screen reader reads them
/// (`white` and `black` already written: `Kg1, Dd1, …`).
///
/// ```
/// use fernzug::{lang::Lang, render::words::board_caption};
/// assert_eq!(board_caption("Kg1", "Kg8", Lang::De), "Weiß: Kg1. Schwarz: Kg8.");
/// assert_eq!(board_caption("Kg1", "Kg8", Lang::En), "White: Kg1. Black: Kg8.");
/// ```
pub fn board_caption(white: &str, black: &str, lang: Lang) -> String {
    match lang {
        Lang::De => format!("Weiß: {white}. Schwarz: {black}."),
        Lang::En => format!("White: {white}. Black: {black}."),
    }
}
