//! The mail archive: every mail in and out, append-only (TO §11), indexed by game; removed only
//! by the rotation 4 weeks after a tournament's end (Fax 2.8), and with a tournament withdrawn
//! before its first move (`Store::remove_tournament`).

use super::batch::Batch;
use super::db::Db;
use super::error::StoreError;
use super::handle::Store;
use super::mails::{self, ArchiveEntry};
use super::schema::{Part, Tree, part_key, part_prefix, show_key, suffix_u64};

/// The archive of a [`Store`] (`store.archive()`): its mails by game, and their rotation.
pub struct Archive<'a> {
    store: &'a Store,
    db: &'a Db,
}

impl Store {
    /// The mail archive: every mail in and out (TO §11).
    pub fn archive(&self) -> Archive<'_> {
        Archive {
            store: self,
            db: &self.db,
        }
    }
}

impl Archive<'_> {
    /// The archived mails naming `game`, in archive order.
    pub fn for_game(&self, game: &str) -> Result<Vec<ArchiveEntry>, StoreError> {
        let prefix = part_prefix(game, Part::Archived);
        let mut out = Vec::new();
        for key in self.db.keys_with_prefix(Tree::ByGame, &prefix)? {
            let Some(id) = suffix_u64(&key, prefix.len()) else {
                continue;
            };
            match mails::archived(self.db, id)? {
                Some(entry) => out.push(entry),
                None => {
                    return Err(StoreError::Missing {
                        path: self.db.path.clone(),
                        tree: Tree::Archive,
                        key: format!("{id} (named by the index entry {})", show_key(&key)),
                    });
                }
            }
        }
        Ok(out)
    }

    /// Removes, in one transaction, every archived mail all of whose games are in `games`
    /// (with its index entries); mails that also name another game stay, and so does a mail an
    /// outbox entry still names as its own (it waits to be sent, `packed.rs`). Returns how many
    /// were removed. The caller decides which games may go (Fax 2.8: `crate::core::records::retention`).
    pub fn rotate(&self, games: &std::collections::BTreeSet<String>) -> Result<usize, StoreError> {
        let waiting = self.store.outbox().archived()?;
        let mut ids = std::collections::BTreeSet::new();
        for game in games {
            let prefix = part_prefix(game, Part::Archived);
            for key in self.db.keys_with_prefix(Tree::ByGame, &prefix)? {
                if let Some(id) = suffix_u64(&key, prefix.len()) {
                    ids.insert(id);
                }
            }
        }
        let mut batch = Batch::new();
        let mut removed = 0;
        for id in ids.difference(&waiting).copied() {
            let Some(entry) = self
                .db
                .get::<ArchiveEntry>(Tree::Archive, id.to_be_bytes())?
            else {
                continue;
            };
            if !entry.games.iter().all(|g| games.contains(g)) {
                continue;
            }
            batch.delete_unguarded(Tree::Archive, id.to_be_bytes());
            for g in &entry.games {
                batch.delete_unguarded(Tree::ByGame, part_key(g, Part::Archived, id));
            }
            removed += 1;
        }
        if removed > 0 {
            self.store.commit(batch)?;
        }
        Ok(removed)
    }
}
