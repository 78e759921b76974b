//! Taking over a store that an earlier fernzug kept in sled (`DATA/store/db`, `conf`,
//! `snap.*`, `blobs/`): the first opening moves sled's files into
//! `DATA/store/sled-before-redb/`, then copies every tree from there into the redb file in one
//! durable transaction. The files stay there until an operator deletes them once the relay
//! runs. A copy stopped half way leaves nothing in the redb file (one transaction) and is done
//! again at the next opening.

use std::path::{Path, PathBuf};

use super::db::{FILE, sync_path};
use super::error::StoreError;
use super::handle::Store;
use super::schema::{GAMES_BEFORE, PARTS_BEFORE, SCHEMA_KEY, Tree, table_named};

/// Where sled's files go, to be copied from.
pub const ASIDE: &str = "sled-before-redb";

/// Moves sled's files found in the store's directory aside and copies them into the store,
/// unless the store has its own data already. Nothing to do where there are none.
pub(super) fn take_over(store: &Store) -> Result<(), StoreError> {
    let dir = store.path().to_path_buf();
    let aside = dir.join(ASIDE);
    let files = sled_files(&dir)?;
    if !files.is_empty() {
        let moving = |source| StoreError::Files {
            path: aside.clone(),
            what: "move sled's files into",
            source,
        };
        super::private::dir_all(&aside).map_err(moving)?;
        for f in &files {
            if let Some(name) = f.file_name() {
                std::fs::rename(f, aside.join(name)).map_err(moving)?;
            }
        }
        sync_path(&aside)?;
        sync_path(&dir)?;
    }
    if !aside.is_dir() || store.db.get_raw(Tree::Meta, SCHEMA_KEY)?.is_some() {
        return Ok(());
    }
    let copied = copy(store, &aside)?;
    tracing::warn!(
        "the store of an earlier fernzug (sled) was taken over into {} ({copied} entries \
         copied); its files are in {} and may be deleted",
        dir.join(FILE).display(),
        aside.display()
    );
    Ok(())
}

/// Whether `dir` holds sled's files.
pub(super) fn present(dir: &Path) -> bool {
    sled_files(dir).is_ok_and(|f| !f.is_empty())
}

/// sled's files and directories in `dir`.
fn sled_files(dir: &Path) -> Result<Vec<PathBuf>, StoreError> {
    let reading = |source| StoreError::Files {
        path: dir.to_path_buf(),
        what: "read the store directory",
        source,
    };
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(reading)? {
        let entry = entry.map_err(reading)?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if matches!(name.as_ref(), "conf" | "db" | "blobs") || name.starts_with("snap.") {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

/// Copies every tree of the sled store in `dir` into `store` in one durable transaction.
/// Returns how many entries were copied.
fn copy(store: &Store, dir: &Path) -> Result<usize, StoreError> {
    let legacy = |source| StoreError::Legacy {
        path: dir.to_path_buf(),
        source,
    };
    let old = sled::Config::new().path(dir).open().map_err(legacy)?;
    let tx = store
        .db
        .db
        .begin_write()
        .map_err(store.db.db_err("copying the earlier store"))?;
    let mut copied = 0;
    // sled's trees by their names; the games and a game's parts under their names of layout
    // version 1, moved into `by_game` after (`migrate.rs`).
    let names = Tree::ALL
        .iter()
        .map(|t| t.name())
        .chain([GAMES_BEFORE])
        .chain(PARTS_BEFORE.iter().map(|(name, _)| *name));
    for t in names {
        let from = old.open_tree(t).map_err(legacy)?;
        let mut to = tx
            .open_table(table_named(t))
            .map_err(store.db.db_err(format!("copying tree {t}")))?;
        for item in from.iter() {
            let (k, v) = item.map_err(legacy)?;
            to.insert(&*k, &*v)
                .map_err(store.db.db_err(format!("copying tree {t}")))?;
            copied += 1;
        }
    }
    tx.commit()
        .map_err(store.db.db_err("copying the earlier store"))?;
    Ok(copied)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::TempDir;
    use crate::store::{Batch, LAYOUT_VERSION};

    #[test]
    fn a_store_kept_in_sled_is_copied_over_and_its_files_moved_aside() {
        let tmp = TempDir::new("legacy");
        let dir = tmp.0.clone();
        {
            let old = sled::open(&dir).unwrap();
            let meta = old.open_tree(Tree::Meta.name()).unwrap();
            // The layout every sled store had: version 1, a game's events in their own tree.
            meta.insert(SCHEMA_KEY, &b"1"[..]).unwrap();
            let events = old.open_tree("events").unwrap();
            events
                .insert(b"T-1/1\0\0\0\0\0\0\0\0\x01", &b"\"moved\""[..])
                .unwrap();
            let games = old.open_tree(GAMES_BEFORE).unwrap();
            games.insert("T-1/1", &b"\"a game\""[..]).unwrap();
            games.insert("T-1/2", &b"\"another\""[..]).unwrap();
            old.flush().unwrap();
        }
        assert!(Store::kept_by_sled(&dir));
        let s = Store::open(&dir).unwrap();
        assert!(!Store::kept_by_sled(&dir));
        let games: Vec<(Vec<u8>, String)> =
            s.db.scan(Tree::ByGame)
                .unwrap()
                .into_iter()
                .filter(|(k, _): &(Vec<u8>, String)| super::super::schema::is_game_record(k))
                .collect();
        assert_eq!(
            games,
            vec![
                (b"T-1/1".to_vec(), "a game".to_string()),
                (b"T-1/2".to_vec(), "another".to_string())
            ]
        );
        assert_eq!(
            s.events::<String>("T-1/1").unwrap(),
            vec![(1, "moved".to_string())]
        );
        assert_eq!(
            s.db.get::<u32>(Tree::Meta, SCHEMA_KEY).unwrap(),
            Some(LAYOUT_VERSION)
        );
        assert!(!dir.join("db").exists() && !dir.join("conf").exists());
        assert!(dir.join(ASIDE).join("db").exists());
        // It goes on as any store, and is not copied again.
        let mut b = Batch::new();
        b.put(Tree::ByGame, "T-1/3", &"a third");
        s.commit(b).unwrap();
        drop(s);
        let s = Store::open(&dir).unwrap();
        assert_eq!(s.db.scan::<String>(Tree::ByGame).unwrap().len(), 4);
    }
}
