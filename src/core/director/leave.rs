//! Leave (TO §24, §25): a player's request, its checks, the notices, and the early end by a move.
//!
//! The rulebook leaves some choices open. They are fixed here, once:
//!
//! * **Which tournaments (TO §24).** A leave covers all games of one tournament. A request names the
//!   tournament by the subject (`[ID]` or `[ID/N]`) or by the reply address; without one it applies
//!   to every tournament in which the player still has a game that is not finished, each checked
//!   against its own budget and answered on its own (a receipt or a query per tournament).
//! * **Dates.** Both ends are included. A date without a year is the one nearest to today; an end
//!   without a year is the first such date on or after the beginning.
//! * **Checks, in this order.** At least 7 consecutive days; not beginning before today (today is
//!   allowed: the leave starts at once); no overlap with a leave or special leave the player already
//!   has in the tournament; at most 42 days of (ordinary) leave in each tournament year the leave
//!   touches. The tournament year begins on the 1st of the month the tournament started and lasts
//!   twelve months; a leave across two tournament years counts its days in each year separately.
//!   Special leave granted by the director (TO §24) does not count on the budget.
//! * **Notices (TO §25).** An accepted leave is announced at once to every partner with a game in
//!   the tournament that is not finished, with the director in copy (the notice says he was
//!   informed), and to the director, so every notice is in the "through the TL" form and the
//!   5-day charge of TO §25 never arises. A leave that would begin before today
//!   is a late notice: refused unless the director accepts it by command (`crate::core::director`).
//! * **Early end (TO §24).** A move the player sends (a valid move the relay plays) ends every leave
//!   of his in that tournament that is running on that day: the leave now ends the day before the
//!   move; a leave that began that very day is gone. The director and the partners are told. Days
//!   not taken go back to the budget, because the budget counts the leave as it stands. A leave that
//!   has not begun yet is left alone, and so is any other mail (a query, a draw acceptance or a
//!   resignation does not end a leave).
//! * **Clocks.** Nothing here touches a clock: the leave days are the player's rests
//!   (`Tournament::rest_of`), which the clock (`crate::core::clock`) and the deadlines read.

use chrono::{DateTime, Datelike, Months, NaiveDate, Utc};

use crate::core::clock::{BUDGET_DAYS, MIN_LEAVE_DAYS, Rest};
use crate::core::door::reply::{lang_for, letter_context, open_games_in, query};
use crate::core::model::Refusal;
use crate::core::model::Step;
use crate::core::model::{Event, LeaveHow};
use crate::core::model::{LeaveAccount, LeaveFacts, LeaveGame, LeaveReceiptFacts, Mail};
use crate::core::model::{LeaveRefusal, Output, State, Tournament};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::letter::{DateSpan, Letter, StatedDate};
use crate::mail_kind::MailKind;

/// The dates of a span as written, completed (see the module documentation); `None` if a day does
/// not exist or the end lies before the beginning.
pub fn complete_span(span: DateSpan, today: NaiveDate) -> Option<(NaiveDate, NaiveDate)> {
    let from = match span.from.year {
        Some(y) => NaiveDate::from_ymd_opt(y, span.from.month, span.from.day)?,
        None => [today.year() - 1, today.year(), today.year() + 1]
            .into_iter()
            .filter_map(|y| NaiveDate::from_ymd_opt(y, span.from.month, span.from.day))
            .min_by_key(|c| (*c - today).num_days().abs())?,
    };
    let to = end_date(span.to, from)?;
    (from <= to).then_some((from, to))
}

fn end_date(to: StatedDate, from: NaiveDate) -> Option<NaiveDate> {
    match to.year {
        Some(y) => NaiveDate::from_ymd_opt(y, to.month, to.day),
        None => [from.year(), from.year() + 1]
            .into_iter()
            .filter_map(|y| NaiveDate::from_ymd_opt(y, to.month, to.day))
            .find(|d| *d >= from),
    }
}

