//! The player's overview (kind `overview`): every game he plays at this relay, across his
//! tournaments — opponent, colour, move, whose turn, his days used and left before his next
//! control, the game's next deadline — and his finished games with their results. On request
//! (`Übersicht` / `overview`), and every Monday for those who ask (`Übersicht wöchentlich` /
//! `weekly overview`; `Übersicht aus` / `overview off` ends it).
//!
//! Fixed here, once:
//!
//! * **The games.** Those of the tournaments he plays in that are not rotated (Fax 2.8: four
//!   weeks after their end a tournament's games leave the store); a tournament he only directs is
//!   not listed (`Status` lists its games). Each game is what `Status` shows of it
//!   (`view::game_report`, his clock from `view::clock_figures`), so the two never differ.
//! * **The next deadline** of a running game is the first of `State::game_deadlines` (what
//!   `fernzug status` shows): the start, the reminder or the silence report of TO §16, the time
//!   forfeit of TO §17 — without the clock warning, a courtesy to the player, not a deadline.
//! * **Order.** The games awaiting his move first, then by their next deadline; the finished ones
//!   in the order of their tournaments and numbers.
//! * **Weekly.** At 00:00 local time every Monday, as the director's digest is scheduled
//!   (`crate::core::time::digest`): the Monday of the week of the last overview is kept per
//!   player (`Meta::overviews`), the next is due 7 days later; a relay that was down for weeks
//!   sends one, not one per missed week. Asking for it counts as this week's (its answer is the
//!   overview). A week in which he has no game that is not finished sends nothing; the
//!   subscription stays for his next tournament.
//! * **Not an order to the game.** Nothing changes in any game; under `[security]
//!   require_reply_key` `Übersicht` alone (read-only, answered to the registered address) needs no
//!   key, as `Status`; switching the weekly overview on or off does (`crate::core::route`).

use std::collections::BTreeSet;

use chrono::{DateTime, Days, Utc, Weekday};
use shakmaty::Color;

use crate::core::clock;
use crate::core::door::reply::lang_for;
use crate::core::model::{Due, Game, GameStatus, Mail, OverviewFacts, OverviewGame};
use crate::core::model::{Output, Recipient, Settings, State, Step, Tournament};
use crate::core::view;
use crate::lang::Lang;
use crate::letter::{Letter, OverviewAsk};
use crate::mail_kind::MailKind;

#[cfg(test)]
#[path = "overview_tests.rs"]
mod tests;

/// The day the weekly overview goes out.
pub const WEEKLY_ON: Weekday = Weekday::Mon;

/// The tournaments whose games the overview of `email` lists: those he plays in, not rotated,
/// in the order of their ids.
pub fn tournaments_of(state: &State, email: &str) -> Vec<String> {
    let mut ids: Vec<String> = state
        .tournaments_with(email)
        .filter(|t| !t.rotated && t.player(email).is_some())
        .map(|t| t.id.clone())
        .collect();
    ids.sort();
    ids
}

/// The earliest weekly overview due, for any player who asked for it: when the core must be
/// woken for it (`State::next_deadline`, and the shell's index of deadlines).
pub fn next_weekly(state: &State, s: &Settings) -> Option<DateTime<Utc>> {
    let last = state.meta.overviews.values().min()?;
    next_after(*last, s)
}

/// The players whose weekly overview is due by `now`.
pub fn weekly_due(state: &State, now: DateTime<Utc>, s: &Settings) -> BTreeSet<String> {
    state
        .meta
        .overviews
        .iter()
        .filter(|(_, last)| next_after(**last, s).is_some_and(|at| at <= now))
        .map(|(email, _)| email.clone())
        .collect()
}

/// 00:00 local of the Monday a week after `last`.
fn next_after(last: chrono::NaiveDate, s: &Settings) -> Option<DateTime<Utc>> {
    clock::local_midnight(last.checked_add_days(Days::new(7))?, s.tz)
}

/// The Monday of the week of `now` (local), as `Meta::overviews` keeps it.
fn this_week(now: DateTime<Utc>, s: &Settings) -> chrono::NaiveDate {
    clock::weekday_on_or_before(view::local_date(now, s.tz), WEEKLY_ON)
}

