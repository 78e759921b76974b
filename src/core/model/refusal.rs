//! [`Refusal`]: why a mail is not acted on (TO §8: the query says exactly what was wrong).

use chrono::{NaiveDate, NaiveDateTime};

use crate::notation::NotationError;

/// An act that replaces the own move (TO §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    Resignation,
    DrawAcceptance,
}

/// A reason to answer with a query instead of acting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Neither the subject nor the reply address names a game.
    NoGameNamed { open_games: Vec<String> },
    /// The subject names a game that does not exist.
    UnknownGame { game: String },
    /// The sender does not play in the game.
    NotAPlayer { game: String },
    /// The reply address belongs to another player.
    ForeignKey,
    /// The subject and the reply address name different games.
    GameMismatch { subject: String, key: String },
    /// It is the partner's move.
    NotYourTurn { game: String },
    /// TO §30: the director restricted the game to moves; words are not forwarded.
    MovesOnly { game: String },
    /// TO §30: the day's `message` mails of this player in this game are used up.
    TooManyMessages { game: String, max: usize },
    /// The game is over.
    GameOver { game: String, result: String },
    /// TO §21: the game is suspended until the director decides.
    Suspended { game: String },
    /// TO §31: the game is stopped for adjudication.
    Adjourned { game: String },
    /// The tournament has not started yet.
    NotStarted { start: NaiveDateTime },
    /// No numbered move in the mail (TO §2: incomplete).
    NoMove { expected: String },
    /// TO §2: the own move is missing.
    OwnMoveMissing { expected: String },
    /// TO §2: the repetition of the partner's last move is missing.
    RepetitionMissing { expected: String },
    /// TO §2: the repeated move is not the partner's last move.
    RepetitionWrong { expected: String, written: String },
    /// TO §2: a move carries the wrong number.
    WrongNumber { expected: String, written: String },
    /// TO §2: two different own moves.
    TwoOwnMoves { first: String, second: String },
    /// More moves than the repetition and one own move.
    TooManyMoves { extra: String },
    /// TO §8/§9: the own move cannot be read or played.
    BadMove {
        number: String,
        error: NotationError,
    },
    /// TO §2: the repeated move cannot be read.
    BadRepetition {
        number: String,
        error: NotationError,
    },
    /// TO §2: a result without words is void.
    BareResult { text: String },
    /// TO §2/§8: a struck-out or corrected move.
    StruckOut { text: String },
    /// TO §8: a line that starts like a move but cannot be read.
    Unreadable { line: String },
    /// TO §2: a draw offer without an own move.
    OfferWithoutMove,
    /// TO §2: a draw acceptance without a pending offer.
    NoOfferToAccept,
    /// TO §2: acceptance or resignation together with a move.
    ActAndMove { act: Act },
    /// TO §4: nothing can be taken back.
    TakeBack,
    /// TO §13: the announcement came after 10 days.
    AnnouncementTooLate { days: u32 },
    /// A mail from someone the relay does not know.
    Stranger,
    /// The mail says nothing the relay can act on.
    NothingToDo,
    /// TO §2/§8: the mail says two acts that exclude each other (e.g. resignation and acceptance).
    Contradictory,
    /// FIDE 9.2 / TO §31: a threefold-repetition claim that does not hold; `count` is how often
    /// the position in question has occurred.
    RepetitionClaimFalse { count: usize },
    /// TO §6: conditional moves without an own move.
    ConditionalWithoutMove,
    /// TO §6: a move of a conditional line carries the wrong number.
    ConditionalWrongNumber {
        written: String,
        expected: String,
        line: String,
    },
    /// TO §6/§8: a move of a conditional line cannot be read or played.
    ConditionalBadMove {
        number: String,
        error: NotationError,
    },
    /// TO §6: a conditional line that does not end with the proposer's own reply.
    ConditionalIncomplete { line: String },
    /// TO §6/§8: two lines give different replies to the same moves.
    ConditionalConflict { first: String, second: String },
    /// TO §7: a move of the partner's colour in an answer that is not his conditional move.
    NotAConditionalMove { written: String },
    /// TO §24/§25: a leave request that cannot be granted (`crate::core::director::leave`).
    Leave(crate::core::model::LeaveRefusal),
    /// A director's command that cannot be carried out (`crate::core::director`).
    Director(crate::core::model::DirectorRefusal),
    /// A tournament file sent by mail was not registered.
    Register(RegisterRefusal),
    /// A tournament was not withdrawn (`Turnier zurückziehen`).
    Withdraw(WithdrawRefusal),
    /// The mail is larger than `[limits] max_mail_bytes`; only its header was read.
    TooLarge { size: u64, limit: u64 },
    /// The relay answered this address `limit` times today; this is the last answer today.
    AnswerLimit { limit: u32 },
    /// `[security] require_reply_key`: a move or command that did not reach the relay through
    /// the sender's own private reply address `relay+KEY@…` (sent to the bare relay address, or
    /// to someone else's key). The query goes to the registered address, so the real player
    /// learns of a forged one.
    NotThroughReplyKey,
    /// A request the writer's sentence makes, recognised but incomplete or not certain
    /// (`crate::letter::requests`): the query quotes the sentence, says what is missing and
    /// shows the exact form (TO §2: a doubtful draw or resignation is void, never guessed).
    Uncertain(crate::letter::Ask),
    /// A mail from an address that is not registered, through a player's own reply key and
    /// under his name: the query tells him how to have the address added.
    UnregisteredAddress {
        address: String,
        registered: String,
        director: String,
        director_email: String,
    },
}