/// The tournament year (TO §24) that contains `day`: from the 1st of the start month, 12 months.
pub fn tournament_year(start: NaiveDate, day: NaiveDate) -> (NaiveDate, NaiveDate) {
    let first = start.with_day(1).unwrap_or(start);
    let months = (day.year() - first.year()) * 12 + day.month() as i32 - first.month() as i32;
    let index = months.div_euclid(12);
    let shift = |n: i32| {
        if n >= 0 {
            first.checked_add_months(Months::new((n * 12) as u32))
        } else {
            first.checked_sub_months(Months::new((-n * 12) as u32))
        }
    };
    let begin = shift(index).unwrap_or(first);
    let end = shift(index + 1)
        .and_then(|d| d.pred_opt())
        .unwrap_or(NaiveDate::MAX);
    (begin, end)
}

/// The days of `r` between `lo` and `hi` (all included).
fn days_within(r: &Rest, lo: NaiveDate, hi: NaiveDate) -> i64 {
    let a = r.from.max(lo);
    let b = r.to.min(hi);
    if a <= b { (b - a).num_days() + 1 } else { 0 }
}

/// Days of ordinary leave taken (or planned) in the tournament year `year`.
pub fn budget_taken(leaves: &[Rest], year: (NaiveDate, NaiveDate)) -> i64 {
    leaves.iter().map(|r| days_within(r, year.0, year.1)).sum()
}

/// TO §24/§25: whether `player` may have leave from `from` to `to` in `t` (see the module
/// documentation). `late`: accepted by the director, so it may begin before today.
pub fn check_leave(
    t: &Tournament,
    player: &str,
    from: NaiveDate,
    to: NaiveDate,
    today: NaiveDate,
    late: bool,
) -> Result<(), LeaveRefusal> {
    let Some(p) = t.player(player) else {
        return Err(LeaveRefusal::NotInTournament {
            tournament: t.id.clone(),
        });
    };
    if from > to {
        return Err(LeaveRefusal::BadSpan);
    }
    let days = (to - from).num_days() + 1;
    if days < MIN_LEAVE_DAYS {
        return Err(LeaveRefusal::TooShort { from, to, days });
    }
    if !late && from < today {
        return Err(LeaveRefusal::InThePast { from, today });
    }
    if let Some(o) = p
        .leaves
        .iter()
        .chain(&p.special_leaves)
        .find(|o| o.from <= to && from <= o.to)
    {
        return Err(LeaveRefusal::Overlap {
            from,
            to,
            other_from: o.from,
            other_to: o.to,
        });
    }
    let asked = Rest { from, to };
    let mut day = from;
    while day <= to {
        let year = tournament_year(t.start, day);
        let taken = budget_taken(&p.leaves, year);
        let asked_in_year = days_within(&asked, year.0, year.1);
        if taken + asked_in_year > BUDGET_DAYS {
            return Err(LeaveRefusal::OverBudget {
                tournament: t.id.clone(),
                year_from: year.0,
                year_to: year.1,
                taken,
                asked: asked_in_year,
            });
        }
        let Some(next) = year.1.succ_opt() else { break };
        day = next;
    }
    Ok(())
}

/// A player's leave as its notices tell it (TO §25): the tournament, the player, the leave as it
/// now stands, and, when a move ended it early, the leave as it was and the day of the move.
#[derive(Clone, Copy)]
struct LeaveOf<'a> {
    tid: &'a str,
    email: &'a str,
    rest: Rest,
    ended: Option<(Rest, NaiveDate)>,
    /// The player withdrew `rest` before it began.
    withdrawn: bool,
}

