//! The vocabulary of the core: what the relay knows and what one step decides. Types only, no
//! rules: every room of the core (`crate::core`) speaks in these, and none of them imports a room.
//!
//! One type (with its small helpers) per file: [`State`] with [`Meta`] and [`Settings`] in
//! `state`, [`Tournament`] and its [`Player`]s in `tournament`, [`Person`] in `person`,
//! [`Keys`] and each [`KeyBinding`] in `keys`, [`Game`] in `game`, [`SerdeColor`] and
//! [`color_name`] in `colour`, [`Event`], [`Mail`] and its [`Facts`] (in `facts`, one file per
//! group of kinds), [`Output`], the refusals (TO §8) in `refusal`, [`Guard`], [`AnswerDay`],
//! [`ConditionalLine`] (TO §6), [`Seal`] (TO §29: the chain of a game's log), [`People`] (the
//! index of addresses), [`Due`] (TO §16–§21) and [`NewTournament`], the core's own input type
//! for a tournament to register. Beside the types, `stamp`: how a game's record writes the
//! instants of its moves (as chrono's serde does, without its general formatter). A file uses
//! its siblings' types and none uses it back (`scripts/layers`: no circle between the files of a
//! folder): what several need is a file of its own below them.

pub mod answer_day;
pub mod colour;
pub mod conditional_line;
pub mod crosstable;
pub mod decision;
pub mod due;
pub mod event;
pub mod facts;
pub mod game;
pub mod guard;
pub mod keys;
pub mod mail;
pub mod new_tournament;
pub mod outcome;
pub mod output;
pub mod people;
pub mod person;
pub mod question;
pub mod refusal;
pub mod seal;
pub mod stamp;
pub mod state;
pub mod step;
pub mod tournament;

pub use answer_day::AnswerDay;
pub use colour::{SerdeColor, color_name};
pub use conditional_line::ConditionalLine;
pub use crosstable::{Crosstable, Row};
pub use decision::{Decided, Decision};
pub use due::Due;
pub use event::{Event, LeaveHow};
pub use facts::*;
pub use game::{ByColor, Game, GameStatus, MESSAGES_PER_DAY, PlayedMove, Turn};
pub use guard::Guard;
pub use keys::{KeyBinding, Keys};
pub use mail::{Attachment, Enclosure, Mail, Note, Recipient, Sentence, Stated, Told};
pub use new_tournament::{FileFault, FileProblem, NewPlayer, NewTournament, Pairing};
pub use outcome::{EndReason, GameResult, NotAResult};
pub use output::{LoggedEvent, Output};
pub use people::People;
pub use person::Person;
pub use question::{QUESTION_DAYS, Question};
pub use refusal::{
    Act, Command, DirectorRefusal, LeaveRefusal, Refusal, RegisterRefusal, WithdrawRefusal,
};
pub use seal::{MailSeal, Seal};
pub(crate) use state::Parts;
pub use state::{Meta, Settings, State};
pub use step::Step;
pub use tournament::{EndReport, Player, Tournament};
