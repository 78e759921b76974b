//! Reading the mailbox in a pass ([`fetch_new`]): list what came since the last complete pass,
//! sort out what is done or was died in, fetch the rest in chunks in a pipeline of two beside the
//! reading and deciding, make each group durable with one fsync, flag it on the server and hand
//! its mails to the courier.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use tracing::{info, warn};

use super::courier::Courier;
use super::deliver::{apply, hand_fresh};
use super::report::PassReport;
use super::seam::{Clock, Mailbox};
use crate::app::{App, AppError, Processed};
use crate::crash;
use crate::imap::Listed;

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
pub(super) async fn fetch_new(
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
    // A mail whose step the process died in (the step record, `Store::interrupted_step`) has
    // that death counted against it, durably, before anything else is read.
    app.count_interrupted_step()?;
    let given = (now, uidvalidity, max);
    let todo = sort_out(app, inbox, listed, given, listed_at, report, &mut unflagged).await?;
    let chunks = chunks_of(&todo, max);
    let mut to_flag = pipeline(app, inbox, &chunks, given, courier, report, &mut unflagged).await?;
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

/// The mails of `listed` still to read, in order. One done already is left out (and noted in
/// `unflagged` if it lacks its flag: it was done before a crash between commit and flag); one
/// the relay died in [`POISON_AFTER`] times is quarantined unread.
async fn sort_out(
    app: &mut App,
    inbox: &mut impl Mailbox,
    listed: Vec<Listed>,
    (now, uidvalidity, max): (Option<DateTime<Utc>>, u32, u64),
    listed_at: DateTime<Utc>,
    report: &mut PassReport,
    unflagged: &mut Vec<u32>,
) -> Result<Vec<Listed>, AppError> {
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
    Ok(todo)
}

/// `todo` in chunks of at most [`FETCH_CHUNK`] mails and [`FETCH_BYTES`] (at least one mail
/// each), a mail over `max` bytes counted as `max` (only its header is fetched).
fn chunks_of(todo: &[Listed], max: u64) -> Vec<&[Listed]> {
    let mut chunks: Vec<&[Listed]> = Vec::new();
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
    chunks
}

/// Reads, decides and stores the mails of `chunks`, in a pipeline of two: while the relay reads
/// and decides one chunk, the server sends the next one and takes the `\Seen` flags of the last
/// group made durable, so that the IMAP round trips overlap the relay's own work instead of
/// adding to it. After each [`GROUP`] of mails, one fsync makes them durable and their mails go
/// to the `courier` ([`hand_over`]). Returns the mails made durable and not yet flagged; those
/// not yet durable are left in `unflagged`.
async fn pipeline(
    app: &mut App,
    inbox: &mut impl Mailbox,
    chunks: &[&[Listed]],
    given: (Option<DateTime<Utc>>, u32, u64),
    courier: &mut Courier,
    report: &mut PassReport,
    unflagged: &mut Vec<u32>,
) -> Result<Vec<u32>, AppError> {
    let max = given.2;
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
            async { process_chunk(app, (chunk, &mut fetched), given, report, unflagged) }
        );
        done?;
        fetched = next?;
        in_group += chunk.len();
        if in_group >= GROUP {
            in_group = 0;
            durable(app)?;
            // Durable now: flagged while the next chunk is decided.
            to_flag.append(unflagged);
            hand_over(app, courier, report).await?;
        }
    }
    Ok(to_flag)
}

/// Hands the mails made durable to the `courier`, lets it take them and applies what it has
/// done meanwhile.
async fn hand_over(
    app: &mut App,
    courier: &mut Courier,
    report: &mut PassReport,
) -> Result<(), AppError> {
    hand_fresh(app, courier);
    // Let the courier take them (it runs beside this task; on a runtime of one
    // thread only when this task yields).
    tokio::task::yield_now().await;
    let done = courier.finished();
    apply(app, done, courier.now(), report)
}

/// A message the relay died in the step of this many times is quarantined unread (the app's
/// step record counts them, `crate::app::POISON_AFTER`).
pub use crate::app::POISON_AFTER;

/// How many mails at most share one fsync (group commit).
pub const GROUP: usize = 64;
/// How many whole mails one IMAP command fetches at most.
pub const FETCH_CHUNK: usize = 16;
/// How many bytes of mail one IMAP command fetches at most (unless one mail is larger).
pub const FETCH_BYTES: u64 = 8 * 1024 * 1024;

/// Fetches a chunk's mails: the whole ones in one round trip, the header alone of each over
/// `max` bytes (`[limits] max_mail_bytes`).
async fn fetch_chunk(
    inbox: &mut impl Mailbox,
    chunk: &[Listed],
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

/// Reads, decides and stores (without waiting for the disk) each mail of `chunk`, in the order
/// of their postmarks, taking it from `fetched`; counts it in `report` and notes it in
/// `unflagged`.
fn process_chunk(
    app: &mut App,
    (chunk, fetched): (&[Listed], &mut HashMap<u32, crate::imap::Fetched>),
    (now, uidvalidity, max): (Option<DateTime<Utc>>, u32, u64),
    report: &mut PassReport,
    unflagged: &mut Vec<u32>,
) -> Result<(), AppError> {
    // In the order of their postmarks (TO §14), then of their UIDs: a server whose UIDs do not
    // follow the arrival (Courier-IMAP numbers what came while nobody looked in the order of its
    // folder) does not put a later move before an earlier one fetched with it.
    let mut in_order: Vec<&Listed> = chunk.iter().collect();
    in_order.sort_by_key(|l| (fetched.get(&l.uid).map(|f| f.internal_date), l.uid));
    for l in in_order {
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
