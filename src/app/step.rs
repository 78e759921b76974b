//! The step of one input in the shell (`App::process`, `App::tick`): the deadlines due before
//! a mail fired first, the mail read, what it needs brought in (`working/`), the core asked,
//! what it decided staged and committed in one transaction with the mail marked done — under
//! one guard, so that a mail that breaks any of it is quarantined with its reason and the
//! relay goes on.

use chrono::{DateTime, Utc};

use super::*;

/// A message the relay died in the step of this many times is quarantined unread, not begun
/// again (docs/security.md, "No mail stops the relay"; the daemon's reading of the mailbox
/// looks at the count the step record keeps).
pub const POISON_AFTER: u32 = 2;

/// One mail as it arrives at [`process_mail`].
pub(super) struct Arrival<'r> {
    /// The mail's bytes (only its header for one too large to fetch).
    pub(super) raw: &'r [u8],
    /// When the relay received it (IMAP INTERNALDATE, or `--now`).
    pub(super) postmark: DateTime<Utc>,
    /// Its UIDVALIDITY and UID in the mailbox; `None` for a call (XFCC).
    pub(super) uid: Option<(u32, u32)>,
    /// Its size, when only its header was fetched.
    pub(super) oversized: Option<u64>,
    /// What a call (XFCC's `MakeAMove`) says, instead of what the reader would find.
    pub(super) call: Option<crate::letter::Content>,
    /// A mail taken back out of quarantine (`fernzug quarantine retry`).
    pub(super) again: Option<Again<'r>>,
}

/// A mail taken back out of quarantine for the step of a fetched mail once more (`fernzug
/// quarantine retry`, `quarantine.rs`): its entry leaves the quarantine in the transaction of
/// that step — or, should it fail again, is replaced under the same key with the new reason.
pub(super) struct Again<'e> {
    pub(super) entry: &'e QuarantineEntry,
    /// Its quarantine marked its Message-ID processed (a failure of the core or of rendering
    /// does, `quarantine_into`): that mark does not make the mail a duplicate of itself.
    pub(super) own_mark: bool,
}

/// [`App::process`] and its kin, each under one guard: a panic anywhere in the mail's step —
/// reading, bringing in its games, deciding, rendering, registering — undoes the step (the
/// state is read back from the store, which the step did not change) and quarantines the
/// mail with the reason. No mail stops the relay (docs/security.md).
pub(super) fn process_mail(app: &mut App, arrival: Arrival<'_>) -> Result<Processed, AppError> {
    let Arrival {
        raw, postmark, uid, ..
    } = arrival;
    // Should the process die in this step (an abort, a kill), the next one learns which
    // message it was (`crate::store::step`).
    if let Some((v, u)) = uid {
        app.store.step().begins(v, u)?;
    }
    let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        crate::crash::point_for(crate::crash::IN_STEP, raw);
        step_mail(app, arrival)
    }));
    let done = match step {
        Ok(done) => done,
        Err(panic) => {
            let reason = format!("failure while processing: {}", panic_text(&panic));
            app.reload()?;
            let mut batch = Batch::default();
            quarantine_into(&mut batch, raw, None, postmark, uid, &reason);
            super::stage::commit(app, batch)?;
            Ok(Processed::Quarantined(reason))
        }
    };
    if uid.is_some() {
        app.store.step().ends()?;
    }
    done
}

