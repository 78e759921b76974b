//! A consistent copy of the store while it is written (`fernzug backup DIR`): one redb read
//! transaction is a snapshot of every tree at one instant, whatever the relay commits meanwhile;
//! it is written into a new store file, never copied from the live file. Beside it the shelf's
//! files (`DATA/shelf`) are copied: each is durable before the transaction that marks its
//! tournament rotated and never changes afterwards, so every file the snapshot needs is there
//! when the snapshot is taken; a file written later belongs to a tournament the snapshot does not
//! count as rotated, which the copy never reads (and the next rotation writes again).
//!
//! The copy goes into `DIR/.partial` and is renamed into place (`DIR/store`, `DIR/shelf`) only
//! once all of it is durable: a backup that stopped half-way leaves no store that looks whole.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use redb::ReadableDatabase;

use super::db::{CACHE_CAPACITY, FILE, sync_path};
use super::error::StoreError;
use super::handle::Store;
use super::schema::{Tree, table};

/// Bytes of keys and values written into one transaction of the copy at most: the copy of a
/// large archive does not hold it all in memory at once. The last transaction is durable and
/// makes the earlier ones durable with it.
const CHUNK_BYTES: usize = 8 * 1024 * 1024;

/// The name of the folder the copy is made in, inside the backup's folder.
pub const PARTIAL: &str = ".partial";

/// What a backup wrote.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Backup {
    /// Games in the store (running and finished; not those of shelved tournaments).
    pub games: u64,
    /// Mails in the archive.
    pub mails: u64,
    /// Files copied from the shelf (the games of rotated tournaments and their rows).
    pub shelf_files: u64,
    /// Bytes of keys and values copied, and of shelf files.
    pub bytes: u64,
}

/// Why `dir` cannot take a backup, checked before anything is written: `None` when it is an
/// empty folder or does not exist yet (its parent must).
pub fn unfit(dir: &Path) -> Option<String> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => entries.next().map(|_| {
            format!(
                "{} is not empty: a backup goes into an empty folder",
                dir.display()
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
            Some(format!("{} is not a folder", dir.display()))
        }
        Err(e) => Some(format!("cannot read {}: {e}", dir.display())),
    }
}

