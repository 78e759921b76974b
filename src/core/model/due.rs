//! [`Due`]: what time alone makes happen in a game (TO §16–§21), the kinds of deadline.

/// Something that falls due at an instant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Due {
    /// The tournament's start: its games begin running.
    Start,
    /// TO §16: the reminder to the silent player, through the director.
    Reminder,
    /// TO §16: the silence report to the director, 14 days after the reminder.
    SilenceReport,
    /// TO §17: the days left before the control fall to `warn_days`: the player is warned.
    ClockWarning,
    /// TO §17: the limit is exceeded.
    Forfeit,
    /// TO §23: a director's question unanswered for 14 days (game `TOURNAMENT/0`).
    Question,
    /// The weekly director digest of a tournament (`crate::core::time::digest`; game `TOURNAMENT/0`).
    Digest,
    /// TO §27: the last game of a tournament ended; its end is reported to every player and the
    /// director (`crate::core::records::tournament_end`; game `TOURNAMENT/0`).
    TournamentEnd,
}

impl Due {
    /// Its name as `fernzug status` shows it (`reminder`, `silence-report`, `clock-warning`,
    /// …), the words of the mail kinds it sends.
    pub fn name(self) -> &'static str {
        match self {
            Due::Start => "start",
            Due::Reminder => "reminder",
            Due::SilenceReport => "silence-report",
            Due::ClockWarning => "clock-warning",
            Due::Forfeit => "forfeit",
            Due::Question => "question",
            Due::Digest => "digest",
            Due::TournamentEnd => "tournament-end",
        }
    }
}
