//! [`State`]: everything the relay knows — tournaments, games, reply keys — and the
//! [`Settings`] and [`Output`] that go with every step of the core.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::core::model::Event;
use crate::core::model::Game;
use crate::core::model::{MailSeal, Output, People, Tournament};
use crate::game_ref::GameRef;
use crate::lang::Lang;

/// The relay's fixed facts, from its configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// The relay mailbox, lower-cased (`relay@fernschach.test`).
    pub relay_address: String,
    /// The display name on outgoing mail.
    pub relay_name: String,
    /// Calendar days are counted in this zone.
    pub tz: Tz,
    /// The language of people without one of their own (directors, strangers).
    pub default_lang: Lang,
    /// A random id of this relay installation, part of every Message-ID so ids never repeat
    /// across installations.
    pub instance: String,
    /// The weekday of the weekly director digest (`[relay] digest_day`); `None`: no digests.
    pub digest_day: Option<chrono::Weekday>,
    /// TO §17: a player on move is warned once per time-control period when his days left
    /// before the control fall to this many (`[relay] warn_days`); 0: no warnings.
    pub warn_days: u32,
    /// What the relay believes and how much it answers (`crate::core::door::screen`).
    pub guard: crate::core::model::Guard,
    /// `[http] public_url`: where players reach the tournament pages (`https://…`, without a
    /// final `/`); every game mail links to its game's page, the `start` mail to its
    /// tournament's (`crate::render`). `None`: no links. The core decides nothing by it.
    pub public_url: Option<String>,
}

impl Settings {
    /// The domain of the relay address.
    pub fn domain(&self) -> &str {
        self.relay_address
            .rsplit_once('@')
            .map(|(_, d)| d)
            .unwrap_or("localhost")
    }
}

/// Everything the relay knows.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct State {
    pub tournaments: BTreeMap<String, Tournament>,
    pub games: BTreeMap<GameRef, Game>,
    pub keys: crate::core::model::Keys,
    pub meta: Meta,
    /// Which tournaments each address appears in (derived from `tournaments`, never stored):
    /// kept by [`State::add_tournament`] and [`State::note_address`].
    #[serde(skip)]
    people: People,
    /// TO §29: the mail the step at hand is answering (set by `State::handle_mail` for its step
    /// only, cleared by every other entry point): every event the step logs is sealed with it.
    #[serde(skip)]
    pub(crate) input: Option<MailSeal>,
    /// Fresh random reply keys the shell hands in before a step that may need one (a director's
    /// question, TO §23): the core has no randomness of its own. Never stored.
    #[serde(skip)]
    pub spare_keys: Vec<String>,
}

/// The strangers answered on one day (no backscatter: at most one answer a day to an address
/// no tournament knows, and a bounded number in all).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct StrangersDay {
    /// The local day the set is of.
    pub day: Option<chrono::NaiveDate>,
    /// The addresses answered on it.
    pub addresses: BTreeSet<String>,
}

/// Counters and small sets kept beside the games.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Meta {
    /// The latest `now` the relay acted on; time never runs backwards.
    pub acted_until: Option<DateTime<Utc>>,
    /// The number of mails decided so far (part of each Message-ID).
    pub mail_seq: u64,
    /// The addresses no tournament knows that were answered today (at most one answer a day
    /// each, `crate::core::route`). An earlier version's `strangers_answered` (once ever) is
    /// not read.
    #[serde(default)]
    pub strangers: StrangersDay,
    /// Fax 2.2: `message-id|recipient` of every undelivered mail already reported to the director.
    #[serde(default)]
    pub bounces_reported: BTreeSet<String>,
    /// The weekly digest: per tournament, the digest day of the last digest sent.
    #[serde(default)]
    pub digests: BTreeMap<String, NaiveDate>,
    /// Automatic answers per address on the current day (`crate::core::door::ratelimit`).
    #[serde(default)]
    pub answers: BTreeMap<String, crate::core::model::AnswerDay>,
    /// Players who asked for no clock warnings (`Keine Warnungen` / `no warnings`, TO §17).
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub no_warnings: BTreeSet<String>,
    /// Players who asked for their overview every Monday (`Übersicht wöchentlich` / `weekly
    /// overview`), each with the Monday of the week of the last one he got (or of the week he
    /// asked in): the next is due 7 days later (`crate::core::records::overview`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub overviews: BTreeMap<String, NaiveDate>,
    /// How players (and directors) asked by mail to see the position in their mails (`Brett:
    /// Liste` / `board: list`, `Brett: Diagramm` / `board: diagram`), by address: for all their
    /// games, before what a tournament file says (`crate::core::door::reply::board_for`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub boards: BTreeMap<String, crate::lang::Board>,
    /// The outages the operator was told of and not yet told are over: what fails (`imap`,
    /// `smtp`, `outbox`) and since when. Written with the `alert` mail itself, so that an outage
    /// is told once across restarts — not lost, not twice (`crate::core::unreachable::alert`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub outages_told: BTreeMap<String, DateTime<Utc>>,
}

