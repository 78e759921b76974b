//! A tournament file sent by mail: the subject `Turnier anmelden` / `register tournament`, and
//! the file as a `.toml` attachment or as the mail's text. The reader only finds the file and
//! says what keeps it from being one; the shell checks its text as `tournament add` does
//! (`crate::tournament_file::check`) and the core decides (`crate::core::register`).

use mail_parser::{Message, MimeHeaders, PartType};

use super::types::Enrolment;

/// The largest tournament file taken by mail (a 1,000-player file is about 100 KB).
pub const MAX_FILE_BYTES: usize = 256 * 1024;

/// Whether a subject (its [`super::headers::subject_text`]) asks to register a tournament:
/// it opens with `Turnier anmelden` or `register tournament` (what follows, e.g. the id, is
/// free).
pub(crate) fn is_registration(subject: &str) -> bool {
    let low: String = subject
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    [
        "turnier anmelden",
        "register tournament",
        "tournament registration",
        "turnieranmeldung",
    ]
    .iter()
    .any(|w| low.starts_with(w))
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
