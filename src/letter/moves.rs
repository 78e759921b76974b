//! Numbered moves as players write them (TO §2: moves are numbered; Anhang zu §2 and
//! docs/rules.md "Notation forms"): `12. Lb5`, `12... a6`, `12. ... a6`, `12 … a6`,
//! `12. Lb5 a6`, `12.Lb5`, `12 . Sf3`, `1. 5254 5755`, `1. e2-e4 e7-e5`,
//! `5. O-O Sf6xe4`, `O - O`, `Sf 3`, several numbered moves on one line and
//! table-like layouts with tabs.
//!
//! Only the shape is checked, never legality: the reader does not know the game.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use shakmaty::Color;

use super::types::MoveToken;

const PIECE: &str = "KQRBNDTLS♔♕♖♗♘♚♛♜♝♞";
const PROMO: &str = "QRBNDTLSqrbn♕♖♗♘♛♜♝♞";

static SAN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"^(?:[{PIECE}]?[a-h]?[1-8]?[x:]?[a-h][1-8](?:=?[{PROMO}])?|[{PIECE}]?[a-h][1-8][-x:]?[a-h][1-8](?:=?[{PROMO}])?)$"
    ))
    .expect("valid regex")
});
static ICCF: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[1-8]{4}[1-4]?$").expect("valid regex"));
static CASTLING: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[O0o]-[O0o](?:-[O0o])?$").expect("valid regex"));
/// Castling written with spaces (`O - O`, `0 - 0 - 0`), to be made one token.
static SPACED_CASTLING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(^|[\s.,;:(])([O0])[ \t]*-[ \t]*([O0])(?:[ \t]*-[ \t]*([O0]))?([+#!?]*)(?:$|[\s,;:)])",
    )
    .expect("valid regex")
});
/// A move number: `12.`, `12...`, `12. ...`, `12 . `, `12 ...` (ellipsis already made `...`).
static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d{1,3})((?:[ \t]*\.)+)").expect("valid regex"));
/// A result written as a sign.
static RESULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?:1-0|0-1|1:0|0:1|½-½|½:½|½|1/2-1/2|1/2|0,5-0,5|0\.5-0\.5|\+-|-\+|=)$")
        .expect("valid regex")
});
/// A date at the start of a line: `30.11.2026`, `30.11.` — not a move number.
static DATE_START: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\d{1,2}\.\s?\d{1,2}\.").expect("valid regex"));

/// Strips what may follow a move but is not part of its shape: check and annotation
/// signs, `e.p.`, and sentence punctuation.
fn core_of(token: &str) -> &str {
    let t = token.trim_end_matches([',', ';', '.', ')']);
    let t = t.strip_suffix("e.p").unwrap_or(t);
    let t = t.strip_suffix("ep").filter(|r| r.len() >= 2).unwrap_or(t);
    t.trim_end_matches(['+', '#', '!', '?', '†', '‡'])
}

/// Whether `token` has the shape of a chess move in one of the accepted forms.
pub fn is_move(token: &str) -> bool {
    let t = core_of(token);
    let shaped = |t: &str| SAN.is_match(t) || ICCF.is_match(t) || CASTLING.is_match(t);
    // Typed with caps lock: `KG7`, `E4`.
    !t.is_empty()
        && (shaped(t) || crate::notation::capitals_as_files(t).is_some_and(|l| shaped(&l)))
}

/// Whether `token` has a move's shape once one stray digit is left out (`Sf36`, `e45`): such a
/// text is kept as written, and the notation reader names the moves it could be (TO §8).
pub fn is_move_with_stray_digit(token: &str) -> bool {
    let t = core_of(token);
    if is_move(t)
        || t.len() > 12
        || !t.starts_with(|c: char| PIECE.contains(c) || c.is_ascii_lowercase())
    {
        return false;
    }
    t.char_indices()
        .filter(|(_, c)| c.is_ascii_digit())
        .any(|(i, _)| {
            let mut s = t.to_string();
            s.remove(i);
            is_move(&s)
        })
}

