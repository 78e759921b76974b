//! What every room sends the same way, and the lookups of who and what a letter concerns: the
//! query (TO §8), the end of a game (TO §27), the time forfeit notice (TO §18/§21), the language
//! a person is written to in, the game and tournament a letter names, the director's reply key.

use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use regex::Regex;
use shakmaty::Color;

use crate::core::model::Step;
use crate::core::model::{
    Attachment, Decided, Decision, EndReason, EndReport, Event, GameEndFacts, GameResult,
    GameStatus, KeyBinding, Mail, Output, QueryAround, QueryFacts, Recipient, Refusal, Sentence,
    Settings, State, TimeForfeitFacts, Tournament,
};
use crate::core::{pgn, view};
use crate::game_ref::GameRef;
use crate::lang::{Board, Lang};
use crate::letter::Letter;
use crate::mail_kind::MailKind;

static TOURNAMENT_IN_SUBJECT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\[\s*([A-Za-z0-9-]{1,64})\s*(?:/\s*[0-9]{1,9}\s*)?\]").expect("valid regex")
});

/// The language to write to `email` in: his own in the game's tournament, else in any of his
/// tournaments (only those not rotated, when he plays in one), else the relay's default.
pub(crate) fn lang_for(state: &State, email: &str, game: Option<&GameRef>, s: &Settings) -> Lang {
    if let Some(t) = game.and_then(|g| state.tournament_of(g))
        && let Some(l) = t.player(email).and_then(|p| p.lang)
    {
        return l;
    }
    // Fax 2.8 (docs/rules.md): a player of a running tournament is as his current tournaments
    // say (`tournaments_with` lists them first), not as one of earlier years did.
    let current = state
        .tournaments_with(email)
        .any(|t| !t.rotated && t.player(email).is_some());
    state
        .tournaments_with(email)
        .filter(|t| !(current && t.rotated))
        .find_map(|t| t.player(email).and_then(|p| p.lang))
        .unwrap_or(s.default_lang)
}

/// How the mails to `email` show the position (docs/contract.md "A board a screen reader
/// reads"): as he last asked by mail (`Brett: Liste`, `Brett: Diagramm`: for all his games), else
/// as the tournament file of `game` says for him, else as the file of another running tournament
/// of his says (the one order of `lang_for`), else the diagram.
pub(crate) fn board_for(state: &State, email: &str, game: Option<&GameRef>) -> Board {
    if let Some(b) = state.meta.boards.get(email) {
        return *b;
    }
    if let Some(b) = game
        .and_then(|g| state.tournament_of(g))
        .and_then(|t| t.player(email))
        .and_then(|p| p.board)
    {
        return b;
    }
    state
        .tournaments_with(email)
        .filter(|t| !t.rotated)
        .find_map(|t| t.player(email).and_then(|p| p.board))
        .unwrap_or_default()
}

