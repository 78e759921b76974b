//! A tournament file sent by mail: the subject `Turnier anmelden` / `register tournament` (or
//! `Turnier prüfen` / `check tournament`, to have it checked only), and the file as a `.toml`
//! attachment or as the mail's text. The reader only finds the file and says what keeps it from
//! being one; the shell checks its text as `tournament add` does
//! (`crate::tournament_file::check`) and the core decides (`crate::core::register`). And a
//! tournament withdrawn before its first move: `Turnier zurückziehen: ID` / `withdraw tournament:
//! ID` (`withdrawal`).

use std::sync::LazyLock;

use mail_parser::{Message, MimeHeaders, PartType};
use regex::Regex;

use super::types::Enrolment;

/// The largest tournament file taken by mail (a 1,000-player file is about 100 KB).
pub const MAX_FILE_BYTES: usize = 256 * 1024;

/// Whether a subject (its [`super::headers::subject_text`]) asks to register a tournament:
/// it opens with `Turnier anmelden` or `register tournament` (what follows, e.g. the id, is
/// free).
pub(crate) fn is_registration(subject: &str) -> bool {
    let low = folded(subject);
    [
        "turnier anmelden",
        "register tournament",
        "tournament registration",
        "turnieranmeldung",
    ]
    .iter()
    .any(|w| low.starts_with(w))
}

/// Whether a subject (its [`super::headers::subject_text`]) asks to check a tournament file
/// without registering it: it opens with `Turnier prüfen` or `check tournament`.
pub(crate) fn is_check(subject: &str) -> bool {
    let low = folded(subject);
    [
        "turnier prüfen",
        "turnier pruefen",
        "turnier prufen",
        "check tournament",
        "tournament check",
    ]
    .iter()
    .any(|w| low.starts_with(w))
}

/// A subject lower-cased, its whitespace one space.
fn folded(subject: &str) -> String {
    subject
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// `Turnier zurückziehen` / `withdraw tournament`, then the id: the colon may be left out in
/// the subject, not on a line of the text (where the words may stand in a sentence).
static WITHDRAWAL_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:turnier\s+zur(?:ü|ue|u)ckziehen|withdraw\s+(?:the\s+)?tournament)(?:\s*:\s*|\s+|$)(.*)$")
        .expect("a valid pattern")
});
static WITHDRAWAL_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:turnier\s+zur(?:ü|ue|u)ckziehen|withdraw\s+(?:the\s+)?tournament)\s*:\s*(.*)$",
    )
    .expect("a valid pattern")
});

/// The tournament a mail withdraws (`Turnier zurückziehen: ID` / `withdraw tournament: ID`):
/// named in the subject (its [`super::headers::subject_text`]), or on a line of the author's
/// `text`. The id as written (brackets and a closing full stop taken off); empty when the form
/// names none.
pub(crate) fn withdrawal(subject: &str, text: &str) -> Option<String> {
    let id_in = |cap: regex::Captures<'_>| {
        let rest = cap.get(1).map_or("", |m| m.as_str());
        rest.split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches(|c: char| {
                matches!(c, '[' | ']' | '"' | '„' | '“' | '”' | '\'' | '.' | ',')
            })
            .to_string()
    };
    let in_subject = WITHDRAWAL_SUBJECT.captures(subject.trim()).map(id_in);
    if in_subject.as_ref().is_some_and(|id| !id.is_empty()) {
        return in_subject;
    }
    // The subject names the form alone (or nothing): the text may name the tournament.
    text.lines()
        .find_map(|l| WITHDRAWAL_LINE.captures(l.trim()))
        .map(id_in)
        .filter(|id| !id.is_empty() || in_subject.is_none())
        .or(in_subject)
}

