//! TO §24: a planned leave withdrawn before it begins.

use super::super::reading::{Reading, Request, Why};
use super::super::tokens::{Sentence, negated};
use super::clause::{declines, first_person, leave_word, particle_at_end, second_person, span_of};
use crate::letter::types::{DateSpan, RequestKind};

/// `Urlaub zurückgezogen`, `Ich ziehe meinen Urlaub vom 20.12. bis 3.1. zurück`, `Mein Urlaub
/// fällt aus`, `Ich storniere meinen Urlaub`, `cancel leave`, `I withdraw my holiday notice`:
/// a leave word and a word that withdraws it, in the writer's own sentence.
pub(super) fn withdraw_leave(s: &Sentence) -> Option<Reading> {
    let kind = RequestKind::WithdrawLeave;
    let leave = s.find_by(|w| leave_word(w) || w == "leave")?;
    let i = s
        .find_by(|w| {
            w.starts_with("zurueckgezogen")
                || w.starts_with("zurueckzieh")
                || w.starts_with("zurueckzuzieh")
                || w.starts_with("storn")
                || w.starts_with("abgesagt")
                || w.starts_with("absag")
                || w == "entfaellt"
                || w.starts_with("cancel")
                || w.starts_with("withdr")
                || w == "annul"
        })
        .or_else(|| {
            // `Ich ziehe meinen Urlaub zurück`, `Ich sage meinen Urlaub ab`, `fällt aus`.
            let verb = s.find(&["ziehe", "ziehen", "sage", "sagen", "faellt"])?;
            (particle_at_end(s, "zurueck") || particle_at_end(s, "ab") || particle_at_end(s, "aus"))
                .then_some(verb)
        })?;
    // `I'll leave it`: the verb, not a leave.
    if s.toks[leave].word() == Some("leave") && !s.has(&["my", "the", "cancel", "withdraw"]) {
        return None;
    }
    if negated(s, i) {
        return Some(declines(kind, Why::Negated));
    }
    if second_person(s) && !first_person(s) || s.question && !first_person(s) {
        return Some(declines(kind, Why::AboutPartner));
    }
    let (dates, _) = span_of(s);
    let span = match dates.as_slice() {
        [from, to, ..] => Some(DateSpan {
            from: *from,
            to: *to,
        }),
        _ => None,
    };
    Some(Reading::Acts(Request::WithdrawLeave(span)))
}
