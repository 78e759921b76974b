//! The persistent store: one redb database file (`DATA/store/fernzug.redb`), reached only
//! through this module.
//!
//! Everything the relay remembers lives in named trees ([`Tree`], one redb table each); the
//! values are the serde_json bytes of whatever the caller hands in. Writes are gathered in a
//! [`Batch`] and applied by [`Store::commit`] as ONE write transaction over all trees, which
//! redb makes durable with an fsync before `commit` returns (copy on write: a crash keeps the
//! last durable transaction whole, never a part of one). A caller acknowledges nothing to the
//! outside world (IMAP `\Seen`, SMTP) before `commit` returned `Ok`.
//!
//! Earlier versions kept the store in sled (`DATA/store/db`, `conf`, `snap.*`, `blobs/`): the
//! first opening moves sled's files aside and copies them over (`legacy.rs`).
//!
//! Key layouts (all integers big-endian so that byte order is numeric order):
//! - `Events`: game bytes, `0u8`, `seq: u64`
//! - `Uids`: `uidvalidity: u32`, `uid: u32`
//! - `Archive`: `id: u64`, allocated inside the transaction from a counter in `Meta`
//! - `ArchiveByGame`: game bytes, `0u8`, archive id `u64`
//! - `KeysByGame`: game bytes, `0u8`, the reply key
//! - `Outbox`: [`OutboxEntry::id`]; `Processed`: the Message-ID.

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

mod legacy;

use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata};

/// The layout version this program reads and writes.
pub const SCHEMA_VERSION: u32 = 1;

/// redb's page cache size (its default is 1 GiB). The relay reads what it needs once per input
/// (a tournament's games, their keys) and keeps it in its own state; the file's pages stay in
/// the kernel's page cache. Beside 110,000 games, 16 MiB cost `run` 5 MiB and `tournament add`
/// 13 MiB more than 4 MiB, and bought nothing measurable.
const CACHE_CAPACITY: usize = 4 * 1024 * 1024;

/// Key of the schema version in [`Tree::Meta`].
const SCHEMA_KEY: &[u8] = b"schema_version";

/// Key of the next archive id in [`Tree::Meta`].
const ARCHIVE_NEXT_KEY: &[u8] = b"archive_next";

/// Key of the next outbox sequence number in [`Tree::Meta`].
const OUTBOX_NEXT_KEY: &[u8] = b"outbox_next";
/// In `Meta`: how many transactions were ever applied (see [`Store::generation`]).
const GENERATION_KEY: &[u8] = b"generation";

/// The named trees of the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tree {
    /// Schema version and internal counters.
    Meta,
    /// Tournament records.
    Tournaments,
    /// Game records.
    Games,
    /// Per-player keys (tokens, secrets).
    Keys,
    /// The event log of each game (`game 0 seq`).
    Events,
    /// Mails waiting to be sent, one [`OutboxEntry`] per envelope recipient.
    Outbox,
    /// Message-IDs already handled, with the time they were handled.
    Processed,
    /// IMAP (UIDVALIDITY, UID) pairs already handled.
    Uids,
    /// Every mail in and out, [`ArchiveEntry`] by monotonic id.
    Archive,
    /// Index `game 0 archive-id` into [`Tree::Archive`].
    ArchiveByGame,
    /// Mails that could not be handled, [`QuarantineEntry`].
    Quarantine,
    /// The shelved games the core changed after they were shelved (`crate::app::shelf`: the
    /// others wait in the shelf files beside the store), and those shelved by versions before
    /// the shelf files: read only when a mail or a command names them, never at start.
    ShelvedGames,
    /// The reply keys of the shelved games.
    ShelvedKeys,
    /// The shell's index of pending deadlines (`crate::app::due`): each game's earliest deadline,
    /// each tournament's next digest and from when its archive may be rotated — so that a start
    /// need not read every game to learn when to wake.
    Due,
    /// The reply keys of each game (`game 0 key` → its binding, as in [`Tree::Keys`]): the
    /// relay reads the keys of the tournaments it works on, not every key at start. Written
    /// only through [`Batch::bind_key`] / [`Batch::unbind_key`], together with `Keys`.
    KeysByGame,
}

impl Tree {
    /// Every tree, in a fixed order (the index of a tree in this list is its slot in a
    /// transaction).
    pub const ALL: [Tree; 15] = [
        Tree::Meta,
        Tree::Tournaments,
        Tree::Games,
        Tree::Keys,
        Tree::Events,
        Tree::Outbox,
        Tree::Processed,
        Tree::Uids,
        Tree::Archive,
        Tree::ArchiveByGame,
        Tree::Quarantine,
        Tree::ShelvedGames,
        Tree::ShelvedKeys,
        Tree::Due,
        Tree::KeysByGame,
    ];

    /// The tree's name: its table in the redb file (and its tree in an earlier version's sled).
    pub fn name(self) -> &'static str {
        match self {
            Tree::Meta => "meta",
            Tree::Tournaments => "tournaments",
            Tree::Games => "games",
            Tree::Keys => "keys",
            Tree::Events => "events",
            Tree::Outbox => "outbox",
            Tree::Processed => "processed",
            Tree::Uids => "uids",
            Tree::Archive => "archive",
            Tree::ArchiveByGame => "archive_by_game",
            Tree::Quarantine => "quarantine",
            Tree::ShelvedGames => "shelved_games",
            Tree::ShelvedKeys => "shelved_keys",
            Tree::Due => "due",
            Tree::KeysByGame => "keys_by_game",
        }
    }

    /// The slot of this tree in [`Tree::ALL`].
    fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A key shown in an error message (non-printable bytes escaped).
fn show_key(key: &[u8]) -> String {
    key.escape_ascii().to_string()
}

