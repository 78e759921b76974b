//! The body side of a letter: choose the text part, unfold `format=flowed`, and cut
//! away what the author did not write himself — quoted lines, the quoted original
//! below a reply header, Outlook header blocks, signatures, mobile footers and
//! disclaimers.

use std::sync::LazyLock;

use mail_parser::{Message, MimeHeaders, PartType};
use regex::Regex;

use super::html::html_to_text;
use super::types::Limits;

/// The author's own text of `message` (see the module documentation).
pub fn author_text(message: &Message<'_>, limits: &Limits) -> String {
    let sender = message
        .from()
        .and_then(|a| a.first())
        .and_then(|a| a.name())
        .map(str::to_string);
    strip_quotes_from(&choose_text(message, limits), sender.as_deref())
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
            // A line that neither continues nor is continued goes out as it is.
            None if !soft => {
                push_line(&mut out, depth, piece);
                continue;
            }
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

/// A mobile client's footer in any language, on a short line of its own: a device or a mail
/// app beside a word for "sent" or "get" (`Wysłane z iPhone'a`, `Отправлено с iPhone`,
/// `Envoyé de mon iPhone`, `Skickat från min iPhone`, `Отправлено с устройства Galaxy`,
/// `Holen Sie sich Outlook für Android`, `Отправлено из Почты Mail`).
static DEVICE_FOOTER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:iphone|ipad|galaxy|android|smartphone|blackberry|outlook|почты mail|mail\.ru|yahoo mail)",
    )
    .expect("valid regex")
});
static SENT_WORD: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)(?:^|\s)(?:gesendet|sent|envoyé|sendt|skickat|wysłane|wysłano|отправлено|надіслано|lähetetty|verzonden|enviado|inviato|odesláno|gönderildi|küldve|holen sie sich|get|téléchargez|scarica|descarga)(?:$|\s)",
    )
    .expect("valid regex")
});

/// Whether `t` (a trimmed line) is a mobile client's footer ([`DEVICE_FOOTER`]).
fn device_footer(t: &str) -> bool {
    t.split_whitespace().count() <= 8 && DEVICE_FOOTER.is_match(t) && SENT_WORD.is_match(t)
}

/// Whether `t` may open a [`DISCLAIMER`]: each of its forms opens with one of `d t h v c r`.
fn may_open_disclaimer(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| !c.is_ascii() || "dthvcrDTHVCR".contains(c))
}

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
    // Each field name opens with one of these letters (after a `*` and blanks).
    let t = line.trim();
    let name = t.strip_prefix('*').unwrap_or(t).trim_start();
    if name
        .bytes()
        .next()
        .is_none_or(|b| b.is_ascii() && !b"abcdfgstvABCDFGSTV".contains(&b))
    {
        return None;
    }
    let c = HEADER_FIELD.captures(t)?;
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

/// One `Label: value` line of a header block in any language: a label of one to three words
/// (`Från`, `Envoyé`, `*Sent*`, `Отправлено`), a colon (French puts a space before it), a value.
static LABEL_LINE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^\s*\*?\s*(\p{L}[\p{L}\p{M}.'’-]*(?:\s\p{L}[\p{L}\p{M}.'’-]*){0,2})\s?\*?\s?:\*?\s+\S",
    )
    .expect("valid regex")
});
/// What [`LABEL_LINE`] asks first: a letter opens the line (after blanks and a `*`), and a `:`
/// (with a `*` after it or not) stands before a blank.
fn may_be_label_line(line: &str) -> bool {
    let t = line.trim_start();
    let t = t.strip_prefix('*').unwrap_or(t).trim_start();
    t.starts_with(char::is_alphabetic)
        && line.match_indices(':').any(|(at, _)| {
            let rest = &line[at + 1..];
            rest.strip_prefix('*')
                .unwrap_or(rest)
                .starts_with(char::is_whitespace)
        })
}

