//! TO §23: a director's question the player left unanswered for 14 days (not counting his days
//! of leave, TO §24: every term rests): the director is told
//! once (a `director` mail), and the weekly digest lists it while it is open
//! (`crate::core::time::digest`). The question itself is asked and answered in
//! `crate::core::director::desk`.

use crate::core::model::{DirectorFacts, Mail, Step, Told};
use crate::core::model::{Output, QUESTION_DAYS, State};
use crate::core::view;

/// Every question of tournament `tid` unanswered for [`QUESTION_DAYS`] days by `now` is reported
/// to the director, once.
pub(crate) fn fire_questions(state: &mut State, out: &mut Output, tid: &str, at: Step<'_>) {
    let (now, s) = (at.now, at.s);
    let Some(t) = state.tournaments.get_mut(tid) else {
        return;
    };
    let mut due = Vec::new();
    let rests: Vec<Vec<crate::core::clock::Rest>> =
        t.questions.iter().map(|q| t.rest_of(&q.player)).collect();
    for (q, rest) in t.questions.iter_mut().zip(&rests) {
        if q.due(rest, s.tz).is_some_and(|d| d <= now) {
            q.reported = true;
            due.push(q.clone());
        }
    }
    let t = t.clone();
    out.tournaments.insert(tid.to_string());
    for q in due {
        out.log.push(format!(
            "{tid}: the director's question to {} is unanswered after {QUESTION_DAYS} days (TO §23)",
            q.player
        ));
        let told = Told::Unanswered {
            name: t.recipient(&q.player).name,
            question: q.text.clone(),
            asked: view::local_date(q.asked, s.tz),
        };
        let data = DirectorFacts {
            recipient: t.director.name.clone(),
            director: t.director.name.clone(),
            tournament_id: t.id.clone(),
            tournament: t.name.clone(),
            game: None,
            reason: None,
            for_director: true,
            now: view::when(now, s.tz),
            form: "unanswered",
            verified: None,
        };
        let message_id = state.meta.next_message_id(s, "director");
        out.mails.push(Mail {
            in_reply_to: Some(q.message_id.clone()),
            ..Mail::notice(
                told,
                vec![t.director_recipient()],
                s.default_lang,
                message_id,
                data,
            )
        });
    }
}
