//! Opening the store ([`Store::open`]): the database file made `0600` and opened, its trees
//! created where missing, a store kept in sled taken over (`legacy.rs`), the steps of the
//! store's version that need only the store done (`migrate.rs`), and the mails marked sent
//! before a crash removed from the outbox (`sent.rs`).

use std::path::Path;

use super::db::{CACHE_CAPACITY, Db, FILE, sync_path};
use super::error::StoreError;
use super::handle::Store;
use super::schema::{GENERATION_KEY, Tree};
use super::{legacy, migrate, private, sent};

impl Store {
    /// Open (or create) the database in `dir`, check its version and do the steps of its
    /// version that need only the store (`migrate.rs`). A store an earlier fernzug kept in sled
    /// is copied over first (`legacy.rs`).
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
            db: std::sync::Arc::new(Db::new(path, db)),
            generation: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)),
            enqueued: Default::default(),
            sent: std::sync::Arc::new(std::sync::Mutex::new(ledger)),
            step: Default::default(),
        };
        store.db.create_tables()?;
        legacy::take_over(&store)?;
        migrate::open(&mut store)?;
        if !sent_before.is_empty() {
            // Mails the server accepted before a crash whose removal from the outbox may not
            // have reached the disk: removed now, durably, and the ledger emptied.
            store.outbox().remove_sent(&sent_before)?;
            store.sync()?;
        }
        let generation = match store.db.get_raw(Tree::Meta, GENERATION_KEY)? {
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
}
