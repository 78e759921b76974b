//! Writes gathered by a caller and applied as one transaction ([`Batch`]).

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::error::StoreError;
use super::mails::{ArchiveEntry, OutboxEntry, QuarantineEntry};
use super::schema::{Part, Tree, bad_game, key_of_game, part_key, show_key, uid_key};

/// One write inside a [`Batch`], already serialized.
#[derive(Debug, Clone)]
pub(super) enum Op {
    Put {
        tree: Tree,
        key: Vec<u8>,
        value: Vec<u8>,
    },
    Delete {
        tree: Tree,
        key: Vec<u8>,
    },
    Archive {
        value: Vec<u8>,
        games: Vec<String>,
    },
    /// A new outbox entry (its `raw` empty): its `seq` is allocated inside the transaction.
    /// `body`: its mail compressed (`packed.rs`), or `None` when its mail is the one archived
    /// last in this transaction (the entry then names it). `raw`: the mail of such an entry, not
    /// written — what a watcher of the outbox ([`Outbox::take_enqueued`]) is given; empty for an
    /// entry with a body of its own (read back when wanted).
    ///
    /// [`Outbox::take_enqueued`]: super::outbox::Outbox::take_enqueued
    Enqueue {
        entry: Box<OutboxEntry>,
        body: Option<Vec<u8>>,
        raw: Vec<u8>,
    },
    /// An entry of the index of deadlines (`Due`, its key) due at `at` (`None`: removed), with
    /// its place in `DueOrder` moved in the transaction (the old instant is read there).
    Due {
        key: String,
        at: Option<chrono::DateTime<chrono::Utc>>,
    },
    /// Test hook: abort the transaction at this point.
    #[cfg(test)]
    Fail,
}

/// Writes gathered by the caller and applied atomically by [`super::Store::commit`].
///
/// Values are serialized when they are added; the first failure is remembered and makes
/// `commit` write nothing and return that error.
#[derive(Debug, Default)]
pub struct Batch {
    pub(super) ops: Vec<Op>,
    pub(super) error: Option<StoreError>,
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Batch {
        Batch::default()
    }

