//! [`AnswerDay`]: the automatic answers to one address on one day (`crate::core::door::ratelimit`).

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

/// Answers to one address on one day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerDay {
    pub day: NaiveDate,
    pub count: u32,
    /// The "no more today" notice went out.
    pub notice: bool,
}
