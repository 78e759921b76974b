//! One pass, the same for `once` and `run` ([`pass`]): start the courier with the outbox's due
//! entries, read the mailbox ([`fetch_new`]: each mail decided under its guard, each group made
//! durable, flagged, then handed to the courier), then the chores ([`chores`]: start mails left
//! half-way, the deadlines due, the archive's rotation, the rest of the outbox). In `run` the
//! pass also answers the XFCC calls, takes a backup asked for and tends the vitals and alerts
//! ([`Tending`]).

use chrono::{DateTime, Utc};
use tracing::info;

use super::courier::Courier;
use super::deliver::{drain, finish, hand_fresh, start_courier};
use super::fetch::{ReadTo, fetch_new};
use super::report::{PassReport, log_pass};
use super::seam::{Clock, Mailbox, Outgoing};
use super::tending::Tending;
use crate::app::{App, AppError};

/// The mailbox a pass reads.
pub(super) enum Reading<'a, M> {
    /// `once`: a connection of its own, logged out once the mailbox is read; listed from the
    /// first message.
    Once(M),
    /// `run`: the loop's connection, listed from where the last complete pass left off.
    Kept(&'a mut M, &'a mut ReadTo),
    /// `run` while IMAP is away: no mailbox, so no deadline fires (see [`chores`]).
    Away,
}

/// Why a pass stopped short.
#[derive(Debug)]
pub(super) enum PassError {
    /// Reading the mailbox failed (`error`). What the courier had been handed was done and
    /// recorded first, and nothing more went (it may not be durable); `drained` says whether
    /// that went well. `run` reconnects, `once` reports `error`.
    Mailbox {
        error: AppError,
        drained: Result<(), AppError>,
    },
    /// Anything else: the relay stops.
    Stop(AppError),
}

impl From<AppError> for PassError {
    fn from(e: AppError) -> PassError {
        PassError::Stop(e)
    }
}

impl From<PassError> for AppError {
    /// The error that stopped the pass (for a failed drain after a failed read: the read's).
    fn from(e: PassError) -> AppError {
        match e {
            PassError::Mailbox { error, .. } | PassError::Stop(error) => error,
        }
    }
}

/// One pass over the open store: every unprocessed mail of the mailbox `reading` names (at
/// `given`, `--now`, or at its postmark), every deadline due by now, the outbox. `tending`: what
/// `run` does beside (`None` for `once`). `started`: when the pass began, for its line in the log
/// (`once`: before connecting to IMAP; `run`: before opening the store).
///
/// Deadlines are judged at `given`, else up to the instant the mailbox's listing began; without
/// a listing (IMAP away) none fires ([`chores`]).
pub(super) async fn pass<S, M: Mailbox>(
    app: &mut App,
    reading: Reading<'_, M>,
    (sender, clock): (&S, &impl Clock),
    given: Option<DateTime<Utc>>,
    mut tending: Option<&mut Tending>,
    started: std::time::Instant,
) -> Result<PassReport, PassError>
where
    S: Outgoing + Clone + Send + Sync + 'static,
{
    let mut report = PassReport::default();
    let begun = app.now_at(given, clock.now()).map_err(AppError::from)?;
    let mut courier = start_courier(app, sender, begun)?;
    let listed_at = match read(app, reading, given, clock, &mut courier, &mut report).await {
        Ok(listed_at) => listed_at,
        Err(error) => {
            // What was handed over is done and recorded; the rest waits for the next pass.
            let now = courier.now();
            let drained = drain(app, courier, now, &mut report).await.map(drop);
            return Err(PassError::Mailbox { error, drained });
        }
    };
    let (now, tick_to) = match listed_at {
        Some(listed_at) => {
            if let Some(t) = tending.as_deref_mut() {
                t.mailbox_read(app, clock)?;
            }
            let now = app.now_at(given, clock.now()).map_err(AppError::from)?;
            // `--now`: every mail counts as received at TIME, and deadlines are judged at TIME.
            let tick_to = if given.is_some() {
                now
            } else {
                now.min(listed_at)
            };
            (now, Some(tick_to))
        }
        None => (begun, None),
    };
    chores(app, sender, courier, now, tick_to, &mut report).await?;
    if let Some(t) = tending {
        if listed_at.is_none() {
            // While IMAP is away, a backup asked for is taken once the outbox went.
            t.take_backup(app);
        }
        t.tend(app, sender, &report, now).await?;
    }
    if listed_at.is_some() {
        log_pass(started, &report);
    }
    Ok(report)
}

/// Reads the mailbox of `reading` ([`fetch_new`]); returns when its listing began, `None` when
/// there is none ([`Reading::Away`]).
async fn read<M: Mailbox>(
    app: &mut App,
    reading: Reading<'_, M>,
    given: Option<DateTime<Utc>>,
    clock: &impl Clock,
    courier: &mut Courier,
    report: &mut PassReport,
) -> Result<Option<DateTime<Utc>>, AppError> {
    match reading {
        Reading::Once(mut inbox) => {
            let mut read_to = ReadTo::default();
            let listed_at =
                fetch_new(app, &mut inbox, given, clock, courier, report, &mut read_to).await?;
            inbox.logout().await;
            Ok(Some(listed_at))
        }
        Reading::Kept(inbox, read_to) => {
            let listed_at = fetch_new(app, inbox, given, clock, courier, report, read_to).await?;
            Ok(Some(listed_at))
        }
        Reading::Away => Ok(None),
    }
}

/// Everything but IMAP: start mails left half-way, deadlines due by `now`, archive rotation; then
/// the `courier` is handed what they queued and finishes (the outbox), and the reports of mails
/// refused meanwhile go out in a second round.
///
/// Deadlines are fired up to `tick_to`, never past the last complete listing of the mailbox:
/// the postmark (IMAP INTERNALDATE) of a mail not yet fetched decides before a deadline after it
/// (TO §14, Fax 2.4). Without a listing (IMAP unreachable) no deadline fires; they fire in time
/// order, between the mails, once the mailbox is read again.
async fn chores<S>(
    app: &mut App,
    sender: &S,
    mut courier: Courier,
    now: DateTime<Utc>,
    tick_to: Option<DateTime<Utc>>,
    report: &mut PassReport,
) -> Result<(), AppError>
where
    S: Outgoing + Clone + Send + Sync + 'static,
{
    // Start mails of a tournament whose registration stopped half-way (`App::register`).
    for line in app.queue_starts()? {
        info!("{line}");
    }
    hand_fresh(app, &mut courier);
    if let Some(t) = tick_to {
        match app.tick(t) {
            Ok(out) => {
                for line in out.log {
                    info!("{line}");
                }
            }
            // The deadlines stay due; the outbox and the mails go on.
            Err(e @ AppError::Step(_)) => tracing::error!("{e}"),
            Err(e) => return Err(e),
        }
    }
    for line in app.rotate_archive(now)? {
        info!("{line}");
    }
    let started = std::time::Instant::now();
    let sent = report.sent;
    if finish(app, courier, now, report).await? {
        // Fax 2.2: the reports of refusals decided while delivering go out in the same pass.
        let courier = start_courier(app, sender, now)?;
        finish(app, courier, now, report).await?;
    }
    tracing::debug!(
        "handed {} mails to SMTP in {} ms after the mails were read",
        report.sent - sent,
        started.elapsed().as_millis()
    );
    Ok(())
}
