//! The typed readers and writers of what the relay keeps: tournaments, games (running and
//! shelved), reply keys, the core's counters, the index of deadlines, registrations under way,
//! start mails still to queue, XFCC credentials and the marks of upgrades done. The rest of the
//! program reads and writes these, never a tree or a key ([`super::schema`] has the layouts).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};

use super::batch::Batch;
use super::error::StoreError;
use super::handle::Store;
use super::mails::QuarantineEntry;
use super::schema::{
    DueEntry, META_INSTANCE, META_STATE, PENDING_STARTS, Part, REGISTERING, Tree, credential_key,
    is_game_record, part_prefix, show_key, suffix_u64, uid_key,
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

impl Store {
    /// Tournament `id`.
    pub fn tournament(&self, id: &str) -> Result<Option<Tournament>, StoreError> {
        self.db.get(Tree::Tournaments, id.as_bytes())
    }

    /// Hands every tournament to `each`, in the order of their ids.
    pub fn for_each_tournament(&self, mut each: impl FnMut(Tournament)) -> Result<(), StoreError> {
        self.db.for_each(Tree::Tournaments, |_, t| each(t))
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
        self.db.each_raw(Tree::Rotated, &[], |k, _| {
            rotated.insert(String::from_utf8_lossy(k).into_owned());
            Ok(())
        })?;
        self.db.each_raw(Tree::Tournaments, &[], |k, v| {
            if !rotated.contains(&*String::from_utf8_lossy(k)) {
                each(self.db.decode(Tree::Tournaments, k, v)?);
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
        self.db.each_raw(Tree::RotatedPeople, &prefix, |k, _| {
            ids.push(String::from_utf8_lossy(&k[prefix.len()..]).into_owned());
            Ok(())
        })?;
        Ok(ids)
    }

    /// How many tournaments are registered.
    pub fn tournament_count(&self) -> Result<usize, StoreError> {
        let mut n = 0;
        self.db
            .for_each(Tree::Tournaments, |_, _: IgnoredAny| n += 1)?;
        Ok(n)
    }

    /// Running game `id` (not a shelved one: [`Store::shelved_game`]).
    pub fn game(&self, id: &GameRef) -> Result<Option<Game>, StoreError> {
        self.db.get(Tree::ByGame, id.to_string().as_bytes())
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
            each(self.db.decode(Tree::ByGame, k, v)?);
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
        let scanning = || self.db.db_err(format!("scanning {}", Tree::ByGame));
        let t = self.db.read(Tree::ByGame)?;
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
            let head: Head = self.db.decode(Tree::ByGame, key, value)?;
            open = head.status != crate::core::model::GameStatus::Finished;
            Ok(!open)
        })?;
        Ok(open)
    }

    /// The copy of shelved game `id` the store keeps (the core changed it after it was shelved,
    /// or a version before the shelf files shelved it); the others are in the shelf files.
    pub fn shelved_game(&self, id: &GameRef) -> Result<Option<Game>, StoreError> {
        self.db.get(Tree::ShelvedGames, id.to_string().as_bytes())
    }

    /// Hands every shelved game the store keeps to `each`.
    pub fn for_each_shelved_game(&self, mut each: impl FnMut(Game)) -> Result<(), StoreError> {
        self.db.for_each(Tree::ShelvedGames, |_, g| each(g))
    }

    /// Hands the shelved games the store keeps of tournament `id` to `each`.
    pub fn shelved_games_of(&self, id: &str, mut each: impl FnMut(Game)) -> Result<(), StoreError> {
        let prefix = format!("{id}/");
        self.db
            .each_prefix(Tree::ShelvedGames, prefix.as_bytes(), |_, g| each(g))
    }

    /// Hands every reply key of a running game and its binding to `each`.
    pub fn for_each_key(&self, mut each: impl FnMut(String, KeyBinding)) -> Result<(), StoreError> {
        self.db.for_each(Tree::Keys, |k, b| {
            each(String::from_utf8_lossy(k).into_owned(), b)
        })
    }

    /// Hands every reply key of a shelved game and its binding to `each`.
    pub fn for_each_shelved_key(
        &self,
        mut each: impl FnMut(String, KeyBinding),
    ) -> Result<(), StoreError> {
        self.db.for_each(Tree::ShelvedKeys, |k, b| {
            each(String::from_utf8_lossy(k).into_owned(), b)
        })
    }

    /// The binding of reply key `key`, of a running game or else of a shelved one.
    pub fn key_binding(&self, key: &str) -> Result<Option<KeyBinding>, StoreError> {
        match self.db.get(Tree::Keys, key.as_bytes())? {
            Some(b) => Ok(Some(b)),
            None => self.db.get(Tree::ShelvedKeys, key.as_bytes()),
        }
    }

    /// The core's counters and the relay's clock (`State::meta`).
    pub fn meta_state(&self) -> Result<Option<Meta>, StoreError> {
        self.db.get(Tree::Meta, META_STATE)
    }

    /// The installation's random id (in every Message-ID), if one was made.
    pub fn instance(&self) -> Result<Option<String>, StoreError> {
        self.db.get(Tree::Meta, META_INSTANCE)
    }

    /// The tournaments whose start mails are not all queued yet, with how far they got.
    pub fn pending_starts(&self) -> Result<Vec<(String, PendingStarts)>, StoreError> {
        Ok(self
            .db
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
        self.db.get(Tree::Meta, credential_key(email))
    }

    /// Removes the parts of every registration that did not reach its last part (the games,
    /// their events and reply keys written under a `registering:ID` note, `crate::app::enrol`),
    /// each tournament's in one transaction. Returns the tournaments whose parts were removed.
    pub fn abandon_registrations(&self) -> Result<Vec<String>, StoreError> {
        let mut abandoned = Vec::new();
        for (marker, _) in self.db.scan_prefix::<IgnoredAny>(Tree::Meta, REGISTERING)? {
            let id = String::from_utf8_lossy(&marker[REGISTERING.len()..]).into_owned();
            let games = format!("{id}/");
            let mut batch = Batch::default();
            // The games and their events (their keys follow, with `Keys`; a registration
            // archives nothing, and writes no deadline).
            for k in self.db.keys_with_prefix(Tree::ByGame, games.as_bytes())? {
                if is_game_record(&k) || Part::of(&k) == Some(Part::Event) {
                    batch.delete(Tree::ByGame, k);
                }
            }
            let mut keys = Vec::new();
            self.db.for_each::<KeyBinding>(Tree::Keys, |k, b| {
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

    /// Adds to `batch` the removal of tournament `id` and of everything that is its own, as the
    /// store holds it now (a tournament withdrawn before its first move,
    /// `crate::core::register`): its record; each game's record, log and reply keys (the
    /// bindings too); its entries in the index of deadlines; the mails about its games waiting in
    /// the outbox and those archived (a mail that names another game too stays, with that game's
    /// index entry: TO §11 keeps the correspondence of games, and these games are never
    /// played); the notes of its registration and of its start mails still to queue. Committed
    /// with the step that decided it: one transaction.
    pub fn remove_tournament(&self, id: &str, batch: &mut Batch) -> Result<(), StoreError> {
        let prefix = format!("{id}/");
        let mut archived = BTreeSet::new();
        for k in self.db.keys_with_prefix(Tree::ByGame, prefix.as_bytes())? {
            let Some(nul) = k.iter().position(|&b| b == 0) else {
                // A game's record, and its entry in the index of deadlines (read and removed
                // with its place in time order, in the transaction).
                if let Ok(game) = String::from_utf8_lossy(&k).parse::<GameRef>() {
                    batch.put_due(&DueEntry::Game(game), None);
                }
                batch.delete(Tree::ByGame, k);
                continue;
            };
            let rest = k.get(nul + 2..).unwrap_or_default();
            match Part::of(&k) {
                Some(Part::Key) => {
                    batch.delete(Tree::Keys, rest);
                    batch.delete(Tree::ByGame, k);
                }
                Some(Part::Archived) => {
                    if let Some(n) = suffix_u64(&k, nul + 2) {
                        archived.insert(n);
                    }
                    batch.delete_unguarded(Tree::ByGame, k);
                }
                // Removed with the game's record (`put_due` above).
                Some(Part::Due) => {}
                Some(Part::Event) | None => {
                    batch.delete(Tree::ByGame, k);
                }
            }
        }
        #[derive(Deserialize)]
        struct Games {
            games: Vec<String>,
        }
        for n in archived {
            let key = n.to_be_bytes();
            if let Some(m) = self.db.get::<Games>(Tree::Archive, key)?
                && m.games.iter().all(|g| g.starts_with(&prefix))
            {
                batch.delete_unguarded(Tree::Archive, key);
            }
        }
        #[derive(Deserialize)]
        struct About {
            #[serde(default)]
            game: Option<String>,
        }
        self.db.each_raw(Tree::Outbox, &[], |k, v| {
            let about: About = self.db.decode(Tree::Outbox, k, v)?;
            if about.game.is_some_and(|g| g.starts_with(&prefix)) {
                batch.delete(Tree::Outbox, k);
            }
            Ok(())
        })?;
        batch.put_due(&DueEntry::Digest(id.to_string()), None);
        batch.put_due(&DueEntry::Rotation(id.to_string()), None);
        batch.pending_starts(id, None);
        batch.registering(id, None);
        batch.delete(Tree::Rotated, id.as_bytes());
        batch.delete(Tree::Tournaments, id.as_bytes());
        Ok(())
    }

    /// Whether the mail with `message_id` has been handled.
    pub fn is_processed(&self, message_id: &str) -> Result<bool, StoreError> {
        self.db.contains(Tree::Processed, message_id.as_bytes())
    }
    /// When the mail with `message_id` was marked handled (`Batch::processed`), if it was.
    pub fn processed_at(&self, message_id: &str) -> Result<Option<DateTime<Utc>>, StoreError> {
        self.db.get(Tree::Processed, message_id.as_bytes())
    }
    /// How many times a process died in the step of IMAP message (`uidvalidity`, `uid`)
    /// (`Batch::begin_uid`, `step.rs`; 0 for one it never died in, or done).
    pub fn begun(&self, uidvalidity: u32, uid: u32) -> Result<u32, StoreError> {
        Ok(self
            .db
            .get::<u32>(Tree::Begun, uid_key(uidvalidity, uid))?
            .unwrap_or(0))
    }
    /// Whether IMAP message (`uidvalidity`, `uid`) has been handled.
    pub fn is_uid_done(&self, uidvalidity: u32, uid: u32) -> Result<bool, StoreError> {
        self.db.contains(Tree::Uids, uid_key(uidvalidity, uid))
    }
    /// The event log of `game`, ordered by sequence number.
    pub fn events<T: DeserializeOwned>(&self, game: &str) -> Result<Vec<(u64, T)>, StoreError> {
        let prefix = part_prefix(game, Part::Event);
        let mut out = Vec::new();
        for (key, value) in self.db.scan_prefix::<T>(Tree::ByGame, &prefix)? {
            // A longer key belongs to another game whose name starts with `game\0`
            // (impossible through `Batch`, which refuses NUL in game names).
            if let Some(seq) = suffix_u64(&key, prefix.len()) {
                out.push((seq, value));
            }
        }
        Ok(out)
    }
    /// The reply keys of `game` and their bindings: the keys from the game's records
    /// ([`Tree::ByGame`]), each binding from [`Tree::Keys`] (an entry of an earlier version
    /// carries the binding itself).
    pub fn keys_of_game<T: DeserializeOwned>(
        &self,
        game: &str,
    ) -> Result<Vec<(String, T)>, StoreError> {
        let prefix = part_prefix(game, Part::Key);
        let mut out = Vec::new();
        self.db.each_raw(Tree::ByGame, &prefix, |k, v| {
            let Some(key) = k
                .get(prefix.len()..)
                .and_then(|k| std::str::from_utf8(k).ok())
            else {
                return Ok(());
            };
            let binding = if v.is_empty() {
                match self.db.get::<T>(Tree::Keys, key.as_bytes())? {
                    Some(b) => b,
                    None => {
                        return Err(StoreError::Missing {
                            path: self.db.path.clone(),
                            tree: Tree::Keys,
                            key: format!("{key} (named by the index entry {})", show_key(k)),
                        });
                    }
                }
            } else {
                self.db.decode::<T>(Tree::ByGame, k, v)?
            };
            out.push((key.to_string(), binding));
            Ok(())
        })?;
        Ok(out)
    }
    /// Every quarantined mail, in key order (UIDVALIDITY, UID).
    pub fn quarantined(&self) -> Result<Vec<QuarantineEntry>, StoreError> {
        Ok(self
            .db
            .scan::<QuarantineEntry>(Tree::Quarantine)?
            .into_iter()
            .map(|(_, e)| e)
            .collect())
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

    /// Removes outbox entry `id` together with what else the batch writes (the mail was given up
    /// or refused for good, and its report to the director enters the outbox).
    pub fn unqueue(&mut self, id: &str) -> &mut Batch {
        self.delete(Tree::Outbox, id.as_bytes())
    }
}

/// Hooks for the shell's tests that play an older store or a forger.
#[cfg(test)]
impl Store {
    /// Forgets the index of reply keys by game and the step of the store's version that wrote it
    /// (the store goes back to the version before): a store from before the index.
    pub(crate) fn forget_keys_by_game(&self) -> Result<(), StoreError> {
        let mut batch = Batch::default();
        for k in self.db.keys_with_prefix(Tree::ByGame, &[])? {
            if Part::of(&k) == Some(Part::Key) {
                batch.delete(Tree::ByGame, k);
            }
        }
        batch.put(
            Tree::Meta,
            super::schema::SCHEMA_KEY,
            &(super::SCHEMA_VERSION - 1),
        );
        self.commit(batch)
    }

    /// Every archived mail with its archive id, in archive order.
    pub(crate) fn archived(&self) -> Result<Vec<(u64, crate::store::ArchiveEntry)>, StoreError> {
        let mut out = Vec::new();
        self.db.each_raw(Tree::Archive, &[], |k, v| {
            if let Ok(id) = <[u8; 8]>::try_from(k) {
                out.push((
                    u64::from_be_bytes(id),
                    super::mails::archive_entry(&self.db, k, v)?,
                ));
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
        for (_, e) in self.db.scan::<Head>(Tree::Outbox)? {
            f.outbox += 1;
            // An alert that waits is not an outage of its own (never a loop).
            if e.kind != "alert" && f.oldest.is_none_or(|o| e.created < o) {
                f.oldest = Some(e.created);
            }
        }
        f.quarantine = self.db.count(Tree::Quarantine)?;
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
            let g: Status = self.db.decode(Tree::ByGame, k, v)?;
            *by.entry(g.status.name().to_string()).or_insert(0) += 1;
            Ok(true)
        })?;
        let mut shelved = 0;
        self.db
            .for_each(Tree::Rotated, |_, games: u64| shelved += games)?;
        if shelved > 0 {
            *by.entry(crate::core::model::GameStatus::Finished.name().to_string())
                .or_insert(0) += shelved;
        }
        Ok(by)
    }
}