/// [`LABEL_LINE`]'s label of an ASCII line, read by hand: there `\p{L}` is `A-Z a-z`, `\p{M}`
/// nothing and `\s` an ASCII blank. The label is the longest run of one to three words (each a
/// letter, then letters, `.`, `'`, `-`; one blank between two) that the `: value` can follow;
/// a word cut short cannot be followed by it, so that is what the regex finds.
fn ascii_label(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let blank = |at: usize| {
        b.get(at)
            .is_some_and(|&c| c.is_ascii_whitespace() || c == 0x0b)
    };
    let is = |at: usize, c: u8| b.get(at) == Some(&c);
    let mut i = 0;
    while blank(i) {
        i += 1;
    }
    if is(i, b'*') {
        i += 1;
    }
    while blank(i) {
        i += 1;
    }
    let start = i;
    let word_end = |at: usize| {
        b.get(at).is_some_and(u8::is_ascii_alphabetic).then(|| {
            at + 1
                + b[at + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic() || matches!(c, b'.' | b'\'' | b'-'))
                    .count()
        })
    };
    // `\s?\*?\s?:\*?\s+\S` at `at`.
    let value_follows = |at: usize| {
        let gaps: [&[u8]; 7] = [b"", b" ", b"*", b" *", b"* ", b" * ", b"  "];
        gaps.iter().any(|gap| {
            let mut j = at;
            for &g in *gap {
                if g == b' ' && blank(j) || g == b'*' && is(j, b'*') {
                    j += 1;
                } else {
                    return false;
                }
            }
            if !is(j, b':') {
                return false;
            }
            [true, false].into_iter().any(|star| {
                let mut k = j + 1;
                if star {
                    if !is(k, b'*') {
                        return false;
                    }
                    k += 1;
                }
                let blanks = k;
                while blank(k) {
                    k += 1;
                }
                k > blanks && k < b.len()
            })
        })
    };
    let mut ends = [0usize; 3];
    let mut count = 0;
    let mut end = word_end(start)?;
    loop {
        ends[count] = end;
        count += 1;
        match (count < 3 && blank(end))
            .then(|| word_end(end + 1))
            .flatten()
        {
            Some(next) => end = next,
            None => break,
        }
    }
    ends[..count]
        .iter()
        .rev()
        .find(|&&e| value_follows(e))
        .map(|&e| &line[start..e])
}

/// Labels the relay's own vocabulary uses in a player's or director's text: never a header.
const OWN_LABELS: &[&str] = &[
    "erhalten",
    "empfangen",
    "eingang",
    "abgesandt",
    "abgeschickt",
    "received",
    "bedenkzeit",
    "zeit",
    "time",
    "urlaub",
    "leave",
    "sonderurlaub",
    "eventualzüge",
    "eventualzuege",
    "eventualzug",
    "conditional",
    "if",
    "wenn",
    "falls",
    "ergebnis",
    "result",
    "adresse",
    "address",
    "also",
    "status",
    "zug",
    "move",
    "antwort",
    "reply",
    "beginn",
    "ende",
    "grund",
    "reason",
    "mein zug",
    "my move",
    "neue adresse",
    "weitere adresse",
    "special leave",
    "thinking time",
    "days used",
    "time used",
    "ankündigung",
    "announcement",
    "remis",
    "draw",
    // The director's desk (TO §11, §23, §26, §29, §30).
    "rücktritt",
    "ruecktritt",
    "withdraw",
    "withdrawal",
    "korrespondenz",
    "correspondence",
    "pgn",
    "prüfen",
    "pruefen",
    "verify",
    "nur züge",
    "moves only",
    "züge über tl",
    "moves through tl",
    // Issue 49: the warning, the appeal, help, the time in words.
    "ermahnung",
    "verwarnung",
    "warnung",
    "warning",
    "einspruch",
    "appeal",
    "hilfe",
    "help",
    "bedenkzeit gutschreiben",
    "bedenkzeit anrechnen",
    "credit time",
    "charge time",
];
/// An address or a clock time: what the first lines of a header block carry.
static ADDRESS_OR_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[\w.+-]+@[\w-]+\.[\w.-]+|mailto:|\b\d{1,2}:\d{2}\b").expect("valid regex")
});
/// A year and a clock time written with a dot after it, as Finnish and Danish clients write a
/// header block's date (`maanantai 30. marraskuuta 2026 19.42`, `04.07.2024  17.45`).
static YEAR_THEN_TIME: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"\b(?:19|20)\d\d\b[^\d\n]{0,12}\b\d{1,2}[.:]\d{2}\b").expect("valid regex")
});

