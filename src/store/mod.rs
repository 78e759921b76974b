//! The persistent store: one redb database file (`DATA/store/fernzug.redb`), reached only
//! through this module.
//!
//! Everything the relay remembers lives in named trees ([`Tree`], one redb table each), as
//! serde_json bytes — a mail (in the archive, the outbox) as a JSON head beside the mail
//! compressed (`packed.rs`). Only this module knows the layout: the rest of the program reads and writes
//! through typed readers and [`Batch`] operations (`store.game(id)`, `batch.put_game(g, …)`,
//! `store.pending_starts()`); a tree is never named outside `src/store` (`scripts/layers`
//! checks it), and the generic readers and writers are private to it. Writes are gathered in a
//! [`Batch`] and applied by [`Store::commit`] as ONE write transaction over all trees, which
//! redb makes durable with an fsync before `commit` returns (copy on write: a crash keeps the
//! last durable transaction whole, never a part of one). A caller acknowledges nothing to the
//! outside world (IMAP `\Seen`, SMTP) before `commit` returned `Ok`.
//!
//! Earlier versions kept the store in sled (`DATA/store/db`, `conf`, `snap.*`, `blobs/`): the
//! first opening moves sled's files aside and copies them over (`legacy.rs`).
//!
//! The parts: `schema.rs` (the trees, every key layout, every key of `Meta`, the marks of
//! upgrades), `records.rs` (the typed readers and writers), `batch.rs` (a transaction's
//! writes), `outbox.rs`, `archive.rs`, `packed.rs` (how a mail is stored: compressed, once),
//! `error.rs`, `shelf.rs` (the
//! files of rotated tournaments beside the store), `backup.rs` (a consistent copy while the relay
//! writes), `migrate.rs` and `legacy.rs` (upgrades of an
//! earlier version's store), and this file (opening, transactions, durability).
//!
//! Key layouts (all integers big-endian so that byte order is numeric order):
//! - `ByGame`: a running game under its name (`ID/N`), then its parts: game bytes, `0u8`, one
//!   byte for the part (`schema::Part`): `e` and the event's `seq: u64`; `a` and the archive
//!   id `u64` of a mail naming the game; `k` and the reply key (the value empty: the binding is
//!   in `Keys`; an earlier version's entry carries it too); `d` alone (the value: the game's
//!   earliest deadline). A game's records side by side: what a move reads and writes of them
//!   shares leaves. Layout version 1 kept the games in `games`, the first three parts in
//!   `events`, `archive_by_game` and `keys_by_game` (`game 0 rest`), the fourth in `Due`
//!   (`g/GAME`): the first opening moves them (`migrate.rs`).
//! - `Uids`: `uidvalidity: u32`, `uid: u32`
//! - `Archive`: `id: u64`, allocated inside the transaction from a counter in `Meta`
//! - `Outbox`: [`OutboxEntry::id`]; `Processed`: the Message-ID.
//! - `Tournaments`: the id; `ShelvedGames`: the game (`ID/N`); `Keys`, `ShelvedKeys`:
//!   the reply key; `Due`: `d/TOURNAMENT`, `r/TOURNAMENT` ([`DueEntry`]; a game's entry, `g/GAME`,
//!   is its `ByGame` part `d`).
//! - `DueOrder`: the kind (`g`, `d`, `r`), the instant (microseconds, big-endian, sign bit
//!   flipped), `0u8`, the entry's key (`g/GAME`, `d/…`, `r/…`; the value empty): every entry of
//!   the index of deadlines by kind in time order, written with its instant in the same step.
//! - `Meta`: `schema_version`, `archive_next`, `outbox_next`, `generation`, `state-meta`,
//!   `instance`, `starts-pending:ID`, `registering:ID`, `xfcc-login:ADDRESS`, the marks of the
//!   upgrades ([`Upgrade`]) and, from versions before `Tournament::rotated`, `rotated:ID`.

use std::fmt;
use std::fs::File;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

mod legacy;

use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata};

