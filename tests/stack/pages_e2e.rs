//! The tournament pages in a real browser: a tournament played through the real mail stack, `fernzug
//! run` serving `[http] listen`, headless Chromium rendering `/t/…` and `/g/…`. The crosstable's
//! numbers read back from the page agree with `fernzug status`; the board's squares are found in
//! the screenshot as the pictures test finds them; `tidy` finds no error in any page; no page
//! names an address; a page not changed is answered `304`.

use std::io::Write;
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Daemon, Relay, next_of, unique_addr};
use crate::pictures_e2e::{
    DARK_MOVED, LIGHT_MOVED, chromium, find_board, screenshot_url, square_seen,
};

const WAIT: Duration = Duration::from_secs(60);

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `GET path` with the extra header lines `headers`: the status, the head and the body.
fn get(port: u16, path: &str, headers: &str) -> (u16, String, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the HTTP listener");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n{headers}\r\n").unwrap();
    let out = crate::common::http_answer(&mut s);
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let (head, body) = out.split_once("\r\n\r\n").unwrap_or((&out, ""));
    (status, head.to_string(), body.to_string())
}

/// What headless Chromium makes of the page at `url`: its DOM after rendering.
fn dom(chromium: &Path, dir: &Path, url: &str) -> String {
    let out = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            &format!("--user-data-dir={}", dir.join("dom-profile").display()),
            "--dump-dom",
            url,
        ])
        .output()
        .expect("chromium runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The text of each `<tr>` of the `<table class="cross">` in `html`, tags dropped, blanks folded.
pub(crate) fn cross_rows(html: &str) -> Vec<String> {
    let table = html
        .split("<table class=\"cross\">")
        .nth(1)
        .and_then(|t| t.split("</table>").next())
        .expect("a crosstable");
    table
        .split("<tr>")
        .skip(1)
        .map(|row| {
            let mut text = String::new();
            let mut tag = false;
            for c in row.chars() {
                match c {
                    '<' => {
                        tag = true;
                        text.push(' ');
                    }
                    '>' => tag = false,
                    c if !tag => text.push(c),
                    _ => {}
                }
            }
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        })
        .collect()
}

/// `tidy`'s errors in `html` (warnings aside): none wanted.
fn tidy_errors(html: &str) -> String {
    let mut child = Command::new("tidy")
        .args(["-q", "-e", "--show-warnings", "no"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tidy (apt-get install tidy): scripts/test installs it");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(html.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    // tidy: 0 clean, 1 warnings, 2 errors.
    if out.status.code() == Some(2) {
        String::from_utf8_lossy(&out.stderr).into_owned()
    } else {
        String::new()
    }
}

#[test]
fn the_tournament_pages_in_a_real_browser_agree_with_status() {
    let chromium =
        chromium().expect("no chromium (apt-get install chromium): scripts/test installs it");
    let relay = Relay::new("pages");
    let (anna, bert, carl) = (
        unique_addr("anna"),
        unique_addr("bert"),
        unique_addr("carl"),
    );
    let t = relay.tournament(
        &[
            ("Anna Adler", &anna, None),
            ("Bert Berger", &bert, None),
            ("Carl Clausen", &carl, None),
        ],
        "fax",
        "2026-12-01",
    );
    relay.add(&t);
    relay.once("2026-11-30T12:00:00+01:00");
    next_of(&anna, "start", 1);
    // Game 2 (Anna – Bert): the fool's mate; game 1 (Bert – Carl): one move.
    let g2 = format!("Re: [{}] Zug", t.game(2));
    relay.send(&anna, &g2, "1. f3");
    relay.once("2026-12-01T10:00:00+01:00");
    relay.send(&bert, &g2, "1. f3 e5");
    relay.once("2026-12-01T11:00:00+01:00");
    relay.send(&anna, &g2, "1... e5 2. g4");
    relay.once("2026-12-01T12:00:00+01:00");
    relay.send(&bert, &g2, "2. g4 Dh4#");
    relay.send(&bert, &format!("Re: [{}] Zug", t.game(1)), "1. d4");
    relay.once("2026-12-01T13:00:00+01:00");
    next_of(&anna, "game-end", 0);
    let status = relay.run_ok(&["status", &t.id]);
    let expected: Vec<String> = status
        .lines()
        .filter(|l| l.trim_start().starts_with(|c: char| c.is_ascii_digit()) && l.contains('.'))
        .filter(|l| !l.contains('/'))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(expected.len(), 3, "{status}");

    // `fernzug run` serves the pages beside the mail.
    let port = free_port();
    let text = std::fs::read_to_string(&relay.config).unwrap();
    std::fs::write(
        &relay.config,
        format!("{text}\n[http]\nlisten = \"127.0.0.1:{port}\"\n"),
    )
    .unwrap();
    let log = relay.dir.join("run.log");
    let _daemon = Daemon(
        relay
            .command(&["run"])
            .env("RUST_LOG", "info")
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() || get(port, "/", "").0 != 200 {
        assert!(
            started.elapsed() < WAIT,
            "no pages on {port}: {}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }

    // The crosstable, as the browser shows it, is `status`'s (places, names, results, points,
    // Sonneborn-Berger, open games).
    let base = format!("http://127.0.0.1:{port}");
    let page = dom(&chromium, &relay.dir, &format!("{base}/t/{}", t.id));
    let rows = cross_rows(&page);
    assert_eq!(rows.len(), 4, "{rows:?}");
    for (row, want) in rows[1..].iter().zip(&expected) {
        let mut got: Vec<&str> = row.split_whitespace().collect();
        // The page has a `played` column `status` does not print (before `open`).
        got.remove(got.len() - 2);
        assert_eq!(got.join(" "), *want, "{rows:?}\n{status}");
    }
    assert!(page.contains("0-1"), "game 2's result");

    // The game page: the final position, the mate's squares marked, seen from White's side.
    let shot = screenshot_url(
        &chromium,
        &relay.dir,
        "game-2",
        &format!("{base}/g/{}?lang=en", t.game(2)),
        (900, 900),
    );
    let b = find_board(&shot);
    for (sq, marked) in [("d8", true), ("h4", true), ("e1", false), ("e7", false)] {
        let (colour, ink) = square_seen(&shot, &b, sq, true);
        assert_eq!(
            colour == LIGHT_MOVED || colour == DARK_MOVED,
            marked,
            "{sq}: {colour:?}"
        );
        let occupied = matches!(sq, "h4" | "e1");
        assert_eq!(ink > 20, occupied, "{sq}: {ink} pixels of a figure");
    }
    let game = get(port, &format!("/g/{}?lang=en", t.game(2)), "").2;
    assert!(
        game.contains("Black: Ke8, Qh4"),
        "the caption for a screen reader"
    );
    assert!(
        game.contains("<td>Qh4#</td>"),
        "the mate in the moves: {game}"
    );
    assert!(
        game.contains("Finished: <strong>0-1</strong> (checkmate)"),
        "{game}"
    );
    if let Ok(dir) = std::env::var("FERNZUG_SCREENSHOTS") {
        let _ = std::fs::copy(
            relay.dir.join("game-2.png"),
            Path::new(&dir).join("game.png"),
        );
        let shot_t = screenshot_url(
            &chromium,
            &relay.dir,
            "tournament",
            &format!("{base}/t/{}?lang=en", t.id),
            (900, 900),
        );
        assert!(shot_t.width > 0);
        let _ = std::fs::copy(
            relay.dir.join("tournament.png"),
            Path::new(&dir).join("tournament.png"),
        );
    }

    // Every page: no address, no error for an HTML checker; a page not changed is not sent again.
    for path in [
        "/".to_string(),
        format!("/t/{}", t.id),
        format!("/g/{}", t.game(1)),
        format!("/g/{}?lang=en", t.game(2)),
    ] {
        let (status, head, body) = get(port, &path, "Accept-Language: de-DE,de;q=0.9\r\n");
        assert_eq!(status, 200, "{path}");
        assert!(!body.contains('@'), "{path} names an address");
        assert_eq!(tidy_errors(&body), "", "{path}");
        let etag = head
            .lines()
            .find_map(|l| {
                l.split_once(": ")
                    .filter(|(name, _)| name.eq_ignore_ascii_case("ETag"))
                    .map(|(_, v)| v)
            })
            .expect("an ETag");
        let (again, _, empty) = get(port, &path, &format!("If-None-Match: {etag}\r\n"));
        assert_eq!((again, empty.as_str()), (304, ""), "{path}");
    }
    assert_eq!(get(port, "/t/NO-SUCH-1", "").0, 404);
    // Live: a move mailed while `run` runs is on the page as soon as the relay took it.
    let before = get(port, &format!("/g/{}", t.game(3)), "").2;
    assert!(before.contains("Noch kein Zug"), "{before}");
    relay.send(&carl, &format!("Re: [{}] Zug", t.game(3)), "1. e4");
    let started = Instant::now();
    loop {
        let page = get(port, &format!("/g/{}", t.game(3)), "").2;
        if page.contains("<td>e4</td>") {
            assert!(page.contains("Anna Adler ist am Zug"), "{page}");
            break;
        }
        assert!(
            started.elapsed() < WAIT,
            "the move never reached the page: {page}"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // Last: `export` asks the daemon for the store, and the pages wait meanwhile.
    let pgn = get(port, &format!("/t/{}.pgn", t.id), "").2;
    let exported = relay.run_ok(&["export", "pgn", &t.id]);
    assert_eq!(pgn, exported, "the PGN is `export pgn`'s");
}
