//! `Hilfe` / `help`: a player (or a director) asks how to write to the relay, and gets the forms
//! by mail — each thing a player can write with one example, in his language, following the
//! operator's configuration (under `[security] require_reply_key` only answers to the relay's
//! mails count), whom to ask (his directors), and, for a director, every command of his. Nothing
//! is forwarded; no game changes.

use crate::core::door::reply::lang_for;
use crate::core::model::{
    HelpFacts, HelpTournament, Mail, Output, Recipient, Sentence, State, Step,
};
use crate::letter::Letter;
use crate::mail_kind::MailKind;

/// Answers `Hilfe` with the `help` mail to the sender.
pub(crate) fn help(state: &mut State, out: &mut Output, letter: &Letter, at: Step<'_>) {
    let s = at.s;
    let lang = lang_for(state, &letter.from, None, s);
    let tournaments: Vec<HelpTournament> = state
        .tournaments_with(&letter.from)
        .filter(|t| !t.rotated)
        .map(|t| HelpTournament {
            id: t.id.clone(),
            name: t.name.clone(),
            director: t.director.name.clone(),
            director_email: t.director.email.clone(),
        })
        .collect();
    let directs = state
        .tournaments_with(&letter.from)
        .any(|t| t.director.email == letter.from);
    let name = state
        .tournaments_with(&letter.from)
        .find_map(|t| t.player(&letter.from).map(|p| p.name.clone()))
        .or_else(|| {
            state
                .tournaments_with(&letter.from)
                .find(|t| t.director.email == letter.from)
                .map(|t| t.director.name.clone())
        })
        .unwrap_or_else(|| letter.from.clone());
    let data = HelpFacts {
        recipient: name.clone(),
        directs,
        through_key: s.guard.require_reply_key,
        tournaments,
    };
    let mut sentences = Vec::new();
    if directs {
        sentences.push(("director_forms".into(), Sentence::DirectorForms));
    }
    out.log.push(format!(
        "help for {} (the forms by mail; nothing forwarded)",
        letter.from
    ));
    let message_id = state.meta.next_message_id(s, MailKind::Help.name());
    out.mails.push(Mail {
        sentences,
        in_reply_to: Some(letter.message_id.clone()),
        ..Mail::new(
            MailKind::Help,
            vec![Recipient {
                name,
                email: letter.from.clone(),
            }],
            lang,
            message_id,
            data,
        )
    });
}
