//! End-to-end through the real loopback mail stack: the end of a tournament (TO §27). A round
//! robin of three players is played to its end by mail; each player and TL then get one
//! `tournament-end` — with the PGN of all three games attached (read by python-chess, and what
//! `export pgn` writes), the crosstable `fernzug status` prints and the tournament page serves
//! (`fernzug run`'s HTTP, marked final), and each game's `fernzug verify` line.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{
    Daemon, REGISTERED, Relay, attachments, body_text, configure, fetch_all, free_port, get,
    header, kinds, next_of, unique_addr, wait_for, wait_listening,
};
use crate::pages_e2e::cross_rows;

const WAIT: Duration = Duration::from_secs(20);

/// Reads every game of a PGN file with python-chess: per game its result, whether it ends in
/// mate, and its moves; fails on any error it reports.
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
        games.append({
            "white": g.headers["White"],
            "black": g.headers["Black"],
            "result": g.headers["Result"],
            "mate": g.end().board().is_checkmate(),
            "moves": [m.san() for m in g.mainline()],
        })
print(json.dumps(games))
"#;

/// The lines of the crosstable in `text`: from its head (`head`) to the first empty line.
fn table_in(text: &str, head: &str) -> Vec<String> {
    let text = text.replace("\r\n", "\n");
    let start = text
        .find(head)
        .unwrap_or_else(|| panic!("no table headed {head:?} in\n{text}"));
    text[start..]
        .lines()
        .take_while(|l| !l.trim().is_empty())
        .map(str::to_string)
        .collect()
}

