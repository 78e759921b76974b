//! The weekly director digest: once a week, to each director, what needs his eye — games silent for
//! more than 10 days, time limits running out within 7 days, leaves starting or ending within 7
//! days, open suspensions (TO §21) and adjudications (TO §31).
//!
//! Fixed here, once:
//!
//! * **When.** At 00:00 local time of the configured weekday (`[relay] digest_day`, Monday unless
//!   set; `"off"` sends none). One per tournament that wants it (`digest`, default true) and
//!   still has a game that is not finished, the first on the first such day after registration.
//! * **Never twice.** The digest day of the last digest is kept per tournament
//!   (`Meta::digests`); the next one is due 7 days later. A relay that was down for weeks sends one
//!   digest when it comes back, not one per missed week.
//! * **Deadline.** A digest is a [`Due::Digest`] of the pseudo game `TOURNAMENT/0`: deadlines are
//!   keyed by game, and no real game has number 0.
//! * **Silent.** The player on move in a running game whose move has taken more than 10 days
//!   (calendar days, his leave not counted).
//! * **Controls due.** A running game whose player on move exceeds his limit (TO §17) within the
//!   next 7 days if he does not move.

use chrono::{DateTime, Days, NaiveDate, TimeDelta, Utc, Weekday};
use chrono_tz::Tz;

use crate::core::clock;
use crate::core::door::reply::end_report_due;
use crate::core::model::DigestQuestion;
use crate::core::model::Due;
use crate::core::model::GameStatus;
use crate::core::model::Mail;
use crate::core::model::Step;
use crate::core::model::{DigestControl, DigestFacts, DigestGame, DigestLeave, DigestSilent};
use crate::core::model::{Output, Settings, State, Tournament};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::mail_kind::MailKind;
use crate::rules::RuleSet;

/// Days of silence after which a game is listed.
const SILENT_AFTER_DAYS: u32 = 10;
/// How far ahead controls and leaves are listed.
const AHEAD_DAYS: u64 = 7;

/// When the next digest of `t` is due: 7 days after the last one, or the first digest day after
/// registration.
pub fn next_digest(
    t: &Tournament,
    last: Option<NaiveDate>,
    day: Weekday,
    tz: Tz,
) -> Option<DateTime<Utc>> {
    let date = match last {
        Some(d) => d.checked_add_days(Days::new(7))?,
        None => {
            let d = clock::weekday_on_or_after(view::local_date(t.registered, tz), day);
            if clock::local_midnight(d, tz)? < t.registered {
                d.checked_add_days(Days::new(7))?
            } else {
                d
            }
        }
    };
    clock::local_midnight(date, tz)
}

impl State {
    /// The pending digests and questions (TO §23), as deadlines of the pseudo game
    /// `TOURNAMENT/0`.
    pub(crate) fn digest_deadlines(&self, s: &Settings) -> Vec<(DateTime<Utc>, GameRef, Due)> {
        self.tournament_deadlines_of(self.tournaments.keys().map(String::as_str), s)
    }

    /// The weekly digests due of the tournaments `ids` (see `State::digest_deadlines`).
    pub fn digest_deadlines_of<'a>(
        &self,
        ids: impl Iterator<Item = &'a str>,
        s: &Settings,
    ) -> Vec<(DateTime<Utc>, GameRef, Due)> {
        let Some(day) = s.digest_day else {
            return Vec::new();
        };
        ids.filter_map(|id| self.tournaments.get(id))
            .filter(|t| t.digest)
            .filter(|t| {
                t.games
                    .iter()
                    .filter_map(|g| self.games.get(g))
                    .any(|g| g.status != GameStatus::Finished)
            })
            .filter_map(|t| {
                let last = self.meta.digests.get(&t.id).copied();
                next_digest(t, last, day, s.tz)
                    .map(|at| (at, GameRef::new(t.id.clone(), 0), Due::Digest))
            })
            .collect()
    }

    /// Every deadline of the tournaments `ids` as a whole (pseudo game `TOURNAMENT/0`), earliest
    /// first: the weekly digest, the director's questions falling unanswered (TO §23) and the
    /// report of the tournament's end once its last game ended (TO §27, [`end_report_due`]).
    pub fn tournament_deadlines_of<'a>(
        &self,
        ids: impl Iterator<Item = &'a str> + Clone,
        s: &Settings,
    ) -> Vec<(DateTime<Utc>, GameRef, Due)> {
        let mut all = self.digest_deadlines_of(ids.clone(), s);
        for t in ids.filter_map(|id| self.tournaments.get(id)) {
            let pseudo = || GameRef::new(t.id.clone(), 0);
            all.extend(
                t.questions
                    .iter()
                    .filter_map(|q| q.due(&t.rest_of(&q.player), s.tz))
                    .min()
                    .map(|at| (at, pseudo(), Due::Question)),
            );
            all.extend(end_report_due(self, t).map(|at| (at, pseudo(), Due::TournamentEnd)));
        }
        all.sort();
        all
    }
}

