//! The director's desk by mail (TO §11, §23, §26, §29, §30): what he asks of the records, a
//! player's withdrawal, his questions to a player, and moves through him. One function per
//! command, as in `commands.rs`; the questions' answers and their fortnight come here too.
//!
//! The choices the rulebook leaves open, fixed once:
//!
//! * **TO §11, §29.** `Korrespondenz:`, `PGN:` and `Prüfen:` answer the director alone; the
//!   answer is not filed under the game (an mbox inside the game's own mbox would double it with
//!   every request). What is enclosed comes from the store, by the shell ([`Enclosure`]).
//! * **TO §26.** A withdrawal ends every game of the player in the tournament that is not
//!   finished — running, waiting for its start, suspended or adjourned — lost for him, or
//!   annulled (`*`, kept out of the crosstable). His finished games stand. Each game's players
//!   and the director get `game-end`; the players are told of the appeal (§29).
//! * **TO §23.** A question goes to the player whole with a random reply key of its own; his
//!   reply through it reaches the director whole — a move or request in it is listed as not
//!   played — and he is told it did and where moves go. After 14 days without an answer, not
//!   counting his leave (§24), the director is told once (`crate::core::time`), and the weekly
//!   digest lists it while open.
//! * **TO §18, §29: whom words reach.** A reply through a player's key of replies to decisions
//!   (the key every mail that carries a decision about his game carries: a game end after TL's
//!   decision, a time forfeit, TL's notice) is a dispute or an appeal: it goes to the director
//!   whole, whatever it says, and nothing in it is played ([`decision_reply_of`],
//!   [`to_director`]); so does `Einspruch:` in any mail about the game, with the PGN and
//!   `verify`'s line. The receipt names the day it came and, for a decision of the director, the
//!   last day of §29's two weeks; a forfeit the relay claimed is no decision of his and gets no
//!   such day. Words through the game's own keys go to the partner, also after the game.
//! * **TO §30.** A warning (`Ermahnung`) is logged and sealed in the game the mail names, else in
//!   each of the player's running games of the tournament ([`warn`]).

use shakmaty::Color;

use super::common::{Scope, director_event, name_of, player_tournament};
use super::notice::{Desk, Notice};
use crate::core::door::reply::{APPEAL_DAYS, director_key, finish_as, open_games_in};
use crate::core::model::{Command, DirectorRefusal, Enclosure, Told};
use crate::core::model::{DirectorFacts, Event, Mail, Sentence, ToDirectorBody, ToDirectorFacts};
use crate::core::model::{EndReason, GameResult, Question, Step};
use crate::core::model::{Output, State};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::letter::Letter;
use crate::mail_kind::MailKind;

