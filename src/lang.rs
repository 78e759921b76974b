//! [`Lang`]: the language a person is written to in, and [`Board`]: how his mails show a position.

use serde::{Deserialize, Serialize};

/// The language of outgoing mail: German or English.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    #[default]
    De,
    En,
}

impl Lang {
    pub fn code(self) -> &'static str {
        match self {
            Lang::De => "de",
            Lang::En => "en",
        }
    }

    pub fn parse(s: &str) -> Option<Lang> {
        match s.trim().to_ascii_lowercase().as_str() {
            "de" => Some(Lang::De),
            "en" => Some(Lang::En),
            _ => None,
        }
    }
}

/// How a person's mails show a game's position (docs/contract.md "A board a screen reader
/// reads"): as the diagram — the text diagram and the board as an HTML table — or as piece lists
/// a screen reader or a braille display reads (`Brett: Liste` / `board: list` by mail, `board =
/// "list"` for a player in the tournament file).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Board {
    #[default]
    Diagram,
    List,
}

impl Board {
    /// `diagram` or `list`, as the tournament file and the templates write it.
    pub fn name(self) -> &'static str {
        match self {
            Board::Diagram => "diagram",
            Board::List => "list",
        }
    }

    /// `diagram` or `list` (ASCII case ignored).
    pub fn parse(s: &str) -> Option<Board> {
        match s.trim().to_ascii_lowercase().as_str() {
            "diagram" => Some(Board::Diagram),
            "list" => Some(Board::List),
            _ => None,
        }
    }
}
