//! P7, the size of one tournament (issue 33): a round robin of 15 players (105 games) beside one
//! of 142 (10,011 games), each in a relay of its own, side by side in one run, outgoing mail to
//! the in-process SMTP sink. For each: `tournament add` (peak memory), the pass that sends the
//! start mails (time, peak memory), then `FERNZUG_LOAD_RUNS` times 100 moves (one per game, the
//! same 100 games move after move) drained by one `once` (cost per move, CPU per move, peak
//! memory) — the two sizes' drains in turn, so that what the machine does meanwhile falls on
//! both alike — the store on disk a game, and the `move` mail's size as the partner gets it.
//!
//! Goals: a pass's peak memory ≤ 50 MB whatever the size; cost per move in the large tournament
//! ≤ 1.2× the small one's, over all drains and in the first drain after the start pass alone
//! (the first move of each game: issue 50 measured 7.5× there while the later drains read
//! 1.1×); the relay's CPU ≤ 1 ms a move; ≤ 25 KB of store a game; a `move` mail
//! ≤ 8 KB; `tournament add` ≤ 100 MB (the scale table's goal).
//!
//! Sizes: `FERNZUG_LOAD_SIZE=SMALL,LARGE` players (15,142; quick: 15,45), `FERNZUG_LOAD_RUNS`
//! drains of each (9 unless told, the most the game's plies give: a drain of 100 moves takes a
//! tenth of a second, and one drain's time moves by a tenth between drains of the same code, so
//! the median wants as many as there are).

use std::path::Path;

use super::proc::{Ran, fernzug};
use super::setup::{key_address, move_mail, put_waiting};
use super::table::{Goal, Row, Stats, count, progress};
use super::wire::{Envelope, Sink};
use crate::common::{Relay, header};

const MOVES: usize = 100;
const MB: f64 = 1e6;

