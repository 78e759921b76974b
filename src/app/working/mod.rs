//! The working set: what of the store is in memory, and how it gets there. The daemon (and
//! `once`, `tournament add`) start with no game: the tournaments and the index of deadlines
//! (`due.rs`) are enough to know what to read. Before the core is asked about an input, the
//! shell asks the core what the input needs ([`crate::core::needs`], a pure function of the
//! state and the input) and satisfies it from the store ([`Working::satisfy`]), part by part,
//! asking again after each, until the core names nothing new: nothing else decides what to
//! load.
//!
//! - a mail: the bindings of its reply keys (looked up in the store, shelved ones too), the
//!   records of the rotated tournaments it may be about, then the tournaments its sender plays
//!   in or directs, those of the games its reply keys and subject name, and for a
//!   delivery-status report those of the game and the recipients it names — read whole, so that
//!   what the core says about a tournament (its digest, its crosstable, its rotation) sees all
//!   of it — except a player's letter about one game of his (a move, words, a draw…), which
//!   reads that game alone and its tournament's own record (issue 33);
//! - time: the tournaments with a deadline or digest due ([`due::DueIndex::due_tournaments`])
//!   or an archive to rotate, and the tournaments of the players whose weekly overview is due;
//! - an undeliverable or refused outbox entry: its game's tournament and its recipient's;
//! - an XFCC call: every tournament's record (a game's XFCC id counts them all) and the
//!   caller's running tournaments;
//! - a decision that ended the last open game of a tournament read only in part: that
//!   tournament whole (its own deadlines change: its digest stops, its archive's rotation is
//!   set, Fax 2.8, the report of its end falls due, TO §27).
//!
//! The daemon and `once` start without the records of the rotated tournaments too (Fax 2.8:
//! four weeks after their end; a federation's store holds many more of them than running ones):
//! they are the [`Away`] ones, read when what the core needs names one of them, one of their
//! people or a word of a letter that is one's id. What the core sees of an input is as if
//! every tournament were read.
//!
//! The games and keys are dropped again once more than [`KEEP_GAMES`] games are held
//! ([`Working::rest_if_full`], after each pass of the daemon and, within a long drain, after each
//! group of mails), and when the daemon lets go of the store (`App::close`): memory follows what
//! is being worked on, not the number of games in the store.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::app::AppError;
use crate::core::needs::{Input, Needs, needs};
use crate::core::{KeyBinding, Settings, State};
use crate::game_ref::GameRef;
use crate::letter::content::addresses_in;
use crate::store::Store;

mod away;
pub(crate) mod due;

pub use away::Away;
use due::DueIndex;

/// How many games a drain keeps in memory at most between two groups of mails (a tournament of
/// eleven players has 55; a game with forty moves takes 10–15 KB with what comes with it). 500:
/// a drain of 10,000 moves, each in a game of its own, peaked at 60 MB with 2,000; reading a
/// game again costs a tenth of a millisecond.
pub const KEEP_GAMES: usize = 500;

/// What of the store is in memory beside the [`State`] (which the app holds, `App::state`):
/// the index of deadlines, the rotated tournaments not read, and whether games are read as
/// inputs need them.
#[derive(Debug)]
pub(crate) struct Working {
    /// The pending deadlines, kept beside the state (`due.rs`).
    pub(crate) due: DueIndex,
    /// The rotated tournaments whose records were not read (the daemon and `once`: an input
    /// brings in those it names); `None` when every tournament was read.
    away: Option<Away>,
    /// Opened without the games: each input brings in what it needs.
    lazy: bool,
}

/// How a relay opens its working set ([`Working::open`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Load {
    /// Every game but the shelved ones.
    All,
    /// None: each input brings in the tournaments it needs.
    Lazy,
    /// None, nor the rotated tournaments' records: each input brings in the tournaments it
    /// needs, a rotated one too. The daemon's and `once`'s way.
    Working,
    /// None, and nothing is decided (a command about one game).
    Nothing,
}

