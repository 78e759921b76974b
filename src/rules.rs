//! [`RuleSet`]: which time control a tournament plays under (TO §12 or Fax 1.4).

use serde::{Deserialize, Serialize};

/// The rule set of a tournament.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleSet {
    /// TO as written: 30 days per 10 moves, calendar days (TO §12).
    Post,
    /// TO with Fax 1.2–1.5: 40 days per 10 moves, 24-hour rule (Fax 1.4).
    Fax,
}

impl RuleSet {
    /// Days allowed per period of 10 moves (TO §12, Fax 1.4).
    pub fn days_per_period(self) -> u32 {
        match self {
            RuleSet::Post => 30,
            RuleSet::Fax => 40,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            RuleSet::Post => "post",
            RuleSet::Fax => "fax",
        }
    }
}