/// A table line with its blanks folded: `1. Anna Adler × 1 1 2 1 0`.
fn folded(line: &str) -> String {
    line.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_round_robin_of_three_played_to_its_end_is_reported_once_to_each_player_and_tl() {
    let relay = Relay::new("tournament-end");
    let (anna, bert, carl) = (
        unique_addr("anna"),
        unique_addr("bert"),
        unique_addr("carl"),
    );
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
    relay.once(REGISTERED);
    wait_for(&carl, 2, WAIT);
    let play = |from: &str, n: u32, body: &str, now: &str| {
        relay.send(from, &format!("Re: [{}] Zug", t.game(n)), body);
        relay.once(now);
    };
    // Game 1: Bert resigns after 1. e4. Game 2: Bert offers a draw with 1. d4, Carl takes it.
    play(&anna, 1, "1. e4", "2026-12-01T10:00:00+01:00");
    play(&bert, 1, "Ich gebe auf.", "2026-12-02T10:00:00+01:00");
    play(&bert, 2, "1. d4\nRemis?", "2026-12-02T11:00:00+01:00");
    play(&carl, 2, "I accept the draw.", "2026-12-03T10:00:00+01:00");
    next_of(&carl, "game-end", 0);
    // Game 3, Carl against Anna: the fool's mate, its last move ends the tournament.
    play(&carl, 3, "1. f3", "2026-12-04T10:00:00+01:00");
    play(&anna, 3, "1. f3\n1... e5", "2026-12-04T12:00:00+01:00");
    play(&carl, 3, "1... e5\n2. g4", "2026-12-05T10:00:00+01:00");
    let everyone = [&anna, &bert, &carl, &t.director];
    for who in everyone {
        let got = kinds(&fetch_all(who));
        assert!(
            !got.iter().any(|k| k == "tournament-end"),
            "{who} before the last game ended: {got:?}"
        );
    }
    play(&anna, 3, "2. g4\n2... Dh4#", "2026-12-05T20:00:00+01:00");
    let reports: Vec<Vec<u8>> = everyone
        .iter()
        .map(|who| next_of(who, "tournament-end", 0))
        .collect();
    // Once: a later pass reports nothing again.
    relay.once("2026-12-07T10:00:00+01:00");
    std::thread::sleep(Duration::from_millis(500));
    for who in everyone {
        let got = kinds(&fetch_all(who));
        assert_eq!(
            got.iter().filter(|k| *k == "tournament-end").count(),
            1,
            "{who}: {got:?}"
        );
    }
    let sizes: Vec<usize> = reports.iter().map(Vec::len).collect();
    eprintln!(
        "tournament-end of 3 players, 3 games, as delivered (Anna, Bert, Carl, TL): {sizes:?} bytes"
    );
    let [to_anna, to_bert, to_carl, to_tl] = [&reports[0], &reports[1], &reports[2], &reports[3]];
    for m in &reports {
        let subject = header(m, "Subject").unwrap_or_default();
        assert!(subject.contains(&format!("[{}]", t.id)), "{subject}");
        assert_eq!(header(m, "X-Fernzug-Game"), None, "about no single game");
    }
    assert_eq!(
        header(to_carl, "Subject").unwrap(),
        format!("[{}] Final table: fernzug e2e {}", t.id, t.id)
    );
    let anna_text = body_text(to_anna).replace("\r\n", "\n");
    // Anna won both her games; Bert and Carl drew theirs and share the second place.
    assert!(
        anna_text.contains("Ihr Platz: 1 · Punkte 2 · Sonneborn-Berger 1"),
        "{anna_text}"
    );
    assert!(
        body_text(to_bert).contains("Ihr Platz: 2 (geteilt) · Punkte ½ · Sonneborn-Berger 0,25"),
        "{}",
        body_text(to_bert)
    );
    assert!(
        body_text(to_carl).contains("Your place: 2 (shared) · points ½ · Sonneborn-Berger 0.25"),
        "{}",
        body_text(to_carl)
    );
    let tl_text = body_text(to_tl).replace("\r\n", "\n");
    assert!(!tl_text.contains("Ihr Platz"), "{tl_text}");
    assert!(
        tl_text.contains("Die Spieler haben diesen Bericht ebenfalls erhalten"),
        "{tl_text}"
    );

    // The table is `fernzug status`'s, line for line.
    let status = relay.run_ok(&["status", &t.id, "--now", "2026-12-07T10:00:00+01:00"]);
    let table = table_in(&status, "Pl. Name");
    assert_eq!(table.len(), 4, "{status}");
    assert_eq!(table_in(&anna_text, "Pl. Name"), table);
    assert_eq!(table_in(&tl_text, "Pl. Name"), table);
    assert_eq!(folded(&table[1]), "1. Anna Adler × 1 1 2 1 0");

    // Each game with its seal: `fernzug verify`'s line, as it recomputes it now.
    for n in 1..=3 {
        let line = relay.run_ok(&["verify", &t.game(n)]);
        let line = line.trim();
        assert!(line.starts_with(&format!("ok {}: ", t.game(n))), "{line}");
        for text in [&anna_text, &tl_text] {
            assert!(text.contains(&format!("  {line}\n")), "{line} in\n{text}");
        }
    }
    assert!(
        anna_text.contains(&format!(
            "  {}  Carl Clausen – Anna Adler: 0-1 (Matt), Züge: 2\n",
            t.game(3)
        )),
        "{anna_text}"
    );

    // The PGN of all three games, attached to each: what `export pgn` writes, read by python-chess.
    let exported = relay.run_ok(&["export", "pgn", &t.id]);
    let file = format!("{}.pgn", t.id);
    for m in &reports {
        let att = attachments(m);
        assert_eq!(att.len(), 1, "one attachment");
        assert_eq!(att[0].0.as_deref(), Some(file.as_str()));
        let pgn = String::from_utf8(att[0].1.clone())
            .expect("PGN in UTF-8")
            .replace("\r\n", "\n");
        assert_eq!(pgn, exported);
    }
    let path = relay.dir.join(&file);
    std::fs::write(&path, &exported).unwrap();
    let python = Command::new("python3")
        .arg("-c")
        .arg(READ_PGN)
        .arg(&path)
        .output()
        .expect("python3 runs");
    assert!(
        python.status.success(),
        "python-chess (scripts/test installs it): {}",
        String::from_utf8_lossy(&python.stderr)
    );
    let games: serde_json::Value = serde_json::from_slice(&python.stdout).unwrap();
    let got: Vec<(String, String, String, bool)> = games
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["white"].as_str().unwrap().to_string(),
                g["black"].as_str().unwrap().to_string(),
                g["result"].as_str().unwrap().to_string(),
                g["mate"].as_bool().unwrap(),
            )
        })
        .collect();
    let game = |w: &str, b: &str, r: &str, mate| (w.into(), b.into(), r.into(), mate);
    assert_eq!(
        got,
        vec![
            game("Anna Adler", "Bert Bärmann", "1-0", false),
            game("Bert Bärmann", "Carl Clausen", "1/2-1/2", false),
            game("Carl Clausen", "Anna Adler", "0-1", true),
        ]
    );
    assert_eq!(
        games[2]["moves"],
        serde_json::json!(["f3", "e5", "g4", "Qh4#"])
    );

    // The tournament page, as `fernzug run` serves it: final, and the same table.
    let port = free_port();
    configure(
        &relay,
        "",
        &format!("[http]\nlisten = \"127.0.0.1:{port}\""),
    );
    let log = relay.dir.join("run.log");
    let _daemon = Daemon(
        relay
            .command(&["run"])
            .env("RUST_LOG", "info")
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
            .spawn()
            .unwrap(),
    );
    wait_listening(port);
    // The pages answer 503 until `run` holds the store.
    let started = std::time::Instant::now();
    let page = loop {
        let (code, page) = get(port, &format!("/t/{}?lang=de", t.id));
        if code == 200 {
            break page;
        }
        assert!(
            started.elapsed() < WAIT,
            "{code} {page}\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(
        page.contains("<p class=\"final\"><strong>Endstand.</strong>"),
        "{page}"
    );
    assert!(page.contains("<h2>Endstand (Kreuztabelle)</h2>"), "{page}");
    let rows = cross_rows(&page);
    assert_eq!(rows.len(), 4, "{rows:?}");
    for (row, line) in rows[1..].iter().zip(&table[1..]) {
        // The page has a `played` column the mail's table does not print (before `open`).
        let mut cells: Vec<&str> = row.split_whitespace().collect();
        cells.remove(cells.len() - 2);
        assert_eq!(cells.join(" "), folded(line), "{rows:?}");
    }
    let (_, english) = get(port, &format!("/t/{}?lang=en", t.id));
    assert!(english.contains("<h2>Final crosstable</h2>"), "{english}");
    // Nothing more was sent to anyone by the running relay.
    std::thread::sleep(Duration::from_millis(500));
    for who in everyone {
        let got = kinds(&fetch_all(who));
        assert_eq!(
            got.iter().filter(|k| *k == "tournament-end").count(),
            1,
            "{who}: {got:?}"
        );
    }
}
