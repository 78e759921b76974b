//! The tests that need no mail server, one binary: the letter corpus with its expected readings
//! and the core's answers (`letter_fixtures`), and every mail text as a snapshot (`mail_texts`),
//! and the size of the report of a tournament's end (`tournament_end`).

#[path = "../shared/quiet_walk.rs"]
mod quiet_walk;

mod letter_fixtures;
mod mail_texts;
mod man_page;
mod phrases;
mod real_games;
mod replies;
mod tournament_end;
