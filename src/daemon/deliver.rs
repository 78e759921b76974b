//! The pass's side of the [`Courier`]: it is started with the outbox's due entries, handed what
//! the pass enqueues once it is durable ([`hand_fresh`]), and what it did is applied between the
//! pass's own steps ([`apply`]: a refusal reported, a retry with backoff, a mail given up);
//! [`finish`] and [`drain`] wait for the rest at the end of a pass.

use chrono::{DateTime, Utc};
use tracing::{info, warn};

use super::courier::{Attempt, Courier, Terms};
use super::report::PassReport;
use super::seam::{Outgoing, login_backoff};
use crate::app::{App, AppError};
use crate::core::unreachable::limits::{self, Budget, Limits};
use crate::core::unreachable::verdict::{Cause, Verdict};
use crate::smtp::{SendError, backoff};
use crate::store::{OutboxEntry, SendHold};

/// Starts the pass's [`Courier`] with the outbox's entries due by `now`, oldest first (the
/// recipients of those waiting for a later retry are held), and has the store tell which entries
/// the pass enqueues from now on ([`hand_fresh`]). While the relay's sending is held
/// ([`SendHold`]) and its pause is not over, the courier sends nothing.
pub(super) fn start_courier<S>(
    app: &App,
    sender: &S,
    now: DateTime<Utc>,
) -> Result<Courier, AppError>
where
    S: Outgoing + Clone + Send + Sync + 'static,
{
    let outbox = app.store.outbox();
    let budget = sending_budget(app, now)?;
    let left = budget.left.zip(budget.bulk);
    let terms = Terms {
        now,
        max_age: outbox_max_age(app),
        held: outbox.hold()?.is_some_and(|h| h.until > now),
        left,
    };
    let mut courier = Courier::start(sender, app.store.clone(), terms);
    outbox.watch_enqueued(true);
    for entry in outbox.heads()? {
        if entry.next_attempt > now {
            courier.hold(&entry.recipient);
        } else if left.is_some() && !limits::urgent(&entry.kind) {
            // Under a sending limit the moves of this pass go before yesterday's start mails.
            courier.later(entry);
        } else {
            courier.send(entry);
        }
    }
    Ok(courier)
}

/// What `[smtp] max_per_hour` and `max_per_day` let go at `now`, after what was sent.
pub(super) fn sending_budget(app: &App, now: DateTime<Utc>) -> Result<Budget, AppError> {
    Ok(sending_window(app, now)?.map_or_else(Budget::default, |(b, _)| b))
}