/// The label of a `Label: value` line, lower-cased, if the line is one.
fn label_of(line: &str) -> Option<String> {
    if !may_be_label_line(line) {
        return None;
    }
    if line.is_ascii() {
        return ascii_label(line).map(str::to_lowercase);
    }
    let c = LABEL_LINE.captures(line)?;
    Some(c.get(1)?.as_str().to_lowercase())
}

/// Whether a mail header block in any language starts at line `i`, recognised by its shape
/// rather than its words (`Från: … / Skickat: …`, `De : … / Envoyé : …`, `От: … / Отправлено:
/// …`): two or more `Label: value` lines in a row, an address or a clock time among the first
/// two, and no label of the relay's own vocabulary. Also one line that holds two such fields
/// and an address (a header block an HTML part ran together).
fn header_shape_at(lines: &[&str], i: usize) -> bool {
    let Some(first) = lines.get(i).and_then(|l| label_of(l)) else {
        return false;
    };
    let own = |label: &str| OWN_LABELS.contains(&label);
    if own(&first) {
        return false;
    }
    let line = lines[i];
    // `From: bob@example.com Date: Thu, 24 Mar 2016 08:07:12 -0700`
    let fields_in_line = line.matches(": ").count() + line.matches(":* ").count();
    if fields_in_line >= 2 && ADDRESS_OR_TIME.is_match(line) && line.contains('@') {
        return true;
    }
    let block: Vec<&str> = lines[i..]
        .iter()
        .take(8)
        .take_while(|l| label_of(l).is_some_and(|lb| !own(&lb)))
        .copied()
        .collect();
    block.len() >= 2
        && block
            .iter()
            .take(2)
            .any(|l| ADDRESS_OR_TIME.is_match(l) || YEAR_THEN_TIME.is_match(l))
}

/// `-----Oprindelig meddelelse-----`, `------On 12/29/1987 17:32 PM, Julius wrote-----`: a
/// separator in any language, by its shape.
static DASHED_SEPARATOR: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^-{3,}\s*\p{L}[^-]{0,100}?\s*-{3,}$").expect("valid regex"));

/// An attribution line in any language, by its shape: it ends with `:` and names an address
/// and a clock time or date (`Den 14 september, 2015 02:23:18, Valentino (v@r.be) skrev:`,
/// `Vào 14:24 8 tháng 6, 2017, Hùng <h@x.com> đã viết:`), possibly with its last word on the
/// next line (`… <zoe@x.com>` / `napisał:`); or a line that opens with a date and a clock time
/// whose address follows within three lines (`On Tue, Apr 11, 2017 at 10:07 PM John` … `mailto:`).
fn attribution_at(lines: &[&str], i: usize) -> Option<usize> {
    let line = lines.get(i)?.trim();
    let dated = |l: &str| {
        ADDRESS_OR_TIME.is_match(l)
            && (l.contains('@') || l.contains("mailto:"))
            && l.chars().filter(char::is_ascii_digit).count() >= 4
    };
    if line.len() <= 300 && line.ends_with(':') && label_of(line).is_none() {
        if dated(line) {
            return Some(i);
        }
        // `napisał:` alone after the line that names the writer.
        if !line.contains(' ')
            && let Some(prev) = i.checked_sub(1).and_then(|p| lines.get(p))
            && dated(prev.trim())
        {
            return Some(i - 1);
        }
    }
    if line.contains(':')
        && OPENS_DATED.is_match(line)
        && label_of(line).is_none()
        && lines[i + 1..]
            .iter()
            .take(4)
            .any(|l| l.contains("mailto:") || l.contains('@') && l.contains('<'))
    {
        return Some(i);
    }
    None
}

