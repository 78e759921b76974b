//! End-to-end: the player's overview (`Übersicht`) across two tournaments, the weekly one on
//! Monday, and the links of `[http] public_url` in the mails — through the real mail stack,
//! driven with `fernzug once --now`; at the end `fernzug run` serves the page a link names.

use std::process::Stdio;
use std::time::Duration;

use crate::common::{
    Daemon, REGISTERED, Relay, body_text, configure, fetch_all, free_port, get, header, kinds,
    next_of, unique_addr, wait_listening,
};

const PUBLIC: &str = "https://schach.example.org/fernzug";

#[test]
fn annas_overview_lists_her_games_of_two_tournaments_and_mails_link_to_their_pages() {
    let relay = Relay::new("overview");
    let port = free_port();
    configure(
        &relay,
        "",
        &format!("[http]\nlisten = \"127.0.0.1:{port}\"\npublic_url = \"{PUBLIC}/\"\n"),
    );
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let carl = unique_addr("carl");
    // T1: Anna (White) against Bert, fax. T2: Carl (White) against Anna, post.
    let t1 = relay.tournament_with_games(
        &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
        &[(&anna, &bert)],
        "fax",
        "2026-12-01",
    );
    let t2 = relay.tournament_with_games(
        &[("Carl Claus", &carl, None), ("Anna Adler", &anna, None)],
        &[(&carl, &anna)],
        "post",
        "2026-12-01",
    );
    relay.add(&t1);
    relay.add(&t2);
    relay.once(REGISTERED);
    next_of(&anna, "start", 1);

    // Each start mail links to its tournament's page and its game's.
    for t in [&t1, &t2] {
        let start = fetch_all(&anna)
            .into_iter()
            .find(|m| header(m, "X-Fernzug-Game").as_deref() == Some(t.game(1).as_str()))
            .unwrap_or_else(|| panic!("Anna's start mail of {}", t.game(1)));
        let text = body_text(&start).replace("\r\n", "\n");
        assert!(
            text.contains(&format!("{PUBLIC}/t/{}\n", t.id)),
            "the tournament's page: {text}"
        );
        assert!(
            text.contains(&format!("{PUBLIC}/g/{}\n", t.game(1))),
            "the game's page: {text}"
        );
    }

    // A move: Bert's mail links to the game's page.
    relay.send(
        &anna,
        &format!("Re: [{}] Adler – Berger", t1.game(1)),
        "1. e4",
    );
    relay.once("2026-12-01T10:00:00+01:00");
    let link = format!("{PUBLIC}/g/{}", t1.game(1));
    let forward = body_text(&next_of(&bert, "move", 0)).replace("\r\n", "\n");
    assert!(forward.contains(&format!("\n{link}\n")), "{forward}");
    relay.send(
        &carl,
        &format!("Re: [{}] Claus – Adler", t2.game(1)),
        "1. d4",
    );
    relay.once("2026-12-01T11:00:00+01:00");
    next_of(&anna, "move", 0);

    // `Übersicht`: one overview, both games, her move first.
    relay.send(&anna, "Übersicht", "Übersicht\n\nAnna");
    relay.once("2026-12-05T10:00:00+01:00");
    let overview = next_of(&anna, "overview", 0);
    let subject = header(&overview, "Subject").unwrap_or_default();
    assert!(subject.contains("Sie sind 1× am Zug"), "{subject}");
    let text = body_text(&overview).replace("\r\n", "\n");
    let (mine, waiting) = (
        text.find(&t2.game(1)).expect("the game of T2"),
        text.find(&t1.game(1)).expect("the game of T1"),
    );
    assert!(mine < waiting, "her move first:\n{text}");
    for want in [
        "== Laufend: 2 ==",
        "Sie: Schwarz, gegen Carl Claus",
        "Zug 1: Sie sind am Zug",
        "Sie: Weiß, gegen Bert Berger",
        "Zug 1: Bert Berger ist am Zug",
        "Nächste Frist: 17.12.2026 00:00",
        &format!("{PUBLIC}/g/{}", t2.game(1)),
    ] {
        assert!(text.contains(want), "{want:?} in\n{text}");
    }
    assert!(text.lines().all(|l| l.chars().count() <= 60), "{text}");

    // Weekly: on Monday 7 December at midnight the next one comes by itself.
    relay.send(&anna, "Übersicht wöchentlich", "Übersicht wöchentlich");
    relay.once("2026-12-05T11:00:00+01:00");
    next_of(&anna, "overview", 1);
    relay.once("2026-12-07T00:00:30+01:00");
    let weekly = body_text(&next_of(&anna, "overview", 2));
    assert!(weekly.contains("Ihre Übersicht zum Montag."), "{weekly}");
    assert!(weekly.contains(&t1.game(1)) && weekly.contains(&t2.game(1)));
    relay.once("2026-12-07T09:00:00+01:00");
    std::thread::sleep(Duration::from_millis(500));
    let count = |kind: &str| {
        kinds(&fetch_all(&anna))
            .iter()
            .filter(|k| k.as_str() == kind)
            .count()
    };
    assert_eq!(count("overview"), 3, "once a week");

    // The link names a page the relay serves.
    let _daemon = Daemon(
        relay
            .command(&["run"])
            .stderr(Stdio::from(
                std::fs::File::create(relay.dir.join("run.log")).unwrap(),
            ))
            .spawn()
            .unwrap(),
    );
    wait_listening(port);
    let path = link.strip_prefix(PUBLIC).expect("the link's path");
    // The listener answers 503 until the loop has opened the store for the pages.
    let started = std::time::Instant::now();
    let (status, page) = loop {
        let (status, page) = get(port, path);
        if status != 503 || started.elapsed() > Duration::from_secs(30) {
            break (status, page);
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    assert_eq!(status, 200, "{path}: {page}");
    assert!(page.contains("Anna Adler") && page.contains("Bert Berger"));
}
