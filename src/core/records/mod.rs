//! The records of a tournament (TO §11, §27, §28, Fax 2.8): the crosstable with points and
//! Sonneborn-Berger, the answer to a `Status` mail, and what may be rotated out of the archive.

pub mod crosstable;
pub mod help;
pub mod retention;
pub mod status;

#[cfg(test)]
mod tests;
