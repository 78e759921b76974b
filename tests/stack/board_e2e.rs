//! End-to-end through the real loopback mail stack: a board a screen reader reads, and receipts
//! that carry the record (docs/contract.md "A board a screen reader reads", "Receipts carry the
//! record").
//!
//! Anna writes `Brett: Liste`; from then on her mails put what a blind player needs first (whose
//! move, the last move, check) and the position as piece lists, with no diagram and no HTML
//! board, while Bert's keep both. The text part is read aloud by espeak-ng (`-x`: the phonemes
//! it speaks, clause by clause): what it says first is the lead, the piece lists are said as
//! pieces and squares, and no line of a diagram is said at all. `scripts/test` installs
//! espeak-ng; under `CI=true` its absence fails the test, elsewhere that part is skipped with a
//! note. Every receipt names the game's seal, and `fernzug verify` run right after recomputes
//! the same hash.

use std::io::Write;
use std::process::{Command, Stdio};

use fernzug::lang::Lang;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color};

use crate::common::{Duel, body_text, header, next_of};

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether espeak-ng is installed; under `CI=true` its absence fails the test.
fn espeak() -> bool {
    let present = Command::new("espeak-ng")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !present {
        assert!(
            !in_ci(),
            "espeak-ng is missing although CI=true: scripts/test must install it"
        );
        eprintln!(
            "NOTE: espeak-ng is not installed; the spoken check is skipped (scripts/test installs it)"
        );
    }
    present
}

