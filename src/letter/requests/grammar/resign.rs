//! TO §2: resignation.

use super::super::reading::{Reading, Request, Why};
use super::super::tokens::{Sentence, Tok, negated};
use super::clause::{
    OTHER_GAME, PAST, THIRD_PERSON, ask, bigram, declines, first_person, hedged, particle_at_end,
    plays_on, second_person,
};
use crate::letter::types::{Missing, RequestKind};

pub(super) fn resign(s: &Sentence) -> Option<Reading> {
    let kind = RequestKind::Resign;
    let short = s.word_count() <= 3;
    let word_at = s.find_by(|w| {
        matches!(
            w,
            "aufgeben"
                | "aufgegeben"
                | "aufzugeben"
                | "kapituliere"
                | "kapitulation"
                | "kapitulieren"
                | "resign"
                | "resigns"
                | "resigned"
                | "resigning"
                | "resignation"
                | "concede"
                | "concedes"
                | "conceded"
                | "conceding"
                | "resigniere"
        )
    });
    let phrase_at = || {
        let give = s.find(&["gebe", "geb", "gibt", "gib", "geben", "gab", "gebt"])?;
        let contiguous_auf = s.toks.get(give + 1).and_then(Tok::word) == Some("auf")
            && !s.has(&["acht", "obacht", "post", "brief"]);
        (particle_at_end(s, "auf")
            || contiguous_auf
            || s.has(&["verloren"])
            || s.has(&["geschlagen"]))
        .then_some(give)
    };
    let english_at = || {
        let give = s.find(&["give", "gives", "giving", "gave"])?;
        s.has(&["up"]).then_some(give)
    };
    let idiom_at = || {
        (s.has(&["waffen", "handtuch", "towel", "segel"]))
            .then(|| {
                s.find(&[
                    "strecke", "werfe", "throw", "throwing", "strecken", "streiche",
                ])
            })
            .flatten()
    };
    let noun_at = || s.find(&["aufgabe"]);
    let Some(i) = word_at
        .or_else(phrase_at)
        .or_else(english_at)
        .or_else(idiom_at)
        .or_else(noun_at)
    else {
        // `Die Partie ist wohl verloren.`, `I think the game is yours.`, `Glückwunsch zum Sieg`:
        // a resignation, perhaps.
        let lost =
            s.has(&["verloren", "lost"]) && s.has(&["partie", "game", "stellung", "position"]);
        let yours = s.has(&["game", "partie", "sieg", "punkt", "point"])
            && (s.has(&["yours"]) || bigram(s, "gehoert", "dir") || bigram(s, "gehoert", "ihnen"));
        let congratulates = s
            .find_by(|w| {
                w.starts_with("glueckwunsch")
                    || w == "gratuliere"
                    || w.starts_with("congratulation")
            })
            .is_some()
            && (s.has(&["sieg", "win", "victory", "partie", "game"]) || s.word_count() <= 2);
        if !(lost || yours || congratulates) || s.has(OTHER_GAME) || s.has(PAST) || plays_on(s) {
            return None;
        }
        if s.question || negated(s, 0) || s.has(&["aber", "but", "noch", "still", "trotzdem"]) {
            return Some(declines(kind, Why::Describes));
        }
        return Some(ask(kind, s, Missing::Certainty));
    };
    let word = s.toks[i].word().unwrap_or_default();
    if word == "aufgabe" && !short && !s.has(&["erklaere", "partie", "hiermit", "meine"]) {
        return Some(declines(kind, Why::OtherSense));
    }
    if word == "aufgegeben"
        && s.has(&[
            "post",
            "brief",
            "paket",
            "bestellung",
            "anzeige",
            "hoffnung",
        ])
    {
        return Some(declines(kind, Why::OtherSense));
    }
    if matches!(word, "give" | "gives" | "giving" | "gave")
        && s.has(&["hope", "hoffnung", "on", "smoking", "rauchen"])
    {
        return Some(declines(kind, Why::OtherSense));
    }
    if word == "resigned" && s.has(&["job", "from", "post", "position", "office", "amt"]) {
        return Some(declines(kind, Why::OtherSense));
    }
    if negated(s, i) {
        return Some(declines(kind, Why::Negated));
    }
    if s.has(&["nearly", "almost", "fast", "beinahe", "beinah"]) {
        return Some(declines(kind, Why::Reported));
    }
    let partner = (s.has(&["du", "dich", "you", "gibst", "aufgibst", "er", "he", "she"])
        || s.toks
            .iter()
            .skip(1)
            .any(|t| matches!(t, Tok::Word { folded, upper: true } if folded == "sie")))
        && !first_person(s);
    if s.question {
        if partner || second_person(s) && !s.has(&["ich", "i"]) {
            return Some(declines(kind, Why::AboutPartner));
        }
        return Some(ask(kind, s, Missing::Certainty));
    }
    // The past, another game, another person: in the clause of the word (`I resign – well
    // played!` resigns).
    let clause = s.clause_words(i);
    let in_clause = |list: &[&str]| clause.iter().any(|w| list.contains(w));
    let third = in_clause(THIRD_PERSON) && !in_clause(&["ich", "i", "hiermit", "hereby"]);
    if partner || third {
        let why = if in_clause(PAST) || third {
            Why::Reported
        } else {
            Why::AboutPartner
        };
        return Some(declines(kind, why));
    }
    if in_clause(OTHER_GAME) || in_clause(PAST) || in_clause(&["gespielt", "played"]) {
        return Some(declines(kind, Why::Reported));
    }
    if word == "resigniere" {
        return Some(ask(kind, s, Missing::Certainty));
    }
    if hedged(s)
        || s.has(&["werde", "will", "going"]) && !s.has(&["hiermit", "hereby"])
        || s.has(&["dachte", "thought"])
    {
        return Some(ask(kind, s, Missing::Certainty));
    }
    Some(Reading::Acts(Request::Resign))
}
