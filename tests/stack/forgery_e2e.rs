//! Forged senders without relying on DMARC, and no backscatter (docs/security.md), through the
//! real mail stack: `[security] require_reply_key` makes a forged `From:` to the bare relay
//! address a query to the real player instead of a move; the player's own `relay+KEY@` address
//! still counts; and a spam burst from forged stranger senders that names nothing of the relay
//! draws no mail at all.

use std::time::Duration;

use crate::common::{
    Duel, Mailbox, Relay, body_text, envelope_address, fetch_all, header, kinds, send_many,
    text_mail, unique, unique_addr, wait_for,
};

const WAIT: Duration = Duration::from_secs(20);
const MOVE_AT: &str = "2026-12-01T10:00:00+01:00";

/// Anna (White) against Bert, both start mails delivered; `require_reply_key` appended to the
/// config when `keyed`.
fn duel(test: &str, keyed: bool) -> Duel {
    let d = Duel::new(test, "fax", ("Anna Adler", None), ("Bert Berger", None));
    if keyed {
        let text = std::fs::read_to_string(&d.relay.config).expect("config");
        std::fs::write(
            &d.relay.config,
            text + "\n[security]\nrequire_reply_key = true\n",
        )
        .expect("config written");
    }
    d
}

/// The moves of the duel's game, from `status --json`.
fn moves(d: &Duel, now: &str) -> Vec<String> {
    d.status(now)["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect()
}

/// The private reply address `relay+KEY@…` of the start mail `who` received.
fn reply_address(who: &str) -> String {
    let start = &fetch_all(who)[0];
    let reply_to = header(start, "Reply-To").expect("the start mail has a Reply-To");
    let address = envelope_address(&reply_to).to_string();
    assert!(address.contains('+'), "a keyed address: {address}");
    address
}

/// `fernzug once --now NOW`, returning its log (stderr), asserting success.
fn once_log(relay: &Relay, now: &str) -> String {
    let out = relay.run(&["once", "--now", now]);
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "once {now} failed:\n{log}");
    log
}

#[test]
fn forged_from_to_the_bare_relay_address_is_refused_under_require_reply_key() {
    let d = duel("forged-keyed", true);
    // The forger writes Anna's address into From, with the right game, number and move.
    d.play(&d.anna, "1. e4", MOVE_AT);
    assert!(
        moves(&d, MOVE_AT).is_empty(),
        "the forged move did not count"
    );
    // The real Anna gets the query at her registered address.
    let got = wait_for(&d.anna, 2, WAIT);
    assert_eq!(kinds(&got), vec!["start", "query"]);
    let text = body_text(&got[1])
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("persönliche Antwortadresse") && text.contains("antworten"),
        "{text}"
    );
    // The query itself is a relay mail with her own key: answering it is the way in.
    assert_eq!(
        envelope_address(&header(&got[1], "Reply-To").unwrap()),
        reply_address(&d.anna)
    );
    // Bert got no move: only his start mail (the query was delivered, so a forward would be too).
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(kinds(&fetch_all(&d.bert)), vec!["start"]);
}

#[test]
fn forged_from_to_the_bare_relay_address_is_accepted_without_require_reply_key() {
    let d = duel("forged-plain", false);
    d.play(&d.anna, "1. e4", MOVE_AT);
    assert_eq!(moves(&d, MOVE_AT), vec!["e4"]);
    let got = wait_for(&d.bert, 2, WAIT);
    assert_eq!(kinds(&got), vec!["start", "move"]);
}

#[test]
fn move_through_own_reply_key_counts_under_require_reply_key() {
    let d = duel("own-key", true);
    let key = reply_address(&d.anna);
    d.relay.send_to(&d.anna, &key, "Re: Zug", "1. e4");
    d.relay.once(MOVE_AT);
    assert_eq!(moves(&d, MOVE_AT), vec!["e4"]);
    let got = wait_for(&d.bert, 2, WAIT);
    assert_eq!(kinds(&got), vec!["start", "move"]);
    let got = wait_for(&d.anna, 2, WAIT);
    assert_eq!(kinds(&got), vec!["start", "receipt"]);
}

#[test]
fn spam_burst_of_200_forged_strangers_gets_no_answer() {
    let d = duel("backscatter", false);
    let before = Mailbox::open(&d.relay.address)
        .and_then(|mut m| m.count())
        .expect("relay mailbox");
    // 200 forged senders, each a mailbox of the stack that never wrote; the mails name nothing.
    let victims: Vec<String> = (0..200)
        .map(|i| unique_addr(&format!("victim{i}")))
        .collect();
    let burst: Vec<(String, String, String)> = victims
        .iter()
        .map(|v| {
            let id = format!("<{}@spam.test>", unique("spam"));
            let raw = text_mail(
                v,
                &d.relay.address,
                "You have won",
                "Click here, dear friend.",
                &id,
            );
            (raw, v.clone(), d.relay.address.clone())
        })
        .collect();
    send_many(&burst).expect("the stack takes the burst");
    wait_for(&d.relay.address, before + 200, Duration::from_secs(60));
    let log = once_log(&d.relay, MOVE_AT);
    // The relay did not fail, read them all, and sent nothing.
    let report = log
        .lines()
        .rev()
        .find(|l| l.contains("pass done:"))
        .unwrap_or_else(|| panic!("no pass report in\n{log}"));
    assert!(report.contains("200 processed"), "{report}");
    assert!(report.contains(" 0 quarantined, 0 sent"), "{report}");
    assert_eq!(
        log.matches("not answered (no backscatter)").count(),
        200,
        "one log line each:\n{log}"
    );
    // No victim got a mail (a sample, and the first and last).
    for v in victims.iter().step_by(20).chain(victims.last()) {
        assert!(fetch_all(v).is_empty(), "{v} got a mail");
    }
    // The game goes on.
    d.play(&d.anna, "1. e4", "2026-12-01T11:00:00+01:00");
    assert_eq!(moves(&d, "2026-12-01T11:00:00+01:00"), vec!["e4"]);
}
