//! Moves a letter encloses instead of writing them: the sender's own earlier mail forwarded
//! (inline or as a `message/rfc822` attachment), or a PGN file attached.
//!
//! Interpretation (TO §2): the own text counts first. Only when it names no numbered move is an
//! enclosure read, and then
//! - a forwarded mail only if its `From` is the sender's own address (a player cannot send his
//!   partner's mail as his move) — typically a move first sent to the partner by mistake;
//! - a PGN attachment (`application/x-chess-pgn`, `application/vnd.chess-pgn` or a `.pgn` file):
//!   its main line's last two moves, which are the partner's last move and the own move of an
//!   up-to-date game score (comments, variations and NAGs are skipped).
//!
//! What is read is appended to the letter's text, so the text shows what the relay read.

use std::sync::LazyLock;

use mail_parser::{Address, Message, MimeHeaders, PartType};
use regex::Regex;

use super::body::{choose_text, reachable_parts, strip_quotes};
use super::types::Limits;

/// The text of the first enclosure of `message` from `sender` that holds moves, if any.
pub fn enclosed_text(message: &Message<'_>, sender: &str, limits: &Limits) -> Option<String> {
    let has_moves = |t: &str| !super::content::read_content(t).moves.is_empty();
    if let Some(t) = inline_forward(&choose_text(message, limits), sender).filter(|t| has_moves(t))
    {
        return Some(t);
    }
    let allowed = reachable_parts(message, limits);
    for (id, part) in message.parts.iter().enumerate() {
        if !allowed.get(id).copied().unwrap_or(false) || id == 0 {
            continue;
        }
        if let PartType::Message(inner) = &part.body {
            let from_sender = inner
                .from()
                .map(first_address)
                .is_some_and(|a| a.eq_ignore_ascii_case(sender));
            if from_sender {
                let inner_limits = Limits {
                    max_depth: limits.max_depth.saturating_sub(1),
                    ..limits.clone()
                };
                let t = strip_quotes(&choose_text(inner, &inner_limits));
                if has_moves(&t) {
                    return Some(t);
                }
            }
            continue;
        }
        if is_pgn(part) {
            let bytes: &[u8] = match &part.body {
                PartType::Text(t) => t.as_bytes(),
                PartType::Binary(b) | PartType::InlineBinary(b) => b,
                _ => continue,
            };
            let cut = &bytes[..bytes.len().min(limits.max_text_bytes)];
            let t = pgn_last_moves(&String::from_utf8_lossy(cut));
            if has_moves(&t) {
                return Some(t);
            }
        }
    }
    None
}

fn first_address(a: &Address<'_>) -> String {
    let first = match a {
        Address::List(list) => list.first(),
        Address::Group(groups) => groups.iter().flat_map(|g| g.addresses.iter()).next(),
    };
    first
        .and_then(|a| a.address.as_deref())
        .unwrap_or("")
        .trim()
        .to_lowercase()
}

fn is_pgn(part: &mail_parser::MessagePart<'_>) -> bool {
    let by_type = part.content_type().is_some_and(|ct| {
        ct.ctype().eq_ignore_ascii_case("application")
            && ct.subtype().is_some_and(|s| {
                s.eq_ignore_ascii_case("x-chess-pgn") || s.eq_ignore_ascii_case("vnd.chess-pgn")
            })
    });
    let by_name = part.attachment_name().is_some_and(|n| {
        n.to_lowercase()
            .trim_end_matches(['"', ' '])
            .ends_with(".pgn")
    });
    by_type || by_name
}

static FORWARD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:-{2,}\s*(?:forwarded message|weitergeleitete nachricht)\s*-{2,}|(?:begin forwarded message|anfang der weitergeleiteten nachricht|beginn der weitergeleiteten nachricht)\s*:)$",
    )
    .expect("valid regex")
});

static ADDRESS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"[^\s<>"'(),;:\[\]]+@[^\s<>"'(),;:\[\]]+"#).expect("valid regex")
});

static FROM_LINE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^\*?\s*(?:von|from)\s*:\*?\s*(.*)$").expect("valid regex"));

