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

use serde_json::{Value, json};
use shakmaty::Color;

use crate::core::model::Tournament;
use crate::core::model::{Game, GameResult};
use crate::lang::Lang;

/// One player's line of the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// The rank; players equal on points and Sonneborn-Berger share it.
    pub rank: usize,
    /// Position in the tournament file (0-based): the starting number minus one.
    pub start: usize,
    pub name: String,
    pub email: String,
    /// Points in half points (3 = 1½).
    pub half_points: u32,
    /// Sonneborn-Berger in quarter points (9 = 2¼).
    pub sb_quarters: u32,
    /// Games finished with a result.
    pub played: u32,
    /// Games not finished (or finished without a result).
    pub open: u32,
    /// Per column (ranking order): the row player's results against that player, e.g. `1½`, `*`,
    /// `×` on the diagonal, empty where they do not meet.
    pub cells: Vec<String>,
}

/// A tournament's crosstable, rows in ranking order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crosstable {
    pub tournament: String,
    pub name: String,
    pub rows: Vec<Row>,
}

/// The half points `color` made with `result`, if the result scores.
pub fn half_points(result: Option<GameResult>, color: Color) -> Option<u32> {
    result.map(|r| r.half_points(color))
}

/// `2½`, `½`, `3`.
pub fn points_text(half: u32) -> String {
    match (half / 2, half % 2) {
        (0, 1) => "½".into(),
        (n, 1) => format!("{n}½"),
        (n, _) => n.to_string(),
    }
}

/// `2.25` (en) or `2,25` (de); whole numbers without decimals.
pub fn quarters_text(q: u32, lang: Lang) -> String {
    let whole = q / 4;
    let frac = match q % 4 {
        0 => return whole.to_string(),
        1 => "25",
        2 => "5",
        _ => "75",
    };
    let sep = if lang == Lang::De { ',' } else { '.' };
    format!("{whole}{sep}{frac}")
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

/// Pads `s` to `width` characters (not bytes: names carry umlauts).
fn pad(s: &str, width: usize) -> String {
    let len = s.chars().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(len)))
}

fn pad_left(s: &str, width: usize) -> String {
    let len = s.chars().count();
    format!("{}{s}", " ".repeat(width.saturating_sub(len)))
}

impl Crosstable {
    /// The table as monospaced text, headed in `lang`, one line per player, ending in a newline.
    pub fn text(&self, lang: Lang) -> String {
        let (h_rank, h_name, h_pts, h_sb, h_open) = match lang {
            Lang::De => ("Pl.", "Name", "Pkt.", "SB", "offen"),
            Lang::En => ("No.", "Name", "Pts", "SB", "open"),
        };
        let name_w = self
            .rows
            .iter()
            .map(|r| r.name.chars().count())
            .max()
            .unwrap_or(0)
            .max(h_name.len());
        let cell_w = self
            .rows
            .iter()
            .flat_map(|r| r.cells.iter().map(|c| c.chars().count()))
            .max()
            .unwrap_or(1)
            .max(self.rows.len().to_string().len());
        let pts: Vec<String> = self
            .rows
            .iter()
            .map(|r| points_text(r.half_points))
            .collect();
        let sbs: Vec<String> = self
            .rows
            .iter()
            .map(|r| quarters_text(r.sb_quarters, lang))
            .collect();
        let pts_w = pts
            .iter()
            .map(|p| p.chars().count())
            .max()
            .unwrap_or(0)
            .max(h_pts.len());
        let sb_w = sbs
            .iter()
            .map(|p| p.chars().count())
            .max()
            .unwrap_or(0)
            .max(h_sb.len());
        let mut out = String::new();
        let mut head = format!("{} {}", pad(h_rank, 3), pad(h_name, name_w));
        for k in 1..=self.rows.len() {
            head.push(' ');
            head.push_str(&pad_left(&k.to_string(), cell_w));
        }
        head.push_str(&format!(
            "  {}  {}  {}",
            pad_left(h_pts, pts_w),
            pad_left(h_sb, sb_w),
            h_open
        ));
        out.push_str(head.trim_end());
        out.push('\n');
        for (i, r) in self.rows.iter().enumerate() {
            let mut line = format!(
                "{} {}",
                pad_left(&format!("{}.", r.rank), 3),
                pad(&r.name, name_w)
            );
            for c in &r.cells {
                line.push(' ');
                line.push_str(&pad_left(if c.is_empty() { "-" } else { c }, cell_w));
            }
            line.push_str(&format!(
                "  {}  {}  {}",
                pad_left(&pts[i], pts_w),
                pad_left(&sbs[i], sb_w),
                pad_left(&r.open.to_string(), h_open.len())
            ));
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }

    /// The table as JSON (for templates and tools).
    pub fn json(&self, lang: Lang) -> Value {
        json!({
            "tournament": self.tournament,
            "name": self.name,
            "text": self.text(lang),
            "rows": self.rows.iter().map(|r| json!({
                "rank": r.rank,
                "start": r.start + 1,
                "name": r.name,
                "email": r.email,
                "points": r.half_points as f64 / 2.0,
                "points_text": points_text(r.half_points),
                "sonneborn_berger": r.sb_quarters as f64 / 4.0,
                "sonneborn_berger_text": quarters_text(r.sb_quarters, lang),
                "played": r.played,
                "open": r.open,
                "cells": r.cells,
            })).collect::<Vec<_>>(),
        })
    }
}
