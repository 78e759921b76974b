//! What a sentence says of a request: the request understood ([`Request`]), why a request word
//! asks for nothing ([`Why`]), the sentence's reading ([`Reading`]) and the family of requests
//! it belongs to ([`Family`]).

use serde::{Deserialize, Serialize};

use crate::letter::types::{Ask, DateSpan, DirectorCommand, RequestKind};

/// A request understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// TO §2: a draw offer.
    Offer,
    /// TO §2: the acceptance of the partner's draw offer.
    Accept,
    /// FIDE 9.2: a draw claim by repetition.
    Claim,
    /// TO §2: a resignation.
    Resign,
    /// TO §13: more than 10 days for the next move.
    Announce,
    /// TO §4: something taken back.
    TakeBack,
    /// The writer asks for his games.
    Status,
    /// TO §24: a leave, first and last day.
    Leave(DateSpan),
    /// TO §24: a planned leave withdrawn (the one of these dates, if named).
    WithdrawLeave(Option<DateSpan>),
}

impl Request {
    /// The kind of request this is.
    pub fn kind(&self) -> RequestKind {
        match self {
            Request::Offer => RequestKind::Offer,
            Request::Accept => RequestKind::Accept,
            Request::Claim => RequestKind::Claim,
            Request::Resign => RequestKind::Resign,
            Request::Announce => RequestKind::Announce,
            Request::TakeBack => RequestKind::TakeBack,
            Request::Status => RequestKind::Status,
            Request::Leave(_) => RequestKind::Leave,
            Request::WithdrawLeave(_) => RequestKind::WithdrawLeave,
        }
    }
}

/// Why a sentence with a request's word asks for nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Why {
    /// `nicht`, `kein`, `never`, `no draw`, or the offer declined (`lehne … ab`).
    Negated,
    /// About the partner's act: `hast du aufgegeben?`, `wenn du aufgibst`, `bist du im Urlaub?`.
    AboutPartner,
    /// A report of the past or of another game: `endete remis`, `im Urlaub war ich in Italien`.
    Reported,
    /// Describes the position: `in der Remisbreite`, `drawish`.
    Describes,
    /// The word in another sense: `draw your attention`, `leave it`, `eine schwere Aufgabe`,
    /// a wish (`schöne Feiertage`), `Status` as a noun of something else.
    OtherSense,
}

/// What one sentence says about one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    Acts(Request),
    Asks(Ask),
    Declines {
        kind: RequestKind,
        why: Why,
    },
    /// A director's command in a sentence (`Ich werte die Partie als Remis.`); the core decides
    /// whether the writer may give it.
    Commands(DirectorCommand),
}

/// Requests that answer the same question: a draw (offer, acceptance, claim), a resignation,
/// an announcement, a leave, a take-back, a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    Draw,
    Resign,
    Announce,
    Leave,
    TakeBack,
    Status,
    /// The director's desk (TO §11, §23, §26, §29, §30).
    Desk,
}

impl RequestKind {
    /// The family of the kind.
    pub fn family(self) -> Family {
        match self {
            RequestKind::Offer | RequestKind::Accept | RequestKind::Draw | RequestKind::Claim => {
                Family::Draw
            }
            RequestKind::Resign => Family::Resign,
            RequestKind::Announce => Family::Announce,
            RequestKind::Leave => Family::Leave,
            RequestKind::TakeBack => Family::TakeBack,
            RequestKind::Status => Family::Status,
            // A leave taken back, not asked for: what a take-back reads (TO §4, §24).
            RequestKind::WithdrawLeave => Family::TakeBack,
            RequestKind::Records
            | RequestKind::Withdrawal
            | RequestKind::Question
            | RequestKind::ThroughDirector => Family::Desk,
        }
    }
}

impl Reading {
    /// The family of the request the reading is about; `None` for a director's command.
    pub fn family(&self) -> Option<Family> {
        self.kind().map(RequestKind::family)
    }

    /// The kind of request the reading is about; `None` for a director's command.
    pub fn kind(&self) -> Option<RequestKind> {
        match self {
            Reading::Acts(r) => Some(r.kind()),
            Reading::Asks(a) => Some(a.kind),
            Reading::Declines { kind, .. } => Some(*kind),
            Reading::Commands(_) => None,
        }
    }
}
