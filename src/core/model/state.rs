//! [`State`]: everything the relay knows — tournaments, games, reply keys — and the
//! [`Settings`] and [`Output`] that go with every step of the core.

use std::collections::{BTreeMap, BTreeSet};

use chrono::{DateTime, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::core::clock::Rest;
use crate::core::model::Event;
use crate::core::model::Game;
use crate::core::model::{MailSeal, Output, People, Recipient};
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::rules::RuleSet;

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

/// A person: a player or a director.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Person {
    pub name: String,
    pub email: String,
}

/// A player of a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    pub email: String,
    pub lang: Option<Lang>,
    /// Further addresses he writes from (the tournament file's `also`, or the director's
    /// `Weitere Adresse`/`Adresse`): a mail from one of them counts as his. `email` stays the
    /// name the relay knows him by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
    /// Where his mail goes since the director changed his address (`Adresse: old -> new`);
    /// `None`: to `email`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_to: Option<String>,
    /// TO §24: his leaves in this tournament.
    #[serde(default)]
    pub leaves: Vec<Rest>,
    /// TO §24: special leave granted by the director, beyond the 42-day budget.
    #[serde(default)]
    pub special_leaves: Vec<Rest>,
}

/// A registered tournament.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tournament {
    pub id: String,
    pub name: String,
    pub rules: RuleSet,
    pub start: NaiveDate,
    /// When the clocks of the first moves start: 00:00 of `start`, or the registration if later.
    pub clock_start: DateTime<Utc>,
    pub registered: DateTime<Utc>,
    pub director: Person,
    pub players: Vec<Player>,
    /// The weekly director digest is wanted.
    pub digest: bool,
    /// Fax 2.8: the archive of its mails was rotated away (four weeks after its end).
    #[serde(default)]
    pub rotated: bool,
    /// Fax 2.8: when it was (`None` for a tournament rotated by a version before this field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotated_at: Option<DateTime<Utc>>,
    pub games: Vec<GameRef>,
    /// TO §23: the director's questions to players, answered or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<crate::core::model::Question>,
}

impl Tournament {
    pub fn player(&self, email: &str) -> Option<&Player> {
        self.players.iter().find(|p| p.email == email)
    }

    /// The language to write to `email` in.
    pub fn lang_of(&self, email: &str, default: Lang) -> Lang {
        self.player(email).and_then(|p| p.lang).unwrap_or(default)
    }

    pub fn recipient(&self, email: &str) -> Recipient {
        let name = self
            .player(email)
            .map(|p| p.name.clone())
            .unwrap_or_else(|| email.to_string());
        Recipient {
            name,
            email: email.to_string(),
        }
    }

    pub fn director_recipient(&self) -> Recipient {
        Recipient {
            name: self.director.name.clone(),
            email: self.director.email.clone(),
        }
    }

    /// The rest days (TO §24) of a player: his leaves and his special leaves.
    pub fn rest_of(&self, email: &str) -> Vec<Rest> {
        self.player(email)
            .map(|p| p.leaves.iter().chain(&p.special_leaves).copied().collect())
            .unwrap_or_default()
    }
}

/// What a reply key stands for: a game and the player it was given to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyBinding {
    pub game: GameRef,
    pub email: String,
    /// The key of the player's replies to decisions about the game (TO §18, §29): what comes
    /// through it goes to the director, never to the partner (`crate::core::director::desk`).
    /// The mails that carry a decision carry it instead of his key of the game.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub to_director: bool,
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
