//! The request reader's tokenizer: a paragraph of prose → sentences of tokens.
//!
//! Words are *folded* — lower-cased, `ä ö ü ß` written `ae oe ue ss`, a hyphen inside a word
//! dropped (`Remis-Angebot` = `remisangebot`) — so a player who types without umlauts, in
//! capitals or with a hyphen is read alike. Dates in every form `crate::letter::dates` knows
//! become one [`Tok::Date`], so their dots never end a sentence. A sentence ends at `?`, `!`, or
//! a `.` that is not part of a date, a number or a usual abbreviation.

use std::sync::LazyLock;

use regex::Regex;

use crate::letter::dates::parse_date_prefix;
use crate::letter::types::StatedDate;

/// One token of a sentence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// A word, folded (see the module documentation); `upper` says it began with a capital.
    Word { folded: String, upper: bool },
    /// A number as written (`10`, `13`), not part of a date.
    Num(u32),
    /// A number followed by a dot that is not a date: a day or a move number (`10.` in
    /// `10.-23. Dezember`, `13.` in `13. Lg5`).
    Ordinal(u32),
    /// A date (`10.12.2026`, `10. Dezember`, `Dec 10`, `2026-12-10`).
    Date(StatedDate),
    /// `,` or `;`: a clause ends.
    Comma,
    /// `:`.
    Colon,
    /// `-`, `–`, `—`, `/` between two things (a span, an alternative).
    Dash,
    /// `§`.
    Section,
    /// An e-mail address, lower-cased.
    Email(String),
}

impl Tok {
    /// The folded word, if this is a word.
    pub fn word(&self) -> Option<&str> {
        match self {
            Tok::Word { folded, .. } => Some(folded),
            _ => None,
        }
    }
}

/// One sentence: its tokens, whether it asks (`?`), and its text as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sentence {
    pub toks: Vec<Tok>,
    pub question: bool,
    pub text: String,
}

impl Sentence {
    /// The folded words, in order, with their token indices.
    pub fn words(&self) -> impl Iterator<Item = (usize, &str)> {
        self.toks
            .iter()
            .enumerate()
            .filter_map(|(i, t)| t.word().map(|w| (i, w)))
    }

    /// Whether any word is one of `list`.
    pub fn has(&self, list: &[&str]) -> bool {
        self.words().any(|(_, w)| list.contains(&w))
    }

    /// The index of the first word that is one of `list`.
    pub fn find(&self, list: &[&str]) -> Option<usize> {
        self.words().find(|(_, w)| list.contains(w)).map(|(i, _)| i)
    }

    /// The index of the first word `pred` holds for.
    pub fn find_by(&self, pred: impl Fn(&str) -> bool) -> Option<usize> {
        self.words().find(|(_, w)| pred(w)).map(|(i, _)| i)
    }

    /// The number of words.
    pub fn word_count(&self) -> usize {
        self.words().count()
    }

    /// Every e-mail address, in order.
    pub fn emails(&self) -> Vec<&str> {
        self.toks
            .iter()
            .filter_map(|t| match t {
                Tok::Email(e) => Some(e.as_str()),
                _ => None,
            })
            .collect()
    }

    /// The token range `[start, end)` of the clause around token `i`: clauses end at `,` `;`,
    /// a dash between words, and before `aber`, `sondern`, `but`.
    pub fn clause_of(&self, i: usize) -> (usize, usize) {
        let boundary = |t: &Tok| {
            matches!(t, Tok::Comma | Tok::Dash)
                || matches!(
                    t.word(),
                    Some("aber" | "sondern" | "but" | "doch" | "jedoch")
                )
        };
        let start = self.toks[..i]
            .iter()
            .rposition(boundary)
            .map_or(0, |p| p + 1);
        let end = self.toks[i..]
            .iter()
            .position(boundary)
            .map_or(self.toks.len(), |p| i + p);
        (start, end)
    }

    /// The folded words of the clause around token `i`.
    pub fn clause_words(&self, i: usize) -> Vec<&str> {
        let (a, b) = self.clause_of(i);
        self.toks[a..b].iter().filter_map(Tok::word).collect()
    }

    /// Every date, in order.
    pub fn dates(&self) -> Vec<StatedDate> {
        self.toks
            .iter()
            .filter_map(|t| match t {
                Tok::Date(d) => Some(*d),
                _ => None,
            })
            .collect()
    }
}