/// Sends a query (TO §8) to the letter's sender and records it; nothing else changes. A letter
/// from a client that shows a refusal itself (`Trace::direct`, XFCC) is refused at once
/// instead (`Output::refused`, no mail, no event) where the client can show it
/// ([`shown_at_once`]).
pub(crate) fn query(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    game_ref: Option<&GameRef>,
    lang: Lang,
    refusal: Refusal,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    if letter.trace.direct && shown_at_once(&refusal) {
        out.log.push(format!(
            "refused at once to {} about {}: {refusal:?}",
            letter.from, letter.message_id
        ));
        out.refused.push(refusal);
        return;
    }
    // The name he is registered with, else the one his mail gives, else his address. To an
    // address no tournament knows the answer repeats nothing of the mail — neither the name it
    // gives nor its subject (no backscatter that carries someone's text, docs/security.md).
    let known = state.knows(&letter.from);
    let name = state
        .tournaments_with(&letter.from)
        .find_map(|t| t.player(&letter.from).map(|p| p.name.clone()))
        .or_else(|| letter.from_name.clone().filter(|_| known))
        .unwrap_or_else(|| {
            if known {
                letter.from.clone()
            } else {
                String::new()
            }
        });
    let subject = if known {
        letter.subject.clone()
    } else {
        String::new()
    };
    // Whom the query answers: the text tells a player what to send, a director nothing of clocks.
    let about = match refusal {
        Refusal::Director(_) | Refusal::Withdraw(_) => "director",
        Refusal::Stranger => "stranger",
        _ => "player",
    };
    let mut around = QueryAround::Bare {
        now: view::when(now, s.tz),
    };
    let mut reply_key = None;
    let mut fen = None;
    if let Some(g) = game_ref
        && let (Some(game), Some(t)) = (state.games.get(g), state.tournament_of(g))
    {
        let color = game.color_of(&letter.from);
        around = QueryAround::Game(Box::new(view::game_context(
            game, t, color, lang, now, s.tz,
        )));
        reply_key = color.map(|c| game.keys.get(c).clone());
        fen = Some(game.fen());
    }
    let read = if known {
        read_lines(&letter.text)
    } else {
        Vec::new()
    };
    let facts = QueryFacts {
        recipient: name.clone(),
        about,
        subject,
        read,
        around,
    };
    if let Some(g) = game_ref {
        state.log_event(
            out,
            g,
            Event::Queried {
                at: now,
                from: letter.from.clone(),
                reason: format!("{refusal:?}"),
                message_id: letter.message_id.clone(),
            },
        );
    }
    out.log.push(format!(
        "query to {} about {}: {refusal:?}",
        letter.from, letter.message_id
    ));
    let message_id = state.meta.next_message_id(s, "query");
    out.mails.push(Mail {
        sentences: vec![("reason".into(), Sentence::Refusal(refusal))],
        game: game_ref.cloned(),
        reply_key,
        fen,
        in_reply_to: Some(letter.message_id.clone()),
        ..Mail::new(
            MailKind::Query,
            vec![Recipient {
                name,
                email: letter.from.clone(),
            }],
            lang,
            message_id,
            facts,
        )
    });
}

/// How many lines of a mail a query quotes as what the relay read, and how long each.
const READ_LINES: usize = 8;
const READ_LINE_CHARS: usize = 100;

/// The first lines of the writer's own text that say something (TO §8: the query shows what the
/// relay read).
fn read_lines(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(READ_LINES)
        .map(|l| {
            let mut line: String = l.chars().take(READ_LINE_CHARS).collect();
            if l.chars().count() > READ_LINE_CHARS {
                line.push('…');
            }
            line
        })
        .collect()
}

/// Ends a game (TO §27): result, reason, `game-end` to both players and the director with the PGN.
pub(crate) fn finish(
    state: &mut State,
    out: &mut Output,
    game_ref: &GameRef,
    result: GameResult,
    reason: EndReason,
    now: DateTime<Utc>,
    s: &Settings,
) {
    finish_as(state, out, game_ref, Some(result), reason, now, s);
}

/// TO §29: how long the players may appeal a decision of the director.
pub const APPEAL_DAYS: i64 = 14;

