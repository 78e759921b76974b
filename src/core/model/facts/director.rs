//! The facts of the director's mails: the `leave` notice and the player's leave `receipt`
//! (TO §24, §25) and the `director` notice of a command (TO §21–§26, §30, §31).

use serde::Serialize;

use crate::core::model::facts::{Day, When};

/// `leave` (TO §24, §25): a player's leave, to each partner of an open game and to the director.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeaveFacts {
    pub recipient: String,
    pub player: String,
    pub player_email: String,
    pub tournament_id: String,
    pub tournament: String,
    /// The tournament director, in copy of every partner's notice (TO §25).
    pub director: String,
    pub from: Day,
    pub to: Day,
    pub days: i64,
    pub cancelled: bool,
    /// The leave ended early with a move (TO §25).
    pub ended_early: bool,
    /// The player withdrew the leave before it began (TO §24).
    pub withdrawn: bool,
    pub move_day: Option<Day>,
    pub last_day: Day,
    pub days_returned: i64,
    pub now: When,
    /// The partner's game; absent in the director's copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<String>,
    pub to_partner: bool,
}

/// The `receipt` of an accepted leave, to the player (TO §24).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeaveReceiptFacts {
    pub recipient: String,
    pub tournament_id: String,
    pub tournament: String,
    pub leave: LeaveAccount,
    pub now: When,
}

/// The leave of a [`LeaveReceiptFacts`] and the player's leave budget of its tournament year.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeaveAccount {
    /// The player withdrew this leave before it began (TO §24); `taken` is without it.
    pub withdrawn: bool,
    pub from: Day,
    pub to: Day,
    pub days: i64,
    pub year_from: Day,
    pub year_to: Day,
    pub taken: i64,
    pub left: i64,
    /// `Partner (GAME)`, one per open game.
    pub partners: Vec<String>,
    /// The same as game and partner apart, for the template's own wording.
    pub games: Vec<LeaveGame>,
}

/// One open game of a leave receipt.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LeaveGame {
    pub game: String,
    pub partner: String,
}

/// `director`: the notice of what a director's command did (TO §21–§26, §30, §31), to him and
/// the players concerned; its title and text go in the sentences `title` and `text`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DirectorFacts {
    pub recipient: String,
    pub director: String,
    pub tournament_id: String,
    pub tournament: String,
    pub game: Option<String>,
    pub reason: Option<String>,
    pub for_director: bool,
    pub now: When,
    /// What the notice is: `decision` (a command carried out), `records` (TO §11, §29: what he
    /// asked for), `question` (TO §23, to the player), `answer` and `unanswered` (TO §23, to
    /// the director), `registered` (a tournament registered by mail), `checked` (a tournament
    /// file checked, nothing registered), `withdrawn` (a tournament withdrawn, to the sender),
    /// `words` (a player's words to the director: a reply to a decision or an appeal, TO §18,
    /// §29).
    pub form: &'static str,
    /// TO §29: `verify`'s line for the game, filled in by the shell.
    pub verified: Option<String>,
}

/// The `receipt` of a player's words that went to the director instead of his partner (TO §18,
/// §23, §29): a reply to a decision about his game, or an appeal (`Einspruch:`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToDirectorFacts {
    #[serde(flatten)]
    pub context: crate::core::model::facts::GameContext,
    pub recipient: String,
    pub to_director: ToDirectorBody,
}

/// What a [`ToDirectorFacts`] tells the player.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToDirectorBody {
    /// It is an appeal (`Einspruch:` / `appeal:`), with the game's records enclosed for TL.
    pub appeal: bool,
    /// The day it came (that day counts for TO §29).
    pub came: Day,
    /// The day of the decision it answers (its words are the sentence `decision`).
    pub decided: Option<Day>,
    /// TO §29: the last day of the two weeks to appeal a decision of the director.
    pub appeal_until: Option<Day>,
    /// Moves the mail held, not played: where moves go instead (`moves_to`).
    pub moves: Vec<String>,
    /// The address moves of the game go to (the player's reply key of the game), while the game
    /// goes on.
    pub moves_to: Option<String>,
}
