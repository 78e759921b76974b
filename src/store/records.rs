//! The typed readers and writers of what the relay keeps: tournaments, games (running and
//! shelved), reply keys, the core's counters, the index of deadlines, registrations under way,
//! start mails still to queue, XFCC credentials and the marks of upgrades done. The rest of the
//! program reads and writes these, never a tree or a key ([`super::schema`] has the layouts).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

use super::Store;
use super::batch::Batch;
use super::error::StoreError;
use super::schema::{
    META_INSTANCE, META_STATE, PENDING_STARTS, Part, REGISTERING, Tree, Upgrade, credential_key,
    due_key, due_place, is_game_record, legacy_rotated_key, parse_due_key, parse_due_order_key,
};
use crate::core::model::{Game, KeyBinding, Meta, Tournament};
use crate::game_ref::GameRef;

/// A registered tournament's start mails not all queued yet: from game `next` on, dated `at` (the
/// registration).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingStarts {
    pub at: DateTime<Utc>,
    pub next: usize,
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

impl Store {
    /// Tournament `id`.
    pub fn tournament(&self, id: &str) -> Result<Option<Tournament>, StoreError> {
        self.get(Tree::Tournaments, id.as_bytes())
    }

    /// Hands every tournament to `each`, in the order of their ids.
    pub fn for_each_tournament(&self, mut each: impl FnMut(Tournament)) -> Result<(), StoreError> {
        self.for_each(Tree::Tournaments, |_, t| each(t))
    }

    /// Hands every tournament but the rotated ones to `each`, in the order of their ids, and
    /// returns the ids of the rotated ones (whose records were not read): what the relay at work
    /// keeps in memory, and what it reads only when an input names it
    /// ([`Store::rotated_tournaments_of`]).
    pub fn for_each_tournament_but_rotated(
        &self,
        mut each: impl FnMut(Tournament),
    ) -> Result<BTreeSet<String>, StoreError> {
        let mut rotated = BTreeSet::new();
        self.each_raw(Tree::Rotated, &[], |k, _| {
            rotated.insert(String::from_utf8_lossy(k).into_owned());
            Ok(())
        })?;
        self.each_raw(Tree::Tournaments, &[], |k, v| {
            if !rotated.contains(&*String::from_utf8_lossy(k)) {
                each(self.decode(Tree::Tournaments, k, v)?);
            }
            Ok(())
        })?;
        Ok(rotated)
    }

    /// The ids of the rotated tournaments `address` appears in (as the director, a player or
    /// one of a player's other addresses), in id order; perhaps one more that no longer names
    /// it.
    pub fn rotated_tournaments_of(&self, address: &str) -> Result<Vec<String>, StoreError> {
        let prefix = super::schema::person_key(address, "");
        let mut ids = Vec::new();
        self.each_raw(Tree::RotatedPeople, &prefix, |k, _| {
            ids.push(String::from_utf8_lossy(&k[prefix.len()..]).into_owned());
            Ok(())
        })?;
        Ok(ids)
    }

    /// How many tournaments are registered.
    pub fn tournament_count(&self) -> Result<usize, StoreError> {
        let mut n = 0;
        self.for_each(Tree::Tournaments, |_, _: IgnoredAny| n += 1)?;
        Ok(n)
    }

    /// Running game `id` (not a shelved one: [`Store::shelved_game`]).
    pub fn game(&self, id: &GameRef) -> Result<Option<Game>, StoreError> {
        self.get(Tree::ByGame, id.to_string().as_bytes())
    }

    /// Hands every running game to `each`, in the order of their names.
    pub fn for_each_game(&self, each: impl FnMut(Game)) -> Result<(), StoreError> {
        self.games_named(b"", each)
    }

    /// Hands the running games of tournament `id` to `each` (one scan), in name order.
    pub fn games_of(&self, id: &str, each: impl FnMut(Game)) -> Result<(), StoreError> {
        self.games_named(format!("{id}/").as_bytes(), each)
    }

