//! The author's text → [`Content`]: moves, §14 dates, the words that act (draw,
//! resignation, announcement, take-back, status), conditional lines, leave and
//! director commands. German and English, case-insensitive.
//!
//! The reader only reads: it knows neither the game nor who the director is.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use shakmaty::Color;

use super::dates::{parse_date_prefix, parse_span_prefix};
use super::moves::{self, is_result, numbered_tokens, read_line, read_tokens};
use super::prefilter::{Lowered, any_of};
use super::requests;
use super::types::{Content, DirectorCommand, Doubt, MoveToken};

fn re(pattern: &str) -> Regex {
    Regex::new(pattern).expect("valid regex")
}

/// Reads everything the text says (see the module documentation).
pub fn read_content(text: &str) -> Content {
    read_content_and_requests(text).0
}

/// [`read_content`], and every reading of the request reader behind it.
pub fn read_content_and_requests(text: &str) -> (Content, Vec<requests::Read>) {
    let (mut c, prose, words) = scan(text);
    let reads = requests::read_units(&prose);
    requests::apply(&reads, &mut c);
    requests::settle(&mut c);
    whole_questions(text, &mut c);
    c.words = own_words(&words, &reads);
    // `Hilfe` / `help`, the whole text: a question to the relay, nothing else is read in it
    // (`Hilfe, wie biete ich Remis an?` offers nothing).
    if requests::help::asks_for_help(text) {
        c = Content {
            help: true,
            words: std::mem::take(&mut c.words),
            ..Content::default()
        };
    }
    // `Übersicht` / `overview`, the whole text: the same, a request to the relay alone.
    if let Some(ask) = requests::overview::asks_for_overview(text) {
        c = Content {
            overview: Some(ask),
            words: std::mem::take(&mut c.words),
            ..Content::default()
        };
    }
    // TO §29 in a sentence: `Ich lege hiermit Einspruch ein, …` in a mail of words is an appeal,
    // its words whole for the director; `Wie lege ich Einspruch ein?` asks the relay (help).
    // Neither is words for the partner.
    if c.only_words() {
        match requests::help::appeal_in_sentences(&c.words) {
            Some(requests::help::AppealSentence::Appeals) => c.appeal = Some(c.words.clone()),
            Some(requests::help::AppealSentence::HowTo) => c.help = true,
            None => {}
        }
    }
    // TO §8 before §30: a line of the words that looks like a move (`Lxq`, `Glückwunsch zu
    // Dxh7+`, `13. f5?` in a sentence) in a mail of words alone is a failed move, asked back with
    // the line — never forwarded as a message.
    if c.only_words()
        && let Some(line) = words.iter().find(|l| moves::looks_like_a_move(l))
    {
        c.doubts.push(Doubt::Unreadable(line.trim().to_string()));
    }
    c.message = c.only_words();
    (c, reads)
}

/// How many questions of one mail [`whole_questions`] completes (TO §23): more than a director
/// asks in one mail, few enough that the lines are not searched once per question of a mail
/// that holds thousands.
const WHOLE_QUESTIONS: usize = 20;

/// TO §23: a question the director put in a sentence (`Bitte fragen Sie anna@x.de, ob …`) is
/// every line he wrote after the player's address, to the end of his text or the next command,
/// as the line form `Rückfrage an anna@…:` takes it ([`question_text`]).
fn whole_questions(text: &str, c: &mut Content) {
    let lines: Vec<&str> = text.lines().collect();
    // Each question's line is looked for in the whole text: the first WHOLE_QUESTIONS of a mail
    // are completed, the rest keep the reader's text, so that a mail of thousands of `Rückfrage`
    // lines (anyone may send one; only a director's count) is read in linear time.
    let asks = c
        .director
        .iter_mut()
        .filter(|d| matches!(d, DirectorCommand::Ask { .. }))
        .take(WHOLE_QUESTIONS);
    for cmd in asks {
        let DirectorCommand::Ask {
            player,
            text: asked,
        } = cmd
        else {
            continue;
        };
        let Some(at) = lines
            .iter()
            .position(|l| l.to_lowercase().contains(player.as_str()))
        else {
            continue;
        };
        let line = lines[at];
        let low = line.to_lowercase();
        let Some(start) = low.find(player.as_str()).map(|p| p + player.len()) else {
            continue;
        };
        // The address is ASCII, so its end in the lower-cased line is its end in the line.
        let first = line
            .get(start..)
            .unwrap_or("")
            .trim_start_matches([',', ':', ' ', ')', '>']);
        let (whole, _) = question_text(&lines, at + 1, first);
        if whole.len() > asked.len() {
            *asked = whole;
        }
    }
}

/// The text of the director's question (TO §23): `first` (the rest of its line) and every line
/// from `from` on, up to the end of the text or the next line that is a command of its own;
/// blank lines between paragraphs kept (one in a row). Returns it and the first line not taken.
fn question_text(lines: &[&str], from: usize, first: &str) -> (String, usize) {
    let mut taken: Vec<String> = vec![first.trim().to_string()];
    let mut i = from;
    while let Some(&l) = lines.get(i) {
        let t = l.trim();
        if !t.is_empty() {
            let normal = moves::normalized(t);
            let low = Lowered::new(&normal, &LINE_WORDS);
            if director(&normal, &low, t)
                .is_some_and(|d| !matches!(d, DirectorCommand::Malformed(_)))
            {
                break;
            }
        }
        taken.push(t.to_string());
        i += 1;
    }
    let text = paragraphs(taken.into_iter(), |l| !l.is_empty());
    (text, i)
}

/// A text written as words to forward (TO §30: the XFCC message field): each line's whitespace
/// collapsed, at most one blank line in a row, none at either end.
pub fn plain_words(text: &str) -> String {
    paragraphs(text.lines().map(str::to_string), |line| !line.is_empty())
}

/// `lines` as paragraphs: each line's whitespace collapsed, the lines `keep` refuses counted as
/// blank, at most one blank line in a row, none at either end.
fn paragraphs(lines: impl Iterator<Item = String>, keep: impl Fn(&str) -> bool) -> String {
    let mut kept: Vec<String> = Vec::new();
    for line in lines {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if keep(&line) {
            kept.push(line);
        } else if kept.last().is_some_and(|l| !l.is_empty()) {
            kept.push(String::new());
        }
    }
    while kept.last().is_some_and(String::is_empty) {
        kept.pop();
    }
    kept.join("\n")
}

/// Whether `line` is the head of a table of moves (`Nr. Weiß Schwarz`, `Move White Black`): the
/// form, not the writer's words.
fn table_head(line: &str) -> bool {
    const HEAD: [&str; 11] = [
        "nr", "nr.", "zug", "weiß", "weiss", "schwarz", "no", "no.", "move", "white", "black",
    ];
    line.split_whitespace()
        .all(|w| HEAD.contains(&w.to_lowercase().as_str()))
}

/// The writer's own words (TO §30: what the partner reads beside the move): the lines of prose as
/// he wrote them, without the lines the reader read (moves, §14 dates, conditional lines, the
/// director's commands, a bare result) and without the sentences of the requests it read (an
/// offer, a resignation, leave, …); blank lines between paragraphs kept, at most one in a row.
fn own_words(lines: &[String], reads: &[requests::Read]) -> String {
    let unread = lines.iter().map(|line| {
        let mut line = line.clone();
        let normal = moves::normalized(&line).into_owned();
        // A sentence that asks for nothing (`Ich gebe nicht auf!`) stays the writer's words.
        for r in reads
            .iter()
            .filter(|r| !matches!(r.reading, requests::Reading::Declines { .. }))
        {
            let sentence = r.sentence.trim();
            if sentence.is_empty() {
                continue;
            }
            if normal.contains(sentence) {
                line = if line.contains(sentence) {
                    line.replacen(sentence, "", 1)
                } else {
                    String::new()
                };
            } else if !normal.trim().is_empty() && sentence.contains(normal.trim()) {
                // A line of a sentence wrapped over several lines.
                line = String::new();
            }
        }
        line
    });
    // What a removed sentence leaves: its neighbours, one blank apart.
    paragraphs(unread, |line| {
        line.chars().any(char::is_alphanumeric) && !table_head(line)
    })
}

/// The prose of a text — what the request reader reads: every line that is not a director's
/// command, a conditional line, a §14 statement or a bare result, in units a sentence cannot
/// cross.
pub fn prose_units(text: &str) -> Vec<String> {
    scan(text).1
}

