//! The thin tokio shell (in the manner of mini-redis): [`once`] is one pass — fetch every
//! unprocessed mail, fire every due deadline, deliver the outbox — and [`run`] repeats the same
//! pass, sleeping in IMAP IDLE until mail arrives, the core's next deadline, or the next outbox
//! retry.
//!
//! The files, each using only those above it in this list:
//!
//! - `seam.rs`: the traits the daemon reaches IMAP, SMTP and the clock through;
//! - `systemd.rs`: the notify protocol (READY, WATCHDOG);
//! - `courier.rs`: the task beside a pass that hands the outbox to SMTP;
//! - `report.rs`: what a pass did ([`PassReport`]) and its line in the log;
//! - `deliver.rs`: the pass's side of the courier (start it, hand it what is durable, apply what
//!   it did);
//! - `fetch.rs`: reading the mailbox (list, sort out, fetch in chunks, decide, fsync, flag);
//! - `tending.rs`: what a pass of `run` does beyond `once`'s (XFCC's calls, backups, the vitals
//!   and the operator's alerts, the watchdog);
//! - `pass.rs`: the one pass both `once` and `run` make;
//! - `lending.rs`: the store lent to the pages, and let go to other fernzug commands;
//! - `run_loop.rs`: `run`'s loop, what it keeps from one pass to the next (`Daemon`) and when
//!   it wakes next (`next_wake`);
//! - this file: the entry points, `once` and `run`.

use chrono::{DateTime, Utc};
use tokio::sync::watch;

use crate::app::{App, AppError};
use crate::config::Config;
use crate::imap::ImapSettings;
use crate::smtp::{Sender, SmtpSettings};
use pass::{Reading, pass};

mod courier;
mod deliver;
mod fetch;
mod lending;
mod pass;
mod report;
mod run_loop;
mod seam;
mod systemd;
mod tending;
#[cfg(test)]
mod tests;

pub use courier::PARALLEL_SENDS;
pub use fetch::{FETCH_BYTES, FETCH_CHUNK, GROUP, POISON_AFTER};
pub use report::PassReport;
pub use run_loop::reconnect_pause;
pub use seam::login_backoff;
pub(crate) use seam::{Clock, Connect, Outgoing, SystemClock};

// What the in-process tests (`use super::*`) name besides.
#[cfg(test)]
use {crate::app::Processed, crate::imap::Woke, courier::Courier, seam::Mailbox};

/// One pass: every unprocessed mail, every deadline due by now, the outbox.
pub async fn once(app: &mut App, now: Option<DateTime<Utc>>) -> Result<PassReport, AppError> {
    let sender = Sender::new(SmtpSettings::from(&app.config.smtp))?;
    let imap = ImapSettings::from(&app.config.imap);
    let report = once_with(app, now, &imap, &sender, &SystemClock).await;
    sender.close().await;
    report
}

/// [`once`] over any mailbox, sender and clock (the in-process tests use scripted ones): the
/// [`pass`] over a connection of its own, at `now` if given (`--now`).
pub(crate) async fn once_with<S>(
    app: &mut App,
    now: Option<DateTime<Utc>>,
    imap: &impl Connect,
    sender: &S,
    clock: &impl Clock,
) -> Result<PassReport, AppError>
where
    S: Outgoing + Clone + Send + Sync + 'static,
{
    let started = std::time::Instant::now();
    let reading = Reading::Once(imap.connect().await?);
    // `once` is the operator's own try (after mending a password, say): a hold of the relay's
    // sending (`store::SendHold`) is tried again at once, not after the rest of its pause.
    let outbox = app.store.outbox();
    if let Some(mut hold) = outbox.hold()? {
        let at = app.now_at(now, clock.now())?;
        if hold.until > at {
            hold.until = at;
            outbox.set_hold(Some(&hold))?;
        }
    }
    Ok(pass(app, reading, (sender, clock), now, None, started).await?)
}

/// The daemon: passes until `shutdown` turns true. Waits in IMAP IDLE (re-issued at least every
/// `idle_minutes`; ending each IDLE needs the server's answer within the timeout, so a silent,
/// dead connection is noticed then), wakes for the core's next deadline and the outbox's next
/// retry, and reconnects to IMAP with [`reconnect_pause`]. Deadlines and the outbox go on while
/// IMAP is away; SMTP failures never stop it. After an outage it catches up in order. The store
/// stays open while the daemon waits, until another command asks for it (`store.wanted`, see
/// [`crate::app::store_request`]): then it lets go until that command is done, so that
/// `fernzug status`, `tournament add` and `export` work while it runs (in the manner of
/// mini-redis: `run(config, shutdown)`).
pub async fn run(config: Config, shutdown: watch::Receiver<bool>) -> Result<(), AppError> {
    let sender = Sender::new(SmtpSettings::from(&config.smtp))?;
    let imap = ImapSettings::from(&config.imap);
    let done = run_with(config, &imap, &sender, &SystemClock, shutdown).await;
    sender.close().await;
    done
}

/// [`run`] over any mailbox, sender and clock (the in-process tests use scripted ones and
/// tokio's paused time): the HTTP listeners started, then the loop of
/// [`run_loop::Daemon::run`].
pub(crate) async fn run_with<S>(
    config: Config,
    imap: &impl Connect,
    sender: &S,
    clock: &impl Clock,
    shutdown: watch::Receiver<bool>,
) -> Result<(), AppError>
where
    S: Outgoing + Clone + Send + Sync + 'static,
{
    let daemon = run_loop::Daemon::start(config, &shutdown).await?;
    daemon.run(imap, sender, clock, shutdown).await
}
