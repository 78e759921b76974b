//! The facts of the `status` report (TO §11, §27, §28): every tournament of the asker with its
//! games; each tournament's crosstable goes in the sentences `/tournaments/N/crosstable` and
//! `/tournaments/N/table`. Beside it the report of a tournament's end (`tournament-end`, TO §27),
//! the player's `overview` (his games at this relay, each as the status report shows it) and the
//! `help` mail.

use serde::Serialize;

use crate::core::model::facts::{ClockFigures, Colour, Day, When};

/// `tournament-end` (TO §27): a tournament's last game ended. Its crosstable goes in the
/// sentences `crosstable` (the text) and `table` (its data), each game's end in
/// `/games/N/reason`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TournamentEndFacts {
    pub recipient: String,
    pub tournament_id: String,
    pub tournament: String,
    pub director: String,
    /// The day its last game ended.
    pub ended: Day,
    /// The reader's line of the table (`table.rows[row]`): a player's; `None` for the director.
    pub row: Option<usize>,
    /// The reader shares his place (equal on points and Sonneborn-Berger).
    pub shared: bool,
    /// How many games the tournament has.
    pub game_count: usize,
    /// Every game, in the order of their numbers — none when they are too many for one mail
    /// (`crate::core::records::tournament_end::MAX_LISTED_GAMES`): then neither are they listed
    /// nor is their PGN attached.
    pub games: Vec<EndedGame>,
}

/// One game of a [`TournamentEndFacts`].
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EndedGame {
    /// `FAX-2026-3/7`.
    pub game: String,
    pub white: String,
    pub black: String,
    /// `1-0`, `0-1`, `1/2-1/2`, or `*` (annulled, TO §26).
    pub result: String,
    /// Full moves played.
    pub moves: usize,
    /// TO §29: the hash of the game's record as the game holds it (`Game::seal`; empty for a
    /// game of a version before the seals).
    pub seal: String,
    /// `fernzug verify`'s line for the game, which the shell fills in
    /// (`crate::core::model::Enclosure::Verify`): the record recomputed from the store and the
    /// archive.
    pub verified: Option<String>,
}

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

/// `overview`: a player's games at this relay, across his tournaments (`Übersicht` /
/// `overview`, or every Monday for those who asked).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverviewFacts {
    pub recipient: String,
    pub now: When,
    pub today: Day,
    /// What the mail is: `asked` (the answer to `Übersicht`), `subscribed` (to `Übersicht
    /// wöchentlich`), `unsubscribed` (to `Übersicht aus`) or `weekly` (Monday's).
    pub occasion: &'static str,
    /// Whether he gets it every Monday (after this mail).
    pub weekly: bool,
    /// The games not finished (running, not yet started, suspended, adjourned): those awaiting
    /// his move first, then by their next deadline.
    pub running: Vec<OverviewGame>,
    /// The finished games, with their results.
    pub finished: Vec<OverviewGame>,
    /// How many of the running games await his move.
    pub your_moves: usize,
    /// He directs a tournament here (`Status` lists its games).
    pub directs: bool,
}

/// One game of an [`OverviewFacts`]: the game as the `status` report shows it to its player
/// ([`GameReport`], his clock included), its tournament, and what comes next.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OverviewGame {
    #[serde(flatten)]
    pub report: GameReport,
    pub tournament_id: String,
    pub tournament: String,
    /// The number of the move being played (`5` while White's 5th or Black's 5th is awaited).
    pub number: u32,
    /// The game's next deadline (`fernzug status`'s: the start, the reminder or silence report
    /// of TO §16, the forfeit of TO §17; the courtesy warning left out), when and which.
    pub deadline: Option<When>,
    pub deadline_kind: Option<&'static str>,
    /// For a finished game, from his side: `won`, `drawn` or `lost` (none without a result).
    pub outcome: Option<&'static str>,
}
