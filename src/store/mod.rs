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
//! The parts: `schema.rs` (the trees, every key layout, every key of `Meta`, the marks of
//! upgrades), `records.rs` (the typed readers and writers), `batch.rs` (a transaction's
//! writes), `outbox.rs`, `archive.rs`, `packed.rs` (how a mail is stored: compressed, once),
//! `error.rs`, `shelf.rs` (the
//! files of rotated tournaments beside the store), `backup.rs` (a consistent copy while the relay
//! writes), `migrate.rs` and `legacy.rs` (upgrades of an
//! earlier version's store), and this file (opening, transactions, durability).
//!
//! Key layouts (all integers big-endian so that byte order is numeric order):
//! - `ByGame`: a running game under its name (`ID/N`), then its parts: game bytes, `0u8`, one
//!   byte for the part (`schema::Part`): `e` and the event's `seq: u64`; `a` and the archive
//!   id `u64` of a mail naming the game; `k` and the reply key (the value empty: the binding is
//!   in `Keys`; an earlier version's entry carries it too); `d` alone (the value: the game's
//!   earliest deadline). A game's records side by side: what a move reads and writes of them
//!   shares leaves. Layout version 1 kept the games in `games`, the first three parts in
//!   `events`, `archive_by_game` and `keys_by_game` (`game 0 rest`), the fourth in `Due`
//!   (`g/GAME`): the first opening moves them (`migrate.rs`).
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
//!   `instance`, `starts-pending:ID`, `registering:ID`, `xfcc-login:ADDRESS`, the marks of the
//!   upgrades ([`Upgrade`]) and, from versions before `Tournament::rotated`, `rotated:ID`.

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
pub use mails::{ArchiveEntry, Direction, OutboxEntry, QuarantineEntry, raw_bytes};
pub use migrate::{LAYOUT_VERSION, SCHEMA_VERSION, Upgrade};
pub use outbox::Outbox;
pub use records::{Figures, PendingStarts};
pub use schema::{DueEntry, Tree};
