//! P4, scale: the same measurements on a small store (the "floor" column) and on a large one made
//! by the generator (`generator.rs`; default 10,000 running and 100,000 finished games): `run`'s
//! peak memory, its start until the first IDLE, what a stranger's mail and a move cost it, `status
//! GAME`, `status --json`, `tournament add` of a 10,000-game tournament, and the cost per move of
//! one `once` with M waiting moves.

use std::time::{Duration, Instant};

use super::generator::generate;
use super::proc::{Daemon, Ran, fernzug_within, pass_ms};
use super::setup::{fresh_seed, generated_moves, put_waiting, tournament, wait_count};
use super::table::{Goal, Row, Sizes, Stats, count, mib, progress};
use super::wire::{Envelope, bare_send, seen_count};
use crate::common::{Mailbox, Relay, SMTP_PORT, send_text, unique_addr};

/// Moves sent one by one to `run` (each: SMTP → the forward in the partner's INBOX).
const RUN_MOVES: usize = 5;
/// A pass is taken as over when the daemon used no CPU for this long (a pass may wait on the
/// disk or the servers for a few hundred ms).
const QUIET: Duration = Duration::from_secs(1);
/// Repeated commands are run again only while their total stays under this.
const REPEAT_BUDGET: Duration = Duration::from_secs(30);

/// Whether the (small, large) store's command was stopped at the limit.
type Cut = (bool, bool);
const NO_CUT: Cut = (false, false);

/// What one store measured.
#[derive(Default)]
struct Measured {
    run_rss: Option<u64>,
    /// Spawn → the first IDLE.
    to_idle: Option<Duration>,
    /// `pass finished in N ms` of the stranger's pass and of the moves' passes (where logged).
    stranger_pass_ms: Vec<f64>,
    move_pass_ms: Vec<f64>,
    /// The daemon's CPU time for the stranger's mail and for each move.
    stranger_cpu_ms: Vec<f64>,
    move_cpu_ms: Vec<f64>,
    move_visible_ms: Vec<f64>,
    status_game: Vec<Ran>,
    status_json: Vec<Ran>,
    add: Vec<Ran>,
    per_move_ms: Vec<f64>,
    once_rss: Option<u64>,
    /// A `once` was stopped at the limit (its ms per move is a lower bound).
    once_cut: bool,
}

/// Whether this relay logs `pass finished in N ms` at the end of a pass (its source says so).
fn logs_passes() -> bool {
    fn walk(dir: &std::path::Path) -> bool {
        std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                let p = e.path();
                if p.is_dir() {
                    walk(&p)
                } else {
                    p.extension().is_some_and(|x| x == "rs")
                        && std::fs::read_to_string(&p).is_ok_and(|s| s.contains("pass finished in"))
                }
            })
    }
    walk(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"))
}

