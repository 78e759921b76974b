//! The letter reader: one incoming mail's raw bytes → a [`Letter`].
//!
//! A pure function without knowledge of any game: [`read_letter`] parses the mail
//! (`mail-parser` decodes MIME, charsets and transfer encodings), reads the headers
//! ([`headers`]), chooses and cleans the author's own text ([`body`], [`html`]) and
//! reads what that text says ([`content`], [`dates`], [`moves`]). The core judges the
//! result against the games.
//!
//! Nothing here panics or loops on hostile input: the text is capped by [`Limits`],
//! the MIME tree is walked only to a bounded depth and number of parts, and all
//! patterns are linear-time `regex` patterns or hand-written single passes.

pub mod auth;
pub mod body;
pub mod content;
pub mod dates;
pub mod digest;
pub mod dsn;
pub mod enclosed;
pub mod enrol;
pub mod headers;
pub mod html;
pub mod moves;
mod prefilter;
pub mod requests;
pub mod types;

pub use types::*;

use mail_parser::MessageParser;

/// Reads one incoming mail with the default [`Limits`].
///
/// ```
/// use fernzug::letter::read_letter;
/// let raw = b"From: Anna <Anna@Example.org>\r\nSubject: Re: [FAX-2026-3/7] Adler - Berger\r\n\r\n12. ... Sf6\r\n";
/// let letter = read_letter(raw).unwrap();
/// assert_eq!(letter.from, "anna@example.org");
/// assert_eq!(letter.game_ref.unwrap().to_string(), "FAX-2026-3/7");
/// assert_eq!(letter.content.moves[0].text, "Sf6");
/// ```
pub fn read_letter(raw: &[u8]) -> Result<Letter, ReadError> {
    read_letter_with(raw, &Limits::default())
}