/// Reads the line-shaped things of a text (moves, §14, conditional lines, director commands,
/// bare results) and collects its prose, and the lines of the writer's own words as he wrote them
/// (the prose lines in which nothing was read; an empty line between paragraphs).
fn scan(text: &str) -> (Content, Vec<String>, Vec<String>) {
    let mut c = Content::default();
    let mut words: Vec<String> = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    // The prose of the text, in units a sentence cannot cross (a line, or lines wrapped from one
    // sentence), for the request reader (`crate::letter::requests`).
    let mut prose = Prose::default();
    let mut i = 0;
    while let Some(&original) = lines.get(i) {
        i += 1;
        let written = original.trim();
        if written.is_empty() {
            prose.end_unit();
            words.push(String::new());
            continue;
        }
        let normal = moves::normalized(written);
        let line = struck_out(&normal, &mut c.doubts);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        // What every reader below asks of the line, worked out once.
        let low = Lowered::new(line, &LINE_WORDS);
        let numbered_toks = numbered_tokens(line);
        let numbered = numbered_toks.is_some();
        if let Some(cmd) = director(line, &low, written) {
            // TO §23: the question is every line after the colon, up to the next command.
            let cmd = match cmd {
                DirectorCommand::Ask { player, text } => {
                    let (text, next) = question_text(&lines, i, &text);
                    i = next;
                    if text.is_empty() {
                        DirectorCommand::Malformed(written.to_string())
                    } else {
                        DirectorCommand::Ask { player, text }
                    }
                }
                other => other,
            };
            c.director.push(cmd);
            prose.end_unit();
            continue;
        }
        // TO §29: `Einspruch: TEXT` / `appeal: TEXT` (the text on the lines below when the line
        // has none); the whole mail goes to the director, nothing of it to the partner.
        if low.starts_with_any(&["einspruch", "appeal"])
            && let Some(cap) = APPEAL.captures(line)
        {
            let mut text = cap.get(1).map_or("", |m| m.as_str()).trim().to_string();
            if text.is_empty() {
                let blank = lines[i..]
                    .iter()
                    .take_while(|l| l.trim().is_empty())
                    .count();
                let below: Vec<&str> = lines[i + blank..]
                    .iter()
                    .map(|l| l.trim())
                    .take_while(|l| !l.is_empty())
                    .collect();
                text = below.join("\n");
                i += blank + below.len();
            }
            c.appeal.get_or_insert(text);
            prose.end_unit();
            continue;
        }
        if let Some(cond) = conditional(line, &low, numbered) {
            match cond {
                Conditional::Line(ms) => c.conditional.push(ms),
                Conditional::Lines(lines) => c.conditional.extend(lines),
                Conditional::Unreadable => c.doubts.push(Doubt::Unreadable(written.to_string())),
                Conditional::Header => i = conditional_block(&lines, i, &mut c),
            }
            prose.end_unit();
            continue;
        }
        if s14(line, &low, &mut c) {
            prose.end_unit();
            continue;
        }
        // TO §17: `Keine Warnungen` / `Warnungen` on a line of its own.
        if let Some(on) = super::headers::text_warnings(written) {
            c.warnings = Some(on);
            prose.end_unit();
            continue;
        }
        // `Brett: Liste` / `Brett: Diagramm` on a line of its own.
        if let Some(board) = super::headers::text_board(written) {
            c.board = Some(board);
            prose.end_unit();
            continue;
        }
        let read_before = (c.moves.len(), c.doubts.len());
        let rest = read_moves(line, numbered_toks.as_deref(), written, &mut c);
        // `Hier mein Zug:` / `Мой ход:` right above the move it names: the move's label (as in
        // `Mein Zug: 13. Lg5` on one line), not words for the partner.
        if c.moves.len() > read_before.0
            && let Some(above) = i.checked_sub(2).and_then(|p| lines.get(p))
            && words
                .last()
                .is_some_and(|w| w == above.trim() && lead_in(w))
        {
            words.pop();
        }
        let continues = prose.continues(line);
        if !continues && bare(line, written, &mut c) {
            prose.end_unit();
            continue;
        }
        if (c.moves.len(), c.doubts.len()) == read_before && !numbered {
            words.push(written.to_string());
        } else if let Some(rest) = rest {
            // `13. Lg5 und herzliche Grüße`: the words on the move's line are the writer's too.
            words.push(rest);
        }
        prose.push(line, numbered, continues);
    }
    (c, prose.finish(), words)
}

/// Whether `line` (trimmed) is a lead-in to a move: a few words ending with `:` (`Hier mein
/// Zug:`, `Mein Zug lautet:`, `Voici mon coup :`, `Siirtoni:`), not a greeting.
fn lead_in(line: &str) -> bool {
    const GREETINGS: &[&str] = &[
        "hallo", "hello", "hi", "hey", "dear", "lieber", "liebe", "moin", "servus", "guten",
    ];
    let first = line
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("")
        .to_lowercase();
    line.ends_with(':')
        && line.split_whitespace().count() <= 4
        && !line.contains(',')
        && !GREETINGS.contains(&first.as_str())
}

/// Lines of prose joined into units: a line that does not end a sentence continues into the
/// next when it was wrapped (long) or the next goes on in lower case.
#[derive(Default)]
struct Prose {
    units: Vec<String>,
    open: bool,
    /// Whether the last line of the last unit starts with a move number.
    last_numbered: bool,
    /// The number of characters of the last line of the last unit.
    last_chars: usize,
}

impl Prose {
    /// Whether `line` goes on with the sentence of the unit before it.
    fn continues(&self, line: &str) -> bool {
        self.open
            && self.units.last().is_some_and(|u| {
                // A move line ends its unit: what follows is a sentence of its own.
                !self.last_numbered
                    && !u.ends_with(['.', '!', '?', ':'])
                    && (self.last_chars >= 50 || line.starts_with(|c: char| c.is_lowercase()))
            })
    }

    /// Adds `line` (trimmed, one line; `numbered`: it starts with a move number) to the prose;
    /// `continues` is [`Prose::continues`] of it.
    fn push(&mut self, line: &str, numbered: bool, continues: bool) {
        self.last_numbered = numbered;
        self.last_chars = line.chars().count();
        match self.units.last_mut() {
            Some(u) if continues => {
                u.push('\n');
                u.push_str(line);
            }
            _ => self.units.push(line.to_string()),
        }
        self.open = true;
    }

    fn end_unit(&mut self) {
        self.open = false;
    }

    fn finish(self) -> Vec<String> {
        self.units
    }
}

/// A bare result or `Status` alone on its line; true if the line was one.
fn bare(line: &str, written: &str, c: &mut Content) -> bool {
    let bare = line.trim_end_matches(['.', '!']).trim();
    if bare.eq_ignore_ascii_case("status") || bare.eq_ignore_ascii_case("status?") {
        c.status_request = true;
        return true;
    }
    if super::headers::text_is_xfcc_password(bare) {
        c.status_request = true;
        c.xfcc_password = true;
        return true;
    }
    // TO §2: `1-0`, `½`, `remis` alone: a result without words is doubtful.
    if is_result(bare) || BARE_WORD.is_match(line) {
        if c.bare_result.is_none() {
            c.bare_result = Some(written.to_string());
        }
        return true;
    }
    false
}

// ---------------------------------------------------------------------------
// Struck-out and corrected moves (§2: a later correction makes the move doubtful).

static STRUCK: LazyLock<Regex> = LazyLock::new(|| re(r"~~([^~]{1,200})~~"));
static CORRECTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\(\s*(?:nein|no|korrektur|korrigiert|correction|corrected|sorry|ich meine|i mean|gemeint|besser|richtig)\b\s*[:,]?[^)]{0,100}\)",
    )
});

/// Records `~~X~~` and `X (nein: Y)` as [`Doubt::StruckOut`]; returns the line
/// without the struck text and without the correction.
fn struck_out<'a>(line: &'a str, doubts: &mut Vec<Doubt>) -> Cow<'a, str> {
    let without = if line.contains("~~") {
        for m in STRUCK.captures_iter(line) {
            if let Some(inner) = m.get(1) {
                doubts.push(Doubt::StruckOut(inner.as_str().trim().to_string()));
            }
        }
        STRUCK.replace_all(line, " ")
    } else {
        Cow::Borrowed(line)
    };
    // A correction corrects a move (`Sf6 (nein: Sd7)`); `(no. 6)` in a greeting does not.
    let corrects = |m: regex::Match<'_>| {
        let inner = m.as_str();
        !inner
            .to_lowercase()
            .trim_start_matches(['(', ' '])
            .starts_with("no.")
            && inner
                .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ':'))
                .any(moves::is_move)
    };
    if without.contains('(') && CORRECTION.find_iter(&without).any(corrects) {
        doubts.push(Doubt::StruckOut(line.trim().to_string()));
        return Cow::Owned(CORRECTION.replace_all(&without, " ").into_owned());
    }
    without
}

// ---------------------------------------------------------------------------
// Moves of the main text (TO §2).

/// `Mein Zug: 13. Lg5`, `Antwort: 12... a6`, `hier mein Zug: …`: a short label
/// naming a move before numbered moves. Numbers after other words are commentary
/// (`Nach 12. Lb5 …`) and not read.
/// `Dear Sir, 2. Sf3 Sc6`: a greeting the mail program ran together with the move line.
static GREETING_BEFORE_MOVES: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:dear|hallo|hello|hi|lieber|liebe|sehr\s+geehrte[r]?|guten\s+tag|servus|moin)\b[^,:\d]{0,40}[,:]\s*(\d.*)$",
    )
});
static LABEL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^[^\d:]{0,40}\b(?:zug|züge|zuege|zugfolge|antwort|gegenzug|zugwiederholung|wiederholung|move|moves|reply|answer|repetition|repeat)\s*:\s*(\d.*)$",
    )
});

/// `numbered`: the tokens of `line` when it starts with a move number. Returns the writer's words
/// after the moves of the line, if there are any.
fn read_moves(
    line: &str,
    numbered: Option<&[String]>,
    written: &str,
    c: &mut Content,
) -> Option<String> {
    let found = if let Some(toks) = numbered {
        read_tokens(toks, &[])
    } else if !line.contains([',', ':']) {
        // Both a label and a greeting end in `:` or `,`.
        return None;
    } else {
        let rest = LABEL
            .captures(line)
            .or_else(|| GREETING_BEFORE_MOVES.captures(line))
            .and_then(|cap| cap.get(1))
            .map(|m| m.as_str());
        let toks = rest.and_then(numbered_tokens)?;
        read_tokens(&toks, &[])
    };
    c.moves.extend(found.moves);
    if found.unreadable {
        c.doubts.push(Doubt::Unreadable(written.to_string()));
    }
    if let Some(r) = found.result
        && c.bare_result.is_none()
    {
        c.bare_result = Some(r);
    }
    found.rest.filter(|_| !found.unreadable)
}