/// Sends the digest of tournament `tid` and records it for the week of `now`.
pub(crate) fn fire_digest(state: &mut State, out: &mut Output, tid: &str, at: Step<'_>) {
    let (now, s) = (at.now, at.s);
    let Some(day) = s.digest_day else {
        return;
    };
    let Some(t) = state.tournaments.get(tid) else {
        return;
    };
    let today = view::local_date(now, s.tz);
    state
        .meta
        .digests
        .insert(tid.to_string(), clock::weekday_on_or_before(today, day));
    let lang = s.default_lang;
    let data = digest_data(state, t, at);
    let message_id = state.meta.next_message_id(s, "digest");
    out.mails.push(Mail::new(
        MailKind::Digest,
        vec![t.director_recipient()],
        lang,
        message_id,
        data,
    ));
    out.log
        .push(format!("{tid}: weekly digest to {}", t.director.email));
}

/// The digest of `t` as of `now`: what it lists, to its director.
fn digest_data(state: &State, t: &Tournament, at: Step<'_>) -> DigestFacts {
    let (now, s) = (at.now, at.s);
    let today = view::local_date(now, s.tz);
    let horizon = today
        .checked_add_days(Days::new(AHEAD_DAYS))
        .unwrap_or(today);
    let until = now + TimeDelta::days(AHEAD_DAYS as i64);
    let mut silent = Vec::new();
    let mut controls = Vec::new();
    let mut suspended = Vec::new();
    let mut adjourned = Vec::new();
    for g in t.games.iter().filter_map(|g| state.games.get(g)) {
        let names = format!(
            "{} – {}",
            t.recipient(&g.players.white).name,
            t.recipient(&g.players.black).name
        );
        match g.status {
            GameStatus::Running => {
                let c = g.to_move();
                let email = g.players.get(c);
                let rest = t.rest_of(email);
                let waited = clock::days_used(RuleSet::Post, g.turn.since, now, s.tz, &rest);
                if waited > SILENT_AFTER_DAYS {
                    silent.push(DigestSilent {
                        game: g.id.to_string(),
                        players: names.clone(),
                        silent: t.recipient(email).name,
                        days: waited,
                        since: view::day(view::local_date(g.turn.since, s.tz)),
                    });
                }
                let pc = g.clocks.get(c);
                let possible = pc.forfeits == 0 || (pc.forfeits == 1 && !pc.restart_pending);
                if possible && !g.turn.forfeit_claimed {
                    let at = clock::forfeit_instant(
                        t.rules,
                        pc,
                        g.turn.since,
                        g.turn.announced,
                        s.tz,
                        &rest,
                    );
                    if at > now && at <= until {
                        controls.push(DigestControl {
                            game: g.id.to_string(),
                            players: names,
                            player: t.recipient(email).name,
                            allowed: pc.allowed(t.rules),
                            at: view::when(at, s.tz),
                        });
                    }
                }
            }
            GameStatus::Suspended => suspended.push(DigestGame {
                game: g.id.to_string(),
                players: names,
            }),
            GameStatus::Adjourned => adjourned.push(DigestGame {
                game: g.id.to_string(),
                players: names,
            }),
            GameStatus::WaitingStart | GameStatus::Finished => {}
        }
    }
    let mut leaves = Vec::new();
    for p in &t.players {
        for (r, special) in p
            .leaves
            .iter()
            .map(|r| (r, false))
            .chain(p.special_leaves.iter().map(|r| (r, true)))
        {
            let starts = today <= r.from && r.from <= horizon;
            let ends = today <= r.to && r.to <= horizon;
            if starts || ends {
                leaves.push(DigestLeave {
                    player: p.name.clone(),
                    from: view::day(r.from),
                    to: view::day(r.to),
                    starts,
                    ends,
                    special,
                });
            }
        }
    }
    let questions: Vec<DigestQuestion> = t
        .questions
        .iter()
        .filter(|q| q.open())
        .map(|q| DigestQuestion {
            player: t.recipient(&q.player).name,
            asked: view::day(view::local_date(q.asked, s.tz)),
            text: q.text.clone(),
        })
        .collect();
    let quiet = silent.is_empty()
        && controls.is_empty()
        && leaves.is_empty()
        && suspended.is_empty()
        && adjourned.is_empty()
        && questions.is_empty();
    DigestFacts {
        recipient: t.director.name.clone(),
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        today: view::day(today),
        now: view::when(now, s.tz),
        silent,
        controls,
        leaves,
        suspended,
        adjourned,
        questions,
        quiet,
        horizon: view::day(horizon),
    }
}
