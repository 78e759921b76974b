//! The board as a picture (docs/contract.md "Pictures"): the HTML part of every mail that carries a
//! position, beside its text part.
//!
//! The HTML part shows the same text, with the text diagram replaced by the board: an HTML table
//! of 8 × 8 cells, seen from the recipient's side (a director's from White's), the squares of
//! the last move marked, the files and ranks on the edges. A table, not an image: webmails
//! (Gmail, Outlook) strip `<style>` blocks and SVG and hide remote or inline images until the
//! reader allows them, but every client shows a table whose colours stand in `bgcolor`
//! attributes and inline styles. The pieces are the Unicode chess figures (U+2654–U+265F),
//! which every system font set has, each followed by U+FE0E so that no phone shows an emoji.
//!
//! ```
//! let html = fernzug::render::board::board_table(
//!     "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
//!     shakmaty::Color::White,
//!     Some("e2e4"),
//! )
//! .unwrap();
//! assert!(html.contains(r#"data-square="e4""#));
//! assert!(html.contains("\u{2659}")); // a white pawn
//! ```

use std::fmt::Write;

use shakmaty::fen::Fen;
use shakmaty::{Color, File, Piece, Rank, Role, Square};

/// The colour of a light square, a dark one, and each when the last move touched it.
const LIGHT: &str = "#f0d9b5";
const DARK: &str = "#b58863";
const LIGHT_MOVED: &str = "#cdd26a";
const DARK_MOVED: &str = "#aaa23a";
/// The size of a square in CSS pixels.
const SQUARE: u32 = 40;

/// The board of `fen` as an HTML table seen from `viewer`'s side, the squares of `last` (the
/// last move in UCI, `e2e4`) marked. `None` when `fen` is no position.
pub fn board_table(fen: &str, viewer: Color, last: Option<&str>) -> Option<String> {
    let board = fen.parse::<Fen>().ok()?.into_setup().board;
    let marked = marked_squares(last);
    let mut files: Vec<File> = File::ALL.to_vec();
    let mut ranks: Vec<Rank> = Rank::ALL.to_vec();
    match viewer {
        Color::White => ranks.reverse(),
        Color::Black => files.reverse(),
    }
    let edge =
        "font-family:Arial,Helvetica,sans-serif;font-size:12px;color:#555555;text-align:center";
    let file_row = {
        let mut row = String::from("<tr><td></td>");
        for f in &files {
            row.push_str(&format!(
                "<td align=\"center\" height=\"18\" style=\"{edge}\">{}</td>",
                f.char()
            ));
        }
        row.push_str("<td></td></tr>\n");
        row
    };
    let mut out = String::with_capacity(12_000);
    out.push_str(
        "<table role=\"presentation\" cellpadding=\"0\" cellspacing=\"0\" border=\"0\" \
         style=\"border-collapse:collapse;margin:8px 0;color:#000000;text-align:center;\
         font-family:'DejaVu Sans','Segoe UI Symbol','Arial Unicode MS',sans-serif\">\n",
    );
    out.push_str(&file_row);
    for r in &ranks {
        let rank_cell = format!(
            "<td width=\"18\" align=\"center\" style=\"{edge};width:18px\">{}</td>\n",
            r.char()
        );
        out.push_str("<tr>\n");
        out.push_str(&rank_cell);
        for f in &files {
            let sq = Square::from_coords(*f, *r);
            let light = sq.is_light();
            let colour = match (light, marked.contains(&sq)) {
                (true, false) => LIGHT,
                (false, false) => DARK,
                (true, true) => LIGHT_MOVED,
                (false, true) => DARK_MOVED,
            };
            let figure = board.piece_at(sq).map(figure).unwrap_or("");
            // Writing into a String cannot fail.
            let _ = writeln!(
                out,
                "<td data-square=\"{sq}\" width=\"{SQUARE}\" height=\"{SQUARE}\" align=\"center\" \
                 bgcolor=\"{colour}\" style=\"width:{SQUARE}px;height:{SQUARE}px;background-color:{colour};\
                 font-size:30px;line-height:{SQUARE}px\">{figure}</td>"
            );
        }
        out.push_str(&rank_cell);
        out.push_str("</tr>\n");
    }
    out.push_str(&file_row);
    out.push_str("</table>\n");
    Some(out)
}

