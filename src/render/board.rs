//! The board as a picture (docs/contract.md "Pictures"): the HTML part of every mail that carries a
//! position, beside its text part.
//!
//! The HTML part shows the same text, with the text diagram replaced by the board: an HTML table
//! of 8 × 8 cells, seen from the recipient's side (a director's from White's), the squares of
//! the last move marked, the files and ranks on the edges. A table, not an image: webmails
//! (Gmail, Outlook) strip `<style>` blocks and SVG and hide remote or inline images until the
//! reader allows them, but every client shows a table whose colours stand in `bgcolor`
//! attributes and inline styles. The pieces are the Unicode chess figures (U+2654–U+265F),
//! which every system font set has (the black pawn followed by U+FE0E so that no phone shows an
//! emoji), written as character references: the part is ASCII and, its lines short, goes as
//! `7bit` (a `move` mail stays under 8 KB whole).
//!
//! ```
//! let html = fernzug::render::board::board_table(
//!     "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
//!     shakmaty::Color::White,
//!     Some("e2e4"),
//! )
//! .unwrap();
//! assert_eq!(html.matches("bgcolor=").count(), 64);
//! assert!(html.contains("&#9817;")); // a white pawn
//! assert!(html.is_ascii());
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
///
/// Every byte is paid in every player's mailbox and in the archive, so the table says each thing
/// once where every client still shows it (issue 33): the font, its size and the line height on
/// the table (cells inherit them), a square's colour in `bgcolor` alone (the attribute Gmail's
/// and Outlook's sanitizers keep, and Outlook's Word engine honours), the width on the first
/// row's cells and the height on each row's first, the rank numbers on the left and the file
/// letters below. ASCII only, a square a line, no line longer than 73 characters: the part goes as
/// `7bit`, not grown by a transfer encoding. About 3.2 KB (it was 17 KB).
pub fn board_table(fen: &str, viewer: Color, last: Option<&str>) -> Option<String> {
    let board = fen.parse::<Fen>().ok()?.into_setup().board;
    let marked = marked_squares(last);
    let mut files: Vec<File> = File::ALL.to_vec();
    let mut ranks: Vec<Rank> = Rank::ALL.to_vec();
    match viewer {
        Color::White => ranks.reverse(),
        Color::Black => files.reverse(),
    }
    let edge = "style=\"font:12px Arial,sans-serif;color:#555\"";
    let mut out = String::with_capacity(3_000);
    out.push_str(
        "<table cellpadding=\"0\" cellspacing=\"0\" border=\"0\"\n\
         style=\"border-collapse:collapse;margin:8px 0;color:#000000;\n\
         font-family:'DejaVu Sans','Segoe UI Symbol',\n'Arial Unicode MS',sans-serif;\n\
         font-size:30px;line-height:40px;text-align:center\">\n",
    );
    for (row, r) in ranks.iter().enumerate() {
        // Writing into a String cannot fail.
        let _ = writeln!(
            out,
            "<tr>\n<td height=\"{SQUARE}\" {edge}>{}</td>",
            r.char()
        );
        for f in &files {
            let sq = Square::from_coords(*f, *r);
            let colour = match (sq.is_light(), marked.contains(&sq)) {
                (true, false) => LIGHT,
                (false, false) => DARK,
                (true, true) => LIGHT_MOVED,
                (false, true) => DARK_MOVED,
            };
            let width = if row == 0 {
                format!(" width=\"{SQUARE}\"")
            } else {
                String::new()
            };
            let figure = board.piece_at(sq).map(figure_entity).unwrap_or("");
            let _ = writeln!(out, "<td{width} bgcolor=\"{colour}\">{figure}</td>");
        }
        out.push_str("</tr>\n");
    }
    let _ = write!(out, "<tr {edge}>\n<td width=\"18\"></td>");
    for (i, f) in files.iter().enumerate() {
        let _ = write!(
            out,
            "{}<td>{}</td>",
            if i == 4 { "\n" } else { "" },
            f.char()
        );
    }
    out.push_str("</tr>\n</table>\n");
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

/// [`figure`] as an HTML character reference, for a mail's ASCII-only HTML part. Only the black
/// pawn, the one chess figure Unicode also lists as an emoji, carries U+FE0E so that no phone
/// shows it as one.
fn figure_entity(piece: Piece) -> &'static str {
    match (piece.color, piece.role) {
        (Color::White, Role::King) => "&#9812;",
        (Color::White, Role::Queen) => "&#9813;",
        (Color::White, Role::Rook) => "&#9814;",
        (Color::White, Role::Bishop) => "&#9815;",
        (Color::White, Role::Knight) => "&#9816;",
        (Color::White, Role::Pawn) => "&#9817;",
        (Color::Black, Role::King) => "&#9818;",
        (Color::Black, Role::Queen) => "&#9819;",
        (Color::Black, Role::Rook) => "&#9820;",
        (Color::Black, Role::Bishop) => "&#9821;",
        (Color::Black, Role::Knight) => "&#9822;",
        (Color::Black, Role::Pawn) => "&#9823;&#65038;",
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
            let open = "<pre style=\"font:14px Consolas,'DejaVu Sans Mono',monospace;\n\
                        white-space:pre-wrap;margin:0\">";
            let column = open.len() - open.rfind('\n').map_or(0, |at| at + 1);
            format!("{open}{}</pre>\n", fold_text(&ascii(escape(t)), column))
        }
    };
    ascii(format!(
        "<!DOCTYPE html>\n<html lang=\"{lang}\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width\">\n{}\n</head>\n\
         <body style=\"margin:0;padding:8px\">\n{}{board}{}</body>\n</html>\n",
        title_element(&ascii(escape(title))),
        pre(before),
        pre(after),
    ))
}

