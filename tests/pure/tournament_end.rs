//! The size of the report of a tournament's end (`tournament-end`, TO §27): a round robin of 3
//! and of 15 players (105 games), every game 40 moves long, played to its end by letters the core
//! decides; the report rendered with what the shell encloses — the PGN of every game as the
//! director's `PGN:` gives it (`export pgn`: each game's `pgn::game_pgn`, in number order) and
//! a `verify` line of `fernzug verify`'s length for each game. The mail must stay one a mailbox
//! takes without a second thought.

use std::path::Path;

use chrono::{DateTime, Duration, TimeZone, Utc};
use fernzug::core::State;
use fernzug::core::model::{Attachment, Facts, Mail};
use fernzug::game_ref::GameRef;
use fernzug::lang::Lang;
use fernzug::letter::{Content, Letter, MoveToken};
use fernzug::mail_kind::MailKind;
use fernzug::render::{Templates, render};
use shakmaty::Color;

use crate::letter_fixtures::settings;
use crate::quiet_walk::quiet_walk;

/// Plies of every game: 40 moves, no capture, no pawn move, no repetition (then a resignation).
const PLIES: usize = 80;

/// A round robin of `n` players (German names with umlauts, half of them English readers).
fn file(n: usize) -> String {
    let mut text = "id = \"FAX-2027-1\"\nname = \"Telefax-Meisterschaft 2027\"\nrules = \"fax\"\n\
         start = \"2027-01-04\"\n\n[director]\nname = \"Tom Leiter\"\nemail = \"tl@fernschach.test\"\n"
        .to_string();
    for i in 0..n {
        let lang = if i % 2 == 0 { "de" } else { "en" };
        text.push_str(&format!(
            "\n[[players]]\nname = \"Spieler Nummer {i} Müller-Lüdenscheidt\"\n\
             email = \"spieler{i}@fernschach.test\"\nlanguage = \"{lang}\"\n"
        ));
    }
    text
}

/// A letter as the reader gives it, from `from` about `game`, carrying `moves`.
fn letter(n: usize, from: &str, game: &GameRef, content: Content) -> Letter {
    Letter {
        message_id: format!("size-{n}@players.test"),
        from: from.to_string(),
        from_name: None,
        subject: format!("Re: [{game}]"),
        game_ref: Some(game.clone()),
        reply_keys: Vec::new(),
        references: Vec::new(),
        automatic: None,
        date_header: None,
        text: String::new(),
        attachments: Vec::new(),
        trace: Default::default(),
        dsn: None,
        content,
    }
}

fn token(ply: usize, san: &str) -> MoveToken {
    MoveToken {
        number: (ply / 2 + 1) as u32,
        color: if ply.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        },
        text: san.to_string(),
    }
}

/// The tournament of `players` played to its end, and the `tournament-end` mail to its director
/// with what the shell encloses, rendered: (games, bytes of the mail, bytes of the PGN).
fn report_of(players: usize) -> (usize, usize, usize) {
    let s = settings();
    let walk = quiet_walk(PLIES);
    let nt = fernzug::tournament_file::parse(Path::new("size.toml"), &file(players))
        .expect("the file is valid");
    let mut st = State::default();
    let registered = Utc.with_ymd_and_hms(2027, 1, 3, 12, 0, 0).unwrap();
    let mut k = 0;
    st.register(&nt, registered, &s, &mut || {
        k += 1;
        format!("key{k}")
    })
    .expect("registers");
    let mut now: DateTime<Utc> = Utc.with_ymd_and_hms(2027, 1, 4, 8, 0, 0).unwrap();
    st.tick(now, &s);
    let games: Vec<GameRef> = st.tournaments["FAX-2027-1"].games.clone();
    let mut n = 0;
    for g in &games {
        for ply in 0..=PLIES {
            let game = &st.games[g];
            let mover = game.players.get(game.to_move()).clone();
            let mut content = Content::default();
            if ply > 0 {
                content.moves.push(token(ply - 1, &walk[ply - 1]));
            }
            if ply < PLIES {
                content.moves.push(token(ply, &walk[ply]));
            } else {
                content.resign = true;
            }
            n += 1;
            now += Duration::minutes(1);
            let out = st.handle_letter(&letter(n, &mover, g, content), now, &s);
            assert!(
                out.mails.iter().all(|m| m.kind != MailKind::Query),
                "{g} ply {ply}: {:?}",
                out.log
            );
        }
        assert!(st.games[g].result.is_some(), "{g} is over");
    }
    let out = st.tick(now, &s);
    let ends: Vec<&Mail> = out
        .mails
        .iter()
        .filter(|m| m.kind == MailKind::TournamentEnd)
        .collect();
    assert_eq!(ends.len(), players + 1, "every player and the director");
    let mut mail = ends
        .iter()
        .find(|m| m.to[0].email == "tl@fernschach.test")
        .map(|m| (*m).clone())
        .expect("the director's");
    assert_eq!(mail.lang, Lang::De);
    // What the shell encloses (`Records::enclosed`): the tournament's PGN as `export pgn`
    // writes it, and each game's `verify` line (its length: events, mails, the final hash).
    let t = &st.tournaments["FAX-2027-1"];
    let pgn: String = games
        .iter()
        .map(|g| fernzug::core::pgn::game_pgn(&st.games[g], t, s.tz))
        .collect();
    mail.attachments.push(Attachment {
        filename: "FAX-2027-1.pgn".into(),
        ..Attachment::pgn(&GameRef::new("FAX-2027-1", 0), pgn.clone())
    });
    mail.enclose.clear();
    if let Facts::TournamentEnd(f) = &mut mail.facts {
        for line in &mut f.games {
            let game = &st.games[&line.game.parse::<GameRef>().unwrap()];
            line.verified = Some(format!(
                "ok {}: {} events, {} mails checked; final hash {}",
                line.game,
                game.events,
                PLIES + 1,
                game.seal
            ));
        }
    }
    let templates = Templates::load(None).expect("templates");
    let raw = render(&mail, &templates, &s, now).expect("renders");
    (games.len(), raw.len(), pgn.len())
}

#[test]
fn s27_the_report_of_a_tournament_of_105_games_stays_a_mail_any_mailbox_takes() {
    let (games, small, small_pgn) = report_of(3);
    assert_eq!(games, 3);
    let (games, big, big_pgn) = report_of(15);
    assert_eq!(games, 105);
    eprintln!(
        "tournament-end, 40 moves a game: 3 players (3 games) {small} bytes (PGN {small_pgn}); \
         15 players (105 games) {big} bytes (PGN {big_pgn})"
    );
    // The PGN of 105 games is most of it, sent as text (quoted-printable, not base64).
    assert!(
        big < big_pgn + big_pgn / 5 + 40_000,
        "{big} bytes for a PGN of {big_pgn}"
    );
    assert!(big < 1024 * 1024, "{big} bytes");
}
