//! Load measurement (not a pass/fail test of speed): the relay daemon forwarding moves through the
//! real mail stack, against a baseline of the bare stack measured beside it in the same run.
//!
//! Run: `cargo test --release --test stack load:: -- --ignored --nocapture`
//! It prints medians (and p90) of (a) the bare stack: SMTP → visible in IMAP, (b) the relay:
//! a player's move sent by SMTP → the forward visible in the partner's IMAP inbox (IDLE wake, fetch,
//! one fsynced store transaction, render, SMTP), and (c) the throughput of a burst of moves.

use std::time::{Duration, Instant};

use crate::common::{Mailbox, Relay, send_text, unique_addr, wait_for};

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let i = ((samples.len() as f64 - 1.0) * p).round() as usize;
    samples[i]
}

fn wait_count(mailbox: &mut Mailbox, n: usize, started: Instant) {
    while mailbox.count().expect("IMAP STATUS") < n {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no delivery after 60 s"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

#[test]
#[ignore = "a measurement; run with --ignored --nocapture"]
fn forward_latency_and_burst_throughput_against_the_bare_stack() {
    const PLAYERS: usize = 12; // 66 games
    const SEQUENTIAL: usize = 30;
    let relay = Relay::new("load");
    let players: Vec<(String, String)> = (0..PLAYERS)
        .map(|i| (format!("Spieler {i}"), unique_addr(&format!("p{i}"))))
        .collect();
    let entries: Vec<(&str, &str, Option<&str>)> = players
        .iter()
        .map(|(n, e)| (n.as_str(), e.as_str(), None))
        .collect();
    let today = chrono::Utc::now().date_naive().to_string();
    let t = relay.tournament(&entries, "fax", &today);
    relay.run_ok(&["tournament", "add", t.path.to_str().unwrap()]);
    let mut child = relay
        .command(&["run"])
        .env("RUST_LOG", "warn")
        .spawn()
        .unwrap();
    // Every player gets one start mail per game: 11 each.
    for (_, e) in &players {
        wait_for(e, PLAYERS - 1, Duration::from_secs(120));
    }
    let status = relay.run_ok(&["status", "--json"]);
    let games: Vec<serde_json::Value> = serde_json::from_str(&status).unwrap();
    assert_eq!(games.len(), PLAYERS * (PLAYERS - 1) / 2);

    // (a) baseline: the bare stack, same sender and mailbox kind, measured beside the relay.
    let sink = unique_addr("sink");
    let mut sink_box = Mailbox::open(&sink).unwrap();
    let mut bare = Vec::new();
    for i in 1..=SEQUENTIAL {
        let started = Instant::now();
        send_text(&players[0].1, &sink, "baseline", "1. e4");
        wait_count(&mut sink_box, i, started);
        bare.push(started.elapsed());
    }

    // (b) the relay: one first move per game, one after the other.
    let mut relayed = Vec::new();
    for g in games.iter().take(SEQUENTIAL) {
        let white = g["white"].as_str().unwrap();
        let black = g["black"].as_str().unwrap();
        let mut black_box = Mailbox::open(black).unwrap();
        let before = black_box.count().unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let started = Instant::now();
        send_text(
            white,
            &relay.address,
            &format!("[{}]", g["id"].as_str().unwrap()),
            "1. e4",
        );
        wait_count(&mut black_box, before + 1, started);
        relayed.push(started.elapsed());
    }

    // (c) a burst: the first moves of all remaining games at once, until every forward arrived.
    let rest: Vec<&serde_json::Value> = games.iter().skip(SEQUENTIAL).collect();
    let mut expected = std::collections::BTreeMap::new();
    for g in &rest {
        let black = g["black"].as_str().unwrap().to_string();
        let n = expected
            .entry(black.clone())
            .or_insert_with(|| Mailbox::open(&black).unwrap().count().unwrap());
        *n += 1;
    }
    let started = Instant::now();
    for g in &rest {
        send_text(
            g["white"].as_str().unwrap(),
            &relay.address,
            &format!("[{}]", g["id"].as_str().unwrap()),
            "1. d4",
        );
    }
    for (black, n) in &expected {
        let mut b = Mailbox::open(black).unwrap();
        wait_count(&mut b, *n, started);
    }
    let burst = started.elapsed();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();

    let bare_p50 = percentile(&mut bare, 0.5);
    let relay_p50 = percentile(&mut relayed, 0.5);
    println!(
        "bare stack SMTP→IMAP: p50 {:?}, p90 {:?} ({SEQUENTIAL} mails)",
        bare_p50,
        percentile(&mut bare, 0.9)
    );
    println!(
        "relay move→forward visible: p50 {:?}, p90 {:?} ({SEQUENTIAL} moves); ratio p50 {:.1}×",
        relay_p50,
        percentile(&mut relayed, 0.9),
        relay_p50.as_secs_f64() / bare_p50.as_secs_f64()
    );
    println!(
        "burst: {} moves processed in {:?} = {:.1} moves/s",
        rest.len(),
        burst,
        rest.len() as f64 / burst.as_secs_f64()
    );
}
