//! Real games replayed through the relay (TO §3, §5): each ply is a mail as a player writes it —
//! the partner's last move repeated and his own, both in one notation form — read by the whole
//! letter reader and decided by the core. Each player rotates all six forms the relay reads, one
//! form per own move; every game is replayed six times, the rotation shifted by one each time,
//! and with the players' languages (German, English) both ways round, so every move of these
//! games is written in German and English short and long algebraic, ICCF numeric and UCI, by a
//! German and by an English player. Not one may be queried: a move's letters are read by the
//! alphabet the text itself shows (German `S L T D`, English `N B R Q`; `B` is never the German
//! Bauer, which has no letter).

use chrono::{Duration, TimeZone, Utc};
use fernzug::core::State;
use fernzug::core::model::{NewPlayer, NewTournament, Pairing, Person};

use crate::letter_fixtures::settings;
use fernzug::game_ref::GameRef;
use fernzug::lang::Lang;
use fernzug::letter::read_letter;
use fernzug::mail_kind::MailKind;
use fernzug::notation::{Form, write_move};
use fernzug::rules::RuleSet;
use shakmaty::san::San;
use shakmaty::{Chess, Color, Position};

/// Famous games, English SAN: Morphy's opera game (Paris 1858), Anderssen–Kieseritzky (London
/// 1851), Anderssen–Dufresne (Berlin 1852), Byrne–Fischer (New York 1956, to move 30).
const GAMES: &[&str] = &[
    "e4 e5 Nf3 d6 d4 Bg4 dxe5 Bxf3 Qxf3 dxe5 Bc4 Nf6 Qb3 Qe7 Nc3 c6 Bg5 b5 Nxb5 cxb5 Bxb5+ Nbd7 \
     O-O-O Rd8 Rxd7 Rxd7 Rd1 Qe6 Bxd7+ Nxd7 Qb8+ Nxb8 Rd8#",
    "e4 e5 f4 exf4 Bc4 Qh4+ Kf1 b5 Bxb5 Nf6 Nf3 Qh6 d3 Nh5 Nh4 Qg5 Nf5 c6 g4 Nf6 Rg1 cxb5 h4 Qg6 \
     h5 Qg5 Qf3 Ng8 Bxf4 Qf6 Nc3 Bc5 Nd5 Qxb2 Bd6 Bxg1 e5 Qxa1+ Ke2 Na6 Nxg7+ Kd8 Qf6+ Nxf6 Be7#",
    "e4 e5 Nf3 Nc6 Bc4 Bc5 b4 Bxb4 c3 Ba5 d4 exd4 O-O d3 Qb3 Qf6 e5 Qg6 Re1 Nge7 Ba3 b5 Qxb5 Rb8 \
     Qa4 Bb6 Nbd2 Bb7 Ne4 Qf5 Bxd3 Qh5 Nf6+ gxf6 exf6 Rg8 Rad1 Qxf3 Rxe7+ Nxe7 Qxd7+ Kxd7 Bf5+ \
     Ke8 Bd7+ Kf8 Bxe7#",
    "Nf3 Nf6 c4 g6 Nc3 Bg7 d4 O-O Bf4 d5 Qb3 dxc4 Qxc4 c6 e4 Nbd7 Rd1 Nb6 Qc5 Bg4 Bg5 Na4 Qa3 \
     Nxc3 bxc3 Nxe4 Bxe7 Qb6 Bc4 Nxc3 Bc5 Rfe8+ Kf1 Be6 Bxb6 Bxc4+ Kg1 Ne2+ Kf1 Nxd4+ Kg1 Ne2+ \
     Kf1 Nc3+ Kg1 axb6 Qb4 Ra4 Qxb6 Nxd1 h3 Rxa2 Kh2 Nxf2 Re1 Rxe1 Qd8+ Bf8 Nxe1 Bd5",
];

const ANNA: &str = "anna@fernschach.test";
const BERT: &str = "bert@fernschach.test";

fn numbered(ply: usize, text: &str) -> String {
    let number = ply / 2 + 1;
    if ply.is_multiple_of(2) {
        format!("{number}. {text}")
    } else {
        format!("{number}... {text}")
    }
}

