//! The shell's index of the core's pending deadlines, so that neither a mail nor a start makes
//! the relay look at every game to learn that nothing is due (with ten thousand games that look
//! costs more than the mail). It holds each game's earliest deadline, each tournament's next
//! deadline as a whole (its weekly digest, a director's question, the report of its end) and from
//! when each tournament's archive may be rotated (Fax 2.8); the players' weekly overviews are due
//! by the state's counters alone, which are always in memory.
//!
//! Kept up to date from each step's [`Output`] — the games it changed and the tournaments it
//! touched are looked at again — and written to the store's index (`DueEntry`) in the step's own
//! transaction, so a start reads the index instead of every game (`App::reopen`): the
//! tournaments' entries, while the games' are read from the store in time order when asked (the
//! earliest, those due by now). The index only
//! says which tournaments to bring into memory before the core is asked; the core's own
//! [`State::tick`] stays the judge of what fires. Only games at hand are looked at: a tournament
//! whose games are not all in memory keeps its entries as they are.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use crate::core::{Output, Settings, State};
use crate::game_ref::GameRef;
use crate::store::{Batch, DueEntry, Store, StoreError};

#[derive(Debug, Default)]
pub(crate) struct DueIndex {
    /// Each game's earliest deadline, when the index was built from the games in memory
    /// ([`DueIndex::build`]). Loaded from the store ([`DueIndex::load`]), the games' entries are
    /// not held: the earliest and those due by now are read from the store's index in time order
    /// (`Due::first`, `Due::until`), so that opening a store of 10,000 games reads
    /// its tournaments' entries, not 10,000 (issue 33).
    in_memory: bool,
    by_game: HashMap<GameRef, DateTime<Utc>>,
    order: BTreeSet<(DateTime<Utc>, GameRef)>,
    /// The games' entries changed since the last [`DueIndex::persist`] (`None`: none is due).
    changed: HashMap<GameRef, Option<DateTime<Utc>>>,
    /// Each tournament's next deadline as a whole: its weekly digest, a director's question
    /// (TO §23), the report of its end (TO §27).
    digests: BTreeMap<String, DateTime<Utc>>,
    /// From when each tournament's archive may be rotated.
    rotations: BTreeMap<String, DateTime<Utc>>,
    /// Entries changed since the last [`DueIndex::persist`].
    dirty: BTreeSet<DueEntry>,
}

/// Whether every game of tournament `id` is in memory (only then are its entries recomputed).
pub(crate) fn at_hand(state: &State, id: &str) -> bool {
    state
        .tournaments
        .get(id)
        .is_some_and(|t| t.games.iter().all(|g| state.games.contains_key(g)))
}

impl DueIndex {
    /// Every deadline of `state` (every game in memory).
    pub(crate) fn build(state: &State, s: &Settings) -> DueIndex {
        let mut index = DueIndex {
            in_memory: true,
            ..DueIndex::default()
        };
        for (at, game, due) in state.deadlines(s) {
            if matches!(
                due,
                crate::core::Due::Digest
                    | crate::core::Due::Question
                    | crate::core::Due::TournamentEnd
            ) {
                index.digests.entry(game.tournament.clone()).or_insert(at);
                continue;
            }
            if !index.by_game.contains_key(&game) {
                index.by_game.insert(game.clone(), at);
                index.order.insert((at, game));
            }
        }
        for id in state.tournaments.keys() {
            if let Some(at) = state.rotation_at(id) {
                index.rotations.insert(id.clone(), at);
            }
        }
        index
    }

    /// The index as the store holds it.
    pub(crate) fn load(store: &Store) -> Result<DueIndex, StoreError> {
        let mut index = DueIndex::default();
        for (entry, at) in store
            .due()
            .of_kind("d/")?
            .into_iter()
            .chain(store.due().of_kind("r/")?)
        {
            match entry {
                DueEntry::Digest(t) => {
                    index.digests.insert(t, at);
                }
                DueEntry::Rotation(t) => {
                    index.rotations.insert(t, at);
                }
                DueEntry::Game(_) => {}
            }
        }
        Ok(index)
    }

    /// Adds to `batch` every entry (a store whose index is written for the first time).
    pub(crate) fn persist_all(&mut self, batch: &mut Batch) {
        let games: Vec<(GameRef, DateTime<Utc>)> = self
            .by_game
            .iter()
            .map(|(g, at)| (g.clone(), *at))
            .collect();
        for (g, at) in games {
            self.changed.insert(g, Some(at));
        }
        self.dirty
            .extend(self.digests.keys().cloned().map(DueEntry::Digest));
        self.dirty
            .extend(self.rotations.keys().cloned().map(DueEntry::Rotation));
        self.persist(batch);
    }

    /// Adds to `batch` the entries changed since the last call.
    pub(crate) fn persist(&mut self, batch: &mut Batch) {
        for (g, at) in std::mem::take(&mut self.changed) {
            batch.put_due(&DueEntry::Game(g), at);
        }
        for entry in std::mem::take(&mut self.dirty) {
            let at = match &entry {
                DueEntry::Game(g) => self.by_game.get(g).copied(),
                DueEntry::Digest(t) => self.digests.get(t).copied(),
                DueEntry::Rotation(t) => self.rotations.get(t).copied(),
            };
            batch.put_due(&entry, at);
        }
    }

    /// The earliest pending deadline (rotation is looked at in every pass anyway), the players'
    /// weekly overviews included: those the core reads from `state`'s own counters
    /// (`Meta::overviews`, always in memory), not from the index.
    /// Asked after the step's entries were written (a loaded index reads the games' entries
    /// from the store).
    pub(crate) fn earliest(
        &self,
        store: &Store,
        state: &State,
        s: &Settings,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let game = if self.in_memory {
            self.order.first().map(|(at, _)| *at)
        } else {
            store.due().first(b'g')?
        };
        let digest = self.digests.values().min().copied();
        let overview = crate::core::time::overview::next_weekly(state, s);
        Ok(game.into_iter().chain(digest).chain(overview).min())
    }

