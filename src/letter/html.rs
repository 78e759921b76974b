//! HTML → plain text, for mails that have no text/plain part.
//!
//! One linear pass over the markup: block tags become line breaks, table cells tabs,
//! entities are decoded, `<head>`/`<style>`/`<script>` are dropped, quoted originals
//! (`<blockquote>`, Gmail's `gmail_quote`, Thunderbird's `moz-cite-prefix`, Yahoo's
//! `yahoo_quoted`) are removed with their contents — a line `>` stands where one was, which the
//! plain-text reader (`super::body`) drops like any quoted line, and which tells it that the line
//! above is an attribution (Roundcube's `reply-intro`) — and everything from Outlook's
//! `divRplyFwdMsg` / `appendonsend` on is cut. Struck-out text (`<del>`, `<s>`,
//! `<strike>`) is kept between `~~` marks, which the content reader turns into a
//! [`super::Doubt::StruckOut`].

/// Elements whose contents are never text.
const INVISIBLE: &[&str] = &[
    "head", "style", "script", "title", "xml", "template", "noscript",
];

/// Tags that start a new line.
const BLOCK: &[&str] = &[
    "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "table", "ul", "ol", "pre", "hr",
    "address", "section", "article", "header", "footer", "center", "dl", "dt", "dd", "form",
    "tbody", "thead",
];

/// Class or id fragments that mark a quoted original or a signature, removed with contents.
const QUOTE_MARKS: &[&str] = &[
    "gmail_quote",
    "gmail_signature",
    "moz-cite-prefix",
    "moz-signature",
    "yahoo_quoted",
];

/// Id fragments after which everything is the quoted original (Outlook).
const CUT_MARKS: &[&str] = &[
    "divrplyfwdmsg",
    "appendonsend",
    "mail-editor-reference-message",
];

/// Elements that have no end tag.
const VOID: &[&str] = &[
    "br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr", "source",
];

struct Tag<'a> {
    name: String,
    closing: bool,
    self_closing: bool,
    attrs: &'a str,
}

fn parse_tag(inner: &str) -> Option<Tag<'_>> {
    let (closing, rest) = match inner.strip_prefix('/') {
        Some(r) => (true, r),
        None => (false, inner),
    };
    let name_end = rest
        .find(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .unwrap_or(rest.len());
    let (name, attrs) = rest.split_at(name_end);
    if name.is_empty() || !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return None;
    }
    Some(Tag {
        name: name.to_ascii_lowercase(),
        closing,
        self_closing: attrs.trim_end().ends_with('/'),
        attrs,
    })
}

/// Converts HTML to text (see the module documentation).
pub fn html_to_text(html: &str) -> String {
    let mut out = Text::default();
    let mut skip: Option<(String, usize)> = None;
    let mut pre = 0usize;
    let mut rest = html;
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            if skip.is_none() {
                out.text(rest, pre > 0);
            }
            break;
        };
        let (before, after_lt) = rest.split_at(lt);
        if skip.is_none() {
            out.text(before, pre > 0);
        }
        if let Some(comment) = after_lt.strip_prefix("<!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        let Some(gt) = after_lt.find('>') else {
            // No tag can close any more: the rest is literal text.
            if skip.is_none() {
                out.text(after_lt, pre > 0);
            }
            break;
        };
        let inner = &after_lt[1..gt];
        rest = &after_lt[gt + 1..];
        let Some(tag) = parse_tag(inner) else {
            if inner.starts_with('!') || inner.starts_with('?') {
                continue; // doctype, processing instruction, CDATA
            }
            if skip.is_none() {
                out.text(&after_lt[..gt + 1], pre > 0);
            }
            continue;
        };
        if let Some((name, depth)) = &mut skip {
            if tag.name == *name && !tag.self_closing {
                if tag.closing {
                    *depth -= 1;
                } else {
                    *depth += 1;
                }
            }
            if *depth == 0 {
                skip = None;
                if BLOCK.contains(&tag.name.as_str()) || tag.name == "blockquote" {
                    out.newline();
                }
            }
            continue;
        }
        let attrs = tag.attrs.to_ascii_lowercase();
        if !tag.closing {
            if CUT_MARKS.iter().any(|m| attr_has(&attrs, m)) {
                break;
            }
            let void = VOID.contains(&tag.name.as_str()) || tag.self_closing;
            let quote = tag.name == "blockquote" || QUOTE_MARKS.iter().any(|m| attr_has(&attrs, m));
            if !void && (quote || INVISIBLE.contains(&tag.name.as_str())) {
                if quote {
                    // A `>` line where the quote stood: the plain-text reader sees that a quote
                    // follows the line above it (an attribution: `Fernschach-Relais писал(а)
                    // 2026-11-30 20:42:` in Roundcube's `reply-intro`) and drops it.
                    out.quote_mark();
                }
                skip = Some((tag.name, 1));
                continue;
            }
        }
        match tag.name.as_str() {
            "br" => out.hard_newline(),
            "td" | "th" if !tag.closing => out.tab(),
            "del" | "s" | "strike" => out.raw("~~"),
            "pre" if tag.closing => pre = pre.saturating_sub(1),
            "pre" => {
                pre += 1;
                out.newline();
            }
            n if BLOCK.contains(&n) => out.newline(),
            _ => {}
        }
    }
    out.finish()
}