/// A line that opens like an attribution: a short word, then a clock time (`On Tue, Apr 11, 2017
/// at 10:07 PM John Smith`).
static OPENS_DATED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\p{L}{1,4}\s.{0,80}\b\d{1,2}:\d{2}\b").expect("valid regex"));

/// A reply header that shares its line with the author's text:
/// `1... e5 2. Sf3 On Wed, Apr 4, 2012 at 3:59 PM, bob@example.com wrote:` → the text before it.
static OPENS_LIKE_HEADER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:am|on|le|el)\s").expect("valid regex"));
static SHARED_REPLY_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(.*?\S)\s*(?:-{2,}\s*)?(?:am|on|le|el)\s.{0,300}\b(?:schrieb|wrote|a écrit|escribió)\b.{0,300}:$",
    )
    .expect("valid regex")
});

/// Whether quoted lines follow line `i` (after blank ones): below a reply header the author may
/// answer between the quotes (inline reply); otherwise everything below is the original.
fn inline_reply_follows(lines: &[&str], quoted: &[bool], i: usize) -> bool {
    (i + 1..lines.len())
        .find(|&j| !lines[j].trim().is_empty())
        .is_some_and(|j| quoted[j])
}

/// Which lines of `lines` are quoted: a `>` line (but `>:`, the end of an address a client
/// wrapped before it: `… <relay@x.de` / `>:`), and the lines of a run of two or more in a row
/// quoted with another prefix — `|` (`| `, `|`; mutt's `$indent_string`, Outlook's plain-text
/// prefix) or `: ` (Gnus' `message-yank-prefix`; `:` alone for an empty line).
fn quote_marks(lines: &[&str]) -> Vec<bool> {
    let starts = |l: &str, p: char| {
        let t = l.trim_start();
        match p {
            ':' => t == ":" || t.starts_with(": "),
            _ => t.starts_with(p),
        }
    };
    let mut marks: Vec<bool> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let t = l.trim();
            if t.starts_with('>') && t.trim_start_matches(['>', ')']).trim() == ":" {
                // `… <relay@x.de` / `>:`: the address of an attribution line, wrapped.
                let wrapped = i
                    .checked_sub(1)
                    .and_then(|p| lines.get(p))
                    .is_some_and(|p| p.rfind('<') > p.rfind('>'));
                return !wrapped;
            }
            t.starts_with('>')
        })
        .collect();
    for prefix in ['|', ':'] {
        for i in 0..lines.len() {
            if starts(lines[i], prefix)
                && (i > 0 && starts(lines[i - 1], prefix)
                    || lines.get(i + 1).is_some_and(|l| starts(l, prefix)))
            {
                marks[i] = true;
            }
        }
    }
    marks
}

/// Verbs of an attribution line in the languages players write from (`kirjoitti`, `skrev`,
/// `napisał(a)`, `пишет`, `написал`, `escreveu`, `ha scritto`, `írta`, `yazdı`, …), folded to
/// lower case.
const WROTE: &[&str] = &[
    "schrieb",
    "geschrieben",
    "wrote",
    "writes",
    "écrit",
    "escribió",
    "kirjoitti",
    "skrev",
    "schreef",
    "geschreven",
    "napisał",
    "napisała",
    "napisal",
    "pisze",
    "napsal",
    "napísal",
    "пишет",
    "написал",
    "написала",
    "писал",
    "пише",
    "написав",
    "написала",
    "scritto",
    "scrive",
    "escreveu",
    "írta",
    "yazdı",
    "yazmış",
    "kirjutas",
    "rašė",
    "έγραψε",
    "viết",
    "zitat",
    "цитирую",
];

