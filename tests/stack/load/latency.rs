//! Latency: a move sent by SMTP → the forward visible in the partner's INBOX, with `fernzug run`
//! waiting in IDLE; against the floor of the same path without the relay's work: the IDLE
//! notification of a bare client plus a plain Postfix alias forward, sampled in the same rounds.

use std::time::{Duration, Instant};

use super::proc::Daemon;
use super::setup::{games, put_waiting, tournament, wait_count};
use super::table::{Goal, Row, Sizes, Stats, count, mib, progress};
use super::wire::{Envelope, Idler};
use crate::common::{Mailbox, Relay, send_text, unique, unique_addr, wait_for};

/// How often the mailboxes are polled (IMAP STATUS) for the alias forward and the relay's forward.
const POLL: Duration = Duration::from_millis(5);
const TIMEOUT: Duration = Duration::from_secs(60);

/// `n` mails the relay reads before the daemon starts and leaves in its mailbox, flagged: one
/// stranger's mail `n` times over (the same Message-ID), so that the relay answers the first and
/// sees the others as duplicates, sending nothing more.
fn read_history(relay: &Relay, n: usize) {
    let stranger = unique_addr("lat-history");
    let data = format!(
        "From: {stranger}\r\nTo: {}\r\nSubject: Hallo\r\nMessage-ID: <{}@{}>\r\n\r\nHallo\r\n",
        relay.address,
        unique("lat-history"),
        crate::common::DOMAIN
    )
    .into_bytes();
    let mails: Vec<Envelope> = (0..n)
        .map(|_| Envelope {
            from: stranger.clone(),
            to: vec![relay.address.clone()],
            data: data.clone(),
        })
        .collect();
    put_waiting(&relay.address, &mails);
    super::proc::run_ok(relay, &["once"]);
    println!(
        "history: the relay read {n} mails before its daemon started; they stay in its mailbox"
    );
}

pub fn rows(sizes: &Sizes) -> Vec<Row> {
    let samples = sizes.latency.max(1);
    let relay = Relay::new("load-latency");
    let (t, players) = tournament(&relay, "l", samples);
    super::proc::run_ok(&relay, &["tournament", "add", t.path.to_str().unwrap()]);
    if sizes.history > 0 {
        read_history(&relay, sizes.history);
    }
    let daemon = Daemon::spawn(&relay, "warn");
    // Every start mail delivered (one per game and player) before the first sample.
    let all = games(&relay);
    for p in &players {
        let n = all
            .iter()
            .filter(|g| &g.white == p || &g.black == p)
            .count();
        wait_for(p, n, Duration::from_secs(120));
    }

    let sender = unique_addr("lat-sender");
    let watched = unique_addr("lat-idle");
    let target_local = unique("lat-alias");
    let target = format!("{target_local}@{}", crate::common::DOMAIN);
    let alias = format!("forward-to.{target_local}@{}", crate::common::DOMAIN);
    let mut idler = Idler::open(&watched);
    let mut target_box = Mailbox::open(&target).expect("IMAP");
    let (mut idle, mut fwd, mut floor, mut relayed) = (vec![], vec![], vec![], vec![]);
    for (i, g) in all.iter().take(samples).enumerate() {
        // (a) SMTP send → the IDLE notification of a bare client.
        idler.idle();
        let t0 = Instant::now();
        send_text(&sender, &watched, &format!("idle {i}"), "1. e4");
        let a = idler.wait_exists() - t0;
        idler.done();
        // (b) SMTP send to forward-to.X@ → visible in X's INBOX (Postfix's virtual alias).
        let before = target_box.count().expect("STATUS");
        let t0 = Instant::now();
        send_text(&sender, &alias, &format!("alias {i}"), "1. e4");
        let b = wait_count(&mut target_box, before + 1, TIMEOUT, POLL).expect("alias forward") - t0;
        // (c) the relay: White's first move → the forward visible in Black's INBOX.
        let mut black = Mailbox::open(&g.black).expect("IMAP");
        let mut white = Mailbox::open(&g.white).expect("IMAP");
        let (b0, w0) = (black.count().unwrap(), white.count().unwrap());
        let t0 = Instant::now();
        send_text(&g.white, &relay.address, &format!("[{}]", g.id), "1. e4");
        let c = wait_count(&mut black, b0 + 1, TIMEOUT, POLL).expect("the relay's forward") - t0;
        // The receipt too, so that nothing of this round overlaps the next.
        wait_count(&mut white, w0 + 1, TIMEOUT, Duration::from_millis(20))
            .expect("the relay's receipt");
        std::thread::sleep(Duration::from_millis(100));
        idle.push(a);
        fwd.push(b);
        floor.push(a + b);
        relayed.push(c);
    }
    let rss = daemon.stop();
    let (idle, fwd, floor, relayed) = (
        Stats::of_ms(&idle),
        Stats::of_ms(&fwd),
        Stats::of_ms(&floor),
        Stats::of_ms(&relayed),
    );
    let n = floor.len();
    let history = match sizes.history {
        0 => String::new(),
        h => format!(", {} mails read before in its mailbox", count(h)),
    };
    let mut main = Row::new(format!(
        "Latency: a move by SMTP → the forward in the partner's INBOX, `run` in IDLE ({n} samples; floor = (a) + (b) of the same round{history})"
    ));
    main.floor = floor.show("ms");
    main.relay = relayed.show("ms");
    main.ratio = Some(relayed.median() / floor.median());
    main.goal = Goal::AtMost(1.15);
    main.pctl = format!(
        "floor {} · relay {}",
        floor.p50_p99_ms(),
        relayed.p50_p99_ms()
    );
    main.rss = mib(rss);
    let mut a = Row::new(format!(
        "(a) IDLE: SMTP send → `* N EXISTS` at a bare IMAP client in IDLE ({n} samples)"
    ));
    a.floor = idle.show("ms");
    a.pctl = idle.p50_p99_ms();
    let mut b = Row::new(format!(
        "(b) plain Postfix alias forward: SMTP send to forward-to.X@ → in X's INBOX ({n} samples)"
    ));
    b.floor = fwd.show("ms");
    b.pctl = fwd.p50_p99_ms();
    for r in [&main, &a, &b] {
        progress(r);
    }
    vec![main, a, b]
}
