//! TO §31: how a game ends by itself under the FIDE rules, the claim of a threefold repetition,
//! and the stop after 50 moves without capture or pawn move (adjudication by the director).
//!
//! Interpretations (docs/rules.md §31), written here once:
//!
//! - Checkmate, stalemate, a dead position (insufficient material on both sides, FIDE 5.2.2 as
//!   far as material decides it) and a fivefold repetition (FIDE 9.6.1) end the game the moment
//!   the move that makes them is played, with the forward and receipt of that move, then the
//!   `game-end` report. Checkmate goes before everything else (FIDE 9.6: "unless the last move
//!   resulted in checkmate"), a fivefold repetition before the 50-move stop.
//! - "Same position" is FIDE 9.2.2: the same pieces on the same squares, the same side to move,
//!   the same castling rights and the same en-passant possibility (only when a capture is legal).
//! - A threefold repetition is a draw only on the explicit claim in words of the player on move
//!   (FIDE 9.2): either alone, when the current position has occurred three times, or with his
//!   own move, when the position after that move will have occurred three times (then the move is
//!   played and the game ends). A claim that does not hold is a query and nothing is played or
//!   forwarded (TO §8: the mail is doubtful) — the relay never turns a wrong claim into a draw
//!   offer. A claim together with further moves or conditional lines is doubtful as well.
//! - 50 moves (100 plies) without capture or pawn move: the game stops (`adjourned`), the
//!   `adjudication` request goes to the director with both players in copy, with the PGN attached
//!   and the FEN; the director's result ends it. The stop happens when the count reaches 100
//!   plies; should the director let the game go on, it is not stopped again for the same stretch.

use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Move, Position};

use crate::core::model::Event;
use crate::core::model::Refusal;
use crate::core::model::Step;
use crate::core::model::{AdjudicationFacts, Attachment, Mail};
use crate::core::model::{EndReason, Game, GameResult, GameStatus};
use crate::core::model::{Output, State};
use crate::core::{pgn, view};
use crate::game_ref::GameRef;
use crate::letter::{Content, Letter};
use crate::mail_kind::MailKind;

use super::resolved::Resolved;
use crate::core::door::reply::{finish, lang_for, query};

/// TO §31: 50 moves without capture or pawn move.
pub(crate) const FIFTY_MOVES_PLIES: u32 = 100;

/// How a move ended or stopped the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// Over: the result and why.
    Over {
        result: GameResult,
        reason: EndReason,
    },
    /// TO §31: stopped for the director's adjudication.
    Adjourn,
}

/// FIDE 9.2.2: the identity of a position (the FEN without the move counters).
pub(crate) fn position_key(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal)
        .to_string()
        .split(' ')
        .take(4)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Every position of the game: the start and after each ply.
fn history(game: &Game) -> Vec<Chess> {
    let mut pos = Chess::default();
    let mut positions = Vec::with_capacity(game.moves.len() + 1);
    positions.push(pos.clone());
    for m in &game.moves {
        let Some(mv) = view::move_of(&pos, &m.uci) else {
            break;
        };
        pos.play_unchecked(mv);
        positions.push(pos.clone());
    }
    positions
}

/// FIDE 9.2.2: how often `target` occurs among `positions`. The positions are told apart by
/// their Zobrist hashes first (equal positions have equal hashes); only where the hashes agree
/// are their keys ([`position_key`]) compared, so the count is exact and a game of many moves
/// writes a FEN for the repeated positions alone.
fn occurrences(positions: &[Chess], target: &Chess) -> usize {
    let hash = |p: &Chess| p.zobrist_hash::<shakmaty::zobrist::Zobrist64>(EnPassantMode::Legal);
    let (wanted, key) = (hash(target), position_key(target));
    positions
        .iter()
        .filter(|p| hash(p) == wanted && position_key(p) == key)
        .count()
}

/// How often the current position has occurred in the game (it included).
pub(crate) fn repetitions(game: &Game) -> usize {
    let positions = history(game);
    positions
        .last()
        .map_or(0, |now| occurrences(&positions, now))
}

/// What the position after the last move does to the game (TO §31, FIDE 5, 9.6).
pub(crate) fn ending_of(game: &Game) -> Option<Ending> {
    ending_in(&game.position(), repetitions(game))
}

/// What a position that has occurred `repetitions` times does to the game.
pub(crate) fn ending_in(pos: &Chess, repetitions: usize) -> Option<Ending> {
    if pos.is_checkmate() {
        return Some(Ending::Over {
            result: GameResult::for_winner(!pos.turn()),
            reason: EndReason::Checkmate,
        });
    }
    if pos.is_stalemate() {
        return Some(Ending::Over {
            result: GameResult::Draw,
            reason: EndReason::Stalemate,
        });
    }
    if pos.is_insufficient_material() {
        return Some(Ending::Over {
            result: GameResult::Draw,
            reason: EndReason::DeadPosition,
        });
    }
    // FIDE 9.6.1: a fivefold repetition ends the game by itself.
    if repetitions >= 5 {
        return Some(Ending::Over {
            result: GameResult::Draw,
            reason: EndReason::FivefoldRepetition,
        });
    }
    // TO §31: the count reaches 100 plies only through moves, never in the start position.
    if pos.halfmoves() == FIFTY_MOVES_PLIES {
        return Some(Ending::Adjourn);
    }
    None
}

