//! Whom an SMTP refusal concerns (Fax 2.2/2.3; docs/operating.md "What the relay does with each
//! SMTP reply"). The shell reports what the server said and at which stage of the dialogue
//! ([`SmtpRefusal`]); [`judge`] alone decides what follows:
//!
//! - only a refusal of *that recipient* at `RCPT TO` (X.1.x, X.2.1: the address does not exist or
//!   is disabled) makes a player unreachable ([`Verdict::Unreachable`], the director's
//!   `bounce-report`, Fax 2.2);
//! - a full mailbox is retried for [`FULL_MAILBOX_DAYS`] first ([`Verdict::MailboxFull`],
//!   [`full_mailbox`]);
//! - a deferral of that recipient (4xx at `RCPT`, greylisting, his host receiving too fast) is
//!   retried with backoff ([`Verdict::Retry`], Fax 2.3);
//! - everything about the relay itself — the connection, the greeting, the login, the sender,
//!   a policy, a sending quota or rate, a refused `DATA` — holds every mail and retries
//!   ([`Verdict::Hold`]): nobody is blamed for the host's limits.
//!
//! The enhanced status code (RFC 3463) is read from the reply's *last* line: GMX and web.de send
//! the same first line for a recipient unknown, a policy refusal and a "try again later"
//! (`550-Requested action not taken: mailbox unavailable`), and only the last one tells them
//! apart. The texts of the table tests (`tests.rs`) are the replies Gmail, Microsoft 365,
//! GMX/web.de/IONOS, T-Online, Yahoo, Postfix and Dovecot really send, each with its source.
//!
//! ```
//! use fernzug::core::unreachable::verdict::{Cause, SmtpRefusal, SmtpStage, Verdict, judge};
//! let quota = SmtpRefusal::new(
//!     SmtpStage::Data,
//!     550,
//!     &["5.4.5 Daily user sending quota exceeded. x - gsmtp"],
//! );
//! assert_eq!(judge(&quota), Verdict::Hold(Cause::Quota));
//! let unknown = SmtpRefusal::new(SmtpStage::Rcpt, 550, &["5.1.1 <x@example.org>: Recipient address rejected: User unknown in local recipient table"]);
//! assert_eq!(judge(&unknown), Verdict::Unreachable);
//! ```

use chrono::{DateTime, Duration, Utc};

/// How long a full mailbox is retried before its owner counts as unreachable (Fax 2.2/2.3).
pub const FULL_MAILBOX_DAYS: i64 = 3;

/// The stage of the SMTP dialogue a reply answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SmtpStage {
    /// The connection itself, or the server's greeting; also a server that cannot be reached.
    Connect,
    /// `EHLO`.
    Ehlo,
    /// `STARTTLS` and the TLS handshake.
    StartTls,
    /// `AUTH`: the relay's login.
    Auth,
    /// `MAIL FROM`: the relay's sender address.
    Mail,
    /// `RCPT TO`: the recipient.
    Rcpt,
    /// The `DATA` command.
    Data,
    /// The end of the data: the mail itself.
    EndOfData,
}

impl SmtpStage {
    /// How logs and alerts name it.
    pub fn name(self) -> &'static str {
        match self {
            SmtpStage::Connect => "connect",
            SmtpStage::Ehlo => "EHLO",
            SmtpStage::StartTls => "STARTTLS",
            SmtpStage::Auth => "AUTH",
            SmtpStage::Mail => "MAIL FROM",
            SmtpStage::Rcpt => "RCPT TO",
            SmtpStage::Data => "DATA",
            SmtpStage::EndOfData => "end of data",
        }
    }
}

/// What an SMTP server answered at one stage: the reply code and each line's text (without the
/// code). A server that could not be reached at all is `Connect` with code 421 and the
/// connection's error as its line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SmtpRefusal {
    /// At which command.
    pub stage: SmtpStage,
    /// The reply code (4xx, 5xx).
    pub code: u16,
    /// The text of each line of the reply, in order.
    pub lines: Vec<String>,
}

impl SmtpRefusal {
    /// A refusal at `stage` with `code` and `lines`.
    pub fn new(stage: SmtpStage, code: u16, lines: &[&str]) -> SmtpRefusal {
        SmtpRefusal {
            stage,
            code,
            lines: lines.iter().map(|l| l.to_string()).collect(),
        }
    }

    /// The last line, which decides (see the module's doc).
    pub fn last_line(&self) -> &str {
        self.lines.last().map(String::as_str).unwrap_or("")
    }
}

