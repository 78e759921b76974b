//! The pure core (sans-IO, in the manner of quinn-proto): it takes the [`State`], one input — a
//! read [`Letter`](crate::letter::Letter), a tick, a tournament to register — and `now`, and returns
//! what it decided as an [`Output`]: mails to send and events to log. It also says when it next needs a
//! tick ([`State::next_deadline`]). No networking, no store, no clock, no randomness inside: the shell
//! supplies all of them.
//!
//! Files: `state` (the vocabulary of state, settings and output), `game` (one game), `clock` (thinking
//! time, TO §12–§24), `inbound` (a letter from a player: TO §2–§10, §13–§15), `deadlines` (what time
//! alone makes happen: TO §16–§21), `register` (a new tournament), `refusal` (TO §8 queries), `view`
//! (what templates show), `pgn` (TO §27/§28), `mail`, `event`, `conditional` (TO §6/§7:
//! Eventualzüge), `endings` (TO §31: FIDE endings, the repetition claim, the 50-move stop),
//! `crosstable` (points, Sonneborn-Berger), `status` (the answer to a `Status` mail),
//! `leave` (TO §24/§25), `director` (the director's commands by mail, TO §21–§26, §30,
//! §31), `bounce` (unreachable players, Fax 2.2), `digest` (the weekly director digest).

pub mod bounce;
pub mod clock;
pub mod conditional;
pub mod crosstable;
mod deadlines;
pub mod digest;
pub mod director;
mod endings;
pub mod event;
pub mod game;
mod inbound;
pub mod leave;
pub mod mail;
pub mod pgn;
pub mod ratelimit;
#[cfg(test)]
mod records_tests;
pub mod refusal;
mod register;
pub mod retention;
pub mod screen;
pub mod state;
pub mod status;
mod undeliverable;
pub mod view;

pub use bounce::Bounce;
pub use deadlines::Due;
pub use register::RegisterError;
pub use state::{KeyBinding, Meta, Output, Person, Player, Settings, State, Tournament};
pub use undeliverable::Undelivered;

#[cfg(test)]
mod deadline_props;
#[cfg(test)]
mod screen_tests;
#[cfg(test)]
mod testkit;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_endings;

#[cfg(test)]
mod director_tests;