/// Reads one incoming mail within the given [`Limits`].
pub fn read_letter_with(raw: &[u8], limits: &Limits) -> Result<Letter, ReadError> {
    let message = MessageParser::default()
        .parse(raw)
        .ok_or(ReadError::Unparseable)?;
    if message.parts.is_empty() {
        return Err(ReadError::Unparseable);
    }
    let head = headers::read_headers(&message, raw)?;
    let mut text = body::author_text(&message, limits);
    let (mut content, mut reads) = content::read_content_and_requests(&text);
    if content.moves.is_empty()
        && let Some(enclosed) = enclosed::enclosed_text(&message, &head.from, limits)
    {
        // TO §2: moves the sender encloses (see `enclosed`); the text shows what was read.
        let joined = format!("{text}\n\n{enclosed}");
        text = body::cap(joined.trim(), limits.max_text_bytes).to_string();
        // TO §30: the writer's words are his own text's, not the enclosed mail's.
        let own = std::mem::take(&mut content.words);
        (content, reads) = content::read_content_and_requests(&text);
        content.words = own;
        content.message &= content.only_words();
    }
    let subject = headers::subject_text(&head.subject);
    let registration = enrol::is_registration(&subject);
    let check_only = !registration && enrol::is_check(&subject);
    let withdrawal = enrol::withdrawal(&subject, &text);
    if headers::text_is_status(&subject) {
        content.status_request = true;
    }
    if let Some(on) = headers::text_warnings(&subject) {
        content.warnings = Some(on);
    }
    if let Some(board) = headers::text_board(&subject) {
        content.board = Some(board);
    }
    // `Hilfe` / `help` as the subject of a mail that asks nothing else: a question to the relay.
    if requests::help::line_asks_for_help(&subject)
        && content.moves.is_empty()
        && content.conditional.is_empty()
        && content.director.is_empty()
    {
        content.help = true;
        content.asks.clear();
        content.doubts.clear();
    }
    // `Übersicht` / `overview` as the subject of a mail that asks nothing else: the same request
    // as the whole text (`requests::overview`); the text's own (`weekly overview` under
    // `Overview`) says more.
    if let Some(ask) = requests::overview::line_asks_for_overview(&subject)
        && content.overview.is_none()
        && content.moves.is_empty()
        && content.conditional.is_empty()
        && content.director.is_empty()
        && !content.help
    {
        content = crate::letter::Content {
            overview: Some(ask),
            words: std::mem::take(&mut content.words),
            ..Default::default()
        };
    }
    if headers::text_is_xfcc_password(&subject) {
        content.status_request = true;
        content.xfcc_password = true;
    }
    // A request in the subject (`Remisangebot`, `Urlaub 10.12.–23.12.2026`, `Ich gebe auf`),
    // unless the text refuses the same thing (`Re: … Remis?` over `Remis? Nein danke!`); the
    // relay's own subjects about requests carry their § and are not read.
    if !subject.contains('§') {
        let said: Vec<_> = reads
            .iter()
            .filter(|r| {
                matches!(
                    r.reading,
                    requests::Reading::Declines {
                        why: requests::Why::Negated,
                        ..
                    }
                )
            })
            .filter_map(|r| r.reading.family())
            .collect();
        let from_subject: Vec<_> = requests::read_units(&[subject])
            .into_iter()
            .filter(|r| r.reading.family().is_none_or(|f| !said.contains(&f)))
            .collect();
        requests::apply(&from_subject, &mut content);
        requests::settle(&mut content);
    }
    // A request in the subject makes the mail more than words (TO §30).
    content.message &= content.only_words();
    // A tournament file to register (or to check): the mail is that and nothing else; so is a
    // tournament withdrawn.
    if registration || check_only {
        content = crate::letter::Content {
            register: Some(enrol::enrolment(&message)),
            check_only,
            ..Default::default()
        };
    } else if withdrawal.is_some() {
        content = crate::letter::Content {
            withdraw_tournament: withdrawal,
            ..Default::default()
        };
    }
    Ok(Letter {
        message_id: head.message_id,
        from: head.from,
        from_name: head.from_name,
        subject: head.subject,
        game_ref: head.game_ref,
        reply_keys: head.reply_keys,
        references: head.references,
        automatic: head.automatic,
        date_header: head.date_header,
        text,
        attachments: attachment_names(&message),
        content,
        trace: auth::read_trace(&message),
        dsn: dsn::dsn_of(&message),
    })
}

/// How many attachments a letter names at most.
pub const MAX_ATTACHMENT_NAMES: usize = 20;
/// How long an attachment's name may be (characters).
pub const MAX_ATTACHMENT_NAME_CHARS: usize = 100;

