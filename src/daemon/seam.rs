//! The seam between the daemon and the world: the mailbox it reads, the server it sends through
//! and the clock it reads. Production uses IMAP ([`Inbox`]), SMTP ([`Sender`]) and the system
//! clock; the in-process tests (`daemon::tests`) use a scripted mailbox, a recording sender and
//! tokio's paused time, so `once` and `run` run in milliseconds without a mail server.

use std::future::Future;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;

use crate::imap::{Fetched, ImapError, ImapSettings, Inbox, Listed, Woke};
use crate::smtp::{SendError, Sender};

/// A connected mailbox (IMAP in production).
pub(crate) trait Mailbox: Sized {
    /// UIDVALIDITY of the selected mailbox.
    fn uid_validity(&self) -> u32;
    /// The messages from UID `first` on (every one for 1): UID, size, `\Seen`, oldest first.
    fn list_from(&mut self, first: u32) -> impl Future<Output = Result<Vec<Listed>, ImapError>>;
    /// The whole message.
    fn fetch(&mut self, uid: u32) -> impl Future<Output = Result<Fetched, ImapError>>;
    /// Only the header (a mail over `[limits] max_mail_bytes`).
    fn fetch_header(&mut self, uid: u32) -> impl Future<Output = Result<Fetched, ImapError>>;
    /// Several whole messages, by UID (one round trip where the server allows); a UID missing
    /// from the answer is missing from the map.
    fn fetch_many(
        &mut self,
        uids: &[u32],
    ) -> impl Future<Output = Result<std::collections::HashMap<u32, Fetched>, ImapError>> {
        async move {
            let mut out = std::collections::HashMap::new();
            for &uid in uids {
                let f = self.fetch(uid).await?;
                out.insert(uid, f);
            }
            Ok(out)
        }
    }
    /// Flags a message as done (`\Seen`), after the store committed it.
    fn mark_done(&mut self, uid: u32) -> impl Future<Output = Result<(), ImapError>>;
    /// Flags several messages as done.
    fn mark_done_many(&mut self, uids: &[u32]) -> impl Future<Output = Result<(), ImapError>> {
        async move {
            for &uid in uids {
                self.mark_done(uid).await?;
            }
            Ok(())
        }
    }
    /// Waits for new mail, `max` or shutdown (IMAP IDLE).
    fn wait(
        self,
        max: Duration,
        shutdown: &mut watch::Receiver<bool>,
    ) -> impl Future<Output = Result<(Self, Woke), ImapError>>;
    /// Says goodbye; errors do not matter any more.
    fn logout(self) -> impl Future<Output = ()>;
}

/// How to get a [`Mailbox`]: connect and select (IMAP: TCP, TLS, LOGIN, SELECT).
pub(crate) trait Connect {
    type Mailbox: Mailbox;
    fn connect(&self) -> impl Future<Output = Result<Self::Mailbox, ImapError>>;
}

/// Where outgoing mail goes (SMTP in production).
pub(crate) trait Outgoing {
    /// Hands one mail for one recipient to the server; `Ok` once the server accepted it.
    fn send(
        &self,
        envelope_from: &str,
        recipient: &str,
        raw: &[u8],
    ) -> impl Future<Output = Result<(), SendError>> + Send;
}

/// The wall clock the daemon reads (the postmark of `--now`-less passes comes from IMAP).
pub(crate) trait Clock {
    fn now(&self) -> DateTime<Utc>;
}

/// The system clock.
pub(crate) struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

impl Connect for ImapSettings {
    type Mailbox = Inbox;
    async fn connect(&self) -> Result<Inbox, ImapError> {
        Inbox::connect(self.clone()).await
    }
}

impl Mailbox for Inbox {
    fn uid_validity(&self) -> u32 {
        Inbox::uid_validity(self)
    }
    async fn list_from(&mut self, first: u32) -> Result<Vec<Listed>, ImapError> {
        Inbox::list_from(self, first).await
    }
    async fn fetch(&mut self, uid: u32) -> Result<Fetched, ImapError> {
        Inbox::fetch(self, uid).await
    }
    async fn fetch_header(&mut self, uid: u32) -> Result<Fetched, ImapError> {
        Inbox::fetch_header(self, uid).await
    }
    async fn mark_done(&mut self, uid: u32) -> Result<(), ImapError> {
        Inbox::mark_done(self, uid).await
    }
    async fn fetch_many(
        &mut self,
        uids: &[u32],
    ) -> Result<std::collections::HashMap<u32, Fetched>, ImapError> {
        Inbox::fetch_many(self, uids).await
    }
    async fn mark_done_many(&mut self, uids: &[u32]) -> Result<(), ImapError> {
        Inbox::mark_done_many(self, uids).await
    }
    async fn wait(
        self,
        max: Duration,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<(Inbox, Woke), ImapError> {
        Inbox::wait(self, max, shutdown).await
    }
    async fn logout(self) {
        Inbox::logout(self).await
    }
}

impl Outgoing for Sender {
    async fn send(
        &self,
        envelope_from: &str,
        recipient: &str,
        raw: &[u8],
    ) -> Result<(), SendError> {
        Sender::send(self, envelope_from, recipient, raw).await
    }
}

/// The pause before the next try after `failures` refused logins or connections in a row — of
/// IMAP, or of SMTP refusing the relay itself (a quota, the sender, a policy): 30 s, 1, 2, 4, 8
/// min, then every 15 min, so that after the first hour at most 4 tries an hour reach the host
/// (a login loop locks accounts and gets addresses banned). Jitter only lengthens it (up to
/// +20 %, `jitter_unit` in 0..1, clamped; NaN counts as 0.5).
pub fn login_backoff(failures: u32, jitter_unit: f64) -> Duration {
    let base = Duration::from_secs(30)
        .saturating_mul(1u32 << failures.saturating_sub(1).min(16))
        .min(Duration::from_secs(15 * 60));
    let unit = if jitter_unit.is_nan() {
        0.5
    } else {
        jitter_unit.clamp(0.0, 1.0)
    };
    base.mul_f64(1.0 + 0.2 * unit)
}
