//! End-to-end: the relay through the real loopback mail stack (Postfix → Dovecot, read by Dovecot
//! or, with `FERNZUG_STACK_IMAP=courier`, by Courier-IMAP), driven with `fernzug once --now …`.
//! Players' mails go in by SMTP; every mailbox is read back by IMAP.

use std::time::{Duration, Instant};

use crate::common::{
    COURIER_IMAPS_PORT, Duel, HOST, IMAP_PORT, ImapServer, Relay, SMTP_PORT, body_text, fetch_all,
    header, imap_server, kinds, relay_imap_port, send_text, stack_dir, unique_addr, wait_for,
};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::{Chess, EnPassantMode, Position};

const WAIT: Duration = Duration::from_secs(20);

/// Anna (White, German) against Bert (Black, English) under `rules`; start mails delivered.
fn duel(name: &str, rules: &str) -> Duel {
    Duel::new(
        name,
        rules,
        ("Anna Adler", Some("de")),
        ("Bert Berger", Some("en")),
    )
}

#[test]
fn start_mails_carry_the_contract_headers() {
    let d = duel("start", "fax");
    let a = &fetch_all(&d.anna)[0];
    let b = &fetch_all(&d.bert)[0];
    assert_eq!(header(a, "X-Fernzug-Kind").as_deref(), Some("start"));
    assert_eq!(header(a, "X-Fernzug-Color").as_deref(), Some("white"));
    assert_eq!(header(b, "X-Fernzug-Color").as_deref(), Some("black"));
    assert_eq!(
        header(a, "X-Fernzug-Game").as_deref(),
        Some(d.game.as_str())
    );
    assert_eq!(
        header(a, "Auto-Submitted").as_deref(),
        Some("auto-generated")
    );
    assert!(
        header(a, "Subject")
            .unwrap()
            .contains(&format!("[{}]", d.game))
    );
    assert!(
        header(a, "Reply-To").unwrap().contains("+"),
        "Reply-To carries a key"
    );
    assert_ne!(
        header(a, "Reply-To"),
        header(b, "Reply-To"),
        "keys are per player"
    );
    assert!(header(a, "References").is_some(), "threads into its game");
    assert_eq!(
        header(a, "X-Fernzug-FEN").as_deref(),
        Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")
    );
    // German for Anna, English for Bert; umlauts survive.
    assert!(body_text(a).contains("Weiß"), "{}", body_text(a));
    assert!(body_text(b).contains("You have Black"), "{}", body_text(b));
    let out = d
        .relay
        .run_ok(&["status", "--json", "--now", "2026-11-30T13:00:00+01:00"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let g = &v[0];
    assert_eq!(g["id"], d.game.as_str());
    assert_eq!(g["state"], "waiting-start");
    assert_eq!(g["to_move"], "white");
    assert_eq!(g["result"], "*");
    assert_eq!(g["clock"]["white"]["allowed"], 40);
    assert_eq!(g["clock"]["white"]["time_forfeits"], 0);
    assert_eq!(g["clock"]["black"]["on_leave"], false);
}

#[test]
fn opening_german_long_against_iccf_numeric_every_fen_checked() {
    let d = duel("opening", "fax");
    // (sender is Anna?, body, SAN played)
    let plies: &[(bool, &str, &str)] = &[
        (true, "1. e2-e4", "e4"),
        (false, "1. 5254 5755", "e5"),
        (true, "1... e7-e5\n2. Sg1-f3", "Nf3"),
        (false, "2. 7163 2836", "Nc6"),
        (true, "2... Sb8-c6\n3. Lf1-b5", "Bb5"),
        (false, "3. 6125 1716", "a6"),
        (true, "3... a7-a6\n4. Lb5-a4", "Ba4"),
        (false, "4. 2514 7866", "Nf6"),
        (true, "4... Sg8-f6\n5. O-O", "O-O"),
        (false, "5. 5171 6654", "Nxe4"),
    ];
    let mut pos = Chess::default();
    let mut now = chrono::DateTime::parse_from_rfc3339("2026-12-01T10:00:00+01:00").unwrap();
    for (i, (anna, body, san)) in plies.iter().enumerate() {
        let (from, to) = if *anna {
            (&d.anna, &d.bert)
        } else {
            (&d.bert, &d.anna)
        };
        d.play(from, body, &now.to_rfc3339());
        let mv = san.parse::<San>().unwrap().to_move(&pos).unwrap();
        pos.play_unchecked(mv);
        let fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
        // Partner: start + one move mail per partner ply so far.
        let n_partner = 1 + i / 2 + 1;
        let inbox = wait_for(to, n_partner, WAIT);
        let forward = inbox.last().unwrap();
        assert_eq!(
            header(forward, "X-Fernzug-Kind").as_deref(),
            Some("move"),
            "ply {i}: {}",
            body_text(forward)
        );
        assert_eq!(
            header(forward, "X-Fernzug-FEN").as_deref(),
            Some(fen.as_str()),
            "ply {i}"
        );
        let receipts = wait_for(from, 1 + i / 2 + 1, WAIT);
        assert_eq!(
            header(receipts.last().unwrap(), "X-Fernzug-Kind").as_deref(),
            Some("receipt")
        );
        now += chrono::Duration::hours(3);
    }
    // Anna (German) sees Black's moves in German notation, Bert his own ICCF form back.
    let anna_last = fetch_all(&d.anna);
    let text = body_text(
        anna_last
            .iter()
            .rev()
            .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("move"))
            .unwrap(),
    );
    assert!(
        text.contains("5... Sf6xe4") || text.contains("5... Sxe4"),
        "{text}"
    );
    let bert_receipt = fetch_all(&d.bert);
    let text = body_text(bert_receipt.last().unwrap());
    assert!(
        text.contains("5... 6654"),
        "Bert is written to in his own form: {text}"
    );
    let out = d.relay.run_ok(&[
        "status",
        d.game.as_str(),
        "--json",
        "--now",
        &now.to_rfc3339(),
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["moves"].as_array().unwrap().len(), 10);
    assert_eq!(v[0]["state"], "running");
}

#[test]
fn every_query_names_what_is_wrong_and_forwards_nothing() {
    let relay = Relay::new("queries");
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let carl = unique_addr("carl");
    let t = relay.tournament_with_games(
        &[
            ("Anna Adler", &anna, Some("en")),
            ("Bert Berger", &bert, Some("en")),
            ("Carl Clausen", &carl, Some("en")),
        ],
        &[(&anna, &bert), (&bert, &carl)],
        "fax",
        "2026-12-01",
    );
    relay.add(&t);
    let g1 = t.game(1);
    let subject = format!("[{g1}]");
    relay.send(&anna, &subject, "1. e4");
    relay.once("2026-12-01T10:00:00+01:00");
    wait_for(&bert, 3, WAIT); // start 1, start 2, move
    let cases: &[(&str, &str, String, &str)] = &[
        (
            "wrong number",
            &bert,
            "1. e4\n2... e5".into(),
            "Wrong move number",
        ),
        (
            "wrong repetition",
            &bert,
            "1. d4 e5".into(),
            "your partner's last move was 1. e4",
        ),
        (
            "missing repetition",
            &bert,
            "1... e5".into(),
            "repetition of your partner's last move is missing",
        ),
        ("impossible move", &bert, "1. e4 Ke7".into(), "impossible"),
        (
            "not your turn",
            &anna,
            "1... e5 2. Nf3".into(),
            "your partner's move",
        ),
        (
            "not a player",
            &carl,
            "1. e4 e5".into(),
            "do not play in game",
        ),
    ];
    for (i, (what, from, body, words)) in cases.iter().enumerate() {
        let before = fetch_all(from).len();
        relay.send(from, &subject, body);
        relay.once(&format!("2026-12-01T{:02}:00:00+01:00", 11 + i));
        let inbox = wait_for(from, before + 1, WAIT);
        let q = inbox.last().unwrap();
        assert_eq!(
            header(q, "X-Fernzug-Kind").as_deref(),
            Some("query"),
            "{what}"
        );
        assert!(body_text(q).contains(words), "{what}: {}", body_text(q));
    }
    // An unknown game.
    let before = fetch_all(&anna).len();
    relay.send(&anna, &format!("[{}/99]", t.id), "1. e4");
    relay.once("2026-12-01T18:00:00+01:00");
    let q = wait_for(&anna, before + 1, WAIT);
    assert!(
        body_text(q.last().unwrap()).contains("There is no game"),
        "{}",
        body_text(q.last().unwrap())
    );
    // Nothing was forwarded: Bert has his two starts and one move, the game one ply.
    assert_eq!(
        kinds(&fetch_all(&bert))
            .iter()
            .filter(|k| *k == "move")
            .count(),
        1
    );
    let out = relay.run_ok(&[
        "status",
        &g1,
        "--json",
        "--now",
        "2026-12-01T19:00:00+01:00",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[0]["moves"], serde_json::json!(["e4"]));
}

#[test]
fn the_same_mail_delivered_twice_is_played_once() {
    let d = duel("duplicate", "fax");
    let id = format!("<{}@fernschach.test>", crate::common::unique("dup"));
    let raw = crate::common::text_mail(
        &d.anna,
        &d.relay.address,
        &format!("[{}]", d.game),
        "1. e4",
        &id,
    );
    crate::common::send_mail(raw.as_bytes(), &d.anna, &[&d.relay.address]).unwrap();
    crate::common::send_mail(raw.as_bytes(), &d.anna, &[&d.relay.address]).unwrap();
    wait_for(&d.relay.address, 2, WAIT);
    d.relay.once("2026-12-01T10:00:00+01:00");
    // and once more in a later pass
    crate::common::send_mail(raw.as_bytes(), &d.anna, &[&d.relay.address]).unwrap();
    wait_for(&d.relay.address, 3, WAIT);
    d.relay.once("2026-12-01T11:00:00+01:00");
    let bert = wait_for(&d.bert, 2, WAIT);
    std::thread::sleep(Duration::from_millis(300));
    let bert = if fetch_all(&d.bert).len() > bert.len() {
        fetch_all(&d.bert)
    } else {
        bert
    };
    assert_eq!(kinds(&bert), vec!["start", "move"]);
    let anna = fetch_all(&d.anna);
    assert_eq!(kinds(&anna), vec!["start", "receipt"]);
}

#[test]
fn a_reply_through_the_key_needs_no_game_in_the_subject() {
    let d = duel("replykey", "fax");
    let start = &fetch_all(&d.anna)[0];
    let reply_to = header(start, "Reply-To").unwrap();
    let key_addr = crate::common::envelope_address(&reply_to).to_string();
    assert!(key_addr.starts_with(d.relay.address.split('@').next().unwrap()));
    d.relay.send_to(
        &d.anna,
        &key_addr,
        "Mein erster Zug",
        "1. e4\n\nViele Grüße\nAnna",
    );
    d.relay.once("2026-12-01T10:00:00+01:00");
    let bert = wait_for(&d.bert, 2, WAIT);
    assert_eq!(
        header(bert.last().unwrap(), "X-Fernzug-Kind").as_deref(),
        Some("move")
    );
    // Bert's own key from another address counts for nothing.
    let bert_key =
        crate::common::envelope_address(&header(&fetch_all(&d.bert)[0], "Reply-To").unwrap())
            .to_string();
    d.relay.send_to(&d.anna, &bert_key, "x", "1. e4 e5");
    d.relay.once("2026-12-01T11:00:00+01:00");
    let anna = wait_for(&d.anna, 3, WAIT);
    assert_eq!(
        header(anna.last().unwrap(), "X-Fernzug-Kind").as_deref(),
        Some("query")
    );
    let _ = d.director;
}

/// With IDLE (Dovecot) the daemon sees a new mail at once; without (Courier-IMAP) at its next NOOP,
/// [`fernzug::imap::POLL_INTERVAL`] at the latest.
#[test]
fn run_forwards_a_new_mail_within_two_seconds_via_idle_or_one_poll_later_without() {
    let bound = match imap_server() {
        ImapServer::Dovecot => Duration::from_secs(2),
        ImapServer::Courier => fernzug::imap::POLL_INTERVAL + Duration::from_secs(2),
    };
    let relay = Relay::new("idle");
    let (t, anna, bert) = relay.duo_today();
    let mut child = relay
        .command(&["run"])
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for(&bert, 1, WAIT); // the start mail, delivered by the daemon
    wait_for(&anna, 1, WAIT);
    // Let the daemon settle into IDLE, then time one move from SMTP to the partner's inbox.
    std::thread::sleep(Duration::from_millis(500));
    let sent = Instant::now();
    send_text(&anna, &relay.address, &format!("[{}]", t.game(1)), "1. e4");
    let inbox = wait_for(&bert, 2, Duration::from_secs(10));
    let elapsed = sent.elapsed();
    // The running daemon keeps the store open while it waits, and lets go when a command asks
    // for it (`store.wanted`): status answers meanwhile, and the daemon goes on afterwards.
    let status = relay.run_ok(&["status", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v[0]["moves"], serde_json::json!(["e4"]));
    send_text(
        &bert,
        &relay.address,
        &format!("[{}]", t.game(1)),
        "1. e4 e5",
    );
    // Anna has her start mail and the receipt for e4; Bert's move comes third.
    let forwarded = wait_for(&anna, 3, WAIT);
    assert!(
        forwarded
            .iter()
            .any(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("move")),
        "Bert's move reached Anna after the daemon let go of the store and took it back"
    );
    let status = relay.run_ok(&["status", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&status).unwrap();
    assert_eq!(v[0]["moves"], serde_json::json!(["e4", "e5"]));
    let pid = child.id().to_string();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status();
    let status = child.wait().unwrap();
    assert_eq!(
        header(inbox.last().unwrap(), "X-Fernzug-Kind").as_deref(),
        Some("move")
    );
    eprintln!("forward took {elapsed:?} ({:?})", imap_server());
    assert!(elapsed < bound, "forward took {elapsed:?}");
    assert!(
        status.success(),
        "fernzug run stops cleanly on SIGTERM: {status:?}"
    );
}

#[test]
fn bad_configuration_exits_2_naming_file_and_key() {
    let relay = Relay::new("badconfig");
    let text = std::fs::read_to_string(&relay.config).unwrap().replace(
        &format!("port = {}\n", relay_imap_port()),
        "port = \"abc\"\n",
    );
    std::fs::write(&relay.config, text).unwrap();
    let out = relay.run(&["status"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("fernzug.toml") && err.contains("imap.port"),
        "{err}"
    );
}

/// An operator who moves the relay's mailbox to the other IMAP server (Dovecot and Courier-IMAP on
/// the same Maildir): that server numbers the mailbox anew (another UIDVALIDITY), so the relay reads
/// every mail in it again and acts on none twice (the store knows each by its Message-ID); the next
/// move goes through the new server.
#[test]
fn a_relay_moved_to_the_other_imap_server_reads_its_mailbox_again_and_acts_on_nothing_twice() {
    let d = duel("other-server", "fax");
    d.play(&d.anna, "1. e4", "2026-12-01T10:00:00+01:00");
    wait_for(&d.bert, 2, WAIT);
    let other = match imap_server() {
        ImapServer::Dovecot => format!(
            "host = \"{HOST}\"\nport = {COURIER_IMAPS_PORT}\nsecurity = \"tls\"\nca_file = \"{}\"\n",
            stack_dir().join("tls/ca.pem").display()
        ),
        ImapServer::Courier => {
            format!("host = \"{HOST}\"\nport = {IMAP_PORT}\nsecurity = \"none\"\n")
        }
    };
    d.relay.set_servers(
        &format!("{other}user = {{address}}\npassword = \"test\"\nmailbox = \"INBOX\"\n"),
        &format!("host = \"{HOST}\"\nport = {SMTP_PORT}\nsecurity = \"none\"\n"),
    );
    let out = d.relay.run(&["once", "--now", "2026-12-01T10:30:00+01:00"]);
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{log}");
    assert!(
        log.contains("pass done: 0 processed, 1 duplicates"),
        "Anna's move, read again through the other server, is known: {log}"
    );
    d.play(&d.bert, "1. e4 e5", "2026-12-01T11:00:00+01:00");
    wait_for(&d.anna, 3, WAIT);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(kinds(&fetch_all(&d.anna)), ["start", "receipt", "move"]);
    assert_eq!(kinds(&fetch_all(&d.bert)), ["start", "move", "receipt"]);
    assert_eq!(
        d.status("2026-12-01T11:00:00+01:00")["moves"],
        serde_json::json!(["e4", "e5"])
    );
}

/// `fernzug check` on the chosen server: every line `ok`, IDLE as Dovecot offers it or the NOOP
/// polling Courier-IMAP gets, the probe found through a plus-address and removed (UIDPLUS).
#[test]
fn fernzug_check_passes_and_removes_its_probe_on_the_chosen_server() {
    let relay = Relay::new("check");
    let out = relay.run(&["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let idle = match imap_server() {
        ImapServer::Dovecot => "ok    IMAP IDLE: offered",
        ImapServer::Courier => "ok    IMAP IDLE: not offered: the relay polls every 5 s",
    };
    assert!(stdout.contains(idle), "{stdout}");
    assert!(stdout.contains("ok    probe: a mail to"), "{stdout}");
    assert_eq!(fetch_all(&relay.address).len(), 0, "the probe is removed");
}

#[test]
fn time_never_runs_backwards() {
    let d = duel("backwards", "fax");
    let out = d.relay.run(&["once", "--now", "2026-11-01T00:00:00+01:00"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