/// The longest line of the HTML part: email-encoding's chooser, which lettre asks, sends an ASCII
/// part as `7bit` while no line with its line end (CRLF: `html_single_part` hands it so) reaches
/// 76 octets; past that, quoted-printable (every `=` of an attribute written `=3D`). So however
/// long a line of the text is, the part goes `7bit`.
const LINE: usize = 73;

/// `text` (ASCII without tags: escaped, every other character a reference; its first line
/// begins at `column` of the part) with each line longer than [`LINE`] broken where nothing
/// shows: across an empty comment (`<!--`, the break, `-->`) after a space, or within a word
/// longer than a line, never inside a character reference. In a `<pre>` a bare line break would
/// show; in a comment it does not, and a client that drops comments joins the line again.
fn fold_text(text: &str, column: usize) -> String {
    const BREAK: &str = "<!--\n-->";
    // Room on a line that goes on: the comment's `<!--` follows (its `-->` begins the next).
    let room = LINE - 4;
    let mut out = String::with_capacity(text.len() + text.len() / 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let mut width = if i == 0 { column } else { 0 };
        if width + line.len() <= LINE {
            out.push_str(line);
            continue;
        }
        let mut words = line.split_inclusive(' ').peekable();
        while let Some(word) = words.next() {
            let limit = if words.peek().is_none() { LINE } else { room };
            if width > 3 && width + word.len() > limit {
                out.push_str(BREAK);
                width = 3;
            }
            if width + word.len() <= limit {
                out.push_str(word);
                width += word.len();
                continue;
            }
            // A word longer than a line: broken within, outside its references (the longest,
            // `&#1114111;`, has ten characters).
            let mut in_reference = false;
            for c in word.chars() {
                if !in_reference && (width >= room || (c == '&' && width + 10 > room)) {
                    out.push_str(BREAK);
                    width = 3;
                }
                match c {
                    '&' => in_reference = true,
                    ';' => in_reference = false,
                    _ => {}
                }
                out.push(c);
                width += 1;
            }
        }
    }
    out
}

/// `<title>` with `title` (ASCII): on one line where it fits in [`LINE`], else on lines of its
/// own broken at its spaces (white space in a title collapses: it reads the same).
fn title_element(title: &str) -> String {
    let one = format!("<title>{title}</title>");
    if one.len() <= LINE {
        one
    } else {
        format!("<title>\n{}\n</title>", fold_words(title))
    }
}

/// `text` (ASCII, one line where white space collapses, as in `<title>`) broken at its spaces
/// into lines of at most [`LINE`]; a word longer than that stays whole.
fn fold_words(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut width = 0;
    for word in text.split(' ') {
        if width > 0 && width + 1 + word.len() > LINE {
            out.push('\n');
            width = 0;
        } else if width > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(word);
        width += word.len();
    }
    out
}

