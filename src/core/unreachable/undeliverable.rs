//! A mail the relay could not deliver for `[limits] outbox_max_age_days` (temporary failures
//! only: 4xx, no connection) is given up and reported to the director of its game, who can pass
//! it on another way (Fax 2.2/2.3). Permanent refusals (5xx) take the bounce path, not this one.
//!
//! Interpretation, once: the report goes to the director of the game the mail belonged to, as a
//! `bounce-report`. A mail without a game, or one that was itself addressed to that director, is
//! only logged (a report about an unreachable director to the same director would fail too).

use chrono::{DateTime, Utc};

use crate::core::door::reply::director_key;
use crate::core::model::Step;
use crate::core::model::{BounceAround, BounceFacts, Mail, Sentence};
use crate::core::model::{Output, State};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::mail_kind::MailKind;

/// The outbox entry that is given up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undelivered {
    pub message_id: String,
    pub recipient: String,
    pub kind: String,
    pub game: Option<GameRef>,
    pub created: DateTime<Utc>,
    pub attempts: u32,
    pub last_error: Option<String>,
}

/// Reports `u` to the director of its game (see the module text).
pub(crate) fn undeliverable(state: &mut State, u: &Undelivered, at: Step<'_>) -> Output {
    let (now, s) = (at.now, at.s);
    let mut out = Output::default();
    let days = (now - u.created).num_days();
    let line = format!(
        "{} ({}) to {} given up after {days} days and {} attempts (last: {})",
        u.message_id,
        u.kind,
        u.recipient,
        u.attempts,
        u.last_error.as_deref().unwrap_or("-")
    );
    let Some(game) = &u.game else {
        out.log.push(format!("{line}; no game, nobody to tell"));
        return out;
    };
    let Some(t) = state.tournament_of(game) else {
        out.log.push(format!("{line}; unknown game {game}"));
        return out;
    };
    let director = t.director_recipient();
    if director.email == u.recipient {
        out.log
            .push(format!("{line}; it was for the director himself"));
        return out;
    }
    let lang = s.default_lang;
    let created = view::local_minute(u.created, s.tz);
    let err = u.last_error.clone().unwrap_or_else(|| "-".into());
    let mut around = BounceAround::Tournament {
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        now: view::when(now, s.tz),
    };
    let mut fen = None;
    if let Some(gm) = state.games.get(game) {
        around = BounceAround::Game(Box::new(view::game_context(gm, t, None, lang, now, s.tz)));
        fen = Some(gm.fen());
    }
    // The same facts as the report of a refusal (`bounce`), so the one template serves both;
    // the sentence `text` says what happened.
    let data = BounceFacts {
        recipient: director.name.clone(),
        player: t.recipient(&u.recipient).name,
        player_email: u.recipient.clone(),
        kind: Some(u.kind.clone()),
        undelivered_id: u.message_id.clone(),
        error: err.clone(),
        text: None,
        around,
    };
    let reply_key = director_key(state, game);
    let message_id = state.meta.next_message_id(s, "bounce-report");
    out.mails.push(Mail {
        sentences: vec![(
            "text".into(),
            Sentence::GivenUp {
                kind: u.kind.clone(),
                recipient: u.recipient.clone(),
                created,
                days,
                attempts: u.attempts,
                last_error: err.clone(),
                message_id: u.message_id.clone(),
            },
        )],
        game: Some(game.clone()),
        reply_key,
        fen,
        in_reply_to: Some(u.message_id.clone()),
        ..Mail::new(
            MailKind::BounceReport,
            vec![director.clone()],
            lang,
            message_id,
            data,
        )
    });
    out.log
        .push(format!("{line}; reported to {}", director.email));
    out
}