/// TO §24/§25: a player's leave request (`letter.content.leave`).
pub(crate) fn handle_leave(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    span: DateSpan,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let email = letter.from.clone();
    let lang = lang_for(state, &email, None, s);
    let today = view::local_date(now, s.tz);
    let (_, named) = letter_context(state, letter);
    let targets: Vec<String> = match named {
        Some(tid) => {
            if state
                .tournaments
                .get(&tid)
                .is_none_or(|t| t.player(&email).is_none())
            {
                let r = Refusal::Leave(LeaveRefusal::NotInTournament { tournament: tid });
                query(state, out, letter, None, lang, r, Step { now, s });
                return;
            }
            vec![tid]
        }
        None => state
            .tournaments_with(&email)
            .map(|t| &t.id)
            .filter(|tid| !open_games_in(state, tid, &email).is_empty())
            .cloned()
            .collect(),
    };
    if targets.is_empty() {
        let r = Refusal::Leave(LeaveRefusal::NoTournament);
        query(state, out, letter, None, lang, r, Step { now, s });
        return;
    }
    for tid in targets {
        out.letter_games.extend(open_games_in(state, &tid, &email));
        let checked = complete_span(span, today)
            .ok_or(LeaveRefusal::BadSpan)
            .and_then(|(from, to)| {
                check_leave(&state.tournaments[&tid], &email, from, to, today, false)
                    .map(|()| (from, to))
            });
        match checked {
            Ok((from, to)) => {
                add_leave(
                    state,
                    out,
                    &tid,
                    &email,
                    Rest { from, to },
                    LeaveHow::Granted,
                    now,
                );
                let leave = LeaveOf {
                    tid: &tid,
                    email: &email,
                    rest: Rest { from, to },
                    ended: None,
                    withdrawn: false,
                };
                leave_notices(state, out, leave, letter, Step { now, s });
                leave_receipt(state, out, leave, letter, Step { now, s });
            }
            Err(r) => {
                query(
                    state,
                    out,
                    letter,
                    None,
                    lang,
                    Refusal::Leave(r),
                    Step { now, s },
                );
            }
        }
    }
}

/// TO §24: a planned leave not yet begun, withdrawn by the player (`Urlaub zurückgezogen`): the
/// one of the dates he names, else his one planned leave (in each tournament that has it);
/// the days go back to his budget, every partner and the director are told, he gets a receipt.
/// A leave under way is not withdrawn: his next move ends it.
pub(crate) fn withdraw_leave(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    named: Option<DateSpan>,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let email = letter.from.clone();
    let lang = lang_for(state, &email, None, s);
    let today = view::local_date(now, s.tz);
    let (_, tournament) = letter_context(state, letter);
    let span = named.and_then(|sp| complete_span(sp, today));
    let planned: Vec<(String, Rest)> = state
        .tournaments
        .values()
        .filter(|t| tournament.as_ref().is_none_or(|n| *n == t.id))
        .filter_map(|t| t.player(&email).map(|p| (&t.id, p)))
        .flat_map(|(tid, p)| {
            p.leaves
                .iter()
                .filter(|r| r.from > today)
                .filter(|r| span.is_none_or(|(from, to)| r.from == from && r.to == to))
                .map(move |r| (tid.clone(), *r))
        })
        .collect();
    let mut spans: Vec<(NaiveDate, NaiveDate)> =
        planned.iter().map(|(_, r)| (r.from, r.to)).collect();
    spans.sort();
    spans.dedup();
    let refusal = match spans.len() {
        0 => Some(LeaveRefusal::NothingToWithdraw),
        1 => None,
        _ => Some(LeaveRefusal::WhichToWithdraw { leaves: spans }),
    };
    if let Some(r) = refusal {
        query(state, out, letter, None, lang, Refusal::Leave(r), at);
        return;
    }
    for (tid, rest) in planned {
        out.letter_games.extend(open_games_in(state, &tid, &email));
        if let Some(p) = state
            .tournaments
            .get_mut(&tid)
            .and_then(|t| t.players.iter_mut().find(|p| p.email == email))
        {
            p.leaves.retain(|r| *r != rest);
        }
        out.tournaments.insert(tid.clone());
        log_leave(state, out, &tid, &email, rest, LeaveHow::Withdrawn, now);
        out.log.push(format!(
            "{tid}: leave of {email} {} to {} withdrawn before it began (TO §24)",
            rest.from, rest.to
        ));
        let leave = LeaveOf {
            tid: &tid,
            email: &email,
            rest,
            ended: None,
            withdrawn: true,
        };
        leave_notices(state, out, leave, letter, at);
        leave_receipt(state, out, leave, letter, at);
    }
}

