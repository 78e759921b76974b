//! The thinking-time clock (TO §12–§24, Fax 1.4–1.5): pure arithmetic on instants, no IO and no
//! system clock. Every function takes the instants it needs; "now" is the caller's business.
//!
//! The rulebook leaves some choices open. They are fixed here, once, and applied by the code below:
//!
//! * **Local calendar days (TO §12, Fax 1.4).** A day is a calendar date in the player's time zone
//!   `tz`, never a span of 24 hours. A DST night (23 or 25 hours) is one day like any other, so it
//!   never changes a day count. The day count of an instant is its local date; where a backward
//!   clock change makes the local date fall back (a change across midnight), the later date,
//!   once reached, stays reached, so that no count ever goes down.
//! * **Post counting (TO §12).** Days used for a move = the number of calendar days from the
//!   receipt date (exclusive) to the answer date (inclusive): answered the same day = 0, the next
//!   day = 1. A day starts at the first instant that shows 00:00 of that date in `tz` (or, when a
//!   DST gap swallows midnight, the first instant after it).
//! * **24-hour rule (Fax 1.4).** Both instants are truncated to the minute (a fax header prints
//!   minutes). "Within 24 hours" is read on the wall clock of `tz`, as the Fax example does
//!   ("received 27.10. 21:07, answered on 28.10. up to 21:06 → 0 days"): a move costs 0 days when
//!   answered before the first instant that shows the receipt's local time one day later;
//!   from that instant on it costs the calendar days of the post counting. So 27.10. 21:07 →
//!   28.10. 21:06 = 0 days, 28.10. 21:07 (exactly 24 hours) = 1 day, 28.10. 23:59 = 1 day,
//!   29.10. 00:00 = 2 days, with or without a DST change in between.
//! * **Truncation (both rule sets).** [`days_used`] truncates both instants to the minute, so
//!   [`instant_when_days_reach`] answers with a whole minute.
//! * **Leave (TO §24).** A day inside a [`Rest`] of the player never counts. A move received during
//!   a rest counts as received at 00:00 (local) of the first day after the rest; under Fax 1.4 the
//!   24 hours then run from that 00:00. A rest with `from > to` is empty. Overlapping or adjacent
//!   rests count as one. Ending a leave early (TO §24: the day before the player sends a move) is
//!   the caller's business: it passes the rest as it really was.
//! * **Penalty (TO §13).** "More than 10 days" = days used ≥ 11. The +5 days are charged to the
//!   running move from the instant its days used reach 11, so they count towards the limit (§17)
//!   at once, not only when the move is made.
//! * **Cumulative limit (TO §12, §17).** The limit after own move `k` of a period is
//!   `days_per_period × ceil(k/10)`; days saved on earlier moves stay available (TO §12 "ersparte
//!   Bedenkzeit wird gutgeschrieben"), because the period's used days are compared with the
//!   cumulative limit, never per move.
//! * **Reminder and silence report (TO §16, §13).** "After 16 days without answer" = the instant the
//!   silent player's days used, counted by calendar days (post counting under either rule set: the
//!   reminder duty is about days waited, not about the 24-hour rule), reach 16 (26 with a §13
//!   announcement), i.e. 00:00 local of receipt date + 16; a move received 1 Dec is reminded on
//!   17 Dec at 00:00. The silence report follows 14 days of further silence: days used 30 (40).
//!   The silent player's rest days do not count (TO §24: all his deadlines rest).
//! * **First forfeit (TO §20).** The relay claims every forfeit the moment it happens (TO §19), and
//!   the relay itself keeps §15 and §16, so the days beyond 20 always carry into the new period.
//!   The overhang is measured when the offender finally makes the move on which he exceeded.
//! * **Extreme inputs.** Instants or day counts beyond what `chrono` can represent never panic:
//!   an instant that cannot be represented is answered with [`DateTime::<Utc>::MAX_UTC`], counts
//!   saturate.

use chrono::{
    DateTime, Datelike, Days, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeDelta, TimeZone,
    Timelike, Utc, Weekday,
};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::rules::RuleSet;

/// TO §24: a leave lasts at least 7 consecutive days.
pub const MIN_LEAVE_DAYS: i64 = 7;
/// TO §24: up to 6 weeks of leave per tournament year.
pub const BUDGET_DAYS: i64 = 42;

/// Days the relay does not count for a player (his leave, TO §24), both ends included, local dates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rest {
    /// First day of the rest.
    pub from: NaiveDate,
    /// Last day of the rest (included).
    pub to: NaiveDate,
}

/// Days over which TO §13 demands an announcement: "more than 10 days".
const ANNOUNCE_AFTER_DAYS: u32 = 10;
/// TO §13: extra days charged to a move that took more than 10 days without announcement.
const PENALTY_DAYS: u32 = 5;
/// TO §16: days without answer after which the reminder is due.
const REMINDER_DAYS: u32 = 16;
/// TO §13, §16: the same with an announcement.
const REMINDER_DAYS_ANNOUNCED: u32 = 26;
/// TO §16: further days of silence after the reminder before TL is informed.
const SILENCE_AFTER_REMINDER_DAYS: u32 = 14;
/// TO §20: overhanging days that are forgiven at a first forfeit.
const FORGIVEN_OVERHANG_DAYS: u32 = 20;
/// Moves per period (TO §12, §17).
const MOVES_PER_PERIOD: u32 = 10;
/// How far past a nonexistent local time (DST gap, skipped day) to look for the next existing one.
const GAP_PROBE_MINUTES: i64 = 48 * 60;

/// Days used for one move (TO §12 post: calendar days between receipt date and answer date, same
/// day = 0; Fax 1.4: 0 if answered less than 24 h after receipt, compared at minute precision, else
/// the calendar days), in the time zone `tz`, correct across DST. Days inside a `Rest` are not
/// counted; a move received during a rest counts as received at 00:00 of the day after the rest
/// ends (TO §24). Never negative (answered before received → 0). The interpretations are in the
/// module documentation.
pub fn days_used(
    rules: RuleSet,
    received: DateTime<Utc>,
    answered: DateTime<Utc>,
    tz: Tz,
    rest: &[Rest],
) -> u32 {
    Counter::new(rules, received, tz, rest).days_at(answered)
}

/// The earliest instant t ≥ received with days_used(rules, received, t, tz, rest) >= days.
/// (days == 0 → received.) [`DateTime::<Utc>::MAX_UTC`] when that instant cannot be represented.
pub fn instant_when_days_reach(
    rules: RuleSet,
    received: DateTime<Utc>,
    days: u32,
    tz: Tz,
    rest: &[Rest],
) -> DateTime<Utc> {
    Counter::new(rules, received, tz, rest).instant_reaching(received, days)
}