/// `html` with every character beyond ASCII written as a character reference (`&#252;`): the
/// part then needs no transfer encoding (its long lines broken by `fold_text`).
fn ascii(html: String) -> String {
    if html.is_ascii() {
        return html;
    }
    let mut out = String::with_capacity(html.len() + 64);
    for c in html.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            let _ = write!(out, "&#{};", u32::from(c));
        }
    }
    out
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

    /// The 64 squares in the order the table shows them: (square, colour, figure).
    fn cells(html: &str, viewer: Color) -> Vec<(String, String, String)> {
        let mut names = Vec::new();
        for r in 0..8 {
            for f in 0..8 {
                let (file, rank) = match viewer {
                    Color::White => (f, 7 - r),
                    Color::Black => (7 - f, r),
                };
                names.push(Square::from_coords(File::new(file), Rank::new(rank)).to_string());
            }
        }
        html.split("bgcolor=\"")
            .skip(1)
            .zip(names)
            .map(|(c, sq)| {
                let colour = c.split('"').next().unwrap_or_default().to_string();
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
        let c = cells(&white, Color::White);
        assert_eq!(c.len(), 64);
        let at = |sq: &str| c.iter().find(|x| x.0 == sq).unwrap().clone();
        assert_eq!(at("e2").1, LIGHT_MOVED, "e2 is a light square, marked");
        assert_eq!(at("e4").1, LIGHT_MOVED);
        assert_eq!(at("a1").1, DARK);
        assert_eq!(at("h1").1, LIGHT);
        assert_eq!(at("a8").2, "&#9820;", "the black rook, top left for White");
        assert_eq!(at("e4").2, "&#9817;", "the white pawn");
        assert_eq!(at("e2").2, "");
        assert_eq!(at("d8").2, "&#9819;", "the black queen");
        assert_eq!(
            at("d7").2,
            "&#9823;&#65038;",
            "the black pawn, never an emoji"
        );
        // Black's view: h1 top left (a white rook), a8 bottom right.
        let black = cells(
            &board_table(AFTER_E4, Color::Black, Some("e2e4")).unwrap(),
            Color::Black,
        );
        assert_eq!(black[0], ("h1".into(), LIGHT.into(), "&#9814;".into()));
        assert_eq!(black[63], ("a8".into(), LIGHT.into(), "&#9820;".into()));
        // Coordinates on the edges: rank numbers on the left, file letters below.
        assert_eq!(white.matches(">a</td>").count(), 1);
        assert_eq!(white.matches(">8</td>").count(), 1);
        assert!(white.find(">8</td>").unwrap() < white.find(">1</td>").unwrap());
        // Small, ASCII, every line under 76 characters: no transfer encoding needed.
        assert!(white.is_ascii());
        assert!(white.lines().all(|l| l.len() <= LINE), "{white}");
        assert!(white.len() < 3_400, "{} bytes", white.len());
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
        // Beyond ASCII only as character references.
        let html = html_part("Zug", "de", "Grüße\n", None, "<table></table>\n");
        assert!(
            html.is_ascii() && html.contains("Gr&#252;&#223;e"),
            "{html}"
        );
        // Long lines (umlauts grow as references) are broken where nothing shows: every line
        // shorter than 76 characters, the part `7bit`.
        let long = "Die Bedenkzeit f\u{fc}r diesen Zug \u{fc}berschreitet nicht die \u{fc}bliche Zeit & mehr \u{e4}\u{f6}\u{fc}\u{e4}\u{f6}\u{fc}\u{e4}\u{f6}\u{fc}\u{e4}\u{f6}\u{fc}\u{e4}\u{f6}\u{fc}\u{e4}\u{f6}\u{fc}\u{e4}\u{f6}\u{fc}\u{e4}\u{f6}\u{fc} Ende\n";
        let title = "[T-1/1] Zug: eine sehr lange Betreffzeile mit \u{dc}mlauten, \u{dc}mlauten und noch mehr W\u{f6}rtern";
        let html = html_part(title, "de", long, None, "<table></table>\n");
        assert!(html.lines().all(|l| l.len() <= LINE), "{html}");
        let shown = html.replace("<!--\n-->", "");
        assert!(
            shown.contains(&format!("{}</pre>", ascii(escape(long.trim_end())))),
            "the text, whole once the comments are gone: {html}"
        );
        assert!(!shown.contains("<!--"), "only whole comments: {html}");
        for (before, _) in html.match_indices("<!--").map(|(at, _)| html.split_at(at)) {
            let line = before.rsplit('\n').next().unwrap();
            assert!(
                line.rfind('&') <= line.rfind(';'),
                "never inside a reference: {line}"
            );
        }
        let words: Vec<&str> = html
            .split("<title>")
            .nth(1)
            .and_then(|t| t.split("</title>").next())
            .unwrap()
            .split_whitespace()
            .collect();
        assert_eq!(words.join(" "), ascii(escape(title)), "{html}");
        // No diagram in the text: the board above it.
        let html = html_part("s", "en", "Hello\n", Some("absent"), "<table></table>\n");
        assert!(html.find("<table>").unwrap() < html.find("Hello").unwrap());
    }
}