/// Records a leave (`special`: beyond the budget) and logs it in each open game of the player.
pub(crate) fn add_leave(
    state: &mut State,
    out: &mut Output,
    tid: &str,
    email: &str,
    rest: Rest,
    how: LeaveHow,
    now: DateTime<Utc>,
) {
    let special = how == LeaveHow::Special;
    let Some(p) = state
        .tournaments
        .get_mut(tid)
        .and_then(|t| t.players.iter_mut().find(|p| p.email == email))
    else {
        return;
    };
    if special {
        p.special_leaves.push(rest);
    } else {
        p.leaves.push(rest);
    }
    out.tournaments.insert(tid.to_string());
    log_leave(state, out, tid, email, rest, how, now);
    out.log.push(format!(
        "{tid}: leave of {email} {} to {} ({}, TO §24)",
        rest.from,
        rest.to,
        how.name()
    ));
}

/// TO §24: the leave `rest` of `email` as it now stands, in the record of each of the
/// player's open games in the tournament; `how` says what made it so.
fn log_leave(
    state: &mut State,
    out: &mut Output,
    tid: &str,
    email: &str,
    rest: Rest,
    how: LeaveHow,
    now: DateTime<Utc>,
) {
    for g in open_games_in(state, tid, email) {
        state.log_event(
            out,
            &g,
            Event::Leave {
                at: now,
                player: email.to_string(),
                from: rest.from,
                to: rest.to,
                how,
            },
        );
    }
}

/// TO §24: a move sent during leave ends the leave the day before, in all games of the
/// tournament; the director and the partners are told.
pub(crate) fn end_leave_on_move(
    state: &mut State,
    out: &mut Output,
    game_ref: &GameRef,
    email: &str,
    letter: &Letter,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let today = view::local_date(now, s.tz);
    let tid = game_ref.tournament.clone();
    let Some(p) = state
        .tournaments
        .get_mut(&tid)
        .and_then(|t| t.players.iter_mut().find(|p| p.email == email))
    else {
        return;
    };
    // A leave that this very mail asks for, beginning today, is not ended by the move the mail
    // carries: the player moves, then goes on leave.
    let fresh = letter.content.leave.is_some();
    let mut ended: Vec<(Rest, Rest)> = Vec::new();
    for list in [&mut p.leaves, &mut p.special_leaves] {
        for r in list.iter_mut() {
            if r.from <= today && today <= r.to && !(fresh && r.from == today) {
                let before = *r;
                r.to = today.pred_opt().unwrap_or(today);
                ended.push((before, *r));
            }
        }
        list.retain(|r| r.from <= r.to);
    }
    if ended.is_empty() {
        return;
    }
    out.tournaments.insert(tid.clone());
    for (before, after) in ended {
        log_leave(state, out, &tid, email, after, LeaveHow::EndedEarly, now);
        out.log.push(format!(
            "{tid}: leave of {email} {} to {} ended early by a move on {today} (TO §24)",
            before.from, before.to
        ));
        let leave = LeaveOf {
            tid: &tid,
            email,
            rest: after,
            ended: Some((before, today)),
            withdrawn: false,
        };
        leave_notices(state, out, leave, letter, Step { now, s });
    }
}

