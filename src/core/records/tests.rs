//! Tests of the records: the game-end PGN (TO §27, §28), the crosstable and the `Status` answer.

use crate::core::testkit::{self, ANNA, BERT, CARL, DORA, TL, at, step};
use chrono::{DateTime, Utc};
use chrono_tz::Europe::Berlin;
use shakmaty::Color;

use crate::core::model::{Event, Facts, GameStatus};
use crate::core::records::crosstable::crosstable;
use crate::core::{Output, State};
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{Content, Letter};
use crate::mail_kind::MailKind;
use crate::render::Templates;
use crate::render::words::crosstable::{points_text, quarters_text};
use crate::rules::RuleSet;

use Color::{Black as B, White as W};

fn state_with(players: &[(&str, &str, Option<Lang>)], games: &[(usize, usize)]) -> State {
    testkit::registered(&testkit::tournament(
        "T-1",
        "Testturnier \"Nord\"",
        RuleSet::Fax,
        players,
        games,
    ))
}

fn duel() -> State {
    state_with(
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, Some(Lang::En)),
        ],
        &[(0, 1)],
    )
}

fn letter(from: &str, game: Option<u32>, moves: &[(u32, Color, &str)], c: Content) -> Letter {
    let content = Content {
        moves: testkit::moves(moves),
        ..c
    };
    Letter {
        subject: "Re: Zug".into(),
        ..testkit::letter(from, game.map(|n| GameRef::new("T-1", n)), content)
    }
}

fn status_request() -> Content {
    Content {
        status_request: true,
        ..Content::default()
    }
}

#[test]
fn s27_game_end_pgn_names_the_tournament() {
    let mut st = duel();
    type Ply<'a> = (&'a str, &'a [(u32, Color, &'a str)], DateTime<Utc>);
    let plies: &[Ply] = &[
        (ANNA, &[(1, W, "f3")], at(2026, 12, 1, 10, 0)),
        (BERT, &[(1, W, "f3"), (1, B, "e5")], at(2026, 12, 2, 11, 30)),
        (ANNA, &[(1, B, "e5"), (2, W, "g4")], at(2026, 12, 4, 9, 15)),
        (
            BERT,
            &[(2, W, "g4"), (2, B, "Qh4#")],
            at(2026, 12, 4, 20, 0),
        ),
    ];
    let mut last = Output::default();
    for (from, moves, now) in plies {
        last = step(
            &mut st,
            &letter(from, Some(1), moves, Content::default()),
            *now,
        );
    }
    let ends: Vec<_> = last
        .mails
        .iter()
        .filter(|m| m.kind == MailKind::GameEnd)
        .collect();
    let to: Vec<&str> = ends.iter().map(|m| m.to[0].email.as_str()).collect();
    assert_eq!(to, vec![ANNA, BERT, TL], "both players and TL");
    let pgn = &ends[2].attachments[0].body;
    assert_eq!(ends[2].attachments[0].filename, "T-1-1.pgn");
    assert_eq!(
        ends[2].attachments[0].content_type,
        "application/vnd.chess-pgn"
    );
    // The Seven Tag Roster first and in order, the tournament named (TO §28).
    let tags: Vec<&str> = pgn.lines().take(7).collect();
    assert_eq!(
        tags,
        vec![
            "[Event \"Testturnier \\\"Nord\\\"\"]",
            "[Site \"Fernschach T-1 (fax)\"]",
            "[Date \"2026.12.01\"]",
            "[Round \"1\"]",
            "[White \"Anna Adler\"]",
            "[Black \"Bert Berger\"]",
            "[Result \"0-1\"]",
        ],
        "{pgn}"
    );
    for want in [
        "[Mode \"EM\"]",
        "[TimeControl \"10/3456000\"]",
        "[PlyCount \"4\"]",
        "[Termination \"normal\"]",
        // Each move: received, sent (the relay's postmark), days used (TO §14), local time.
        "1. f3 {[%ccrt 2026.12.01,00:00] [%ccsnt 2026.12.01,10:00] days 0}",
        "1... e5 {[%ccrt 2026.12.01,10:00] [%ccsnt 2026.12.02,11:30] days 1}",
        "2. g4 {[%ccrt 2026.12.02,11:30] [%ccsnt 2026.12.04,09:15] days 2}",
        "2... Qh4# {[%ccrt 2026.12.04,09:15] [%ccsnt 2026.12.04,20:00] days 0}",
        "{checkmate} 0-1",
    ] {
        let flat = pgn.replace('\n', " ");
        assert!(flat.contains(want), "missing {want:?} in\n{pgn}");
    }
    assert!(pgn.lines().all(|l| l.len() < 80), "{pgn}");
    // The report says how it ended and the time used; the same PGN is in the text.
    let Facts::GameEnd(end) = &ends[0].facts else {
        panic!("a game end: {:?}", ends[0].facts)
    };
    assert_eq!(end.result, "0-1");
    assert_eq!(crate::render::facts(ends[0])["reason"], "Matt");
    assert_eq!(crate::render::facts(ends[1])["reason"], "checkmate");
    assert_eq!(end.record.white.days_used, 2);
    assert_eq!(end.record.black.days_used, 1);
    let t = Templates::load(None).unwrap();
    let (subject, body) = t
        .text(MailKind::GameEnd, Lang::De, &crate::render::facts(ends[0]))
        .unwrap();
    assert!(subject.contains("0-1"), "{subject}");
    assert!(body.contains("Bedenkzeit Weiß:    2 Tage\n"), "{body}");
    assert!(body.contains("Bedenkzeit Schwarz: 1 Tag\n"), "{body}");
    assert!(body.contains("[Event \"Testturnier"), "{body}");
    let game = &st.games[&GameRef::new("T-1", 1)];
    assert_eq!(game.status, GameStatus::Finished);
    // TO §29: the PGN and the report carry the hash of the game's last event, the end.
    let ended = last.events.last().expect("the end is logged");
    assert!(matches!(ended.event, Event::Ended { .. }), "{ended:?}");
    assert_eq!(ended.seal.hash, game.seal);
    assert!(pgn.contains(&format!("[Seal \"{}\"]", game.seal)), "{pgn}");
    assert!(
        body.contains(&format!(
            "Prüfsumme des Partieprotokolls (TO §29; „fernzug verify“ rechnet sie nach):\n{}\n",
            game.seal
        )),
        "{body}"
    );
}

