//! The body side of a letter: choose the text part, unfold `format=flowed`, and cut
//! away what the author did not write himself — quoted lines, the quoted original
//! below a reply header, Outlook header blocks, signatures, mobile footers and
//! disclaimers.

use std::sync::LazyLock;

use mail_parser::{Message, MimeHeaders, PartType};
use regex::Regex;

use super::Limits;
use super::html::html_to_text;

/// The author's own text of `message` (see the module documentation).
pub fn author_text(message: &Message<'_>, limits: &Limits) -> String {
    strip_quotes(&choose_text(message, limits))
}

/// Ids of the parts reachable from the root within `max_depth` multipart levels,
/// at most `max_parts` of them.
pub(crate) fn reachable_parts(message: &Message<'_>, limits: &Limits) -> Vec<bool> {
    let mut allowed = vec![false; message.parts.len()];
    let mut stack: Vec<(usize, usize)> = vec![(0, 0)];
    let mut seen = 0usize;
    while let Some((id, depth)) = stack.pop() {
        if seen >= limits.max_parts {
            break;
        }
        let Some(slot) = allowed.get_mut(id) else {
            continue;
        };
        if *slot {
            continue;
        }
        *slot = true;
        seen += 1;
        if depth >= limits.max_depth {
            continue;
        }
        if let Some(PartType::Multipart(children)) = message.parts.get(id).map(|p| &p.body) {
            for &child in children.iter().rev() {
                stack.push((child as usize, depth + 1));
            }
        }
    }
    allowed
}

/// The cut of `s` to at most `max` bytes, at a character boundary.
pub(crate) fn cap(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while end > 0 && !s.is_char_boundary(end) {
        end -= 1;
    }
    s.get(..end).unwrap_or("")
}

/// text/plain parts of the text body if there are any, else the HTML parts converted;
/// at most `max_text_bytes` in all.
pub(crate) fn choose_text(message: &Message<'_>, limits: &Limits) -> String {
    let allowed = reachable_parts(message, limits);
    let is_allowed = |id: u32| allowed.get(id as usize).copied().unwrap_or(false);
    let mut out = String::new();
    for &id in &message.text_body {
        if !is_allowed(id) {
            continue;
        }
        let Some(part) = message.parts.get(id as usize) else {
            continue;
        };
        if let PartType::Text(t) = &part.body {
            let room = limits.max_text_bytes.saturating_sub(out.len());
            if room == 0 {
                break;
            }
            let flowed = part
                .content_type()
                .and_then(|ct| ct.attribute("format"))
                .is_some_and(|f| f.eq_ignore_ascii_case("flowed"));
            let delsp = part
                .content_type()
                .and_then(|ct| ct.attribute("delsp"))
                .is_some_and(|f| f.eq_ignore_ascii_case("yes"));
            let t = cap(t, room);
            let t = if flowed {
                unflow(t, delsp)
            } else {
                t.to_string()
            };
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(cap(&t, limits.max_text_bytes.saturating_sub(out.len())));
        }
    }
    if !out.trim().is_empty() {
        return out;
    }
    out.clear();
    for &id in &message.html_body {
        if !is_allowed(id) {
            continue;
        }
        if let Some(PartType::Html(h)) = message.parts.get(id as usize).map(|p| &p.body) {
            let room = limits.max_text_bytes.saturating_sub(out.len());
            if room == 0 {
                break;
            }
            let t = html_to_text(cap(h, room));
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(cap(&t, limits.max_text_bytes.saturating_sub(out.len())));
        }
    }
    out
}

/// Unfolds RFC 3676 `format=flowed` text: a line ending in a space continues on the
/// next line of the same quote depth; space-stuffing is removed.
pub fn unflow(text: &str, delsp: bool) -> String {
    let mut out = String::with_capacity(text.len());
    let mut open: Option<(usize, String)> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let depth = line.chars().take_while(|&c| c == '>').count();
        let body = &line[depth..];
        let body = body.strip_prefix(' ').unwrap_or(body);
        let soft = body.ends_with(' ') && body != "-- ";
        let piece = if soft && delsp {
            &body[..body.len() - 1]
        } else {
            body
        };
        match open.take() {
            Some((d, mut acc)) if d == depth => {
                acc.push_str(piece);
                open = Some((d, acc));
            }
            Some((d, acc)) => {
                push_line(&mut out, d, &acc);
                open = Some((depth, piece.to_string()));
            }
            None => open = Some((depth, piece.to_string())),
        }
        if !soft && let Some((d, acc)) = open.take() {
            push_line(&mut out, d, &acc);
        }
    }
    if let Some((d, acc)) = open {
        push_line(&mut out, d, &acc);
    }
    out
}

fn push_line(out: &mut String, depth: usize, line: &str) {
    for _ in 0..depth {
        out.push('>');
    }
    if depth > 0 {
        out.push(' ');
    }
    out.push_str(line);
    out.push('\n');
}

