//! The step record (`DATA/store/fernzug.step`): which IMAP message the relay is deciding at this
//! moment — its (UIDVALIDITY, UID), 8 bytes, written before the message's step begins and zeroed
//! when the step's transaction is applied. It is written without `fsync`: what a process writes
//! survives its own death (an abort, a kill, the OOM killer) in the kernel's page cache, and only
//! that is what it is for; after a power cut it may say nothing, or name a message already done,
//! which the reader ignores.
//!
//! The next process that finds it names a message learns that the relay died in that message's
//! step, and counts the death against it (`Batch::begin_uid`, durably, [`super::Tree::Begun`]); a
//! message the relay died in twice is quarantined unread (`crate::daemon`): no mail stops the
//! relay (docs/security.md). Only the message in whose step the process died is counted — not the
//! others of its group, whose steps either finished (and are done again, their transactions not
//! yet durable) or never began.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::error::StoreError;

/// The record's file, in the store's folder.
pub const FILE: &str = "fernzug.step";

/// The step record of a store (`store.step()`): written as a message's step begins and ends,
/// read by the next process.
pub struct Step<'a> {
    dir: &'a Path,
    record: &'a std::sync::Mutex<StepRecord>,
}

/// The open record (opened when first written).
#[derive(Debug, Default)]
pub(super) struct StepRecord {
    file: Option<File>,
}

impl StepRecord {
    fn write(&mut self, dir: &Path, bytes: [u8; 8]) -> io::Result<()> {
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(super::private::open(
                std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .create(true)
                    .truncate(false),
                &dir.join(FILE),
            )?),
        };
        file.write_all_at(&bytes, 0)
    }
}

impl<'a> Step<'a> {
    /// The step record's face for the store in `dir`.
    pub(super) fn new(dir: &'a Path, record: &'a std::sync::Mutex<StepRecord>) -> Step<'a> {
        Step { dir, record }
    }

    fn path(&self) -> PathBuf {
        self.dir.join(FILE)
    }

    fn record(&self) -> std::sync::MutexGuard<'_, StepRecord> {
        self.record.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn err(&self) -> impl FnOnce(io::Error) -> StoreError + '_ {
        move |source| StoreError::Files {
            path: self.path(),
            what: "write the step record",
            source,
        }
    }

    /// The step of IMAP message (`uidvalidity`, `uid`) begins.
    pub fn begins(&self, uidvalidity: u32, uid: u32) -> Result<(), StoreError> {
        let mut bytes = [0u8; 8];
        bytes[..4].copy_from_slice(&uidvalidity.to_be_bytes());
        bytes[4..].copy_from_slice(&uid.to_be_bytes());
        self.record().write(self.dir, bytes).map_err(self.err())
    }

    /// The step begun last has ended (its transaction applied, or it failed without the process
    /// dying).
    pub fn ends(&self) -> Result<(), StoreError> {
        self.record().write(self.dir, [0; 8]).map_err(self.err())
    }

    /// The message (UIDVALIDITY, UID) in whose step an earlier process died, if the record names
    /// one (it is not cleared here: [`Step::ends`]).
    pub fn interrupted(&self) -> Result<Option<(u32, u32)>, StoreError> {
        let mut bytes = [0u8; 8];
        match File::open(self.path()) {
            Ok(f) => match f.read_exact_at(&mut bytes, 0) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
                Err(source) => {
                    return Err(StoreError::Files {
                        path: self.path(),
                        what: "read the step record",
                        source,
                    });
                }
            },
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(StoreError::Files {
                    path: self.path(),
                    what: "read the step record",
                    source,
                });
            }
        }
        let uidvalidity = u32::from_be_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        let uid = u32::from_be_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]);
        Ok((uid != 0).then_some((uidvalidity, uid)))
    }
}