/// What went wrong with the store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// redb could not open (or create) the database file.
    #[error("cannot open the database in {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: Box<redb::DatabaseError>,
    },
    /// A file or directory of the store could not be made, moved or read.
    #[error("cannot {what} {path}: {source}")]
    Files {
        path: PathBuf,
        what: &'static str,
        #[source]
        source: io::Error,
    },
    /// The store an earlier fernzug kept in sled could not be read to be copied over.
    #[error("cannot read the earlier store (sled) in {path} to take it over: {source}")]
    Legacy {
        path: PathBuf,
        #[source]
        source: sled::Error,
    },
    /// The database was written by a program with another layout.
    #[error(
        "the database in {path} has schema version {found}, but this program reads version {expected}"
    )]
    Schema {
        path: PathBuf,
        found: u32,
        expected: u32,
    },
    /// The database holds data but no schema version: not something this program wrote.
    #[error(
        "the database in {path} holds data but has no schema version in its meta tree; refusing to use it"
    )]
    NoSchema { path: PathBuf },
    /// A database operation failed.
    #[error("database in {path}: {what} failed: {source}")]
    Db {
        path: PathBuf,
        what: String,
        #[source]
        source: Box<redb::Error>,
    },
    /// A value handed to a [`Batch`] could not be serialized; nothing was written.
    #[error("cannot serialize the value for {tree}/{key}: {source}")]
    Serialize {
        tree: Tree,
        key: String,
        #[source]
        source: serde_json::Error,
    },
    /// A stored value does not deserialize into the type asked for.
    #[error(
        "database in {path}: the value at {tree}/{key} cannot be read as the expected type: {source}"
    )]
    Corrupt {
        path: PathBuf,
        tree: Tree,
        key: String,
        #[source]
        source: serde_json::Error,
    },
    /// A stored key does not have the layout its tree uses.
    #[error("database in {path}: the key {key} in {tree} is malformed: {reason}")]
    BadKey {
        path: PathBuf,
        tree: Tree,
        key: String,
        reason: String,
    },
    /// A key handed to a [`Batch`] cannot be stored; nothing was written.
    #[error("invalid key for {tree}: {reason}")]
    InvalidKey { tree: Tree, reason: String },
    /// An entry that had to exist does not.
    #[error("database in {path}: there is no entry {key} in {tree}")]
    Missing {
        path: PathBuf,
        tree: Tree,
        key: String,
    },
    /// fsync of a database file or directory failed.
    #[error("cannot fsync {path}: {source}")]
    Sync {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The transaction was aborted; nothing was written.
    #[error("database in {path}: the batch was aborted, nothing written: {reason}")]
    Aborted { path: PathBuf, reason: String },
}

impl StoreError {
    /// Whether the database is held by another fernzug process (redb locks its file exclusively).
    pub fn is_locked(&self) -> bool {
        matches!(
            self,
            StoreError::Open { source, .. }
                if matches!(**source, redb::DatabaseError::DatabaseAlreadyOpen)
        )
    }
}

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
    /// The games this mail concerns (each gets an [`Tree::ArchiveByGame`] index entry).
    pub games: Vec<String>,
    /// The mail's Message-ID.
    pub message_id: String,
    /// The raw mail.
    #[serde(with = "raw_bytes")]
    pub raw: Vec<u8>,
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

/// One write inside a [`Batch`], already serialized.
#[derive(Debug, Clone)]
enum Op {
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
    /// A new outbox entry: its `seq` is allocated inside the transaction.
    Enqueue {
        entry: Box<OutboxEntry>,
    },
    /// Test hook: abort the transaction at this point.
    #[cfg(test)]
    Fail,
}

/// Writes gathered by the caller and applied atomically by [`Store::commit`].
///
/// Values are serialized when they are added; the first failure is remembered and makes
/// `commit` write nothing and return that error.
#[derive(Debug, Default)]
pub struct Batch {
    ops: Vec<Op>,
    error: Option<StoreError>,
}

/// `game 0 n` (the layout of [`Tree::Events`] and [`Tree::ArchiveByGame`] keys).
fn game_key(game: &str, n: u64) -> Vec<u8> {
    let mut key = game_prefix(game);
    key.extend_from_slice(&n.to_be_bytes());
    key
}

/// `game 0 key` (the layout of [`Tree::KeysByGame`] keys).
fn game_key_of(game: &str, key: &str) -> Vec<u8> {
    let mut by_game = game_prefix(game);
    by_game.extend_from_slice(key.as_bytes());
    by_game
}

/// `game 0`.
fn game_prefix(game: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(game.len() + 9);
    key.extend_from_slice(game.as_bytes());
    key.push(0);
    key
}

/// Why a game name cannot be part of a key, if it cannot.
fn bad_game(game: &str) -> Option<String> {
    if game.is_empty() {
        Some("the game name is empty".to_string())
    } else if game.as_bytes().contains(&0) {
        Some(format!("the game name {game:?} contains a NUL byte"))
    } else {
        None
    }
}