/// Whether a line of words looks like an attempt at a move the reader did not read (TO §30: such
/// a mail is queried, not forwarded as a message): a token with a move's full shape — a piece
/// letter or figurine (`Sf6`, `♘f6`), a capture (`exd5`), castling, a long or ICCF form — or a
/// move number before a move-shaped token (`12. f5`), or a line of nothing but moves, numbers
/// and results (`e4`, `e5?`). A square inside a sentence (`Ihr Springer auf f5 ist stark`) is
/// chess talk, not a move.
pub fn looks_like_a_move(line: &str) -> bool {
    let toks = tokens(&normalize_line(line));
    let strong = |t: &str| {
        let core = core_of(t);
        is_move(core)
            && (core.starts_with(|c: char| PIECE.contains(c))
                || core.contains(['x', ':', '-'])
                || ICCF.is_match(core))
    };
    let numbered = toks
        .windows(2)
        .any(|w| number_token(&w[0]).is_some() && (is_move(&w[1]) || moveish(&w[1])));
    let figurine = toks
        .iter()
        .any(|t| t.chars().any(|c| ('♔'..='♟').contains(&c)));
    // A capture of nothing by a piece (`Lxq`, `Sx`): an attempt at a move.
    let attempt = |t: &str| {
        let core = core_of(t).trim_end_matches(['.', '!', '?']);
        let mut cs = core.chars();
        cs.next().is_some_and(|c| "KQRBNDTLS".contains(c))
            && matches!(cs.next(), Some('x' | ':'))
            && core.chars().count() <= 5
            && core.chars().all(char::is_alphanumeric)
    };
    let only_moves = !toks.is_empty()
        && toks.iter().all(|t| {
            is_move(t)
                || is_result(t)
                || is_annotation(t)
                || number_token(t).is_some()
                || t.chars().all(|c| c.is_ascii_punctuation())
        });
    toks.iter().any(|t| strong(t) || attempt(t)) || numbered || figurine || only_moves
}

/// Whether `token` is a result sign (`1-0`, `½`, …).
pub fn is_result(token: &str) -> bool {
    RESULT.is_match(token.trim_end_matches(['.', ',', '!', ';']))
}

/// The move text as kept: trimmed, with sentence punctuation after it removed.
fn move_text(token: &str) -> String {
    let t = token.trim().trim_end_matches([',', ';', ')']);
    // A trailing full stop ends a sentence, but `e.p.` keeps its own.
    let t = if t.ends_with('.') && !t.ends_with("e.p.") {
        t.trim_end_matches('.')
    } else {
        t
    };
    t.to_string()
}

/// Whether a token that is not a move still looks like an attempt at one
/// (so a numbered line containing it is unreadable rather than prose).
fn moveish(token: &str) -> bool {
    let t = core_of(token).trim_end_matches([':', '"', '\'', '“', '”']);
    if t.is_empty() || t.chars().count() > 10 {
        return false;
    }
    if t.chars().all(|c| c.is_alphabetic()) {
        // A word: short piece-like fragments (`Sf`, `Lx`) and captures of nothing (`Lxq`,
        // `exk`) are attempts; words are prose.
        let n = t.chars().count();
        let piece_or_file = t.starts_with(|c: char| PIECE.contains(c) || ('a'..='h').contains(&c));
        let mut rest = t.chars().skip(1);
        let (c1, c2) = (rest.next(), rest.next());
        let takes = |c: Option<char>| matches!(c, Some('x' | ':'));
        let capture =
            n <= 5 && (takes(c1) || c1.is_some_and(|c| ('a'..='h').contains(&c)) && takes(c2));
        return piece_or_file && (n <= 2 || capture);
    }
    let figurine = t.chars().any(|c| ('♔'..='♟').contains(&c));
    let digits = t.chars().any(|c| c.is_ascii_digit());
    let small_number = t.len() <= 3 && t.chars().all(|c| c.is_ascii_digit());
    figurine || (digits && !small_number)
}

/// Characters [`normalize_line`] drops: they are invisible.
fn invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{feff}' | '\u{ad}'
    )
}

/// Normalises a line for move reading: unicode ellipsis, dashes and spaces made ASCII,
/// castling with spaces made one token.
pub fn normalize_line(line: &str) -> String {
    normalized(line).into_owned()
}

