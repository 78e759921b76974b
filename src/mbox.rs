//! The archive of a game as an mbox file (TO §11, Fax 2.8): every mail of the game, in and out,
//! in archive order, each exactly as it was received or sent.
//!
//! Interpretation, fixed here once:
//! - Format mboxrd: each mail starts with a `From SENDER DATE` line and ends with one empty line; a
//!   line of the mail that begins with `From ` after any number of `>` gets one more `>` in front
//!   (readers that know mboxrd, e.g. mutt, take it off again). Nothing else of a mail is changed: its
//!   line ends stay as they were (CRLF, as on the wire), no header is added or removed.
//! - SENDER is the relay's address for a mail the relay sent, and the `From:` address of a mail it
//!   received (`MAILER-DAEMON` if it has none); DATE is the postmark in UTC, in the `asctime` form
//!   (`Tue Dec  1 09:00:00 2026`): for a mail in, the moment the relay's mail server accepted it
//!   (IMAP INTERNALDATE, or `--now`), for a mail out, the moment the relay decided and queued it.
//! - A mail that does not end in a line break gets one before the separating empty line (mails
//!   from IMAP and from the relay always end in CRLF).

use crate::store::{ArchiveEntry, Direction};

/// The `From ` line that starts `entry` in the mbox, with its LF.
pub fn from_line(entry: &ArchiveEntry, relay_address: &str) -> String {
    let sender = match entry.direction {
        Direction::Out => relay_address.to_string(),
        Direction::In => sender_of(&entry.raw).unwrap_or_else(|| "MAILER-DAEMON".into()),
    };
    format!(
        "From {sender} {}\n",
        entry.at.format("%a %b %e %H:%M:%S %Y")
    )
}

/// The addr-spec of a mail's `From:` header, if it has a usable one.
fn sender_of(raw: &[u8]) -> Option<String> {
    let msg = mail_parser::MessageParser::default().parse_headers(raw)?;
    let addr = msg.from()?.first()?.address()?.trim().to_string();
    let usable = !addr.is_empty()
        && addr.contains('@')
        && !addr.chars().any(|c| c.is_whitespace() || c.is_control());
    usable.then_some(addr)
}

/// mboxrd quoting of one mail: `>*From ` at a line start gets one more `>`; line ends unchanged.
pub fn quote(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + 16);
    for line in raw.split_inclusive(|b| *b == b'\n') {
        let quotes = line.iter().take_while(|b| **b == b'>').count();
        if line[quotes..].starts_with(b"From ") {
            out.push(b'>');
        }
        out.extend_from_slice(line);
    }
    out
}

/// Undoes [`quote`]: one `>` less before `>*From ` at a line start.
pub fn unquote(quoted: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(quoted.len());
    for line in quoted.split_inclusive(|b| *b == b'\n') {
        let quotes = line.iter().take_while(|b| **b == b'>').count();
        if quotes > 0 && line[quotes..].starts_with(b"From ") {
            out.extend_from_slice(&line[1..]);
        } else {
            out.extend_from_slice(line);
        }
    }
    out
}

/// The mbox of `entries`, in the given order.
pub fn mbox(entries: &[ArchiveEntry], relay_address: &str) -> Vec<u8> {
    let mut out = Vec::new();
    for e in entries {
        out.extend_from_slice(from_line(e, relay_address).as_bytes());
        out.extend_from_slice(&quote(&e.raw));
        if !e.raw.ends_with(b"\n") {
            out.push(b'\n');
        }
        out.push(b'\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn entry(direction: Direction, raw: &[u8]) -> ArchiveEntry {
        ArchiveEntry {
            direction,
            at: Utc.with_ymd_and_hms(2026, 12, 1, 9, 5, 7).unwrap(),
            games: vec!["T-1/1".into()],
            message_id: "m@x".into(),
            raw: raw.to_vec(),
        }
    }

    #[test]
    fn s11_mbox_keeps_every_byte_and_quotes_from_lines() {
        let raw = b"From: Anna <anna@fernschach.test>\r\nSubject: x\r\n\r\nFrom here on\r\n>From there\r\nplain\r\n";
        let e = entry(Direction::In, raw);
        let m = mbox(std::slice::from_ref(&e), "relay@fernschach.test");
        let text = String::from_utf8(m.clone()).unwrap();
        assert!(text.starts_with("From anna@fernschach.test Tue Dec  1 09:05:07 2026\n"));
        assert!(text.contains("\r\n>From here on\r\n>>From there\r\n"));
        // The mail between its From line and the separating empty line is the quoted original.
        let first = text.find('\n').unwrap() + 1;
        let body = &m[first..m.len() - 1];
        assert_eq!(unquote(body), raw.to_vec());
        let out = entry(Direction::Out, b"Subject: y\r\n\r\nok\r\n");
        assert!(
            from_line(&out, "relay@fernschach.test").starts_with("From relay@fernschach.test ")
        );
        let bare = entry(Direction::In, b"Subject: none");
        assert!(from_line(&bare, "r@x").starts_with("From MAILER-DAEMON "));
        assert!(mbox(&[bare], "r@x").ends_with(b"Subject: none\n\n"));
    }
}