/// The tournament file of `message`: its one `.toml` attachment, else its text.
pub(crate) fn enrolment(message: &Message<'_>) -> Enrolment {
    let files: Vec<(String, &[u8])> = message
        .attachments()
        .filter_map(|part| {
            let name = part.attachment_name().map(str::trim).unwrap_or_default();
            let toml_type = part.content_type().is_some_and(|t| {
                t.subtype().is_some_and(|s| {
                    s.eq_ignore_ascii_case("toml") || s.eq_ignore_ascii_case("x-toml")
                })
            });
            (name.to_lowercase().ends_with(".toml") || toml_type).then(|| {
                let name = if name.is_empty() {
                    "tournament.toml".to_string()
                } else {
                    name.to_string()
                };
                (name, part.contents())
            })
        })
        .collect();
    match files.as_slice() {
        [] => {}
        [(name, bytes)] => {
            if bytes.len() > MAX_FILE_BYTES {
                return Enrolment::TooLarge {
                    name: name.clone(),
                    bytes: bytes.len(),
                };
            }
            return match std::str::from_utf8(bytes) {
                Ok(text) => Enrolment::Text {
                    name: Some(name.clone()),
                    text: text.trim_start_matches('\u{feff}').to_string(),
                },
                Err(_) => Enrolment::NotText { name: name.clone() },
            };
        }
        several => {
            return Enrolment::Several(several.iter().map(|(n, _)| n.clone()).collect());
        }
    }
    // The text: the first plain part, up to the signature.
    let text =
        message
            .text_body
            .iter()
            .find_map(|&id| match &message.parts.get(id as usize)?.body {
                PartType::Text(t) => Some(t.to_string()),
                _ => None,
            });
    let Some(text) = text else {
        return Enrolment::Missing;
    };
    if text.len() > MAX_FILE_BYTES {
        return Enrolment::TooLarge {
            name: String::new(),
            bytes: text.len(),
        };
    }
    let mut kept = Vec::new();
    for line in text.lines() {
        if line == "-- " || line == "--" {
            break;
        }
        kept.push(line);
    }
    let text = kept.join("\n");
    if text.trim().is_empty() {
        return Enrolment::Missing;
    }
    Enrolment::Text { name: None, text }
}

#[cfg(test)]
mod tests {
    use super::{is_check, is_registration, withdrawal};

    #[test]
    fn a_withdrawal_is_read_from_the_subject_or_from_a_line_of_the_text_with_its_colon() {
        let table: [(&str, &str, Option<&str>); 11] = [
            ("Turnier zurückziehen: T-9", "", Some("T-9")),
            ("turnier zurueckziehen T-9", "", Some("T-9")),
            ("Withdraw tournament [FAX-2026-3].", "", Some("FAX-2026-3")),
            ("withdraw the tournament", "", Some("")),
            ("Turnier zurückziehen", "", Some("")),
            (
                "Turnier zurückziehen",
                "Turnier zurückziehen: T-9",
                Some("T-9"),
            ),
            (
                "Frage",
                "Guten Tag,\n  Turnier zurückziehen: T-9.\nGruß",
                Some("T-9"),
            ),
            // In a sentence, or on a line without its colon: not the form.
            ("Frage", "Ich möchte das Turnier zurückziehen: bitte.", None),
            ("Frage", "Turnier zurückziehen T-9", None),
            // A player's withdrawal (TO §26) is another command.
            ("Rücktritt: anna@x.de Wertung: verloren", "", None),
            ("withdraw: anna@x.de score: lost", "", None),
        ];
        for (subject, text, want) in table {
            assert_eq!(
                withdrawal(subject, text).as_deref(),
                want,
                "{subject:?} / {text:?}"
            );
        }
    }

    #[test]
    fn a_file_to_check_is_named_by_the_subject_and_is_no_registration() {
        for s in [
            "Turnier prüfen",
            "turnier pruefen T-9",
            "Check tournament",
            "tournament check",
        ] {
            assert!(is_check(s) && !is_registration(s), "{s}");
        }
        for s in [
            "Turnier anmelden",
            "Prüfen: T-9/1",
            "verify: T-9/1",
            "Turnier",
        ] {
            assert!(!is_check(s), "{s}");
        }
    }
}