/// The layout version this program reads and writes. Version 1 (the parts of a game's records
/// in three trees) is still read: the first opening moves it to this one (`migrate.rs`).
pub const SCHEMA_VERSION: u32 = 2;

/// redb's page cache size (its default is 1 GiB). The relay reads what it needs once per input
/// (a tournament's games, their keys) and keeps it in its own state; the file's pages stay in
/// the kernel's page cache. Beside 110,000 games, 16 MiB cost `run` 5 MiB and `tournament add`
/// 13 MiB more than 4 MiB, and bought nothing measurable.
const CACHE_CAPACITY: usize = 4 * 1024 * 1024;

mod archive;
pub mod backup;
mod batch;
mod error;
mod migrate;
mod outbox;
mod packed;
pub mod private;
mod records;
mod schema;
pub mod sent;
pub mod shelf;
pub mod step;
#[cfg(test)]
mod tests;

pub use archive::{ArchiveEntry, Direction};
pub use batch::Batch;
use batch::{Abort, Op};
pub use error::StoreError;
pub use outbox::OutboxEntry;
pub use records::{DueEntry, Figures, PendingStarts};
use schema::{
    ARCHIVE_NEXT_KEY, GENERATION_KEY, OUTBOX_NEXT_KEY, Part, SCHEMA_KEY, part_key, part_prefix,
    show_key, suffix_u64, table, uid_key,
};
pub use schema::{Tree, Upgrade};

/// Serde helper for raw mail bytes: stored as a JSON string when the bytes are UTF-8
/// (nearly every mail), as an array of numbers otherwise. Reads both forms.
pub mod raw_bytes {
    use std::fmt;

    use serde::de::{self, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    /// Serialize `bytes` as a string if it is UTF-8, else as bytes.
    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(bytes) {
            Ok(text) => s.serialize_str(text),
            Err(_) => s.serialize_bytes(bytes),
        }
    }

    /// Deserialize from a string, bytes or a sequence of `u8`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_any(RawVisitor)
    }

    struct RawVisitor;

    impl<'de> Visitor<'de> for RawVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("mail bytes as a string or an array of bytes")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
            Ok(v.as_bytes().to_vec())
        }

        fn visit_string<E: de::Error>(self, v: String) -> Result<Vec<u8>, E> {
            Ok(v.into_bytes())
        }

        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }

        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(b) = seq.next_element::<u8>()? {
                out.push(b);
            }
            Ok(out)
        }
    }
}

/// A mail that could not be handled, kept for the operator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuarantineEntry {
    /// When it was quarantined.
    pub at: DateTime<Utc>,
    /// IMAP UIDVALIDITY of the mailbox it came from.
    pub uidvalidity: u32,
    /// IMAP UID.
    pub uid: u32,
    /// Its Message-ID, if it had one.
    pub message_id: Option<String>,
    /// Why it was quarantined.
    pub reason: String,
    /// The raw mail (or its header, for mails over the size limit).
    #[serde(with = "raw_bytes")]
    pub raw: Vec<u8>,
}

/// The database file inside the store directory.
pub const FILE: &str = "fernzug.redb";

/// The open database, shared by every clone of a [`Store`]; closed (and whatever was applied
/// made durable, by redb itself) when the last clone goes.
struct Db {
    db: redb::Database,
    /// Whether a transaction was applied without waiting for the disk ([`Store::apply`]) and
    /// not made durable yet ([`Store::sync`]).
    pending: std::sync::atomic::AtomicBool,
    /// Held by every write transaction of the relay's loop (applied, made durable, sent mails
    /// marked) and by the courier's reads of what it sends (`Store::outbox_to_send`): the
    /// courier, a task beside the pass, never reads while a transaction is written (redb's own
    /// checks found a page freed under such a reader; the pass's own reads are on its thread).
    gate: std::sync::Mutex<()>,
}

