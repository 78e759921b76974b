//! The store's version and the ordered steps that bring a store an earlier fernzug wrote to it.
//!
//! The version is one number in `Meta` (`schema_version`). Step N takes a store at version N-1
//! to version N and records N in its own last transaction (a step of several transactions that
//! stops half way is taken up again at the next opening: each is written so that doing it again
//! does no harm). A new store is made at [`SCHEMA_VERSION`]; a store of a later version is
//! refused. The steps, in order ([`Step`]):
//!
//! 2. **by_game** — layout 1 kept a game's records in five trees: they move into
//!    [`Tree::ByGame`] ([`gather_by_game`]), after a store from before [`Tree::DueOrder`] got its
//!    order of deadlines ([`order_due`]); the file is compacted after.
//! 3. **ends** — games learn when they ended, tournaments that their archive was rotated
//!    ([`Upgrade::ends`]).
//! 4. **shelf** — the games of the tournaments rotated before the shelf go to shelf files
//!    ([`Upgrade::shelf`]).
//! 5. **indexes** — the index of deadlines, of the reply keys by game and of the rotated
//!    tournaments and their people, written whole ([`Upgrade::indexes`]).
//!
//! [`Store::open`] does the steps that need only the store (2) before anything reads it; the
//! later ones need every game in memory and what only the shell computes (the rows kept beside a
//! shelf file, the entries of its index of deadlines): the shell does them, in order, when it
//! first opens such a store (`crate::app`, `lazy_state`; opened with every game, it does 3 and
//! 4). Version 1 is where every store kept in sled stands (`legacy.rs` copies it over first).
//!
//! Versions before the steps were numbered counted 3 to 5 by five marks in `Meta` ([`Mark`]),
//! and wrote 2 whatever their marks said. Such a store (version 2) stands at 2 and the steps its
//! marks say were done, in order, as far as none is missing ([`version`]); the marks are read,
//! never written. A mark set after a missing step keeps the work of its step from being done
//! again, as the earlier versions kept it: the shelf's mark (step 4), where the ends' is missing.
//! The indexes (step 5) are written whenever a step before them was missing, as those versions
//! wrote them whenever any mark was missing.

use std::collections::BTreeSet;

use redb::{ReadableDatabase, ReadableTable, ReadableTableMetadata, TableHandle};
use serde::Serialize;

use chrono::{DateTime, Utc};

use super::batch::Batch;
use super::db::Db;
use super::error::StoreError;
use super::handle::Store;
use super::schema::{
    self, GAMES_BEFORE, Mark, PARTS_BEFORE, Part, SCHEMA_KEY, Tree, legacy_rotated_key,
    part_key_from, part_prefix, part_prefix_before, table, table_named,
};
use super::shelf::{forget, shelve};
use crate::core::model::{Game, GameStatus, State, Tournament};

/// How many entries one transaction of [`gather_by_game`] moves at most.
pub(super) const GATHER_CHUNK: usize = 20_000;

/// How many bytes of keys and values one transaction of [`gather_by_game`] moves at most
/// (about: the entry that passes it is the last): a move of years of games stays within the
/// memory of a small server.
pub(super) const GATHER_BYTES: usize = 4 << 20;

/// The version of the store this program writes: every step of its version done. A new store
/// is made at it; a store of a later one is refused.
pub const SCHEMA_VERSION: u32 = Step::Indexes as u32;

/// The version [`Store::open`] brings a store to by itself (layout 2: a game's records side by
/// side in [`Tree::ByGame`]); the steps after it need the shell ([`Upgrade`]).
pub const LAYOUT_VERSION: u32 = Step::ByGame as u32;

/// The steps of the store's version, each named by the version it brings a store to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// A game's records moved from the five trees of layout 1 into `by_game`.
    ByGame = 2,
    /// Games' ends and rotated tournaments read from what earlier versions kept.
    Ends = 3,
    /// The games of tournaments rotated before the shelf moved to shelf files.
    Shelf = 4,
    /// The indexes of deadlines, of reply keys by game and of the rotated tournaments written.
    Indexes = 5,
}