static REPLY_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:am|on|le|el)\s.{0,300}\b(?:schrieb|wrote|a écrit|escribió)\b.{0,300}:|.{0,300}\b(?:schrieb|wrote|a écrit|escribió)(?:\s+(?:am|on)\s.{0,200})?:|.{0,200}\bzitat von\b.{0,200}:)$",
    )
    .expect("valid regex")
});

static SEPARATOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:-{2,}\s*(?:ursprüngliche nachricht|urspruengliche nachricht|original message|originalnachricht|original-nachricht|weitergeleitete nachricht|forwarded message|nachricht im original)\s*-{2,}|(?:begin forwarded message|anfang der weitergeleiteten nachricht|beginn der weitergeleiteten nachricht)\s*:|_{8,}|={8,})$",
    )
    .expect("valid regex")
});

static SIGNATURE_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:gesendet (?:von|mit|vom|über) |von meinem .{0,40}gesendet|sent from |sent with |sent via |get outlook for|outlook für (?:ios|android)|diese e-mail wurde (?:von|mit) .{0,60}gesendet|gesendet: von meinem)",
    )
    .expect("valid regex")
});

static DISCLAIMER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(?:(?:diese (?:e-?mail|nachricht)|this (?:e-?mail|message)|the information (?:in|contained))\b.{0,200}\b(?:vertraulich|confidential|intended|empfänger|recipient|privileged)|(?:disclaimer|haftungsausschluss|vertraulichkeitshinweis|confidentiality notice|rechtlicher hinweis)\s*:?)",
    )
    .expect("valid regex")
});

static HEADER_FIELD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\*?\s*(von|from|gesendet|sent|datum|date|an|to|cc|betreff|subject)\s*:\*?\s*\S",
    )
    .expect("valid regex")
});

/// Which field of a mail header block a line is, if any.
fn header_field(line: &str) -> Option<&'static str> {
    let c = HEADER_FIELD.captures(line.trim())?;
    Some(match c.get(1)?.as_str().to_lowercase().as_str() {
        "von" | "from" => "from",
        "gesendet" | "sent" | "datum" | "date" => "date",
        "an" | "to" => "to",
        "cc" => "cc",
        _ => "subject",
    })
}

/// Whether an Outlook/webmail header block (`Von: … Gesendet: … An: … Betreff: …`)
/// starts at line `i`.
fn header_block_at(lines: &[&str], i: usize) -> bool {
    let Some(first) = lines.get(i).and_then(|l| header_field(l)) else {
        return false;
    };
    if first == "subject" || first == "cc" {
        return false;
    }
    let mut seen: Vec<&str> = vec![first];
    for line in lines.iter().skip(i + 1).take(7) {
        if line.trim().is_empty() {
            continue;
        }
        match header_field(line) {
            Some(f) => {
                if !seen.contains(&f) {
                    seen.push(f);
                }
            }
            None => break,
        }
    }
    seen.contains(&"from") && seen.contains(&"subject") && seen.len() >= 3
}

fn is_quoted(line: &str) -> bool {
    line.trim_start().starts_with('>')
}

/// Whether a reply header ("Am … schrieb …:", "On … wrote:") ends at line `i`,
/// possibly wrapped over up to three lines; returns its first line.
fn reply_header_ending_at(lines: &[&str], i: usize) -> Option<usize> {
    for start in (i.saturating_sub(2)..=i).rev() {
        let joined = lines
            .get(start..=i)?
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join(" ");
        if joined.len() <= 600 && REPLY_HEADER.is_match(&joined) {
            // A wrapped header's first line must itself open like one.
            let first = lines.get(start).map_or("", |l| l.trim()).to_lowercase();
            if start == i
                || first.starts_with("am ")
                || first.starts_with("on ")
                || first.contains('<')
                || first.contains('@')
            {
                return Some(start);
            }
        }
    }
    None
}

