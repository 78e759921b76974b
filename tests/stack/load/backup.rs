//! P5, operations under load (issue 29): `fernzug backup` of a generated store while `fernzug run`
//! drains a burst of moves, beside the same burst drained without a backup (the floor, measured
//! just before in the same run), with `/metrics` scraped every 100 ms meanwhile. Then the backup
//! is read as a data_dir: every game is there and the games checked verify.
//!
//! Sizes: `FERNZUG_LOAD_BACKUP=RUNNING,BURST` (10000,2000; quick: 300,100): a store of RUNNING
//! running games, two bursts of BURST moves (each to games of its own).

use std::collections::BTreeSet;
use std::io::Write;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::generator::generate;
use super::proc::{Daemon, run_ok, vm_hwm_kb};
use super::setup::{fresh_seed, generated_moves, wait_total};
use super::table::{Goal, Row, Stats, count, mib, progress};
use super::wire::bare_send;
use crate::common::{Relay, SMTP_PORT};

fn sizes() -> (usize, usize) {
    let quick = std::env::var("FERNZUG_LOAD_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let default = if quick { (300, 100) } else { (10_000, 2_000) };
    match std::env::var("FERNZUG_LOAD_BACKUP") {
        Ok(v) if !v.trim().is_empty() => {
            let n: Vec<usize> = v
                .split(',')
                .map(|s| {
                    s.trim()
                        .replace('_', "")
                        .parse()
                        .expect("FERNZUG_LOAD_BACKUP")
                })
                .collect();
            assert!(n.len() == 2, "FERNZUG_LOAD_BACKUP=RUNNING,BURST");
            (n[0], n[1])
        }
        _ => default,
    }
}

/// One `GET path`: the time to the whole answer, and whether it was `200`.
fn get(port: u16, path: &str) -> (Duration, bool) {
    let started = Instant::now();
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else {
        return (started.elapsed(), false);
    };
    let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
    let _ = write!(s, "GET {path} HTTP/1.1\r\nHost: x\r\n\r\n");
    let out = crate::common::http_answer(&mut s);
    (started.elapsed(), out.starts_with("HTTP/1.1 200 "))
}

/// Sends the moves of `games` to the relay and waits until every mover and partner got his mail
/// (receipt, forward): the time from the first mail handed to Postfix to the last delivered.
fn drain(relay: &Relay, games: &[super::generator::RunningGame]) -> Duration {
    let moves = generated_moves(relay, games);
    let boxes: BTreeSet<String> = games
        .iter()
        .flat_map(|g| [g.partner.clone(), g.mover.clone()])
        .collect();
    let boxes: Vec<String> = boxes.into_iter().collect();
    let before: usize = wait_total(&boxes, 0, Duration::ZERO, Duration::ZERO)
        .values()
        .sum();
    let started = Instant::now();
    bare_send(SMTP_PORT, &moves).expect("the burst to Postfix");
    let n = games.len();
    let counts = wait_total(
        &boxes,
        before + 2 * n,
        Duration::from_secs(30),
        Duration::from_secs(300) + Duration::from_millis(50) * n as u32,
    );
    let got: usize = counts.values().sum();
    assert!(got >= before + 2 * n, "{got} of {} mails", before + 2 * n);
    started.elapsed()
}

pub fn rows() -> Vec<Row> {
    let (running, burst) = sizes();
    assert!(
        2 * burst <= running,
        "two bursts need 2 × BURST running games"
    );
    let relay = Relay::new("load-backup");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = std::fs::read_to_string(&relay.config).unwrap();
    config.push_str(&format!("\n[http]\nlisten = \"127.0.0.1:{port}\"\n"));
    std::fs::write(&relay.config, config).unwrap();
    let generated = generate(&relay.config, running, 0, fresh_seed());
    let mut daemon = Daemon::spawn(&relay, "info");
    daemon
        .wait_line("IMAP connected", Duration::from_secs(600))
        .expect("run logs in");
    let pid = daemon.child.id();

    // The floor: a burst drained by `run` alone.
    let alone = drain(&relay, &generated.running[..burst]);
    let rss_alone = vm_hwm_kb(pid);

    // The same burst size again, to other games, with a backup taken as it begins and /metrics
    // scraped every 100 ms until it is drained.
    let dir = relay.dir.join("backup");
    let done = std::sync::atomic::AtomicBool::new(false);
    let (beside, backup, scrapes) = std::thread::scope(|s| {
        let scraper = s.spawn(|| {
            let mut times = Vec::new();
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                let (took, ok) = get(port, "/metrics");
                assert!(ok, "/metrics answered");
                times.push(took);
                std::thread::sleep(Duration::from_millis(100));
            }
            times
        });
        let backup = s.spawn(|| {
            std::thread::sleep(Duration::from_millis(200));
            let started = Instant::now();
            let line = run_ok(&relay, &["backup", dir.to_str().unwrap()]);
            (started.elapsed(), line)
        });
        let beside = drain(&relay, &generated.running[burst..2 * burst]);
        let backup = backup.join().expect("backup");
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        (beside, backup, scraper.join().expect("scraper"))
    });
    let rss_beside = vm_hwm_kb(pid);
    let (backup_took, line) = backup;
    let line = line.trim().to_string();
    println!("{}", line.trim());
    println!(
        "burst of {burst} moves: {:.1} s alone, {:.1} s with the backup beside; backup {:.2} s; \
         /metrics {} scrapes; run's peak RSS {} KiB → {} KiB",
        alone.as_secs_f64(),
        beside.as_secs_f64(),
        backup_took.as_secs_f64(),
        scrapes.len(),
        rss_alone.unwrap_or(0),
        rss_beside.unwrap_or(0)
    );
    daemon.stop();

    // The backup is a data_dir: every game is there, and games verify.
    let copy = relay.dir.join("backup.toml");
    let text = std::fs::read_to_string(&relay.config).unwrap();
    let data_line = text.lines().find(|l| l.starts_with("data_dir")).unwrap();
    std::fs::write(
        &copy,
        text.replace(
            data_line,
            &format!("data_dir = {:?}", dir.to_string_lossy()),
        ),
    )
    .unwrap();
    let verify = |game: &str| {
        let out = std::process::Command::new(super::proc::bin())
            .arg("--config")
            .arg(&copy)
            .args(["verify", game])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let mut failed = None;
    for g in [
        &generated.running[0],
        &generated.running[burst],
        &generated.running[running - 1],
    ] {
        let v = verify(&g.game);
        if !v.starts_with("ok") {
            failed = Some(format!("{} in the backup: {v}", g.game));
        }
    }
    let stored = generated.running.len() + generated.finished_games;
    let games_line = format!("{stored} games");
    if !line.contains(&games_line) {
        failed.get_or_insert(format!("the backup holds not {games_line}: {line}"));
    }

    let mut rate = Row::new(format!(
        "P5 backup: a burst of {} moves drained by `run` over a store of {} running games, with `fernzug backup` taken as it begins vs alone, moves/s",
        count(burst),
        count(stored)
    ));
    rate.floor = format!("{:.1} moves/s", burst as f64 / alone.as_secs_f64());
    rate.relay = format!("{:.1} moves/s", burst as f64 / beside.as_secs_f64());
    rate.ratio = Some(alone.as_secs_f64() / beside.as_secs_f64());
    rate.goal = Goal::AtLeast(0.5);
    rate.rss = mib(rss_beside);
    rate.failed = failed;
    let mut took = Row::new(format!(
        "P5 backup: `fernzug backup` of {} running games while the burst drains (the running relay writes it beside its loop), s",
        count(stored)
    ));
    took.relay = format!("{:.2} s", backup_took.as_secs_f64());
    took.rss = format!("{} → {}", mib(rss_alone), mib(rss_beside));
    let stats = Stats::of_ms(&scrapes);
    let mut metrics = Row::new(format!(
        "P5 `/metrics` scraped every 100 ms during that burst ({} scrapes), ms",
        stats.len()
    ));
    metrics.relay = stats.show("ms");
    metrics.pctl = stats.p50_p99_ms();
    let rows = vec![rate, took, metrics];
    for r in &rows {
        progress(r);
    }
    rows
}