impl Step {
    /// Every step, in order.
    const ALL: [Step; 4] = [Step::ByGame, Step::Ends, Step::Shelf, Step::Indexes];

    /// The version it brings a store to.
    fn version(self) -> u32 {
        self as u32
    }

    /// Whether it needs only the store ([`Store::open`] does it), not the shell's state.
    fn own(self) -> bool {
        self == Step::ByGame
    }

    /// The marks by which a store of version 2 said the step was done (see the module
    /// documentation): every one of them.
    fn marks(self) -> &'static [Mark] {
        match self {
            Step::ByGame => &[],
            Step::Ends => &[Mark::EndsMigrated],
            Step::Shelf => &[Mark::Shelf],
            Step::Indexes => &[Mark::DueIndex, Mark::KeysByGame, Mark::RotatedIndex],
        }
    }
}

/// The store's version (`None`: none recorded, a new store): as recorded, or, recorded 2 by a
/// version that counted the later steps by marks, 2 and every step after it whose marks are all
/// set, in order, up to the first that is not.
pub(super) fn version(store: &Store) -> Result<Option<u32>, StoreError> {
    let Some(recorded) = store.db.get::<u32>(Tree::Meta, SCHEMA_KEY)? else {
        return Ok(None);
    };
    if recorded != LAYOUT_VERSION {
        return Ok(Some(recorded));
    }
    let mut version = recorded;
    for step in Step::ALL.into_iter().filter(|s| s.version() > recorded) {
        for &mark in step.marks() {
            if !marked(store, mark)? {
                return Ok(Some(version));
            }
        }
        version = step.version();
    }
    Ok(Some(version))
}

/// Whether a version that counted the steps by marks set mark `m`.
fn marked(store: &Store, m: Mark) -> Result<bool, StoreError> {
    Ok(store.db.get::<bool>(Tree::Meta, m.key())? == Some(true))
}

/// Checks the store's version and does the steps that need only the store (at opening, before
/// anything reads it): a store of this version or an earlier one is opened, one of a later one
/// refused; a new store (no version, every tree empty) is made at [`SCHEMA_VERSION`], a store
/// without a version that holds anything refused.
pub(super) fn open(store: &mut Store) -> Result<(), StoreError> {
    let version = match version(store)? {
        Some(v) if (1..=SCHEMA_VERSION).contains(&v) => v,
        Some(found) => {
            return Err(StoreError::Schema {
                path: store.db.path.clone(),
                found,
                expected: SCHEMA_VERSION,
            });
        }
        None => {
            for t in Tree::ALL {
                let len = store
                    .db
                    .read(t)?
                    .len()
                    .map_err(store.db.db_err(format!("reading {t}")))?;
                if len > 0 {
                    return Err(StoreError::NoSchema {
                        path: store.db.path.clone(),
                    });
                }
            }
            let mut batch = Batch::new();
            batch.put(Tree::Meta, SCHEMA_KEY, &SCHEMA_VERSION);
            return store.commit(batch);
        }
    };
    for step in Step::ALL.into_iter().filter(|s| s.version() > version) {
        if !step.own() {
            break;
        }
        match step {
            Step::ByGame => {
                order_due(store)?;
                gather_by_game(store)?;
                // The trees the move emptied leave their pages free inside the file: given
                // back. The store is whole without it: a failure is said, not fatal (it is not
                // tried again).
                if let Err(e) = compact(store) {
                    tracing::warn!("{e}; the store works on, its file larger than it needs to be");
                }
            }
            Step::Ends | Step::Shelf | Step::Indexes => {}
        }
    }
    Ok(())
}