/// TO §29: each event is sealed after the one before it, and with the mail it came from when
/// the shell gave the core the mail as archived (`State::handle_mail`).
#[test]
fn s29_every_event_is_sealed_after_the_one_before_and_with_its_mail() {
    let mut st = duel();
    let s = testkit::settings();
    let raw = b"Message-ID: <f3@test>\r\nSubject: [T-1/1]\r\n\r\n1. f3\r\n";
    let mut l = letter(ANNA, Some(1), &[(1, W, "f3")], Content::default());
    l.message_id = "f3@test".into();
    let now = at(2026, 12, 1, 10, 0);
    let ticked = st.tick(now, &s);
    assert!(ticked.events.iter().all(|e| e.seal.mail.is_none()));
    let out = st.handle_mail(&l, raw, now, &s);
    let game = &st.games[&GameRef::new("T-1", 1)];
    let moved: Vec<_> = out.events.iter().collect();
    assert_eq!(moved.len(), 1, "{moved:?}");
    let e = moved[0];
    assert!(
        matches!(e.event, Event::Moved { .. }),
        "{e:?} {:?}",
        out.log
    );
    assert_eq!(
        e.seal.mail,
        Some(crate::core::model::MailSeal::of("f3@test", raw))
    );
    assert_eq!(e.seal.hash, game.seal);
    assert!(out.letter_games.contains(&GameRef::new("T-1", 1)));
    // The next event (a tick's, no mail) is sealed after it.
    let before = game.seal.clone();
    let l2 = letter(BERT, Some(1), &[(1, B, "e5")], Content::default());
    let out2 = step(&mut st, &l2, at(2026, 12, 2, 10, 0));
    let e2 = out2.events.last().expect("logged");
    assert_eq!(e2.seal.prev, before);
    assert_eq!(e2.seal.mail, None, "handle_letter seals without a mail");
    assert_eq!(e2.seq, e.seq + 1);
}