/// The step of one mail inside its guard ([`process_mail`]).
fn step_mail(app: &mut App, arrival: Arrival<'_>) -> Result<Processed, AppError> {
    let Arrival {
        raw,
        postmark,
        uid,
        oversized,
        call,
        again,
    } = arrival;
    let limits = Limits {
        max_text_bytes: app.config.limits.max_mail_bytes as usize,
        ..Limits::default()
    };
    // The reader stands on mail-parser: should either of them panic on some mail, that mail
    // is quarantined like any unreadable one instead of stopping the daemon on it again and
    // again.
    let read = match std::panic::catch_unwind(|| letter::read_letter_with(raw, &limits)) {
        Ok(read) => read.map_err(|e| e.to_string()),
        Err(panic) => Err(format!("reader failure: {}", panic_text(&panic))),
    };
    let mut letter: Letter = match read {
        Ok(l) => l,
        Err(e) => {
            let reason = format!("unreadable mail: {e}");
            let mut batch = Batch::default();
            quarantine_into(&mut batch, raw, None, postmark, uid, &reason);
            super::stage::commit(app, batch)?;
            return Ok(Processed::Quarantined(reason));
        }
    };
    letter.trace.oversized = oversized;
    if let Some(content) = call {
        letter.content = content;
        // A call of a client logged in to the relay (XFCC): a refusal it shows itself, and
        // the login vouches for its sender.
        letter.trace.direct = true;
        letter.trace.relay_login = true;
    }
    let itself = again
        .as_ref()
        .is_some_and(|a| a.own_mark && a.entry.message_id.as_ref() == Some(&letter.message_id));
    if !itself && app.store.is_processed(&letter.message_id)? {
        let mut batch = Batch::default();
        if let Some((v, u)) = uid {
            batch.uid_done(v, u);
        }
        // Taken out of quarantine: another copy of it was processed.
        if let Some(a) = &again {
            batch.unquarantine(a.entry);
        }
        if uid.is_some() || again.is_some() {
            super::stage::commit(app, batch)?;
        }
        return Ok(Processed::Duplicate);
    }
    // Time never runs backwards: a mail seen late counts at the latest time acted on.
    let now = match app.state.meta.acted_until {
        Some(a) if a > postmark => a,
        _ => postmark,
    };
    // No copy of the state is taken (it grows with the store): when a step fails, the state
    // is read back from the store, which the failed step did not change.
    // What time alone made happen is not the mail's fault: its failure is an error. The core
    // is asked only when its index says something is due by then (nothing else would fire).
    let due = app
        .working
        .due
        .earliest(&app.store, &app.state, &app.settings)?
        .is_some_and(|at| at <= now);
    let mut batch = Batch::default();
    let tick_out = if due {
        fire_before_mail(app, &mut batch, now)?
    } else {
        Output::default()
    };
    // Out of quarantine with this step (a new quarantine of it, below, puts it back under the
    // same key).
    if let Some(a) = &again {
        batch.unquarantine(a.entry);
    }
    app.records().with_original(&mut letter);
    let input = crate::core::needs::Input::Letter(&letter, now);
    if let Err(e) = app.working.satisfy(&mut app.state, &app.store, input) {
        app.reload()?;
        return Err(e);
    }
    // A tournament file by mail is registered in parts, as `tournament add` does it.
    if let Some(enrolment) = letter.content.register.clone() {
        let at = (postmark, now);
        return app.process_registration(&letter, raw, at, uid, batch, tick_out.log, &enrolment);
    }
    // A fresh random reply key for each of the director's questions (TO §23) the letter
    // carries, and for the players of a game registered before the keys of replies to
    // decisions should the letter decide about it.
    app.state.spare_keys = fresh_keys(crate::core::keys_needed(&letter) + SPARE_KEYS);
    let decided = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        app.state.handle_mail(&letter, raw, now, &app.settings)
    }));
    let failure = match decided {
        Err(panic) => Err(format!("core failure: {}", panic_text(&panic))),
        Ok(out) => {
            let mut letter_batch = Batch::default();
            let staged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::crash::point_for(crate::crash::IN_STAGE, raw);
                super::stage::stage(app, &mut letter_batch, &out, now)
            }));
            match staged {
                Err(panic) => Err(format!("rendering failure: {}", panic_text(&panic))),
                Ok(Err(e)) => Err(format!("cannot render the answer: {e}")),
                Ok(Ok(())) => Ok((out, letter_batch)),
            }
        }
    };
    let (out, letter_batch) = match failure {
        Ok(done) => done,
        Err(reason) => {
            // Nothing the letter did stays; the deadlines up to now do (fired again on the
            // state as it was: the same deadlines, the same decisions).
            app.reload()?;
            batch = Batch::default();
            if due {
                fire_before_mail(app, &mut batch, now)?;
            }
            quarantine_into(
                &mut batch,
                raw,
                Some(&letter.message_id),
                postmark,
                uid,
                &reason,
            );
            if let Err(e) = super::stage::commit(app, batch) {
                app.reload()?;
                return Err(e.into());
            }
            return Ok(Processed::Quarantined(reason));
        }
    };
    batch.append(letter_batch);
    letter_done(&mut batch, (&letter, raw), (postmark, now), uid, &out);
    if let Err(e) = super::stage::commit(app, batch) {
        app.reload()?;
        return Err(e.into());
    }
    let mut refused = out.refused.clone();
    refused.extend(xfcc::refusals_to(&out, &letter.from));
    let mut log = tick_out.log;
    log.extend(out.log);
    match out.quarantine {
        Some(reason) => {
            for line in log {
                tracing::info!("{line}");
            }
            Ok(Processed::Quarantined(reason))
        }
        None => Ok(Processed::Done { log, refused }),
    }
}

