//! XFCC: the XfccBasic SOAP 1.1 web service that ChessBase, Scid and other correspondence
//! clients speak (docs/xfcc.md), served by `fernzug run` with `[xfcc] listen`.
//!
//! A move by XFCC is a letter by other means: `App::xfcc_letter` (`src/app/xfcc.rs`) writes it as the mail a
//! player would send, and the shell hands that to the core like any mail — same rules, clocks,
//! forwards, receipts, archive and seals. The pieces:
//!
//! - [`soap`] — reading a call from its envelope, writing answers and faults (pure);
//! - [`wsdl`] — the service description served at `?WSDL`;
//! - [`games`] — a player's games as `XfccGame`s, the game ids, and what a `MakeAMove` asks of a
//!   game before it becomes a letter (pure, on the core's state);
//! - [`login`] — the XFCC passwords (random, kept only as a salted hash) and the limit on failed
//!   logins;
//! - [`server`] — the bounded HTTP/1.1 listener, which hands each call to the daemon's loop and
//!   never touches the store itself.

pub mod games;
pub mod login;
pub mod server;
pub mod soap;
pub mod wsdl;

use std::fmt::Write as _;

pub use games::XfccGame;

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

impl XfccGame {
    /// Writes `<XfccGame>…</XfccGame>`, the elements in the WSDL's order.
    pub fn write_xml(&self, out: &mut String) {
        let e = soap::escape;
        let b = |v: bool| if v { "true" } else { "false" };
        let _ = write!(
            out,
            "<XfccGame><id>{}</id><white>{}</white><black>{}</black><event>{}</event>\
             <site>{}</site><myTurn>{}</myTurn><hasWhite>{}</hasWhite>\
             <daysPlayer>{}</daysPlayer><hoursPlayer>{}</hoursPlayer>\
             <minutesPlayer>{}</minutesPlayer><daysOpponent>{}</daysOpponent>\
             <hoursOpponent>{}</hoursOpponent><minutesOpponent>{}</minutesOpponent>\
             <moves>{}</moves><drawOffered>{}</drawOffered><result>{}</result>\
             <message>{}</message><serverInfo>{}</serverInfo><eventDate>{}</eventDate>\
             <setup>{}</setup><fen>{}</fen><timeControl>{}</timeControl></XfccGame>",
            self.id,
            e(&self.white),
            e(&self.black),
            e(&self.event),
            e(&self.site),
            b(self.my_turn),
            b(self.has_white),
            self.player.0,
            self.player.1,
            self.player.2,
            self.opponent.0,
            self.opponent.1,
            self.opponent.2,
            e(&self.moves),
            b(self.draw_offered),
            self.result.name(),
            e(&self.message),
            e(&self.server_info),
            e(&self.event_date),
            b(self.setup),
            e(&self.fen),
            e(&self.time_control),
        );
    }
}