/// The cumulative limit after own move k of a period (TO §12, §17): days_per_period × ceil(k/10).
/// k ≥ 1 (k = 0 gives 0). Saturates instead of overflowing.
pub fn limit(rules: RuleSet, k: u32) -> u32 {
    rules
        .days_per_period()
        .saturating_mul(k.div_ceil(MOVES_PER_PERIOD))
}

/// TO §13: days charged for a move: the days used, +5 when more than 10 days were used without
/// announcement.
pub fn charged(days_used: u32, announced: bool) -> u32 {
    if days_used > ANNOUNCE_AFTER_DAYS && !announced {
        days_used.saturating_add(PENALTY_DAYS)
    } else {
        days_used
    }
}

/// The fewest days used on the running move with which its charge exceeds `room` (TO §13, §17):
/// the least `d` with `charged(d, announced) > room`; `None` if no `u32` charge can exceed it.
fn least_days_exceeding(room: u32, announced: bool) -> Option<u32> {
    let plain = room.checked_add(1)?;
    if plain <= ANNOUNCE_AFTER_DAYS || announced {
        return Some(plain);
    }
    // Without announcement every d ≥ 11 is charged d + 5 (TO §13).
    Some(
        plain
            .saturating_sub(PENALTY_DAYS)
            .max(ANNOUNCE_AFTER_DAYS + 1),
    )
}

/// Which time forfeit (TO §17) a player commits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Forfeit {
    /// The first ZÜ: the game goes on, the offender's period restarts (TO §20).
    First,
    /// The second ZÜ: claimed with TL, the game is stopped (TO §21, §22).
    Second,
}

/// What [`PlayerClock::record_move`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recorded {
    /// Days used in the period including this move (before any restart).
    pub used: u32,
    /// The limit for this move (TO §17).
    pub allowed: u32,
    /// Whether this move exceeded the limit (`used > allowed`, TO §17).
    pub exceeded: bool,
    /// `Some(carry)` when this move closed a period after a first ZÜ (TO §20): the new period starts
    /// with the next move, with `carry` days already used.
    pub period_restarted: Option<u32>,
}

/// One player's clock in one game.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PlayerClock {
    /// Own moves completed in the current period (TO §17; after a first ZÜ the period restarts, §20).
    pub moves_in_period: u32,
    /// Days charged to the current period (completed moves, incl. §20 carry and §30 adjustments;
    /// can't go below 0).
    pub used_in_period: u32,
    /// Time forfeits so far: 0, 1 or 2 (TO §17–§21).
    pub forfeits: u8,
    /// A first ZÜ happened on the move now being thought on (or just made): the period restarts
    /// when he moves (TO §20).
    pub restart_pending: bool,
    /// The time control (1, 2, … within the period, see [`PlayerClock::control`]) the player
    /// was last warned of (`clock-warning`); 0: none yet. A restarted period (TO §20) starts
    /// again at 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub warned_control: u32,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl PlayerClock {
    /// k: the number, within the period, of the move being thought on.
    pub fn k(&self) -> u32 {
        self.moves_in_period.saturating_add(1)
    }

    /// The number of the time control (TO §17) the move being thought on counts towards: 1 for
    /// moves 1–10 of the period, 2 for 11–20, ….
    pub fn control(&self) -> u32 {
        self.k().div_ceil(MOVES_PER_PERIOD)
    }

    /// The moves still to be made before the next control, the one being thought on included.
    pub fn moves_to_control(&self) -> u32 {
        (self.control() * MOVES_PER_PERIOD).saturating_sub(self.k()) + 1
    }

    /// The limit for the move being thought on (TO §17).
    pub fn allowed(&self, rules: RuleSet) -> u32 {
        limit(rules, self.k())
    }

    /// Days used in the period including a running move that has `running_charged` days charged
    /// so far.
    pub fn used_with(&self, running_charged: u32) -> u32 {
        self.used_in_period.saturating_add(running_charged)
    }

    /// TO §17: whether the limit is exceeded with the running move charged so.
    pub fn exceeded_with(&self, rules: RuleSet, running_charged: u32) -> bool {
        self.used_with(running_charged) > self.allowed(rules)
    }

    /// Which forfeit is due now, with the running move charged `running_charged` days
    /// (TO §17, §20, §21): `First` when he has none yet and exceeds; `Second` when he has one, its
    /// period has restarted (no `restart_pending`) and he exceeds again; `None` otherwise.
    pub fn forfeit_due(&self, rules: RuleSet, running_charged: u32) -> Option<Forfeit> {
        if !self.exceeded_with(rules, running_charged) {
            return None;
        }
        match (self.forfeits, self.restart_pending) {
            (0, _) => Some(Forfeit::First),
            (1, false) => Some(Forfeit::Second),
            _ => None,
        }
    }

    /// Register a claimed forfeit (TO §18–§21). The first sets `restart_pending` (TO §20); the
    /// second is the last: `forfeits` stays at 2 and calling again changes nothing.
    pub fn register_forfeit(&mut self) -> Forfeit {
        if self.forfeits == 0 {
            self.forfeits = 1;
            self.restart_pending = true;
            Forfeit::First
        } else {
            self.forfeits = 2;
            Forfeit::Second
        }
    }

    /// Record a completed own move charged `charged` days (use [`charged`]). If `restart_pending`
    /// (first ZÜ on this move), apply TO §20: overhang = used − limit at that move; the new period
    /// starts with the next move with carry = max(0, overhang − 20). A move that exceeds the limit
    /// without a registered forfeit is reported (`exceeded`) but restarts nothing: register the
    /// forfeit first ([`PlayerClock::register_forfeit`]) when it was not claimed yet.
    pub fn record_move(&mut self, rules: RuleSet, charged: u32) -> Recorded {
        let allowed = self.allowed(rules);
        let used = self.used_with(charged);
        let exceeded = used > allowed;
        let period_restarted = if self.restart_pending {
            let carry = used
                .saturating_sub(allowed)
                .saturating_sub(FORGIVEN_OVERHANG_DAYS);
            self.moves_in_period = 0;
            self.used_in_period = carry;
            self.restart_pending = false;
            self.warned_control = 0;
            Some(carry)
        } else {
            self.moves_in_period = self.moves_in_period.saturating_add(1);
            self.used_in_period = used;
            None
        };
        Recorded {
            used,
            allowed,
            exceeded,
            period_restarted,
        }
    }

    /// Add (positive) or remove (negative) days by the director (TO §30; §8 lost time; Fax 2.2),
    /// saturating at 0 (and at `u32::MAX`).
    pub fn adjust(&mut self, days: i32) {
        let adjusted = i64::from(self.used_in_period) + i64::from(days);
        self.used_in_period = u32::try_from(adjusted.max(0)).unwrap_or(u32::MAX);
    }
}

