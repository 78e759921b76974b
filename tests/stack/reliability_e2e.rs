//! Reliability through the real loopback mail stack: no loops (RFC 3834 corpus, the answer
//! limit), no strangers and no forgeries, bounded mails, quarantine instead of endless retries,
//! and outages of SMTP and IMAP simulated by a proxy the test cuts (the shared stack itself is
//! never stopped). The crash tests are in `crash_e2e.rs`.

use crate::proxy;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{
    Daemon, ImapServer, REGISTERED, Relay, Tournament, body_text, envelope_address, fetch_all,
    header, kinds, send_mail, send_text, unique, unique_addr, wait_for,
};
use proxy::Proxy;

const WAIT: Duration = Duration::from_secs(20);

/// Rewrites the relay's config file with `f`.
fn edit_config(relay: &Relay, f: impl Fn(String) -> String) {
    let text = std::fs::read_to_string(&relay.config).unwrap();
    std::fs::write(&relay.config, f(text)).unwrap();
}

/// The relay talks to `port` instead of the stack's `stack_port`.
fn through(relay: &Relay, stack_port: u16, port: u16) {
    edit_config(relay, |t| {
        t.replace(
            &format!("port = {stack_port}\n"),
            &format!("port = {port}\n"),
        )
    });
}

/// `fernzug once --now NOW`, returning stderr (the log), asserting success.
fn once_log(relay: &Relay, now: &str) -> String {
    let out = relay.run(&["once", "--now", now]);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "once {now} failed:\n{log}");
    log
}

/// The number `N` of "N sent" in the last pass report of `log`.
fn sent(log: &str) -> usize {
    let line = log
        .lines()
        .rev()
        .find(|l| l.contains("pass done:"))
        .unwrap_or_else(|| panic!("no pass report in\n{log}"));
    line.split(", ")
        .find_map(|p| p.strip_suffix(" sent"))
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or_else(|| panic!("no sent count in {line}"))
}