/// Whether a class or id attribute value contains `mark` (attrs lower-cased).
fn attr_has(attrs: &str, mark: &str) -> bool {
    (attrs.contains("class") || attrs.contains("id")) && attrs.contains(mark)
}

#[derive(Default)]
struct Text {
    s: String,
    pending_space: bool,
}

impl Text {
    fn at_line_start(&self) -> bool {
        self.s.is_empty() || self.s.ends_with('\n')
    }

    fn raw(&mut self, t: &str) {
        if self.pending_space && !self.at_line_start() {
            self.s.push(' ');
        }
        self.pending_space = false;
        self.s.push_str(t);
    }

    fn text(&mut self, t: &str, pre: bool) {
        let decoded = decode_entities(t);
        for c in decoded.chars() {
            if pre {
                if c != '\r' {
                    self.s.push(c);
                }
            } else if c.is_whitespace() {
                if !self.at_line_start() && !self.s.ends_with('\t') {
                    self.pending_space = true;
                }
            } else {
                if self.pending_space {
                    self.s.push(' ');
                    self.pending_space = false;
                }
                self.s.push(c);
            }
        }
    }

    fn tab(&mut self) {
        self.pending_space = false;
        if !self.at_line_start() {
            self.s.push('\t');
        }
    }

    fn newline(&mut self) {
        self.pending_space = false;
        if !self.at_line_start() {
            self.s.push('\n');
        }
    }

    /// A line of its own holding `>`: a quote was removed here.
    fn quote_mark(&mut self) {
        self.newline();
        if !self.s.ends_with(">\n") {
            self.s.push_str(">\n");
        }
    }

    fn hard_newline(&mut self) {
        self.pending_space = false;
        self.s.push('\n');
    }

    fn finish(self) -> String {
        let mut out = String::with_capacity(self.s.len());
        let mut blank = 0;
        for line in self.s.lines() {
            let line = line.trim_end();
            if line.trim().is_empty() {
                blank += 1;
                if blank > 1 {
                    continue;
                }
                out.push('\n');
            } else {
                blank = 0;
                out.push_str(line);
                out.push('\n');
            }
        }
        out.trim_matches('\n').to_string()
    }
}

