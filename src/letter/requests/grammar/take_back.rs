//! TO §4: taking back a move, an offer, a resignation.

use super::super::reading::{Reading, Request, Why};
use super::super::tokens::{Sentence, negated};
use super::clause::{ask, bigram, declines, first_person, particle_at_end, second_person};
use crate::letter::types::{Missing, RequestKind};

pub(super) fn take_back(s: &Sentence) -> Option<Reading> {
    const OBJECTS: &[&str] = &[
        "zug",
        "zuege",
        "move",
        "moves",
        "offer",
        "resignation",
        "draw",
        "angebot",
        "remisangebot",
        "aufgabe",
        "it",
        "zugangabe",
    ];
    let kind = RequestKind::TakeBack;
    let i = s
        .find_by(|w| {
            w.starts_with("zuruecknehm")
                || w.starts_with("zurueckzunehm")
                || w.starts_with("zurueckgenommen")
                || w.starts_with("zurueckzieh")
                || w.starts_with("zurueckzuzieh")
                || w.starts_with("zurueckgezogen")
                || w.starts_with("widerruf")
                || w == "ruecknahme"
                || w == "rueckgaengig"
                || w == "takeback"
                || w == "retract"
                || w == "retracting"
                || w == "undo"
        })
        .or_else(|| {
            // `Ich nehme meinen Zug zurück`; not `Ich bin aus dem Urlaub zurück`.
            let verb = s.find(&["nehme", "nimm", "ziehe", "nehmen", "ziehen", "nehm"])?;
            (particle_at_end(s, "zurueck") || bigram(s, "zurueck", "nehmen")).then_some(verb)
        })
        // `Zug zurück!`
        .or_else(|| {
            bigram(s, "zug", "zurueck")
                .then(|| s.find(&["zug"]))
                .flatten()
        })
        .or_else(|| {
            let t = s.find(&["take", "taking", "took"])?;
            s.has(&["back"]).then_some(t)
        })
        .or_else(|| {
            let t = s.find(&[
                "withdraw",
                "withdrawing",
                "cancel",
                "streichen",
                "streiche",
                "korrigieren",
                "aendern",
                "change",
            ])?;
            (s.has(OBJECTS) && !s.has(&["segel"])).then_some(t)
        })
        .or_else(|| {
            // `Mein Remisangebot gilt nicht mehr.`
            let t = s.find(&["gilt", "gueltig", "stands", "valid"])?;
            (s.has(&["angebot", "remisangebot", "offer", "zug", "move"])
                && (bigram(s, "nicht", "mehr") || bigram(s, "no", "longer")))
            .then_some(t)
        })
        .or_else(|| {
            // `mein letzter Zug war ein Versehen`, `ich habe mich vertippt`
            let t = s.find(&[
                "versehen",
                "irrtum",
                "vertippt",
                "verschrieben",
                "mistake",
                "typo",
                "slip",
                "wrong",
                "falsch",
            ])?;
            (s.has(&["zug", "move", "zugangabe"])
                && first_person(s)
                && !s.has(&["dein", "your", "ihr"]))
            .then_some(t)
        })
        .or_else(|| {
            // `Bitte ignorieren Sie meine letzte Mail`, `Please disregard my previous email.`
            s.find(&["ignorieren", "ignore", "disregard", "vergessen", "forget"])
        })?;
    // `Ich nehme alles zurück, was ich gesagt habe`: words taken back, no move.
    if s.has(&["gesagt", "said", "geschrieben", "written", "behauptet"]) && !s.has(OBJECTS) {
        if s.has(&["vergessen", "forget"]) {
            return Some(ask(kind, s, Missing::Certainty));
        }
        return Some(declines(kind, Why::OtherSense));
    }
    let word = s.toks[i].word().unwrap_or_default();
    if matches!(
        word,
        "ignorieren" | "ignore" | "disregard" | "vergessen" | "forget"
    ) {
        if !s.has(&[
            "mail",
            "email",
            "nachricht",
            "message",
            "zug",
            "move",
            "geschrieben",
        ]) {
            return None;
        }
        if !s.has(&["zug", "move", "falsch", "wrong"]) {
            return Some(ask(kind, s, Missing::Certainty));
        }
    }
    if negated(s, i) && !matches!(word, "gilt" | "gueltig" | "stands" | "valid") {
        return Some(declines(kind, Why::Negated));
    }
    if second_person(s) && !first_person(s) && !s.has(&["bitte", "please", "kann", "can"]) {
        return Some(declines(kind, Why::AboutPartner));
    }
    Some(Reading::Acts(Request::TakeBack))
}
