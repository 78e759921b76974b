//! The tests that need no mail server, one binary: the letter corpus with its expected readings
//! and the core's answers (`letter_fixtures`), and every mail text as a snapshot (`mail_texts`).

#[path = "../shared/quiet_walk.rs"]
mod quiet_walk;

mod letter_fixtures;
mod mail_texts;
mod man_page;
mod phrases;
mod real_games;
mod replies;
