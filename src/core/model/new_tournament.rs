//! [`NewTournament`]: a tournament to register, as the core takes it. The shell's
//! `crate::tournament_file` reads and checks the operator's file and hands the core this value.

use chrono::NaiveDate;

use crate::core::model::Person;
use crate::lang::{Board, Lang};
use crate::rules::RuleSet;

/// A checked tournament: what the operator's tournament file says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTournament {
    /// The tournament id (Turnierkennziffer), e.g. `FAX-2026-3`.
    pub id: String,
    pub name: String,
    pub rules: RuleSet,
    /// Clocks of the first moves start at 00:00 of this day (or at registration if later).
    pub start: NaiveDate,
    /// The tournament director (TL).
    pub director: Person,
    pub players: Vec<NewPlayer>,
    /// The games to create, numbered 1.. in order.
    pub pairings: Vec<Pairing>,
    /// Whether the TL gets the weekly digest (optional key `digest`, default true).
    pub digest: bool,
}

/// One `[[players]]` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPlayer {
    pub name: String,
    /// Lower-cased, unique within the tournament.
    pub email: String,
    /// The player's language; `None`: the relay's default.
    pub language: Option<Lang>,
    /// Further addresses he may write from (`also = [...]`), lower-cased.
    pub also: Vec<String>,
    /// How his mails show the position (`board = "list"` or `"diagram"`); `None`: not said.
    pub board: Option<Board>,
}

/// One game to create.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pairing {
    /// The game number, 1.. (the `N` of `TOURNAMENT/N`).
    pub number: u32,
    /// The Berger round, 1..; every explicit `[[games]]` game is in round 1.
    pub round: u32,
    /// Index into [`NewTournament::players`].
    pub white: usize,
    /// Index into [`NewTournament::players`].
    pub black: usize,
}

/// One error of a tournament file sent by mail, located for the director: its line (when the
/// key is written on one) and its key; `tournament add` names the first of them the same way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileProblem {
    /// The line (1-based), when it can be told.
    pub line: Option<usize>,
    /// The key path, e.g. `players[2].email`.
    pub key: Option<String>,
    pub what: FileFault,
}

/// What is wrong at a [`FileProblem`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileFault {
    /// Not valid TOML: the parser's message.
    Syntax(String),
    /// A required key is absent.
    Missing,
    /// A key the file may not have there, and those it may.
    Unknown { allowed: Vec<String> },
    /// A value of the wrong type or out of range.
    Expected { expected: String, found: String },
    /// A value that cannot be taken; the text says why.
    Invalid(String),
}
