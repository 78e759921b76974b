//! The database file and its generic readers, for the store's parts alone: the open redb
//! database ([`Db`], shared by every clone of a [`Store`](super::Store)), a value, a range or a
//! count of a tree read as it is now, and the tables of one write transaction ([`Tables`]).

use std::fs::File;
use std::path::{Path, PathBuf};

use redb::{ReadableDatabase, ReadableTable};
use serde::de::DeserializeOwned;

use super::error::{Abort, StoreError};
use super::packed;
use super::schema::{Tree, show_key, table};

/// The database file inside the store directory.
pub const FILE: &str = "fernzug.redb";

/// redb's page cache size (its default is 1 GiB). The relay reads what it needs once per input
/// (a tournament's games, their keys) and keeps it in its own state; the file's pages stay in
/// the kernel's page cache. Beside 110,000 games, 16 MiB cost `run` 5 MiB and `tournament add`
/// 13 MiB more than 4 MiB, and bought nothing measurable.
pub(super) const CACHE_CAPACITY: usize = 4 * 1024 * 1024;

/// The open database, shared by every clone of a [`Store`](super::Store); closed (and whatever
/// was applied made durable, by redb itself) when the last clone goes.
pub(super) struct Db {
    /// The store's directory.
    pub(super) path: PathBuf,
    pub(super) db: redb::Database,
    /// Whether a transaction was applied without waiting for the disk
    /// ([`Store::apply`](super::Store::apply)) and not made durable yet
    /// ([`Store::sync`](super::Store::sync)).
    pub(super) pending: std::sync::atomic::AtomicBool,
    /// Held by every write transaction of the relay's loop (applied, made durable, sent mails
    /// marked) and by the courier's reads of what it sends (`Outbox::to_send`): the
    /// courier, a task beside the pass, never reads while a transaction is written (redb's own
    /// checks found a page freed under such a reader; the pass's own reads are on its thread).
    gate: std::sync::Mutex<()>,
}

impl Db {
    /// The database `db` of the store in `path`, nothing applied yet.
    pub(super) fn new(path: PathBuf, db: redb::Database) -> Db {
        Db {
            path,
            db,
            pending: std::sync::atomic::AtomicBool::new(false),
            gate: std::sync::Mutex::new(()),
        }
    }