/// What one [`Working::satisfy`] has brought in already (or looked for in vain), so that it
/// asks the store once for each.
#[derive(Debug, Default)]
struct Done {
    keys: BTreeSet<String>,
    all_records: bool,
    records: BTreeSet<String>,
    people: BTreeSet<String>,
    named_in: bool,
    tournaments: BTreeSet<String>,
    games: BTreeSet<GameRef>,
    whole_unless_open: BTreeSet<String>,
}

impl Working {
    /// The state and the working set as a relay opened as `load` starts: every game, or none
    /// (and, for [`Load::Working`], no rotated tournament's record either). A store from before
    /// the indexes (or before the migrations) is read whole once, migrated, indexed and the
    /// indexes written.
    pub(crate) fn open(
        store: &Store,
        settings: &Settings,
        load: Load,
    ) -> Result<(State, Working), AppError> {
        let lazy = matches!(load, Load::Lazy | Load::Working);
        let (state, due, away) = match load {
            Load::All => {
                let mut state = load_state(store, true)?;
                store.upgrade().ends(&mut state)?;
                store
                    .upgrade()
                    .shelf(&mut state, &crate::app::status_row::rows_of)?;
                (state, None, None)
            }
            Load::Lazy | Load::Working => {
                let (state, due, away) = lazy_state(store, settings, load == Load::Working)?;
                (state, Some(due), away)
            }
            Load::Nothing => {
                let mut state = State::default();
                if let Some(meta) = store.meta_state()? {
                    state.meta = meta;
                }
                (state, None, None)
            }
        };
        let due = due.unwrap_or_else(|| DueIndex::build(&state, settings));
        Ok((state, Working { due, away, lazy }))
    }

    /// After a failed step: the state as the store has it (the step wrote nothing), without
    /// the games (each input brings in what it needs).
    pub(crate) fn reload(&mut self, store: &Store) -> Result<State, AppError> {
        let state = if self.away.is_some() {
            let (state, away) = working_state(store)?;
            self.away = Some(away);
            state
        } else {
            load_state(store, false)?
        };
        self.due = DueIndex::load(store)?;
        self.lazy = true;
        Ok(state)
    }

    /// Brings into `state` from `store` what `input` needs, as the core says it
    /// ([`crate::core::needs`]): asked again after each part brought in, until it names
    /// nothing new.
    pub(crate) fn satisfy(
        &mut self,
        state: &mut State,
        store: &Store,
        input: Input<'_>,
    ) -> Result<(), AppError> {
        let mut done = Done::default();
        loop {
            let n = needs(state, input);
            if !self.satisfy_next((state, store), &n, &mut done)? {
                return Ok(());
            }
        }
    }

    /// Brings in the first part of `n` not brought in yet ([`Needs`]'s order); `false` when
    /// there is none.
    fn satisfy_next(
        &mut self,
        (state, store): (&mut State, &Store),
        n: &Needs<'_>,
        done: &mut Done,
    ) -> Result<bool, AppError> {
        let keys = fresh(&n.keys, &mut done.keys);
        if !keys.is_empty() {
            for k in keys {
                if !state.keys.contains_key(&k)
                    && let Some(b) = store.key_binding(&k)?
                {
                    state.keys.insert(k, b);
                }
            }
            return Ok(true);
        }
        if self.bring_records((state, store), n, done)? {
            return Ok(true);
        }
        let games = fresh(&n.games, &mut done.games);
        let tournaments = fresh(&n.tournaments, &mut done.tournaments);
        if !games.is_empty() || !tournaments.is_empty() {
            for g in &games {
                self.wake_game(state, store, g)?;
            }
            for id in &tournaments {
                self.wake(state, store, id)?;
            }
            return Ok(true);
        }
        let ended = fresh(&n.whole_unless_open, &mut done.whole_unless_open);
        for tid in &ended {
            // The store says whether another game is still open, reading games only up to the
            // first open one; only when none is, is the tournament read whole.
            let held: BTreeSet<String> = state
                .games
                .keys()
                .filter(|g| g.tournament == *tid)
                .map(GameRef::to_string)
                .collect();
            if !store.has_open_game(tid, &held)? {
                self.wake(state, store, tid)?;
            }
        }
        Ok(!ended.is_empty())
    }

