//! The request corpus `tests/fixtures/phrases/` (its README gives the format): every block is
//! read as a player's mail through the whole letter reader, and what it says must be exactly the
//! block's reading. Also: no sentence with a request word goes unread (acted on, queried, or
//! declined for a reason) — the silent fourth outcome must be impossible.
//!
//! `cargo test --test pure phrases:: -- --nocapture` prints the figures per request kind.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use fernzug::letter::content::prose_units;
use fernzug::letter::requests::{Family, Reading, read_units, tokens};
use fernzug::letter::{DirectorCommand, Doubt, Letter, StatedDate, read_letter};
use shakmaty::Color;

struct Block {
    file: String,
    subject: Option<String>,
    body: String,
    expected: Vec<String>,
}

fn blocks() -> Vec<Block> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/phrases");
    let mut files: Vec<_> = fs::read_dir(&dir)
        .expect("tests/fixtures/phrases exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for path in files {
        let file = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = fs::read_to_string(&path).unwrap();
        let mut lines: Vec<&str> = Vec::new();
        for line in text.lines() {
            if let Some(reading) = line.strip_prefix("=> ") {
                let mut body: Vec<&str> = std::mem::take(&mut lines);
                while body.first().is_some_and(|l| l.trim().is_empty()) {
                    body.remove(0);
                }
                let subject = body
                    .first()
                    .and_then(|l| l.strip_prefix("Subject: "))
                    .map(str::to_string);
                if subject.is_some() {
                    body.remove(0);
                }
                let mut expected: Vec<String> = reading
                    .split(" ; ")
                    .map(|s| s.trim().to_string())
                    .filter(|s| s != "none")
                    .collect();
                expected.sort();
                out.push(Block {
                    file: file.clone(),
                    subject,
                    body: body.join("\n").trim().to_string(),
                    expected,
                });
            } else if line.starts_with('#') && lines.iter().all(|l| l.trim().is_empty()) {
                continue;
            } else {
                lines.push(line);
            }
        }
        assert!(
            lines.iter().all(|l| l.trim().is_empty()),
            "{file}: text after the last reading"
        );
    }
    out
}

fn mail(b: &Block) -> Vec<u8> {
    let subject = b
        .subject
        .clone()
        .unwrap_or_else(|| "Re: [FAX-2026-3/7] Adler – Berger".into());
    format!(
        "From: Anna Adler <anna@fernschach.test>\r\nTo: relay+a3m9x@fernschach.test\r\nSubject: {subject}\r\nMessage-ID: <phrase@fernschach.test>\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{}\r\n",
        b.body.replace('\n', "\r\n")
    )
    .into_bytes()
}

fn date(d: &StatedDate) -> String {
    match d.year {
        Some(y) => format!("{}.{}.{y}", d.day, d.month),
        None => format!("{}.{}.", d.day, d.month),
    }
}

