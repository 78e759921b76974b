//! The store's layout: its trees (one redb table each), the layout of every key, and every key
//! of the `Meta` tree. Nothing outside `src/store` names a tree or builds a key
//! (`scripts/layers` checks it).

use std::fmt;

use crate::game_ref::GameRef;

/// The named trees of the database.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tree {
    /// Schema version and internal counters.
    Meta,
    /// Tournament records.
    Tournaments,
    /// Per-player keys (tokens, secrets).
    Keys,
    /// Each running game's records side by side, under its name: the game itself (`game`, the
    /// core's `Game`), then its parts (`Part`): its event log (`game 0 e seq`), the index of
    /// its archived mails into [`Tree::Archive`] (`game 0 a id`), its reply keys (`game 0 k
    /// key` → its binding, as in [`Tree::Keys`]) and its entry in the index of deadlines (`game
    /// 0 d` → its earliest deadline). A move reads and changes its game's own leaf of this tree,
    /// not one leaf in each of five trees: in a tournament of thousands of games, the leaves of
    /// a few games' moves are otherwise seldom shared (docs/performance.md, P7). A scan of
    /// games passes over their parts (`Store::each_game_raw`). Written only through
    /// [`super::Batch`]'s methods for the game and each part; the archive's index is never
    /// changed, like the archive (TO §11, Fax 2.8).
    ByGame,
    /// Mails waiting to be sent, one [`super::OutboxEntry`] per envelope recipient.
    Outbox,
    /// Message-IDs already handled, with the time they were handled.
    Processed,
    /// IMAP (UIDVALIDITY, UID) pairs already handled.
    Uids,
    /// Every mail in and out, [`super::ArchiveEntry`] by monotonic id.
    Archive,
    /// Mails that could not be handled, [`super::QuarantineEntry`].
    Quarantine,
    /// The shelved games the core changed after they were shelved (`crate::app::shelf`: the
    /// others wait in the shelf files beside the store), and those shelved by versions before
    /// the shelf files: read only when a mail or a command names them, never at start.
    ShelvedGames,
    /// The reply keys of the shelved games.
    ShelvedKeys,
    /// The shell's index of pending deadlines (`crate::app::due`): each tournament's next digest
    /// and from when its archive may be rotated; each game's earliest deadline is kept among the
    /// game's records ([`Tree::ByGame`], `game 0 d`) — so that a start need not read every game
    /// to learn when to wake.
    Due,
    /// Every entry of the index of deadlines — a game's, a digest, a rotation — in the order of
    /// their instants (`kind instant 0 entry-key`, the value empty): the earliest one, and those
    /// due by now, are read without reading them all. Written only with the entry's instant, in
    /// the transaction's own step (`Store::apply`).
    DueOrder,
    /// The ids of the rotated tournaments (Fax 2.8), each with its number of games (what
    /// `/metrics` counts of them without reading their records): the relay at work reads a
    /// rotated tournament's record only when an input names it or one of its people
    /// (`crate::core::needs`, satisfied by the app's working set), not at every opening. Written with the record
    /// (`Batch::put_tournament`).
    Rotated,
    /// Every address of a rotated tournament — its director's, each player's own and other
    /// ones — with the tournament's id (`address 0 id`, the value empty): which rotated
    /// tournaments a sender appears in. Written with the record, never removed (an address a
    /// tournament no longer names only makes the relay read it once more).
    RotatedPeople,
    /// The IMAP messages in whose step a process died (the step record, `step.rs`), each
    /// (`uid_key`, as [`Tree::Uids`]) with how many times (a `u32`), written durably by the next
    /// process; removed with the mail's own step (`Batch::uid_done`). One the relay died in twice
    /// is quarantined unread (`crate::daemon`): no mail stops the relay.
    Begun,
}

impl Tree {
    /// Every tree, in a fixed order (the index of a tree in this list is its slot in a
    /// transaction).
    pub const ALL: [Tree; 16] = [
        Tree::Meta,
        Tree::Tournaments,
        Tree::Keys,
        Tree::ByGame,
        Tree::Outbox,
        Tree::Processed,
        Tree::Uids,
        Tree::Archive,
        Tree::Quarantine,
        Tree::ShelvedGames,
        Tree::ShelvedKeys,
        Tree::Due,
        Tree::DueOrder,
        Tree::Rotated,
        Tree::RotatedPeople,
        Tree::Begun,
    ];

