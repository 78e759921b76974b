//! The mail archive: every mail in and out, append-only (TO §11), indexed by game; removed only
//! by the rotation 4 weeks after a tournament's end (Fax 2.8).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::Store;
use super::batch::Batch;
use super::error::StoreError;
use super::packed;
use super::raw_bytes;
use super::schema::{Part, Tree, part_key, part_prefix, show_key, suffix_u64};

/// Direction of an archived mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Received over IMAP.
    In,
    /// Sent (or enqueued) by the relay.
    Out,
}

/// One archived mail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveEntry {
    /// In or out.
    pub direction: Direction,
    /// The postmark: IMAP INTERNALDATE for In, the send/enqueue time for Out.
    pub at: DateTime<Utc>,
    /// The games this mail concerns (each gets an index entry among the game's records, [`Tree::ByGame`]).
    pub games: Vec<String>,
    /// The mail's Message-ID.
    pub message_id: String,
    /// The raw mail.
    #[serde(with = "raw_bytes")]
    pub raw: Vec<u8>,
}

impl Store {
    /// The archived mails naming `game`, in archive order.
    pub fn archive_for_game(&self, game: &str) -> Result<Vec<ArchiveEntry>, StoreError> {
        let prefix = part_prefix(game, Part::Archived);
        let mut out = Vec::new();
        for key in self.keys_with_prefix(Tree::ByGame, &prefix)? {
            let Some(id) = suffix_u64(&key, prefix.len()) else {
                continue;
            };
            match self.archived_entry(id)? {
                Some(entry) => out.push(entry),
                None => {
                    return Err(StoreError::Missing {
                        path: self.path.clone(),
                        tree: Tree::Archive,
                        key: format!("{id} (named by the index entry {})", show_key(&key)),
                    });
                }
            }
        }
        Ok(out)
    }

    /// The archived mail `id`, if it is there.
    pub(super) fn archived_entry(&self, id: u64) -> Result<Option<ArchiveEntry>, StoreError> {
        let key = id.to_be_bytes();
        match self.get_raw(Tree::Archive, &key)? {
            Some(v) => self.archive_entry(&key, &v).map(Some),
            None => Ok(None),
        }
    }

    /// The archived mail stored as `value` under `key`: its head, and its mail decompressed
    /// (`packed.rs`; an earlier version's entry is JSON with the mail inside).
    pub(super) fn archive_entry(
        &self,
        key: &[u8],
        value: &[u8],
    ) -> Result<ArchiveEntry, StoreError> {
        let mut entry: ArchiveEntry = self.decode(Tree::Archive, key, value)?;
        if let Some(p) = packed::unpack(value) {
            entry.raw = self.inflate(Tree::Archive, key, &p)?;
        }
        Ok(entry)
    }

    /// Removes, in one transaction, every archived mail all of whose games are in `games`
    /// (with its index entries); mails that also name another game stay, and so does a mail an
    /// outbox entry still names as its own (it waits to be sent, `packed.rs`). Returns how many
    /// were removed. The caller decides which games may go (Fax 2.8: `crate::core::records::retention`).
    pub fn rotate_archive(
        &self,
        games: &std::collections::BTreeSet<String>,
    ) -> Result<usize, StoreError> {
        let waiting = self.outbox_archived()?;
        let mut ids = std::collections::BTreeSet::new();
        for game in games {
            let prefix = part_prefix(game, Part::Archived);
            for key in self.keys_with_prefix(Tree::ByGame, &prefix)? {
                if let Some(id) = suffix_u64(&key, prefix.len()) {
                    ids.insert(id);
                }
            }
        }
        let mut batch = Batch::new();
        let mut removed = 0;
        for id in ids.difference(&waiting).copied() {
            let Some(entry) = self.get::<ArchiveEntry>(Tree::Archive, id.to_be_bytes())? else {
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
            self.commit(batch)?;
        }
        Ok(removed)
    }
}
