//! TO §8, §30, Fax 2.2: a time adjustment in a director's sentence, with one meaning —
//! `Frau Adler (anna@x.de) werden 4 Tage Bedenkzeit gutgeschrieben, da ihr Mailserver ausfiel.`
//!
//! The words that **credit** (`gutgeschrieben`, `zurückgegeben`, `gebe … zurück`, `erstattet`,
//! `erhält … zusätzlich`, `credited`, `given back`, `refunded`) give the player days back:
//! `days` < 0, fewer used. The words that **charge** (`angerechnet`, `abgezogen`, `ziehe … ab`,
//! `gekürzt`, `charged`, `deducted`, `docked`) take them: `days` > 0, more used (as
//! [`DirectorCommand::AdjustTime`] says). A sentence with words of both, or only a word that may
//! mean either (`added`, `removed`, `geändert`, `korrigiert`, `adjusted`), or without its number
//! of days, is malformed: the director is asked back with the exact forms, nothing is guessed.
//!
//! The player is the one address the sentence names; a sentence that names none but a person
//! (`Frau Adler`, `Herrn Anna Adler`, `Mr Berger`) gives his name as written (`Adler`), which the
//! core matches against the game's two players. Two addresses, or neither an address nor a
//! person: malformed.

use std::sync::LazyLock;

use regex::Regex;

use super::tokens::Sentence;
use crate::letter::types::DirectorCommand;

/// Words that credit days (fewer used).
const CREDIT: &[&str] = &[
    "gutgeschrieben",
    "gutschreiben",
    "gutzuschreiben",
    "zurueckgegeben",
    "zurueckgeben",
    "zurueckzugeben",
    "zurueckerstattet",
    "erstattet",
    "erstatte",
    "credited",
    "credit",
    "refunded",
    "refund",
    "restored",
];
/// Words that charge days (more used).
const CHARGE: &[&str] = &[
    "angerechnet",
    "anrechnen",
    "anzurechnen",
    "abgezogen",
    "abziehen",
    "abzuziehen",
    "gekuerzt",
    "kuerze",
    "kuerzen",
    "charged",
    "charge",
    "deducted",
    "deduct",
    "docked",
    "dock",
];
/// Words that change the time without saying which way.
const EITHER: &[&str] = &[
    "added",
    "add",
    "removed",
    "subtracted",
    "geaendert",
    "aendere",
    "korrigiert",
    "korrigiere",
    "adjusted",
    "adjust",
    "changed",
    "erhaelt",
    "bekommt",
    "receives",
    "gets",
];
/// Words that name the thinking time.
const TIME: &[&str] = &[
    "bedenkzeit",
    "bedenkzeitkonto",
    "zeit",
    "zeitkonto",
    "time",
    "thinking",
];

/// A person as a director names one without his address: `Frau Adler`, `Herrn Dr. Anna Adler`,
/// `Mr Berger` → the name (one or two capitalised words).
static PERSON: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?:^|[\s(,])(?:Frau|Herrn|Herr|Hr\.|Fr\.|Mr\.?|Mrs\.?|Ms\.?|Miss)\s+(?:Dr\.\s+)?(\p{Lu}[\p{L}'’-]+)(?:\s+(\p{Lu}[\p{L}'’-]+))?",
    )
    .expect("valid regex")
});

/// Capitalised words that follow a name in a director's sentence but are no part of it.
const NOT_A_NAME: &[&str] = &[
    "bedenkzeit",
    "tage",
    "tag",
    "zeit",
    "days",
    "day",
    "time",
    "thinking",
    "werden",
    "wird",
];

/// The person a sentence names without an address ([`PERSON`]).
fn person(text: &str) -> Option<String> {
    let c = PERSON.captures(text)?;
    let first = c.get(1)?.as_str();
    Some(match c.get(2).map(|m| m.as_str()) {
        Some(second) if !NOT_A_NAME.contains(&super::tokens::fold(second).as_str()) => {
            format!("{first} {second}")
        }
        _ => first.to_string(),
    })
}

/// The days a sentence names (`4 Tage`, `vier Tage`, `two days`, `eine Woche`).
fn days(s: &Sentence) -> Option<u32> {
    (0..s.toks.len()).find_map(|j| super::tokens::days_at(s, j))
}

