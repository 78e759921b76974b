//! Named crash points for the crash tests: `FERNZUG_CRASH_AT=<point>` (or `<point>:<n>`, the
//! n-th time the point is reached) makes the process abort there with `std::process::abort()`,
//! as a power cut or `kill -9` would. Read by the shell only — never by the core — once per
//! process. Without the variable every point is a no-op.
//!
//! The points, in the order a mail passes them: [`AFTER_READ`] (fetched from IMAP, nothing
//! done), `after-commit` (the store transaction applied, not yet durable), `after-fsync`
//! (made durable: fsynced), [`AFTER_IMAP_FLAG`] (flagged `\Seen` on the server),
//! [`AFTER_SMTP_250`] (the SMTP client read the server's 250 after the mail's data),
//! [`AFTER_SMTP_ACCEPT`] (the courier learned that the server took it), [`BEFORE_OUTBOX_DELETE`]
//! (just before it is marked sent), [`AFTER_SENT_LEDGER`] (marked sent in the ledger of sent
//! mails, durably, its outbox entry not yet removed: the next opening removes it). Between the
//! 250 and the ledger's fdatasync a crash sends the mail again at the next start: the only
//! window in which a mail goes twice. Beside the mail's path: [`BETWEEN_START_PARTS`]
//! (`tournament add` queued one part of the start mails, not the rest).
//!
//! Two points stand for a mail that breaks the relay (docs/security.md, "a mail that stops the
//! relay"): [`IN_STEP`] (the mail's step has begun) and [`IN_STAGE`] (its answers are being
//! rendered). They are reached only for a mail that contains the text of `FERNZUG_CRASH_IF`
//! (every mail when it is not set), and with `FERNZUG_CRASH_HOW=panic` they panic instead of
//! aborting: the hostile mail the relay must survive, made on purpose.

use std::sync::LazyLock;
use std::sync::atomic::{AtomicU64, Ordering};

/// The environment variable naming the crash point.
pub const ENV: &str = "FERNZUG_CRASH_AT";

pub const AFTER_READ: &str = "after-read";
pub const AFTER_COMMIT: &str = "after-commit";
pub const AFTER_FSYNC: &str = "after-fsync";
pub const AFTER_IMAP_FLAG: &str = "after-imap-flag";
pub const AFTER_SMTP_250: &str = "after-smtp-250";
pub const AFTER_SMTP_ACCEPT: &str = "after-smtp-accept";
pub const BEFORE_OUTBOX_DELETE: &str = "before-outbox-delete";
pub const AFTER_SENT_LEDGER: &str = "after-sent-ledger";
pub const BETWEEN_START_PARTS: &str = "between-start-parts";
pub const BETWEEN_REGISTER_PARTS: &str = "between-register-parts";
pub const IN_STEP: &str = "in-step";
pub const IN_STAGE: &str = "in-stage";

/// The environment variable that limits [`point_for`] to the mails containing its text.
pub const ENV_IF: &str = "FERNZUG_CRASH_IF";
/// The environment variable that makes [`point_for`] panic (`panic`) instead of aborting.
pub const ENV_HOW: &str = "FERNZUG_CRASH_HOW";

/// Every named point.
pub const ALL: [&str; 12] = [
    AFTER_READ,
    AFTER_COMMIT,
    AFTER_FSYNC,
    AFTER_IMAP_FLAG,
    AFTER_SMTP_250,
    AFTER_SMTP_ACCEPT,
    BEFORE_OUTBOX_DELETE,
    AFTER_SENT_LEDGER,
    BETWEEN_START_PARTS,
    BETWEEN_REGISTER_PARTS,
    IN_STEP,
    IN_STAGE,
];

static SPEC: LazyLock<Option<(String, u64)>> = LazyLock::new(|| {
    let v = std::env::var(ENV).ok()?;
    parse(&v)
});

static HITS: AtomicU64 = AtomicU64::new(0);

/// `point` or `point:n` (n ≥ 1).
fn parse(v: &str) -> Option<(String, u64)> {
    let v = v.trim();
    if v.is_empty() {
        return None;
    }
    match v.split_once(':') {
        Some((p, n)) => Some((p.to_string(), n.trim().parse().ok().filter(|n| *n >= 1)?)),
        None => Some((v.to_string(), 1)),
    }
}

/// Aborts the process if `FERNZUG_CRASH_AT` names this point (and its count is reached).
pub fn point(name: &str) {
    if let Some((p, n)) = SPEC.as_ref()
        && p == name
        && HITS.fetch_add(1, Ordering::SeqCst) + 1 >= *n
    {
        eprintln!("fernzug: crash point {name} reached ({ENV}): aborting");
        std::process::abort();
    }
}

static IF: LazyLock<Option<Vec<u8>>> = LazyLock::new(|| {
    std::env::var(ENV_IF)
        .ok()
        .filter(|v| !v.is_empty())
        .map(String::into_bytes)
});

static PANIC: LazyLock<bool> =
    LazyLock::new(|| std::env::var(ENV_HOW).is_ok_and(|v| v.trim() == "panic"));

/// [`point`] for the step of the mail `raw`: reached only when `FERNZUG_CRASH_IF` is unset or
/// its text is in the mail; it panics instead of aborting under `FERNZUG_CRASH_HOW=panic`.
pub fn point_for(name: &str, raw: &[u8]) {
    let Some((p, _)) = SPEC.as_ref() else {
        return;
    };
    if p != name {
        return;
    }
    if let Some(text) = IF.as_ref()
        && !raw.windows(text.len().max(1)).any(|w| w == text.as_slice())
    {
        return;
    }
    if *PANIC {
        panic!("crash point {name} reached ({ENV}, {ENV_HOW}=panic)");
    }
    point(name);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_parses_point_and_count() {
        assert_eq!(parse("after-read"), Some(("after-read".into(), 1)));
        assert_eq!(parse("after-commit:3"), Some(("after-commit".into(), 3)));
        assert_eq!(parse("after-commit:0"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn unset_point_is_a_no_op() {
        // The test process has no FERNZUG_CRASH_AT naming this point.
        point("no-such-point");
    }
}
