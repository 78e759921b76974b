//! The pure core (sans-IO, in the manner of quinn-proto): it takes the [`State`], one input — a
//! read [`Letter`](crate::letter::Letter), a tick, a tournament to register — and `now`, and returns
//! what it decided as an [`Output`]: mails to send and events to log. It also says when it next needs a
//! tick ([`State::next_deadline`]). No networking, no store, no clock, no randomness inside: the shell
//! supplies all of them.
//!
//! Files: `state` (the vocabulary of state, settings and output), `game` (one game), `clock` (thinking
//! time, TO §12–§24), `inbound` (a letter from a player: TO §2–§10, §13–§15), `deadlines` (what time
//! alone makes happen: TO §16–§21), `register` (a new tournament), `refusal` (TO §8 queries), `view`
//! (what templates show), `pgn` (TO §27/§28), `mail`, `event`.

pub mod clock;
mod deadlines;
pub mod event;
pub mod game;
mod inbound;
pub mod mail;
pub mod pgn;
pub mod ratelimit;
pub mod refusal;
mod register;
pub mod retention;
pub mod screen;
pub mod state;
mod undeliverable;
pub mod view;

pub use deadlines::Due;
pub use register::RegisterError;
pub use state::{KeyBinding, Meta, Output, Person, Player, Settings, State, Tournament};
pub use undeliverable::Undelivered;

#[cfg(test)]
mod screen_tests;
#[cfg(test)]
mod tests;
