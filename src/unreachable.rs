//! The shell's side of Fax 2.2 (players who cannot be reached): an outbox entry the SMTP server
//! refused permanently, and a delivery-status notification about a relay mail, each become a
//! [`Bounce`] for the core (`crate::core::unreachable::bounce`), committed in one store transaction.

use chrono::{DateTime, Utc};

use crate::app::{App, AppError};
use crate::core::{Bounce, Output};
use crate::letter::{Letter, dsn};
use crate::store::{Batch, Direction, OutboxEntry, Tree};

impl App {
    /// Fax 2.2: the SMTP server refused `entry` permanently. The entry leaves the outbox and the
    /// core's report to the director is queued, in one transaction.
    pub fn refused(
        &mut self,
        entry: &OutboxEntry,
        error: &str,
        now: DateTime<Utc>,
    ) -> Result<Output, AppError> {
        let bounce = Bounce {
            message_id: entry.message_id.clone(),
            recipient: entry.recipient.clone(),
            kind: Some(entry.kind.clone()),
            game: entry.game.as_deref().and_then(|g| g.parse().ok()),
            error: error.to_string(),
            text: dsn::mail_text(&entry.raw),
        };
        let before = self.state.clone();
        let out = self.state.handle_bounce(&bounce, now, &self.settings);
        let mut batch = Batch::default();
        batch.delete(Tree::Outbox, entry.id.as_bytes());
        let committed = self
            .stage(&mut batch, &out, now)
            .and_then(|()| self.store.commit(batch).map_err(AppError::from));
        if let Err(e) = committed {
            self.state = before;
            return Err(e);
        }
        Ok(out)
    }

    /// A letter that is a delivery-status notification about a relay mail (RFC 3464) becomes one
    /// bounce per failed recipient; any other letter goes to the core as it is.
    pub(crate) fn letter_or_bounces(
        &mut self,
        letter: &Letter,
        raw: &[u8],
        now: DateTime<Utc>,
    ) -> Output {
        let report = letter.automatic.is_some()
            && letter.from != self.settings.relay_address
            && !letter.from.is_empty();
        if let Some(d) = report.then(|| dsn::read_dsn(raw)).flatten()
            && let Some(original) = d.original_id.clone()
            && !d.failed.is_empty()
        {
            let text = d
                .text
                .clone()
                .or_else(|| self.archived_text(d.game.as_ref(), &original));
            let mut out = Output::default();
            out.log.push(format!(
                "delivery-status report {} from {} about {original}: not answered, reported (Fax 2.2)",
                letter.message_id, letter.from
            ));
            for f in &d.failed {
                let b = Bounce {
                    message_id: original.clone(),
                    recipient: f.recipient.clone(),
                    kind: d.kind.clone(),
                    game: d.game.clone(),
                    error: f.error.clone(),
                    text: text.clone(),
                };
                out.absorb(self.state.handle_bounce(&b, now, &self.settings));
            }
            return out;
        }
        self.state.handle_letter(letter, now, &self.settings)
    }

    /// The text of a mail the relay sent, from the archive of its game.
    fn archived_text(
        &self,
        game: Option<&crate::game_ref::GameRef>,
        message_id: &str,
    ) -> Option<String> {
        let entries = self.store.archive_for_game(&game?.to_string()).ok()?;
        entries
            .iter()
            .find(|e| e.direction == Direction::Out && e.message_id == message_id)
            .and_then(|e| dsn::mail_text(&e.raw))
    }
}