/// [`finish`] with the result `None` for a game annulled (TO §26: `*`, kept out of the
/// crosstable). A decision of the director tells the players the last day of the appeal (§29).
pub(crate) fn finish_as(
    state: &mut State,
    out: &mut Output,
    game_ref: &GameRef,
    result: Option<GameResult>,
    reason: EndReason,
    now: DateTime<Utc>,
    s: &Settings,
) {
    let Some(game) = state.games.get_mut(game_ref) else {
        return;
    };
    let was_open = game.status != GameStatus::Finished;
    game.status = GameStatus::Finished;
    game.result = result;
    game.end_reason = Some(reason);
    game.ended_at = Some(now);
    game.draw_offer = None;
    game.conditional.clear();
    let event = match result {
        Some(result) => Event::Ended {
            at: now,
            result,
            reason,
        },
        None => Event::Annulled { at: now, reason },
    };
    state.log_event(out, game_ref, event);
    // A tournament of a version before the report of its end is reported from the first game
    // of it that ends (one that ended before may not have been its last).
    if was_open
        && let Some(t) = state.tournaments.get_mut(&game_ref.tournament)
        && t.end_report == EndReport::Untracked
    {
        t.end_report = EndReport::Pending;
        out.tournaments.insert(t.id.clone());
    }
    if reason.is_decision() {
        decided(state, out, game_ref, Decided::Ended { reason, result }, now);
    }
    let result_text = result.map_or("*", GameResult::as_str);
    let appeal_until = reason
        .is_decision()
        .then(|| view::day(view::local_date(now, s.tz) + chrono::Duration::days(APPEAL_DAYS)));
    let game = &state.games[game_ref];
    let Some(t) = state.tournaments.get(&game_ref.tournament) else {
        return;
    };
    let pgn_text = pgn::game_pgn(game, t, s.tz);
    let mut mails = Vec::new();
    let white = t.recipient(&game.players.white);
    let black = t.recipient(&game.players.black);
    for (c, rcpt) in [
        (Some(Color::White), white),
        (Some(Color::Black), black),
        (None, t.director_recipient()),
    ] {
        let lang = match c {
            Some(_) => t.lang_of(&rcpt.email, s.default_lang),
            None => s.default_lang,
        };
        let data = GameEndFacts {
            context: view::game_context(game, t, c, lang, now, s.tz),
            recipient: rcpt.name.clone(),
            result: result_text,
            pgn: pgn_text.clone(),
            record: pgn::record(game, t, s.tz),
            appeal_until: appeal_until.filter(|_| c.is_some()),
        };
        mails.push((c, rcpt, lang, data));
    }
    let fen = game.fen();
    let keys = game.keys.clone();
    let in_reply_to = game.last_forward.clone();
    let director = t.director.name.clone();
    for (c, rcpt, lang, data) in mails {
        let message_id = state.meta.next_message_id(s, "game-end");
        let mut sentences = vec![("reason".into(), Sentence::EndReason(reason))];
        // A decision of the director: the players' replies go to him (TO §29), and their copy
        // says how to appeal.
        if reason.is_decision() && c.is_some() {
            sentences.push(appeal_sentence(&director, now, s));
        }
        out.mails.push(Mail {
            sentences,
            game: Some(game_ref.clone()),
            reply_key: c.map(|c| keys.get(c).clone()),
            fen: Some(fen.clone()),
            in_reply_to: in_reply_to.clone(),
            attachments: vec![Attachment::pgn(game_ref, pgn_text.clone())],
            to_director: reason.is_decision(),
            ..Mail::new(MailKind::GameEnd, vec![rcpt], lang, message_id, data)
        });
    }
    out.log
        .push(format!("{game_ref}: game over, {result_text} ({reason})"));
}

/// TO §27: when the end of tournament `t` is to be reported (`tournament-end`): the instant its
/// last game ended, once every game of it has ended — all of them at hand in `state` (a shell
/// that holds games lazily reads a tournament whole before its deadlines are asked,
/// `crate::core::needs`) — while the report is still pending. A tournament of one game is
/// never reported: its `game-end` already carries the result, the PGN and the seal.
pub fn end_report_due(state: &State, t: &Tournament) -> Option<DateTime<Utc>> {
    if t.end_report != EndReport::Pending || t.games.len() < 2 {
        return None;
    }
    let mut last = t.clock_start;
    for g in &t.games {
        let game = state.games.get(g)?;
        if game.status != GameStatus::Finished {
            return None;
        }
        last = last.max(game.ended_at.unwrap_or(last));
    }
    Some(last)
}