/// When the running move will exceed the limit (TO §17), i.e. the earliest instant t at which
/// `clock.used_with(charged(days_used(received, t), announced)) > clock.allowed(rules)`;
/// `received` when already exceeded then. Takes the §13 +5 jump into account (it applies from the
/// instant days_used becomes 11). [`DateTime::<Utc>::MAX_UTC`] when it can never happen.
pub fn forfeit_instant(
    rules: RuleSet,
    clock: &PlayerClock,
    received: DateTime<Utc>,
    announced: bool,
    tz: Tz,
    rest: &[Rest],
) -> DateTime<Utc> {
    let room = clock.allowed(rules).checked_sub(clock.used_in_period);
    instant_charged_beyond(rules, received, announced, tz, rest, room)
}

/// The earliest instant at which the running move's charge (TO §13) exceeds `room` days:
/// `received` when there is no room (`None`); [`DateTime::<Utc>::MAX_UTC`] when no charge can.
fn instant_charged_beyond(
    rules: RuleSet,
    received: DateTime<Utc>,
    announced: bool,
    tz: Tz,
    rest: &[Rest],
    room: Option<u32>,
) -> DateTime<Utc> {
    let days = match room {
        None => 0,
        Some(room) => match least_days_exceeding(room, announced) {
            Some(days) => days,
            None => return DateTime::<Utc>::MAX_UTC,
        },
    };
    instant_when_days_reach(rules, received, days, tz, rest)
}

/// TO §17: when the player on move is to be warned that his time runs short: the first instant
/// at which the days left before his next control (its limit, less the days charged to the
/// period and to the running move with TO §13's surcharge) are `warn_days` or fewer; his rests
/// (leave) do not count. At once (`received`) when they are that few from the start;
/// [`DateTime::<Utc>::MAX_UTC`] when it cannot come.
pub fn warning_instant(
    rules: RuleSet,
    clock: &PlayerClock,
    received: DateTime<Utc>,
    announced: bool,
    tz: Tz,
    rest: &[Rest],
    warn_days: u32,
) -> DateTime<Utc> {
    // Days left ≤ warn_days: the charge exceeds room - warn_days - 1.
    let room = clock.allowed(rules).saturating_sub(clock.used_in_period);
    let beyond = room.checked_sub(warn_days.saturating_add(1));
    instant_charged_beyond(rules, received, announced, tz, rest, beyond)
}

/// TO §16: when the reminder is due: 16 days without answer (26 with a §13 announcement) of the
/// silent player who received the move at `received`, counted by calendar days under either rule
/// set; `rest` are the silent player's rests.
pub fn reminder_instant(
    received: DateTime<Utc>,
    announced: bool,
    tz: Tz,
    rest: &[Rest],
) -> DateTime<Utc> {
    instant_when_days_reach(RuleSet::Post, received, reminder_days(announced), tz, rest)
}

/// TO §16: when TL must be told of the silence: 14 days after the reminder (days used 30, or 40
/// with a §13 announcement).
pub fn silence_report_instant(
    received: DateTime<Utc>,
    announced: bool,
    tz: Tz,
    rest: &[Rest],
) -> DateTime<Utc> {
    instant_when_days_reach(
        RuleSet::Post,
        received,
        reminder_days(announced) + SILENCE_AFTER_REMINDER_DAYS,
        tz,
        rest,
    )
}

fn reminder_days(announced: bool) -> u32 {
    if announced {
        REMINDER_DAYS_ANNOUNCED
    } else {
        REMINDER_DAYS
    }
}

/// The day counting of one running move: the module's interpretations in one place.
struct Counter {
    tz: Tz,
    /// Valid rests, sorted, overlapping or adjacent ones merged.
    rests: Vec<Rest>,
    /// The receipt date after the TO §24 shift: days after it count.
    base: NaiveDate,
    /// The receipt instant after the TO §24 shift, truncated to the minute.
    start: DateTime<Utc>,
    /// Fax 1.4: the first instant at which the move costs anything (receipt + 24 h on the wall
    /// clock); `None` under post rules.
    grace_end: Option<DateTime<Utc>>,
}

impl Counter {
    fn new(rules: RuleSet, received: DateTime<Utc>, tz: Tz, rest: &[Rest]) -> Self {
        let rests = merge_rests(rest);
        let received = truncate_to_minute(received);
        let mut base = monotone_date(tz, received);
        let mut start = received;
        // TO §24: received during a rest → received at 00:00 of the day after it. Rests are merged,
        // so the day after a rest is never inside another one.
        if let Some(r) = rests.iter().find(|r| r.from <= base && base <= r.to) {
            match r.to.succ_opt() {
                Some(next) => {
                    base = next;
                    start = start_of_day(tz, next).unwrap_or(DateTime::<Utc>::MAX_UTC);
                }
                None => {
                    base = r.to;
                    start = DateTime::<Utc>::MAX_UTC;
                }
            }
        }
        let grace_end = match rules {
            RuleSet::Post => None,
            RuleSet::Fax => Some(
                local_naive(tz, start)
                    .checked_add_days(Days::new(1))
                    .and_then(|n| first_instant_showing(tz, n))
                    .unwrap_or(DateTime::<Utc>::MAX_UTC),
            ),
        };
        Counter {
            tz,
            rests,
            base,
            start,
            grace_end,
        }
    }

    /// Days used when answered at `answered`.
    fn days_at(&self, answered: DateTime<Utc>) -> u32 {
        let answered = truncate_to_minute(answered);
        if answered < self.start || self.grace_end.is_some_and(|g| answered < g) {
            return 0;
        }
        self.counted_days_through(monotone_date(self.tz, answered))
    }

    /// The number of counted (non-rest) days after `base`, up to and including `end`.
    fn counted_days_through(&self, end: NaiveDate) -> u32 {
        if end <= self.base {
            return 0;
        }
        let first = self.base.succ_opt().unwrap_or(self.base);
        let all = (end - self.base).num_days();
        let resting: i64 = self
            .rests
            .iter()
            .map(|r| {
                let lo = r.from.max(first);
                let hi = r.to.min(end);
                if lo <= hi {
                    (hi - lo).num_days() + 1
                } else {
                    0
                }
            })
            .sum();
        u32::try_from((all - resting).max(0)).unwrap_or(u32::MAX)
    }

    /// The date on which the `days`-th counted day after `base` falls (`days ≥ 1`).
    fn nth_counted_date(&self, days: u32) -> Option<NaiveDate> {
        let mut pos = self.base;
        let mut remaining = i64::from(days);
        for r in &self.rests {
            if r.to <= pos {
                continue;
            }
            let free = (r.from - pos).num_days() - 1;
            if remaining <= free {
                break;
            }
            remaining -= free.max(0);
            pos = r.to;
        }
        pos.checked_add_days(Days::new(u64::try_from(remaining).ok()?))
    }

    /// The earliest instant ≥ `received` at which [`Counter::days_at`] reaches `days`.
    fn instant_reaching(&self, received: DateTime<Utc>, days: u32) -> DateTime<Utc> {
        if days == 0 {
            return received;
        }
        let Some(day_start) = self
            .nth_counted_date(days)
            .and_then(|d| start_of_day(self.tz, d))
        else {
            return DateTime::<Utc>::MAX_UTC;
        };
        let threshold = match self.grace_end {
            Some(g) => day_start.max(g),
            None => day_start,
        };
        ceil_to_minute(threshold).max(received)
    }
}