/// The steps of a [`Store`]'s version that need the shell (`store.upgrade()`): done, in order,
/// with every game in memory, when the shell first opens a store of an earlier version.
pub struct Upgrade<'a> {
    store: &'a Store,
    db: &'a Db,
}

impl Store {
    /// The steps of the store's version that need the shell's state.
    pub fn upgrade(&self) -> Upgrade<'_> {
        Upgrade {
            store: self,
            db: &self.db,
        }
    }
}

impl Upgrade<'_> {
    /// Whether the store is at this program's version (every step done): then the relay opens
    /// it without reading every game.
    pub fn done(&self) -> Result<bool, StoreError> {
        Ok(version(self.store)? == Some(SCHEMA_VERSION))
    }

    /// Whether `step` is to be done now: `false` when the store is at its version or later; an
    /// error when a step before it is missing (the shell does them in order).
    fn next(&self, step: Step) -> Result<bool, StoreError> {
        let at = version(self.store)?.unwrap_or(0);
        if at >= step.version() {
            return Ok(false);
        }
        if at + 1 < step.version() {
            return Err(StoreError::Aborted {
                path: self.db.path.clone(),
                reason: format!(
                    "the store is at version {at}: step {} of its version comes before step {}",
                    at + 1,
                    step.version()
                ),
            });
        }
        Ok(true)
    }

    /// Step 3. Stores written before games knew when they ended (`Game::ended_at`) and
    /// tournaments that their archive was rotated (`Tournament::rotated`): both are read once
    /// from what those versions kept — the `ended` event of the game's log and the `rotated:ID`
    /// meta key — and written back (into `state`, which holds every game, and the store), so the
    /// core decides rotation (Fax 2.8) from its own state. One transaction, with the version.
    pub fn ends(&self, state: &mut State) -> Result<(), StoreError> {
        if !self.next(Step::Ends)? {
            return Ok(());
        }
        let mut batch = Batch::default();
        for g in state.games.values_mut() {
            if g.status != GameStatus::Finished || g.ended_at.is_some() {
                continue;
            }
            // Read as plain JSON: an event of an older shape must not stop the relay here.
            g.ended_at = self
                .store
                .events::<serde_json::Value>(&g.id.to_string())?
                .into_iter()
                .filter(|(_, e)| e["event"] == "ended")
                .filter_map(|(_, e)| e["at"].as_str().and_then(|a| a.parse().ok()))
                .max();
            if g.ended_at.is_some() {
                batch.put_game(g, false);
            }
        }
        for t in state.tournaments.values_mut() {
            if !t.rotated && self.legacy_rotated(&t.id)? {
                t.rotated = true;
                batch.put_tournament(t);
            }
        }
        batch.put(Tree::Meta, SCHEMA_KEY, &Step::Ends.version());
        self.store.commit(batch)
    }

    /// Step 4. Stores from before the shelf: the games of tournaments already rotated go to the
    /// shelf (a transaction per tournament: a store of many years is not moved in one), and
    /// leave `state`; the version after. `rows_of` gives the rows kept beside each shelf file. A
    /// store whose mark says the shelf was made (see the module documentation) only records the
    /// version.
    pub fn shelf<R: Serialize>(
        &self,
        state: &mut State,
        rows_of: &impl Fn(&Tournament, &[Game]) -> Vec<R>,
    ) -> Result<(), StoreError> {
        if !self.next(Step::Shelf)? {
            return Ok(());
        }
        if !marked(self.store, Mark::Shelf)? {
            let rotated: Vec<String> = state
                .tournaments
                .values()
                .filter(|t| t.rotated)
                .map(|t| t.id.clone())
                .collect();
            for id in rotated {
                let mut batch = Batch::default();
                let (games, keys) = shelve(
                    self.store,
                    state,
                    &BTreeSet::from([id]),
                    &mut batch,
                    rows_of,
                )?;
                self.store.commit(batch)?;
                forget(state, &games, &keys);
            }
        }
        let mut batch = Batch::default();
        batch.put(Tree::Meta, SCHEMA_KEY, &Step::Shelf.version());
        self.store.commit(batch)
    }

    /// Step 5. Stores from before the index of deadlines and the index of the reply keys by
    /// game: both are written whole in one transaction, with the version, from `state` (every
    /// game and key in memory) and the entries `due` adds to the batch (the shell's index, built
    /// from the core's deadlines) — and the indexes of the rotated tournaments and their people,
    /// from the rotated tournaments of `state`. Writing them again is harmless.
    pub fn indexes(&self, state: &State, due: impl FnOnce(&mut Batch)) -> Result<(), StoreError> {
        if !self.next(Step::Indexes)? {
            return Ok(());
        }
        let mut batch = Batch::default();
        self.store.due().clear(&mut batch)?;
        due(&mut batch);
        for (k, b) in state.keys.iter() {
            batch.bind_key(k, &b.game.to_string(), b);
        }
        for t in state.tournaments.values().filter(|t| t.rotated) {
            batch.put_tournament(t);
        }
        batch.put(Tree::Meta, SCHEMA_KEY, &Step::Indexes.version());
        self.store.commit(batch)
    }

    /// Whether a version before `Tournament::rotated` marked tournament `id`'s archive rotated.
    fn legacy_rotated(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.db.get::<bool>(Tree::Meta, legacy_rotated_key(id))? == Some(true))
    }
}

