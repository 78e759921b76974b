//! `fernzug backup DIR` (docs/operating.md): a consistent copy of the store and the shelf into
//! an empty folder, which is then a `data_dir` the relay runs on as it is — while `fernzug run`
//! runs, without stopping it.
//!
//! The store is one file that one process holds at a time, and the daemon holds it while it
//! works. So the command does not take it from the daemon (that would stop the relay for as
//! long as the copy takes): it asks the daemon, by a file beside the store, and the daemon
//! writes the copy on a thread of its own through one read transaction ([`Store::backup`])
//! while its loop goes on reading, deciding and sending. When no relay holds the store, the
//! command writes the copy itself.
//!
//! The files, in the data directory:
//! - `backup.request`: a backup asked for ([`Request`], JSON), made with `O_EXCL`, so that two
//!   commands cannot both ask;
//! - `backup.running`: a backup under way: the request, renamed by the daemon when it takes it
//!   (or written by the command that writes the copy itself), with the process that writes it;
//! - `backup.ID.done`: what came of it, for the command that asked: `ok LINE` or `error REASON`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::store::backup::unfit;
use crate::store::{Store, StoreError};

/// The request's file in the data directory.
pub const REQUEST: &str = "backup.request";
/// The file of a backup under way.
pub const RUNNING: &str = "backup.running";
/// How long a command waits for the running relay to take its request.
pub const TAKE_WAIT: Duration = Duration::from_secs(120);
/// How often the command looks whether its backup is done.
const POLL: Duration = Duration::from_millis(100);

/// A backup asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Where the copy goes (absolute).
    pub dir: PathBuf,
    /// Names the answer's file (`backup.ID.done`).
    pub id: String,
    /// The process writing the copy (after the daemon took it: the daemon).
    pub pid: u32,
}

fn done_file(data_dir: &Path, id: &str) -> PathBuf {
    data_dir.join(format!("backup.{id}.done"))
}

/// Writes the backup of `store` into `dir` and says what it wrote, in one line.
pub fn write(store: &Store, dir: &Path) -> Result<String, StoreError> {
    let started = Instant::now();
    let b = store.backup(dir)?;
    Ok(format!(
        "backup written to {}: {} games, {} mails in the archive, {} shelf files, {:.1} MB in {:.1} s",
        dir.display(),
        b.games,
        b.mails,
        b.shelf_files,
        b.bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    ))
}

/// Whether a backup is under way (the process writing it still runs): who, and since when. A
/// file left by a process that died is removed.
pub fn under_way(data_dir: &Path) -> Option<String> {
    let path = data_dir.join(RUNNING);
    let text = std::fs::read_to_string(&path).ok()?;
    let pid = serde_json::from_str::<Request>(&text).ok().map(|r| r.pid);
    match pid {
        Some(pid) if alive(pid) => Some(format!(
            "another backup is under way (process {pid}, {})",
            path.display()
        )),
        _ => {
            let _ = std::fs::remove_file(&path);
            None
        }
    }
}

/// Whether process `pid` runs (Linux: `/proc/PID`).
fn alive(pid: u32) -> bool {
    Path::new("/proc").join(pid.to_string()).exists()
}

/// Writes `value` as JSON into a file `path` that must not exist yet.
fn create_new(path: &Path, value: &Request) -> std::io::Result<()> {
    let mut f = crate::store::private::open(
        std::fs::OpenOptions::new().write(true).create_new(true),
        path,
    )?;
    f.write_all(serde_json::to_string(value)?.as_bytes())?;
    f.sync_all()
}

