//! The store's files are the players' (addresses, reply keys, XFCC password hashes, the start
//! mails with their passwords, every mail in and out): whatever the umask of whoever runs
//! `fernzug`, every folder the store makes is `0700` and every file `0600` (docs/security.md).
//! The service's own unit adds `UMask=0077`; a command run by hand, or a backup written as root,
//! keeps to the same modes through these functions.
//!
//! And whoever runs `fernzug`, what it makes belongs to the owner of the folder it is made in: a
//! command run by root (`tournament add`, `quarantine retry`, a backup, … in root's shell on the
//! packaged install) in a data directory the service's user owns gives every file and folder it
//! creates there to that user, so the service can go on writing them. Only root makes files
//! that are root's to give away; for anyone else the new file is already the folder owner's, or
//! stays the maker's (a folder another user lets him write in).

use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

/// The mode of the store's folders.
pub const DIR_MODE: u32 = 0o700;
/// The mode of the store's files.
pub const FILE_MODE: u32 = 0o600;

/// Makes `path` and every missing folder above it with mode `0700`, each given to the owner of
/// the folder it is made in; an existing `path` is given mode `0700` too (a folder made by an
/// earlier version under a looser umask).
pub fn dir_all(path: &Path) -> io::Result<()> {
    let missing: Vec<&Path> = path
        .ancestors()
        .take_while(|p| !p.as_os_str().is_empty() && std::fs::symlink_metadata(p).is_err())
        .collect();
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(DIR_MODE)
        .create(path)?;
    for dir in missing.iter().rev() {
        let made = std::fs::metadata(dir)?;
        if let Some((uid, gid)) = owner_for(&made, dir)? {
            std::os::unix::fs::chown(dir, Some(uid), Some(gid))?;
        }
    }
    restrict(path, DIR_MODE)
}

/// Opens `path` for writing, created with mode `0600` (or truncated if it is there) and given to
/// the owner of its folder.
pub fn create(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(FILE_MODE)
        .open(path)?;
    hand_over(&file, path)?;
    Ok(file)
}

/// Opens `path` with `options` (a file that may be created), with mode `0600` and given to the
/// owner of its folder.
pub fn open(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    let file = options.mode(FILE_MODE).open(path)?;
    hand_over(&file, path)?;
    Ok(file)
}

/// Makes sure the file `path` exists with mode `0600` (created empty if missing) and belongs to
/// the owner of its folder, before a library (redb) opens it: the file never exists with a
/// looser mode.
pub fn touch(path: &Path) -> io::Result<()> {
    let file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(false)
        .mode(FILE_MODE)
        .open(path)?;
    hand_over(&file, path)?;
    restrict(path, FILE_MODE)
}

/// Gives the file `file` (at `path`) to the owner of its folder, when root made it there.
fn hand_over(file: &File, path: &Path) -> io::Result<()> {
    if let Some((uid, gid)) = owner_for(&file.metadata()?, path)? {
        std::os::unix::fs::fchown(file, Some(uid), Some(gid))?;
    }
    Ok(())
}

/// The owner (user, group) to give `path` to: its folder's, when `path` is root's and the folder
/// is someone else's — only root makes root's files, and only root may give them away. `None`:
/// it stays as it is.
fn owner_for(made: &std::fs::Metadata, path: &Path) -> io::Result<Option<(u32, u32)>> {
    if made.uid() != 0 {
        return Ok(None);
    }
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let owner = std::fs::metadata(folder)?;
    Ok((owner.uid() != 0).then_some((owner.uid(), owner.gid())))
}

/// Takes away from `path` every permission beyond `mode` (it never adds one).
fn restrict(path: &Path, mode: u32) -> io::Result<()> {
    let meta = std::fs::metadata(path)?;
    let now = meta.permissions().mode() & 0o7777;
    if now & !mode != 0 {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(now & mode))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folders_0700_and_files_0600_under_a_loose_umask() {
        let base = std::env::temp_dir().join(format!("fernzug-private-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        // A folder made loosely before (an earlier version, umask 022) is tightened.
        std::fs::create_dir_all(base.join("old")).unwrap();
        std::fs::set_permissions(base.join("old"), std::fs::Permissions::from_mode(0o755)).unwrap();
        dir_all(&base.join("old")).unwrap();
        dir_all(&base.join("a/b")).unwrap();
        touch(&base.join("a/b/f")).unwrap();
        let mut f = create(&base.join("a/g")).unwrap();
        std::io::Write::write_all(&mut f, b"x").unwrap();
        let mode = |p: &str| {
            std::fs::metadata(base.join(p))
                .unwrap()
                .permissions()
                .mode()
                & 0o777
        };
        assert_eq!(mode("old"), 0o700);
        assert_eq!(mode("a"), 0o700);
        assert_eq!(mode("a/b"), 0o700);
        assert_eq!(mode("a/b/f"), 0o600);
        assert_eq!(mode("a/g"), 0o600);
        std::fs::remove_dir_all(&base).unwrap();
    }
}