/// The moves of game `game` as `status --json` shows them.
fn moves(relay: &Relay, game: &str) -> Vec<String> {
    let out = relay.run_ok(&["status", game, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    v[0]["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

struct Duel {
    relay: Relay,
    t: Tournament,
    anna: String,
    bert: String,
    game: String,
}

/// Anna (White) against Bert, registered 2026-11-30 12:00, start mails delivered. `setup`
/// edits the config first.
fn duel(name: &str, setup: impl FnOnce(&Relay)) -> Duel {
    let relay = Relay::new(name);
    setup(&relay);
    let (t, anna, bert) = relay.duel_started();
    Duel {
        game: t.game(1),
        relay,
        t,
        anna,
        bert,
    }
}

impl Duel {
    fn send(&self, from: &str, body: &str) -> String {
        send_text(
            from,
            &self.relay.address,
            &format!("Re: [{}] Zug", self.game),
            body,
        )
    }

    /// Waits until the relay's own inbox holds `n` mails (the stack delivered them).
    fn relay_has(&self, n: usize) {
        wait_for(&self.relay.address, n, WAIT);
    }
}

// ------------------------------------------------------------------------------------------------
// 3. No loops

#[test]
fn rfc3834_corpus_of_auto_replies_and_bounces_gets_no_answer() {
    let d = duel("auto-corpus", |_| {});
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/auto");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "eml"))
        .collect();
    files.sort();
    assert!(files.len() >= 19, "the corpus is there: {files:?}");
    let mut ids = Vec::new();
    for f in &files {
        let id = unique("auto");
        let text = std::fs::read_to_string(f)
            .unwrap()
            .replace("{{PLAYER}}", &d.anna)
            .replace("{{RELAY}}", &d.relay.address)
            .replace("{{GAME}}", &d.game)
            .replace("{{DOMAIN}}", crate::common::DOMAIN)
            .replace("{{ID}}", &id);
        let envelope = if text.contains("Return-Path: <>") {
            ""
        } else {
            d.anna.as_str()
        };
        send_mail(text.as_bytes(), envelope, &[&d.relay.address])
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        ids.push((f.file_name().unwrap().to_string_lossy().into_owned(), id));
    }
    d.relay_has(files.len());
    let log = once_log(&d.relay, "2026-12-01T10:00:00+01:00");
    // Nothing answers a sender. What goes out is only the director's Fax 2.2 bounce reports
    // about the relay's own mails to Anna that the bounces in the corpus name.
    let to_director = log
        .lines()
        .filter(|l| l.contains("(bounce-report) to") && l.contains(&d.relay.director))
        .count();
    assert_eq!(sent(&log), to_director, "nothing answered:\n{log}");
    for (file, id) in &ids {
        let line = log
            .lines()
            .find(|l| l.contains(id.as_str()))
            .unwrap_or_else(|| panic!("{file}: not in the log\n{log}"));
        assert!(
            line.contains("not answered")
                || line.contains("relay's own")
                || line.contains("delivery-status report"),
            "{file}: {line}"
        );
    }
    assert_eq!(kinds(&fetch_all(&d.anna)), vec!["start"], "Anna's mailbox");
    assert_eq!(kinds(&fetch_all(&d.bert)), vec!["start"], "Bert's mailbox");
    assert!(moves(&d.relay, &d.game).is_empty());
    // The test can fail: the same player's plain mail is answered (forwarded to Bert as a
    // message, TO §30, and confirmed to her).
    d.send(&d.anna, "Hallo");
    d.relay_has(files.len() + 1);
    let log = once_log(&d.relay, "2026-12-01T11:00:00+01:00");
    assert_eq!(sent(&log), 2, "{log}");
    eprintln!(
        "RFC 3834 corpus: {} automatic mails, 0 answers",
        files.len()
    );
}

#[test]
fn rate_limit_a_headerless_autoresponder_gets_at_most_11_mails_a_day() {
    let d = duel("autoresponder", |_| {});
    // An auto-responder that marks nothing: 15 replies in a day, each worth a query.
    for i in 0..15 {
        d.send(&d.bert, &format!("Ich bin nicht da ({i})."));
    }
    d.relay_has(15);
    d.relay.once("2026-12-01T10:00:00+01:00");
    let got = wait_for(&d.bert, 12, WAIT);
    // Give the stack a moment for anything beyond 12 that should not be there.
    std::thread::sleep(Duration::from_millis(500));
    let got = fetch_all(&d.bert).len().max(got.len()) - 1; // minus the start mail
    assert_eq!(got, 11, "10 answers and one notice");
    let last = fetch_all(&d.bert).pop().unwrap();
    assert!(
        body_text(&last).contains("bis morgen"),
        "{}",
        body_text(&last)
    );
    // The next day he is answered again; the day after that too, at most 11 a day.
    d.send(&d.bert, "Ich bin immer noch nicht da.");
    d.relay_has(16);
    d.relay.once("2026-12-02T10:00:00+01:00");
    wait_for(&d.bert, 13, WAIT);
    eprintln!("header-less auto-responder: 15 mails in a day -> {got} answers");
}

// ------------------------------------------------------------------------------------------------
// 4. Strangers and forgeries

#[test]
fn security_strangers_partner_out_of_turn_and_foreign_keys_make_no_move() {
    let d = duel("strangers", |_| {});
    let key_of =
        |who: &str| envelope_address(&header(&fetch_all(who)[0], "Reply-To").unwrap()).to_string();
    let anna_key = key_of(&d.anna);
    let bert_key = key_of(&d.bert);
    let mallory = unique_addr("mallory");
    // A stranger with the game in the subject and a legal move.
    d.send(&mallory, "1. e4");
    // A stranger through Anna's private reply address.
    send_text(&mallory, &anna_key, "Re: Zug", "1. e4");
    // The partner out of turn, with and without the subject.
    d.send(&d.bert, "1. e4");
    send_text(&d.bert, &bert_key, "Re: Zug", "1. e4 e5");
    // Bert through Anna's key (a forwarded or reused key), Anna through Bert's.
    send_text(&d.bert, &anna_key, "Re: Zug", "1. e4");
    send_text(&d.anna, &bert_key, "Re: Zug", "1. e4");
    // The director is no player.
    d.send(&d.t.director, "1. e4");
    d.relay_has(7);
    d.relay.once("2026-12-01T10:00:00+01:00");
    assert!(moves(&d.relay, &d.game).is_empty(), "0 moves");
    // The move counts once it comes from Anna's address, through her key.
    send_text(&d.anna, &anna_key, "Re: Zug", "1. e4");
    d.relay_has(8);
    d.relay.once("2026-12-01T11:00:00+01:00");
    assert_eq!(moves(&d.relay, &d.game), vec!["e4"]);
    // Nobody got a forwarded move but Bert.
    assert!(
        !kinds(&fetch_all(&mallory)).contains(&"move".to_string()),
        "the stranger learns nothing"
    );
}

#[test]
fn security_require_dmarc_pass_forgery_is_quarantined_and_not_answered() {
    let d = duel("dmarc", |r| {
        edit_config(r, |t| {
            t + "\n[security]\nrequire_dmarc_pass = true\ntrusted_authserv_id = \"mx.fernschach.test\"\n"
        })
    });
    let forged = |ar: &str, id: &str| {
        format!(
            "Authentication-Results: {ar}\r\nFrom: Anna <{a}>\r\nTo: {r}\r\nSubject: Re: [{g}] Zug\r\nMessage-ID: <{id}@x>\r\n\r\n1. e4\r\n",
            a = d.anna,
            r = d.relay.address,
            g = d.game
        )
    };
    // A forger's own "pass" (another server's id), and none at all.
    for (i, ar) in [
        "evil.example; dmarc=pass header.from=fernschach.test",
        "mx.fernschach.test; dmarc=fail header.from=fernschach.test",
    ]
    .iter()
    .enumerate()
    {
        send_mail(
            forged(ar, &format!("f{i}-{}", unique("x"))).as_bytes(),
            &d.anna,
            &[&d.relay.address],
        )
        .unwrap();
    }
    d.send(&d.anna, "1. e4");
    d.relay_has(3);
    let log = once_log(&d.relay, "2026-12-01T10:00:00+01:00");
    assert_eq!(sent(&log), 0, "not a word to the real Anna:\n{log}");
    assert!(moves(&d.relay, &d.game).is_empty());
    let status = d.relay.run_ok(&["status"]);
    assert!(status.contains("quarantined mails: 3"), "{status}");
    assert!(status.contains("not authenticated"), "{status}");
    // The operator's own server says pass: the move counts.
    send_mail(
        forged(
            "mx.fernschach.test; spf=pass smtp.mailfrom=fernschach.test; dmarc=pass (p=reject) header.from=fernschach.test",
            &unique("ok"),
        )
        .as_bytes(),
        &d.anna,
        &[&d.relay.address],
    )
    .unwrap();
    d.relay_has(4);
    d.relay.once("2026-12-01T11:00:00+01:00");
    assert_eq!(moves(&d.relay, &d.game), vec!["e4"]);
}

// ------------------------------------------------------------------------------------------------
// 5. Bounded resources; 1. quarantine

#[test]
fn oversized_mail_only_its_header_is_read_and_the_sender_is_told() {
    let d = duel("oversized", |r| {
        edit_config(r, |t| t + "\n[limits]\nmax_mail_bytes = 4096\n")
    });
    let body = format!("1. e4\n\n{}\n", "Anhang ".repeat(1500));
    d.send(&d.anna, &body);
    d.relay_has(1);
    d.relay.once("2026-12-01T10:00:00+01:00");
    let got = wait_for(&d.anna, 2, WAIT);
    assert_eq!(header(&got[1], "X-Fernzug-Kind").as_deref(), Some("query"));
    let text = body_text(&got[1]);
    assert!(text.contains("4096"), "{text}");
    assert!(moves(&d.relay, &d.game).is_empty(), "the body was not read");
    // A small mail is read in full.
    d.send(&d.anna, "1. e4");
    d.relay_has(2);
    d.relay.once("2026-12-01T11:00:00+01:00");
    assert_eq!(moves(&d.relay, &d.game), vec!["e4"]);
}

#[test]
fn a_mail_that_makes_rendering_fail_is_quarantined_and_blocks_nothing() {
    let d = duel("render-fail", |r| {
        let tdir = r.dir.join("templates/de");
        std::fs::create_dir_all(&tdir).unwrap();
        // An operator's broken query template: every query fails to render.
        std::fs::write(
            tdir.join("query.txt"),
            "Subject: Rückfrage {{ reason | no_such_filter }}\n\n{{ reason }}\n",
        )
        .unwrap();
        edit_config(r, |t| {
            t.replace(
                "[imap]",
                &format!(
                    "templates_dir = \"{}\"\n\n[imap]",
                    r.dir.join("templates").display()
                ),
            )
        });
    });
    d.send(&d.anna, "Mein Zug: Sf6"); // a move without its number: answered with a query
    d.send(&d.anna, "1. e4"); // the next mail
    d.relay_has(2);
    let log = once_log(&d.relay, "2026-12-01T10:00:00+01:00");
    assert!(log.contains("quarantined"), "{log}");
    assert_eq!(
        moves(&d.relay, &d.game),
        vec!["e4"],
        "the next mail was not blocked"
    );
    let status = d.relay.run_ok(&["status"]);
    assert!(status.contains("quarantined mails: 1"), "{status}");
    assert!(status.contains("cannot render"), "{status}");
    // Never retried: the next pass does not touch it again.
    let log = once_log(&d.relay, "2026-12-01T11:00:00+01:00");
    assert!(!log.contains("quarantined:"), "{log}");
}

// ------------------------------------------------------------------------------------------------
// 2. Outages

#[test]
fn smtp_outage_everything_delivered_afterwards_in_order_and_never_given_up() {
    let smtp = Proxy::new(crate::common::SMTP_PORT);
    let d = duel("smtp-outage", |r| {
        through(r, crate::common::SMTP_PORT, smtp.port)
    });
    smtp.cut();
    // While Postfix is "away", mails keep coming in and are processed.
    d.send(&d.anna, "1. e4");
    d.send(&d.anna, "Status?"); // a second mail to Anna, after her receipt
    d.send(&d.anna, "1. e4 e5"); // not her turn: a query, third in line
    d.relay_has(3);
    for now in [
        "2026-12-01T10:00:00+01:00",
        "2026-12-01T10:05:00+01:00",
        "2026-12-01T12:00:00+01:00",
    ] {
        let log = once_log(&d.relay, now);
        assert_eq!(sent(&log), 0, "{log}");
    }
    assert_eq!(moves(&d.relay, &d.game), vec!["e4"]);
    smtp.restore();
    let log = once_log(&d.relay, "2026-12-01T14:00:00+01:00");
    let anna = wait_for(&d.anna, 4, WAIT);
    let bert = wait_for(&d.bert, 2, WAIT);
    assert_eq!(kinds(&bert), vec!["start", "move"]);
    let a = kinds(&anna);
    assert_eq!(a[0], "start");
    assert_eq!(a.len(), 4, "{a:?}\n{log}");
    // The relay hands Anna's mails to SMTP in the order it decided them (Message-ID sequence):
    // receipt, status, query. (Postfix may then deliver them in any order; that is not ours.)
    let seq = |id: &str| -> u64 { id.split('.').nth(2).unwrap().parse().unwrap() };
    let handed: Vec<u64> = log
        .lines()
        .filter(|l| l.contains(" sent fernzug.") && l.ends_with(&format!("to {}", d.anna)))
        .filter_map(|l| l.split_whitespace().find(|w| w.starts_with("fernzug.")))
        .map(seq)
        .collect();
    assert_eq!(handed.len(), 3, "{log}");
    assert!(
        handed.windows(2).all(|w| w[0] < w[1]),
        "in order: {handed:?}"
    );
    let by_seq: Vec<(u64, String)> = anna[1..]
        .iter()
        .map(|m| {
            let id = header(m, "Message-ID").unwrap();
            (
                seq(id.trim_matches(['<', '>'])),
                header(m, "X-Fernzug-Kind").unwrap(),
            )
        })
        .collect();
    // Which of Anna's two later mails was decided first depends on the order the stack delivered
    // them to the relay's mailbox; every one of the three arrived.
    let mut decided: Vec<&str> = by_seq.iter().map(|(_, k)| k.as_str()).collect();
    decided.sort();
    assert_eq!(decided, vec!["query", "receipt", "status"], "{a:?}");

    // A second outage that lasts longer than [limits] outbox_max_age_days (default 5): a server
    // that is not there concerns the relay, not the players (Fax 2.3: repeated until it goes
    // through) — nothing is given up, nobody is reported; every mail goes once it is back. (A
    // recipient's own deferral is given up after the days: limits_e2e.rs.)
    smtp.cut();
    d.send(&d.bert, "1. e4 e5");
    d.relay_has(4);
    for now in [
        "2026-12-02T10:00:00+01:00",
        "2026-12-04T10:00:00+01:00",
        "2026-12-06T09:00:00+01:00",
        "2026-12-07T10:00:00+01:00",
        "2026-12-07T10:01:00+01:00",
    ] {
        let log = once_log(&d.relay, now);
        assert_eq!(sent(&log), 0, "{log}");
        assert!(!log.contains("given up after"), "never given up: {log}");
    }
    smtp.restore();
    let log = once_log(&d.relay, "2026-12-07T11:00:00+01:00");
    let anna = kinds(&wait_for(&d.anna, 5, WAIT));
    assert_eq!(
        anna.iter().filter(|k| *k == "move").count(),
        1,
        "{anna:?}\n{log}"
    );
    let bert = kinds(&wait_for(&d.bert, 3, WAIT));
    assert_eq!(
        bert.iter().filter(|k| *k == "receipt").count(),
        1,
        "{bert:?}\n{log}"
    );
    d.relay.once("2026-12-07T12:00:00+01:00");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(fetch_all(&d.anna).len(), 5);
    assert!(
        !kinds(&fetch_all(&d.t.director)).contains(&"bounce-report".to_string()),
        "no player reported for the relay's own outage"
    );
    eprintln!(
        "SMTP outage: {} connections refused while cut; everything delivered afterwards, in order",
        smtp.refused.load(std::sync::atomic::Ordering::SeqCst)
    );
}

#[test]
fn imap_outage_the_daemon_keeps_running_and_catches_up_in_order() {
    let imap = Proxy::new(crate::common::relay_imap_port());
    let relay = Relay::new("imap-outage");
    through(&relay, crate::common::relay_imap_port(), imap.port);
    let (t, anna, bert) = relay.duo_today();
    let log = relay.dir.join("run.log");
    let mut child = Daemon(
        relay
            .command(&["run"])
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
            .spawn()
            .unwrap(),
    );
    wait_for(&anna, 1, WAIT);
    wait_for(&bert, 1, WAIT);
    std::thread::sleep(Duration::from_millis(300));
    imap.cut();
    let subject = format!("Re: [{}] Zug", t.game(1));
    let plies = [
        (&anna, "1. e4"),
        (&bert, "1. e4 e5"),
        (&anna, "1... e5\n2. Nf3"),
        (&bert, "2. Nf3 Nc6"),
    ];
    for (i, (who, body)) in plies.iter().enumerate() {
        send_text(who, &relay.address, &subject, body);
        wait_for(&relay.address, i + 1, WAIT);
        // Each with a postmark of its own (IMAP's INTERNALDATE counts seconds): the relay takes
        // what came meanwhile in postmark order, whatever order the server numbers it in
        // (Courier-IMAP numbers mail that came while nobody looked in its folder's order).
        std::thread::sleep(Duration::from_millis(1100));
    }
    // Away long enough for the daemon to notice: at once in IDLE (Dovecot), at its next NOOP
    // without (Courier-IMAP).
    std::thread::sleep(match crate::common::imap_server() {
        ImapServer::Dovecot => Duration::from_secs(3),
        ImapServer::Courier => fernzug::imap::POLL_INTERVAL + Duration::from_secs(3),
    });
    assert!(
        fetch_all(&bert).len() == 1,
        "nothing can be processed while IMAP is away"
    );
    assert!(
        imap.refused.load(std::sync::atomic::Ordering::SeqCst) > 0,
        "the daemon tried to reconnect while IMAP was away"
    );
    let restored = Instant::now();
    imap.restore();
    // A refused connection is tried again after 30 s, then 60 s, … (CONTRACT: `run` never
    // gives up, and never hammers a host): caught up within the next try.
    wait_for(&anna, 5, Duration::from_secs(90));
    wait_for(&bert, 5, Duration::from_secs(90));
    let caught_up = restored.elapsed();
    let pid = child.0.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let status = child.0.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(
        status.success(),
        "the daemon kept running: {status:?}\n{text}"
    );
    assert!(text.contains("reconnecting"), "{text}");
    assert_eq!(
        kinds(&fetch_all(&bert)),
        vec!["start", "move", "receipt", "move", "receipt"]
    );
    assert_eq!(moves(&relay, &t.game(1)), vec!["e4", "e5", "Nf3", "Nc6"]);
    eprintln!(
        "IMAP outage: {} connections refused while cut; caught up {caught_up:?} after the restore",
        imap.refused.load(std::sync::atomic::Ordering::SeqCst)
    );
}

// ------------------------------------------------------------------------------------------------
// 1. Exactly once; 5. the archive

#[test]
fn uidvalidity_change_rescans_and_message_id_dedup_keeps_every_move_once_and_archive_rotation_waits_four_weeks()
 {
    use chrono::{DateTime, Duration as Days, Utc};
    use fernzug::app::{App, Processed};
    let relay = Relay::new("uidvalidity");
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let t = relay.tournament(
        &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
        "fax",
        "2026-12-01",
    );
    let at = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
    let mut app = App::open(fernzug::config::load(&relay.config).unwrap()).unwrap();
    let file = fernzug::tournament_file::load(&t.path).unwrap();
    app.register(&file, at("2026-11-30T12:00:00+01:00"))
        .unwrap();
    let subject = format!("Re: [{}] Zug", t.game(1));
    let with_id = crate::common::text_mail(&anna, &relay.address, &subject, "1. e4", "<e4@x.test>");
    // No Message-ID: the reader names it by the hash of the raw mail.
    let without_id = format!(
        "From: {bert}\r\nTo: {}\r\nSubject: {subject}\r\n\r\n1. e4 e5\r\n",
        relay.address
    );
    let mails = [with_id.as_bytes(), without_id.as_bytes()];
    let t1 = at("2026-12-01T10:00:00+01:00");
    for (uid, raw) in mails.iter().enumerate() {
        let p = app.process(raw, t1, Some((1, uid as u32 + 1))).unwrap();
        assert!(matches!(p, Processed::Done { .. }), "{p:?}");
    }
    // The mailbox is rebuilt: new UIDVALIDITY, new UIDs, the same mails (and one seen twice).
    for (uid, raw) in mails.iter().enumerate() {
        let p = app.process(raw, t1, Some((7, uid as u32 + 10))).unwrap();
        assert_eq!(p, Processed::Duplicate);
        assert!(app.store.is_uid_done(7, uid as u32 + 10).unwrap());
    }
    let g: fernzug::game_ref::GameRef = t.game(1).parse().unwrap();
    assert_eq!(app.state.games[&g].san_moves(), vec!["e4", "e5"]);

    // Fax 2.8: the archive stays until four weeks after the tournament's end.
    let resign = crate::common::text_mail(
        &anna,
        &relay.address,
        &subject,
        "Ich gebe auf.",
        "<r@x.test>",
    );
    let end = at("2026-12-02T10:00:00+01:00");
    app.process(resign.as_bytes(), end, Some((7, 20))).unwrap();
    assert_eq!(app.state.games[&g].result.map(|r| r.as_str()), Some("0-1"));
    let archived = app.store.archive().for_game(&g.to_string()).unwrap().len();
    assert!(archived >= 3, "{archived}");
    for now in [
        end,
        end + Days::days(27),
        end + Days::days(28) - Days::seconds(1),
    ] {
        assert!(
            app.rotate_archive(now).unwrap().is_empty(),
            "rotated at {now}"
        );
        assert_eq!(
            app.store.archive().for_game(&g.to_string()).unwrap().len(),
            archived
        );
    }
    let key = app.state.games[&g].keys.white.clone();
    // Four weeks on, the relay has long sent what it queued (a mail still waiting keeps its bytes
    // in the archive, `Archive::rotate`).
    let queued: Vec<String> = app
        .store
        .outbox()
        .heads()
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect();
    app.store.outbox().sent(&queued).unwrap();
    let log = app.rotate_archive(end + Days::days(28)).unwrap();
    assert_eq!(log.len(), 1, "{log:?}");
    assert!(
        app.store
            .archive()
            .for_game(&g.to_string())
            .unwrap()
            .is_empty()
    );

    // The rotated tournament's games go to the shelf: not loaded at start any more, out of the
    // store (in its shelf file, with their event logs), read when a mail names them, shown by
    // `status`.
    use fernzug::app::shelf;
    assert!(
        app.state.games.is_empty(),
        "shelved: {:?}",
        app.state.games.keys()
    );
    assert!(!app.state.keys.contains_key(&key));
    let shelved = |app: &App| app.store.shelved_game(&g).unwrap();
    assert!(shelved(&app).is_none(), "in the shelf file, not the store");
    let file = shelf::read(&shelf::dir(&app.store), &g.tournament)
        .unwrap()
        .expect("the tournament's shelf file");
    let on_shelf = file.games.iter().find(|x| x.id == g).expect("the game");
    assert_eq!(on_shelf.san_moves(), vec!["e4", "e5"]);
    let logged = file.events[&g.to_string()].len();
    assert!(logged >= 3, "registered, two moves, ended: {logged}");
    assert!(
        app.store
            .events::<serde_json::Value>(&g.to_string())
            .unwrap()
            .is_empty(),
        "the log went with the game"
    );
    assert!(app.store.game(&g).unwrap().is_none());
    let key_address = relay.address.replace('@', &format!("+{key}@"));
    let late = crate::common::text_mail(
        &anna,
        &key_address,
        "Noch eine Frage",
        "2. Nf3",
        "<late@x.test>",
    );
    let p = app
        .process(late.as_bytes(), end + Days::days(30), Some((7, 30)))
        .unwrap();
    assert!(matches!(p, Processed::Done { .. }), "{p:?}");
    assert_eq!(
        app.state.games[&g].san_moves(),
        vec!["e4", "e5"],
        "a mail to a game long over changes nothing"
    );
    let events = app
        .store
        .events::<serde_json::Value>(&g.to_string())
        .unwrap();
    assert!(
        events
            .iter()
            .any(|(_, e)| e.to_string().contains("late@x.test")),
        "the late mail was answered as about its game: {events:?}"
    );
    assert!(
        events.iter().all(|(seq, _)| *seq as usize > logged),
        "the log goes on after the shelf file's: {events:?}"
    );
    // The game the core changed after it was shelved: the store's copy wins over the file's.
    assert_eq!(
        shelved(&app).map(|x| x.events),
        Some(u64::try_from(logged + events.len()).unwrap())
    );
    assert!(app.store.game(&g).unwrap().is_none(), "still on the shelf");
    drop(app);
    let config = fernzug::config::load(&relay.config).unwrap();
    let app = App::open(config.clone()).unwrap();
    assert!(app.state.games.is_empty());
    drop(app);
    let app = App::open_all(config).unwrap();
    assert_eq!(app.state.games[&g].san_moves(), vec!["e4", "e5"]);
    assert!(app.state.keys.contains_key(&key));
    drop(app);
    let status = relay.run_ok(&["status", &g.to_string()]);
    assert!(status.contains("finished"), "{status}");
    // Every game, the tournament, the JSON list and the PGN export read the shelf too.
    for args in [
        vec!["status"],
        vec!["status", g.tournament.as_str()],
        vec!["export", "pgn", g.tournament.as_str()],
    ] {
        let out = relay.run_ok(&args);
        let shown = out.contains(&g.to_string()) || out.contains("[PlyCount \"2\"]");
        assert!(shown, "{args:?}: {out}");
    }
    let listed: serde_json::Value =
        serde_json::from_str(&relay.run_ok(&["status", "--json"])).expect("JSON");
    let row = listed
        .as_array()
        .expect("a list")
        .iter()
        .find(|r| r["id"] == g.to_string())
        .expect("the shelved game listed");
    assert_eq!(row["moves"], serde_json::json!(["e4", "e5"]));
    assert_eq!(row["state"], "finished");
}

/// `tournament add` queues the start mails in parts (`App::register`, `START_CHUNK` games each);
/// stopped hard between two parts, the next pass queues the rest: every player gets exactly one
/// start mail for each of his games, none twice.
#[test]
fn tournament_add_stopped_between_parts_counts_whole_or_not_and_its_start_mails_are_completed() {
    let relay = Relay::new("start-parts");
    // 16 players: 120 games, more than one part.
    let players: Vec<(String, String)> = (0..16)
        .map(|i| (format!("Spieler {i}"), unique_addr(&format!("parts{i}"))))
        .collect();
    let entries: Vec<(&str, &str, Option<&str>)> = players
        .iter()
        .map(|(n, e)| (n.as_str(), e.as_str(), None))
        .collect();
    let t = relay.tournament(&entries, "fax", "2026-12-01");
    let path = t.path.to_string_lossy().into_owned();
    // `tournament add`, killed at crash point `point`; then every game `status` lists.
    let add_stopped_at = |point: &str| {
        let out = relay
            .command(&["tournament", "add", &path, "--now", REGISTERED])
            .env("FERNZUG_CRASH_AT", point)
            .output()
            .expect("run fernzug");
        assert!(
            !out.status.success(),
            "the crash point {point} was not reached: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let status = relay.run_ok(&["status", "--json"]);
        serde_json::from_str::<Vec<serde_json::Value>>(&status).expect("status --json")
    };
    // Stopped before the last part of the registration: nothing of it counts.
    let games = add_stopped_at("between-register-parts");
    assert!(
        games.is_empty(),
        "a half registration does not count: {games:?}"
    );
    // Added again, stopped after the registration, between the parts of its start mails.
    let games = add_stopped_at("between-start-parts");
    assert_eq!(
        games.len(),
        120,
        "the registration itself was committed whole"
    );

    relay.once("2026-11-30T12:05:00+01:00");
    for (_, player) in &players {
        wait_for(player, 15, WAIT);
        std::thread::sleep(Duration::from_millis(300));
        let mails = fetch_all(player);
        assert_eq!(
            mails.len(),
            15,
            "{player}: one start mail per game, none twice"
        );
        let mut games: Vec<String> = mails
            .iter()
            .filter_map(|m| header(m, "X-Fernzug-Game"))
            .collect();
        games.sort();
        games.dedup();
        assert_eq!(games.len(), 15, "{player}: each of his 15 games once");
    }
}
