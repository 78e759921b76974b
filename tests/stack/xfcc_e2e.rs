//! End-to-end: XFCC (docs/xfcc.md, docs/contract.md "XFCC"). `fernzug run` serves XfccBasic
//! beside the real mail stack; Anna plays White from two independent clients — raw SOAP
//! envelopes exactly as Scid's correspondence module writes them, and Python's zeep, which reads
//! the relay's WSDL (`pip install zeep`; scripts/test installs it) — and Bert plays Black by
//! mail, to mate. The XFCC moves reach Bert as `move` mails, Anna gets her receipts by mail, the
//! result codes come back where a mail would get a query, and the sealed record verifies.
//!
//! `run` serves XFCC, so this test runs the daemon in real time; its only waiting is the bounded
//! polling for the stack's delivery and the relay's answer.

use std::io::Write;
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{Daemon, Relay, fetch_all, header, kinds, send_text, wait_for};

const WAIT: Duration = Duration::from_secs(30);

/// Scid's envelope, verbatim (tab indentation and line ends included; docs/xfcc.md).
fn scid_envelope(op: &str, params: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\t<soap:Envelope xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">\n\t<soap:Body>\n\t<{op} xmlns=\"http://www.bennedik.com/webservices/XfccBasic\">{params}</{op}></soap:Body>\n\t</soap:Envelope>"
    )
}

/// POSTs `body` as Scid's Tcl client does (no SOAPAction, the charset quoted); the answer's body.
fn scid_post(port: u16, body: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the XFCC endpoint listens");
    s.set_read_timeout(Some(WAIT)).unwrap();
    let request = format!(
        "POST /xfccbasic.asmx HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUser-Agent: Tcl http client package 2.9.5\r\n\
         Content-Type: text/xml; charset=\"utf-8\"\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    s.write_all(request.as_bytes()).unwrap();
    crate::common::http_answer(&mut s)
}

fn scid_games(port: u16, user: &str, password: &str) -> String {
    scid_post(
        port,
        &scid_envelope(
            "GetMyGames",
            &format!("<username>{user}</username><password>{password}</password>"),
        ),
    )
}

/// Scid's `MakeAMove`: flags as 0/1, the message escaped.
fn scid_move(port: u16, user: &str, password: &str, id: &str, n: u32, mv: &str) -> String {
    scid_post(
        port,
        &scid_envelope(
            "MakeAMove",
            &format!(
                "<username>{user}</username><password>{password}</password><gameId>{id}</gameId>\
                 <resign>0</resign><acceptDraw>0</acceptDraw><movecount>{n}</movecount>\
                 <myMove>{mv}</myMove><offerDraw>0</offerDraw><claimDraw>0</claimDraw>\
                 <myMessage>Gr&#252;&#223;e aus Scid</myMessage>"
            ),
        ),
    )
}

/// The text between `<tag>` and `</tag>` (Scid reads its answers with regular expressions too).
fn element<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&format!("</{tag}>"))? + start;
    Some(&xml[start..end])
}

/// zeep over the relay's WSDL; its one JSON line.
fn zeep(port: u16, args: &[&str]) -> serde_json::Value {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stack/xfcc/zeep_client.py");
    let url = format!("http://127.0.0.1:{port}/xfccbasic.asmx?WSDL");
    let out = Command::new("python3")
        .arg(script)
        .arg(&url)
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "zeep failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "zeep's answer {e}: {}",
            String::from_utf8_lossy(&out.stdout)
        )
    })
}

/// Polls zeep's `GetMyGames` until the first game's moves are `moves`.
fn zeep_until_moves(port: u16, user: &str, password: &str, moves: &str) -> serde_json::Value {
    let started = Instant::now();
    loop {
        let answer = zeep(port, &["games", user, password]);
        let game = answer["games"][0].clone();
        if game["moves"] == moves {
            return game;
        }
        assert!(started.elapsed() < WAIT, "moves still {:?}", game["moves"]);
        std::thread::sleep(Duration::from_millis(200));
    }
}