impl Meta {
    /// Allocates the next stable Message-ID. (On `Meta`, so a rule may hold a `&Tournament` of
    /// the state while it numbers its mails.)
    pub(crate) fn next_message_id(&mut self, settings: &Settings, kind: &str) -> String {
        self.mail_seq += 1;
        format!(
            "fernzug.{}.{}.{}@{}",
            settings.instance,
            self.mail_seq,
            kind,
            settings.domain()
        )
    }
}

impl State {
    /// The tournament of a game.
    pub fn tournament_of(&self, game: &GameRef) -> Option<&Tournament> {
        self.tournaments.get(&game.tournament)
    }

    /// Adds tournament `t` (or replaces the one of its id), noting its addresses.
    pub fn add_tournament(&mut self, t: Tournament) {
        if let Some(old) = self.tournaments.remove(&t.id) {
            self.people.forget_tournament(&old);
        }
        self.people.note_tournament(&t);
        self.tournaments.insert(t.id.clone(), t);
    }

    /// Notes that `address` now appears in tournament `id` (a player's further address, given
    /// by the director).
    pub(crate) fn note_address(&mut self, address: &str, id: &str) {
        self.people.note(address, id);
    }

    /// The tournaments `address` appears in — as the director, a player or one of a player's
    /// other addresses: the only ones a look for that address must read. The tournaments not
    /// rotated come first, then the rotated ones (Fax 2.8: four weeks after their end), each in
    /// id order — who someone is now (where his mail goes, his language) his current
    /// tournaments say before those of earlier years.
    pub fn tournaments_with<'a>(&'a self, address: &str) -> impl Iterator<Item = &'a Tournament> {
        debug_assert_eq!(
            self.people,
            People::of(self.tournaments.values()),
            "the index of addresses is kept with the tournaments (add_tournament, note_address)"
        );
        let all = || {
            self.people
                .tournaments_of(address)
                .filter_map(|id| self.tournaments.get(id))
        };
        all()
            .filter(|t| !t.rotated)
            .chain(all().filter(|t| t.rotated))
    }

    /// The address a player is known by, when `address` is one of his other addresses
    /// (`Player::also`); `None` for his own address and for anyone else. An address that is
    /// anyone's own — a player's or a director's, in any tournament — is never read as another
    /// player's (an address belongs to one person: `crate::core::door::owners`).
    pub fn registered_as(&self, address: &str) -> Option<&str> {
        if self
            .tournaments_with(address)
            .any(|t| t.director.email == address || t.player(address).is_some())
        {
            return None;
        }
        self.tournaments_with(address)
            .flat_map(|t| &t.players)
            .find(|p| p.also.iter().any(|a| a == address))
            .map(|p| p.email.as_str())
    }

    /// Where mail to the player known as `email` goes (`Player::send_to`), if not to `email`.
    pub fn delivery_address(&self, email: &str) -> Option<&str> {
        self.tournaments_with(email)
            .flat_map(|t| &t.players)
            .find(|p| p.email == email)
            .and_then(|p| p.send_to.as_deref())
    }

    /// Whether `email` plays in or directs any tournament.
    pub fn knows(&self, email: &str) -> bool {
        self.tournaments_with(email)
            .any(|t| t.director.email == email || t.player(email).is_some())
    }

    /// The games `email` plays in, in order.
    pub fn games_of(&self, email: &str) -> Vec<&Game> {
        self.games
            .values()
            .filter(|g| g.color_of(email).is_some())
            .collect()
    }

    /// The colour `email` plays in `game`, if any.
    pub fn color_in(&self, game: &GameRef, email: &str) -> Option<Color> {
        self.games.get(game).and_then(|g| g.color_of(email))
    }

    /// The reply key of `email` in `game` (a player's, or the director's), if he has one:
    /// every copy of a game mail carries its own recipient's key (docs/contract.md: private to the game
    /// and the recipient).
    pub fn reply_key_for(&self, game: &GameRef, email: &str) -> Option<String> {
        self.keys.key_of(game, email).map(str::to_string)
    }

    /// Appends an event to a game's log.
    pub(crate) fn log_event(&mut self, out: &mut Output, game: &GameRef, event: Event) {
        log_event(&mut self.games, self.input.as_ref(), out, game, event);
    }

    /// Tournament `tid` to read, beside the parts a rule changes: the games and the counters.
    pub(crate) fn split(&mut self, tid: &str) -> Option<(&Tournament, Parts<'_>)> {
        let t = self.tournaments.get(tid)?;
        let parts = Parts {
            games: &mut self.games,
            keys: &self.keys,
            meta: &mut self.meta,
            input: self.input.as_ref(),
        };
        Some((t, parts))
    }
}

