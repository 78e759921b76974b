//! Snapshot test of the letter reader: every `tests/fixtures/mail/NAME.eml` is read
//! with `fernzug::letter::read_letter` and compared with `NAME.expected.json` (the
//! whole `Letter`, `text` included). Run with `UPDATE_SNAPSHOTS=1` to rewrite the
//! expectations — then check every changed file by hand before keeping it.

use std::fs;
use std::path::{Path, PathBuf};

use fernzug::letter::read_letter;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mail")
}

#[test]
fn mail_fixtures_read_as_expected() {
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    let mut emls: Vec<PathBuf> = fs::read_dir(fixture_dir())
        .expect("fixture folder tests/fixtures/mail exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    emls.sort();
    assert!(
        emls.len() >= 25,
        "expected at least 25 fixtures, found {}",
        emls.len()
    );
    let mut failures = Vec::new();
    for eml in &emls {
        let name = eml
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("?")
            .to_string();
        let raw = fs::read(eml).expect("fixture is readable");
        let got = match read_letter(&raw) {
            Ok(letter) => serde_json::to_value(&letter).expect("a Letter serialises"),
            Err(e) => serde_json::json!({ "error": e.to_string() }),
        };
        let expected_path = eml.with_file_name(format!("{name}.expected.json"));
        if update {
            let pretty = serde_json::to_string_pretty(&got).expect("json prints") + "\n";
            fs::write(&expected_path, pretty).expect("expectation is writable");
            continue;
        }
        let Ok(text) = fs::read_to_string(&expected_path) else {
            failures.push(format!(
                "{name}: no {name}.expected.json (run with UPDATE_SNAPSHOTS=1)"
            ));
            continue;
        };
        let want: serde_json::Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: {name}.expected.json is not JSON: {e}"));
                continue;
            }
        };
        if got != want {
            failures.push(format!(
                "{name}: reading differs\n--- expected\n{}\n--- got\n{}",
                serde_json::to_string_pretty(&want).unwrap_or_default(),
                serde_json::to_string_pretty(&got).unwrap_or_default()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} fixture(s) differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
