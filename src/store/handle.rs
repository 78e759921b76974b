//! The store's handle ([`Store`]): the database shared by every clone, a transaction applied
//! ([`Store::apply`]) and made durable ([`Store::sync`], [`Store::commit`]), the store's
//! generation. Opening is `open.rs`; what the store keeps is read through the records' readers
//! (`records.rs`) and the faces of the parts (`store.outbox()`, `store.archive()`,
//! `store.due()`, `store.step()`, `store.upgrade()`).

use std::fmt;
use std::path::Path;

use chrono::{DateTime, Utc};
use redb::ReadableTable;

use super::batch::{Batch, Op};
use super::db::{Db, Tables};
use super::error::{Abort, StoreError};
use super::mails::{self, OutboxEntry};
use super::packed;
use super::schema::{
    self, ARCHIVE_NEXT_KEY, GENERATION_KEY, OUTBOX_NEXT_KEY, Part, Tree, part_key,
};
use super::sent::Ledger;
use super::step::{Step, StepRecord};

/// The database handle. Cheap to clone; all clones share one database.
#[derive(Clone)]
pub struct Store {
    pub(super) db: std::sync::Arc<Db>,
    /// The generation after this handle's last transaction (or as read at opening).
    pub(super) generation: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// While watched ([`Outbox::watch_enqueued`](super::outbox::Outbox::watch_enqueued)): the
    /// outbox entries enqueued since they were last taken, each with its mail.
    pub(super) enqueued: std::sync::Arc<std::sync::Mutex<Option<Vec<OutboxEntry>>>>,
    /// The ledger of sent mails (`sent.rs`): taken before the gate, by the marks of sent mails
    /// and by [`Store::sync`].
    pub(super) sent: std::sync::Arc<std::sync::Mutex<Ledger>>,
    /// The step record (`step.rs`): the message being decided, for the next process should this
    /// one die in its step.
    pub(super) step: std::sync::Arc<std::sync::Mutex<StepRecord>>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store")
            .field("path", &self.db.path)
            .finish()
    }
}

