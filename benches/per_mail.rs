//! CPU per mail (issue 13, goal P3): reading, validating and deciding one move mail must cost at
//! most 3× a bare `mail-parser` parse of the same mail. Each group puts fernzug's step beside its
//! baseline:
//!
//! - `letter/*`: `MessageParser::parse` (baseline) vs `letter::read_letter_with`, per kind of mail;
//! - `notation/*`: shakmaty's SAN parse + `to_move` (baseline) vs `notation::read_move`;
//! - `core/*`: `mail-parser` (baseline) vs `State::handle_letter` on a state with one running game;
//! - `whole/*`: `mail-parser` (baseline) vs read + decide + `render::render`, no network, no store.
//!
//! Run: `cargo bench --bench per_mail -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use fernzug::core::model::{NewPlayer, NewTournament, Pairing, Person};
use fernzug::core::{Settings, State};
use fernzug::game_ref::GameRef;
use fernzug::lang::Lang;
use fernzug::letter::{Content, Letter, Limits, MoveToken, read_letter, read_letter_with};
use fernzug::render::{Templates, render};
use fernzug::rules::RuleSet;
use mail_parser::MessageParser;
use shakmaty::san::San;
use shakmaty::{Chess, Color, Position};

/// The move mails read, by kind.
const MAILS: &[(&str, &[u8])] = &[
    // Thunderbird, text/plain format=flowed, two moves, §14 lines, a short quote, a signature.
    (
        "plain",
        include_bytes!("../tests/fixtures/mail/01_thunderbird_plain.eml"),
    ),
    // Thunderbird reply quoting the relay's whole move mail (diagram, FEN, clocks) with `> `.
    ("reply_board", include_bytes!("mails/reply_board.eml")),
    // Gmail, multipart/alternative: text/plain and text/html, each with the quote.
    (
        "gmail_alternative",
        include_bytes!("../tests/fixtures/mail/03_gmail_alternative.eml"),
    ),
    // GMX webmail, text/html only (Latin-1, quoted-printable), the relay's mail quoted below.
    (
        "html_webmail",
        include_bytes!("../tests/fixtures/mail/39_gmx_html_only_latin1.eml"),
    ),
];

fn bare_parse(raw: &[u8]) -> usize {
    MessageParser::default()
        .parse(raw)
        .map_or(0, |m| m.parts.len())
}

fn letter(c: &mut Criterion) {
    let limits = Limits::default();
    let mut g = c.benchmark_group("letter");
    for (name, raw) in MAILS {
        g.bench_function(format!("{name}/mail_parser"), |b| {
            b.iter(|| bare_parse(black_box(raw)))
        });
        g.bench_function(format!("{name}/read_letter"), |b| {
            b.iter(|| read_letter_with(black_box(raw), black_box(&limits)))
        });
    }
    g.finish();
}

/// The position after 1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4: Black has 30 legal moves.
fn ruy_lopez() -> Chess {
    let mut pos = Chess::default();
    for san in ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4"] {
        let mv = san
            .parse::<San>()
            .expect("SAN")
            .to_move(&pos)
            .expect("legal");
        pos.play_unchecked(mv);
    }
    pos
}

fn notation(c: &mut Criterion) {
    let pos = ruy_lopez();
    let mut g = c.benchmark_group("notation");
    g.bench_function("shakmaty_san/Nf6", |b| {
        b.iter(|| {
            San::from_ascii(black_box(b"Nf6"))
                .ok()
                .and_then(|san| san.to_move(black_box(&pos)).ok())
        })
    });
    for text in ["Nf6", "Sf6", "Sg8-f6", "7866", "g8f6", "b5"] {
        g.bench_function(format!("read_move/{text}"), |b| {
            b.iter(|| fernzug::notation::read_move(black_box(text), black_box(&pos)))
        });
    }
    g.finish();
}

// ---------------------------------------------------------------------------
// One running game: FAX-2026-3/1, Anna Adler (White, key k01) against Bert Berger (Black, key
// k02), after 1. e4 c5, Anna to move; `mails/reply_board.eml` is her answer `2. Sf3`.

const ANNA: &str = "anna@fernschach.test";
const BERT: &str = "bert@fernschach.test";

fn settings() -> Settings {
    Settings {
        relay_address: "relay@fernschach.test".into(),
        relay_name: "Fernschach-Relais".into(),
        tz: chrono_tz::Europe::Berlin,
        default_lang: Lang::De,
        instance: "bench".into(),
        digest_day: None,
        public_url: None,
        warn_days: 0,
        guard: Default::default(),
    }
}