// ---------------------------------------------------------------------------
// Conditional moves (TO §6).

enum Conditional {
    Line(Vec<MoveToken>),
    /// Lines written in a sentence: `Falls Sie 35. Txb7 spielen, antworte ich 35... Tc1+.`
    Lines(Vec<Vec<MoveToken>>),
    Unreadable,
    /// `Eventualzüge:` alone: the lines below are the conditional lines.
    Header,
}

static CONDITIONAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(eventualz(?:ü|ue|u)ge?|eventualzug|conditional(?:\s+moves?)?|bedingte\s+z(?:ü|ue)ge|if|wenn|falls)\b\s*:?\s*(.*)$",
    )
});

const CONNECTIVES: &[&str] = &[
    "then", "dann", "so", "und", "and", "spiele", "ziehe", "folgt", "play", "i", "ich", "antworte",
    "answer", "reply", "with", "mit", "follows", "will",
];

/// A word that makes a sentence with moves a conditional line (TO §6).
static CONDITIONAL_WORD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:wenn|falls|if|sollten|sollte|should|im\s+falle|eventualz\w*|conditional|bedingte)\b|\bauf\s+\d",
    )
});
/// The words [`CONDITIONAL_WORD`] needs one of (`prefilter`).
const CONDITIONAL_KEYS: &[&str] = &[
    "wenn",
    "fall",
    "if",
    "sollte",
    "should",
    "eventualz",
    "conditional",
    "bedingte",
    "auf",
];
static CONDITIONAL_WORDS: LazyLock<Regex> = LazyLock::new(|| any_of(CONDITIONAL_KEYS));
/// Where a new conditional line begins inside a sentence (`…, and if 33. Re1 then …`).
static CONDITIONAL_SPLIT: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:wenn|falls|if|sollten|sollte|should)\b"));
/// A numbered move inside a sentence: `14... Sxe4`, `15. Lxe7`, `32.Qh7+`.
static NUMBERED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(\d{1,3})\s*(\.\s*\.\s*\.|\.\.\.|…|\.)\s*([^\s,;:()]+)"));

/// Conditional lines written as sentences (TO §6): `falls Sie 14... Sxe4 spielen, antworte ich
/// 15. Lxe7`, `If you play 25. Rxe8+, I'll reply 25... Rxe8.`, `Im Falle von 16... exd5 spiele
/// ich 17. Sxd5.` Each clause that starts with `wenn`/`falls`/`if`/… and holds two or more
/// numbered moves is one line.
/// `low` is `line` lower-cased (`prefilter::lower`), `numbered` whether it starts with a move
/// number.
fn natural_conditional(line: &str, low: &Lowered, numbered: bool) -> Option<Vec<Vec<MoveToken>>> {
    if numbered || !low.has(&CONDITIONAL_WORDS) || !CONDITIONAL_WORD.is_match(line) {
        return None;
    }
    let mut cuts: Vec<usize> = CONDITIONAL_SPLIT
        .find_iter(line)
        .map(|m| m.start())
        .collect();
    cuts.insert(0, 0);
    cuts.push(line.len());
    let mut lines = Vec::new();
    for w in cuts.windows(2) {
        let segment = &line[w[0]..w[1]];
        let mut ms = Vec::new();
        for cap in NUMBERED.captures_iter(segment) {
            let (Some(n), Some(dots), Some(text)) = (cap.get(1), cap.get(2), cap.get(3)) else {
                continue;
            };
            let text = text.as_str().trim_end_matches(['.', ',', '!', ')']);
            let Ok(number) = n.as_str().parse() else {
                continue;
            };
            if !moves::is_move(text) {
                continue;
            }
            let color = if dots.as_str() == "." {
                Color::White
            } else {
                Color::Black
            };
            ms.push(MoveToken {
                number,
                color,
                text: text.to_string(),
            });
        }
        if ms.len() >= 2 {
            lines.push(ms);
        }
    }
    (!lines.is_empty()).then_some(lines)
}

fn conditional(line: &str, low: &Lowered, numbered: bool) -> Option<Conditional> {
    if let Some(lines) = natural_conditional(line, low, numbered) {
        return Some(Conditional::Lines(lines));
    }
    if !low.starts_with_any(&[
        "eventualz",
        "conditional",
        "bedingte",
        "if",
        "wenn",
        "falls",
    ]) {
        return None;
    }
    let cap = CONDITIONAL.captures(line)?;
    let keyword = cap.get(1)?.as_str().to_lowercase();
    let rest = cap.get(2).map_or("", |m| m.as_str()).trim();
    let header_word = !matches!(keyword.as_str(), "if" | "wenn" | "falls");
    if rest.is_empty() {
        return header_word.then_some(Conditional::Header);
    }
    let found = read_line(rest, CONNECTIVES);
    if found.unreadable && (header_word || !found.moves.is_empty()) {
        return Some(Conditional::Unreadable);
    }
    if found.moves.is_empty() {
        // `Wenn du willst …`: prose, read as an ordinary line.
        return None;
    }
    Some(Conditional::Line(found.moves))
}

fn ply(m: &MoveToken) -> u64 {
    u64::from(m.number) * 2 + u64::from(m.color == Color::Black)
}

/// Reads the move lines below a bare `Eventualzüge:`; a line that continues the
/// previous one ply by ply extends it, otherwise starts a new conditional line.
/// Returns the index of the first line not consumed.
fn conditional_block(lines: &[&str], mut i: usize, c: &mut Content) -> usize {
    let mut current: Vec<MoveToken> = Vec::new();
    while let Some(&l) = lines.get(i) {
        let line = moves::normalize_line(l.trim());
        let Some(toks) = numbered_tokens(&line) else {
            break;
        };
        let found = read_tokens(&toks, CONNECTIVES);
        if found.unreadable {
            c.doubts.push(Doubt::Unreadable(l.trim().to_string()));
        }
        if let (Some(last), Some(first)) = (current.last(), found.moves.first())
            && ply(first) != ply(last) + 1
        {
            c.conditional.push(std::mem::take(&mut current));
        }
        current.extend(found.moves);
        i += 1;
    }
    if !current.is_empty() {
        c.conditional.push(current);
    }
    i
}

// ---------------------------------------------------------------------------
// TO §14: stated dates and time used.

static RECEIVED: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:erhalten|empfangen|eingegangen|eingang|received|erh\.)\s*(?:am|on)?\s*:?\s*")
});
static SENT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:abgesandt|abgeschickt|abgesendet|gesendet|versandt|versendet|verschickt|sent|abg\.)\s*(?:am|on)?\s*:?\s*",
    )
});
static DAYS_USED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:bedenkzeit|verbrauchte\s+(?:bedenk)?zeit|zeitverbrauch|time\s+used|days\s+used|thinking\s+time|verbraucht|bz)\s*:?\s*(?:(\d{1,3})\b(?:\s*(?:tage?n?|days?|d|t)\b)?|(keine|none)\b)",
    )
});

/// The words [`RECEIVED`], [`SENT`] and [`DAYS_USED`] need one of (`prefilter`).
const RECEIVED_KEYS: &[&str] = &["erh", "empfangen", "eingegangen", "eingang", "received"];
const SENT_KEYS: &[&str] = &[
    "abg",
    "gesendet",
    "versandt",
    "versendet",
    "verschickt",
    "sent",
];
const DAYS_USED_KEYS: &[&str] = &[
    "bedenkzeit",
    "verbraucht",
    "zeitverbrauch",
    "time",
    "days",
    "thinking",
    "bz",
];
static RECEIVED_WORDS: LazyLock<Regex> = LazyLock::new(|| any_of(RECEIVED_KEYS));
static SENT_WORDS: LazyLock<Regex> = LazyLock::new(|| any_of(SENT_KEYS));
static DAYS_USED_WORDS: LazyLock<Regex> = LazyLock::new(|| any_of(DAYS_USED_KEYS));

/// Reads §14 statements anywhere in the line (`low`: lower-cased); true if the line held one.
fn s14(line: &str, low: &Lowered, c: &mut Content) -> bool {
    let mut any = false;
    for (label, words, slot) in [
        (&*RECEIVED, &*RECEIVED_WORDS, &mut c.received),
        (&*SENT, &*SENT_WORDS, &mut c.sent),
    ] {
        if !low.has(words) {
            continue;
        }
        for m in label.find_iter(line) {
            if let Some((date, _)) = parse_date_prefix(&line[m.end()..]) {
                any = true;
                if slot.is_none() {
                    *slot = Some(date);
                }
                break;
            }
        }
    }
    if low.has(&DAYS_USED_WORDS)
        && let Some(cap) = DAYS_USED.captures(line)
    {
        let days = match (cap.get(1), cap.get(2)) {
            (Some(n), _) => n.as_str().parse().ok(),
            (None, Some(_)) => Some(0),
            _ => None,
        };
        if let Some(d) = days {
            any = true;
            if c.days_used.is_none() {
                c.days_used = Some(d);
            }
        }
    }
    any
}

// ---------------------------------------------------------------------------
// Director commands (TO §22, §24, §25, §30, §31; Fax 2.2).