/// TO §18 (first forfeit: notice to both players, director in copy; the game goes on) and
/// TO §21 (second: notice to the director, players in copy; the game is suspended).
pub(crate) fn claim_forfeit(
    state: &mut State,
    out: &mut Output,
    game_ref: &GameRef,
    f: Forfeited,
    at: Step<'_>,
) {
    let (at, s) = (at.now, at.s);
    let Forfeited {
        offender,
        nth,
        used,
        allowed,
    } = f;
    if !state.tournaments.contains_key(&game_ref.tournament) {
        return;
    }
    if let Some(g) = state.games.get_mut(game_ref) {
        g.turn.forfeit_claimed = g.turn.forfeit_claimed || g.to_move() == offender;
        if nth >= 2 {
            g.status = GameStatus::Suspended;
        }
    }
    state.log_event(
        out,
        game_ref,
        Event::TimeForfeit {
            at,
            color: offender.into(),
            nth,
            used,
            allowed,
        },
    );
    // TO §18: a dispute of the forfeit goes to the director, by replying to the notice.
    let what = Decided::Forfeit {
        color: offender.into(),
        nth,
    };
    decided(state, out, game_ref, what, at);
    let t = &state.tournaments[&game_ref.tournament];
    let game = &state.games[game_ref];
    let offender_email = game.players.get(offender).clone();
    let white = t.recipient(&game.players.white);
    let black = t.recipient(&game.players.black);
    let (kind, to, cc, lang) = if nth >= 2 {
        (
            MailKind::TimeForfeit2,
            vec![t.director_recipient()],
            vec![white, black],
            s.default_lang,
        )
    } else {
        let partner = game.players.get(!offender).clone();
        (
            MailKind::TimeForfeit,
            vec![t.recipient(&offender_email), t.recipient(&partner)],
            vec![t.director_recipient()],
            t.lang_of(&offender_email, s.default_lang),
        )
    };
    let data = TimeForfeitFacts {
        context: view::game_context(game, t, None, lang, at, s.tz),
        offender: t.recipient(&offender_email).name,
        offender_color: view::colour(offender),
        nth,
        used,
        allowed,
        at: view::when(at, s.tz),
    };
    let fen = game.fen();
    let in_reply_to = game.last_forward.clone();
    let message_id = state.meta.next_message_id(s, kind.name());
    // The director answers a second ZÜ (TO §22) with his own key of the game.
    let reply_key = if nth >= 2 {
        director_key(state, game_ref)
    } else {
        None
    };
    out.mails.push(Mail {
        cc,
        game: Some(game_ref.clone()),
        reply_key,
        fen: Some(fen),
        in_reply_to,
        to_director: true,
        ..Mail::new(kind, to, lang, message_id, data)
    });
    out.log.push(format!(
        "{game_ref}: time forfeit #{nth} of {offender_email} ({used} > {allowed} days)"
    ));
}

/// Records that `what` was decided about `game_ref` at `now` (TO §18, §29): the game's last
/// decision, which a player's reply through his key of replies to decisions answers. Each player
/// has such a key from the registration; a game registered before there were any gets its
/// players' keys now, from the fresh keys the shell handed in (`State::spare_keys`).
pub(crate) fn decided(
    state: &mut State,
    out: &mut Output,
    game_ref: &GameRef,
    what: Decided,
    now: DateTime<Utc>,
) {
    let Some(g) = state.games.get_mut(game_ref) else {
        return;
    };
    g.decision = Some(Decision { what, at: now });
    let players = [g.players.white.clone(), g.players.black.clone()];
    out.games.insert(game_ref.clone());
    for email in players {
        if state.keys.to_director_of(game_ref, &email).is_none()
            && let Some(key) = state.spare_keys.pop()
        {
            state.keys.insert(
                key.clone(),
                KeyBinding {
                    game: game_ref.clone(),
                    email,
                    to_director: true,
                },
            );
            out.keys.push(key);
        }
    }
}

/// TO §29: the appeal sentence of a decision of the director made `now`, for a player's copy.
pub(crate) fn appeal_sentence(
    director: &str,
    now: DateTime<Utc>,
    s: &Settings,
) -> (String, Sentence) {
    let until = view::local_date(now, s.tz) + chrono::Duration::days(APPEAL_DAYS);
    (
        "appeal".into(),
        Sentence::Appeal {
            director: director.to_string(),
            until,
        },
    )
}

