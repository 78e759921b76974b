//! `Übersicht` / `overview`: the writer asks for the overview of his games at this relay — the
//! whole text (a greeting and a sign-off around it allowed, as for `Hilfe`), or the subject.
//! `Übersicht wöchentlich` / `weekly overview` asks for it every Monday too, `Übersicht aus` /
//! `overview off` no longer. Answered with the overview (kind `overview`), never forwarded.
//!
//! Only lines that cannot mean anything else count: `Übersicht`, `Übersicht bitte`, `Meine
//! Übersicht`, `overview please`, `weekly overview`. `Danke für die Übersicht!` or `Die Stellung
//! ist unübersichtlich` stay words for the partner.

use super::help::{courtesy, fold_line};
use crate::letter::types::OverviewAsk;

/// Lines that ask for the overview once, folded as [`fold_line`] writes them.
const NOW: &[&str] = &[
    "uebersicht",
    "uebersicht bitte",
    "bitte uebersicht",
    "bitte eine uebersicht",
    "meine uebersicht",
    "meine partien",
    "uebersicht meiner partien",
    "uebersicht ueber meine partien",
    "overview",
    "overview please",
    "please overview",
    "my overview",
    "my games",
    "overview of my games",
];

/// Lines that ask for it every Monday.
const WEEKLY: &[&str] = &[
    "uebersicht woechentlich",
    "woechentliche uebersicht",
    "woechentlich uebersicht",
    "uebersicht jede woche",
    "uebersicht jeden montag",
    "uebersicht ein",
    "weekly overview",
    "overview weekly",
    "overview every week",
    "overview every monday",
    "overview on",
];

/// Lines that end the weekly overview.
const OFF: &[&str] = &[
    "uebersicht aus",
    "keine uebersicht",
    "keine uebersicht mehr",
    "uebersicht woechentlich aus",
    "woechentliche uebersicht aus",
    "keine woechentliche uebersicht",
    "keine woechentliche uebersicht mehr",
    "overview off",
    "no overview",
    "no more overview",
    "weekly overview off",
    "no weekly overview",
    "no more weekly overview",
    "stop overview",
    "stop weekly overview",
];

/// What `line` (a line or a subject) asks of the overview, when it asks for it and says
/// nothing else.
pub fn line_asks_for_overview(line: &str) -> Option<OverviewAsk> {
    let folded = fold_line(line);
    let folded = folded.as_str();
    if NOW.contains(&folded) {
        Some(OverviewAsk::Now)
    } else if WEEKLY.contains(&folded) {
        Some(OverviewAsk::Weekly)
    } else if OFF.contains(&folded) {
        Some(OverviewAsk::Off)
    } else {
        None
    }
}

/// What the whole `text` asks of the overview: one line of it, the others a greeting, a
/// sign-off or a name (as `Hilfe` is read, `super::help::asks_for_help`).
pub fn asks_for_overview(text: &str) -> Option<OverviewAsk> {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let asks: Vec<OverviewAsk> = lines
        .iter()
        .filter_map(|l| line_asks_for_overview(l))
        .collect();
    let all_fit = lines
        .iter()
        .all(|l| line_asks_for_overview(l).is_some() || courtesy(l));
    match asks.as_slice() {
        [ask] if all_fit => Some(*ask),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overview_is_asked_in_german_and_english_once_weekly_or_off() {
        for (text, want) in [
            ("Übersicht", OverviewAsk::Now),
            ("Übersicht, bitte!", OverviewAsk::Now),
            ("Uebersicht", OverviewAsk::Now),
            ("overview", OverviewAsk::Now),
            ("Overview please.", OverviewAsk::Now),
            ("Übersicht wöchentlich", OverviewAsk::Weekly),
            ("Wöchentliche Übersicht", OverviewAsk::Weekly),
            ("weekly overview", OverviewAsk::Weekly),
            ("Übersicht aus", OverviewAsk::Off),
            ("Keine Übersicht mehr", OverviewAsk::Off),
            ("overview off", OverviewAsk::Off),
        ] {
            assert_eq!(line_asks_for_overview(text), Some(want), "{text}");
            assert_eq!(asks_for_overview(text), Some(want), "{text}");
        }
    }

    #[test]
    fn a_greeting_and_a_name_may_stand_around_it_in_the_whole_text() {
        assert_eq!(
            asks_for_overview("Hallo,\n\nÜbersicht bitte\n\nViele Grüße\nAnna Adler"),
            Some(OverviewAsk::Now)
        );
        assert_eq!(
            asks_for_overview("Hi,\nweekly overview\nthanks\nBert"),
            Some(OverviewAsk::Weekly)
        );
    }

    #[test]
    fn words_about_an_overview_or_more_than_the_request_are_no_request() {
        for text in [
            "Danke für die Übersicht!",
            "Die Stellung ist unübersichtlich.",
            "12. Lg5\nÜbersicht",
            "Übersicht\nÜbersicht aus",
            "Übersicht\nWie geht es Ihnen?",
            "I like the overview of the tournament",
        ] {
            assert_eq!(asks_for_overview(text), None, "{text}");
        }
    }
}
