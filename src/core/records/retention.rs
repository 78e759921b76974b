//! Fax 2.8 / TO §11: the archive (every mail in and out) is kept until at least four weeks after
//! the tournament's end; only then may it be rotated away.
//!
//! Interpretation, once: a tournament has ended when every one of its games is finished; its
//! end is the moment its last game ended. Rotation removes the archived mails of that
//! tournament once `now` is at least [`KEEP_DAYS`] (28) days after that end — never earlier, and
//! never while a single game is still open (suspended or adjourned games are open).

use chrono::{DateTime, Duration, Utc};

use crate::core::model::{GameStatus, Output, State};

/// Days the archive is kept after the tournament's end (Fax 2.8: four weeks).
pub const KEEP_DAYS: i64 = 28;

/// Whether the archive of a tournament may be rotated at `now`: `ends` holds, per game, when it
/// ended (`None`: still open).
pub fn may_rotate(ends: &[Option<DateTime<Utc>>], now: DateTime<Utc>) -> bool {
    rotate_at(ends).is_some_and(|at| now >= at)
}

/// From when the archive of a tournament whose games ended at `ends` may be rotated: [`KEEP_DAYS`]
/// after its last game ended, once every game ended (`None` while one is open, or without games).
pub fn rotate_at(ends: &[Option<DateTime<Utc>>]) -> Option<DateTime<Utc>> {
    let mut last = None;
    for e in ends {
        last = last.max(Some((*e)?));
    }
    last.map(|end| end + Duration::days(KEEP_DAYS))
}

impl State {
    /// Fax 2.8: from when tournament `id` may be rotated ([`rotate_at`]); `None` when it is
    /// unknown, already rotated, still open, or not all its games are at hand (a shell that keeps
    /// only some games in memory asks only about tournaments whose games it holds).
    pub fn rotation_at(&self, id: &str) -> Option<DateTime<Utc>> {
        let t = self.tournaments.get(id).filter(|t| !t.rotated)?;
        // As [`rotate_at`], stopping at the first open game (in a running tournament, one of
        // the first: the index of deadlines asks after every step).
        let mut last = None;
        for g in &t.games {
            let end = self
                .games
                .get(g)
                .filter(|g| g.status == GameStatus::Finished)
                .and_then(|g| g.ended_at)?;
            last = last.max(Some(end));
        }
        last.map(|end| end + Duration::days(KEEP_DAYS))
    }
}

/// Fax 2.8: marks every tournament whose archive may be rotated at `now` as rotated, and says
/// which in `Output::rotate`; the shell removes their archived mails.
pub(crate) fn rotate_due(state: &mut State, now: DateTime<Utc>) -> Output {
    let mut out = Output::default();
    let due: Vec<String> = state
        .tournaments
        .keys()
        .filter(|id| state.rotation_at(id).is_some_and(|at| now >= at))
        .cloned()
        .collect();
    for id in due {
        if let Some(t) = state.tournaments.get_mut(&id) {
            t.rotated = true;
            t.rotated_at = Some(now);
            out.tournaments.insert(id.clone());
            out.rotate.push((id, t.games.iter().cloned().collect()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn t(d: u32, h: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2027, 3, 1, h, 0, 0).unwrap() + Duration::days(i64::from(d))
    }

    #[test]
    fn fax_2_8_archive_kept_four_weeks_after_the_last_game() {
        let ends = [Some(t(0, 10)), Some(t(5, 12))];
        // Every hour from the end to 28 days later: never.
        let mut now = t(5, 12);
        while now < t(33, 12) {
            assert!(!may_rotate(&ends, now), "rotated early at {now}");
            now += Duration::hours(1);
        }
        assert!(!may_rotate(&ends, t(33, 11)));
        assert!(may_rotate(&ends, t(33, 12)));
        assert!(may_rotate(&ends, t(400, 0)));
        // One open game: never, however late.
        assert!(!may_rotate(&[Some(t(0, 0)), None], t(4000, 0)));
        assert!(!may_rotate(&[], t(4000, 0)));
    }
}