    /// The records of the away tournaments `n` names (by id, by a word of a letter, by one of
    /// their people, or all); `false` when none was asked for that was not asked for before.
    fn bring_records(
        &mut self,
        (state, store): (&mut State, &Store),
        n: &Needs<'_>,
        done: &mut Done,
    ) -> Result<bool, AppError> {
        let Some(away) = self.away.as_ref().filter(|a| !a.is_empty()) else {
            return Ok(false);
        };
        if n.all_records && !done.all_records {
            done.all_records = true;
            for id in away.all() {
                self.bring(state, store, &id)?;
            }
            return Ok(true);
        }
        let mut ids = fresh(&n.records, &mut done.records);
        let mut named = BTreeSet::new();
        if !done.named_in && !n.named_in.is_empty() {
            // A letter's texts, read once: the ids their words name, the addresses in them.
            done.named_in = true;
            ids.extend(n.named_in.iter().flat_map(|text| away.named_in(text)));
            named.extend(n.named_in.iter().flat_map(|t| addresses_in(t)));
        }
        let mut people = fresh(&n.people, &mut done.people);
        people.extend(fresh(&named, &mut done.people));
        for id in &ids {
            self.bring(state, store, id)?;
        }
        for a in &people {
            self.bring_people(state, store, a)?;
        }
        Ok(!ids.is_empty() || !people.is_empty())
    }

    /// Reads rotated tournament `id`'s record into the state, if it is away.
    fn bring(&mut self, state: &mut State, store: &Store, id: &str) -> Result<(), AppError> {
        if !self.away.as_ref().is_some_and(|a| a.holds(id)) {
            return Ok(());
        }
        // Read first: a failed read leaves it away, not lost.
        let t = store.tournament(id)?;
        if let Some(away) = self.away.as_mut() {
            away.take(id);
        }
        if let Some(t) = t {
            state.add_tournament(t);
        }
        Ok(())
    }

    /// Reads the records of the away tournaments `address` appears in.
    fn bring_people(
        &mut self,
        state: &mut State,
        store: &Store,
        address: &str,
    ) -> Result<(), AppError> {
        if self.away.as_ref().is_none_or(Away::is_empty) {
            return Ok(());
        }
        for id in store.rotated_tournaments_of(address)? {
            self.bring(state, store, &id)?;
        }
        Ok(())
    }

    /// Brings every game of tournament `id` into memory (from the shelf when it was rotated),
    /// its record first if it is away.
    fn wake(&mut self, state: &mut State, store: &Store, id: &str) -> Result<(), AppError> {
        self.bring(state, store, id)?;
        let Some(t) = state.tournaments.get(id) else {
            return Ok(());
        };
        let missing: Vec<GameRef> = t
            .games
            .iter()
            .filter(|g| !state.games.contains_key(*g))
            .cloned()
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        if t.rotated {
            for game in crate::store::shelf::shelved_games(store, id, &missing)? {
                state.games.insert(game.id.clone(), game);
            }
            return Ok(());
        }
        for g in missing {
            self.wake_game(state, store, &g)?;
        }
        Ok(())
    }

    /// Brings game `g` into memory with its reply keys, if it is not there (a running game: a
    /// shelved tournament is read whole, [`Working::wake`]).
    fn wake_game(&mut self, state: &mut State, store: &Store, g: &GameRef) -> Result<(), AppError> {
        if state.games.contains_key(g) {
            return Ok(());
        }
        if let Some(game) = store.game(g)? {
            state.games.insert(g.clone(), game);
        }
        for (k, b) in store.keys_of_game::<KeyBinding>(&g.to_string())? {
            state.keys.insert(k, b);
        }
        Ok(())
    }

    /// The tournaments with a deadline or digest due by `now`, brought in whole; and what the
    /// weekly overviews due by then read (each player's tournaments).
    pub(crate) fn wake_due(
        &mut self,
        state: &mut State,
        store: &Store,
        (now, s): (DateTime<Utc>, &Settings),
    ) -> Result<BTreeSet<String>, AppError> {
        let ids = self.due.due_tournaments(store, now)?;
        self.satisfy(state, store, Input::Due(&ids))?;
        let players = crate::core::time::overview::weekly_due(state, now, s);
        if !players.is_empty() {
            self.satisfy(state, store, Input::Overviews(&players))?;
        }
        Ok(ids)
    }

