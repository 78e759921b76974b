//! Load measurements (issue 13): the relay beside the floors of the same loopback stack, measured
//! side by side in one run, printed as a Markdown table (`what | floor | relay | ratio | goal | ok?
//! | p50 / p99 | RSS`). Not pass/fail tests of speed: a row's `ok?` says whether the goal was met;
//! a test fails only when a check beside the measurement fails (a forward missing or twice).
//!
//! Run them all with `scripts/load` (it starts the stack, prints the machine and the whole table),
//! or one: `cargo test --release --test stack load::p2_burst -- --ignored --nocapture`.
//!
//! - `p2_burst`: N move mails (one per running game of a generated store) wait in the relay's INBOX;
//!   ONE `fernzug once` drains them; rate = N / its wall time. Floor: the stack delivering N
//!   mails over one bare SMTP connection into one mailbox (send → IMAP STATUS counts N). Then every
//!   partner must have his forward exactly once.
//! - `smtp_handoff`: the start mails of a tournament (two per game, queued by `tournament add`)
//!   delivered by ONE `fernzug once`, to an in-process SMTP sink and to Postfix; floor: a bare
//!   client sending the very mails the relay sent, over one connection, pipelining, TCP_NODELAY.
//! - `latency`: a move by SMTP → the forward visible in the partner's INBOX with `fernzug run` in
//!   IDLE; floor: (a) SMTP send → `* N EXISTS` at a bare client in IDLE plus (b) SMTP send to
//!   `forward-to.X@` (a Postfix virtual alias, tests/mailstack/start.sh) → visible in X's INBOX.
//! - `p5_backup`: `fernzug backup` of a generated store while `run` drains a burst, beside the
//!   same burst drained alone; `/metrics` scraped meanwhile; the backup read and verified
//!   (`backup.rs`, sizes `FERNZUG_LOAD_BACKUP=RUNNING,BURST`).
//! - `p6_pages`: the tournament pages built from the store's read side, a 10,011-game round robin
//!   beside a 105-game one (`pages.rs`, size `FERNZUG_LOAD_PAGES=PLAYERS`).
//! - `p7_size`: one tournament's size — a 10,011-game round robin beside a 105-game one, each in
//!   a relay of its own: the start pass, 100 moves drained, the store a game, the `move` mail
//!   (`size.rs`, sizes `FERNZUG_LOAD_SIZE=SMALL,LARGE` players).
//! - `p4_scale`: on a small and a large generated store (`generator.rs`): `run`'s peak RSS, start →
//!   first IDLE, a pass, `status GAME`, `status --json`, `tournament add`, cost per move.
//!
//! Sizes (comma lists; `_` allowed in numbers): `FERNZUG_LOAD_BURST` (1000,10000),
//! `FERNZUG_LOAD_HANDOFF` games (990: 1,980 start mails), `FERNZUG_LOAD_LATENCY` samples (40),
//! `FERNZUG_LOAD_SCALE` and `FERNZUG_LOAD_SCALE_SMALL` running,finished (10000,100000 and
//! 100,1000), `FERNZUG_LOAD_ADD` games (10000), `FERNZUG_LOAD_RUNS` repetitions of the rates (3;
//! bursts above 1,000 mails run once), `FERNZUG_LOAD_LIMIT` seconds after which a P4 command is
//! stopped and reported as at least that long (900); `FERNZUG_LOAD_QUICK=1` makes every default
//! small. `FERNZUG_LOAD_TABLE=FILE`: each test appends its rows there. `FERNZUG_LOAD_BIN`: the
//! relay binary to measure (scripts/load passes a frozen copy).

mod backup;
mod burst;
pub mod generator;
mod handoff;
mod latency;
mod pages;
mod proc;
mod scale;
mod setup;
mod size;
mod table;
mod wire;

use table::{Row, Sizes};

/// Prints the rows, then fails if a check beside a measurement failed.
fn finish(rows: Vec<Row>) {
    table::emit(&rows);
    let failed: Vec<String> = rows.iter().filter_map(|r| r.failed.clone()).collect();
    assert!(failed.is_empty(), "{}", failed.join("; "));
}

#[test]
#[ignore = "a measurement; run with scripts/load"]
fn latency() {
    finish(latency::rows(&Sizes::from_env()));
}

#[test]
#[ignore = "a measurement; run with scripts/load"]
fn p2_burst() {
    finish(burst::rows(&Sizes::from_env()));
}

#[test]
#[ignore = "a measurement; run with scripts/load"]
fn p5_backup() {
    finish(backup::rows());
}

#[test]
#[ignore = "a measurement; run with scripts/load"]
fn p6_pages() {
    finish(pages::rows());
}

#[test]
#[ignore = "a measurement; run with scripts/load"]
fn p7_size() {
    finish(size::rows());
}

#[test]
#[ignore = "a measurement; run with scripts/load"]
fn p4_scale() {
    finish(scale::rows(&Sizes::from_env()));
}

#[test]
#[ignore = "a measurement; run with scripts/load"]
fn smtp_handoff() {
    finish(handoff::rows(&Sizes::from_env()));
}

/// Generates a store of `FERNZUG_LOAD_SCALE` (running,finished) games and keeps it, printing
/// its config: for profiling one command by hand (`fernzug --config … status --json`).
#[test]
#[ignore = "a tool; run with --ignored --nocapture"]
fn keep_generated_store() {
    let sizes = Sizes::from_env();
    let relay = crate::common::Relay::new("load-kept");
    let (running, finished) = sizes.scale;
    let g = generator::generate(&relay.config, running, finished, setup::fresh_seed());
    println!(
        "kept: {} ({} running games, {} finished) — config {}",
        relay.dir.display(),
        g.running.len(),
        g.finished_games,
        relay.config.display()
    );
    std::mem::forget(relay);
}