    /// Whether nothing has been added.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty() && self.error.is_none()
    }

    fn fail(&mut self, e: StoreError) {
        if self.error.is_none() {
            self.error = Some(e);
        }
    }

    fn serialize<T: Serialize + ?Sized>(
        &mut self,
        tree: Tree,
        key: &[u8],
        value: &T,
    ) -> Option<Vec<u8>> {
        match serde_json::to_vec(value) {
            Ok(v) => Some(v),
            Err(source) => {
                self.fail(StoreError::Serialize {
                    tree,
                    key: show_key(key),
                    source,
                });
                None
            }
        }
    }

    /// Store `value` under `key` in `tree` (replacing what was there).
    pub(super) fn put<T: Serialize + ?Sized>(
        &mut self,
        tree: Tree,
        key: impl AsRef<[u8]>,
        value: &T,
    ) -> &mut Batch {
        if self.archive_guard(tree, key.as_ref()) {
            return self;
        }
        self.put_unguarded(tree, key, value)
    }

    /// TO §11, Fax 2.8: the archive is append-only; a batch that would delete or overwrite an
    /// archive entry fails as a whole. Only the rotation after a tournament's end + 4 weeks removes
    /// archived mails, and the withdrawal of a tournament before its first move
    /// (`Store::remove_tournament`: games never played keep no correspondence).
    fn archive_guard(&mut self, tree: Tree, key: &[u8]) -> bool {
        let guarded = match tree {
            Tree::Archive => true,
            Tree::ByGame => Part::of(key) == Some(Part::Archived),
            _ => false,
        };
        if guarded {
            self.fail(StoreError::InvalidKey {
                tree,
                reason: "the mail archive is never changed or deleted (TO §11, Fax 2.8)".into(),
            });
        }
        guarded
    }

    /// Remove `key` from `tree` (nothing happens if it is absent).
    pub(super) fn delete(&mut self, tree: Tree, key: impl AsRef<[u8]>) -> &mut Batch {
        if self.archive_guard(tree, key.as_ref()) {
            return self;
        }
        self.delete_unguarded(tree, key)
    }

    /// Stores `value` under `key` even in the archive: [`Batch::put`] after its guard, and the
    /// tests that play a forger (`fernzug verify`).
    pub(super) fn put_unguarded<T: Serialize + ?Sized>(
        &mut self,
        tree: Tree,
        key: impl AsRef<[u8]>,
        value: &T,
    ) -> &mut Batch {
        let key = key.as_ref();
        if let Some(value) = self.serialize(tree, key, value) {
            self.ops.push(Op::Put {
                tree,
                key: key.to_vec(),
                value,
            });
        }
        self
    }

    /// Removes `key` even from the archive: only for [`Archive::rotate`], which removes a
    /// tournament's mails no earlier than 4 weeks after its end (Fax 2.8), and for
    /// `Store::remove_tournament` (a tournament withdrawn before its first move).
    ///
    /// [`Archive::rotate`]: super::archive::Archive::rotate
    pub(super) fn delete_unguarded(&mut self, tree: Tree, key: impl AsRef<[u8]>) -> &mut Batch {
        self.ops.push(Op::Delete {
            tree,
            key: key.as_ref().to_vec(),
        });
        self
    }

    /// Append event number `seq` to the log of `game`.
    pub fn append_event<T: Serialize + ?Sized>(
        &mut self,
        game: &str,
        seq: u64,
        event: &T,
    ) -> &mut Batch {
        if self.refuses_game(game) {
            return self;
        }
        self.put(Tree::ByGame, part_key(game, Part::Event, seq), event)
    }

    /// Fails the batch when `game` cannot be part of a key of [`Tree::ByGame`] ([`bad_game`]).
    pub(super) fn refuses_game(&mut self, game: &str) -> bool {
        match bad_game(game) {
            Some(reason) => {
                self.fail(StoreError::InvalidKey {
                    tree: Tree::ByGame,
                    reason,
                });
                true
            }
            None => false,
        }
    }

    /// Binds reply key `key` of `game`: in [`Tree::Keys`] and among the game's own records
    /// ([`Tree::ByGame`]).
    pub fn bind_key<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        game: &str,
        binding: &T,
    ) -> &mut Batch {
        if self.refuses_game(game) {
            return self;
        }
        // The game's entry holds the key alone: the binding is read from `Keys` (a binding is
        // not kept in two trees).
        self.put_bytes(Tree::ByGame, &key_of_game(game, key), Vec::new());
        self.put(Tree::Keys, key.as_bytes(), binding)
    }

    /// Unbinds reply key `key` of `game` (from [`Tree::Keys`] and the game's records).
    pub fn unbind_key(&mut self, key: &str, game: &str) -> &mut Batch {
        self.delete(Tree::ByGame, key_of_game(game, key));
        self.delete(Tree::Keys, key.as_bytes())
    }

    /// Removes event `seq` from the log of `game` (the game went to a shelf file with its log).
    pub fn remove_event(&mut self, game: &str, seq: u64) -> &mut Batch {
        self.delete(Tree::ByGame, part_key(game, Part::Event, seq))
    }

    /// Put `value`, already in its stored form, under `key` (`outbox.rs`: a head rewritten).
    pub(super) fn put_bytes(&mut self, tree: Tree, key: &[u8], value: Vec<u8>) -> &mut Batch {
        self.ops.push(Op::Put {
            tree,
            key: key.to_vec(),
            value,
        });
        self
    }

    /// Put a mail into the outbox (key: its `id`), its mail kept with it (compressed).
    pub fn enqueue(&mut self, entry: &OutboxEntry) -> &mut Batch {
        self.enqueue_as(entry, false)
    }

    /// Put a mail into the outbox whose bytes are exactly those of the mail archived last
    /// before it in this batch ([`Batch::archive`]): the entry names that archived mail instead
    /// of keeping a copy (`packed.rs`). `entry.raw` is not stored; given (it may be empty), a
    /// watcher of the outbox is handed it ([`Outbox::take_enqueued`]).
    ///
    /// [`Outbox::take_enqueued`]: super::outbox::Outbox::take_enqueued
    pub fn enqueue_archived(&mut self, entry: &OutboxEntry) -> &mut Batch {
        if !self.ops.iter().any(|o| matches!(o, Op::Archive { .. })) {
            self.fail(StoreError::InvalidKey {
                tree: Tree::Outbox,
                reason: format!("{}: no mail archived before it in this batch", entry.id),
            });
            return self;
        }
        self.enqueue_as(entry, true)
    }

    fn enqueue_as(&mut self, entry: &OutboxEntry, archived: bool) -> &mut Batch {
        if entry.id.is_empty() {
            self.fail(StoreError::InvalidKey {
                tree: Tree::Outbox,
                reason: "the outbox entry has an empty id".to_string(),
            });
            return self;
        }
        let body = if archived {
            None
        } else {
            match super::packed::compress(&entry.raw) {
                Ok(body) => Some(body),
                Err(source) => {
                    self.fail(StoreError::Compress {
                        tree: Tree::Outbox,
                        key: entry.id.clone(),
                        source,
                    });
                    return self;
                }
            }
        };
        let head = entry.head();
        if entry.seq != 0 {
            // Written again (a retry): its place in line stays.
            if let Some(json) = self.serialize(Tree::Outbox, entry.id.as_bytes(), &head) {
                let value = super::packed::join(&json, body.as_deref().unwrap_or_default());
                self.ops.push(Op::Put {
                    tree: Tree::Outbox,
                    key: entry.id.as_bytes().to_vec(),
                    value,
                });
            }
            return self;
        }
        self.ops.push(Op::Enqueue {
            entry: Box::new(head),
            body,
            // Not twice in memory: a mail compressed beside its entry is read back if wanted.
            raw: if archived {
                entry.raw.clone()
            } else {
                Vec::new()
            },
        });
        self
    }

    /// Record that the mail with `message_id` has been handled at `at`.
    pub fn processed(&mut self, message_id: &str, at: DateTime<Utc>) -> &mut Batch {
        if message_id.is_empty() {
            self.fail(StoreError::InvalidKey {
                tree: Tree::Processed,
                reason: "the Message-ID is empty".to_string(),
            });
            return self;
        }
        self.put(Tree::Processed, message_id.as_bytes(), &at)
    }

    /// Record that IMAP message (`uidvalidity`, `uid`) has been handled (its step, begun, ended).
    pub fn uid_done(&mut self, uidvalidity: u32, uid: u32) -> &mut Batch {
        self.delete(Tree::Begun, uid_key(uidvalidity, uid));
        self.put(Tree::Uids, uid_key(uidvalidity, uid), &true)
    }

    /// Record that a process died in the step of IMAP message (`uidvalidity`, `uid`) `times`
    /// times so far ([`Store::begun`](super::Store::begun), the step record `step.rs`).
    pub fn begin_uid(&mut self, uidvalidity: u32, uid: u32, times: u32) -> &mut Batch {
        self.put(Tree::Begun, uid_key(uidvalidity, uid), &times)
    }

    /// Archive a mail; the archive id is allocated inside the transaction, and every game
    /// the entry names gets an index entry.
    pub fn archive(&mut self, entry: &ArchiveEntry) -> &mut Batch {
        if let Some(reason) = entry.games.iter().find_map(|g| bad_game(g)) {
            self.fail(StoreError::InvalidKey {
                tree: Tree::ByGame,
                reason,
            });
            return self;
        }
        let head = ArchiveEntry {
            direction: entry.direction,
            at: entry.at,
            games: entry.games.clone(),
            message_id: entry.message_id.clone(),
            raw: Vec::new(),
        };
        if let Some(head) = self.serialize(Tree::Archive, b"(new)", &head) {
            match super::packed::pack(&head, Some(&entry.raw)) {
                Ok(value) => self.ops.push(Op::Archive {
                    value,
                    games: entry.games.clone(),
                }),
                Err(source) => self.fail(StoreError::Compress {
                    tree: Tree::Archive,
                    key: entry.message_id.clone(),
                    source,
                }),
            }
        }
        self
    }

    /// Quarantine a mail (key: uidvalidity and uid, big-endian; a mail that did not come over
    /// IMAP, uid 0, is keyed `id:` + its Message-ID or, without one, its time).
    pub fn quarantine(&mut self, entry: &QuarantineEntry) -> &mut Batch {
        self.put(Tree::Quarantine, quarantine_key(entry), entry)
    }

    /// Takes `entry` out of quarantine (`fernzug quarantine retry` and `drop`); nothing happens
    /// if it is not there.
    pub fn unquarantine(&mut self, entry: &QuarantineEntry) -> &mut Batch {
        self.delete(Tree::Quarantine, quarantine_key(entry))
    }

    /// Moves every write of `other` into this batch (after the ones already here).
    pub fn append(&mut self, other: Batch) -> &mut Batch {
        if let Some(e) = other.error {
            self.fail(e);
        }
        self.ops.extend(other.ops);
        self
    }

    /// Test hook: make the transaction abort when it reaches this point.
    #[cfg(test)]
    pub(super) fn fail_here(&mut self) -> &mut Batch {
        self.ops.push(Op::Fail);
        self
    }
}

/// The key of a quarantined mail: its UIDVALIDITY and UID, big-endian; for a mail that did not
/// come over IMAP (uid 0), `id:` and its Message-ID or, without one, its time
/// ([`QuarantineEntry::id`] names it the same way).
fn quarantine_key(entry: &QuarantineEntry) -> Vec<u8> {
    if entry.uidvalidity == 0 && entry.uid == 0 {
        let id = entry
            .message_id
            .clone()
            .unwrap_or_else(|| entry.at.to_rfc3339());
        format!("id:{id}").into_bytes()
    } else {
        uid_key(entry.uidvalidity, entry.uid).to_vec()
    }
}
