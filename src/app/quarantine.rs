//! The mails kept in quarantine, as the operator handles them (`fernzug quarantine list | retry
//! ID | drop ID`): a mail whose step failed (unreadable, a failure of the core or of rendering,
//! one the relay died in twice) or that was not believed (no DMARC pass) is kept with its reason
//! (`step.rs`). `retry` runs it through the step of a fetched mail once more, its postmark the
//! time it was received; `drop` lets it go.

use chrono::{DateTime, Utc};

use super::step::{Again, Arrival, process_mail};
use super::{App, AppError, Processed};
use crate::store::{Batch, QuarantineEntry};

/// One line of the list: what the operator needs to decide about a quarantined mail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Its name for `retry` and `drop` ([`QuarantineEntry::id`]).
    pub id: String,
    /// When it was received (the postmark its step had).
    pub at: DateTime<Utc>,
    /// The address its `From:` names, cleaned (`None`: it names none).
    pub sender: Option<String>,
    /// Its subject, cleaned.
    pub subject: Option<String>,
    /// Why it is kept.
    pub why: String,
}

impl Listed {
    fn of(entry: &QuarantineEntry) -> Listed {
        let (sender, subject) = crate::letter::headers::sender_and_subject(&entry.raw);
        Listed {
            id: entry.id(),
            at: entry.at,
            sender,
            subject,
            why: entry.reason.clone(),
        }
    }
}

/// Every mail in quarantine, in the order of their ids (UIDVALIDITY, UID).
pub fn list(app: &App) -> Result<Vec<Listed>, AppError> {
    Ok(app.store.quarantined()?.iter().map(Listed::of).collect())
}

/// The quarantined mail named `id` ([`QuarantineEntry::id`]), if there is one.
pub fn find(app: &App, id: &str) -> Result<Option<QuarantineEntry>, AppError> {
    let id = id.trim();
    Ok(app.store.quarantined()?.into_iter().find(|e| e.id() == id))
}

/// Runs the quarantined mail `entry` (one from the mailbox: [`QuarantineEntry::from_mailbox`])
/// through the step of a fetched mail, its postmark the time it was received: the deadlines due
/// by then first, the letter read, decided and answered, and the entry removed — all in that
/// step's transaction. Should it fail again, it stays under its id with the new reason
/// ([`Processed::Quarantined`]); a copy of it processed meanwhile makes it a
/// [`Processed::Duplicate`], and it leaves the quarantine.
pub fn retry(app: &mut App, entry: &QuarantineEntry) -> Result<Processed, AppError> {
    // The quarantine of a mail the core or rendering failed on marked its Message-ID processed
    // at its postmark (`step::quarantine_into`); a mark of another time is another copy's.
    let own_mark = match &entry.message_id {
        Some(id) => app.store.processed_at(id)? == Some(entry.at),
        None => false,
    };
    let arrival = Arrival {
        raw: &entry.raw,
        postmark: entry.at,
        uid: entry
            .from_mailbox()
            .then_some((entry.uidvalidity, entry.uid)),
        oversized: None,
        call: None,
        again: Some(Again { entry, own_mark }),
    };
    process_mail(app, arrival)
}

/// Lets the quarantined mail `entry` go: it leaves the quarantine, and stays done (it is not
/// read again from the mailbox).
pub fn drop(app: &mut App, entry: &QuarantineEntry) -> Result<(), AppError> {
    let mut batch = Batch::default();
    batch.unquarantine(entry);
    super::stage::commit(app, batch)?;
    Ok(())
}
