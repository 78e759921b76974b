//! The pure core (sans-IO, in the manner of quinn-proto): it takes the [`State`], one input — a
//! read [`Letter`](crate::letter::Letter), a tick, a tournament to register — and `now`, and returns
//! what it decided as an [`Output`]: mails to send and events to log. It also says when it next needs a
//! tick ([`State::next_deadline`]). No networking, no store, no clock, no randomness inside: the shell
//! supplies all of them.
//!
//! # Rooms
//!
//! The core is built in layers; a module may use the layers below it, never one beside it
//! (`scripts/layers` checks this in the test command; docs/design.md explains it):
//!
//! 1. [`clock`] — thinking-time arithmetic (TO §12–§24), and [`model`] — the vocabulary: state,
//!    games, events, mails, outputs, refusals. Types only.
//! 2. [`words`] — the sentences of the refusals; [`view`] — how facts are shown to templates;
//!    [`pgn`] — the game record (TO §27/§28).
//! 3. [`door`] — screening, rate limit, and the replies every room sends the same way.
//! 4. The rooms, one per rule area, each with its tests beside it: [`play`] (a player's letter:
//!    TO §2–§15, conditional moves §6/§7, endings §31), [`time`] (deadlines and the digest:
//!    TO §16–§21), [`director`] (the director's commands and leave: TO §21–§26, §30, §31),
//!    [`unreachable`] (Fax 2.2), [`records`] (TO §11, §27, §28), `register` (a new tournament).
//! 5. This module: the entry points, which route one input to its rooms.

pub mod clock;
pub mod model;

pub mod pgn;
pub mod view;
pub mod words;

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
