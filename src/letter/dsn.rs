//! Delivery-status notifications (RFC 3464, `multipart/report; report-type=delivery-status`): which
//! recipients failed, and which mail they are about — the returned original's Message-ID and the
//! relay's own headers (`X-Fernzug-Kind`, `X-Fernzug-Game`), from a `message/rfc822` or
//! `text/rfc822-headers` part. Pure, like the rest of the reader; the core decides what follows
//! (`crate::core::unreachable::bounce`).

use mail_parser::{Message, MessageParser, MimeHeaders, PartType};

use crate::game_ref::GameRef;

/// Bounds: at most this many recipient blocks and this many bytes of status text are read.
const MAX_RECIPIENTS: usize = 100;
const MAX_STATUS_BYTES: usize = 64 * 1024;

/// What a delivery-status notification says.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Dsn {
    /// The recipients whose `Action` is `failed`.
    pub failed: Vec<Failed>,
    /// The Message-ID (without brackets) of the returned original, if it came back.
    pub original_id: Option<String>,
    /// `X-Fernzug-Kind` of the original.
    pub kind: Option<String>,
    /// `X-Fernzug-Game` of the original.
    pub game: Option<GameRef>,
    /// The original's text, when the whole mail came back.
    pub text: Option<String>,
    /// The addresses the relay sent the original to (its `To:` and `Cc:`), as the relay's own
    /// archive has it: filled by the shell (`crate::app`), `None` when the relay never sent a
    /// mail of that Message-ID in the game the report names. The reader leaves it `None`: only
    /// a report about a mail the relay sent to that recipient counts (docs/security.md).
    pub sent_to: Option<Vec<String>>,
}

/// One failed recipient.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failed {
    /// The address the mail was sent to (`Original-Recipient`, else `Final-Recipient`), lower-cased.
    pub recipient: String,
    /// `Status` (e.g. `5.1.1`) and `Diagnostic-Code`, as one line.
    pub error: String,
}

/// Reads a delivery-status notification; `None` if the mail is none.
pub fn read_dsn(raw: &[u8]) -> Option<Dsn> {
    dsn_of(&MessageParser::default().parse(raw)?)
}

/// The delivery-status notification a parsed mail is, if it is one (the letter reader's one
/// parse, `crate::letter::read_letter`).
pub fn dsn_of(message: &Message<'_>) -> Option<Dsn> {
    let mut dsn = Dsn::default();
    let mut is_report = false;
    for part in message.parts.iter().take(100) {
        let Some(ct) = part.content_type() else {
            continue;
        };
        let ctype = ct.ctype().to_ascii_lowercase();
        let sub = ct.subtype().unwrap_or("").to_ascii_lowercase();
        match (ctype.as_str(), sub.as_str()) {
            ("message", "delivery-status" | "global-delivery-status") => {
                is_report = true;
                let bytes = part.contents();
                let text = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_STATUS_BYTES)]);
                dsn.failed.extend(failed_recipients(&text));
            }
            ("message", "rfc822" | "global") => {
                if let PartType::Message(m) = &part.body {
                    original_headers(m, &mut dsn);
                    dsn.text = m.body_text(0).map(|t| t.trim().to_string());
                }
            }
            ("text", "rfc822-headers") | ("message", "rfc822-headers") => {
                let mut head = part.contents().to_vec();
                head.extend_from_slice(b"\r\n\r\n");
                if let Some(m) = MessageParser::default().parse_headers(&head) {
                    original_headers(&m, &mut dsn);
                }
            }
            _ => {}
        }
    }
    is_report.then_some(dsn)
}

fn original_headers(m: &Message<'_>, dsn: &mut Dsn) {
    if dsn.original_id.is_none() {
        dsn.original_id = m
            .message_id()
            .map(|id| id.trim().trim_matches(['<', '>']).to_string())
            .filter(|id| !id.is_empty());
    }
    if dsn.kind.is_none() {
        dsn.kind = m.header_raw("X-Fernzug-Kind").map(|v| v.trim().to_string());
    }
    if dsn.game.is_none() {
        dsn.game = m
            .header_raw("X-Fernzug-Game")
            .and_then(|v| v.trim().parse().ok());
    }
}

/// The per-recipient blocks of a `message/delivery-status` body whose action is `failed`.
fn failed_recipients(text: &str) -> Vec<Failed> {
    let mut out = Vec::new();
    for block in blocks(text).into_iter().take(MAX_RECIPIENTS + 1) {
        let field = |name: &str| {
            block
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        let Some(action) = field("Action") else {
            continue;
        };
        if !action.trim().eq_ignore_ascii_case("failed") {
            continue;
        }
        let address = |v: &str| {
            let a = v.split_once(';').map_or(v, |(_, a)| a);
            a.trim().trim_matches(['<', '>']).trim().to_lowercase()
        };
        let Some(recipient) = field("Original-Recipient")
            .or(field("Final-Recipient"))
            .map(address)
            .filter(|a| a.contains('@'))
        else {
            continue;
        };
        let error = [field("Status"), field("Diagnostic-Code")]
            .into_iter()
            .flatten()
            .map(str::trim)
            .collect::<Vec<_>>()
            .join(" ");
        out.push(Failed { recipient, error });
    }
    out
}

/// Header-like blocks separated by empty lines; folded lines joined.
fn blocks(text: &str) -> Vec<Vec<(String, String)>> {
    let mut all = Vec::new();
    let mut current: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                all.push(std::mem::take(&mut current));
            }
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if let Some((_, v)) = current.last_mut() {
                v.push(' ');
                v.push_str(line.trim());
            }
            continue;
        }
        if let Some((name, value)) = line.split_once(':') {
            current.push((name.trim().to_string(), value.trim().to_string()));
        }
    }
    if !current.is_empty() {
        all.push(current);
    }
    all
}

