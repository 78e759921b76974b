//! [`Question`]: the director's question to a player about his games (TO §23), with the reply
//! key his answer comes back through.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

/// TO §23: how long a question may stay unanswered before the director is told.
pub const QUESTION_DAYS: i64 = 14;

/// One question of the director to a player (TO §23). It is answered by the player's reply
/// through its own key; unanswered after [`QUESTION_DAYS`] days, the director is told once.
///
/// ```
/// use chrono::{TimeZone, Utc};
/// use fernzug::core::model::Question;
/// let asked = Utc.with_ymd_and_hms(2027, 1, 4, 9, 0, 0).unwrap();
/// let q = Question {
///     key: "k".into(),
///     player: "anna@x.de".into(),
///     text: "Wie steht es?".into(),
///     asked,
///     message_id: "m@x".into(),
///     answered: None,
///     reported: false,
/// };
/// assert_eq!(q.due(), Some(Utc.with_ymd_and_hms(2027, 1, 18, 9, 0, 0).unwrap()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Question {
    /// The reply key (`relay+KEY@…`) the player's answer comes back through.
    pub key: String,
    /// The player asked (his registered address).
    pub player: String,
    /// The director's words.
    pub text: String,
    /// When the relay sent it.
    pub asked: DateTime<Utc>,
    /// The director's mail that asked it.
    pub message_id: String,
    /// When the player answered.
    pub answered: Option<DateTime<Utc>>,
    /// The director was told that it is unanswered.
    pub reported: bool,
}

impl Question {
    /// When the director is to be told that it is unanswered; `None` once answered or told.
    pub fn due(&self) -> Option<DateTime<Utc>> {
        (self.answered.is_none() && !self.reported)
            .then(|| self.asked + Duration::days(QUESTION_DAYS))
    }

    /// Whether it still waits for an answer.
    pub fn open(&self) -> bool {
        self.answered.is_none()
    }
}