/// The `Uids` key: both numbers big-endian.
fn uid_key(uidvalidity: u32, uid: u32) -> [u8; 8] {
    let mut key = [0u8; 8];
    key[..4].copy_from_slice(&uidvalidity.to_be_bytes());
    key[4..].copy_from_slice(&uid.to_be_bytes());
    key
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
    pub fn put<T: Serialize + ?Sized>(
        &mut self,
        tree: Tree,
        key: impl AsRef<[u8]>,
        value: &T,
    ) -> &mut Batch {
        let key = key.as_ref();
        if self.archive_guard(tree) {
            return self;
        }
        if let Some(value) = self.serialize(tree, key, value) {
            self.ops.push(Op::Put {
                tree,
                key: key.to_vec(),
                value,
            });
        }
        self
    }

    /// TO §11, Fax 2.8: the archive is append-only; a batch that would delete or overwrite an
    /// archive entry fails as a whole. Only the rotation after a tournament's end + 4 weeks removes
    /// archived mails.
    fn archive_guard(&mut self, tree: Tree) -> bool {
        let guarded = matches!(tree, Tree::Archive | Tree::ArchiveByGame);
        if guarded {
            self.fail(StoreError::InvalidKey {
                tree,
                reason: "the mail archive is never changed or deleted (TO §11, Fax 2.8)".into(),
            });
        }
        guarded
    }

    /// Remove `key` from `tree` (nothing happens if it is absent).
    pub fn delete(&mut self, tree: Tree, key: impl AsRef<[u8]>) -> &mut Batch {
        if self.archive_guard(tree) {
            return self;
        }
        self.delete_unguarded(tree, key)
    }

    /// Overwrites `key` even in the archive: for tests that play a forger (`fernzug verify`).
    #[cfg(test)]
    pub(crate) fn put_unguarded<T: Serialize + ?Sized>(
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

    /// Removes `key` even from the archive: only for [`Store::rotate_archive`], which removes a
    /// tournament's mails no earlier than 4 weeks after its end (Fax 2.8).
    fn delete_unguarded(&mut self, tree: Tree, key: impl AsRef<[u8]>) -> &mut Batch {
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
        if self.refuses_game(Tree::Events, game) {
            return self;
        }
        self.put(Tree::Events, game_key(game, seq), event)
    }

    /// Fails the batch when `game` cannot be part of a key of `tree` ([`bad_game`]).
    fn refuses_game(&mut self, tree: Tree, game: &str) -> bool {
        match bad_game(game) {
            Some(reason) => {
                self.fail(StoreError::InvalidKey { tree, reason });
                true
            }
            None => false,
        }
    }

    /// Binds reply key `key` of `game`: in [`Tree::Keys`] and in the index [`Tree::KeysByGame`].
    pub fn bind_key<T: Serialize + ?Sized>(
        &mut self,
        key: &str,
        game: &str,
        binding: &T,
    ) -> &mut Batch {
        if self.refuses_game(Tree::KeysByGame, game) {
            return self;
        }
        self.put(Tree::KeysByGame, game_key_of(game, key), binding);
        self.put(Tree::Keys, key.as_bytes(), binding)
    }

    /// Unbinds reply key `key` of `game` (from [`Tree::Keys`] and the index).
    pub fn unbind_key(&mut self, key: &str, game: &str) -> &mut Batch {
        self.delete(Tree::KeysByGame, game_key_of(game, key));
        self.delete(Tree::Keys, key.as_bytes())
    }

    /// Removes event `seq` from the log of `game` (the game went to a shelf file with its log).
    pub fn remove_event(&mut self, game: &str, seq: u64) -> &mut Batch {
        self.delete(Tree::Events, game_key(game, seq))
    }

    /// Put a mail into the outbox (key: its `id`).
    pub fn enqueue(&mut self, entry: &OutboxEntry) -> &mut Batch {
        if entry.id.is_empty() {
            self.fail(StoreError::InvalidKey {
                tree: Tree::Outbox,
                reason: "the outbox entry has an empty id".to_string(),
            });
            return self;
        }
        if entry.seq != 0 {
            return self.put(Tree::Outbox, entry.id.as_bytes(), entry);
        }
        self.ops.push(Op::Enqueue {
            entry: Box::new(entry.clone()),
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

    /// Record that IMAP message (`uidvalidity`, `uid`) has been handled.
    pub fn uid_done(&mut self, uidvalidity: u32, uid: u32) -> &mut Batch {
        self.put(Tree::Uids, uid_key(uidvalidity, uid), &true)
    }

    /// Archive a mail; the archive id is allocated inside the transaction, and every game
    /// the entry names gets an index entry.
    pub fn archive(&mut self, entry: &ArchiveEntry) -> &mut Batch {
        if let Some(reason) = entry.games.iter().find_map(|g| bad_game(g)) {
            self.fail(StoreError::InvalidKey {
                tree: Tree::ArchiveByGame,
                reason,
            });
            return self;
        }
        if let Some(value) = self.serialize(Tree::Archive, b"(new)", entry) {
            self.ops.push(Op::Archive {
                value,
                games: entry.games.clone(),
            });
        }
        self
    }

    /// Quarantine a mail (key: uidvalidity and uid, big-endian; a mail that did not come over
    /// IMAP, uid 0, is keyed `id:` + its Message-ID or, without one, its time).
    pub fn quarantine(&mut self, entry: &QuarantineEntry) -> &mut Batch {
        let key = if entry.uidvalidity == 0 && entry.uid == 0 {
            let id = entry
                .message_id
                .clone()
                .unwrap_or_else(|| entry.at.to_rfc3339());
            format!("id:{id}").into_bytes()
        } else {
            uid_key(entry.uidvalidity, entry.uid).to_vec()
        };
        self.put(Tree::Quarantine, key, entry)
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
    fn fail_here(&mut self) -> &mut Batch {
        self.ops.push(Op::Fail);
        self
    }
}

/// Why the transaction closure aborted.
#[derive(Debug)]
enum Abort {
    /// The archive counter in `Meta` is unreadable.
    Counter(String),
    /// The test hook.
    #[cfg(test)]
    Injected,
}

impl fmt::Display for Abort {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Abort::Counter(why) => write!(
                f,
                "a counter in meta is unreadable, or an entry cannot be written: {why}"
            ),
            #[cfg(test)]
            Abort::Injected => f.write_str("injected failure (test)"),
        }
    }
}

/// One redb table per [`Tree`]: keys and values as bytes.
fn table(t: Tree) -> redb::TableDefinition<'static, &'static [u8], &'static [u8]> {
    redb::TableDefinition::new(t.name())
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
}

/// The database handle. Cheap to clone; all clones share one database.
#[derive(Clone)]
pub struct Store {
    path: PathBuf,
    db: std::sync::Arc<Db>,
    /// The generation after this handle's last transaction (or as read at opening).
    generation: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// While watched ([`Store::watch_enqueued`]): the ids of the outbox entries enqueued since
    /// they were last taken.
    enqueued: std::sync::Arc<std::sync::Mutex<Option<Vec<String>>>>,
}

impl fmt::Debug for Store {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Store").field("path", &self.path).finish()
    }
}

impl Store {
    /// Open (or create) the database in `dir` and check its schema version. A store an earlier
    /// fernzug kept in sled is copied over first (`legacy.rs`).
    pub fn open(dir: &Path) -> Result<Store, StoreError> {
        let path = dir.to_path_buf();
        let fresh = !dir.join(FILE).exists();
        std::fs::create_dir_all(dir).map_err(|source| StoreError::Files {
            path: path.clone(),
            what: "create the store directory",
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
        let store = Store {
            path,
            db: std::sync::Arc::new(Db {
                db,
                pending: std::sync::atomic::AtomicBool::new(false),
            }),
            generation: std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0)),
            enqueued: Default::default(),
        };
        store.create_tables()?;
        legacy::take_over(&store)?;
        store.check_schema()?;
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

    fn check_schema(&self) -> Result<(), StoreError> {
        let found: Option<u32> = self.get(Tree::Meta, SCHEMA_KEY)?;
        match found {
            Some(v) if v == SCHEMA_VERSION => Ok(()),
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
                self.commit(batch)
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
        let mut tx = self
            .db
            .db
            .begin_write()
            .map_err(self.db_err("the batch transaction"))?;
        tx.set_durability(redb::Durability::None)
            .map_err(self.db_err("the batch transaction"))?;
        // Dropped without a commit on any error: nothing of it is written.
        let generation = self.write_ops(&tx, &ops)?;
        tx.commit().map_err(self.db_err("the batch transaction"))?;
        self.db
            .pending
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.generation
            .store(generation, std::sync::atomic::Ordering::SeqCst);
        if let Some(ids) = self
            .enqueued
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_mut()
        {
            ids.extend(ops.iter().filter_map(|op| match op {
                Op::Enqueue { entry } => Some(entry.id.clone()),
                _ => None,
            }));
        }
        crate::crash::point("after-commit");
        Ok(())
    }

    /// Writes `ops` in transaction `tx`; returns the store's generation after it.
    fn write_ops(&self, tx: &redb::WriteTransaction, ops: &[Op]) -> Result<u64, StoreError> {
        let mut tables = Vec::with_capacity(Tree::ALL.len());
        for t in Tree::ALL {
            tables.push(tx.open_table(table(t)).map_err(|e| self.write_err(t, e))?);
        }
        let aborted = |reason: Abort| StoreError::Aborted {
            path: self.path.clone(),
            reason: reason.to_string(),
        };
        let mut next_archive: Option<u64> = None;
        let mut next_outbox: Option<u64> = None;
        for op in ops {
            match op {
                Op::Put { tree, key, value } => {
                    tables[tree.index()]
                        .insert(key.as_slice(), value.as_slice())
                        .map_err(|e| self.write_err(*tree, e))?;
                }
                Op::Delete { tree, key } => {
                    tables[tree.index()]
                        .remove(key.as_slice())
                        .map_err(|e| self.write_err(*tree, e))?;
                }
                Op::Archive { value, games } => {
                    let id = match next_archive {
                        Some(id) => id,
                        None => self.read_u64(&tables[Tree::Meta.index()], ARCHIVE_NEXT_KEY)?,
                    };
                    let key = id.to_be_bytes();
                    tables[Tree::Archive.index()]
                        .insert(&key[..], value.as_slice())
                        .map_err(|e| self.write_err(Tree::Archive, e))?;
                    let index_value = id.to_string();
                    for game in games {
                        tables[Tree::ArchiveByGame.index()]
                            .insert(game_key(game, id).as_slice(), index_value.as_bytes())
                            .map_err(|e| self.write_err(Tree::ArchiveByGame, e))?;
                    }
                    next_archive = Some(id.saturating_add(1));
                }
                Op::Enqueue { entry } => {
                    let seq = match next_outbox {
                        Some(n) => n,
                        None => self
                            .read_u64(&tables[Tree::Meta.index()], OUTBOX_NEXT_KEY)?
                            .max(1),
                    };
                    let mut entry = (**entry).clone();
                    entry.seq = seq;
                    let value = serde_json::to_vec(&entry).map_err(|e| {
                        aborted(Abort::Counter(format!("outbox entry {}: {e}", entry.id)))
                    })?;
                    tables[Tree::Outbox.index()]
                        .insert(entry.id.as_bytes(), value.as_slice())
                        .map_err(|e| self.write_err(Tree::Outbox, e))?;
                    next_outbox = Some(seq.saturating_add(1));
                }
                #[cfg(test)]
                Op::Fail => return Err(aborted(Abort::Injected)),
            }
        }
        let meta = &mut tables[Tree::Meta.index()];
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
        }
        crate::crash::point("after-fsync");
        Ok(())
    }

    /// Read one value.
    pub fn get<T: DeserializeOwned>(
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
        serde_json::from_slice(value).map_err(|source| StoreError::Corrupt {
            path: self.path.clone(),
            tree,
            key: show_key(key),
            source,
        })
    }

    /// Every entry of `tree`, in key order.
    pub fn scan<T: DeserializeOwned>(&self, tree: Tree) -> Result<Vec<(Vec<u8>, T)>, StoreError> {
        self.scan_prefix(tree, [])
    }

    /// Hands every entry of `tree` to `each`, in key order, one at a time (nothing collected:
    /// for trees too large to hold twice).
    pub fn for_each<T: DeserializeOwned>(
        &self,
        tree: Tree,
        each: impl FnMut(&[u8], T),
    ) -> Result<(), StoreError> {
        self.each_prefix(tree, &[], each)
    }

    /// Hands every entry of `tree` whose key starts with `prefix` to `each`, in key order, one
    /// at a time.
    pub fn each_prefix<T: DeserializeOwned>(
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
    pub fn scan_prefix<T: DeserializeOwned>(
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
        let prefix = game_prefix(game);
        let mut out = Vec::new();
        for (key, value) in self.scan_prefix::<T>(Tree::Events, &prefix)? {
            // A longer key belongs to another game whose name starts with `game\0`
            // (impossible through `Batch`, which refuses NUL in game names).
            if let Some(seq) = suffix_u64(&key, prefix.len()) {
                out.push((seq, value));
            }
        }
        Ok(out)
    }

    /// The reply keys of `game` and their bindings (the index [`Tree::KeysByGame`]).
    pub fn keys_of_game<T: DeserializeOwned>(
        &self,
        game: &str,
    ) -> Result<Vec<(String, T)>, StoreError> {
        let prefix = game_prefix(game);
        Ok(self
            .scan_prefix::<T>(Tree::KeysByGame, &prefix)?
            .into_iter()
            .filter_map(|(k, b)| {
                let key = std::str::from_utf8(k.get(prefix.len()..)?).ok()?;
                Some((key.to_string(), b))
            })
            .collect())
    }

    /// The archived mails naming `game`, in archive order.
    pub fn archive_for_game(&self, game: &str) -> Result<Vec<ArchiveEntry>, StoreError> {
        let prefix = game_prefix(game);
        let mut out = Vec::new();
        for key in self.keys_with_prefix(Tree::ArchiveByGame, &prefix)? {
            let Some(id) = suffix_u64(&key, prefix.len()) else {
                continue;
            };
            match self.get::<ArchiveEntry>(Tree::Archive, id.to_be_bytes())? {
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

    /// Every quarantined mail, in key order (UIDVALIDITY, UID).
    pub fn quarantined(&self) -> Result<Vec<QuarantineEntry>, StoreError> {
        Ok(self
            .scan::<QuarantineEntry>(Tree::Quarantine)?
            .into_iter()
            .map(|(_, e)| e)
            .collect())
    }

    /// Removes, in one transaction, every archived mail all of whose games are in `games`
    /// (with its index entries); mails that also name another game stay. Returns how many
    /// were removed. The caller decides which games may go (Fax 2.8: `crate::core::records::retention`).
    pub fn rotate_archive(
        &self,
        games: &std::collections::BTreeSet<String>,
    ) -> Result<usize, StoreError> {
        let mut ids = std::collections::BTreeSet::new();
        for game in games {
            let prefix = game_prefix(game);
            for key in self.keys_with_prefix(Tree::ArchiveByGame, &prefix)? {
                if let Some(id) = suffix_u64(&key, prefix.len()) {
                    ids.insert(id);
                }
            }
        }
        let mut batch = Batch::new();
        let mut removed = 0;
        for id in ids {
            let Some(entry) = self.get::<ArchiveEntry>(Tree::Archive, id.to_be_bytes())? else {
                continue;
            };
            if !entry.games.iter().all(|g| games.contains(g)) {
                continue;
            }
            batch.delete_unguarded(Tree::Archive, id.to_be_bytes());
            for g in &entry.games {
                batch.delete_unguarded(Tree::ArchiveByGame, game_key(g, id));
            }
            removed += 1;
        }
        if removed > 0 {
            self.commit(batch)?;
        }
        Ok(removed)
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
}

/// The big-endian `u64` that makes up `key` after `prefix_len` bytes, if the key is
/// exactly that long.
fn suffix_u64(key: &[u8], prefix_len: usize) -> Option<u64> {
    let tail = key.get(prefix_len..)?;
    let bytes: [u8; 8] = tail.try_into().ok()?;
    Some(u64::from_be_bytes(bytes))
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

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    /// A fresh directory under the system temp dir, removed on drop.
    pub(super) struct TempDir(pub(super) PathBuf);

    impl TempDir {
        pub(super) fn new(name: &str) -> TempDir {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos())
                .unwrap_or(0);
            let p = std::env::temp_dir().join(format!(
                "fernzug-store-{name}-{}-{nanos}",
                std::process::id()
            ));
            std::fs::create_dir_all(&p).unwrap();
            TempDir(p)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn t(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 1, h, m, 0).unwrap()
    }

    fn outbox(id: &str, created: DateTime<Utc>, next: DateTime<Utc>) -> OutboxEntry {
        OutboxEntry {
            id: OutboxEntry::make_id(id, "a@x.test"),
            message_id: id.to_string(),
            envelope_from: "relay@x.test".to_string(),
            recipient: "a@x.test".to_string(),
            raw: format!("Message-ID: {id}\r\n\r\nbody\r\n").into_bytes(),
            kind: "move".to_string(),
            game: Some("T-1/1".to_string()),
            created,
            attempts: 0,
            next_attempt: next,
            last_error: None,
            seq: 0,
        }
    }

    fn archive(games: &[&str], mid: &str) -> ArchiveEntry {
        ArchiveEntry {
            direction: Direction::In,
            at: t(10, 0),
            games: games.iter().map(|g| g.to_string()).collect(),
            message_id: mid.to_string(),
            raw: b"raw \xff bytes".to_vec(),
        }
    }

    /// Serializing this always fails.
    struct Unserializable;

    impl Serialize for Unserializable {
        fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("refuses to serialize"))
        }
    }

    #[test]
    fn new_db_gets_schema_version_and_reopen_keeps_everything() {
        let dir = TempDir::new("reopen");
        {
            let s = Store::open(&dir.0).unwrap();
            assert_eq!(
                s.get::<u32>(Tree::Meta, SCHEMA_KEY).unwrap(),
                Some(SCHEMA_VERSION)
            );
            let mut b = Batch::new();
            b.put(Tree::Games, "T-1/1", &"game one")
                .append_event("T-1/1", 1, &"e1")
                .processed("<a@x>", t(9, 0))
                .uid_done(7, 42)
                .enqueue(&outbox("<m1@x>", t(9, 0), t(9, 0)))
                .archive(&archive(&["T-1/1"], "<a@x>"));
            s.commit(b).unwrap();
        }
        let s = open_again(&dir.0).unwrap();
        assert_eq!(
            s.get::<String>(Tree::Games, "T-1/1").unwrap().as_deref(),
            Some("game one")
        );
        assert_eq!(
            s.events::<String>("T-1/1").unwrap(),
            vec![(1, "e1".to_string())]
        );
        assert!(s.is_processed("<a@x>").unwrap());
        assert!(!s.is_processed("<b@x>").unwrap());
        assert!(s.is_uid_done(7, 42).unwrap());
        assert!(!s.is_uid_done(8, 42).unwrap());
        assert!(!s.is_uid_done(7, 43).unwrap());
        assert_eq!(s.outbox_all().unwrap().len(), 1);
        assert_eq!(
            s.archive_for_game("T-1/1").unwrap(),
            vec![archive(&["T-1/1"], "<a@x>")]
        );
    }

    #[test]
    fn schema_mismatch_is_refused() {
        let dir = TempDir::new("schema");
        {
            let s = Store::open(&dir.0).unwrap();
            let mut b = Batch::new();
            b.put(Tree::Meta, SCHEMA_KEY, &(SCHEMA_VERSION + 1));
            s.commit(b).unwrap();
        }
        let err = reopen_refused(&dir.0);
        match &err {
            StoreError::Schema {
                found,
                expected,
                path,
            } => {
                assert_eq!(*found, SCHEMA_VERSION + 1);
                assert_eq!(*expected, SCHEMA_VERSION);
                assert_eq!(path, &dir.0);
            }
            other => panic!("expected a schema error, got {other:?}"),
        }
        let msg = err.to_string();
        assert!(msg.contains(&dir.0.display().to_string()), "{msg}");
        assert!(msg.contains("schema version 2"), "{msg}");
    }

    #[test]
    fn data_without_schema_is_refused() {
        let dir = TempDir::new("noschema");
        {
            let s = Store::open(&dir.0).unwrap();
            let mut b = Batch::new();
            b.put(Tree::Games, "g", &1).delete(Tree::Meta, SCHEMA_KEY);
            s.commit(b).unwrap();
        }
        assert!(matches!(
            reopen_refused(&dir.0),
            StoreError::NoSchema { .. }
        ));
    }

    /// Opens the store in `dir` again, waiting while another handle still holds the file lock.
    fn open_again(dir: &std::path::Path) -> Result<Store, StoreError> {
        let started = std::time::Instant::now();
        loop {
            match Store::open(dir) {
                Err(e) if e.is_locked() && started.elapsed().as_secs() < 10 => {
                    std::thread::sleep(std::time::Duration::from_millis(20))
                }
                opened => break opened,
            }
        }
    }

    /// Opens a store that must be refused ([`open_again`]).
    fn reopen_refused(dir: &std::path::Path) -> StoreError {
        match open_again(dir) {
            Err(e) => e,
            Ok(_) => panic!("the store was opened"),
        }
    }

    #[test]
    fn commit_with_failing_serialize_writes_nothing() {
        let dir = TempDir::new("atomic-ser");
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.put(Tree::Games, "g1", &"one")
            .processed("<x@y>", t(1, 0))
            .put(Tree::Games, "g2", &Unserializable)
            .put(Tree::Games, "g3", &"three");
        let err = s.commit(b).unwrap_err();
        assert!(
            matches!(
                err,
                StoreError::Serialize {
                    tree: Tree::Games,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("games/g2"), "{err}");
        assert!(s.scan::<String>(Tree::Games).unwrap().is_empty());
        assert!(!s.is_processed("<x@y>").unwrap());
    }

    #[test]
    fn commit_aborted_midway_writes_nothing() {
        let dir = TempDir::new("atomic-abort");
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.put(Tree::Games, "g1", &"one")
            .enqueue(&outbox("<m@x>", t(1, 0), t(1, 0)))
            .archive(&archive(&["T-1/1"], "<a@x>"))
            .uid_done(1, 1)
            .fail_here()
            .put(Tree::Games, "g2", &"two");
        let err = s.commit(b).unwrap_err();
        assert!(matches!(err, StoreError::Aborted { .. }), "{err:?}");
        assert!(s.scan::<String>(Tree::Games).unwrap().is_empty());
        assert!(s.outbox_all().unwrap().is_empty());
        assert!(s.archive_for_game("T-1/1").unwrap().is_empty());
        assert!(!s.is_uid_done(1, 1).unwrap());
        assert_eq!(s.get::<String>(Tree::Meta, ARCHIVE_NEXT_KEY).unwrap(), None);
        // The archive counter did not move: the next archive gets id 0.
        let mut b = Batch::new();
        b.archive(&archive(&["T-1/1"], "<a@x>"));
        s.commit(b).unwrap();
        assert!(
            s.get::<ArchiveEntry>(Tree::Archive, 0u64.to_be_bytes())
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn invalid_game_name_refuses_the_whole_batch() {
        let dir = TempDir::new("badgame");
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.put(Tree::Games, "g1", &"one")
            .append_event("a\0b", 1, &"e");
        assert!(matches!(
            s.commit(b),
            Err(StoreError::InvalidKey {
                tree: Tree::Events,
                ..
            })
        ));
        assert!(s.scan::<String>(Tree::Games).unwrap().is_empty());
    }

    #[test]
    fn applied_batches_are_read_at_once_and_kept_by_closing_the_store() {
        let dir = TempDir::new("apply");
        let s = Store::open(&dir.0).unwrap();
        assert!(dir.0.join(FILE).is_file());
        let mut b = Batch::new();
        b.put(Tree::Games, "g", &"x");
        s.apply(b).unwrap();
        assert_eq!(
            s.get::<String>(Tree::Games, "g").unwrap().as_deref(),
            Some("x")
        );
        let mut b = Batch::new();
        b.enqueue(&outbox("<m@x>", t(9, 0), t(9, 0)));
        s.commit(b).unwrap();
        let id = s.outbox_all().unwrap()[0].id.clone();
        // Deleting sent outbox entries changes nothing a closed process keeps: no transaction.
        let generation = s.generation();
        s.outbox_sent(&[id.as_str(), "none"]).unwrap();
        assert_eq!(s.generation(), generation);
        assert!(s.outbox_all().unwrap().is_empty());
        drop(s);
        // Closing made both the applied batch and the deletion durable.
        let s = open_again(&dir.0).unwrap();
        assert_eq!(
            s.get::<String>(Tree::Games, "g").unwrap().as_deref(),
            Some("x")
        );
        assert!(s.outbox_all().unwrap().is_empty());
        assert_eq!(s.generation(), generation);
        let err = sync_path(&dir.0.join("no-such-dir")).unwrap_err();
        assert!(matches!(err, StoreError::Sync { .. }));
    }

    #[test]
    fn event_keys_are_ordered_numerically_per_game() {
        let dir = TempDir::new("events");
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        for seq in [10u64, 2, 1, 256] {
            b.append_event("T-1/1", seq, &format!("e{seq}"));
        }
        b.append_event("T-1/10", 3, &"other game".to_string());
        b.append_event("T-1", 5, &"prefix game".to_string());
        s.commit(b).unwrap();
        let seqs: Vec<u64> = s
            .events::<String>("T-1/1")
            .unwrap()
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(seqs, vec![1, 2, 10, 256]);
        assert_eq!(
            s.events::<String>("T-1/10").unwrap(),
            vec![(3, "other game".to_string())]
        );
        assert_eq!(
            s.events::<String>("T-1").unwrap(),
            vec![(5, "prefix game".to_string())]
        );
        assert!(s.events::<String>("T-2/1").unwrap().is_empty());
    }

    /// The outbox entries due at `now`, oldest first (what `daemon` sends in a pass).
    fn due_at(s: &Store, now: DateTime<Utc>) -> Result<Vec<OutboxEntry>, StoreError> {
        let mut due = s.outbox_all()?;
        due.retain(|e| e.next_attempt <= now);
        Ok(due)
    }

    /// The earliest `next_attempt` in the outbox.
    fn next_attempt(s: &Store) -> Option<DateTime<Utc>> {
        s.outbox_all().unwrap().iter().map(|e| e.next_attempt).min()
    }

    /// Deletes entry `id` without sending it.
    fn remove(s: &Store, id: &str) -> Result<(), StoreError> {
        let mut batch = Batch::new();
        batch.delete(Tree::Outbox, id.as_bytes());
        s.commit(batch)
    }

    #[test]
    fn outbox_due_is_oldest_first_and_retry_reschedules() {
        let dir = TempDir::new("outbox");
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.enqueue(&outbox("<c@x>", t(9, 30), t(9, 30)))
            .enqueue(&outbox("<a@x>", t(9, 10), t(9, 10)))
            .enqueue(&outbox("<b@x>", t(9, 20), t(11, 0)));
        s.commit(b).unwrap();
        let due: Vec<String> = due_at(&s, t(10, 0))
            .unwrap()
            .into_iter()
            .map(|e| e.message_id)
            .collect();
        assert_eq!(due, vec!["<a@x>", "<c@x>"]);
        assert_eq!(next_attempt(&s), Some(t(9, 10)));

        let id_a = OutboxEntry::make_id("<a@x>", "a@x.test");
        s.outbox_retry(&id_a, t(12, 0), "421 try later").unwrap();
        let a = s
            .get::<OutboxEntry>(Tree::Outbox, id_a.as_bytes())
            .unwrap()
            .unwrap();
        assert_eq!(a.attempts, 1);
        assert_eq!(a.next_attempt, t(12, 0));
        assert_eq!(a.last_error.as_deref(), Some("421 try later"));
        let due: Vec<String> = due_at(&s, t(10, 0))
            .unwrap()
            .into_iter()
            .map(|e| e.message_id)
            .collect();
        assert_eq!(due, vec!["<c@x>"]);
        assert_eq!(next_attempt(&s), Some(t(9, 30)));

        s.outbox_sent(&[OutboxEntry::make_id("<c@x>", "a@x.test")])
            .unwrap();
        remove(&s, &OutboxEntry::make_id("<b@x>", "a@x.test")).unwrap();
        let all: Vec<String> = s
            .outbox_all()
            .unwrap()
            .into_iter()
            .map(|e| e.message_id)
            .collect();
        assert_eq!(all, vec!["<a@x>"]);
        assert_eq!(next_attempt(&s), Some(t(12, 0)));
        assert!(matches!(
            s.outbox_retry("nope", t(12, 0), "x"),
            Err(StoreError::Missing { .. })
        ));
        s.outbox_sent(&[&id_a]).unwrap();
        assert_eq!(next_attempt(&s), None);
    }

    #[test]
    fn archive_is_indexed_per_game_in_order() {
        let dir = TempDir::new("archive");
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.archive(&archive(&["T-1/1", "T-1/2"], "<1@x>"))
            .archive(&archive(&["T-1/2"], "<2@x>"));
        s.commit(b).unwrap();
        let mut b = Batch::new();
        b.archive(&archive(&["T-1/1"], "<3@x>"))
            .archive(&archive(&[], "<4@x>"));
        s.commit(b).unwrap();
        let ids = |g: &str| -> Vec<String> {
            s.archive_for_game(g)
                .unwrap()
                .into_iter()
                .map(|e| e.message_id)
                .collect()
        };
        assert_eq!(ids("T-1/1"), vec!["<1@x>", "<3@x>"]);
        assert_eq!(ids("T-1/2"), vec!["<1@x>", "<2@x>"]);
        assert!(ids("T-1/3").is_empty());
        let keys: Vec<Vec<u8>> = s
            .scan::<ArchiveEntry>(Tree::Archive)
            .unwrap()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        let want: Vec<Vec<u8>> = (0u64..4).map(|n| n.to_be_bytes().to_vec()).collect();
        assert_eq!(keys, want);
    }

    #[test]
    fn fax_2_8_rotation_removes_only_mails_all_of_whose_games_go() {
        let dir = TempDir::new("rotate");
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.archive(&archive(&["A-1/1"], "<1@x>"))
            .archive(&archive(&["A-1/2"], "<2@x>"))
            .archive(&archive(&["A-1/1", "B-1/1"], "<3@x>"))
            .archive(&archive(&["B-1/1"], "<4@x>"))
            .archive(&archive(&[], "<5@x>"));
        s.commit(b).unwrap();
        let games: std::collections::BTreeSet<String> =
            ["A-1/1".to_string(), "A-1/2".to_string()].into();
        assert_eq!(s.rotate_archive(&games).unwrap(), 2);
        assert!(s.archive_for_game("A-1/2").unwrap().is_empty());
        let left: Vec<String> = s
            .scan::<ArchiveEntry>(Tree::Archive)
            .unwrap()
            .into_iter()
            .map(|(_, e)| e.message_id)
            .collect();
        assert_eq!(left, vec!["<3@x>", "<4@x>", "<5@x>"]);
        // The mail that also belongs to B-1/1 stays, reachable from both games.
        assert_eq!(s.archive_for_game("A-1/1").unwrap().len(), 1);
        assert_eq!(s.archive_for_game("B-1/1").unwrap().len(), 2);
        assert_eq!(s.rotate_archive(&games).unwrap(), 0);
    }

    #[test]
    fn outbox_keeps_the_order_of_enqueueing_within_one_instant() {
        let dir = TempDir::new("outbox-seq");
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        for id in ["<9@x>", "<10@x>", "<11@x>"] {
            b.enqueue(&outbox(id, t(9, 0), t(9, 0)));
        }
        s.commit(b).unwrap();
        let mut b = Batch::new();
        b.enqueue(&outbox("<1@x>", t(9, 0), t(9, 0)));
        s.commit(b).unwrap();
        let order = |s: &Store| -> Vec<String> {
            s.outbox_all()
                .unwrap()
                .into_iter()
                .map(|e| e.message_id)
                .collect()
        };
        assert_eq!(order(&s), vec!["<9@x>", "<10@x>", "<11@x>", "<1@x>"]);
        // A retry keeps the place.
        s.outbox_retry(&OutboxEntry::make_id("<9@x>", "a@x.test"), t(9, 5), "421")
            .unwrap();
        assert_eq!(order(&s), vec!["<9@x>", "<10@x>", "<11@x>", "<1@x>"]);
        assert_eq!(s.next_outbox_head_attempt().unwrap(), Some(t(9, 5)));
        assert_eq!(next_attempt(&s), Some(t(9, 0)));
    }

    #[test]
    fn watched_enqueues_are_named_once_and_only_from_transactions_that_held() {
        let dir = TempDir::new("outbox-watch");
        let s = Store::open(&dir.0).unwrap();
        let id = |m: &str| OutboxEntry::make_id(m, "a@x.test");
        let mut b = Batch::new();
        b.enqueue(&outbox("<0@x>", t(9, 0), t(9, 0)));
        s.commit(b).unwrap();
        assert!(s.take_enqueued().is_empty(), "not watched: nothing noted");
        s.watch_enqueued(true);
        let mut b = Batch::new();
        b.enqueue(&outbox("<1@x>", t(9, 0), t(9, 0)))
            .enqueue(&outbox("<2@x>", t(9, 0), t(9, 0)));
        s.apply(b).unwrap();
        let mut b = Batch::new();
        b.enqueue(&outbox("<3@x>", t(9, 0), t(9, 0))).fail_here();
        assert!(s.commit(b).is_err());
        // A retry rewrites an entry: not a new one.
        s.outbox_retry(&id("<0@x>"), t(9, 5), "421").unwrap();
        assert_eq!(s.take_enqueued(), vec![id("<1@x>"), id("<2@x>")]);
        assert!(s.take_enqueued().is_empty(), "each named once");
        assert_eq!(
            s.outbox_entry(&id("<2@x>")).unwrap().map(|e| e.seq),
            Some(3),
            "read back with the order the store gave it"
        );
        s.outbox_sent(&[id("<1@x>"), id("<2@x>"), id("<absent@x>")])
            .unwrap();
        assert_eq!(s.outbox_all().unwrap().len(), 1);
        s.watch_enqueued(false);
        let mut b = Batch::new();
        b.enqueue(&outbox("<4@x>", t(9, 0), t(9, 0)));
        s.commit(b).unwrap();
        assert!(s.take_enqueued().is_empty());
    }

    #[test]
    fn quarantine_and_raw_bytes_round_trip() {
        let dir = TempDir::new("quarantine");
        let s = Store::open(&dir.0).unwrap();
        let q = QuarantineEntry {
            at: t(8, 0),
            uidvalidity: 3,
            uid: 9,
            message_id: None,
            reason: "no game reference".to_string(),
            raw: vec![0, 159, 146, 150, b'a'],
        };
        let mut b = Batch::new();
        b.quarantine(&q);
        s.commit(b).unwrap();
        let all = s.scan::<QuarantineEntry>(Tree::Quarantine).unwrap();
        assert_eq!(all, vec![(uid_key(3, 9).to_vec(), q)]);
        // UTF-8 mails are stored as a JSON string, not as a number array.
        let e = outbox("<u@x>", t(1, 0), t(1, 0));
        let json = serde_json::to_string(&e).unwrap();
        assert!(
            json.contains(r#""raw":"Message-ID: <u@x>\r\n\r\nbody\r\n""#),
            "{json}"
        );
    }

    #[test]
    fn corrupt_value_names_tree_and_key() {
        let dir = TempDir::new("corrupt");
        let s = Store::open(&dir.0).unwrap();
        let mut b = Batch::new();
        b.put(Tree::Games, "g", &"text");
        s.commit(b).unwrap();
        let err = s.get::<u64>(Tree::Games, "g").unwrap_err();
        assert!(err.to_string().contains("games/g"), "{err}");
    }
}
