//! [`Facts`]: what a mail's template shows besides its sentences, typed per mail kind (or family
//! of kinds with the same facts). The render layer serialises them into the template context
//! (`render::facts`), writes the [`Day`], [`When`] and [`Colour`] values in the reader's language
//! and adds the sentences. One file per group: the values (`values`), the game context every game
//! mail embeds (`game`), the door's mails (`door`), a game's course (`play`), time (`time`), the
//! director (`director`) and the records (`records`: the status report, the end of a tournament,
//! help).

use serde::Serialize;

pub mod director;
pub mod door;
pub mod game;
pub mod play;
pub mod records;
pub mod time;
pub mod values;

pub use director::{
    DirectorFacts, LeaveAccount, LeaveFacts, LeaveGame, LeaveReceiptFacts, ToDirectorBody,
    ToDirectorFacts,
};
pub use door::{AlertFacts, BounceAround, BounceFacts, QueryAround, QueryFacts};
pub use game::{ClockFigures, GameContext};
pub use play::{
    AdjudicationFacts, AnnouncementFacts, ForwardFacts, GameEndFacts, MessageBody, MessageFacts,
    PlyFacts, Record, SideRecord, StartFacts, TimeForfeitFacts, WORDS_MAX,
};
pub use records::{
    EndedGame, GameReport, HelpFacts, HelpTournament, OverviewFacts, OverviewGame, StatusFacts,
    TournamentEndFacts, TournamentReport,
};
pub use time::{
    ClockWarningFacts, DigestControl, DigestFacts, DigestGame, DigestLeave, DigestQuestion,
    DigestSilent, ReminderFacts, SilenceFacts, WarningBody,
};
pub use values::{Colour, Day, When};

/// One list makes the [`Facts`] enum and a `From` for each struct, so a kind is added once.
macro_rules! facts {
    ($($(#[$doc:meta])* $variant:ident($ty:ty)),* $(,)?) => {
        /// The facts of one mail, one variant per kind or family (docs/contract.md, the mail
        /// kinds). Serialised without a tag: the template sees the fields of the variant's struct.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(untagged)]
        pub enum Facts {
            $($(#[$doc])* $variant($ty),)*
        }

        $(impl From<$ty> for Facts {
            fn from(f: $ty) -> Facts {
                Facts::$variant(f)
            }
        })*
    };
}

facts!(
    /// `query` (TO §8).
    Query(QueryFacts),
    /// `bounce-report` (Fax 2.2, 2.3).
    Bounce(BounceFacts),
    /// `start` (Fax 1.2).
    Start(StartFacts),
    /// `move` and `receipt` of a move (TO §2–§15).
    Forward(ForwardFacts),
    /// `status` and `receipt` of a long-think announcement (TO §13).
    Announcement(AnnouncementFacts),
    /// `adjudication` (TO §31).
    Adjudication(AdjudicationFacts),
    /// `time-forfeit`, `time-forfeit-2` (TO §18, §21).
    TimeForfeit(TimeForfeitFacts),
    /// `game-end` (TO §27).
    GameEnd(GameEndFacts),
    /// `reminder` (TO §16).
    Reminder(ReminderFacts),
    /// `silence-report` (TO §16).
    Silence(SilenceFacts),
    /// `digest`.
    Digest(DigestFacts),
    /// `leave` (TO §24, §25).
    Leave(LeaveFacts),
    /// `receipt` of a leave (TO §24).
    LeaveReceipt(LeaveReceiptFacts),
    /// `director` (TO §21–§26, §30, §31).
    Director(DirectorFacts),
    /// `status` report (TO §11, §27, §28).
    Status(StatusFacts),
    /// `alert` to the operator.
    Alert(AlertFacts),
    /// `message` and its `receipt` (TO §30).
    Message(MessageFacts),
    /// `clock-warning` (TO §17).
    ClockWarning(ClockWarningFacts),
    /// The `receipt` of words that went to the director (TO §18, §23, §29).
    ToDirector(ToDirectorFacts),
    /// `help`: how to write to the relay.
    Help(HelpFacts),
    /// `overview`: a player's games at this relay.
    Overview(OverviewFacts),
    /// `tournament-end` (TO §27).
    TournamentEnd(TournamentEndFacts),
);

impl Facts {
    /// The game the mail shows, for the reader it was decided for ([`GameContext`]): every
    /// game mail's; `None` for the mails about no game.
    pub fn context(&self) -> Option<&GameContext> {
        match self {
            Facts::Query(f) => match &f.around {
                QueryAround::Game(c) => Some(c),
                QueryAround::Bare { .. } => None,
            },
            Facts::Bounce(f) => match &f.around {
                BounceAround::Game(c) => Some(c),
                BounceAround::Tournament { .. } => None,
            },
            Facts::Start(f) => Some(&f.context),
            Facts::Forward(f) => Some(&f.context),
            Facts::Announcement(f) => Some(&f.context),
            Facts::Adjudication(f) => Some(&f.context),
            Facts::TimeForfeit(f) => Some(&f.context),
            Facts::GameEnd(f) => Some(&f.context),
            Facts::Reminder(f) => Some(&f.context),
            Facts::Silence(f) => Some(&f.context),
            Facts::Message(f) => Some(&f.context),
            Facts::ClockWarning(f) => Some(&f.context),
            Facts::ToDirector(f) => Some(&f.context),
            Facts::Digest(_)
            | Facts::Leave(_)
            | Facts::LeaveReceipt(_)
            | Facts::Director(_)
            | Facts::Status(_)
            | Facts::Alert(_)
            | Facts::Help(_)
            | Facts::Overview(_)
            | Facts::TournamentEnd(_) => None,
        }
    }
}
