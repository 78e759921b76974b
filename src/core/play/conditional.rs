//! Conditional moves (Eventualzüge, TO §6/§7): a player proposes, with his move, one or more
//! lines "if you play X, I play Y, …"; the relay checks them, forwards them to the partner, keeps
//! them with the game and plays the proposer's reply at once when the partner's move matches.
//!
//! Interpretations (docs/rules.md §6/§7), written here once:
//!
//! - A line starts with the partner's reply to the proposer's move (the ply right after the last
//!   move of the proposer's mail) and alternates colours, every move numbered as in the game and
//!   legal in sequence. It must end with a move of the proposer: a line that ends with the
//!   partner's move says nothing the relay could do. A wrong number, an impossible move or such an
//!   end is a query naming the move; nothing of the mail is played or forwarded (TO §8).
//! - Two lines of one mail that agree up to a move of the partner and then give two different
//!   replies of the proposer contradict each other: doubtful, a query (TO §2, §8).
//! - Lines are binding only as far as the partner answers them (TO §6): a move that matches the
//!   next move of a line keeps it, every other move drops it, the first deviation drops the rest.
//! - The proposer's conditional reply is played the moment the partner's move arrives, with
//!   0 days for the proposer (TO §7); the partner's clock restarts at that moment, the moment the
//!   relay sends him the reply. If the partner's own new lines answer that reply, they are played
//!   on in the same way, for as long as some line has the next move.
//! - The partner may answer with a whole line in one mail, in numeric order (TO §7): his move, the
//!   proposer's conditional reply, his next move, … Each move of the proposer's colour must be the
//!   proposer's conditional reply at that point; the partner's own moves may leave the line (then
//!   the rest is dropped). His thinking time counts on his highest-numbered move; his earlier
//!   moves of that mail and the proposer's replies cost 0 days.
//! - A draw offer made with a move that is answered at once by a conditional reply lapses with
//!   that reply: the partner has moved (TO §2).
//! - Conditional lines only come with an own move (TO §6: "with his move"); alone they are a query.

use shakmaty::{Chess, Color, Move, Position};

use crate::core::model::Refusal;
use crate::core::model::State;
use crate::core::model::{ConditionalLine, Game};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::letter::{Content, MoveToken};
use crate::notation::{self, Form};

use super::resolved::{Resolved, read_in_usual_form};

/// The 0-based ply a numbered move stands for: `1.` is 0, `1...` is 1, `13...` is 25.
pub(crate) fn ply_of(t: &MoveToken) -> Option<usize> {
    let n = usize::try_from(t.number).ok()?.checked_sub(1)?;
    Some(n * 2 + usize::from(t.color == Color::Black))
}

