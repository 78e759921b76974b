//! The pure core (sans-IO, in the manner of quinn-proto): it takes the [`State`], one input and
//! `now`, and returns what it decided as an [`Output`]: mails to send, events to log, the records it
//! touched, the log lines. What a mail says is decided as values ([`model::Sentence`]); its words
//! are written by the render layer (`crate::render::words`). No networking, no store, no clock, no
//! randomness inside: the shell supplies all of them.
//!
//! The entry points are all in this module, one per input: a read letter
//! ([`State::handle_letter`]), time passing ([`State::tick`], with [`State::next_deadline`] saying
//! when it is next needed), a tournament to register ([`State::register`]), a delivery-status
//! report ([`State::handle_bounce`]), a mail the SMTP server refused or the relay gave up
//! ([`State::report_undeliverable`]), the relay's own outage told to the operator
//! ([`State::alert`]), and the archive's rotation ([`State::rotate_archives`]).
//! Each hands its input to the room that decides it; those that may send mail complete the
//! output the same way (one copy per reply key, the relay's clock moved on). Rotation sends no
//! mail and leaves the clock alone.
//!
//! # Rooms
//!
//! The core is built in layers; a module may use the layers below it, never one beside it
//! (`scripts/layers` checks this in the test command; docs/design.md explains it):
//!
//! 1. [`clock`] — thinking-time arithmetic (TO §12–§24); [`model`] — the vocabulary: state,
//!    games, events, mails, outputs, refusals; types only, using `clock`'s `Rest` and
//!    `PlayerClock`.
//! 2. [`view`] — how facts are shown to templates.
//! 3. [`pgn`] — the game record (TO §27/§28).
//! 4. [`door`] — screening, rate limit, and the replies every room sends the same way.
//! 5. The rooms, one per rule area: [`play`] (a player's letter: TO §2–§15, conditional moves
//!    §6/§7, endings §31), [`time`] (deadlines and the digest: TO §16–§21), [`director`] (the
//!    director's commands and leave: TO §21–§26, §30, §31), [`unreachable`](mod@unreachable) (Fax 2.2), [`records`]
//!    (TO §11, §27, §28), `register` (a new tournament). Their tests drive the core through these
//!    entry points and live in the rooms' `tests.rs` files.
//! 6. `route` — one letter to its room; then this module, the entry points.

pub mod clock;
pub mod model;

pub mod pgn;
pub mod view;

pub mod door;

pub mod director;
pub mod needs;
pub mod play;
pub mod records;
mod register;
mod route;
pub mod time;
pub mod unreachable;

use chrono::{DateTime, Utc};

use crate::core::door::ratelimit::limit_answers;
use crate::core::door::reply::copies_per_key;
use crate::core::door::screen::screen;
use crate::core::model::Step;
use crate::core::records::retention::rotate_due;
use crate::core::records::tournament_end::report_ends;
use crate::core::register::{register_tournament, start_mails_of};
use crate::core::route::{answer_letter, register_letter};
use crate::core::time::deadlines::fire_due;
use crate::core::time::overview::{next_weekly, weekly_overviews};
use crate::core::unreachable::alert::alert;
use crate::core::unreachable::bounce::{bounce, bounces_of};
use crate::core::unreachable::undeliverable::undeliverable;
use crate::letter::Letter;

pub use door::reply::id_words;
pub use model::{
    Due, KeyBinding, Meta, NewTournament, Output, Person, Player, Settings, State, Tournament,
};
pub use register::{FAX_GROUP, RegisterError, admit, fax_group_warning, games_of};
pub use route::{
    Account, Reach, Route, Then, classify, keys_needed, reach, running_tournaments_of,
};
pub use unreachable::{Bounce, OperatorAlert, Undelivered};

#[cfg(test)]
pub(crate) mod testkit;

