//! PGN of a game (TO §27, §28): the tournament named, each move with its receipt and dispatch
//! dates and the days used, as comments in the manner of ICCF's `%ccsnt`.

use chrono_tz::Tz;

use crate::core::game::Game;
use crate::core::state::Tournament;

/// Escapes a PGN tag value.
fn tag(value: &str) -> String {
    value.replace('\\', "\\\\").replace('"', "\\\"")
}

/// The PGN of one game. TO §28: the tournament is always named (Event).
pub fn game_pgn(game: &Game, t: &Tournament, tz: Tz) -> String {
    let white = t.recipient(&game.players.white).name;
    let black = t.recipient(&game.players.black).name;
    let result = game.result.clone().unwrap_or_else(|| "*".to_string());
    let mut out = String::new();
    let tags = [
        ("Event", t.name.clone()),
        ("Site", format!("Fernschach {} ({})", t.id, t.rules.name())),
        ("Date", t.start.format("%Y.%m.%d").to_string()),
        ("Round", game.id.number.to_string()),
        ("White", white),
        ("Black", black),
        ("Result", result.clone()),
        ("EventDate", t.start.format("%Y.%m.%d").to_string()),
        ("TimeControl", format!("{}d/10", t.rules.days_per_period())),
        ("Annotator", format!("fernzug {}", game.id)),
    ];
    for (k, v) in tags {
        out.push_str(&format!("[{k} \"{}\"]\n", tag(&v)));
    }
    if let Some(reason) = &game.end_reason {
        out.push_str(&format!("[Termination \"{}\"]\n", tag(reason)));
    }
    out.push('\n');
    let mut line = String::new();
    let mut words: Vec<String> = Vec::new();
    for (i, m) in game.moves.iter().enumerate() {
        if i % 2 == 0 {
            words.push(format!("{}.", Game::number_of_ply(i)));
        } else if i > 0 && words.last().is_some_and(|w| w.ends_with('}')) {
            words.push(format!("{}...", Game::number_of_ply(i)));
        }
        words.push(m.san.clone());
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
    words.push(result);
    for w in words {
        if !line.is_empty() && line.len() + 1 + w.len() > 79 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(&w);
    }
    out.push_str(&line);
    out.push_str("\n\n");
    out
}