/// Which way the sentence turns the time — `-1` credits, `1` charges, `0` both or either (not
/// clear) — and the token of the word that says it; `None`: no word that adjusts time.
fn direction(s: &Sentence) -> Option<(i32, usize)> {
    let both = |a: &[&str], b: &[&str]| s.find(a).filter(|_| s.has(b));
    let credit = s
        .find(CREDIT)
        .or_else(|| both(&["gebe", "geben", "gibt", "gegeben"], &["zurueck"]))
        .or_else(|| both(&["schreibe", "schreiben"], &["gut"]))
        .or_else(|| both(&["give", "given", "gives", "giving"], &["back"]))
        .or_else(|| {
            both(
                &["erhaelt", "bekommt", "receives", "gets"],
                &[
                    "zusaetzlich",
                    "zusaetzliche",
                    "extra",
                    "zurueck",
                    "additional",
                    "back",
                ],
            )
        });
    let charge = s
        .find(CHARGE)
        .or_else(|| both(&["ziehe", "zieht"], &["ab"]))
        .or_else(|| both(&["rechne", "rechnen"], &["an"]));
    match (credit, charge) {
        (Some(i), None) => Some((-1, i)),
        (None, Some(i)) => Some((1, i)),
        (Some(i), Some(_)) => Some((0, i)),
        (None, None) => s.find(EITHER).map(|i| (0, i)),
    }
}

/// A report or a condition in the verb's clause (`Mir wurden 2 Tage abgezogen`, `wenn Ihnen 3
/// Tage gutgeschrieben werden`): no command. A reason beside it (`…, da ihre Mail verloren
/// wurde`) stands in a clause of its own.
const REPORTED: &[&str] = &[
    "wurde",
    "wurden",
    "worden",
    "hoffentlich",
    "hopefully",
    "wenn",
    "falls",
    "if",
    "was",
    "were",
];

/// Words that open a clause of their own: a reason or a time beside the command (`weil ihre
/// Mail verloren wurde`, `because her server was down`).
const SUBORDINATE: &[&str] = &[
    "weil", "da", "denn", "nachdem", "als", "because", "since", "as", "after", "for", "wegen",
];

/// The folded words of the clause around token `i`, a reason beside it left out: it ends at a
/// comma or a dash ([`Sentence::clause_of`]) and at a word of [`SUBORDINATE`].
fn main_clause(s: &Sentence, i: usize) -> impl Iterator<Item = &str> {
    let (start, end) = s.clause_of(i);
    let opens = |t: &super::tokens::Tok| t.word().is_some_and(|w| SUBORDINATE.contains(&w));
    let start = s.toks[start..i]
        .iter()
        .rposition(opens)
        .map_or(start, |p| start + p + 1);
    let end = s.toks[i..end].iter().position(opens).map_or(end, |p| i + p);
    s.toks[start..end]
        .iter()
        .filter_map(super::tokens::Tok::word)
}