/// Folds a word: lower case, umlauts as `ae oe ue`, `ß` as `ss`, accents of other letters kept.
pub fn fold(word: &str) -> String {
    if word.is_ascii() {
        let mut out = String::with_capacity(word.len());
        for b in word.bytes() {
            match b {
                b'`' => out.push('\''),
                b'-' => {}
                b => out.push(char::from(b.to_ascii_lowercase())),
            }
        }
        return out;
    }
    let mut out = String::with_capacity(word.len() + 2);
    for c in word.chars().flat_map(char::to_lowercase) {
        match c {
            'ä' => out.push_str("ae"),
            'ö' => out.push_str("oe"),
            'ü' => out.push_str("ue"),
            'ß' => out.push_str("ss"),
            '’' | '`' | '´' => out.push('\''),
            '-' | '\u{ad}' => {}
            c => out.push(c),
        }
    }
    out
}

/// Abbreviations whose dot does not end a sentence (folded, without the dot).
const ABBREVIATIONS: &[&str] = &[
    "z", "b", "bzw", "ca", "evtl", "ggf", "gem", "lt", "nr", "hr", "fr", "dr", "u", "a", "v", "vs",
    "inkl", "incl", "e", "g", "i", "usw", "etc", "bzgl", "mfg", "sg", "st", "mr", "mrs", "ms",
    "abs", "vgl", "ab", "jan", "feb", "mrz", "apr", "jun", "jul", "aug", "sep", "sept", "okt",
    "oct", "nov", "dez", "dec", "mo", "di", "mi", "do", "sa", "so", "tel",
];

static EMAIL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}")
        .expect("valid regex")
});
/// An English ordinal's suffix (`3rd`, `17th of`): the day is read as the German `17.`, so
/// that `the 1st to the 21st of August 2027` reads as a span.
static ENGLISH_SUFFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)^(?:st|nd|rd|th)\b(?:\s+of\b)?").expect("valid regex"));

/// Whether a word can open a date (a month's or a weekday's name): only then is the date reader
/// asked, which keeps reading cheap.
fn may_open_date(rest: &str) -> bool {
    const OPENINGS: &[&str] = &[
        "jan", "jän", "feb", "mär", "mae", "mar", "apr", "mai", "may", "jun", "jul", "aug", "sep",
        "okt", "oct", "nov", "dez", "dec", "mo", "di", "mi", "do", "fr", "sa", "so", "tu", "we",
        "th", "su",
    ];
    // Each opening starts with one of these letters.
    if rest
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii() && !b"jfmaondstwJFMAONDSTW".contains(&b))
    {
        return false;
    }
    // The first three characters, lower-cased (a character may lower to several).
    let mut head = ['\0'; 9];
    let mut len = 0;
    for c in rest.chars().take(3).flat_map(char::to_lowercase) {
        if let Some(slot) = head.get_mut(len) {
            *slot = c;
            len += 1;
        }
    }
    let head = &head[..len];
    OPENINGS.iter().any(|o| {
        let mut at = 0;
        o.chars().all(|c| {
            let same = head.get(at) == Some(&c);
            at += 1;
            same
        })
    })
}

/// Whether `rest` opens with the characters of an address's local part and an `@`: the first
/// thing [`EMAIL`] asks.
fn at_after_local_part(rest: &str) -> bool {
    let local = rest
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || b"._%+-".contains(b))
        .count();
    local > 0 && rest.as_bytes().get(local) == Some(&b'@')
}

/// At most this many tokens make one sentence.
const MAX_TOKENS: usize = 300;