/// The core's entry points, one per input, in the manner of quinn-proto's `Connection`: each
/// takes `now` and the relay's [`Settings`] and returns the complete [`Output`] of that step —
/// one mail per recipient and reply key, the relay's clock (`Meta::acted_until`) moved on — so
/// the shell only persists and sends.
impl State {
    /// Acts on one letter received at `now` (the postmark). Call [`State::tick`] with the same `now`
    /// first, so that what time alone made happen comes before the letter.
    /// A delivery-status report about a relay mail (`Letter::dsn`) is no letter to answer: it
    /// becomes bounce reports to the director (Fax 2.2).
    pub fn handle_letter(&mut self, letter: &Letter, now: DateTime<Utc>, s: &Settings) -> Output {
        self.input = None;
        self.answer(letter, now, s)
    }

    /// [`State::handle_letter`] for a letter read from `raw`, the mail as the archive keeps it:
    /// every event the letter causes is sealed with the mail's SHA-256 (TO §29), and the mail
    /// belongs to each game it changed (`Output::letter_games`, TO §11).
    pub fn handle_mail(
        &mut self,
        letter: &Letter,
        raw: &[u8],
        now: DateTime<Utc>,
        s: &Settings,
    ) -> Output {
        self.input = Some(crate::core::model::MailSeal::of(&letter.message_id, raw));
        let mut out = self.answer(letter, now, s);
        self.input = None;
        out.letter_games.extend(
            out.events
                .iter()
                .filter(|e| e.seal.mail.is_some())
                .map(|e| e.game.clone()),
        );
        out
    }

    fn answer(&mut self, letter: &Letter, now: DateTime<Utc>, s: &Settings) -> Output {
        let out = match bounces_of(self, letter, Step { now, s })
            .or_else(|| screen(self, letter, now, s))
        {
            Some(out) => out,
            None => {
                // A player's other address (`also`, or one the director added) counts as his.
                let registered = self.registered_as(&letter.from).map(|email| Letter {
                    from: email.to_string(),
                    ..letter.clone()
                });
                let letter = registered.as_ref().unwrap_or(letter);
                let mut out = answer_letter(self, letter, now, s);
                limit_answers(self, &mut out, letter, now, s);
                out
            }
        };
        self.complete(out, now)
    }

    /// A tournament file sent by mail (`Turnier anmelden` / `register tournament`, read as
    /// `Content::register`), received at `now`: `checked` is the shell's check of the file (as
    /// `tournament add` checks it). Registered without its `start` mails (the shell queues them
    /// in parts, [`State::start_mails`]) and answered with the table of games, or refused with a
    /// query. A file sent to be checked only (`Turnier prüfen` / `check tournament`,
    /// `Content::check_only`) is answered the same way — its errors or its games — and not
    /// registered. `new_key` supplies fresh random reply keys. The games' first events are not sealed
    /// with the mail (as with `tournament add`): the mail is archived under no game, since it
    /// belongs to all of them.
    pub fn handle_registration(
        &mut self,
        letter: &Letter,
        checked: Result<NewTournament, model::RegisterRefusal>,
        now: DateTime<Utc>,
        s: &Settings,
        new_key: &mut dyn FnMut() -> String,
    ) -> Output {
        self.input = None;
        let out = match bounces_of(self, letter, Step { now, s })
            .or_else(|| screen(self, letter, now, s))
        {
            Some(out) => out,
            None => register_letter(self, letter, checked, Step { now, s }, new_key),
        };
        self.complete(out, now)
    }

    /// Fires every deadline due by `now` (TO §16–§21, the digest), in time order, each once; then
    /// reports the end of each tournament whose last game ended by `now` (TO §27), once; then the
    /// players' weekly overviews due, which show the games as they are at `now`.
    pub fn tick(&mut self, now: DateTime<Utc>, s: &Settings) -> Output {
        // What time alone makes happen came from no mail (even after a step that panicked).
        self.input = None;
        let mut out = fire_due(self, Step { now, s });
        out.absorb(report_ends(self, Step { now, s }));
        out.absorb(weekly_overviews(self, Step { now, s }));
        self.complete(out, now)
    }

