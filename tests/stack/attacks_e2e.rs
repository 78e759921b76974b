//! What an attacker sends, through the real mail stack (docs/security.md, issue 48): each test
//! sends the hostile mail, then a valid move in the same pass, and checks both that the attack
//! did nothing and that the relay played on — the move reached the partner.
//!
//! A mail that makes the relay panic, or kills the process, is made on purpose with the crash
//! points `in-step` and `in-stage` (`src/crash.rs`: `FERNZUG_CRASH_IF` limits them to the mails
//! containing a text, `FERNZUG_CRASH_HOW=panic` panics instead of aborting).

use std::os::unix::fs::PermissionsExt;
use std::time::{Duration, Instant};

use crate::common::{
    Duel, Mailbox, Relay, body_text, envelope_address, fetch_all, header, headers, kinds,
    send_mail, unique, unique_addr, wait_for,
};

const WAIT: Duration = Duration::from_secs(20);
const MOVE_AT: &str = "2026-12-01T10:00:00+01:00";
/// The operator's own server, as `[security] trusted_authserv_id` names it in these tests.
const OWN: &str = "mx.fernschach.test";

/// Anna (White) against Bert; `relay` (lines for `[relay]`) and `more` (whole sections) added to
/// the config.
fn duel(test: &str, relay: &str, more: &str) -> Duel {
    let d = Duel::new(test, "fax", ("Anna Adler", None), ("Bert Berger", None));
    let text = std::fs::read_to_string(&d.relay.config).expect("config");
    let text = text.replace("[imap]", &format!("{relay}\n[imap]"));
    std::fs::write(&d.relay.config, format!("{text}\n{more}\n")).expect("config written");
    d
}

