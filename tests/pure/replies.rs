//! Real replies that others collected (`tests/fixtures/replies/`: mailgun/talon, Apache-2.0;
//! github/email_reply_parser, MIT — their licenses are kept beside them), transplanted into a
//! game, and replies written for fernzug in the shape of each client and locale
//! (`clients/`, `clients-holdout/`): the author's own text is a move (`X-Test-Expect`, English
//! SAN), the quoted original holds a decoy move. Every one must be played as its own move; a
//! quote read as the author's text plays the decoy or gets a query.
//!
//! Where a folder has a `words.tsv`, the forwarded words are checked too (TO §30: what the
//! partner reads beside the move): the letter's `content.words` holds every line of the
//! player's own words, and no line of the quoted original — not the decoy, not the relay's text
//! it quotes, not the attribution line or header block, nothing that names the relay.
//!
//! `cargo test --test pure replies:: -- --nocapture` prints the figures per source.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use fernzug::letter::{Letter, MoveToken, read_letter};
use serde_json::Value;
use shakmaty::Color;

use crate::letter_fixtures::{outcome, test_headers};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/replies");
    let mut out = Vec::new();
    for source in fs::read_dir(&dir).expect("tests/fixtures/replies exists") {
        let source = source.unwrap().path();
        if !source.is_dir() {
            continue;
        }
        for f in fs::read_dir(&source).unwrap() {
            let p = f.unwrap().path();
            if p.extension().is_some_and(|x| x == "eml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The letter as the core gets it, with the partner's last move (`X-Test-Position`'s last, in
/// English SAN) put before the own move when the writer did not repeat it. The replies written
/// for fernzug (`clients/`, `clients-holdout/`) put the own move alone on its line, as most
/// replies do; TO §2's repetition is the core's rule, tested on its own (`s2_*`), and this test
/// asks only what the reader read: the own move and nothing of the quote. A reader that reads
/// the decoy still plays it or is queried for too many moves; one that reads nothing is queried.
fn with_repetition(letter: &Letter, raw: &[u8]) -> Letter {
    let position = test_headers(raw)
        .get("x-test-position")
        .cloned()
        .unwrap_or_default();
    let plies: Vec<&str> = position
        .split_whitespace()
        .map(|t| t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        .filter(|t| !t.is_empty())
        .collect();
    let Some(last) = plies.len().checked_sub(1) else {
        return letter.clone();
    };
    let number = (last / 2 + 1) as u32;
    let color = if last % 2 == 0 {
        Color::White
    } else {
        Color::Black
    };
    let mut letter = letter.clone();
    let moves = &mut letter.content.moves;
    let own_first = moves
        .first()
        .is_some_and(|m| m.color != color || m.number != number);
    if own_first {
        moves.insert(
            0,
            MoveToken {
                number,
                color,
                text: plies[last].to_string(),
            },
        );
    }
    letter
}

/// One row of a folder's `words.tsv`: what the player wrote besides his move, and the quote.
struct Words {
    /// The player's own words other than the move, line by line: all must reach the partner.
    own: Vec<String>,
    /// The quoted original's lines that could leak: the decoy move, the attribution line or
    /// header block (its pieces); none may reach the partner.
    quoted: Vec<String>,
    /// A lead-in line before the move (`Hier mein Zug:`): the move's label, not forwarded.
    lead_in: Option<String>,
}

/// The relay's own text that every fixture quotes below the decoy (German and English): none of
/// it may reach the partner.
const RELAY_TEXT: &[&str] = &[
    "Guten Tag Bert Berger,",
    "Guten Tag Anna Adler,",
    "Anna Adler hat in der Partie FAX-2026-3/7 gezogen.",
    "Bert Berger hat in der Partie FAX-2026-3/7 gezogen.",
    "Sie sind am Zug.",
    "Dear Bert Berger,",
    "Dear Anna Adler,",
    "Anna Adler has moved in game FAX-2026-3/7.",
    "Bert Berger has moved in game FAX-2026-3/7.",
    "It is your move.",
];

/// What names the relay or the game, which only the quoted original holds.
const QUOTE_ONLY: &[&str] = &["Fernschach-Relais", "relay@fernschach.test", "FAX-2026-3/7"];

/// The `words.tsv` of a folder, by file name (its columns: `file`, `own_words` with `\n`
/// between lines, `lead_in`, `client_footer`, `move_line`, `decoy`, `attribution` with ` / `
/// between lines).
fn words_of(folder: &Path) -> BTreeMap<String, Words> {
    let Ok(text) = fs::read_to_string(folder.join("words.tsv")) else {
        return BTreeMap::new();
    };
    let mut out = BTreeMap::new();
    for row in text.lines().skip(1) {
        let cols: Vec<&str> = row.split('\t').collect();
        let col = |i: usize| cols.get(i).copied().unwrap_or("").trim();
        let own = col(1)
            .split("\\n")
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect();
        let mut quoted = vec![col(5).to_string()];
        quoted.extend(
            col(6)
                .split(" / ")
                .map(str::trim)
                .filter(|p| p.chars().filter(|c| c.is_alphanumeric()).count() >= 4)
                .filter(|p| !p.contains('{'))
                .map(str::to_string),
        );
        out.insert(
            col(0).to_string(),
            Words {
                own,
                quoted,
                lead_in: Some(col(2).to_string()).filter(|l| !l.is_empty()),
            },
        );
    }
    out
}

/// What is wrong with the forwarded `words` of a fixture: own lines lost, quoted lines leaked.
fn words_faults(words: &str, want: &Words) -> (Vec<String>, Vec<String>) {
    let lines: Vec<&str> = words.lines().map(str::trim).collect();
    let lost: Vec<String> = want
        .own
        .iter()
        .filter(|own| !lines.contains(&own.as_str()))
        .cloned()
        .collect();
    let mut leaked: Vec<String> = Vec::new();
    for line in &lines {
        let quoted = want
            .quoted
            .iter()
            .map(String::as_str)
            .chain(RELAY_TEXT.iter().copied())
            .any(|q| line.contains(q) || q.contains(line) && line.chars().count() >= 8)
            || QUOTE_ONLY.iter().any(|q| line.contains(q))
            || want.lead_in.as_deref() == Some(*line);
        if quoted && !want.own.iter().any(|o| o == line) {
            leaked.push((*line).to_string());
        }
    }
    (lost, leaked)
}

#[test]
fn replies_of_every_client_are_read_as_their_own_move() {
    let files = fixtures();
    assert!(files.len() >= 170, "{} reply fixtures", files.len());
    // Per source: (read right, queried, wrong move, words leaked, words lost).
    let mut figures: BTreeMap<String, [u32; 5]> = BTreeMap::new();
    let mut tables: BTreeMap<String, BTreeMap<String, Words>> = BTreeMap::new();
    let mut failures = Vec::new();
    for path in &files {
        let source = path
            .parent()
            .and_then(Path::file_name)
            .unwrap()
            .to_string_lossy()
            .to_string();
        let name = path.file_stem().unwrap().to_string_lossy().to_string();
        let raw = fs::read(path).unwrap();
        let expect = test_headers(&raw)
            .get("x-test-expect")
            .cloned()
            .unwrap_or_else(|| panic!("{name}: no X-Test-Expect"));
        let letter = read_letter(&raw).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = outcome(&with_repetition(&letter, &raw), &raw, &name);
        let table = tables
            .entry(source.clone())
            .or_insert_with(|| words_of(path.parent().unwrap()));
        let slot = figures.entry(source.clone()).or_default();
        if let Some(want) = table.get(&format!("{name}.eml")) {
            let (lost, leaked) = words_faults(&letter.content.words, want);
            if !leaked.is_empty() {
                slot[3] += 1;
                failures.push(format!(
                    "{source}/{name}: the quote leaks into the words: {leaked:?}\n    words: {:?}",
                    letter.content.words
                ));
            }
            if !lost.is_empty() {
                slot[4] += 1;
                failures.push(format!(
                    "{source}/{name}: own words lost: {lost:?}\n    words: {:?}",
                    letter.content.words
                ));
            }
        } else if !table.is_empty() {
            failures.push(format!("{source}/{name}: no row in words.tsv"));
        }
        match got.get("played").and_then(Value::as_str) {
            Some(mv) if mv == expect => slot[0] += 1,
            Some(mv) => {
                slot[2] += 1;
                failures.push(format!("{source}/{name}: played {mv}, not {expect}"));
            }
            None => {
                slot[1] += 1;
                failures.push(format!(
                    "{source}/{name}: {got}\n    own text read: {:?}",
                    letter.text
                ));
            }
        }
    }
    println!(
        "\nreal replies tests/fixtures/replies/: {} mails",
        files.len()
    );
    println!("| source | read right | queried | wrong move | words leaked | words lost |");
    println!("|---|---|---|---|---|---|");
    for (s, [r, q, w, leaked, lost]) in &figures {
        let (leaked, lost) = if tables.get(s).is_some_and(|t| !t.is_empty()) {
            (leaked.to_string(), lost.to_string())
        } else {
            ("–".to_string(), "–".to_string())
        };
        println!("| {s} | {r} | {q} | {w} | {leaked} | {lost} |");
    }
    assert!(
        failures.is_empty(),
        "{} faults in {} replies (a move not read as their own, words leaked or lost):\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