/// What the director asks of the records.
pub(super) enum Records<'a> {
    /// TO §11: the game's mails.
    Correspondence(&'a str),
    /// The PGN of a tournament or a game.
    Pgn(&'a str),
    /// TO §29: the check of the game's sealed record.
    Verify(&'a str),
}

/// A game the director names, in a tournament he directs (its games need not be in memory: a
/// shelved tournament's records are asked for too).
fn directed_game(st: &State, scope: Scope<'_>, game: &str) -> Result<GameRef, DirectorRefusal> {
    let unknown = || DirectorRefusal::UnknownGame {
        game: game.to_string(),
    };
    let g: GameRef = game.parse().map_err(|_| unknown())?;
    if !scope.directs.contains(&g.tournament) {
        return Err(DirectorRefusal::NotDirector {
            tournament: Some(g.tournament.clone()),
        });
    }
    let t = st.tournaments.get(&g.tournament).ok_or_else(unknown)?;
    if !t.games.contains(&g) {
        return Err(unknown());
    }
    Ok(g)
}

/// TO §11, §29: the correspondence of a game, a PGN, or `verify`'s line, to the director.
pub(super) fn records(
    st: &State,
    scope: Scope<'_>,
    what: Records<'_>,
    tz: chrono_tz::Tz,
) -> Result<Notice, DirectorRefusal> {
    let (game, tournament, told, enclosure) = match what {
        Records::Correspondence(game) => {
            let g = directed_game(st, scope, game)?;
            // Fax 2.8: four weeks after the tournament's end its mails are gone; what is left of
            // the record goes instead, and the notice says when they went.
            if let Some(t) = st.tournament_of(&g).filter(|t| t.rotated) {
                let on = t.rotated_at.map(|at| view::local_date(at, tz));
                let told = Told::CorrespondenceRotated {
                    game: g.clone(),
                    on,
                };
                return Ok(Notice {
                    game: Some(g.clone()),
                    tournament: g.tournament.clone(),
                    told,
                    reason: None,
                    players: Vec::new(),
                    desk: Desk {
                        form: Some("records"),
                        enclose: vec![Enclosure::Pgn(g.to_string()), Enclosure::Verify(g)],
                        player_key: None,
                    },
                });
            }
            let told = Told::Correspondence { game: g.clone() };
            (
                Some(g.clone()),
                g.tournament.clone(),
                told,
                Enclosure::Mbox(g),
            )
        }
        Records::Verify(game) => {
            let g = directed_game(st, scope, game)?;
            let told = Told::Verified { game: g.clone() };
            (
                Some(g.clone()),
                g.tournament.clone(),
                told,
                Enclosure::Verify(g),
            )
        }
        Records::Pgn(target) if target.contains('/') => {
            let g = directed_game(st, scope, target)?;
            let told = Told::Pgn {
                target: g.to_string(),
            };
            let enclosure = Enclosure::Pgn(g.to_string());
            (Some(g.clone()), g.tournament.clone(), told, enclosure)
        }
        Records::Pgn(target) => {
            if !scope.directs.iter().any(|t| t == target) {
                return Err(DirectorRefusal::NotDirector {
                    tournament: Some(target.to_string()),
                });
            }
            let told = Told::Pgn {
                target: target.to_string(),
            };
            let enclosure = Enclosure::Pgn(target.to_string());
            (None, target.to_string(), told, enclosure)
        }
    };
    Ok(Notice {
        game,
        tournament,
        told,
        reason: None,
        players: Vec::new(),
        desk: Desk {
            form: Some("records"),
            enclose: vec![enclosure],
            player_key: None,
        },
    })
}

/// TO §26: the player withdrew; every game of his in the tournament that is not finished ends,
/// lost for him or annulled. Each game's players and the director get `game-end` (§29: with
/// the appeal), the director a list of the games.
pub(super) fn withdraw(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    scope: Scope<'_>,
    (player, annulled): (&str, bool),
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let (now, s) = (at.now, at.s);
    let tid = player_tournament(st, scope.tid, scope.directs, player, Command::Withdraw)?;
    let games = open_games_in(st, &tid, player);
    if games.is_empty() {
        return Err(DirectorRefusal::NoOpenGames {
            player: player.to_string(),
            tournament: tid,
        });
    }
    let command = if annulled {
        format!("withdrawal of {player} (TO §26): the game is annulled")
    } else {
        format!("withdrawal of {player} (TO §26): the game is lost for him")
    };
    director_event(st, out, &games, letter, command, now);
    for g in &games {
        let Some(color) = st.games.get(g).and_then(|gm| gm.color_of(player)) else {
            continue;
        };
        let (result, reason) = if annulled {
            (None, EndReason::Annulled)
        } else {
            let winner: Color = !color;
            (Some(GameResult::for_winner(winner)), EndReason::Withdrawn)
        };
        finish_as(st, out, g, result, reason, now, s);
        out.letter_games.insert(g.clone());
    }
    let name = name_of(st, &tid, player);
    Ok(Notice {
        game: None,
        told: Told::Withdrawn {
            name,
            tournament: tid.clone(),
            annulled,
            games,
        },
        tournament: tid,
        reason: None,
        players: Vec::new(),
        desk: Desk::default(),
    })
}

/// TO §30: a formal warning (`Ermahnung`) of a player, with its reason: logged (and sealed) in
/// the game the mail names, when he plays it, else in each of his running games of the
/// tournament; the player is told, with the appeal of TO §29; the director gets the receipt.
pub(super) fn warn(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    scope: Scope<'_>,
    (player, reason): (&str, &str),
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let now = at.now;
    let tid = player_tournament(st, scope.tid, scope.directs, player, Command::Warn)?;
    let named = scope
        .game
        .filter(|g| {
            st.games
                .get(*g)
                .is_some_and(|gm| gm.color_of(player).is_some())
        })
        .cloned();
    let games = match &named {
        Some(g) => vec![g.clone()],
        None => open_games_in(st, &tid, player),
    };
    director_event(
        st,
        out,
        &games,
        letter,
        format!("warning of {player} (TO §30): {reason}"),
        now,
    );
    out.letter_games.extend(games.iter().cloned());
    let name = name_of(st, &tid, player);
    Ok(Notice {
        game: named,
        told: Told::Warned {
            name,
            player: player.to_string(),
            tournament: tid.clone(),
            games,
        },
        tournament: tid,
        reason: Some(reason.to_string()),
        players: vec![player.to_string()],
        desk: Desk::default(),
    })
}

/// TO §23: the director's question reaches the player with a reply key of its own.
pub(super) fn ask(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    scope: Scope<'_>,
    (player, text): (&str, &str),
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let now = at.now;
    let tid = player_tournament(st, scope.tid, scope.directs, player, Command::Ask)?;
    // The shell hands in one fresh random key per question (`crate::core::keys_needed`): a key
    // is never derived from anything a reader of the relay's mail could know.
    let key = match st.spare_keys.pop() {
        Some(k) => k,
        #[cfg(test)]
        None => format!("q{}", st.meta.mail_seq + 1),
        #[cfg(not(test))]
        None => {
            return Err(DirectorRefusal::Malformed {
                lines: vec![format!("{player}: {text}")],
            });
        }
    };
    let question = Question {
        key: key.clone(),
        player: player.to_string(),
        text: text.to_string(),
        asked: now,
        message_id: letter.message_id.clone(),
        answered: None,
        reported: false,
    };
    if let Some(t) = st.tournaments.get_mut(&tid) {
        t.questions.push(question);
    }
    out.tournaments.insert(tid.clone());
    let games = open_games_in(st, &tid, player);
    director_event(
        st,
        out,
        &games,
        letter,
        format!("asked {player} (TO §23): {text}"),
        now,
    );
    let name = name_of(st, &tid, player);
    Ok(Notice {
        game: None,
        told: Told::Asked {
            name,
            text: text.to_string(),
            asked: view::local_date(now, at.s.tz),
        },
        tournament: tid,
        reason: None,
        players: vec![player.to_string()],
        desk: Desk {
            form: Some("question"),
            enclose: Vec::new(),
            player_key: Some(key),
        },
    })
}

/// TO §23: the open question whose reply key the letter came through, from the player asked:
/// `(tournament, index)`.
pub(crate) fn question_of(state: &State, letter: &Letter) -> Option<(String, usize)> {
    letter.reply_keys.iter().find_map(|k| {
        state.tournaments.values().find_map(|t| {
            t.questions
                .iter()
                .position(|q| &q.key == k && q.player == letter.from)
                .map(|i| (t.id.clone(), i))
        })
    })
}

/// TO §23: the player's answer reaches the director; the player is told it did.
pub(crate) fn answer_question(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    (tid, i): (String, usize),
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let Some(q) = state
        .tournaments
        .get_mut(&tid)
        .and_then(|t| t.questions.get_mut(i))
    else {
        return;
    };
    let first = q.answered.is_none();
    q.answered.get_or_insert(now);
    let q = q.clone();
    out.tournaments.insert(tid.clone());
    // Whole, as he wrote it (his own text, without the quoted question): what he says of his
    // games, a move or a resignation too, is for the director to read — nothing of it is
    // played (TO §23).
    let answer = letter.text.trim().to_string();
    let moves: Vec<String> = letter
        .content
        .moves
        .iter()
        .map(|m| view::numbered(m.number, m.color, &m.text))
        .collect();
    out.log.push(format!(
        "{tid}: {} answered the director's question (TO §23){}",
        q.player,
        if first { "" } else { " again" }
    ));
    let name = name_of(state, &tid, &q.player);
    let notice = Notice {
        game: None,
        told: Told::Answered {
            name,
            question: q.text.clone(),
            asked: view::local_date(q.asked, s.tz),
            answer,
            moves,
        },
        tournament: tid,
        reason: None,
        players: vec![q.player.clone()],
        desk: Desk {
            form: Some("answer"),
            enclose: Vec::new(),
            player_key: Some(q.key.clone()),
        },
    };
    super::notice::director_mails(state, out, letter, &notice, Step { now, s });
}

/// The game (and the writer's colour in it) a letter answers a decision about, when it came
/// through the writer's own key of replies to decisions (`KeyBinding::to_director`).
pub(crate) fn decision_reply_of(state: &State, letter: &Letter) -> Option<(GameRef, Color)> {
    letter.reply_keys.iter().find_map(|k| {
        let b = state.keys.get(k).filter(|b| b.to_director)?;
        if b.email != letter.from {
            return None;
        }
        let color = state.games.get(&b.game)?.color_of(&letter.from)?;
        Some((b.game.clone(), color))
    })
}

/// TO §18, §23, §29: a player's words about his game go to the director, never to his partner —
/// a reply through his key of replies to decisions (a dispute of a time forfeit, a question on
/// a decision, an appeal by reply), or an appeal (`Einspruch:` / `appeal:`) in any mail about the
/// game. The director gets them whole, as the player wrote them (without the quoted original),
/// with the game, the decision they answer and the day they came — an appeal with the game's
/// PGN and `verify`'s line. The player gets a `receipt`: where his words went, the day they came
/// (TO §29 counts it), the last day of the two weeks for a decision of the director, and, when
/// the mail held moves, that they were not played and where moves go. The event is sealed in the
/// game's record. Nothing changes in the game.
pub(crate) fn to_director(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    (game_ref, color): (&GameRef, Color),
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let appeal = letter.content.appeal.is_some();
    st.log_event(
        out,
        game_ref,
        Event::ToDirector {
            at: now,
            by: color.into(),
            appeal,
            message_id: letter.message_id.clone(),
        },
    );
    out.letter_games.insert(game_ref.clone());
    let (Some(t), Some(game)) = (st.tournament_of(game_ref), st.games.get(game_ref)) else {
        return;
    };
    let decision = game.decision.clone();
    let text = match letter.text.trim() {
        "" => letter.content.appeal.clone().unwrap_or_default(),
        whole => whole.to_string(),
    };
    let moves: Vec<String> = letter
        .content
        .moves
        .iter()
        .map(|m| view::numbered(m.number, m.color, &m.text))
        .collect();
    let player = t.recipient(&letter.from);
    let came = view::local_date(now, s.tz);
    let told = Told::ToDirector {
        name: player.name.clone(),
        email: player.email.clone(),
        game: game_ref.clone(),
        appeal,
        decided: decision
            .as_ref()
            .map(|d| (d.what.clone(), view::local_date(d.at, s.tz))),
        text,
        came,
        moves: moves.clone(),
    };
    let director = DirectorFacts {
        recipient: t.director.name.clone(),
        director: t.director.name.clone(),
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        game: Some(game_ref.to_string()),
        reason: None,
        for_director: true,
        now: view::when(now, s.tz),
        form: "words",
        verified: None,
    };
    let enclose = if appeal {
        vec![
            Enclosure::Pgn(game_ref.to_string()),
            Enclosure::Verify(game_ref.clone()),
        ]
    } else {
        Vec::new()
    };
    let lang = t.lang_of(&letter.from, s.default_lang);
    let body = ToDirectorBody {
        appeal,
        came: view::day(came),
        decided: decision
            .as_ref()
            .map(|d| view::day(view::local_date(d.at, s.tz))),
        appeal_until: decision
            .as_ref()
            .filter(|d| d.what.by_director())
            .map(|d| view::day(view::local_date(d.at, s.tz) + chrono::Duration::days(APPEAL_DAYS))),
        moves,
        // Where moves go, while the game goes on.
        moves_to: (game.status != crate::core::model::GameStatus::Finished)
            .then(|| view::reply_address(game.keys.get(color), &s.relay_address)),
    };
    let receipt = ToDirectorFacts {
        context: view::game_context(game, t, Some(color), lang, now, s.tz),
        recipient: player.name.clone(),
        to_director: body,
    };
    let director_mail = (t.director_recipient(), director, enclose);
    let tl_key = director_key(st, game_ref);
    let id = st.meta.next_message_id(s, "director");
    let (to, facts, enclose) = director_mail;
    out.mails.push(Mail {
        game: Some(game_ref.clone()),
        reply_key: tl_key,
        in_reply_to: Some(letter.message_id.clone()),
        enclose,
        ..Mail::notice(told, vec![to], s.default_lang, id, facts)
    });
    let id = st.meta.next_message_id(s, "receipt");
    let mut sentences = Vec::new();
    if let Some(d) = &decision {
        sentences.push(("decision".into(), Sentence::Decided(d.what.clone())));
    }
    out.mails.push(Mail {
        game: Some(game_ref.clone()),
        in_reply_to: Some(letter.message_id.clone()),
        sentences,
        to_director: true,
        ..Mail::new(MailKind::Receipt, vec![player], lang, id, receipt)
    });
    out.log.push(format!(
        "{game_ref}: {} of {} went to the director (TO {})",
        if appeal { "an appeal" } else { "the words" },
        letter.from,
        if appeal { "§29" } else { "§18, §29" }
    ));
}
