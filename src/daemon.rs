//! The thin tokio shell (in the manner of mini-redis): [`once`] is one pass — fetch every
//! unprocessed mail, fire every due deadline, deliver the outbox — and [`run`] repeats passes,
//! sleeping in IMAP IDLE until mail arrives, the core's next deadline, or the next outbox retry.

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;
use tracing::{info, warn};

use crate::app::{App, AppError, Processed};
use crate::config::Config;
use crate::imap::{ImapSettings, Inbox, Woke};
use crate::smtp::{Sender, SmtpSettings, backoff};

/// How a pass went.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PassReport {
    pub processed: usize,
    pub duplicates: usize,
    pub quarantined: usize,
    pub sent: usize,
    pub deferred: usize,
    pub failed: usize,
}

fn imap_settings(c: &Config) -> ImapSettings {
    ImapSettings {
        host: c.imap.host.clone(),
        port: c.imap.port,
        security: c.imap.security,
        user: c.imap.user.clone(),
        password: c.imap.password.clone(),
        mailbox: c.imap.mailbox.clone(),
        timeout: Duration::from_secs(60),
    }
}

fn smtp_settings(c: &Config) -> SmtpSettings {
    SmtpSettings {
        host: c.smtp.host.clone(),
        port: c.smtp.port,
        security: c.smtp.security,
        user: c.smtp.user.clone(),
        password: c.smtp.password.clone(),
        timeout: Duration::from_secs(60),
    }
}

/// Processes every mail of the inbox that is not done yet, oldest first. `now` given (`--now`):
/// every mail counts as received then; otherwise at its INTERNALDATE (the postmark).
async fn fetch_new(
    app: &mut App,
    inbox: &mut Inbox,
    now: Option<DateTime<Utc>>,
    report: &mut PassReport,
) -> Result<(), AppError> {
    let uidvalidity = inbox.uid_validity();
    let listed = inbox
        .list()
        .await
        .map_err(|e| AppError::Other(e.to_string()))?;
    let max = app.config.limits.max_mail_bytes;
    for l in listed {
        if app.store.is_uid_done(uidvalidity, l.uid)? {
            continue;
        }
        let fetched = if u64::from(l.size) > max.saturating_mul(4) {
            // Oversized: only the headers are fetched; the reader answers from those.
            inbox.fetch_header(l.uid).await
        } else {
            inbox.fetch(l.uid).await
        }
        .map_err(|e| AppError::Other(e.to_string()))?;
        let postmark = now.unwrap_or(fetched.internal_date);
        match app.process(&fetched.raw, postmark, Some((uidvalidity, l.uid)))? {
            Processed::Done(log) => {
                report.processed += 1;
                for line in log {
                    info!("{line}");
                }
            }
            Processed::Duplicate => {
                report.duplicates += 1;
                info!("uid {}: duplicate Message-ID, played once only", l.uid);
            }
            Processed::Quarantined(reason) => {
                report.quarantined += 1;
                warn!("uid {}: quarantined: {reason}", l.uid);
            }
        }
        // The store has committed and fsynced; only now is the mail flagged on the server.
        if let Err(e) = inbox.mark_done(l.uid).await {
            warn!("uid {}: could not flag as done: {e}", l.uid);
        }
    }
    Ok(())
}

/// Delivers every outbox entry due by `now`; each leaves the outbox only after the SMTP server
/// accepted it (Fax 2.3: repeat until it goes through).
pub async fn deliver(
    app: &mut App,
    sender: &Sender,
    now: DateTime<Utc>,
    report: &mut PassReport,
) -> Result<(), AppError> {
    for entry in app.store.outbox_due(now)? {
        match sender
            .send(&entry.envelope_from, &entry.recipient, &entry.raw)
            .await
        {
            Ok(()) => {
                app.store.outbox_sent(&entry.id)?;
                report.sent += 1;
                info!(
                    "sent {} ({}) to {}",
                    entry.message_id, entry.kind, entry.recipient
                );
            }
            Err(e) if e.is_permanent() => {
                // Fax 2.2: the address refuses mail. The entry leaves the queue (nothing is retried
                // forever, the whole mail stays in the archive) and the core reports it to TL.
                let reported = app.refused(&entry, &e.to_string(), now)?;
                report.failed += 1;
                warn!(
                    "{} ({}) to {} refused permanently: {e}",
                    entry.message_id, entry.kind, entry.recipient
                );
                for line in reported.log {
                    info!("{line}");
                }
            }
            Err(e) => {
                let jitter: f64 = rand::random();
                let wait = backoff(entry.attempts + 1, jitter);
                let next =
                    now + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::minutes(1));
                app.store.outbox_retry(&entry.id, next, &e.to_string())?;
                report.deferred += 1;
                warn!(
                    "{} to {}: {e}; retry at {next}",
                    entry.message_id, entry.recipient
                );
            }
        }
    }
    Ok(())
}