/// The `leave` notice to every partner with an open game in the tournament and to the
/// director (TO §25). `ended`: the leave as it was and the day of the move that ended it.
fn leave_notices(
    state: &mut State,
    out: &mut Output,
    leave: LeaveOf<'_>,
    letter: &Letter,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let LeaveOf {
        tid,
        email,
        rest,
        ended,
        withdrawn,
    } = leave;
    let Some(t) = state.tournaments.get(tid) else {
        return;
    };
    let player = t.recipient(email);
    let (move_day, days_returned) = match ended {
        Some((before, day)) => (Some(view::day(day)), (before.to - rest.to).num_days()),
        None if withdrawn => (None, (rest.to - rest.from).num_days() + 1),
        None => (None, 0),
    };
    let facts = |recipient: String, game: Option<String>| LeaveFacts {
        recipient,
        player: player.name.clone(),
        player_email: player.email.clone(),
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        director: t.director.name.clone(),
        from: view::day(rest.from),
        to: view::day(rest.to),
        days: (rest.to - rest.from).num_days() + 1,
        cancelled: rest.to < rest.from,
        ended_early: ended.is_some(),
        withdrawn,
        move_day,
        last_day: view::day(rest.to),
        days_returned,
        now: view::when(now, s.tz),
        to_partner: game.is_some(),
        game,
    };
    let mut mails = Vec::new();
    for g in open_games_in(state, tid, email) {
        let game = &state.games[&g];
        let Some(c) = game.color_of(email) else {
            continue;
        };
        let partner = game.players.get(!c).clone();
        let lang = t.lang_of(&partner, s.default_lang);
        let data = facts(t.recipient(&partner).name, Some(g.to_string()));
        mails.push((
            t.recipient(&partner),
            Some(g.clone()),
            Some(game.keys.get(!c).clone()),
            lang,
            data,
        ));
    }
    let lang = s.default_lang;
    let data = facts(t.director.name.clone(), None);
    mails.push((t.director_recipient(), None, None, lang, data));
    for (to, game, reply_key, lang, data) in mails {
        let message_id = state.meta.next_message_id(s, "leave");
        // TO §25: a partner's notice goes through the director, who is in copy.
        let cc = match &game {
            Some(_) => vec![t.director_recipient()],
            None => Vec::new(),
        };
        out.mails.push(Mail {
            cc,
            game,
            reply_key,
            in_reply_to: Some(letter.message_id.clone()),
            ..Mail::new(MailKind::Leave, vec![to], lang, message_id, data)
        });
    }
}

/// The receipt of an accepted leave to the player.
fn leave_receipt(
    state: &mut State,
    out: &mut Output,
    leave: LeaveOf<'_>,
    letter: &Letter,
    at: Step<'_>,
) {
    let LeaveOf {
        tid,
        email,
        rest,
        withdrawn,
        ..
    } = leave;
    let (now, s) = (at.now, at.s);
    let Some(t) = state.tournaments.get(tid) else {
        return;
    };
    let lang = t.lang_of(email, s.default_lang);
    let year = tournament_year(t.start, rest.from);
    let taken = t
        .player(email)
        .map(|p| budget_taken(&p.leaves, year))
        .unwrap_or(0);
    let games: Vec<(String, String)> = open_games_in(state, tid, email)
        .iter()
        .filter_map(|g| {
            let game = state.games.get(g)?;
            let c = game.color_of(email)?;
            Some((g.to_string(), t.recipient(game.players.get(!c)).name))
        })
        .collect();
    let data = LeaveReceiptFacts {
        recipient: t.recipient(email).name,
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        leave: LeaveAccount {
            withdrawn,
            from: view::day(rest.from),
            to: view::day(rest.to),
            days: (rest.to - rest.from).num_days() + 1,
            year_from: view::day(year.0),
            year_to: view::day(year.1),
            taken,
            left: (BUDGET_DAYS - taken).max(0),
            partners: games
                .iter()
                .map(|(g, partner)| format!("{partner} ({g})"))
                .collect(),
            games: games
                .into_iter()
                .map(|(game, partner)| LeaveGame { game, partner })
                .collect(),
        },
        now: view::when(now, s.tz),
    };
    let message_id = state.meta.next_message_id(s, "receipt");
    out.mails.push(Mail {
        in_reply_to: Some(letter.message_id.clone()),
        ..Mail::new(
            MailKind::Receipt,
            vec![t.recipient(email)],
            lang,
            message_id,
            data,
        )
    });
}