/// Splits a paragraph into sentences of tokens (see the module documentation).
pub fn sentences(paragraph: &str) -> Vec<Sentence> {
    let mut out = Vec::new();
    let mut toks: Vec<Tok> = Vec::new();
    let mut start = 0;
    let text = paragraph;
    let mut i = 0;
    let finish = |toks: &mut Vec<Tok>, out: &mut Vec<Sentence>, from: usize, to: usize, q| {
        let written = text[from..to].trim();
        if !toks.is_empty() {
            out.push(Sentence {
                toks: std::mem::take(toks),
                question: q,
                text: written.to_string(),
            });
        }
    };
    while i < text.len() {
        // No player writes a sentence this long: cut it, so that reading stays linear in the
        // text whatever a mail holds.
        if toks.len() >= MAX_TOKENS {
            finish(&mut toks, &mut out, start, i, false);
            start = i;
        }
        let rest = &text[i..];
        let Some(c) = rest.chars().next() else { break };
        if c.is_alphanumeric()
            && at_after_local_part(rest)
            && let Some(m) = EMAIL.find(rest)
        {
            toks.push(Tok::Email(m.as_str().to_lowercase()));
            i += m.end();
            continue;
        }
        // A date, where one can start (a digit, or a month or weekday name at a word start).
        let word_start = || {
            i == 0
                || !text[..i]
                    .chars()
                    .next_back()
                    .is_some_and(|p| p.is_alphanumeric())
        };
        if (c.is_ascii_digit() || (c.is_alphabetic() && word_start() && may_open_date(rest)))
            && let Some((date, after)) = parse_date_prefix(rest)
        {
            let used = rest.len() - after.len();
            // `parse_date_prefix` skips leading blanks and may take a trailing blank: keep the
            // token only when it began here.
            if used > 0 && !rest.starts_with(char::is_whitespace) {
                toks.push(Tok::Date(date));
                i += used;
                // `24.12. – 06.01.`: the dot after a day and month without year is the date's.
                let written = rest[..used].trim_end();
                if date.year.is_none()
                    && written.ends_with(|c: char| c.is_ascii_digit())
                    && written.contains('.')
                    && text[i..].starts_with('.')
                    && !text[i + 1..].trim_start().starts_with(char::is_uppercase)
                {
                    i += 1;
                }
                continue;
            }
        }
        if c.is_ascii_digit() {
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            i += digits.len();
            let n = digits.parse().unwrap_or(u32::MAX);
            if let Some(suffix) = ENGLISH_SUFFIX.find(&text[i..]) {
                i += suffix.end();
                // `17th of July 2027`: a date when a month follows.
                let german = format!("{n}. {}", text[i..].trim_start());
                let skipped = text[i..].len() - text[i..].trim_start().len();
                match parse_date_prefix(&german) {
                    Some((date, after)) if german.len() - after.len() > digits.len() + 2 => {
                        toks.push(Tok::Date(date));
                        i += skipped + (german.len() - after.len()) - (digits.len() + 2);
                    }
                    _ => toks.push(Tok::Ordinal(n)),
                }
                continue;
            }
            let after = &text[i..];
            if after.starts_with('.') && !after.starts_with("..") && digits.len() <= 3 {
                toks.push(Tok::Ordinal(n));
                i += 1;
            } else {
                toks.push(Tok::Num(n));
            }
            continue;
        }
        if c.is_alphabetic() {
            let mut end = 0;
            let mut chars = rest.char_indices().peekable();
            while let Some((at, ch)) = chars.next() {
                let inner = matches!(ch, '\'' | '’' | '-' | '\u{ad}');
                if ch.is_alphabetic() {
                    end = at + ch.len_utf8();
                } else if inner && at > 0 && chars.peek().is_some_and(|(_, n)| n.is_alphabetic()) {
                    // `don't`, `Remis-Angebot`: one word.
                } else {
                    break;
                }
            }
            let word = &rest[..end];
            toks.push(Tok::Word {
                folded: fold(word),
                upper: c.is_uppercase(),
            });
            i += end;
            continue;
        }
        i += c.len_utf8();
        match c {
            '?' | '!' => {
                // `?!`, `??`, `!?`: one end; a question if any of them asks.
                let mut q = c == '?';
                while let Some(n) = text[i..].chars().next().filter(|n| matches!(n, '?' | '!')) {
                    q |= n == '?';
                    i += n.len_utf8();
                }
                finish(&mut toks, &mut out, start, i, q);
                start = i;
            }
            // `Ihr Remisangebot ... ich glaube, ich nehme es an`: an ellipsis is a pause.
            '…' => {}
            '.' if text[i..].starts_with("..") => i += 2,
            '.' => {
                let abbreviation = matches!(
                    toks.last(),
                    Some(Tok::Word { folded, .. }) if ABBREVIATIONS.contains(&folded.as_str())
                ) && text[..i - 1]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphabetic);
                if !abbreviation {
                    finish(&mut toks, &mut out, start, i, false);
                    start = i;
                }
            }
            ',' | ';' => toks.push(Tok::Comma),
            ':' => toks.push(Tok::Colon),
            '-' | '–' | '—' | '−' | '/' => toks.push(Tok::Dash),
            '§' => toks.push(Tok::Section),
            _ => {}
        }
    }
    finish(&mut toks, &mut out, start, text.len(), false);
    out
}

/// The sentence as quoted back to the writer: without a leading greeting cut off by a comma
/// (`Lieber Bert, wollen wir …` → `wollen wir …`) when the rest is the request.
pub(super) fn sentence_text(s: &Sentence) -> String {
    const GREETINGS: &[&str] = &[
        "lieber", "liebe", "hallo", "hi", "hello", "dear", "sehr", "guten", "moin", "servus",
    ];
    let text = s.text.trim();
    if let Some((head, rest)) = text.split_once(',') {
        let first = fold(head.split_whitespace().next().unwrap_or(""));
        if GREETINGS.contains(&first.as_str()) && head.split_whitespace().count() <= 4 {
            return rest.trim().to_string();
        }
    }
    text.to_string()
}

