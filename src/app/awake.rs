//! Which games are in memory. The daemon (and `once`, `tournament add`) start with none: the
//! tournaments and the index of deadlines (`due.rs`) are enough to know what to read; a game's
//! reply keys come in with it (kept among the game's own records in the store), and a mail's own keys are
//! looked up in the store. Before the core is asked, the shell brings in the games of every
//! tournament the input can touch — a tournament read whole, so that what the core says about a
//! tournament (its digest, its crosstable, its rotation) sees all of it; only a letter about one
//! game, which asks nothing of the others, reads that game alone:
//!
//! - a mail: the tournaments its sender plays in or directs, those of the games its reply keys
//!   and subject name, and for a delivery-status report those of the game and the recipients it
//!   names — except a player's letter about one game of his (a move, words, a draw…), which
//!   reads that game alone and its tournament's own record (`crate::core::reach`, issue 33);
//! - time: the tournaments with a deadline or digest due ([`super::due::DueIndex::due_tournaments`]) or an
//!   archive to rotate;
//! - an undeliverable or refused outbox entry: its game's tournament and its recipient's.
//!
//! The daemon and `once` start without the records of the rotated tournaments too (Fax 2.8:
//! four weeks after their end; a federation's store holds many more of them than running ones):
//! they are the [`Away`] ones, read ([`App::bring`]) before the core is asked about an input
//! that could touch one — a mail from or naming an address one of them names (the store's index
//! of their people), one naming its id (a reply key of one of its games, the subject's game, a
//! word of the subject or the text), a delivery-status report about a recipient of one; a
//! deadline or rotation of one, an outbox entry about its game; and the rotated tournaments of
//! everyone a step may write to who plays in no running tournament (the people of a woken
//! rotated tournament or game; the players a letter's keys were given to, the address a player
//! writing from another one is known by: where his mail goes and his language, the core looks
//! up in his running tournaments first, `State::tournaments_with`). An XFCC
//! login (its games' ids count every tournament) and a tournament file by mail (its id must be
//! free) read them all. What the core sees of an input is as if every tournament were read.
//!
//! The games and keys are dropped again once more than `KEEP_GAMES` games are held
//! ([`App::rest_if_full`], after each pass of the daemon and, within a long drain, after each
//! group of mails), and when the daemon lets go of the store ([`App::close`]): memory follows
//! what is being worked on, not the number of games in the store.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use super::{App, AppError};
use crate::core::KeyBinding;
use crate::game_ref::GameRef;
use crate::letter::Letter;
use crate::store::OutboxEntry;

/// How many games a drain keeps in memory at most between two groups of mails (a tournament of
/// eleven players has 55; a game with forty moves takes 10–15 KB with what comes with it). 500:
/// a drain of 10,000 moves, each in a game of its own, peaked at 60 MB with 2,000; reading a
/// game again costs a tenth of a millisecond.
pub const KEEP_GAMES: usize = 500;

/// The rotated tournaments whose records the relay at work has not read, by id and by the id's
/// lower case (a letter names a tournament in any case, as the core reads it).
#[derive(Debug, Clone, Default)]
pub struct Away {
    /// By the id's lower case, the ids written so (never an empty list).
    ids: HashMap<String, Vec<String>>,
}

impl Away {
    pub(crate) fn new(rotated: BTreeSet<String>) -> Away {
        let mut away = Away::default();
        for id in rotated {
            away.ids
                .entry(id.to_ascii_lowercase())
                .or_default()
                .push(id);
        }
        away
    }

    fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    fn holds(&self, id: &str) -> bool {
        self.ids
            .get(&id.to_ascii_lowercase())
            .is_some_and(|ids| ids.iter().any(|x| x == id))
    }

    /// Takes `id` out, if it is away.
    fn take(&mut self, id: &str) {
        let low = id.to_ascii_lowercase();
        if let Some(ids) = self.ids.get_mut(&low) {
            ids.retain(|x| x != id);
            if ids.is_empty() {
                self.ids.remove(&low);
            }
        }
    }

    /// The away ids `text` names, as the core reads a letter ([`crate::core::id_words`]).
    fn named_in(&self, text: &str) -> Vec<String> {
        crate::core::id_words(text)
            .filter_map(|w| self.ids.get(&w.to_ascii_lowercase()))
            .flatten()
            .cloned()
            .collect()
    }

    fn all(&self) -> Vec<String> {
        self.ids.values().flatten().cloned().collect()
    }
}

impl App {
    /// Reads rotated tournament `id`'s record into the state, if it is away.
    pub(crate) fn bring(&mut self, id: &str) -> Result<(), AppError> {
        if !self.away.as_ref().is_some_and(|a| a.holds(id)) {
            return Ok(());
        }
        // Read first: a failed read leaves it away, not lost.
        let t = self.store.tournament(id)?;
        if let Some(away) = self.away.as_mut() {
            away.take(id);
        }
        if let Some(t) = t {
            self.state.add_tournament(t);
        }
        Ok(())
    }

