//! The shelf: the games of tournaments whose archive was rotated (Fax 2.8, four weeks after
//! their last game ended) leave the store for one file per tournament in `DATA/shelf`, beside
//! it, so that starting the relay, its memory and the store it opens grow with the running
//! tournaments, not with the years (the whole story: `crate::app::shelf`).
//!
//! - **Shelf files.** When a tournament is rotated, its games and their event logs are written
//!   to one file, `DATA/shelf/ID.json` ([`ShelfFile`]): to a temporary file, fsynced, renamed,
//!   the folder fsynced — all before the transaction that marks the tournament rotated and
//!   removes its games and events from the store (`shelve`). A crash in between leaves
//!   the games in the store (the tournament is not rotated; the file is written again at the
//!   next rotation) and never loses one. A shelf file is never changed after that. Beside it,
//!   `DATA/shelf/rows/ID.json` keeps what `fernzug status` shows of each game.
//! - **The store's `ShelvedGames` / `ShelvedKeys` trees.** The reply keys of the shelved games
//!   (a mail may still answer through one) and every shelved game the core changes after it was
//!   shelved (a late mail noted in its log): the store's copy wins over the file's.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::batch::Batch;
use super::error::StoreError;
use super::handle::Store;
use crate::core::State;
use crate::core::model::{Game, Tournament};
use crate::game_ref::GameRef;

/// One rotated tournament's games and their event logs as they were when it was shelved.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ShelfFile {
    /// The tournament's id.
    pub tournament: String,
    /// Its games, finished.
    pub games: Vec<Game>,
    /// Each game's event log: (sequence number, the event as the store kept it).
    pub events: BTreeMap<String, Vec<(u64, serde_json::Value)>>,
}

/// The shelf's folder beside the store (`DATA/store` → `DATA/shelf`).
pub fn dir(store: &Store) -> PathBuf {
    match store.path().parent() {
        Some(data) => data.join("shelf"),
        None => PathBuf::from("shelf"),
    }
}

/// The file of tournament `id` (ids are letters, digits and `-`; anything else is written as
/// its bytes in hex after `x-`, so no id can name a path outside the folder; so is an id that
/// starts with `x-` itself).
fn file_of(dir: &Path, id: &str) -> PathBuf {
    let plain = !id.is_empty()
        && !id.starts_with("x-")
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let name = if plain {
        id.to_string()
    } else {
        let hex: String = id.bytes().map(|b| format!("{b:02x}")).collect();
        format!("x-{hex}")
    };
    dir.join(format!("{name}.json"))
}

fn shelf_err(path: &Path) -> impl FnOnce(io::Error) -> StoreError + '_ {
    move |source| StoreError::Shelf {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `file` durably into the shelf folder `dir`: a temporary file, fsynced, renamed over the
/// tournament's file, the folder fsynced. Returns only once the file would survive a power cut.
pub fn write(dir: &Path, file: &ShelfFile) -> Result<(), StoreError> {
    write_json(dir, &file_of(dir, &file.tournament), file)
}

/// The folder of the status rows kept for the shelved tournaments (`DATA/shelf/rows`).
fn rows_dir(dir: &Path) -> PathBuf {
    dir.join("rows")
}

/// Writes `rows`, what `fernzug status` shows of the finished games of tournament `id`, durably
/// beside its shelf file (`DATA/shelf/rows/ID.json`): listed without reading the shelf file.
pub fn write_rows<R: Serialize>(dir: &Path, id: &str, rows: &[R]) -> Result<(), StoreError> {
    let rows_dir = rows_dir(dir);
    write_json(&rows_dir, &file_of(&rows_dir, id), &rows)
}

/// The kept rows of tournament `id`, if they were written.
pub fn read_rows<R: serde::de::DeserializeOwned>(
    dir: &Path,
    id: &str,
) -> Result<Option<Vec<R>>, StoreError> {
    let rows_dir = rows_dir(dir);
    read_json(&file_of(&rows_dir, id))
}

/// Writes `value` as JSON to `path` in folder `dir` durably: a temporary file, fsynced, renamed,
/// the folder fsynced.
fn write_json(dir: &Path, path: &Path, value: &impl Serialize) -> Result<(), StoreError> {
    super::private::dir_all(dir).map_err(shelf_err(dir))?;
    let tmp = path.with_extension("json.tmp");
    let written = (|| {
        let f = super::private::create(&tmp)?;
        let mut w = io::BufWriter::new(f);
        serde_json::to_writer(&mut w, value).map_err(io::Error::other)?;
        w.flush()?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        std::fs::File::open(dir)?.sync_all()
    })();
    written.map_err(shelf_err(path))
}

/// The shelf file of tournament `id`, if it was written.
pub fn read(dir: &Path, id: &str) -> Result<Option<ShelfFile>, StoreError> {
    read_json(&file_of(dir, id))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, StoreError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(shelf_err(path)(e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| shelf_err(path)(io::Error::new(io::ErrorKind::InvalidData, e)))
}

/// The ids of the tournaments with a shelf file in `dir`.
pub(crate) fn shelved_ids(dir: &Path) -> Result<Vec<String>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(shelf_err(dir)(e)),
    };
    let mut ids = Vec::new();
    for entry in entries {
        let entry = entry.map_err(shelf_err(dir))?;
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        let id = match stem.strip_prefix("x-") {
            Some(hex) => match unhex(hex) {
                Some(id) => id,
                None => continue,
            },
            None => stem.to_string(),
        };
        ids.push(id);
    }
    ids.sort();
    Ok(ids)
}