/// Removes quotes, reply headers, quoted originals, signatures and footers (see the
/// module documentation) from plain text.
pub fn strip_quotes(text: &str) -> String {
    let normalized = text.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<&str> = normalized.split('\n').collect();
    let mut keep: Vec<&str> = Vec::new();
    let mut i = 0;
    while let Some(&line) = lines.get(i) {
        let t = line.trim();
        if t == "--" || SEPARATOR.is_match(t) || SIGNATURE_LINE.is_match(t) {
            break;
        }
        if DISCLAIMER.is_match(t) || header_block_at(&lines, i) {
            break;
        }
        if !is_quoted(line)
            && !t.is_empty()
            && t.ends_with(':')
            && let Some(start) = reply_header_ending_at(&lines, i)
        {
            // Drop the header (and any of its lines already kept). If `>` lines follow,
            // the author may answer between them (inline reply): keep reading;
            // otherwise everything below is the unmarked original.
            let already = i - start;
            keep.truncate(keep.len().saturating_sub(already));
            let next = lines.iter().skip(i + 1).find(|l| !l.trim().is_empty());
            if next.is_some_and(|l| is_quoted(l)) {
                i += 1;
                continue;
            }
            break;
        }
        if !is_quoted(line) {
            keep.push(line.trim_end());
        }
        i += 1;
    }
    let mut out = String::new();
    let mut blank = 0;
    for line in keep {
        if line.trim().is_empty() {
            blank += 1;
            if blank > 1 || out.is_empty() {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_lines_are_dropped() {
        assert_eq!(
            strip_quotes("13. Lg5\n> 12... Sf6\n>> 12. Lb5\n"),
            "13. Lg5"
        );
    }

    #[test]
    fn german_reply_header_cuts_unmarked_original() {
        let t = "13. Lg5\n\nAm 30.11.2026 um 10:00 schrieb Anna Adler:\n12... Sf6\n";
        assert_eq!(strip_quotes(t), "13. Lg5");
    }

    #[test]
    fn gmail_reply_header_wrapped_over_two_lines() {
        let t = "13. Lg5\n\nAm Mo., 30. Nov. 2026 um 10:00 Uhr schrieb Anna Adler <\nanna@x>:\n\n12... Sf6\n";
        assert_eq!(strip_quotes(t), "13. Lg5");
        let t = "13. Lg5\n\nAm Mo., 30. Nov. 2026 um 10:00 Uhr schrieb Anna Adler\n<anna@x>:\n> 12... Sf6\n";
        assert_eq!(strip_quotes(t), "13. Lg5");
    }

    #[test]
    fn english_reply_header() {
        let t = "13. Bg5\nOn Mon, Nov 30, 2026 at 10:00 AM Anna <anna@x> wrote:\n12... Nf6\n";
        assert_eq!(strip_quotes(t), "13. Bg5");
    }

    #[test]
    fn inline_reply_keeps_answers_between_quotes() {
        let t = "Am 30.11.2026 schrieb Anna:\n> 12... Sf6\n13. Lg5\n> Remis?\nNein.\n";
        assert_eq!(strip_quotes(t), "13. Lg5\nNein.");
    }

    #[test]
    fn original_message_separators() {
        for sep in [
            "-----Ursprüngliche Nachricht-----",
            "-----Original Message-----",
            "-------- Weitergeleitete Nachricht --------",
            "________________________________",
        ] {
            let t = format!("13. Lg5\n{sep}\n12... Sf6\n");
            assert_eq!(strip_quotes(&t), "13. Lg5", "{sep}");
        }
    }

    #[test]
    fn outlook_header_blocks() {
        let t = "13. Lg5\n\nVon: Anna Adler <anna@x>\nGesendet: Montag, 30. November 2026 10:00\nAn: relay@x\nBetreff: [FAX-2026-3/7]\n\n12... Sf6\n";
        assert_eq!(strip_quotes(t), "13. Lg5");
        let t = "13. Bg5\n*From:* Anna\n*Sent:* Monday\n*To:* relay\n*Subject:* x\n12... Nf6";
        assert_eq!(strip_quotes(t), "13. Bg5");
        let t = "13. Lg5\nGesendet: Montag, 30. November 2026 um 10:00 Uhr\nVon: \"Anna\" <anna@x>\nAn: relay@x\nBetreff: Zug\n12... Sf6";
        assert_eq!(strip_quotes(t), "13. Lg5");
    }

    #[test]
    fn s14_gesendet_line_alone_is_not_a_header_block() {
        let t = "13. Lg5\nErhalten: 28.11.2026\nGesendet: 30.11.2026\nBedenkzeit: 2 Tage";
        assert_eq!(strip_quotes(t), t);
    }

    #[test]
    fn signatures_and_footers() {
        assert_eq!(strip_quotes("13. Lg5\n-- \nAnna Adler\nTel 123"), "13. Lg5");
        assert_eq!(strip_quotes("13. Lg5\n--\nAnna"), "13. Lg5");
        assert_eq!(
            strip_quotes("13. Lg5\n\nGesendet von meinem iPhone"),
            "13. Lg5"
        );
        assert_eq!(strip_quotes("13. Bg5\nSent from my Galaxy"), "13. Bg5");
        assert_eq!(
            strip_quotes(
                "13. Lg5\nDiese E-Mail enthält vertrauliche Informationen und ist nur für den Empfänger bestimmt."
            ),
            "13. Lg5"
        );
    }

    #[test]
    fn flowed_text_is_unfolded() {
        let t = "Ich biete dir hiermit \r\nRemis an.\r\n> quoted \r\n> more\r\n-- \r\nsig";
        assert_eq!(
            unflow(t, false),
            "Ich biete dir hiermit Remis an.\n> quoted more\n-- \nsig\n"
        );
        assert_eq!(unflow("ab \r\ncd", true), "abcd\n");
        assert_eq!(unflow(" From me", false), "From me\n");
    }

    #[test]
    fn cap_respects_char_boundaries() {
        assert_eq!(cap("äöü", 3), "ä");
        assert_eq!(cap("abc", 10), "abc");
    }
}