pub fn rows(sizes: &Sizes) -> Vec<Row> {
    let moves = sizes.scale_small.0.clamp(1, 200);
    let pass_lines = logs_passes();
    // The cost per move is taken as often on both sides (a median of one `once` beside a median
    // of three moved the ratio by a third between runs): the small store gets the games for it.
    let reps = sizes.runs.max(1);
    let small_store = (
        sizes.scale_small.0.max(RUN_MOVES + 1 + reps * moves),
        sizes.scale_small.1,
    );
    let small = measure(sizes, small_store, moves, reps, pass_lines);
    let large = measure(sizes, sizes.scale, moves, reps, pass_lines);
    let label = format!(
        "{} + {} vs {} + {} games",
        count(small_store.0),
        count(small_store.1),
        count(sizes.scale.0),
        count(sizes.scale.1)
    );
    let mut rows = Vec::new();
    let limit = sizes.limit.as_secs();
    let mut push = |what: &str, f: Vec<f64>, r: Vec<f64>, unit: &str, rss: String, cut: Cut| {
        let mut row = Row::new(format!("P4 {what} ({label})"));
        let (f, r) = (Stats::new(f), Stats::new(r));
        let stopped = |s: String| format!("≥ {s} (stopped after {limit} s)");
        if !f.is_empty() {
            row.floor = f.show(unit);
            if cut.0 {
                row.floor = stopped(row.floor);
            }
        }
        if !r.is_empty() {
            row.relay = r.show(unit);
            if cut.1 {
                row.relay = stopped(row.relay);
            }
        }
        if !f.is_empty() && !r.is_empty() && !cut.0 && !cut.1 {
            row.ratio = Some(r.median() / f.median());
        }
        row.rss = rss;
        progress(&row);
        rows.push(row);
    };
    let opt = |d: Option<Duration>| d.map(|d| d.as_secs_f64() * 1e3).into_iter().collect();
    let walls = |v: &[Ran]| v.iter().map(|r| r.wall.as_secs_f64() * 1e3).collect();
    let peak = |v: &[Ran]| v.iter().filter_map(|r| r.rss_kb).max();
    let cut = |v: &[Ran]| v.iter().any(|r| r.timed_out);
    let both = |a: Option<u64>, b: Option<u64>| format!("{} / {}", mib(a), mib(b));
    let mb = |k: Option<u64>| k.map(|k| k as f64 / 1024.0).into_iter().collect();
    push(
        "`run`: peak RSS (VmHWM)",
        mb(small.run_rss),
        mb(large.run_rss),
        "MiB",
        both(small.run_rss, large.run_rss),
        NO_CUT,
    );
    push(
        if pass_lines {
            "`run`: start → first IDLE (the first `pass finished` line)"
        } else {
            "`run`: start → first IDLE (its CPU quiet after the first pass)"
        },
        opt(small.to_idle),
        opt(large.to_idle),
        "ms",
        "—".into(),
        NO_CUT,
    );
    if pass_lines {
        push(
            "`run`: the pass for a stranger's mail (`pass finished in N ms`)",
            small.stranger_pass_ms,
            large.stranger_pass_ms,
            "ms",
            "—".into(),
            NO_CUT,
        );
        push(
            &format!("`run`: the pass for one move (`pass finished in N ms`, {RUN_MOVES} moves)"),
            small.move_pass_ms,
            large.move_pass_ms,
            "ms",
            "—".into(),
            NO_CUT,
        );
    }
    push(
        "`run`: CPU time for a stranger's mail",
        small.stranger_cpu_ms,
        large.stranger_cpu_ms,
        "ms",
        "—".into(),
        NO_CUT,
    );
    push(
        &format!("`run`: CPU time per move ({RUN_MOVES} moves, one at a time)"),
        small.move_cpu_ms,
        large.move_cpu_ms,
        "ms",
        "—".into(),
        NO_CUT,
    );
    push(
        &format!("`run`: a move by SMTP → the forward in the partner's INBOX ({RUN_MOVES} moves)"),
        small.move_visible_ms,
        large.move_visible_ms,
        "ms",
        "—".into(),
        NO_CUT,
    );
    push(
        "`status GAME` wall time",
        walls(&small.status_game),
        walls(&large.status_game),
        "ms",
        both(peak(&small.status_game), peak(&large.status_game)),
        (cut(&small.status_game), cut(&large.status_game)),
    );
    push(
        "`status --json` wall time",
        walls(&small.status_json),
        walls(&large.status_json),
        "ms",
        both(peak(&small.status_json), peak(&large.status_json)),
        (cut(&small.status_json), cut(&large.status_json)),
    );
    push(
        &format!(
            "`tournament add` of a {}-game tournament, wall time",
            count(sizes.add)
        ),
        walls(&small.add),
        walls(&large.add),
        "ms",
        both(peak(&small.add), peak(&large.add)),
        (cut(&small.add), cut(&large.add)),
    );
    let mut row = Row::new(format!(
        "P4 cost per move: {moves} waiting moves, one `once`, ms per move ({label})"
    ));
    let (f, r) = (Stats::new(small.per_move_ms), Stats::new(large.per_move_ms));
    let stopped = |s: String, cut: bool| {
        if cut {
            format!("≥ {s} (stopped after {limit} s)")
        } else {
            s
        }
    };
    row.floor = stopped(f.show("ms/move"), small.once_cut);
    row.relay = stopped(r.show("ms/move"), large.once_cut);
    if !small.once_cut && !large.once_cut {
        row.ratio = Some(r.median() / f.median());
    }
    row.goal = Goal::AtMost(1.1);
    row.rss = both(small.once_rss, large.once_rss);
    progress(&row);
    rows.push(row);
    rows
}

/// Runs `fernzug ARGS` `n` times, or fewer when they take longer than [`REPEAT_BUDGET`] (or one
/// was stopped at `limit`).
fn repeat(relay: &Relay, args: &[&str], n: usize, limit: Duration) -> Vec<Ran> {
    let started = Instant::now();
    let mut out: Vec<Ran> = Vec::new();
    while out.len() < n
        && (out.is_empty() || started.elapsed() < REPEAT_BUDGET)
        && !out.iter().any(|r| r.timed_out)
    {
        out.push(fernzug_within(relay, args, &[], Some(limit)));
    }
    out
}