// ---------------------------------------------------------------------------------------
// What the grammars of the requests (`grammar/`) and of time (`time.rs`) both read of a
// sentence: negation and spans of days.

/// Negation (TO §2: `kein Remis`, `ich gebe nicht auf`, `I will not resign`).
const NEGATIONS: &[&str] = &[
    "nicht", "nichts", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals",
    "nimmer", "never", "not", "no", "nope", "nothing", "dont", "wont", "cant", "isnt", "doesnt",
    "didnt", "wouldnt", "shouldnt", "cannot", "nein",
];

pub(super) fn is_negation(w: &str) -> bool {
    NEGATIONS.contains(&w) || w.ends_with("n't")
}

/// Whether the clause around token `i` is negated. A negation that belongs to an absence
/// (`nicht erreichbar`, `not available`) does not count.
pub(super) fn negated(s: &Sentence, i: usize) -> bool {
    let (a, b) = s.clause_of(i);
    let words: Vec<&str> = s.toks[a..b].iter().filter_map(Tok::word).collect();
    words.iter().enumerate().any(|(j, w)| {
        is_negation(w)
            && !words.get(j + 1).is_some_and(|n| {
                matches!(
                    *n,
                    "erreichbar" | "available" | "reachable" | "da" | "zuhause"
                )
            })
    })
}

/// The number token `j` stands for (`10`, `10.`, `zehn`, `ten`), if it is one.
fn number_at(s: &Sentence, j: usize) -> Option<u32> {
    match s.toks.get(j)? {
        Tok::Num(n) | Tok::Ordinal(n) => Some(*n),
        Tok::Word { folded, .. } => Some(match folded.as_str() {
            "ein" | "eine" | "einer" | "one" | "a" => 1,
            "zwei" | "two" => 2,
            "drei" | "three" => 3,
            "vier" | "four" => 4,
            "zehn" | "ten" => 10,
            "elf" | "eleven" => 11,
            "zwoelf" | "twelve" => 12,
            "vierzehn" | "fourteen" => 14,
            "fuenfzehn" | "fifteen" => 15,
            "zwanzig" | "twenty" => 20,
            "dreissig" | "thirty" => 30,
            _ => return None,
        }),
        _ => None,
    }
}

/// Days a span of the sentence names: `zehn Tage` = 10, `drei Wochen` = 21, at token `j`.
pub(super) fn days_at(s: &Sentence, j: usize) -> Option<u32> {
    let n = number_at(s, j)?;
    let unit = s.toks.get(j + 1).and_then(Tok::word)?;
    match unit {
        "tage" | "tagen" | "tag" | "days" | "day" => Some(n),
        "wochen" | "woche" | "weeks" | "week" => Some(n * 7),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &Sentence) -> Vec<&str> {
        s.words().map(|(_, w)| w).collect()
    }

    #[test]
    fn folds_umlauts_case_and_hyphens() {
        assert_eq!(fold("Rücknahme"), "ruecknahme");
        assert_eq!(fold("GROSSE"), "grosse");
        assert_eq!(fold("Remis-Angebot"), "remisangebot");
        assert_eq!(fold("Weiß"), "weiss");
    }

    #[test]
    fn dates_do_not_end_sentences() {
        let s = sentences("Ich nehme Urlaub vom 10.12.2026 bis 23.12.2026. Gruß Bert");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].dates().len(), 2);
        assert_eq!(words(&s[1]), ["gruss", "bert"]);
        let s = sentences("Urlaub vom 10. Dezember bis 23. Dezember, danke!");
        assert_eq!(s.len(), 1);
        assert_eq!(s[0].dates().len(), 2);
    }

    #[test]
    fn questions_and_abbreviations() {
        let s = sentences("Remis? Ich spiele z.B. weiter.");
        assert_eq!(s.len(), 2);
        assert!(s[0].question && !s[1].question);
        assert_eq!(s[0].text, "Remis?");
    }

    #[test]
    fn ordinals_and_clauses() {
        let s = sentences("Urlaub 1.-14. Februar 2027");
        assert_eq!(s.len(), 1);
        assert!(matches!(s[0].toks[1], Tok::Ordinal(1)));
        assert!(matches!(s[0].toks[2], Tok::Dash));
        assert!(matches!(s[0].toks[3], Tok::Date(_)));
        let s = &sentences("Ich kann nicht mehr, ich gebe auf")[0];
        let auf = s.find(&["auf"]).unwrap();
        assert_eq!(s.clause_words(auf), ["ich", "gebe", "auf"]);
    }
}
