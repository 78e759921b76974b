//! End-to-end: how games end (TO §2, §4, §27, §31) and conditional moves (TO §6, §7) through the
//! real loopback mail stack (Postfix → Dovecot), driven with `fernzug once --now …`. The PGN a
//! director receives is checked with python-chess (`pip install chess`; scripts/test installs it).

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::common::{Duel, attachments, body_text, fetch_all, header, kinds, wait_for};

const WAIT: Duration = Duration::from_secs(20);

/// Anna (White, German) and Bert (Black, English), fax rules, start mails delivered.
/// A [`Duel`] whose mails are processed one hour apart from 2026-12-01 10:00.
struct Clocked {
    d: Duel,
    /// The next `--now`, one hour per mail.
    hour: u32,
}

impl std::ops::Deref for Clocked {
    type Target = Duel;
    fn deref(&self) -> &Duel {
        &self.d
    }
}

/// Anna (White, German) against Bert (Black, English), fax rules; start mails delivered.
fn duel(name: &str) -> Clocked {
    Clocked {
        d: Duel::new(
            name,
            "fax",
            ("Anna Adler", Some("de")),
            ("Bert Berger", Some("en")),
        ),
        hour: 0,
    }
}

impl Clocked {
    fn now(&self) -> String {
        (chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00+01:00").unwrap()
            + chrono::Duration::hours(i64::from(self.hour)))
        .to_rfc3339()
    }

    /// Sends `body` from `from`, waits until the relay's mailbox has it, runs one pass.
    fn play(&mut self, from: &str, body: &str) {
        let now = self.now();
        self.d.play(from, body, &now);
        self.hour += 1;
    }

    fn status(&self) -> serde_json::Value {
        self.d.status(&self.now())
    }
}

