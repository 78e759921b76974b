//! The thin tokio shell (in the manner of mini-redis): [`once`] is one pass — fetch every
//! unprocessed mail, fire every due deadline, deliver the outbox — and [`run`] repeats passes,
//! sleeping in IMAP IDLE until mail arrives, the core's next deadline, or the next outbox retry.

use std::collections::HashMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;
use tracing::{info, warn};

use crate::app::{App, AppError, Processed};
use crate::config::Config;
use crate::crash;
use crate::imap::{ImapSettings, Woke};
use crate::smtp::{Sender, SmtpSettings, backoff};
use courier::{Attempt, Courier};

mod courier;
mod seam;
mod systemd;
#[cfg(test)]
mod tests;

pub(crate) use seam::{Clock, Connect, Mailbox, Outgoing, SystemClock};

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
}

/// Where the daemon's next listing of the mailbox may begin: the messages below UID `next` in the
/// mailbox of `uid_validity` were all done (in the store, flagged) at the end of a complete pass.
/// IMAP gives a message added later a higher UID than every one before it (RFC 3501 2.3.1.1),
/// so none can appear below. Kept only while the daemon holds the store open: a start, a store
/// reopened, `once` and a mailbox of another UIDVALIDITY list from the first message; the store
/// decides, message by message, what is done.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ReadTo {
    uid_validity: u32,
    next: u32,
}

impl ReadTo {
    /// The first UID to list in the mailbox of `uid_validity`.
    fn first(&self, uid_validity: u32) -> u32 {
        if self.uid_validity == uid_validity {
            self.next.max(1)
        } else {
            1
        }
    }
}

