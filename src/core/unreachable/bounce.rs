//! Players who cannot be reached (Fax 2.2): a relay mail to a player that came back undelivered —
//! refused permanently by the SMTP server, or reported failed by a delivery-status notification
//! (RFC 3464) — goes to the director as a `bounce-report`, with the undelivered text, and the
//! director decides the time used by command (`crate::core::director`).
//!
//! Fixed here, once:
//!
//! * **Nothing is lost.** A bounce changes no game: the move counts as forwarded at the instant the
//!   relay sent it (TO §24's "received" is the relay's forward), and the clocks run as they did.
//! * **Exactly once.** One report per undelivered mail and recipient (`Meta::bounces_reported`),
//!   however many ways the failure is learnt (SMTP refusal, then a DSN; a DSN sent twice).
//! * **No loops.** A bounce is never answered. Only mails to a *player* are reported: a director's
//!   or a stranger's address that refuses mail is logged, nothing is sent (a report about a report
//!   could never arrive either).

use crate::core::door::reply::director_key;
use crate::core::model::Event;
use crate::core::model::Mail;
use crate::core::model::Step;
use crate::core::model::{BounceAround, BounceFacts};
use crate::core::model::{Output, State};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::letter::Letter;
use crate::letter::auth::{DmarcVerdict, dmarc_verdict};
use crate::mail_kind::MailKind;

/// How much of the undelivered mail's text the report repeats (the relay's own mail).
const MAX_TEXT_CHARS: usize = 8000;

/// How much of what a delivery-status report says (its status and diagnostic) the report to the
/// director repeats: the rest is another server's text, not the relay's (docs/security.md).
pub const MAX_QUOTED_CHARS: usize = 500;

/// An undelivered relay mail, as the shell learnt it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bounce {
    /// The Message-ID (without brackets) of the relay's mail that was not delivered.
    pub message_id: String,
    /// The recipient that could not be reached.
    pub recipient: String,
    /// `X-Fernzug-Kind` of the undelivered mail, if known.
    pub kind: Option<String>,
    /// The game of the undelivered mail, if known.
    pub game: Option<GameRef>,
    /// The server's words (SMTP reply or DSN status and diagnostic).
    pub error: String,
    /// The text of the undelivered mail, if known.
    pub text: Option<String>,
}

/// Fax 2.2: reports an undelivered mail to a player to the director(s), once.
pub(crate) fn bounce(state: &mut State, b: &Bounce, at: Step<'_>) -> Output {
    let (now, s) = (at.now, at.s);
    let mut out = Output::default();
    let recipient = b.recipient.trim().to_lowercase();
    let key = format!("{}|{recipient}", b.message_id);
    if state.meta.bounces_reported.contains(&key) {
        out.log.push(format!(
            "bounce of {} to {recipient}: already reported, not again",
            b.message_id
        ));
        return out;
    }
    // The tournaments to report to: the game's, else every one the recipient plays in.
    let game = b
        .game
        .clone()
        .filter(|g| state.color_in(g, &recipient).is_some());
    let tournaments: Vec<String> = match &game {
        Some(g) => vec![g.tournament.clone()],
        None => state
            .tournaments_with(&recipient)
            .filter(|t| t.player(&recipient).is_some())
            .map(|t| t.id.clone())
            .collect(),
    };
    if tournaments.is_empty() {
        out.log.push(format!(
            "bounce of {} to {recipient} ({}): not a player, not reported (Fax 2.2)",
            b.message_id, b.error
        ));
        return out;
    }
    state.meta.bounces_reported.insert(key);
    if let Some(g) = &game {
        out.letter_games.insert(g.clone());
        state.log_event(
            &mut out,
            g,
            Event::Bounced {
                at: now,
                recipient: recipient.clone(),
                message_id: b.message_id.clone(),
                error: b.error.clone(),
            },
        );
    }
    let text: Option<String> = b
        .text
        .as_ref()
        .map(|t| t.chars().take(MAX_TEXT_CHARS).collect());
    let mut directors: Vec<String> = Vec::new();
    for tid in tournaments {
        let Some(t) = state.tournaments.get(&tid) else {
            continue;
        };
        if directors.contains(&t.director.email) {
            continue;
        }
        directors.push(t.director.email.clone());
        let lang = s.default_lang;
        let player = t.recipient(&recipient);
        let mut around = BounceAround::Tournament {
            tournament_id: t.id.clone(),
            tournament: t.name.clone(),
            now: view::when(now, s.tz),
        };
        let mut fen = None;
        if let Some(g) = &game
            && let Some(gm) = state.games.get(g)
        {
            around = BounceAround::Game(Box::new(view::game_context(gm, t, None, lang, now, s.tz)));
            fen = Some(gm.fen());
        }
        let data = BounceFacts {
            recipient: t.director.name.clone(),
            player: player.name,
            player_email: player.email,
            kind: b.kind.clone(),
            undelivered_id: b.message_id.clone(),
            error: b.error.clone(),
            text: text.clone(),
            around,
        };
        let reply_key = game.as_ref().and_then(|g| director_key(state, g));
        let message_id = state.meta.next_message_id(s, "bounce-report");
        out.mails.push(Mail {
            game: game.clone(),
            reply_key,
            fen,
            in_reply_to: Some(b.message_id.clone()),
            ..Mail::new(
                MailKind::BounceReport,
                vec![t.director_recipient()],
                lang,
                message_id,
                data,
            )
        });
        out.log.push(format!(
            "bounce of {} ({}) to {recipient} reported to {} (Fax 2.2): {}",
            b.message_id,
            b.kind.as_deref().unwrap_or("?"),
            t.director.email,
            b.error
        ));
    }
    out
}

