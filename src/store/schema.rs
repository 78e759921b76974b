//! The store's layout: its trees (one redb table each), the layout of every key, and every key
//! of the `Meta` tree. Nothing outside `src/store` names a tree or builds a key
//! (`scripts/layers` checks it).

use std::fmt;

use super::records::DueEntry;

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
    /// Mails waiting to be sent, one [`super::OutboxEntry`] per envelope recipient.
    Outbox,
    /// Message-IDs already handled, with the time they were handled.
    Processed,
    /// IMAP (UIDVALIDITY, UID) pairs already handled.
    Uids,
    /// Every mail in and out, [`super::ArchiveEntry`] by monotonic id.
    Archive,
    /// Index `game 0 archive-id` into [`Tree::Archive`].
    ArchiveByGame,
    /// Mails that could not be handled, [`super::QuarantineEntry`].
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
    /// only through [`super::Batch::bind_key`] / [`super::Batch::unbind_key`], together with `Keys`.
    KeysByGame,
    /// The entries of [`Tree::Due`] in the order of their instants (`instant 0 entry-key`, the
    /// value empty): the earliest one, and those due by now, are read without reading them all.
    /// Written only with `Due`, in the transaction's own step (`Store::apply`).
    DueOrder,
    /// The ids of the rotated tournaments (Fax 2.8), each with its number of games (what
    /// `/metrics` counts of them without reading their records): the relay at work reads a
    /// rotated tournament's record only when an input names it or one of its people
    /// (`crate::app::awake`), not at every opening. Written with the record
    /// (`Batch::put_tournament`).
    Rotated,
    /// Every address of a rotated tournament — its director's, each player's own and other
    /// ones — with the tournament's id (`address 0 id`, the value empty): which rotated
    /// tournaments a sender appears in. Written with the record, never removed (an address a
    /// tournament no longer names only makes the relay read it once more).
    RotatedPeople,
}

impl Tree {
    /// Every tree, in a fixed order (the index of a tree in this list is its slot in a
    /// transaction).
    pub const ALL: [Tree; 18] = [
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
        Tree::DueOrder,
        Tree::Rotated,
        Tree::RotatedPeople,
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
            Tree::DueOrder => "due_order",
            Tree::Rotated => "rotated",
            Tree::RotatedPeople => "rotated_people",
        }
    }

    /// The slot of this tree in [`Tree::ALL`].
    pub(super) fn index(self) -> usize {
        self as usize
    }
}

impl fmt::Display for Tree {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A key shown in an error message (non-printable bytes escaped).
pub(super) fn show_key(key: &[u8]) -> String {
    key.escape_ascii().to_string()
}

/// `game 0 n` (the layout of [`Tree::Events`] and [`Tree::ArchiveByGame`] keys).
pub(super) fn game_key(game: &str, n: u64) -> Vec<u8> {
    let mut key = game_prefix(game);
    key.extend_from_slice(&n.to_be_bytes());
    key
}

/// `game 0 key` (the layout of [`Tree::KeysByGame`] keys).
pub(super) fn game_key_of(game: &str, key: &str) -> Vec<u8> {
    let mut by_game = game_prefix(game);
    by_game.extend_from_slice(key.as_bytes());
    by_game
}

/// `game 0`.
pub(super) fn game_prefix(game: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(game.len() + 9);
    key.extend_from_slice(game.as_bytes());
    key.push(0);
    key
}

/// Why a game name cannot be part of a key, if it cannot.
pub(super) fn bad_game(game: &str) -> Option<String> {
    if game.is_empty() {
        Some("the game name is empty".to_string())
    } else if game.as_bytes().contains(&0) {
        Some(format!("the game name {game:?} contains a NUL byte"))
    } else {
        None
    }
}

/// `address 0 id` (the layout of [`Tree::RotatedPeople`] keys); `address 0` alone with an
/// empty `id` (the prefix of an address's entries).
pub(super) fn person_key(address: &str, id: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(address.len() + 1 + id.len());
    key.extend_from_slice(address.as_bytes());
    key.push(0);
    key.extend_from_slice(id.as_bytes());
    key
}

/// The `Uids` key: both numbers big-endian.
pub(super) fn uid_key(uidvalidity: u32, uid: u32) -> [u8; 8] {
    let mut key = [0u8; 8];
    key[..4].copy_from_slice(&uidvalidity.to_be_bytes());
    key[4..].copy_from_slice(&uid.to_be_bytes());
    key
}

/// One redb table per [`Tree`]: keys and values as bytes.
pub(super) fn table(t: Tree) -> redb::TableDefinition<'static, &'static [u8], &'static [u8]> {
    redb::TableDefinition::new(t.name())
}

/// The big-endian `u64` that makes up `key` after `prefix_len` bytes, if the key is
/// exactly that long.
pub(super) fn suffix_u64(key: &[u8], prefix_len: usize) -> Option<u64> {
    let tail = key.get(prefix_len..)?;
    let bytes: [u8; 8] = tail.try_into().ok()?;
    Some(u64::from_be_bytes(bytes))
}

/// Key of the schema version in [`Tree::Meta`].
pub(super) const SCHEMA_KEY: &[u8] = b"schema_version";