/// Processes every mail of the inbox that is not done yet, oldest first. `now` given (`--now`):
/// every mail counts as received then; otherwise at its INTERNALDATE (the postmark).
///
/// What is done is decided by the store's (UIDVALIDITY, UID) set and Message-IDs, never by a
/// "last UID": after a UIDVALIDITY change every mail is looked at again and the Message-ID
/// (the reader's `sha256:` of the raw mail when it has none) keeps it from acting twice. The
/// `\Seen` flag is set only after the store committed and fsynced, and is a courtesy only.
///
/// The listing begins at `read_to` (every message below it was done and flagged at the end of an
/// earlier complete pass over the same mailbox) and `read_to` moves past the messages listed
/// once all of them are: a pass reads what came since the last one, not the mailbox's history.
///
/// Returns when the listing began: every mail the server had by then has been processed, so
/// deadlines may be fired up to that instant and no further (a later mail's postmark may be
/// earlier than a deadline after it).
///
/// Each group made durable is handed to the `courier` at once, and what it did meanwhile is
/// applied: the first forwards of a burst leave while the later mails are read.
async fn fetch_new(
    app: &mut App,
    inbox: &mut impl Mailbox,
    now: Option<DateTime<Utc>>,
    clock: &impl Clock,
    courier: &mut Courier,
    report: &mut PassReport,
    read_to: &mut ReadTo,
) -> Result<DateTime<Utc>, AppError> {
    let uidvalidity = inbox.uid_validity();
    let listed_at = clock.now();
    let started = std::time::Instant::now();
    let before = report.processed + report.duplicates + report.quarantined;
    let first = read_to.first(uidvalidity);
    let listed = inbox.list_from(first).await?;
    // Listed oldest first, every one from `first` on.
    let next = listed.last().map_or(first, |l| l.uid.saturating_add(1));
    let max = app.config.limits.max_mail_bytes;
    // Group commit: each mail is its own transaction, but up to GROUP of them are made durable by
    // one fsync, and only then flagged on the server.
    app.group(true)?;
    let mut unflagged: Vec<u32> = Vec::new();
    // A mail whose step the process died in (the step record, `Step::interrupted`) has
    // that death counted against it, durably, before anything else is read.
    app.count_interrupted_step()?;
    let mut todo = Vec::new();
    for l in listed {
        if app.store.is_uid_done(uidvalidity, l.uid)? {
            if !l.seen {
                // Done before a crash between commit and flag: flag it (once durable).
                unflagged.push(l.uid);
            }
            continue;
        }
        let times = app.store.begun(uidvalidity, l.uid)?;
        if times >= POISON_AFTER {
            // The relay died in its step each time it began: not begun a third time.
            let fetched = fetch_chunk(inbox, std::slice::from_ref(&l), max).await?;
            let raw = fetched.get(&l.uid).map_or(&[][..], |f| &f.raw[..]);
            let postmark = now
                .or_else(|| fetched.get(&l.uid).map(|f| f.internal_date))
                .unwrap_or(listed_at);
            let reason = app.quarantine_unfinished(raw, postmark, (uidvalidity, l.uid), times)?;
            report.quarantined += 1;
            warn!(
                "uid {}: quarantined: {reason} (kept; `fernzug status` lists it)",
                l.uid
            );
            unflagged.push(l.uid);
            continue;
        }
        todo.push(l);
    }
    // Chunks of at most FETCH_CHUNK mails and FETCH_BYTES (at least one mail each).
    let mut chunks: Vec<&[crate::imap::Listed]> = Vec::new();
    let mut start = 0;
    let mut bytes = 0u64;
    for (i, l) in todo.iter().enumerate() {
        let size = u64::from(l.size).min(max);
        // A chunk never spans two groups: at most GROUP mails share an fsync.
        if i > start && (i - start >= FETCH_CHUNK || bytes + size > FETCH_BYTES || i % GROUP == 0) {
            chunks.extend(todo.get(start..i));
            start = i;
            bytes = 0;
        }
        bytes += size;
    }
    chunks.extend(todo.get(start..).filter(|c| !c.is_empty()));
    // A pipeline of two: while the relay reads and decides one chunk, the server sends the next
    // one and takes the `\Seen` flags of the last group made durable, so that the IMAP round
    // trips overlap the relay's own work instead of adding to it.
    let mut to_flag: Vec<u32> = Vec::new();
    let mut fetched = match chunks.first() {
        Some(c) => fetch_chunk(inbox, c, max).await?,
        None => HashMap::new(),
    };
    let mut in_group = 0;
    for (i, chunk) in chunks.iter().enumerate() {
        let following = chunks.get(i + 1);
        let (next, done) = tokio::join!(
            async {
                let next = match following {
                    Some(c) => fetch_chunk(inbox, c, max).await?,
                    None => HashMap::new(),
                };
                flag(inbox, &mut to_flag).await?;
                Ok::<_, AppError>(next)
            },
            async {
                process_chunk(
                    app,
                    (chunk, &mut fetched),
                    (now, uidvalidity, max),
                    report,
                    &mut unflagged,
                )
            }
        );
        done?;
        fetched = next?;
        in_group += chunk.len();
        if in_group >= GROUP {
            in_group = 0;
            durable(app)?;
            // Durable now: flagged while the next chunk is decided.
            to_flag.append(&mut unflagged);
            hand_fresh(app, courier);
            // Let the courier take them (it runs beside this task; on a runtime of one
            // thread only when this task yields).
            tokio::task::yield_now().await;
            let done = courier.finished();
            apply(app, done, courier.now(), report)?;
        }
    }
    to_flag.append(&mut unflagged);
    flag_durable(app, inbox, &mut to_flag).await?;
    app.group(false)?;
    hand_fresh(app, courier);
    // Every message listed is done and flagged: the next listing begins after them.
    *read_to = ReadTo {
        uid_validity: uidvalidity,
        next,
    };
    tracing::debug!(
        "read, decided and stored {} mails in {} ms ({} handed to SMTP meanwhile)",
        report.processed + report.duplicates + report.quarantined - before,
        started.elapsed().as_millis(),
        report.sent
    );
    Ok(listed_at)
}

/// A message the relay died in the step of this many times is quarantined unread, not begun
/// again (docs/security.md, "No mail stops the relay").
pub const POISON_AFTER: u32 = 2;

/// Fetches a chunk's mails: the whole ones in one round trip, the header alone of each over
/// `max` bytes (`[limits] max_mail_bytes`).
async fn fetch_chunk(
    inbox: &mut impl Mailbox,
    chunk: &[crate::imap::Listed],
    max: u64,
) -> Result<HashMap<u32, crate::imap::Fetched>, AppError> {
    let whole: Vec<u32> = chunk
        .iter()
        .filter(|l| u64::from(l.size) <= max)
        .map(|l| l.uid)
        .collect();
    let mut fetched = inbox.fetch_many(&whole).await?;
    for l in chunk.iter().filter(|l| u64::from(l.size) > max) {
        fetched.insert(l.uid, inbox.fetch_header(l.uid).await?);
    }
    Ok(fetched)
}