/// FIDE 9.2: whether a claim of threefold repetition holds, alone (`own` = None: the current
/// position) or with the own move `own` (the position after it).
pub(crate) fn claim_holds(game: &Game, own: Option<Move>) -> (bool, usize) {
    let positions = history(game);
    let target = match own {
        None => positions.last().cloned().unwrap_or_default(),
        Some(mv) => {
            let mut pos = positions.last().cloned().unwrap_or_default();
            pos.play_unchecked(mv);
            pos
        }
    };
    let mut count = occurrences(&positions, &target);
    if own.is_some() {
        count += 1;
    }
    (count >= 3, count)
}

/// FIDE 9.2 with an own move: the claim must hold for the position after it.
pub(crate) fn check_claim(
    state: &State,
    game_ref: &GameRef,
    mut resolved: Resolved,
    c: &Content,
) -> Result<Resolved, Refusal> {
    if !c.claim_repetition {
        return Ok(resolved);
    }
    if !resolved.more.is_empty() || !c.conditional.is_empty() {
        return Err(Refusal::Contradictory);
    }
    let game = &state.games[game_ref];
    let (now_holds, _) = claim_holds(game, None);
    let (after_holds, count) = claim_holds(game, Some(resolved.mv));
    if !now_holds && !after_holds {
        return Err(Refusal::RepetitionClaimFalse { count });
    }
    resolved.claim = true;
    Ok(resolved)
}

/// FIDE 9.2 without a move: the current position must have occurred three times.
pub(crate) fn claim_repetition(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    game_ref: &GameRef,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let (holds, count) = claim_holds(&state.games[game_ref], None);
    if holds {
        finish(
            state,
            out,
            game_ref,
            GameResult::Draw,
            EndReason::ThreefoldRepetition,
            now,
            s,
        );
    } else {
        let lang = lang_for(state, &letter.from, Some(game_ref), s);
        let r = Refusal::RepetitionClaimFalse { count };
        query(state, out, letter, Some(game_ref), lang, r, Step { now, s });
    }
}

/// TO §31: 50 moves without capture or pawn move. The game stops; the director gets the
/// `adjudication` request with the PGN and the FEN, both players in copy.
pub(crate) fn adjourn(state: &mut State, out: &mut Output, game_ref: &GameRef, at: Step<'_>) {
    let (now, s) = (at.now, at.s);
    if !state.tournaments.contains_key(&game_ref.tournament) {
        return;
    }
    let Some(game) = state.games.get_mut(game_ref) else {
        return;
    };
    game.status = GameStatus::Adjourned;
    game.draw_offer = None;
    game.conditional.clear();
    let reason = "50 moves without capture or pawn move";
    state.log_event(
        out,
        game_ref,
        Event::Adjourned {
            at: now,
            reason: reason.to_string(),
        },
    );
    let t = &state.tournaments[&game_ref.tournament];
    let game = &state.games[game_ref];
    let lang = s.default_lang;
    let pgn_text = pgn::game_pgn(game, t, s.tz);
    let plies = game.moves.len();
    let since = plies.saturating_sub(FIFTY_MOVES_PLIES as usize);
    let last_irreversible = since
        .checked_sub(1)
        .and_then(|p| view::ply_text(game, p, crate::notation::Form::default_for(lang)));
    // The last move is the context's: the director's form, as `last_irreversible`.
    let data = AdjudicationFacts {
        context: view::game_context(game, t, None, lang, now, s.tz),
        recipient: t.director.name.clone(),
        pgn: pgn_text.clone(),
        moves_without: FIFTY_MOVES_PLIES / 2,
        last_irreversible,
    };
    let fen = game.fen();
    let in_reply_to = game.last_forward.clone();
    let white = t.recipient(&game.players.white);
    let black = t.recipient(&game.players.black);
    let message_id = state.meta.next_message_id(s, "adjudication");
    out.mails.push(Mail {
        cc: vec![white, black],
        game: Some(game_ref.clone()),
        fen: Some(fen),
        in_reply_to,
        attachments: vec![Attachment::pgn(game_ref, pgn_text)],
        ..Mail::new(
            MailKind::Adjudication,
            vec![t.director_recipient()],
            lang,
            message_id,
            data,
        )
    });
    out.log.push(format!(
        "{game_ref}: stopped for adjudication after 50 moves without capture or pawn move (TO §31)"
    ));
}