/// Fax 2.2: a letter that is a delivery-status report about a relay mail (RFC 3464, read by
/// `crate::letter::dsn`) becomes one bounce per failed recipient the relay sent that mail to;
/// `None` for any other letter. A report from the relay itself, or with an empty sender, is not
/// one. Only a mail the relay sent counts (`Dsn::sent_to`, from the relay's archive): a report
/// about any other — forged, or about a mail of someone else's — is dropped without an answer,
/// and of what a report says the director is shown at most [`MAX_QUOTED_CHARS`].
pub(crate) fn bounces_of(state: &mut State, letter: &Letter, at: Step<'_>) -> Option<Output> {
    let s = at.s;
    let d = letter.dsn.as_ref()?;
    let original = d.original_id.clone()?;
    if letter.automatic.is_none()
        || letter.from == s.relay_address
        || letter.from.is_empty()
        || d.failed.is_empty()
    {
        return None;
    }
    // Screened like any mail: under `[security] require_dmarc_pass` a report the operator's
    // server does not vouch for is not believed (the screen logs it, unanswered).
    if let Some(id) = &s.guard.dmarc_authserv_id
        && dmarc_verdict(&letter.trace, id, &letter.from) != DmarcVerdict::Pass
    {
        return None;
    }
    let mut out = Output::default();
    let sent_to = d.sent_to.as_deref().unwrap_or_default();
    let (ours, others): (Vec<_>, Vec<_>) = d
        .failed
        .iter()
        .partition(|f| sent_to.contains(&f.recipient));
    if ours.is_empty() {
        out.log.push(format!(
            "delivery-status report {} from {} about {original}: not about a mail the relay \
             sent to {}; dropped, not answered",
            letter.message_id,
            letter.from,
            others
                .iter()
                .map(|f| f.recipient.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
        return Some(out);
    }
    out.log.push(format!(
        "delivery-status report {} from {} about {original}: not answered, reported (Fax 2.2)",
        letter.message_id, letter.from
    ));
    for f in others {
        out.log.push(format!(
            "delivery-status report {} names {}, to whom the relay did not send {original}: \
             not reported",
            letter.message_id, f.recipient
        ));
    }
    for f in ours {
        let b = Bounce {
            message_id: original.clone(),
            recipient: f.recipient.clone(),
            kind: d.kind.clone(),
            game: d.game.clone(),
            error: f.error.chars().take(MAX_QUOTED_CHARS).collect(),
            text: d.text.clone(),
        };
        out.absorb(bounce(state, &b, at));
    }
    Some(out)
}