/// Why a leave cannot be granted (TO §24, §25): each says exactly what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LeaveRefusal {
    /// The dates are no span: a day that does not exist, or the end before the beginning.
    BadSpan,
    /// Shorter than 7 days.
    TooShort {
        from: NaiveDate,
        to: NaiveDate,
        days: i64,
    },
    /// Begins before today (a late notice, TO §25).
    InThePast { from: NaiveDate, today: NaiveDate },
    /// Overlaps a leave he already has.
    Overlap {
        from: NaiveDate,
        to: NaiveDate,
        other_from: NaiveDate,
        other_to: NaiveDate,
    },
    /// More than 42 days in a tournament year.
    OverBudget {
        tournament: String,
        year_from: NaiveDate,
        year_to: NaiveDate,
        taken: i64,
        asked: i64,
    },
    /// He has no tournament with a game still running.
    NoTournament,
    /// The named tournament is not his.
    NotInTournament { tournament: String },
    /// A withdrawal finds no planned leave of his not yet begun (of the dates he named).
    NothingToWithdraw,
    /// A withdrawal without dates, and he has several planned leaves: which one.
    WhichToWithdraw { leaves: Vec<(NaiveDate, NaiveDate)> },
}

/// Why a director's mail or command is not carried out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DirectorRefusal {
    /// The sender does not direct the tournament (or any tournament).
    NotDirector { tournament: Option<String> },
    /// No command, or lines that look like one but cannot be read.
    Malformed { lines: Vec<String> },
    /// The command needs a game and the mail names none.
    NoGame { command: Command },
    /// The command needs a tournament and it is not clear which.
    NoTournament { command: Command },
    /// The named game does not exist.
    UnknownGame { game: String },
    /// TO §22: there is no second ZÜ to confirm.
    NoSecondForfeit { game: String },
    /// The game already has this result.
    AlreadyResult { game: String, result: String },
    /// `fortsetzen`: the game is neither suspended nor adjourned.
    NotStopped { game: String, state: String },
    /// The game is over.
    GameOver { game: String },
    /// The player does not play there.
    NotAPlayer { player: String, scope: String },
    /// The leave cannot be granted.
    Leave {
        player: String,
        refusal: LeaveRefusal,
    },
    /// The address is already someone else's (a player's or a director's).
    AddressTaken { address: String, owner: String },
    /// TO §26: the player has no game left to end in the tournament.
    NoOpenGames { player: String, tournament: String },
}

/// Why a tournament file sent by mail was not registered (nothing was).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegisterRefusal {
    /// The sender is not in `[relay] directors`: not a word on what the file says.
    NotAllowed,
    /// Neither a `.toml` attachment nor any text.
    Missing,
    /// More than one `.toml` attachment.
    Several(Vec<String>),
    /// The file is too large (`name` empty: the mail's text).
    TooLarge { name: String, bytes: usize },
    /// The attachment is not UTF-8 text.
    NotText { name: String },
    /// The file has errors: every one, located.
    File {
        name: Option<String>,
        errors: Vec<crate::core::model::FileProblem>,
    },
    /// A tournament with this id is registered already.
    Duplicate { id: String },
    /// The file names addresses other tournaments give to someone else: each address with the
    /// tournament that does (who it is there is not told).
    AddressTaken { taken: Vec<(String, String)> },
    /// A tournament by mail makes at most `max` games; the file makes `games`.
    TooManyGames { games: usize, max: usize },
}

/// Why a tournament was not withdrawn (`Turnier zurückziehen: ID` / `withdraw tournament: ID`,
/// `crate::core::register`); nothing was changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WithdrawRefusal {
    /// The sender is neither the tournament's director nor in `[relay] directors`: not a word
    /// on whether it exists.
    NotAllowed,
    /// No tournament has this id (empty: the mail names none).
    Unknown { tournament: String },
    /// A move of it was played (`moved`), or a game of it ended (a decision, a withdrawal): the
    /// tournament is under way and stays; `game` is the first such game.
    Begun {
        tournament: String,
        game: String,
        moved: bool,
    },
}

/// A director's command, as a refusal names it (TO §21–§26, §30, §31).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    ConfirmForfeit,
    SetResult,
    Resume,
    AdjustTime,
    SpecialLeave,
    AcceptLateLeave,
    Address,
    Withdraw,
    Ask,
    Warn,
}
