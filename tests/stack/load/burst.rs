//! P2, a burst: N move mails (one per running game) wait in the relay's INBOX and ONE
//! `fernzug once` reads, decides, stores and hands them to SMTP — against the rate at which the
//! same stack delivers N mails into one mailbox, measured just before it.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use super::generator::generate;
use super::proc::{Spent, Spin, Watch, fernzug};
use super::setup::{
    forwards_not_once, fresh_seed, generated_moves, move_mail, put_waiting, wait_count, wait_total,
};
use super::table::{Goal, Row, Sizes, Stats, count, mib, num, progress};
use super::wire::{Envelope, bare_send, bare_send_with};
use crate::common::{Mailbox, Relay, SMTP_PORT, unique_addr};

pub fn rows(sizes: &Sizes) -> Vec<Row> {
    sizes
        .burst
        .iter()
        .flat_map(|&n| {
            let runs = if n <= 1_000 { sizes.runs } else { 1 };
            let rows = burst(n, runs.max(1));
            for row in &rows {
                progress(row);
            }
            rows
        })
        .collect()
}

/// The stack's delivery rate: `n` move-sized mails over one bare SMTP connection into one fresh
/// mailbox, from the first command until IMAP STATUS counts all of them (polled every 20 ms).
fn floor(n: usize) -> f64 {
    let sender = unique_addr("floor-sender");
    let target = unique_addr("floor-box");
    let mails: Vec<_> = (0..n)
        .map(|i| {
            move_mail(
                &sender,
                &target,
                &format!("Re: [FLOOR/{i}] Zug"),
                "23... Nf6",
            )
        })
        .collect();
    let mut b = Mailbox::open(&target).expect("IMAP");
    let started = Instant::now();
    bare_send(SMTP_PORT, &mails).expect("floor: send");
    let done = wait_count(
        &mut b,
        n,
        Duration::from_secs(60) + Duration::from_millis(50) * n as u32,
        Duration::from_millis(20),
    )
    .expect("floor: delivery");
    n as f64 / (done - started).as_secs_f64()
}

/// What the relay can reach at best on this stack: it hands two mails per move to Postfix (the
/// forward and the receipt). Bare clients over [`fernzug::daemon::PARALLEL_SENDS`] connections
/// hand `2n` mails — the very mails the relay sent (a forward and a receipt of the run, byte for
/// byte) — to fresh mailboxes as the relay's went to its players: one fresh mailbox for each
/// player, move by move the forward to the partner's and the receipt to the mover's (a
/// mailbox's share of the deliveries, and so Dovecot's work for it, is the relay's); moves per
/// second (`moves.len()` over the time until Postfix accepted the last one), and what the machine
/// spent meanwhile. With `spend` = (spin, x) the clients also spend about x core-ms a move (half
/// before each mail): a relay of that CPU that costs the machine nothing else, at best.
fn bound(
    moves: &[(String, String)],
    forward: &[u8],
    receipt: &[u8],
    spend: Option<(Spin, f64)>,
) -> (f64, Spent) {
    let width = fernzug::daemon::PARALLEL_SENDS;
    let n = moves.len();
    let sender = unique_addr("bound-sender");
    let mut boxes: BTreeMap<&str, String> = BTreeMap::new();
    for (mover, partner) in moves {
        for player in [mover, partner] {
            boxes
                .entry(player.as_str())
                .or_insert_with(|| unique_addr("bound-box"));
        }
    }
    let mails: Vec<Envelope> = moves
        .iter()
        .flat_map(|(mover, partner)| [(partner, forward), (mover, receipt)])
        .map(|(player, data)| Envelope {
            from: sender.clone(),
            to: vec![boxes[player.as_str()].clone()],
            data: data.to_vec(),
        })
        .collect();
    let boxes: Vec<String> = boxes.into_values().collect();
    let quiet = super::proc::settle();
    let watch = Watch::start();
    let started = Instant::now();
    std::thread::scope(|s| {
        let parts: Vec<_> = mails
            .chunks(mails.len().div_ceil(width).max(1))
            .map(|part| {
                s.spawn(move || {
                    let before = || {
                        if let Some((spin, x)) = spend {
                            spin.burn(x / 2.0);
                        }
                    };
                    bare_send_with(SMTP_PORT, part, before).expect("bound: send")
                })
            })
            .collect();
        for p in parts {
            p.join().expect("bound: sender");
        }
    });
    let rate = n as f64 / started.elapsed().as_secs_f64();
    let spent = watch.stop(n);
    let spending = spend.map_or(String::new(), |(_, x)| {
        format!(", the clients spending {x:.2} core-ms a move beside")
    });
    println!(
        "  bound: to {} fresh mailboxes (as many as the relay's players){spending}, quiet after {quiet:.1?}; {spent}",
        boxes.len()
    );
    // Delivered before the next measurement begins.
    wait_total(
        &boxes,
        2 * n,
        Duration::from_secs(10),
        Duration::from_secs(120) + Duration::from_millis(50) * n as u32,
    );
    (rate, spent)
}

