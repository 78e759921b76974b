//! [`GameContext`]: the facts every game mail shows (docs/contract.md, the keys shared by all
//! game mails), and [`ClockFigures`], one colour's clock as shown (TO §12–§17).

use serde::Serialize;

use crate::core::model::facts::{Colour, Day, When};

/// One colour's clock as shown (the `clock_*` keys of game mails, the status report's games and
/// `status --json` `clock.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ClockFigures {
    pub used: u32,
    pub allowed: u32,
    pub left: u32,
    /// The move number after which the current limit is checked.
    pub next_control: u32,
    pub time_forfeits: u8,
    pub on_leave: bool,
}

/// The facts every game mail shows, for the reader playing `color` (a director: `None`): the
/// game, its tournament and players, the position, both clocks, now and today. Built by
/// `core::view::game_context`; a kind's own facts embed it flattened.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameContext {
    pub game: String,
    pub tournament_id: String,
    pub tournament: String,
    pub round: u32,
    pub white: String,
    pub black: String,
    pub director: String,
    pub director_email: String,
    pub state: &'static str,
    pub rules: &'static str,
    pub days_per_period: u32,
    pub color: Option<Colour>,
    pub partner: Option<String>,
    pub to_move: Colour,
    pub to_move_name: String,
    pub your_move: bool,
    /// The last move in the reader's notation (a director's: his language's default form).
    pub last_move: Option<String>,
    pub next_number: String,
    pub fen: String,
    /// The diagram without its final line end: the template decides the empty line after it.
    pub diagram: String,
    /// The side the diagram is seen from, `white` or `black` (the board picture's too).
    pub board_side: &'static str,
    /// The last move in UCI (`e2e4`): the squares the board picture marks.
    pub last_uci: Option<String>,
    pub clock_white: ClockFigures,
    pub clock_black: ClockFigures,
    pub clock_you: Option<ClockFigures>,
    pub clock_partner: Option<ClockFigures>,
    pub now: When,
    pub today: Day,
}
