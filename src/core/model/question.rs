//! [`Question`]: the director's question to a player about his games (TO §23), with the reply
//! key his answer comes back through.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use serde::{Deserialize, Serialize};

use crate::core::clock::Rest;

/// TO §23: how long a question may stay unanswered before the director is told: days the
/// player is not on leave (TO §24: every term rests during leave).
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
/// let tz = chrono_tz::Europe::Berlin;
/// assert_eq!(q.due(&[], tz), Some(Utc.with_ymd_and_hms(2027, 1, 18, 9, 0, 0).unwrap()));
/// // Three days of leave within the fortnight: three days later (TO §24).
/// let leave = fernzug::core::clock::Rest {
///     from: chrono::NaiveDate::from_ymd_opt(2027, 1, 10).unwrap(),
///     to: chrono::NaiveDate::from_ymd_opt(2027, 1, 12).unwrap(),
/// };
/// assert_eq!(q.due(&[leave], tz), Some(Utc.with_ymd_and_hms(2027, 1, 21, 9, 0, 0).unwrap()));
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
    /// When the director is to be told that it is unanswered; `None` once answered or told:
    /// [`QUESTION_DAYS`] days after it was asked that the player was not on leave (`rest`, his
    /// leaves and special leaves, local days in `tz`), at the hour it was asked.
    pub fn due(&self, rest: &[Rest], tz: Tz) -> Option<DateTime<Utc>> {
        if self.answered.is_some() || self.reported {
            return None;
        }
        let on_leave = |d: NaiveDate| rest.iter().any(|r| r.from <= d && d <= r.to);
        let mut day = self.asked.with_timezone(&tz).date_naive();
        let (mut counted, mut rested) = (0, 0);
        // Leave is bounded (TO §24: 42 days a year and special leave): so is this walk.
        while counted < QUESTION_DAYS && rested < 3660 {
            day = day.succ_opt()?;
            if on_leave(day) {
                rested += 1;
            } else {
                counted += 1;
            }
        }
        Some(self.asked + Duration::days(QUESTION_DAYS + rested))
    }

    /// Whether it still waits for an answer.
    pub fn open(&self) -> bool {
        self.answered.is_none()
    }
}