/// [`normalize_line`], borrowing `line` when it is already normal (ASCII without a dash).
pub(crate) fn normalized(line: &str) -> Cow<'_, str> {
    if line.is_ascii() && !line.contains('-') {
        return Cow::Borrowed(line);
    }
    // Every character changed below is outside ASCII.
    let mut s: String = if line.is_ascii() {
        line.to_string()
    } else {
        line.chars()
            .filter(|c| !invisible(*c))
            .map(|c| match c {
                '\u{a0}' | '\u{2007}' | '\u{202f}' | '\u{2009}' => ' ',
                '–' | '—' | '−' | '‑' | '‐' => '-',
                c => c,
            })
            .collect()
    };
    if s.contains('…') {
        s = s.replace('…', "...");
    }
    // Spaced castling has a dash.
    if !s.contains('-') {
        return Cow::Owned(s);
    }
    // Make spaced castling one token, keeping the letters as written.
    let mut out = String::with_capacity(s.len());
    let mut last = 0;
    let mut from = 0;
    while let Some(c) = SPACED_CASTLING.captures_at(&s, from) {
        let (Some(all), Some(lead)) = (c.get(0), c.get(1)) else {
            break;
        };
        let mut joined = String::new();
        for g in [2, 3, 4, 5] {
            if let Some(m) = c.get(g) {
                if g > 2 && g < 5 {
                    joined.push('-');
                }
                joined.push_str(m.as_str());
            }
        }
        let end_of_move = c.get(5).map_or(all.end(), |m| m.end());
        out.push_str(&s[last..lead.end()]);
        out.push_str(&joined);
        last = end_of_move;
        from = end_of_move.max(all.start() + 1);
        if from > s.len() {
            break;
        }
    }
    out.push_str(&s[last..]);
    Cow::Owned(out)
}

/// What reading the moves of one line found.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LineMoves {
    pub moves: Vec<MoveToken>,
    /// The line starts like a move number (or has a numbered move) but cannot be read.
    pub unreadable: bool,
    /// A result sign written after the moves (`13. Lg5 1-0`).
    pub result: Option<String>,
    /// The writer's words after the moves of the line (`13. Lg5 und herzliche Grüße` → `und
    /// herzliche Grüße`; a comment in brackets too), their tokens joined by one blank.
    pub rest: Option<String>,
}

/// Tokens of a line, with move numbers split from what is glued to them
/// (`12.Lb5` → `12.`, `Lb5`; `12...a6` → `12...`, `a6`).
fn tokens(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        // Both a date and a move number open with a digit (`\d`, which `is_numeric` includes).
        if rest.starts_with(char::is_numeric)
            && !DATE_START.is_match(rest)
            && let Some(c) = NUMBER.captures(rest)
            && let (Some(num), Some(dots), Some(all)) = (c.get(1), c.get(2), c.get(0))
        {
            let tail = &rest[all.end()..];
            // Not a number glued to more digits (`1.5 Tage`).
            if !tail.starts_with(|c: char| c.is_ascii_digit()) {
                let dots: String = dots.as_str().chars().filter(|&c| c == '.').collect();
                out.push(format!("{}{dots}", num.as_str()));
                rest = tail.trim_start();
                continue;
            }
        }
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let (tok, tail) = rest.split_at(end);
        out.push(tok.to_string());
        rest = tail.trim_start();
    }
    out
}

/// A move-number token: the number and whether it is Black's (`12...`).
fn number_token(tok: &str) -> Option<(u32, Color)> {
    let digits = tok.trim_end_matches('.');
    let dots = tok.len() - digits.len();
    if dots == 0 || digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let n: u32 = digits.parse().ok()?;
    (n >= 1).then_some((
        n,
        if dots >= 2 {
            Color::Black
        } else {
            Color::White
        },
    ))
}

/// Takes one move from `toks[i..]`, joining pieces split by a stray space
/// (`Sf 3`, `Sg1 - f3`); returns the move text and how many tokens it used.
fn take_move(toks: &[String], i: usize) -> Option<(String, usize)> {
    let t0 = toks.get(i)?;
    let t1 = toks.get(i + 1);
    let t2 = toks.get(i + 2);
    // `Sg1 - f3`, `e2 -e4`, `e2- e4`
    if let Some(t1) = t1 {
        if matches!(t1.as_str(), "-" | "x" | ":")
            && let Some(t2) = t2
        {
            let j = format!("{t0}{t1}{t2}");
            if is_move(&j) {
                return Some((move_text(&j), 3));
            }
        }
        if t1.starts_with(['-', 'x', ':']) || t0.ends_with(['-', 'x', ':']) {
            let j = format!("{t0}{t1}");
            if is_move(&j) && !is_move(t1) {
                return Some((move_text(&j), 2));
            }
        }
    }
    if is_move(t0) || is_move_with_stray_digit(t0) {
        return Some((move_text(t0), 1));
    }
    // `Sf 3`, `L b5`: a fragment that only makes sense with the next token.
    if let Some(t1) = t1 {
        let j = format!("{t0}{t1}");
        if is_move(&j) && number_token(t1).is_none() {
            return Some((move_text(&j), 2));
        }
    }
    None
}

