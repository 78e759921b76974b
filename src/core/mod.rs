//! The pure core (sans-IO, in the manner of quinn-proto): it takes the [`State`], one input and
//! `now`, and returns what it decided as an [`Output`]: mails to send, events to log, the records it
//! touched, the log lines. What a mail says is decided as values ([`model::Sentence`]); its words
//! are written by the render layer (`crate::render::words`). No networking, no store, no clock, no randomness inside: the shell supplies
//! all of them.
//!
//! The inputs, each a method of [`State`]: a read letter ([`State::handle_letter`], here), time
//! passing ([`State::tick`], with [`State::next_deadline`] saying when it is next needed; in
//! `time`), a tournament to register ([`State::register`], in `register`), a delivery-status report
//! ([`State::handle_bounce`]) and a mail the SMTP server refused ([`State::report_undeliverable`],
//! both in `unreachable`).
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
//!    director's commands and leave: TO §21–§26, §30, §31), [`unreachable`] (Fax 2.2), [`records`]
//!    (TO §11, §27, §28), `register` (a new tournament). Their tests drive the core through these
//!    entry points and live in the rooms' `tests.rs` files.
//! 6. `route` — one letter to its room; then this module's [`State::handle_letter`].

pub mod clock;
pub mod model;

pub mod pgn;
pub mod view;

pub mod door;

pub mod director;
pub mod play;
pub mod records;
mod register;
mod route;
pub mod time;
pub mod unreachable;

pub use model::{
    Due, KeyBinding, Meta, NewTournament, Output, Person, Player, Settings, State, Tournament,
};
pub use register::RegisterError;
pub use unreachable::{Bounce, Undelivered};

#[cfg(test)]
pub(crate) mod testkit;

impl State {
    /// Acts on one letter received at `now` (the postmark). Call [`State::tick`] with the same `now`
    /// first, so that what time alone made happen comes before the letter.
    pub fn handle_letter(
        &mut self,
        letter: &crate::letter::Letter,
        now: chrono::DateTime<chrono::Utc>,
        s: &Settings,
    ) -> Output {
        if let Some(out) = self.screen(letter, now, s) {
            return out;
        }
        let mut out = self.answer_letter(letter, now, s);
        self.limit_answers(&mut out, letter, now, s);
        out
    }
}