impl Db {
    /// Takes the gate (a poisoned one too: it guards no data).
    fn gate(&self) -> std::sync::MutexGuard<'_, ()> {
        self.gate.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The database handle. Cheap to clone; all clones share one database.
#[derive(Clone)]
pub struct Store {
    path: PathBuf,
    db: std::sync::Arc<Db>,
    /// The generation after this handle's last transaction (or as read at opening).
    generation: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// While watched ([`Store::watch_enqueued`]): the outbox entries enqueued since they were
    /// last taken, each with its mail.
    enqueued: std::sync::Arc<std::sync::Mutex<Option<Vec<OutboxEntry>>>>,
    /// The ledger of sent mails (`sent.rs`): taken before the gate, by the marks of sent mails
    /// and by [`Store::sync`].
    sent: std::sync::Arc<std::sync::Mutex<sent::Ledger>>,
    /// The step record (`step.rs`): the message being decided, for the next process should this
    /// one die in its step.
    step: std::sync::Arc<std::sync::Mutex<step::StepRecord>>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

/// The tables of one write transaction ([`Store::apply`]), each opened when first written.
struct Tables<'tx> {
    store: &'tx Store,
    tx: &'tx redb::WriteTransaction,
    open: Vec<Option<redb::Table<'tx, &'static [u8], &'static [u8]>>>,
}

impl<'tx> Tables<'tx> {
    /// The table of `tree`, opened now if it is not yet.
    fn get(
        &mut self,
        tree: Tree,
    ) -> Result<&mut redb::Table<'tx, &'static [u8], &'static [u8]>, StoreError> {
        let slot = &mut self.open[tree.index()];
        let table = match slot.take() {
            Some(open) => open,
            None => self
                .tx
                .open_table(table(tree))
                .map_err(|e| self.store.write_err(tree, e))?,
        };
        Ok(slot.insert(table))
    }
}

