//! The outbox: one entry per mail and envelope recipient, kept until the SMTP server accepted it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Store;
use super::batch::Batch;
use super::error::StoreError;
use super::raw_bytes;
use super::schema::{Tree, show_key, table};

/// One mail to one envelope recipient waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboxEntry {
    /// The mail's Message-ID + `|` + envelope recipient: stable, the outbox key.
    pub id: String,
    /// The Message-ID the rendered mail carries.
    pub message_id: String,
    /// SMTP `MAIL FROM`.
    pub envelope_from: String,
    /// SMTP `RCPT TO`: one recipient per entry, so one refused address never blocks others.
    pub recipient: String,
    /// The fully rendered RFC 5322 mail.
    #[serde(with = "raw_bytes")]
    pub raw: Vec<u8>,
    /// What kind of mail this is (caller's vocabulary).
    pub kind: String,
    /// The game the mail belongs to, if any.
    pub game: Option<String>,
    /// When the entry was enqueued.
    pub created: DateTime<Utc>,
    /// How many delivery attempts failed so far.
    pub attempts: u32,
    /// Not to be tried before this time.
    pub next_attempt: DateTime<Utc>,
    /// The last delivery error, if any.
    pub last_error: Option<String>,
    /// The order of enqueueing, allocated by the store (a counter in `Meta`) when the entry is
    /// first enqueued; 0 until then. Among entries of the same `created`, lower goes first.
    #[serde(default)]
    pub seq: u64,
}

impl OutboxEntry {
    /// The outbox key for a mail and one envelope recipient: `message_id|recipient`.
    pub fn make_id(message_id: &str, recipient: &str) -> String {
        format!("{message_id}|{recipient}")
    }
}

impl Store {
    /// Every outbox entry, oldest first.
    pub fn outbox_all(&self) -> Result<Vec<OutboxEntry>, StoreError> {
        let mut all: Vec<OutboxEntry> = self
            .scan::<OutboxEntry>(Tree::Outbox)?
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        all.sort_by(|a, b| {
            a.created
                .cmp(&b.created)
                .then_with(|| a.seq.cmp(&b.seq))
                .then_with(|| a.id.cmp(&b.id))
        });
        Ok(all)
    }

    /// The earliest `next_attempt` among the heads of the outbox: the oldest entry of each
    /// recipient (later mails to a recipient wait for earlier ones, so they never overtake).
    pub fn next_outbox_head_attempt(&self) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut seen = std::collections::BTreeSet::new();
        Ok(self
            .outbox_all()?
            .into_iter()
            .filter(|e| seen.insert(e.recipient.clone()))
            .map(|e| e.next_attempt)
            .min())
    }

    /// The SMTP server accepted the entries `ids`: mark them sent — delete them in one durable
    /// transaction (redb's fsync), at once, so that a crash afterwards does not send them again.
    /// The daemon's courier calls it for every batch of mails the server accepted together, from
    /// a task beside the pass (redb takes one write transaction at a time; this one also makes
    /// durable what the pass applied before it, which is never wrong: only acknowledging a mail
    /// before it is durable would be). Deleting an absent entry is not an error. Not counted as
    /// a transaction ([`Store::generation`]): what a process keeps while the store is closed
    /// (the state, the index of deadlines) does not change by it.
    pub fn outbox_sent<S: AsRef<str>>(&self, ids: &[S]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let delete = || -> Result<(), redb::Error> {
            let tx = self.db.db.begin_write()?;
            {
                let mut outbox = tx.open_table(table(Tree::Outbox))?;
                for id in ids {
                    outbox.remove(id.as_ref().as_bytes())?;
                }
            }
            tx.commit()?;
            Ok(())
        };
        delete().map_err(self.db_err(format!("deleting sent entries from {}", Tree::Outbox)))
    }

    /// One outbox entry, if it is (still) queued.
    pub fn outbox_entry(&self, id: &str) -> Result<Option<OutboxEntry>, StoreError> {
        self.get(Tree::Outbox, id.as_bytes())
    }

    /// Watch (`true`) or stop watching the outbox entries enqueued from now on by this handle:
    /// while watched, [`Store::take_enqueued`] says which were enqueued since it was last asked
    /// (the daemon hands them to SMTP as soon as they are durable).
    pub fn watch_enqueued(&self, on: bool) {
        *self.enqueued.lock().unwrap_or_else(|p| p.into_inner()) = on.then(Vec::new);
    }

    /// The ids of the outbox entries enqueued (applied, not necessarily synced) since the last
    /// call, in the order of their transactions; empty when not watched.
    pub fn take_enqueued(&self) -> Vec<String> {
        self.enqueued
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// A delivery attempt of entry `id` failed with `error`: count it and schedule the
    /// next attempt.
    pub fn outbox_retry(
        &self,
        id: &str,
        next_attempt: DateTime<Utc>,
        error: &str,
    ) -> Result<(), StoreError> {
        let Some(mut entry) = self.get::<OutboxEntry>(Tree::Outbox, id.as_bytes())? else {
            return Err(StoreError::Missing {
                path: self.path.clone(),
                tree: Tree::Outbox,
                key: show_key(id.as_bytes()),
            });
        };
        entry.attempts = entry.attempts.saturating_add(1);
        entry.next_attempt = next_attempt;
        entry.last_error = Some(error.to_string());
        let mut batch = Batch::new();
        batch.enqueue(&entry);
        self.commit(batch)
    }

    /// Every entry waiting for a later attempt is due at `now` (the SMTP server works again after
    /// an outage: what waited for it goes at once, not at each one's backoff). One transaction.
    pub fn outbox_due_now(&self, now: DateTime<Utc>) -> Result<usize, StoreError> {
        let mut batch = Batch::new();
        let mut n = 0;
        for (_, mut entry) in self.scan::<OutboxEntry>(Tree::Outbox)? {
            if entry.next_attempt > now {
                entry.next_attempt = now;
                batch.enqueue(&entry);
                n += 1;
            }
        }
        if n > 0 {
            self.commit(batch)?;
        }
        Ok(n)
    }
}
