//! What a pass did ([`PassReport`]), filled in by each of its steps, and its line in the log.

/// How a pass went.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PassReport {
    pub processed: usize,
    pub duplicates: usize,
    pub quarantined: usize,
    pub sent: usize,
    pub deferred: usize,
    pub failed: usize,
    /// Given up after `[limits] outbox_max_age_days` and reported to the director.
    pub given_up: usize,
    /// How the SMTP server last answered in the pass: `Ok` when it answered as a server (it
    /// took the mail, or deferred or refused a recipient), the error when it could not be
    /// reached (`crate::vitals`); `None` when nothing was sent.
    pub smtp: Option<Result<(), String>>,
    /// The SMTP server refuses the relay itself for a reason only the operator can mend (the
    /// login, TLS, the sender address, a policy): the line that says what to mend. Every mail
    /// waits; `once` exits 1 with it, `run` keeps trying and alerts.
    pub needs_operator: Option<String>,
}

/// The operator's (and `scripts/load`'s) view of one pass, at debug level.
pub(super) fn log_pass(started: std::time::Instant, r: &PassReport) {
    tracing::debug!(
        "pass finished in {} ms: {} processed, {} duplicates, {} quarantined, {} sent, {} deferred, {} failed, {} given up",
        started.elapsed().as_millis(),
        r.processed,
        r.duplicates,
        r.quarantined,
        r.sent,
        r.deferred,
        r.failed,
        r.given_up
    );
}
