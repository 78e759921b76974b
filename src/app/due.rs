//! The shell's index of the core's pending deadlines, so that a mail does not make the core look
//! at every game to learn that nothing is due (with ten thousand games that look costs more than
//! the mail). Built once from [`State::deadlines`], then kept up to date from each step's
//! [`Output`]: the games it changed and the tournaments it touched are looked at again. A full
//! rebuild after every pass's tick bounds any drift to one pass; the core's own
//! [`State::tick`] stays the judge of what fires.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use crate::core::{Output, Settings, State};
use crate::game_ref::GameRef;

#[derive(Debug, Default)]
pub(crate) struct DueIndex {
    /// Each game's earliest deadline.
    by_game: HashMap<GameRef, DateTime<Utc>>,
    order: BTreeSet<(DateTime<Utc>, GameRef)>,
    /// Each tournament's next weekly digest.
    digests: BTreeMap<String, DateTime<Utc>>,
}

impl DueIndex {
    /// Every deadline of `state`.
    pub(crate) fn build(state: &State, s: &Settings) -> DueIndex {
        let mut index = DueIndex::default();
        for (at, game, due) in state.deadlines(s) {
            if due == crate::core::Due::Digest {
                index.digests.entry(game.tournament.clone()).or_insert(at);
                continue;
            }
            if !index.by_game.contains_key(&game) {
                index.by_game.insert(game.clone(), at);
                index.order.insert((at, game));
            }
        }
        index
    }

    /// The earliest pending deadline.
    pub(crate) fn earliest(&self) -> Option<DateTime<Utc>> {
        let game = self.order.first().map(|(at, _)| *at);
        let digest = self.digests.values().min().copied();
        game.into_iter().chain(digest).min()
    }

    /// Looks again at what `out` changed.
    pub(crate) fn update(&mut self, state: &State, s: &Settings, out: &Output) {
        let mut tournaments: BTreeSet<&str> = out.tournaments.iter().map(String::as_str).collect();
        for g in &out.games {
            self.update_game(state, s, g);
            tournaments.insert(g.tournament.as_str());
        }
        for id in &out.tournaments {
            if let Some(t) = state.tournaments.get(id) {
                for g in &t.games {
                    self.update_game(state, s, g);
                }
            }
        }
        for id in &tournaments {
            self.digests.remove(*id);
        }
        for (at, game, _) in state.digest_deadlines_of(tournaments.into_iter(), s) {
            self.digests.entry(game.tournament.clone()).or_insert(at);
        }
    }

    fn update_game(&mut self, state: &State, s: &Settings, game: &GameRef) {
        if let Some(old) = self.by_game.remove(game) {
            self.order.remove(&(old, game.clone()));
        }
        if let Some(at) = state.earliest_deadline_of(game, s) {
            self.by_game.insert(game.clone(), at);
            self.order.insert((at, game.clone()));
        }
    }
}
