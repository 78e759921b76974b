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
    /// `[security] trusted_authserv_id`, whether or not DMARC is required: whose
    /// `Authentication-Results` may vouch for a stranger, so that he may be answered (no
    /// backscatter, `crate::core::route`).
    #[serde(default)]
    pub trusted_authserv_id: Option<String>,
    /// `[security] require_reply_key`: a letter that changes a game or a tournament counts only
    /// when it reached the relay through the sender's own `relay+KEY@` address.
    #[serde(default)]
    pub require_reply_key: bool,
    /// `[relay] directors`: the addresses that may register a tournament by mail.
    #[serde(default)]
    pub directors: Vec<String>,
}

impl Default for Guard {
    fn default() -> Guard {
        Guard {
            answers_per_day: 10,
            max_mail_bytes: 262_144,
            dmarc_authserv_id: None,
            trusted_authserv_id: None,
            require_reply_key: false,
            directors: Vec::new(),
        }
    }
}