fn utc(d: u32, h: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 12, d, h, 0, 0).unwrap()
}

fn setup_letter(from: &str, game: &GameRef, n: u32, moves: Vec<MoveToken>) -> Letter {
    Letter {
        message_id: format!("setup-{n}@bench"),
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
        content: Content {
            moves,
            ..Content::default()
        },
        trace: Default::default(),
        dsn: None,
    }
}

fn token(number: u32, color: Color, text: &str) -> MoveToken {
    MoveToken {
        number,
        color,
        text: text.into(),
    }
}

/// The state with the game running, and the moment Anna's answer arrives.
fn running_game(s: &Settings) -> (State, DateTime<Utc>) {
    let game = GameRef::new("FAX-2026-3", 1);
    let player = |name: &str, email: &str, language| NewPlayer {
        name: name.into(),
        email: email.into(),
        language,
        also: Vec::new(),
        board: None,
    };
    let file = NewTournament {
        id: "FAX-2026-3".into(),
        name: "Telefax-Aufstiegsturnier 2026/3".into(),
        rules: RuleSet::Fax,
        start: NaiveDate::from_ymd_opt(2026, 12, 1).unwrap(),
        director: Person {
            name: "Tom Leiter".into(),
            email: "tl@fernschach.test".into(),
        },
        players: vec![
            player("Anna Adler", ANNA, Some(Lang::De)),
            player("Bert Berger", BERT, Some(Lang::En)),
        ],
        pairings: vec![Pairing {
            number: 1,
            round: 1,
            white: 0,
            black: 1,
        }],
        digest: false,
    };
    let mut keys = ["k01", "k02"].into_iter().map(String::from);
    let mut st = State::default();
    st.register(&file, utc(1, 8), s, &mut || keys.next().unwrap_or_default())
        .expect("registers");
    let e4 = setup_letter(ANNA, &game, 1, vec![token(1, Color::White, "e4")]);
    st.handle_letter(&e4, utc(1, 9), s);
    let c5 = setup_letter(
        BERT,
        &game,
        2,
        vec![token(1, Color::White, "e4"), token(1, Color::Black, "c5")],
    );
    st.handle_letter(&c5, utc(2, 19), s);
    assert_eq!(st.games[&game].moves.len(), 2, "the setup moves are played");
    (st, utc(3, 8))
}

const MOVE_MAIL: &[u8] = include_bytes!("mails/reply_board.eml");

fn core(c: &mut Criterion) {
    let s = settings();
    let (state, now) = running_game(&s);
    let letter = read_letter(MOVE_MAIL).expect("the move mail reads");
    // The mail is played: a move to the partner and a receipt to the sender.
    let mut check = state.clone();
    let out = check.handle_letter(&letter, now, &s);
    assert_eq!(check.games.values().next().unwrap().moves.len(), 3);
    assert!(out.mails.len() >= 2, "a move and a receipt: {:?}", out.log);
    let mut g = c.benchmark_group("core");
    g.bench_function("reply_board/mail_parser", |b| {
        b.iter(|| bare_parse(black_box(MOVE_MAIL)))
    });
    g.bench_function("reply_board/handle_letter", |b| {
        b.iter_batched(
            || state.clone(),
            |mut st| {
                let out = st.handle_letter(black_box(&letter), now, &s);
                (st, out)
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn whole(c: &mut Criterion) {
    let s = settings();
    let (state, now) = running_game(&s);
    let templates = Templates::load(None).expect("built-in templates load");
    let mut g = c.benchmark_group("whole");
    g.bench_function("reply_board/mail_parser", |b| {
        b.iter(|| bare_parse(black_box(MOVE_MAIL)))
    });
    g.bench_function("reply_board/read_decide_render", |b| {
        b.iter_batched(
            || state.clone(),
            |mut st| {
                let letter = read_letter(black_box(MOVE_MAIL)).expect("reads");
                let out = st.handle_letter(&letter, now, &s);
                let bytes: Vec<Vec<u8>> = out
                    .mails
                    .iter()
                    .map(|m| render(m, &templates, &s, now).expect("renders"))
                    .collect();
                (st, bytes)
            },
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

criterion_group!(benches, letter, notation, core, whole);
criterion_main!(benches);