static EMAIL: &str = r#"([^\s<>,;:"()\[\]]+@[^\s<>,;:"()\[\]]+[^\s<>,;:"()\[\].])"#;

static CONFIRM_FORFEIT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:zü|zue|zu)\s+(?:bestätigt|bestaetigt|bestätigen|bestaetigen)\b|^confirm\w*\s+(?:the\s+)?(?:second\s+)?time\s+forfeit\b",
    )
});
static RESULT_CMD: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:ergebnis|result)\b\s*(:)?\s*(.*)$"));
static RESULT_VALUE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(1\s*[-:]\s*0|0\s*[-:]\s*1|½\s*[-:]\s*½|1/2\s*[-:]\s*1/2|0[,.]5\s*[-:]\s*0[,.]5|remis|draw|unentschieden|annulliert|annullieren|annulled|annul|gestrichen|void|cancelled|canceled)(?:$|[\s.,;(!])",
    )
});
static SPECIAL_LEAVE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?:sonderurlaub|special\s+leave)\b\s*:?\s*(?:vom|von|from)?\s*(.*)$")
});
static LATE_LEAVE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:urlaub\s+nachtr(?:ä|ae|a)glich\s+(?:anerkannt|genehmigt|akzeptiert)|accept\w*\s+late\s+leave)\b\s*:?\s*(?:vom|von|from)?\s*(.*)$",
    )
});
static FOR_PLAYER: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^\s*,?\s*(?:für|fuer|for)\s+{EMAIL}\s*(?:genehmigt|bewilligt|gewährt|gewaehrt|anerkannt|granted|approved|accepted)?\s*[.]?\s*$"
    ))
});
/// TO §8, §30, Fax 2.2: the lines that adjust a player's time, with one meaning (`+` charges,
/// `-` credits; see [`DirectorCommand::AdjustTime`]): `Bedenkzeit: +3 Tage für anna@…`,
/// `time: -3 days for anna@…`, `Bedenkzeit gutschreiben: 3 Tage für anna@…`, `credit time: 3
/// days for anna@…`, `Bedenkzeit anrechnen: 3 Tage für anna@…`, `charge time: 3 days for
/// anna@…`; each with an optional `, Grund: …` / `, reason: …`.
static ADJUST_START: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:(?:bedenkzeit|zeit|time|thinking\s+time)\s+(?:gutschreiben|zur(?:ü|ue|u)ckgeben|anrechnen|abziehen|k(?:ü|ue|u)rzen)|(?:credit|charge|deduct)\s+(?:thinking\s+)?time)\b|^(?:bedenkzeit|zeit|time|thinking\s+time)\s*:?\s*(?:[+-]|.*\b(?:für|fuer|for)\s+\S+@)",
    )
});
static ADJUST: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^(?:(?:bedenkzeit|zeit|time|thinking\s+time)(?:\s+(gutschreiben|zur(?:ü|ue|u)ckgeben|anrechnen|abziehen|k(?:ü|ue|u)rzen))?|(credit|charge|deduct)\s+(?:thinking\s+)?time)\s*:?\s*([+-])?\s*(\d{{1,3}})\s*(?:tage?n?|days?|d)?\s*,?\s*(?:für|fuer|for)\s+{EMAIL}\s*(?:[,;.]?\s*(?:grund|reason|begründung|begruendung)\s*:?\s*(\S.*))?\s*[.]?$"
    ))
});

/// The days a line of [`ADJUST`] adds to the player's time used: its sign (`+` charges, `-`
/// credits), or its word (`gutschreiben` / `credit` credit, `anrechnen` / `charge` charge); a
/// sign against its word, or neither, is no clear command.
fn adjusted_days(cap: &regex::Captures<'_>) -> Option<i32> {
    let word = cap
        .get(1)
        .or_else(|| cap.get(2))
        .map(|m| m.as_str().to_lowercase());
    let sign = cap.get(3).map(|m| m.as_str());
    let days: i32 = cap.get(4)?.as_str().parse().ok()?;
    let way = match word.as_deref() {
        Some(w) if w.starts_with("gut") || w.starts_with("zur") || w == "credit" => -1,
        Some(_) => 1,
        None => match sign? {
            "-" => -1,
            _ => 1,
        },
    };
    // A sign against the word (`gutschreiben: -3`) says neither for certain.
    let against = word.is_some() && sign == Some("-");
    (!against && days > 0).then_some(way * days)
}

/// TO §30: `Ermahnung: anna@… Grund: TEXT` / `warning: anna@… reason: TEXT` (`Verwarnung`,
/// `Warnung` too); the reason may also follow the address without its label.
static WARN_OPEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:ermahnung|verwarnung|warnung|warning)\s*:\s*\S+@"));
static WARN: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^(?:ermahnung|verwarnung|warnung|warning)\s*:\s*{EMAIL}\s*[,;.]?\s*(?:(?:grund|reason|begründung|begruendung|wegen|because\s+of)\s*:?\s*)?(\S.*?)?\s*$"
    ))
});

/// TO §29: `Einspruch: TEXT` / `appeal: TEXT`, a line of its own.
static APPEAL: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)^(?:einspruch|appeal)\s*:\s*(.*?)\s*$"));

static ADDRESS_WORD: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:adresse|address|e-?mail|mailadresse|erreichen|erreichbar|reachable)\b")
});
static ADDRESS_LABEL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:neue\s+|weitere\s+|zus(?:ä|ae|a)tzliche\s+)?(?:adresse|address(?:\s+change)?|also)\s*:",
    )
});
static ADDRESS_ADD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\s*(?:weitere|zus(?:ä|ae|a)tzliche|additional|further|also|second)\b|\s\+\s|\bauch\s+(?:von|unter)\b|\balso\s+(?:from|at)\b",
    )
});
static ADDRESS_OLD: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)\b(?:bisher|bisherige|vorher|alte|alt|old|previously|formerly|früher|frueher)\b\s*:?\s*{EMAIL}"
    ))
});
static ANY_EMAIL: LazyLock<Regex> = LazyLock::new(|| re(EMAIL));
/// Every e-mail address `text` names, lower-cased as the commands read them (an address
/// change names the player and his new address): what the shell looks up before the core reads
/// a director's letter (`crate::app`, the rotated tournaments those addresses appear in).
///
/// ```
/// let found = fernzug::letter::content::addresses_in("Adresse: Anna@X.de -> anna.neu@y.de");
/// assert_eq!(found, ["anna@x.de", "anna.neu@y.de"]);
/// ```
pub fn addresses_in(text: &str) -> Vec<String> {
    ANY_EMAIL
        .captures_iter(text)
        .filter_map(|c| c.get(1).map(|m| m.as_str().to_lowercase()))
        .collect()
}
/// The words [`ADDRESS_LABEL`] or [`ADDRESS_WORD`] need one of (`prefilter`).
const ADDRESS_KEYS: &[&str] = &["adress", "address", "also", "mail", "erreich", "reachable"];
static ADDRESS_WORDS: LazyLock<Regex> = LazyLock::new(|| any_of(ADDRESS_KEYS));
/// Every word a line's `Lowered::has` is asked about: a line without one skips them all.
static LINE_WORDS: LazyLock<Regex> = LazyLock::new(|| {
    any_of(
        &[
            CONDITIONAL_KEYS,
            RECEIVED_KEYS,
            SENT_KEYS,
            DAYS_USED_KEYS,
            ADDRESS_KEYS,
        ]
        .concat(),
    )
});

/// A player's address changed or added by the director: a line about an address (`Adresse:`,
/// `Neue Adresse für …`, `… ist ab sofort unter … zu erreichen (bisher …)`) naming exactly two
/// addresses. The player's registered one is the first, or the one marked `bisher`/`old`.
fn address_command(line: &str, low: &Lowered, written: &str) -> Option<DirectorCommand> {
    if !low.has(&ADDRESS_WORDS) {
        return None;
    }
    let labelled = ADDRESS_LABEL.is_match(line);
    if !labelled && !ADDRESS_WORD.is_match(line) {
        return None;
    }
    let found: Vec<String> = ANY_EMAIL
        .captures_iter(line)
        .filter_map(|c| c.get(1).map(|m| m.as_str().to_lowercase()))
        .collect();
    let [first, second] = found.as_slice() else {
        return labelled.then(|| DirectorCommand::Malformed(written.to_string()));
    };
    let old = ADDRESS_OLD
        .captures(line)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_lowercase());
    let (player, address) = match old {
        Some(o) if o == *second => (second.clone(), first.clone()),
        _ => (first.clone(), second.clone()),
    };
    Some(DirectorCommand::Address {
        player,
        address,
        change: !ADDRESS_ADD.is_match(line),
    })
}

/// TO §30: `Nur Züge: GAME`, `moves only: GAME`, `Nur Züge aufgehoben: GAME`, `moves only off:
/// GAME` (the game after the colon, checked by [`GAME_NAME`]).
static MOVES_ONLY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(?:nur\s+z(?:ü|ue|u)ge|moves\s+only)(\s+(?:aufgehoben|off))?\s*:\s*(.*?)\s*\.?$")
});
/// A game as a director names it: `FAX-2026-3/7`, `[FAX-2026-3/7]`.
static GAME_NAME: LazyLock<Regex> = LazyLock::new(|| re(r"^\[?[A-Za-z0-9][A-Za-z0-9._-]*/\d+\]?$"));