    /// Reads the records of the away tournaments `address` appears in.
    pub(crate) fn bring_people(&mut self, address: &str) -> Result<(), AppError> {
        if self.away.as_ref().is_none_or(Away::is_empty) {
            return Ok(());
        }
        for id in self.store.rotated_tournaments_of(address)? {
            self.bring(&id)?;
        }
        Ok(())
    }

    /// Reads every away tournament's record.
    pub(crate) fn bring_all(&mut self) -> Result<(), AppError> {
        for id in self.away.as_ref().map(Away::all).unwrap_or_default() {
            self.bring(&id)?;
        }
        Ok(())
    }

    /// Reads the away tournaments `letter` may be about (see the module's text).
    fn bring_for(&mut self, letter: &Letter) -> Result<(), AppError> {
        let Some(away) = self.away.as_ref().filter(|a| !a.is_empty()) else {
            return Ok(());
        };
        if letter.content.register.is_some() {
            return self.bring_all();
        }
        let mut ids = away.named_in(&letter.subject);
        ids.extend(away.named_in(&letter.text));
        ids.extend(letter.game_ref.iter().map(|g| g.tournament.clone()));
        let bound = letter
            .reply_keys
            .iter()
            .filter_map(|k| self.state.keys.get(k));
        ids.extend(bound.clone().map(|b| b.game.tournament.clone()));
        // The sender, the players his reply keys were given to, and every address the letter
        // names (a director's command may name a player's new address, which must not be
        // anyone's: `crate::core::door::owners`).
        let mut people = vec![letter.from.clone()];
        people.extend(bound.map(|b| b.email.clone()));
        people.extend(crate::letter::content::addresses_in(&letter.subject));
        people.extend(crate::letter::content::addresses_in(&letter.text));
        if let Some(d) = &letter.dsn {
            ids.extend(d.game.iter().map(|g| g.tournament.clone()));
            people.extend(d.failed.iter().map(|f| f.recipient.clone()));
        }
        for id in ids {
            self.bring(&id)?;
        }
        for a in people {
            self.bring_people(&a)?;
        }
        // A player writing from another address of his is read as the address he is known by.
        if let Some(known) = self.state.registered_as(&letter.from).map(str::to_string) {
            self.bring_people(&known)?;
        }
        Ok(())
    }

    /// Reads the away tournaments of the people of rotated tournament `id` (its director and
    /// players) or, with `game`, of that game's players and the director: whom the core may
    /// write to about it, in the language and to the address their tournaments say (`lang_for`,
    /// `State::delivery_address`). The people of a tournament not rotated need none: what their
    /// current tournaments say comes first (`State::tournaments_with`).
    fn bring_people_of(&mut self, id: &str, game: Option<&GameRef>) -> Result<(), AppError> {
        if self.away.as_ref().is_none_or(Away::is_empty) {
            return Ok(());
        }
        let Some(t) = self.state.tournaments.get(id).filter(|t| t.rotated) else {
            return Ok(());
        };
        let mut people = vec![t.director.email.clone()];
        match game.and_then(|g| self.state.games.get(g)) {
            Some(g) => people.extend([g.players.white.clone(), g.players.black.clone()]),
            None => people.extend(t.players.iter().map(|p| p.email.clone())),
        }
        for a in people {
            self.bring_people(&a)?;
        }
        Ok(())
    }

    /// Brings every game of tournament `id` into memory (from the shelf when it was rotated).
    pub(crate) fn wake(&mut self, id: &str) -> Result<(), AppError> {
        self.bring(id)?;
        self.bring_people_of(id, None)?;
        let Some(t) = self.state.tournaments.get(id) else {
            return Ok(());
        };
        let missing: Vec<GameRef> = t
            .games
            .iter()
            .filter(|g| !self.state.games.contains_key(*g))
            .cloned()
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        if t.rotated {
            for game in super::shelf::shelved_games(&self.store, id, &missing)? {
                self.state.games.insert(game.id.clone(), game);
            }
            return Ok(());
        }
        for g in missing {
            self.wake_game(&g)?;
        }
        Ok(())
    }

    fn wake_all(&mut self, ids: BTreeSet<String>) -> Result<BTreeSet<String>, AppError> {
        for id in &ids {
            self.wake(id)?;
        }
        Ok(ids)
    }