#[test]
fn s3_real_games_in_six_notations_are_played_without_a_query() {
    let s = settings();
    let mut plies_played = 0;
    let mut queries = Vec::new();
    let runs = GAMES
        .iter()
        .enumerate()
        .flat_map(|(g, text)| (0..12).map(move |r| (g, r, *text)));
    for (g, run, game_text) in runs {
        let (shift, swapped) = (run % 6, run >= 6);
        let (anna_lang, bert_lang) = if swapped {
            (Lang::En, Lang::De)
        } else {
            (Lang::De, Lang::En)
        };
        let tid = format!("REAL-{}-{run}", g + 1);
        let game = GameRef::new(&tid, 1);
        let start = Utc.with_ymd_and_hms(2026, 11, 30, 11, 0, 0).unwrap();
        let mut st = State::default();
        let player = |name: &str, email: &str, language| NewPlayer {
            name: name.into(),
            email: email.into(),
            language,
            also: Vec::new(),
            board: None,
        };
        let file = NewTournament {
            id: tid.clone(),
            name: "Real games".into(),
            rules: RuleSet::Fax,
            start: start.date_naive(),
            director: Person {
                name: "Tom Leiter".into(),
                email: "tl@fernschach.test".into(),
            },
            players: vec![
                player("Anna Adler", ANNA, Some(anna_lang)),
                player("Bert Berger", BERT, Some(bert_lang)),
            ],
            pairings: vec![Pairing {
                number: 1,
                round: 1,
                white: 0,
                black: 1,
            }],
            digest: false,
        };
        let mut k = 0;
        st.register(&file, start, &s, &mut || {
            k += 1;
            format!("k{g}r{run}x{k}")
        })
        .expect("registers");
        let mut pos = Chess::default();
        // The partner's last move as he wrote it is repeated in the mover's form.
        let mut last: Option<(Chess, shakmaty::Move)> = None;
        for (ply, san) in game_text.split_whitespace().enumerate() {
            let mv = San::from_ascii(san.as_bytes())
                .unwrap_or_else(|e| panic!("{tid} ply {ply}: {san}: {e}"))
                .to_move(&pos)
                .unwrap_or_else(|e| panic!("{tid} ply {ply}: {san} is not legal: {e}"));
            // Each player's own moves rotate through the six forms.
            let form = Form::ALL[(ply / 2 + shift) % Form::ALL.len()];
            let mut lines = Vec::new();
            if let Some((before, prev)) = &last {
                lines.push(numbered(ply - 1, &write_move(before, prev, form)));
            }
            lines.push(numbered(ply, &write_move(&pos, &mv, form)));
            let (from, key) = if pos.turn() == Color::White {
                (ANNA, st.games[&game].keys.white.clone())
            } else {
                (BERT, st.games[&game].keys.black.clone())
            };
            let raw = format!(
                "From: {from}\r\nTo: relay+{key}@fernschach.test\r\nSubject: Re: [{game}] Adler - Berger\r\nMessage-ID: <{tid}-{ply}@real>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
                lines.join("\r\n")
            );
            let letter = read_letter(raw.as_bytes()).expect("reads");
            let now = start + Duration::hours(1 + ply as i64);
            let mut out = st.tick(now, &s);
            out.absorb(st.handle_letter(&letter, now, &s));
            if out.mails.iter().any(|m| m.kind == MailKind::Query) {
                let why = out
                    .mails
                    .iter()
                    .find(|m| m.kind == MailKind::Query)
                    .map(|m| fernzug::render::facts(m)["reason"].to_string())
                    .unwrap_or_default();
                queries.push(format!(
                    "{tid} ply {ply} ({form:?}): {} → {why}",
                    lines.join(" / ")
                ));
                break;
            }
            assert!(
                out.mails
                    .iter()
                    .any(|m| matches!(m.kind, MailKind::Move | MailKind::GameEnd)),
                "{tid} ply {ply}: the move was not forwarded"
            );
            last = Some((pos.clone(), mv));
            pos.play_unchecked(mv);
            plies_played += 1;
        }
    }
    println!(
        "\nreal games in six notations: {plies_played} plies, {} queries",
        queries.len()
    );
    assert!(queries.is_empty(), "queried:\n{}", queries.join("\n"));
    assert!(plies_played >= 2000, "{plies_played} plies");
}