/// The body of an inline-forwarded mail whose header block names `sender` in `Von:`/`From:`.
fn inline_forward(text: &str, sender: &str) -> Option<String> {
    let normalized = text.replace("\r\n", "\n");
    let lines: Vec<&str> = normalized.split('\n').collect();
    let start = lines.iter().position(|l| FORWARD.is_match(l.trim()))?;
    // The header block: the lines after the separator up to the first empty line.
    let mut i = start + 1;
    let mut from_sender = false;
    while let Some(l) = lines.get(i) {
        if l.trim().is_empty() {
            if i > start + 1 {
                break;
            }
            i += 1;
            continue;
        }
        if let Some(c) = FROM_LINE.captures(l.trim()) {
            let value = c.get(1).map_or("", |m| m.as_str());
            from_sender = ADDRESS
                .find_iter(value)
                .any(|a| a.as_str().eq_ignore_ascii_case(sender));
        }
        i += 1;
        if i > start + 12 {
            return None;
        }
    }
    if !from_sender {
        return None;
    }
    let body = lines.get(i..)?.join("\n");
    Some(strip_quotes(&body))
}

/// The last two moves of a PGN's main line, one numbered move a line (`18... Rfe8`, `19. Nd5`).
pub fn pgn_last_moves(pgn: &str) -> String {
    let mut movetext = String::with_capacity(pgn.len());
    for line in pgn.lines() {
        let l = line.trim_start();
        if l.starts_with('[') || l.starts_with('%') {
            continue;
        }
        // `;` comments run to the end of the line.
        movetext.push_str(l.split(';').next().unwrap_or(""));
        movetext.push(' ');
    }
    // Comments `{…}` and variations `(…)` (nested) are skipped.
    let mut main = String::with_capacity(movetext.len());
    let mut depth = 0usize;
    let mut in_comment = false;
    for c in movetext.chars() {
        match c {
            '{' if !in_comment => in_comment = true,
            '}' if in_comment => in_comment = false,
            _ if in_comment => {}
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ if depth > 0 => {}
            c => main.push(c),
        }
    }
    let mut plies: Vec<(u32, bool, String)> = Vec::new();
    let mut next: Option<(u32, bool)> = None;
    for raw in main.split_whitespace() {
        let digits: String = raw.chars().take_while(|c| c.is_ascii_digit()).collect();
        let rest = &raw[digits.len()..];
        let mut tok = raw;
        if !digits.is_empty() && rest.starts_with('.') {
            let dots = rest.chars().take_while(|&c| c == '.').count();
            if let Ok(n) = digits.parse::<u32>() {
                next = Some((n, dots >= 3));
            }
            tok = &rest[dots..];
            if tok.is_empty() {
                continue;
            }
        }
        if tok.starts_with('$')
            || matches!(tok, "*" | "1-0" | "0-1" | "1/2-1/2" | "½-½")
            || !super::moves::is_move(tok)
        {
            continue;
        }
        let Some((n, black)) = next else {
            continue;
        };
        plies.push((n, black, tok.to_string()));
        next = Some(if black { (n + 1, false) } else { (n, true) });
    }
    let from = plies.len().saturating_sub(2);
    plies
        .get(from..)
        .unwrap_or(&[])
        .iter()
        .map(|(n, black, m)| format!("{n}{} {m}", if *black { "..." } else { "." }))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s2_pgn_last_two_moves() {
        let pgn = "[Event \"x\"]\n[White \"A\"]\n\n1. e4 e5 2. Nf3 {good} (2. f4 exf4) Nc6 $1 3. Bb5 ; Spanish\n*\n";
        assert_eq!(pgn_last_moves(pgn), "2... Nc6\n3. Bb5");
        assert_eq!(pgn_last_moves("1.e4 e5 2.Nf3 Nc6 1-0"), "2. Nf3\n2... Nc6");
        assert_eq!(pgn_last_moves("1. e4"), "1. e4");
        assert_eq!(pgn_last_moves("[Event \"x\"]\n*"), "");
        assert_eq!(pgn_last_moves("12... a6 13. Bg5"), "12... a6\n13. Bg5");
        assert_eq!(pgn_last_moves("{ unclosed (( 1. e4"), "");
    }

    #[test]
    fn s2_inline_forward_only_from_the_sender() {
        let t = "siehe unten\n\n---------- Forwarded message ---------\nVon: Bert <bert@x.de>\nDate: heute\nSubject: Zug\nTo: Anna <anna@x.de>\n\n\n19. Sd5 Sxd5\n\nGruß\n> 19. Sd5\n";
        assert_eq!(
            inline_forward(t, "bert@x.de").as_deref(),
            Some("19. Sd5 Sxd5\n\nGruß")
        );
        assert_eq!(inline_forward(t, "anna@x.de"), None);
        assert_eq!(inline_forward("19. Sd5", "bert@x.de"), None);
    }
}
