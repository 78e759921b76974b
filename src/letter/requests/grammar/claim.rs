//! FIDE 9.2: the claim of a draw by repetition.

use super::super::reading::{Reading, Request, Why};
use super::super::tokens::{Sentence, Tok, negated};
use super::clause::{
    PAST, REJECTIONS, ask, bigram, declines, draw_word, first_person, hedged, plays_on,
    second_person,
};
use crate::letter::types::{Missing, RequestKind};

pub(super) fn claim(s: &Sentence) -> Option<Reading> {
    // `dreimal`, `zum dritten Mal`, `three times`, `for the third time`.
    let three_times = s.find_by(|w| w.starts_with("dreimal") || w.starts_with("dreifach") || w == "threefold").is_some()
        || bigram(s, "three", "times")
        || bigram(s, "dritten", "mal")
        || bigram(s, "third", "time")
        || bigram(s, "drei", "mal")
        || s.toks.windows(2).any(|w| matches!(w, [Tok::Num(3), Tok::Word { folded, .. }] if folded == "mal" || folded == "times"));
    let i = s
        .find_by(|w| {
            w.ends_with("wiederholung")
                || w.starts_with("dreimal")
                || w.starts_with("dreifach")
                || w == "threefold"
                || w == "repetition"
                || w == "repeated"
                || w == "wiederholt"
                || w == "dauerschach"
                || w == "perpetual"
        })
        .or_else(|| {
            if !three_times {
                return None;
            }
            s.find(&["stellung", "position", "times", "mal", "time"])
        })
        .or_else(|| {
            // `Ich reklamiere Remis.`, `Ich beanspruche Remis gemäß FIDE-Regel 9.2.`
            let verb = s.find(&[
                "reklamiere",
                "reklamieren",
                "beanspruche",
                "beantrage",
                "verlange",
                "fordere",
                "claim",
                "claiming",
            ])?;
            s.words().any(|(j, w)| draw_word(s, j, w)).then_some(verb)
        })?;
    let word = s.toks[i].word().unwrap_or_default().to_string();
    // `Wiederholung: 24. Td2`: the label of a repeated move (TO §2), not a claim.
    if matches!(s.toks.get(i + 1), Some(Tok::Colon))
        && matches!(s.toks.get(i + 2), Some(Tok::Ordinal(_) | Tok::Num(_)))
    {
        return None;
    }
    let kind = RequestKind::Claim;
    let draw = s.words().any(|(j, w)| draw_word(s, j, w));
    // `I repeated my move`, `Dauerschach!` alone: no claim word without the three times or a draw.
    if matches!(word.as_str(), "repeated" | "wiederholt") && !three_times && !draw {
        return None;
    }
    // `Ist das nicht schon eine dreimalige Stellungswiederholung?`: a question that claims, perhaps.
    let rhetorical = s.question
        && s.words()
            .next()
            .is_some_and(|(_, w)| matches!(w, "ist" | "is" | "isnt" | "isn't" | "haben" | "sind"));
    if rhetorical {
        return Some(ask(kind, s, Missing::Certainty));
    }
    if negated(s, i) || s.has(REJECTIONS) || plays_on(s) {
        return Some(declines(kind, Why::Negated));
    }
    let claims = s.has(&[
        "beantrage",
        "beantragen",
        "reklamiere",
        "reklamieren",
        "fordere",
        "verlange",
        "claim",
        "claiming",
        "claims",
        "geltend",
        "beanspruche",
    ]);
    // `Die Stellung wiederholt sich ständig, wollen wir nicht Remis machen?`: an offer.
    if draw && s.question && s.has(&["wollen", "sollen", "shall"]) {
        return None;
    }
    if s.question
        || (hedged(s) || s.has(&["droht", "moeglich", "possible", "faerchte", "fuerchte"]))
            && !claims
    {
        if s.question && second_person(s) && !first_person(s) {
            return Some(declines(kind, Why::AboutPartner));
        }
        if !s.question && !claims && !draw {
            return Some(declines(kind, Why::Describes));
        }
        return Some(ask(kind, s, Missing::Certainty));
    }
    if s.has(PAST) && !claims && !draw {
        return Some(declines(kind, Why::Reported));
    }
    // `Dauerschach. Remis.`: perpetual check is no claim by itself.
    if matches!(word.as_str(), "dauerschach" | "perpetual") && !three_times && !claims {
        return Some(ask(kind, s, Missing::Certainty));
    }
    if claims || draw || s.word_count() <= 4 && (three_times || word.ends_with("wiederholung")) {
        return Some(Reading::Acts(Request::Claim));
    }
    Some(ask(kind, s, Missing::Certainty))
}