/// Hands `raw` to the stack from `from` for the relay's mailbox (`to`: the bare relay address or
/// one of its plus-addresses) and waits until the mailbox holds it.
fn deliver(relay: &Relay, raw: &str, from: &str, to: &str) {
    let mut inbox = Mailbox::open(&relay.address).expect("relay mailbox");
    let before = inbox.count().expect("count");
    send_mail(raw.as_bytes(), from, &[to]).expect("the stack takes it");
    let started = Instant::now();
    while inbox.count().expect("count") <= before {
        assert!(started.elapsed() < WAIT, "the mail did not reach the relay");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A plain mail with the header lines `head` (`From`, `Subject`, …) and `body`.
fn raw_mail(head: &[String], body: &str) -> String {
    format!(
        "{}\r\nMessage-ID: <{}@attacker.test>\r\nDate: {}\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n{}\r\n",
        head.join("\r\n"),
        unique("attack"),
        chrono::Local::now().to_rfc2822(),
        body.replace('\n', "\r\n")
    )
}

/// The private reply address of the start mail `who` received.
fn key_address(who: &str) -> String {
    let start = &fetch_all(who)[0];
    envelope_address(&header(start, "Reply-To").expect("Reply-To")).to_string()
}

/// Anna's first move through her own reply key, handed to the stack after the hostile mail so
/// that the same pass reads it.
fn annas_move(d: &Duel) {
    d.relay.send_to(
        &d.anna,
        &key_address(&d.anna),
        &format!("Re: [{}] Zug", d.game),
        "1. e4",
    );
}

/// `fernzug once --now NOW`: its exit status's success and its log.
fn once(relay: &Relay, now: &str, env: &[(&str, &str)]) -> (bool, String) {
    let mut cmd = relay.command(&["once", "--now", now]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("fernzug runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The relay played on: Bert got Anna's move.
fn bert_got_the_move(d: &Duel) {
    let started = Instant::now();
    loop {
        let k = kinds(&fetch_all(&d.bert));
        if k.iter().any(|k| k == "move") {
            assert_eq!(k.iter().filter(|k| *k == "move").count(), 1, "{k:?}");
            return;
        }
        assert!(started.elapsed() < WAIT, "Bert got no move: {k:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Waits a moment for mail that should not come, then returns what `who` has.
fn settled(who: &str) -> Vec<Vec<u8>> {
    std::thread::sleep(Duration::from_millis(400));
    fetch_all(who)
}

#[test]
fn a_display_name_with_a_line_break_stops_nothing() {
    let d = duel("crlf-name", "", "");
    // TL's address with a display name whose RFC 2047 word holds CR LF ("Bob\r\nX-Injected: 1")
    // and a command the relay cannot carry out: its query goes to him under that name. Before,
    // writing its `To:` panicked, the process exited, and the next start read the mail again.
    let hostile = raw_mail(
        &[
            format!(
                "From: =?utf-8?b?Qm9iDQpYLUluamVjdGVkOiAx?= <{}>",
                d.director
            ),
            format!("To: {}", d.relay.address),
            format!("Subject: [{}] Anweisung", d.game),
        ],
        "Ergebnis: 7-3",
    );
    deliver(&d.relay, &hostile, &d.director, &d.relay.address);
    annas_move(&d);
    let (ok, log) = once(&d.relay, MOVE_AT, &[]);
    assert!(ok, "the pass ended: {log}");
    bert_got_the_move(&d);
    let tl = wait_for(&d.director, 1, WAIT);
    let query = tl
        .iter()
        .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("query"));
    let query = query.expect("TL got his query");
    assert_eq!(
        header(query, "To").as_deref().map(envelope_address),
        Some(d.director.as_str())
    );
    assert!(
        headers(query, "X-Injected").is_empty(),
        "no header was injected"
    );
    assert!(header(query, "To").unwrap().contains("Bob X-Injected: 1"));
}

#[test]
fn a_mail_that_stops_the_relay_twice_is_not_begun_a_third_time() {
    let d = duel("poison", "", "");
    d.relay
        .send(&d.anna, &format!("Re: [{}]", d.game), "Hallo POISON");
    annas_move(&d);
    let crash = [
        ("FERNZUG_CRASH_AT", "in-step"),
        ("FERNZUG_CRASH_IF", "POISON"),
    ];
    // It kills the process as it is read, twice: the second time it is read alone.
    for pass in 1..=2 {
        let (ok, log) = once(&d.relay, MOVE_AT, &crash);
        assert!(!ok, "pass {pass} should have died on the mail: {log}");
        assert!(log.contains("crash point in-step"), "{log}");
    }
    assert_eq!(kinds(&settled(&d.bert)), vec!["start"]);
    // The third time it is not begun: quarantined unread, and the move after it is played.
    let (ok, log) = once(&d.relay, MOVE_AT, &crash);
    assert!(ok, "{log}");
    assert!(log.contains("began 2 times"), "{log}");
    bert_got_the_move(&d);
    let status = d.relay.run_ok(&["status"]);
    assert!(status.contains("quarantined mails: 1"), "{status}");
}

#[test]
fn a_mail_that_makes_rendering_panic_is_quarantined_in_the_same_pass() {
    let d = duel("panic-in-stage", "", "");
    d.relay
        .send(&d.anna, &format!("Re: [{}]", d.game), "Status POISON");
    annas_move(&d);
    let crash = [
        ("FERNZUG_CRASH_AT", "in-stage"),
        ("FERNZUG_CRASH_IF", "POISON"),
        ("FERNZUG_CRASH_HOW", "panic"),
    ];
    let (ok, log) = once(&d.relay, MOVE_AT, &crash);
    assert!(ok, "{log}");
    assert!(log.contains("quarantined: rendering failure"), "{log}");
    bert_got_the_move(&d);
}

#[test]
fn a_file_naming_another_tournaments_people_is_refused_and_they_play_on() {
    let boss = unique_addr("boss");
    let d = duel("takeover", &format!("directors = [\"{boss}\"]"), "");
    let mallory = unique_addr("mallory");
    let file = format!(
        "id = \"{id}\"\nname = \"Übernahme\"\nrules = \"fax\"\nstart = \"2026-12-01\"\n\n\
         [director]\nname = \"Boss\"\nemail = \"{boss}\"\n\n\
         [[players]]\nname = \"Mallory\"\nemail = \"{mallory}\"\nalso = [\"{anna}\", \"{tl}\"]\n\n\
         [[players]]\nname = \"Moritz\"\nemail = \"{moritz}\"\n",
        id = unique("TAKE").to_uppercase().replace('_', "-"),
        anna = d.anna,
        tl = d.director,
        moritz = unique_addr("moritz"),
    );
    let register = raw_mail(
        &[
            format!("From: Boss <{boss}>"),
            format!("To: {}", d.relay.address),
            "Subject: Turnier anmelden".to_string(),
        ],
        &file,
    );
    deliver(&d.relay, &register, &boss, &d.relay.address);
    annas_move(&d);
    let (ok, log) = once(&d.relay, MOVE_AT, &[]);
    assert!(ok, "{log}");
    // Anna's move through her own key is hers: Bert has it.
    bert_got_the_move(&d);
    let answer = wait_for(&boss, 1, WAIT);
    assert_eq!(kinds(&answer), vec!["query"]);
    let text = body_text(&answer[0])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains(&d.anna) && text.contains(&d.director),
        "{text}"
    );
    let status = d.relay.run_ok(&["status", "--json", "--now", MOVE_AT]);
    assert!(!status.contains(&mallory), "nothing registered: {status}");
    // TL's command is his.
    d.relay.send(
        &d.director,
        &format!("[{}]", d.game),
        &format!("Nur Züge: {}", d.game),
    );
    let (ok, log) = once(&d.relay, "2026-12-01T11:00:00+01:00", &[]);
    assert!(ok, "{log}");
    let tl = wait_for(&d.director, 1, WAIT);
    assert!(
        kinds(&tl).iter().any(|k| k == "director"),
        "TL's command carried out: {:?}",
        kinds(&tl)
    );
    // `tournament add` refuses the same file: exit 1, the addresses named.
    let path = d.relay.dir.join("takeover.toml");
    std::fs::write(&path, &file).unwrap();
    let out = d.relay.run(&["tournament", "add", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&d.anna) && err.contains("belongs to someone else"),
        "{err}"
    );
}

/// A delivery-status report about `original` that says `failed` could not be reached.
fn dsn(relay: &Relay, failed: &str, original: &str, game: &str) -> String {
    format!(
        "From: MAILER-DAEMON@fernschach.test (Mail Delivery System)\r\n\
         To: {relay}\r\nSubject: Undelivered Mail Returned to Sender\r\n\
         Message-ID: <{id}@fernschach.test>\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n\
         --B\r\nContent-Type: text/plain\r\n\r\nundeliverable: see http://evil.example/claim\r\n\
         --B\r\nContent-Type: message/delivery-status\r\n\r\n\
         Reporting-MTA: dns; fernschach.test\r\n\r\n\
         Final-Recipient: rfc822; {failed}\r\nAction: failed\r\nStatus: 5.1.1\r\n\
         Diagnostic-Code: smtp; 550 5.1.1 {filler}\r\n\r\n\
         --B\r\nContent-Type: text/rfc822-headers\r\n\r\n\
         Message-ID: {original}\r\nX-Fernzug-Kind: move\r\nX-Fernzug-Game: {game}\r\n\r\n\
         --B--\r\n",
        relay = relay.address,
        id = unique("dsn"),
        filler = "visit http://evil.example/ now ".repeat(20),
    )
}

#[test]
fn delivery_reports_count_only_for_a_mail_the_relay_sent_to_that_recipient() {
    let d = duel("forged-dsn", "", "");
    let annas_start = header(&fetch_all(&d.anna)[0], "Message-ID").unwrap();
    let berts_start = header(&fetch_all(&d.bert)[0], "Message-ID").unwrap();
    // Forged: Anna's start mail "bounced at Bert", and a mail the relay never sent.
    for (failed, original) in [
        (d.bert.as_str(), annas_start.as_str()),
        (d.bert.as_str(), "<fernzug.x.5.move@fernschach.test>"),
    ] {
        let raw = dsn(&d.relay, failed, original, &d.game);
        deliver(&d.relay, &raw, "", &d.relay.address);
    }
    annas_move(&d);
    let (ok, log) = once(&d.relay, MOVE_AT, &[]);
    assert!(ok, "{log}");
    bert_got_the_move(&d);
    assert!(
        settled(&d.director).is_empty(),
        "no report for a forged DSN"
    );
    assert_eq!(log.matches("dropped, not answered").count(), 2, "{log}");
    // A report about the mail the relay sent Bert counts, once, quoting at most 500 characters.
    let raw = dsn(&d.relay, &d.bert, &berts_start, &d.game);
    deliver(&d.relay, &raw, "", &d.relay.address);
    let (ok, log) = once(&d.relay, "2026-12-01T11:00:00+01:00", &[]);
    assert!(ok, "{log}");
    let tl = wait_for(&d.director, 1, WAIT);
    assert_eq!(kinds(&tl), vec!["bounce-report"]);
    let text = body_text(&tl[0]);
    assert!(text.matches("evil.example").count() < 20, "{text}");
    assert!(d.relay.run_ok(&["verify", &d.game]).starts_with("ok "));
}

#[test]
fn each_question_has_its_own_random_key_and_a_guessed_one_reaches_nobody() {
    let d = duel("question-keys", "", "");
    d.relay.send(
        &d.director,
        &format!("[{}] Rückfrage", d.id),
        &format!(
            "Rückfrage an {}: Wie geht es Ihnen?\nRückfrage an {}: Spielen Sie weiter?",
            d.anna, d.bert
        ),
    );
    let (ok, log) = once(&d.relay, MOVE_AT, &[]);
    assert!(ok, "{log}");
    let mut seqs = Vec::new();
    for who in [&d.anna, &d.bert] {
        let q = wait_for(who, 2, WAIT);
        let reply_to = envelope_address(&header(&q[1], "Reply-To").unwrap()).to_string();
        let key = reply_to
            .split_once('+')
            .unwrap()
            .1
            .split('@')
            .next()
            .unwrap()
            .to_string();
        assert!(
            key.len() == 32 && key.chars().all(|c| c.is_ascii_hexdigit()),
            "{who}: key {key}"
        );
        let id = header(&q[1], "Message-ID").unwrap();
        seqs.push(id.split('.').nth(2).unwrap().parse::<u64>().unwrap());
    }
    // Bert forges Anna's answer to every key a counter near the relay's Message-IDs would give.
    let tl_before = settled(&d.director).len();
    let (local, domain) = d.relay.address.split_once('@').unwrap();
    for n in seqs.iter().min().unwrap().saturating_sub(3)..seqs.iter().max().unwrap() + 4 {
        let to = format!("{local}+q{n}@{domain}");
        let raw = raw_mail(
            &[
                format!("From: Anna Adler <{}>", d.anna),
                format!("To: {to}"),
                "Subject: Re: Rückfrage".to_string(),
            ],
            "Ich gebe alle Partien auf.",
        );
        deliver(&d.relay, &raw, &d.bert, &to);
    }
    annas_move(&d);
    let (ok, log) = once(&d.relay, "2026-12-01T11:00:00+01:00", &[]);
    assert!(ok, "{log}");
    bert_got_the_move(&d);
    let tl = settled(&d.director);
    assert!(
        !tl[tl_before..]
            .iter()
            .any(|m| body_text(m).contains("Ich gebe alle Partien auf")),
        "a guessed key reached TL"
    );
}

#[test]
fn strangers_get_no_backscatter() {
    let d = duel(
        "backscatter",
        "",
        &format!("[security]\ntrusted_authserv_id = \"{OWN}\"\n"),
    );
    // A forged stranger names the public tournament id: no mail at all.
    let victim = unique_addr("victim");
    let spam = |from: &str, vouched: bool| {
        let mut head = vec![
            format!("From: \"Claim your prize at http://spam.example\" <{from}>"),
            format!("To: {}", d.relay.address),
            format!("Subject: {} Cheap pills at http://spam.example", d.id),
        ];
        if vouched {
            // As the operator's own server writes it on top.
            head.insert(
                0,
                format!("Authentication-Results: {OWN}; spf=pass smtp.mailfrom=fernschach.test"),
            );
        }
        raw_mail(&head, "Hallo, Gewinne unter http://spam.example")
    };
    deliver(&d.relay, &spam(&victim, false), &victim, &d.relay.address);
    // One the own server vouches for: one answer that repeats nothing of his mail, once a day.
    let carl = unique_addr("carl");
    deliver(&d.relay, &spam(&carl, true), &carl, &d.relay.address);
    deliver(&d.relay, &spam(&carl, true), &carl, &d.relay.address);
    annas_move(&d);
    let (ok, log) = once(&d.relay, MOVE_AT, &[]);
    assert!(ok, "{log}");
    bert_got_the_move(&d);
    assert!(
        settled(&victim).is_empty(),
        "backscatter to a forged sender"
    );
    let answers = settled(&carl);
    assert_eq!(kinds(&answers), vec!["query"]);
    let raw = String::from_utf8_lossy(&answers[0]).into_owned();
    assert!(
        !raw.contains("spam.example") && !raw.contains("Claim"),
        "{raw}"
    );
    assert!(log.contains("already answered today"), "{log}");
}

#[test]
fn a_round_robin_of_201_players_by_mail_is_refused() {
    let d = duel(
        "too-many-games",
        &format!("directors = [\"{}\"]", "__TL__"),
        "",
    );
    let text = std::fs::read_to_string(&d.relay.config).unwrap();
    std::fs::write(&d.relay.config, text.replace("__TL__", &d.director)).unwrap();
    let mut file = format!(
        "id = \"{}\"\nname = \"Riesig\"\nrules = \"post\"\nstart = \"2026-12-01\"\n\n\
         [director]\nname = \"Tom Leiter\"\nemail = \"{}\"\n",
        unique("BIG").to_uppercase().replace('_', "-"),
        d.director
    );
    for i in 0..201 {
        file.push_str(&format!(
            "\n[[players]]\nname = \"Spieler {i}\"\nemail = \"p{i}-{}\"\n",
            unique_addr("x")
        ));
    }
    let register = raw_mail(
        &[
            format!("From: Tom Leiter <{}>", d.director),
            format!("To: {}", d.relay.address),
            "Subject: Turnier anmelden".to_string(),
        ],
        &file,
    );
    deliver(&d.relay, &register, &d.director, &d.relay.address);
    annas_move(&d);
    let (ok, log) = once(&d.relay, MOVE_AT, &[]);
    assert!(ok, "{log}");
    bert_got_the_move(&d);
    let tl = wait_for(&d.director, 1, WAIT);
    assert_eq!(kinds(&tl), vec!["query"]);
    let text = body_text(&tl[0]);
    assert!(text.contains("20100") && text.contains("20000"), "{text}");
    let games = d.relay.run_ok(&["status", "--json", "--now", MOVE_AT]);
    let games: serde_json::Value = serde_json::from_str(&games).unwrap();
    assert_eq!(games.as_array().unwrap().len(), 1, "nothing registered");
}

#[test]
fn keine_warnungen_needs_the_reply_key_under_require_reply_key() {
    let d = duel("warnings-key", "", "[security]\nrequire_reply_key = true\n");
    // A forged From to the bare address turns Anna's clock warnings off: not any more.
    d.relay
        .send(&d.anna, &format!("Re: [{}]", d.game), "Keine Warnungen");
    annas_move(&d);
    let (ok, log) = once(&d.relay, MOVE_AT, &[]);
    assert!(ok, "{log}");
    bert_got_the_move(&d);
    let anna = settled(&d.anna);
    let k = kinds(&anna);
    assert!(k.contains(&"query".to_string()), "{k:?}");
    assert!(!k.contains(&"status".to_string()), "{k:?}");
    assert!(log.contains("NotThroughReplyKey"), "{log}");
    assert!(!log.contains("clock warnings off"), "{log}");
}

#[test]
fn the_store_and_its_backup_are_private_whatever_the_umask() {
    let relay = Relay::new("modes");
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let t = relay.tournament(
        &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
        "fax",
        "2026-12-01",
    );
    let sh = |args: &str| {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!(
                "umask 022 && exec '{}' --config '{}' {args}",
                env!("CARGO_BIN_EXE_fernzug"),
                relay.config.display()
            ))
            .output()
            .expect("sh runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    sh(&format!(
        "tournament add '{}' --now 2026-11-30T12:00:00+01:00",
        t.path.display()
    ));
    sh("once --now 2026-11-30T12:00:00+01:00");
    let backup = relay.dir.join("backup");
    sh(&format!("backup '{}'", backup.display()));
    let data = relay.dir.join("data");
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    for dir in [
        data.clone(),
        data.join("store"),
        backup.clone(),
        backup.join("store"),
    ] {
        assert_eq!(mode(&dir), 0o700, "{}", dir.display());
    }
    for file in [
        data.join("store/fernzug.redb"),
        backup.join("store/fernzug.redb"),
    ] {
        assert_eq!(mode(&file), 0o600, "{}", file.display());
    }
    for entry in walk(&data).into_iter().chain(walk(&backup)) {
        let m = mode(&entry);
        assert_eq!(m & 0o077, 0, "{} is {m:o}", entry.display());
    }
}

/// Every file and folder under `dir`.
fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        }
        out.push(p);
    }
    out
}
