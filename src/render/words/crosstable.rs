//! The words of a [`Crosstable`]: the monospaced table with its headings, and its data for
//! templates, in both languages.

use serde_json::{Value, json};

use crate::core::model::Crosstable;
use crate::lang::Lang;

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

/// Pads `s` to `width` characters (not bytes: names carry umlauts).
fn pad(s: &str, width: usize) -> String {
    let len = s.chars().count();
    format!("{s}{}", " ".repeat(width.saturating_sub(len)))
}

fn pad_left(s: &str, width: usize) -> String {
    let len = s.chars().count();
    format!("{}{s}", " ".repeat(width.saturating_sub(len)))
}

/// The table as monospaced text, headed in `lang`, one line per player, ending in a newline.
pub fn text(table: &Crosstable, lang: Lang) -> String {
    let (h_rank, h_name, h_pts, h_sb, h_open) = match lang {
        Lang::De => ("Pl.", "Name", "Pkt.", "SB", "offen"),
        Lang::En => ("No.", "Name", "Pts", "SB", "open"),
    };
    let name_w = table
        .rows
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(0)
        .max(h_name.len());
    let cell_w = table
        .rows
        .iter()
        .flat_map(|r| r.cells.iter().map(|c| c.chars().count()))
        .max()
        .unwrap_or(1)
        .max(table.rows.len().to_string().len());
    let pts: Vec<String> = table
        .rows
        .iter()
        .map(|r| points_text(r.half_points))
        .collect();
    let sbs: Vec<String> = table
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
    for k in 1..=table.rows.len() {
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
    for (i, r) in table.rows.iter().enumerate() {
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
pub fn data(table: &Crosstable, lang: Lang) -> Value {
    json!({
        "tournament": table.tournament,
        "name": table.name,
        "text": text(table, lang),
        "rows": table.rows.iter().map(|r| json!({
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