/// A store from before [`Tree::DueOrder`]: its entries are written from [`Tree::Due`] in one
/// transaction (a store whose `DueOrder` holds entries, or whose `Due` holds none, is left as it
/// is). Part of step 2: `DueOrder` came a version before layout 2, and since then every write of
/// `Due` writes its place in `DueOrder` in the same transaction (`Batch::put_due`), and the
/// opening that moved a store to layout 2 ordered it first: a store of version 2 or later has
/// its order.
pub(super) fn order_due(store: &Store) -> Result<(), StoreError> {
    if store.db.count(Tree::DueOrder)? > 0 || store.db.count(Tree::Due)? == 0 {
        return Ok(());
    }
    let mut batch = Batch::default();
    store.db.for_each(Tree::Due, |key, at: DateTime<Utc>| {
        let key = String::from_utf8_lossy(key);
        batch.put_bytes(Tree::DueOrder, &schema::due_order_key(at, &key), Vec::new());
    })?;
    store.commit(batch)
}

/// Layout version 1 kept the running games in a tree of their own (`games`), a game's event
/// log, the index of its archived mails and its reply keys in three trees (`events`,
/// `archive_by_game`, `keys_by_game`, each `game 0 rest`),
/// and its entry in the index of deadlines in `Due` (`g/GAME`): they move into
/// [`Tree::ByGame`] (`game 0 tag rest`), some thousands in each durable transaction (at most
/// [`GATHER_CHUNK`] entries and about [`GATHER_BYTES`]), each
/// entry written there and removed from where it was in the same one (a move stopped half
/// way goes on at the next opening; nothing is in both places or in neither). The emptied
/// trees are deleted, and the store recorded at version 2 after. Nothing reads the store before
/// (`Store::open`).
pub(super) fn gather_by_game(store: &Store) -> Result<(), StoreError> {
    let mut moved = 0usize;
    if table_exists(store, GAMES_BEFORE)? {
        moved += move_games_in_order(store)?.0;
    }
    // What is left: parts without their game (none written so), moved as they come.
    for (name, part) in PARTS_BEFORE {
        if table_exists(store, name)? {
            let old = table_named(name);
            moved += move_into_by_game(store, old, b"", true, |k| part_key_from(k, part))?.0;
        }
    }
    moved += move_into_by_game(store, table(Tree::Due), b"g/", false, |k| {
        let game = String::from_utf8_lossy(&k[2..]);
        part_prefix(&game, Part::Due)
    })?
    .0;
    let mut batch = Batch::default();
    batch.put(Tree::Meta, SCHEMA_KEY, &LAYOUT_VERSION);
    store.commit(batch)?;
    tracing::info!(
        "the store's layout moved to version {LAYOUT_VERSION}: {moved} entries of games' logs, \
         archive indexes, reply keys and deadlines now kept by game, with the games"
    );
    Ok(())
}

