//! [`MailKind`]: the kinds of mail the relay sends (docs/contract.md: `X-Fernzug-Kind`).

use serde::{Deserialize, Serialize};

/// The kind of an outgoing mail, as written in `X-Fernzug-Kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MailKind {
    Start,
    Move,
    Receipt,
    Query,
    Reminder,
    SilenceReport,
    TimeForfeit,
    TimeForfeit2,
    Leave,
    GameEnd,
    Adjudication,
    BounceReport,
    Status,
    Digest,
    Director,
    Alert,
    Message,
    ClockWarning,
    Help,
    Overview,
    TournamentEnd,
}

impl MailKind {
    /// The header value and the template name.
    pub fn name(self) -> &'static str {
        match self {
            MailKind::Start => "start",
            MailKind::Move => "move",
            MailKind::Receipt => "receipt",
            MailKind::Query => "query",
            MailKind::Reminder => "reminder",
            MailKind::SilenceReport => "silence-report",
            MailKind::TimeForfeit => "time-forfeit",
            MailKind::TimeForfeit2 => "time-forfeit-2",
            MailKind::Leave => "leave",
            MailKind::GameEnd => "game-end",
            MailKind::Adjudication => "adjudication",
            MailKind::BounceReport => "bounce-report",
            MailKind::Status => "status",
            MailKind::Digest => "digest",
            MailKind::Director => "director",
            MailKind::Alert => "alert",
            MailKind::Message => "message",
            MailKind::ClockWarning => "clock-warning",
            MailKind::Help => "help",
            MailKind::Overview => "overview",
            MailKind::TournamentEnd => "tournament-end",
        }
    }

    /// Every kind.
    pub const ALL: [MailKind; 21] = [
        MailKind::Start,
        MailKind::Move,
        MailKind::Receipt,
        MailKind::Query,
        MailKind::Reminder,
        MailKind::SilenceReport,
        MailKind::TimeForfeit,
        MailKind::TimeForfeit2,
        MailKind::Leave,
        MailKind::GameEnd,
        MailKind::Adjudication,
        MailKind::BounceReport,
        MailKind::Status,
        MailKind::Digest,
        MailKind::Director,
        MailKind::Alert,
        MailKind::Message,
        MailKind::ClockWarning,
        MailKind::Help,
        MailKind::Overview,
        MailKind::TournamentEnd,
    ];

    /// Whether the mail carries `X-Fernzug-FEN` (docs/contract.md).
    pub fn carries_fen(self) -> bool {
        matches!(
            self,
            MailKind::Start
                | MailKind::Move
                | MailKind::Receipt
                | MailKind::Reminder
                | MailKind::GameEnd
                | MailKind::Adjudication
        )
    }
}