/// The director's reply key for a game (bound to his address at registration).
pub(crate) fn director_key(state: &State, game: &GameRef) -> Option<String> {
    let t = state.tournament_of(game)?;
    crate::core::model::state::director_key(&state.keys, t, game)
}

/// The game a player's letter is about (TO §2): by the reply key it was sent to, else by the
/// subject's `[ID/N]`. A key given to someone else, a key and a subject naming different
/// games, or neither, is a query. (For leave and the director's commands, which may name a
/// tournament only, see [`letter_context`].)
pub(crate) fn game_of_letter(state: &State, letter: &Letter) -> Result<GameRef, Refusal> {
    let by_key = letter.reply_keys.iter().find_map(|k| state.keys.get(k));
    match (by_key, &letter.game_ref) {
        (Some(kb), _) if kb.email != letter.from => Err(Refusal::ForeignKey),
        (Some(kb), Some(g)) if kb.game != *g => Err(Refusal::GameMismatch {
            subject: g.to_string(),
            key: kb.game.to_string(),
        }),
        (Some(kb), _) => Ok(kb.game.clone()),
        (None, Some(g)) => Ok(g.clone()),
        (None, None) => Err(Refusal::NoGameNamed {
            open_games: state
                .games_of(&letter.from)
                .iter()
                .filter(|g| g.status != GameStatus::Finished)
                .map(|g| format!("[{}]", g.id))
                .collect(),
        }),
    }
}

/// What a letter names: the game (by a reply key given to the sender, or the subject's
/// `[ID/N]`) and the tournament (the game's, or the subject's `[ID]`).
pub(crate) fn letter_context(state: &State, letter: &Letter) -> (Option<GameRef>, Option<String>) {
    let by_key = letter
        .reply_keys
        .iter()
        .filter_map(|k| state.keys.get(k))
        .find(|kb| kb.email == letter.from)
        .map(|kb| kb.game.clone());
    let game = by_key.or_else(|| letter.game_ref.clone());
    let tournament = game.as_ref().map(|g| g.tournament.clone()).or_else(|| {
        TOURNAMENT_IN_SUBJECT
            .captures_iter(&letter.subject)
            .filter_map(|c| c.get(1))
            .map(|m| m.as_str().to_string())
            .find(|id| state.tournaments.contains_key(id))
    });
    (game, tournament)
}

/// Whether the letter reached the relay through a private reply address `relay+KEY@…` given
/// to its sender (`[security] require_reply_key`). Someone else's key does not count.
pub(crate) fn came_through_own_key(state: &State, letter: &Letter) -> bool {
    letter
        .reply_keys
        .iter()
        .filter_map(|k| state.keys.get(k))
        .any(|kb| kb.email == letter.from)
}

/// Whether a letter names a game or a tournament of the relay: a reply key of one of its
/// games, the subject's `[ID/N]` of a known tournament, or a known tournament id (alone or in
/// a game reference `ID/N`) as a word of the subject or the text. For the stranger rule (no
/// backscatter, `crate::core::route`).
pub(crate) fn names_relay_game(state: &State, letter: &Letter) -> bool {
    letter.reply_keys.iter().any(|k| state.keys.contains_key(k))
        || letter
            .game_ref
            .as_ref()
            .is_some_and(|g| state.tournaments.contains_key(&g.tournament))
        || [letter.subject.as_str(), letter.text.as_str()]
            .iter()
            .any(|text| state.tournaments.keys().any(|id| has_word(text, id)))
}

/// The games of `email` in tournament `tid` that are not finished.
pub(crate) fn open_games_in(state: &State, tid: &str, email: &str) -> Vec<GameRef> {
    state
        .games
        .values()
        .filter(|g| g.id.tournament == tid && g.status != GameStatus::Finished)
        .filter(|g| g.color_of(email).is_some())
        .map(|g| g.id.clone())
        .collect()
}