fn unhex(hex: &str) -> Option<String> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

/// The games of tournament `t` in the order of their ids, as the store has them: a running
/// tournament's from the games tree (one scan), a shelved one's by [`shelved_games`]. What
/// `App::games_of` and the tournament pages (`crate::pages`) show.
pub(crate) fn tournament_games(
    store: &Store,
    t: &crate::core::model::Tournament,
) -> Result<Vec<Game>, StoreError> {
    let mut games = if t.rotated {
        shelved_games(store, &t.id, &t.games)?
    } else {
        let mut games = Vec::with_capacity(t.games.len());
        store.games_of(&t.id, |g| games.push(g))?;
        games
    };
    games.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(games)
}

/// The shelved games `wanted` (all of one rotated tournament `id`): the store's copy where the
/// core changed one after it was shelved, else the shelf file's.
pub(crate) fn shelved_games(
    store: &Store,
    id: &str,
    wanted: &[GameRef],
) -> Result<Vec<Game>, StoreError> {
    let mut found = Vec::new();
    let mut missing = BTreeSet::new();
    for g in wanted {
        match store.shelved_game(g)? {
            Some(game) => found.push(game),
            None => {
                missing.insert(g.clone());
            }
        }
    }
    if !missing.is_empty()
        && let Some(file) = read(&dir(store), id)?
    {
        found.extend(file.games.into_iter().filter(|g| missing.contains(&g.id)));
    }
    Ok(found)
}

/// Writes the shelf files of the tournaments `ids` (their games as `state` holds them, every
/// game in memory; their event logs from the store) and adds to `batch` their removal from the
/// store's games and events, and their reply keys moved to the shelf's tree. The files are
/// durable when this returns; `batch` must be committed after. Returns what to drop from memory
/// once it is. `rows_of` gives the rows kept beside each file ([`write_rows`]).
pub(crate) fn shelve<R: Serialize>(
    store: &Store,
    state: &State,
    ids: &BTreeSet<String>,
    batch: &mut Batch,
    rows_of: &impl Fn(&Tournament, &[Game]) -> Vec<R>,
) -> Result<(Vec<GameRef>, Vec<String>), StoreError> {
    let dir = dir(store);
    let mut games = Vec::new();
    for id in ids {
        let Some(t) = state.tournaments.get(id) else {
            continue;
        };
        let mut file = ShelfFile {
            tournament: id.clone(),
            ..ShelfFile::default()
        };
        for g in &t.games {
            if let Some(game) = state.games.get(g) {
                let key = g.to_string();
                let events = store.events::<serde_json::Value>(&key)?;
                for (seq, _) in &events {
                    batch.remove_event(&key, *seq);
                }
                file.events.insert(key.clone(), events);
                file.games.push(game.clone());
                batch.delete_game(g);
                games.push(g.clone());
            }
        }
        // None in memory (a migration that already shelved this one): its files stay as they are.
        if !file.games.is_empty() {
            write_rows(&dir, id, &rows_of(t, &file.games))?;
            write(&dir, &file)?;
        }
    }
    let set: BTreeSet<&GameRef> = games.iter().collect();
    let mut keys = Vec::new();
    for (k, b) in state.keys.iter() {
        if set.contains(&b.game) {
            batch.put_shelved_key(k, b);
            batch.unbind_key(k, &b.game.to_string());
            keys.push(k.clone());
        }
    }
    Ok((games, keys))
}

/// Drops shelved games and keys from memory.
pub(crate) fn forget(state: &mut State, games: &[GameRef], keys: &[String]) {
    for g in games {
        state.games.remove(g);
    }
    for k in keys {
        state.keys.remove(k);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tournament_id_names_a_file_inside_the_shelf_and_is_read_back_from_its_name() {
        let dir = std::env::temp_dir().join(format!("fernzug-shelf-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(file_of(&dir, "FAX-2026-3"), dir.join("FAX-2026-3.json"));
        for id in ["FAX-2026-3", "../etc/passwd", "x-41", "Fernturnier 2027/1"] {
            let path = file_of(&dir, id);
            assert_eq!(path.parent(), Some(dir.as_path()), "{id}");
            write(
                &dir,
                &ShelfFile {
                    tournament: id.into(),
                    ..ShelfFile::default()
                },
            )
            .unwrap();
            assert_eq!(read(&dir, id).unwrap().unwrap().tournament, id);
        }
        let mut ids = shelved_ids(&dir).unwrap();
        ids.sort();
        assert_eq!(
            ids,
            ["../etc/passwd", "FAX-2026-3", "Fernturnier 2027/1", "x-41"]
        );
        assert!(read(&dir, "NONE").unwrap().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
