//! The sending host's limits (`[smtp] max_per_hour`, `max_per_day`): how many more mails may go
//! now, and when the next may go once none may. Hosts count recipients, not messages, in a
//! rolling window (Gmail: a rolling 24 hours of To, Cc and Bcc; docs/operating.md, "Sending
//! limits"); the relay sends one mail per envelope recipient, so one accepted mail is one.
//!
//! The mails sent are kept per minute ([`SendWindow`]); a minute counts for a window until its
//! own end plus the window, so that the window is never under-counted. What the [`urgent`] mails
//! (moves, receipts, queries) are expected to need is kept for them: the others wait first.
//!
//! ```
//! use chrono::{TimeZone, Utc};
//! use fernzug::core::unreachable::limits::{Limits, SendWindow, budget};
//! let nine = Utc.with_ymd_and_hms(2026, 12, 7, 9, 0, 0).unwrap();
//! let mut sent = SendWindow::default();
//! sent.record(nine, 100, 0);
//! let limits = Limits { per_hour: 100, per_day: 0 };
//! assert_eq!(budget(&sent, limits, nine).left, Some(0));
//! let ten = Utc.with_ymd_and_hms(2026, 12, 7, 10, 1, 0).unwrap();
//! assert_eq!(budget(&sent, limits, ten).left, Some(100));
//! ```

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

/// An hour and a day, in minutes.
const HOUR: i64 = 60;
const DAY: i64 = 24 * 60;

/// The mails sent, per minute (the minute's number since the epoch), for the last day: all of
/// them, and the [`urgent`] ones among them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendWindow {
    minutes: BTreeMap<i64, u32>,
    #[serde(default)]
    urgent: BTreeMap<i64, u32>,
}

fn minute(at: DateTime<Utc>) -> i64 {
    at.timestamp().div_euclid(60)
}

/// The sum of `counts` over the `span` minutes up to minute `m` (and the minute `m - span`,
/// which still overlaps the window).
fn sum(counts: &BTreeMap<i64, u32>, m: i64, span: i64) -> u32 {
    counts
        .range(m - span..=m)
        .fold(0u32, |s, (_, n)| s.saturating_add(*n))
}

impl SendWindow {
    /// `n` mails sent at `at`, `urgent` of them [`urgent`]; what is older than a day is
    /// forgotten.
    pub fn record(&mut self, at: DateTime<Utc>, n: u32, urgent: u32) {
        let m = minute(at);
        for (counts, k) in [(&mut self.minutes, n), (&mut self.urgent, urgent.min(n))] {
            if k > 0 {
                let c = counts.entry(m).or_default();
                *c = c.saturating_add(k);
            }
            *counts = counts.split_off(&(m - DAY));
        }
    }

    /// The mails sent in the `span` minutes up to `now`.
    pub fn used(&self, now: DateTime<Utc>, span: i64) -> u32 {
        sum(&self.minutes, minute(now), span)
    }

    /// The [`urgent`] mails sent in the `span` minutes up to `now`.
    pub fn urgent(&self, now: DateTime<Utc>, span: i64) -> u32 {
        sum(&self.urgent, minute(now), span)
    }

    /// The first instant after `now` at which fewer than `limit` mails (`bulk`: of those not
    /// urgent) were sent in `span`: when the oldest minutes leave the window.
    fn frees(&self, now: DateTime<Utc>, span: i64, limit: u32, bulk: bool) -> DateTime<Utc> {
        let m = minute(now);
        let of = |at: i64, n: u32| {
            if bulk {
                n.saturating_sub(self.urgent.get(&at).copied().unwrap_or(0))
            } else {
                n
            }
        };
        let mut used: u32 = self
            .minutes
            .range(m - span..=m)
            .fold(0, |s, (&at, &n)| s.saturating_add(of(at, n)));
        for (&at, &n) in self.minutes.range(m - span..=m) {
            used = used.saturating_sub(of(at, n));
            if used < limit {
                // The minute `at` counts until the end of minute `at + span`.
                return DateTime::from_timestamp((at + span + 1) * 60, 0).unwrap_or(now);
            }
        }
        now + Duration::minutes(span + 1)
    }
}

/// `[smtp] max_per_hour` and `max_per_day`; 0: no limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Limits {
    pub per_hour: u32,
    pub per_day: u32,
}

/// How many mails may go now ([`budget`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Budget {
    /// How many more may go now; `None`: no limit is set.
    pub left: Option<u32>,
    /// How many of them may be mails that are not [`urgent`] ([`budget`]).
    pub bulk: Option<u32>,
    /// When a limit holds mail back (every mail, or the ones not urgent): when the next may go.
    pub next_free: Option<DateTime<Utc>>,
}

/// The part of each limit kept for the [`urgent`] mails: what they are expected to need in a
/// window — the last hour's urgent mails for every hour of it, and a quarter more — and at least a
/// fifth of the limit.
fn reserve(limit: u32, span: i64, last_hour_urgent: u32) -> u32 {
    let expected = u64::from(last_hour_urgent) * (span as u64 / HOUR as u64) * 5 / 4;
    (limit / 5)
        .max(u32::try_from(expected).unwrap_or(u32::MAX))
        .min(limit)
}

/// What `limits` leave at `now`, after the mails of `sent`. The mails that are not [`urgent`]
/// (a tournament's start mails, reminders, reports) may use only what the urgent ones are not
/// expected to need (the last hour's urgent mails for each hour of the window, a quarter more, at
/// least a fifth of the limit): a busy tournament's moves are never held up for a day by its
/// start mails; those wait and go as the window leaves room.
pub fn budget(sent: &SendWindow, limits: Limits, now: DateTime<Utc>) -> Budget {
    let mut b = Budget::default();
    let least = |a: Option<u32>, here: u32| Some(a.map_or(here, |l| l.min(here)));
    let rate = sent.urgent(now, HOUR);
    for (limit, span) in [(limits.per_hour, HOUR), (limits.per_day, DAY)] {
        if limit == 0 {
            continue;
        }
        let used = sent.used(now, span);
        let bulk_used = used.saturating_sub(sent.urgent(now, span));
        let bulk_limit = limit - reserve(limit, span, rate);
        let here = limit.saturating_sub(used);
        let bulk = here.min(bulk_limit.saturating_sub(bulk_used));
        b.left = least(b.left, here);
        b.bulk = least(b.bulk, bulk);
        let free = if here == 0 {
            Some(sent.frees(now, span, limit, false))
        } else if bulk == 0 && bulk_limit > 0 {
            Some(sent.frees(now, span, bulk_limit, true))
        } else if bulk == 0 {
            // Everything is expected to be needed by urgent mails: look again in a while.
            Some(now + Duration::minutes(HOUR))
        } else {
            None
        };
        if let Some(free) = free {
            b.next_free = Some(b.next_free.map_or(free, |f| f.max(free)));
        }
    }
    b
}

/// The mails that go first when a limit holds the others back: a move, its receipt, a query
/// about a move — and the operator's alert, which does not count (it goes even when nothing
/// else may).
pub fn urgent(kind: &str) -> bool {
    matches!(kind, "move" | "receipt" | "query" | "alert")
}