fn sizes() -> (usize, usize) {
    let quick = std::env::var("FERNZUG_LOAD_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let v: Vec<usize> = std::env::var("FERNZUG_LOAD_SIZE")
        .ok()
        .map(|v| {
            v.split(',')
                .filter_map(|s| s.trim().replace('_', "").parse().ok())
                .collect()
        })
        .unwrap_or_default();
    match v.as_slice() {
        [a, b] => (*a, *b),
        _ if quick => (15, 45),
        _ => (15, 142),
    }
}

/// What one size gave.
struct Measured {
    games: usize,
    add: Ran,
    start: Ran,
    /// Per run: the drain's `once`.
    drains: Vec<Ran>,
    /// Bytes on disk under the data directory, after the start mails and the first 100 moves.
    store_bytes: u64,
    /// The `move` mails the partners got (bytes, whole).
    move_mail: Vec<usize>,
}

impl Measured {
    fn per_move_ms(&self) -> Vec<f64> {
        self.drains
            .iter()
            .map(|r| r.wall.as_secs_f64() * 1e3 / MOVES as f64)
            .collect()
    }

    fn cpu_per_move_ms(&self) -> Vec<f64> {
        self.drains
            .iter()
            .filter_map(|r| r.cpu)
            .map(|c| c.as_secs_f64() * 1e3 / MOVES as f64)
            .collect()
    }

    fn drain_rss_mb(&self) -> f64 {
        self.drains
            .iter()
            .filter_map(|r| r.rss_kb)
            .max()
            .map_or(f64::NAN, |k| k as f64 * 1024.0 / MB)
    }
}

fn mb(r: &Ran) -> f64 {
    r.rss_kb.map_or(f64::NAN, |k| k as f64 * 1024.0 / MB)
}

fn du(dir: &Path) -> u64 {
    let mut total = 0;
    if let Ok(entries) = std::fs::read_dir(dir) {
        for e in entries.flatten() {
            let Ok(meta) = e.metadata() else { continue };
            if meta.is_dir() {
                total += du(&e.path());
            } else {
                total += meta.len();
            }
        }
    }
    total
}

/// The bytes of a file or of a directory's files.
fn du_any(p: &Path) -> u64 {
    if p.is_dir() {
        du(p)
    } else {
        p.metadata().map_or(0, |m| m.len())
    }
}

/// The reply address of each player's start mail, by (game, colour).
fn reply_addresses(
    relay: &Relay,
    mails: &[Envelope],
) -> std::collections::BTreeMap<(String, String), (String, String)> {
    let mut out = std::collections::BTreeMap::new();
    let (local, _) = relay.address.split_once('@').expect("relay address");
    for m in mails {
        if header(&m.data, "X-Fernzug-Kind").as_deref() != Some("start") {
            continue;
        }
        let game = header(&m.data, "X-Fernzug-Game").expect("start: game");
        let colour = header(&m.data, "X-Fernzug-Color").expect("start: colour");
        let reply = header(&m.data, "Reply-To").expect("start: Reply-To");
        let key = reply
            .split(&format!("{local}+"))
            .nth(1)
            .and_then(|r| r.split('@').next())
            .expect("start: relay+KEY@")
            .to_string();
        out.insert((game, colour), (m.to[0].clone(), key));
    }
    out
}

/// Each move repeats the partner's last one (TO §2): the mails of ply `run` say these lines.
const PLIES: [&str; 10] = [
    "1. e4",
    "1. e4\n1... e5",
    "1... e5\n2. Nf3",
    "2. Nf3\n2... Nc6",
    "2... Nc6\n3. Bb5",
    "3. Bb5\n3... a6",
    "3... a6\n4. Ba4",
    "4. Ba4\n4... Nf6",
    "4... Nf6\n5. O-O",
    "5. O-O\n5... Be7",
];

/// One size's relay, started: its tournament added and its start mails sent.
struct Started {
    players: usize,
    relay: Relay,
    /// The 100 games that move, and the reply address of each player's start mail.
    chosen: Vec<String>,
    replies: std::collections::BTreeMap<(String, String), (String, String)>,
    measured: Measured,
}

impl Started {
    fn new(sink: &Sink, players: usize) -> Started {
        let games = players * (players - 1) / 2;
        let relay = Relay::new("load-size");
        let (t, add, start, mails) = super::setup::started_at_sink(&relay, "z", games, sink);
        let replies = reply_addresses(&relay, &mails);
        // Games 1 to 100: in the store's order of keys (`z/1`, `z/10`, `z/100`, `z/1000`, …)
        // spread over the whole tournament, as the moves of a real one are.
        let chosen = (1..=games.min(MOVES)).map(|n| t.game(n as u32)).collect();
        Started {
            players,
            relay,
            chosen,
            replies,
            measured: Measured {
                games,
                add,
                start,
                drains: Vec::new(),
                store_bytes: 0,
                move_mail: Vec::new(),
            },
        }
    }

    /// Puts the moves of ply `run` (White's, then Black's, in turn) in the relay's INBOX.
    fn put_moves(&self, run: usize) {
        let colour = if run.is_multiple_of(2) {
            "white"
        } else {
            "black"
        };
        let mails: Vec<Envelope> = self
            .chosen
            .iter()
            .map(|g| {
                let (from, key) = &self.replies[&(g.clone(), colour.to_string())];
                move_mail(
                    from,
                    &key_address(&self.relay, key),
                    &format!("Re: [{g}] Zug"),
                    PLIES[run],
                )
            })
            .collect();
        put_waiting(&self.relay.address, &mails);
    }

    /// Run `run`: the moves of its ply drained by one `once`.
    fn drain(&mut self, sink: &Sink, run: usize) {
        let (players, games) = (self.players, self.measured.games);
        self.put_moves(run);
        let before = sink.count();
        let ran = fernzug(&self.relay, &["once"], &[]);
        let got = sink.take();
        let forwards: Vec<usize> = got
            .iter()
            .filter(|m| header(&m.data, "X-Fernzug-Kind").as_deref() == Some("move"))
            .map(|m| m.data.len())
            .collect();
        assert_eq!(
            forwards.len(),
            self.chosen.len(),
            "{players} players, run {}: {} forwards of {} moves ({} mails)",
            run + 1,
            forwards.len(),
            self.chosen.len(),
            sink.count() - before
        );
        self.measured.move_mail.extend(forwards);
        println!(
            "{players} players ({games} games), run {}: {} moves in {:?} (CPU {:?}, peak RSS {} KiB)",
            run + 1,
            self.chosen.len(),
            ran.wall,
            ran.cpu.unwrap_or_default(),
            ran.rss_kb.unwrap_or(0)
        );
        ran.print_details();
        self.measured.drains.push(ran);
        if run == 0 {
            // As the issue measured it: after the start mails and 100 moves.
            let data = self.relay.dir.join("data");
            self.measured.store_bytes = du(&data);
            for e in std::fs::read_dir(&data).into_iter().flatten().flatten() {
                let p = e.path();
                println!(
                    "  {players} players: {} {:.1} MB",
                    p.display(),
                    du_any(&p) as f64 / MB
                );
            }
        }
    }

    /// With FERNZUG_LOAD_PERF=DIR: one more drain (ply `run`), under `perf record`, not counted.
    fn profile(&self, sink: &Sink, run: usize) {
        if std::env::var_os("FERNZUG_LOAD_PERF").is_some() && run < PLIES.len() {
            self.put_moves(run);
            super::proc::profile(&self.relay, &["once"], &format!("p7-{}", self.players));
            sink.take();
        }
    }
}

pub fn rows() -> Vec<Row> {
    let (small, large) = sizes();
    let runs = std::env::var("FERNZUG_LOAD_RUNS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(PLIES.len() - 1)
        .clamp(1, PLIES.len() - 1);
    let sink = Sink::start();
    let mut small = Started::new(&sink, small);
    let mut large = Started::new(&sink, large);
    // The two sizes' drains in turn: what the machine does meanwhile falls on both alike.
    for run in 0..runs {
        small.drain(&sink, run);
        large.drain(&sink, run);
    }
    small.profile(&sink, runs);
    large.profile(&sink, runs);
    let (s, l) = (small.measured, large.measured);
    let label = |m: &Measured| format!("{} games", count(m.games));
    let mut rows = Vec::new();

    let mut row = Row::new(format!(
        "P7 the pass that sends the start mails: time, peak memory ({} vs {}; ratio: the larger's peak over 50 MB)",
        label(&s),
        label(&l)
    ));
    row.floor = format!(
        "{:.2} s, {:.1} MB",
        s.start.wall.as_secs_f64(),
        mb(&s.start)
    );
    row.relay = format!(
        "{:.2} s, {:.1} MB",
        l.start.wall.as_secs_f64(),
        mb(&l.start)
    );
    row.ratio = Some(mb(&l.start).max(mb(&s.start)) / 50.0);
    row.goal = Goal::AtMost(1.0);
    progress(&row);
    rows.push(row);

    let (sp, lp) = (Stats::new(s.per_move_ms()), Stats::new(l.per_move_ms()));
    let mut row = Row::new(format!(
        "P7 cost per move: {MOVES} moves drained by one `once`, {runs} runs ({} vs {}; ratio: larger over smaller)",
        label(&s),
        label(&l)
    ));
    row.floor = sp.show("ms");
    row.relay = lp.show("ms");
    row.ratio = Some(lp.median() / sp.median());
    row.goal = Goal::AtMost(1.2);
    progress(&row);
    rows.push(row);

    // The first drain after the start pass (`1. e4` in each game) alone: one drain of each, so
    // one figure each, not a median.
    let (sf, lf) = (s.per_move_ms()[0], l.per_move_ms()[0]);
    let mut row = Row::new(format!(
        "P7 cost per move in the first drain after the start pass (the first move of {MOVES} games; {} vs {}; ratio: larger over smaller)",
        label(&s),
        label(&l)
    ));
    row.floor = format!("{sf:.2} ms");
    row.relay = format!("{lf:.2} ms");
    row.ratio = Some(lf / sf);
    row.goal = Goal::AtMost(1.2);
    progress(&row);
    rows.push(row);

    let (sc, lc) = (
        Stats::new(s.cpu_per_move_ms()),
        Stats::new(l.cpu_per_move_ms()),
    );
    let mut row = Row::new(
        "P7 the relay's CPU per move (user + system over the drain; ratio: the larger's over 1 ms)",
    );
    row.floor = sc.show("ms");
    row.relay = lc.show("ms");
    row.ratio = Some(lc.median().max(sc.median()) / 1.0);
    row.goal = Goal::AtMost(1.0);
    progress(&row);
    rows.push(row);

    let mut row = Row::new("P7 a drain's peak memory (ratio: the larger's over 50 MB)".to_string());
    row.floor = format!("{:.1} MB", s.drain_rss_mb());
    row.relay = format!("{:.1} MB", l.drain_rss_mb());
    row.ratio = Some(l.drain_rss_mb().max(s.drain_rss_mb()) / 50.0);
    row.goal = Goal::AtMost(1.0);
    progress(&row);
    rows.push(row);

    let per_game = |m: &Measured| m.store_bytes as f64 / m.games as f64 / 1e3;
    let mut row = Row::new(format!(
        "P7 the store a game after the start mails and {MOVES} moves (data directory on disk; ratio: the larger's over 25 KB)"
    ));
    row.floor = format!(
        "{:.1} KB ({:.1} MB)",
        per_game(&s),
        s.store_bytes as f64 / MB
    );
    row.relay = format!(
        "{:.1} KB ({:.1} MB)",
        per_game(&l),
        l.store_bytes as f64 / MB
    );
    row.ratio = Some(per_game(&l).max(per_game(&s)) / 25.0);
    row.goal = Goal::AtMost(1.0);
    progress(&row);
    rows.push(row);

    let mut row = Row::new(
        "P7 `tournament add`: time, peak memory (ratio: the larger's peak over 100 MB, the scale table's goal)".to_string(),
    );
    row.floor = format!("{:.2} s, {:.1} MB", s.add.wall.as_secs_f64(), mb(&s.add));
    row.relay = format!("{:.2} s, {:.1} MB", l.add.wall.as_secs_f64(), mb(&l.add));
    row.ratio = Some(mb(&l.add).max(mb(&s.add)) / 100.0);
    row.goal = Goal::AtMost(1.0);
    progress(&row);
    rows.push(row);

    let sizes: Vec<f64> = s
        .move_mail
        .iter()
        .chain(&l.move_mail)
        .map(|b| *b as f64)
        .collect();
    let sizes = Stats::new(sizes);
    let mut row = Row::new(
        "P7 a `move` mail as the partner gets it, whole (ratio: the largest over 8 KB = 8,192 bytes)"
            .to_string(),
    );
    row.floor = "—".into();
    row.relay = format!(
        "{} bytes ({}–{})",
        sizes.median() as u64,
        sizes.min() as u64,
        sizes.max() as u64
    );
    row.ratio = Some(sizes.max() / 8192.0);
    row.goal = Goal::AtMost(1.0);
    progress(&row);
    rows.push(row);
    rows
}
