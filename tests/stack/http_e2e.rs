//! The HTTP listener of `fernzug run` through real sockets (issue 48, security review 4 findings
//! 7, 12, 16): 200 slow clients — each holding a connection and sending its head a byte at a
//! time, from one address and from 200 — hold up neither a tournament page nor `/healthz` (each
//! answers in under 3 s); a kept-alive connection carries two requests; every answer carries the
//! security headers; `/healthz` says only what fails while IMAP is down, the log says the rest.
//!
//! Many addresses on loopback: client sockets bound to 127.0.0.2 … 127.0.0.201 before they
//! connect. `FERNZUG_HTTP_BIN=PATH` runs another `fernzug` as the daemon (an older build, to see
//! these tests fail against the hand-written listener of 0afedad).

use std::io::Write;
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::common::{Daemon, HOST, PASSWORD, Relay, SMTP_PORT, http_answer};

const WAIT: Duration = Duration::from_secs(60);
/// A page and `/healthz` answer within this time while the slow clients hold on.
const PROMPT: Duration = Duration::from_secs(3);
/// Slow clients of each kind.
const SLOW: usize = 200;

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `fernzug run` of `relay` (or of `FERNZUG_HTTP_BIN`) serving `[http]` on `port`, `[relay]`
/// keys `in_relay` added; its log in `run.log`. Returns when the port takes connections.
fn run(relay: &Relay, port: u16, in_relay: &str) -> Daemon {
    let text = std::fs::read_to_string(&relay.config).unwrap();
    let text = text.replacen("[imap]", &format!("{in_relay}\n[imap]"), 1);
    std::fs::write(
        &relay.config,
        format!("{text}\n[http]\nlisten = \"127.0.0.1:{port}\"\n"),
    )
    .unwrap();
    let bin = std::env::var("FERNZUG_HTTP_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_fernzug").to_string());
    let daemon = Daemon(
        std::process::Command::new(bin)
            .arg("--config")
            .arg(&relay.config)
            .arg("run")
            .env_remove("FERNZUG_CONFIG")
            .env("RUST_LOG", "info")
            .current_dir(&relay.dir)
            .stderr(Stdio::from(
                std::fs::File::create(relay.dir.join("run.log")).unwrap(),
            ))
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < WAIT, "nothing listens on {port}");
        std::thread::sleep(Duration::from_millis(50));
    }
    daemon
}

/// `GET path` on a fresh connection from 127.0.0.1: the time to the whole answer and the answer.
fn get(port: u16, path: &str) -> (Duration, String) {
    let started = Instant::now();
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the HTTP listener");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let out = http_answer(&mut s);
    (started.elapsed(), out)
}

/// What became of a slow client.
#[derive(Default)]
struct Fates {
    /// Answered `503` within a second: turned away at once.
    turned_away: AtomicUsize,
    /// Cut (or answered) while still sending its head, and when.
    cut: AtomicUsize,
    /// Still connected when the client gave up (30 s).
    held_on: AtomicUsize,
}

/// One slow client from `from`: connects to `to` and sends a request head one byte every
/// 400 ms, never ending it, for up to 30 s.
async fn slow_client(from: Ipv4Addr, to: SocketAddr, fates: Arc<Fates>) {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(from.into(), 0)).unwrap();
    let Ok(mut s) = socket.connect(to).await else {
        fates.turned_away.fetch_add(1, Ordering::SeqCst);
        return;
    };
    let started = Instant::now();
    let head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    let mut buf = [0u8; 512];
    for byte in head.iter().cycle().take(75) {
        if s.write_all(&[*byte]).await.is_err() {
            break;
        }
        match tokio::time::timeout(Duration::from_millis(400), s.read(&mut buf)).await {
            Err(_) => continue,
            Ok(Ok(n)) if n > 0 && buf[..n].starts_with(b"HTTP/1.1 503") => {
                if started.elapsed() < Duration::from_secs(1) {
                    fates.turned_away.fetch_add(1, Ordering::SeqCst);
                } else {
                    fates.cut.fetch_add(1, Ordering::SeqCst);
                }
                return;
            }
            Ok(_) => {
                fates.cut.fetch_add(1, Ordering::SeqCst);
                return;
            }
        }
    }
    fates.held_on.fetch_add(1, Ordering::SeqCst);
}

/// While `SLOW` slow clients from `addresses` (cycled) hold on: a tournament page and `/healthz`
/// from 127.0.0.1, on fresh connections, every second for 14 s (past the head's 10 s, so that
/// the clients that waited come in too); each must answer `200` within [`PROMPT`]. Returns what
/// became of the slow clients.
fn beside_slow_clients(port: u16, page: &str, addresses: &[Ipv4Addr]) -> Arc<Fates> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let fates = Arc::new(Fates::default());
    let to: SocketAddr = ([127, 0, 0, 1], port).into();
    let clients: Vec<_> = (0..SLOW)
        .map(|i| {
            rt.spawn(slow_client(
                addresses[i % addresses.len()],
                to,
                fates.clone(),
            ))
        })
        .collect();
    std::thread::sleep(Duration::from_secs(1));
    let mut worst = Duration::ZERO;
    for _ in 0..14 {
        for path in [page, "/healthz"] {
            let (took, answer) = get(port, path);
            assert!(
                answer.starts_with("HTTP/1.1 200 "),
                "{path} beside {SLOW} slow clients from {} address(es): {}",
                addresses.len(),
                answer.lines().next().unwrap_or("no answer")
            );
            assert!(
                took < PROMPT,
                "{path} took {took:?} beside {SLOW} slow clients"
            );
            worst = worst.max(took);
        }
        std::thread::sleep(Duration::from_secs(1));
    }
    eprintln!(
        "{SLOW} slow clients from {} address(es): a page and /healthz answered within {worst:?} at worst",
        addresses.len()
    );
    rt.block_on(async {
        for c in clients {
            let _ = tokio::time::timeout(Duration::from_secs(40), c).await;
        }
    });
    fates
}