impl Store {
    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.db.path
    }

    /// The ledger of sent mails (a poisoned lock too: a mark is written whole or read as
    /// nothing).
    pub(super) fn ledger(&self) -> std::sync::MutexGuard<'_, Ledger> {
        self.sent.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Apply `batch` as one transaction over all trees and make it durable (fsync). On any
    /// error nothing of the batch is written.
    pub fn commit(&self, batch: Batch) -> Result<(), StoreError> {
        self.apply(batch)?;
        self.sync()
    }

    /// Apply `batch` as one transaction over all trees, without waiting for the disk: a group
    /// commit applies several batches (each atomic, each seen by every later read) and then makes
    /// them durable together with one [`Store::sync`]. Nothing may be acknowledged to anyone
    /// (IMAP, SMTP) before that `sync`: a crash loses the applied batches that were not synced,
    /// never a part of one. On any error nothing of the batch is written.
    pub fn apply(&self, batch: Batch) -> Result<(), StoreError> {
        if let Some(e) = batch.error {
            return Err(e);
        }
        let ops = batch.ops;
        let _gate = self.db.gate();
        let mut tx = self
            .db
            .db
            .begin_write()
            .map_err(self.db.db_err("the batch transaction"))?;
        tx.set_durability(redb::Durability::None)
            .map_err(self.db.db_err("the batch transaction"))?;
        // Dropped without a commit on any error: nothing of it is written.
        let mut seqs = Vec::new();
        let generation = self.write_ops(&tx, &ops, &mut seqs)?;
        tx.commit()
            .map_err(self.db.db_err("the batch transaction"))?;
        self.db
            .pending
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.generation
            .store(generation, std::sync::atomic::Ordering::SeqCst);
        if let Some(fresh) = self
            .enqueued
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            // An entry removed again before the watcher took it (a tournament withdrawn) is not
            // handed over.
            let removed: Vec<&[u8]> = ops
                .iter()
                .filter_map(|op| match op {
                    Op::Delete {
                        tree: Tree::Outbox,
                        key,
                    } => Some(key.as_slice()),
                    _ => None,
                })
                .collect();
            if !removed.is_empty() {
                fresh.retain(|e| !removed.contains(&e.id.as_bytes()));
            }
            // As the courier would read them back: the head as stored, the mail beside it.
            let enqueued = ops.into_iter().filter_map(|op| match op {
                Op::Enqueue { entry, raw, .. } => Some(OutboxEntry { raw, ..*entry }),
                _ => None,
            });
            fresh.extend(
                enqueued
                    .zip(seqs)
                    .map(|(entry, seq)| OutboxEntry { seq, ..entry }),
            );
        }
        crate::crash::point("after-commit");
        Ok(())
    }

    /// Writes `ops` in transaction `tx`; returns the store's generation after it, and puts into
    /// `seqs` the place in line each new outbox entry was given, in order.
    fn write_ops(
        &self,
        tx: &redb::WriteTransaction,
        ops: &[Op],
        seqs: &mut Vec<u64>,
    ) -> Result<u64, StoreError> {
        // Each tree opened when first written: a move's transaction touches a few of them, and
        // every open table is flushed at the commit (`create_tables` made them all).
        let mut tables = Tables::new(&self.db, tx);
        let aborted = |reason: Abort| StoreError::Aborted {
            path: self.db.path.clone(),
            reason: reason.to_string(),
        };
        let mut next_archive: Option<u64> = None;
        let mut next_outbox: Option<u64> = None;
        for op in ops {
            match op {
                Op::Put { tree, key, value } => {
                    tables
                        .get(*tree)?
                        .insert(key.as_slice(), value.as_slice())
                        .map_err(|e| self.db.write_err(*tree, e))?;
                }
                Op::Delete { tree, key } => {
                    tables
                        .get(*tree)?
                        .remove(key.as_slice())
                        .map_err(|e| self.db.write_err(*tree, e))?;
                }
                Op::Archive { value, games } => {
                    let id = match next_archive {
                        Some(id) => id,
                        None => self
                            .db
                            .read_u64(tables.get(Tree::Meta)?, ARCHIVE_NEXT_KEY)?,
                    };
                    let key = id.to_be_bytes();
                    tables
                        .get(Tree::Archive)?
                        .insert(&key[..], value.as_slice())
                        .map_err(|e| self.db.write_err(Tree::Archive, e))?;
                    let index_value = id.to_string();
                    for game in games {
                        tables
                            .get(Tree::ByGame)?
                            .insert(
                                part_key(game, Part::Archived, id).as_slice(),
                                index_value.as_bytes(),
                            )
                            .map_err(|e| self.db.write_err(Tree::ByGame, e))?;
                    }
                    next_archive = Some(id.saturating_add(1));
                }
                Op::Enqueue { entry, body, .. } => {
                    let seq = match next_outbox {
                        Some(n) => n,
                        None => self
                            .db
                            .read_u64(tables.get(Tree::Meta)?, OUTBOX_NEXT_KEY)?
                            .max(1),
                    };
                    let mut entry = (**entry).clone();
                    entry.seq = seq;
                    // Without a body of its own, the entry names the mail archived last.
                    let archived = match body {
                        Some(_) => None,
                        None => {
                            Some(next_archive.map(|n| n.saturating_sub(1)).ok_or_else(|| {
                                aborted(Abort::Counter(format!(
                                    "outbox entry {}: no mail archived before it",
                                    entry.id
                                )))
                            })?)
                        }
                    };
                    let head = serde_json::to_vec(&mails::Stored {
                        entry: &entry,
                        archived,
                    })
                    .map_err(|e| {
                        aborted(Abort::Counter(format!("outbox entry {}: {e}", entry.id)))
                    })?;
                    let value = packed::join(&head, body.as_deref().unwrap_or_default());
                    tables
                        .get(Tree::Outbox)?
                        .insert(entry.id.as_bytes(), value.as_slice())
                        .map_err(|e| self.db.write_err(Tree::Outbox, e))?;
                    next_outbox = Some(seq.saturating_add(1));
                    seqs.push(seq);
                }
                Op::Due { key, at } => {
                    let ((due, place), order) = (schema::due_place(key), Tree::DueOrder);
                    let old: Option<DateTime<Utc>> = tables
                        .get(due)?
                        .get(place.as_slice())
                        .map_err(|e| self.db.write_err(due, e))?
                        .and_then(|v| serde_json::from_slice(v.value()).ok());
                    if let Some(old) = old {
                        tables
                            .get(order)?
                            .remove(schema::due_order_key(old, key).as_slice())
                            .map_err(|e| self.db.write_err(Tree::DueOrder, e))?;
                    }
                    match at {
                        Some(at) => {
                            let value = serde_json::to_vec(at).map_err(|e| {
                                aborted(Abort::Counter(format!("due entry {key}: {e}")))
                            })?;
                            tables
                                .get(due)?
                                .insert(place.as_slice(), value.as_slice())
                                .map_err(|e| self.db.write_err(due, e))?;
                            tables
                                .get(order)?
                                .insert(schema::due_order_key(*at, key).as_slice(), &[][..])
                                .map_err(|e| self.db.write_err(Tree::DueOrder, e))?;
                        }
                        None => {
                            tables
                                .get(due)?
                                .remove(place.as_slice())
                                .map_err(|e| self.db.write_err(due, e))?;
                        }
                    }
                }
                #[cfg(test)]
                Op::Fail => return Err(aborted(Abort::Injected)),
            }
        }
        let meta = tables.get(Tree::Meta)?;
        if let Some(next) = next_outbox {
            meta.insert(OUTBOX_NEXT_KEY, next.to_string().as_bytes())
                .map_err(|e| self.db.write_err(Tree::Meta, e))?;
        }
        if let Some(next) = next_archive {
            meta.insert(ARCHIVE_NEXT_KEY, next.to_string().as_bytes())
                .map_err(|e| self.db.write_err(Tree::Meta, e))?;
        }
        let generation = self.db.read_u64(meta, GENERATION_KEY)?.saturating_add(1);
        meta.insert(GENERATION_KEY, generation.to_string().as_bytes())
            .map_err(|e| self.db.write_err(Tree::Meta, e))?;
        Ok(generation)
    }

    /// How many transactions the store has ever applied, as this handle last saw it (at opening,
    /// or after its own last transaction): a process that kept what it read while the store was
    /// closed knows by it whether another process has written since.
    pub fn generation(&self) -> u64 {
        self.generation.load(std::sync::atomic::Ordering::SeqCst)
    }

    /// Make everything applied so far ([`Store::apply`]) durable: one commit that redb writes
    /// with an fsync, which takes every transaction applied before it along.
    pub fn sync(&self) -> Result<(), StoreError> {
        if self
            .db
            .pending
            .swap(false, std::sync::atomic::Ordering::SeqCst)
        {
            // Every mark in the ledger is applied (a mark holds the ledger until it is).
            let mut ledger = self.ledger();
            let _gate = self.db.gate();
            let durable = self
                .db
                .db
                .begin_write()
                .map_err(redb::Error::from)
                .and_then(|tx| tx.commit().map_err(redb::Error::from));
            if let Err(e) = durable {
                self.db
                    .pending
                    .store(true, std::sync::atomic::Ordering::SeqCst);
                return Err(self.db.db_err("making the applied transactions durable")(e));
            }
            ledger.clear().map_err(|source| StoreError::Files {
                path: ledger.path(),
                what: "empty the ledger of sent mails",
                source,
            })?;
        }
        crate::crash::point("after-fsync");
        Ok(())
    }

    /// The step record ([`Step`]): which IMAP message the relay is deciding.
    pub fn step(&self) -> Step<'_> {
        Step::new(&self.db.path, &self.step)
    }
}
