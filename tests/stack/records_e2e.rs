//! End-to-end through the real loopback mail stack: the records of a game — the `game-end` report
//! with its PGN (TO §27, §28), `export pgn`, `export mbox` (TO §11), the `Status` answer and the
//! crosstable of `fernzug status TOURNAMENT`.
//!
//! The PGN is read by python-chess and by `pgn-extract`, the mbox by Python's `mailbox` module and
//! (where installed) opened by mutt. `scripts/test` installs python-chess and pgn-extract; under
//! `CI=true` a missing one fails the test, elsewhere that part is skipped with a note.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::common::{
    Duel, Relay, attachments, body_text, fetch_all, header, send_text, unique_addr, wait_for,
};

const WAIT: Duration = Duration::from_secs(20);

/// The position after `1. f3 e5 2. g4 Qh4#`.
const FOOLS_MATE_FEN: &str = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Whether a tool is there; under `CI=true` its absence fails the test.
fn available(tool: &str, present: bool) -> bool {
    if present {
        return true;
    }
    assert!(
        !in_ci(),
        "{tool} is missing although CI=true: scripts/test must install it"
    );
    eprintln!(
        "NOTE: {tool} is not installed; this part of the test is skipped (scripts/test installs it)"
    );
    false
}

fn python_chess() -> bool {
    available(
        "python-chess (pip install chess)",
        Command::new("python3")
            .args(["-c", "import chess.pgn"])
            .output()
            .is_ok_and(|o| o.status.success()),
    )
}

/// `pgn-extract` on the PATH or where Debian puts it.
fn pgn_extract() -> Option<PathBuf> {
    let found = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/games")])
        .map(|d| d.join("pgn-extract"))
        .find(|p| p.is_file());
    available("pgn-extract (Debian package pgn-extract)", found.is_some()).then(|| found.unwrap())
}

fn python(script: &str, arg: &Path) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(arg)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "python3 failed on {}:\n{}{}",
        arg.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Reads every game of a PGN file with python-chess; fails on any error it reports.
const READ_PGN: &str = r#"
import json, sys, chess.pgn
games = []
with open(sys.argv[1], encoding="utf-8") as f:
    while True:
        g = chess.pgn.read_game(f)
        if g is None:
            break
        if g.errors:
            sys.exit("python-chess errors: %r" % (g.errors,))
        b = g.end().board()
        games.append({
            "headers": dict(g.headers),
            "fen": b.fen(),
            "checkmate": b.is_checkmate(),
            "moves": [m.san() for m in g.mainline()],
            "comments": [n.comment for n in g.mainline()],
        })
print(json.dumps(games))
"#;

fn read_pgn_python(path: &Path) -> serde_json::Value {
    serde_json::from_str(&python(READ_PGN, path)).unwrap()
}