/// Whether `text` reads as an attribution's words: a digit (its date or time), an address, or
/// a verb of [`WROTE`].
fn attribution_words(text: &str) -> bool {
    text.contains(|c: char| c.is_ascii_digit()) || text.contains('@') || {
        let low = text.to_lowercase();
        low.split(|c: char| !c.is_alphanumeric() && c != '(' && c != ')')
            .any(|w| WROTE.contains(&w.trim_matches(['(', ')'])))
    }
}

/// An attribution line in any language, by where it stands: a line that ends with `:` right
/// above a quoted block (blank lines between allowed) and reads as one ([`attribution_words`]),
/// possibly wrapped from the lines just above it (`Am Mo., 30. Nov. 2026 um 18:42 Uhr schrieb X
/// <` / `x@y.de>:`, `… <x@y.de>, 30 Kas 2026 Pzt, 20:42` / `tarihinde şunu yazdı:`). Returns the
/// attribution's first line.
fn attribution_above_quote(lines: &[&str], quoted: &[bool], i: usize) -> Option<usize> {
    let t = lines.get(i)?.trim();
    if !t.ends_with(':') || t.chars().count() > 300 || !inline_reply_follows(lines, quoted, i) {
        return None;
    }
    let mut start = i;
    // A wrapped attribution: the line above holds its date or address, and this one is short
    // or goes on where the line above stopped.
    while start + 2 > i && start > 0 {
        let prev = lines[start - 1].trim();
        let here = lines[start].trim();
        let goes_on = here.starts_with(|c: char| c.is_lowercase() || "<(>".contains(c))
            || here.split_whitespace().count() <= 3;
        let holds = prev.contains(|c: char| c.is_ascii_digit()) || prev.contains(['@', '<', '(']);
        if prev.is_empty() || quoted[start - 1] || !goes_on || !holds {
            break;
        }
        start -= 1;
    }
    let joined = lines[start..=i]
        .iter()
        .map(|l| l.trim())
        .collect::<Vec<_>>()
        .join(" ");
    // A label of the relay's own vocabulary (`Mein Zug:`) is no attribution.
    let own_label = label_of(&joined).is_some_and(|l| OWN_LABELS.contains(&l.as_str()));
    (attribution_words(&joined) && !own_label).then_some(start)
}

/// The relay's greeting of the sender himself (`Guten Tag Anna Adler,`, `Dear Anna Adler,`,
/// `Guten Tag Anna Adler, guten Tag Bert Berger,`): the first line of one of the relay's own
/// mails, quoted in full without a quote mark or an attribution. Nobody greets himself; what
/// follows is the relay's text, not the writer's. A name matches the sender's display name
/// whole, or (both of two words or more) by its last word and its first letter: `Anna Adler`
/// greets `A. Adler`, `Mr Adler` does not.
fn greets_the_sender(t: &str, sender: &str) -> bool {
    let fold = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    let sender = fold(sender.trim_matches(['"', '\'']));
    if sender.chars().filter(|c| c.is_alphabetic()).count() < 3 || !t.ends_with(',') {
        return false;
    }
    let last = |s: &str| s.rsplit(' ').next().unwrap_or("").to_string();
    let initial = |s: &str| s.chars().next();
    t.split(',').any(|part| {
        let part = fold(part);
        let name = part
            .strip_prefix("guten tag ")
            .or_else(|| part.strip_prefix("dear "));
        name.is_some_and(|n| {
            n == sender
                || n.contains(' ')
                    && sender.contains(' ')
                    && last(n) == last(&sender)
                    && initial(n) == initial(&sender)
        })
    })
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
    strip_quotes_from(text, None)
}

