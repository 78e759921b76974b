//! The ledger of sent mails (`DATA/store/fernzug.sent`): the outbox entries the SMTP server has
//! accepted, written and made durable at once, beside the database.
//!
//! Marking a mail sent in the database alone would cost a durable commit of the whole store each
//! time the courier hears `250` — a commit that writes out every page the pass has changed since
//! the last one, in a burst a few hundred times a minute. Instead the ids go into this file, one
//! JSON string a line, made durable with one `fdatasync`; the entries leave the outbox tree in a
//! transaction that waits for no disk, and the store's next durable commit
//! ([`super::Store::sync`]) takes their removal along and empties the ledger. A crash in between
//! loses the removal, not the mark: opening the store removes the entries the ledger names, so a
//! mail the server accepted is not sent again because the store had not yet said so on disk.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

/// The ledger's file name in the store's directory.
pub const FILE: &str = "fernzug.sent";

/// The ledger: appended to by the courier's marks, emptied after a durable commit. Its file is
/// made by the first mark (a command that only reads the store never writes one).
#[derive(Debug)]
pub(super) struct Ledger {
    dir: PathBuf,
    file: Option<File>,
    /// Whether nothing was written since it was last emptied.
    empty: bool,
}

impl Ledger {
    /// Opens the ledger in `dir`, if there is one, and reads what it holds: the ids of mails
    /// accepted by the server whose removal from the outbox may not have reached the disk.
    pub(super) fn open(dir: &Path) -> io::Result<(Ledger, Vec<String>)> {
        let path = dir.join(FILE);
        let mut ledger = Ledger {
            dir: dir.to_path_buf(),
            file: None,
            empty: true,
        };
        if !path.exists() {
            return Ok((ledger, Vec::new()));
        }
        let mut file = OpenOptions::new().read(true).append(true).open(&path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        ledger.file = Some(file);
        ledger.empty = bytes.is_empty();
        Ok((ledger, read_ids(&bytes)))
    }

    /// The ledger's path (for errors).
    pub(super) fn path(&self) -> PathBuf {
        self.dir.join(FILE)
    }

    /// Appends `ids` and makes them durable (`fdatasync`) before it returns.
    pub(super) fn append<S: AsRef<str>>(&mut self, ids: &[S]) -> io::Result<()> {
        let mut lines = Vec::new();
        for id in ids {
            serde_json::to_writer(&mut lines, id.as_ref())?;
            lines.push(b'\n');
        }
        let file = match &mut self.file {
            Some(file) => file,
            None => {
                let file = super::private::open(
                    OpenOptions::new().create(true).read(true).append(true),
                    &self.path(),
                )?;
                // The new file's name is durable before anything relies on it.
                File::open(&self.dir)?.sync_all()?;
                self.file.insert(file)
            }
        };
        self.empty = false;
        file.write_all(&lines)?;
        file.sync_data()
    }

    /// Empties the ledger: what it named is durable in the database now. Not synced: should the
    /// emptying be lost in a crash, the next opening removes entries that are gone already.
    pub(super) fn clear(&mut self) -> io::Result<()> {
        if let (false, Some(file)) = (self.empty, &self.file) {
            file.set_len(0)?;
            self.empty = true;
        }
        Ok(())
    }
}

/// The ids of the complete lines of a ledger; a line torn by a crash while it was written (not
/// ended, or not a JSON string) names nothing — its mail was not marked, and is sent again.
fn read_ids(bytes: &[u8]) -> Vec<String> {
    bytes
        .split_inclusive(|b| *b == b'\n')
        .filter_map(|line| line.strip_suffix(b"\n"))
        .filter_map(|line| serde_json::from_slice::<String>(line).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::tests::TempDir;

    #[test]
    fn a_ledger_gives_back_what_was_appended_until_it_is_emptied() {
        let dir = TempDir::new("ledger");
        let dir = &dir.0;
        let (mut ledger, ids) = Ledger::open(dir).unwrap();
        assert!(ids.is_empty());
        ledger.clear().unwrap();
        assert!(!dir.join(FILE).exists(), "no mark, no file");
        ledger
            .append(&["<a@x>|p@x.test", "<b@x>|q\"\n@x.test"])
            .unwrap();
        ledger.append(&["<c@x>|r@x.test"]).unwrap();
        drop(ledger);
        let (mut ledger, ids) = Ledger::open(dir).unwrap();
        assert_eq!(
            ids,
            ["<a@x>|p@x.test", "<b@x>|q\"\n@x.test", "<c@x>|r@x.test"]
        );
        ledger.clear().unwrap();
        ledger.append(&["<d@x>|s@x.test"]).unwrap();
        drop(ledger);
        assert_eq!(Ledger::open(dir).unwrap().1, ["<d@x>|s@x.test"]);
    }

    #[test]
    fn a_line_torn_by_a_crash_names_nothing() {
        assert_eq!(
            read_ids(b"\"<a@x>|p@x.test\"\n\"<b@x>|q@x.te"),
            ["<a@x>|p@x.test"]
        );
        assert_eq!(
            read_ids(b"\"<a@x>|p@x.test\"\ngarbage\n"),
            ["<a@x>|p@x.test"]
        );
        assert!(read_ids(b"").is_empty());
    }
}
