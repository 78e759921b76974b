//! The shelf: the games (and their reply keys) of tournaments whose archive was rotated (Fax 2.8,
//! four weeks after their last game ended) leave the state the relay loads at every start and
//! keeps in memory, and wait in the store's `shelved_games` / `shelved_keys` trees. A federation's
//! store holds many more finished games than running ones; with the shelf, starting the relay and
//! its memory grow with the running tournaments, not with the years.
//!
//! A shelved game is read back only when asked for: a mail that answers through one of its reply
//! keys or names it in the subject (`App::warm` in `awake.rs`, before the core decides), or a command about it
//! (`fernzug status`, `export`: [`App::open_all`]). A shelved game the core changes is written
//! back to the shelf.

use std::collections::BTreeSet;

use super::{App, AppError};
use crate::core::model::Game;
use crate::core::{KeyBinding, State};
use crate::game_ref::GameRef;
use crate::store::{Batch, Store, Tree};

/// Set once the games of tournaments rotated before the shelf existed were shelved.
pub(crate) const META_SHELVED: &str = "migrated-shelf";

impl App {
    /// Opens the store with the shelved games read too: for the commands that show every game
    /// (`status`, `export`), never for the daemon.
    pub fn open_all(config: crate::config::Config) -> Result<App, AppError> {
        let mut app = App::open(config)?;
        for (_, g) in app.store.scan::<Game>(Tree::ShelvedGames)? {
            app.state.games.insert(g.id.clone(), g);
        }
        for (k, b) in app.store.scan::<KeyBinding>(Tree::ShelvedKeys)? {
            app.state
                .keys
                .insert(String::from_utf8_lossy(&k).into_owned(), b);
        }
        Ok(app)
    }

    /// Whether game `g` belongs on the shelf (its tournament's archive was rotated).
    pub(crate) fn shelved(&self, g: &GameRef) -> bool {
        self.state
            .tournaments
            .get(&g.tournament)
            .is_some_and(|t| t.rotated)
    }
}

/// Adds to `batch`: the games of the tournaments `ids` and their reply keys moved from the state's
/// trees to the shelf. Returns what to drop from memory once the batch is committed.
pub(crate) fn shelve(
    state: &State,
    ids: &BTreeSet<String>,
    batch: &mut Batch,
) -> (Vec<GameRef>, Vec<String>) {
    let mut games = Vec::new();
    for id in ids {
        let Some(t) = state.tournaments.get(id) else {
            continue;
        };
        for g in &t.games {
            if let Some(game) = state.games.get(g) {
                let key = g.to_string();
                batch.put(Tree::ShelvedGames, key.as_bytes(), game);
                batch.delete(Tree::Games, key.as_bytes());
                games.push(g.clone());
            }
        }
    }
    let set: BTreeSet<&GameRef> = games.iter().collect();
    let mut keys = Vec::new();
    for (k, b) in state.keys.iter() {
        if set.contains(&b.game) {
            batch.put(Tree::ShelvedKeys, k.as_bytes(), b);
            batch.delete(Tree::Keys, k.as_bytes());
            keys.push(k.clone());
        }
    }
    (games, keys)
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

/// Stores from before the shelf: the games of tournaments already rotated go to the shelf, once.
pub(crate) fn migrate(store: &Store, state: &mut State) -> Result<(), AppError> {
    if store.get::<bool>(Tree::Meta, META_SHELVED.as_bytes())? == Some(true) {
        return Ok(());
    }
    let rotated: BTreeSet<String> = state
        .tournaments
        .values()
        .filter(|t| t.rotated)
        .map(|t| t.id.clone())
        .collect();
    let mut batch = Batch::default();
    let (games, keys) = shelve(state, &rotated, &mut batch);
    batch.put(Tree::Meta, META_SHELVED.as_bytes(), &true);
    store.commit(batch)?;
    forget(state, &games, &keys);
    Ok(())
}