/// Reads a director command; a line that starts like one but does not parse is
/// [`DirectorCommand::Malformed`]. `written` is the line as the author wrote it, `low` the line
/// lower-cased (`prefilter::lower`).
fn director(line: &str, low: &Lowered, written: &str) -> Option<DirectorCommand> {
    // Every command opens with its word but an address change, which names one anywhere.
    if !low.starts_with_any(&[
        "zu",
        "zü",
        "confirm",
        "fortsetzen",
        "resume",
        "ergebnis",
        "result",
        "urlaub",
        "accept",
        "sonderurlaub",
        "special",
        "bedenkzeit",
        "zeit",
        "time",
        "thinking",
        "nur",
        "moves",
        "korrespondenz",
        "correspondence",
        "pgn",
        "prüfen",
        "pruefen",
        "verify",
        "rücktritt",
        "ruecktritt",
        "withdraw",
        "rückfrage",
        "rueckfrage",
        "ask",
        "credit",
        "charge",
        "deduct",
        "ermahnung",
        "verwarnung",
        "warnung",
        "warning",
    ]) {
        return address_command(line, low, written);
    }
    let malformed = || Some(DirectorCommand::Malformed(written.to_string()));
    if let Some(cmd) = address_command(line, low, written) {
        return Some(cmd);
    }
    // Each form below is asked only of a line that opens with one of its words.
    let opens = |words: &[&str]| low.starts_with_any(words);
    if opens(&["zu", "zü", "confirm"]) && CONFIRM_FORFEIT.is_match(line) {
        return Some(DirectorCommand::ConfirmForfeit);
    }
    if opens(&["fortsetzen", "resume"]) {
        let bare = line
            .trim_end_matches(|c: char| c.is_ascii_punctuation())
            .trim()
            .to_lowercase();
        if bare == "fortsetzen" || bare == "resume" {
            return Some(DirectorCommand::Resume);
        }
    }
    if opens(&["ergebnis", "result"])
        && let Some(cap) = RESULT_CMD.captures(line)
    {
        let colon = cap.get(1).is_some();
        let value = cap.get(2).map_or("", |m| m.as_str()).trim();
        return match normalize_result(value) {
            Some(r) => Some(DirectorCommand::SetResult(r)),
            None if colon => malformed(),
            None => None,
        };
    }
    if opens(&["urlaub", "accept"])
        && let Some(cap) = LATE_LEAVE.captures(line)
    {
        let rest = cap.get(1).map_or("", |m| m.as_str());
        return match span_for_player(rest) {
            Some((span, player)) => Some(DirectorCommand::AcceptLateLeave { span, player }),
            None => malformed(),
        };
    }
    if opens(&["sonderurlaub", "special"])
        && let Some(cap) = SPECIAL_LEAVE.captures(line)
    {
        let rest = cap.get(1).map_or("", |m| m.as_str());
        return match span_for_player(rest) {
            Some((span, player)) => Some(DirectorCommand::SpecialLeave { span, player }),
            None => malformed(),
        };
    }
    if opens(&["nur", "moves"])
        && let Some(cap) = MOVES_ONLY.captures(line)
    {
        let on = cap.get(1).is_none();
        return match cap.get(2).map(|m| m.as_str().trim()) {
            Some(game) if GAME_NAME.is_match(game) => Some(DirectorCommand::MovesOnly {
                game: game.trim_matches(['[', ']']).to_string(),
                on,
            }),
            _ => malformed(),
        };
    }
    if let Some(cmd) = desk_command(line, low, written) {
        return Some(cmd);
    }
    if opens(&[
        "bedenkzeit",
        "zeit",
        "time",
        "thinking",
        "credit",
        "charge",
        "deduct",
    ]) && ADJUST_START.is_match(line)
    {
        let Some(cap) = ADJUST.captures(line) else {
            return malformed();
        };
        let player = cap.get(5).map(|m| m.as_str().to_lowercase());
        let reason = cap.get(6).map_or("", |m| m.as_str().trim()).to_string();
        return match (adjusted_days(&cap), player) {
            (Some(days), Some(player)) => Some(DirectorCommand::AdjustTime {
                days,
                player,
                reason,
            }),
            _ => malformed(),
        };
    }
    if opens(&["ermahnung", "verwarnung", "warnung", "warning"]) && WARN_OPEN.is_match(line) {
        let Some(cap) = WARN.captures(line) else {
            return malformed();
        };
        let player = cap.get(1).map_or("", |m| m.as_str()).to_lowercase();
        return match cap.get(2).map(|m| m.as_str().trim()) {
            Some(reason) if !reason.is_empty() => Some(DirectorCommand::Warn {
                player,
                reason: reason.to_string(),
            }),
            _ => malformed(),
        };
    }
    None
}

/// TO §11, §29: `Korrespondenz: GAME`, `PGN: TOURNAMENT`, `Prüfen: GAME` (and English).
static RECORDS: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^(korrespondenz|correspondence|pgn|pr(?:ü|ue|u)fen|verify)\s*:\s*(.*?)\s*\.?$")
});
/// A tournament as a director names it: `FAX-2026-3`, `[FAX-2026-3]`.
static TOURNAMENT_NAME: LazyLock<Regex> =
    LazyLock::new(|| re(r"^\[?[A-Za-z0-9][A-Za-z0-9._-]*\]?$"));
/// TO §26: `Rücktritt: anna@… Wertung: verloren` / `withdraw: anna@… score: annulled`.
static WITHDRAW_OPEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:r(?:ü|ue|u)cktritt|withdraw(?:al)?)\s*:"));
static WITHDRAW: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^(?:r(?:ü|ue|u)cktritt|withdraw(?:al)?)\s*:\s*{EMAIL}\s*[,;]?\s*(?:wertung|score|scored)\s*:?\s*(verloren|lost|annulliert|annulled|gestrichen|cancelled|canceled)\s*[.]?\s*$"
    ))
});
/// TO §23: `Rückfrage an anna@…: TEXT` / `ask anna@…: TEXT`.
static ASK_OPEN: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:r(?:ü|ue|u)ckfrage\s+an|ask)\s+\S+@"));
static ASK: LazyLock<Regex> = LazyLock::new(|| {
    re(&format!(
        r"(?i)^(?:r(?:ü|ue|u)ckfrage\s+an|ask)\s+{EMAIL}\s*:\s*(.*)$"
    ))
});
/// TO §30: `Züge über TL: GAME` / `moves through TL: GAME`, `… aufgehoben` / `… off`.
static THROUGH_DIRECTOR: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^(?:z(?:ü|ue|u)ge\s+(?:über|ueber|uber)\s+(?:den\s+)?(?:tl|turnierleiter)|moves\s+through\s+(?:the\s+)?(?:tl|td|director))(\s+(?:aufgehoben|off))?\s*:\s*(.*?)\s*\.?$",
    )
});

/// The director's desk (TO §11, §23, §26, §29, §30): records, a withdrawal, a question, moves
/// through him. A line that opens like one of them but does not parse is malformed — except
/// where a player may write the same opening (`PGN: siehe Anhang`, `Rücktritt: ich gebe auf`):
/// a records line without a game or tournament and a withdrawal without an address are no
/// command at all (a director's mail without one is answered with every form anyway).
fn desk_command(line: &str, low: &Lowered, written: &str) -> Option<DirectorCommand> {
    let malformed = || Some(DirectorCommand::Malformed(written.to_string()));
    let game_of = |g: &str| {
        GAME_NAME
            .is_match(g)
            .then(|| g.trim_matches(['[', ']']).to_string())
    };
    if low.starts_with_any(&[
        "korrespondenz",
        "correspondence",
        "pgn",
        "prüfen",
        "pruefen",
        "prufen",
        "verify",
    ]) && let Some(cap) = RECORDS.captures(line)
    {
        let word = cap.get(1).map_or("", |m| m.as_str()).to_lowercase();
        let target = cap.get(2).map_or("", |m| m.as_str()).trim();
        return match word.as_str() {
            "pgn" if GAME_NAME.is_match(target) || TOURNAMENT_NAME.is_match(target) => {
                Some(DirectorCommand::Pgn {
                    target: target.trim_matches(['[', ']']).to_string(),
                })
            }
            "pgn" => None,
            "korrespondenz" | "correspondence" => {
                game_of(target).map(|game| DirectorCommand::Correspondence { game })
            }
            _ => game_of(target).map(|game| DirectorCommand::Verify { game }),
        };
    }
    if WITHDRAW_OPEN.is_match(line) && line.contains('@') {
        let Some(cap) = WITHDRAW.captures(line) else {
            return malformed();
        };
        let player = cap.get(1).map_or("", |m| m.as_str()).to_lowercase();
        let score = cap.get(2).map_or("", |m| m.as_str()).to_lowercase();
        let annulled = !matches!(score.as_str(), "verloren" | "lost");
        return Some(DirectorCommand::Withdraw { player, annulled });
    }
    if ASK_OPEN.is_match(written) {
        let Some(cap) = ASK.captures(written) else {
            return malformed();
        };
        let player = cap.get(1).map_or("", |m| m.as_str()).to_lowercase();
        let text = cap.get(2).map_or("", |m| m.as_str()).trim().to_string();
        return Some(DirectorCommand::Ask { player, text });
    }
    if let Some(cap) = THROUGH_DIRECTOR.captures(line) {
        let on = cap.get(1).is_none();
        return game_of(cap.get(2).map_or("", |m| m.as_str()).trim())
            .map(|game| DirectorCommand::ThroughDirector { game, on })
            .or_else(malformed);
    }
    None
}