#[test]
fn s28_pgn_of_a_running_game_is_unterminated() {
    let mut st = duel();
    step(
        &mut st,
        &letter(ANNA, Some(1), &[(1, W, "e4")], Content::default()),
        at(2026, 12, 1, 10, 0),
    );
    let g = &st.games[&GameRef::new("T-1", 1)];
    let pgn = crate::core::pgn::game_pgn(g, &st.tournaments["T-1"], Berlin);
    assert!(pgn.contains("[Result \"*\"]"), "{pgn}");
    assert!(!pgn.contains("Termination"), "{pgn}");
    assert!(pgn.trim_end().ends_with("days 0} *"), "{pgn}");
}

#[test]
fn crosstable_points_and_sonneborn_berger() {
    let mut st = state_with(
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, None),
            ("Carl Cäsar", CARL, None),
            ("Dora Dahl", DORA, None),
        ],
        &[(0, 1), (2, 3), (0, 2), (1, 3), (0, 3), (1, 2)],
    );
    // 1: Anna–Bert 1-0; 2: Carl–Dora 0-1; 3: Anna–Carl ½; 4: Bert–Dora 1-0; 5: Anna–Dora open;
    // 6: Bert–Carl ½.
    for (n, r) in [
        (1, "1-0"),
        (2, "0-1"),
        (3, "1/2-1/2"),
        (4, "1-0"),
        (6, "1/2-1/2"),
    ] {
        let g = st.games.get_mut(&GameRef::new("T-1", n)).unwrap();
        g.status = GameStatus::Finished;
        g.result = Some(r.parse().unwrap());
    }
    // By hand: Anna 1 + ½ = 1½; Bert 0 + 1 + ½ = 1½; Carl 0 + ½ + ½ = 1; Dora 1 + 0 = 1.
    // SB: Anna 1×Bert(1½) + ½×Carl(1) = 2; Bert 1×Dora(1) + ½×Carl(1) = 1½;
    //     Carl ½×Anna(1½) + ½×Bert(1½) = 1½; Dora 1×Carl(1) = 1.
    let t = &st.tournaments["T-1"];
    let table = crosstable(t, st.games.values());
    let got: Vec<(usize, &str, u32, u32, u32)> = table
        .rows
        .iter()
        .map(|r| {
            (
                r.rank,
                r.email.as_str(),
                r.half_points,
                r.sb_quarters,
                r.open,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (1, ANNA, 3, 8, 1),
            (2, BERT, 3, 6, 0),
            (3, CARL, 2, 6, 0),
            (4, DORA, 2, 4, 1),
        ]
    );
    // Cells in ranking order: Anna against Anna, Bert, Carl, Dora.
    assert_eq!(table.rows[0].cells, vec!["×", "1", "½", "*"]);
    assert_eq!(table.rows[3].cells, vec!["*", "0", "1", "×"]);
    assert_eq!(points_text(3), "1½");
    assert_eq!(points_text(1), "½");
    assert_eq!(quarters_text(6, Lang::De), "1,5");
    assert_eq!(quarters_text(9, Lang::En), "2.25");
    assert_eq!(quarters_text(8, Lang::En), "2");
    let text = crate::render::words::crosstable::text(&table, Lang::De);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Pl. Name        1 2 3 4  Pkt.   SB  offen");
    assert_eq!(lines[1], " 1. Anna Adler  × 1 ½ *    1½    2      1");
    assert_eq!(lines[3], " 3. Carl Cäsar  ½ ½ × 0     1  1,5      0");
    // Equal on points and SB share the rank.
    let g = st.games.get_mut(&GameRef::new("T-1", 4)).unwrap();
    g.result = Some("1/2-1/2".parse().unwrap());
    let t = &st.tournaments["T-1"];
    let table = crosstable(t, st.games.values());
    let ranks: Vec<(usize, u32, u32)> = table
        .rows
        .iter()
        .map(|r| (r.rank, r.half_points, r.sb_quarters))
        .collect();
    // Anna 1½ (SB 1×Bert(1) + ½×Carl(1) = 1½), Bert 1 (½×Dora(1½) + ½×Carl(1) = 1¼),
    // Dora 1½ (1×Carl + ½×Bert = 1½), Carl 1 (½×Anna + ½×Bert = 1¼).
    assert_eq!(ranks, vec![(1, 3, 6), (1, 3, 6), (3, 2, 5), (3, 2, 5)]);
}