/// Why every mail of the relay is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cause {
    /// The account's sending quota or rate (Gmail's `5.4.5`, Microsoft's submission quota).
    Quota,
    /// The server is busy, away or asks to try later.
    Server,
    /// The relay's sender address is refused (not the account's, SPF/DKIM).
    Sender,
    /// A policy of the receiving side: a block list, reverse DNS, "relay access denied".
    Policy,
    /// The login is refused.
    Login,
}

impl Cause {
    /// How logs, alerts and `/healthz` name it.
    pub fn name(self) -> &'static str {
        match self {
            Cause::Quota => "quota",
            Cause::Server => "server",
            Cause::Sender => "sender",
            Cause::Policy => "policy",
            Cause::Login => "login",
        }
    }

    /// Whether waiting alone will not mend it: the operator must look (the alert says what).
    pub fn needs_operator(self) -> bool {
        matches!(self, Cause::Sender | Cause::Policy | Cause::Login)
    }
}

/// What follows from a refusal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Fax 2.2: that recipient's address takes no mail; the director gets a `bounce-report`.
    Unreachable,
    /// That recipient's mailbox is full: retried, and after [`FULL_MAILBOX_DAYS`] unreachable.
    MailboxFull,
    /// This mail to this recipient waits and is retried with backoff (Fax 2.3).
    Retry,
    /// The relay's own sending is refused: every mail waits, nobody is blamed.
    Hold(Cause),
}

/// The enhanced status code (class, subject, detail) of a reply, read from its last line that
/// has one (RFC 3463: `5.1.1`, `4.7.0`); `None` when no line starts with one.
pub fn enhanced(r: &SmtpRefusal) -> Option<(u8, u16, u16)> {
    r.lines.iter().rev().find_map(|l| parse_enhanced(l))
}

fn parse_enhanced(line: &str) -> Option<(u8, u16, u16)> {
    let word = line.split_whitespace().next()?;
    let mut parts = word.split('.');
    let class: u8 = parts.next()?.parse().ok()?;
    let subject: u16 = parts.next()?.parse().ok()?;
    let detail: u16 = parts.next()?.parse().ok()?;
    if parts.next().is_some() || !(2..=5).contains(&class) || subject > 999 || detail > 999 {
        return None;
    }
    Some((class, subject, detail))
}

/// Words of a full mailbox (Gmail, Microsoft, GMX/IONOS, T-Online, Dovecot).
const FULL: &[&str] = &[
    "mailbox full",
    "mailbox is full",
    "mailbox for user is full",
    "over quota",
    "out of storage",
    "storage allocation",
    "over storage quota",
    "quotaexceededexception",
];

/// Words of the sender's own quota or rate (Gmail, Microsoft, IONOS, T-Online, Postfix's anvil).
const QUOTA: &[&str] = &[
    "sending quota",
    "sending limit",
    "send quota",
    "send limit",
    "relay limit",
    "daily message limit",
    "daily limit",
    "submissionquota",
    "submission quota",
    "refusequota",
    "sender throttled",
    "sender thread limit",
    "too much mail from",
    "too many recipients",
    "rate limit",
    "messages per second",
    "quota exceeded",
];

/// Words that make a recipient-shaped refusal a policy refusal of the relay.
const POLICY: &[&str] = &["policy", "spam", "block", "reputation", "relay access"];

/// Words of a recipient that does not exist (for replies without an enhanced code).
const UNKNOWN: &[&str] = &[
    "does not exist",
    "user unknown",
    "no such user",
    "doesn't have a",
    "doesn't exist",
    "recipient not found",
    "mailbox unavailable",
    "unknown user",
];

fn has(text: &str, words: &[&str]) -> bool {
    words.iter().any(|w| text.contains(w))
}