/// Waits until `user` has a mail of `kind` beyond the first `skip` and returns the last such mail.
fn wait_kind(user: &str, kind: &str, n: usize) -> Vec<u8> {
    let started = std::time::Instant::now();
    loop {
        let mails = fetch_all(user);
        let of_kind: Vec<&Vec<u8>> = mails
            .iter()
            .filter(|m| header(m, "X-Fernzug-Kind").as_deref() == Some(kind))
            .collect();
        if of_kind.len() >= n {
            return of_kind[n - 1].clone();
        }
        assert!(
            started.elapsed() < WAIT,
            "{user}: no {n}. {kind} mail; has {:?}",
            kinds(&mails)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Runs python-chess over a PGN; returns its one-line answer.
fn python_chess(pgn: &[u8], script: &str) -> String {
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3 runs");
    child.stdin.take().unwrap().write_all(pgn).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "python-chess failed (pip install chess): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

const READ_END: &str = "import sys, chess.pgn\n\
g = chess.pgn.read_game(sys.stdin)\n\
b = g.end().board()\n\
print(b.is_checkmate(), b.halfmove_clock, g.headers['Result'], len(list(g.mainline_moves())), b.fen())";

#[test]
fn s31_fools_mate_ends_itself_and_the_director_gets_a_pgn_that_reads_to_mate() {
    let mut d = duel("foolsmate");
    let (anna, bert) = (d.anna.clone(), d.bert.clone());
    d.play(&anna, "1. f3");
    d.play(&bert, "1. f3 e5");
    d.play(&anna, "1... e5\n2. g4");
    d.play(&bert, "2. g4 Qh4#");
    let end = wait_kind(&d.director, "game-end", 1);
    assert!(
        header(&end, "Subject").unwrap().contains("0-1"),
        "{:?}",
        header(&end, "Subject")
    );
    let pgn = attachments(&end)
        .into_iter()
        .find(|(name, _)| name.as_deref().is_some_and(|n| n.ends_with(".pgn")))
        .expect("a PGN attachment")
        .1;
    let answer = python_chess(&pgn, READ_END);
    assert!(answer.starts_with("True 1 0-1 4 "), "{answer}");
    // Both players get the report too, and the game is over.
    wait_kind(&d.anna, "game-end", 1);
    let b = wait_kind(&d.bert, "game-end", 1);
    assert!(body_text(&b).contains("checkmate"), "{}", body_text(&b));
    let s = d.status();
    assert_eq!(
        (s["state"].as_str(), s["result"].as_str()),
        (Some("finished"), Some("0-1"))
    );
}

#[test]
fn s2_offer_with_a_move_and_acceptance_in_words() {
    let mut d = duel("drawoffer");
    let (anna, bert) = (d.anna.clone(), d.bert.clone());
    d.play(&anna, "1. e4");
    d.play(&bert, "1. e4 e5\nI offer a draw.");
    let fwd = wait_kind(&anna, "move", 1);
    assert!(
        body_text(&fwd).contains("Bert Berger bietet Remis an"),
        "{}",
        body_text(&fwd)
    );
    // A bare "½" is no acceptance.
    d.play(&anna, "½");
    let q = wait_kind(&anna, "query", 1);
    assert!(body_text(&q).contains("in Worten"), "{}", body_text(&q));
    d.play(&anna, "1... e5\nIch nehme das Remis an.");
    for who in [&anna, &bert, &d.director] {
        let end = wait_kind(who, "game-end", 1);
        assert!(
            header(&end, "Subject").unwrap().contains("1/2-1/2"),
            "{who}: {:?}",
            header(&end, "Subject")
        );
    }
    let s = d.status();
    assert_eq!(s["result"], "1/2-1/2");
    assert_eq!(s["moves"], serde_json::json!(["e4", "e5"]));
}

#[test]
fn s2_resignation_ends_the_game_and_s4_cannot_be_taken_back() {
    let mut d = duel("resign");
    let (anna, bert) = (d.anna.clone(), d.bert.clone());
    d.play(&anna, "1. e4");
    d.play(&bert, "1. e4\nI resign.");
    for who in [&anna, &bert, &d.director] {
        wait_kind(who, "game-end", 1);
    }
    d.play(&bert, "Sorry, I take back my resignation");
    let q = wait_kind(&bert, "query", 1);
    assert!(
        body_text(&q).contains("cannot be taken back"),
        "{}",
        body_text(&q)
    );
    let s = d.status();
    assert_eq!(
        (s["state"].as_str(), s["result"].as_str()),
        (Some("finished"), Some("1-0"))
    );
}

#[test]
fn s6_conditional_line_played_across_three_plies_then_a_deviation_drops_the_next() {
    let mut d = duel("conditional");
    let (anna, bert) = (d.anna.clone(), d.bert.clone());
    d.play(&anna, "1. e4");
    d.play(&bert, "1. e4 e5");
    d.play(
        &anna,
        "1... e5\n2. Sf3\nEventualzüge: 2... Sc6 3. Lb5 3... a6 4. La4",
    );
    // Bert sees the line in his own (English) notation.
    let fwd = wait_kind(&bert, "move", 2);
    assert!(
        body_text(&fwd).contains("2... Nc6 3. Bb5 3... a6 4. Ba4"),
        "{}",
        body_text(&fwd)
    );
    d.play(&bert, "2. Nf3 Nc6");
    let m = wait_kind(&bert, "move", 3);
    assert!(
        header(&m, "Subject").unwrap().contains("3. Bb5"),
        "{:?}",
        header(&m, "Subject")
    );
    assert!(
        body_text(&m).contains("played at once"),
        "{}",
        body_text(&m)
    );
    let r = wait_kind(&anna, "receipt", 3);
    assert!(body_text(&r).contains("3. Lb5"), "{}", body_text(&r));
    d.play(&bert, "3. Bb5 a6");
    let m = wait_kind(&bert, "move", 4);
    assert!(
        header(&m, "X-Fernzug-FEN")
            .unwrap()
            .starts_with("r1bqkbnr/1ppp1ppp/p1n5/4p3/B3P3/5N2/PPPP1PPP/RNBQK2R b KQkq"),
        "{:?}",
        header(&m, "X-Fernzug-FEN")
    );
    d.play(&bert, "4. Ba4 Nf6");
    d.play(&anna, "4... Sf6\n5. O-O\nEventualzüge: 5... Le7 6. Te1");
    // Bert leaves the line: 5... Nxe4. Anna is on move, her line has lapsed.
    d.play(&bert, "5. O-O Nxe4");
    let m = wait_kind(&anna, "move", 3);
    assert!(
        body_text(&m).contains("Ihre Eventualzüge sind hinfällig"),
        "{}",
        body_text(&m)
    );
    let s = d.status();
    assert_eq!(
        s["moves"],
        serde_json::json!([
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Nxe4"
        ])
    );
    assert_eq!(s["to_move"], "white");
}

fn numbered(ply: usize, san: &str) -> String {
    if ply.is_multiple_of(2) {
        format!("{}. {san}", ply / 2 + 1)
    } else {
        format!("{}... {san}", ply / 2 + 1)
    }
}

/// `Eventualzüge:` and the plies `from..=to`, one numbered pair per line.
fn line_block(walk: &[String], from: usize, to: usize) -> String {
    let mut text = String::from("Eventualzüge:\n");
    let plies: Vec<String> = (from..=to).map(|p| numbered(p, &walk[p])).collect();
    for pair in plies.chunks(2) {
        text.push_str(&pair.join(" "));
        text.push('\n');
    }
    text
}

#[test]
fn s31_fifty_moves_stop_the_game_and_reach_the_director() {
    // Both players give conditional lines for the whole walk: two mails play 100 plies.
    let walk = crate::quiet_walk::quiet_walk(100);
    let mut d = duel("fiftymoves");
    let (anna, bert) = (d.anna.clone(), d.bert.clone());
    d.play(
        &anna,
        &format!("{}\n\n{}", numbered(0, &walk[0]), line_block(&walk, 1, 98)),
    );
    wait_kind(&bert, "move", 1);
    d.play(
        &bert,
        &format!(
            "{} {}\n\n{}",
            numbered(0, &walk[0]),
            walk[1],
            line_block(&walk, 2, 99)
        ),
    );
    let adj = wait_kind(&d.director, "adjudication", 1);
    let subject = header(&adj, "Subject").unwrap();
    assert!(subject.contains(&format!("[{}]", d.game)), "{subject}");
    let cc = header(&adj, "Cc").unwrap();
    assert!(cc.contains(&anna) && cc.contains(&bert), "{cc}");
    let fen = header(&adj, "X-Fernzug-FEN").unwrap();
    assert!(fen.ends_with(" 100 51"), "{fen}");
    let pgn = attachments(&adj)
        .into_iter()
        .find(|(name, _)| name.as_deref().is_some_and(|n| n.ends_with(".pgn")))
        .expect("a PGN attachment")
        .1;
    let answer = python_chess(&pgn, READ_END);
    assert_eq!(answer, format!("False 100 * 100 {fen}"));
    wait_kind(&anna, "adjudication", 1);
    wait_kind(&bert, "adjudication", 1);
    let s = d.status();
    assert_eq!(s["state"], "adjourned");
    assert_eq!(s["moves"].as_array().unwrap().len(), 100);
    // A move now is answered with a query; nothing changes.
    let n = fetch_all(&anna).len();
    d.play(&anna, &format!("{}\n51. Nc3", numbered(99, &walk[99])));
    let mails = wait_for(&anna, n + 1, WAIT);
    let last = mails.last().unwrap();
    assert_eq!(header(last, "X-Fernzug-Kind").as_deref(), Some("query"));
    assert!(body_text(last).contains("TO §31"), "{}", body_text(last));
}