    /// When the core next needs a [`State::tick`]: the earliest pending deadline or weekly
    /// overview.
    pub fn next_deadline(&self, s: &Settings) -> Option<DateTime<Utc>> {
        self.earliest_deadline(s)
            .into_iter()
            .chain(next_weekly(self, s))
            .min()
    }

    /// Registers a tournament: creates its games and queues one `start` mail per player per game
    /// (White's asks for the first move). `new_key` supplies fresh random reply keys.
    pub fn register(
        &mut self,
        file: &NewTournament,
        now: DateTime<Utc>,
        s: &Settings,
        new_key: &mut dyn FnMut() -> String,
    ) -> Result<Output, RegisterError> {
        let mut out = register_tournament(self, file, Step { now, s }, new_key)?;
        let games = self.tournaments[&file.id].games.clone();
        out.absorb(start_mails_of(self, &games, Step { now, s }));
        Ok(self.complete(out, now))
    }

    /// [`State::register`] without the `start` mails, for a shell that asks for them in parts
    /// ([`State::start_mails`]) so that a tournament of thousands of games is never rendered at
    /// once.
    pub fn register_without_mails(
        &mut self,
        file: &NewTournament,
        now: DateTime<Utc>,
        s: &Settings,
        new_key: &mut dyn FnMut() -> String,
    ) -> Result<Output, RegisterError> {
        let out = register_tournament(self, file, Step { now, s }, new_key)?;
        Ok(self.complete(out, now))
    }

    /// The `start` mails of the registered games `games`, one per player (White's asks for the
    /// first move), as [`State::register`] queues them.
    pub fn start_mails(
        &mut self,
        games: &[crate::game_ref::GameRef],
        now: DateTime<Utc>,
        s: &Settings,
    ) -> Output {
        let out = start_mails_of(self, games, Step { now, s });
        self.complete(out, now)
    }

    /// Fax 2.2: a delivery-status report says a mail to a player was not delivered; the director
    /// is told, once per mail and recipient.
    pub fn handle_bounce(&mut self, b: &Bounce, now: DateTime<Utc>, s: &Settings) -> Output {
        let out = bounce(self, b, Step { now, s });
        self.complete(out, now)
    }

    /// Fax 2.2: the relay gave up a mail after retrying it for days; the director is told.
    pub fn report_undeliverable(
        &mut self,
        u: &Undelivered,
        now: DateTime<Utc>,
        s: &Settings,
    ) -> Output {
        let out = undeliverable(self, u, Step { now, s });
        self.complete(out, now)
    }

    /// The relay cannot do its work, or can again: the operator's `alert` (`unreachable::alert`).
    pub fn alert(&mut self, a: &OperatorAlert, now: DateTime<Utc>, s: &Settings) -> Output {
        let out = alert(self, a, Step { now, s });
        self.complete(out, now)
    }

    /// Fax 2.8: the tournaments whose archive may be rotated away at `now` (four weeks after
    /// their last game ended), marked as rotated; the shell removes their mails.
    pub fn rotate_archives(&mut self, now: DateTime<Utc>) -> Output {
        rotate_due(self, now)
    }

    /// What every step ends with: each mail split into one copy per reply key (every recipient of
    /// a game mail gets his own, docs/contract.md: private to the game and the recipient), sent
    /// to the address the director gave a player (`Player::send_to`), and the relay's clock moved
    /// to `now` (time never runs backwards).
    fn complete(&mut self, mut out: Output, now: DateTime<Utc>) -> Output {
        out.mails = out
            .mails
            .into_iter()
            .flat_map(|m| copies_per_key(self, m))
            .map(|mut m| {
                let moved = |email: &mut String| {
                    if let Some(a) = self.delivery_address(email) {
                        *email = a.to_string();
                    }
                };
                m.to.iter_mut()
                    .chain(m.cc.iter_mut())
                    .for_each(|r| moved(&mut r.email));
                m.envelope.iter_mut().for_each(moved);
                m
            })
            .collect();
        if self.meta.acted_until.is_none_or(|a| a < now) {
            self.meta.acted_until = Some(now);
        }
        out
    }
}
