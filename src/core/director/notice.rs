//! What a carried-out command tells: the [`Notice`] each command returns, and the mails it
//! makes — the confirmation to the director and the announcement to each player it touches,
//! with the decision they may dispute or appeal (TO §29).

use crate::core::door::reply::{appeal_sentence, decided, director_key};
use crate::core::model::DirectorFacts;
use crate::core::model::Step;
use crate::core::model::{Decided, Enclosure, Mail, Recipient, SerdeColor, Told};
use crate::core::model::{Output, State};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::Letter;

/// What a carried-out command tells the director and the players it touches.
pub(super) struct Notice {
    pub(super) game: Option<GameRef>,
    pub(super) tournament: String,
    /// What was done; the render layer writes its title and text.
    pub(super) told: Told,
    pub(super) reason: Option<String>,
    /// Players told with a `director` mail (those of a game that ended get `game-end` instead).
    pub(super) players: Vec<String>,
    /// What the director's desk adds (TO §11, §23, §29): the kind of notice, what the shell
    /// encloses, the players' reply key.
    pub(super) desk: Desk,
}

/// The desk's part of a [`Notice`]; the default is a command carried out.
#[derive(Default)]
pub(super) struct Desk {
    /// `DirectorFacts::form` of the players' copies (`None`: `decision`); the director's copy
    /// says `decision` for a question, else the same.
    pub(super) form: Option<&'static str>,
    /// Enclosed in the director's copy.
    pub(super) enclose: Vec<Enclosure>,
    /// The reply key of the players' copies, instead of their game's.
    pub(super) player_key: Option<String>,
}

/// What a notice decided about its game that the players may dispute or appeal (TO §29), if
/// anything, and against whom (their copies say how to appeal it): a charge against the player
/// charged, a credit against his partner, an order about the game against both.
fn decision_of(state: &State, n: &Notice) -> Option<(Decided, Vec<String>)> {
    let game = n.game.as_ref().and_then(|g| state.games.get(g));
    let color = |email: &str| game.and_then(|g| g.color_of(email)).map(SerdeColor::from);
    let both = || {
        game.map(|g| vec![g.players.white.clone(), g.players.black.clone()])
            .unwrap_or_default()
    };
    let partner = |email: &str| {
        game.and_then(|g| g.color_of(email).map(|c| g.players.get(!c).clone()))
            .into_iter()
            .collect()
    };
    match &n.told {
        Told::MovesOnly { on, .. } => Some((
            Decided::MovesOnly { on: *on },
            if *on { both() } else { vec![] },
        )),
        Told::ThroughDirector { on, .. } => Some((
            Decided::ThroughDirector { on: *on },
            if *on { both() } else { vec![] },
        )),
        Told::TimeAdjusted { player, days, .. } => Some((
            Decided::Time {
                color: color(player)?,
                days: *days,
            },
            if *days > 0 {
                vec![player.clone()]
            } else {
                partner(player)
            },
        )),
        Told::Warned { player, .. } => {
            color(player).map(|c| (Decided::Warning { color: c }, vec![player.clone()]))
        }
        Told::Resumed { .. } => Some((Decided::Resumed, vec![])),
        _ => None,
    }
}

/// The confirmation to the director and the announcement to each player a command touches.
pub(super) fn director_mails(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    n: &Notice,
    at: Step<'_>,
) {
    let records = n.desk.form == Some("records");
    let (now, s) = (at.now, at.s);
    // A decision about the game: the players' replies to it go to the director (TO §18, §29).
    let decision = decision_of(state, n);
    if let (Some((what, _)), Some(g)) = (&decision, &n.game) {
        decided(state, out, g, what.clone(), now);
    }
    // TO §29: a decision against a player tells him how to appeal it — a warning too when it
    // names no game.
    let against: Vec<String> = match (&decision, &n.told) {
        (Some((_, against)), _) => against.clone(),
        (None, Told::Warned { player, .. }) => vec![player.clone()],
        _ => Vec::new(),
    };
    let Some(t) = state.tournaments.get(&n.tournament) else {
        return;
    };
    let mut mails: Vec<(Recipient, Option<String>, Lang, bool)> = Vec::new();
    let tl_key = n.game.as_ref().and_then(|g| director_key(state, g));
    mails.push((t.director_recipient(), tl_key, s.default_lang, true));
    let mut seen = Vec::new();
    for p in &n.players {
        if seen.contains(p) {
            continue;
        }
        seen.push(p.clone());
        let key = n.desk.player_key.clone().or_else(|| {
            n.game
                .as_ref()
                .and_then(|g| state.games.get(g))
                .and_then(|g| g.color_of(p).map(|c| g.keys.get(c).clone()))
        });
        mails.push((t.recipient(p), key, t.lang_of(p, s.default_lang), false));
    }
    for (to, reply_key, lang, for_director) in mails {
        let to_email = to.email.clone();
        let form = match n.desk.form {
            Some("question") if for_director => "decision",
            Some(form) => form,
            None => "decision",
        };
        let data = DirectorFacts {
            recipient: to.name.clone(),
            director: t.director.name.clone(),
            tournament_id: t.id.clone(),
            tournament: t.name.clone(),
            game: n.game.as_ref().map(GameRef::to_string),
            reason: n.reason.clone(),
            for_director,
            now: view::when(now, s.tz),
            form,
            verified: None,
        };
        let message_id = state.meta.next_message_id(s, "director");
        let mut mail = Mail {
            // The records asked for are not filed under the game (TO §11: an mbox in the
            // game's own mbox would double it with every request).
            game: n.game.clone().filter(|_| !records),
            reply_key,
            in_reply_to: Some(letter.message_id.clone()),
            enclose: if for_director {
                n.desk.enclose.clone()
            } else {
                Vec::new()
            },
            // A player's reply to a notice about his game goes to the director, never to his
            // partner (TO §18, §29).
            to_director: true,
            ..Mail::notice(n.told.clone(), vec![to], lang, message_id, data)
        };
        if !for_director && form == "decision" && against.contains(&to_email) {
            mail.sentences
                .push(appeal_sentence(&t.director.name, now, s));
        }
        out.mails.push(mail);
    }
}