    /// The running tournaments `email` plays in or directs.
    fn tournaments_of(&self, email: &str) -> impl Iterator<Item = String> + '_ {
        crate::core::running_tournaments_of(&self.state, email).into_iter()
    }

    /// Brings in the running tournaments `email` plays in or directs (an XFCC call).
    pub(crate) fn wake_player(&mut self, email: &str) -> Result<(), AppError> {
        // A game's XFCC id counts every tournament before its own (`crate::xfcc::games`).
        self.bring_all()?;
        let ids: BTreeSet<String> = self.tournaments_of(email).collect();
        self.wake_all(ids).map(|_| ())
    }

    /// Brings in what the deadlines due by `now` need; returns those tournaments.
    pub(crate) fn wake_due(&mut self, now: DateTime<Utc>) -> Result<BTreeSet<String>, AppError> {
        let ids = self.due.due_tournaments(&self.store, now)?;
        self.wake_all(ids)
    }

    /// Brings in the tournaments whose archive may be rotated by `now`.
    pub(crate) fn wake_rotations(&mut self, now: DateTime<Utc>) -> Result<(), AppError> {
        let ids = self.due.rotations_due(now);
        self.wake_all(ids).map(|_| ())
    }

    /// Brings in what an outbox entry about to be reported on needs.
    pub(crate) fn wake_for_entry(&mut self, entry: &OutboxEntry) -> Result<(), AppError> {
        self.bring_people(&entry.recipient)?;
        let mut ids: BTreeSet<String> = self.tournaments_of(&entry.recipient).collect();
        if let Some(g) = entry
            .game
            .as_deref()
            .and_then(|g| g.parse::<GameRef>().ok())
        {
            ids.insert(g.tournament);
        }
        self.wake_all(ids).map(|_| ())
    }

    /// Brings in everything `letter` may be about at `now`, as the core says it
    /// ([`crate::core::reach`]): first the bindings of the reply keys it names that are not at
    /// hand (read from the store, shelved ones too: the core answers about them as about any
    /// finished game), then its tournaments, whole, or, for a player's letter about one game, that
    /// game alone ([`App::wake_game`]).
    pub(crate) fn warm(&mut self, letter: &Letter, now: DateTime<Utc>) -> Result<(), AppError> {
        for k in &letter.reply_keys {
            if self.state.keys.contains_key(k) {
                continue;
            }
            if let Some(b) = self.store.key_binding(k)? {
                self.state.keys.insert(k.clone(), b);
            }
        }
        self.bring_for(letter)?;
        let reach = crate::core::reach(&self.state, letter, now);
        for g in &reach.games {
            self.wake_game(g)?;
        }
        self.wake_all(reach.tournaments).map(|_| ())
    }

    /// Brings game `g` into memory with its reply keys, if it is not there (a running game: a
    /// shelved tournament is read whole, [`App::wake`]).
    pub(crate) fn wake_game(&mut self, g: &GameRef) -> Result<(), AppError> {
        if self.state.games.contains_key(g) {
            return Ok(());
        }
        if let Some(game) = self.store.game(g)? {
            self.state.games.insert(g.clone(), game);
        }
        for (k, b) in self.store.keys_of_game::<KeyBinding>(&g.to_string())? {
            self.state.keys.insert(k, b);
        }
        self.bring_people_of(&g.tournament, Some(g))
    }

    /// A game that ended in a tournament read only in part (a player's letter about one game,
    /// `crate::core::reach`) may have been its last open one: then the tournament's own
    /// deadlines change (its digest stops, its archive's rotation is set, Fax 2.8), and the
    /// index of deadlines needs all of it. The store says whether another game is still open,
    /// reading games only up to the first open one; only when none is, is the tournament read whole.
    pub(crate) fn whole_at_an_end(&mut self, out: &crate::core::Output) -> Result<(), AppError> {
        let ended: BTreeSet<&str> = out
            .games
            .iter()
            .filter(|g| {
                self.state
                    .games
                    .get(*g)
                    .is_some_and(|g| g.status == crate::core::model::GameStatus::Finished)
            })
            .map(|g| g.tournament.as_str())
            .filter(|t| !super::due::at_hand(&self.state, t))
            .collect();
        for tid in ended {
            let held: BTreeSet<String> = self
                .state
                .games
                .keys()
                .filter(|g| g.tournament == tid)
                .map(GameRef::to_string)
                .collect();
            let open_here = self.state.games.values().any(|g| {
                g.id.tournament == tid && g.status != crate::core::model::GameStatus::Finished
            });
            if !open_here && !self.store.has_open_game(tid, &held)? {
                let tid = tid.to_string();
                self.wake(&tid)?;
            }
        }
        Ok(())
    }

    /// Drops the games from memory once more than `KEEP_GAMES` are there (within a long drain,
    /// between two groups of mails: they are all durable in the store then).
    pub fn rest_if_full(&mut self) {
        if self.state.games.len() > KEEP_GAMES {
            self.rest();
        }
    }

    /// Drops every game and reply key from memory (they are all in the store); the next input
    /// reads what it needs again. Only for a relay opened without every game ([`App::reopen`]).
    pub(crate) fn rest(&mut self) {
        if self.lazy {
            self.state.games.clear();
            self.state.keys = Default::default();
        }
    }

    /// The index of deadlines as the store holds it, and as a reading of every game gives it.
    #[cfg(test)]
    #[allow(clippy::type_complexity)]
    pub(crate) fn due_stored_and_rebuilt(
        &self,
    ) -> (
        Vec<(crate::store::DueEntry, DateTime<Utc>)>,
        Vec<(crate::store::DueEntry, DateTime<Utc>)>,
    ) {
        let mut stored = Vec::new();
        self.store
            .due()
            .for_each(|e, at| stored.push((e, at)))
            .expect("the stored index");
        stored.sort();
        let all = super::load_state(&self.store, true).expect("every game");
        let rebuilt = super::due::DueIndex::build(&all, &self.settings);
        (stored, rebuilt.entries())
    }
}