    /// The tree's name: its table in the redb file (and its tree in an earlier version's sled).
    pub fn name(self) -> &'static str {
        match self {
            Tree::Meta => "meta",
            Tree::Tournaments => "tournaments",
            Tree::Keys => "keys",
            Tree::ByGame => "by_game",
            Tree::Outbox => "outbox",
            Tree::Processed => "processed",
            Tree::Uids => "uids",
            Tree::Archive => "archive",
            Tree::Quarantine => "quarantine",
            Tree::ShelvedGames => "shelved_games",
            Tree::ShelvedKeys => "shelved_keys",
            Tree::Due => "due",
            Tree::DueOrder => "due_order",
            Tree::Rotated => "rotated",
            Tree::RotatedPeople => "rotated_people",
            Tree::Begun => "begun",
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

/// What an entry of [`Tree::ByGame`] is: the byte after `game 0` in its key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Part {
    /// An event of the game's log (`game 0 e seq`).
    Event,
    /// A mail of the archive naming the game (`game 0 a id`, the value the id in decimal).
    Archived,
    /// A reply key of the game (`game 0 k key`, the value empty: the binding is in
    /// [`Tree::Keys`]; an earlier version's entry carries the binding itself).
    Key,
    /// The game's entry in the index of deadlines (`game 0 d`, the value its instant; its place
    /// in time order is in [`Tree::DueOrder`]).
    Due,
}

impl Part {
    /// Every part.
    const ALL: [Part; 4] = [Part::Event, Part::Archived, Part::Key, Part::Due];

    /// Its byte in a key.
    fn tag(self) -> u8 {
        match self {
            Part::Event => b'e',
            Part::Archived => b'a',
            Part::Key => b'k',
            Part::Due => b'd',
        }
    }

    /// The part a key of [`Tree::ByGame`] belongs to (`None`: not a key of that layout).
    pub(super) fn of(key: &[u8]) -> Option<Part> {
        let nul = key.iter().position(|&b| b == 0)?;
        let tag = *key.get(nul + 1)?;
        Part::ALL.into_iter().find(|p| p.tag() == tag)
    }
}

/// Whether `key` of [`Tree::ByGame`] is a game's own (its name), not one of its parts.
pub(super) fn is_game_record(key: &[u8]) -> bool {
    !key.contains(&0)
}

/// The tree in which versions before [`Tree::ByGame`] kept the running games, each under its
/// name (moved into it at the first opening with the same keys, `migrate.rs`).
pub(super) const GAMES_BEFORE: &str = "games";

/// The trees in which versions before [`Tree::ByGame`] kept each part, with the layout `game 0
/// rest` (`crate::store::Store::open` moves them, `migrate.rs`; a sled store's trees of those
/// names are copied first, `legacy.rs`).
pub(super) const PARTS_BEFORE: [(&str, Part); 3] = [
    ("events", Part::Event),
    ("archive_by_game", Part::Archived),
    ("keys_by_game", Part::Key),
];

/// `game 0`: the prefix of a game's entries in the trees of layout 1 ([`PARTS_BEFORE`]).
pub(super) fn part_prefix_before(game: &str) -> Vec<u8> {
    // Room for a part's tag and a `u64` after it (`part_prefix`, `part_key`).
    let mut key = Vec::with_capacity(game.len() + 10);
    key.extend_from_slice(game.as_bytes());
    key.push(0);
    key
}

/// `game 0 tag` (tag: [`Part`]): the prefix of a game's entries of one part.
pub(super) fn part_prefix(game: &str, part: Part) -> Vec<u8> {
    let mut key = part_prefix_before(game);
    key.push(part.tag());
    key
}

/// `game 0 tag n`, `n` big-endian (events by sequence number, archived mails by archive id).
pub(super) fn part_key(game: &str, part: Part, n: u64) -> Vec<u8> {
    let mut key = part_prefix(game, part);
    key.extend_from_slice(&n.to_be_bytes());
    key
}

/// `game 0 k key`: reply key `key` of `game`.
pub(super) fn key_of_game(game: &str, key: &str) -> Vec<u8> {
    let mut by_game = part_prefix(game, Part::Key);
    by_game.extend_from_slice(key.as_bytes());
    by_game
}

/// The key in [`Tree::ByGame`] of an entry an earlier version kept as `old` (`game 0 rest`) in
/// the tree of `part` ([`PARTS_BEFORE`]): `game 0 tag rest`. A key without a NUL (never
/// written through `Batch`) becomes `old 0 tag`.
pub(super) fn part_key_from(old: &[u8], part: Part) -> Vec<u8> {
    let mut key = Vec::with_capacity(old.len() + 2);
    match old.iter().position(|&b| b == 0) {
        Some(nul) => {
            key.extend_from_slice(&old[..=nul]);
            key.push(part.tag());
            key.extend_from_slice(&old[nul + 1..]);
        }
        None => {
            key.extend_from_slice(old);
            key.push(0);
            key.push(part.tag());
        }
    }
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
    table_named(t.name())
}

/// The table called `name` (a tree of this layout, or of an earlier one), keys and values as
/// bytes.
pub(super) fn table_named(name: &str) -> redb::TableDefinition<'_, &'static [u8], &'static [u8]> {
    redb::TableDefinition::new(name)
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
/// The relay's sending held: the SMTP server refused the relay itself (`SendHold`, JSON).
pub(super) const SEND_HOLD_KEY: &[u8] = b"send_hold";
/// The mails sent per minute for the last day, for `[smtp] max_per_hour` and `max_per_day`
/// (`core::unreachable::limits::SendWindow`, JSON).
pub(super) const SENT_WINDOW_KEY: &[u8] = b"sent_window";
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

/// The marks in `Meta` by which versions before the steps of the store's version were numbered
/// said which of the steps after layout 2 were done (`migrate.rs`): read, never written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mark {
    /// Every reply key indexed by its game (now among its records, [`Tree::ByGame`]).
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

impl Mark {
    /// Its mark in `Meta`.
    pub(super) fn key(self) -> &'static str {
        match self {
            Mark::KeysByGame => "keys-by-game",
            Mark::DueIndex => "due-index",
            Mark::EndsMigrated => "migrated-ended-at",
            Mark::Shelf => "migrated-shelf",
            Mark::RotatedIndex => "rotated-index",
        }
    }
}