/// Whether a token is a pure annotation that may stand between moves.
fn is_annotation(tok: &str) -> bool {
    !tok.is_empty()
        && (tok
            .chars()
            .all(|c| matches!(c, '+' | '#' | '!' | '?' | ',' | ';'))
            || tok.eq_ignore_ascii_case("e.p.")
            || tok.eq_ignore_ascii_case("ep"))
}

/// Whether a line starts with a move number (`12.`, `12...`, `12 ...`), not a date.
pub fn starts_with_number(line: &str) -> bool {
    numbered_tokens(line).is_some()
}

/// The tokens of `line` (as [`read_line`] reads them) when it starts with a move number (see
/// [`starts_with_number`]); `None` otherwise.
pub(crate) fn numbered_tokens(line: &str) -> Option<Vec<String>> {
    // Normalising keeps the first visible character (or makes it a blank, a dash or a dot): a
    // line that does not open with an ASCII digit has no move number.
    let first = line.chars().find(|&c| !c.is_whitespace() && !invisible(c));
    if !first.is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    let t = normalized(line);
    let t = t.trim_start();
    if DATE_START.is_match(t) {
        return None;
    }
    let toks = tokens(t);
    toks.first().and_then(|f| number_token(f))?;
    Some(toks)
}

/// Reads the numbered moves of one line. `connectives` are words that may stand
/// between moves and are skipped (`then`, `dann` in conditional lines).
pub fn read_line(line: &str, connectives: &[&str]) -> LineMoves {
    read_tokens(&tokens(&normalize_line(line)), connectives)
}