/// The board of `fen` for a web page (`crate::pages`): the same squares, colours, marks and
/// figures as [`board_table`], seen from White's side, styled by classes of the page's style
/// sheet instead of the attributes mail clients need (`l`/`d` a light or dark square, `m` a
/// square of the last move), with a caption (`caption`, the pieces in words, for a screen reader).
pub fn board_web(fen: &str, last: Option<&str>, caption: &str) -> Option<String> {
    let board = fen.parse::<Fen>().ok()?.into_setup().board;
    let marked = marked_squares(last);
    let mut out = String::with_capacity(6_000);
    out.push_str("<table class=\"board\">\n");
    let _ = writeln!(out, "<caption>{}</caption>", escape(caption));
    let files = "<tr><td></td><th>a</th><th>b</th><th>c</th><th>d</th><th>e</th><th>f</th><th>g</th><th>h</th><td></td></tr>\n";
    out.push_str(files);
    for r in Rank::ALL.iter().rev() {
        let _ = write!(out, "<tr><th>{}</th>", r.char());
        for f in File::ALL {
            let sq = Square::from_coords(f, *r);
            let class = match (sq.is_light(), marked.contains(&sq)) {
                (true, false) => "l",
                (false, false) => "d",
                (true, true) => "l m",
                (false, true) => "d m",
            };
            let figure = board.piece_at(sq).map(figure).unwrap_or("");
            let _ = write!(
                out,
                "<td class=\"{class}\" data-square=\"{sq}\">{figure}</td>"
            );
        }
        let _ = writeln!(out, "<th>{}</th></tr>", r.char());
    }
    out.push_str(files);
    out.push_str("</table>\n");
    Some(out)
}

/// The squares of the last move `last` (UCI, `e2e4`): where it came from and went to.
fn marked_squares(last: Option<&str>) -> Vec<Square> {
    last.map(|uci| {
        [uci.get(0..2), uci.get(2..4)]
            .into_iter()
            .flatten()
            .filter_map(|s| s.parse::<Square>().ok())
            .collect()
    })
    .unwrap_or_default()
}

/// The chess figure of `piece` in text presentation (U+FE0E): outlined for White, filled for
/// Black.
fn figure(piece: Piece) -> &'static str {
    match (piece.color, piece.role) {
        (Color::White, Role::King) => "\u{2654}\u{fe0e}",
        (Color::White, Role::Queen) => "\u{2655}\u{fe0e}",
        (Color::White, Role::Rook) => "\u{2656}\u{fe0e}",
        (Color::White, Role::Bishop) => "\u{2657}\u{fe0e}",
        (Color::White, Role::Knight) => "\u{2658}\u{fe0e}",
        (Color::White, Role::Pawn) => "\u{2659}\u{fe0e}",
        (Color::Black, Role::King) => "\u{265a}\u{fe0e}",
        (Color::Black, Role::Queen) => "\u{265b}\u{fe0e}",
        (Color::Black, Role::Rook) => "\u{265c}\u{fe0e}",
        (Color::Black, Role::Bishop) => "\u{265d}\u{fe0e}",
        (Color::Black, Role::Knight) => "\u{265e}\u{fe0e}",
        (Color::Black, Role::Pawn) => "\u{265f}\u{fe0e}",
    }
}