/// `1-0`, `1:0`, `0-1`, `½-½`, `1/2-1/2`, `0,5-0,5`, `remis`, `draw` → `1-0`, `0-1`, `1/2-1/2`;
/// `annulliert`, `annulled`, `gestrichen`, `void`, `cancelled` → `annulled` (TO §26).
pub fn normalize_result(value: &str) -> Option<String> {
    let m = RESULT_VALUE
        .captures(value.trim())?
        .get(1)?
        .as_str()
        .to_lowercase();
    let compact: String = m.chars().filter(|c| !c.is_whitespace()).collect();
    Some(
        match compact.as_str() {
            "1-0" | "1:0" => "1-0",
            "0-1" | "0:1" => "0-1",
            w if w.starts_with("annul")
                || w == "gestrichen"
                || w == "void"
                || w.starts_with("cancel") =>
            {
                "annulled"
            }
            _ => "1/2-1/2",
        }
        .to_string(),
    )
}

fn span_for_player(rest: &str) -> Option<(super::types::DateSpan, String)> {
    let (span, after) = parse_span_prefix(rest)?;
    let player = FOR_PLAYER.captures(after)?.get(1)?.as_str().to_lowercase();
    Some((span, player))
}

// ---------------------------------------------------------------------------
// Bare results (TO §2).

static BARE_WORD: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)^(?:remis|draw|unentschieden)[.!]*$"));

#[cfg(test)]
mod tests {
    use super::*;
    use crate::letter::types::{DateSpan, StatedDate};

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
    fn d(day: u32, month: u32, year: Option<i32>) -> StatedDate {
        StatedDate { day, month, year }
    }

    #[test]
    fn contract_example() {
        let c = read_content(
            "12. ... Sf6\n13. Lg5\nErhalten: 28.11.2026\nAbgesandt: 30.11.2026\nBedenkzeit: 2 Tage\nRemis?",
        );
        assert_eq!(c.moves, vec![b(12, "Sf6"), w(13, "Lg5")]);
        assert_eq!(c.received, Some(d(28, 11, Some(2026))));
        assert_eq!(c.sent, Some(d(30, 11, Some(2026))));
        assert_eq!(c.days_used, Some(2));
        assert!(c.draw_offer);
        assert!(c.doubts.is_empty());
    }

    #[test]
    fn s2_unreadable_numbered_line() {
        let c = read_content("12... Sf6\n13. Lz5");
        assert_eq!(c.moves, vec![b(12, "Sf6")]);
        assert_eq!(c.doubts, vec![Doubt::Unreadable("13. Lz5".into())]);
    }

    #[test]
    fn s2_dates_and_rounds_are_not_moves() {
        let c = read_content("30.11.2026\n2. Runde\nAm 3. Dezember bin ich weg");
        assert!(c.moves.is_empty());
        assert!(c.doubts.is_empty());
    }

    #[test]
    fn s2_labelled_move_line() {
        let c = read_content("Mein Zug: 13. Lg5");
        assert_eq!(c.moves, vec![w(13, "Lg5")]);
        let c = read_content("hier mein Zug: 13. Lg5\nMy move: 13. Bg5");
        assert_eq!(c.moves, vec![w(13, "Lg5"), w(13, "Bg5")]);
        let c = read_content("Wiederholung: 24. Td2\nMein Zug: 24... Dd6");
        assert_eq!(c.moves, vec![w(24, "Td2"), b(24, "Dd6")]);
        let c = read_content("Ich schlage vor: 12... Sd7 ist besser.");
        assert!(c.moves.is_empty());
        let c = read_content("Nach 12. Lb5 a6 war ich sicher.");
        assert!(c.moves.is_empty());
    }

    #[test]
    fn s2_struck_out_and_corrected() {
        let c = read_content("13. ~~Lg5~~ Lf4");
        assert_eq!(c.moves, vec![w(13, "Lf4")]);
        assert_eq!(c.doubts, vec![Doubt::StruckOut("Lg5".into())]);
        let c = read_content("13. Sf3 (nein: Sc3)");
        assert_eq!(c.moves, vec![w(13, "Sf3")]);
        assert_eq!(
            c.doubts,
            vec![Doubt::StruckOut("13. Sf3 (nein: Sc3)".into())]
        );
    }

    #[test]
    fn s14_forms() {
        let c =
            read_content("Empfangen: 28.11.26\nAbgeschickt am 30. Nov. 2026\nVerbrauchte Zeit: 2");
        assert_eq!(c.received, Some(d(28, 11, Some(2026))));
        assert_eq!(c.sent, Some(d(30, 11, Some(2026))));
        assert_eq!(c.days_used, Some(2));
        let c = read_content("Received: Nov 28, 2026\nSent: 2026-11-30\nTime used: 2 days");
        assert_eq!(c.received, Some(d(28, 11, Some(2026))));
        assert_eq!(c.sent, Some(d(30, 11, Some(2026))));
        assert_eq!(c.days_used, Some(2));
        let c = read_content("Erhalten: 28.11. Gesendet: 30.11. Bedenkzeit: 2");
        assert_eq!(c.received, Some(d(28, 11, None)));
        assert_eq!(c.sent, Some(d(30, 11, None)));
        assert_eq!(c.days_used, Some(2));
        let c = read_content("Days used: 0");
        assert_eq!(c.days_used, Some(0));
        let c = read_content("Gesendet: 30 Nov 2026");
        assert_eq!(c.sent, Some(d(30, 11, Some(2026))));
    }

    #[test]
    fn s2_draw_words() {
        for t in [
            "Remis?",
            "Ich biete Remis an.",
            "Remisangebot",
            "Remis angeboten",
            "I offer a draw",
            "draw?",
            "offer draw",
            "Draw offer.",
        ] {
            let c = read_content(t);
            assert!(c.draw_offer && !c.draw_accept, "{t}");
        }
        for t in [
            "Remis angenommen",
            "Ich nehme das Remis an",
            "ich nehme Remis an",
            "Remis akzeptiert",
            "I accept the draw",
            "Draw accepted.",
            "accept draw",
            "Dein Remisangebot nehme ich an.",
        ] {
            let c = read_content(t);
            assert!(c.draw_accept && !c.draw_offer, "{t}");
        }
        let c = read_content("Remis angenommen?");
        assert!(!c.draw_accept && !c.draw_offer);
        assert_eq!(c.asks.len(), 1);
        assert_eq!(c.asks[0].kind, crate::letter::RequestKind::Accept);
        let c = read_content("Dein Remisangebot lehne ich ab.");
        assert!(!c.draw_accept && !c.draw_offer);
        let c = read_content("Kein Remis!");
        assert!(!c.draw_offer);
    }

    #[test]
    fn s2_resignation() {
        for t in [
            "Ich gebe auf.",
            "aufgegeben",
            "Ich gebe die Partie auf",
            "I resign.",
            "resign",
            "Black resigns",
        ] {
            assert!(read_content(t).resign, "{t}");
        }
        for t in [
            "Ich gebe nicht auf!",
            "Hast du aufgegeben?",
            "I will not resign",
        ] {
            assert!(!read_content(t).resign, "{t}");
        }
    }

    #[test]
    fn s2_bare_results_are_doubtful() {
        for t in ["1-0", "0-1", "½-½", "1/2", "½", "remis", "Remis."] {
            let c = read_content(t);
            assert_eq!(c.bare_result.as_deref(), Some(t), "{t}");
            assert!(!c.draw_offer && !c.draw_accept && !c.resign, "{t}");
        }
    }

    #[test]
    fn fide_9_2_repetition_claim() {
        for t in [
            "Dreimalige Stellungswiederholung",
            "Remis durch Stellungswiederholung",
            "I claim a draw by threefold repetition",
            "threefold repetition",
        ] {
            let c = read_content(t);
            assert!(c.claim_repetition, "{t}");
            assert!(!c.draw_offer && c.bare_result.is_none(), "{t}");
        }
    }

    #[test]
    fn s13_announcement() {
        for t in [
            "Ankündigung: mehr als 10 Tage",
            "ich brauche mehr als 10 Tage",
            "mehr als 10 Tage Bedenkzeit",
            "I need more than 10 days",
            "more than 10 days",
        ] {
            assert!(read_content(t).announce_long_think, "{t}");
        }
        assert!(!read_content("Ich brauche nicht mehr als 10 Tage").announce_long_think);
    }

    #[test]
    fn s4_take_back() {
        for t in [
            "Ich nehme meinen Zug zurück",
            "Zug zurück!",
            "I take back my last move",
            "Can I take it back?",
            "I withdraw my move",
        ] {
            assert!(read_content(t).take_back, "{t}");
        }
        assert!(!read_content("Ich nehme das Remis an").take_back);
    }

    #[test]
    fn status_line() {
        assert!(read_content("Status").status_request);
        for asks in [
            "XFCC-Passwort",
            "xfcc password",
            "Bitte ein neues XFCC-Passwort!",
            "Please send me a new XFCC password.",
        ] {
            let c = read_content(asks);
            assert!(c.xfcc_password && c.status_request, "{asks}");
        }
        for not in [
            "Ich brauche kein XFCC-Passwort",
            "Mein Programm kann kein XFCC",
            "Das XFCC-Passwort aus der Startmail funktioniert, aber die Partie ist heute leider nicht erschienen, warum?",
        ] {
            assert!(!read_content(not).xfcc_password, "{not}");
        }
        assert!(read_content("status?").status_request);
        assert!(!read_content("Der Status ist klar").status_request);
    }