/// Runs pgn-extract on `path` (final FEN as a comment); asserts it reports nothing and returns its
/// output.
fn read_pgn_extract(tool: &Path, path: &Path, extra: &[&str]) -> String {
    let out = Command::new(tool)
        .arg("-s")
        .arg("-F")
        .args(extra)
        .arg(path)
        .output()
        .expect("pgn-extract runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.trim().is_empty(),
        "pgn-extract complained about {}:\n{stderr}",
        path.display()
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Reads an mbox with Python's `mailbox.mbox`; each message's From line and bytes with the mboxrd
/// quoting taken off (one `>` less before `>*From ` at a line start).
const READ_MBOX: &str = r#"
import base64, json, mailbox, re, sys
mb = mailbox.mbox(sys.argv[1], create=False)
out = []
for key in mb.iterkeys():
    raw = mb.get_bytes(key)
    raw = re.sub(rb"(?m)^>(>*From )", rb"\1", raw)
    out.append({"from": mb.get_message(key).get_from(), "raw": base64.b64encode(raw).decode()})
print(json.dumps(out))
"#;

fn b64decode(s: &str) -> Vec<u8> {
    let table = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes: Vec<u8> = s.bytes().filter(|c| *c != b'=').collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= table(*c) << (18 - 6 * i);
        }
        let k = chunk.len() - 1;
        for i in 0..k {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

/// Anna Adler against Bert Bärmann, both German, fax rules; start mails delivered.
fn duel(name: &str) -> Duel {
    Duel::new(
        name,
        "fax",
        ("Anna Adler", Some("de")),
        ("Bert Bärmann", Some("de")),
    )
}

#[test]
fn fools_mate_game_end_pgn_exports_and_mbox_byte_for_byte() {
    let d = duel("records-mate");
    let (anna, bert) = (d.anna.clone(), d.bert.clone());
    d.play(&anna, "1. f3", "2026-12-01T10:00:00+01:00");
    d.play(&bert, "1. f3\n1... e5", "2026-12-02T11:30:00+01:00");
    d.play(&anna, "1... e5\n2. g4", "2026-12-04T09:15:00+01:00");
    // The signature's `From ` line must come back from the mbox unchanged (mboxrd quoting).
    d.play(
        &bert,
        "2. g4\n2... Dh4#\n\n-- \nFrom Hamburg with love\n>From the other side\nBert",
        "2026-12-04T20:00:00+01:00",
    );
    // start + 2 moves + 2 receipts + game-end for each player; TL gets one game-end.
    let anna_box = wait_for(&anna, 6, WAIT);
    let bert_box = wait_for(&bert, 6, WAIT);
    let tl_box = wait_for(&d.director, 1, WAIT);
    for (who, inbox) in [("anna", &anna_box), ("bert", &bert_box)] {
        let kinds: Vec<String> = inbox
            .iter()
            .map(|m| header(m, "X-Fernzug-Kind").unwrap_or_default())
            .collect();
        assert_eq!(
            kinds.iter().filter(|k| *k == "game-end").count(),
            1,
            "{who}: {kinds:?}"
        );
    }
    let end = tl_box
        .iter()
        .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("game-end"))
        .expect("TL gets the game-end report");
    assert_eq!(
        header(end, "X-Fernzug-Game").as_deref(),
        Some(d.game.as_str())
    );
    assert_eq!(
        header(end, "X-Fernzug-FEN").as_deref(),
        Some(FOOLS_MATE_FEN)
    );
    let text = body_text(end);
    assert!(text.contains("0-1 (Matt)"), "{text}");
    assert!(text.contains("Bedenkzeit Weiß:    2 Tage"), "{text}");
    let att = attachments(end);
    assert_eq!(att.len(), 1, "one attachment");
    let (name, pgn) = &att[0];
    let file = d.game.replace('/', "-") + ".pgn";
    assert_eq!(name.as_deref(), Some(file.as_str()));
    // Text travels with CRLF line ends in mail; the file the export writes has LF.
    let pgn = String::from_utf8(pgn.clone())
        .expect("PGN in UTF-8")
        .replace("\r\n", "\n");
    let pgn_path = d.relay.dir.join(&file);
    std::fs::write(&pgn_path, &pgn).unwrap();
    let event = format!("[Event \"fernzug e2e {}\"]", d.id);
    assert!(pgn.starts_with(&event), "{pgn}");
    for want in [
        format!("[Site \"Fernschach {} (fax)\"]", d.id),
        "[Round \"1\"]".into(),
        "[White \"Anna Adler\"]".into(),
        "[Black \"Bert Bärmann\"]".into(),
        "[Result \"0-1\"]".into(),
        "[%ccsnt 2026.12.04,20:00] days 0} {checkmate} 0-1".into(),
    ] {
        assert!(pgn.contains(&want), "missing {want} in\n{pgn}");
    }

    if python_chess() {
        let games = read_pgn_python(&pgn_path);
        let g = &games[0];
        assert_eq!(games.as_array().unwrap().len(), 1);
        assert_eq!(g["fen"], FOOLS_MATE_FEN);
        assert_eq!(g["checkmate"], true);
        assert_eq!(g["headers"]["Event"], format!("fernzug e2e {}", d.id));
        assert_eq!(g["headers"]["Round"], "1");
        assert_eq!(g["headers"]["Date"], "2026.12.01");
        assert_eq!(g["headers"]["Result"], "0-1");
        assert_eq!(g["moves"], serde_json::json!(["f3", "e5", "g4", "Qh4#"]));
        // The comments keep received, sent and the days of each move.
        let c = g["comments"][2].as_str().unwrap();
        assert!(
            c.contains("[%ccrt 2026.12.02,11:30] [%ccsnt 2026.12.04,09:15] days 2"),
            "{c}"
        );
    }
    let extract = pgn_extract();
    if let Some(tool) = &extract {
        let out = read_pgn_extract(tool, &pgn_path, &["--checkmate"]);
        assert!(out.contains(FOOLS_MATE_FEN), "{out}");
        assert!(out.contains("[Event \"fernzug e2e"), "{out}");
    }

    // `export pgn` of the game is the attached PGN; of the tournament, every game of it.
    let game_pgn = d.relay.run_ok(&["export", "pgn", &d.game]);
    assert_eq!(game_pgn, pgn);
    let t_pgn = d.relay.run_ok(&["export", "pgn", &d.id]);
    assert_eq!(t_pgn, pgn, "the tournament has this one game");
    let t_path = d.relay.dir.join("tournament.pgn");
    std::fs::write(&t_path, &t_pgn).unwrap();
    if python_chess() {
        let games = read_pgn_python(&t_path);
        assert_eq!(games[0]["fen"], FOOLS_MATE_FEN);
    }
    if let Some(tool) = &extract {
        read_pgn_extract(tool, &t_path, &[]);
    }
    // TO §29: `verify` recomputes the game's chain from the store and the archive of the mails
    // that came over IMAP: ok, with the hash the PGN and the report carry.
    let seal = pgn
        .lines()
        .find_map(|l| l.strip_prefix("[Seal \"")?.strip_suffix("\"]"))
        .expect("the PGN carries the record's hash")
        .to_string();
    let verified = d.relay.run_ok(&["verify", &d.game]);
    assert!(
        verified.starts_with(&format!("ok {}: ", d.game)) && verified.trim_end().ends_with(&seal),
        "{verified}"
    );
    assert!(verified.contains("4 mails checked"), "{verified}");
    assert_eq!(
        d.relay
            .run(&["verify", &format!("{}/9", d.id)])
            .status
            .code(),
        Some(2)
    );
    // Unknown targets are usage errors.
    assert_eq!(
        d.relay.run(&["export", "pgn", "NOPE"]).status.code(),
        Some(2)
    );
    assert_eq!(
        d.relay
            .run(&["export", "mbox", &format!("{}/9", d.id)])
            .status
            .code(),
        Some(2)
    );

    // `export mbox`: every mail of the game, in and out, unchanged.
    let out = d.relay.run(&["export", "mbox", &d.game]);
    assert!(out.status.success());
    let mbox_path = d.relay.dir.join("game.mbox");
    std::fs::write(&mbox_path, &out.stdout).unwrap();
    assert!(
        out.stdout
            .windows(b"\r\n>From Hamburg with love\r\n>>From the other side".len())
            .any(|w| w == b"\r\n>From Hamburg with love\r\n>>From the other side"),
        "mboxrd quoting"
    );
    let listed: Vec<serde_json::Value> =
        serde_json::from_str(&python(READ_MBOX, &mbox_path)).unwrap();
    let exported: Vec<(String, Vec<u8>)> = listed
        .iter()
        .map(|m| {
            (
                m["from"].as_str().unwrap().to_string(),
                b64decode(m["raw"].as_str().unwrap()),
            )
        })
        .collect();
    // In: exactly the mails in the relay's own INBOX, byte for byte (postmark in the From line).
    let received = fetch_all(&d.relay.address);
    assert_eq!(received.len(), 4);
    let inbound: Vec<&(String, Vec<u8>)> = exported
        .iter()
        .filter(|(from, _)| !from.starts_with(&d.relay.address))
        .collect();
    assert_eq!(inbound.len(), received.len());
    for (raw, (from, exported_raw)) in received.iter().zip(&inbound) {
        assert_eq!(exported_raw, raw, "an incoming mail changed in the mbox");
        let sender = if header(raw, "From").unwrap().contains(&d.anna) {
            &d.anna
        } else {
            &d.bert
        };
        assert!(from.starts_with(&format!("{sender} ")), "{from}");
    }
    assert!(
        inbound[0].0.ends_with("Tue Dec  1 09:00:00 2026"),
        "postmark in UTC: {}",
        inbound[0].0
    );
    // Out: what every player and TL received about the game is a sent mail of the mbox, unchanged
    // after the trace headers the mail system put in front; and nothing else was sent.
    let outbound: Vec<&Vec<u8>> = exported
        .iter()
        .filter(|(from, _)| from.starts_with(&format!("{} ", d.relay.address)))
        .map(|(_, raw)| raw)
        .collect();
    assert_eq!(outbound.len() + inbound.len(), exported.len());
    let mut ids = BTreeSet::new();
    for m in anna_box.iter().chain(&bert_box).chain(&tl_box) {
        if header(m, "X-Fernzug-Game").as_deref() != Some(d.game.as_str()) {
            continue;
        }
        let id = header(m, "Message-ID").unwrap();
        let sent = outbound
            .iter()
            .find(|o| header(o, "Message-ID").as_deref() == Some(id.as_str()))
            .unwrap_or_else(|| panic!("{id} is missing in the mbox"));
        assert!(
            m.ends_with(sent),
            "{id}: delivered mail is not the archived one plus trace headers"
        );
        ids.insert(id);
    }
    // start ×2, move ×4, receipt ×4, game-end ×3: every one was delivered and exported once.
    assert_eq!(outbound.len(), 13);
    assert_eq!(ids.len(), outbound.len(), "every sent mail was delivered");
    // mutt opens it (optional: only where mutt is installed).
    if let Some(shown) = mutt_index(&mbox_path) {
        assert!(
            shown.contains(&format!("{} messages", exported.len()))
                || shown.contains(&format!("Msgs:{}", exported.len())),
            "{shown}"
        );
    }
}

/// Opens an mbox read-only in mutt inside a pseudo terminal and quits; the screen as text, or
/// `None` where mutt or `script` is not installed (mutt is optional).
fn mutt_index(path: &Path) -> Option<String> {
    let has = |t: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {t}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !has("mutt") || !has("script") {
        eprintln!("NOTE: mutt or script is not installed; the mutt check is skipped");
        return None;
    }
    // mutt asks to create ~/Mail if it is missing: give it a home of its own with one.
    let home = path.parent().unwrap();
    std::fs::create_dir_all(home.join("Mail")).unwrap();
    let cmd = format!(
        "mutt -n -R -F /dev/null -f '{}' -e 'push q'",
        path.display()
    );
    let out = Command::new("timeout")
        .args(["20", "script", "-qec", &cmd, "/dev/null"])
        .env("TERM", "xterm")
        .env("COLUMNS", "120")
        .env("LINES", "40")
        .env("HOME", home)
        .output()
        .expect("script runs");
    assert!(
        out.status.success(),
        "mutt failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn status_mail_and_status_command_show_the_crosstable() {
    let relay = Relay::new("records-status");
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let carl = unique_addr("carl");
    let t = relay.tournament_with_games(
        &[
            ("Anna Adler", &anna, Some("de")),
            ("Bert Bärmann", &bert, Some("de")),
            ("Carl Clausen", &carl, Some("en")),
        ],
        &[(&anna, &bert), (&bert, &carl), (&carl, &anna)],
        "fax",
        "2026-12-01",
    );
    relay.add(&t);
    relay.once("2026-11-30T12:00:00+01:00");
    wait_for(&carl, 2, WAIT);
    let mut sent = 0;
    let mut play = |from: &str, subject: &str, body: &str, now: &str| {
        send_text(from, &relay.address, subject, body);
        sent += 1;
        wait_for(&relay.address, sent, WAIT);
        relay.once(now);
    };
    // Game 1: Anna 1. e4, Bert resigns. Game 2: Bert 1. d4.
    play(
        &anna,
        &format!("Re: [{}] Zug", t.game(1)),
        "1. e4",
        "2026-12-01T10:00:00+01:00",
    );
    play(
        &bert,
        &format!("Re: [{}] Zug", t.game(1)),
        "Ich gebe auf.",
        "2026-12-02T10:00:00+01:00",
    );
    play(
        &bert,
        &format!("Re: [{}] Zug", t.game(2)),
        "1. d4",
        "2026-12-02T10:05:00+01:00",
    );
    // Carl asks, naming no game, three days after Bert's move reached him.
    play(&carl, "Status", "Status", "2026-12-05T10:05:00+01:00");
    let carl_box = wait_for(&carl, 4, WAIT);
    let status = carl_box
        .iter()
        .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("status"))
        .expect("a status mail to Carl");
    assert_eq!(header(status, "X-Fernzug-Game"), None, "no game named");
    let text = body_text(status).replace("\r\n", "\n");
    for want in [
        format!(
            "[{}] Bert Bärmann – Carl Clausen (you: Black): running",
            t.game(2)
        ),
        "  Your move (1...) since 2026-12-02 10:05, 3 days so far\n  last move: 1. d4".to_string(),
        "  Your time: 3 of 40 days used, 37 days left".to_string(),
        format!(
            "[{}] Carl Clausen – Anna Adler (you: White): running",
            t.game(3)
        ),
        "No. Name         1 2 3  Pts  SB  open\n \
         1. Anna Adler   × 1 *    1   0     1\n \
         2. Bert Bärmann 0 × *    0   0     1\n \
         2. Carl Clausen * * ×    0   0     2\n"
            .to_string(),
    ] {
        assert!(text.contains(&want), "missing {want:?} in\n{text}");
    }
    // A `Status` mail is not an answer to anything: Carl's clock and games are as before.
    let out = relay.run_ok(&["status", &t.id, "--now", "2026-12-05T10:06:00+01:00"]);
    assert!(
        out.contains(&format!("fernzug e2e {} ({})", t.id, t.id)),
        "{out}"
    );
    assert!(
        out.contains("Pl. Name         1 2 3  Pkt.  SB  offen\n"),
        "{out}"
    );
    assert!(
        out.contains(" 1. Anna Adler   × 1 *     1   0      1\n"),
        "{out}"
    );
    assert!(
        out.contains(" 2. Carl Clausen * * ×     0   0      2\n"),
        "{out}"
    );
    // --json stays the docs/contract.md's array of games.
    let json = relay.run_ok(&[
        "status",
        &t.id,
        "--json",
        "--now",
        "2026-12-05T10:06:00+01:00",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    assert_eq!(v[0]["result"], "1-0");
    assert_eq!(v[1]["clock"]["black"]["used"], 3);
}

/// docs/operating.md "Backup and restore", as written there: stop, `tar` the data directory, start; to
/// restore, unpack it over the same place. The move that came after the backup is read again
/// from the mailbox (the restored store never saw its UID), the game goes on from there.
#[test]
fn backup_and_restore_of_the_store_as_the_readme_says() {
    let d = Duel::new(
        "backup",
        "fax",
        ("Anna Adler", Some("de")),
        ("Bert Berger", Some("en")),
    );
    let data = d.relay.dir.join("data");
    let backup = d.relay.dir.join("fernzug-backup.tgz");
    let tar = |args: &[&str]| {
        let out = Command::new("tar").args(args).output().expect("tar");
        assert!(
            out.status.success(),
            "tar {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    tar(&[
        "-C",
        &d.relay.dir.to_string_lossy(),
        "-czf",
        &backup.to_string_lossy(),
        "data",
    ]);

    d.play(&d.anna, "1. e4\n", "2026-12-02T10:00:00+01:00");
    wait_for(&d.bert, 2, WAIT);

    // Restore: the store as it was before the move.
    std::fs::remove_dir_all(&data).expect("remove data");
    tar(&[
        "-C",
        &d.relay.dir.to_string_lossy(),
        "-xzf",
        &backup.to_string_lossy(),
    ]);
    assert_eq!(
        d.status("2026-12-02T10:30:00+01:00")["moves"]
            .as_array()
            .map(Vec::len),
        Some(0)
    );

    // The next pass reads the move again and the game goes on.
    d.relay.once("2026-12-02T11:00:00+01:00");
    let s = d.status("2026-12-02T11:00:00+01:00");
    assert_eq!(s["moves"].as_array().map(Vec::len), Some(1), "{s}");
    // As docs/operating.md warns: a mail sent after the backup may go out a second time.
    let forwards = wait_for(&d.bert, 3, WAIT)
        .iter()
        .filter(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("move"))
        .count();
    assert_eq!(forwards, 2);
    d.play(&d.bert, "1. e4 e5\n", "2026-12-02T12:00:00+01:00");
    let s = d.status("2026-12-02T12:00:00+01:00");
    assert_eq!(s["moves"], serde_json::json!(["e4", "e5"]), "{s}");
}
