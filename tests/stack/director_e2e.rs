//! End-to-end: leave (TO §24/§25), the director's commands by mail (TO §21/§22), and players who
//! cannot be reached (Fax 2.2), through the real mail stack, driven with `fernzug once --now`.

use std::time::Duration;

use crate::common::{
    Relay, body_text, envelope_address, fetch_all, header, kinds, send_mail, unique_addr, wait_for,
};

const WAIT: Duration = Duration::from_secs(20);

fn count(mails: &[Vec<u8>], kind: &str) -> usize {
    kinds(mails).iter().filter(|k| *k == kind).count()
}

/// Lets the mail stack deliver what the last pass sent, then reads the mailbox.
fn settled(user: &str) -> Vec<Vec<u8>> {
    std::thread::sleep(Duration::from_millis(400));
    fetch_all(user)
}

/// Waits until `user` has `n` mails of `kind`; returns the whole mailbox.
fn wait_kind(user: &str, kind: &str, n: usize) -> Vec<Vec<u8>> {
    let until = std::time::Instant::now() + WAIT;
    loop {
        let all = fetch_all(user);
        if count(&all, kind) >= n || std::time::Instant::now() > until {
            return all;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn status(relay: &Relay, game: &str, now: &str) -> serde_json::Value {
    let out = relay.run_ok(&["status", game, "--json", "--now", now]);
    serde_json::from_str(&out).expect("status --json is JSON")
}

#[test]
fn s24_leave_refused_accepted_no_reminder_and_ended_by_a_move() {
    let relay = Relay::new("leave");
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let carl = unique_addr("carl");
    let t = relay.tournament_with_games(
        &[
            ("Anna Adler", &anna, None),
            ("Bert Berger", &bert, None),
            ("Carl Clausen", &carl, None),
        ],
        &[(&anna, &bert), (&carl, &anna), (&bert, &carl)],
        "post",
        "2026-12-01",
    );
    relay.add(&t);
    relay.send(&anna, &format!("[{}]", t.game(1)), "1. e4");
    relay.once("2026-12-01T10:00:00+01:00");
    wait_for(&bert, 3, WAIT); // start (game 1), start (game 3), move

    // Too short and too long: each a precise query, nothing else.
    relay.send(&bert, "Urlaub", "Urlaub: 20.12.2026 – 22.12.2026");
    relay.send(&bert, "Leave", "leave 2026-12-20 to 2027-02-20");
    relay.once("2026-12-02T10:00:00+01:00");
    let mails = wait_for(&bert, 5, WAIT);
    let queries: Vec<String> = mails
        .iter()
        .filter(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("query"))
        .map(|m| body_text(m))
        .collect();
    assert_eq!(queries.len(), 2, "{:?}", kinds(&mails));
    assert!(
        queries
            .iter()
            .any(|q| q.contains("nur 3 Tage") && q.contains("mindestens 7")),
        "{queries:?}"
    );
    assert!(
        queries.iter().any(|q| q.contains("Erlaubt sind 42 Tage")),
        "{queries:?}"
    );
    assert_eq!(count(&settled(&anna), "leave"), 0);
    assert_eq!(count(&fetch_all(&t.director), "leave"), 0);

    // Accepted: a notice to every partner and to TL, a receipt to him.
    relay.send(&bert, "Urlaub", "Urlaub: 05.12.2026 – 31.12.2026");
    relay.once("2026-12-03T10:00:00+01:00");
    let b = wait_for(&bert, 6, WAIT);
    let receipt = b.last().unwrap();
    assert_eq!(
        header(receipt, "X-Fernzug-Kind").as_deref(),
        Some("receipt")
    );
    assert!(
        body_text(receipt).contains("05.12.2026 bis 31.12.2026"),
        "{}",
        body_text(receipt)
    );
    for partner in [&anna, &carl] {
        let m = wait_kind(partner, "leave", 1);
        let notice = m
            .iter()
            .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("leave"))
            .unwrap_or_else(|| panic!("{partner} got no leave notice: {:?}", kinds(&m)));
        assert!(body_text(notice).contains("Bert Berger"));
        assert!(body_text(notice).contains("Ihre eigene Bedenkzeit läuft"));
    }
    // TL: his own notice, and each partner's in copy (TO §25: through TL, and it says so).
    let tl = wait_kind(&t.director, "leave", 3);
    assert_eq!(
        kinds(&settled(&t.director)),
        vec!["leave", "leave", "leave"]
    );
    let informed = tl
        .iter()
        .filter(|m| body_text(m).contains("informiert und erhält sie in Kopie"))
        .count();
    assert_eq!(informed, 2, "the partners' notices say TL was informed");
    let v = status(&relay, &t.game(1), "2026-12-10T12:00:00+01:00");
    assert_eq!(v[0]["clock"]["black"]["on_leave"], true);
    assert_eq!(
        v[0]["clock"]["black"]["used"], 3,
        "2.–4.12. count, the leave rests"
    );
    assert_eq!(v[0]["clock"]["white"]["on_leave"], false);

    // No reminder during the leave (without it the reminder came on 17.12.).
    relay.once("2026-12-17T09:00:00+01:00");
    assert_eq!(count(&settled(&bert), "reminder"), 0);

    // A move during the leave ends it the day before; TL and the partners are told.
    relay.send(&bert, &format!("[{}]", t.game(1)), "1. e4 e5");
    relay.once("2026-12-18T10:00:00+01:00");
    let a = wait_kind(&anna, "leave", 2);
    assert_eq!(count(&a, "move"), 1, "{:?}", kinds(&a));
    let ended = a
        .iter()
        .filter(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("leave"))
        .nth(1)
        .expect("a second leave notice to Anna");
    assert!(
        body_text(ended).contains("vorzeitig"),
        "{}",
        body_text(ended)
    );
    assert!(
        body_text(ended).contains("17.12.2026"),
        "{}",
        body_text(ended)
    );
    let tl = wait_kind(&t.director, "leave", 6);
    assert_eq!(count(&settled(&t.director), "leave"), 6, "{:?}", kinds(&tl));
    assert_eq!(count(&wait_kind(&carl, "leave", 2), "leave"), 2);
    let v = status(&relay, &t.game(1), "2026-12-18T12:00:00+01:00");
    assert_eq!(v[0]["clock"]["black"]["on_leave"], false);
    assert_eq!(v[0]["moves"], serde_json::json!(["e4", "e5"]));
}

#[test]
fn s22_tl_confirms_second_zu_and_non_tl_command_refused() {
    let relay = Relay::new("second-zu");
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let t = relay.tournament(
        &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
        "post",
        "2026-12-01",
    );
    let game = t.game(1);
    relay.add(&t);
    relay.send(&anna, &format!("[{game}]"), "1. e4");
    relay.once("2026-12-01T10:00:00+01:00");
    // Without announcement the 26th day costs 31 (TO §13): the first ZÜ on 27.12.
    relay.once("2026-12-27T09:00:00+01:00");
    relay.send(&bert, &format!("[{game}]"), "1. e4 e5");
    relay.once("2026-12-28T10:00:00+01:00");
    relay.send(&anna, &format!("[{game}]"), "1... e5\n2. Sf3");
    relay.once("2026-12-28T11:00:00+01:00");
    // Bert's new period (TO §20): again 26 days without a move → the second ZÜ, TL decides.
    relay.once("2027-01-23T09:00:00+01:00");
    let tl = wait_kind(&t.director, "time-forfeit-2", 1);
    let zu2 = tl
        .iter()
        .find(|m| header(m, "X-Fernzug-Kind").as_deref() == Some("time-forfeit-2"))
        .unwrap_or_else(|| panic!("no time-forfeit-2: {:?}", kinds(&tl)));
    let reply_to = header(zu2, "Reply-To").expect("TL gets a reply key of the game");
    assert!(reply_to.contains('+'), "{reply_to}");
    assert_eq!(
        status(&relay, &game, "2027-01-23T10:00:00+01:00")[0]["state"],
        "suspended"
    );

    // Anna may not confirm it: a query, nothing changes.
    relay.send(&anna, &format!("Re: [{game}]"), "ZÜ bestätigt");
    relay.once("2027-01-24T09:00:00+01:00");
    let a = settled(&anna);
    let q = a.last().unwrap();
    assert_eq!(header(q, "X-Fernzug-Kind").as_deref(), Some("query"));
    assert!(
        body_text(q).contains("nur von dessen Turnierleiter"),
        "{}",
        body_text(q)
    );
    assert_eq!(
        status(&relay, &game, "2027-01-24T09:30:00+01:00")[0]["state"],
        "suspended"
    );

    // TL answers the time-forfeit-2 mail: the reply key names the game.
    let before_anna = a.len();
    let before_bert = settled(&bert).len();
    let command_id = relay.send_to(
        &t.director,
        envelope_address(&reply_to),
        "Re: Zweite Zeitüberschreitung",
        "ZÜ bestätigt\n\nTom",
    );
    relay.once("2027-01-24T10:00:00+01:00");
    for (who, before) in [(&anna, before_anna), (&bert, before_bert)] {
        let m = wait_for(who, before + 1, WAIT);
        let end = m.last().unwrap();
        assert_eq!(
            header(end, "X-Fernzug-Kind").as_deref(),
            Some("game-end"),
            "{who}"
        );
        assert!(body_text(end).contains("1-0"), "{}", body_text(end));
        assert!(
            body_text(end).contains("Turnierleiter"),
            "{}",
            body_text(end)
        );
    }
    let tl = wait_kind(&t.director, "director", 1);
    assert_eq!(count(&tl, "game-end"), 1, "{:?}", kinds(&tl));
    assert_eq!(count(&tl, "director"), 1, "{:?}", kinds(&tl));
    let v = status(&relay, &game, "2027-01-24T11:00:00+01:00");
    assert_eq!(v[0]["state"], "finished");
    assert_eq!(v[0]["result"], "1-0");
    // TL's mail is archived under the game (TO §11).
    let mbox = relay.run_ok(&["export", "mbox", &game]);
    assert!(
        mbox.contains(&command_id),
        "TL's mail is in the game's mbox"
    );
}

#[test]
fn fax_2_2_refused_address_gives_exactly_one_bounce_report_per_mail() {
    let relay = Relay::new("bounce");
    let anna = unique_addr("anna");
    let bert = unique_addr("dead-bert");
    let t = relay.tournament(
        &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
        "post",
        "2026-12-01",
    );
    let game = t.game(1);
    relay.add(&t);
    // The start mail to Bert is refused (550): one report, in the same pass.
    relay.once("2026-11-30T13:00:00+01:00");
    let tl = wait_for(&t.director, 1, WAIT);
    assert_eq!(kinds(&tl), vec!["bounce-report"]);
    assert!(body_text(&tl[0]).contains(&bert));
    // Anna's move cannot reach him either: one more report, with the move.
    relay.send(&anna, &format!("[{game}]"), "1. e4");
    relay.once("2026-12-01T10:00:00+01:00");
    let tl = wait_for(&t.director, 2, WAIT);
    let report = &tl[1];
    assert_eq!(
        header(report, "X-Fernzug-Kind").as_deref(),
        Some("bounce-report")
    );
    assert_eq!(
        header(report, "X-Fernzug-Game").as_deref(),
        Some(game.as_str())
    );
    let text = body_text(report);
    assert!(text.contains("1. e4") && text.contains("550"), "{text}");
    // Nothing is lost: the move counts as forwarded, the game goes on.
    let v = status(&relay, &game, "2026-12-01T11:00:00+01:00");
    assert_eq!(v[0]["moves"], serde_json::json!(["e4"]));
    assert_eq!(v[0]["to_move"], "black");
    // A delivery-status report about the same mail later: no second report, and no answer.
    let undelivered = header(report, "In-Reply-To").expect("the report names the undelivered mail");
    let dsn = format!(
        "From: MAILER-DAEMON@fernschach.test (Mail Delivery System)\r\n\
         To: {relay}\r\n\
         Subject: Undelivered Mail Returned to Sender\r\n\
         Message-ID: <dsn-{undelivered_plain}>\r\n\
         Auto-Submitted: auto-replied\r\n\
         MIME-Version: 1.0\r\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\r\n\
         --B\r\nContent-Type: text/plain\r\n\r\nundeliverable\r\n\
         --B\r\nContent-Type: message/delivery-status\r\n\r\n\
         Reporting-MTA: dns; fernschach.test\r\n\r\n\
         Final-Recipient: rfc822; {bert}\r\nAction: failed\r\nStatus: 5.1.1\r\n\r\n\
         --B\r\nContent-Type: text/rfc822-headers\r\n\r\n\
         Message-ID: {undelivered}\r\nX-Fernzug-Kind: move\r\nX-Fernzug-Game: {game}\r\n\r\n\
         --B--\r\n",
        relay = relay.address,
        undelivered_plain = undelivered.trim_matches(['<', '>']),
    );
    send_mail(dsn.as_bytes(), "", &[&relay.address]).expect("the stack takes the DSN");
    relay.once("2026-12-02T10:00:00+01:00");
    assert_eq!(count(&settled(&t.director), "bounce-report"), 2);
    assert_eq!(count(&fetch_all(&anna), "query"), 0);
}