/// `01.02.2027-14.02.2027` → `1.2.2027-14.2.2027`: the same dates, written one way.
fn normal_span(span: &str) -> String {
    span.split('-')
        .map(|d| {
            let parts: Vec<&str> = d.split('.').collect();
            let num = |s: &str| s.trim_start_matches('0').to_string();
            match parts.as_slice() {
                [day, month, year] if !year.is_empty() => {
                    format!("{}.{}.{year}", num(day), num(month))
                }
                [day, month, ..] => format!("{}.{}.", num(day), num(month)),
                _ => d.to_string(),
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

fn normal(item: &str) -> String {
    let item = item.split_whitespace().collect::<Vec<_>>().join(" ");
    for kind in ["leave ", "withdraw-leave "] {
        if let Some(span) = item.strip_prefix(kind) {
            return format!("{kind}{}", normal_span(span));
        }
    }
    for kind in ["special-leave ", "late-leave "] {
        if let Some(rest) = item.strip_prefix(&format!("director {kind}")) {
            let (span, who) = rest.split_once(' ').unwrap_or((rest, ""));
            return format!("director {kind}{} {who}", normal_span(span));
        }
    }
    item
}

fn token(number: u32, color: Color, text: &str) -> String {
    let dots = if color == Color::White { "." } else { "..." };
    format!("{number}{dots}{}", text.replace(' ', ""))
}

/// The reading of a letter, in the corpus' items.
fn items(l: &Letter) -> Vec<String> {
    let c = &l.content;
    let mut out: Vec<String> = Vec::new();
    for m in &c.moves {
        out.push(format!("move {}", token(m.number, m.color, &m.text)));
    }
    for line in &c.conditional {
        let ms: Vec<String> = line
            .iter()
            .map(|m| token(m.number, m.color, &m.text))
            .collect();
        out.push(format!("if {}", ms.join(" ")));
    }
    for (flag, name) in [
        (c.draw_offer, "offer"),
        (c.draw_accept, "accept"),
        (c.claim_repetition, "claim"),
        (c.resign, "resign"),
        (c.announce_long_think, "announce"),
        (c.take_back, "take-back"),
        (c.status_request, "status"),
        (c.bare_result.is_some(), "bare"),
    ] {
        if flag {
            out.push(name.into());
        }
    }
    if let Some(span) = c.leave {
        out.push(format!("leave {}-{}", date(&span.from), date(&span.to)));
    }
    if let Some(w) = c.withdraw_leave {
        out.push(match w.span {
            Some(span) => format!("withdraw-leave {}-{}", date(&span.from), date(&span.to)),
            None => "withdraw-leave".into(),
        });
    }
    match c.warnings {
        Some(true) => out.push("warnings-on".into()),
        Some(false) => out.push("warnings-off".into()),
        None => {}
    }
    if c.message {
        out.push("message".into());
    }
    if c.help {
        out.push("help".into());
    }
    if let Some(text) = &c.appeal {
        out.push(format!("appeal {text}"));
    }
    for d in &c.doubts {
        out.push(match d {
            Doubt::Unreadable(_) => "unreadable".into(),
            Doubt::StruckOut(_) => "struck-out".into(),
        });
    }
    for a in &c.asks {
        let kind = serde_json::to_value(a.kind).unwrap();
        out.push(format!("ask {}", kind.as_str().unwrap()));
    }
    for d in &c.director {
        out.push(match d {
            DirectorCommand::ConfirmForfeit => "director confirm-forfeit".into(),
            DirectorCommand::Resume => "director resume".into(),
            DirectorCommand::SetResult(r) => format!("director result {r}"),
            DirectorCommand::SpecialLeave { span, player } => format!(
                "director special-leave {}-{} {player}",
                date(&span.from),
                date(&span.to)
            ),
            DirectorCommand::AcceptLateLeave { span, player } => format!(
                "director late-leave {}-{} {player}",
                date(&span.from),
                date(&span.to)
            ),
            DirectorCommand::AdjustTime { days, player, .. } => {
                format!("director time {days:+} {player}")
            }
            DirectorCommand::Address {
                player,
                address,
                change,
            } => {
                let verb = if *change { "address" } else { "also" };
                format!("director {verb} {player} {address}")
            }
            DirectorCommand::MovesOnly { game, on: true } => format!("director moves-only {game}"),
            DirectorCommand::MovesOnly { game, .. } => format!("director moves-only-off {game}"),
            DirectorCommand::Correspondence { game } => format!("director correspondence {game}"),
            DirectorCommand::Pgn { target } => format!("director pgn {target}"),
            DirectorCommand::Verify { game } => format!("director verify {game}"),
            DirectorCommand::Withdraw {
                player,
                annulled: false,
            } => format!("director withdraw {player} lost"),
            DirectorCommand::Withdraw { player, .. } => {
                format!("director withdraw {player} annulled")
            }
            DirectorCommand::Ask { player, .. } => format!("director ask {player}"),
            DirectorCommand::Warn { player, .. } => format!("director warn {player}"),
            DirectorCommand::ThroughDirector { game, on: true } => {
                format!("director through-tl {game}")
            }
            DirectorCommand::ThroughDirector { game, .. } => {
                format!("director through-tl-off {game}")
            }
            DirectorCommand::Malformed(_) => "director malformed".into(),
        });
    }
    out.dedup();
    let mut out: Vec<String> = out.iter().map(|i| normal(i)).collect();
    out.sort();
    out
}

/// The words that carry a request, independent of the grammar that reads them: a sentence with
/// one must get a reading of that kind (acted on, queried, or declined with a reason).
fn request_words(word: &str) -> Option<&'static str> {
    let w = word;
    Some(
        if w.starts_with("remis") || w == "unentschieden" || w == "draw" || w == "drawn" {
            "draw"
        } else if w.starts_with("aufgeb")
            || w.starts_with("aufgegeb")
            || w.starts_with("aufzugeb")
            || w.starts_with("resign")
            || w.starts_with("kapitul")
        {
            "resign"
        } else if w.starts_with("urlaub")
            || w == "ferien"
            || w.starts_with("abwesenheit")
            || w == "leave"
            || w.starts_with("vacation")
            || w.starts_with("holiday")
        {
            "leave"
        } else if w.ends_with("wiederholung") || w == "threefold" || w == "repetition" {
            // A claim is a draw (FIDE 9.2): the draw family.
            "draw"
        } else if w.starts_with("zuruecknehm") || w.starts_with("zurueckzieh") {
            "take-back"
        } else if w.starts_with("ankuendig") {
            "announce"
        } else if w == "status" {
            "status"
        } else {
            return None;
        },
    )
}

fn kind_family(r: &Reading) -> &'static str {
    match r.family() {
        None => "director",
        Some(Family::Draw) => "draw",
        Some(Family::Resign) => "resign",
        Some(Family::Leave) => "leave",
        Some(Family::Announce) => "announce",
        Some(Family::TakeBack) => "take-back",
        Some(Family::Status) => "status",
        Some(Family::Desk) => "director",
    }
}

#[test]
fn phrases_read_as_expected_and_none_silently() {
    let blocks = blocks();
    assert!(
        blocks.len() >= 400,
        "the corpus has {} blocks, at least 400 wanted",
        blocks.len()
    );
    // Per request kind: (understood, queried, message, left alone rightly, wrong).
    let mut figures: BTreeMap<String, [u32; 5]> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut silent = Vec::new();
    for b in &blocks {
        let letter = read_letter(&mail(b)).expect("the block reads as a mail");
        let got = items(&letter);
        let want: Vec<String> = {
            let mut w: Vec<String> = b.expected.iter().map(|i| normal(i)).collect();
            w.sort();
            w
        };
        let kind = b.file.clone();
        let slot = figures.entry(kind).or_default();
        if got == want {
            if want.iter().any(|i| i.starts_with("ask ")) {
                slot[1] += 1;
            } else if want.iter().any(|i| i == "message") {
                slot[2] += 1;
            } else if want.iter().all(|i| i.starts_with("move ")) {
                slot[3] += 1;
            } else {
                slot[0] += 1;
            }
        } else {
            slot[4] += 1;
            let body: Vec<String> = b.body.lines().map(|l| format!("    | {l}")).collect();
            wrong.push(format!(
                "{}{}:\n{}\n    want {want:?}\n    got  {got:?}",
                b.file,
                b.subject
                    .as_deref()
                    .map(|s| format!(" (Subject: {s})"))
                    .unwrap_or_default(),
                body.join("\n")
            ));
        }
        // The silent fourth outcome: a sentence with a request word that no rule read.
        let prose = prose_units(&letter.text);
        let reads = read_units(&prose);
        for s in prose.iter().flat_map(|u| tokens::sentences(u)) {
            let families: Vec<&str> = s.words().filter_map(|(_, w)| request_words(w)).collect();
            for family in families {
                let text = s.text.trim();
                // A take-back reads what it takes back (`ich ziehe mein Remisangebot zurück`).
                let read = reads.iter().any(|r| {
                    text.ends_with(r.sentence.as_str())
                        && [family, "director", "take-back"].contains(&kind_family(&r.reading))
                });
                if !read {
                    silent.push(format!("{}: {family} in {text:?}", b.file));
                }
            }
        }
    }
    println!(
        "\nrequest corpus tests/fixtures/phrases/: {} blocks",
        blocks.len()
    );
    println!("| file | understood | queried | message | left alone | wrong |");
    println!("|---|---|---|---|---|---|");
    for (k, [u, q, m, n, w]) in &figures {
        println!("| {k} | {u} | {q} | {m} | {n} | {w} |");
    }
    assert!(
        wrong.is_empty(),
        "{} of {} blocks read wrong:\n{}",
        wrong.len(),
        blocks.len(),
        wrong.join("\n")
    );
    assert!(
        silent.is_empty(),
        "request words read by no rule:\n{}",
        silent.join("\n")
    );
}
