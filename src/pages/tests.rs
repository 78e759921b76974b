//! The pages over a real store: what they show of a tournament played by mail, what they never
//! show (an address), the delay, caching, and the paths nobody serves.

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};

use chrono::{DateTime, TimeZone, Utc};

use super::*;
use crate::app::App;
use crate::core::testkit::{ANNA, BERT, CARL, tournament};
use crate::rules::RuleSet;

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("fernzug-pages-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn at(d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, d, h, 0, 0).unwrap()
}

/// A relay whose tournament `T-1` (Anna, Bert, Carl) had Anna's 1. e4 and Bert's 1... c5 in
/// game 1 and a resignation in game 2.
fn relay(dir: &Path) -> App {
    let text = format!(
        "[relay]\naddress = \"relay@fernschach.test\"\nname = \"Fernschach-Relais\"\n\
         data_dir = \"{}\"\ntime_zone = \"Europe/Berlin\"\nlanguage = \"de\"\n\n\
         [imap]\nhost = \"127.0.0.1\"\nport = 1\nsecurity = \"none\"\nuser = \"r\"\n\
         password = \"x\"\n\n[smtp]\nhost = \"127.0.0.1\"\nport = 1\nsecurity = \"none\"\n",
        dir.join("data").display()
    );
    let config = crate::config::parse(&dir.join("fernzug.toml"), &text, &|p| {
        std::fs::read_to_string(p)
    })
    .unwrap();
    let mut app = App::open(config).unwrap();
    let file = tournament(
        "T-1",
        "Pokal",
        RuleSet::Post,
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, None),
            ("Carl Clausen", CARL, None),
        ],
        &[(0, 1), (2, 0), (1, 2)],
    );
    app.register(&file, at(1, 8)).unwrap();
    let mail = |from: &str, game: u32, body: &str, id: &str| {
        format!(
            "From: {from}\r\nTo: relay@fernschach.test\r\nSubject: [T-1/{game}]\r\n\
             Message-ID: <{id}@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
        )
    };
    app.process(mail(ANNA, 1, "1. e4", "m1").as_bytes(), at(1, 10), None)
        .unwrap();
    app.process(mail(BERT, 1, "1. e4 c5", "m2").as_bytes(), at(2, 10), None)
        .unwrap();
    app.process(mail(CARL, 2, "1. d4", "m3").as_bytes(), at(2, 11), None)
        .unwrap();
    app.process(
        mail(ANNA, 2, "Ich gebe auf.", "m4").as_bytes(),
        at(3, 10),
        None,
    )
    .unwrap();
    app
}

fn pages(app: &App, delay: u32) -> Pages {
    let slot = StoreSlot::default();
    slot.set(Some(app.store.clone()));
    Pages::new(
        slot,
        PagesConfig {
            relay_name: "Fernschach-Relais".into(),
            tz: chrono_tz::Europe::Berlin,
            default_lang: Lang::De,
            delay_moves: delay,
            templates_dir: None,
        },
    )
    .unwrap()
}