impl Store {
    /// Writes a consistent copy of the store and the shelf into `dir` (made if missing, and
    /// empty), which is then a `data_dir` the relay runs on as it is: `dir/store` and
    /// `dir/shelf`. Safe while the relay writes: reads through one read transaction only. Nothing
    /// of the store changes.
    pub fn backup(&self, dir: &Path) -> Result<Backup, StoreError> {
        if let Some(why) = unfit(dir) {
            return Err(StoreError::Backup(why));
        }
        let files = |what: &'static str, path: &Path| {
            let path = path.to_path_buf();
            move |source: io::Error| StoreError::Files { path, what, source }
        };
        let partial = dir.join(PARTIAL);
        let store_dir = partial.join("store");
        // The backup's folders 0700, its files 0600, whoever writes it (`private.rs`).
        super::private::dir_all(&partial)
            .and_then(|()| super::private::dir_all(&store_dir))
            .and_then(|()| super::private::touch(&store_dir.join(FILE)))
            .map_err(files("create the backup's store folder", &store_dir))?;
        let mut done = Backup::default();
        // The snapshot: every tree as of this instant.
        let snapshot = self
            .db
            .db
            .begin_read()
            .map_err(self.db.db_err("taking the snapshot for the backup"))?;
        // The copy's cache as small as the store's: its pages are written once, never read back.
        let target = redb::Database::builder()
            .set_cache_size(CACHE_CAPACITY)
            .create(store_dir.join(FILE))
            .map_err(|source| StoreError::Open {
                path: store_dir.clone(),
                source: Box::new(source),
            })?;
        let err = |what: &str| {
            let path = store_dir.clone();
            let what = format!("{what} (backup)");
            move |e: redb::Error| StoreError::Db {
                path,
                what,
                source: Box::new(e),
            }
        };
        let mut tx = target
            .begin_write()
            .map_err(|e| err("writing the copy")(e.into()))?;
        let mut in_tx = 0usize;
        for tree in Tree::ALL {
            let source = snapshot
                .open_table(table(tree))
                .map_err(self.db.db_err(format!("reading {tree} for the backup")))?;
            let mut last: Option<Vec<u8>> = None;
            loop {
                // One chunk: from after the last key copied, up to CHUNK_BYTES.
                let range = match &last {
                    Some(k) => source.range::<&[u8]>((
                        std::ops::Bound::Excluded(k.as_slice()),
                        std::ops::Bound::Unbounded,
                    )),
                    None => source.range::<&[u8]>(..),
                }
                .map_err(self.db.db_err(format!("reading {tree} for the backup")))?;
                let mut table = tx
                    .open_table(table(tree))
                    .map_err(|e| err("writing the copy")(e.into()))?;
                let mut full = false;
                for item in range {
                    let (k, v) =
                        item.map_err(self.db.db_err(format!("reading {tree} for the backup")))?;
                    let (k, v) = (k.value(), v.value());
                    table
                        .insert(k, v)
                        .map_err(|e| err("writing the copy")(e.into()))?;
                    let n = k.len() + v.len();
                    done.bytes += n as u64;
                    in_tx += n;
                    match tree {
                        Tree::ByGame if super::schema::is_game_record(k) => done.games += 1,
                        Tree::Archive => done.mails += 1,
                        _ => {}
                    }
                    if in_tx >= CHUNK_BYTES {
                        last = Some(k.to_vec());
                        full = true;
                        break;
                    }
                }
                drop(table);
                if !full {
                    break;
                }
                // The chunk is written without waiting for the disk; the last commit is durable.
                tx.set_durability(redb::Durability::None)
                    .map_err(|e| err("writing the copy")(e.into()))?;
                tx.commit().map_err(|e| err("writing the copy")(e.into()))?;
                tx = target
                    .begin_write()
                    .map_err(|e| err("writing the copy")(e.into()))?;
                in_tx = 0;
            }
        }
        tx.commit().map_err(|e| err("writing the copy")(e.into()))?;
        drop(target);
        drop(snapshot);
        sync_path(&store_dir)?;
        // The shelf: every file there now (see the module documentation).
        let shelf = super::shelf::dir(self);
        let (n, bytes) = copy_tree(&shelf, &partial.join("shelf"))?;
        done.shelf_files = n;
        done.bytes += bytes;
        sync_path(&partial)?;
        // Into place: the store last, so that a folder with a store holds all of it.
        for name in ["shelf", "store"] {
            let from = partial.join(name);
            if from.exists() {
                let to = dir.join(name);
                std::fs::rename(&from, &to).map_err(files("move the backup into place", &to))?;
            }
        }
        std::fs::remove_dir(&partial)
            .map_err(files("remove the backup's work folder", &partial))?;
        sync_path(dir)?;
        Ok(done)
    }
}

/// Copies the files of folder `from` and of its folders into `to` (made), each fsynced, and the
/// folders too; a missing `from` copies nothing. Returns the files and bytes copied.
fn copy_tree(from: &Path, to: &Path) -> Result<(u64, u64), StoreError> {
    let entries = match std::fs::read_dir(from) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok((0, 0)),
        Err(source) => {
            return Err(StoreError::Files {
                path: from.to_path_buf(),
                what: "read the shelf folder",
                source,
            });
        }
    };
    let fail =
        |what: &'static str, path: PathBuf| move |source| StoreError::Files { path, what, source };
    super::private::dir_all(to)
        .map_err(fail("create the backup's shelf folder", to.to_path_buf()))?;
    let (mut files, mut bytes) = (0, 0);
    for entry in entries {
        let entry = entry.map_err(fail("read the shelf folder", from.to_path_buf()))?;
        let path = entry.path();
        let target = to.join(entry.file_name());
        let kind = entry
            .file_type()
            .map_err(fail("read the shelf folder", path.clone()))?;
        if kind.is_dir() {
            let (f, b) = copy_tree(&path, &target)?;
            files += f;
            bytes += b;
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "json") {
            // A `.json.tmp` is a shelf file not yet written whole: not the copy's.
            let mut copy = super::private::create(&target)
                .map_err(fail("copy the shelf file", target.clone()))?;
            bytes += File::open(&path)
                .and_then(|mut f| io::copy(&mut f, &mut copy))
                .map_err(fail("copy the shelf file", path.clone()))?;
            copy.sync_all()
                .map_err(fail("sync the copied shelf file", target.clone()))?;
            files += 1;
        }
    }
    sync_path(to)?;
    Ok((files, bytes))
}
