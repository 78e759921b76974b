//! End-to-end: the director's desk by mail (TO §11, §23, §26, §29, §30) through the real mail
//! stack, driven with `fernzug once --now`: a tournament registered by mail, the correspondence
//! of a game as an mbox Python's `mailbox` reads, a withdrawal that ends every game of the player,
//! and a question answered and one left unanswered; a tournament file checked (on the command
//! line and by mail) and a tournament withdrawn before its first move.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{
    HOST, IMAP_PORT, Mailbox, PASSWORD, Relay, SMTP_PORT, Tournament, attachments, body_text,
    fetch_all, header, kinds, next_of, send_mail, unique, unique_addr,
};
use crate::proxy::Proxy;

const WAIT: Duration = Duration::from_secs(20);

/// Sends the director's mail with the tournament file attached as `name` (`application/toml`),
/// as a mail program does, and waits until the relay's mailbox holds it.
fn send_file(relay: &Relay, subject: &str, name: &str, file: &str) {
    let mut inbox = Mailbox::open(&relay.address).expect("relay mailbox");
    let before = inbox.count().expect("count");
    let raw = format!(
        "From: Tom Leiter <{from}>\r\nTo: {to}\r\nSubject: {subject}\r\n\
         Date: {date}\r\nMessage-ID: <{id}@fernschach.test>\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"desk\"\r\n\r\n\
         --desk\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         Guten Tag,\r\n\r\nanbei die Turnierdatei.\r\n\r\nTom Leiter\r\n\
         --desk\r\nContent-Type: application/toml; name=\"{name}\"\r\n\
         Content-Disposition: attachment; filename=\"{name}\"\r\n\
         Content-Transfer-Encoding: 8bit\r\n\r\n{body}\r\n--desk--\r\n",
        from = relay.director,
        to = relay.address,
        date = chrono::Local::now().to_rfc2822(),
        id = unique("file"),
        body = file.replace('\n', "\r\n"),
    );
    send_mail(raw.as_bytes(), &relay.director, &[&relay.address]).expect("sent");
    let started = Instant::now();
    while inbox.count().expect("count") <= before {
        assert!(started.elapsed() < WAIT, "the file did not reach the relay");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// What Python's `mailbox` reads in the mbox file `path`: the Message-ID of each mail.
fn python_mbox(path: &std::path::Path) -> Vec<String> {
    let out = Command::new("python3")
        .arg("-c")
        .arg(
            "import mailbox, sys\n\
             for m in mailbox.mbox(sys.argv[1]):\n    print(m['Message-ID'])",
        )
        .arg(path)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn the_directors_desk_through_real_mail() {
    let relay = Relay::new("desk");
    // The director may register: `[relay] directors`.
    let config = std::fs::read_to_string(&relay.config).unwrap();
    let config = config.replace(
        "language = \"de\"\n",
        &format!("language = \"de\"\ndirectors = [\"{}\"]\n", relay.director),
    );
    std::fs::write(&relay.config, config).unwrap();
    let (t, anna, bert, carl) = trio(&relay, "fax");
    let file = std::fs::read_to_string(&t.path).unwrap();

    // A file with a mistake: every error named with its line and key, nothing registered.
    send_file(
        &relay,
        "Turnier anmelden",
        "turnier.toml",
        &file.replace("rules = \"fax\"", "rules = \"blitz\""),
    );
    relay.once("2026-11-30T12:00:00+01:00");
    let query = body_text(&next_of(&relay.director, "query", 0));
    assert!(query.contains("Zeile 3, Schlüssel `rules`"), "{query}");
    assert!(relay.run_ok(&["status", "--json"]).trim() == "[]");

    // The file as it should be: the table of games to him, the start mails to the players.
    send_file(&relay, "Turnier anmelden", "turnier.toml", &file);
    relay.once("2026-11-30T12:05:00+01:00");
    let table = body_text(&next_of(&relay.director, "director", 0));
    let flat = table.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("3 Spieler, 3 Partien"), "{table}");
    assert!(
        table.contains(&format!(
            "{}  Runde 2:  Anna Adler – Bert Berger",
            t.game(2)
        )),
        "{table}"
    );
    for p in [&anna, &bert, &carl] {
        next_of(p, "start", 1);
    }

    // Anna opens game 2 by replying to her start mail.
    let start = fetch_all(&anna)
        .into_iter()
        .find(|m| {
            header(m, "X-Fernzug-Game").as_deref() == Some(t.game(2).as_str())
                && header(m, "X-Fernzug-Kind").as_deref() == Some("start")
        })
        .expect("Anna's start mail of game 2");
    let reply_to = header(&start, "Reply-To").expect("Reply-To");
    let key_address = reply_to
        .rsplit('<')
        .next()
        .unwrap()
        .trim_end_matches('>')
        .to_string();
    relay.send_to(
        &anna,
        &key_address,
        &format!("Re: [{}]", t.game(2)),
        "1. e4",
    );
    relay.once("2026-12-01T10:00:00+01:00");
    next_of(&bert, "move", 0);

    // TO §11: the correspondence of game 2, attached as `export mbox` writes it.
    relay.send(
        &relay.director,
        "Akten",
        &format!("Korrespondenz: {}\nPrüfen: {}", t.game(2), t.game(2)),
    );
    relay.once("2026-12-01T11:00:00+01:00");
    let answers: Vec<Vec<u8>> = (1..=2)
        .map(|i| next_of(&relay.director, "director", i))
        .collect();
    let mbox_mail = answers
        .iter()
        .find(|m| !attachments(m).is_empty())
        .expect("the mbox answer");
    let (name, mbox) = attachments(mbox_mail).remove(0);
    assert_eq!(name.as_deref(), Some(format!("{}-2.mbox", t.id).as_str()));
    let exported = relay
        .command(&["export", "mbox", &t.game(2)])
        .output()
        .expect("export mbox");
    assert_eq!(
        mbox, exported.stdout,
        "the attachment is `export mbox`, byte for byte"
    );
    let path = relay.dir.join("game-2.mbox");
    std::fs::write(&path, &mbox).unwrap();
    let ids = python_mbox(&path);
    // Both start mails, Anna's move, the forward to Bert and her receipt.
    assert_eq!(ids.len(), 5, "{ids:?}");
    let verified = answers
        .iter()
        .map(|m| body_text(m))
        .find(|t| t.contains("verify"))
        .expect("the verify answer");
    assert!(
        verified.contains(&format!("ok {}:", t.game(2))),
        "{verified}"
    );

    // TO §26: Anna withdraws; both of her games end lost for her, the partners are told with
    // the appeal period (§29).
    relay.send(
        &relay.director,
        &format!("[{}] Rücktritt", t.id),
        &format!("Rücktritt: {anna} Wertung: verloren"),
    );
    relay.once("2026-12-02T10:00:00+01:00");
    let to_bert = body_text(&next_of(&bert, "game-end", 0));
    assert!(to_bert.contains("Einspruch"), "{to_bert}");
    assert!(to_bert.contains("16.12.2026"), "{to_bert}");
    next_of(&carl, "game-end", 0);
    let status: serde_json::Value =
        serde_json::from_str(&relay.run_ok(&["status", "--json"])).unwrap();
    let result_of = |n: u32| {
        status
            .as_array()
            .unwrap()
            .iter()
            .find(|g| g["id"] == t.game(n))
            .map(|g| (g["state"].clone(), g["result"].clone()))
            .unwrap()
    };
    assert_eq!(result_of(2), ("finished".into(), "0-1".into()));
    assert_eq!(result_of(3), ("finished".into(), "1-0".into()));
    assert_eq!(result_of(1), ("running".into(), "*".into()));
    // The crosstable: Bert and Carl one point each, Anna none.
    let text = relay.run_ok(&["status", &t.id, "--now", "2026-12-02T10:05:00+01:00"]);
    let rows: Vec<String> = text
        .lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    for row in [
        "1. Bert Berger × * 1 1 0 1",
        "1. Carl Clausen * × 1 1 0 1",
        "3. Anna Adler 0 0 × 0 0 0",
    ] {
        assert!(rows.iter().any(|r| r == row), "{row}:\n{text}");
    }

    // TO §23: Carl answers his question; Bert leaves his unanswered and TL is told after 14 days.
    relay.send(
        &relay.director,
        &format!("[{}] Rückfrage", t.id),
        &format!(
            "Rückfrage an {carl}: Wie geht es Ihnen?\nRückfrage an {bert}: Spielen Sie weiter?"
        ),
    );
    relay.once("2026-12-03T10:00:00+01:00");
    let question = next_of(&carl, "director", 0);
    let key = header(&question, "Reply-To").expect("a reply key");
    let key = key
        .rsplit('<')
        .next()
        .unwrap()
        .trim_end_matches('>')
        .to_string();
    next_of(&bert, "director", 0);
    relay.send_to(&carl, &key, "Re: Rückfrage", "Danke, gut. Ich ziehe bald.");
    relay.once("2026-12-04T10:00:00+01:00");
    let seen = fetch_all(&relay.director)
        .iter()
        .filter(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("director"))
        .count();
    let answer = body_text(&next_of(&relay.director, "director", seen - 1));
    assert!(answer.contains("Danke, gut. Ich ziehe bald."), "{answer}");
    relay.once("2026-12-17T09:59:00+01:00");
    std::thread::sleep(Duration::from_millis(500));
    let before = fetch_all(&relay.director)
        .iter()
        .filter(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("director"))
        .count();
    assert_eq!(before, seen, "nothing before the fortnight is over");
    relay.once("2026-12-17T10:01:00+01:00");
    let silence = body_text(&next_of(&relay.director, "director", seen));
    assert!(silence.contains("nicht beantwortet"), "{silence}");
    assert!(silence.contains("Bert Berger"), "{silence}");
}

/// `fernzug tournament check` says every error of a file, or its games, and makes no store;
/// `Turnier prüfen` by mail says the same and registers nothing; `Turnier zurückziehen` before
/// the first move tells every player, and the tournament leaves `status` and the store — its
/// start mails that could not go yet (SMTP away) never go, and its id is free again.
#[test]
fn a_tournament_checked_then_withdrawn_before_its_first_move_through_real_mail() {
    let relay = Relay::new("withdraw");
    let config = std::fs::read_to_string(&relay.config).unwrap();
    let config = config.replace(
        "language = \"de\"\n",
        &format!("language = \"de\"\ndirectors = [\"{}\"]\n", relay.director),
    );
    std::fs::write(&relay.config, config).unwrap();
    // SMTP through a proxy the test cuts.
    let proxy = Proxy::new(SMTP_PORT);
    relay.set_servers(
        &format!(
            "host = \"{HOST}\"\nport = {IMAP_PORT}\nsecurity = \"none\"\nuser = {{address}}\n\
             password = \"{PASSWORD}\"\nmailbox = \"INBOX\""
        ),
        &format!(
            "host = \"{HOST}\"\nport = {}\nsecurity = \"none\"",
            proxy.port
        ),
    );
    let (t, anna, bert, carl) = trio(&relay, "post");
    let file = std::fs::read_to_string(&t.path).unwrap();
    let path = t.path.to_string_lossy().into_owned();
    let store = relay.dir.join("data").join("store");

    // On the command line: every error with its line and key, exit 1.
    let broken = relay.dir.join("broken.toml");
    std::fs::write(
        &broken,
        file.replace("rules = \"post\"", "rules = \"blitz\"")
            .replace(&bert, "bert@"),
    )
    .unwrap();
    let out = relay.run(&["tournament", "check", broken.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("line 3, key `rules`: expected"), "{err}");
    assert!(
        err.contains("key `players[2].email`: \"bert@\" is not"),
        "{err}"
    );
    // The file as it should be: its games, exit 0; nothing registered, no store made.
    let table = relay.run_ok(&["tournament", "check", &path]);
    assert!(table.contains("3 players, 3 games"), "{table}");
    assert!(
        table.contains(&format!(
            "{}  round 2:  Anna Adler – Bert Berger",
            t.game(2)
        )),
        "{table}"
    );
    assert!(!store.exists(), "a check makes no store");

    // By mail: the same answer as a `director` mail, nothing registered.
    send_file(&relay, "Turnier prüfen", "turnier.toml", &file);
    relay.once("2026-11-30T11:00:00+01:00");
    let checked = body_text(&next_of(&relay.director, "director", 0));
    let flat = checked.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("3 Spieler und 3 Partien"), "{checked}");
    assert!(flat.contains("Angemeldet ist nichts"), "{checked}");
    assert!(
        checked.contains(&format!(
            "{}  Runde 2:  Anna Adler – Bert Berger",
            t.game(2)
        )),
        "{checked}"
    );
    assert_eq!(relay.run_ok(&["status", "--json"]).trim(), "[]");
    // The check on the command line reads the store now, and finds the id free still.
    relay.run_ok(&["tournament", "check", &path]);

    // Registered; its start mails cannot go (SMTP away) when the director withdraws it.
    relay.add(&t);
    proxy.cut();
    relay.send(
        &relay.director,
        "Turnier zurückziehen",
        &format!("Turnier zurückziehen: {}", t.id),
    );
    relay.once("2026-11-30T13:00:00+01:00");
    assert_eq!(relay.run_ok(&["status", "--json"]).trim(), "[]");
    let out = relay.run(&["export", "pgn", &t.id]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "no tournament {} any more",
        t.id
    );
    proxy.restore();
    relay.once("2026-11-30T15:00:00+01:00");
    for p in [&anna, &bert, &carl] {
        let notice = body_text(&next_of(p, "director", 0));
        let flat = notice.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("ist zurückgezogen, bevor ein Zug gespielt wurde"),
            "{notice}"
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
        assert_eq!(
            kinds(&fetch_all(p)),
            ["director"],
            "{p}: no start mail ever went"
        );
    }
    let confirmed = body_text(&next_of(&relay.director, "director", 1));
    assert!(confirmed.contains("Alle 3 Spieler"), "{confirmed}");
    // Its id is free again: the same file registers anew.
    relay.run_ok(&["tournament", "add", &path]);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&relay.run_ok(&["status", "--json"]))
            .unwrap()
            .as_array()
            .map(Vec::len),
        Some(3)
    );
}

/// A tournament file of Anna, Bert and Carl under `rules`, starting 2026-12-01, written (not
/// registered): (tournament, anna, bert, carl).
fn trio(relay: &Relay, rules: &str) -> (Tournament, String, String, String) {
    let (anna, bert, carl) = (
        unique_addr("anna"),
        unique_addr("bert"),
        unique_addr("carl"),
    );
    let t = relay.tournament(
        &[
            ("Anna Adler", &anna, None),
            ("Bert Berger", &bert, None),
            ("Carl Clausen", &carl, None),
        ],
        rules,
        "2026-12-01",
    );
    (t, anna, bert, carl)
}