fn zeep_installed() -> bool {
    Command::new("python3")
        .args(["-c", "import zeep"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn xfcc_white_plays_from_scid_and_zeep_black_by_mail_to_mate() {
    if !zeep_installed() {
        assert!(
            std::env::var_os("CI").is_none(),
            "zeep is missing (pip install zeep); scripts/test installs it"
        );
        eprintln!("skipped: zeep is not installed (pip install zeep)");
        return;
    }
    let relay = Relay::new("xfcc");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut config = std::fs::read_to_string(&relay.config).unwrap();
    config.push_str(&format!("\n[xfcc]\nlisten = \"127.0.0.1:{port}\"\n"));
    std::fs::write(&relay.config, config).unwrap();
    // The operator's first run names the endpoint.
    let checked = relay.run(&["check"]);
    let said = String::from_utf8_lossy(&checked.stdout);
    assert!(
        said.contains(&format!("ok    xfcc: `run` can listen on 127.0.0.1:{port}; players are told http://127.0.0.1:{port}/xfccbasic.asmx")),
        "{said}"
    );
    let (t, anna, bert) = relay.duo_today();
    let game = t.game(1);
    let log = relay.dir.join("run.log");
    let mut daemon = Daemon(
        relay
            .command(&["run"])
            .env("RUST_LOG", "info")
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
            .spawn()
            .unwrap(),
    );
    let start = wait_for(&anna, 1, WAIT).remove(0);
    let password = header(&start, "X-Fernzug-XFCC-Password").expect("the start mail's password");
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < WAIT, "the XFCC endpoint never listened");
        std::thread::sleep(Duration::from_millis(50));
    }

    // Scid logs in and lists the game.
    let games = scid_games(port, &anna, &password);
    let listed = element(&games, "GetMyGamesResult").expect("Scid's GetMyGamesResult");
    let id = element(listed, "id").expect("the game id").to_string();
    assert!(!id.contains('-') && id.parse::<i32>().is_ok(), "{id}");
    assert_eq!(element(listed, "myTurn"), Some("true"));
    assert_eq!(element(listed, "hasWhite"), Some("true"));
    assert_eq!(element(listed, "black"), Some("Bert Berger"));
    for time in ["daysPlayer", "hoursPlayer", "minutesPlayer"] {
        assert!(
            element(listed, time).is_some_and(|v| v.parse::<i64>().is_ok()),
            "{time}"
        );
    }
    // A wrong password: Scid's fault, and nothing else told.
    let denied = scid_games(port, &anna, "k7qmz-00000-00000-00000-00000-00000");
    assert!(
        denied.contains("<soap:Fault>") && denied.contains("AuthenticationFailed"),
        "{denied}"
    );

    // 1. f3 from Scid: Bert gets the move by mail, Anna her receipt.
    let sent = Instant::now();
    let moved = scid_move(port, &anna, &password, &id, 1, "f3");
    let answered = sent.elapsed();
    assert!(
        moved.contains("<MakeAMoveResponse xmlns=\"http://www.bennedik.com/webservices/XfccBasic\"><MakeAMoveResult>Success</MakeAMoveResult>"),
        "{moved}"
    );
    let bert_mails = wait_for(&bert, 2, WAIT);
    let forwarded = sent.elapsed();
    let listed = Instant::now();
    scid_games(port, &anna, &password);
    eprintln!(
        "XFCC: MakeAMove answered in {} ms, the move in Bert's mailbox {} ms after it was sent; \
         GetMyGames {} ms",
        answered.as_millis(),
        forwarded.as_millis(),
        listed.elapsed().as_millis()
    );
    assert_eq!(kinds(&bert_mails[1..]), vec!["move"]);
    assert!(
        header(&bert_mails[1], "Subject").is_some_and(|s| s.contains("f3")),
        "{:?}",
        header(&bert_mails[1], "Subject")
    );
    wait_for(&anna, 2, WAIT);

    // Bert answers by mail; zeep sees it.
    let subject = format!("Re: [{game}] Zug");
    send_text(&bert, &relay.address, &subject, "1. f3 e5");
    let g = zeep_until_moves(port, &anna, &password, "1.f3 e5");
    assert_eq!(g["myTurn"], true);
    assert_eq!(g["result"], "Ongoing");
    assert_eq!(
        zeep(port, &["games", &anna, "wrong"])["fault"],
        "AuthenticationFailed"
    );
    // Refused where a mail would get a query, by code.
    let m =
        |n: &str, mv: &str| zeep(port, &["move", &anna, &password, &id, n, mv])["result"].clone();
    assert_eq!(m("1", "g4"), "InvalidMoveNumber");
    assert_eq!(m("2", "g5"), "InvalidMove");
    assert_eq!(
        zeep(port, &["move", &bert, "wrong", &id, "2", "d5"])["result"],
        "AuthenticationFailed"
    );
    assert_eq!(m("2", "g4"), "Success");
    wait_for(&bert, 4, WAIT);

    // 2... Qh4# by mail ends the game; both clients see the result.
    send_text(&bert, &relay.address, &subject, "2. g4 Qh4#");
    let g = zeep_until_moves(port, &anna, &password, "1.f3 e5 2.g4 Qh4#");
    assert_eq!(g["result"], "BlackWins");
    assert_eq!(g["myTurn"], false);
    let over = scid_move(port, &anna, &password, &id, 3, "a3");
    assert!(
        over.contains("<MakeAMoveResult>NotYourTurn</MakeAMoveResult>"),
        "{over}"
    );
    let ends = |who: &str| {
        let started = Instant::now();
        loop {
            let mails = fetch_all(who);
            if kinds(&mails).iter().any(|k| k == "game-end") {
                return mails;
            }
            assert!(
                started.elapsed() < WAIT,
                "no game-end for {who}: {:?}",
                kinds(&mails)
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    let anna_mails = ends(&anna);
    assert_eq!(
        kinds(&anna_mails)
            .iter()
            .filter(|k| *k == "receipt")
            .count(),
        2,
        "a receipt for each XFCC move: {:?}",
        kinds(&anna_mails)
    );
    ends(&bert);

    let pid = daemon.0.id().to_string();
    let _ = Command::new("kill").args(["-TERM", &pid]).status();
    let status = daemon.0.wait().unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(status.success(), "{status:?}\n{text}");
    assert!(text.contains("XFCC: serving XfccBasic"), "{text}");
    // TO §11, §29: the XFCC moves are archived as letters and sealed with the rest.
    let mbox = relay.run_ok(&["export", "mbox", &game]);
    assert_eq!(
        mbox.matches("X-Fernzug-Via: XFCC from 127.0.0.1").count(),
        2,
        "{mbox}"
    );
    assert!(
        mbox.contains("X-Fernzug-XFCC-Message: "),
        "Scid's message is kept"
    );
    assert!(!mbox.contains(&password), "no password in the archive");
    let verified = relay.run_ok(&["verify", &game]);
    assert!(verified.starts_with(&format!("ok {game}: ")), "{verified}");
}