    #[test]
    fn s6_conditional_lines() {
        let c = read_content(
            "13. Lg5\nEventualzüge: 13... Sxe4 14. Lxe7 14... Dxe7 15. Sd5\nif 13... Nxe4 then 14. Bxe7\nwenn 13... Sxe4 dann 14. Lxe7",
        );
        assert_eq!(c.moves, vec![w(13, "Lg5")]);
        assert_eq!(
            c.conditional,
            vec![
                vec![b(13, "Sxe4"), w(14, "Lxe7"), b(14, "Dxe7"), w(15, "Sd5")],
                vec![b(13, "Nxe4"), w(14, "Bxe7")],
                vec![b(13, "Sxe4"), w(14, "Lxe7")],
            ]
        );
        let c = read_content(
            "Eventualzüge:\n13... Sxe4 14. Lxe7\n14... Dxe7 15. Sd5\n13... Sd7 14. Lxe7\n\n14. Dd2",
        );
        assert_eq!(c.conditional.len(), 2);
        assert_eq!(c.conditional[0].len(), 4);
        assert_eq!(c.conditional[1], vec![b(13, "Sd7"), w(14, "Lxe7")]);
        assert_eq!(c.moves, vec![w(14, "Dd2")]);
        let c = read_content(
            "if: 13... Nxe4 14. Bxe7\nConditional moves: 13... Nd7 14. Bxe7\nEventualzug: 13... h6 14. Lh4",
        );
        assert_eq!(c.conditional.len(), 3);
        assert_eq!(c.conditional[2], vec![b(13, "h6"), w(14, "Lh4")]);
        assert!(c.moves.is_empty());
        let c = read_content("Eventualzüge: 13... Sxe4 14. Lz9");
        assert_eq!(
            c.doubts,
            vec![Doubt::Unreadable("Eventualzüge: 13... Sxe4 14. Lz9".into())]
        );
        let c = read_content("Wenn du willst, können wir reden.");
        assert!(c.conditional.is_empty());
    }

    #[test]
    fn s24_leave_forms() {
        let want = DateSpan {
            from: d(20, 12, Some(2026)),
            to: d(3, 1, Some(2027)),
        };
        for t in [
            "Urlaub: 20.12.2026 – 03.01.2027",
            "Urlaub 20.12.2026-03.01.2027",
            "leave 2026-12-20 to 2027-01-03",
            "leave: 20.12.2026 - 03.01.2027",
            "Vacation: Dec 20, 2026 - Jan 3, 2027",
        ] {
            assert_eq!(read_content(t).leave, Some(want), "{t}");
        }
        let c = read_content("Urlaub vom 20.12. bis 3.1.");
        assert_eq!(
            c.leave,
            Some(DateSpan {
                from: d(20, 12, None),
                to: d(3, 1, None)
            })
        );
        assert_eq!(read_content("I will leave it to you").leave, None);
    }

    #[test]
    fn director_commands() {
        let c =
            read_content("ZÜ bestätigt\nZUE bestaetigt\nconfirm time forfeit\nfortsetzen\nresume");
        assert_eq!(
            c.director,
            vec![
                DirectorCommand::ConfirmForfeit,
                DirectorCommand::ConfirmForfeit,
                DirectorCommand::ConfirmForfeit,
                DirectorCommand::Resume,
                DirectorCommand::Resume
            ]
        );
        let c = read_content(
            "Ergebnis: 1-0\nresult: 1/2-1/2\nErgebnis: ½-½\nErgebnis: 0,5-0,5\nErgebnis: remis\nresult: 0-1\nErgebnis: weiß gewinnt",
        );
        assert_eq!(
            c.director,
            vec![
                DirectorCommand::SetResult("1-0".into()),
                DirectorCommand::SetResult("1/2-1/2".into()),
                DirectorCommand::SetResult("1/2-1/2".into()),
                DirectorCommand::SetResult("1/2-1/2".into()),
                DirectorCommand::SetResult("1/2-1/2".into()),
                DirectorCommand::SetResult("0-1".into()),
                DirectorCommand::Malformed("Ergebnis: weiß gewinnt".into()),
            ]
        );
        assert!(c.bare_result.is_none());
    }

    #[test]
    fn s24_s25_s30_director_commands() {
        let span = DateSpan {
            from: d(1, 2, Some(2027)),
            to: d(14, 2, Some(2027)),
        };
        let c = read_content(
            "Sonderurlaub: 01.02.2027 – 14.02.2027 für anna@x.de\nspecial leave 2027-02-01 to 2027-02-14 for Anna@X.de\nSonderurlaub: bald",
        );
        assert_eq!(
            c.director,
            vec![
                DirectorCommand::SpecialLeave {
                    span,
                    player: "anna@x.de".into()
                },
                DirectorCommand::SpecialLeave {
                    span,
                    player: "anna@x.de".into()
                },
                DirectorCommand::Malformed("Sonderurlaub: bald".into()),
            ]
        );
        assert_eq!(c.leave, None);
        let c = read_content(
            "Bedenkzeit: +3 Tage für anna@x.de, Grund: Poststreik\ntime: -2 days for bert@y.de, reason: late notice\nBedenkzeit: +3 Tage für anna@x.de",
        );
        assert_eq!(
            c.director,
            vec![
                DirectorCommand::AdjustTime {
                    days: 3,
                    player: "anna@x.de".into(),
                    reason: "Poststreik".into()
                },
                DirectorCommand::AdjustTime {
                    days: -2,
                    player: "bert@y.de".into(),
                    reason: "late notice".into()
                },
                DirectorCommand::AdjustTime {
                    days: 3,
                    player: "anna@x.de".into(),
                    reason: String::new()
                },
            ]
        );
        assert_eq!(c.days_used, None);
        let c = read_content(
            "Urlaub nachträglich anerkannt 20.12.2026 – 03.01.2027 für anna@x.de\naccept late leave 2026-12-20 to 2027-01-03 for anna@x.de",
        );
        let late = DateSpan {
            from: d(20, 12, Some(2026)),
            to: d(3, 1, Some(2027)),
        };
        assert_eq!(
            c.director,
            vec![
                DirectorCommand::AcceptLateLeave {
                    span: late,
                    player: "anna@x.de".into()
                },
                DirectorCommand::AcceptLateLeave {
                    span: late,
                    player: "anna@x.de".into()
                },
            ]
        );
        assert_eq!(c.leave, None);
    }

    /// Issue 49: every line form of a time adjustment, in both languages, with its one meaning:
    /// `days` > 0 charges (more used), `days` < 0 credits (fewer used).
    #[test]
    fn s30_time_adjustments_in_every_line_form_have_one_meaning() {
        let adjust = |days: i32, player: &str, reason: &str| DirectorCommand::AdjustTime {
            days,
            player: player.into(),
            reason: reason.into(),
        };
        for (line, want) in [
            // The sign: + charges, - credits.
            (
                "Bedenkzeit: +3 Tage für anna@x.de",
                adjust(3, "anna@x.de", ""),
            ),
            (
                "Bedenkzeit: -3 Tage für anna@x.de",
                adjust(-3, "anna@x.de", ""),
            ),
            (
                "Bedenkzeit: −3 Tage für anna@x.de",
                adjust(-3, "anna@x.de", ""),
            ),
            (
                "Bedenkzeit: +3 Tage für anna@x.de, Grund: Poststreik",
                adjust(3, "anna@x.de", "Poststreik"),
            ),
            (
                "Bedenkzeit: -2 Tage für Anna@X.de. Grund: Serverausfall am 3.12.",
                adjust(-2, "anna@x.de", "Serverausfall am 3.12."),
            ),
            ("time: +3 days for anna@x.de", adjust(3, "anna@x.de", "")),
            (
                "time: -3 days for anna@x.de, reason: the mail server failed",
                adjust(-3, "anna@x.de", "the mail server failed"),
            ),
            ("Zeit: +1 Tag für bert@y.de", adjust(1, "bert@y.de", "")),
            // The words: gutschreiben / credit credit, anrechnen / charge charge.
            (
                "Bedenkzeit gutschreiben: 3 Tage für anna@x.de",
                adjust(-3, "anna@x.de", ""),
            ),
            (
                "Bedenkzeit gutschreiben: 3 Tage für anna@x.de, Grund: Mailserver ausgefallen",
                adjust(-3, "anna@x.de", "Mailserver ausgefallen"),
            ),
            (
                "Bedenkzeit zurückgeben: 2 Tage für anna@x.de",
                adjust(-2, "anna@x.de", ""),
            ),
            (
                "credit time: 3 days for anna@x.de",
                adjust(-3, "anna@x.de", ""),
            ),
            (
                "credit thinking time: 3 days for anna@x.de, reason: lost mail",
                adjust(-3, "anna@x.de", "lost mail"),
            ),
            (
                "Bedenkzeit anrechnen: 3 Tage für anna@x.de",
                adjust(3, "anna@x.de", ""),
            ),
            (
                "Bedenkzeit anrechnen: 3 Tage für anna@x.de, Grund: verspätete Antwort",
                adjust(3, "anna@x.de", "verspätete Antwort"),
            ),
            (
                "Bedenkzeit abziehen: 4 Tage für bert@y.de",
                adjust(4, "bert@y.de", ""),
            ),
            (
                "charge time: 3 days for anna@x.de",
                adjust(3, "anna@x.de", ""),
            ),
            (
                "charge time: 3 days for anna@x.de, reason: late reply",
                adjust(3, "anna@x.de", "late reply"),
            ),
            (
                "deduct time: 2 days for bert@y.de",
                adjust(2, "bert@y.de", ""),
            ),
            // A sign beside the word says the same or is not clear.
            (
                "Bedenkzeit gutschreiben: +3 Tage für anna@x.de",
                adjust(-3, "anna@x.de", ""),
            ),
            (
                "Bedenkzeit gutschreiben: -3 Tage für anna@x.de",
                DirectorCommand::Malformed("Bedenkzeit gutschreiben: -3 Tage für anna@x.de".into()),
            ),
            // Without a sign or a word it says nothing for certain.
            (
                "Bedenkzeit: 3 Tage für anna@x.de",
                DirectorCommand::Malformed("Bedenkzeit: 3 Tage für anna@x.de".into()),
            ),
            (
                "credit time: 3 days",
                DirectorCommand::Malformed("credit time: 3 days".into()),
            ),
            (
                "Bedenkzeit: +3 Tage",
                DirectorCommand::Malformed("Bedenkzeit: +3 Tage".into()),
            ),
        ] {
            assert_eq!(read_content(line).director, vec![want], "{line}");
        }
        // A player's §14 line is no command.
        let c = read_content("Bedenkzeit: 3 Tage");
        assert!(c.director.is_empty());
        assert_eq!(c.days_used, Some(3));
    }