#[test]
fn status_mail_lists_games_and_clocks() {
    let mut st = duel();
    step(
        &mut st,
        &letter(ANNA, Some(1), &[(1, W, "e4")], Content::default()),
        at(2026, 12, 1, 10, 0),
    );
    let before = st.games.clone();
    // Bert asks without naming a game, two days later.
    let out = step(
        &mut st,
        &letter(BERT, None, &[], status_request()),
        at(2026, 12, 3, 10, 0),
    );
    assert_eq!(st.games, before, "a status request changes no game");
    assert_eq!(out.mails.len(), 1, "{:?}", out.log);
    let m = &out.mails[0];
    assert_eq!(m.kind, MailKind::Status);
    assert_eq!(m.to[0].email, BERT);
    assert_eq!(m.lang, Lang::En);
    assert_eq!(m.game, None);
    let facts = crate::render::facts(m);
    let t = &facts["tournaments"][0];
    let g = &t["games"][0];
    assert_eq!(g["game"], "T-1/1");
    assert_eq!(g["your_move"], true);
    assert_eq!(g["running_days"], 2);
    assert_eq!(g["last_move"], "1. e4");
    assert_eq!(g["clock_you"]["used"], 2);
    assert_eq!(g["clock_you"]["allowed"], 40);
    assert_eq!(g["clock_partner"]["used"], 0);
    assert_eq!(t["table"]["rows"][0]["open"], 1);
    let templates = Templates::load(None).unwrap();
    let (subject, body) = templates
        .text(MailKind::Status, Lang::En, &crate::render::facts(m))
        .unwrap();
    assert_eq!(subject, "Status on 2026-12-03");
    for want in [
        "[T-1/1] Anna Adler – Bert Berger (you: Black): running",
        "  Your move (1...) since 2026-12-01 10:00, 2 days so far\n  last move: 1. e4\n",
        "Your time: 2 of 40 days used, 38 days left\n",
        "Anna Adler: 0 of 40 days used, 40 days left\n",
        "No. Name        1 2  Pts  SB  open\n 1. Anna Adler  × *    0   0     1\n 1. Bert Berger * ×    0   0     1\n",
    ] {
        assert!(body.contains(want), "missing {want:?} in\n{body}");
    }
    // Naming a game threads the answer into it; a move in the same mail is still played.
    let out = step(
        &mut st,
        &letter(
            BERT,
            Some(1),
            &[(1, W, "e4"), (1, B, "e5")],
            status_request(),
        ),
        at(2026, 12, 3, 11, 0),
    );
    let kinds: Vec<MailKind> = out.mails.iter().map(|m| m.kind).collect();
    assert_eq!(
        kinds,
        vec![MailKind::Status, MailKind::Move, MailKind::Receipt]
    );
    assert_eq!(out.mails[0].game, Some(GameRef::new("T-1", 1)));
    assert!(out.mails[0].reply_key.is_some());
    assert!(out.letter_games.contains(&GameRef::new("T-1", 1)));
    // The director gets every game of his tournament.
    let out = step(
        &mut st,
        &letter(TL, None, &[], status_request()),
        at(2026, 12, 3, 12, 0),
    );
    assert_eq!(out.mails.len(), 1);
    let (_, body) = templates
        .text(
            MailKind::Status,
            Lang::De,
            &crate::render::facts(&out.mails[0]),
        )
        .unwrap();
    assert!(body.contains("Turnierleitung"), "{body}");
    assert!(
        body.contains(
            "\n  Weiß (Anna Adler) ist am Zug (2.) seit 03.12.2026 11:00, bisher 0 Tage\n  letzter Zug: 1... e5\n"
        ),
        "{body}"
    );
    // The announcement notice (TO §13) still renders from the same template.
    let (subject, body) = templates
        .text(
            MailKind::Status,
            Lang::De,
            &serde_json::json!({"game": "T-1/1", "announcement": true, "announcer": "Anna", "recipient": "Bert"}),
        )
        .unwrap();
    assert!(subject.contains("Ankündigung"), "{subject}");
    assert!(body.contains("26 Tagen"), "{body}");
}