/// The plain text of a mail (the relay's own, from the outbox or archive), for a bounce report.
pub fn mail_text(raw: &[u8]) -> Option<String> {
    let m = MessageParser::default().parse(raw)?;
    m.body_text(0).map(|t| t.trim().to_string())
}

/// The addresses of a mail's `To:` and `Cc:` (lower-cased): whom the relay sent a mail of its
/// own to.
pub fn recipients_of(raw: &[u8]) -> Vec<String> {
    let Some(m) = MessageParser::default().parse_headers(raw) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for list in [m.to(), m.cc()].into_iter().flatten() {
        let addrs: Vec<&mail_parser::Addr<'_>> = match list {
            mail_parser::Address::List(l) => l.iter().collect(),
            mail_parser::Address::Group(g) => g.iter().flat_map(|g| g.addresses.iter()).collect(),
        };
        out.extend(
            addrs
                .into_iter()
                .filter_map(|a| a.address.as_deref())
                .map(|a| a.trim().to_lowercase()),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A DSN as Postfix writes it, returning the headers of a relay `move` mail.
    fn postfix_dsn(action: &str) -> String {
        format!(
            "From: MAILER-DAEMON@fernschach.test (Mail Delivery System)\r\n\
To: relay@fernschach.test\r\n\
Subject: Undelivered Mail Returned to Sender\r\n\
Auto-Submitted: auto-replied\r\n\
MIME-Version: 1.0\r\n\
Content-Type: multipart/report; report-type=delivery-status; boundary=\"B1\"\r\n\
Message-Id: <dsn1@fernschach.test>\r\n\
\r\n\
--B1\r\n\
Content-Type: text/plain; charset=us-ascii\r\n\
\r\n\
This is the mail system at host fernschach.test.\r\n\
\r\n\
--B1\r\n\
Content-Type: message/delivery-status\r\n\
\r\n\
Reporting-MTA: dns; fernschach.test\r\n\
Arrival-Date: Tue,  1 Dec 2026 10:00:00 +0100 (CET)\r\n\
\r\n\
Final-Recipient: rfc822; Dead-Bert@fernschach.test\r\n\
Original-Recipient: rfc822;dead-bert@fernschach.test\r\n\
Action: {action}\r\n\
Status: 5.1.1\r\n\
Diagnostic-Code: x-unix; user unknown,\r\n\
\x20   mailbox gone\r\n\
\r\n\
--B1\r\n\
Content-Type: text/rfc822-headers\r\n\
\r\n\
From: Fernschach-Relais <relay@fernschach.test>\r\n\
Subject: [T-1/1] 1. e4\r\n\
Message-ID: <fernzug.abc.7.move@fernschach.test>\r\n\
X-Fernzug-Kind: move\r\n\
X-Fernzug-Game: T-1/1\r\n\
\r\n\
--B1--\r\n"
        )
    }

    #[test]
    fn fax_2_2_postfix_dsn_names_recipient_and_original() {
        let d = read_dsn(postfix_dsn("failed").as_bytes()).expect("a DSN");
        assert_eq!(
            d.failed,
            vec![Failed {
                recipient: "dead-bert@fernschach.test".into(),
                error: "5.1.1 x-unix; user unknown, mailbox gone".into(),
            }]
        );
        assert_eq!(
            d.original_id.as_deref(),
            Some("fernzug.abc.7.move@fernschach.test")
        );
        assert_eq!(d.kind.as_deref(), Some("move"));
        assert_eq!(d.game, Some(GameRef::new("T-1", 1)));
    }

    #[test]
    fn fax_2_2_delayed_is_not_failed_and_plain_mail_is_no_dsn() {
        let d = read_dsn(postfix_dsn("delayed").as_bytes()).expect("a DSN");
        assert!(d.failed.is_empty());
        assert_eq!(
            read_dsn(b"From: a@b.c\r\nSubject: x\r\n\r\nAction: failed\r\n"),
            None
        );
    }

    #[test]
    fn fax_2_2_returned_full_message_gives_its_text() {
        let raw = "From: MAILER-DAEMON@x\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=B\r\n\r\n\
--B\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; x\r\n\r\nFinal-Recipient: rfc822; p@x.de\r\nAction: failed\r\nStatus: 5.0.0\r\n\r\n\
--B\r\nContent-Type: message/rfc822\r\n\r\nFrom: relay@x\r\nMessage-ID: <m1@x>\r\nX-Fernzug-Game: T-2/3\r\nSubject: s\r\n\r\n12. ... Sf6\r\n\r\n--B--\r\n";
        let d = read_dsn(raw.as_bytes()).expect("a DSN");
        assert_eq!(d.failed[0].recipient, "p@x.de");
        assert_eq!(d.original_id.as_deref(), Some("m1@x"));
        assert_eq!(d.game, Some(GameRef::new("T-2", 3)));
        assert_eq!(d.text.as_deref(), Some("12. ... Sf6"));
    }
}
