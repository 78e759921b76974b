//! `Status`: the writer asks for his games.

use super::super::reading::{Reading, Request, Why};
use super::super::tokens::{Sentence, negated};
use super::clause::{OTHER_GAME, PAST, declines};
use crate::letter::types::RequestKind;

pub(super) fn status(s: &Sentence) -> Option<Reading> {
    const ABOUT_MINE: &[&str] = &[
        "meine",
        "meiner",
        "meinen",
        "my",
        "alle",
        "all",
        "bitte",
        "please",
        "send",
        "schicken",
        "senden",
        "zusenden",
        "zusendung",
        "schick",
        "schicke",
        "uebersenden",
        "mitteilen",
        "partien",
        "games",
        "turnier",
        "tournament",
        "aktuellen",
        "current",
    ];
    let kind = RequestKind::Status;
    let i = s.find_by(|w| {
        w.starts_with("status")
            || matches!(
                w,
                "stand"
                    | "standes"
                    | "staende"
                    | "zwischenstand"
                    | "uebersicht"
                    | "overview"
                    | "tabelle"
                    | "kreuztabelle"
                    | "crosstable"
                    | "standings"
                    | "spielstand"
                    | "aufstellung"
                    | "liste"
                    | "list"
                    | "state"
            )
    });
    let i = match i {
        Some(i) => i,
        None => {
            // `Wie stehen meine Partien?`, `Could you tell me whose move it is in my games?`,
            // `Wie viel Bedenkzeit habe ich noch?`
            let games = s
                .find(&["partien", "games", "spiele"])
                .filter(|_| s.has(&["meine", "meiner", "meinen", "my", "ich", "i"]));
            let time = s
                .find(&["bedenkzeit", "restzeit"])
                .filter(|_| s.has(&["noch", "left", "habe", "have"]));
            let at = games.or(time)?;
            let asks = s.question || s.has(&["fragen", "ask", "wissen", "know"]);
            if !asks || s.has(OTHER_GAME) && !s.has(&["meine", "my", "meiner"]) {
                return None;
            }
            at
        }
    };
    let word = s.toks[i].word().unwrap_or_default();
    if negated(s, i) {
        return Some(declines(kind, Why::Negated));
    }
    if matches!(
        word,
        "stand" | "standes" | "aufstellung" | "liste" | "list" | "state"
    ) && !s.has(&[
        "meiner",
        "partien",
        "games",
        "turnier",
        "tournament",
        "meine",
    ]) {
        return Some(declines(kind, Why::OtherSense));
    }
    let alone = s.word_count() <= 2;
    let asks = s.question || s.has(ABOUT_MINE) || s.has(&["fragen", "bitte", "ask"]);
    if alone || asks && !s.has(PAST) {
        return Some(Reading::Acts(Request::Status));
    }
    Some(declines(kind, Why::OtherSense))
}