#[test]
fn fax_2_8_archive_rotates_four_weeks_after_the_last_game_ended() {
    let mut st = duel();
    step(
        &mut st,
        &letter(ANNA, Some(1), &[(1, W, "e4")], Content::default()),
        at(2026, 12, 1, 10, 0),
    );
    let resign = Content {
        resign: true,
        ..Content::default()
    };
    step(
        &mut st,
        &letter(BERT, Some(1), &[], resign),
        at(2026, 12, 2, 10, 0),
    );
    let g = &st.games[&GameRef::new("T-1", 1)];
    assert_eq!(g.ended_at, Some(at(2026, 12, 2, 10, 0)));
    assert!(
        st.rotate_archives(at(2026, 12, 30, 9, 59))
            .rotate
            .is_empty(),
        "27 days"
    );
    let out = st.rotate_archives(at(2026, 12, 30, 10, 0));
    assert_eq!(out.rotate.len(), 1, "28 days after the end");
    assert_eq!(out.rotate[0].0, "T-1");
    assert!(out.tournaments.contains("T-1"), "the mark is stored");
    assert!(
        st.rotate_archives(at(2027, 3, 1, 0, 0)).rotate.is_empty(),
        "once"
    );
}

/// Fax 2.8 with issue 33: who a player is now — where his mail goes, his language — his
/// tournaments not rotated say before those of earlier years; a player of rotated tournaments
/// only is as they say. (So the relay at work, which reads a rotated tournament's record only
/// when an input names it or one of its people, decides as with every record read.)
#[test]
fn fax_2_8_a_player_is_as_his_running_tournaments_say() {
    let mut st = testkit::registered(&testkit::duel(RuleSet::Post));
    let mut old = st.tournaments["T-1"].clone();
    old.id = "A-OLD".into();
    old.rotated = true;
    let bert = old.players.iter_mut().find(|p| p.email == BERT).unwrap();
    bert.lang = Some(Lang::En);
    bert.send_to = Some("bert.alt@example.org".into());
    st.add_tournament(old);
    // The running T-1 first, though the rotated A-OLD sorts before it.
    let ids: Vec<&str> = st.tournaments_with(BERT).map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["T-1", "A-OLD"]);
    let s = testkit::settings();
    // In T-1 Bert set English himself (the duel); without it, the relay's default, not A-OLD's.
    st.tournaments.get_mut("T-1").unwrap().players[1].lang = None;
    st.add_tournament(st.tournaments["T-1"].clone());
    assert_eq!(st.delivery_address(BERT), None);
    assert_eq!(
        crate::core::door::reply::lang_for(&st, BERT, None, &s),
        s.default_lang
    );
    // Once T-1 is rotated too, A-OLD (first in id order) says it.
    let mut t1 = st.tournaments["T-1"].clone();
    t1.rotated = true;
    st.add_tournament(t1);
    assert_eq!(st.delivery_address(BERT), Some("bert.alt@example.org"));
    assert_eq!(
        crate::core::door::reply::lang_for(&st, BERT, None, &s),
        Lang::En
    );
}

/// `mail` rendered as the shell renders it: its text part, and whether it has an HTML part.
fn rendered(mail: &crate::core::model::Mail, now: DateTime<Utc>) -> (String, bool) {
    let templates = Templates::load(None).expect("the built-in templates");
    let raw = crate::render::render(mail, &templates, &testkit::settings(), now).expect("renders");
    let parsed = mail_parser::MessageParser::default()
        .parse(&raw)
        .expect("parses");
    let text = parsed
        .body_text(0)
        .expect("a text part")
        .replace("\r\n", "\n");
    (
        text,
        parsed.html_body_count() > 0 && parsed.html_body != parsed.text_body,
    )
}