/// Whom the refusal `r` concerns, and so what follows (the module's doc; the rules in order,
/// the first that matches decides). Never [`Verdict::Unreachable`] by default: a reply the rules
/// do not know holds or retries.
pub fn judge(r: &SmtpRefusal) -> Verdict {
    use SmtpStage::*;
    let text = r.lines.join(" ").to_lowercase();
    let last = r.last_line().to_lowercase();
    let code = enhanced(r);
    let class = code.map(|(c, _, _)| c).unwrap_or((r.code / 100) as u8);
    let permanent = class == 5 || (code.is_none() && r.code >= 500);
    let (subject, detail) = code.map(|(_, s, d)| (s, d)).unwrap_or((0, 0));
    // 1. The connection, the greeting, EHLO, STARTTLS: the relay's host or its address.
    if matches!(r.stage, Connect | Ehlo | StartTls) {
        return Verdict::Hold(if permanent {
            Cause::Policy
        } else {
            Cause::Server
        });
    }
    // 2. The login: "try again" (Gmail's 454 4.7.0 after too many attempts) or refused.
    if r.stage == Auth {
        return Verdict::Hold(if permanent {
            Cause::Login
        } else {
            Cause::Server
        });
    }
    // 3. A full mailbox — unless it is Microsoft's "Submission quota exceeded" (X.2.2 of the
    //    sender) or its "Sender throttled due to continuous mailbox full errors".
    let full = (subject == 2 && detail == 2) || has(&text, FULL);
    let senders = text.contains("submission") || text.contains("throttled");
    if full && !senders && matches!(r.stage, Rcpt | EndOfData) {
        return Verdict::MailboxFull;
    }
    // 4. The sender's quota or rate — not the recipient's inflow ("receiving mail too quickly").
    let quota_code = subject == 4 && detail == 5;
    if (quota_code || has(&text, QUOTA)) && !text.contains("receiving") {
        return Verdict::Hold(Cause::Quota);
    }
    // 5. "Try again later" in a 5xx (GMX sends 550 for its abuse guard).
    if permanent && (last.contains("try again later") || last.contains("try later")) {
        return Verdict::Hold(Cause::Server);
    }
    // 6. The recipient unknown or disabled, at RCPT.
    if r.stage == Rcpt && permanent && !has(&text, POLICY) && recipient_unknown(r, code, &text) {
        return Verdict::Unreachable;
    }
    // 7. A policy refusal at RCPT: about the relay, not the recipient.
    if r.stage == Rcpt
        && permanent
        && (subject == 7 || has(&text, POLICY) || text.contains("relay access denied"))
    {
        return Verdict::Hold(Cause::Policy);
    }
    // 8. The sender's address (X.1.7, X.1.8), or any permanent refusal of MAIL FROM; a mail too
    //    large waits (a later one may be smaller: it is this mail's).
    if subject == 3 && detail == 4 || text.contains("message size") {
        return Verdict::Retry;
    }
    if subject == 1 && matches!(detail, 7 | 8) {
        return Verdict::Hold(Cause::Sender);
    }
    if r.stage == Mail && permanent {
        return Verdict::Hold(if has(&text, POLICY) {
            Cause::Policy
        } else {
            Cause::Sender
        });
    }
    if matches!(r.stage, Data | EndOfData) && permanent {
        // 9. Refused after the data but naming the recipient (Yahoo's "dd … doesn't have"):
        //    this recipient's mail waits, bounded by `outbox_max_age_days`.
        if text.contains("dd ") && (text.contains("doesn't have") || text.contains("disabled")) {
            return Verdict::Retry;
        }
        if text.contains("spam") || text.contains("policy") {
            return Verdict::Hold(Cause::Policy);
        }
        return Verdict::Hold(Cause::Sender);
    }
    // 10. Deferrals: at RCPT this recipient's; elsewhere the server's.
    match (r.stage, permanent) {
        (Rcpt, _) => Verdict::Retry,
        (_, false) => Verdict::Hold(Cause::Server),
        (_, true) => Verdict::Hold(Cause::Policy),
    }
}

/// Rule 6: the recipient's address does not exist or is disabled.
fn recipient_unknown(r: &SmtpRefusal, code: Option<(u8, u16, u16)>, text: &str) -> bool {
    match code {
        Some((_, 1, d)) => matches!(d, 1 | 2 | 3 | 6 | 10),
        Some((_, 2, 1)) => !text.contains("rate") && !text.contains("too quickly"),
        Some((_, 4, 1)) => text.contains("recipient address rejected: access denied"),
        Some((_, 5, 0)) => text.contains("mailbox unavailable"),
        Some(_) => false,
        None => r.lines.len() == 1 && has(text, UNKNOWN),
    }
}

/// A full mailbox first refused at `first_full`: still retried at `now`, or — after
/// [`FULL_MAILBOX_DAYS`] — unreachable (Fax 2.2).
pub fn full_mailbox(first_full: DateTime<Utc>, now: DateTime<Utc>) -> Verdict {
    if now - first_full >= Duration::days(FULL_MAILBOX_DAYS) {
        Verdict::Unreachable
    } else {
        Verdict::MailboxFull
    }
}
