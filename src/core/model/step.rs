//! [`Step`]: what every rule of one step needs besides the state and the output — the instant it
//! acts at and the relay's settings.

use chrono::{DateTime, Utc};

use crate::core::model::Settings;

/// The instant a rule acts at (the postmark of a letter, the instant a deadline fell due) and the
/// relay's fixed facts.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    pub now: DateTime<Utc>,
    pub s: &'a Settings,
}
