//! `Status`: a player (or a director) asks for his games — docs/contract.md kind `status`, to the asker.
//!
//! Interpretation, fixed here once:
//! - A mail whose own text has a line `Status` (or whose subject is `Status`) is answered with all
//!   the asker's games in every tournament he plays: the position (whose move, since when, the last
//!   move in his notation), both clocks (TO §12–§17: days used in the period with the running move,
//!   the limit, the days left, time forfeits) and the crosstable of each tournament. No game needs to
//!   be named; if one is, the answer is still about all his games, and it is threaded into (and
//!   archived with, TO §11) the named game when he plays it.
//! - A director asking gets every game of every tournament he directs, with the crosstable.
//! - The request changes nothing: no clock, no deadline, no event. A mail that says more than
//!   `Status` (a move, an offer, a resignation, …) is then handled as every mail is.

use crate::core::door::reply::{lang_for, letter_context};
use crate::core::model::Game;
use crate::core::model::Step;
use crate::core::model::{GameReport, Mail, Recipient, Sentence, StatusFacts, TournamentReport};
use crate::core::model::{Output, State};
use crate::core::records::crosstable;
use crate::core::view;
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{Content, Letter};
use crate::mail_kind::MailKind;

/// Whether a letter that asks for `Status` also says something else the game must act on.
pub fn says_more_than_status(c: &Content) -> bool {
    !c.moves.is_empty()
        || c.draw_offer
        || c.draw_accept
        || c.resign
        || c.claim_repetition
        || c.announce_long_think
        || !c.conditional.is_empty()
        || c.leave.is_some()
        || c.withdraw_leave.is_some()
        || c.take_back
        || c.bare_result.is_some()
        || !c.director.is_empty()
}

/// The game a letter names (by its reply key, else by its subject) when the sender plays it.
fn named_game_of(state: &State, letter: &Letter) -> Option<GameRef> {
    letter_context(state, letter)
        .0
        .filter(|g| state.color_in(g, &letter.from).is_some())
}

/// The status report's tournaments for `email` as of `now`: every tournament he plays in or
/// directs, with its games, and the sentences of their crosstables.
pub fn status_report(
    state: &State,
    email: &str,
    lang: Lang,
    at: Step<'_>,
) -> (Vec<TournamentReport>, Vec<(String, Sentence)>) {
    let mut tournaments = Vec::new();
    let mut sentences = Vec::new();
    for t in state.tournaments_with(email) {
        let plays = t.player(email).is_some();
        let directs = t.director.email == email;
        if !plays && !directs {
            continue;
        }
        let games: Vec<&Game> = state
            .games
            .values()
            .filter(|g| g.id.tournament == t.id)
            .collect();
        let shown: Vec<GameReport> = games
            .iter()
            .filter_map(|g| {
                let reader = g.color_of(email);
                (reader.is_some() || directs).then(|| view::game_report(g, t, reader, lang, at))
            })
            .collect();
        let table = crosstable::crosstable(t, games.iter().copied());
        tournaments.push(TournamentReport {
            id: t.id.clone(),
            name: t.name.clone(),
            director: t.director.name.clone(),
            role: if plays { "player" } else { "director" },
            your_moves: shown.iter().filter(|g| g.your_move).count(),
            games: shown,
        });
        let at = format!("/tournaments/{}", tournaments.len() - 1);
        sentences.push((
            format!("{at}/crosstable"),
            Sentence::CrosstableText(table.clone()),
        ));
        sentences.push((format!("{at}/table"), Sentence::CrosstableData(table)));
    }
    (tournaments, sentences)
}

/// Answers a `Status` mail with a `status` mail to the asker. Changes no game.
pub(crate) fn answer_status(state: &mut State, out: &mut Output, letter: &Letter, at: Step<'_>) {
    let (now, s) = (at.now, at.s);
    let lang = lang_for(state, &letter.from, None, s);
    let named = named_game_of(state, letter);
    let name = state
        .tournaments_with(&letter.from)
        .find_map(|t| t.player(&letter.from).map(|p| p.name.clone()))
        .or_else(|| {
            state
                .tournaments_with(&letter.from)
                .find(|t| t.director.email == letter.from)
                .map(|t| t.director.name.clone())
        })
        .or_else(|| letter.from_name.clone())
        .unwrap_or_else(|| letter.from.clone());
    let (tournaments, sentences) = status_report(state, &letter.from, lang, at);
    let data = StatusFacts {
        recipient: name.clone(),
        report: true,
        announcement: false,
        tournaments,
        now: view::when(now, s.tz),
        today: view::day(view::local_date(now, s.tz)),
        xfcc_password: letter.content.xfcc_password,
        warnings: letter.content.warnings,
        board_chosen: letter.content.board,
    };
    let reply_key = named.as_ref().and_then(|g| {
        let game = state.games.get(g)?;
        let c = game.color_of(&letter.from)?;
        Some(game.keys.get(c).clone())
    });
    if let Some(g) = &named {
        out.letter_games.insert(g.clone());
    }
    let message_id = state.meta.next_message_id(s, MailKind::Status.name());
    out.mails.push(Mail {
        sentences,
        game: named,
        reply_key,
        in_reply_to: Some(letter.message_id.clone()),
        ..Mail::new(
            MailKind::Status,
            vec![Recipient {
                name,
                email: letter.from.clone(),
            }],
            lang,
            message_id,
            data,
        )
    });
    out.log.push(format!(
        "status report to {} (asked in {})",
        letter.from, letter.message_id
    ));
}