/// Valid rests (`from ≤ to`), sorted, overlapping or adjacent ones merged into one.
fn merge_rests(rest: &[Rest]) -> Vec<Rest> {
    let mut valid: Vec<Rest> = rest.iter().copied().filter(|r| r.from <= r.to).collect();
    valid.sort_by_key(|r| r.from);
    let mut merged: Vec<Rest> = Vec::with_capacity(valid.len());
    for r in valid {
        match merged.last_mut() {
            Some(last) if last.to.succ_opt().is_none_or(|next| r.from <= next) => {
                last.to = last.to.max(r.to);
            }
            _ => merged.push(r),
        }
    }
    merged
}

fn truncate_to_minute(t: DateTime<Utc>) -> DateTime<Utc> {
    t.with_second(0)
        .and_then(|t| t.with_nanosecond(0))
        .unwrap_or(t)
}

fn ceil_to_minute(t: DateTime<Utc>) -> DateTime<Utc> {
    let down = truncate_to_minute(t);
    if down == t {
        t
    } else {
        down.checked_add_signed(TimeDelta::minutes(1))
            .unwrap_or(DateTime::<Utc>::MAX_UTC)
    }
}

/// The wall-clock time of `t` in `tz`, clamped to the representable range.
fn local_naive(tz: Tz, t: DateTime<Utc>) -> NaiveDateTime {
    let utc = t.naive_utc();
    let offset = tz.offset_from_utc_datetime(&utc).fix();
    utc.checked_add_offset(offset)
        .unwrap_or(if offset.local_minus_utc() > 0 {
            NaiveDateTime::MAX
        } else {
            NaiveDateTime::MIN
        })
}

/// The first instant whose wall clock in `tz` shows `local`, or the first one after it when a DST
/// gap (or a skipped day) swallows `local`; `None` if out of range.
fn first_instant_showing(tz: Tz, local: NaiveDateTime) -> Option<DateTime<Utc>> {
    if let Some(t) = tz.from_local_datetime(&local).earliest() {
        return Some(t.with_timezone(&Utc));
    }
    (1..=GAP_PROBE_MINUTES).find_map(|m| {
        let probe = local.checked_add_signed(TimeDelta::minutes(m))?;
        tz.from_local_datetime(&probe)
            .earliest()
            .map(|t| t.with_timezone(&Utc))
    })
}

/// The instant at which the local date `day` starts in `tz`.
fn start_of_day(tz: Tz, day: NaiveDate) -> Option<DateTime<Utc>> {
    first_instant_showing(tz, day.and_time(NaiveTime::MIN))
}

/// The local date of `t` in `tz`, made monotone: when a backward clock change across midnight
/// shows the previous date again, the later date, already reached, stays.
fn monotone_date(tz: Tz, t: DateTime<Utc>) -> NaiveDate {
    let date = local_naive(tz, t).date();
    match date.succ_opt() {
        Some(next) if start_of_day(tz, next).is_some_and(|s| s <= t) => next,
        _ => date,
    }
}

/// 00:00 local of `day` in `tz` (or the first minute after it that exists, within three hours):
/// when a weekly mail of that day is due (the director's digest, the players' overview).
pub fn local_midnight(day: NaiveDate, tz: Tz) -> Option<DateTime<Utc>> {
    (0..=180).find_map(|m| {
        let local = day.and_hms_opt(0, 0, 0)? + TimeDelta::minutes(m);
        tz.from_local_datetime(&local)
            .earliest()
            .map(|t| t.with_timezone(&Utc))
    })
}

/// The first date on or after `from` that falls on `day`.
pub fn weekday_on_or_after(from: NaiveDate, day: Weekday) -> NaiveDate {
    let ahead = (7 + day.num_days_from_monday() - from.weekday().num_days_from_monday()) % 7;
    from.checked_add_days(Days::new(u64::from(ahead)))
        .unwrap_or(from)
}