    #[test]
    fn s30_a_warning_with_its_reason() {
        let warn = |player: &str, reason: &str| DirectorCommand::Warn {
            player: player.into(),
            reason: reason.into(),
        };
        for (line, want) in [
            (
                "Ermahnung: anna@x.de Grund: wiederholt verspätete Antworten",
                warn("anna@x.de", "wiederholt verspätete Antworten"),
            ),
            (
                "Ermahnung: Anna@X.de, Grund: unsportliches Verhalten",
                warn("anna@x.de", "unsportliches Verhalten"),
            ),
            (
                "Verwarnung: bert@y.de wegen beleidigender Worte",
                warn("bert@y.de", "beleidigender Worte"),
            ),
            (
                "warning: anna@x.de reason: repeated delays",
                warn("anna@x.de", "repeated delays"),
            ),
            (
                "Ermahnung: anna@x.de",
                DirectorCommand::Malformed("Ermahnung: anna@x.de".into()),
            ),
        ] {
            assert_eq!(read_content(line).director, vec![want], "{line}");
        }
        // The clock warnings of a player are no command.
        let c = read_content("Warnungen");
        assert!(c.director.is_empty());
        assert_eq!(c.warnings, Some(true));
    }

    #[test]
    fn s26_a_result_annulled() {
        for line in [
            "Ergebnis: annulliert",
            "result: annulled",
            "Ergebnis: gestrichen",
            "Result: void",
        ] {
            assert_eq!(
                read_content(line).director,
                vec![DirectorCommand::SetResult("annulled".into())],
                "{line}"
            );
        }
    }

    #[test]
    fn s23_the_question_is_every_line_after_the_colon() {
        let c = read_content(
            "Rückfrage an anna@x.de: Sie haben seit sechs Wochen nicht gezogen.\nWollen Sie Ihre Partien fortsetzen?\n\nBitte antworten Sie bis Monatsende.\n\nMit freundlichen Grüßen\nTom Leiter",
        );
        assert_eq!(
            c.director,
            vec![DirectorCommand::Ask {
                player: "anna@x.de".into(),
                text: "Sie haben seit sechs Wochen nicht gezogen.\nWollen Sie Ihre Partien fortsetzen?\n\nBitte antworten Sie bis Monatsende.\n\nMit freundlichen Grüßen\nTom Leiter".into(),
            }]
        );
        // Nothing of the question is read as a request of the director's own.
        assert!(c.asks.is_empty() && !c.resign);
        // The text may begin on the next line; a command after it ends it.
        let c = read_content("ask anna@x.de:\nAre you still playing?\nNur Züge: FAX-2026-3/7");
        assert_eq!(
            c.director,
            vec![
                DirectorCommand::Ask {
                    player: "anna@x.de".into(),
                    text: "Are you still playing?".into(),
                },
                DirectorCommand::MovesOnly {
                    game: "FAX-2026-3/7".into(),
                    on: true
                },
            ]
        );
        let c = read_content("Rückfrage an anna@x.de:");
        assert_eq!(
            c.director,
            vec![DirectorCommand::Malformed("Rückfrage an anna@x.de:".into())]
        );
        // In a sentence: the rest of it and every line after it.
        let c = read_content(
            "Guten Tag,\n\nbitte fragen Sie anna@x.de, ob sie ihre Partien fortsetzen will. Sie hat seit sechs Wochen nicht gezogen.\n\nTom Leiter",
        );
        assert_eq!(
            c.director,
            vec![DirectorCommand::Ask {
                player: "anna@x.de".into(),
                text: "ob sie ihre Partien fortsetzen will. Sie hat seit sechs Wochen nicht gezogen.\n\nTom Leiter".into(),
            }]
        );
    }

    #[test]
    fn s29_an_appeal_line() {
        let c = read_content(
            "Einspruch: Die Wertung 0-1 ist falsch, mein Zug kam am 3.12. an.\n\nAnna Adler",
        );
        assert_eq!(
            c.appeal.as_deref(),
            Some("Die Wertung 0-1 ist falsch, mein Zug kam am 3.12. an.")
        );
        assert!(!c.message && c.bare_result.is_none() && c.received.is_none());
        let c = read_content("appeal: I did not exceed the time.");
        assert_eq!(c.appeal.as_deref(), Some("I did not exceed the time."));
        let c = read_content(
            "Einspruch:\n\nIch habe am 3.12. gezogen.\nDer Zug ging verloren.\n\nGruß",
        );
        assert_eq!(
            c.appeal.as_deref(),
            Some("Ich habe am 3.12. gezogen.\nDer Zug ging verloren.")
        );
        // A word about an appeal is no appeal.
        assert_eq!(
            read_content("Mein Einspruch von gestern ist erledigt.").appeal,
            None
        );
    }

    #[test]
    fn help_is_asked_and_never_a_message() {
        for t in [
            "Hilfe",
            "help please",
            "Hallo,\nHilfe!\nAnna",
            "Was war falsch?",
            "Hilfe, wie biete ich Remis an?",
        ] {
            let c = read_content(t);
            assert!(
                c.help && !c.message && !c.draw_offer && c.asks.is_empty(),
                "{t}: {c:?}"
            );
        }
        let c = read_content("Danke für die Hilfe!");
        assert!(!c.help && c.message);
    }

    #[test]
    fn s8_what_looks_like_a_move_is_asked_back_never_a_message() {
        for (text, line) in [
            ("Schöne Grüße\n2... Lxq\nAnna", "2... Lxq"),
            ("2... Lxq\n\nSchöne Grüße", "2... Lxq"),
            (
                "Hallo Bert,\nGlückwunsch zu Dxh7+!\nAnna",
                "Glückwunsch zu Dxh7+!",
            ),
            ("Was halten Sie von 13. f5?", "Was halten Sie von 13. f5?"),
            ("Lieber Bert,\nmein Zug ist Lxq.\nGruß", "mein Zug ist Lxq."),
        ] {
            let c = read_content(text);
            assert!(!c.message, "{text}");
            assert_eq!(c.doubts, vec![Doubt::Unreadable(line.into())], "{text}");
        }
        // Chess talk beside a move read is the writer's words.
        let c = read_content("13. Lg5\n\nIhr Sf6 war stark.");
        assert!(c.doubts.is_empty());
        assert_eq!(c.words, "Ihr Sf6 war stark.");
        // Words on the move's line go with the move.
        let c = read_content("13. Lg5 und herzliche Grüße");
        assert_eq!(c.moves, vec![w(13, "Lg5")]);
        assert_eq!(c.words, "und herzliche Grüße");
        // A number before words is no move: words.
        assert!(read_content("Schöne Grüße zum 2. Advent").message);
    }

    #[test]
    fn move_line_with_draw_offer() {
        let c = read_content("13. Lg5 Remis?");
        assert_eq!(c.moves, vec![w(13, "Lg5")]);
        assert!(c.draw_offer);
    }

    #[test]
    fn s30_the_writers_own_words_are_what_the_reader_did_not_read() {
        let cases: &[(&str, &str)] = &[
            (
                "1. e4\n\nLiebe Grüße aus Köln — und frohe Weihnachten!\nAnna",
                "Liebe Grüße aus Köln — und frohe Weihnachten!\nAnna",
            ),
            (
                "Lieber Bert, wollen wir uns auf Remis einigen? Gruß Anna\n1. e4 e5 2. Nf3",
                "Lieber Bert, Gruß Anna",
            ),
            ("12... Sf6\n13. Lb5\n\nIch biete Remis an.", ""),
            (
                "12... Sf6 13. Lb5\nErhalten: 01.12.2026\nAbgesandt: 02.12.2026\n\nIhr Springer auf f5 ist stark.\n\nViele Grüße",
                "Ihr Springer auf f5 ist stark.\n\nViele Grüße",
            ),
            (
                "Urlaub vom 20.12.2026 bis 03.01.2027.\nSchöne Feiertage!",
                "Schöne Feiertage!",
            ),
        ];
        for (text, words) in cases {
            assert_eq!(read_content(text).words, *words, "{text:?}");
        }
    }
}