/// [`sending_budget`] with the window it was reckoned from (one read of it); `None` without a
/// limit.
pub(super) fn sending_window(
    app: &App,
    now: DateTime<Utc>,
) -> Result<Option<(Budget, limits::SendWindow)>, AppError> {
    let limits = Limits {
        per_hour: app.config.smtp.max_per_hour,
        per_day: app.config.smtp.max_per_day,
    };
    if limits == Limits::default() {
        return Ok(None);
    }
    let window = app.store.outbox().window()?;
    Ok(Some((limits::budget(&window, limits, now), window)))
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

/// Applies what the courier did, by the core's verdict on each refusal
/// (`core::unreachable::verdict`): an accepted mail has left the outbox already (the courier
/// marks it sent durably at once; should that have failed, it is removed here); a recipient
/// whose address takes no mail — or whose mailbox has been full for three days — is reported to
/// the director (Fax 2.2); his deferral is retried with backoff ([`backoff`]) while the mail is
/// younger than `[limits] outbox_max_age_days`, then given up and reported ([`App::give_up`],
/// Fax 2.3); a refusal of the relay itself (the connection, the login, the sender, a quota, a
/// policy) holds every mail ([`hold`]) and is never given up. Nothing here stops the relay.
pub(super) fn apply(
    app: &mut App,
    attempts: Vec<Attempt>,
    now: DateTime<Utc>,
    report: &mut PassReport,
) -> Result<(), AppError> {
    let max_age = outbox_max_age(app);
    let mut accepted: Vec<String> = Vec::new();
    let mut held = None;
    let sent_before = report.sent;
    for Attempt {
        entry,
        sent,
        verdict,
        marked,
    } in attempts
    {
        let e = match sent {
            Ok(()) => {
                info!(
                    "sent {} ({}) to {}",
                    entry.message_id, entry.kind, entry.recipient
                );
                if !marked {
                    accepted.push(entry.id);
                }
                report.sent += 1;
                report.smtp = Some(Ok(()));
                continue;
            }
            Err(e) => e,
        };
        // The courier judges every refusal; a server that gave none is not there.
        let verdict = verdict.unwrap_or(Verdict::Hold(Cause::Server));
        // A server that refuses the relay's own mail does not work (`crate::vitals`).
        report.smtp = Some(match verdict {
            Verdict::Hold(_) => Err(e.to_string()),
            _ => Ok(()),
        });
        match verdict {
            Verdict::Unreachable => refused(app, entry, &e, now, report)?,
            Verdict::Hold(cause) => {
                // Due again at the end of the hold, in its place in line.
                app.store.outbox().retry(&entry.id, now, &e.to_string())?;
                report.deferred += 1;
                if cause.needs_operator() {
                    report.needs_operator = Some(to_mend(app, cause, &e));
                }
                held = Some((cause, e));
            }
            Verdict::MailboxFull | Verdict::Retry => {
                if verdict == Verdict::Retry && now - entry.created >= max_age {
                    let mut entry = entry;
                    entry.last_error = Some(e.to_string());
                    for line in app.give_up(&entry, now)? {
                        warn!("{line}");
                    }
                    report.given_up += 1;
                    continue;
                }
                let jitter: f64 = rand::random();
                let wait = backoff(entry.attempts + 1, jitter);
                let next =
                    now + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::minutes(1));
                let outbox = app.store.outbox();
                if verdict == Verdict::MailboxFull {
                    outbox.retry_full(&entry.id, next, &e.to_string(), now)?;
                } else {
                    outbox.retry(&entry.id, next, &e.to_string())?;
                }
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
    hold(app, held, report.sent > sent_before, now)
}

/// The line that tells the operator what to mend when the SMTP server refuses the relay itself
/// for `cause` (`e`); the password is never in it.
fn to_mend(app: &App, cause: Cause, e: &SendError) -> String {
    let SendError::Refused { stage, code, lines } = e else {
        // TLS, STARTTLS, no login mechanism: the line names the key already.
        return e.to_string();
    };
    let server = format!("SMTP {}:{}", app.config.smtp.host, app.config.smtp.port);
    let said = format!("{code} {}", lines.join(" "));
    match cause {
        Cause::Login => format!(
            "{server}: the server refused the login ({said}); check [smtp] user and the password"
        ),
        Cause::Sender => format!(
            "{server}: the server refuses the relay's sender at {} ({said}); check [relay] address (the account must be allowed to send as it) and the domain's SPF and DKIM",
            stage.name()
        ),
        _ => format!(
            "{server}: the server refuses the relay at {} ({said}); see docs/operating.md, \"Troubleshooting\"",
            stage.name()
        ),
    }
}

/// Fax 2.2: `entry`'s recipient takes no mail (`e`). The entry leaves the queue (nothing is
/// retried forever, the whole mail stays in the archive) and the core reports it to TL.
fn refused(
    app: &mut App,
    entry: OutboxEntry,
    e: &SendError,
    now: DateTime<Utc>,
    report: &mut PassReport,
) -> Result<(), AppError> {
    let why = match entry.full_since {
        Some(since) => format!("mailbox full since {since}: {e}"),
        None => e.to_string(),
    };
    let reported = app.refused(&entry, &why, now)?;
    report.failed += 1;
    warn!(
        "{} ({}) to {} refused: {why}",
        entry.message_id, entry.kind, entry.recipient
    );
    for line in reported.log {
        info!("{line}");
    }
    Ok(())
}

/// The relay's sending held or let go ([`SendHold`], in the store): a refusal of the relay
/// itself (`refused`) holds every mail until the pause of [`login_backoff`] after this try is
/// over — one try per pause, at most 4 an hour after the first hour; the first mail accepted
/// again (`accepted`) ends the hold. Attempts of the same pause that come back later (mails in
/// flight at once) do not count as tries of their own.
fn hold(
    app: &App,
    refused: Option<(Cause, SendError)>,
    accepted: bool,
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    let outbox = app.store.outbox();
    let before = outbox.hold()?;
    let Some((cause, e)) = refused else {
        if accepted && let Some(h) = before {
            info!(
                "SMTP takes the relay's mail again: every mail held since {} ({}) goes now",
                h.since, h.cause
            );
            outbox.set_hold(None)?;
        }
        return Ok(());
    };
    if before.as_ref().is_some_and(|h| h.until > now) {
        return Ok(());
    }
    let tries = before.as_ref().map_or(1, |h| h.tries.saturating_add(1));
    let wait = login_backoff(tries, rand::random());
    let until = now + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::minutes(15));
    let r = e.refusal();
    let detail = format!("{} {}", r.code, r.last_line());
    let tz = app.config.relay.time_zone;
    warn!(
        "SMTP holds every mail: {} ({detail}); next try at {}",
        cause.name(),
        until.with_timezone(&tz).format("%Y-%m-%d %H:%M:%S %Z")
    );
    let hold = SendHold {
        since: before.map_or(now, |h| h.since),
        tries,
        until,
        cause: cause.name().to_string(),
        detail,
    };
    outbox.set_hold(Some(&hold))?;
    Ok(())
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
    courier.send_later();
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
    while let Some(attempt) = courier.next().await {
        // What else is done by now goes with it (one flush for the accepted ones).
        let mut done = vec![attempt];
        done.extend(courier.finished());
        apply(app, done, now, report)?;
    }
    app.store.outbox().watch_enqueued(false);
    Ok(report.failed > refused)
}
