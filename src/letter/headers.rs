//! The header side of a letter: sender, subject and game reference, reply keys,
//! message ids, and whether the mail is an automatic one (RFC 3834).

use std::sync::LazyLock;

use chrono::{DateTime, FixedOffset};
use mail_parser::{Address, HeaderValue, Message, MimeHeaders};
use regex::Regex;

use super::digest::sha256_name;
use super::types::{AutoReason, ReadError};
use crate::game_ref::GameRef;
use crate::lang::Board;

/// What the headers of one mail say.
#[derive(Debug, Clone, PartialEq)]
pub struct Head {
    pub message_id: String,
    pub from: String,
    pub from_name: Option<String>,
    pub subject: String,
    pub game_ref: Option<GameRef>,
    pub reply_keys: Vec<String>,
    pub references: Vec<String>,
    pub automatic: Option<AutoReason>,
    pub date_header: Option<DateTime<FixedOffset>>,
}

/// Reads the headers of `message`; `raw` is the whole mail (hashed when it has no Message-ID).
pub fn read_headers(message: &Message<'_>, raw: &[u8]) -> Result<Head, ReadError> {
    let sender = message
        .from()
        .and_then(|a| all_addrs(a).into_iter().next())
        .ok_or(ReadError::NoSender)?;
    // An address with a control character or a blank in it is none (it could not be written
    // back into a header): the mail has no sender the relay could answer.
    let from = sender
        .address
        .as_deref()
        .map(|a| a.trim().to_lowercase())
        .filter(|a| a.contains('@') && !a.chars().any(|c| c.is_whitespace() || c.is_control()))
        .ok_or(ReadError::NoSender)?;
    let from_name = sender
        .name
        .as_deref()
        .map(|n| clean_header_text(n).trim_matches('"').trim().to_string())
        .filter(|n| !n.is_empty() && !n.eq_ignore_ascii_case(&from));
    let subject = clean_header_text(message.subject().unwrap_or(""));
    let message_id = message
        .message_id()
        .map(|id| {
            id.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
        .filter(|id| !id.is_empty())
        .unwrap_or_else(|| sha256_name(raw));
    let fields = RawFields::of(message);
    Ok(Head {
        message_id,
        game_ref: game_ref_in_subject(&subject),
        reply_keys: reply_keys(message, &fields.delivery),
        references: references(message),
        automatic: automatic(message, &from, fields.auto),
        date_header: message
            .date()
            .and_then(|d| DateTime::parse_from_rfc3339(&rfc3339(d)).ok()),
        from,
        from_name,
        subject,
    })
}

/// The sender's address and the subject of the mail `raw`, each as one clean line (as
/// [`clean_header_text`] makes it), as far as its header can be read at all — also of a mail that
/// is no letter (`fernzug quarantine list`); `None` where it has none.
pub fn sender_and_subject(raw: &[u8]) -> (Option<String>, Option<String>) {
    let Some(message) = mail_parser::MessageParser::default().parse_headers(raw) else {
        return (None, None);
    };
    let sender = message
        .from()
        .and_then(|a| all_addrs(a).into_iter().next())
        .and_then(|a| a.address.as_deref())
        .map(clean_header_text)
        .filter(|a| !a.is_empty());
    let subject = message
        .subject()
        .map(clean_header_text)
        .filter(|s| !s.is_empty());
    (sender, subject)
}

/// Text read from a header (a display name, a subject) as one clean line: every control
/// character (CR and LF, which an RFC 2047 word can carry, among them), line and paragraph
/// separator and bidirectional override becomes a blank, and runs of blanks become one. Whatever
/// a sender writes there, the relay can write it back into a header of its own (a query's `To:`)
/// without breaking the header or the mail (docs/security.md).
///
/// ```
/// use fernzug::letter::headers::clean_header_text;
/// assert_eq!(clean_header_text("Bob\r\nX-Injected: 1"), "Bob X-Injected: 1");
/// assert_eq!(clean_header_text("  Anna \u{202e}Adler\t"), "Anna Adler");
/// ```
pub fn clean_header_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text
        .split(|c: char| {
            c.is_whitespace()
                || c.is_control()
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}')
                || ('\u{202a}'..='\u{202e}').contains(&c)
                || ('\u{2066}'..='\u{2069}').contains(&c)
        })
        .filter(|w| !w.is_empty())
    {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `mail_parser::DateTime::to_rfc3339`, written without `format!`: the same text.
fn rfc3339(d: &mail_parser::DateTime) -> String {
    // `{:0width$}` of `n`.
    fn pad(out: &mut String, n: u16, width: usize) {
        let mut digits = [0u8; 5];
        let mut start = digits.len();
        let mut rest = n;
        loop {
            start -= 1;
            digits[start] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        for _ in digits.len() - start..width {
            out.push('0');
        }
        out.extend(digits[start..].iter().map(|&b| char::from(b)));
    }
    let mut s = String::with_capacity(25);
    pad(&mut s, d.year, 4);
    s.push('-');
    pad(&mut s, d.month.into(), 2);
    s.push('-');
    pad(&mut s, d.day.into(), 2);
    s.push('T');
    pad(&mut s, d.hour.into(), 2);
    s.push(':');
    pad(&mut s, d.minute.into(), 2);
    s.push(':');
    pad(&mut s, d.second.into(), 2);
    if d.tz_hour != 0 || d.tz_minute != 0 {
        s.push(if d.tz_before_gmt { '-' } else { '+' });
        pad(&mut s, d.tz_hour.into(), 2);
        s.push(':');
        pad(&mut s, d.tz_minute.into(), 2);
    } else {
        s.push('Z');
    }
    s
}

static GAME_REF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[\s*([A-Za-z0-9-]{1,64})\s*/\s*([0-9]{1,9})\s*\]").expect("valid regex")
});

/// The first `[TOURNAMENT/N]` anywhere in the subject (so also after `Re: AW: Fwd:`).
pub fn game_ref_in_subject(subject: &str) -> Option<GameRef> {
    GAME_REF.captures_iter(subject).find_map(|c| {
        let t = c.get(1)?.as_str();
        let n = c.get(2)?.as_str();
        format!("{t}/{n}").parse().ok()
    })
}

static REPLY_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(?:(?:re|aw|wg|fw|fwd|antw|antwort|sv|vs)\s*(?:\[\d+\])?\s*:\s*)+")
        .expect("valid regex")
});