/// Key of the next archive id in [`Tree::Meta`].
pub(super) const ARCHIVE_NEXT_KEY: &[u8] = b"archive_next";

/// Key of the next outbox sequence number in [`Tree::Meta`].
pub(super) const OUTBOX_NEXT_KEY: &[u8] = b"outbox_next";
/// In `Meta`: how many transactions were ever applied (see [`super::Store::generation`]).
pub(super) const GENERATION_KEY: &[u8] = b"generation";

/// In `Meta`: the core's counters and the relay's clock (`State::meta`).
pub(super) const META_STATE: &str = "state-meta";
/// In `Meta`: the installation's random id, part of every Message-ID.
pub(super) const META_INSTANCE: &str = "instance";
/// In `Meta`, + tournament id: its start mails still to queue (`PendingStarts`).
pub(super) const PENDING_STARTS: &str = "starts-pending:";
/// In `Meta`, + tournament id: a registration whose parts do not count yet (`crate::app::enrol`).
pub(super) const REGISTERING: &str = "registering:";

/// In `Meta`: the XFCC credential of an address (lower case).
pub(super) fn credential_key(email: &str) -> String {
    format!("xfcc-login:{}", email.to_lowercase())
}

/// In `Meta`: how versions before `Tournament::rotated` marked a tournament's archive rotated.
pub(super) fn legacy_rotated_key(id: &str) -> String {
    format!("rotated:{id}")
}

/// The upgrades of an earlier version's store, each marked in `Meta` once done.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upgrade {
    /// Every reply key indexed by its game in [`Tree::KeysByGame`].
    KeysByGame,
    /// The index of deadlines written to [`Tree::Due`].
    DueIndex,
    /// Games know when they ended, tournaments that their archive was rotated.
    EndsMigrated,
    /// The games of tournaments rotated before the shelf went to shelf files.
    Shelf,
    /// The rotated tournaments and their people indexed ([`Tree::Rotated`],
    /// [`Tree::RotatedPeople`]).
    RotatedIndex,
}

impl Upgrade {
    /// Every upgrade.
    pub const ALL: [Upgrade; 5] = [
        Upgrade::KeysByGame,
        Upgrade::DueIndex,
        Upgrade::EndsMigrated,
        Upgrade::Shelf,
        Upgrade::RotatedIndex,
    ];

    /// Its mark in `Meta`.
    pub(super) fn key(self) -> &'static str {
        match self {
            Upgrade::KeysByGame => "keys-by-game",
            Upgrade::DueIndex => "due-index",
            Upgrade::EndsMigrated => "migrated-ended-at",
            Upgrade::Shelf => "migrated-shelf",
            Upgrade::RotatedIndex => "rotated-index",
        }
    }
}

/// The key of an entry of [`Tree::Due`]: `g/GAME`, `d/TOURNAMENT`, `r/TOURNAMENT`.
pub(super) fn due_key(e: &DueEntry) -> String {
    match e {
        DueEntry::Game(g) => format!("g/{g}"),
        DueEntry::Digest(t) => format!("d/{t}"),
        DueEntry::Rotation(t) => format!("r/{t}"),
    }
}

/// The entry a key of [`Tree::Due`] stands for.
pub(super) fn parse_due_key(key: &str) -> Option<DueEntry> {
    if let Some(g) = key.strip_prefix("g/") {
        g.parse().ok().map(DueEntry::Game)
    } else if let Some(t) = key.strip_prefix("d/") {
        Some(DueEntry::Digest(t.to_string()))
    } else {
        key.strip_prefix("r/")
            .map(|t| DueEntry::Rotation(t.to_string()))
    }
}

/// The key of entry `key` (a [`Tree::Due`] key) due at `at` in [`Tree::DueOrder`]: the entry's
/// kind (the first byte of its key: `g`, `d`, `r`), the instant in microseconds, big-endian with
/// the sign bit flipped (so that byte order is time order within a kind), a `0u8`, the entry's
/// key.
pub(super) fn due_order_key(at: chrono::DateTime<chrono::Utc>, key: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(10 + key.len());
    out.push(key.as_bytes().first().copied().unwrap_or(b'?'));
    out.extend_from_slice(&instant_bytes(at));
    out.push(0);
    out.extend_from_slice(key.as_bytes());
    out
}

/// The first 8 bytes after the kind of a [`Tree::DueOrder`] key for instant `at`.
pub(super) fn instant_bytes(at: chrono::DateTime<chrono::Utc>) -> [u8; 8] {
    ((at.timestamp_micros() as u64) ^ (1 << 63)).to_be_bytes()
}

/// The instant and the [`Tree::Due`] key of a [`Tree::DueOrder`] key.
pub(super) fn parse_due_order_key(k: &[u8]) -> Option<(chrono::DateTime<chrono::Utc>, &str)> {
    let micros = (u64::from_be_bytes(k.get(1..9)?.try_into().ok()?) ^ (1 << 63)) as i64;
    let at = chrono::DateTime::from_timestamp_micros(micros)?;
    let key = std::str::from_utf8(k.get(10..)?).ok()?;
    Some((at, key))
}