fn get(p: &Pages, target: &str, etag: Option<&str>) -> Response {
    let request = Request {
        method: "GET".into(),
        target: target.into(),
        body: Vec::new(),
        forwarded: None,
        peer: IpAddr::V4(Ipv4Addr::LOCALHOST),
        accept_language: None,
        if_none_match: etag.map(str::to_string),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(p.answer(request))
}

/// The text of an HTML page, tags dropped and blanks folded.
fn text(html: &str) -> String {
    let mut out = String::new();
    let mut tag = false;
    for c in html.chars() {
        match c {
            '<' => {
                tag = true;
                out.push(' ');
            }
            '>' => tag = false,
            c if !tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_pages_show_the_tournament_and_its_games_and_never_an_address() {
    let dir = TempDir::new("show");
    let app = relay(&dir.0);
    let p = pages(&app, 0);
    let index = get(&p, "/", None);
    assert_eq!(index.status, 200);
    assert!(
        text(&index.body).contains("Pokal T-1 Post 01.12.2026 2 1"),
        "{}",
        text(&index.body)
    );
    let t = get(&p, "/t/T-1", None);
    assert_eq!(t.status, 200);
    let page = text(&t.body);
    // Carl won game 2 by Anna's resignation: the crosstable as `status` counts it.
    assert!(page.contains("1. Carl Clausen × 1 * 1 0 1 1"), "{page}");
    assert!(page.contains("2. Anna Adler 0 × * 0 0 1 1"), "{page}");
    assert!(
        page.contains("1 Anna Adler Bert Berger * 1 Anna Adler"),
        "{page}"
    );
    assert!(
        page.contains("2 Carl Clausen Anna Adler 1-0 1 beendet"),
        "{page}"
    );
    let g = get(&p, "/g/T-1/1?lang=en", None);
    assert_eq!(g.status, 200);
    let page = text(&g.body);
    assert!(page.contains("Anna Adler to move"), "{page}");
    assert!(page.contains("1. e4 c5"), "{page}");
    assert!(g.body.contains("data-square=\"c5\""));
    assert!(page.contains("White: Ke1, Qd1, Ra1, Rh1"), "{page}");
    // Nothing on any page names an address.
    for body in [&index.body, &t.body, &g.body] {
        assert!(!body.contains('@'), "{body}");
    }
    // The PGN is `export pgn`'s.
    let pgn = get(&p, "/t/T-1.pgn", None);
    assert_eq!(pgn.status, 200);
    assert!(pgn.body.contains("[White \"Anna Adler\"]"), "{}", pgn.body);
    assert!(
        pgn.body.contains("1. e4 {") && pgn.body.contains("1... c5"),
        "{}",
        pgn.body
    );
    assert!(!pgn.body.contains('@'));
}

#[test]
fn a_delay_shows_running_games_behind_and_finished_ones_whole() {
    let dir = TempDir::new("delay");
    let app = relay(&dir.0);
    let p = pages(&app, 1);
    let page = text(&get(&p, "/g/T-1/1", None).body);
    assert!(page.contains("1. e4"), "{page}");
    assert!(!page.contains("c5"), "{page}");
    assert!(page.contains("Bert Berger ist am Zug"), "{page}");
    assert!(
        !page.contains("verbraucht"),
        "no clocks under a delay: {page}"
    );
    let page = text(&get(&p, "/g/T-1/2", None).body);
    assert!(page.contains("1. d4"), "{page}");
    assert!(page.contains("Beendet: 1-0 (Aufgabe)"), "{page}");
    let pgn = get(&p, "/t/T-1.pgn", None).body;
    assert!(pgn.contains("1. e4 {") && !pgn.contains("1... c5"), "{pgn}");
}

#[test]
fn a_page_not_changed_is_not_sent_again_and_unknown_paths_are_404() {
    let dir = TempDir::new("cache");
    let app = relay(&dir.0);
    let p = pages(&app, 0);
    let first = get(&p, "/t/T-1", None);
    let etag = first
        .headers
        .iter()
        .find(|(n, _)| *n == "ETag")
        .map(|(_, v)| v.clone())
        .expect("an ETag");
    let again = get(&p, "/t/T-1", Some(&etag));
    assert_eq!((again.status, again.body.as_str()), (304, ""));
    for path in ["/t/T-9", "/g/T-1/9", "/g/T-1", "/x", "/t/a b"] {
        assert_eq!(get(&p, path, None).status, 404, "{path}");
    }
    // While another command holds the store: 503, try again.
    let closed = Pages::new(StoreSlot::default(), p.config.clone()).unwrap();
    assert_eq!(get(&closed, "/", None).status, 503);
}

#[test]
fn a_page_is_built_once_per_change_of_the_store() {
    let dir = TempDir::new("built-once");
    let mut app = relay(&dir.0);
    let p = pages(&app, 0);
    let first = get(&p, "/g/T-1/1", None);
    assert_eq!(first.status, 200);
    assert_eq!(p.built(), 1);
    for _ in 0..5 {
        assert_eq!(get(&p, "/g/T-1/1", None), first, "the same answer, kept");
    }
    assert_eq!(p.built(), 1, "built once");
    // Each language, each page its own.
    assert!(text(&get(&p, "/g/T-1/1?lang=en", None).body).contains("to move"));
    get(&p, "/t/T-1", None);
    assert_eq!(p.built(), 3);
    get(&p, "/t/T-1", None);
    assert_eq!(p.built(), 3);
    // A 404 is not kept, and counts as a build.
    get(&p, "/g/T-1/9", None);
    get(&p, "/g/T-1/9", None);
    assert_eq!(p.built(), 5);
    // A move: the store changed, the page is built anew and shows it.
    let mail = format!(
        "From: {ANNA}\r\nTo: relay@fernschach.test\r\nSubject: [T-1/1]\r\n\
         Message-ID: <m5@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n1... c5 2. Nf3\r\n"
    );
    app.process(mail.as_bytes(), at(3, 12), None).unwrap();
    let after = get(&p, "/g/T-1/1?lang=en", None);
    assert_ne!(after.headers, first.headers, "another ETag");
    assert!(text(&after.body).contains("Nf3"), "{}", text(&after.body));
    assert_eq!(p.built(), 6);
    // Without the cache every request builds.
    let uncached = pages(&app, 0).uncached();
    get(&uncached, "/t/T-1", None);
    get(&uncached, "/t/T-1", None);
    assert_eq!(uncached.built(), 2);
}

#[test]
fn the_cache_keeps_the_newest_generation_within_its_bounds() {
    let page = |n: usize| Arc::new(Response::text(200, "x".repeat(n)));
    let key = |g: u64, path: &str| Key {
        generation: g,
        lang: Lang::De,
        path: path.into(),
        day: None,
    };
    let mut c = Cache::new(1000, 3);
    c.put(key(1, "/a"), page(100));
    c.put(key(1, "/b"), page(100));
    assert!(c.get(&key(1, "/a")).is_some());
    c.put(key(1, "/c"), page(100));
    c.put(key(1, "/d"), page(100));
    assert_eq!(c.entries.len(), 3, "at most 3 pages");
    assert!(
        c.get(&key(1, "/b")).is_none(),
        "the one used longest ago went"
    );
    assert!(c.get(&key(1, "/a")).is_some());
    c.put(key(1, "/big"), page(300));
    assert!(
        c.get(&key(1, "/big")).is_none(),
        "over a quarter of the bytes: not kept"
    );
    c.put(key(2, "/a"), page(200));
    assert_eq!(c.entries.len(), 1, "a new generation: the old pages went");
    c.put(key(1, "/a"), page(100));
    assert!(
        c.get(&key(1, "/a")).is_none(),
        "an older generation is not kept"
    );
    assert_eq!(c.bytes, 202);
}

#[test]
fn s27_the_tournament_page_turns_final_and_its_end_is_reported_with_the_pgn_and_each_seal() {
    let dir = TempDir::new("final");
    let mut app = relay(&dir.0);
    let p = pages(&app, 0);
    let before = get(&p, "/t/T-1", None).body;
    assert!(!before.contains("class=\"final\""), "{before}");
    assert!(before.contains("<h2>Kreuztabelle</h2>"), "{before}");
    // The last two games end: Anna, on move, resigns game 1; in game 3 Bert opens and Carl
    // resigns.
    let mail = |from: &str, game: u32, body: &str, id: &str| {
        format!(
            "From: {from}\r\nTo: relay@fernschach.test\r\nSubject: [T-1/{game}]\r\n\
             Message-ID: <{id}@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
        )
    };
    for (from, game, body, id, at) in [
        (ANNA, 1, "Ich gebe auf.", "e1", at(4, 10)),
        (BERT, 3, "1. d4", "e2", at(4, 11)),
        (CARL, 3, "Ich gebe auf.", "e3", at(4, 12)),
    ] {
        app.process(mail(from, game, body, id).as_bytes(), at, None)
            .unwrap();
    }
    // The tick after the last game's step reports the end (TO §27), once.
    let out = app.tick(at(4, 12)).unwrap();
    let ends = |out: &crate::core::Output| {
        out.mails
            .iter()
            .filter(|m| m.kind == crate::mail_kind::MailKind::TournamentEnd)
            .count()
    };
    assert_eq!(ends(&out), 4, "three players and the director");
    assert_eq!(ends(&app.tick(at(5, 12)).unwrap()), 0);
    // As queued: the PGN of every game attached, each game's `verify` line in the text.
    let queued: Vec<Vec<u8>> = app
        .store
        .outbox()
        .all()
        .unwrap()
        .into_iter()
        .filter(|e| e.kind == "tournament-end")
        .map(|e| e.raw)
        .collect();
    assert_eq!(queued.len(), 4);
    for raw in &queued {
        let parsed = mail_parser::MessageParser::default().parse(raw).unwrap();
        let text = parsed.body_text(0).unwrap().replace("\r\n", "\n");
        for g in 1..=3 {
            let verdict = app
                .verify(&crate::game_ref::GameRef::new("T-1", g))
                .unwrap()
                .unwrap();
            assert!(verdict.fault.is_none(), "{verdict}");
            assert!(
                text.contains(&format!("  {verdict}\n")),
                "{verdict} in\n{text}"
            );
        }
        let pgn: Vec<(String, String)> = parsed
            .attachments()
            .map(|a| {
                (
                    mail_parser::MimeHeaders::attachment_name(a)
                        .unwrap_or_default()
                        .to_string(),
                    String::from_utf8_lossy(a.contents()).replace("\r\n", "\n"),
                )
            })
            .collect();
        assert_eq!(pgn.len(), 1);
        assert_eq!(pgn[0].0, "T-1.pgn");
        assert_eq!(pgn[0].1, get(&p, "/t/T-1.pgn", None).body, "the pages' PGN");
        assert_eq!(pgn[0].1.matches("[Event ").count(), 3);
    }
    let after = get(&p, "/t/T-1", None).body;
    assert!(
        text(&after).contains("Endstand. Alle 3 Partien sind beendet"),
        "{after}"
    );
    assert!(
        after.contains("<h2>Endstand (Kreuztabelle)</h2>"),
        "{after}"
    );
    let english = text(&get(&p, "/t/T-1?lang=en", None).body);
    assert!(english.contains("Final. All 3 games are over"), "{english}");
}
