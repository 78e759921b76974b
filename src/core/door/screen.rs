//! The door of the core: every letter passes `screen` (called by
//! [`State::handle_letter`]), which decides whether the relay may act on it and answer it at all,
//! before `crate::core::route` hands it to a room and before `ratelimit` caps the answers it causes.
//!
//! In order:
//! 1. RFC 3834: an automatic mail (the reader's `letter.automatic`: `Auto-Submitted` other than
//!    `no`, `X-Autoreply`, `X-Autorespond`, `Precedence: bulk|junk|list|auto_reply`, `List-Id`,
//!    an empty return path, mailer-daemon or postmaster, delivery-status and disposition reports)
//!    is never answered.
//! 2. Our own mail — from the relay address, or carrying our `X-Loop: <relay address>` (every
//!    mail the relay sends has it) — is ignored: a loop through a forwarding player ends here.
//! 3. `[security] require_dmarc_pass`: without `dmarc=pass` for the From domain in the topmost
//!    `Authentication-Results` of the operator's own server (`trusted_authserv_id`), nothing is
//!    done and NOTHING is answered — the answer would go to the address the forger wrote, i.e.
//!    to the real player (or a victim of backscatter). The mail goes to quarantine, so the
//!    operator sees it (`fernzug status`, the log). Interpretation, once: docs/security.md.
//! 4. A mail over `[limits] max_mail_bytes` (only its header was fetched) from a registered
//!    player or director gets a query saying it was too large; from anyone else it is treated
//!    as any stranger's mail.

use chrono::{DateTime, Utc};

use crate::core::door::ratelimit::limit_answers;
use crate::core::door::reply::{lang_for, query};
use crate::core::model::Refusal;
use crate::core::model::Step;
use crate::core::model::{Output, Settings, State};
use crate::letter::Letter;
use crate::letter::auth::{DmarcVerdict, dmarc_verdict};

/// Screens one letter received at `now` (the postmark): `Some` with what was done instead when
/// the relay must not act on it as a player's or director's letter, `None` when it may.
pub(crate) fn screen(
    state: &mut State,
    letter: &Letter,
    now: DateTime<Utc>,
    s: &Settings,
) -> Option<Output> {
    let mut out = Output::default();
    if let Some(reason) = &letter.automatic {
        out.log.push(format!(
            "automatic mail {} from {} ({reason:?}): not answered",
            letter.message_id, letter.from
        ));
        return Some(out);
    }
    if letter.from == s.relay_address || letter.trace.loops_through(&s.relay_address) {
        out.log.push(format!(
            "mail {} from {} is the relay's own (From or X-Loop): ignored",
            letter.message_id, letter.from
        ));
        return Some(out);
    }
    if let Some(id) = &s.guard.dmarc_authserv_id {
        let verdict = dmarc_verdict(&letter.trace, id, &letter.from);
        if verdict != DmarcVerdict::Pass {
            let why = match verdict {
                DmarcVerdict::Missing => format!("no Authentication-Results of {id}"),
                DmarcVerdict::NotPass(r) => format!("{id} says {r}"),
                DmarcVerdict::Pass => String::new(),
            };
            let reason = format!(
                "not authenticated: no dmarc=pass for {} ({why}); not acted on, not answered",
                letter.from
            );
            out.log
                .push(format!("mail {}: {reason}", letter.message_id));
            out.quarantine = Some(reason);
            return Some(out);
        }
    }
    if let Some(size) = letter.trace.oversized
        && state.knows(&letter.from)
    {
        let game = letter
            .game_ref
            .as_ref()
            .filter(|g| state.color_in(g, &letter.from).is_some())
            .cloned();
        let lang = lang_for(state, &letter.from, None, s);
        let r = Refusal::TooLarge {
            size,
            limit: s.guard.max_mail_bytes,
        };
        query(
            state,
            &mut out,
            letter,
            game.as_ref(),
            lang,
            r,
            Step { now, s },
        );
        limit_answers(state, &mut out, letter, now, s);
        return Some(out);
    }
    None
}