/// The mail of `kind` to `to` in `out`.
fn mail_to<'a>(out: &'a Output, kind: MailKind, to: &str) -> &'a crate::core::model::Mail {
    out.mails
        .iter()
        .find(|m| m.kind == kind && m.envelope.iter().any(|e| e == to))
        .unwrap_or_else(|| panic!("no {kind:?} to {to}: {:?}", testkit::kinds(out)))
}

/// Whether a line of `text` is a line of the text diagram: a rank (`8 t s l d k l s t 8`) or
/// the files (`  a b c d e f g h`).
fn diagram_line(text: &str) -> Option<&str> {
    text.lines().find(|l| {
        let cells: Vec<&str> = l.split_whitespace().collect();
        (cells.len() == 10 && cells[0] == cells[9] && cells[1..9].iter().all(|c| c.len() == 1))
            || cells == ["a", "b", "c", "d", "e", "f", "g", "h"]
            || cells == ["h", "g", "f", "e", "d", "c", "b", "a"]
    })
}

#[test]
fn a_player_asks_for_piece_lists_by_mail_and_gets_them_first_whose_move_then_the_lists() {
    let mut st = duel();
    let read = crate::letter::content::read_content;
    // Anna asks: her status answers (it says so), the choice is hers for every game.
    let out = step(
        &mut st,
        &letter(ANNA, None, &[], read("Brett: Liste")),
        at(2026, 11, 30, 18, 0),
    );
    assert_eq!(testkit::kinds(&out), [MailKind::Status]);
    let status = mail_to(&out, MailKind::Status, ANNA);
    assert!(
        matches!(&status.facts, Facts::Status(f) if f.board_chosen == Some(crate::lang::Board::List))
    );
    let (text, _) = rendered(status, at(2026, 11, 30, 18, 0));
    assert!(text.contains("als Liste der Figuren"), "{text}");
    assert_eq!(st.meta.boards[ANNA], crate::lang::Board::List);

    // Her receipt: the lead first (whose move, the last move), then the lists where the
    // diagram stood, no diagram, no HTML board; Bert, who asked nothing, keeps both.
    let out = step(
        &mut st,
        &letter(ANNA, Some(1), &[(1, W, "e4")], Content::default()),
        at(2026, 12, 1, 10, 0),
    );
    let receipt = mail_to(&out, MailKind::Receipt, ANNA);
    assert_eq!(receipt.board, crate::lang::Board::List);
    let (text, html) = rendered(receipt, at(2026, 12, 1, 10, 0));
    assert!(!html, "no HTML board for a reader of piece lists");
    assert_eq!(diagram_line(&text), None, "{text}");
    let lead = text
        .find("Bert Berger ist am Zug (Schwarz). Letzter Zug: 1. e4.")
        .unwrap_or_else(|| panic!("{text}"));
    let white = text
        .find("\n  Weiß: Ke1, Dd1, Ta1, Th1, Lc1, Lf1, Sb1, Sg1, a2, b2, c2, d2, e4, f2, g2, h2.\n")
        .unwrap_or_else(|| panic!("{text}"));
    let black = text
        .find("\n  Schwarz: Ke8, Dd8, Ta8, Th8, Lc8, Lf8, Sb8, Sg8, a7, b7, c7, d7, e7, f7, g7, h7.\n")
        .unwrap_or_else(|| panic!("{text}"));
    let turn = text
        .find("\n  Schwarz am Zug.\n")
        .unwrap_or_else(|| panic!("{text}"));
    assert!(lead < text.find("Guten Tag").unwrap(), "{text}");
    assert!(lead < white && white < black && black < turn, "{text}");
    let to_bert = mail_to(&out, MailKind::Move, BERT);
    assert_eq!(to_bert.board, crate::lang::Board::Diagram);
    let (text, html) = rendered(to_bert, at(2026, 12, 1, 10, 0));
    assert!(html && diagram_line(&text).is_some(), "{text}");
    assert!(!text.contains("White: Ke1"), "{text}");

    // Check is said in words, in the reader's language.
    let out = step(
        &mut st,
        &letter(
            BERT,
            Some(1),
            &[(1, W, "e4"), (1, B, "f5")],
            Content::default(),
        ),
        at(2026, 12, 2, 10, 0),
    );
    assert_eq!(
        mail_to(&out, MailKind::Move, ANNA).board,
        crate::lang::Board::List
    );
    step(
        &mut st,
        &letter(
            ANNA,
            Some(1),
            &[(1, B, "f5"), (2, W, "Dh5+")],
            Content::default(),
        ),
        at(2026, 12, 3, 10, 0),
    );
    let read_en = crate::letter::content::read_content("board: list");
    step(
        &mut st,
        &letter(BERT, None, &[], read_en),
        at(2026, 12, 3, 11, 0),
    );
    let out = step(
        &mut st,
        &letter(
            BERT,
            Some(1),
            &[(2, W, "Qh5+"), (2, B, "g6")],
            Content::default(),
        ),
        at(2026, 12, 4, 10, 0),
    );
    let receipt = mail_to(&out, MailKind::Receipt, BERT);
    let (text, html) = rendered(receipt, at(2026, 12, 4, 10, 0));
    assert!(!html, "{text}");
    assert!(
        text.starts_with("Anna Adler is to move (White). Last move: 2... g6.\n\nDear Bert Berger,"),
        "{text}"
    );
    assert!(
        text.contains("\n  White: Ke1, Qh5, Ra1, Rh1, Bc1, Bf1, Nb1, Ng1,"),
        "{text}"
    );
    // Anna's mail after her partner's move: her move; and after a check, she hears "Schach".
    let to_anna = mail_to(&out, MailKind::Move, ANNA);
    let (text, _) = rendered(to_anna, at(2026, 12, 4, 10, 0));
    assert!(
        text.starts_with("Sie sind am Zug. Letzter Zug: 2... g6.\n\nGuten Tag Anna Adler,"),
        "{text}"
    );
    let out = step(
        &mut st,
        &letter(
            ANNA,
            Some(1),
            &[(2, B, "g6"), (3, W, "Dxg6+")],
            Content::default(),
        ),
        at(2026, 12, 5, 10, 0),
    );
    let (text, _) = rendered(mail_to(&out, MailKind::Move, BERT), at(2026, 12, 5, 10, 0));
    assert!(
        text.starts_with("It is your move. Last move: 3. Qxg6, check.\n"),
        "{text}"
    );

    // `Brett: Diagramm` brings the diagram and the board back.
    step(
        &mut st,
        &letter(ANNA, None, &[], read("Brett: Diagramm")),
        at(2026, 12, 5, 11, 0),
    );
    let out = step(
        &mut st,
        &letter(
            BERT,
            Some(1),
            &[(3, W, "Qxg6+"), (3, B, "hxg6")],
            Content::default(),
        ),
        at(2026, 12, 6, 10, 0),
    );
    let to_anna = mail_to(&out, MailKind::Move, ANNA);
    assert_eq!(to_anna.board, crate::lang::Board::Diagram);
    let (text, html) = rendered(to_anna, at(2026, 12, 6, 10, 0));
    assert!(html && diagram_line(&text).is_some(), "{text}");
    assert!(
        !text.contains("Weiß: Ke1") && !text.contains("Letzter Zug:"),
        "{text}"
    );
}

