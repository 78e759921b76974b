//! [`Guard`]: what the relay believes and how much it answers (from `[limits]` and `[security]`).

use serde::{Deserialize, Serialize};

/// What the relay believes and how much it answers (from `[limits]` and `[security]`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Guard {
    /// `[limits] auto_answers_per_day`: automatic answers to one address per calendar day.
    pub answers_per_day: u32,
    /// `[limits] max_mail_bytes`, for the too-large query.
    pub max_mail_bytes: u64,
    /// `[security] trusted_authserv_id` when `require_dmarc_pass = true`; `None`: not required.
    pub dmarc_authserv_id: Option<String>,
}

impl Default for Guard {
    fn default() -> Guard {
        Guard {
            answers_per_day: 10,
            max_mail_bytes: 262_144,
            dmarc_authserv_id: None,
        }
    }
}