/// [`strip_quotes`] of a text `sender` wrote (his display name): the relay's own mail to him,
/// quoted in full without a mark, is cut at its greeting of him (`greets_the_sender`).
pub fn strip_quotes_from(text: &str, sender: Option<&str>) -> String {
    // Direction marks (U+200E, U+200F) are invisible; some programs put them between the words
    // of a date.
    let mut normalized = std::borrow::Cow::Borrowed(text);
    if normalized.contains('\r') {
        normalized = normalized.replace("\r\n", "\n").replace('\r', "\n").into();
    }
    if normalized.contains(['\u{200e}', '\u{200f}']) {
        normalized = normalized.replace(['\u{200e}', '\u{200f}'], "").into();
    }
    let lines: Vec<&str> = normalized.split('\n').collect();
    let quoted = quote_marks(&lines);
    let mut keep: Vec<&str> = Vec::new();
    let mut i = 0;
    while let Some(&line) = lines.get(i) {
        // A quoted line is dropped: none of the ends and headers below is a quoted line.
        if quoted[i] {
            i += 1;
            continue;
        }
        let t = line.trim();
        // The relay's own mail, quoted whole without a mark below the writer's text.
        if sender.is_some_and(|s| greets_the_sender(t, s)) {
            break;
        }
        // Each separator and signature form opens with one of its own characters.
        let opens = |chars: &str| t.starts_with(|c: char| !c.is_ascii() || chars.contains(c));
        if t == "--"
            || opens("-_=aAbB") && SEPARATOR.is_match(t)
            || opens("dDgGoOsSvV") && SIGNATURE_LINE.is_match(t)
            || device_footer(t)
        {
            break;
        }
        // A header line has a colon; a disclaimer opens with one of its words.
        let colon = t.contains(':');
        if may_open_disclaimer(t) && DISCLAIMER.is_match(t)
            || colon && (header_block_at(&lines, i) || header_shape_at(&lines, i))
            || t.starts_with("---") && DASHED_SEPARATOR.is_match(t)
        {
            break;
        }
        if t.ends_with(':')
            && let Some(own) = SHARED_REPLY_HEADER
                .captures(t)
                .and_then(|c| c.get(1))
                .filter(|own| {
                    !REPLY_HEADER.is_match(own.as_str())
                        && !OPENS_LIKE_HEADER.is_match(own.as_str())
                })
        {
            keep.push(own.as_str());
            if inline_reply_follows(&lines, &quoted, i) {
                i += 1;
                continue;
            }
            break;
        }
        // An attribution line above a quote, in any language (an inline reply may follow).
        if let Some(start) = attribution_above_quote(&lines, &quoted, i) {
            keep.truncate(keep.len().saturating_sub(i - start));
            i += 1;
            continue;
        }
        if let Some(start) = attribution_at(&lines, i) {
            // As a reply header below: an inline reply goes on between the quotes.
            keep.truncate(keep.len().saturating_sub(i - start));
            if inline_reply_follows(&lines, &quoted, i) {
                i += 1;
                continue;
            }
            break;
        }
        if t.ends_with(':')
            && let Some(start) = reply_header_ending_at(&lines, i)
        {
            // Drop the header (and any of its lines already kept). If `>` lines follow,
            // the author may answer between them (inline reply): keep reading;
            // otherwise everything below is the unmarked original.
            let already = i - start;
            keep.truncate(keep.len().saturating_sub(already));
            if inline_reply_follows(&lines, &quoted, i) {
                i += 1;
                continue;
            }
            break;
        }
        keep.push(line.trim_end());
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
    out.truncate(out.trim_end().len());
    out
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
    fn ascii_labels_are_read_as_the_pattern_reads_them() {
        for line in [
            "Von: Anna",
            "  *From:* Anna <a@b.c>",
            "*Sent*: Monday",
            "Sent :  Monday",
            "Gesendet von: x",
            "Mein Zug: 13. Lg5",
            "Mein  Zug: 13. Lg5",
            "Eins zwei drei vier: x",
            "Eins zwei drei: x",
            "Re: Fwd: x",
            "Date: Thu, 24 Mar 2016 08:07:12 -0700",
            "Am 28.11.2026 um 09:15 schrieb Fernschach-Relais:",
            "Erhalten: 28.11.2026",
            "Bedenkzeit: 2 Tage",
            "Zu:",
            "Zu: ",
            "Zu:\tx",
            "Zu :* x",
            "Zu * : x",
            "Zu  : x",
            "Zu *  : x",
            "O'Neil-Smith. Jr: x",
            "x:y: z",
            "A b: c: d",
            "12. Lg5: x",
            "* * Von: x",
            "Von:\x0bx",
        ] {
            let want = LABEL_LINE
                .captures(line)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str());
            assert_eq!(ascii_label(line), want, "{line:?}");
            assert_eq!(label_of(line), want.map(str::to_lowercase), "{line:?}");
        }
        // Every short line over the characters that matter.
        let alphabet = b"aB \t*:.-'1\x0b";
        let mut seed: u64 = 13;
        for _ in 0..50_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 60) as usize;
            let line: String = (0..len)
                .map(|k| char::from(alphabet[((seed >> (k * 4)) & 0xf) as usize % alphabet.len()]))
                .collect();
            let want = LABEL_LINE
                .captures(&line)
                .and_then(|c| c.get(1))
                .map(|m| m.as_str().to_lowercase());
            assert_eq!(label_of(&line), want, "{line:?}");
        }
    }

    #[test]
    fn quotes_marked_with_a_bar_or_a_colon_are_dropped() {
        // mutt's `$indent_string` `| `, bottom-posted: the reply below the quote is kept.
        let t = "On Mon, Nov 30, 2026 at 06:42:11PM CET, Relais wrote:\n| 2... dxc4\n|\n| Dear Bert Berger,\n\n2... e6\n\nthanks for the quick reply.\nBert\n";
        assert_eq!(
            strip_quotes(t),
            "2... e6\n\nthanks for the quick reply.\nBert"
        );
        // Outlook's plain-text prefix: the whole header block inside the quote.
        let t = "5... a6\nGruß\n\n| -----Ursprüngliche Nachricht-----\n| Von: Relais [mailto:r@x.de]\n| Betreff: x\n|\n| 5... g6\n";
        assert_eq!(strip_quotes(t), "5... a6\nGruß");
        // `|` without a blank.
        let t = "2... Nc6\nGruß\n\n|2... Nf6\n|Guten Tag\n";
        assert_eq!(strip_quotes(t), "2... Nc6\nGruß");
        // Gnus' `message-yank-prefix` `: `, the reply below.
        let t = "Relais <relay@x.de> writes:\n\n: 12. Nbd2\n:\n: It is your move.\n\nHi Bert,\n\n12. Bg5\n";
        assert_eq!(strip_quotes(t), "Hi Bert,\n\n12. Bg5");
        // One line with a bar or a colon is the writer's own.
        let t = "12. Bg5\n| a table of one row |\n: -)\n";
        assert_eq!(strip_quotes(t), "12. Bg5\n| a table of one row |\n: -)");
    }

    #[test]
    fn attribution_lines_above_a_quote_in_any_language_are_dropped() {
        for attribution in [
            "Fernschach-Relais kirjoitti 30.11.2026 klo 19.42:",
            "ma, 2026-11-30 kello 19:42 +0200, Fernschach-Relais kirjoitti:",
            "понедельник, 30 ноября 2026 г. пользователь Fernschach-Relais написал:",
            "30.11.2026 20:42, Fernschach-Relais пишет:",
            "Fernschach-Relais писал(а) 2026-11-30 20:42:",
            "W dniu 30.11.2026 o 18:42, Fernschach-Relais pisze:",
            "Zitat von Fernschach-Relais <relay@fernschach.test>:",
            "Fernschach-Relais schreef:",
            "Fernschach-Relais <relay@x.de> ezt írta (időpont: 2026. nov.\n30., H, 18:42):",
            "Op ma 30 nov. 2026 om 18:42 schreef Fernschach-Relais <\nrelay@fernschach.test>:",
            "man. 30. nov. 2026 kl. 18:42 skrev Fernschach-Relais <relay@fernschach.test\n>:",
            "Fernschach-Relais <relay@x.de>, 30 Kas 2026 Pzt, 20:42\ntarihinde şunu yazdı:",
        ] {
            let t = format!(
                "Hei Anna,\n\n5... a6\n\nTerveisin\nBert\n\n{attribution}\n\n> 5... g6\n> Guten Tag\n"
            );
            assert_eq!(
                strip_quotes(&t),
                "Hei Anna,\n\n5... a6\n\nTerveisin\nBert",
                "{attribution}"
            );
            // Bottom-posted: the reply below the quote is kept.
            let t = format!("{attribution}\n> 5... g6\n\n5... a6\nBert\n");
            assert_eq!(strip_quotes(&t), "5... a6\nBert", "{attribution}");
        }
        // A line that ends with a colon but reads as no attribution stays, and so does one
        // that no quote follows.
        let t = "Hallo Anna,\nHier mein Zug:\n> 5... g6\n";
        assert_eq!(strip_quotes(t), "Hallo Anna,\nHier mein Zug:");
        let t = "Hallo Anna, am 3.12. bin ich weg:\nbis zum 10.12.\n";
        assert_eq!(strip_quotes(t), t.trim());
    }

    #[test]
    fn a_header_block_with_a_dotted_clock_time() {
        let t = "2. Nf3\n\nTerveisin\nAnna\n\nLähettäjä: Fernschach-Relais\nLähetetty: maanantai 30. marraskuuta 2026 19.42\nVastaanottaja: Anna Adler\nAihe: [FAX-2026-3/7] Adler - Berger\n\n2. Bc4\n";
        assert_eq!(strip_quotes(t), "2. Nf3\n\nTerveisin\nAnna");
        // Two lines of the relay's own vocabulary are no header block.
        let t = "13. Lg5\nErhalten: 28.11.2026 19.42\nAbgesandt: 30.11.2026";
        assert_eq!(strip_quotes(t), t);
    }

    #[test]
    fn device_footers_in_many_languages_end_the_text() {
        for footer in [
            "Wysłane z iPhone'a",
            "Отправлено с iPhone",
            "Envoyé de mon iPhone",
            "Skickat från min iPhone",
            "Отправлено с устройства Galaxy",
            "Holen Sie sich Outlook für Android<https://aka.ms/AAb9ysg>",
            "Von meinem Samsung Galaxy Smartphone gesendet.",
        ] {
            let t = format!("2... Nc6\nPozdrawiam\n\n{footer}\n\nx");
            assert_eq!(strip_quotes(&t), "2... Nc6\nPozdrawiam", "{footer}");
        }
        let t = "2... Nc6\nMein neues iPhone ist da, ich habe es gestern bekommen und es gefällt mir sehr.";
        assert_eq!(strip_quotes(t), t);
    }

    #[test]
    fn the_relays_own_mail_quoted_whole_without_a_mark_is_cut_at_its_greeting() {
        let t = "2. Sf3 Sc6\n\nGruß Bert\n\nGuten Tag Bert Berger,\n\nAnna Adler hat in der Partie FAX-2026-3/7 gezogen:\n\n  2. Sf3\n\nSie sind am Zug.\n";
        assert_eq!(
            strip_quotes_from(t, Some("Bert Berger")),
            "2. Sf3 Sc6\n\nGruß Bert"
        );
        assert_eq!(
            strip_quotes_from(t, Some("B. Berger")),
            "2. Sf3 Sc6\n\nGruß Bert"
        );
        // His greeting of someone else is his own.
        assert_eq!(strip_quotes_from(t, Some("Anna Adler")), t.trim());
        let t = "Dear Mr Adler,\n\n12. Bg5\n";
        assert_eq!(strip_quotes_from(t, Some("Anna Adler")), t.trim());
        assert_eq!(strip_quotes_from(t, None), t.trim());
    }

    #[test]
    fn cap_respects_char_boundaries() {
        assert_eq!(cap("äöü", 3), "ä");
        assert_eq!(cap("abc", 10), "abc");
    }
}