impl Store {
    /// Open (or create) the database in `dir` and check its schema version. A store an earlier
    /// fernzug kept in sled is copied over first (`legacy.rs`).
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let path = dir.to_path_buf();
        let fresh = !dir.join(FILE).exists();
        private::dir_all(dir).map_err(|source| StoreError::Files {
            path: path.clone(),
            what: "create the store directory",
            source,
        })?;
        // The database file exists `0600` before redb writes into it (`private.rs`).
        private::touch(&dir.join(FILE)).map_err(|source| StoreError::Files {
            path: dir.join(FILE),
            what: "create the database file",
            source,
        })?;
        let db = redb::Database::builder()
            .set_cache_size(CACHE_CAPACITY)
            .create(dir.join(FILE))
            .map_err(|source| StoreError::Open {
                path: path.clone(),
                source: Box::new(source),
            })?;
        if fresh {
            // The new file's name is durable too.
            sync_path(dir)?;
        }
        let ledger_error = |source| StoreError::Files {
            path: dir.join(sent::FILE),
            what: "open the ledger of sent mails",
            source,
        };
        let (ledger, sent_before) = sent::Ledger::open(dir).map_err(ledger_error)?;
        let mut store = Store {
            path,
            db: std::sync::Arc::new(Db {
                db,
                pending: std::sync::atomic::AtomicBool::new(false),
                gate: std::sync::Mutex::new(()),
            }),
            generation: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)),
            enqueued: Default::default(),
            sent: std::sync::Arc::new(std::sync::Mutex::new(ledger)),
            step: Default::default(),
        };
        store.create_tables()?;
        legacy::take_over(&store)?;
        let version = store.check_schema()?;
        // Before the move of version 1: a store from before `DueOrder` has its games' deadlines
        // in `Due` still.
        store.order_due()?;
        if version == 1 {
            store.gather_by_game()?;
            // The trees the move emptied leave their pages free inside the file: given back. The
            // store is whole without it: a failure is said, not fatal (it is not tried again).
            if let Err(e) = store.compact() {
                tracing::warn!("{e}; the store works on, its file larger than it needs to be");
            }
        }
        if !sent_before.is_empty() {
            // Mails the server accepted before a crash whose removal from the outbox may not
            // have reached the disk: removed now, durably, and the ledger emptied.
            store.remove_sent(&sent_before)?;
            store.sync()?;
        }
        let generation = match store.get_raw(Tree::Meta, GENERATION_KEY)? {
            Some(raw) => std::str::from_utf8(&raw)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0),
            None => 0,
        };
        store
            .generation
            .store(generation, std::sync::atomic::Ordering::SeqCst);
        Ok(store)
    }

    /// Whether `dir` holds a store an earlier fernzug kept in sled, not taken over yet (the
    /// next [`Store::open`] does).
    pub fn kept_by_sled(dir: &Path) -> bool {
        !dir.join(FILE).exists() && legacy::present(dir)
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn db_err<E: Into<redb::Error>>(
        &self,
        what: impl Into<String>,
    ) -> impl FnOnce(E) -> StoreError + '_ {
        let what = what.into();
        move |source| StoreError::Db {
            path: self.path.clone(),
            what,
            source: Box::new(source.into()),
        }
    }

    /// The ledger of sent mails (a poisoned lock too: a mark is written whole or read as
    /// nothing).
    fn ledger(&self) -> std::sync::MutexGuard<'_, sent::Ledger> {
        self.sent.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A failure to write `tree` in a batch transaction.
    fn write_err(&self, tree: Tree, e: impl Into<redb::Error>) -> StoreError {
        self.db_err(format!("writing {tree} in the batch transaction"))(e.into())
    }

    /// Every tree's table, created where missing (a new store; a tree added by a later version).
    fn create_tables(&self) -> Result<(), StoreError> {
        let tx = self.db.db.begin_read().map_err(self.db_err("reading"))?;
        let missing = Tree::ALL.iter().any(|t| {
            matches!(
                tx.open_table(table(*t)),
                Err(redb::TableError::TableDoesNotExist(_))
            )
        });
        drop(tx);
        if !missing {
            return Ok(());
        }
        let tx = self
            .db
            .db
            .begin_write()
            .map_err(self.db_err("creating the trees"))?;
        for t in Tree::ALL {
            tx.open_table(table(t))
                .map_err(self.db_err(format!("creating tree {t}")))?;
        }
        tx.commit().map_err(self.db_err("creating the trees"))
    }

    /// A read-only view of `tree` as it is now.
    fn read(
        &self,
        tree: Tree,
    ) -> Result<redb::ReadOnlyTable<&'static [u8], &'static [u8]>, StoreError> {
        let tx = self
            .db
            .db
            .begin_read()
            .map_err(self.db_err(format!("reading {tree}")))?;
        tx.open_table(table(tree))
            .map_err(self.db_err(format!("reading {tree}")))
    }

    /// Checks the store's layout version: this one, or 1 (the caller moves it), or none in a
    /// new store (then this one is written). Returns the version found.
    fn check_schema(&self) -> Result<u32, StoreError> {
        let found: Option<u32> = self.get(Tree::Meta, SCHEMA_KEY)?;
        match found {
            Some(v) if v == SCHEMA_VERSION || v == 1 => Ok(v),
            Some(found) => Err(StoreError::Schema {
                path: self.path.clone(),
                found,
                expected: SCHEMA_VERSION,
            }),
            None => {
                for t in Tree::ALL {
                    let len = self
                        .read(t)?
                        .len()
                        .map_err(self.db_err(format!("reading {t}")))?;
                    if len > 0 {
                        return Err(StoreError::NoSchema {
                            path: self.path.clone(),
                        });
                    }
                }
                let mut batch = Batch::new();
                batch.put(Tree::Meta, SCHEMA_KEY, &SCHEMA_VERSION);
                self.commit(batch)?;
                Ok(SCHEMA_VERSION)
            }
        }
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
            .map_err(self.db_err("the batch transaction"))?;
        tx.set_durability(redb::Durability::None)
            .map_err(self.db_err("the batch transaction"))?;
        // Dropped without a commit on any error: nothing of it is written.
        let mut seqs = Vec::new();
        let generation = self.write_ops(&tx, &ops, &mut seqs)?;
        tx.commit().map_err(self.db_err("the batch transaction"))?;
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
        let mut tables = Tables {
            store: self,
            tx,
            open: (0..Tree::ALL.len()).map(|_| None).collect(),
        };
        let aborted = |reason: Abort| StoreError::Aborted {
            path: self.path.clone(),
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
                        .map_err(|e| self.write_err(*tree, e))?;
                }
                Op::Delete { tree, key } => {
                    tables
                        .get(*tree)?
                        .remove(key.as_slice())
                        .map_err(|e| self.write_err(*tree, e))?;
                }
                Op::Archive { value, games } => {
                    let id = match next_archive {
                        Some(id) => id,
                        None => self.read_u64(tables.get(Tree::Meta)?, ARCHIVE_NEXT_KEY)?,
                    };
                    let key = id.to_be_bytes();
                    tables
                        .get(Tree::Archive)?
                        .insert(&key[..], value.as_slice())
                        .map_err(|e| self.write_err(Tree::Archive, e))?;
                    let index_value = id.to_string();
                    for game in games {
                        tables
                            .get(Tree::ByGame)?
                            .insert(
                                part_key(game, Part::Archived, id).as_slice(),
                                index_value.as_bytes(),
                            )
                            .map_err(|e| self.write_err(Tree::ByGame, e))?;
                    }
                    next_archive = Some(id.saturating_add(1));
                }
                Op::Enqueue { entry, body, .. } => {
                    let seq = match next_outbox {
                        Some(n) => n,
                        None => self
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
                    let head = serde_json::to_vec(&outbox::Stored {
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
                        .map_err(|e| self.write_err(Tree::Outbox, e))?;
                    next_outbox = Some(seq.saturating_add(1));
                    seqs.push(seq);
                }
                Op::Due { key, at } => {
                    let ((due, place), order) = (schema::due_place(key), Tree::DueOrder);
                    let old: Option<DateTime<Utc>> = tables
                        .get(due)?
                        .get(place.as_slice())
                        .map_err(|e| self.write_err(due, e))?
                        .and_then(|v| serde_json::from_slice(v.value()).ok());
                    if let Some(old) = old {
                        tables
                            .get(order)?
                            .remove(schema::due_order_key(old, key).as_slice())
                            .map_err(|e| self.write_err(Tree::DueOrder, e))?;
                    }
                    match at {
                        Some(at) => {
                            let value = serde_json::to_vec(at).map_err(|e| {
                                aborted(Abort::Counter(format!("due entry {key}: {e}")))
                            })?;
                            tables
                                .get(due)?
                                .insert(place.as_slice(), value.as_slice())
                                .map_err(|e| self.write_err(due, e))?;
                            tables
                                .get(order)?
                                .insert(schema::due_order_key(*at, key).as_slice(), &[][..])
                                .map_err(|e| self.write_err(Tree::DueOrder, e))?;
                        }
                        None => {
                            tables
                                .get(due)?
                                .remove(place.as_slice())
                                .map_err(|e| self.write_err(due, e))?;
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
                .map_err(|e| self.write_err(Tree::Meta, e))?;
        }
        if let Some(next) = next_archive {
            meta.insert(ARCHIVE_NEXT_KEY, next.to_string().as_bytes())
                .map_err(|e| self.write_err(Tree::Meta, e))?;
        }
        let generation = self.read_u64(meta, GENERATION_KEY)?.saturating_add(1);
        meta.insert(GENERATION_KEY, generation.to_string().as_bytes())
            .map_err(|e| self.write_err(Tree::Meta, e))?;
        Ok(generation)
    }

    /// The counter at `key` in `Meta` (0 when there is none yet), within a write transaction.
    fn read_u64(
        &self,
        meta: &redb::Table<&'static [u8], &'static [u8]>,
        key: &[u8],
    ) -> Result<u64, StoreError> {
        let raw = meta.get(key).map_err(self.db_err(format!(
            "reading {}/{}",
            Tree::Meta,
            show_key(key)
        )))?;
        match raw {
            None => Ok(0),
            Some(raw) => std::str::from_utf8(raw.value())
                .ok()
                .and_then(|s| s.parse::<u64>().ok())
                .ok_or_else(|| StoreError::Aborted {
                    path: self.path.clone(),
                    reason: Abort::Counter(format!(
                        "value {} is not a number",
                        show_key(raw.value())
                    ))
                    .to_string(),
                }),
        }
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
                return Err(self.db_err("making the applied transactions durable")(e));
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

    /// Read one value.
    fn get<T: DeserializeOwned>(
        &self,
        tree: Tree,
        key: impl AsRef<[u8]>,
    ) -> Result<Option<T>, StoreError> {
        let key = key.as_ref();
        let raw = self.get_raw(tree, key)?;
        raw.map(|v| self.decode(tree, key, &v)).transpose()
    }

    /// Read one value's bytes.
    fn get_raw(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let raw = self
            .read(tree)?
            .get(key)
            .map_err(self.db_err(format!("reading {tree}/{}", show_key(key))))?;
        Ok(raw.map(|v| v.value().to_vec()))
    }

    fn decode<T: DeserializeOwned>(
        &self,
        tree: Tree,
        key: &[u8],
        value: &[u8],
    ) -> Result<T, StoreError> {
        serde_json::from_slice(packed::json(value)).map_err(|source| StoreError::Corrupt {
            path: self.path.clone(),
            tree,
            key: show_key(key),
            source,
        })
    }

    /// The mail of a packed value's `body` (`packed.rs`).
    fn inflate(
        &self,
        tree: Tree,
        key: &[u8],
        p: &packed::Packed<'_>,
    ) -> Result<Vec<u8>, StoreError> {
        packed::inflate(p).map_err(|source| StoreError::Inflate {
            path: self.path.clone(),
            tree,
            key: show_key(key),
            source,
        })
    }

    /// Every entry of `tree`, in key order.
    fn scan<T: DeserializeOwned>(&self, tree: Tree) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
        self.scan_prefix(tree, [])
    }

    /// Hands every entry of `tree` to `each`, in key order, one at a time (nothing collected:
    /// for trees too large to hold twice).
    fn for_each<T: DeserializeOwned>(
        &self,
        tree: Tree,
        each: impl FnMut(&[u8], T),
    ) -> Result<(), StoreError> {
        self.each_prefix(tree, &[], each)
    }

    /// Hands every entry of `tree` whose key starts with `prefix` to `each`, in key order, one
    /// at a time.
    fn each_prefix<T: DeserializeOwned>(
        &self,
        tree: Tree,
        prefix: &[u8],
        mut each: impl FnMut(&[u8], T),
    ) -> Result<(), StoreError> {
        self.each_raw(tree, prefix, |k, v| {
            each(k, self.decode(tree, k, v)?);
            Ok(())
        })
    }

    /// Hands the key and bytes of every entry of `tree` whose key starts with `prefix` to
    /// `each`, in key order.
    fn each_raw(
        &self,
        tree: Tree,
        prefix: &[u8],
        mut each: impl FnMut(&[u8], &[u8]) -> Result<(), StoreError>,
    ) -> Result<(), StoreError> {
        let scanning = || self.db_err(format!("scanning {tree}"));
        let t = self.read(tree)?;
        for item in t.range::<&[u8]>(prefix..).map_err(scanning())? {
            let (k, v) = item.map_err(scanning())?;
            if !k.value().starts_with(prefix) {
                break;
            }
            each(k.value(), v.value())?;
        }
        Ok(())
    }

    /// Every entry of `tree` whose key starts with `prefix`, in key order.
    fn scan_prefix<T: DeserializeOwned>(
        &self,
        tree: Tree,
        prefix: impl AsRef<[u8]>,
    ) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
        let mut out = Vec::new();
        self.each_raw(tree, prefix.as_ref(), |k, v| {
            out.push((k.to_vec(), self.decode(tree, k, v)?));
            Ok(())
        })?;
        Ok(out)
    }

    /// How many entries `tree` holds.
    fn count(&self, tree: Tree) -> Result<u64, StoreError> {
        use redb::ReadableTableMetadata as _;
        self.read(tree)?
            .len()
            .map_err(self.db_err(format!("counting {tree}")))
    }

    /// The keys of `tree` that start with `prefix`, in key order.
    fn keys_with_prefix(&self, tree: Tree, prefix: &[u8]) -> Result<Vec<Vec<u8>>, StoreError> {
        let mut out = Vec::new();
        self.each_raw(tree, prefix, |k, _| {
            out.push(k.to_vec());
            Ok(())
        })?;
        Ok(out)
    }

    /// Whether the mail with `message_id` has been handled.
    pub fn is_processed(&self, message_id: &str) -> Result<bool, StoreError> {
        self.contains(Tree::Processed, message_id.as_bytes())
    }

    /// How many times a process died in the step of IMAP message (`uidvalidity`, `uid`)
    /// (`Batch::begin_uid`, `step.rs`; 0 for one it never died in, or done).
    pub fn begun(&self, uidvalidity: u32, uid: u32) -> Result<u32, StoreError> {
        Ok(self
            .get::<u32>(Tree::Begun, uid_key(uidvalidity, uid))?
            .unwrap_or(0))
    }

    /// Whether IMAP message (`uidvalidity`, `uid`) has been handled.
    pub fn is_uid_done(&self, uidvalidity: u32, uid: u32) -> Result<bool, StoreError> {
        self.contains(Tree::Uids, uid_key(uidvalidity, uid))
    }

    fn contains(&self, tree: Tree, key: impl AsRef<[u8]>) -> Result<bool, StoreError> {
        let key = key.as_ref();
        Ok(self
            .read(tree)?
            .get(key)
            .map_err(self.db_err(format!("reading {tree}/{}", show_key(key))))?
            .is_some())
    }

    /// The event log of `game`, ordered by sequence number.
    pub fn events<T: DeserializeOwned>(&self, game: &str) -> Result<Vec<(u64, T)>, StoreError> {
        let prefix = part_prefix(game, Part::Event);
        let mut out = Vec::new();
        for (key, value) in self.scan_prefix::<T>(Tree::ByGame, &prefix)? {
            // A longer key belongs to another game whose name starts with `game\0`
            // (impossible through `Batch`, which refuses NUL in game names).
            if let Some(seq) = suffix_u64(&key, prefix.len()) {
                out.push((seq, value));
            }
        }
        Ok(out)
    }

    /// The reply keys of `game` and their bindings: the keys from the game's records
    /// ([`Tree::ByGame`]), each binding from [`Tree::Keys`] (an entry of an earlier version
    /// carries the binding itself).
    pub fn keys_of_game<T: DeserializeOwned>(
        &self,
        game: &str,
    ) -> Result<Vec<(String, T)>, StoreError> {
        let prefix = part_prefix(game, Part::Key);
        let mut out = Vec::new();
        self.each_raw(Tree::ByGame, &prefix, |k, v| {
            let Some(key) = k
                .get(prefix.len()..)
                .and_then(|k| std::str::from_utf8(k).ok())
            else {
                return Ok(());
            };
            let binding = if v.is_empty() {
                match self.get::<T>(Tree::Keys, key.as_bytes())? {
                    Some(b) => b,
                    None => {
                        return Err(StoreError::Missing {
                            path: self.path.clone(),
                            tree: Tree::Keys,
                            key: format!("{key} (named by the index entry {})", show_key(k)),
                        });
                    }
                }
            } else {
                self.decode::<T>(Tree::ByGame, k, v)?
            };
            out.push((key.to_string(), binding));
            Ok(())
        })?;
        Ok(out)
    }

    /// Every quarantined mail, in key order (UIDVALIDITY, UID).
    pub fn quarantined(&self) -> Result<Vec<QuarantineEntry>, StoreError> {
        Ok(self
            .scan::<QuarantineEntry>(Tree::Quarantine)?
            .into_iter()
            .map(|(_, e)| e)
            .collect())
    }
}

/// fsync `path` (a file or directory).
fn sync_path(path: &Path) -> Result<(), StoreError> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|source| StoreError::Sync {
            path: path.to_path_buf(),
            source,
        })
}