/// The deadlines due by `now`, fired and staged into `batch` before a mail's letter. Should
/// that fail in the core or in rendering (a panic, a template that does not render), the
/// failure is logged, nothing of it is staged, and the mail goes on without it: it is not
/// the mail's fault, and the relay keeps reading its mail (the deadlines stay due and are
/// tried again at the next step). A failure of the store is returned.
pub(super) fn fire_before_mail(
    app: &mut App,
    batch: &mut Batch,
    now: DateTime<Utc>,
) -> Result<Output, AppError> {
    let fired = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let out = fire_due(app, now)?;
        super::stage::stage(app, batch, &out, now)?;
        Ok::<_, AppError>(out)
    }));
    let failure = match fired {
        Ok(Ok(out)) => return Ok(out),
        Ok(Err(e @ AppError::Render(_))) => e.to_string(),
        Ok(Err(e)) => {
            app.reload()?;
            return Err(e);
        }
        Err(panic) => panic_text(&panic),
    };
    tracing::error!(
        "the deadlines due by {now} could not be fired: {failure}; the mail is read without them"
    );
    app.reload()?;
    *batch = Batch::default();
    Ok(Output::default())
}

/// Adds to `batch`: the mail kept in quarantine with `reason`, marked processed and done.
pub(super) fn quarantine_into(
    batch: &mut Batch,
    raw: &[u8],
    message_id: Option<&str>,
    at: DateTime<Utc>,
    uid: Option<(u32, u32)>,
    reason: &str,
) {
    let (uidvalidity, uid_n) = uid.unwrap_or((0, 0));
    let message_id = message_id
        .map(str::to_string)
        .unwrap_or_else(|| crate::letter::digest::sha256_name(raw));
    batch.quarantine(&QuarantineEntry {
        at,
        uidvalidity,
        uid: uid_n,
        message_id: Some(message_id.clone()),
        reason: reason.to_string(),
        raw: raw.to_vec(),
    });
    batch.processed(&message_id, at);
    if let Some((v, u)) = uid {
        batch.uid_done(v, u);
    }
}

/// The core's decisions on every deadline due by `now`, with the tournaments they concern in
/// memory; the index of deadlines looks at all of them again, whatever the core says it
/// touched. Nothing is written: the caller stages the output.
pub(super) fn fire_due(app: &mut App, now: DateTime<Utc>) -> Result<Output, AppError> {
    let woken = app
        .working
        .wake_due(&mut app.state, &app.store, (now, &app.settings))?;
    // A forfeit of a game registered before the keys of replies to decisions gives its
    // players theirs (`crate::core::door::reply::decided`).
    app.state.spare_keys = fresh_keys(SPARE_KEYS);
    let out = app.state.tick(now, &app.settings);
    app.working
        .due
        .refresh(&app.state, &app.settings, woken.iter());
    Ok(out)
}

/// Adds to `batch` what becomes of the letter `raw` the core decided `out` on: its IMAP message
/// marked done; the letter spent and archived under the games it concerns — or, screened out
/// (e.g. no DMARC pass), kept in quarantine with its Message-ID not spent, so an authentic copy
/// arriving later is still read; or neither, a letter refused at once that changed nothing (its
/// client was told, `process_call`).
pub(super) fn letter_done(
    batch: &mut Batch,
    (letter, raw): (&Letter, &[u8]),
    (postmark, now): (DateTime<Utc>, DateTime<Utc>),
    uid: Option<(u32, u32)>,
    out: &Output,
) {
    if let Some((v, u)) = uid {
        batch.uid_done(v, u);
    }
    if let Some(reason) = &out.quarantine {
        batch.quarantine(&QuarantineEntry {
            at: postmark,
            uidvalidity: uid.map(|(v, _)| v).unwrap_or(0),
            uid: uid.map(|(_, u)| u).unwrap_or(0),
            message_id: Some(letter.message_id.clone()),
            reason: reason.clone(),
            raw: raw.to_vec(),
        });
    } else if out.refused.is_empty() || !out.events.is_empty() || !out.mails.is_empty() {
        batch.processed(&letter.message_id, now);
        batch.archive(&ArchiveEntry {
            direction: Direction::In,
            at: postmark,
            games: out.letter_games.iter().map(|g| g.to_string()).collect(),
            message_id: letter.message_id.clone(),
            raw: raw.to_vec(),
        });
    }
}

/// The message of a panic payload.
pub(super) fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}
