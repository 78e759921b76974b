//! The whole pipeline on arbitrary bytes as one mail (docs/security.md, "No mail stops the
//! relay"): the relay of this process — a store in a temporary folder, two tournaments whose
//! players and games the seed corpus (tests/fixtures/mail) names, a director allowed to register
//! by mail, the operator's own server trusted — reads, decides, renders and stages each input as
//! `fernzug run` does (`App::process`). Every input must end as done, a duplicate or quarantined;
//! a failure of the store is a finding, and so is a panic anywhere — the relay survives one by
//! quarantining the mail, but the panic hook here aborts first, so that libFuzzer keeps the input.
//! A stuck pass is libFuzzer's `-timeout`.
#![no_main]

use std::sync::{LazyLock, Mutex};

use chrono::{DateTime, TimeZone, Utc};
use fernzug::app::{App, Processed};
use libfuzzer_sys::fuzz_target;

/// The relay the inputs go to, opened once per process.
static RELAY: LazyLock<Mutex<App>> = LazyLock::new(|| Mutex::new(relay()));

const CONFIG: &str = r#"[relay]
address = "relay@fernschach.test"
name = "Fernschach-Relais"
data_dir = "DATA"
time_zone = "Europe/Berlin"
language = "de"
directors = ["tl@fernschach.test"]

[imap]
host = "127.0.0.1"
port = 1
security = "none"
user = "relay@fernschach.test"
password = "x"
mailbox = "INBOX"

[smtp]
host = "127.0.0.1"
port = 1
security = "none"

[security]
trusted_authserv_id = "mx.fernschach.test"
"#;

/// A tournament file of `id` with `players` (name, address) and `games` pairs of them, 1 to n.
fn file(id: &str, players: &[(&str, &str)], games: usize) -> String {
    let mut text = format!(
        "id = \"{id}\"\nname = \"Fuzz {id}\"\nrules = \"fax\"\nstart = \"2026-12-01\"\n\n\
         [director]\nname = \"Tom Leiter\"\nemail = \"tl@fernschach.test\"\n"
    );
    for (name, email) in players {
        text.push_str(&format!("\n[[players]]\nname = \"{name}\"\nemail = \"{email}\"\n"));
    }
    // Every pairing with either colour, as many as asked.
    let pairs = players
        .iter()
        .flat_map(|w| players.iter().filter(move |b| b.1 != w.1).map(move |b| (w.1, b.1)));
    for (w, b) in pairs.take(games) {
        text.push_str(&format!("\n[[games]]\nwhite = \"{w}\"\nblack = \"{b}\"\n"));
    }
    text
}

fn relay() -> App {
    let dir = std::env::temp_dir().join(format!("fernzug-fuzz-pipeline-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    let text = CONFIG.replace("DATA", &dir.join("data").to_string_lossy());
    let config = fernzug::config::parse(&dir.join("fernzug.toml"), &text, &|p| {
        std::fs::read_to_string(p)
    })
    .expect("the fuzz relay's config");
    let mut app = App::open(config).expect("the fuzz relay's store");
    let registered = at(2026, 11, 30);
    for (id, players, games) in [
        (
            "FAX-2026-3",
            vec![
                ("Anna Adler", "anna@fernschach.test"),
                ("Bert Berger", "bert@fernschach.test"),
                ("Jürgen Müller", "juergen.mueller@gmx.de"),
                ("Klaus Schröder", "k.schroeder@web.de"),
            ],
            7,
        ),
        (
            "EN-2026-1",
            vec![
                ("John Smith", "john.smith@chess.example"),
                ("Mary Miller", "mary.miller@chess.example"),
                ("Tom Baker", "tom.baker@gmail.com"),
            ],
            5,
        ),
    ] {
        let text = file(id, &players, games);
        let t = fernzug::tournament_file::parse(std::path::Path::new("fuzz.toml"), &text)
            .expect("the fuzz tournament");
        app.register(&t, registered).expect("registered");
    }
    // Each input its own transaction, made durable now and then: the fuzzer's speed is the
    // relay's deciding, not the disk's.
    app.group(true).expect("group commit");
    app
}

fn at(y: i32, m: u32, d: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(y, m, d, 10, 0, 0).unwrap()
}

static RUNS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

fuzz_target!(|data: &[u8]| {
    // A panic anywhere is a finding, even one the relay would survive by quarantining the mail.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            default(info);
            std::process::abort();
        }));
    });
    let mut app = RELAY.lock().unwrap_or_else(|p| p.into_inner());
    let n = RUNS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    // Time moves on a minute per input: deadlines come due among the mails, as in life.
    let postmark = at(2026, 12, 1) + chrono::Duration::minutes(n as i64);
    match app.process(data, postmark, Some((1, n as u32 + 1))) {
        Ok(Processed::Done { .. } | Processed::Duplicate | Processed::Quarantined(_)) => {}
        Err(e) => panic!("the store failed on an input: {e}"),
    }
    if n % 500 == 499 {
        app.sync().expect("made durable");
    }
});