/// Reads, decides and stores (without waiting for the disk) each mail of `chunk`, in order,
/// taking it from `fetched`; counts it in `report` and notes it in `unflagged`.
fn process_chunk(
    app: &mut App,
    (chunk, fetched): (
        &[crate::imap::Listed],
        &mut HashMap<u32, crate::imap::Fetched>,
    ),
    (now, uidvalidity, max): (Option<DateTime<Utc>>, u32, u64),
    report: &mut PassReport,
    unflagged: &mut Vec<u32>,
) -> Result<(), AppError> {
    for l in chunk {
        let fetched = fetched
            .remove(&l.uid)
            .ok_or_else(|| crate::imap::ImapError::Missing {
                uid: l.uid,
                mailbox: app.config.imap.mailbox.clone(),
            })?;
        crash::point(crash::AFTER_READ);
        let postmark = now.unwrap_or(fetched.internal_date);
        let uid = Some((uidvalidity, l.uid));
        let processed = if u64::from(l.size) > max {
            app.process_oversized(&fetched.raw, u64::from(l.size), postmark, uid)?
        } else {
            app.process(&fetched.raw, postmark, uid)?
        };
        match processed {
            Processed::Done { log, .. } => {
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
                warn!(
                    "uid {}: quarantined: {reason} (kept; `fernzug status` lists it)",
                    l.uid
                );
            }
        }
        unflagged.push(l.uid);
    }
    Ok(())
}

/// Flags the mails `uids`, which the store holds durably, on the server.
async fn flag(inbox: &mut impl Mailbox, uids: &mut Vec<u32>) -> Result<(), AppError> {
    if uids.is_empty() {
        return Ok(());
    }
    inbox
        .mark_done_many(uids)
        .await
        .map_err(|source| AppError::Flag {
            uid: uids.first().copied().unwrap_or(0),
            source,
        })?;
    uids.clear();
    crash::point(crash::AFTER_IMAP_FLAG);
    Ok(())
}

/// How many mails are handed to the SMTP server at the same time, each over its own connection.
pub const PARALLEL_SENDS: usize = 4;

/// How many mails at most share one fsync (group commit).
pub const GROUP: usize = 64;
/// How many whole mails one IMAP command fetches at most.
pub const FETCH_CHUNK: usize = 16;
/// How many bytes of mail one IMAP command fetches at most (unless one mail is larger).
pub const FETCH_BYTES: u64 = 8 * 1024 * 1024;

/// Makes the mails processed so far durable (one fsync), then flags them on the server.
async fn flag_durable(
    app: &mut App,
    inbox: &mut impl Mailbox,
    unflagged: &mut Vec<u32>,
) -> Result<(), AppError> {
    if unflagged.is_empty() {
        return Ok(());
    }
    durable(app)?;
    // The store has committed and fsynced; only now are the mails flagged on the server.
    flag(inbox, unflagged).await
}

/// Makes the mails processed so far durable (one fsync) and lets go of the games they brought
/// in if memory is full.
fn durable(app: &mut App) -> Result<(), AppError> {
    app.sync()?;
    app.rest_if_full();
    Ok(())
}