/// Removes tournament `id` from `state` with its games, their reply keys, its digests' day and
/// its people (a tournament withdrawn before its first move, `crate::core::register`): nothing
/// of it is known any more. Returns it, if it was there. A function beside the state, not one of
/// its methods (`scripts/layers` counts those).
pub(crate) fn remove_tournament(state: &mut State, id: &str) -> Option<Tournament> {
    let t = state.tournaments.remove(id)?;
    state.people.forget_tournament(&t);
    state.games.retain(|g, _| g.tournament != id);
    let keys: Vec<String> = state
        .keys
        .iter()
        .filter(|(_, b)| b.game.tournament == id)
        .map(|(k, _)| k.clone())
        .collect();
    for k in keys {
        state.keys.remove(&k);
    }
    state.meta.digests.remove(id);
    Some(t)
}

/// The parts of the [`State`] a rule changes while it reads one [`Tournament`] (see
/// [`State::split`]): the games and the counters, and the reply keys to look up.
pub(crate) struct Parts<'a> {
    pub games: &'a mut BTreeMap<GameRef, Game>,
    pub keys: &'a crate::core::model::Keys,
    pub meta: &'a mut Meta,
    /// The mail the step answers ([`State::input`]).
    pub input: Option<&'a MailSeal>,
}

impl Parts<'_> {
    /// Appends an event to a game's log.
    pub(crate) fn log_event(&mut self, out: &mut Output, game: &GameRef, event: Event) {
        log_event(self.games, self.input, out, game, event);
    }

    /// The director's reply key for a game of `t` (bound to his address at registration).
    pub(crate) fn director_key(&self, t: &Tournament, game: &GameRef) -> Option<String> {
        director_key(self.keys, t, game)
    }
}

/// The director's reply key for game `game` of `t` among `keys`.
pub(crate) fn director_key(
    keys: &crate::core::model::Keys,
    t: &Tournament,
    game: &GameRef,
) -> Option<String> {
    keys.key_of(game, &t.director.email).map(str::to_string)
}

/// Appends `event` to the log of `game`, sealed after the game's last event (TO §29) and with
/// the mail `input` it came from.
fn log_event(
    games: &mut BTreeMap<GameRef, Game>,
    input: Option<&MailSeal>,
    out: &mut Output,
    game: &GameRef,
    event: Event,
) {
    if let Some(g) = games.get_mut(game) {
        out.events.push(g.log(input, event));
        out.games.insert(game.clone());
    }
}