/// What a move of the relay's drain costs the machine beyond what handing its mails over costs
/// in the bound, delivering (`lmtp`: Postfix's client and Dovecot's server) aside — it takes
/// about half a core whenever mail waits, and so grows with the time a drain takes — with what
/// the bound's ratio of 0.9 asks of it (a ninth of the bound's own cost): core-ms a move.
fn beyond_bound(drain: &Spent, bound: &Spent) -> Option<(f64, f64)> {
    let aside = |s: &Spent| s.machine.map(|(ms, _)| ms - s.of("lmtp"));
    let (drain, bound) = (aside(drain)?, aside(bound)?);
    Some((drain - bound, bound / 9.0))
}

fn burst(n: usize, runs: usize) -> Vec<Row> {
    let mut bounds = Vec::new();
    let mut floors = Vec::new();
    let mut relays = Vec::new();
    let mut ratios = Vec::new();
    let mut rss = None;
    let mut wrong: Vec<String> = Vec::new();
    let mut cpus = Vec::new();
    let (mut beyond, mut asked) = (Vec::new(), Vec::new());
    // Bare clients that spend as much CPU beside as a relay: a third of the relay's, two thirds,
    // all of it (this run's); for each run their rate, its ratio to this run's bound and what
    // their process spent beyond the bound's.
    let spin = Spin::calibrate();
    let me = std::fs::read_to_string("/proc/self/comm").unwrap_or_default();
    let me = me.trim();
    let shares = [
        (1.0 / 3.0, "a third"),
        (2.0 / 3.0, "two thirds"),
        (1.0, "all"),
    ];
    let mut spending: Vec<Vec<(f64, f64, f64)>> = vec![Vec::new(); shares.len()];
    for run in 0..runs {
        let f = floor(n);
        // The relay: a store of ≥ n running games, n move mails waiting, one `once`.
        let relay = Relay::new("load-burst");
        let generated = generate(&relay.config, n, 0, fresh_seed());
        assert!(generated.running.len() >= n, "generator: too few games");
        let games = &generated.running[..n];
        put_waiting(&relay.address, &generated_moves(&relay, games));
        let quiet = super::proc::settle();
        let watch = Watch::start();
        let ran = fernzug(&relay, &["once"], &[]);
        let drained = watch.stop(n);
        let r = n as f64 / ran.wall.as_secs_f64();
        if run == 0 && std::env::var_os("FERNZUG_LOAD_PERF").is_some() {
            // The same burst again, profiled (not measured): a second store from the same seed.
            let again = Relay::new("load-burst-perf");
            let generated = generate(&again.config, n, 0, fresh_seed());
            put_waiting(
                &again.address,
                &generated_moves(&again, &generated.running[..n]),
            );
            super::proc::profile(&again, &["once"], &format!("p2-{n}"));
        }
        println!(
            "burst {n}, run {}: floor {:.1} mails/s, relay {:.1} mails/s (once {:?}, CPU {:?}, peak RSS {} KiB)",
            run + 1,
            f,
            r,
            ran.wall,
            ran.cpu.unwrap_or_default(),
            ran.rss_kb.unwrap_or(0)
        );
        ran.print_details();
        println!("  quiet after {quiet:.1?}; {drained} (the relay's own: its CPU above)");
        floors.push(f);
        relays.push(r);
        let cpu = ran.cpu.map(|c| c.as_secs_f64() * 1e3 / n as f64);
        cpus.extend(cpu);
        ratios.push(r / f);
        rss = rss.max(ran.rss_kb);
        // Every partner got his forward, exactly once (and every mover his receipt: 2n mails).
        let expected: BTreeMap<String, String> = games
            .iter()
            .map(|g| (g.game.clone(), g.partner.clone()))
            .collect();
        let boxes: BTreeSet<String> = games
            .iter()
            .flat_map(|g| [g.partner.clone(), g.mover.clone()])
            .collect();
        let boxes: Vec<String> = boxes.into_iter().collect();
        wait_total(
            &boxes,
            2 * n,
            Duration::from_secs(10),
            Duration::from_secs(120) + Duration::from_millis(50) * n as u32,
        );
        std::thread::sleep(Duration::from_secs(1));
        wrong.extend(forwards_not_once(&expected));
        // The bound, with a forward and a receipt the relay just sent.
        let kind_in = |user: &str, kind: &str| {
            crate::common::fetch_all(user)
                .into_iter()
                .find(|m| crate::common::header(m, "X-Fernzug-Kind").as_deref() == Some(kind))
        };
        let g = &games[0];
        let (Some(forward), Some(receipt)) =
            (kind_in(&g.partner, "move"), kind_in(&g.mover, "receipt"))
        else {
            panic!(
                "burst: no forward or receipt of {} to measure the bound with",
                g.game
            );
        };
        let moves: Vec<(String, String)> = games
            .iter()
            .map(|g| (g.mover.clone(), g.partner.clone()))
            .collect();
        let (b, handed) = bound(&moves, &forward, &receipt, None);
        println!(
            "  bound: bare clients hand the relay's 2 mails per move ({} and {} bytes) at {b:.1} moves/s",
            forward.len(),
            receipt.len()
        );
        if let Some(cpu) = cpu {
            for ((share, _), runs) in shares.iter().zip(&mut spending) {
                let x = cpu * share;
                let (rate, with) = bound(&moves, &forward, &receipt, Some((spin, x)));
                let beside = with.of(me) - handed.of(me);
                println!(
                    "  bound, the clients spending {x:.2} core-ms a move beside ({beside:.2} more than the bound's by their process): {rate:.1} moves/s, {:.2}× the bound",
                    rate / b
                );
                runs.push((rate, rate / b, beside));
            }
        }
        if let Some((cost, ask)) = beyond_bound(&drained, &handed) {
            println!(
                "  the relay's cost to the machine beyond the bound's, delivering aside: {cost:.2} core-ms a move (a ratio of 0.9 asks for ≤ {ask:.2})"
            );
            beyond.push(cost);
            asked.push(ask);
        }
        bounds.push(b);
    }
    if !beyond.is_empty() {
        println!(
            "burst {n}: the relay's cost to the machine beyond the bound's, delivering aside: {} (a ratio of 0.9 asks for ≤ {})",
            Stats::new(beyond).show("core-ms a move"),
            Stats::new(asked).show("core-ms")
        );
    }
    let mut row = Row::new(format!(
        "P2 burst: {} waiting moves (one per game), one `once` (read, decide, store, SMTP) vs the stack delivering as many mails into one mailbox{}",
        count(n),
        if runs > 1 {
            format!(", {runs} runs")
        } else {
            String::new()
        }
    ));
    row.floor = Stats::new(floors).show("mails/s");
    row.relay = Stats::new(relays.clone()).show("mails/s");
    row.ratio = Some(Stats::new(ratios).median());
    row.goal = Goal::AtLeast(1.0);
    row.rss = mib(rss);
    if !wrong.is_empty() {
        let shown: Vec<&str> = wrong.iter().take(10).map(String::as_str).collect();
        eprintln!(
            "forwards not exactly once (first 10):\n{}",
            shown.join("\n")
        );
        row.failed = Some(format!("{} forwards not exactly once", wrong.len()));
    }
    let mut bound = Row::new(format!(
        "P2 burst, {} moves, beside what the stack can take: bare clients handing the relay's 2 mails per move (forward, receipt) over {} connections, moves/s",
        count(n),
        fernzug::daemon::PARALLEL_SENDS
    ));
    bound.floor = Stats::new(bounds.clone()).show("moves/s");
    bound.relay = row.relay.replace("mails/s", "moves/s");
    let ratios: Vec<f64> = relays.iter().zip(&bounds).map(|(r, b)| r / b).collect();
    bound.ratio = Some(Stats::new(ratios).median());
    bound.goal = Goal::AtLeast(0.9);
    bound.rss = row.rss.clone();
    let mut cpu = Row::new(format!(
        "P2 burst, {} moves: the relay's CPU per move (user + system over the drain; ratio: over 1 ms)",
        count(n)
    ));
    let cpus = Stats::new(cpus);
    cpu.relay = cpus.show("ms");
    cpu.ratio = Some(cpus.median());
    cpu.goal = Goal::AtMost(1.0);
    let mut rows = Vec::new();
    for ((_, share), runs) in shares.iter().zip(spending) {
        if runs.is_empty() {
            continue;
        }
        let of = |pick: fn(&(f64, f64, f64)) -> f64| Stats::new(runs.iter().map(pick).collect());
        let mut r = Row::new(format!(
            "P2 burst, {} moves: bare clients handing the same mails that spend {share} of the relay's CPU beside ({} core-ms a move by their process's ticks) — a relay of that CPU, nothing else, at best; against the bound",
            count(n),
            num(of(|r| r.2).median())
        ));
        r.floor = bound.floor.clone();
        r.relay = of(|r| r.0).show("moves/s");
        r.ratio = Some(of(|r| r.1).median());
        rows.push(r);
    }
    [vec![row, bound, cpu], rows].concat()
}
