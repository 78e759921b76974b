//! The door of the core: every letter passes here before a room reads it. `screen` decides
//! whether the relay may act on a letter and answer it at all; `ratelimit` caps the answers it
//! causes; `reply` holds what every room sends the same way (the query, the end of a game, a time
//! forfeit notice) and the lookups of a letter's sender, game and language.

pub mod owners;
pub mod ratelimit;
pub mod reply;
pub mod screen;

#[cfg(test)]
mod tests;