/// The names of `message`'s attachments (TO §30: named to the partner, never forwarded); the
/// MIME type of one without a name.
/// At most [`MAX_ATTACHMENT_NAMES`] names of at most [`MAX_ATTACHMENT_NAME_CHARS`] characters
/// each, as one clean line: a name is another way of sending words, and the words' own limit
/// must hold for it too (docs/security.md).
fn attachment_names(message: &mail_parser::Message<'_>) -> Vec<String> {
    use mail_parser::MimeHeaders;
    message
        .attachments()
        .take(MAX_ATTACHMENT_NAMES)
        .map(|part| match part.attachment_name() {
            Some(name) if !name.trim().is_empty() => headers::clean_header_text(name)
                .chars()
                .take(MAX_ATTACHMENT_NAME_CHARS)
                .collect(),
            _ => part.content_type().map_or_else(
                || "application/octet-stream".to_string(),
                |t| match t.subtype() {
                    Some(sub) => format!("{}/{sub}", t.ctype()),
                    None => t.ctype().to_string(),
                },
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_is_unparseable() {
        assert_eq!(read_letter(b""), Err(ReadError::Unparseable));
    }

    #[test]
    fn attachment_names_are_at_most_20_of_100_characters_each_on_one_line() {
        let mut raw = String::from(
            "From: Anna <anna@fernschach.test>\r\nSubject: [T-1/1]\r\nMIME-Version: 1.0\r\n\
             Content-Type: multipart/mixed; boundary=\"B\"\r\n\r\n\
             --B\r\nContent-Type: text/plain\r\n\r\n1. e4\r\n",
        );
        for i in 0..50 {
            raw.push_str(&format!(
                "--B\r\nContent-Type: application/octet-stream\r\n\
                 Content-Disposition: attachment; filename=\"{i} {}\"\r\n\r\nx\r\n",
                "Sehr lange Worte an den Partner ".repeat(20)
            ));
        }
        raw.push_str("--B--\r\n");
        let l = read_letter(raw.as_bytes()).unwrap();
        assert_eq!(l.attachments.len(), MAX_ATTACHMENT_NAMES);
        assert!(
            l.attachments
                .iter()
                .all(|n| n.chars().count() <= MAX_ATTACHMENT_NAME_CHARS && !n.contains('\n'))
        );
    }

    #[test]
    fn a_display_name_or_subject_with_a_line_break_is_read_as_one_line() {
        // "Bob\r\nX-Injected: 1" in an RFC 2047 word, as an attacker sends it.
        let raw = b"From: =?utf-8?b?Qm9iDQpYLUluamVjdGVkOiAx?= <bob@example.org>\r\n\
Subject: =?utf-8?b?SGFsbG8NCkJjYzogeEB5?=\r\n\r\nHallo\r\n";
        let l = read_letter(raw).unwrap();
        assert_eq!(l.from_name.as_deref(), Some("Bob X-Injected: 1"));
        assert_eq!(l.subject, "Hallo Bcc: x@y");
        // An address with a line break is no address.
        let raw = b"From: =?utf-8?b?Qm9i?= <\"bob\r\nx\"@example.org>\r\n\r\nHallo\r\n";
        if let Ok(l) = read_letter(raw) {
            assert!(!l.from.contains(['\r', '\n']), "{:?}", l.from);
        }
    }

    #[test]
    fn missing_from_is_no_sender() {
        let raw = b"Subject: hello\r\n\r\n12. e4\r\n";
        assert_eq!(read_letter(raw), Err(ReadError::NoSender));
    }

    #[test]
    fn plain_move_mail_is_read() {
        let raw = "From: \"Bert Berger\" <bert@fernschach.test>\r\nTo: relay+k7x@fernschach.test\r\nSubject: Re: [FAX-2026-3/7] Adler – Berger\r\nMessage-ID: <abc@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n12. ... Sf6\r\n13. Lg5\r\nErhalten: 28.11.2026\r\nAbgesandt: 30.11.2026\r\nBedenkzeit: 2 Tage\r\nRemis?\r\n";
        let l = read_letter(raw.as_bytes()).unwrap();
        assert_eq!(l.message_id, "abc@x");
        assert_eq!(l.from_name.as_deref(), Some("Bert Berger"));
        assert_eq!(l.reply_keys, vec!["k7x".to_string()]);
        assert_eq!(l.content.moves.len(), 2);
        assert_eq!(l.content.days_used, Some(2));
        assert!(l.content.draw_offer);
    }

    #[test]
    fn status_subject_asks_for_status() {
        let raw = b"From: a@b.c\r\nSubject: Re: Status\r\n\r\nHallo\r\n";
        assert!(read_letter(raw).unwrap().content.status_request);
    }

    #[test]
    fn a_board_chosen_in_the_subject_or_on_a_line_is_no_word_for_the_partner() {
        use crate::lang::Board;
        let raw = b"From: a@b.c\r\nSubject: Brett: Liste\r\n\r\nBrett: Liste\r\n";
        let c = read_letter(raw).unwrap().content;
        assert_eq!(c.board, Some(Board::List));
        assert!(c.words.is_empty() && !c.message, "{c:?}");
        // Beside a move, in English, in a reply to a game mail.
        let raw = b"From: a@b.c\r\nSubject: Re: [T-1/1] Zug\r\n\r\n1. e4\r\nboard: diagram\r\n";
        let c = read_letter(raw).unwrap().content;
        assert_eq!(c.board, Some(Board::Diagram));
        assert_eq!(c.moves.len(), 1);
        assert!(c.words.is_empty(), "{c:?}");
        // The board named in a sentence chooses nothing.
        let raw = b"From: a@b.c\r\nSubject: Re: [T-1/1] Zug\r\n\r\nMein Brett ist eine Liste von Fehlern.\r\n";
        assert_eq!(read_letter(raw).unwrap().content.board, None);
    }

    #[test]
    fn message_without_id_gets_a_hash() {
        let raw = b"From: a@b.c\r\nSubject: x\r\n\r\nHallo\r\n";
        let l = read_letter(raw).unwrap();
        assert!(l.message_id.starts_with("sha256:"));
        assert_eq!(l.message_id.len(), 7 + 64);
    }

    #[test]
    fn hostile_inputs_do_not_panic() {
        let mut deep =
            String::from("From: a@b.c\r\nContent-Type: multipart/mixed; boundary=b0\r\n\r\n");
        for i in 0..2000 {
            deep.push_str(&format!(
                "--b{i}\r\nContent-Type: multipart/mixed; boundary=b{}\r\n\r\n",
                i + 1
            ));
        }
        deep.push_str("--b2000\r\nContent-Type: text/plain\r\n\r\n12. e4\r\n");
        let _ = read_letter(deep.as_bytes());
        let lt = format!(
            "From: a@b.c\r\nContent-Type: text/html\r\n\r\n{}",
            "<".repeat(200_000)
        );
        let _ = read_letter(lt.as_bytes());
        let junk: Vec<u8> = (0..100_000u32)
            .map(|i| (i.wrapping_mul(7919) % 256) as u8)
            .collect();
        let _ = read_letter(&junk);
        let long_line = format!("From: a@b.c\r\n\r\n1. {}\r\n", "Sf ".repeat(100_000));
        let _ = read_letter(long_line.as_bytes());
        let numbers = format!("From: a@b.c\r\n\r\n{}\r\n", "1. ".repeat(80_000));
        let _ = read_letter(numbers.as_bytes());
        let dates = format!(
            "From: a@b.c\r\n\r\nErhalten: {}\r\n",
            "1.1. ".repeat(50_000)
        );
        let _ = read_letter(dates.as_bytes());
        let quotes = format!(
            "From: a@b.c\r\n\r\n{}",
            "Am 1.1. schrieb x:\r\n".repeat(20_000)
        );
        let _ = read_letter(quotes.as_bytes());
        let headers = format!(
            "From: a@b.c\r\n\r\n{}",
            "Von: x\r\nAn: y\r\n".repeat(20_000)
        );
        let _ = read_letter(headers.as_bytes());
        let blanks = format!(
            "From: a@b.c\r\n\r\n{}",
            "Am 1.1. schrieb x:\r\n\r\n\r\n\r\n".repeat(10_000)
        );
        let _ = read_letter(blanks.as_bytes());
    }

    #[test]
    fn fuzz_finds_do_not_panic() {
        // Every input `scripts/fuzz` ever stopped on (malformed multipart mails that trip a debug
        // assertion inside mail-parser, …) is kept there and read here.
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mail/fuzz");
        let mut read = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let raw = std::fs::read(entry.unwrap().path()).unwrap();
            let _ = read_letter(&raw);
            read += 1;
        }
        assert!(read >= 2, "the fuzz finds are missing from {dir}");
    }

    #[test]
    fn text_is_capped_by_limits() {
        let raw = format!("From: a@b.c\r\n\r\n{}\r\n12. e4\r\n", "x".repeat(1000));
        let limits = Limits {
            max_text_bytes: 100,
            ..Limits::default()
        };
        let l = read_letter_with(raw.as_bytes(), &limits).unwrap();
        assert!(l.text.len() <= 100);
        assert!(l.content.moves.is_empty());
    }
}
