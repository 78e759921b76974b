//! The persistent store: one redb database file (`DATA/store/fernzug.redb`), reached only
//! through this module.
//!
//! Everything the relay remembers lives in named trees ([`Tree`], one redb table each), as
//! serde_json bytes — a mail (in the archive, the outbox) as a JSON head beside the mail
//! compressed (`packed.rs`). Only this module knows the layout: the rest of the program reads and writes
//! through typed readers and [`Batch`] operations (`store.game(id)`, `batch.put_game(g, …)`,
//! `store.pending_starts()`); a tree is never named outside `src/store` (`scripts/layers`
//! checks it), and the generic readers and writers are private to it. Writes are gathered in a
//! [`Batch`] and applied by [`Store::commit`] as ONE write transaction over all trees, which
//! redb makes durable with an fsync before `commit` returns (copy on write: a crash keeps the
//! last durable transaction whole, never a part of one). A caller acknowledges nothing to the
//! outside world (IMAP `\Seen`, SMTP) before `commit` returned `Ok`.
//!
//! Earlier versions kept the store in sled (`DATA/store/db`, `conf`, `snap.*`, `blobs/`): the
//! first opening moves sled's files aside and copies them over (`legacy.rs`).
//!
//! # The handle and the faces of its parts
//!
//! [`Store`] is the handle: opening ([`Store::open`]), a transaction applied and made durable
//! ([`Store::apply`], [`Store::sync`], [`Store::commit`]), the generation, and the typed readers
//! of the records (`store.game(id)`, `store.tournament(id)`, `store.is_uid_done(v, u)`, …). Each
//! other part has a face of its own, a view borrowed from the handle:
//!
//! - `store.outbox()` ([`Outbox`]): what waits to be sent, read by the courier, marked sent,
//!   tried again;
//! - `store.archive()` ([`Archive`]): the mails of a game, and the archive's rotation (Fax 2.8);
//! - `store.due()` ([`Due`]): the index of deadlines in time order;
//! - `store.step()` ([`step::Step`]): the step record, the message being decided;
//! - `store.upgrade()` ([`Upgrade`]): the steps of the store's version that need the shell.
//!
//! # Its files
//!
//! Each file uses only those before it here (`scripts/layers` checks that no two of them use
//! each other, round about); this file only declares and re-exports them.
//!
//! - `schema.rs` — the trees, every key layout, every key of `Meta` (and the marks of earlier
//!   versions' upgrades), the entries of the index of deadlines ([`DueEntry`]); `error.rs` —
//!   [`StoreError`] and why a transaction aborted; `private.rs` — every folder `0700`, every file
//!   `0600`; `packed.rs` — how a mail is stored: compressed, once; `sent.rs` — the ledger of
//!   sent mails; `step.rs` — the step record.
//! - `db.rs` — the database file, its generic readers and the tables of one write transaction,
//!   private to the store; `mails.rs` — the mails kept: [`ArchiveEntry`], [`OutboxEntry`], [`SendHold`],
//!   [`QuarantineEntry`], and an archived mail read back; `batch.rs` — a transaction's writes
//!   ([`Batch`]).
//! - `handle.rs` — [`Store`], its transactions and durability.
//! - the faces and the readers: `records.rs` (tournaments, games, reply keys, the core's
//!   counters, registrations, start mails, XFCC credentials, the figures of `/metrics`; their
//!   writers on [`Batch`]), `due.rs`, `outbox.rs`, `archive.rs` (which asks the outbox which mails
//!   it still names); `shelf.rs` (the files of rotated tournaments beside the store); `backup.rs`
//!   (a consistent copy while the relay writes).
//! - `migrate.rs` — the store's version and its ordered steps; `legacy.rs` — the take-over of
//!   a store kept in sled; `open.rs` — opening: the file, its trees, the take-over, the steps
//!   of the version that need only the store, the ledger's mails removed from the outbox.
//!
//! # Its version
//!
//! One number in `Meta`, [`SCHEMA_VERSION`] (5) for a new store, with one step per version
//! after 1 (`migrate.rs`): 2 — a game's records side by side in `by_game` (done by
//! [`Store::open`], [`LAYOUT_VERSION`]); 3 — games' ends and rotated tournaments read from what
//! earlier versions kept; 4 — the games of tournaments rotated before the shelf to shelf files;
//! 5 — the indexes of deadlines, reply keys by game and rotated tournaments written whole (3 to 5
//! by the shell, with every game in memory). Each step records its version in its own
//! transaction. A store of version 2 written before the steps were numbered stands where its
//! marks of upgrades say, in order; a store of a later version than this program's is refused.
//!
//! Key layouts (all integers big-endian so that byte order is numeric order):
//! - `ByGame`: a running game under its name (`ID/N`), then its parts: game bytes, `0u8`, one
//!   byte for the part (`schema::Part`): `e` and the event's `seq: u64`; `a` and the archive
//!   id `u64` of a mail naming the game; `k` and the reply key (the value empty: the binding is
//!   in `Keys`; an earlier version's entry carries it too); `d` alone (the value: the game's
//!   earliest deadline). A game's records side by side: what a move reads and writes of them
//!   shares leaves. Layout version 1 kept the games in `games`, the first three parts in
//!   `events`, `archive_by_game` and `keys_by_game` (`game 0 rest`), the fourth in `Due`
//!   (`g/GAME`): the first opening moves them (step 2 of the version, `migrate.rs`).
//! - `Uids`: `uidvalidity: u32`, `uid: u32`
//! - `Archive`: `id: u64`, allocated inside the transaction from a counter in `Meta`
//! - `Outbox`: [`OutboxEntry::id`]; `Processed`: the Message-ID.
//! - `Tournaments`: the id; `ShelvedGames`: the game (`ID/N`); `Keys`, `ShelvedKeys`:
//!   the reply key; `Due`: `d/TOURNAMENT`, `r/TOURNAMENT` ([`DueEntry`]; a game's entry, `g/GAME`,
//!   is its `ByGame` part `d`).
//! - `DueOrder`: the kind (`g`, `d`, `r`), the instant (microseconds, big-endian, sign bit
//!   flipped), `0u8`, the entry's key (`g/GAME`, `d/…`, `r/…`; the value empty): every entry of
//!   the index of deadlines by kind in time order, written with its instant in the same step.
//! - `Meta`: `schema_version`, `archive_next`, `outbox_next`, `generation`, `state-meta`,
//!   `instance`, `starts-pending:ID`, `registering:ID`, `xfcc-login:ADDRESS` and, from earlier
//!   versions, the marks of their upgrades (read, never written) and `rotated:ID`.

mod archive;
pub mod backup;
mod batch;
mod db;
mod due;
mod error;
mod handle;
mod legacy;
mod mails;
mod migrate;
mod open;
mod outbox;
mod packed;
pub mod private;
mod records;
mod schema;
pub mod sent;
pub mod shelf;
pub mod step;
#[cfg(test)]
mod tests;

pub use archive::Archive;
pub use batch::Batch;
pub use db::FILE;
pub use due::Due;
pub use error::StoreError;
pub use handle::Store;
pub use mails::{ArchiveEntry, Direction, OutboxEntry, QuarantineEntry, SendHold, raw_bytes};
pub use migrate::{LAYOUT_VERSION, SCHEMA_VERSION, Upgrade};
pub use outbox::Outbox;
pub use records::{Figures, PendingStarts};
pub use schema::{DueEntry, Tree};
