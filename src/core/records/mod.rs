//! The records of a tournament (TO §11, §27, §28, Fax 2.8): the crosstable with points and
//! Sonneborn-Berger, the answer to a `Status` mail, the report of a tournament's end, and what may
//! be rotated out of the archive.

pub mod crosstable;
pub mod help;
pub mod retention;
pub mod status;
pub mod tournament_end;

#[cfg(test)]
mod end_tests;
#[cfg(test)]
mod tests;
