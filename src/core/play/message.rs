//! TO §30: correspondence. A player's words reach his partner — with a move (in the `move`
//! mail, written by `play`) or alone, as a `message`; the director may restrict a game to
//! moves. Nothing of the clock changes.

use chrono::{DateTime, Duration, Utc};
use shakmaty::Color;

use crate::core::door::reply::query;
use crate::core::model::{Event, Mail, Refusal};
use crate::core::model::{MESSAGES_PER_DAY, MessageBody, MessageFacts, WORDS_MAX};
use crate::core::model::{Output, State, Step};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::letter::Letter;
use crate::mail_kind::MailKind;

/// `words` as forwarded: at most [`WORDS_MAX`] characters, and whether it was cut.
pub(crate) fn cut_words(words: &str) -> (String, bool) {
    let cut = words.chars().count() > WORDS_MAX;
    (words.chars().take(WORDS_MAX).collect(), cut)
}

/// A letter of `color` in `game_ref` with words and nothing else (`Content::message`): the
/// words go to the partner as a `message`, the writer gets a `receipt` — unless the director
/// restricted the game to moves, or the writer's messages of the last day are used up (a
/// `query` each). In any state of the game, also after its end.
pub(crate) fn message(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    game_ref: &GameRef,
    color: Color,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let Some(t) = state.tournaments.get(&game_ref.tournament) else {
        return;
    };
    let game = &state.games[game_ref];
    let lang = t.lang_of(&letter.from, s.default_lang);
    let refusal = if game.moves_only {
        Some(Refusal::MovesOnly {
            game: game_ref.to_string(),
        })
    } else if sent_today(&game.messages, color, now) >= MESSAGES_PER_DAY {
        Some(Refusal::TooManyMessages {
            game: game_ref.to_string(),
            max: MESSAGES_PER_DAY,
        })
    } else {
        None
    };
    if let Some(r) = refusal {
        query(state, out, letter, Some(game_ref), lang, r, at);
        return;
    }
    let (words, cut) = cut_words(&letter.content.words);
    let writer = t.recipient(&letter.from).name;
    let partner_email = game.players.get(!color).clone();
    let partner = t.recipient(&partner_email).name;
    let awaited = game.status == crate::core::model::GameStatus::Running && game.to_move() == color;
    // TO §16: while a reminder is open, and TO §30: while the game's mail goes through the
    // director, he has a copy of the words as of a move.
    let director_copy = game.through_director || game.turn.reminded.is_some();
    let mut mails = Vec::new();
    for (c, email, kind) in [
        (!color, partner_email, MailKind::Message),
        (color, letter.from.clone(), MailKind::Receipt),
    ] {
        let lang = t.lang_of(&email, s.default_lang);
        let data = MessageFacts {
            context: view::game_context(game, t, Some(c), lang, now, s.tz),
            recipient: t.recipient(&email).name,
            message: MessageBody {
                words: words.clone(),
                by: writer.clone(),
                to: partner.clone(),
                own: c == color,
                cut,
                attachments: letter.attachments.clone(),
                awaited,
                director_copy,
            },
        };
        mails.push((kind, c, email, lang, data));
    }
    for (kind, c, email, lang, data) in mails {
        let message_id = state.meta.next_message_id(s, kind.name());
        let cc = if director_copy && kind == MailKind::Message {
            vec![t.director_recipient()]
        } else {
            Vec::new()
        };
        out.mails.push(Mail {
            cc,
            game: Some(game.id.clone()),
            reply_key: Some(game.keys.get(c).clone()),
            in_reply_to: Some(letter.message_id.clone()),
            ..Mail::new(kind, vec![t.recipient(&email)], lang, message_id, data)
        });
    }
    if let Some(g) = state.games.get_mut(game_ref) {
        g.messages
            .retain(|(_, when)| now - *when < Duration::days(1));
        g.messages.push((color.into(), now));
    }
    state.log_event(
        out,
        game_ref,
        Event::Message {
            at: now,
            by: color.into(),
            message_id: letter.message_id.clone(),
        },
    );
    out.log.push(format!(
        "{game_ref}: words of {} forwarded as a message (TO §30)",
        letter.from
    ));
}

/// How many `message` mails of `color` were forwarded in the day before `now`.
fn sent_today(
    messages: &[(crate::core::model::SerdeColor, DateTime<Utc>)],
    color: Color,
    now: DateTime<Utc>,
) -> usize {
    messages
        .iter()
        .filter(|(by, when)| Color::from(*by) == color && now - *when < Duration::days(1))
        .count()
}