/// The colour that makes ply `ply`.
pub(crate) fn color_of_ply(ply: usize) -> Color {
    if ply.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

fn label(t: &MoveToken) -> String {
    view::numbered(t.number, t.color, &t.text)
}

fn expected_at(ply: usize) -> String {
    format!(
        "{} …",
        view::number_prefix(Game::number_of_ply(ply), color_of_ply(ply))
    )
}

/// A line as the proposer wrote it, for a query.
fn written(line: &[MoveToken]) -> String {
    line.iter().map(label).collect::<Vec<_>>().join(" ")
}

/// TO §6: checks the lines `proposer` wrote, to be played from `pos` (the position after his
/// mail's moves, whose next ply is `next_ply`). Returns each line as UCI moves.
pub(crate) fn check_lines(
    lines: &[Vec<MoveToken>],
    proposer: Color,
    pos: &Chess,
    next_ply: usize,
    form: Form,
) -> Result<Vec<Vec<String>>, Refusal> {
    let mut checked: Vec<(Vec<String>, &[MoveToken])> = Vec::new();
    for line in lines {
        let mut p = pos.clone();
        let mut ucis = Vec::new();
        for (i, t) in line.iter().enumerate() {
            let ply = next_ply + i;
            if ply_of(t) != Some(ply) {
                return Err(Refusal::ConditionalWrongNumber {
                    written: label(t),
                    expected: expected_at(ply),
                    line: written(line),
                });
            }
            let reading = read_in_usual_form(&t.text, &p, form).map_err(|error| {
                Refusal::ConditionalBadMove {
                    number: label(t),
                    error,
                }
            })?;
            ucis.push(Game::uci_of(reading.mv));
            p.play_unchecked(reading.mv);
        }
        if line.len() < 2 || line.last().map(|t| t.color) != Some(proposer) {
            return Err(Refusal::ConditionalIncomplete {
                line: written(line),
            });
        }
        // Index 0 is the partner's move, 1 the proposer's reply, …: two lines that agree up to a
        // partner's move and then reply differently contradict each other.
        for (other, other_line) in &checked {
            let common = other.iter().zip(&ucis).take_while(|(a, b)| a == b).count();
            if common < other.len().min(ucis.len()) && common % 2 == 1 {
                return Err(Refusal::ConditionalConflict {
                    first: other_line.get(common).map(label).unwrap_or_default(),
                    second: line.get(common).map(label).unwrap_or_default(),
                });
            }
        }
        checked.push((ucis, line));
    }
    Ok(checked.into_iter().map(|(u, _)| u).collect())
}

/// TO §7: the moves after the own move in a mail that accepts the partner's conditional line:
/// in numeric order from ply `first_ply` on; each partner's move must be his conditional reply at
/// that point. `pos` is the position after the own move. Returns the moves.
pub(crate) fn check_extension(
    game: &Game,
    color: Color,
    own_uci: &str,
    pos: &Chess,
    tokens: &[&MoveToken],
    form: Form,
) -> Result<Vec<Move>, Refusal> {
    let start = game.moves.len();
    // The partner's lines still standing after the own move.
    let mut standing: Vec<&[String]> = game
        .conditional
        .iter()
        .filter(|l| Color::from(l.by) == !color && l.ply == start)
        .filter(|l| l.moves.first().map(String::as_str) == Some(own_uci))
        .map(|l| l.moves.get(1..).unwrap_or(&[]))
        .collect();
    let mut sorted: Vec<&MoveToken> = tokens.to_vec();
    sorted.sort_by_key(|t| ply_of(t));
    let mut p = pos.clone();
    let mut moves = Vec::new();
    for (i, t) in sorted.iter().enumerate() {
        let ply = start + 1 + i;
        if ply_of(t) != Some(ply) {
            return Err(Refusal::WrongNumber {
                expected: expected_at(ply),
                written: label(t),
            });
        }
        let reading = read_in_usual_form(&t.text, &p, form).map_err(|error| Refusal::BadMove {
            number: label(t),
            error,
        })?;
        let uci = Game::uci_of(reading.mv);
        if t.color != color && !standing.iter().any(|l| l.first() == Some(&uci)) {
            return Err(Refusal::NotAConditionalMove { written: label(t) });
        }
        standing = standing
            .into_iter()
            .filter(|l| l.first() == Some(&uci))
            .map(|l| l.get(1..).unwrap_or(&[]))
            .collect();
        moves.push(reading.mv);
        p.play_unchecked(reading.mv);
    }
    Ok(moves)
}

/// TO §6: checks the conditional lines of a mail against the position after its moves.
pub(crate) fn check_conditional(
    state: &State,
    game_ref: &GameRef,
    color: Color,
    mut resolved: Resolved,
    c: &Content,
) -> Result<Resolved, Refusal> {
    if c.conditional.is_empty() {
        return Ok(resolved);
    }
    let game = &state.games[game_ref];
    let mut pos = game.position();
    for mv in std::iter::once(&resolved.mv).chain(&resolved.more) {
        pos.play_unchecked(*mv);
    }
    let next_ply = game.moves.len() + 1 + resolved.more.len();
    resolved.lines = check_lines(&c.conditional, color, &pos, next_ply, resolved.form)?;
    Ok(resolved)
}

/// Stores the lines `by` proposed with the mail `message_id`, starting at the game's next ply.
pub(crate) fn propose(game: &mut Game, by: Color, lines: &[Vec<String>], message_id: &str) {
    let ply = game.moves.len();
    for moves in lines {
        game.conditional.push(ConditionalLine {
            by: by.into(),
            ply,
            moves: moves.clone(),
            message_id: message_id.to_string(),
        });
    }
}

/// TO §6: a move `uci` was played at ply `ply`. Lines that had it as their next move go on, the
/// others are dropped. Returns the proposers who had lines before and have none left because the
/// move left all of them (a line played to its end is not "dropped").
pub(crate) fn advance(game: &mut Game, ply: usize, uci: &str) -> Vec<Color> {
    let mut had = Vec::new();
    let mut kept = Vec::new();
    let lines = std::mem::take(&mut game.conditional);
    for mut l in lines {
        let by = Color::from(l.by);
        if !had.contains(&by) {
            had.push(by);
        }
        if l.ply == ply && l.moves.first().map(String::as_str) == Some(uci) {
            kept.push(by);
            l.moves.remove(0);
            l.ply += 1;
            if !l.moves.is_empty() {
                game.conditional.push(l);
            }
        }
    }
    had.retain(|c| !kept.contains(c));
    had
}

/// The conditional reply due now: a line of the side to move whose next move is for this ply.
/// Returns the move and the Message-ID of the mail that proposed it.
pub(crate) fn due(game: &Game) -> Option<(Move, String)> {
    let ply = game.moves.len();
    let mover = game.to_move();
    let line = game
        .conditional
        .iter()
        .find(|l| Color::from(l.by) == mover && l.ply == ply && !l.moves.is_empty())?;
    let mv = view::move_of(&game.position(), line.moves.first()?)?;
    Some((mv, line.message_id.clone()))
}

/// The pending lines of the game, each written from the current position in `form`,
/// e.g. `13... Sxe4 14. Lxe7 14... Dxe7 15. Sd5`.
pub(crate) fn line_texts(game: &Game, form: Form) -> Vec<String> {
    let start = game.position();
    let ply = game.moves.len();
    game.conditional
        .iter()
        .filter(|l| l.ply == ply)
        .map(|l| {
            let mut pos = start.clone();
            let mut words = Vec::new();
            for (i, uci) in l.moves.iter().enumerate() {
                let Some(mv) = view::move_of(&pos, uci) else {
                    break;
                };
                let p = ply + i;
                words.push(view::numbered(
                    Game::number_of_ply(p),
                    color_of_ply(p),
                    &notation::write_move(&pos, &mv, form),
                ));
                pos.play_unchecked(mv);
            }
            words.join(" ")
        })
        .collect()
}
