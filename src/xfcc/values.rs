//! The values of the service: a game as `GetMyGames` lists it ([`XfccGame`]), its result
//! ([`XfccResult`]), the answer to a `MakeAMove` ([`Code`]).

/// One game as `GetMyGames` lists it (the elements of `XfccGame`, docs/xfcc.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XfccGame {
    pub id: u32,
    pub white: String,
    pub black: String,
    pub event: String,
    pub site: String,
    pub my_turn: bool,
    pub has_white: bool,
    /// The caller's time left: days, hours, minutes.
    pub player: (i64, i64, i64),
    /// The opponent's time left.
    pub opponent: (i64, i64, i64),
    /// PGN movetext without result (`1.e4 e5 2.Nf3`).
    pub moves: String,
    /// The opponent offered a draw to the caller (TO §2).
    pub draw_offered: bool,
    pub result: XfccResult,
    pub message: String,
    pub server_info: String,
    /// The tournament's start, `YYYY.MM.DD`.
    pub event_date: String,
    /// Always false: every game starts from the initial position.
    pub setup: bool,
    /// The position now (the caller's board: `setup` is false, so clients do not take it for a
    /// start position).
    pub fen: String,
    /// `moves/seconds`: 10 moves in the rule set's days (TO §12).
    pub time_control: String,
}

/// The value of `MakeAMoveResult` (docs/xfcc.md; `MoveIsAmbigous` is spelt as the clients
/// spell it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    Success,
    ServerError,
    AuthenticationFailed,
    InvalidGameID,
    NotYourGame,
    NotYourTurn,
    InvalidMoveNumber,
    InvalidMove,
    NoDrawWasOffered,
    LostOnTime,
    YouAreOnLeave,
    MoveIsAmbigous,
    FeatureUnavailable,
}

impl Code {
    /// Every code, in the WSDL's order.
    pub const ALL: [Code; 13] = [
        Code::Success,
        Code::ServerError,
        Code::AuthenticationFailed,
        Code::InvalidGameID,
        Code::NotYourGame,
        Code::NotYourTurn,
        Code::InvalidMoveNumber,
        Code::InvalidMove,
        Code::NoDrawWasOffered,
        Code::LostOnTime,
        Code::YouAreOnLeave,
        Code::MoveIsAmbigous,
        Code::FeatureUnavailable,
    ];

    /// The name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            Code::Success => "Success",
            Code::ServerError => "ServerError",
            Code::AuthenticationFailed => "AuthenticationFailed",
            Code::InvalidGameID => "InvalidGameID",
            Code::NotYourGame => "NotYourGame",
            Code::NotYourTurn => "NotYourTurn",
            Code::InvalidMoveNumber => "InvalidMoveNumber",
            Code::InvalidMove => "InvalidMove",
            Code::NoDrawWasOffered => "NoDrawWasOffered",
            Code::LostOnTime => "LostOnTime",
            Code::YouAreOnLeave => "YouAreOnLeave",
            Code::MoveIsAmbigous => "MoveIsAmbigous",
            Code::FeatureUnavailable => "FeatureUnavailable",
        }
    }
}

/// The `Result` of an `XfccGame`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XfccResult {
    Ongoing,
    WhiteWins,
    BlackWins,
    Draw,
    /// TO §26: annulled after a withdrawal.
    Cancelled,
}

impl XfccResult {
    pub fn name(self) -> &'static str {
        match self {
            XfccResult::Ongoing => "Ongoing",
            XfccResult::WhiteWins => "WhiteWins",
            XfccResult::BlackWins => "BlackWins",
            XfccResult::Draw => "Draw",
            XfccResult::Cancelled => "Cancelled",
        }
    }
}
