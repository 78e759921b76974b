//! TO §24: leave, with its first and last day.

use super::super::reading::{Reading, Request, Why};
use super::super::tokens::{Sentence, Tok, days_at, negated};
use super::clause::{THIRD_PERSON, ask, declines, english_was, leave_word, second_person, span_of};
use crate::letter::types::{DateSpan, Missing, RequestKind, StatedDate};

/// Words that carry a leave only beside a date or a span (`ich bin vom … bis … verreist`,
/// `away for two weeks`).
const LEAVE_WITH_DATE: &[&str] = &[
    "verreist",
    "verreise",
    "reise",
    "reisen",
    "unterwegs",
    "kur",
    "reha",
    "erreichbar",
    "away",
    "absent",
    "travelling",
    "traveling",
    "trip",
    "unavailable",
    "reachable",
    "offline",
    "abroad",
    "weg",
    "krankenhaus",
    "klinik",
    "hospital",
];

/// Month names, folded.
const MONTHS: &[&str] = &[
    "januar",
    "jaenner",
    "februar",
    "maerz",
    "april",
    "mai",
    "juni",
    "juli",
    "august",
    "september",
    "oktober",
    "november",
    "dezember",
    "january",
    "february",
    "march",
    "may",
    "june",
    "july",
    "october",
    "december",
];

/// A stay in hospital: a reason for special leave (TO §24), which the director grants.
const HOSPITAL: &[&str] = &["krankenhaus", "klinik", "hospital"];

/// A wish or greeting (`schöne Feiertage`, `enjoy your holiday`, `danke für die Urlaubsgrüße`).
const WISHES: &[&str] = &[
    "wuensche",
    "wuenschen",
    "schoene",
    "schoenen",
    "schoenes",
    "schoener",
    "erholsame",
    "erholsamen",
    "frohe",
    "frohes",
    "enjoy",
    "happy",
    "merry",
    "nice",
    "wish",
    "geniesse",
    "geniess",
    "danke",
    "thanks",
    "thank",
    "party",
    "feier",
];

/// English `leave` as a noun (`on leave`, `leave from …`, `Leave:`), not the verb (`leave it`).
fn leave_noun(s: &Sentence, i: usize) -> bool {
    let prev = i
        .checked_sub(1)
        .and_then(|p| s.toks.get(p))
        .and_then(Tok::word);
    let next = s.toks.get(i + 1);
    prev.is_some_and(|p| {
        matches!(
            p,
            "on" | "of"
                | "my"
                | "annual"
                | "a"
                | "take"
                | "taking"
                | "request"
                | "requesting"
                | "some"
                | "for"
                | "the"
        )
    }) || matches!(next, Some(Tok::Colon))
        || next
            .and_then(Tok::word)
            .is_some_and(|n| matches!(n, "from" | "request" | "starting" | "of" | "notice"))
        || i == 0 && s.dates().len() >= 2
}

/// Whether `d` … `e` is a span in order; without years it may cross the new year, but only by
/// a few weeks (`20.12. – 3.1.`, not `10.12. – 23.11.`).
fn before(d: &StatedDate, e: &StatedDate) -> bool {
    match (d.year, e.year) {
        (Some(a), Some(b)) if a != b => a < b && d.month >= 11 && e.month <= 2,
        (None, _) | (_, None) if d.month > e.month => d.month >= 11 && e.month <= 2,
        _ => (d.month, d.day) <= (e.month, e.day),
    }
}