/// One copy of `mail` per reply key among its recipients (docs/contract.md: every copy of a
/// game mail carries its own recipient's key, private to the game and the recipient), and per
/// board its recipients read ([`board_for`]: a copy of a game mail shows the position as each of
/// its recipients asked). Each copy keeps the whole To and Cc and is delivered to the recipients of
/// its key and board; a mail without a game keeps the key it was decided with. Splitting a split
/// mail again changes nothing.
pub(crate) fn copies_per_key(state: &State, mail: Mail) -> Vec<Mail> {
    // Each copy by its reply key and board, with the recipients it is delivered to.
    type Copy = (Option<String>, Board);
    let mut copies: Vec<(Copy, Vec<String>)> = Vec::new();
    for r in mail.to.iter().chain(mail.cc.iter()) {
        let key = match &mail.game {
            Some(g) => mail
                .to_director
                .then(|| state.keys.to_director_of(g, &r.email))
                .flatten()
                .map(str::to_string)
                .or_else(|| state.reply_key_for(g, &r.email))
                .or_else(|| mail.reply_key.clone()),
            None => mail.reply_key.clone(),
        };
        // Only a mail about a game shows a position.
        let board = match mail.facts.context() {
            Some(_) => board_for(state, &r.email, mail.game.as_ref()),
            None => Board::Diagram,
        };
        let copy = (key, board);
        match copies.iter_mut().find(|(k, _)| *k == copy) {
            Some((_, envelope)) => envelope.push(r.email.clone()),
            None => copies.push((copy, vec![r.email.clone()])),
        }
    }
    copies
        .into_iter()
        .map(|((reply_key, board), envelope)| Mail {
            reply_key,
            board,
            envelope,
            ..mail.clone()
        })
        .collect()
}

/// The refusals a client that shows them itself (XFCC's codes, docs/xfcc.md) says at once:
/// which game, whose turn, which move number, whether the move reads and is legal, whether
/// there is an offer to accept, whether the game goes on. The others — what only the rules can
/// tell of a move that was made (a false repetition claim, an offer without a move) — go to the
/// player by mail as for any letter.
pub(crate) fn shown_at_once(r: &Refusal) -> bool {
    matches!(
        r,
        Refusal::UnknownGame { .. }
            | Refusal::NoGameNamed { .. }
            | Refusal::NotAPlayer { .. }
            | Refusal::ForeignKey
            | Refusal::NotYourTurn { .. }
            | Refusal::GameOver { .. }
            | Refusal::Suspended { .. }
            | Refusal::Adjourned { .. }
            | Refusal::NotStarted { .. }
            | Refusal::WrongNumber { .. }
            | Refusal::NoOfferToAccept
            | Refusal::BadMove { .. }
    )
}

/// The words of `text` a tournament id could be: the runs of letters, digits and `-` (what an
/// id is written with, `crate::tournament_file`). A letter names a tournament when one of them
/// is its id, ASCII case ignored (`names_relay_game`; the shell reads the rotated tournaments a
/// letter names by them, `crate::app`).
///
/// ```
/// let words: Vec<&str> = fernzug::core::id_words("Partie [FAX-2026-3/7], nicht FAX-2026-31.").collect();
/// assert_eq!(words, ["Partie", "FAX-2026-3", "7", "nicht", "FAX-2026-31"]);
/// ```
pub fn id_words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
        .filter(|w| !w.is_empty())
}

/// Whether `word` (a tournament id) stands in `text` as a word of its own ([`id_words`]), ASCII
/// case ignored: not inside a longer id (`FAX-2026-3` is not in `FAX-2026-31`).
fn has_word(text: &str, word: &str) -> bool {
    id_words(text).any(|w| w.eq_ignore_ascii_case(word))
}

/// A time forfeit to claim (TO §18, §21): who, the first or the second, the days used and allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Forfeited {
    pub offender: Color,
    pub nth: u8,
    pub used: u32,
    pub allowed: u32,
}
