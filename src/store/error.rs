//! What can go wrong with the store.

use std::fmt;
use std::io;
use std::path::PathBuf;

use super::schema::Tree;

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
    /// A shelf file (`shelf.rs`) could not be written or read.
    #[error("shelf file {}: {source}", path.display())]
    Shelf {
        path: PathBuf,
        #[source]
        source: io::Error,
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
    /// A value handed to a [`super::Batch`] could not be serialized; nothing was written.
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
    /// A mail handed to a [`super::Batch`] could not be compressed (`packed.rs`); nothing was
    /// written.
    #[error("cannot compress the mail for {tree}/{key}: {source}")]
    Compress {
        tree: Tree,
        key: String,
        #[source]
        source: std::io::Error,
    },
    /// A stored mail does not decompress (`packed.rs`).
    #[error("database in {path}: the mail at {tree}/{key} cannot be decompressed: {source}")]
    Inflate {
        path: PathBuf,
        tree: Tree,
        key: String,
        #[source]
        source: std::io::Error,
    },
    /// A stored key does not have the layout its tree uses.
    #[error("database in {path}: the key {key} in {tree} is malformed: {reason}")]
    BadKey {
        path: PathBuf,
        tree: Tree,
        key: String,
        reason: String,
    },
    /// A key handed to a [`super::Batch`] cannot be stored; nothing was written.
    #[error("invalid key for {tree}: {reason}")]
    InvalidKey { tree: Tree, reason: String },
    /// An entry that had to exist does not.
    #[error("database in {path}: there is no entry {key} in {tree}")]
    Missing {
        path: PathBuf,
        tree: Tree,
        key: String,
    },
    /// A backup cannot be written where it was asked for (`backup.rs`); nothing was written.
    #[error("{0}")]
    Backup(String),
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

/// Why the transaction closure aborted.
#[derive(Debug)]
pub(super) enum Abort {
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
