//! The facts of the mails of a game's course: `start` (Fax 1.2), `move` and `receipt` (TO §2–§15),
//! the long-think announcement (TO §13), `adjudication` (TO §31), `time-forfeit`/`time-forfeit-2`
//! (TO §18, §21) and `game-end` (TO §27) with its record.

use serde::Serialize;

use crate::core::model::facts::{Colour, Day, GameContext, When};

/// `start` (Fax 1.2): the first mail of a game to each player.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StartFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub recipient: String,
    pub white_first: bool,
    pub clock_start: When,
    pub first_allowed: u32,
    /// `[security] require_reply_key`: only answers to the relay's mails count (the mail does
    /// not suggest a new mail with the game in its subject).
    pub through_key: bool,
}

/// `move` (the forward to the partner) and `receipt` (to the mover), TO §2–§15: the move or
/// plies played, the mover's clock for it, offers and conditional lines. The remarks go in the
/// sentence `notes`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForwardFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub received: When,
    pub sent: When,
    pub days_used: u32,
    pub charged: u32,
    /// TO §13: more was charged than used.
    pub penalty: bool,
    /// TO §2: the last ply came with a draw offer.
    pub draw_offer: bool,
    /// TO §13: the mover announced a long think.
    pub announcement: bool,
    pub reminder_open: bool,
    /// TO §30: the director ordered the game's moves through him (he is in copy).
    pub through_director: bool,
    /// The game ended (`over`) or stopped (`adjourned`) with this mail (TO §31).
    pub stopped: Option<&'static str>,
    pub recipient: String,
    pub mover: String,
    pub partner_name: String,
    #[serde(rename = "move")]
    pub mv: Option<String>,
    /// Every ply of the mail when it played more than one (TO §6), else empty.
    pub plies: Vec<PlyFacts>,
    /// The conditional lines still standing (TO §6), in the reader's notation.
    pub lines: Vec<String>,
    pub lines_by: String,
    pub lines_dropped: bool,
    /// TO §30: the sender's own words beside the move (at most [`WORDS_MAX`] characters), shown
    /// to his partner, and in his receipt as what was forwarded; absent without words.
    pub words: Option<String>,
    /// The sender's name (who wrote `words`).
    pub words_by: String,
    /// The mail goes to the sender himself (his receipt: `words` is what his partner got).
    pub words_own: bool,
    /// The words were longer and were cut at [`WORDS_MAX`] characters.
    pub words_cut: bool,
    /// TO §30: the sender wrote words beside his move, and they were kept back: the director
    /// restricted the game to moves (his receipt says so).
    pub words_withheld: bool,
    /// The names of the mail's attachments: never forwarded, only named (TO §30).
    pub attachments: Vec<String>,
    /// TO §29: on the `receipt`, the game's seal as the step of the move left it — the hash
    /// `fernzug verify` recomputes for the game at that point (`None` on the `move`).
    pub seal: Option<String>,
}

/// TO §30: the most characters of a player's own words forwarded with a move.
pub const WORDS_MAX: usize = 4_000;

/// One ply of a forward or receipt that played several (TO §6).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlyFacts {
    pub text: Option<String>,
    pub by: String,
    pub own: bool,
    pub conditional: bool,
}

/// The long-think announcement (TO §13): `status` to the partner, `receipt` to the announcer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnnouncementFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub recipient: String,
    pub announcer: String,
    /// Always `true`: tells this status and receipt from the others.
    pub announcement: bool,
    pub own: bool,
}

/// `message` to the partner and its `receipt` to the writer (TO §30): a player's words without
/// a move.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub recipient: String,
    pub message: MessageBody,
}

/// What a [`MessageFacts`] carries.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MessageBody {
    /// The writer's words (at most [`WORDS_MAX`] characters).
    pub words: String,
    /// The writer's name.
    pub by: String,
    /// The partner's name (to whom the words went).
    pub to: String,
    /// This is the writer's receipt.
    pub own: bool,
    /// The words were cut at [`WORDS_MAX`] characters.
    pub cut: bool,
    /// The names of the mail's attachments: never forwarded (TO §30).
    pub attachments: Vec<String>,
    /// The writer is on move: his move is still awaited (the clock goes on).
    pub awaited: bool,
    /// The director has a copy (TO §16: a reminder is open; TO §30: the game's mail goes
    /// through him).
    pub director_copy: bool,
}

/// `adjudication` (TO §31): the fifty-move rule stopped the game; to the director. The last
/// move is the context's (the director's form).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AdjudicationFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub recipient: String,
    pub pgn: String,
    pub moves_without: u32,
    pub last_irreversible: Option<String>,
}

/// `time-forfeit` (TO §18, the first) and `time-forfeit-2` (TO §21, the second).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TimeForfeitFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub offender: String,
    pub offender_color: Colour,
    pub nth: u8,
    pub used: u32,
    pub allowed: u32,
    pub at: When,
}

/// `game-end` (TO §27): the result and the PGN; how it ended goes in the sentence `reason`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GameEndFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub recipient: String,
    pub result: &'static str,
    pub pgn: String,
    pub record: Record,
    /// TO §29: the last day of the appeal against the director's decision that ended the game
    /// (two weeks), for the players.
    pub appeal_until: Option<Day>,
}

/// What the `game-end` report (TO §27) says about the whole game besides the PGN (`pgn::record`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub plies: usize,
    pub full_moves: usize,
    pub white: SideRecord,
    pub black: SideRecord,
    pub started: Day,
    pub last_move_at: Option<Day>,
    pub termination: Option<&'static str>,
    /// TO §29: the hash of the last event of the game's log (`fernzug verify GAME`), empty
    /// while no event is sealed.
    pub seal: String,
}

/// One side's moves and thinking days in a [`Record`] (used, and charged where TO §13 charged more).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SideRecord {
    pub moves: u32,
    pub days_used: u32,
    pub days_charged: u32,
}