    /// Hands the running games whose names start with `prefix` to `each`, in name order.
    fn games_named(&self, prefix: &[u8], mut each: impl FnMut(Game)) -> Result<(), StoreError> {
        self.each_game_raw(prefix, |k, v| {
            each(self.decode(Tree::ByGame, k, v)?);
            Ok(true)
        })
    }

    /// Hands the key and stored value of every running game whose name starts with `prefix` to
    /// `each`, in name order, until it returns `false`. A game's record lies in
    /// [`Tree::ByGame`] under its name, its parts after it (`game 0 …`): the scan passes over
    /// a few of them, and goes past the rest of a game's parts with a new search (a game late
    /// in its life has hundreds).
    pub(super) fn each_game_raw(
        &self,
        prefix: &[u8],
        mut each: impl FnMut(&[u8], &[u8]) -> Result<bool, StoreError>,
    ) -> Result<(), StoreError> {
        /// Parts passed over one by one before the scan searches past the game's others.
        const WALK: usize = 16;
        let scanning = || self.db_err(format!("scanning {}", Tree::ByGame));
        let t = self.read(Tree::ByGame)?;
        let mut from = prefix.to_vec();
        'search: loop {
            let mut walked = 0;
            for item in t.range::<&[u8]>(from.as_slice()..).map_err(scanning())? {
                let (k, v) = item.map_err(scanning())?;
                let key = k.value();
                if !key.starts_with(prefix) {
                    break 'search;
                }
                match key.iter().position(|&b| b == 0) {
                    None => {
                        if !each(key, v.value())? {
                            break 'search;
                        }
                        walked = 0;
                    }
                    Some(nul) => {
                        walked += 1;
                        if walked == WALK {
                            // After every key `game 0 …`: `game 1`.
                            from = key[..nul].to_vec();
                            from.push(1);
                            continue 'search;
                        }
                    }
                }
            }
            break;
        }
        Ok(())
    }

    /// Whether tournament `id` has a running game, not among `besides`, that is not finished:
    /// each game read for its state only, the scan stopping at the first open one (in a running
    /// tournament, one of the first few). What a game end in a tournament not read whole asks
    /// (`crate::app`): was it the last open game?
    pub fn has_open_game(
        &self,
        id: &str,
        besides: &std::collections::BTreeSet<String>,
    ) -> Result<bool, StoreError> {
        #[derive(Deserialize)]
        struct Head {
            status: crate::core::model::GameStatus,
        }
        let prefix = format!("{id}/");
        let mut open = false;
        self.each_game_raw(prefix.as_bytes(), |key, value| {
            if besides.contains(String::from_utf8_lossy(key).as_ref()) {
                return Ok(true);
            }
            let head: Head = self.decode(Tree::ByGame, key, value)?;
            open = head.status != crate::core::model::GameStatus::Finished;
            Ok(!open)
        })?;
        Ok(open)
    }

    /// The copy of shelved game `id` the store keeps (the core changed it after it was shelved,
    /// or a version before the shelf files shelved it); the others are in the shelf files.
    pub fn shelved_game(&self, id: &GameRef) -> Result<Option<Game>, StoreError> {
        self.get(Tree::ShelvedGames, id.to_string().as_bytes())
    }

    /// Hands every shelved game the store keeps to `each`.
    pub fn for_each_shelved_game(&self, mut each: impl FnMut(Game)) -> Result<(), StoreError> {
        self.for_each(Tree::ShelvedGames, |_, g| each(g))
    }

    /// Hands the shelved games the store keeps of tournament `id` to `each`.
    pub fn shelved_games_of(&self, id: &str, mut each: impl FnMut(Game)) -> Result<(), StoreError> {
        let prefix = format!("{id}/");
        self.each_prefix(Tree::ShelvedGames, prefix.as_bytes(), |_, g| each(g))
    }

    /// Hands every reply key of a running game and its binding to `each`.
    pub fn for_each_key(&self, mut each: impl FnMut(String, KeyBinding)) -> Result<(), StoreError> {
        self.for_each(Tree::Keys, |k, b| {
            each(String::from_utf8_lossy(k).into_owned(), b)
        })
    }

    /// Hands every reply key of a shelved game and its binding to `each`.
    pub fn for_each_shelved_key(
        &self,
        mut each: impl FnMut(String, KeyBinding),
    ) -> Result<(), StoreError> {
        self.for_each(Tree::ShelvedKeys, |k, b| {
            each(String::from_utf8_lossy(k).into_owned(), b)
        })
    }

    /// The binding of reply key `key`, of a running game or else of a shelved one.
    pub fn key_binding(&self, key: &str) -> Result<Option<KeyBinding>, StoreError> {
        match self.get(Tree::Keys, key.as_bytes())? {
            Some(b) => Ok(Some(b)),
            None => self.get(Tree::ShelvedKeys, key.as_bytes()),
        }
    }

    /// The core's counters and the relay's clock (`State::meta`).
    pub fn meta_state(&self) -> Result<Option<Meta>, StoreError> {
        self.get(Tree::Meta, META_STATE)
    }

    /// The installation's random id (in every Message-ID), if one was made.
    pub fn instance(&self) -> Result<Option<String>, StoreError> {
        self.get(Tree::Meta, META_INSTANCE)
    }

    /// The tournaments whose start mails are not all queued yet, with how far they got.
    pub fn pending_starts(&self) -> Result<Vec<(String, PendingStarts)>, StoreError> {
        Ok(self
            .scan_prefix::<PendingStarts>(Tree::Meta, PENDING_STARTS)?
            .into_iter()
            .map(|(k, p)| {
                let id = String::from_utf8_lossy(&k[PENDING_STARTS.len()..]).into_owned();
                (id, p)
            })
            .collect())
    }

    /// The XFCC credential kept for `email` (a salted hash, `crate::app::xfcc`).
    pub fn xfcc_credential<T: DeserializeOwned>(
        &self,
        email: &str,
    ) -> Result<Option<T>, StoreError> {
        self.get(Tree::Meta, credential_key(email))
    }

    /// Whether the upgrade `u` of an earlier version's store was done.
    pub fn upgraded(&self, u: Upgrade) -> Result<bool, StoreError> {
        Ok(self.get::<bool>(Tree::Meta, u.key())? == Some(true))
    }

    /// Whether a version before `Tournament::rotated` marked tournament `id`'s archive rotated.
    pub fn legacy_rotated(&self, id: &str) -> Result<bool, StoreError> {
        Ok(self.get::<bool>(Tree::Meta, legacy_rotated_key(id))? == Some(true))
    }

    /// Hands every entry of the index of deadlines to `each`, by kind in time order (entries
    /// of a layout this version does not know are passed over).
    pub fn for_each_due(
        &self,
        mut each: impl FnMut(DueEntry, DateTime<Utc>),
    ) -> Result<(), StoreError> {
        self.each_raw(Tree::DueOrder, &[], |k, _| {
            if let Some((at, key)) = parse_due_order_key(k)
                && let Some(e) = parse_due_key(key)
            {
                each(e, at);
            }
            Ok(())
        })
    }

    /// Removes the parts of every registration that did not reach its last part (the games,
    /// their events and reply keys written under a `registering:ID` note, `crate::app::enrol`),
    /// each tournament's in one transaction. Returns the tournaments whose parts were removed.
    pub fn abandon_registrations(&self) -> Result<Vec<String>, StoreError> {
        let mut abandoned = Vec::new();
        for (marker, _) in self.scan_prefix::<IgnoredAny>(Tree::Meta, REGISTERING)? {
            let id = String::from_utf8_lossy(&marker[REGISTERING.len()..]).into_owned();
            let games = format!("{id}/");
            let mut batch = Batch::default();
            // The games and their events (their keys follow, with `Keys`; a registration
            // archives nothing, and writes no deadline).
            for k in self.keys_with_prefix(Tree::ByGame, games.as_bytes())? {
                if is_game_record(&k) || Part::of(&k) == Some(Part::Event) {
                    batch.delete(Tree::ByGame, k);
                }
            }
            let mut keys = Vec::new();
            self.for_each::<KeyBinding>(Tree::Keys, |k, b| {
                if b.game.tournament == id {
                    keys.push((String::from_utf8_lossy(k).into_owned(), b.game.to_string()));
                }
            })?;
            for (k, game) in keys {
                batch.unbind_key(&k, &game);
            }
            batch.delete(Tree::Meta, marker);
            self.commit(batch)?;
            abandoned.push(id);
        }
        Ok(abandoned)
    }

    /// Empties the index of deadlines in `batch` (it is written anew): `Due`, `DueOrder` and
    /// the games' entries the latter names.
    pub fn clear_due(&self, batch: &mut Batch) -> Result<(), StoreError> {
        for key in self.keys_with_prefix(Tree::DueOrder, &[])? {
            if let Some((_, entry)) = parse_due_order_key(&key) {
                let (tree, place) = due_place(entry);
                if tree == Tree::ByGame {
                    batch.delete(tree, place);
                }
            }
            batch.delete(Tree::DueOrder, key);
        }
        for key in self.keys_with_prefix(Tree::Due, &[])? {
            batch.delete(Tree::Due, key);
        }
        Ok(())
    }

    /// The entries of the index of deadlines of one kind (`g/`, `d/`, `r/`: [`DueEntry`]'s
    /// key layout), with their instants, in time order.
    pub fn due_of_kind(&self, prefix: &str) -> Result<Vec<(DueEntry, DateTime<Utc>)>, StoreError> {
        let mut out = Vec::new();
        let kind = prefix.as_bytes().first().copied().unwrap_or_default();
        self.each_raw(Tree::DueOrder, &[kind], |k, _| {
            if let Some((at, key)) = parse_due_order_key(k)
                && key.starts_with(prefix)
                && let Some(e) = parse_due_key(key)
            {
                out.push((e, at));
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The earliest instant in the index of deadlines among the entries of one kind (`b'g'`,
    /// `b'd'`, `b'r'`: [`DueEntry`]'s key layout) — one read, the index ordered by kind and time.
    pub fn first_due(&self, kind: u8) -> Result<Option<DateTime<Utc>>, StoreError> {
        let scanning = || self.db_err(format!("scanning {}", Tree::DueOrder));
        let t = self.read(Tree::DueOrder)?;
        let start = [kind];
        let end = [kind.saturating_add(1)];
        let mut range = t.range::<&[u8]>(&start[..]..&end[..]).map_err(scanning())?;
        match range.next() {
            Some(item) => {
                let (k, _) = item.map_err(scanning())?;
                Ok(parse_due_order_key(k.value()).map(|(at, _)| at))
            }
            None => Ok(None),
        }
    }

    /// Every entry of one kind (see [`Store::first_due`]) of the index of deadlines due by
    /// `now`, earliest first.
    pub fn due_until(
        &self,
        kind: u8,
        now: DateTime<Utc>,
    ) -> Result<Vec<(DueEntry, DateTime<Utc>)>, StoreError> {
        let scanning = || self.db_err(format!("scanning {}", Tree::DueOrder));
        let t = self.read(Tree::DueOrder)?;
        let start = [kind];
        let mut end = vec![kind];
        end.extend_from_slice(&super::schema::instant_bytes(
            now + chrono::Duration::microseconds(1),
        ));
        let mut out = Vec::new();
        for item in t
            .range::<&[u8]>(&start[..]..end.as_slice())
            .map_err(scanning())?
        {
            let (k, _) = item.map_err(scanning())?;
            if let Some((at, key)) = parse_due_order_key(k.value())
                && let Some(e) = parse_due_key(key)
            {
                out.push((e, at));
            }
        }
        Ok(out)
    }

    /// A store from before [`Tree::DueOrder`]: its entries are written from [`Tree::Due`] in one
    /// transaction (at opening; a store whose `DueOrder` holds entries, or whose `Due` holds
    /// none, is left as it is).
    pub(super) fn order_due(&self) -> Result<(), StoreError> {
        if self.count(Tree::DueOrder)? > 0 || self.count(Tree::Due)? == 0 {
            return Ok(());
        }
        let mut batch = Batch::default();
        self.for_each(Tree::Due, |key, at: DateTime<Utc>| {
            let key = String::from_utf8_lossy(key);
            batch.put_bytes(
                Tree::DueOrder,
                &super::schema::due_order_key(at, &key),
                Vec::new(),
            );
        })?;
        self.commit(batch)
    }
}

impl Batch {
    /// Stores tournament `t`; a rotated one with its entries in the indexes of the rotated
    /// tournaments and their people ([`Tree::Rotated`], [`Tree::RotatedPeople`]).
    pub fn put_tournament(&mut self, t: &Tournament) -> &mut Batch {
        if t.rotated {
            self.put(Tree::Rotated, t.id.as_bytes(), &(t.games.len() as u64));
            for a in crate::core::model::people::addresses(t) {
                self.put_bytes(
                    Tree::RotatedPeople,
                    &super::schema::person_key(a, &t.id),
                    Vec::new(),
                );
            }
        }
        self.put(Tree::Tournaments, t.id.as_bytes(), t)
    }

    /// Stores game `g`: among the running games, or as the changed copy of a shelved one.
    pub fn put_game(&mut self, g: &Game, shelved: bool) -> &mut Batch {
        let tree = if shelved {
            Tree::ShelvedGames
        } else {
            Tree::ByGame
        };
        let name = g.id.to_string();
        if self.refuses_game(&name) {
            return self;
        }
        self.put(tree, name.as_bytes(), g)
    }

    /// Removes game `id` from the running games and the shelved copies (it went to a shelf
    /// file).
    pub fn delete_game(&mut self, id: &GameRef) -> &mut Batch {
        let key = id.to_string();
        self.delete(Tree::ByGame, key.as_bytes());
        self.delete(Tree::ShelvedGames, key.as_bytes())
    }

    /// Keeps reply key `key` of a shelved game.
    pub fn put_shelved_key(&mut self, key: &str, b: &KeyBinding) -> &mut Batch {
        self.put(Tree::ShelvedKeys, key.as_bytes(), b)
    }

    /// Stores the core's counters and the relay's clock.
    pub fn put_meta_state(&mut self, meta: &Meta) -> &mut Batch {
        self.put(Tree::Meta, META_STATE, meta)
    }

    /// Stores the installation's random id.
    pub fn put_instance(&mut self, id: &str) -> &mut Batch {
        self.put(Tree::Meta, META_INSTANCE, id)
    }

    /// Notes how far the start mails of tournament `id` are queued (`None`: all are).
    pub fn pending_starts(&mut self, id: &str, p: Option<&PendingStarts>) -> &mut Batch {
        let key = format!("{PENDING_STARTS}{id}");
        match p {
            Some(p) => self.put(Tree::Meta, key, p),
            None => self.delete(Tree::Meta, key),
        }
    }

    /// Notes that tournament `id` is being registered since `at` (its parts do not count yet);
    /// `None`: the registration is complete.
    pub fn registering(&mut self, id: &str, at: Option<DateTime<Utc>>) -> &mut Batch {
        let key = format!("{REGISTERING}{id}");
        match at {
            Some(at) => self.put(Tree::Meta, key, &at),
            None => self.delete(Tree::Meta, key),
        }
    }

    /// Keeps the XFCC credential of `email`.
    pub fn put_xfcc_credential<T: Serialize>(&mut self, email: &str, c: &T) -> &mut Batch {
        self.put(Tree::Meta, credential_key(email), c)
    }

    /// Marks the upgrade `u` of an earlier version's store as done.
    pub fn upgraded(&mut self, u: Upgrade) -> &mut Batch {
        self.put(Tree::Meta, u.key(), &true)
    }

    /// Writes entry `e` of the index of deadlines (`None`: removes it).
    pub fn put_due(&mut self, e: &DueEntry, at: Option<DateTime<Utc>>) -> &mut Batch {
        self.ops.push(super::batch::Op::Due {
            key: due_key(e),
            at,
        });
        self
    }

    /// Removes outbox entry `id` together with what else the batch writes (the mail was given up
    /// or refused for good, and its report to the director enters the outbox).
    pub fn unqueue(&mut self, id: &str) -> &mut Batch {
        self.delete(Tree::Outbox, id.as_bytes())
    }
}

/// Hooks for the shell's tests that play an older store or a forger.
#[cfg(test)]
impl Store {
    /// Forgets the index of reply keys by game and its mark: a store from before the index.
    pub(crate) fn forget_keys_by_game(&self) -> Result<(), StoreError> {
        let mut batch = Batch::default();
        for k in self.keys_with_prefix(Tree::ByGame, &[])? {
            if Part::of(&k) == Some(Part::Key) {
                batch.delete(Tree::ByGame, k);
            }
        }
        batch.delete(Tree::Meta, Upgrade::KeysByGame.key());
        self.commit(batch)
    }

    /// Every archived mail with its archive id, in archive order.
    pub(crate) fn archived(&self) -> Result<Vec<(u64, crate::store::ArchiveEntry)>, StoreError> {
        let mut out = Vec::new();
        self.each_raw(Tree::Archive, &[], |k, v| {
            if let Ok(id) = <[u8; 8]>::try_from(k) {
                out.push((u64::from_be_bytes(id), self.archive_entry(k, v)?));
            }
            Ok(())
        })?;
        Ok(out)
    }
}

#[cfg(test)]
impl Batch {
    /// Overwrites archived mail `id` (the archive is never changed otherwise): a forger, for the
    /// tests of `fernzug verify`.
    pub(crate) fn forge_archived(
        &mut self,
        id: u64,
        entry: &crate::store::ArchiveEntry,
    ) -> &mut Batch {
        self.put_unguarded(Tree::Archive, id.to_be_bytes(), entry)
    }
}

/// What `/metrics` and the operator's alerts need of the store (`crate::vitals`), read without
/// the mails' bodies.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Figures {
    /// Entries in the outbox (one per mail and recipient).
    pub outbox: u64,
    /// When the oldest entry that is not an `alert` was queued.
    pub oldest: Option<DateTime<Utc>>,
    /// Mails in quarantine.
    pub quarantine: u64,
}

impl Store {
    /// The outbox's and the quarantine's figures ([`Figures`]).
    pub fn figures(&self) -> Result<Figures, StoreError> {
        #[derive(serde::Deserialize)]
        struct Head {
            kind: String,
            created: DateTime<Utc>,
        }
        let mut f = Figures::default();
        for (_, e) in self.scan::<Head>(Tree::Outbox)? {
            f.outbox += 1;
            // An alert that waits is not an outage of its own (never a loop).
            if e.kind != "alert" && f.oldest.is_none_or(|o| e.created < o) {
                f.oldest = Some(e.created);
            }
        }
        f.quarantine = self.count(Tree::Quarantine)?;
        Ok(f)
    }

    /// The games by state (`running`, `finished`, …): those in the store, and those of the
    /// shelved tournaments (rotated ones count as finished; their number kept in the index of the
    /// rotated tournaments). One pass over the
    /// games, each read for its state only.
    pub fn games_by_state(&self) -> Result<std::collections::BTreeMap<String, u64>, StoreError> {
        #[derive(serde::Deserialize)]
        struct Status {
            status: crate::core::model::GameStatus,
        }
        let mut by = std::collections::BTreeMap::new();
        self.each_game_raw(b"", |k, v| {
            let g: Status = self.decode(Tree::ByGame, k, v)?;
            *by.entry(g.status.name().to_string()).or_insert(0) += 1;
            Ok(true)
        })?;
        let mut shelved = 0;
        self.for_each(Tree::Rotated, |_, games: u64| shelved += games)?;
        if shelved > 0 {
            *by.entry(crate::core::model::GameStatus::Finished.name().to_string())
                .or_insert(0) += shelved;
        }
        Ok(by)
    }
}