fn measure(
    sizes: &Sizes,
    store: (usize, usize),
    moves: usize,
    reps: usize,
    pass_lines: bool,
) -> Measured {
    let (running, finished) = store;
    let limit = sizes.limit;
    let relay = Relay::new("load-scale");
    let started = Instant::now();
    let generated = generate(&relay.config, running, finished, fresh_seed());
    println!(
        "scale: generated {} running + {} finished games in {:?}",
        generated.running.len(),
        generated.finished_games,
        started.elapsed()
    );
    let mut m = Measured::default();
    // The games used below and their move mails, made before anything is measured: game 0 for
    // `status GAME`, then RUN_MOVES for `run`, then `reps` batches of `moves` for `once`.
    let games = &generated.running;
    let probe = games.first().map(|g| g.game.clone()).unwrap_or_default();
    let rest = games.get(1..).unwrap_or(&[]);
    let used = rest.len().min(RUN_MOVES + reps * moves);
    let started = Instant::now();
    let mut mails = generated_moves(&relay, &rest[..used]);
    println!(
        "scale: {used} move mails written in {:?}",
        started.elapsed()
    );
    let partners: Vec<String> = rest[..used.min(RUN_MOVES)]
        .iter()
        .map(|g| g.partner.clone())
        .collect();
    let batches: Vec<Vec<Envelope>> = mails
        .split_off(used.min(RUN_MOVES))
        .chunks_exact(moves)
        .map(<[Envelope]>::to_vec)
        .collect();
    let long = Duration::from_secs(3600);

    // `run`: to the first IDLE, a stranger's mail, moves one by one; its peak memory.
    let mut d = Daemon::spawn(&relay, "fernzug=debug,info");
    let connected = d.wait_line("waiting for mail", long).map(|(at, _)| at);
    m.to_idle = if pass_lines {
        // The relay may log the connection before or after its first pass: the later.
        let first = d.wait_line("pass finished in", long).map(|(at, _)| at);
        connected.max(first)
    } else {
        connected.and_then(|_| d.wait_quiet(QUIET, long))
    }
    .map(|at| at - d.started);
    let cpu0 = d.cpu();
    send_text(
        &unique_addr("stranger"),
        &relay.address,
        "Eine Frage",
        "Guten Tag, wie geht es?",
    );
    if pass_lines {
        m.stranger_pass_ms.extend(
            d.wait_line("pass finished in", long)
                .and_then(|(_, l)| pass_ms(&l)),
        );
    }
    // Done when the relay flagged it \Seen (after its store committed), and the daemon is quiet.
    let seen = wait_seen(&relay.address, 1, long);
    d.wait_quiet(QUIET, long);
    if let (Some(a), Some(b), true) = (cpu0, d.cpu(), seen) {
        m.stranger_cpu_ms.push((b - a).as_secs_f64() * 1e3);
    }
    for (mail, partner) in mails.iter().zip(&partners) {
        let mut partner = Mailbox::open(partner).expect("IMAP");
        let before = partner.count().expect("STATUS");
        let cpu0 = d.cpu();
        let t0 = Instant::now();
        bare_send(SMTP_PORT, std::slice::from_ref(mail)).expect("send a move");
        if let Ok(at) = wait_count(
            &mut partner,
            before + 1,
            Duration::from_secs(600),
            Duration::from_millis(5),
        ) {
            m.move_visible_ms.push((at - t0).as_secs_f64() * 1e3);
        }
        if pass_lines {
            m.move_pass_ms.extend(
                d.wait_line("pass finished in", long)
                    .and_then(|(_, l)| pass_ms(&l)),
            );
        }
        d.wait_quiet(QUIET, long);
        if let (Some(a), Some(b)) = (cpu0, d.cpu()) {
            m.move_cpu_ms.push((b - a).as_secs_f64() * 1e3);
        }
    }
    m.run_rss = d.stop();
    println!(
        "scale: run: peak RSS {:?} KiB, start → first IDLE {:?}, stranger's mail {:?} ms CPU, \
         moves {:?} ms CPU, {:?} ms to the forward",
        m.run_rss, m.to_idle, m.stranger_cpu_ms, m.move_cpu_ms, m.move_visible_ms
    );

    // `status GAME` and `status --json`.
    m.status_game = repeat(&relay, &["status", &probe], 5, limit);
    let walls = |v: &[Ran]| v.iter().map(|r| r.wall).collect::<Vec<_>>();
    println!("scale: status GAME {:?}", walls(&m.status_game));
    m.status_json = repeat(&relay, &["status", "--json"], 3, limit);
    println!("scale: status --json {:?}", walls(&m.status_json));

    // The cost per move: `moves` move mails waiting, one `once`.
    for batch in &batches {
        put_waiting(&relay.address, batch);
        let ran = fernzug_within(&relay, &["once"], &[], Some(limit));
        println!("scale: {} moves in one once: {:?}", batch.len(), ran.wall);
        m.per_move_ms
            .push(ran.wall.as_secs_f64() * 1e3 / batch.len() as f64);
        m.once_rss = m.once_rss.max(ran.rss_kb);
        if ran.timed_out {
            m.once_cut = true;
            break;
        }
    }

    // `tournament add` of a large tournament (last: it fills the outbox).
    let (t, _) = tournament(&relay, "add", sizes.add);
    let ran = fernzug_within(
        &relay,
        &["tournament", "add", t.path.to_str().unwrap()],
        &[],
        Some(limit),
    );
    println!("scale: tournament add {:?}", ran.wall);
    m.add.push(ran);
    m
}

/// Waits until `user`'s INBOX holds at least `n` messages flagged \Seen (polled every 20 ms).
fn wait_seen(user: &str, n: usize, timeout: Duration) -> bool {
    let started = Instant::now();
    while started.elapsed() < timeout {
        if seen_count(user) >= n {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}
