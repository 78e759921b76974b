//! PGN of a game (TO §27, §28): the tournament named, each move with its receipt and dispatch
//! times and the days used, as comments in the manner of ICCF's `%ccsnt`.
//!
//! Interpretation (TO §27/§28), fixed here once:
//! - The Seven Tag Roster comes first, in its order: `Event` is the tournament's name (§28: a
//!   published game always names its event), `Site` names the relay and the tournament id, `Date` is
//!   the local day the game's clocks started, `Round` is the game number within the tournament (the
//!   `N` of `TOURNAMENT/N`), `White`/`Black` the players' names, `Result` `1-0`, `0-1`, `1/2-1/2` or
//!   `*` while the game runs.
//! - Then `EventDate` (the tournament's start), `Mode "EM"` (PGN standard 9.7: electronic mail),
//!   `TimeControl` as the standard `moves/seconds` (`10/3456000` = 10 moves in 40 days; the relay
//!   counts whole days, TO §12 / Fax 1.4), `PlyCount`, and once the game is over `Termination` with
//!   a value of the PGN standard (`normal`, `time forfeit`, `adjudication`, …).
//! - `Seal` is the hash of the last event of the game's log when the PGN was written
//!   (TO §29: `fernzug verify GAME` recomputes it; [`crate::core::model::Seal`]).
//! - Each move carries one comment: `[%ccrt DATE,TIME]` when the mover received the partner's move
//!   (TO §14 (a); for White's first move the clock start), `[%ccsnt DATE,TIME]` the relay's postmark
//!   of his move (TO §14 (b), as ICCF writes `%ccsnt`), both local time of the relay's zone, and
//!   `days N` the days used (TO §14 (c)), with `charged M` where TO §13 charged more.
//! - How the game ended, in words (`checkmate`, `resignation`, …), stands in a comment just before
//!   the result.
//! - Moves are written in SAN with English letters and check signs, as the PGN standard wants,
//!   lines at most 79 characters; tag values escape `\` and `"` and lose control characters.

use chrono_tz::Tz;
use shakmaty::san::SanPlus;

use crate::core::model::Tournament;
use crate::core::model::{EndReason, Game, Record, SideRecord};

/// Escapes a PGN tag value: `\` and `"` get a backslash, control characters become spaces.
fn tag(value: &str) -> String {
    value
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

/// A text that may stand inside a `{…}` comment: no braces, no line breaks.
fn comment_text(value: &str) -> String {
    value
        .chars()
        .map(|c| match c {
            '{' => '(',
            '}' => ')',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect()
}

/// The PGN of one game. TO §28: the tournament is always named (Event).
pub fn game_pgn(game: &Game, t: &Tournament, tz: Tz) -> String {
    let white = t.recipient(&game.players.white).name;
    let black = t.recipient(&game.players.black).name;
    let result = game
        .result
        .map_or_else(|| "*".to_string(), |r| r.to_string());
    let mut out = String::new();
    let seconds = u64::from(t.rules.days_per_period()) * 86_400;
    let mut tags = vec![
        ("Event", t.name.clone()),
        ("Site", format!("Fernschach {} ({})", t.id, t.rules.name())),
        (
            "Date",
            t.clock_start
                .with_timezone(&tz)
                .format("%Y.%m.%d")
                .to_string(),
        ),
        ("Round", game.id.number.to_string()),
        ("White", white),
        ("Black", black),
        ("Result", result.clone()),
        ("EventDate", t.start.format("%Y.%m.%d").to_string()),
        ("Mode", "EM".to_string()),
        ("TimeControl", format!("10/{seconds}")),
        ("PlyCount", game.moves.len().to_string()),
    ];
    if let Some(reason) = game.end_reason {
        tags.push(("Termination", reason.termination().to_string()));
    }
    if !game.seal.is_empty() {
        tags.push(("Seal", game.seal.clone()));
    }
    for (k, v) in tags {
        out.push_str(&format!("[{k} \"{}\"]\n", tag(&v)));
    }
    out.push('\n');
    let mut words: Vec<String> = Vec::new();
    let mut pos = shakmaty::Chess::default();
    for (i, m) in game.moves.iter().enumerate() {
        if i % 2 == 0 {
            words.push(format!("{}.", Game::number_of_ply(i)));
        } else if words.last().is_some_and(|w| w.ends_with('}')) {
            words.push(format!("{}...", Game::number_of_ply(i)));
        }
        // SAN with check and mate signs, from the position; the stored SAN if the move is not legal
        // there (which the core never lets happen).
        let san = match crate::core::view::move_of(&pos, &m.uci) {
            Some(mv) => SanPlus::from_move_and_play_unchecked(&mut pos, mv).to_string(),
            None => m.san.clone(),
        };
        words.push(san);
        words.push(format!(
            "{{[%ccrt {}] [%ccsnt {}] days {}{}}}",
            m.received.with_timezone(&tz).format("%Y.%m.%d,%H:%M"),
            m.sent.with_timezone(&tz).format("%Y.%m.%d,%H:%M"),
            m.days_used,
            if m.charged != m.days_used {
                format!(" charged {}", m.charged)
            } else {
                String::new()
            }
        ));
    }
    if let Some(reason) = game.end_reason {
        words.push(format!("{{{}}}", comment_text(reason.as_str())));
    }
    words.push(result);
    // The standard wants lines under 80 characters; a move's comment (about 60) stays whole.
    let mut line = String::new();
    for w in &words {
        if !line.is_empty() && line.len() + 1 + w.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(w);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}

/// What the `game-end` report (TO §27) says about the whole game besides the PGN: its length and
/// each side's thinking time in days (used, and charged where TO §13 charged more), and the days
/// of the first and the last move, in the reader's writing.
pub fn record(game: &Game, t: &Tournament, tz: Tz) -> Record {
    let side = |white: bool| {
        let moves = game
            .moves
            .iter()
            .enumerate()
            .filter(|(i, _)| (i % 2 == 0) == white)
            .map(|(_, m)| m);
        let (mut used, mut charged, mut count) = (0u32, 0u32, 0u32);
        for m in moves {
            used += m.days_used;
            charged += m.charged;
            count += 1;
        }
        SideRecord {
            moves: count,
            days_used: used,
            days_charged: charged,
        }
    };
    let day = |at: chrono::DateTime<chrono::Utc>| {
        crate::core::view::day(crate::core::view::local_date(at, tz))
    };
    Record {
        plies: game.moves.len(),
        full_moves: game.moves.len().div_ceil(2),
        white: side(true),
        black: side(false),
        started: day(t.clock_start),
        last_move_at: game.moves.last().map(|m| day(m.sent)),
        termination: game.end_reason.map(EndReason::termination),
        seal: game.seal.clone(),
    }
}