    /// The tournaments whose archive may be rotated by `now`, brought in whole.
    pub(crate) fn wake_rotations(
        &mut self,
        state: &mut State,
        store: &Store,
        now: DateTime<Utc>,
    ) -> Result<(), AppError> {
        let ids = self.due.rotations_due(now);
        self.satisfy(state, store, Input::Due(&ids))
    }

    /// Brings in what a report on an outbox entry (refused, given up, bounced) needs: its
    /// recipient's tournaments and its game's.
    pub(crate) fn wake_for_entry(
        &mut self,
        state: &mut State,
        store: &Store,
        entry: &crate::store::OutboxEntry,
    ) -> Result<(), AppError> {
        let game = entry
            .game
            .as_deref()
            .and_then(|g| g.parse::<GameRef>().ok());
        let input = Input::Undeliverable {
            recipient: &entry.recipient,
            game: game.as_ref(),
        };
        self.satisfy(state, store, input)
    }

    /// Drops the games from memory once more than [`KEEP_GAMES`] are there (within a long
    /// drain, between two groups of mails: they are all durable in the store then).
    pub(crate) fn rest_if_full(&mut self, state: &mut State) {
        if state.games.len() > KEEP_GAMES {
            self.rest(state);
        }
    }

    /// Drops every game and reply key from memory (they are all in the store); the next input
    /// reads what it needs again. Only for a relay opened without every game.
    pub(crate) fn rest(&mut self, state: &mut State) {
        if self.lazy {
            state.games.clear();
            state.keys = Default::default();
        }
    }
}

/// The members of `wanted` not in `done`, which takes them in.
fn fresh<T: Ord + Clone>(wanted: &BTreeSet<T>, done: &mut BTreeSet<T>) -> BTreeSet<T> {
    let new: BTreeSet<T> = wanted.difference(done).cloned().collect();
    done.extend(new.iter().cloned());
    new
}

/// The state as the store has it: with every game (but the shelved ones) and every reply key
/// when `games`, else with neither.
pub(crate) fn load_state(store: &Store, games: bool) -> Result<State, AppError> {
    let mut state = State::default();
    store.for_each_tournament(|t| state.add_tournament(t))?;
    if games {
        store.for_each_game(|g| {
            state.games.insert(g.id.clone(), g);
        })?;
        store.for_each_key(|k, b| {
            state.keys.insert(k, b);
        })?;
    }
    if let Some(meta) = store.meta_state()? {
        state.meta = meta;
    }
    Ok(state)
}

/// The state as the relay at work starts from: no games, no reply keys, and no rotated
/// tournaments — those are the [`Away`] ones, read as an input names them.
fn working_state(store: &Store) -> Result<(State, Away), AppError> {
    let mut state = State::default();
    let rotated = store.for_each_tournament_but_rotated(|t| state.add_tournament(t))?;
    if let Some(meta) = store.meta_state()? {
        state.meta = meta;
    }
    Ok((state, Away::new(rotated)))
}

/// The state without its games and the index of deadlines, for a relay that brings in games as
/// it needs them; `working`: without the rotated tournaments either (they are returned as the
/// [`Away`] ones). A store from before the indexes (or before the migrations below) is read
/// whole once, migrated, indexed and the indexes written.
fn lazy_state(
    store: &Store,
    settings: &Settings,
    working: bool,
) -> Result<(State, DueIndex, Option<Away>), AppError> {
    if store.upgrade().done()? {
        let due = DueIndex::load(store)?;
        if working {
            let (state, away) = working_state(store)?;
            return Ok((state, due, Some(away)));
        }
        return Ok((load_state(store, false)?, due, None));
    }
    let mut state = load_state(store, true)?;
    store.upgrade().ends(&mut state)?;
    store
        .upgrade()
        .shelf(&mut state, &crate::app::status_row::rows_of)?;
    let mut due = DueIndex::build(&state, settings);
    store
        .upgrade()
        .indexes(&state, |batch| due.persist_all(batch))?;
    state.games.clear();
    state.keys = Default::default();
    // Every tournament is in memory now: none is away.
    Ok((state, due, working.then(|| Away::new(Default::default()))))
}