/// The time adjustment of a director's sentence (see the module documentation), or `None`
/// when the sentence adjusts no time. Asked of a sentence that is neither a question, nor hoped,
/// nor negated, nor a report (`crate::letter::requests::grammar::director`).
pub(super) fn adjust(s: &Sentence) -> Option<DirectorCommand> {
    let time = s.has(TIME) || s.find_by(|w| w.starts_with("bedenkzeit")).is_some();
    let (dir, verb) = direction(s)?;
    if super::tokens::negated(s, verb) || main_clause(s, verb).any(|w| REPORTED.contains(&w)) {
        return None;
    }
    let emails = s.emails();
    let player = match emails.as_slice() {
        [one] => Some(one.to_string()),
        [] => person(&s.text),
        _ => None,
    };
    let days = days(s);
    // Without the thinking time, a number of days or anyone to give them to, it is no time
    // adjustment at all (`Ich ziehe mein Angebot zurück`, `Danke für die Gutschrift`).
    if !time || (days.is_none() && player.is_none()) || (days.is_none() && emails.is_empty()) {
        return None;
    }
    let malformed = || Some(DirectorCommand::Malformed(s.text.trim().to_string()));
    let (Some(days), Some(player)) = (days, player) else {
        return malformed();
    };
    if dir == 0 || days == 0 {
        return malformed();
    }
    let days = i32::try_from(days).ok()?;
    Some(DirectorCommand::AdjustTime {
        days: dir * days,
        player,
        reason: s.text.trim().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Reading, read_paragraph};
    use super::*;

    fn read(t: &str) -> Option<DirectorCommand> {
        read_paragraph(t).into_iter().find_map(|r| match r.reading {
            Reading::Commands(c) => Some(c),
            _ => None,
        })
    }

    fn time(days: i32, player: &str) -> Option<(i32, String)> {
        Some((days, player.to_string()))
    }

    fn adjusted(t: &str) -> Option<(i32, String)> {
        match read(t)? {
            DirectorCommand::AdjustTime { days, player, .. } => Some((days, player)),
            other => panic!("{t}: {other:?}"),
        }
    }

    #[test]
    fn sentences_that_credit_give_days_back() {
        for (t, want) in [
            (
                "Frau Adler werden 4 Tage Bedenkzeit gutgeschrieben.",
                time(-4, "Adler"),
            ),
            (
                "Frau Adler (anna@x.de) werden 5 Tage Bedenkzeit gutgeschrieben, da ihr Mailserver ausfiel.",
                time(-5, "anna@x.de"),
            ),
            (
                "Herrn Berger werden die 3 Tage Bedenkzeit zurückgegeben, die ihn der Poststreik kostete.",
                time(-3, "Berger"),
            ),
            (
                "Ich gebe Frau Anna Adler zwei Tage Bedenkzeit zurück.",
                time(-2, "Anna Adler"),
            ),
            (
                "Frau Adler erhält 3 Tage Bedenkzeit zusätzlich.",
                time(-3, "Adler"),
            ),
            (
                "Frau Adler werden 3 Tage Bedenkzeit gutgeschrieben, weil ihre Mail nicht ankam und verloren wurde.",
                time(-3, "Adler"),
            ),
            (
                "anna@x.de is credited 4 days of thinking time.",
                time(-4, "anna@x.de"),
            ),
            (
                "Mr Berger is given back 2 days of thinking time because of the outage.",
                time(-2, "Berger"),
            ),
            (
                "Die Bedenkzeit von bert@y.de wird um 2 Tage gutgeschrieben.",
                time(-2, "bert@y.de"),
            ),
        ] {
            assert_eq!(adjusted(t), want, "{t}");
        }
    }

    #[test]
    fn sentences_that_charge_take_days() {
        for (t, want) in [
            (
                "Herrn Berger (bert@x.de) werden wegen wiederholter Verzögerung 2 Tage Bedenkzeit abgezogen.",
                time(2, "bert@x.de"),
            ),
            (
                "Frau Adler werden 3 Tage Bedenkzeit angerechnet.",
                time(3, "Adler"),
            ),
            (
                "Die Bedenkzeit von Herrn Berger wird um 5 Tage gekürzt.",
                time(5, "Berger"),
            ),
            (
                "Ich ziehe bert@x.de zwei Tage Bedenkzeit ab.",
                time(2, "bert@x.de"),
            ),
            (
                "Mr Berger is charged 3 days of thinking time for the late answer.",
                time(3, "Berger"),
            ),
            (
                "2 days of thinking time are deducted from bert@x.de.",
                time(2, "bert@x.de"),
            ),
        ] {
            assert_eq!(adjusted(t), want, "{t}");
        }
    }

    #[test]
    fn a_sentence_that_does_not_say_which_way_or_to_whom_is_asked_back() {
        for t in [
            "Frau Adler werden 4 Tage Bedenkzeit hinzugefügt und gutgeschrieben, aber auch angerechnet.",
            "4 days of thinking time are added for anna@x.de.",
            "Die Bedenkzeit von anna@x.de wird korrigiert.",
            "Es werden 4 Tage Bedenkzeit gutgeschrieben.",
            "anna@x.de und bert@y.de werden 4 Tage Bedenkzeit gutgeschrieben.",
        ] {
            assert!(
                matches!(read(t), Some(DirectorCommand::Malformed(_))),
                "{t}: {:?}",
                read(t)
            );
        }
    }

    #[test]
    fn chat_about_time_adjusts_nothing() {
        for t in [
            "Mir wurden 2 Tage Bedenkzeit abgezogen, das ärgert mich.",
            "I was charged 2 days of thinking time for nothing.",
            "Ich hoffe, mir werden 3 Tage gutgeschrieben.",
            "Werden mir 3 Tage Bedenkzeit gutgeschrieben?",
            "Ich ziehe mein Remisangebot zurück.",
            "Danke, dass Sie mir die Zeit gutgeschrieben haben.",
            "Frau Adler werden keine Tage Bedenkzeit gutgeschrieben.",
        ] {
            assert!(
                !matches!(read(t), Some(DirectorCommand::AdjustTime { .. })),
                "{t}: {:?}",
                read(t)
            );
        }
    }
}