/// Whether the subject, without reply prefixes and game reference, is just `Status`.
/// The subject without the game reference and the reply prefixes: what the writer wrote.
pub fn subject_text(subject: &str) -> String {
    let without_ref = GAME_REF.replace_all(subject, " ");
    REPLY_PREFIX
        .replace(without_ref.trim(), "")
        .trim()
        .to_string()
}

pub fn subject_is_status(subject: &str) -> bool {
    text_is_status(&subject_text(subject))
}

/// Whether a subject's [`subject_text`] is just `Status`.
pub(crate) fn text_is_status(text: &str) -> bool {
    text.trim_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace())
        .eq_ignore_ascii_case("status")
}

/// A subject or a line alone that turns clock warnings (TO §17) off (`Keine Warnungen`, `no
/// warnings`: `Some(false)`) or on again (`Warnungen`, `warnings`: `Some(true)`).
pub(crate) fn text_warnings(text: &str) -> Option<bool> {
    let bare = text
        .trim_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace())
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    match bare.as_str() {
        "keine warnungen" | "keine warnungen mehr" | "no warnings" | "no more warnings" => {
            Some(false)
        }
        "warnungen" | "warnungen ein" | "warnings" | "warnings on" => Some(true),
        _ => None,
    }
}

/// A subject or a line alone that chooses how the sender's mails show the position
/// (docs/contract.md "A board a screen reader reads"): `Brett: Liste`, `board: list`
/// (`Board::List`), `Brett: Diagramm`, `board: diagram` (`Board::Diagram`) — also without the
/// colon, with `als` / `as (a)`, `Figurenliste` / `piece list`, and `bitte` / `please`.
///
/// ```
/// use fernzug::lang::Board;
/// use fernzug::letter::headers::text_board;
/// assert_eq!(text_board("Brett: Liste"), Some(Board::List));
/// assert_eq!(text_board("Board as a piece list, please."), Some(Board::List));
/// assert_eq!(text_board("brett: diagramm"), Some(Board::Diagram));
/// assert_eq!(text_board("Das Brett ist eine Liste"), None);
/// ```
pub fn text_board(text: &str) -> Option<Board> {
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c == ':' || c == ',')
        .map(|w| {
            w.trim_matches(|c: char| c.is_ascii_punctuation())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty() && !["bitte", "please", "als", "as", "a"].contains(&w.as_str()))
        .collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    match words.as_slice() {
        ["brett", "liste" | "figurenliste"] | ["board", "list"] | ["board", "piece", "list"] => {
            Some(Board::List)
        }
        ["brett", "diagramm"] | ["board", "diagram"] => Some(Board::Diagram),
        _ => None,
    }
}