#[test]
fn slow_clients_from_one_address_or_from_many_hold_up_no_page_and_no_healthz() {
    let relay = Relay::new("http-slow");
    let (t, _, _) = relay.duo_today();
    let port = free_port();
    let _daemon = run(&relay, port, "");
    let page = format!("/t/{}", t.id);
    let started = Instant::now();
    while !get(port, &page).1.starts_with("HTTP/1.1 200 ") {
        assert!(started.elapsed() < WAIT, "{page} never answered");
        std::thread::sleep(Duration::from_millis(200));
    }

    // From one address: 8 of its connections are served and 8 wait; the rest are turned away.
    let one = beside_slow_clients(port, &page, &[Ipv4Addr::new(127, 0, 0, 2)]);
    let (away, cut, held) = (
        one.turned_away.load(Ordering::SeqCst),
        one.cut.load(Ordering::SeqCst),
        one.held_on.load(Ordering::SeqCst),
    );
    eprintln!("one address: {away} turned away at once, {cut} cut later, {held} held on");
    assert!(away >= SLOW - 16, "turned away at once: {away}");
    assert_eq!(held, 0, "none held on past the head's 10 s");

    // From 200 addresses, one connection each.
    let many: Vec<Ipv4Addr> = (0..SLOW as u8)
        .map(|i| Ipv4Addr::new(127, 0, 0, 2 + i))
        .collect();
    let fates = beside_slow_clients(port, &page, &many);
    let (away, cut, held) = (
        fates.turned_away.load(Ordering::SeqCst),
        fates.cut.load(Ordering::SeqCst),
        fates.held_on.load(Ordering::SeqCst),
    );
    eprintln!("{SLOW} addresses: {away} turned away at once, {cut} cut later, {held} held on");
    assert_eq!(held, 0, "none held on past the head's 10 s");
}

#[test]
fn one_connection_carries_two_requests_and_every_answer_the_security_headers() {
    let relay = Relay::new("http-keep");
    let (t, _, _) = relay.duo_today();
    let port = free_port();
    let _daemon = run(&relay, port, "");
    let page = format!("/t/{}", t.id);
    let started = Instant::now();
    while !get(port, &page).1.starts_with("HTTP/1.1 200 ") {
        assert!(started.elapsed() < WAIT, "{page} never answered");
        std::thread::sleep(Duration::from_millis(200));
    }
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    for path in [
        page.as_str(),
        "/healthz",
        "/style.css",
        "/metrics",
        "/nothing",
    ] {
        write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
        let answer = http_answer(&mut s);
        let head = answer.split("\r\n\r\n").next().unwrap_or("").to_lowercase();
        assert!(
            head.starts_with("http/1.1 200 ")
                || (path == "/nothing" && head.starts_with("http/1.1 404 ")),
            "{path} on the kept connection: {answer}"
        );
        for line in [
            "x-content-type-options: nosniff",
            "content-security-policy: default-src 'none'; style-src 'self'",
            "frame-ancestors 'none'",
            "referrer-policy: no-referrer",
            "x-frame-options: deny",
        ] {
            assert!(head.contains(line), "{path}: {line} in\n{head}");
        }
        assert!(!head.contains("connection: close"), "{path}: {head}");
    }
}

#[test]
fn healthz_names_what_fails_while_imap_is_down_and_the_log_says_the_rest() {
    let relay = Relay::new("http-healthz");
    // IMAP at a port nothing listens on; SMTP works.
    let closed = free_port();
    relay.set_servers(
        &format!(
            "host = \"{HOST}\"\nport = {closed}\nsecurity = \"none\"\nuser = {{address}}\n\
             password = \"{PASSWORD}\"\nmailbox = \"INBOX\""
        ),
        &format!("host = \"{HOST}\"\nport = {SMTP_PORT}\nsecurity = \"none\""),
    );
    let port = free_port();
    let _daemon = run(&relay, port, "alert_minutes = 1");
    let started = Instant::now();
    // The outage counts after alert_minutes (1).
    let answer = loop {
        let (_, answer) = get(port, "/healthz");
        if answer.starts_with("HTTP/1.1 503 ") {
            break answer;
        }
        assert!(
            started.elapsed() < Duration::from_secs(150),
            "/healthz still {}",
            answer.lines().next().unwrap_or("")
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    let body = answer.split_once("\r\n\r\n").map_or("", |(_, b)| b);
    assert_eq!(body, "unhealthy: imap\n", "{answer}");
    for secret in ["127.0.0.1", &closed.to_string(), "refused", "since"] {
        assert!(!answer.contains(secret), "{secret} in {answer}");
    }
    // Asked again and again: the same answer, logged once.
    for _ in 0..3 {
        let again = get(port, "/healthz").1;
        assert!(again.ends_with("\r\n\r\nunhealthy: imap\n"), "{again}");
    }
    let log = std::fs::read_to_string(relay.dir.join("run.log")).unwrap();
    let told: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("/healthz: unhealthy"))
        .collect();
    assert_eq!(told.len(), 1, "{log}");
    assert!(
        told[0].contains("imap failing since") && told[0].contains(&closed.to_string()),
        "{}",
        told[0]
    );
}