/// Moves the games of layout 1's `games` tree in the order of their names, each followed by
/// its parts from the old trees (`events`, `archive_by_game`, `keys_by_game`, its deadline in
/// `due`) in key order, so that `by_game` is written from its start to its end: a tree filled
/// in key order packs its leaves, where entries put between others split them (moved tree by
/// tree, the file of a store of 110,000 games grew from 0.57 to 2.3 GB; game by game it
/// shrank to 0.35 GB). At most [`GATHER_CHUNK`] entries and about [`GATHER_BYTES`] a durable
/// transaction; `games` is deleted when emptied. Returns how many entries moved, in how
/// many transactions.
pub(super) fn move_games_in_order(store: &Store) -> Result<(usize, usize), StoreError> {
    let what = format!("moving {GAMES_BEFORE} into {}", Tree::ByGame);
    let mut parts = Vec::new();
    for (name, part) in PARTS_BEFORE {
        if table_exists(store, name)? {
            parts.push((table_named(name), part));
        }
    }
    in_transactions(store, &what, |tx| {
        let open = |d| tx.open_table(d).map_err(store.db.db_err(what.clone()));
        let mut games = open(table_named(GAMES_BEFORE))?;
        let mut to = open(table(Tree::ByGame))?;
        let mut due = open(table(Tree::Due))?;
        let mut olds = Vec::new();
        for (d, part) in &parts {
            olds.push((open(*d)?, *part));
        }
        let (mut entries, mut bytes) = (0, 0);
        let done = loop {
            let Some((name, record)) = games
                .first()
                .map_err(store.db.db_err(what.clone()))?
                .map(|(k, v)| (k.value().to_vec(), v.value().to_vec()))
            else {
                break true;
            };
            if entries >= GATHER_CHUNK || bytes >= GATHER_BYTES {
                break false;
            }
            games
                .remove(name.as_slice())
                .map_err(store.db.db_err(what.clone()))?;
            let game = String::from_utf8_lossy(&name).into_owned();
            let mut batch = vec![(name, record)];
            let (due_key, due_part) = (format!("g/{game}"), part_prefix(&game, Part::Due));
            if let Some(at) = due
                .remove(due_key.as_bytes())
                .map_err(store.db.db_err(what.clone()))?
            {
                batch.push((due_part, at.value().to_vec()));
            }
            let prefix = part_prefix_before(&game);
            for (old, part) in olds.iter_mut() {
                let mut found = Vec::new();
                for item in old
                    .range::<&[u8]>(prefix.as_slice()..)
                    .map_err(store.db.db_err(what.clone()))?
                {
                    let (k, v) = item.map_err(store.db.db_err(what.clone()))?;
                    if !k.value().starts_with(&prefix) {
                        break;
                    }
                    found.push((k.value().to_vec(), v.value().to_vec()));
                }
                for (k, v) in found {
                    old.remove(k.as_slice())
                        .map_err(store.db.db_err(what.clone()))?;
                    batch.push((part_key_from(&k, *part), v));
                }
            }
            // The game, then its parts in the order of their keys.
            batch.sort_unstable_by(|a, b| a.0.cmp(&b.0));
            for (k, v) in batch {
                to.insert(k.as_slice(), v.as_slice())
                    .map_err(store.db.db_err(what.clone()))?;
                entries += 1;
                bytes += k.len() + v.len();
            }
        };
        drop((games, to, due, olds));
        if done {
            tx.delete_table(table_named(GAMES_BEFORE))
                .map_err(store.db.db_err(what.clone()))?;
        }
        Ok((entries, done))
    })
}

