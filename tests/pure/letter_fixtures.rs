//! Snapshot test of the letter reader and of what the core makes of each letter.
//!
//! Every `tests/fixtures/mail/NAME.eml` is read with `fernzug::letter::read_letter` and compared
//! with `NAME.expected.json`: the whole `Letter` (`text` included) plus an `outcome` — what the core
//! does with the letter in a small game set up for it: `{"played": "Nc6"}` (with the receipt's
//! §3/§15 notes and the offer/announcement flags when there are any), `{"query": "<the exact text
//! of the query>"}`, `{"ended": "1-0 (resignation)"}`, `{"announced": true}` or
//! `{"ignored": "<log line>"}`; `words` beside `played` is what the partner reads with the move,
//! `{"message": "<words>"}` the words forwarded alone (TO §30).
//!
//! The game is described by `X-Test-*` headers of the fixture (ignored by the reader):
//!
//! - `X-Test-Position: 1. e4 e5 2. Nf3` — the moves already played, English SAN (may be folded
//!   over several header lines); `none` runs no game at all (`"outcome": null`, e.g. for a
//!   director's mail). Without it the game is at its start.
//! - `X-Test-Game: FAX-2026-3/7` — the game, when the mail names none itself (subject tag or reply
//!   key; the sender's reply key is the mail's first `relay+KEY@` address).
//! - `X-Test-Sender: white|black|stranger` — who the sender is (default: the side to move).
//! - `X-Test-Lang: de|en` — the sender's language (default `de`).
//! - `X-Test-Form: san-german|san-english|long-german|long-english|iccf|uci` — the notation the
//!   sender used for his moves so far (TO §3); default: none yet.
//! - `X-Test-Draw-Offer: yes` — the partner offered a draw with his last move.
//!
//! The setup moves are played through `State::handle_letter` like real letters, one hour apart,
//! ending a day before the fixture's `Date:` (or 2026-11-30 10:00 UTC), at which the fixture counts
//! as received. Run with `UPDATE_SNAPSHOTS=1` to rewrite the expectations — then check every
//! changed file by hand before keeping it.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use chrono::{DateTime, Duration, TimeZone, Utc};
use fernzug::core::model::{Facts, NewPlayer, NewTournament, Pairing, Person};
use fernzug::core::{Settings, State};
use fernzug::game_ref::GameRef;
use fernzug::lang::Lang;
use fernzug::letter::{Content, Letter, MoveToken, read_letter};
use fernzug::mail_kind::MailKind;
use fernzug::notation::Form;
use fernzug::rules::RuleSet;
use serde_json::{Value, json};
use shakmaty::Color;

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mail")
}

fn fixtures() -> Vec<PathBuf> {
    let mut emls: Vec<PathBuf> = fs::read_dir(fixture_dir())
        .expect("fixture folder tests/fixtures/mail exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "eml"))
        .collect();
    emls.sort();
    emls
}

fn name_of(eml: &Path) -> String {
    eml.file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("?")
        .to_string()
}

/// The `X-Test-*` headers of a raw mail, lower-cased names, unfolded values.
pub(crate) fn test_headers(raw: &[u8]) -> BTreeMap<String, String> {
    let text = String::from_utf8_lossy(raw);
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            if let Some(last) = fields.last_mut() {
                last.1.push(' ');
                last.1.push_str(line.trim());
            }
            continue;
        }
        if let Some((k, v)) = line.split_once(':') {
            fields.push((k.trim().to_lowercase(), v.trim().to_string()));
        }
    }
    fields
        .into_iter()
        .filter(|(k, _)| k.starts_with("x-test-"))
        .collect()
}

pub(crate) fn settings() -> Settings {
    Settings {
        relay_address: "relay@fernschach.test".into(),
        relay_name: "Fernschach-Relais".into(),
        tz: chrono_tz::Europe::Berlin,
        default_lang: Lang::De,
        instance: "fixture".into(),
        digest_day: None,
        public_url: None,
        warn_days: 0,
        guard: Default::default(),
    }
}

const PARTNER: &str = "partner@fernschach.test";
const DIRECTOR: &str = "tl@fernschach.test";