/// One pass: every unprocessed mail, every deadline due by now, the outbox.
pub async fn once(app: &mut App, now: Option<DateTime<Utc>>) -> Result<PassReport, AppError> {
    let mut report = PassReport::default();
    let mut inbox = Inbox::connect(imap_settings(&app.config))
        .await
        .map_err(|e| AppError::Other(e.to_string()))?;
    fetch_new(app, &mut inbox, now, &mut report).await?;
    inbox.logout().await;
    let now = app.now(now).map_err(|e| AppError::Other(e.to_string()))?;
    for line in app.tick(now)?.log {
        info!("{line}");
    }
    let sender =
        Sender::new(smtp_settings(&app.config)).map_err(|e| AppError::Other(e.to_string()))?;
    deliver(app, &sender, now, &mut report).await?;
    if report.failed > 0 {
        // Fax 2.2: the bounce reports decided while delivering go out in the same pass.
        deliver(app, &sender, now, &mut report).await?;
    }
    Ok(report)
}

/// The daemon: passes until `shutdown` turns true. Waits in IMAP IDLE (re-issued at least every
/// `idle_minutes`), wakes for the core's next deadline and the outbox's next retry, reconnects
/// with backoff. The store is opened for each pass and closed while the daemon waits, so that
/// `fernzug status`, `tournament add` and `export` work while it runs.
pub async fn run(config: Config, mut shutdown: watch::Receiver<bool>) -> Result<(), AppError> {
    let sender = Sender::new(smtp_settings(&config)).map_err(|e| AppError::Other(e.to_string()))?;
    let idle_max = Duration::from_secs(config.imap.idle_minutes.clamp(1, 29) * 60);
    let mut failures: u32 = 0;
    while !*shutdown.borrow() {
        let mut inbox = match Inbox::connect(imap_settings(&config)).await {
            Ok(i) => {
                failures = 0;
                i
            }
            Err(e) => {
                failures += 1;
                let wait = backoff(failures, rand::random()).min(Duration::from_secs(300));
                warn!("IMAP: {e}; reconnecting in {}s", wait.as_secs());
                // Deadlines and the outbox do not wait for IMAP.
                let mut app = App::open(config.clone())?;
                let now = app.now(None).map_err(|e| AppError::Other(e.to_string()))?;
                app.tick(now)?;
                let mut report = PassReport::default();
                deliver(&mut app, &sender, now, &mut report).await?;
                drop(app);
                tokio::select! {
                    _ = tokio::time::sleep(wait) => {}
                    _ = shutdown.changed() => {}
                }
                continue;
            }
        };
        info!("IMAP connected; waiting for mail");
        loop {
            let mut app = App::open(config.clone())?;
            let mut report = PassReport::default();
            if let Err(e) = fetch_new(&mut app, &mut inbox, None, &mut report).await {
                warn!("{e}; reconnecting");
                break;
            }
            let now = app.now(None).map_err(|e| AppError::Other(e.to_string()))?;
            for line in app.tick(now)?.log {
                info!("{line}");
            }
            deliver(&mut app, &sender, now, &mut report).await?;
            // Sleep until mail arrives, the next deadline, the next outbox retry, or idle_max.
            let mut wake = idle_max;
            let next = [
                app.state.next_deadline(&app.settings),
                app.store.next_outbox_attempt()?,
            ]
            .into_iter()
            .flatten()
            .min();
            if let Some(at) = next {
                let until = (at - Utc::now()).to_std().unwrap_or(Duration::ZERO);
                wake = wake.min(until.max(Duration::from_millis(50)));
            }
            // Release the store while waiting.
            drop(app);
            match inbox.wait(wake, &mut shutdown).await {
                Ok((i, Woke::Shutdown)) => {
                    i.logout().await;
                    return Ok(());
                }
                Ok((i, _)) => inbox = i,
                Err(e) => {
                    warn!("IMAP: {e}; reconnecting");
                    break;
                }
            }
        }
    }
    Ok(())
}
