//! What an input needs at hand before the core decides it: one pure function, [`needs`], from
//! the state and an [`Input`] to the [`Needs`] a holder of the state must satisfy from its
//! store. A relay that keeps only some records in memory (`crate::app`'s working set) asks it
//! again after each part it brought in, until it names nothing new; nothing else decides what
//! to load. The core then decides as if every record were at hand
//! (`tests/pure/letter_fixtures.rs` checks it for every fixture letter, with and without the
//! rotated tournaments' records).
//!
//! The parts, in the order they are satisfied (each may depend on the ones before being at
//! hand):
//!
//! 1. the bindings of the reply keys the input names ([`Needs::keys`]);
//! 2. the tournaments' own records ([`Needs::records`], [`Needs::people`],
//!    [`Needs::named_in`], [`Needs::all_records`]): a holder may have left out those of the
//!    rotated tournaments (Fax 2.8: four weeks after their end), which are many;
//! 3. the games: whole tournaments ([`Needs::tournaments`]) or single games ([`Needs::games`]);
//! 4. after a decision, the tournaments whose last open game may have ended
//!    ([`Needs::whole_unless_open`]).

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::core::model::{GameStatus, Output, State};
use crate::core::route::{reach, running_tournaments_of};
use crate::core::time::overview::tournaments_of;
use crate::game_ref::GameRef;
use crate::letter::Letter;

