//! Staging what the core decided (`stage`): the changed records, the events, every mail
//! rendered (with what it encloses and the XFCC login it shows) into the outbox and the
//! archive, the counters and the index of deadlines — all into the step's one transaction
//! (`settle` commits it; `commit` applies it alone or for the group's sync).

use chrono::{DateTime, Utc};

use super::*;

/// Stages `out` into `batch` ([`App::stage`]) and commits it durably; on any failure the
/// state is read back from the store (which the step did not change) and the error returned.
pub(super) fn settle(
    app: &mut App,
    mut batch: Batch,
    out: &Output,
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    let done = stage(app, &mut batch, out, now).and_then(|()| Ok(app.store.commit(batch)?));
    if done.is_err() {
        app.reload()?;
    }
    done
}

/// Puts what the core decided into `batch`: changed state, events, rendered mails (outbox and
/// archive), the counters (`Meta`, with the relay's clock the core moved on).
pub(super) fn stage(
    app: &mut App,
    batch: &mut Batch,
    out: &Output,
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    for id in &out.tournaments {
        if let Some(t) = app.state.tournaments.get(id) {
            batch.put_tournament(t);
        }
    }
    for g in &out.games {
        if let Some(game) = app.state.games.get(g) {
            batch.put_game(game, app.records().shelved(g));
        }
    }
    for k in &out.keys {
        if let Some(b) = app.state.keys.get(k) {
            batch.bind_key(k, &b.game.to_string(), b);
        }
    }
    for e in &out.events {
        batch.append_event(&e.game.to_string(), e.seq, &e.stored());
    }
    for mail in &out.mails {
        // What the director asked of the records (TO §11, §29), from the store.
        let filled;
        let mail = if mail.enclose.is_empty() {
            mail
        } else {
            filled = app.records().enclosed(mail)?;
            &filled
        };
        // The login is given to the address he is known by: his tournaments first.
        if let Some(to) = xfcc::login_recipient(mail, &app.config) {
            let person = crate::core::needs::Input::Person(to);
            if let Err(e) = app.working.satisfy(&mut app.state, &app.store, person) {
                tracing::warn!("XFCC login of {to}: its rotated tournaments not read: {e}");
            }
        }
        let parts = (&app.config, &app.state, &app.store);
        let login = app.xfcc_issued.login(mail, batch, parts);
        let raw = render::render_with(mail, &app.templates, &app.settings, now, login.as_ref())?;
        // The archive keeps the mail without the password (docs/xfcc.md); a mail without
        // one is stored once, the outbox naming the archived mail.
        let withheld = match &login {
            Some(l) => Some(render::render_with(
                mail,
                &app.templates,
                &app.settings,
                now,
                Some(&l.withheld()),
            )?),
            None => None,
        };
        let once = withheld.is_none();
        batch.archive(&ArchiveEntry {
            direction: Direction::Out,
            at: now,
            games: mail.game.iter().map(GameRef::to_string).collect(),
            message_id: mail.message_id.clone(),
            raw: withheld.unwrap_or_else(|| raw.clone()),
        });
        for recipient in &mail.envelope {
            let entry = OutboxEntry {
                id: OutboxEntry::make_id(&mail.message_id, recipient),
                message_id: mail.message_id.clone(),
                envelope_from: app.settings.relay_address.clone(),
                recipient: recipient.clone(),
                // Beside the entry when not archived; else only for a pass's courier,
                // which sends it as it is (a tournament's start pass holds no copies).
                raw: if !once || app.store.watching_enqueued() {
                    raw.clone()
                } else {
                    Vec::new()
                },
                kind: mail.kind.name().to_string(),
                game: mail.game.as_ref().map(GameRef::to_string),
                created: now,
                attempts: 0,
                next_attempt: now,
                last_error: None,
                seq: 0,
            };
            if once {
                batch.enqueue_archived(&entry);
            } else {
                batch.enqueue(&entry);
            }
        }
    }
    let decided = crate::core::needs::Input::Decided(out);
    app.working.satisfy(&mut app.state, &app.store, decided)?;
    batch.put_meta_state(&app.state.meta);
    app.working.due.update(&app.state, &app.settings, out);
    app.working.due.persist(batch);
    Ok(())
}

/// One step's transaction: committed (durable) at once, or applied for the group's sync.
pub(super) fn commit(app: &App, batch: Batch) -> Result<(), crate::store::StoreError> {
    if app.grouped {
        app.store.apply(batch)
    } else {
        app.store.commit(batch)
    }
}
