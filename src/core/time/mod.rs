//! What time alone makes happen (TO §16–§21): the deadlines of every game — reminder, silence
//! report, time forfeit — fired in time order by [`State::tick`](crate::core::State::tick), and the
//! weekly director digest, and the players' overview (on request, and weekly for those who ask).

pub mod deadlines;
pub mod digest;
pub mod overview;
pub mod questions;

#[cfg(test)]
mod props;
