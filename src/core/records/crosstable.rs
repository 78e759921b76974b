//! The crosstable of a tournament (Kreuztabelle): every player's results against every other,
//! points, Sonneborn-Berger and games still open. Pure: a tournament and its games in, a table out.
//!
//! Interpretation, fixed here once:
//! - Only finished games with a result `1-0`, `0-1` or `1/2-1/2` score; a game without one (running,
//!   suspended, adjourned, or over with `*`) is open and shows as `*` in the table.
//! - Points: 1 for a win, ½ for a draw. Sonneborn-Berger: the sum, over every scored game, of the
//!   points made in it times the opponent's total points (a full opponent's score for a win, half of
//!   it for a draw), the usual FIDE tie-break of round robins.
//! - Ranking: points, then Sonneborn-Berger, both descending; equal on both share the rank; within a
//!   tie the starting order (the tournament file's order) decides the listing only.
//! - Rows and columns are in ranking order; a cell is the row player's result(s) against the column
//!   player, in game order (two games between the same pair show as `1½`).
//! - Points are counted in half points and Sonneborn-Berger in quarter points, so nothing is rounded.

use shakmaty::Color;

use crate::core::model::{Crosstable, Game, GameResult, Row, Tournament};

/// The half points `color` made with `result`, if the result scores.
pub fn half_points(result: Option<GameResult>, color: Color) -> Option<u32> {
    result.map(|r| r.half_points(color))
}

/// The crosstable of `t` from its games (games of other tournaments are ignored).
pub fn crosstable<'a>(t: &Tournament, games: impl IntoIterator<Item = &'a Game>) -> Crosstable {
    let n = t.players.len();
    let index = |email: &str| t.players.iter().position(|p| p.email == email);
    let mut games: Vec<&Game> = games
        .into_iter()
        .filter(|g| g.id.tournament == t.id)
        .collect();
    games.sort_by_key(|g| g.id.number);
    // results[i][j]: what i made against j, per game, in game order (None = open).
    let mut results: Vec<Vec<Vec<Option<u32>>>> = vec![vec![Vec::new(); n]; n];
    let mut half = vec![0u32; n];
    let mut played = vec![0u32; n];
    let mut open = vec![0u32; n];
    for g in &games {
        let (Some(w), Some(b)) = (index(&g.players.white), index(&g.players.black)) else {
            continue;
        };
        let ws = half_points(g.result, Color::White);
        let bs = half_points(g.result, Color::Black);
        results[w][b].push(ws);
        results[b][w].push(bs);
        for (p, s) in [(w, ws), (b, bs)] {
            match s {
                Some(s) => {
                    half[p] += s;
                    played[p] += 1;
                }
                None => open[p] += 1,
            }
        }
    }
    // Sonneborn-Berger: Σ (own half points in the game × the opponent's half points) / 4.
    let sb: Vec<u32> = (0..n)
        .map(|i| {
            (0..n)
                .map(|j| {
                    results[i][j]
                        .iter()
                        .flatten()
                        .map(|s| s * half[j])
                        .sum::<u32>()
                })
                .sum()
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        half[b]
            .cmp(&half[a])
            .then(sb[b].cmp(&sb[a]))
            .then(a.cmp(&b))
    });
    let mut rows = Vec::with_capacity(n);
    for (pos, &i) in order.iter().enumerate() {
        let rank = match rows.last() {
            Some(Row {
                rank,
                half_points,
                sb_quarters,
                ..
            }) if *half_points == half[i] && *sb_quarters == sb[i] => *rank,
            _ => pos + 1,
        };
        let cells = order
            .iter()
            .map(|&j| {
                if i == j {
                    "×".to_string()
                } else {
                    results[i][j]
                        .iter()
                        .map(|r| match r {
                            Some(2) => "1".to_string(),
                            Some(1) => "½".to_string(),
                            Some(_) => "0".to_string(),
                            None => "*".to_string(),
                        })
                        .collect()
                }
            })
            .collect();
        rows.push(Row {
            rank,
            start: i,
            name: t.players[i].name.clone(),
            email: t.players[i].email.clone(),
            half_points: half[i],
            sb_quarters: sb[i],
            played: played[i],
            open: open[i],
            cells,
        });
    }
    Crosstable {
        tournament: t.id.clone(),
        name: t.name.clone(),
        rows,
    }
}