/// Decodes `&name;`, `&#123;` and `&#x7B;` entities; unknown ones stay as written.
pub fn decode_entities(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semi = after
            .char_indices()
            .take(12)
            .find(|&(_, c)| c == ';')
            .map(|(i, _)| i);
        match semi.and_then(|i| entity(&after[..i]).map(|c| (i, c))) {
            Some((i, c)) => {
                out.push(c);
                rest = &after[i + 1..];
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

fn entity(name: &str) -> Option<char> {
    if let Some(num) = name.strip_prefix('#') {
        let code = match num.strip_prefix(['x', 'X']) {
            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
            None => num.parse().ok()?,
        };
        return char::from_u32(code).filter(|c| *c != '\0');
    }
    Some(match name {
        "nbsp" | "ensp" | "emsp" | "thinsp" => ' ',
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "auml" => 'ä',
        "ouml" => 'ö',
        "uuml" => 'ü',
        "Auml" => 'Ä',
        "Ouml" => 'Ö',
        "Uuml" => 'Ü',
        "szlig" => 'ß',
        "eacute" => 'é',
        "egrave" => 'è',
        "aacute" => 'á',
        "agrave" => 'à',
        "ccedil" => 'ç',
        "hellip" => '…',
        "ndash" => '–',
        "mdash" => '—',
        "minus" => '−',
        "frac12" => '½',
        "laquo" => '«',
        "raquo" => '»',
        "bdquo" => '„',
        "ldquo" => '“',
        "rdquo" => '”',
        "lsquo" => '‘',
        "rsquo" => '’',
        "sbquo" => '‚',
        "euro" => '€',
        "copy" => '©',
        "reg" => '®',
        "middot" => '·',
        "times" => '×',
        "shy" | "zwnj" | "zwj" => '\u{ad}',
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_become_lines_and_entities_are_decoded() {
        let t = html_to_text(
            "<html><head><style>p{x:1}</style></head><body><p>12. Lb5&nbsp;a6</p><div>Gr&uuml;&szlig;e<br>Anna &amp; Bert</div></body></html>",
        );
        assert_eq!(t, "12. Lb5 a6\nGrüße\nAnna & Bert");
    }

    #[test]
    fn quotes_are_removed() {
        let t = html_to_text(
            "<div dir=\"ltr\">13. Lg5</div><br><div class=\"gmail_quote\"><div class=\"gmail_attr\">Am Mo., 30. Nov. 2026 um 10:00 Uhr schrieb Anna:<br></div><blockquote class=\"gmail_quote\"><div>12... Sf6</div></blockquote></div>",
        );
        assert_eq!(t, "13. Lg5\n\n>");
        let t = html_to_text(
            "<p>13. Lg5</p><div class=\"moz-cite-prefix\">Am 30.11.2026 um 10:00 schrieb Anna:</div><blockquote type=\"cite\"><p>12... Sf6</p><blockquote>x</blockquote><p>y</p></blockquote><p>Gruß</p>",
        );
        assert_eq!(t, "13. Lg5\n>\nGruß");
        // Roundcube's attribution stands above the quote, outside it: the `>` line below it
        // lets the plain-text reader drop it.
        let t = html_to_text(
            "<p>5... a6</p><p>Gruß</p><p id=\"reply-intro\">Fernschach-Relais писал(а) 2026-11-30 20:42:</p><blockquote type=\"cite\"><p>5... g6</p></blockquote>",
        );
        assert_eq!(
            t,
            "5... a6\nGruß\nFernschach-Relais писал(а) 2026-11-30 20:42:\n>"
        );
        assert_eq!(crate::letter::body::strip_quotes(&t), "5... a6\nGruß");
    }

    #[test]
    fn outlook_reply_block_cuts_the_rest() {
        let t = html_to_text(
            "<div>12... a6</div><hr style=\"display:inline-block\"><div id=\"divRplyFwdMsg\" dir=\"ltr\"><b>Von:</b> Anna</div><div>12. Lb5</div>",
        );
        assert_eq!(t, "12... a6");
    }

    #[test]
    fn struck_text_is_marked() {
        assert_eq!(
            html_to_text("<p>13. <del>Lg5</del> Lf4</p>"),
            "13. ~~Lg5~~ Lf4"
        );
        assert_eq!(html_to_text("<p><s>13. Lg5</s></p>"), "~~13. Lg5~~");
    }

    #[test]
    fn table_cells_become_tabs() {
        let t = html_to_text("<table><tr><td>12.</td><td>Lb5</td><td>a6</td></tr></table>");
        assert_eq!(t, "12.\tLb5\ta6");
    }

    #[test]
    fn broken_markup_does_not_hang() {
        let s = "<".repeat(100_000);
        assert_eq!(html_to_text(&s).len(), 100_000);
        let s = "<!--".repeat(10_000);
        assert_eq!(html_to_text(&s), "");
        assert_eq!(
            html_to_text("a &#xFFFFFFFF; &bogus; &#0; b"),
            "a &#xFFFFFFFF; &bogus; &#0; b"
        );
    }
}