/// Answers `Übersicht` (and switches the weekly overview on or off) with an `overview` mail to
/// the sender. Changes no game.
pub(crate) fn answer_overview(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    ask: OverviewAsk,
    at: Step<'_>,
) {
    let email = letter.from.clone();
    let occasion = match ask {
        OverviewAsk::Now => "asked",
        OverviewAsk::Weekly => {
            state
                .meta
                .overviews
                .insert(email.clone(), this_week(at.now, at.s));
            "subscribed"
        }
        OverviewAsk::Off => {
            state.meta.overviews.remove(&email);
            "unsubscribed"
        }
    };
    let mut mail = overview_mail(state, &email, occasion, at);
    if mail.to[0].name == email
        && let Some(name) = &letter.from_name
    {
        mail.to[0].name = name.clone();
    }
    mail.in_reply_to = Some(letter.message_id.clone());
    out.mails.push(mail);
    out.log.push(format!(
        "overview to {email} ({occasion}; asked in {})",
        letter.message_id
    ));
}

/// Sends the weekly overviews due by `now` (the players who asked for them and have a game not
/// finished) and records the week of each.
pub(crate) fn weekly_overviews(state: &mut State, at: Step<'_>) -> Output {
    let mut out = Output::default();
    for email in weekly_due(state, at.now, at.s) {
        state
            .meta
            .overviews
            .insert(email.clone(), this_week(at.now, at.s));
        let open = games_of(state, &email)
            .iter()
            .any(|(_, g, _)| g.status != GameStatus::Finished);
        if !open {
            out.log.push(format!(
                "weekly overview of {email} not sent: no game of his is open"
            ));
            continue;
        }
        let mail = overview_mail(state, &email, "weekly", at);
        out.mails.push(mail);
        out.log.push(format!("weekly overview to {email}"));
    }
    out
}

/// The games of `email` the overview lists, with their tournaments and his colour.
fn games_of<'a>(state: &'a State, email: &str) -> Vec<(&'a Tournament, &'a Game, Color)> {
    tournaments_of(state, email)
        .iter()
        .filter_map(|id| state.tournaments.get(id))
        .flat_map(|t| {
            t.games
                .iter()
                .filter_map(|r| state.games.get(r))
                .filter_map(move |g| g.color_of(email).map(|c| (t, g, c)))
        })
        .collect()
}

/// The `overview` mail of `email` as of `at.now`.
fn overview_mail(state: &mut State, email: &str, occasion: &'static str, at: Step<'_>) -> Mail {
    let s = at.s;
    let lang = lang_for(state, email, None, s);
    let name = state
        .tournaments_with(email)
        .find_map(|t| t.player(email).map(|p| p.name.clone()))
        .unwrap_or_else(|| email.to_string());
    let data = overview_facts(state, email, name.clone(), lang, occasion, at);
    let message_id = state.meta.next_message_id(s, MailKind::Overview.name());
    Mail::new(
        MailKind::Overview,
        vec![Recipient {
            name,
            email: email.to_string(),
        }],
        lang,
        message_id,
        data,
    )
}

/// What the overview of `email` shows.
fn overview_facts(
    state: &State,
    email: &str,
    recipient: String,
    lang: Lang,
    occasion: &'static str,
    at: Step<'_>,
) -> OverviewFacts {
    let (now, s) = (at.now, at.s);
    let mut running = Vec::new();
    let mut finished = Vec::new();
    for (t, g, c) in games_of(state, email) {
        let next = state
            .game_deadlines(g, t, s)
            .into_iter()
            .find(|(_, due)| *due != Due::ClockWarning);
        let entry = OverviewGame {
            report: view::game_report(g, t, Some(c), lang, at),
            tournament_id: t.id.clone(),
            tournament: t.name.clone(),
            number: Game::number_of_ply(g.moves.len()),
            deadline: next.map(|(when, _)| view::when(when, s.tz)),
            deadline_kind: next.map(|(_, due)| due.name()),
            outcome: g.result.map(|r| match r.half_points(c) {
                2 => "won",
                1 => "drawn",
                _ => "lost",
            }),
        };
        if g.status == GameStatus::Finished {
            finished.push(entry);
        } else {
            running.push((next.map(|(when, _)| when), entry));
        }
    }
    // His moves first, then by the next deadline (none last); stable, so games without either
    // keep their tournament's order.
    running.sort_by_key(|(when, g)| (!g.report.your_move, when.is_none(), *when));
    let running: Vec<OverviewGame> = running.into_iter().map(|(_, g)| g).collect();
    OverviewFacts {
        recipient,
        now: view::when(now, s.tz),
        today: view::day(view::local_date(now, s.tz)),
        occasion,
        weekly: state.meta.overviews.contains_key(email),
        your_moves: running.iter().filter(|g| g.report.your_move).count(),
        running,
        finished,
        directs: state
            .tournaments_with(email)
            .any(|t| !t.rotated && t.director.email == email),
    }
}
