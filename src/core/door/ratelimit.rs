//! At most `[limits] auto_answers_per_day` automatic answers a day to one address, then one
//! "no more today" notice, then silence until the next calendar day (in the relay's time zone).
//! Independent of headers: some auto-responders mark nothing, and a player's vacation reply that
//! answers every receipt would otherwise make a loop.
//!
//! Interpretation, once: an *answer* is a query or status mail a letter causes that goes to the
//! letter's sender alone (a query, the answer to `Status`, `Hilfe` or `Übersicht`, the
//! stranger's one polite answer). A
//! `move` that tells the sender his partner's conditional reply was played, his own copy of a
//! game end, a director's confirmation: these are news, not answers, and are never held back. Forwards to the partner, and mails to
//! several people (game end, leave notice, reports to the director), are not answers and are never
//! limited — the limit must not cost a partner his move. Nor is the receipt of something the relay
//! accepted (a move, an offer, a leave): each needs a new valid act of the player, so receipts
//! cannot loop, and a player who moves in many games on one day keeps getting his receipts; an
//! auto-responder's text is never a valid act and only ever draws queries, which are limited.
//! The letter itself is still acted on in full; only the answers are held back.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};

use crate::core::door::reply::{lang_for, query};
use crate::core::model::Refusal;
use crate::core::model::Step;
use crate::core::model::{AnswerDay, Output, Settings, State};
use crate::letter::Letter;

/// Caps the answers in `out` that `letter` caused to its sender.
pub(crate) fn limit_answers(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    now: DateTime<Utc>,
    s: &Settings,
) {
    let today = now.with_timezone(&s.tz).date_naive();
    prune(&mut state.meta.answers, today);
    let sender = letter.from.as_str();
    let is_answer = |m: &crate::core::model::Mail| {
        // A message's receipt (TO §30) answers words alone: counted like a query.
        let message_receipt = m.kind == crate::mail_kind::MailKind::Receipt
            && matches!(m.facts, crate::core::model::Facts::Message(_));
        (matches!(
            m.kind,
            crate::mail_kind::MailKind::Query
                | crate::mail_kind::MailKind::Status
                | crate::mail_kind::MailKind::Help
                | crate::mail_kind::MailKind::Overview
        ) || message_receipt)
            && m.cc.is_empty()
            && m.to.len() == 1
            && m.to[0].email == sender
    };
    if !out.mails.iter().any(is_answer) {
        return;
    }
    let limit = s.guard.answers_per_day;
    let mails = std::mem::take(&mut out.mails);
    let mut notice_needed = false;
    for m in mails {
        if !is_answer(&m) {
            out.mails.push(m);
            continue;
        }
        let day = state
            .meta
            .answers
            .entry(sender.to_string())
            .or_insert(AnswerDay {
                day: today,
                count: 0,
                notice: false,
            });
        if day.count < limit {
            day.count += 1;
            out.mails.push(m);
        } else {
            if !day.notice {
                day.notice = true;
                notice_needed = true;
            }
            out.log.push(format!(
                "{} to {} held back: {limit} answers today already",
                m.kind.name(),
                sender
            ));
        }
    }
    if notice_needed {
        let lang = lang_for(state, sender, None, s);
        query(
            state,
            out,
            letter,
            None,
            lang,
            Refusal::AnswerLimit { limit },
            Step { now, s },
        );
    }
}

/// Forgets the counts of earlier days.
fn prune(answers: &mut BTreeMap<String, AnswerDay>, today: NaiveDate) {
    answers.retain(|_, d| d.day >= today);
    for d in answers.values_mut() {
        if d.day < today {
            d.day = today;
        }
    }
}