/// The latest date on or before `to` that falls on `day`.
pub fn weekday_on_or_before(to: NaiveDate, day: Weekday) -> NaiveDate {
    let back = (7 + to.weekday().num_days_from_monday() - day.num_days_from_monday()) % 7;
    to.checked_sub_days(Days::new(u64::from(back)))
        .unwrap_or(to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, NaiveDateTime};
    use chrono_tz::{America, Australia, Europe, Pacific, UTC};
    use proptest::prelude::*;

    const BERLIN: Tz = Europe::Berlin;

    /// A local wall-clock time in `tz` ("2026-10-27 21:07" or with seconds), the earliest instant
    /// showing it.
    fn at(tz: Tz, local: &str) -> DateTime<Utc> {
        let naive = NaiveDateTime::parse_from_str(local, "%Y-%m-%d %H:%M")
            .or_else(|_| NaiveDateTime::parse_from_str(local, "%Y-%m-%d %H:%M:%S"))
            .expect("test time parses");
        tz.from_local_datetime(&naive)
            .earliest()
            .expect("test time exists")
            .with_timezone(&Utc)
    }

    fn date(s: &str) -> NaiveDate {
        NaiveDate::parse_from_str(s, "%Y-%m-%d").expect("test date parses")
    }

    fn rest(from: &str, to: &str) -> Rest {
        Rest {
            from: date(from),
            to: date(to),
        }
    }

    fn check_days(rules: RuleSet, tz: Tz, received: &str, rests: &[Rest], table: &[(&str, u32)]) {
        let received = at(tz, received);
        for &(answered, expected) in table {
            assert_eq!(
                days_used(rules, received, at(tz, answered), tz, rests),
                expected,
                "{rules:?}: answered {answered}"
            );
        }
    }

    #[test]
    fn fax_1_4_answer_within_24h_costs_nothing() {
        check_days(
            RuleSet::Fax,
            BERLIN,
            "2026-10-27 21:07",
            &[],
            &[
                ("2026-10-27 21:07", 0),
                ("2026-10-27 23:59", 0),
                ("2026-10-28 00:00", 0),
                ("2026-10-28 21:06", 0),
                ("2026-10-28 21:06:59", 0),
                ("2026-10-28 21:07", 1),
                ("2026-10-28 23:59", 1),
                ("2026-10-29 00:00", 2),
                ("2026-10-29 21:07", 2),
            ],
        );
    }

    #[test]
    fn fax_1_4_minute_precision_truncates_seconds() {
        // Received 21:07:59 is received 21:07: exactly 24 h at 21:07:00 the next day.
        check_days(
            RuleSet::Fax,
            BERLIN,
            "2026-10-27 21:07:59",
            &[],
            &[("2026-10-28 21:06:59", 0), ("2026-10-28 21:07:00", 1)],
        );
    }

    #[test]
    fn fax_1_4_24_hours_on_the_wall_clock_across_dst() {
        // Autumn: the night has 25 hours; 21:06 the next day is still "within 24 hours".
        check_days(
            RuleSet::Fax,
            BERLIN,
            "2026-10-24 21:07",
            &[],
            &[
                ("2026-10-25 21:06", 0),
                ("2026-10-25 21:07", 1),
                ("2026-10-26 00:00", 2),
            ],
        );
        // Spring: the night has 23 hours.
        check_days(
            RuleSet::Fax,
            BERLIN,
            "2026-03-28 21:07",
            &[],
            &[
                ("2026-03-29 21:06", 0),
                ("2026-03-29 21:07", 1),
                ("2026-03-30 00:00", 2),
            ],
        );
    }

    #[test]
    fn fax_1_4_24_hours_ending_in_a_dst_gap() {
        // 29.03.2026 02:30 does not exist in Berlin: the 24 hours end at 03:00 CEST.
        let received = at(BERLIN, "2026-03-28 02:30");
        let reached = instant_when_days_reach(RuleSet::Fax, received, 1, BERLIN, &[]);
        assert_eq!(reached, at(BERLIN, "2026-03-29 03:00"));
        assert_eq!(
            days_used(
                RuleSet::Fax,
                received,
                reached - Duration::minutes(1),
                BERLIN,
                &[]
            ),
            0
        );
    }

    #[test]
    fn s12_post_same_day_is_zero() {
        check_days(
            RuleSet::Post,
            BERLIN,
            "2026-12-01 10:00",
            &[],
            &[
                ("2026-12-01 10:00", 0),
                ("2026-12-01 23:59", 0),
                // Answered before received: never negative.
                ("2026-11-20 08:00", 0),
                ("2026-12-01 09:00", 0),
            ],
        );
    }

    #[test]
    fn s12_post_calendar_days() {
        check_days(
            RuleSet::Post,
            BERLIN,
            "2026-12-01 23:59",
            &[],
            &[
                ("2026-12-02 00:00", 1),
                ("2026-12-02 23:59", 1),
                ("2026-12-03 00:00", 2),
                ("2026-12-31 10:00", 30),
                ("2027-01-01 00:00", 31),
            ],
        );
    }

    #[test]
    fn s12_post_dst_spring_night_is_one_day() {
        check_days(
            RuleSet::Post,
            BERLIN,
            "2026-03-28 22:00",
            &[],
            &[
                ("2026-03-28 23:59", 0),
                ("2026-03-29 00:00", 1),
                ("2026-03-29 23:59", 1),
                ("2026-03-30 00:00", 2),
                ("2026-04-07 12:00", 10),
            ],
        );
    }

    #[test]
    fn s12_post_dst_autumn_night_is_one_day() {
        check_days(
            RuleSet::Post,
            BERLIN,
            "2026-10-24 22:00",
            &[],
            &[
                ("2026-10-24 23:59", 0),
                ("2026-10-25 00:00", 1),
                ("2026-10-25 23:59", 1),
                ("2026-10-26 00:00", 2),
                ("2026-11-03 12:00", 10),
            ],
        );
    }

    #[test]
    fn s12_post_time_zone_decides_the_date() {
        // 1 Dec 23:30 UTC is 2 Dec 00:30 in Berlin; 2 Dec 22:30 UTC is 23:30 there.
        let received = at(UTC, "2026-12-01 23:30");
        let answered = at(UTC, "2026-12-02 22:30");
        assert_eq!(days_used(RuleSet::Post, received, answered, BERLIN, &[]), 0);
        assert_eq!(days_used(RuleSet::Post, received, answered, UTC, &[]), 1);
    }

    #[test]
    fn s12_post_skipped_day_counts_once_it_is_reached() {
        // Samoa skipped 30 Dec 2011: 29 Dec 23:59 was followed by 31 Dec 00:00.
        let apia = Pacific::Apia;
        let received = at(apia, "2011-12-29 12:00");
        let midnight = instant_when_days_reach(RuleSet::Post, received, 1, apia, &[]);
        assert_eq!(midnight, at(apia, "2011-12-31 00:00"));
        assert_eq!(days_used(RuleSet::Post, received, midnight, apia, &[]), 2);
        assert_eq!(
            instant_when_days_reach(RuleSet::Post, received, 2, apia, &[]),
            midnight
        );
    }

    #[test]
    fn s12_post_clock_going_back_across_midnight_never_lowers_the_count() {
        // St. John's left DST on 7 Nov 2010 at 00:01 NDT (02:31 UTC), back to 6 Nov 23:01 NST.
        let st_johns = America::St_Johns;
        let received = at(st_johns, "2010-11-05 12:00");
        let utc = |s: &str| at(UTC, s);
        let count = |t| days_used(RuleSet::Post, received, t, st_johns, &[]);
        assert_eq!(count(utc("2010-11-07 02:29")), 1);
        assert_eq!(count(utc("2010-11-07 02:30")), 2);
        // Local 6 Nov 23:01 again: 7 Nov, once reached, stays reached.
        assert_eq!(count(utc("2010-11-07 02:31")), 2);
        assert_eq!(count(utc("2010-11-07 03:30")), 2);
        assert_eq!(
            instant_when_days_reach(RuleSet::Post, received, 2, st_johns, &[]),
            utc("2010-11-07 02:30")
        );
        assert_eq!(count(utc("2010-11-08 03:29")), 2);
        assert_eq!(count(utc("2010-11-08 03:30")), 3);
    }

    #[test]
    fn s13_more_than_10_days_without_announcement_costs_5() {
        for (used, expected) in [(0, 0), (1, 1), (10, 10), (11, 16), (30, 35)] {
            assert_eq!(charged(used, false), expected, "{used} days");
        }
    }

    #[test]
    fn s13_with_announcement_no_penalty() {
        for used in [0, 10, 11, 26, 30] {
            assert_eq!(charged(used, true), used, "{used} days");
        }
    }

    #[test]
    fn s13_penalty_applies_to_the_running_move_from_day_11() {
        // Post, first move of the period, 14 days used already: room for 16 more.
        let clock = PlayerClock {
            used_in_period: 14,
            ..PlayerClock::default()
        };
        let received = at(BERLIN, "2026-12-01 10:00");
        // Without announcement day 11 costs 16 (14 + 16 = 30, not exceeded), day 12 costs 17.
        assert_eq!(
            forfeit_instant(RuleSet::Post, &clock, received, false, BERLIN, &[]),
            at(BERLIN, "2026-12-13 00:00")
        );
        // With announcement the 17th day exceeds.
        assert_eq!(
            forfeit_instant(RuleSet::Post, &clock, received, true, BERLIN, &[]),
            at(BERLIN, "2026-12-18 00:00")
        );
        // With 20 used, room 10: day 11 jumps from 10 to 16 charged.
        let clock = PlayerClock {
            used_in_period: 20,
            ..PlayerClock::default()
        };
        assert_eq!(
            forfeit_instant(RuleSet::Post, &clock, received, false, BERLIN, &[]),
            at(BERLIN, "2026-12-12 00:00")
        );
    }

    #[test]
    fn s16_reminder_after_16_days() {
        let received = at(BERLIN, "2026-12-01 10:00");
        let reminder = reminder_instant(received, false, BERLIN, &[]);
        assert_eq!(reminder, at(BERLIN, "2026-12-17 00:00"));
        // Not on day 15, nor at 23:59 of day 16's eve.
        assert!(at(BERLIN, "2026-12-16 23:59") < reminder);
        // The same under the fax rules: the reminder counts calendar days.
        assert_eq!(
            instant_when_days_reach(RuleSet::Fax, received, 16, BERLIN, &[]),
            reminder
        );
    }

    #[test]
    fn s16_reminder_after_26_days_with_announcement() {
        let received = at(BERLIN, "2026-12-01 10:00");
        assert_eq!(
            reminder_instant(received, true, BERLIN, &[]),
            at(BERLIN, "2026-12-27 00:00")
        );
    }

    #[test]
    fn s16_silence_report_14_days_later() {
        let received = at(BERLIN, "2026-12-01 10:00");
        assert_eq!(
            silence_report_instant(received, false, BERLIN, &[]),
            at(BERLIN, "2026-12-31 00:00")
        );
        assert_eq!(
            silence_report_instant(received, true, BERLIN, &[]),
            at(BERLIN, "2027-01-10 00:00")
        );
    }

    #[test]
    fn s16_reminder_waits_for_the_silent_players_rest() {
        let received = at(BERLIN, "2026-12-01 10:00");
        let rests = [rest("2026-12-05", "2026-12-11")];
        assert_eq!(
            reminder_instant(received, false, BERLIN, &rests),
            at(BERLIN, "2026-12-24 00:00")
        );
    }

    #[test]
    fn s17_exactly_30_days_not_exceeded() {
        let clock = PlayerClock::default();
        let received = at(BERLIN, "2026-12-01 10:00");
        let used = days_used(
            RuleSet::Post,
            received,
            at(BERLIN, "2026-12-31 23:59"),
            BERLIN,
            &[],
        );
        assert_eq!(used, 30);
        assert!(!clock.exceeded_with(RuleSet::Post, charged(used, true)));
        // Cumulatively: nine moves of 3 days and a tenth of 3 days.
        let mut clock = PlayerClock::default();
        for _ in 0..9 {
            clock.record_move(RuleSet::Post, 3);
        }
        assert_eq!(clock.k(), 10);
        assert!(!clock.exceeded_with(RuleSet::Post, 3));
        let recorded = clock.record_move(RuleSet::Post, 3);
        assert_eq!((recorded.used, recorded.allowed), (30, 30));
        assert!(!recorded.exceeded);
    }

    #[test]
    fn s17_31_days_exceeded() {
        let clock = PlayerClock::default();
        let received = at(BERLIN, "2026-12-01 10:00");
        let used = days_used(
            RuleSet::Post,
            received,
            at(BERLIN, "2027-01-01 00:00"),
            BERLIN,
            &[],
        );
        assert_eq!(used, 31);
        assert!(clock.exceeded_with(RuleSet::Post, charged(used, true)));
        assert_eq!(
            forfeit_instant(RuleSet::Post, &clock, received, true, BERLIN, &[]),
            at(BERLIN, "2027-01-01 00:00")
        );
        let mut clock = PlayerClock::default();
        for _ in 0..9 {
            clock.record_move(RuleSet::Post, 3);
        }
        assert!(clock.exceeded_with(RuleSet::Post, 4));
        assert_eq!(clock.forfeit_due(RuleSet::Post, 4), Some(Forfeit::First));
        assert!(clock.record_move(RuleSet::Post, 4).exceeded);
    }

    #[test]
    fn s17_fax_limit_is_40() {
        let clock = PlayerClock::default();
        assert!(!clock.exceeded_with(RuleSet::Fax, 40));
        assert!(clock.exceeded_with(RuleSet::Fax, 41));
    }

    #[test]
    fn s17_cumulative_limit_after_k_moves() {
        for k in 1..=10 {
            assert_eq!(limit(RuleSet::Post, k), 30, "k = {k}");
            assert_eq!(limit(RuleSet::Fax, k), 40, "k = {k}");
        }
        for (k, post, fax) in [(11, 60, 80), (20, 60, 80), (21, 90, 120), (30, 90, 120)] {
            assert_eq!(limit(RuleSet::Post, k), post, "k = {k}");
            assert_eq!(limit(RuleSet::Fax, k), fax, "k = {k}");
        }
        assert_eq!(limit(RuleSet::Post, 0), 0);
        assert_eq!(limit(RuleSet::Fax, u32::MAX), u32::MAX);
        // TO §12: saved time is credited: ten quick moves leave 60 days for the eleventh.
        let mut clock = PlayerClock::default();
        for _ in 0..10 {
            clock.record_move(RuleSet::Post, 0);
        }
        assert_eq!(clock.k(), 11);
        assert_eq!(clock.allowed(RuleSet::Post), 60);
        assert!(!clock.exceeded_with(RuleSet::Post, 60));
        assert!(clock.exceeded_with(RuleSet::Post, 61));
    }

    #[test]
    fn s20_overhang_up_to_20_forgiven() {
        let mut clock = PlayerClock {
            moves_in_period: 3,
            used_in_period: 10,
            ..PlayerClock::default()
        };
        assert_eq!(clock.forfeit_due(RuleSet::Post, 21), Some(Forfeit::First));
        assert_eq!(clock.register_forfeit(), Forfeit::First);
        assert!(clock.restart_pending);
        // Used 10 + 40 = 50 against 30: overhang 20, all forgiven.
        let recorded = clock.record_move(RuleSet::Post, 40);
        assert_eq!(
            recorded,
            Recorded {
                used: 50,
                allowed: 30,
                exceeded: true,
                period_restarted: Some(0),
            }
        );
        assert_eq!(
            clock,
            PlayerClock {
                moves_in_period: 0,
                used_in_period: 0,
                forfeits: 1,
                restart_pending: false,
                warned_control: 0,
            }
        );
        // The new period starts with the next move.
        assert_eq!(clock.k(), 1);
        assert_eq!(clock.allowed(RuleSet::Post), 30);
    }

    #[test]
    fn s20_overhang_beyond_20_carries() {
        let mut clock = PlayerClock {
            moves_in_period: 3,
            used_in_period: 10,
            ..PlayerClock::default()
        };
        clock.register_forfeit();
        // Used 10 + 45 = 55 against 30: overhang 25, 5 carry into the new period.
        let recorded = clock.record_move(RuleSet::Post, 45);
        assert_eq!(recorded.period_restarted, Some(5));
        assert_eq!((clock.moves_in_period, clock.used_in_period), (0, 5));
        assert!(!clock.exceeded_with(RuleSet::Post, 25));
        assert!(clock.exceeded_with(RuleSet::Post, 26));
    }

    #[test]
    fn s21_second_forfeit() {
        let mut clock = PlayerClock::default();
        clock.register_forfeit();
        // While he still thinks on the move of the first ZÜ, no second one can be due.
        assert_eq!(clock.forfeit_due(RuleSet::Post, 100), None);
        clock.record_move(RuleSet::Post, 60);
        assert_eq!((clock.forfeits, clock.used_in_period), (1, 10));
        assert_eq!(clock.forfeit_due(RuleSet::Post, 20), None);
        assert!(clock.exceeded_with(RuleSet::Post, 21));
        assert_eq!(clock.forfeit_due(RuleSet::Post, 21), Some(Forfeit::Second));
        assert_eq!(clock.register_forfeit(), Forfeit::Second);
        assert_eq!(clock.forfeits, 2);
        assert_eq!(clock.forfeit_due(RuleSet::Post, 100), None);
        assert_eq!(clock.register_forfeit(), Forfeit::Second);
        assert_eq!(clock.forfeits, 2);
    }

    #[test]
    fn s24_rest_days_not_counted() {
        let rests = [rest("2026-12-05", "2026-12-11")];
        for rules in [RuleSet::Post, RuleSet::Fax] {
            check_days(
                rules,
                BERLIN,
                "2026-12-01 10:00",
                &rests,
                &[
                    ("2026-12-04 12:00", 3),
                    ("2026-12-08 12:00", 3),
                    ("2026-12-11 23:59", 3),
                    ("2026-12-12 00:00", 4),
                    ("2026-12-15 12:00", 7),
                ],
            );
        }
        // A rest that ended before the receipt changes nothing.
        check_days(
            RuleSet::Post,
            BERLIN,
            "2026-12-20 10:00",
            &rests,
            &[("2026-12-25 10:00", 5)],
        );
    }

    #[test]
    fn s24_received_during_rest_counts_next_day() {
        let rests = [rest("2026-12-05", "2026-12-11")];
        check_days(
            RuleSet::Post,
            BERLIN,
            "2026-12-07 15:00",
            &rests,
            &[
                ("2026-12-09 12:00", 0),
                ("2026-12-12 23:59", 0),
                ("2026-12-13 00:00", 1),
            ],
        );
        // Fax 1.4: the 24 hours run from 00:00 of the day after the rest.
        check_days(
            RuleSet::Fax,
            BERLIN,
            "2026-12-07 15:00",
            &rests,
            &[("2026-12-12 23:59", 0), ("2026-12-13 00:00", 1)],
        );
        // Received on the last day of the rest, too.
        check_days(
            RuleSet::Post,
            BERLIN,
            "2026-12-11 23:00",
            &rests,
            &[("2026-12-12 23:59", 0), ("2026-12-13 00:00", 1)],
        );
    }

    #[test]
    fn s24_overlapping_adjacent_and_empty_rests() {
        let rests = [
            rest("2026-12-05", "2026-12-08"),
            rest("2026-12-07", "2026-12-11"),
            rest("2026-12-12", "2026-12-13"),
            rest("2026-12-20", "2026-12-18"),
        ];
        // Days 5–13 rest (9 days); 18–20 is empty.
        check_days(
            RuleSet::Post,
            BERLIN,
            "2026-12-01 10:00",
            &rests,
            &[("2026-12-13 12:00", 3), ("2026-12-21 12:00", 11)],
        );
        // Received in the first of the chained rests: counts from the 14th.
        check_days(
            RuleSet::Post,
            BERLIN,
            "2026-12-06 10:00",
            &rests,
            &[("2026-12-14 12:00", 0), ("2026-12-15 00:00", 1)],
        );
    }

    #[test]
    fn s30_adjust_saturates() {
        let mut clock = PlayerClock {
            used_in_period: 10,
            ..PlayerClock::default()
        };
        clock.adjust(5);
        assert_eq!(clock.used_in_period, 15);
        clock.adjust(-7);
        assert_eq!(clock.used_in_period, 8);
        clock.adjust(-20);
        assert_eq!(clock.used_in_period, 0);
        clock.adjust(i32::MIN);
        assert_eq!(clock.used_in_period, 0);
        clock.used_in_period = u32::MAX - 1;
        clock.adjust(i32::MAX);
        assert_eq!(clock.used_in_period, u32::MAX);
    }

    #[test]
    fn extreme_inputs_do_not_panic() {
        let extremes = [
            DateTime::<Utc>::MIN_UTC,
            DateTime::<Utc>::MAX_UTC,
            at(UTC, "2026-12-01 10:00"),
        ];
        let rests = [
            Rest {
                from: NaiveDate::MIN,
                to: NaiveDate::MAX,
            },
            rest("2026-12-05", "2026-12-11"),
        ];
        for tz in [Pacific::Kiritimati, Pacific::Niue, BERLIN] {
            for rules in [RuleSet::Post, RuleSet::Fax] {
                for &received in &extremes {
                    for rs in [&rests[..], &rests[1..], &[]] {
                        for &answered in &extremes {
                            days_used(rules, received, answered, tz, rs);
                        }
                        for days in [0, 1, 16, u32::MAX] {
                            instant_when_days_reach(rules, received, days, tz, rs);
                        }
                        let clock = PlayerClock {
                            used_in_period: u32::MAX,
                            moves_in_period: u32::MAX,
                            ..PlayerClock::default()
                        };
                        forfeit_instant(rules, &clock, received, false, tz, rs);
                        forfeit_instant(rules, &PlayerClock::default(), received, false, tz, rs);
                        reminder_instant(received, true, tz, rs);
                        silence_report_instant(received, false, tz, rs);
                    }
                }
            }
        }
        assert_eq!(
            instant_when_days_reach(RuleSet::Post, extremes[2], u32::MAX, UTC, &[]),
            DateTime::<Utc>::MAX_UTC
        );
    }

    // ---- property tests ----

    const ZONES: [Tz; 8] = [
        Europe::Berlin,
        America::St_Johns,
        UTC,
        America::New_York,
        America::Sao_Paulo,
        Australia::Lord_Howe,
        Pacific::Apia,
        Pacific::Chatham,
    ];

    fn any_tz() -> impl Strategy<Value = Tz> {
        proptest::sample::select(&ZONES[..])
    }

    fn any_rules() -> impl Strategy<Value = RuleSet> {
        prop_oneof![Just(RuleSet::Post), Just(RuleSet::Fax)]
    }

    /// Instants from 2008 to 2032 (covering Samoa's skipped day, St. John's midnight changes up to
    /// 2011 and many DST changes).
    fn any_instant() -> impl Strategy<Value = DateTime<Utc>> {
        (1_200_000_000i64..1_990_000_000).prop_map(|s| {
            DateTime::<Utc>::from_timestamp(s, 0).unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
        })
    }

    /// Rests near `received` (some empty, some overlapping).
    fn rests_near(received: DateTime<Utc>) -> impl Strategy<Value = Vec<Rest>> {
        let day = received.date_naive();
        proptest::collection::vec((-20i64..60, -2i64..20), 0..3).prop_map(move |v| {
            v.into_iter()
                .map(|(start, len)| {
                    let from = day + Duration::days(start);
                    Rest {
                        from,
                        to: from + Duration::days(len),
                    }
                })
                .collect()
        })
    }

    fn setup() -> impl Strategy<Value = (RuleSet, Tz, DateTime<Utc>, Vec<Rest>)> {
        (any_rules(), any_tz(), any_instant())
            .prop_flat_map(|(r, tz, t)| (Just(r), Just(tz), Just(t), rests_near(t)))
    }

    #[derive(Debug, Clone)]
    enum Op {
        Move(u32),
        Forfeit,
        Adjust(i32),
    }

    fn any_op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u32..70).prop_map(Op::Move),
            1 => Just(Op::Forfeit),
            1 => (-30i32..30).prop_map(Op::Adjust),
        ]
    }

    fn apply(clock: &mut PlayerClock, rules: RuleSet, ops: &[Op]) -> Vec<Option<Recorded>> {
        ops.iter()
            .map(|op| match *op {
                Op::Move(c) => Some(clock.record_move(rules, c)),
                Op::Forfeit => {
                    clock.register_forfeit();
                    None
                }
                Op::Adjust(d) => {
                    clock.adjust(d);
                    None
                }
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn prop_days_used_never_negative_and_monotone(
            (rules, tz, received, rests) in setup(),
            a in -3_000_000i64..6_000_000,
            b in 0i64..3_000_000,
        ) {
            let t1 = received + Duration::seconds(a);
            let t2 = t1 + Duration::seconds(b);
            let d1 = days_used(rules, received, t1, tz, &rests);
            let d2 = days_used(rules, received, t2, tz, &rests);
            prop_assert!(d1 <= d2, "{d1} at {t1} > {d2} at {t2}");
            if t1 < received {
                prop_assert_eq!(d1, 0);
            }
        }

        #[test]
        fn prop_fax_is_zero_or_the_post_count(
            (_rules, tz, received, rests) in setup(),
            a in 0i64..4_000_000,
        ) {
            let answered = received + Duration::seconds(a);
            let fax = days_used(RuleSet::Fax, received, answered, tz, &rests);
            let post = days_used(RuleSet::Post, received, answered, tz, &rests);
            prop_assert!(fax == 0 || fax == post, "fax {fax}, post {post}");
        }

        #[test]
        fn prop_post_without_rest_is_the_local_date_difference(
            received in any_instant(),
            a in 0i64..6_000_000,
        ) {
            // Berlin changes its clocks at night, never across midnight: plain local dates.
            let answered = received + Duration::seconds(a);
            let expected = (answered.with_timezone(&BERLIN).date_naive()
                - received.with_timezone(&BERLIN).date_naive())
            .num_days();
            let got = days_used(RuleSet::Post, received, answered, BERLIN, &[]);
            prop_assert_eq!(i64::from(got), expected);
        }

        #[test]
        fn prop_fax_24_hours_on_the_wall_clock(
            received in any_instant(),
            a in 0i64..400_000,
        ) {
            let answered = received + Duration::seconds(a);
            let local = |t: DateTime<Utc>| truncate_to_minute(t).with_timezone(&BERLIN).naive_local();
            // Skip answers in the repeated autumn hour, where the wall clock goes back.
            prop_assume!(matches!(
                BERLIN.from_local_datetime(&local(answered)),
                chrono::LocalResult::Single(_)
            ));
            let within = local(answered) < local(received) + Duration::days(1);
            let fax = days_used(RuleSet::Fax, received, answered, BERLIN, &[]);
            prop_assert_eq!(fax == 0, within, "fax {}", fax);
        }

        #[test]
        fn prop_instant_when_days_reach_is_the_least_instant(
            (rules, tz, received, rests) in setup(),
            days in 0u32..90,
        ) {
            let t = instant_when_days_reach(rules, received, days, tz, &rests);
            prop_assert!(t >= received);
            prop_assert!(days_used(rules, received, t, tz, &rests) >= days);
            if t > received {
                prop_assert!(days >= 1);
                for before in [t - Duration::minutes(1), t - Duration::seconds(1)] {
                    prop_assert!(days_used(rules, received, before, tz, &rests) < days);
                }
            }
        }

        #[test]
        fn prop_forfeit_instant_is_the_first_exceeding(
            (rules, tz, received, rests) in setup(),
            moves_in_period in 0u32..35,
            used_in_period in 0u32..150,
            announced in any::<bool>(),
        ) {
            let clock = PlayerClock { moves_in_period, used_in_period, ..PlayerClock::default() };
            let exceeded_at = |t: DateTime<Utc>| {
                clock.exceeded_with(rules, charged(days_used(rules, received, t, tz, &rests), announced))
            };
            let f = forfeit_instant(rules, &clock, received, announced, tz, &rests);
            prop_assert!(f >= received);
            prop_assert!(exceeded_at(f), "not exceeded at {f}");
            if f > received {
                prop_assert!(!exceeded_at(f - Duration::minutes(1)));
                prop_assert!(!exceeded_at(f - Duration::seconds(1)));
            }
        }

        #[test]
        fn prop_least_days_exceeding_matches_search(room in 0u32..200, announced in any::<bool>()) {
            let searched = (0..=300).find(|&d| charged(d, announced) > room);
            prop_assert_eq!(least_days_exceeding(room, announced), searched);
        }

        #[test]
        fn prop_replaying_moves_is_deterministic(
            rules in any_rules(),
            ops in proptest::collection::vec(any_op(), 0..60),
            split in 0usize..60,
        ) {
            let mut once = PlayerClock::default();
            let log_once = apply(&mut once, rules, &ops);
            let mut again = PlayerClock::default();
            let log_again = apply(&mut again, rules, &ops);
            prop_assert_eq!(&once, &again);
            prop_assert_eq!(&log_once, &log_again);
            // Recording in two passes, from a copy of the clock in between, gives the same.
            let split = split.min(ops.len());
            let (head, tail) = ops.split_at(split);
            let mut first = PlayerClock::default();
            let mut log_parts = apply(&mut first, rules, head);
            let mut resumed = first.clone();
            log_parts.extend(apply(&mut resumed, rules, tail));
            prop_assert_eq!(&once, &resumed);
            prop_assert_eq!(&log_once, &log_parts);
            prop_assert!(once.forfeits <= 2);
        }
    }
}
