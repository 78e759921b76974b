//! [`SerdeColor`]: a side of the board as the records write it (`white` / `black`), and
//! [`color_name`], the same word for a `shakmaty` colour.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

/// A colour that serialises as `white` / `black`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SerdeColor {
    White,
    Black,
}

impl From<Color> for SerdeColor {
    fn from(c: Color) -> SerdeColor {
        match c {
            Color::White => SerdeColor::White,
            Color::Black => SerdeColor::Black,
        }
    }
}

impl From<SerdeColor> for Color {
    fn from(c: SerdeColor) -> Color {
        match c {
            SerdeColor::White => Color::White,
            SerdeColor::Black => Color::Black,
        }
    }
}

/// `white` / `black`.
pub fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}