    /// Takes the gate (a poisoned one too: it guards no data).
    pub(super) fn gate(&self) -> std::sync::MutexGuard<'_, ()> {
        self.gate.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(super) fn db_err<E: Into<redb::Error>>(
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

    /// A failure to write `tree` in a batch transaction.
    pub(super) fn write_err(&self, tree: Tree, e: impl Into<redb::Error>) -> StoreError {
        self.db_err(format!("writing {tree} in the batch transaction"))(e.into())
    }

    /// Every tree's table, created where missing (a new store; a tree added by a later version).
    pub(super) fn create_tables(&self) -> Result<(), StoreError> {
        let tx = self.db.begin_read().map_err(self.db_err("reading"))?;
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
            .begin_write()
            .map_err(self.db_err("creating the trees"))?;
        for t in Tree::ALL {
            tx.open_table(table(t))
                .map_err(self.db_err(format!("creating tree {t}")))?;
        }
        tx.commit().map_err(self.db_err("creating the trees"))
    }

    /// A read-only view of `tree` as it is now.
    pub(super) fn read(
        &self,
        tree: Tree,
    ) -> Result<redb::ReadOnlyTable<&'static [u8], &'static [u8]>, StoreError> {
        let tx = self
            .db
            .begin_read()
            .map_err(self.db_err(format!("reading {tree}")))?;
        tx.open_table(table(tree))
            .map_err(self.db_err(format!("reading {tree}")))
    }

    /// The counter at `key` in `Meta` (0 when there is none yet), within a write transaction.
    pub(super) fn read_u64(
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

    /// Read one value.
    pub(super) fn get<T: DeserializeOwned>(
        &self,
        tree: Tree,
        key: impl AsRef<[u8]>,
    ) -> Result<Option<T>, StoreError> {
        let key = key.as_ref();
        let raw = self.get_raw(tree, key)?;
        raw.map(|v| self.decode(tree, key, &v)).transpose()
    }

    /// Read one value's bytes.
    pub(super) fn get_raw(&self, tree: Tree, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let raw = self
            .read(tree)?
            .get(key)
            .map_err(self.db_err(format!("reading {tree}/{}", show_key(key))))?;
        Ok(raw.map(|v| v.value().to_vec()))
    }

    pub(super) fn decode<T: DeserializeOwned>(
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
    pub(super) fn inflate(
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
    pub(super) fn scan<T: DeserializeOwned>(
        &self,
        tree: Tree,
    ) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
        self.scan_prefix(tree, [])
    }

    /// Hands every entry of `tree` to `each`, in key order, one at a time (nothing collected:
    /// for trees too large to hold twice).
    pub(super) fn for_each<T: DeserializeOwned>(
        &self,
        tree: Tree,
        each: impl FnMut(&[u8], T),
    ) -> Result<(), StoreError> {
        self.each_prefix(tree, &[], each)
    }

    /// Hands every entry of `tree` whose key starts with `prefix` to `each`, in key order, one
    /// at a time.
    pub(super) fn each_prefix<T: DeserializeOwned>(
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
    pub(super) fn each_raw(
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
    pub(super) fn scan_prefix<T: DeserializeOwned>(
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
    pub(super) fn count(&self, tree: Tree) -> Result<u64, StoreError> {
        use redb::ReadableTableMetadata as _;
        self.read(tree)?
            .len()
            .map_err(self.db_err(format!("counting {tree}")))
    }

    /// The keys of `tree` that start with `prefix`, in key order.
    pub(super) fn keys_with_prefix(
        &self,
        tree: Tree,
        prefix: &[u8],
    ) -> Result<Vec<Vec<u8>>, StoreError> {
        let mut out = Vec::new();
        self.each_raw(tree, prefix, |k, _| {
            out.push(k.to_vec());
            Ok(())
        })?;
        Ok(out)
    }

    pub(super) fn contains(&self, tree: Tree, key: impl AsRef<[u8]>) -> Result<bool, StoreError> {
        let key = key.as_ref();
        Ok(self
            .read(tree)?
            .get(key)
            .map_err(self.db_err(format!("reading {tree}/{}", show_key(key))))?
            .is_some())
    }
}

/// The tables of one write transaction ([`Store::apply`](super::Store::apply)), each opened when
/// first written.
pub(super) struct Tables<'tx> {
    db: &'tx Db,
    tx: &'tx redb::WriteTransaction,
    open: Vec<Option<redb::Table<'tx, &'static [u8], &'static [u8]>>>,
}

impl<'tx> Tables<'tx> {
    /// The tables of transaction `tx` of `db`, none opened yet.
    pub(super) fn new(db: &'tx Db, tx: &'tx redb::WriteTransaction) -> Tables<'tx> {
        Tables {
            db,
            tx,
            open: (0..Tree::ALL.len()).map(|_| None).collect(),
        }
    }

    /// The table of `tree`, opened now if it is not yet.
    pub(super) fn get(
        &mut self,
        tree: Tree,
    ) -> Result<&mut redb::Table<'tx, &'static [u8], &'static [u8]>, StoreError> {
        let slot = &mut self.open[tree.index()];
        let table = match slot.take() {
            Some(open) => open,
            None => self
                .tx
                .open_table(table(tree))
                .map_err(|e| self.db.write_err(tree, e))?,
        };
        Ok(slot.insert(table))
    }
}

/// fsync `path` (a file or directory).
pub(super) fn sync_path(path: &Path) -> Result<(), StoreError> {
    File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(|source| StoreError::Sync {
            path: path.to_path_buf(),
            source,
        })
}