#[test]
fn a_board_in_the_tournament_file_holds_in_every_game_until_the_player_writes_otherwise() {
    use crate::lang::Board;
    let mut file = testkit::tournament(
        "T-1",
        "Testturnier",
        RuleSet::Fax,
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, Some(Lang::En)),
        ],
        &[(0, 1)],
    );
    file.players[1].board = Some(Board::List);
    let mut st = State::default();
    let mut n = 0;
    let out = st
        .register(
            &file,
            at(2026, 11, 30, 12, 0),
            &testkit::settings(),
            &mut || {
                n += 1;
                format!("key{n}")
            },
        )
        .expect("registers");
    assert_eq!(st.tournaments["T-1"].players[1].board, Some(Board::List));
    let start = mail_to(&out, MailKind::Start, BERT);
    assert_eq!(start.board, Board::List);
    let (text, html) = rendered(start, at(2026, 11, 30, 12, 0));
    assert!(!html, "{text}");
    assert!(
        text.contains("A line\n\"board: diagram\" brings the diagram back."),
        "{text}"
    );
    let start = mail_to(&out, MailKind::Start, ANNA);
    assert_eq!(start.board, Board::Diagram);
    let (text, html) = rendered(start, at(2026, 11, 30, 12, 0));
    assert!(html && text.contains("„Brett: Liste“"), "{text}");
    // A tournament whose file says nothing for him: as another running one of his says.
    let mut other = testkit::tournament(
        "T-2",
        "Pokal",
        RuleSet::Post,
        &[("Bert Berger", BERT, None), ("Anna Adler", ANNA, None)],
        &[(0, 1)],
    );
    testkit::register(&mut st, &other);
    let g2 = GameRef::new("T-2", 1);
    assert_eq!(
        crate::core::door::reply::board_for(&st, BERT, Some(&g2)),
        Board::List
    );
    // Said there, it holds there.
    other.id = "T-3".into();
    other.players[0].board = Some(Board::Diagram);
    testkit::register(&mut st, &other);
    let g3 = GameRef::new("T-3", 1);
    assert_eq!(
        crate::core::door::reply::board_for(&st, BERT, Some(&g3)),
        Board::Diagram
    );
    // His word by mail goes before every file.
    let read = crate::letter::content::read_content("board: diagram");
    step(
        &mut st,
        &letter(BERT, None, &[], read),
        at(2026, 11, 30, 13, 0),
    );
    let out = step(
        &mut st,
        &letter(ANNA, Some(1), &[(1, W, "e4")], Content::default()),
        at(2026, 12, 1, 10, 0),
    );
    assert_eq!(mail_to(&out, MailKind::Move, BERT).board, Board::Diagram);
    assert_eq!(
        crate::core::door::reply::board_for(&st, BERT, Some(&g2)),
        Board::Diagram
    );
}

