//! The outbox: one entry per mail and envelope recipient, kept until the SMTP server accepted it.

use chrono::{DateTime, Utc};

use super::batch::Batch;
use super::db::Db;
use super::error::StoreError;
use super::handle::Store;
use super::mails::{self, OutboxEntry, SendHold, Stored, Where};
use super::packed;
use super::schema::{SEND_HOLD_KEY, SENT_WINDOW_KEY, Tree, show_key, table};
use crate::core::unreachable::limits::SendWindow;

/// The outbox of a [`Store`] (`store.outbox()`): what waits to be sent, what was sent, what is
/// tried again.
pub struct Outbox<'a> {
    store: &'a Store,
    db: &'a Db,
}

impl Store {
    /// The outbox: one entry per mail and envelope recipient.
    pub fn outbox(&self) -> Outbox<'_> {
        Outbox {
            store: self,
            db: &self.db,
        }
    }
}

impl Outbox<'_> {
    /// Every outbox entry with its mail, oldest first.
    pub fn all(&self) -> Result<Vec<OutboxEntry>, StoreError> {
        let mut all = Vec::new();
        self.db.each_raw(Tree::Outbox, &[], |k, v| {
            let mut entry: OutboxEntry = self.db.decode(Tree::Outbox, k, v)?;
            entry.raw = self.mail(k, v)?;
            all.push(entry);
            Ok(())
        })?;
        sort(&mut all);
        Ok(all)
    }

    /// Every outbox entry without its mail (`raw` empty), oldest first: what a pass hands its
    /// courier, which reads each mail ([`Outbox::to_send`]) only when it sends it — a pass that
    /// starts a tournament of 10,000 games holds 20,000 heads, not 20,000 mails.
    pub fn heads(&self) -> Result<Vec<OutboxEntry>, StoreError> {
        let mut all: Vec<OutboxEntry> = self
            .db
            .scan::<OutboxEntry>(Tree::Outbox)?
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        sort(&mut all);
        Ok(all)
    }

    /// Outbox entry `id` and its mail, if it is (still) queued: what the courier reads when it
    /// sends it, never while a transaction is being written (the store's gate).
    pub fn to_send(&self, id: &str) -> Result<Option<(OutboxEntry, Vec<u8>)>, StoreError> {
        let _gate = self.db.gate();
        let key = id.as_bytes();
        let Some(value) = self.db.get_raw(Tree::Outbox, key)? else {
            return Ok(None);
        };
        let entry: OutboxEntry = self.db.decode(Tree::Outbox, key, &value)?;
        let raw = self.mail(key, &value)?;
        Ok(Some((entry, raw)))
    }

    /// The mail of outbox entry `id`, if it is (still) queued.
    pub fn raw(&self, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let key = id.as_bytes();
        match self.db.get_raw(Tree::Outbox, key)? {
            Some(v) => self.mail(key, &v).map(Some),
            None => Ok(None),
        }
    }

    /// The archived mails the outbox entries name as their own (waiting to be sent).
    pub(super) fn archived(&self) -> Result<std::collections::BTreeSet<u64>, StoreError> {
        let mut out = std::collections::BTreeSet::new();
        self.db.each_raw(Tree::Outbox, &[], |k, v| {
            if let Some(p) = packed::unpack(v)
                && p.body.is_empty()
                && let Some(id) = self.db.decode::<Where>(Tree::Outbox, k, p.head)?.archived
            {
                out.insert(id);
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The mail of the stored outbox entry `value`: its own (compressed), the archived one it
    /// names, or (an earlier version's entry) the one inside its JSON.
    fn mail(&self, key: &[u8], value: &[u8]) -> Result<Vec<u8>, StoreError> {
        let Some(p) = packed::unpack(value) else {
            return Ok(self.db.decode::<OutboxEntry>(Tree::Outbox, key, value)?.raw);
        };
        if !p.body.is_empty() {
            return self.db.inflate(Tree::Outbox, key, &p);
        }
        let named: Where = self.db.decode(Tree::Outbox, key, p.head)?;
        let Some(id) = named.archived else {
            return Ok(Vec::new());
        };
        match mails::archived(self.db, id)? {
            Some(entry) => Ok(entry.raw),
            None => Err(StoreError::Missing {
                path: self.db.path.clone(),
                tree: Tree::Archive,
                key: format!("{id} (the mail of outbox entry {})", show_key(key)),
            }),
        }
    }

    /// The earliest `next_attempt` among the heads of the outbox: the oldest entry of each
    /// recipient (later mails to a recipient wait for earlier ones, so they never overtake) —
    /// and not before the end of a [`SendHold`].
    pub fn next_head_attempt(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut seen = std::collections::BTreeSet::new();
        let next = self
            .heads()?
            .into_iter()
            .filter(|e| seen.insert(e.recipient.clone()))
            .map(|e| e.next_attempt)
            .min();
        Ok(match (next, self.hold()?) {
            (Some(at), Some(hold)) => Some(at.max(hold.until)),
            (next, _) => next,
        })
    }

    /// The relay's sending held, if it is ([`SendHold`]).
    pub fn hold(&self) -> Result<Option<SendHold>, StoreError> {
        self.db.get(Tree::Meta, SEND_HOLD_KEY)
    }

    /// Holds the relay's sending as `hold` says, or (`None`) lets it go; one transaction.
    pub fn set_hold(&self, hold: Option<&SendHold>) -> Result<(), StoreError> {
        let mut batch = Batch::new();
        match hold {
            Some(h) => batch.put(Tree::Meta, SEND_HOLD_KEY, h),
            None => batch.delete(Tree::Meta, SEND_HOLD_KEY),
        };
        self.store.commit(batch)
    }

    /// The SMTP server accepted the mails of the outbox entries `ids` (absent ones are
    /// skipped): they are marked sent at once — in the ledger of sent mails (`sent.rs`), made
    /// durable before this returns — and leave the outbox in a transaction that waits for no
    /// disk; the next [`Store::sync`] makes that durable too. The daemon's courier calls it for
    /// every batch of mails the server accepted together, from a task beside the pass. Not
    /// counted as a transaction ([`Store::generation`]): what a process keeps while the store is
    /// closed (the state, the index of deadlines) does not change by it.
    pub fn sent<S: AsRef<str>>(&self, ids: &[S]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        // Held until the removal is applied: a sync in between empties no mark it has not
        // taken along.
        let mut ledger = self.store.ledger();
        ledger.append(ids).map_err(|source| StoreError::Files {
            path: ledger.path(),
            what: "write to the ledger of sent mails",
            source,
        })?;
        crate::crash::point(crate::crash::AFTER_SENT_LEDGER);
        self.remove_sent(ids)
    }

    /// The mails sent in the last day, per minute (`[smtp] max_per_hour`, `max_per_day`).
    pub fn window(&self) -> Result<SendWindow, StoreError> {
        Ok(self
            .db
            .get(Tree::Meta, SENT_WINDOW_KEY)?
            .unwrap_or_default())
    }

    /// `n` mails were sent at `at`, `urgent` of them moves, receipts, queries or alerts
    /// ([`Outbox::window`]). In a transaction that waits for no disk,
    /// as the mark of the mails themselves: a crash may forget the last few, and then the host's
    /// own refusal holds the relay (`core::unreachable::verdict`).
    pub fn count_sent(&self, at: DateTime<Utc>, n: u32, urgent: u32) -> Result<(), StoreError> {
        let mut window = self.window()?;
        window.record(at, n, urgent);
        let value = serde_json::to_vec(&window).map_err(|e| StoreError::Corrupt {
            path: self.db.path.clone(),
            tree: Tree::Meta,
            key: show_key(SENT_WINDOW_KEY),
            source: e,
        })?;
        let write = || -> Result<(), redb::Error> {
            let _gate = self.db.gate();
            let mut tx = self.db.db.begin_write()?;
            tx.set_durability(redb::Durability::None)?;
            tx.open_table(table(Tree::Meta))?
                .insert(SENT_WINDOW_KEY, value.as_slice())?;
            tx.commit()?;
            self.db
                .pending
                .store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(())
        };
        write().map_err(
            self.db
                .db_err(format!("counting sent mails in {}", Tree::Meta)),
        )
    }

    /// Removes the entries `ids` from the outbox in a transaction that waits for no disk.
    pub(super) fn remove_sent<S: AsRef<str>>(&self, ids: &[S]) -> Result<(), StoreError> {
        let delete = || -> Result<(), redb::Error> {
            let _gate = self.db.gate();
            let mut tx = self.db.db.begin_write()?;
            tx.set_durability(redb::Durability::None)?;
            {
                let mut outbox = tx.open_table(table(Tree::Outbox))?;
                for id in ids {
                    outbox.remove(id.as_ref().as_bytes())?;
                }
            }
            tx.commit()?;
            self.db
                .pending
                .store(true, std::sync::atomic::Ordering::SeqCst);
            Ok(())
        };
        delete().map_err(
            self.db
                .db_err(format!("deleting sent entries from {}", Tree::Outbox)),
        )
    }

    /// One outbox entry without its mail (`raw` empty, [`Outbox::raw`]), if it is
    /// (still) queued.
    pub fn entry(&self, id: &str) -> Result<Option<OutboxEntry>, StoreError> {
        self.db.get(Tree::Outbox, id.as_bytes())
    }

    /// Watch (`true`) or stop watching the outbox entries enqueued from now on by this handle:
    /// while watched, [`Outbox::take_enqueued`] says which were enqueued since it was last asked
    /// (the daemon hands them to SMTP as soon as they are durable).
    pub fn watch_enqueued(&self, on: bool) {
        *self
            .store
            .enqueued
            .lock()
            .unwrap_or_else(|p| p.into_inner()) = on.then(Vec::new);
    }

    /// Whether the entries enqueued are watched ([`Outbox::watch_enqueued`]): a mail archived
    /// beside its entry is then worth handing to the batch too, for the watcher.
    pub fn watching_enqueued(&self) -> bool {
        self.store
            .enqueued
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// The outbox entries enqueued (applied, not necessarily synced) since the last call, in
    /// the order of their transactions, each as [`Outbox::to_send`] would read it back
    /// (its mail in `raw`); empty when not watched.
    pub fn take_enqueued(&self) -> Vec<OutboxEntry> {
        self.store
            .enqueued
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// A delivery attempt of entry `id` failed with `error`: count it and schedule the
    /// next attempt. An entry gone meanwhile (its tournament withdrawn while the attempt was
    /// under way, `Store::remove_tournament`) is not tried again: nothing changes.
    pub fn retry(
        &self,
        id: &str,
        next_attempt: DateTime<Utc>,
        error: &str,
    ) -> Result<(), StoreError> {
        self.change(id, |entry| failed_once(entry, next_attempt, error))
    }

    /// [`Outbox::retry`] for a mail whose recipient's mailbox is full: the first such refusal's
    /// time `now` is kept (`OutboxEntry::full_since`), so that the core can tell when the three
    /// days of Fax 2.3 are over.
    pub fn retry_full(
        &self,
        id: &str,
        next_attempt: DateTime<Utc>,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.change(id, |entry| {
            failed_once(entry, next_attempt, error);
            entry.full_since.get_or_insert(now);
        })
    }

    /// The head of entry `id` changed by `change`, in one transaction.
    fn change(&self, id: &str, change: impl FnOnce(&mut OutboxEntry)) -> Result<(), StoreError> {
        let key = id.as_bytes();
        let Some(value) = self.db.get_raw(Tree::Outbox, key)? else {
            return Ok(());
        };
        let mut batch = Batch::new();
        self.rewrite_head(&mut batch, key, &value, change)?;
        self.store.commit(batch)
    }

    /// Every entry waiting for a later attempt is due at `now` (the SMTP server works again after
    /// an outage: what waited for it goes at once, not at each one's backoff). One transaction.
    pub fn due_now(&self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let mut batch = Batch::new();
        let mut n = 0;
        self.db.each_raw(Tree::Outbox, &[], |k, v| {
            let entry: OutboxEntry = self.db.decode(Tree::Outbox, k, v)?;
            if entry.next_attempt > now {
                self.rewrite_head(&mut batch, k, v, |e| e.next_attempt = now)?;
                n += 1;
            }
            Ok(())
        })?;
        if n > 0 {
            self.store.commit(batch)?;
        }
        Ok(n)
    }

    /// Puts into `batch` the stored entry `value` with its head changed by `change`; its mail
    /// (its own, or the archived one it names) stays as it is.
    fn rewrite_head(
        &self,
        batch: &mut Batch,
        key: &[u8],
        value: &[u8],
        change: impl FnOnce(&mut OutboxEntry),
    ) -> Result<(), StoreError> {
        let mut entry: OutboxEntry = self.db.decode(Tree::Outbox, key, value)?;
        let (archived, body) = match packed::unpack(value) {
            Some(p) => {
                let named: Where = self.db.decode(Tree::Outbox, key, p.head)?;
                // `join` writes the current dictionary's number: a body of another is
                // compressed again.
                let body = if p.body.is_empty() || p.dictionary == packed::CURRENT {
                    p.body.to_vec()
                } else {
                    let raw = self.db.inflate(Tree::Outbox, key, &p)?;
                    packed::compress(&raw).map_err(|source| StoreError::Compress {
                        tree: Tree::Outbox,
                        key: show_key(key),
                        source,
                    })?
                };
                (named.archived, body)
            }
            // An earlier version's entry: its mail comes out of the JSON and is packed now.
            None => {
                let raw = std::mem::take(&mut entry.raw);
                let body = packed::compress(&raw).map_err(|source| StoreError::Compress {
                    tree: Tree::Outbox,
                    key: show_key(key),
                    source,
                })?;
                (None, body)
            }
        };
        change(&mut entry);
        entry.raw = Vec::new();
        let head = serde_json::to_vec(&Stored {
            entry: &entry,
            archived,
        })
        .map_err(|source| StoreError::Serialize {
            tree: Tree::Outbox,
            key: show_key(key),
            source,
        })?;
        batch.put_bytes(Tree::Outbox, key, packed::join(&head, &body));
        Ok(())
    }
}

/// Oldest first: by creation, then by the order of enqueueing, then by id.
fn sort(all: &mut [OutboxEntry]) {
    all.sort_by(|a, b| {
        a.created
            .cmp(&b.created)
            .then_with(|| a.seq.cmp(&b.seq))
            .then_with(|| a.id.cmp(&b.id))
    });
}

/// One more failed attempt of `entry`: the next at `next_attempt`, `error` kept.
fn failed_once(entry: &mut OutboxEntry, next_attempt: DateTime<Utc>, error: &str) {
    entry.attempts = entry.attempts.saturating_add(1);
    entry.next_attempt = next_attempt;
    entry.last_error = Some(error.to_string());
}