/// A letter as the reader would give it, for the setup moves.
fn setup_letter(
    from: &str,
    game: &GameRef,
    n: usize,
    moves: Vec<MoveToken>,
    offer: bool,
) -> Letter {
    Letter {
        message_id: format!("setup-{n}@fixture"),
        from: from.to_string(),
        from_name: None,
        subject: format!("[{game}]"),
        game_ref: Some(game.clone()),
        reply_keys: Vec::new(),
        references: Vec::new(),
        automatic: None,
        date_header: None,
        text: String::new(),
        attachments: Vec::new(),
        trace: Default::default(),
        dsn: None,
        content: Content {
            moves,
            draw_offer: offer,
            ..Content::default()
        },
    }
}

fn color_of_ply(ply: usize) -> Color {
    if ply.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

fn token(ply: usize, san: &str) -> MoveToken {
    MoveToken {
        number: (ply / 2 + 1) as u32,
        color: color_of_ply(ply),
        text: san.to_string(),
    }
}

/// How many letters reached a single game (`core::needs` named games, not whole tournaments).
static SINGLE_GAME: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many letters needed the record of the rotated tournament away beside the fixture's.
static BROUGHT_ROTATED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The state a relay that holds records lazily has when it asks the core about `letter` at
/// `now`: no game and no reply key in memory at first, nor the records of the tournaments in
/// `away` (rotated ones); then what [`fernzug::core::needs::needs`] names, brought in from
/// `state` (the store, here) part by part in its order, asking again after each, as the
/// relay's working set does (`src/app/working/mod.rs`) — until it names nothing new.
fn lazy_as_the_relay_holds_it(
    state: &State,
    letter: &Letter,
    now: chrono::DateTime<chrono::Utc>,
    away: &BTreeSet<String>,
) -> State {
    use fernzug::core::needs::{Input, needs};
    let mut lazy = State::default();
    for t in state.tournaments.values().filter(|t| !away.contains(&t.id)) {
        lazy.add_tournament(t.clone());
    }
    lazy.meta = state.meta.clone();
    let counting = away.is_empty();
    let mut away = away.clone();
    let mut asked: BTreeSet<String> = BTreeSet::new();
    let bring = |lazy: &mut State, away: &mut BTreeSet<String>, ids: Vec<String>| {
        for id in ids {
            if away.remove(&id) {
                lazy.add_tournament(state.tournaments[&id].clone());
            }
        }
    };
    let with_keys = |lazy: &mut State, wanted: &dyn Fn(&GameRef) -> bool| {
        for (g, game) in state.games.iter().filter(|(g, _)| wanted(g)) {
            if !lazy.games.contains_key(g) {
                lazy.games.insert(g.clone(), game.clone());
                for (k, b) in state.keys.iter().filter(|(_, b)| b.game == *g) {
                    lazy.keys.insert(k.clone(), b.clone());
                }
            }
        }
    };
    loop {
        let n = needs(&lazy, Input::Letter(letter, now));
        // 1. the bindings of the letter's reply keys.
        let keys: Vec<String> = n
            .keys
            .iter()
            .filter(|k| asked.insert(format!("key {k}")))
            .cloned()
            .collect();
        if !keys.is_empty() {
            for k in keys {
                if let Some(b) = state.keys.get(&k) {
                    lazy.keys.insert(k, b.clone());
                }
            }
            continue;
        }
        // 2. the records of the away tournaments it names.
        let mut ids: Vec<String> = Vec::new();
        if n.all_records {
            ids.extend(away.iter().cloned());
        }
        ids.extend(n.records.iter().cloned());
        let mut people: Vec<String> = n.people.iter().cloned().collect();
        for text in &n.named_in {
            for w in fernzug::core::id_words(text) {
                ids.extend(away.iter().filter(|a| a.eq_ignore_ascii_case(w)).cloned());
            }
            people.extend(fernzug::letter::content::addresses_in(text));
        }
        for p in &people {
            ids.extend(
                state
                    .tournaments_with(p)
                    .filter(|t| away.contains(&t.id))
                    .map(|t| t.id.clone()),
            );
        }
        ids.retain(|id| away.contains(id));
        if !ids.is_empty() {
            BROUGHT_ROTATED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            bring(&mut lazy, &mut away, ids);
            continue;
        }
        // 3. the games: whole tournaments, single games.
        let before = lazy.games.len();
        with_keys(&mut lazy, &|g| {
            n.games.contains(g) || n.tournaments.contains(&g.tournament)
        });
        if lazy.games.len() > before {
            continue;
        }
        if counting && !n.games.is_empty() {
            SINGLE_GAME.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        return lazy;
    }
}

/// A finished tournament of the fixture's two players and director, rotated (Fax 2.8) beside
/// the fixture's: a relay at work holds its record only when an input needs it.
fn with_a_rotated_tournament(
    state: &State,
    game: &GameRef,
    s: &Settings,
) -> (State, BTreeSet<String>) {
    let mut full = state.clone();
    let g = &state.games[game];
    let t = &state.tournaments[&game.tournament];
    let player = |email: &str| NewPlayer {
        name: t.player(email).map(|p| p.name.clone()).unwrap_or_default(),
        email: email.to_string(),
        language: t.player(email).and_then(|p| p.lang),
        also: Vec::new(),
        board: None,
    };
    let id = "ALT-2025".to_string();
    let file = NewTournament {
        id: id.clone(),
        name: "Earlier".into(),
        rules: RuleSet::Fax,
        start: Utc
            .with_ymd_and_hms(2025, 1, 6, 0, 0, 0)
            .unwrap()
            .date_naive(),
        director: t.director.clone(),
        players: vec![player(&g.players.white), player(&g.players.black)],
        pairings: vec![Pairing {
            number: 1,
            round: 1,
            white: 1,
            black: 0,
        }],
        digest: false,
    };
    let mut n = 0;
    let registered = Utc.with_ymd_and_hms(2025, 1, 6, 10, 0, 0).unwrap();
    full.register(&file, registered, s, &mut || {
        n += 1;
        format!("altkey{n}")
    })
    .expect("the earlier tournament registers");
    // Its games are on the shelf: a relay holding every record has them in memory only while
    // an input about one of them is decided (the shelved game's reply keys stay findable).
    full.games.remove(&GameRef::new(&id, 1));
    if let Some(mut t) = full.tournaments.get(&id).cloned() {
        t.rotated = true;
        t.rotated_at = Some(registered + Duration::days(200));
        full.add_tournament(t);
    }
    (full, BTreeSet::from([id]))
}

pub(crate) fn outcome(letter: &Letter, raw: &[u8], name: &str) -> Value {
    let h = test_headers(raw);
    let position = h.get("x-test-position").map(String::as_str).unwrap_or("");
    if position.eq_ignore_ascii_case("none") {
        return Value::Null;
    }
    let plies: Vec<String> = position
        .split_whitespace()
        .map(|t| t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.'))
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    let game: GameRef = match h.get("x-test-game") {
        Some(g) => g.parse().expect("X-Test-Game is TOURNAMENT/N"),
        None => letter
            .game_ref
            .clone()
            .unwrap_or_else(|| panic!("{name}: the mail names no game; add X-Test-Game")),
    };
    let to_move = color_of_ply(plies.len());
    let sender = h.get("x-test-sender").map(String::as_str).unwrap_or("");
    let (sender_color, stranger) = match sender {
        "white" => (Color::White, false),
        "black" => (Color::Black, false),
        "stranger" => (to_move, true),
        "" => (to_move, false),
        other => panic!("{name}: X-Test-Sender {other}"),
    };
    let lang = match h.get("x-test-lang").map(String::as_str) {
        Some("en") => Lang::En,
        _ => Lang::De,
    };
    let sender_email = if stranger {
        "somebody.else@fernschach.test".to_string()
    } else {
        letter.from.clone()
    };
    let player = |email: &str, language: Option<Lang>| NewPlayer {
        name: email.split('@').next().unwrap_or(email).to_string(),
        email: email.to_string(),
        language,
        also: Vec::new(),
        board: None,
    };
    let players = match sender_color {
        Color::White => vec![player(&sender_email, Some(lang)), player(PARTNER, None)],
        Color::Black => vec![player(PARTNER, None), player(&sender_email, Some(lang))],
    };
    let s = settings();
    let received: DateTime<Utc> = letter
        .date_header
        .map(|d| d.with_timezone(&Utc))
        .unwrap_or_else(|| Utc.with_ymd_and_hms(2026, 11, 30, 10, 0, 0).unwrap());
    let setup_end = received - Duration::days(1);
    let registered = setup_end - Duration::hours(plies.len() as i64 + 1);
    let file = NewTournament {
        id: game.tournament.clone(),
        name: "Fixture".into(),
        rules: RuleSet::Fax,
        start: registered.date_naive(),
        director: Person {
            name: "Tom Leiter".into(),
            email: DIRECTOR.into(),
        },
        players,
        pairings: vec![Pairing {
            number: game.number,
            round: 1,
            white: 0,
            black: 1,
        }],
        digest: false,
    };
    // The sender's reply key is the mail's first; the partner's is another.
    let own_key = letter
        .reply_keys
        .first()
        .cloned()
        .unwrap_or_else(|| "ownkey".into());
    // Then the director's key of the game and the players' keys of replies to decisions.
    let mut keys = match sender_color {
        Color::White => vec![own_key, "partnerkey".to_string()],
        Color::Black => vec!["partnerkey".to_string(), own_key],
    }
    .into_iter()
    .chain(["directorkey", "decisions-white", "decisions-black"].map(String::from));
    let mut state = State::default();
    state
        .register(&file, registered, &s, &mut || {
            keys.next().unwrap_or_default()
        })
        .expect("the fixture's tournament registers");
    // The setup moves, read in English letters.
    if let Some(g) = state.games.get_mut(&game) {
        g.forms.white = Some(Form::SanEnglish);
        g.forms.black = Some(Form::SanEnglish);
    }
    let offer = h.get("x-test-draw-offer").is_some_and(|v| v == "yes");
    for (ply, san) in plies.iter().enumerate() {
        let mover = state.games[&game].players.get(color_of_ply(ply)).clone();
        let mut moves = Vec::new();
        if ply > 0 {
            moves.push(token(ply - 1, &plies[ply - 1]));
        }
        moves.push(token(ply, san));
        let last = ply + 1 == plies.len();
        let l = setup_letter(&mover, &game, ply, moves, offer && last);
        let at = registered + Duration::hours(ply as i64 + 1);
        state.handle_letter(&l, at, &s);
        assert_eq!(
            state.games[&game].moves.len(),
            ply + 1,
            "{name}: setup move {} {san} was not played",
            ply + 1
        );
    }
    let form = h.get("x-test-form").map(|f| {
        serde_json::from_value::<Form>(json!(f))
            .unwrap_or_else(|_| panic!("{name}: X-Test-Form {f}"))
    });
    if let Some(g) = state.games.get_mut(&game) {
        g.forms.white = None;
        g.forms.black = None;
        *g.forms.get_mut(sender_color) = form;
    }
    let plies_before = state.games[&game].moves.len();
    // What the core says a letter needs (`core::needs`) is all a relay holding records lazily
    // brings in: the core decides the same with only that at hand — and so it does when a
    // rotated tournament of the same people is away.
    let (mut full, away) = with_a_rotated_tournament(&state, &game, &s);
    let mut lazy_full = lazy_as_the_relay_holds_it(&full, letter, received, &away);
    let full_out = full.handle_letter(letter, received, &s);
    let lazy_full_out = lazy_full.handle_letter(letter, received, &s);
    assert_eq!(
        lazy_full_out, full_out,
        "{name}: with a rotated tournament away, the core decides otherwise with only what \
         core::needs names at hand"
    );
    let mut lazy_state = lazy_as_the_relay_holds_it(&state, letter, received, &BTreeSet::new());
    let out = state.handle_letter(letter, received, &s);
    let lazy_out = lazy_state.handle_letter(letter, received, &s);
    assert_eq!(
        lazy_out, out,
        "{name}: the core decides otherwise with only what core::needs names at hand"
    );
    for (g, held) in &lazy_state.games {
        assert_eq!(Some(held), state.games.get(g), "{name}: game {g}");
    }
    let mail = |kind: MailKind| out.mails.iter().find(|m| m.kind == kind);
    if let Some(q) = mail(MailKind::Query) {
        return json!({ "query": fernzug::render::facts(q)["reason"] });
    }
    let g = &state.games[&game];
    let mut o = serde_json::Map::new();
    if g.moves.len() > plies_before
        && let Some(mv) = g.moves.last()
    {
        o.insert("played".into(), json!(mv.san));
        // The receipt of the move (a leave in the same mail has a receipt of its own).
        if let Some((r, f)) = out.mails.iter().find_map(|m| match &m.facts {
            Facts::Forward(f) if m.kind == MailKind::Receipt && f.mv.is_some() => Some((m, f)),
            _ => None,
        }) {
            if fernzug::render::facts(r)["notes"]
                .as_array()
                .is_some_and(|n| !n.is_empty())
            {
                o.insert("notes".into(), fernzug::render::facts(r)["notes"].clone());
            }
            for (flag, set) in [
                ("draw_offer", f.draw_offer),
                ("announcement", f.announcement),
            ] {
                if set {
                    o.insert(flag.into(), json!(true));
                }
            }
        }
        // TO §30: the words the partner reads beside the move.
        if let Some(words) = out.mails.iter().find_map(|m| match &m.facts {
            Facts::Forward(f) if m.kind == MailKind::Move => f.words.clone(),
            _ => None,
        }) {
            o.insert("words".into(), json!(words));
        }
    }
    // TO §30: words alone, forwarded as a `message`.
    if let Some(Facts::Message(m)) = mail(MailKind::Message).map(|m| &m.facts) {
        o.insert("message".into(), json!(m.message.words));
    }
    if mail(MailKind::GameEnd).is_some() {
        o.insert(
            "ended".into(),
            json!(format!(
                "{} ({})",
                g.result.map(|r| r.to_string()).unwrap_or_default(),
                g.end_reason.map(|r| r.to_string()).unwrap_or_default()
            )),
        );
    }
    // A `status` mail is either the §13 announcement to the partner or the answer to `Status`.
    if let Some(st) = mail(MailKind::Status) {
        if matches!(st.facts, Facts::Announcement(_)) {
            o.insert("announced".into(), json!(true));
        } else {
            o.insert("status".into(), json!(true));
        }
    }
    if out.mails.iter().any(|m| m.kind == MailKind::Leave) {
        o.insert("leave".into(), json!(true));
    }
    if o.is_empty() {
        o.insert(
            "ignored".into(),
            json!(out.log.first().cloned().unwrap_or_default()),
        );
    }
    Value::Object(o)
}

/// The reading and the outcome of one fixture, as stored in its `.expected.json`.
fn reading(eml: &Path) -> Value {
    let name = name_of(eml);
    let raw = fs::read(eml).expect("fixture is readable");
    match read_letter(&raw) {
        Ok(letter) => {
            let mut v = serde_json::to_value(&letter).expect("a Letter serialises");
            let o = outcome(&letter, &raw, &name);
            v["outcome"] = o;
            v
        }
        Err(e) => json!({ "error": e.to_string() }),
    }
}

#[test]
fn mail_fixtures_read_as_expected() {
    let update = std::env::var("UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1");
    let emls = fixtures();
    let mut failures = Vec::new();
    for eml in &emls {
        let name = name_of(eml);
        let got = reading(eml);
        let expected_path = eml.with_file_name(format!("{name}.expected.json"));
        if update {
            let pretty = serde_json::to_string_pretty(&got).expect("json prints") + "\n";
            fs::write(&expected_path, pretty).expect("expectation is writable");
            continue;
        }
        let Ok(text) = fs::read_to_string(&expected_path) else {
            failures.push(format!(
                "{name}: no {name}.expected.json (run with UPDATE_SNAPSHOTS=1)"
            ));
            continue;
        };
        let want: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                failures.push(format!("{name}: {name}.expected.json is not JSON: {e}"));
                continue;
            }
        };
        if got != want {
            failures.push(format!(
                "{name}: reading differs\n--- expected\n{}\n--- got\n{}",
                serde_json::to_string_pretty(&want).unwrap_or_default(),
                serde_json::to_string_pretty(&got).unwrap_or_default()
            ));
        }
    }
    assert!(
        emls.len() >= 80,
        "expected at least 80 fixtures, found {}",
        emls.len()
    );
    // Many are a player's letter about one game: the core decides them with that game alone
    // at hand as with all (`outcome` compares the two).
    let single = SINGLE_GAME.load(std::sync::atomic::Ordering::SeqCst);
    println!("{single} fixture letters reached a single game");
    // Every letter of a player names him: the rotated tournament he played in is read for it.
    let rotated = BROUGHT_ROTATED.load(std::sync::atomic::Ordering::SeqCst);
    println!("{rotated} fixture letters brought in a rotated tournament's record");
    assert!(
        rotated >= 50,
        "only {rotated} fixture letters brought in a rotated tournament's record"
    );
    assert!(
        single >= 50,
        "only {single} fixture letters reached a single game"
    );
    assert!(
        failures.is_empty(),
        "{} fixture(s) differ:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The corpus in figures: how many fixtures are played as moves and how many are queried.
/// `cargo test --test pure letter_fixtures::corpus_figures -- --nocapture` prints them.
#[test]
fn corpus_figures() {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for eml in fixtures() {
        let v = reading(&eml);
        let kind = match &v["outcome"] {
            Value::Object(o) if o.contains_key("played") => "played",
            Value::Object(o) if o.contains_key("query") => "query",
            Value::Object(o) if o.contains_key("ended") => "ended",
            Value::Object(o) if o.contains_key("announced") => "announced",
            Value::Object(o) if o.contains_key("message") => "message",
            Value::Object(o) if o.contains_key("ignored") => "ignored",
            _ if v.get("error").is_some() => "unreadable",
            _ => "no game",
        };
        *counts.entry(kind).or_default() += 1;
    }
    println!("corpus: {counts:?}");
    assert!(
        counts.get("played").copied().unwrap_or(0) >= 40,
        "{counts:?}"
    );
    assert!(
        counts.get("query").copied().unwrap_or(0) >= 15,
        "{counts:?}"
    );
}

fn outcome_of(stem: &str) -> Value {
    let eml = fixture_dir().join(format!("{stem}.eml"));
    reading(&eml)["outcome"].clone()
}

/// The rules the corpus was written for, checked by name (besides the snapshots): TO §2 (earlier
/// moves as context, enclosed moves), §3 (notation memory and its note), §8 (what a query says).
#[test]
fn s2_s3_s8_rules_on_the_corpus() {
    let played = |stem: &str, san: &str| {
        let o = outcome_of(stem);
        assert_eq!(o["played"], json!(san), "{stem}: {o}");
        o
    };
    let query = |stem: &str, parts: &[&str]| {
        let o = outcome_of(stem);
        let text = o["query"].as_str().unwrap_or_else(|| panic!("{stem}: {o}"));
        for p in parts {
            assert!(text.contains(p), "{stem}: {text:?} lacks {p:?}");
        }
    };
    // §2: a copied table of earlier moves is context when it agrees with the game.
    played("14_tab_table", "Qf3");
    played("15_iccf_numeric", "O-O");
    played("46_html_table_of_moves", "Nd5");
    // §2: moves the sender encloses: a PGN, his own mail forwarded inline or as attachment.
    played("48_pgn_attachment", "Nd5");
    played("49_forwarded_own_move", "Nxd5");
    played("94_forwarded_as_attachment", "Qh5");
    // §3: a switch of notation is played and noted; the same form again is not noted.
    let o = played("65_s3_switch_to_english", "Be6");
    assert!(
        o["notes"].to_string().contains("TO §3"),
        "65_s3_switch_to_english: {o}"
    );
    let o = played("66_s3_iccf_again", "d5");
    assert!(o.get("notes").is_none(), "66_s3_iccf_again: {o}");
    // §3: B is the bishop, whoever writes it: German notation gives pawns no letter.
    played("67_english_writer_b_is_bishop", "Bc4");
    played("71_bc4_is_the_bishop", "Bc4");
    // §8: the query names every reading, both own moves, the missing repetition.
    query("73_query_stray_digit", &["Sf36", "Sf6"]);
    query("74_query_two_own_moves", &["13... h6", "13... a6"]);
    query("75_query_repetition_missing", &["13... h6"]);
    query("80_query_which_knight", &["c5", "f6"]);
}
