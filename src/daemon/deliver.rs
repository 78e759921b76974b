//! The pass's side of the [`Courier`]: it is started with the outbox's due entries, handed what
//! the pass enqueues once it is durable ([`hand_fresh`]), and what it did is applied between the
//! pass's own steps ([`apply`]: a refusal reported, a retry with backoff, a mail given up);
//! [`finish`] and [`drain`] wait for the rest at the end of a pass.

use chrono::{DateTime, Utc};
use tracing::{info, warn};

use super::courier::{Attempt, Courier};
use super::report::PassReport;
use super::seam::Outgoing;
use crate::app::{App, AppError};
use crate::smtp::backoff;

/// Starts the pass's [`Courier`] with the outbox's entries due by `now`, oldest first (the
/// recipients of those waiting for a later retry are held), and has the store tell which entries
/// the pass enqueues from now on ([`hand_fresh`]).
pub(super) fn start_courier<S>(
    app: &App,
    sender: &S,
    now: DateTime<Utc>,
) -> Result<Courier, AppError>
where
    S: Outgoing + Clone + Send + Sync + 'static,
{
    let mut courier = Courier::start(sender, app.store.clone(), now, outbox_max_age(app));
    app.store.outbox().watch_enqueued(true);
    for entry in app.store.outbox().heads()? {
        if entry.next_attempt > now {
            courier.hold(&entry.recipient);
        } else {
            courier.send(entry);
        }
    }
    Ok(courier)
}

/// How long a mail is retried before it is given up (`[limits] outbox_max_age_days`, Fax 2.3).
fn outbox_max_age(app: &App) -> chrono::Duration {
    chrono::Duration::days(i64::from(app.config.limits.outbox_max_age_days))
}

/// Hands the entries the pass enqueued since the last call to the courier. Only once they are
/// durable: after [`App::sync`] (group commit) or a committed step.
pub(super) fn hand_fresh(app: &App, courier: &mut Courier) {
    // Each with its mail: the courier need not read back what the pass has just written.
    for entry in app.store.outbox().take_enqueued() {
        courier.send(entry);
    }
}

/// Applies what the courier did: an accepted mail has left the outbox already (the courier
/// marks it sent durably at once; should that have failed, it is removed here); a refused one is reported to the director (Fax 2.2); a temporary failure is retried
/// with backoff ([`backoff`]) while the mail is younger than `[limits] outbox_max_age_days`, then
/// given up and reported ([`App::give_up`], Fax 2.3). A failure the operator must mend
/// (`needs_operator`) stops the relay, after the others are applied.
pub(super) fn apply(
    app: &mut App,
    attempts: Vec<Attempt>,
    now: DateTime<Utc>,
    report: &mut PassReport,
) -> Result<(), AppError> {
    let max_age = outbox_max_age(app);
    let mut stop = None;
    let mut accepted: Vec<String> = Vec::new();
    for Attempt {
        entry,
        sent,
        marked,
    } in attempts
    {
        report.smtp = Some(match &sent {
            Err(e @ crate::smtp::SendError::NeedsOperator { .. }) => Err(e.to_string()),
            Err(e @ crate::smtp::SendError::Transient { code: None, .. }) => Err(e.to_string()),
            _ => Ok(()),
        });
        match sent {
            Ok(()) => {
                info!(
                    "sent {} ({}) to {}",
                    entry.message_id, entry.kind, entry.recipient
                );
                if !marked {
                    accepted.push(entry.id);
                }
                report.sent += 1;
            }
            Err(e) if e.needs_operator() => {
                // Not this mail's fault: it stays queued as it was, and the relay stops.
                stop.get_or_insert(e);
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
            Err(e) if now - entry.created >= max_age => {
                let mut entry = entry;
                entry.last_error = Some(e.to_string());
                for line in app.give_up(&entry, now)? {
                    warn!("{line}");
                }
                report.given_up += 1;
            }
            Err(e) => {
                let jitter: f64 = rand::random();
                let wait = backoff(entry.attempts + 1, jitter);
                let next =
                    now + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::minutes(1));
                app.store.outbox().retry(&entry.id, next, &e.to_string())?;
                report.deferred += 1;
                warn!(
                    "{} to {}: {e}; retry at {next}",
                    entry.message_id, entry.recipient
                );
            }
        }
    }
    // Only those the courier could not mark (the store refused): this reports the store's error.
    app.store.outbox().sent(&accepted)?;
    match stop {
        Some(e) => Err(AppError::Send(e)),
        None => Ok(()),
    }
}

/// Hands the last entries over, waits until the courier has done everything and applies it.
/// Returns whether a mail was refused (its report to the director is queued, not yet sent).
pub(super) async fn finish(
    app: &mut App,
    mut courier: Courier,
    now: DateTime<Utc>,
    report: &mut PassReport,
) -> Result<bool, AppError> {
    hand_fresh(app, &mut courier);
    drain(app, courier, now, report).await
}

/// Waits until the courier has done what it was handed (no more is handed) and applies it.
/// Returns whether a mail was refused.
pub(super) async fn drain(
    app: &mut App,
    mut courier: Courier,
    now: DateTime<Utc>,
    report: &mut PassReport,
) -> Result<bool, AppError> {
    courier.close();
    let refused = report.failed;
    let mut stop = None;
    while let Some(attempt) = courier.next().await {
        // What else is done by now goes with it (one flush for the accepted ones).
        let mut done = vec![attempt];
        done.extend(courier.finished());
        match apply(app, done, now, report) {
            Ok(()) => {}
            // Whatever is still in flight is applied before the relay stops.
            Err(e @ AppError::Send(_)) => {
                stop.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    app.store.outbox().watch_enqueued(false);
    match stop {
        Some(e) => Err(e),
        None => Ok(report.failed > refused),
    }
}