/// Whether `text` (a subject or a line alone) asks for a new XFCC password: `XFCC-Passwort`,
/// `XFCC password`, `Bitte ein neues XFCC-Passwort`, `Please send me a new XFCC password` — a
/// short line naming XFCC and its password, without a negation (docs/xfcc.md).
pub(crate) fn text_is_xfcc_password(text: &str) -> bool {
    let words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    words.len() <= 10
        && has(&["xfcc"])
        && has(&["passwort", "password", "kennwort", "zugangsdaten", "login"])
        && !has(&[
            "nicht", "kein", "keine", "keinen", "not", "no", "don", "never", "nie",
        ])
}

fn all_addrs<'a, 'x>(a: &'a Address<'x>) -> Vec<&'a mail_parser::Addr<'x>> {
    match a {
        Address::List(list) => list.iter().collect(),
        Address::Group(groups) => groups.iter().flat_map(|g| g.addresses.iter()).collect(),
    }
}

static ADDR_SPEC: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"[^\s<>,;:"()\[\]@]+@[^\s<>,;:"()\[\]@]+"#).expect("valid regex")
});

/// The KEY of an address `local+KEY@domain`, if it has one.
pub fn key_of(address: &str) -> Option<String> {
    let (local, _domain) = address.trim().rsplit_once('@')?;
    let (_, key) = local.split_once('+')?;
    let ok = !key.is_empty()
        && key.len() <= 128
        && key
            .chars()
            .all(|c| c.is_ascii_graphic() && c != '+' && c != '@');
    ok.then(|| key.to_string())
}

/// Every KEY of a `relay+KEY@…` address among To, Cc, Delivered-To and X-Original-To, in order,
/// once each; `delivery` are the raw values of Delivered-To and X-Original-To, in order.
fn reply_keys(message: &Message<'_>, delivery: &[&str]) -> Vec<String> {
    let mut addresses: Vec<String> = Vec::new();
    for field in [message.to(), message.cc()].into_iter().flatten() {
        for a in all_addrs(field) {
            if let Some(addr) = a.address.as_deref() {
                addresses.push(addr.to_string());
            }
        }
    }
    for value in delivery {
        addresses.extend(ADDR_SPEC.find_iter(value).map(|m| m.as_str().to_string()));
    }
    let mut keys: Vec<String> = Vec::new();
    for key in addresses.iter().filter_map(|a| key_of(a)) {
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

fn id_list(value: &HeaderValue<'_>) -> Vec<String> {
    let raw: Vec<&str> = match value {
        HeaderValue::Text(t) => vec![t.as_ref()],
        HeaderValue::TextList(list) => list.iter().map(|t| t.as_ref()).collect(),
        _ => Vec::new(),
    };
    raw.into_iter()
        .map(|id| {
            id.trim()
                .trim_start_matches('<')
                .trim_end_matches('>')
                .to_string()
        })
        .filter(|id| !id.is_empty())
        .collect()
}

/// Message-IDs of In-Reply-To, then References, without angle brackets, once each.
fn references(message: &Message<'_>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in id_list(message.in_reply_to())
        .into_iter()
        .chain(id_list(message.references()))
    {
        if !out.contains(&id) {
            out.push(id);
        }
    }
    out
}

/// The headers [`automatic`] asks for, in this order.
const AUTO_HEADERS: [&str; 10] = [
    "Auto-Submitted",
    "Return-Path",
    "Precedence",
    "X-Autoreply",
    "X-Autorespond",
    "X-Autogenerated",
    "X-AutoReply-From",
    "X-Auto-Response-Suppress",
    "List-Id",
    "List-Unsubscribe",
];

/// What the header reader takes from the raw headers, in one pass over them.
struct RawFields<'m> {
    /// The values of Delivered-To and X-Original-To, in order.
    delivery: Vec<&'m str>,
    /// The first value of each of [`AUTO_HEADERS`] (case-insensitive), unfolded and trimmed.
    auto: [Option<String>; 10],
}

impl<'m> RawFields<'m> {
    fn of(message: &'m Message<'_>) -> RawFields<'m> {
        let mut fields = RawFields {
            delivery: Vec::new(),
            auto: std::array::from_fn(|_| None),
        };
        for (n, v) in message.headers_raw() {
            if n.eq_ignore_ascii_case("Delivered-To") || n.eq_ignore_ascii_case("X-Original-To") {
                fields.delivery.push(v);
            }
            for (slot, name) in fields.auto.iter_mut().zip(AUTO_HEADERS) {
                if slot.is_none() && n.eq_ignore_ascii_case(name) {
                    *slot = Some(v.split_whitespace().collect::<Vec<_>>().join(" "));
                }
            }
        }
        fields
    }
}

