//! Staging what the core decided (`stage`): the changed records, the events, every mail
//! rendered (with what it encloses and the XFCC login it shows) into the outbox and the
//! archive, the counters and the index of deadlines, and a tournament withdrawn removed — all
//! into the step's one transaction (`settle` commits it; `commit` applies it alone or for the
//! group's sync).

use chrono::{DateTime, Utc};

use super::*;

/// Stages `out` into `batch` ([`stage`]) and commits it durably; on any failure the
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

/// What staging needs of the store, read before it (`gather`): the mails with what they
/// enclose filled in, and whether the pass's courier watches the entries enqueued. Staging
/// itself reads no store: it only renders and persists.
struct Gathered<'o> {
    mails: Vec<std::borrow::Cow<'o, crate::core::model::Mail>>,
    watched: bool,
    /// The removal of the tournaments withdrawn (`Output::withdrawn`), as the store holds them.
    withdrawn: Batch,
}

/// Puts what the core decided into `batch`: changed state, events, rendered mails (outbox and
/// archive), the counters (`Meta`, with the relay's clock the core moved on). What it needs of
/// the store is read first ([`gather`]); then it renders and persists.
pub(super) fn stage(
    app: &mut App,
    batch: &mut Batch,
    out: &Output,
    now: DateTime<Utc>,
) -> Result<(), AppError> {
    let gathered = gather(app, out)?;
    put(app, batch, out, now, gathered)
}

/// The store's part of staging `out`: what a decision may have ended read in (`Input::Decided`:
/// a tournament's last open game), the people of the XFCC logins the mails show (the login is
/// given to the address he is known by), the passwords issued that no longer hold forgotten,
/// and what the director asked of the records (TO §11, §29) filled in.
fn gather<'o>(app: &mut App, out: &'o Output) -> Result<Gathered<'o>, AppError> {
    let decided = crate::core::needs::Input::Decided(out);
    app.working.satisfy(&mut app.state, &app.store, decided)?;
    let mut mails = Vec::with_capacity(out.mails.len());
    let mut enclosed = super::desk::Enclosed::default();
    for mail in &out.mails {
        if let Some(to) = super::passwords::login_recipient(mail, &app.config) {
            let person = crate::core::needs::Input::Person(to);
            if let Err(e) = app.working.satisfy(&mut app.state, &app.store, person) {
                tracing::warn!("XFCC login of {to}: its rotated tournaments not read: {e}");
            }
            let user = app.state.registered_as(to).unwrap_or(to).to_lowercase();
            app.xfcc_issued.keep_if_held(&user, &app.store);
        }
        mails.push(if mail.enclose.is_empty() {
            std::borrow::Cow::Borrowed(mail)
        } else {
            std::borrow::Cow::Owned(app.records().enclosed(mail, &mut enclosed)?)
        });
    }
    let watched = app.store.outbox().watching_enqueued();
    let mut withdrawn = Batch::default();
    for id in &out.withdrawn {
        app.store.remove_tournament(id, &mut withdrawn)?;
    }
    Ok(Gathered {
        mails,
        watched,
        withdrawn,
    })
}

/// Renders and persists what the core decided, with what [`gather`] read: no store read.
fn put(
    app: &mut App,
    batch: &mut Batch,
    out: &Output,
    now: DateTime<Utc>,
    gathered: Gathered<'_>,
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
    let generation = app.store.generation();
    for mail in gathered.mails.iter().map(|m| m.as_ref()) {
        let login = app
            .xfcc_issued
            .login(mail, batch, (&app.config, &app.state, generation));
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
                raw: if !once || gathered.watched {
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
                full_since: None,
            };
            if once {
                batch.enqueue_archived(&entry);
            } else {
                batch.enqueue(&entry);
            }
        }
    }
    batch.put_meta_state(&app.state.meta);
    app.working.due.update(&app.state, &app.settings, out);
    for id in &out.withdrawn {
        app.working.due.forget(id);
    }
    app.working.due.persist(batch);
    // A tournament withdrawn leaves the store last, in the same transaction.
    batch.append(gathered.withdrawn);
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
