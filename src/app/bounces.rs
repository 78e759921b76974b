//! The shell's side of Fax 2.2 (players who cannot be reached): an outbox entry the SMTP server
//! refused permanently becomes a [`Bounce`] for the core (`crate::core::unreachable::bounce`),
//! committed in one store transaction; a delivery-status report gets the archived text of the
//! mail it is about, when it did not bring it back.

use chrono::{DateTime, Utc};

use super::{App, AppError, Records};
use crate::core::{Bounce, Output};
use crate::letter::{Letter, dsn};
use crate::store::{Batch, Direction, OutboxEntry};

impl App {
    /// Fax 2.2: the SMTP server refused `entry` permanently. The entry leaves the outbox and the
    /// core's report to the director is queued, in one transaction.
    pub fn refused(
        &mut self,
        entry: &OutboxEntry,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<Output, AppError> {
        // The courier reports entries without their mails: the mail is read from the store.
        let raw = if entry.raw.is_empty() {
            self.store.outbox().raw(&entry.id)?.unwrap_or_default()
        } else {
            entry.raw.clone()
        };
        let bounce = Bounce {
            message_id: entry.message_id.clone(),
            recipient: entry.recipient.clone(),
            kind: Some(entry.kind.clone()),
            game: entry.game.as_deref().and_then(|g| g.parse().ok()),
            error: error.to_string(),
            text: dsn::mail_text(&raw),
        };
        self.working
            .wake_for_entry(&mut self.state, &self.store, entry)?;
        let out = self.state.handle_bounce(&bounce, now, &self.settings);
        let mut batch = Batch::default();
        batch.unqueue(&entry.id);
        super::stage::settle(self, batch, &out, now)?;
        Ok(out)
    }
}

impl Records<'_> {
    /// Fax 2.2: what the relay's archive says of the mail a delivery-status report is about —
    /// whom the relay sent it to (`Dsn::sent_to`, `None` when the relay sent no such mail in the
    /// game the report names) and its text, the relay's own (what a report brings back of it
    /// is not believed). The core decides the rest (`State::handle_letter`): a report counts
    /// only for a mail the relay sent to that recipient.
    pub(crate) fn with_original(&self, letter: &mut Letter) {
        let Some(d) = letter.dsn.as_mut() else {
            return;
        };
        d.text = None;
        d.sent_to = None;
        let (Some(game), Some(original)) = (d.game.as_ref(), d.original_id.as_deref()) else {
            return;
        };
        let Ok(entries) = self.store.archive().for_game(&game.to_string()) else {
            return;
        };
        if let Some(sent) = entries
            .iter()
            .find(|e| e.direction == Direction::Out && e.message_id == original)
        {
            d.sent_to = Some(dsn::recipients_of(&sent.raw));
            d.text = dsn::mail_text(&sent.raw);
        }
    }
}