#[test]
fn s29_the_receipt_of_a_move_names_the_seal_its_step_left() {
    let mut st = duel();
    let s = testkit::settings();
    let g = GameRef::new("T-1", 1);
    let plies = [
        (ANNA, &[(1, W, "f3")][..]),
        (BERT, &[(1, W, "f3"), (1, B, "e5")]),
        (ANNA, &[(1, B, "e5"), (2, W, "g4")]),
        (BERT, &[(2, W, "g4"), (2, B, "Qh4#")]),
    ];
    for (i, (from, moves)) in plies.into_iter().enumerate() {
        let id = format!("m{i}@test");
        let raw = format!("Message-ID: <{id}>\r\nSubject: [T-1/1]\r\n\r\n{i}\r\n");
        let mut l = letter(from, Some(1), moves, Content::default());
        l.message_id = id;
        let now = at(2026, 12, 1 + i as u32, 10, 0);
        st.tick(now, &s);
        let out = st.handle_mail(&l, raw.as_bytes(), now, &s);
        let game = &st.games[&g];
        // The last event the step sealed — the mate's end too — is the receipt's seal.
        let last = out.events.last().expect("sealed events");
        assert_eq!(last.seal.hash, game.seal);
        let receipt = mail_to(&out, MailKind::Receipt, from);
        let Facts::Forward(f) = &receipt.facts else {
            panic!("a move's receipt: {:?}", receipt.facts)
        };
        assert_eq!(f.seal.as_deref(), Some(game.seal.as_str()), "ply {i}");
        let (text, _) = rendered(receipt, now);
        assert!(text.contains(&format!("\n  {}\n", game.seal)), "{text}");
        let forward = out.mails.iter().find(|m| m.kind == MailKind::Move);
        if let Some(Facts::Forward(f)) = forward.map(|m| &m.facts) {
            assert_eq!(f.seal, None, "the move to the partner names none");
        }
    }
    assert_eq!(
        st.games[&g].status,
        GameStatus::Finished,
        "the mate ended the game in the step of the last receipt"
    );
}
