//! P6, the tournament pages (issue 32): the time to build `/t/ID` and `/g/ID/N` from the store's
//! read side, for a round robin of 142 players (10,011 games, 20 plies each) beside one of 15
//! (105 games, the floor) in the same store and run; the service answered in process, as the
//! listener calls it (store read on a blocking thread, template rendered), without its cache (each
//! request builds, as every request did before issue 48) and from it. Goals: a tournament page
//! ≤ 1 s, a game page ≤ 50 ms (the ratio column is the time over its goal).
//!
//! Then through the HTTP listener (issue 48: `crate::http::serve` on loopback, in process):
//! requests a second for the large tournament's page and a game page over 4 kept-alive
//! connections, from the cache and built each time, beside the floor of the same run: the same
//! listener answering `/style.css` (a fixed answer, no store read). Each rate is the median of
//! `FERNZUG_LOAD_RUNS` runs of 2 s.
//!
//! Sizes: `FERNZUG_LOAD_PAGES=PLAYERS` (142; quick: 40), `FERNZUG_LOAD_RUNS` samples × 5.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use fernzug::app::App;
use fernzug::core::model::{NewPlayer, PlayedMove};
use fernzug::core::{NewTournament, Person, State};
use fernzug::http::{Request, Service};
use fernzug::lang::Lang;
use fernzug::pages::{Pages, PagesConfig, StoreSlot};
use fernzug::rules::RuleSet;
use fernzug::store::Batch;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use shakmaty::{Chess, Position};

use super::table::{Goal, Row, Stats, count};
use crate::common::Relay;