/// One input of the core, as far as what it needs at hand goes.
#[derive(Debug, Clone, Copy)]
pub enum Input<'a> {
    /// A letter received at the given time (`State::handle_letter`, `State::register` by mail).
    Letter(&'a Letter, DateTime<Utc>),
    /// Deadlines, digests or archive rotations due in these tournaments (the shell's index of
    /// deadlines says which): they are read whole.
    Due(&'a BTreeSet<String>),
    /// A mail to `recipient` about `game` that could not be delivered (`State::handle_bounce`,
    /// `State::report_undeliverable`): the recipient's running tournaments and the game's.
    Undeliverable {
        recipient: &'a str,
        game: Option<&'a GameRef>,
    },
    /// An XFCC call of the logged-in player `email`: a game's XFCC id counts every tournament
    /// before its own (`crate::xfcc::games`), and his running tournaments are read whole.
    Xfcc(&'a str),
    /// An XFCC login: who it is, every tournament says.
    Login,
    /// A mail to `address` about to be staged (the XFCC login it carries is given to the
    /// address he is known by): the tournaments he appears in.
    Person(&'a str),
    /// The start mails of these games (each reads its game and its tournament's record).
    Starts(&'a [GameRef]),
    /// What the core just decided: a game that ended in a tournament read only in part may have
    /// been its last open one (its digest stops, its archive's rotation is set, Fax 2.8, and its
    /// end falls due to be reported, TO §27).
    Decided(&'a Output),
    /// The weekly overviews of these players, due (`crate::core::time::overview::weekly_due`):
    /// the tournaments each plays in, whole, and the records that say who he is.
    Overviews(&'a BTreeSet<String>),
}

/// What must be at hand to decide an input ([`needs`]); see the module's text for the order.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Needs<'a> {
    /// Reply keys whose bindings are looked up (shelved ones too: the core answers about a
    /// finished game as about any other).
    pub keys: BTreeSet<String>,
    /// Every tournament's own record.
    pub all_records: bool,
    /// The records of these tournaments.
    pub records: BTreeSet<String>,
    /// The records of the tournaments these addresses appear in (as a director, a player, an
    /// address of his).
    pub people: BTreeSet<String>,
    /// A letter's texts (subject and text): the records of the tournaments their words name, in
    /// any case ([`crate::core::id_words`], as the core reads a letter), and of those the
    /// addresses in them appear in (`crate::letter::content::addresses_in`: a director's command
    /// may name a player's new address, which must not be anyone's, `crate::core::door::owners`).
    /// Texts, not words: the holder reads them once, however often it asks again.
    pub named_in: Vec<&'a str>,
    /// Tournaments read whole: every game of each, with its reply keys.
    pub tournaments: BTreeSet<String>,
    /// Single games (with their reply keys) of tournaments not read whole.
    pub games: BTreeSet<GameRef>,
    /// Tournaments read whole unless another of their games is still open in the store.
    pub whole_unless_open: BTreeSet<String>,
}

/// What `input` needs at hand in `state`, as far as `state` can tell: ask again once it is
/// there (a reply key's binding names its game; a rotated tournament's record its people).
/// Pure, like the router whose classification it reads ([`reach`]).
pub fn needs<'a>(state: &State, input: Input<'a>) -> Needs<'a> {
    let mut n = Needs::default();
    match input {
        Input::Letter(letter, now) => of_letter(state, letter, now, &mut n),
        Input::Due(ids) => n.tournaments.extend(ids.iter().cloned()),
        Input::Undeliverable { recipient, game } => {
            n.people.insert(recipient.to_string());
            n.tournaments
                .extend(running_tournaments_of(state, recipient));
            n.tournaments.extend(game.map(|g| g.tournament.clone()));
        }
        Input::Xfcc(email) => {
            n.all_records = true;
            n.tournaments.extend(running_tournaments_of(state, email));
        }
        Input::Login => n.all_records = true,
        Input::Person(address) => {
            n.people.insert(address.to_string());
        }
        Input::Starts(games) => n.games.extend(games.iter().cloned()),
        Input::Decided(out) => n.whole_unless_open = ended_in_part(state, out),
        Input::Overviews(players) => {
            for email in players {
                n.people.insert(email.clone());
                n.tournaments.extend(tournaments_of(state, email));
            }
        }
    }
    people_of_rotated(state, &mut n);
    n
}

/// A letter: its keys, the records it may name, then what the router reads ([`reach`]).
fn of_letter<'a>(state: &State, letter: &'a Letter, now: DateTime<Utc>, n: &mut Needs<'a>) {
    n.keys.extend(
        letter
            .reply_keys
            .iter()
            .filter(|k| !state.keys.contains_key(k))
            .cloned(),
    );
    if letter.content.register.is_some() {
        // A tournament file's id must be free among all tournaments.
        n.all_records = true;
    }
    n.named_in
        .extend([letter.subject.as_str(), letter.text.as_str()]);
    n.records
        .extend(letter.game_ref.iter().map(|g| g.tournament.clone()));
    let bound = letter.reply_keys.iter().filter_map(|k| state.keys.get(k));
    n.records
        .extend(bound.clone().map(|b| b.game.tournament.clone()));
    // The sender and the players his reply keys were given to (the addresses the letter names
    // come with `named_in`); a player writing from another address of his is read as the
    // address he is known by.
    n.people.insert(letter.from.clone());
    n.people.extend(bound.map(|b| b.email.clone()));
    if let Some(d) = &letter.dsn {
        n.records
            .extend(d.game.iter().map(|g| g.tournament.clone()));
        n.people
            .extend(d.failed.iter().map(|f| f.recipient.clone()));
    }
    if let Some(known) = state.registered_as(&letter.from) {
        n.people.insert(known.to_string());
    }
    let r = reach(state, letter, now);
    n.tournaments.extend(r.tournaments);
    n.games.extend(r.games);
}

/// Whom the core may write to about a rotated tournament it reads (its director and players)
/// or about a game of one (its players and the director): their tournaments say in which
/// language and to which address (`lang_for`, `State::delivery_address`). The people of a
/// tournament not rotated need none: what their running tournaments say comes first
/// (`State::tournaments_with`).
fn people_of_rotated(state: &State, n: &mut Needs<'_>) {
    let rotated = |id: &str| state.tournaments.get(id).filter(|t| t.rotated);
    let mut people = Vec::new();
    for t in n.tournaments.iter().filter_map(|id| rotated(id)) {
        people.push(t.director.email.clone());
        people.extend(t.players.iter().map(|p| p.email.clone()));
    }
    for (t, g) in n
        .games
        .iter()
        .filter_map(|g| Some((rotated(&g.tournament)?, state.games.get(g)?)))
    {
        people.push(t.director.email.clone());
        people.extend([g.players.white.clone(), g.players.black.clone()]);
    }
    n.people.extend(people);
}

/// The tournaments in which `out` ended a game while not every game of theirs is at hand, and
/// no game held of theirs is still open.
fn ended_in_part(state: &State, out: &Output) -> BTreeSet<String> {
    let at_hand = |id: &str| {
        state
            .tournaments
            .get(id)
            .is_some_and(|t| t.games.iter().all(|g| state.games.contains_key(g)))
    };
    out.games
        .iter()
        .filter(|g| {
            state
                .games
                .get(*g)
                .is_some_and(|g| g.status == GameStatus::Finished)
        })
        .map(|g| g.tournament.as_str())
        .filter(|t| !at_hand(t))
        .filter(|t| {
            !state
                .games
                .values()
                .any(|g| g.id.tournament == *t && g.status != GameStatus::Finished)
        })
        .map(str::to_string)
        .collect()
}