/// The HTML part of a mail whose text part is `text`: the same text, the diagram `diagram` (as the
/// template wrote it into `text`) replaced by `board`; where the text shows no diagram (an
/// operator's template without it), the board stands above the text.
pub fn html_part(
    title: &str,
    lang: &str,
    text: &str,
    diagram: Option<&str>,
    board: &str,
) -> String {
    let (before, after) = match diagram
        .filter(|d| !d.is_empty())
        .and_then(|d| text.find(d).map(|at| (&text[..at], &text[at + d.len()..])))
    {
        Some((before, after)) => (before, after),
        None => ("", text),
    };
    let pre = |t: &str| {
        let t = t.trim_matches('\n');
        if t.is_empty() {
            String::new()
        } else {
            format!(
                "<pre style=\"font-family:Consolas,'DejaVu Sans Mono',monospace;font-size:14px;\
                 white-space:pre-wrap;margin:0\">{}</pre>\n",
                escape(t)
            )
        }
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"{lang}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width\">\n<title>{}</title>\n</head>\n\
         <body style=\"margin:0;padding:8px\">\n{}{board}{}</body>\n</html>\n",
        escape(title),
        pre(before),
        pre(after),
    )
}

/// `text` with `&`, `<`, `>` and `"` written as HTML entities.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";

    fn cells(html: &str) -> Vec<(String, String, String)> {
        html.split("<td data-square=\"")
            .skip(1)
            .map(|c| {
                let sq = c[..2].to_string();
                let colour = c
                    .split("bgcolor=\"")
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .unwrap_or_default()
                    .to_string();
                let figure = c
                    .split('>')
                    .nth(1)
                    .and_then(|r| r.split('<').next())
                    .unwrap_or_default()
                    .to_string();
                (sq, colour, figure)
            })
            .collect()
    }

    #[test]
    fn the_board_is_seen_from_the_readers_side_with_the_last_move_marked() {
        let white = board_table(AFTER_E4, Color::White, Some("e2e4")).unwrap();
        let c = cells(&white);
        assert_eq!(c.len(), 64);
        // White's view: a8 first, h1 last; Black's: h1 first, a8 last.
        assert_eq!((c[0].0.as_str(), c[63].0.as_str()), ("a8", "h1"));
        let black = cells(&board_table(AFTER_E4, Color::Black, Some("e2e4")).unwrap());
        assert_eq!((black[0].0.as_str(), black[63].0.as_str()), ("h1", "a8"));
        let at = |sq: &str| c.iter().find(|x| x.0 == sq).unwrap().clone();
        assert_eq!(at("e2").1, LIGHT_MOVED, "e2 is a light square, marked");
        assert_eq!(at("e4").1, LIGHT_MOVED);
        assert_eq!(at("a1").1, DARK);
        assert_eq!(at("h1").1, LIGHT);
        assert_eq!(at("e4").2, "\u{2659}\u{fe0e}", "the white pawn");
        assert_eq!(at("e2").2, "");
        assert_eq!(at("d8").2, "\u{265b}\u{fe0e}", "the black queen");
        // Coordinates on the edges: file letters above and below, rank numbers left and right.
        assert_eq!(white.matches(">a</td>").count(), 2);
        assert_eq!(white.matches(">8</td>").count(), 2);
        assert!(board_table("no position", Color::White, None).is_none());
    }

    #[test]
    fn the_html_part_shows_the_text_with_the_board_where_the_diagram_stood() {
        let text = "Guten Tag <Anna> & Co,\n\n  a b\n8 t s\n\nFEN: x\n";
        let html = html_part(
            "[T-1/1] Zug",
            "de",
            text,
            Some("  a b\n8 t s"),
            "<table></table>\n",
        );
        let board = html.find("<table>").unwrap();
        let greeting = html.find("Guten Tag &lt;Anna&gt; &amp; Co,").unwrap();
        let fen = html.find("FEN: x").unwrap();
        assert!(greeting < board && board < fen, "{html}");
        assert!(
            !html.contains("8 t s"),
            "the text diagram is replaced: {html}"
        );
        assert!(html.contains("<html lang=\"de\">"));
        // No diagram in the text: the board above it.
        let html = html_part("s", "en", "Hello\n", Some("absent"), "<table></table>\n");
        assert!(html.find("<table>").unwrap() < html.find("Hello").unwrap());
    }
}