/// `fernzug backup DIR`: asks the running relay for the backup, or writes it itself when no
/// relay holds the store. The line to print, or the reason it was not written.
pub fn backup(data_dir: &Path, dir: &Path) -> Result<String, String> {
    if let Some(why) = unfit(dir) {
        return Err(why);
    }
    let dir = std::path::absolute(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    if let Some(who) = under_way(data_dir) {
        return Err(who);
    }
    let store_dir = data_dir.join("store");
    if !store_dir.join(crate::store::FILE).exists() && !Store::kept_by_sled(&store_dir) {
        return Err(format!(
            "no store in {}: nothing to back up (is `data_dir` right?)",
            data_dir.display()
        ));
    }
    match Store::open(&store_dir) {
        Ok(store) => return alone(&store, data_dir, &dir),
        Err(e) if e.is_locked() => {}
        Err(e) => return Err(e.to_string()),
    }
    // The relay holds the store: ask it.
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let request = Request {
        dir: dir.clone(),
        id: format!("{}-{nanos}", std::process::id()),
        pid: std::process::id(),
    };
    let request_path = data_dir.join(REQUEST);
    match create_new(&request_path, &request) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            let asker = std::fs::read_to_string(&request_path)
                .ok()
                .and_then(|t| serde_json::from_str::<Request>(&t).ok());
            match asker {
                Some(r) if alive(r.pid) => {
                    return Err(format!(
                        "another backup is under way (asked by process {}, into {})",
                        r.pid,
                        r.dir.display()
                    ));
                }
                // Left by a command that died: replaced.
                _ => {
                    let _ = std::fs::remove_file(&request_path);
                    create_new(&request_path, &request)
                        .map_err(|e| format!("cannot write {}: {e}", request_path.display()))?;
                }
            }
        }
        Err(e) => return Err(format!("cannot write {}: {e}", request_path.display())),
    }
    let asked = Instant::now();
    let done_path = done_file(data_dir, &request.id);
    loop {
        std::thread::sleep(POLL);
        if let Ok(answer) = std::fs::read_to_string(&done_path) {
            let _ = std::fs::remove_file(&done_path);
            return match answer.split_once(' ') {
                Some(("ok", line)) => Ok(line.to_string()),
                Some((_, reason)) => Err(reason.to_string()),
                None => Err(answer),
            };
        }
        let ours = |path: &Path| {
            std::fs::read_to_string(path)
                .ok()
                .and_then(|t| serde_json::from_str::<Request>(&t).ok())
                .is_some_and(|r| r.id == request.id)
        };
        if ours(&request_path) {
            // Not taken yet: the store may have become free (no relay, a command held it).
            match Store::open(&store_dir) {
                Ok(store) => {
                    let _ = std::fs::remove_file(&request_path);
                    return alone(&store, data_dir, &dir);
                }
                Err(e) if e.is_locked() => {}
                Err(e) => {
                    let _ = std::fs::remove_file(&request_path);
                    return Err(e.to_string());
                }
            }
            if asked.elapsed() > TAKE_WAIT {
                let _ = std::fs::remove_file(&request_path);
                return Err(format!(
                    "the store is held by a process that did not take the backup request within \
                     {} s (is `fernzug run` of this version running?)",
                    TAKE_WAIT.as_secs()
                ));
            }
        } else if !ours(&data_dir.join(RUNNING)) && !done_path.exists() {
            return Err(
                "the relay stopped before the backup was written (nothing is in place; ask again)"
                    .to_string(),
            );
        }
    }
}

/// Writes the backup with the store this command holds, marked as under way meanwhile.
fn alone(store: &Store, data_dir: &Path, dir: &Path) -> Result<String, String> {
    let mark = Request {
        dir: dir.to_path_buf(),
        id: "alone".into(),
        pid: std::process::id(),
    };
    let running = data_dir.join(RUNNING);
    create_new(&running, &mark).map_err(|e| match e.kind() {
        std::io::ErrorKind::AlreadyExists => "another backup is under way".to_string(),
        _ => format!("cannot write {}: {e}", running.display()),
    })?;
    let written = write(store, dir);
    let _ = std::fs::remove_file(&running);
    written.map_err(|e| e.to_string())
}

/// The daemon's side: whether a backup is asked for.
pub fn requested(data_dir: &Path) -> bool {
    data_dir.join(REQUEST).exists()
}

/// The daemon's side: takes the backup asked for, if any, and writes it on a thread of its own
/// through `store` (a clone of the daemon's: the loop goes on meanwhile). Returns the thread.
pub fn take(store: &Store, data_dir: &Path) -> Option<std::thread::JoinHandle<()>> {
    let request_path = data_dir.join(REQUEST);
    let text = std::fs::read_to_string(&request_path).ok()?;
    let Ok(mut request) = serde_json::from_str::<Request>(&text) else {
        tracing::warn!(
            "{} cannot be read as a backup request: removed",
            request_path.display()
        );
        let _ = std::fs::remove_file(&request_path);
        return None;
    };
    // Taken: the request becomes the mark of a backup under way, written by this process.
    request.pid = std::process::id();
    let running = data_dir.join(RUNNING);
    let marked = std::fs::write(
        &running,
        serde_json::to_string(&request).unwrap_or_default(),
    )
    .and_then(|()| std::fs::remove_file(&request_path));
    if let Err(e) = marked {
        tracing::warn!(
            "backup into {}: cannot take the request: {e}",
            request.dir.display()
        );
        return None;
    }
    tracing::info!(
        "backup into {} asked for: writing it",
        request.dir.display()
    );
    let store = store.clone();
    let data_dir = data_dir.to_path_buf();
    let spawned = std::thread::Builder::new()
        .name("fernzug-backup".into())
        .spawn(move || {
            let answer = match write(&store, &request.dir) {
                Ok(line) => {
                    tracing::info!("{line}");
                    format!("ok {line}")
                }
                Err(e) => {
                    tracing::warn!("backup into {} failed: {e}", request.dir.display());
                    format!("error {e}")
                }
            };
            drop(store);
            let done = done_file(&data_dir, &request.id);
            let tmp = done.with_extension("tmp");
            let _ = std::fs::write(&tmp, answer).and_then(|()| std::fs::rename(&tmp, &done));
            let _ = std::fs::remove_file(data_dir.join(RUNNING));
        });
    match spawned {
        Ok(h) => Some(h),
        Err(e) => {
            tracing::warn!("backup: cannot start its thread: {e}");
            let _ = std::fs::remove_file(&running);
            None
        }
    }
}
