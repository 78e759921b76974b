//! Real replies that others collected (`tests/fixtures/replies/`: mailgun/talon, Apache-2.0;
//! github/email_reply_parser, MIT — their licenses are kept beside them), transplanted into a
//! game: the author's own text is a move (`X-Test-Expect`, English SAN), the quoted original holds
//! a decoy move. Every one must be played as its own move; a quote read as the author's text
//! plays the decoy or gets a query.
//!
//! `cargo test --test pure replies:: -- --nocapture` prints the figures per source.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use fernzug::letter::read_letter;
use serde_json::Value;

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

#[test]
fn replies_of_every_client_are_read_as_their_own_move() {
    let files = fixtures();
    assert!(files.len() >= 100, "{} reply fixtures", files.len());
    // Per source: (read right, queried, wrong move).
    let mut figures: BTreeMap<String, [u32; 3]> = BTreeMap::new();
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
        let got = outcome(&letter, &raw, &name);
        let slot = figures.entry(source.clone()).or_default();
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
    println!("| source | read right | queried | wrong move |");
    println!("|---|---|---|---|");
    for (s, [r, q, w]) in &figures {
        println!("| {s} | {r} | {q} | {w} |");
    }
    assert!(
        failures.is_empty(),
        "{} of {} replies not read as their own move:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