/// An entry of the shell's index of pending deadlines (`crate::app::due`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DueEntry {
    /// A game's earliest deadline.
    Game(GameRef),
    /// A tournament's next weekly digest.
    Digest(String),
    /// From when a tournament's archive may be rotated (Fax 2.8).
    Rotation(String),
}

/// The key of an entry of the index of deadlines: `g/GAME`, `d/TOURNAMENT`, `r/TOURNAMENT` (in
/// [`Tree::DueOrder`]; the latter two also in [`Tree::Due`]).
pub(super) fn due_key(e: &DueEntry) -> String {
    match e {
        DueEntry::Game(g) => format!("g/{g}"),
        DueEntry::Digest(t) => format!("d/{t}"),
        DueEntry::Rotation(t) => format!("r/{t}"),
    }
}

/// The entry a key of the index of deadlines ([`due_key`]) stands for.
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

/// The key of entry `key` (a [`due_key`]) due at `at` in [`Tree::DueOrder`]: the entry's
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

/// The instant and the entry's key ([`due_key`]) of a [`Tree::DueOrder`] key.
pub(super) fn parse_due_order_key(k: &[u8]) -> Option<(chrono::DateTime<chrono::Utc>, &str)> {
    let micros = (u64::from_be_bytes(k.get(1..9)?.try_into().ok()?) ^ (1 << 63)) as i64;
    let at = chrono::DateTime::from_timestamp_micros(micros)?;
    let key = std::str::from_utf8(k.get(10..)?).ok()?;
    Some((at, key))
}

/// Where the instant of the entry of the index of deadlines `key` ([`due_key`]) is kept: a game's
/// among its records (`game 0 d` in [`Tree::ByGame`]), a tournament's in [`Tree::Due`].
pub(super) fn due_place(key: &str) -> (Tree, Vec<u8>) {
    match key.strip_prefix("g/") {
        Some(game) => (Tree::ByGame, part_prefix(game, Part::Due)),
        None => (Tree::Due, key.as_bytes().to_vec()),
    }
}
