//! The operator's alert: the relay itself cannot reach its mailbox or its SMTP server, or a
//! mail has waited in the outbox too long (`[relay] operator`, `alert_minutes`;
//! docs/operating.md). The shell notices the outage (`crate::vitals`); the core writes the mail:
//! one `alert` when an outage begins to count, one when it is over, to the operator only — no
//! game, no reply key, in the relay's language.

use chrono::{DateTime, Utc};

use crate::core::model::{AlertFacts, Mail, Output, Recipient, State, Step};
use crate::core::view;
use crate::mail_kind::MailKind;

/// An outage to tell the operator of.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperatorAlert {
    /// The operator's address.
    pub operator: String,
    /// What fails: `imap`, `smtp` or `outbox`.
    pub concern: String,
    /// Since when.
    pub since: DateTime<Utc>,
    /// Until when, once it works again; `None` while it fails.
    pub until: Option<DateTime<Utc>>,
    /// The last error, or what waits.
    pub detail: String,
}

/// The `alert` mail of `a`.
/// The outage is marked told (or, once over, its mark removed) in the same output, so that it
/// is told once across restarts; an outage told already is not told again.
pub(crate) fn alert(state: &mut State, a: &OperatorAlert, at: Step<'_>) -> Output {
    let (now, s) = (at.now, at.s);
    let mut out = Output::default();
    let told = &mut state.meta.outages_told;
    match a.until {
        None if told.get(&a.concern) == Some(&a.since) => return out,
        None => {
            told.insert(a.concern.clone(), a.since);
        }
        Some(_) => {
            told.remove(&a.concern);
        }
    }
    let data = AlertFacts {
        relay: s.relay_address.clone(),
        concern: a.concern.clone(),
        since: view::when(a.since, s.tz),
        until: a.until.map(|u| view::when(u, s.tz)),
        minutes: (a.until.unwrap_or(now) - a.since).num_minutes().max(0),
        detail: a.detail.clone(),
        now: view::when(now, s.tz),
    };
    let message_id = state.meta.next_message_id(s, "alert");
    let to = Recipient {
        name: a.operator.clone(),
        email: a.operator.clone(),
    };
    out.mails.push(Mail::new(
        MailKind::Alert,
        vec![to],
        s.default_lang,
        message_id,
        data,
    ));
    out.log.push(match a.until {
        None => format!(
            "alert to {}: {} failing since {} ({})",
            a.operator, a.concern, a.since, a.detail
        ),
        Some(u) => format!(
            "alert to {}: {} works again ({} to {})",
            a.operator, a.concern, a.since, u
        ),
    });
    out
}