/// [`read_line`] of a line's tokens.
pub(crate) fn read_tokens(toks: &[String], connectives: &[&str]) -> LineMoves {
    let mut found = LineMoves::default();
    let mut i = 0;
    let mut current: Option<(u32, Color)> = None;
    // The writer's words from token `at` on, after the moves read.
    let rest = |found: &mut LineMoves, at: usize| {
        if !found.moves.is_empty()
            && toks[at..]
                .iter()
                .any(|t| t.chars().any(char::is_alphabetic))
        {
            found.rest = Some(toks[at..].join(" "));
        }
    };
    while let Some(tok) = toks.get(i) {
        let connective = !connectives.is_empty() && {
            let low = tok.to_lowercase();
            connectives.contains(&low.trim_end_matches([',', ':', ';']))
        };
        if connective || is_annotation(tok) || matches!(tok.as_str(), "-" | "→" | "->" | "=>" | "/")
        {
            i += 1;
            continue;
        }
        if tok.starts_with(['(', '[', '{']) {
            // A comment in brackets ends the moves of this line.
            rest(&mut found, i);
            break;
        }
        if let Some(num) = number_token(tok) {
            // `12.` followed by `...` as a separate token was merged by `tokens`.
            match take_move(toks, i + 1) {
                Some((text, used)) => {
                    found.moves.push(MoveToken {
                        number: num.0,
                        color: num.1,
                        text,
                    });
                    current = Some(num);
                    i += 1 + used;
                    continue;
                }
                None => {
                    let next = toks.get(i + 1);
                    // After Black's number (`12...`, `12. ...`) only a move can stand: whatever
                    // follows is an attempt at one (`2... Lxq`), never prose.
                    let prose =
                        num.1 == Color::White && next.is_some_and(|n| !moveish(n) && !is_result(n));
                    if prose && found.moves.is_empty() {
                        // `2. Runde`, `3. Dezember`: not a move line at all.
                        return LineMoves::default();
                    }
                    if prose {
                        rest(&mut found, i);
                        break;
                    }
                    if let Some(n) = next.filter(|n| is_result(n)) {
                        found.result = Some(n.clone());
                        break;
                    }
                    found.unreadable = true;
                    break;
                }
            }
        }
        // An unnumbered token after a move: Black's reply to a numbered White move.
        match (current, take_move(toks, i)) {
            (Some((n, Color::White)), Some((text, used))) => {
                found.moves.push(MoveToken {
                    number: n,
                    color: Color::Black,
                    text,
                });
                current = Some((n, Color::Black));
                i += used;
            }
            (Some(_), Some(_)) => {
                // A third move under one number: the numbering cannot be right.
                found.unreadable = true;
                break;
            }
            (_, None) if is_result(tok) => {
                found.result = Some(tok.clone());
                break;
            }
            (Some(_), None) if moveish(tok) => {
                found.unreadable = true;
                break;
            }
            _ => {
                rest(&mut found, i);
                break;
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(n: u32, t: &str) -> MoveToken {
        MoveToken {
            number: n,
            color: Color::White,
            text: t.into(),
        }
    }
    fn b(n: u32, t: &str) -> MoveToken {
        MoveToken {
            number: n,
            color: Color::Black,
            text: t.into(),
        }
    }
    fn moves(line: &str) -> Vec<MoveToken> {
        read_line(line, &[]).moves
    }

    #[test]
    fn s2_numbered_forms() {
        assert_eq!(moves("12. Lb5"), vec![w(12, "Lb5")]);
        assert_eq!(moves("12... a6"), vec![b(12, "a6")]);
        assert_eq!(moves("12. ... a6"), vec![b(12, "a6")]);
        assert_eq!(moves("12 … a6"), vec![b(12, "a6")]);
        assert_eq!(moves("12…a6"), vec![b(12, "a6")]);
        assert_eq!(moves("12. Lb5 a6"), vec![w(12, "Lb5"), b(12, "a6")]);
        assert_eq!(moves("12.Lb5"), vec![w(12, "Lb5")]);
        assert_eq!(moves("12 . Sf3"), vec![w(12, "Sf3")]);
        assert_eq!(moves("12... Sf6 13. Lg5"), vec![b(12, "Sf6"), w(13, "Lg5")]);
        assert_eq!(moves("12.\tLb5\t\ta6"), vec![w(12, "Lb5"), b(12, "a6")]);
        assert_eq!(moves("12.  Lb5   a6"), vec![w(12, "Lb5"), b(12, "a6")]);
        assert_eq!(
            moves("1.e4 e5 2.Nf3 Nc6"),
            vec![w(1, "e4"), b(1, "e5"), w(2, "Nf3"), b(2, "Nc6")]
        );
    }

    #[test]
    fn notation_forms() {
        assert_eq!(moves("1. 5254 5755"), vec![w(1, "5254"), b(1, "5755")]);
        assert_eq!(moves("1. e2-e4 e7-e5"), vec![w(1, "e2-e4"), b(1, "e7-e5")]);
        assert_eq!(moves("5. O-O Sf6xe4"), vec![w(5, "O-O"), b(5, "Sf6xe4")]);
        assert_eq!(moves("5. O - O"), vec![w(5, "O-O")]);
        assert_eq!(moves("5... 0 - 0 - 0"), vec![b(5, "0-0-0")]);
        assert_eq!(moves("5. 0-0-0+ Kb8"), vec![w(5, "0-0-0+"), b(5, "Kb8")]);
        assert_eq!(moves("7. ♘f3"), vec![w(7, "♘f3")]);
        assert_eq!(moves("7. e2e4 e7e5"), vec![w(7, "e2e4"), b(7, "e7e5")]);
        assert_eq!(moves("30. e8=D+"), vec![w(30, "e8=D+")]);
        assert_eq!(moves("30. 77782"), vec![w(30, "77782")]);
        assert_eq!(moves("4. Lf1:b5"), vec![w(4, "Lf1:b5")]);
        assert_eq!(moves("13. Lg5!?"), vec![w(13, "Lg5!?")]);
        assert_eq!(moves("13. Lg5."), vec![w(13, "Lg5")]);
    }

    #[test]
    fn s8_stray_digit_is_kept_for_the_notation_reader() {
        assert_eq!(moves("12. Lb5 Sf36"), vec![w(12, "Lb5"), b(12, "Sf36")]);
        assert_eq!(moves("12... e45"), vec![b(12, "e45")]);
        for t in ["Sf36", "e45", "Lb55+", "0-0"] {
            assert!(is_move_with_stray_digit(t) || is_move(t), "{t}");
        }
        for t in ["Sf3", "2026", "12345", "Lf9", "Tage", "a"] {
            assert!(!is_move_with_stray_digit(t), "{t}");
        }
        assert!(read_line("12. Lf9", &[]).unreadable);
    }

    #[test]
    fn stray_spaces_are_joined() {
        assert_eq!(moves("12. Sf 3"), vec![w(12, "Sf3")]);
        assert_eq!(moves("12. Sg1 - f3"), vec![w(12, "Sg1-f3")]);
        assert_eq!(moves("12. e2 -e4"), vec![w(12, "e2-e4")]);
    }

    #[test]
    fn non_moves_after_numbers() {
        assert_eq!(read_line("30.11.2026", &[]), LineMoves::default());
        assert_eq!(read_line("2. Runde", &[]), LineMoves::default());
        assert_eq!(
            read_line("3. Dezember war schön", &[]),
            LineMoves::default()
        );
        assert_eq!(moves("12. Lb5 ist stark"), vec![w(12, "Lb5")]);
        assert!(!read_line("12. Lb5 ist stark", &[]).unreadable);
    }

    #[test]
    fn unreadable_lines() {
        assert!(read_line("12. Lb9", &[]).unreadable);
        assert!(read_line("12.", &[]).unreadable);
        assert!(read_line("12. Sf", &[]).unreadable);
        assert!(read_line("12. Lb5 a6 Lc4", &[]).unreadable);
        assert!(read_line("12... Sf6 13. Xy7", &[]).unreadable);
    }

    #[test]
    fn s8_an_attempt_after_a_number_is_unreadable_not_prose() {
        for t in [
            "2... Lxq",
            "2. ... Lxq",
            "12... was für ein Zug",
            "13. Lxq",
            "13. exk",
        ] {
            let r = read_line(t, &[]);
            assert!(r.unreadable && r.moves.is_empty(), "{t}: {r:?}");
        }
        for t in ["2. Runde", "3. Dezember war schön", "1. Box"] {
            assert_eq!(read_line(t, &[]), LineMoves::default(), "{t}");
        }
    }

    #[test]
    fn words_after_the_moves_of_a_line_are_the_writers() {
        let r = read_line("13. Lg5 und herzliche Grüße", &[]);
        assert_eq!(r.moves, vec![w(13, "Lg5")]);
        assert_eq!(r.rest.as_deref(), Some("und herzliche Grüße"));
        let r = read_line("12... Sf6 (ich hoffe, das hält)", &[]);
        assert_eq!(r.rest.as_deref(), Some("(ich hoffe, das hält)"));
        assert_eq!(read_line("12... Sf6 13. Lg5", &[]).rest, None);
        assert_eq!(read_line("40. Dh7# 1-0", &[]).rest, None);
    }

    #[test]
    fn result_after_moves() {
        let r = read_line("40. Dh7# 1-0", &[]);
        assert_eq!(r.moves, vec![w(40, "Dh7#")]);
        assert_eq!(r.result.as_deref(), Some("1-0"));
        assert!(!r.unreadable);
    }

    #[test]
    fn connectives_are_skipped() {
        let r = read_line("13... Nxe4 then 14. Bxe7", &["then"]);
        assert_eq!(r.moves, vec![b(13, "Nxe4"), w(14, "Bxe7")]);
    }

    #[test]
    fn move_shapes() {
        for m in [
            "e4", "exd5", "ed5", "Nf3", "Sf3", "e8=Q", "e8D", "Sg1-f3", "O-O", "0-0-0", "5254",
            "e7e8q", "Kxe2+", "dxe6e.p.",
        ] {
            assert!(is_move(m), "{m}");
        }
        for m in ["Runde", "2026", "11", "i9", "Xf3", "", "Tage", "e9", "9254"] {
            assert!(!is_move(m), "{m}");
        }
    }

    #[test]
    fn starts_with_number_ignores_dates() {
        assert!(starts_with_number("12. Lb5"));
        assert!(starts_with_number("12 ... a6"));
        assert!(!starts_with_number("30.11.2026 war es"));
        assert!(!starts_with_number("Hallo 12."));
    }
}