/// Starts the pass's [`Courier`] with the outbox's entries due by `now`, oldest first (the
/// recipients of those waiting for a later retry are held), and has the store tell which entries
/// the pass enqueues from now on ([`hand_fresh`]).
fn start_courier<S>(app: &App, sender: &S, now: DateTime<Utc>) -> Result<Courier, AppError>
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
fn hand_fresh(app: &App, courier: &mut Courier) {
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
fn apply(
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
async fn finish(
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
async fn drain(
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

/// The pause before reconnecting to IMAP after `failures` failures in a row: 1 s, 2 s, 4 s, …
/// at most 5 minutes, ±20 % jitter.
pub fn reconnect_backoff(failures: u32, jitter_unit: f64) -> Duration {
    let base = Duration::from_secs(1)
        .saturating_mul(1u32 << failures.saturating_sub(1).min(16))
        .min(Duration::from_secs(300));
    let unit = if jitter_unit.is_nan() {
        0.5
    } else {
        jitter_unit.clamp(0.0, 1.0)
    };
    base.mul_f64(0.8 + 0.4 * unit)
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

/// One pass: every unprocessed mail, every deadline due by now, the outbox.
pub async fn once(app: &mut App, now: Option<DateTime<Utc>>) -> Result<PassReport, AppError> {
    let sender = Sender::new(SmtpSettings::from(&app.config.smtp))?;
    let imap = ImapSettings::from(&app.config.imap);
    let report = once_with(app, now, &imap, &sender, &SystemClock).await;
    sender.close().await;
    report
}

/// [`once`] over any mailbox, sender and clock (the in-process tests use scripted ones).
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
    let mut report = PassReport::default();
    let mut inbox = imap.connect().await?;
    let given = now;
    let mut courier = start_courier(app, sender, app.now_at(given, clock.now())?)?;
    let mut read_to = ReadTo::default();
    let fetched = fetch_new(
        app,
        &mut inbox,
        given,
        clock,
        &mut courier,
        &mut report,
        &mut read_to,
    );
    let listed_at = match fetched.await {
        Ok(t) => t,
        Err(e) => {
            // What was handed over is done and recorded; nothing more goes (it may not be durable).
            let now = courier.now();
            let _ = drain(app, courier, now, &mut report).await;
            return Err(e);
        }
    };
    inbox.logout().await;
    let now = app.now_at(given, clock.now())?;
    // `--now`: every mail counts as received at TIME, and deadlines are judged at TIME.
    let tick_to = if given.is_some() {
        now
    } else {
        now.min(listed_at)
    };
    chores(app, sender, courier, now, Some(tick_to), &mut report).await?;
    log_pass(started, &report);
    Ok(report)
}

/// The operator's (and `scripts/load`'s) view of one pass, at debug level.
fn log_pass(started: std::time::Instant, r: &PassReport) {
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

/// The daemon: passes until `shutdown` turns true. Waits in IMAP IDLE (re-issued at least every
/// `idle_minutes`; ending each IDLE needs the server's answer within the timeout, so a silent,
/// dead connection is noticed then), wakes for the core's next deadline and the outbox's next
/// retry, and reconnects to IMAP with [`reconnect_backoff`]. Deadlines and the outbox go on while
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
/// tokio's paused time).
pub(crate) async fn run_with<S>(
    config: Config,
    imap: &impl Connect,
    sender: &S,
    clock: &impl Clock,
    mut shutdown: watch::Receiver<bool>,
) -> Result<(), AppError>
where
    S: Outgoing + Clone + Send + Sync + 'static,
{
    let idle_max = Duration::from_secs(config.imap.idle_minutes.clamp(1, 5) * 60);
    let vitals = crate::vitals::Vitals::new(config.relay.alert_minutes);
    // docs/xfcc.md: the XFCC listener hands its calls to this loop, which alone holds the store.
    // The tournament pages read the store the loop holds open (`crate::pages::StoreSlot`); it is
    // taken back from them whenever the loop lets go of it, and when the loop ends.
    let pages = crate::pages::StoreSlot::default();
    let _taken_back = pages.taken_back_on_drop();
    let mut xfcc = listen(&config, &vitals, &pages, shutdown.clone()).await?;
    let mut notifier = systemd::Notifier::from_env();
    // When the games were last counted by state (`/metrics`): at most once a minute.
    let mut counted: Option<std::time::Instant> = None;
    let xfcc_wake = xfcc.as_ref().map(|c| c.wake.clone());
    let mut failures: u32 = 0;
    // What the last pass read, kept while the store is closed (`App::close`): a pass reads every
    // game again only when another fernzug command wrote to the store meanwhile, or after an error.
    let mut held: Option<crate::app::Held> = None;
    // The store itself, kept open while the daemon waits for mail, until another fernzug command
    // asks for it (`crate::app::store_request`): an idle pass does not reopen it.
    let mut kept: Option<App> = None;
    // A backup asked for by `fernzug backup`, written on a thread of its own (app/backup.rs).
    let mut backup: Option<std::thread::JoinHandle<()>> = None;
    // Where the next listing begins: the mailbox's history is listed at the first pass after the
    // store was opened, then only what came since.
    let mut read_to = ReadTo::default();
    while !*shutdown.borrow() {
        if failures > 0 {
            let wait = reconnect_backoff(failures, rand::random());
            warn!("IMAP: reconnecting in {:.1}s", wait.as_secs_f64());
            // The outbox does not wait for IMAP; deadlines do (see `chores`).
            let deadline = tokio::time::Instant::now() + wait;
            loop {
                if let Some(app) = kept.take() {
                    held = Some(close_published(app, &pages));
                }
                // A store dropped without `close_published` (an error) is not kept open by a page.
                pages.set(None);
                let Some(mut app) = open_store(&config, held.take(), &mut shutdown).await? else {
                    return Ok(());
                };
                publish(&pages, &config, &app);
                let now = app.now_at(None, clock.now())?;
                let mut report = PassReport::default();
                let courier = start_courier(&app, sender, now)?;
                chores(&mut app, sender, courier, now, None, &mut report).await?;
                take_backup(&app, &mut backup);
                tend(&mut app, sender, &vitals, &report, now, &mut counted).await?;
                notifier.alive();
                // Looked at again soon: the outage is told once it counts (`crate::vitals`).
                let until = app
                    .store
                    .outbox()
                    .next_head_attempt()?
                    .map(|at| (at - clock.now()).to_std().unwrap_or(Duration::ZERO))
                    .unwrap_or(wait)
                    .min(
                        notifier
                            .max_wait()
                            .unwrap_or(UNSETTLED_WAKE)
                            .min(UNSETTLED_WAKE),
                    )
                    .max(Duration::from_millis(50));
                held = Some(close_published(app, &pages));
                let step = tokio::time::Instant::now() + until;
                tokio::select! {
                    _ = tokio::time::sleep_until(step.min(deadline)) => {}
                    _ = shutdown.changed() => {}
                }
                if *shutdown.borrow() {
                    return Ok(());
                }
                if tokio::time::Instant::now() >= deadline {
                    break;
                }
            }
        }
        let mut inbox = match imap.connect().await {
            Ok(i) => i,
            // A certificate, STARTTLS or the login: retrying cannot help; stop with the line.
            Err(e) if e.needs_operator() => return Err(e.into()),
            Err(e) => {
                failures += 1;
                vitals.imap_failed(clock.now(), &e.to_string());
                warn!("IMAP: {e}");
                continue;
            }
        };
        vitals.imap_ok(clock.now());
        notifier.ready();
        notifier.alive();
        info!("IMAP connected; waiting for mail");
        loop {
            let started = std::time::Instant::now();
            let opened = match kept.take() {
                Some(app) => Some(app),
                None => {
                    pages.set(None);
                    // The store was let go (to another command, after an error): what it holds
                    // as done may have changed, so this pass lists the mailbox from the start.
                    read_to = ReadTo::default();
                    open_store(&config, held.take(), &mut shutdown).await?
                }
            };
            let Some(mut app) = opened else {
                inbox.logout().await;
                return Ok(());
            };
            publish(&pages, &config, &app);
            let mut report = PassReport::default();
            let mut courier = start_courier(&app, sender, app.now_at(None, clock.now())?)?;
            let fetched = fetch_new(
                &mut app,
                &mut inbox,
                None,
                clock,
                &mut courier,
                &mut report,
                &mut read_to,
            );
            let listed_at = match fetched.await {
                Ok(t) => t,
                Err(e) => {
                    // What was handed over is done and recorded; the rest waits for the next pass.
                    let now = courier.now();
                    drain(&mut app, courier, now, &mut report).await?;
                    failures += 1;
                    vitals.imap_failed(clock.now(), &e.to_string());
                    warn!("{e}; reconnecting");
                    break;
                }
            };
            failures = 0;
            vitals.imap_ok(clock.now());
            // XFCC calls, once the mailbox is read: a mail postmarked earlier decides before
            // them, and the deadlines they fire are judged with the mailbox listed (TO §14).
            if let Some(calls) = &mut xfcc {
                answer_xfcc(&mut app, calls, clock)?;
            }
            take_backup(&app, &mut backup);
            let now = app.now_at(None, clock.now())?;
            let tick_to = Some(now.min(listed_at));
            chores(&mut app, sender, courier, now, tick_to, &mut report).await?;
            tend(&mut app, sender, &vitals, &report, now, &mut counted).await?;
            notifier.alive();
            log_pass(started, &report);
            // The store stays open while waiting; the games read stay only up to a bound.
            app.rest_if_full();
            // Sleep until mail arrives, the next deadline, the next outbox retry, or idle_max.
            let mut wake = idle_max;
            if let Some(at) = next_wake(&app)? {
                let until = (at - clock.now()).to_std().unwrap_or(Duration::ZERO);
                wake = wake.min(until.max(Duration::from_millis(50)));
            }
            if vitals.unsettled() {
                wake = wake.min(UNSETTLED_WAKE);
            }
            // An outage is told the moment it counts, not at the next look.
            if let Some(at) = vitals.next_alarm_at() {
                let until = (at - clock.now()).to_std().unwrap_or(Duration::ZERO);
                wake = wake.min(until.max(Duration::from_millis(50)));
            }
            if let Some(w) = notifier.max_wait() {
                wake = wake.min(w);
            }
            // Wait with the store open; a command that asks for it ends the wait.
            let (mut woken, watcher) =
                watch_requests(&shutdown, &config.relay.data_dir, xfcc_wake.clone());
            let waited = inbox.wait(wake, &mut woken).await;
            watcher.abort();
            match waited {
                Ok((i, Woke::Shutdown)) if *shutdown.borrow() => {
                    i.logout().await;
                    return Ok(());
                }
                Ok((i, Woke::Shutdown)) if requested(&config.relay.data_dir) => {
                    info!("another fernzug command asks for the store: let go until it is done");
                    held = Some(close_published(app, &pages));
                    inbox = i;
                }
                // New mail, the wait's end, or an XFCC call (answered at the top of the next
                // pass): the store stays open.
                Ok((i, _)) => {
                    kept = Some(app);
                    inbox = i;
                }
                Err(e) => {
                    held = Some(close_published(app, &pages));
                    failures += 1;
                    vitals.imap_failed(clock.now(), &e.to_string());
                    warn!("IMAP: {e}; reconnecting");
                    break;
                }
            }
        }
    }
    Ok(())
}

/// Starts the HTTP listeners of `[xfcc] listen` and `[http] listen` — one server when both name
/// the same address (`crate::http`) — and returns the loop's side of XFCC's channel.
async fn listen(
    config: &Config,
    vitals: &crate::vitals::Vitals,
    store: &crate::pages::StoreSlot,
    shutdown: watch::Receiver<bool>,
) -> Result<Option<crate::xfcc::server::Calls>, AppError> {
    use crate::http::Service;
    use std::sync::Arc;
    let mut servers: Vec<(std::net::SocketAddr, Vec<Arc<dyn Service>>)> = Vec::new();
    let mut calls = None;
    if let Some(x) = &config.xfcc {
        let (door, c) = crate::xfcc::server::door(crate::xfcc::wsdl::wsdl(&x.url));
        calls = Some(c);
        servers.push((x.listen, vec![Arc::new(door)]));
    }
    if let Some(h) = &config.http {
        let ops: Arc<dyn Service> = Arc::new(crate::vitals::Ops {
            vitals: vitals.clone(),
        });
        let pages = crate::pages::Pages::new(
            store.clone(),
            crate::pages::PagesConfig {
                relay_name: config.relay.name.clone(),
                tz: config.relay.time_zone,
                default_lang: config.relay.language,
                delay_moves: h.delay_moves,
                templates_dir: config.relay.templates_dir.clone(),
            },
        )
        .map_err(AppError::Listen)?;
        let pages: Arc<dyn Service> = Arc::new(pages);
        match servers.iter_mut().find(|(a, _)| *a == h.listen) {
            Some((_, services)) => services.extend([ops, pages]),
            None => servers.push((h.listen, vec![ops, pages])),
        }
    }
    for (addr, services) in servers {
        let paths: Vec<&str> = services.iter().map(|s| s.paths()).collect();
        let paths = paths.join(", ");
        let bound = crate::http::serve(addr, services, shutdown.clone())
            .await
            .map_err(|e| AppError::Listen(format!("cannot listen on {addr} ({paths}): {e}")))?;
        info!("HTTP: serving {paths} on http://{bound}");
        if let Some(x) = config.xfcc.as_ref().filter(|x| x.listen == addr) {
            info!(
                "XFCC: serving XfccBasic on http://{bound}/xfccbasic.asmx (players are told {})",
                x.url
            );
        }
    }
    Ok(calls)
}

/// Lends the open store to the tournament pages, when `[http]` serves them.
fn publish(pages: &crate::pages::StoreSlot, config: &Config, app: &App) {
    if config.http.is_some() {
        pages.set(Some(app.store.clone()));
    }
}

/// Takes the store out of the pages' slot, then closes it: another fernzug command may open it.
fn close_published(app: App, pages: &crate::pages::StoreSlot) -> crate::app::Held {
    pages.set(None);
    app.close()
}

/// How long the loop waits at most while something fails or waits (`Vitals::unsettled`): an
/// outage is told within this of counting, and its end too.
const UNSETTLED_WAKE: Duration = Duration::from_secs(30);
/// How often the games are counted by state for `/metrics` at most (one read of every game).
const GAMES_EVERY: Duration = Duration::from_secs(60);

/// After each pass: what it did and what the store holds go to the vitals (`/healthz`,
/// `/metrics`), and each outage that began to count or ended is told to `[relay] operator` by
/// an `alert`, sent at once (`crate::vitals`).
async fn tend<S>(
    app: &mut App,
    sender: &S,
    vitals: &crate::vitals::Vitals,
    report: &PassReport,
    now: DateTime<Utc>,
    counted: &mut Option<std::time::Instant>,
) -> Result<(), AppError>
where
    S: Outgoing + Clone + Send + Sync + 'static,
{
    vitals.count(report.processed as u64, report.sent as u64);
    let mut back = false;
    match &report.smtp {
        Some(Ok(())) => back = vitals.smtp_ok(now),
        Some(Err(e)) => vitals.smtp_failed(now, e),
        None => {}
    }
    if back {
        // SMTP works again: what waited for it goes now, not at each mail's next retry.
        let n = app.store.outbox().due_now(now)?;
        info!("SMTP works again: {n} mails waiting for a retry go now");
    }
    let f = app.store.figures()?;
    vitals.figures(crate::vitals::Figures {
        outbox: f.outbox,
        oldest: f.oldest,
        quarantine: f.quarantine,
    });
    if counted.is_none_or(|at| at.elapsed() >= GAMES_EVERY) {
        *counted = Some(std::time::Instant::now());
        vitals.games(app.store.games_by_state()?.into_iter().collect());
    }
    let alarms = vitals.alarms(now);
    if alarms.is_empty() && !back {
        return Ok(());
    }
    let Some(operator) = app.config.relay.operator.clone() else {
        for a in &alarms {
            warn!("{a:?} (no [relay] operator to tell)");
        }
        return Ok(());
    };
    for a in alarms {
        let alert = match a {
            crate::vitals::Alarm::Raised {
                concern,
                since,
                detail,
            } => crate::core::OperatorAlert {
                operator: operator.clone(),
                concern: concern.name().into(),
                since,
                until: None,
                detail,
            },
            crate::vitals::Alarm::Cleared {
                concern,
                since,
                until,
            } => crate::core::OperatorAlert {
                operator: operator.clone(),
                concern: concern.name().into(),
                since,
                until: Some(until),
                detail: String::new(),
            },
        };
        for line in app.alert(&alert, now)? {
            warn!("{line}");
        }
    }
    // Sent at once (an SMTP outage's alert waits in the outbox until SMTP works again).
    let mut sent = PassReport::default();
    let courier = start_courier(app, sender, now)?;
    finish(app, courier, now, &mut sent).await?;
    vitals.count(0, sent.sent as u64);
    Ok(())
}

/// How often the waiting daemon looks whether a command asks for the store.
const REQUEST_POLL: Duration = Duration::from_millis(200);
/// A request older than this is left over from a command that died: ignored.
const REQUEST_STALE: Duration = Duration::from_secs(60);

/// Whether a fresh request for the store is there (`crate::app::store_request`).
fn requested(data_dir: &std::path::Path) -> bool {
    std::fs::metadata(crate::app::store_request(data_dir))
        .and_then(|m| m.modified())
        .is_ok_and(|at| at.elapsed().unwrap_or(Duration::ZERO) < REQUEST_STALE)
}

/// A signal that turns `true` on shutdown or when a command asks for the store, and the task
/// that watches for the request (abort it after the wait).
fn watch_requests(
    shutdown: &watch::Receiver<bool>,
    data_dir: &std::path::Path,
    xfcc: Option<std::sync::Arc<tokio::sync::Notify>>,
) -> (watch::Receiver<bool>, tokio::task::JoinHandle<()>) {
    let (tx, rx) = watch::channel(*shutdown.borrow());
    let mut shutdown = shutdown.clone();
    let dir = data_dir.to_path_buf();
    let task = tokio::spawn(async move {
        let called = async {
            match &xfcc {
                Some(n) => n.notified().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(called);
        loop {
            if *shutdown.borrow() || requested(&dir) || crate::app::backup::requested(&dir) {
                let _ = tx.send(true);
                return;
            }
            tokio::select! {
                _ = tokio::time::sleep(REQUEST_POLL) => {}
                // An XFCC call waits for the loop: end the wait (docs/xfcc.md).
                _ = &mut called => {
                    let _ = tx.send(true);
                    return;
                }
                r = shutdown.changed() => {
                    if r.is_err() {
                        return;
                    }
                }
            }
        }
    });
    (rx, task)
}

/// Opens the store for a pass. While another fernzug command holds it or asks for it (an export
/// to a slow pipe, say), the daemon waits and tries again instead of giving up; `None` on
/// shutdown.
async fn open_store(
    config: &Config,
    mut held: Option<crate::app::Held>,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<Option<App>, AppError> {
    let mut warned = false;
    loop {
        let why = if requested(&config.relay.data_dir) {
            "another fernzug command asks for the store; waiting for it".to_string()
        } else {
            match App::reopen(config.clone(), held.take()) {
                Ok(app) => return Ok(Some(app)),
                Err(AppError::Store(e)) if e.is_locked() => {
                    format!("{e}; the store is held by another fernzug command, trying again")
                }
                Err(e) => return Err(e),
            }
        };
        if !warned {
            info!("{why}");
            warned = true;
        }
        tokio::select! {
            _ = tokio::time::sleep(REQUEST_POLL) => {}
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            return Ok(None);
        }
    }
}

/// Answers every XFCC call waiting (docs/xfcc.md): a login is checked against the store, a
/// move processed as the letter it stands for, durable before it is answered (its forward and
/// receipt leave with the pass's outbox). Only a failure of the store is an error; the call then
/// gets `ServerError`. Called after the mailbox was read: while IMAP is away, calls wait (and
/// get `ServerError` after a minute), since no deadline can be judged then.
fn answer_xfcc(
    app: &mut App,
    calls: &mut crate::xfcc::server::Calls,
    clock: &impl Clock,
) -> Result<(), AppError> {
    use crate::xfcc::server::Answer;
    use crate::xfcc::soap::Call;
    while let Ok(job) = calls.jobs.try_recv() {
        let now = app.now_at(None, clock.now())?;
        let (username, password) = match &job.call {
            Call::GetMyGames { username, password } => (username, password),
            Call::MakeAMove(m) => (&m.username, &m.password),
        };
        let done = match app.xfcc_check_login(username, password) {
            Ok(None) => {
                // At most 100 characters of what the client wrote, so the log stays readable.
                let shown: String = username.chars().take(100).collect();
                warn!("XFCC: failed login of {shown:?} from {}", job.client);
                Ok(Answer::Denied)
            }
            Ok(Some(email)) => match &job.call {
                Call::GetMyGames { .. } => app.xfcc_games(&email, now).map(Answer::Games),
                Call::MakeAMove(m) => app.xfcc_move(&email, m, job.client, now).map(Answer::Moved),
            },
            Err(e) => Err(e),
        };
        match done {
            Ok(answer) => {
                let _ = job.reply.send(answer);
            }
            Err(e) => {
                let _ = job.reply.send(Answer::Failed);
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Takes a backup asked for by `fernzug backup` (`crate::app::backup`), unless one is still
/// being written: it is written on a thread of its own through a clone of the store, while the
/// loop goes on.
fn take_backup(app: &App, slot: &mut Option<std::thread::JoinHandle<()>>) {
    if slot.as_ref().is_some_and(|h| !h.is_finished()) {
        return;
    }
    *slot = crate::app::backup::take(&app.store, &app.config.relay.data_dir);
}

/// The next moment something is due: a deadline of the core or an outbox head's retry.
fn next_wake(app: &App) -> Result<Option<DateTime<Utc>>, AppError> {
    Ok([
        app.next_deadline()?,
        app.store.outbox().next_head_attempt()?,
    ]
    .into_iter()
    .flatten()
    .min())
}
