//! The facts of the `status` report (TO §11, §27, §28): every tournament of the asker with its
//! games; each tournament's crosstable goes in the sentences `/tournaments/N/crosstable` and
//! `/tournaments/N/table`.

use serde::Serialize;

use crate::core::model::facts::{ClockFigures, Colour, Day, When};

/// `status`: the answer to a `Status` request.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatusFacts {
    pub recipient: String,
    /// Always `true`: tells the report from the announcement's status (TO §13).
    pub report: bool,
    /// Always `false` (see [`crate::core::model::AnnouncementFacts`]).
    pub announcement: bool,
    pub tournaments: Vec<TournamentReport>,
    pub now: When,
    pub today: Day,
    /// The writer asked for a new XFCC password (`XFCC-Passwort`): the shell issues it into
    /// this mail when `[xfcc]` is set (docs/xfcc.md).
    pub xfcc_password: bool,
    /// TO §17: the writer turned his clock warnings off (`false`) or on (`true`) with this mail.
    pub warnings: Option<bool>,
    /// The writer chose how his mails show the position with this mail (`Brett: Liste`,
    /// `Brett: Diagramm`).
    pub board_chosen: Option<crate::lang::Board>,
}

/// One tournament of a status report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TournamentReport {
    pub id: String,
    pub name: String,
    pub director: String,
    /// `player` or `director`.
    pub role: &'static str,
    pub games: Vec<GameReport>,
    /// How many of the games wait for the asker's move.
    pub your_moves: usize,
}

/// One game as the status mail shows it to its reader (his colour, or none for a director).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameReport {
    pub game: String,
    pub white: String,
    pub black: String,
    pub color: Option<Colour>,
    pub partner: Option<String>,
    pub state: &'static str,
    pub running: bool,
    pub result: String,
    pub to_move: Colour,
    pub to_move_name: String,
    pub to_move_color: &'static str,
    pub your_move: bool,
    pub next_number: String,
    pub since: When,
    pub running_days: u32,
    pub last_move: Option<String>,
    pub moves: usize,
    pub fen: String,
    pub clock_white: ClockFigures,
    pub clock_black: ClockFigures,
    pub clock_you: Option<ClockFigures>,
    pub clock_partner: Option<ClockFigures>,
}

/// `help`: how to write to the relay (`Hilfe` / `help`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HelpFacts {
    pub recipient: String,
    /// The writer directs a tournament: his commands follow (the sentence `director_forms`).
    pub directs: bool,
    /// `[security] require_reply_key`: only answers to the relay's mails count.
    pub through_key: bool,
    /// The tournaments the writer plays in or directs, with their directors.
    pub tournaments: Vec<HelpTournament>,
}

/// One tournament of a [`HelpFacts`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HelpTournament {
    pub id: String,
    pub name: String,
    pub director: String,
    pub director_email: String,
}