/// Why the mail is automatic (RFC 3834 and common practice), if it is.
///
/// The order matters only for which reason is named: a delivery report is named as
/// such, so the core can recognise bounces (Fax 2.2).
/// `auto`: the first value of each of [`AUTO_HEADERS`] ([`RawFields`]).
fn automatic(message: &Message<'_>, from: &str, auto: [Option<String>; 10]) -> Option<AutoReason> {
    let root = message.parts.first()?;
    if let Some(ct) = root.content_type()
        && ct.ctype().eq_ignore_ascii_case("multipart")
        && ct
            .subtype()
            .is_some_and(|s| s.eq_ignore_ascii_case("report"))
    {
        let kind = ct
            .attribute("report-type")
            .unwrap_or("unknown")
            .to_ascii_lowercase();
        return Some(AutoReason::Report(kind));
    }
    let [
        auto_submitted,
        return_path,
        precedence,
        x_autoreply,
        x_autorespond,
        x_autogenerated,
        x_autoreply_from,
        x_auto_response_suppress,
        list_id,
        list_unsubscribe,
    ] = auto;
    if let Some(v) = auto_submitted {
        let value = v
            .split(';')
            .next()
            .unwrap_or("")
            .trim()
            .to_ascii_lowercase();
        if !value.is_empty() && value != "no" {
            return Some(AutoReason::AutoSubmitted(value));
        }
    }
    let local = from.rsplit_once('@').map_or(from, |(l, _)| l);
    if local.eq_ignore_ascii_case("mailer-daemon") || local.eq_ignore_ascii_case("postmaster") {
        return Some(AutoReason::MailerDaemon);
    }
    if let Some(v) = return_path
        && v.trim() == "<>"
    {
        return Some(AutoReason::EmptyReturnPath);
    }
    if let Some(v) = precedence {
        let value = v.trim().to_ascii_lowercase();
        if matches!(value.as_str(), "bulk" | "junk" | "list" | "auto_reply") {
            return Some(AutoReason::Precedence(value));
        }
    }
    for (name, value) in [
        ("X-Autoreply", x_autoreply),
        ("X-Autorespond", x_autorespond),
        ("X-Autogenerated", x_autogenerated),
        ("X-AutoReply-From", x_autoreply_from),
    ] {
        if let Some(v) = value
            && !v.trim().eq_ignore_ascii_case("no")
        {
            return Some(AutoReason::AutoreplyHeader(format!("{name}: {}", v.trim())));
        }
    }
    if let Some(v) = x_auto_response_suppress
        && v.split(',').any(|p| p.trim().eq_ignore_ascii_case("all"))
    {
        return Some(AutoReason::AutoreplyHeader(format!(
            "X-Auto-Response-Suppress: {}",
            v.trim()
        )));
    }
    if list_id.is_some() || list_unsubscribe.is_some() {
        return Some(AutoReason::MailingList);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use mail_parser::MessageParser;

    fn head(raw: &str) -> Head {
        let m = MessageParser::default().parse(raw.as_bytes()).unwrap();
        read_headers(&m, raw.as_bytes()).unwrap()
    }

    #[test]
    fn game_ref_after_reply_prefixes() {
        let g = game_ref_in_subject("Re: AW: Fwd: [FAX-2026-3/7] Adler – Berger").unwrap();
        assert_eq!(g.to_string(), "FAX-2026-3/7");
        assert_eq!(game_ref_in_subject("AW: Zug"), None);
        assert_eq!(
            game_ref_in_subject("[Spam] [FAX-1/0] [X/3]")
                .unwrap()
                .to_string(),
            "X/3"
        );
    }

    #[test]
    fn reply_keys_from_to_cc_and_delivery_headers() {
        let h = head(
            "From: a@b.c\r\nTo: \"Relais\" <relay+K1@fernschach.test>\r\nCc: x@y.z, fz+K2@fernschach.test\r\nDelivered-To: relay+K3@fernschach.test\r\nX-Original-To: relay+K1@fernschach.test\r\n\r\nx\r\n",
        );
        assert_eq!(h.reply_keys, vec!["K1", "K2", "K3"]);
    }

    #[test]
    fn key_of_takes_the_part_between_plus_and_at() {
        assert_eq!(key_of("relay+abc-123@x.y").as_deref(), Some("abc-123"));
        assert_eq!(key_of("relay@x.y"), None);
        assert_eq!(key_of("relay+@x.y"), None);
    }

    #[test]
    fn sender_is_lower_cased_and_name_decoded() {
        let h = head(
            "From: =?ISO-8859-1?Q?J=FCrgen_M=FCller?= <Juergen.Mueller@GMX.de>\r\nSubject: =?ISO-8859-1?Q?Z=FCge?=\r\n\r\nx\r\n",
        );
        assert_eq!(h.from, "juergen.mueller@gmx.de");
        assert_eq!(h.from_name.as_deref(), Some("Jürgen Müller"));
        assert_eq!(h.subject, "Züge");
    }

    #[test]
    fn references_in_reply_to_first_then_references() {
        let h = head(
            "From: a@b.c\r\nIn-Reply-To: <m2@r>\r\nReferences: <m1@r> <m2@r>\r\nMessage-ID: <own@x>\r\n\r\nx\r\n",
        );
        assert_eq!(h.references, vec!["m2@r", "m1@r"]);
        assert_eq!(h.message_id, "own@x");
    }

    #[test]
    fn rfc3834_reasons() {
        let cases = [
            (
                "Auto-Submitted: auto-replied\r\n",
                Some(AutoReason::AutoSubmitted("auto-replied".into())),
            ),
            ("Auto-Submitted: no\r\n", None),
            (
                "Precedence: bulk\r\n",
                Some(AutoReason::Precedence("bulk".into())),
            ),
            ("Precedence: first-class\r\n", None),
            (
                "X-Autoreply: yes\r\n",
                Some(AutoReason::AutoreplyHeader("X-Autoreply: yes".into())),
            ),
            (
                "X-Auto-Response-Suppress: All\r\n",
                Some(AutoReason::AutoreplyHeader(
                    "X-Auto-Response-Suppress: All".into(),
                )),
            ),
            ("X-Auto-Response-Suppress: DR, RN\r\n", None),
            (
                "List-Id: <chess.lists.x>\r\n",
                Some(AutoReason::MailingList),
            ),
            ("Return-Path: <>\r\n", Some(AutoReason::EmptyReturnPath)),
        ];
        for (hdr, want) in cases {
            let h = head(&format!("From: a@b.c\r\n{hdr}\r\nx\r\n"));
            assert_eq!(h.automatic, want, "{hdr}");
        }
        let h = head("From: MAILER-DAEMON@mx.example\r\n\r\nx\r\n");
        assert_eq!(h.automatic, Some(AutoReason::MailerDaemon));
        let h = head(
            "From: a@b.c\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=x\r\n\r\n--x\r\n\r\nfail\r\n--x--\r\n",
        );
        assert_eq!(
            h.automatic,
            Some(AutoReason::Report("delivery-status".into()))
        );
    }

    #[test]
    fn date_header_is_read() {
        let h = head("From: a@b.c\r\nDate: Mon, 30 Nov 2026 10:00:00 +0100\r\n\r\nx\r\n");
        assert_eq!(
            h.date_header.unwrap().to_rfc3339(),
            "2026-11-30T10:00:00+01:00"
        );
    }

    #[test]
    fn rfc3339_is_mail_parsers() {
        for (year, month, day, hour, minute, second, before, tz_hour, tz_minute) in [
            (2026, 11, 30, 10, 0, 0, false, 1, 0),
            (2026, 1, 2, 3, 4, 5, true, 5, 30),
            (2026, 1, 2, 3, 4, 5, true, 0, 0),
            (0, 0, 0, 0, 0, 0, false, 0, 45),
            (999, 12, 31, 23, 59, 60, true, 12, 0),
            (65535, 255, 255, 255, 255, 255, true, 255, 255),
            (10000, 99, 100, 9, 9, 9, false, 99, 9),
        ] {
            let d = mail_parser::DateTime {
                year,
                month,
                day,
                hour,
                minute,
                second,
                tz_before_gmt: before,
                tz_hour,
                tz_minute,
            };
            assert_eq!(rfc3339(&d), d.to_rfc3339());
        }
    }

    #[test]
    fn status_subject() {
        assert!(subject_is_status("Status"));
        assert!(subject_is_status("Re: AW: status?"));
        assert!(subject_is_status("[FAX-2026-3/7] Status"));
        assert!(!subject_is_status("Status meiner Partien bitte"));
    }
}
