//! TO §13: the announcement of more than 10 days for one move (its days:
//! `super::super::tokens::days_at`).

use super::super::reading::{Reading, Request, Why};
use super::super::tokens::{Sentence, Tok, days_at, negated};
use super::clause::{ask, declines, first_person, leave_word, particle_at_end, second_person};
use crate::letter::types::{Missing, RequestKind};

pub(super) fn announce(s: &Sentence) -> Option<Reading> {
    const MORE: &[&str] = &[
        "mehr", "laenger", "ueber", "more", "longer", "over", "beyond",
    ];
    const EXCEED: &[&str] = &["ueberschreiten", "ueberschreite", "exceed", "exceeding"];
    const NEED: &[&str] = &[
        "brauche",
        "brauchen",
        "benoetige",
        "benoetigen",
        "need",
        "needs",
        "needed",
        "require",
        "dauern",
        "dauert",
        "nehmen",
        "nehme",
        "take",
        "beanspruche",
        "beanspruchen",
        "expect",
    ];
    let kind = RequestKind::Announce;
    // `mehr als zehn Tage`, `über 10 Tage`, `die zehn Tage überschreiten`, `14 Tage brauchen`,
    // `in about three weeks`.
    let spans: Vec<(usize, u32)> = (0..s.toks.len())
        .filter_map(|j| days_at(s, j).map(|d| (j, d)))
        .collect();
    let more = s.find(MORE);
    let exceed = s.find(EXCEED);
    let leave_words = s.words().any(|(_, w)| leave_word(w));
    let counted = spans.iter().find_map(|&(j, d)| {
        let after_more = more.is_some_and(|m| m < j && j - m <= 4);
        let mine = (s.has(NEED) || s.has(&["move", "zug"])) && !leave_words;
        let beyond = after_more && d >= 10 || exceed.is_some() || d > 10 && mine;
        beyond.then_some((j, d))
    });
    let announced = s.find_by(|w| {
        w.starts_with("ankuendig") || w == "kuendige" || w == "announce" || w == "announcement"
    });
    let s13 = s
        .toks
        .windows(2)
        .any(|p| matches!(p, [Tok::Section, Tok::Num(13) | Tok::Ordinal(13)]));
    let melde = s.has(&["melde"]) && particle_at_end(s, "an") || s.has(&["anmelden"]);
    let more_time = s
        .find_by(|w| matches!(w, "laenger" | "longer"))
        .or_else(|| {
            s.find(&["mehr", "more"])
                .filter(|_| s.has(&["zeit", "time", "bedenkzeit"]))
        })
        .or_else(|| {
            s.find(&["dauern", "dauert"])
                .filter(|_| s.has(&["diesmal", "etwas", "while", "laenger"]))
        })
        .filter(|_| s.has(NEED) || s.has(&["dauern", "dauert"]));
    let i = match (counted, announced, more_time) {
        (Some((j, _)), _, _) => j,
        (None, Some(i), _) if s13 || s.has(&["bedenkzeit", "tage", "days", "zeit", "time"]) => i,
        // `Die Ankündigung der Vereinsmeisterschaft …`: another announcement.
        (None, Some(_), None) if !s13 => return Some(declines(kind, Why::OtherSense)),
        (None, None, _) if s13 && melde => s.find(&["melde", "anmelden"]).unwrap_or(0),
        (None, _, Some(i)) => i,
        _ => {
            // `Ich brauche mehr als eine Woche.`: a span, but not said to be over 10 days.
            let (j, _) = spans.iter().find(|&&(j, d)| {
                (7..10).contains(&d) && more.is_some_and(|m| m < j) && s.has(NEED)
            })?;
            if negated(s, *j) || second_person(s) && !first_person(s) {
                return None;
            }
            return Some(ask(kind, s, Missing::Days));
        }
    };
    if negated(s, i) && !s.has(&["ueberschreiten", "ueberschreite"]) {
        return Some(declines(kind, Why::Negated));
    }
    if s.has(&["took", "gebraucht", "benoetigt", "had"]) && !s.question {
        return Some(declines(kind, Why::Reported));
    }
    if second_person(s) && !first_person(s) && !s.has(&["expect"]) {
        return Some(declines(kind, Why::AboutPartner));
    }
    if let Some((_, d)) = counted
        && d < 10
    {
        return Some(declines(kind, Why::OtherSense));
    }
    if counted.is_none() && !s13 && announced.is_none() {
        return Some(ask(kind, s, Missing::Days));
    }
    if s.question
        || s.has(&[
            "vielleicht",
            "eventuell",
            "maybe",
            "perhaps",
            "possibly",
            "might",
        ])
    {
        return Some(ask(kind, s, Missing::Certainty));
    }
    Some(Reading::Acts(Request::Announce))
}