/// What espeak-ng says for `text` with voice `voice`: its phonemes, a clause a line
/// (`espeak-ng -q -x`), without blank lines.
fn spoken(text: &str, voice: &str) -> String {
    let mut child = Command::new("espeak-ng")
        .args(["-v", voice, "-q", "-x", "--stdin"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("espeak-ng runs");
    child
        .stdin
        .take()
        .expect("its input")
        .write_all(text.as_bytes())
        .expect("text written");
    let out = child.wait_with_output().expect("espeak-ng ends");
    assert!(out.status.success(), "espeak-ng failed on {text:?}");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A line of the text diagram in `text`, if there is one: a rank (`8 t s l d k l s t 8`) or the
/// files (`  a b c d e f g h`).
fn diagram_line(text: &str) -> Option<&str> {
    text.lines().find(|l| {
        let cells: Vec<&str> = l.split_whitespace().collect();
        (cells.len() == 10 && cells[0] == cells[9] && cells[1..9].iter().all(|c| c.len() == 1))
            || cells == ["a", "b", "c", "d", "e", "f", "g", "h"]
            || cells == ["h", "g", "f", "e", "d", "c", "b", "a"]
    })
}

/// Whether `raw` has an HTML part (the board as a picture).
fn has_html(raw: &[u8]) -> bool {
    mail_parser::MessageParser::default()
        .parse(raw)
        .is_some_and(|m| m.html_body_count() > 0 && m.html_body != m.text_body)
}

/// The seal a receipt names: the line of 64 hex digits under "Prüfsumme … nach Ihrem Zug" /
/// "Hash … after your move".
fn seal_of(text: &str) -> String {
    text.lines()
        .map(str::trim)
        .find(|l| l.len() == 64 && l.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_else(|| panic!("the receipt names no seal:\n{text}"))
        .to_string()
}

/// A mail to a reader of piece lists, as he hears it: the text says first whose move it is and
/// the last move (`lead`), then the position as lists (`white`, the line of White's pieces),
/// with no diagram and no HTML board; spoken by espeak-ng (when `speak`), the lead is the first
/// thing said, the list is said after it, and none of the lines of the position's diagram is.
fn heard_as_lists(raw: &[u8], lead: &str, white: &str, speak: bool) {
    let text = body_text(raw).replace("\r\n", "\n");
    assert!(!has_html(raw), "no HTML board for a reader of piece lists");
    assert_eq!(diagram_line(&text), None, "{text}");
    assert!(text.starts_with(&format!("{lead}\n\n")), "{text}");
    let lists = text
        .find(&format!("\n  {white}\n"))
        .unwrap_or_else(|| panic!("{white:?} in:\n{text}"));
    assert!(text[lists..].contains(" am Zug.\n"), "{text}");
    if !speak {
        return;
    }
    let all = spoken(&text, "de");
    let said_lead = spoken(lead, "de");
    let said_white = spoken(white, "de");
    assert!(
        all.starts_with(&said_lead),
        "the lead is said first:\n{said_lead}\n--- all:\n{all}"
    );
    let at = all
        .find(&said_white)
        .unwrap_or_else(|| panic!("White's pieces are said:\n{said_white}\n--- all:\n{all}"));
    assert!(at > said_lead.len(), "{all}");
    // Nothing of the diagram of this position is said (a rank of it is a row of letters).
    let fen = header(raw, "X-Fernzug-FEN").expect("the position");
    let position: Chess = fen
        .parse::<Fen>()
        .expect("a FEN")
        .into_position(CastlingMode::Standard)
        .expect("a position");
    let diagram = fernzug::notation::diagram(&position, Color::White, Lang::De);
    for line in diagram.lines().filter(|l| l.starts_with(['1', '8'])) {
        let said = spoken(line, "de");
        assert!(
            !all.contains(&said),
            "a rank of the diagram is said ({line:?}):\n{all}"
        );
    }
}

#[test]
fn after_brett_liste_annas_mails_read_as_piece_lists_and_each_receipts_seal_is_verifys() {
    let d = Duel::new(
        "board_e2e",
        "fax",
        ("Anna Adler", Some("de")),
        ("Bert Berger", Some("en")),
    );
    let speak = espeak();
    d.relay.send(&d.anna, "Brett: Liste", "Brett: Liste");
    d.relay.once("2026-11-30T18:00:00+01:00");
    let status = body_text(&next_of(&d.anna, "status", 0));
    assert!(status.contains("als Liste der Figuren"), "{status}");

    // Each move: the mover's receipt names the seal `verify` recomputes right after; Anna's
    // mails are lists, Bert's the diagram and the board.
    let plies = [
        (&d.anna, "1. e4", "2026-12-01T10:00:00+01:00"),
        (&d.bert, "1. e4 e5", "2026-12-02T10:00:00+01:00"),
        (&d.anna, "1... e5\n2. Sf3", "2026-12-03T10:00:00+01:00"),
        (&d.bert, "2. Nf3 Nc6", "2026-12-04T10:00:00+01:00"),
        (&d.anna, "2... Sc6\n3. Lc4", "2026-12-05T10:00:00+01:00"),
        (&d.bert, "3. Bc4 Bc5", "2026-12-06T10:00:00+01:00"),
        (&d.anna, "3... Lc5\n4. O-O", "2026-12-07T10:00:00+01:00"),
        (&d.bert, "4. O-O Nf6", "2026-12-08T10:00:00+01:00"),
    ];
    let mut receipts = [0, 0];
    for (i, (from, body, now)) in plies.into_iter().enumerate() {
        let anna_moved = *from == d.anna;
        d.play(from, body, now);
        let receipt = next_of(from, "receipt", receipts[i % 2]);
        receipts[i % 2] += 1;
        let text = body_text(&receipt);
        let verified = d.relay.run_ok(&["verify", &d.game]);
        assert!(
            verified.starts_with("ok ") && verified.trim_end().ends_with(&seal_of(&text)),
            "ply {}: the receipt's seal is verify's: {verified}\n{text}",
            i + 1
        );
        let (partner, forward) = if anna_moved {
            (&d.bert, next_of(&d.bert, "move", i / 2))
        } else {
            (&d.anna, next_of(&d.anna, "move", i / 2))
        };
        let (lists, diagram) = if anna_moved {
            (&receipt, &forward)
        } else {
            (&forward, &receipt)
        };
        assert!(
            has_html(diagram) && diagram_line(&body_text(diagram)).is_some(),
            "{partner}: Bert reads the diagram"
        );
        let text = body_text(lists);
        assert!(!has_html(lists) && diagram_line(&text).is_none(), "{text}");
        assert!(
            text.contains("\n  Weiß: K"),
            "Anna reads piece lists:\n{text}"
        );
    }

    // After 4. O-O (her receipt) and 4... Nf6 (her move): `Weiß: Kg1, …`, heard in order.
    let white = "Weiß: Kg1, Dd1, Ta1, Tf1, Lc1, Lc4, Sb1, Sf3, a2, b2, c2, d2, e4, f2, g2, h2.";
    heard_as_lists(
        &next_of(&d.anna, "receipt", 3),
        "Bert Berger ist am Zug (Schwarz). Letzter Zug: 4. O-O.",
        white,
        speak,
    );
    heard_as_lists(
        &next_of(&d.anna, "move", 3),
        "Sie sind am Zug. Letzter Zug: 4... Sf6.",
        white,
        speak,
    );

    // Check, said in words first: 5. Lxf7+.
    d.play(&d.anna, "4... Sf6\n5. Lxf7+", "2026-12-09T10:00:00+01:00");
    d.play(&d.bert, "5. Bxf7+ Kxf7", "2026-12-10T10:00:00+01:00");
    let receipt = next_of(&d.anna, "receipt", 4);
    let text = body_text(&receipt).replace("\r\n", "\n");
    assert!(
        text.starts_with("Bert Berger ist am Zug (Schwarz). Letzter Zug: 5. Lxf7, Schach.\n"),
        "{text}"
    );
    heard_as_lists(
        &next_of(&d.anna, "move", 4),
        "Sie sind am Zug. Letzter Zug: 5... Kxf7.",
        "Weiß: Kg1, Dd1, Ta1, Tf1, Lc1, Sb1, Sf3, a2, b2, c2, d2, e4, f2, g2, h2.",
        speak,
    );
    let verified = d.relay.run_ok(&["verify", &d.game]);
    let bert_receipt = body_text(&next_of(&d.bert, "receipt", 4));
    assert!(
        verified.trim_end().ends_with(&seal_of(&bert_receipt)),
        "{verified}\n{bert_receipt}"
    );

    // `Brett: Diagramm` brings the diagram and the board back.
    d.relay.send(&d.anna, "Brett: Diagramm", "Brett: Diagramm");
    d.relay.once("2026-12-10T18:00:00+01:00");
    let status = body_text(&next_of(&d.anna, "status", 1));
    assert!(status.contains("wieder als Diagramm"), "{status}");
    d.play(&d.anna, "5... Kxf7\n6. d3", "2026-12-11T10:00:00+01:00");
    let receipt = next_of(&d.anna, "receipt", 5);
    let text = body_text(&receipt);
    assert!(
        has_html(&receipt) && diagram_line(&text).is_some(),
        "{text}"
    );
    assert!(
        !text.contains("Weiß: K") && !text.contains("Letzter Zug:"),
        "{text}"
    );
    let verified = d.relay.run_ok(&["verify", &d.game]);
    assert!(verified.trim_end().ends_with(&seal_of(&text)), "{verified}");
}