pub(super) fn leave(s: &Sentence, after: &[Sentence]) -> Option<Reading> {
    let (mut dates, mut first_at) = span_of(s);
    let kind = RequestKind::Leave;
    let strong = s
        .words()
        .find(|&(i, w)| leave_word(w) || w == "leave" && leave_noun(s, i));
    let period = s
        .toks
        .iter()
        .enumerate()
        .any(|(j, _)| days_at(s, j).is_some_and(|d| d >= 7));
    // A span alone carries a leave only when it is not thinking time (`mehr als 10 Tage`).
    let period = period && !s.has(&["mehr", "more", "laenger", "longer", "zug", "move"]);
    // `Von Mitte bis Ende März bin ich verreist`: a month without days.
    let month = s.words().any(|(_, w)| MONTHS.contains(&w));
    let weak = || {
        s.words()
            .find(|&(_, w)| LEAVE_WITH_DATE.contains(&w))
            .filter(|_| !dates.is_empty() || period || month)
    };
    let Some((i, word)) = strong.or_else(weak).map(|(i, w)| (i, w.to_string())) else {
        // `I will leave it to you`: the verb; `Urlaubsgrüße`, `urlaubsreif`: no leave asked.
        return s
            .find_by(|w| w == "leave" || w.starts_with("urlaub"))
            .map(|_| declines(kind, Why::OtherSense));
    };
    if !matches!(word.as_str(), "erreichbar" | "reachable" | "unavailable") && negated(s, i) {
        return Some(declines(kind, Why::Negated));
    }
    // The dates may stand in the sentences after it (`Urlaubsmeldung. 10.12.2026 – 23.12.2026`,
    // `Beginn: 10.12.2026` / `Ende: 23.12.2026`), up to the next leave word.
    for n in after {
        if dates.len() >= 2
            || n.words()
                .any(|(j, w)| leave_word(w) || w == "leave" && leave_noun(n, j))
        {
            break;
        }
        let (more, _) = span_of(n);
        if dates.is_empty() {
            first_at = None;
        }
        dates.extend(more);
    }
    let mine = s.has(&[
        "ich", "i", "mein", "meine", "meinen", "meinem", "meiner", "mir", "mich", "my", "me",
        "i'm", "i'll", "i'd", "bin", "am",
    ]);
    if HOSPITAL.contains(&word.as_str()) && dates.is_empty() {
        return None;
    }
    if s.has(WISHES) && (dates.is_empty() || !mine) {
        return Some(declines(kind, Why::OtherSense));
    }
    if second_person(s) && !mine && !s.has(&["ihnen", "dir", "you"])
        || s.question && second_person(s) && !mine
    {
        return Some(declines(kind, Why::AboutPartner));
    }
    // `Meine Frau hat vom 10. bis 23.12. Urlaub, ich leider nicht.`: another's leave, in the
    // clause of the word.
    let clause = s.clause_words(i);
    let in_clause = |list: &[&str]| clause.iter().any(|w| list.contains(w));
    if in_clause(THIRD_PERSON)
        && in_clause(&["hat", "has", "ist", "is", "macht", "nimmt"])
        && !in_clause(&["ich", "i", "i'm", "bin", "am"])
        || s.has(&["leider"]) && negated(s, s.toks.len().saturating_sub(1))
    {
        return Some(declines(kind, Why::Reported));
    }
    if english_was(s)
        || s.has(&[
            "war",
            "waren",
            "were",
            "hatte",
            "had",
            "letztes",
            "letzten",
            "vergangenen",
            "gehabt",
            "bestaetigt",
            "confirmed",
            "genehmigt",
            "approved",
        ])
        || s.has(&["zurueck", "back"]) && dates.len() < 2
        || s.has(&["nach", "after"]) && dates.is_empty()
    {
        return Some(declines(kind, Why::Reported));
    }
    // `Zeit für Urlaub habe ich erst im Sommer`: none now.
    if s.has(&["erst"]) && dates.is_empty() {
        return Some(declines(kind, Why::Describes));
    }
    if !mine
        && dates.is_empty()
        && !s.has(&[
            "urlaub",
            "urlaubsmeldung",
            "urlaubsantrag",
            "leave",
            "vacation",
        ])
        && s.word_count() > 2
    {
        return Some(declines(kind, Why::OtherSense));
    }
    // `vom 1. bis 10. Juni und vom 1. bis 10. September`: two leaves, one per mail.
    let spans = s
        .toks
        .windows(3)
        .filter(|w| {
            matches!(w[0], Tok::Date(_) | Tok::Ordinal(_) | Tok::Num(_))
                && (matches!(w[1], Tok::Dash)
                    || w[1]
                        .word()
                        .is_some_and(|x| matches!(x, "bis" | "to" | "until" | "till")))
                && matches!(w[2], Tok::Date(_))
        })
        .count();
    if spans >= 2 {
        return Some(ask(kind, s, Missing::OnePerMail));
    }
    let missing = match dates.as_slice() {
        [] => Missing::Dates,
        [_] => {
            let at = first_at.unwrap_or(0);
            let prev: Vec<&str> = (at.saturating_sub(3)..at)
                .filter_map(|j| s.toks.get(j).and_then(Tok::word))
                .collect();
            if prev
                .iter()
                .any(|w| matches!(*w, "bis" | "until" | "till" | "to" | "through"))
            {
                Missing::FirstDay
            } else {
                Missing::LastDay
            }
        }
        [from, to, ..] => {
            let unsure = s.has(&[
                "vielleicht",
                "eventuell",
                "maybe",
                "perhaps",
                "possibly",
                "irgendwann",
                "ungefaehr",
                "etwa",
                "circa",
                "ca",
                "about",
                "around",
                "voraussichtlich",
                "probably",
                "wahrscheinlich",
            ]) || HOSPITAL.contains(&word.as_str());
            if !before(from, to) {
                Missing::Order
            } else if unsure {
                Missing::Certainty
            } else {
                return Some(Reading::Acts(Request::Leave(DateSpan {
                    from: *from,
                    to: *to,
                })));
            }
        }
    };
    Some(ask(kind, s, missing))
}