fn players() -> usize {
    let quick = std::env::var("FERNZUG_LOAD_QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    std::env::var("FERNZUG_LOAD_PAGES")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(if quick { 40 } else { 142 })
}

/// A round robin of `n` players, its games written straight into the store with 20 random plies
/// each (no start mails: the pages read games, not the outbox).
fn add(app: &App, id: &str, n: usize, seed: u64) -> usize {
    let file = NewTournament {
        id: id.into(),
        name: format!("Turnier {id}"),
        rules: RuleSet::Fax,
        start: Utc::now().date_naive(),
        director: Person {
            name: "Tom Leiter".into(),
            email: "tl@fernschach.test".into(),
        },
        players: (0..n)
            .map(|p| NewPlayer {
                name: format!("Spieler {p}"),
                email: format!("p{p}-{}@fernschach.test", id.to_lowercase()),
                language: None,
                also: Vec::new(),
                board: None,
            })
            .collect(),
        pairings: round_robin(n),
        digest: false,
    };
    let mut state = State::default();
    let mut k = 0u64;
    let mut key = || {
        k += 1;
        format!("{id}-{k:016x}")
    };
    state
        .register_without_mails(&file, Utc::now(), &app.settings, &mut key)
        .expect("registers");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut batch = Batch::default();
    let refs = state.tournaments[id].games.clone();
    for r in &refs {
        let game = state.games.get_mut(r).expect("a game");
        let mut pos = Chess::default();
        for _ in 0..20 {
            let legal = pos.legal_moves();
            let Some(m) = legal.choose(&mut rng).cloned() else {
                break;
            };
            let next = pos.clone().play(m).expect("legal");
            if next.is_game_over() {
                break;
            }
            game.moves.push(PlayedMove {
                uci: m.to_uci(shakmaty::CastlingMode::Standard).to_string(),
                san: shakmaty::san::San::from_move(&pos, m).to_string(),
                received: Utc::now(),
                sent: Utc::now(),
                days_used: 0,
                charged: 0,
                message_id: String::new(),
            });
            pos = next;
        }
        batch.put_game(game, false);
    }
    batch.put_tournament(&state.tournaments[id]);
    app.store.commit(batch).expect("commit");
    refs.len()
}

/// Every pair once, numbered in order (the pages do not care for Berger's order).
fn round_robin(n: usize) -> Vec<fernzug::core::model::Pairing> {
    let mut out = Vec::new();
    for w in 0..n {
        for b in w + 1..n {
            out.push(fernzug::core::model::Pairing {
                number: out.len() as u32 + 1,
                round: 1,
                white: w,
                black: b,
            });
        }
    }
    out
}

/// The medians of building `path` `samples` times (after one to warm the cache).
fn time(rt: &tokio::runtime::Runtime, pages: &Pages, path: &str, samples: usize) -> Stats {
    let get = || {
        let request = Request {
            method: "GET".into(),
            target: path.into(),
            body: Vec::new(),
            forwarded: None,
            peer: IpAddr::V4(Ipv4Addr::LOCALHOST),
            accept_language: None,
            if_none_match: None,
        };
        let started = Instant::now();
        let answer = rt.block_on(pages.answer(request));
        assert_eq!(answer.status, 200, "{path}: {}", answer.body);
        started.elapsed()
    };
    get();
    let times: Vec<Duration> = (0..samples).map(|_| get()).collect();
    Stats::of_ms(&times)
}

pub fn rows() -> Vec<Row> {
    let relay = Relay::new("load-pages");
    let config = fernzug::config::load(&relay.config).expect("config");
    let app = App::open(config).expect("store");
    let n = players();
    let small = add(&app, "SMALL", 15, 1);
    let big = add(&app, "BIG", n, 2);
    let slot = StoreSlot::default();
    slot.set(Some(app.store.clone()));
    let config = PagesConfig {
        relay_name: "Fernschach-Relais".into(),
        tz: chrono_tz::Europe::Berlin,
        default_lang: Lang::De,
        delay_moves: 0,
        templates_dir: None,
    };
    let cached = Pages::new(slot.clone(), config.clone()).expect("pages");
    let uncached = Pages::new(slot, config).expect("pages").uncached();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let runs: usize = std::env::var("FERNZUG_LOAD_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let samples = runs * 5;
    let mut rows = Vec::new();
    let game = format!("/g/BIG/{}", big / 2);
    for (what, floor_path, path, goal_ms) in [
        ("tournament page", "/t/SMALL", "/t/BIG", 1000.0),
        ("game page", "/g/SMALL/50", game.as_str(), 50.0),
    ] {
        for (how, pages) in [("built", &uncached), ("from the cache", &cached)] {
            let floor = time(&rt, pages, floor_path, samples);
            let relay_t = time(&rt, pages, path, samples);
            let mut row = Row::new(format!(
                "P6 {what} {how}: {} games beside {} (goal ≤ {goal_ms} ms; ratio = time / goal)",
                count(big),
                count(small)
            ));
            row.floor = format!("{} ms", super::table::num(floor.median()));
            row.relay = format!("{} ms", super::table::num(relay_t.median()));
            row.ratio = Some(relay_t.median() / goal_ms);
            row.goal = Goal::AtMost(1.0);
            row.pctl = relay_t.p50_p99_ms();
            rows.push(row);
        }
    }
    rows.extend(through_the_listener(&rt, cached, uncached, &game, runs));
    rows
}

/// Requests a second through the HTTP listener (see the module's doc).
fn through_the_listener(
    rt: &tokio::runtime::Runtime,
    cached: Pages,
    uncached: Pages,
    game: &str,
    runs: usize,
) -> Vec<Row> {
    let (_stop, shutdown) = tokio::sync::watch::channel(false);
    let (with_cache, without) = rt.block_on(async {
        let any: std::net::SocketAddr = "127.0.0.1:0".parse().unwrap();
        let a = fernzug::http::serve(any, vec![Arc::new(cached)], shutdown.clone())
            .await
            .expect("a listener");
        let b = fernzug::http::serve(any, vec![Arc::new(uncached)], shutdown.clone())
            .await
            .expect("a listener");
        (a, b)
    });
    let median = |addr: SocketAddr, path: &str| {
        let rates: Vec<f64> = (0..runs)
            .map(|_| rt.block_on(rate(addr, path, 4, Duration::from_secs(2))))
            .collect();
        Stats::new(rates)
    };
    let floor = median(with_cache, "/style.css");
    let mut rows = Vec::new();
    for (what, path) in [("/t/BIG", "/t/BIG"), ("a game page", game)] {
        for (how, addr) in [("from the cache", with_cache), ("built each time", without)] {
            let got = median(addr, path);
            let mut row = Row::new(format!(
                "P6 listener: {what} {how}, requests/s on 4 kept-alive connections (floor: /style.css, the same listener; ratio = rate / floor)"
            ));
            row.floor = floor.show("/s");
            row.relay = got.show("/s");
            row.ratio = Some(got.median() / floor.median());
            rows.push(row);
        }
    }
    rows
}

/// Requests a second for `path` on `conns` kept-alive connections to `addr` for `span`; every
/// answer must be `200`.
async fn rate(addr: SocketAddr, path: &str, conns: usize, span: Duration) -> f64 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let started = Instant::now();
    let request = Arc::new(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n"));
    let clients: Vec<_> = (0..conns)
        .map(|_| {
            let request = request.clone();
            tokio::spawn(async move {
                let mut s = tokio::net::TcpStream::connect(addr)
                    .await
                    .expect("connects");
                let _ = s.set_nodelay(true);
                let mut buf = vec![0u8; 64 * 1024];
                let mut answered = 0usize;
                while started.elapsed() < span {
                    s.write_all(request.as_bytes()).await.expect("sent");
                    // One answer: the head, then Content-Length bytes.
                    let mut got: Vec<u8> = Vec::new();
                    let (head_end, length) = loop {
                        let n = s.read(&mut buf).await.expect("read");
                        assert!(n > 0, "the listener closed the connection");
                        got.extend_from_slice(&buf[..n]);
                        if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n") {
                            let head = String::from_utf8_lossy(&got[..end]).to_lowercase();
                            assert!(head.starts_with("http/1.1 200 "), "{head}");
                            let length: usize = head
                                .lines()
                                .find_map(|l| l.strip_prefix("content-length: "))
                                .and_then(|v| v.trim().parse().ok())
                                .expect("a Content-Length");
                            break (end + 4, length);
                        }
                    };
                    let mut have = got.len() - head_end;
                    while have < length {
                        let n = s.read(&mut buf).await.expect("read");
                        assert!(n > 0, "the listener closed the connection");
                        have += n;
                    }
                    answered += 1;
                }
                answered
            })
        })
        .collect();
    let mut answered = 0;
    for c in clients {
        answered += c.await.expect("a client");
    }
    answered as f64 / started.elapsed().as_secs_f64()
}