    /// The tournaments with a deadline or a digest due by `now`: what the core needs in memory
    /// before it ticks.
    pub(crate) fn due_tournaments(
        &self,
        store: &Store,
        now: DateTime<Utc>,
    ) -> Result<BTreeSet<String>, StoreError> {
        let mut out: BTreeSet<String> = if self.in_memory {
            self.order
                .iter()
                .take_while(|(at, _)| *at <= now)
                .map(|(_, g)| g.tournament.clone())
                .collect()
        } else {
            store
                .due()
                .until(b'g', now)?
                .into_iter()
                .filter_map(|(e, _)| match e {
                    DueEntry::Game(g) => Some(g.tournament),
                    _ => None,
                })
                .collect()
        };
        out.extend(
            self.digests
                .iter()
                .filter(|(_, at)| **at <= now)
                .map(|(t, _)| t.clone()),
        );
        Ok(out)
    }

    /// The tournaments whose archive may be rotated by `now`.
    pub(crate) fn rotations_due(&self, now: DateTime<Utc>) -> BTreeSet<String> {
        self.rotations
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(t, _)| t.clone())
            .collect()
    }

    /// Looks again at what `out` changed.
    pub(crate) fn update(&mut self, state: &State, s: &Settings, out: &Output) {
        let mut tournaments: BTreeSet<&str> = out.tournaments.iter().map(String::as_str).collect();
        for g in &out.games {
            if state.games.contains_key(g) {
                self.update_game(state, s, g);
            }
            tournaments.insert(g.tournament.as_str());
        }
        for id in &out.tournaments {
            self.update_games_of(state, s, id);
        }
        self.update_tournaments(state, s, tournaments.into_iter());
    }

    /// Looks again at every game of the tournaments `ids` (those at hand).
    pub(crate) fn refresh<'a>(
        &mut self,
        state: &State,
        s: &Settings,
        ids: impl Iterator<Item = &'a String>,
    ) {
        let ids: Vec<&str> = ids.map(String::as_str).collect();
        for id in &ids {
            self.update_games_of(state, s, id);
        }
        self.update_tournaments(state, s, ids.into_iter());
    }

    /// Looks again at every game of tournament `id`, if all are at hand.
    fn update_games_of(&mut self, state: &State, s: &Settings, id: &str) {
        if let Some(t) = state.tournaments.get(id)
            && at_hand(state, id)
        {
            for g in &t.games {
                self.update_game(state, s, g);
            }
        }
    }

    /// The digest and rotation entries of the tournaments `ids` that are at hand or rotated (a
    /// tournament removed from the state loses them).
    fn update_tournaments<'a>(
        &mut self,
        state: &State,
        s: &Settings,
        ids: impl Iterator<Item = &'a str>,
    ) {
        // A rotated tournament's own entries need its record alone: its games, on the shelf,
        // are finished (no digest), its rotation done; a director's question (TO §23) may be open.
        let ids: Vec<&str> = ids
            .filter(|id| {
                state
                    .tournaments
                    .get(*id)
                    .is_none_or(|t| t.rotated || at_hand(state, id))
            })
            .collect();
        for id in &ids {
            self.digests.remove(*id);
            self.dirty.insert(DueEntry::Digest(id.to_string()));
            match state.rotation_at(id) {
                Some(at) => self.rotations.insert(id.to_string(), at),
                None => self.rotations.remove(*id),
            };
            self.dirty.insert(DueEntry::Rotation(id.to_string()));
        }
        for (at, game, _) in state.tournament_deadlines_of(ids.into_iter(), s) {
            self.digests.entry(game.tournament.clone()).or_insert(at);
        }
    }

    /// Forgets every entry of tournament `id`, withdrawn (the store's entries go in the same
    /// step, `Store::remove_tournament`).
    pub(crate) fn forget(&mut self, id: &str) {
        let of = |g: &GameRef| g.tournament == id;
        self.by_game.retain(|g, _| !of(g));
        self.order.retain(|(_, g)| !of(g));
        self.changed.retain(|g, _| !of(g));
        self.digests.remove(id);
        self.rotations.remove(id);
        self.dirty.retain(|e| match e {
            DueEntry::Game(g) => !of(g),
            DueEntry::Digest(t) | DueEntry::Rotation(t) => t != id,
        });
    }

    /// Every entry, in order (for tests comparing two indexes; an index built from the games).
    #[cfg(test)]
    pub(crate) fn entries(&self) -> Vec<(DueEntry, DateTime<Utc>)> {
        let mut all: Vec<(DueEntry, DateTime<Utc>)> = self
            .by_game
            .iter()
            .map(|(g, at)| (DueEntry::Game(g.clone()), *at))
            .chain(
                self.digests
                    .iter()
                    .map(|(t, at)| (DueEntry::Digest(t.clone()), *at)),
            )
            .chain(
                self.rotations
                    .iter()
                    .map(|(t, at)| (DueEntry::Rotation(t.clone()), *at)),
            )
            .collect();
        all.sort();
        all
    }

    fn update_game(&mut self, state: &State, s: &Settings, game: &GameRef) {
        let at = state.earliest_deadline_of(game, s);
        if self.in_memory {
            if let Some(old) = self.by_game.remove(game) {
                self.order.remove(&(old, game.clone()));
            }
            if let Some(at) = at {
                self.by_game.insert(game.clone(), at);
                self.order.insert((at, game.clone()));
            }
        }
        self.changed.insert(game.clone(), at);
    }
}