/// Runs `step` in one durable transaction after another until it says it is done; `step`
/// gives how many entries it moved and whether it is done. Returns how many entries moved
/// in all, in how many transactions.
fn in_transactions(
    store: &Store,
    what: &str,
    mut step: impl FnMut(&redb::WriteTransaction) -> Result<(usize, bool), StoreError>,
) -> Result<(usize, usize), StoreError> {
    let (mut moved, mut transactions) = (0, 0);
    loop {
        let tx = store.db.db.begin_write().map_err(store.db.db_err(what))?;
        let (n, done) = step(&tx)?;
        tx.commit().map_err(store.db.db_err(what))?;
        moved += n;
        transactions += 1;
        if done {
            return Ok((moved, transactions));
        }
    }
}

/// Gives the free pages at the end of the file back (after the move of a layout-1 store,
/// whose emptied trees leave as much free space as they held), while the store is opened
/// and nothing else holds it; a store shared already is left as it is.
pub(super) fn compact(store: &mut Store) -> Result<(), StoreError> {
    let path = store.db.path.clone();
    if let Some(db) = std::sync::Arc::get_mut(&mut store.db) {
        db.db.compact().map_err(|e| StoreError::Db {
            path,
            what: "compacting the file after the move".into(),
            source: Box::new(e.into()),
        })?;
    }
    Ok(())
}

/// Whether the file has a table called `name`.
fn table_exists(store: &Store, name: &str) -> Result<bool, StoreError> {
    let tx = store
        .db
        .db
        .begin_read()
        .map_err(store.db.db_err("reading"))?;
    match tx.open_table(table_named(name)) {
        Ok(_) => Ok(true),
        Err(redb::TableError::TableDoesNotExist(_)) => Ok(false),
        Err(e) => Err(store.db.db_err(format!("reading {name}"))(e)),
    }
}

/// Moves the entries of table `from` whose keys start with `prefix` into [`Tree::ByGame`],
/// each under `key_of(its key)`, [`GATHER_CHUNK`] entries or [`GATHER_BYTES`] in a durable
/// transaction; `from` is deleted when emptied if `drop`. Returns how many moved, in how
/// many transactions.
pub(super) fn move_into_by_game(
    store: &Store,
    from: redb::TableDefinition<'_, &'static [u8], &'static [u8]>,
    prefix: &[u8],
    drop: bool,
    key_of: impl Fn(&[u8]) -> Vec<u8>,
) -> Result<(usize, usize), StoreError> {
    let what = format!("moving {} into {}", from.name(), Tree::ByGame);
    in_transactions(store, &what, |tx| {
        let done = {
            let mut old = tx.open_table(from).map_err(store.db.db_err(what.clone()))?;
            let mut to = tx
                .open_table(table(Tree::ByGame))
                .map_err(store.db.db_err(what.clone()))?;
            let (mut chunk, mut bytes, mut full) = (Vec::new(), 0, false);
            for item in old
                .range::<&[u8]>(prefix..)
                .map_err(store.db.db_err(what.clone()))?
            {
                let (k, v) = item.map_err(store.db.db_err(what.clone()))?;
                if !k.value().starts_with(prefix) {
                    break;
                }
                if chunk.len() == GATHER_CHUNK || bytes >= GATHER_BYTES {
                    full = true;
                    break;
                }
                bytes += k.value().len() + v.value().len();
                chunk.push((k.value().to_vec(), v.value().to_vec()));
            }
            for (k, v) in &chunk {
                to.insert(key_of(k).as_slice(), v.as_slice())
                    .map_err(store.db.db_err(what.clone()))?;
                old.remove(k.as_slice())
                    .map_err(store.db.db_err(what.clone()))?;
            }
            (chunk.len(), !full)
        };
        if done.1 && drop {
            tx.delete_table(from)
                .map_err(store.db.db_err(what.clone()))?;
        }
        Ok(done)
    })
}
