//! Table tests of TO §2/§4 (offers, acceptances, resignations in words), §6/§7 (conditional
//! moves) and §31 (FIDE endings, the repetition claim, the 50-move stop). Mails are written as
//! text and read by the real letter reader, so the words a player writes are tested too.

use crate::core::testkit::{self, ANNA, BERT, TL, at, game, kinds, reason, settings, step};
use chrono::{DateTime, Duration, Utc};
use chrono_tz::Europe::Berlin;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color};

use crate::core::model::GameStatus;
use crate::core::model::{AdjudicationFacts, Facts, ForwardFacts, Mail};
use crate::core::play::endings::{self, Ending};
use crate::core::{Output, State};
use crate::lang::Lang;
use crate::letter::Letter;
use crate::letter::content::read_content;
use crate::mail_kind::MailKind;
use crate::rules::RuleSet;

/// Anna (White, German) against Bert (Black, English), starting 2026-12-01.
fn new_state(rules: RuleSet) -> State {
    testkit::registered(&testkit::duel(rules))
}

/// A mail from `from` about game T-1/1 with `text`, read by the real reader.
fn letter(from: &str, text: &str) -> Letter {
    Letter {
        text: text.into(),
        ..testkit::letter(from, Some(game()), read_content(text))
    }
}

fn send(st: &mut State, from: &str, text: &str, now: DateTime<Utc>) -> Output {
    step(st, &letter(from, text), now)
}

fn mail(out: &Output, kind: MailKind) -> &Mail {
    out.mails
        .iter()
        .find(|m| m.kind == kind)
        .unwrap_or_else(|| panic!("no {kind:?} in {:?}", kinds(out)))
}

/// The facts of a forward or a receipt of a move.
fn forward(m: &Mail) -> &ForwardFacts {
    match &m.facts {
        Facts::Forward(f) => f,
        other => panic!("not a move's mail: {other:?}"),
    }
}

/// The facts of an adjudication.
fn adjudication(m: &Mail) -> &AdjudicationFacts {
    match &m.facts {
        Facts::Adjudication(f) => f,
        other => panic!("not an adjudication: {other:?}"),
    }
}

fn to(m: &Mail) -> Vec<&str> {
    m.to.iter().map(|r| r.email.as_str()).collect()
}

fn sans(st: &State) -> Vec<String> {
    st.games[&game()].san_moves()
}

/// The text of a mail that answers ply `ply` (0-based) of `moves` (SAN): the repetition of the
/// partner's last move and the own move, both numbered.
fn move_mail(moves: &[String], ply: usize) -> String {
    let num = |p: usize| {
        if p.is_multiple_of(2) {
            format!("{}. {}", p / 2 + 1, moves[p])
        } else {
            format!("{}... {}", p / 2 + 1, moves[p])
        }
    };
    match ply.checked_sub(1) {
        Some(prev) => format!("{}\n{}", num(prev), num(ply)),
        None => num(ply),
    }
}

/// Plays `moves` (SAN, English) by mail, one an hour from 2026-12-01 10:00, asserting each is
/// forwarded; returns the time of the next mail and the last output.
fn play_all(st: &mut State, moves: &[&str]) -> (DateTime<Utc>, Output) {
    let moves: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
    let mut now = at(2026, 12, 1, 10, 0);
    let mut last = Output::default();
    let first = st.games[&game()].moves.len();
    for ply in first..first + moves.len() {
        let from = if ply.is_multiple_of(2) { ANNA } else { BERT };
        let all: Vec<String> = sans(st)
            .into_iter()
            .chain(moves[ply - first..].iter().take(1).cloned())
            .collect();
        last = send(st, from, &move_mail(&all, ply), now);
        assert!(
            kinds(&last).contains(&MailKind::Move),
            "ply {ply} {}: {:?} {}",
            moves[ply - first],
            kinds(&last),
            reason(&last)
        );
        now += Duration::hours(1);
    }
    (now, last)
}

// ------------------------------------------------------------------------------------------------
// TO §31: endings by themselves

#[test]
fn s31_checkmate_reports_to_both_players_and_the_director() {
    let mut st = new_state(RuleSet::Fax);
    let (_, out) = play_all(&mut st, &["f3", "e5", "g4", "Qh4"]);
    assert_eq!(
        kinds(&out),
        vec![
            MailKind::Move,
            MailKind::Receipt,
            MailKind::GameEnd,
            MailKind::GameEnd,
            MailKind::GameEnd
        ]
    );
    let ends: Vec<&str> = out
        .mails
        .iter()
        .filter(|m| m.kind == MailKind::GameEnd)
        .flat_map(to)
        .collect();
    assert_eq!(ends, vec![ANNA, BERT, TL]);
    let g = &st.games[&game()];
    assert_eq!(
        (
            g.result.map(|r| r.as_str()),
            g.end_reason.map(|r| r.as_str())
        ),
        (Some("0-1"), Some("checkmate"))
    );
    let pgn = &mail(&out, MailKind::GameEnd).attachments[0].body;
    assert!(pgn.contains("2. g4") && pgn.contains("Qh4") && pgn.ends_with("0-1\n\n"));
}

#[test]
fn s31_stalemate_ends_the_game() {
    // Sam Loyd's ten-move stalemate.
    let mut st = new_state(RuleSet::Fax);
    let (_, out) = play_all(
        &mut st,
        &[
            "e3", "a5", "Qh5", "Ra6", "Qxa5", "h5", "h4", "Rah6", "Qxc7", "f6", "Qxd7+", "Kf7",
            "Qxb7", "Qd3", "Qxb8", "Qh7", "Qxc8", "Kg6", "Qe6",
        ],
    );
    assert!(kinds(&out).contains(&MailKind::GameEnd));
    let g = &st.games[&game()];
    assert_eq!(g.result.map(|r| r.as_str()), Some("1/2-1/2"));
    assert_eq!(g.end_reason.map(|r| r.as_str()), Some("stalemate"));
}

#[test]
fn s31_position_table() {
    // (FEN, repetitions, expected)
    // The result and the reason as the store writes them.
    let over = |result: &str, reason: &str| {
        Some(Ending::Over {
            result: result.parse().unwrap(),
            reason: serde_json::from_value(serde_json::json!(reason)).unwrap(),
        })
    };
    let cases: &[(&str, usize, Option<Ending>)] = &[
        (
            "8/8/8/4k3/8/8/8/4K3 w - - 0 60",
            1,
            over("1/2-1/2", "dead position (insufficient material)"),
        ),
        (
            "8/8/8/4k3/8/8/8/4K1B1 w - - 0 60",
            1,
            over("1/2-1/2", "dead position (insufficient material)"),
        ),
        ("8/8/8/4k3/8/8/8/4KR2 w - - 99 60", 1, None),
        (
            "8/8/8/4k3/8/8/8/4KR2 b - - 100 60",
            1,
            Some(Ending::Adjourn),
        ),
        (
            "8/8/8/4k3/8/8/8/4KR2 b - - 100 60",
            5,
            over("1/2-1/2", "fivefold repetition"),
        ),
        ("8/8/8/4k3/8/8/8/4KR2 w - - 10 60", 4, None),
        (
            "7k/6Q1/6K1/8/8/8/8/8 b - - 100 60",
            1,
            over("1-0", "checkmate"),
        ),
        (
            "7k/8/6QK/8/8/8/8/8 b - - 3 60",
            1,
            over("1/2-1/2", "stalemate"),
        ),
    ];
    for (fen, reps, want) in cases {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        assert_eq!(endings::ending_in(&pos, *reps), *want, "{fen} ×{reps}");
    }
}

const SHUFFLE: [&str; 4] = ["Nf3", "Nf6", "Ng1", "Ng8"];

#[test]
fn s31_fivefold_repetition_draws() {
    let mut st = new_state(RuleSet::Fax);
    // The start position comes back after every 4 plies: the 4th time after 12 plies goes on.
    let twelve: Vec<&str> = SHUFFLE.iter().cycle().take(12).copied().collect();
    play_all(&mut st, &twelve);
    assert_eq!(st.games[&game()].status, GameStatus::Running);
    assert_eq!(endings::repetitions(&st.games[&game()]), 4);
    let mut st = new_state(RuleSet::Fax);
    let sixteen: Vec<&str> = SHUFFLE.iter().cycle().take(16).copied().collect();
    let (_, out) = play_all(&mut st, &sixteen);
    assert_eq!(
        kinds(&out)
            .iter()
            .filter(|k| **k == MailKind::GameEnd)
            .count(),
        3
    );
    let g = &st.games[&game()];
    assert_eq!(g.result.map(|r| r.as_str()), Some("1/2-1/2"));
    assert_eq!(
        g.end_reason.map(|r| r.as_str()),
        Some("fivefold repetition")
    );
}

#[test]
fn s31_threefold_claim_verified() {
    // Alone: White on move after 8 plies; the start position stands for the third time.
    let mut st = new_state(RuleSet::Fax);
    let eight: Vec<&str> = SHUFFLE.iter().cycle().take(8).copied().collect();
    let (now, _) = play_all(&mut st, &eight);
    assert_eq!(
        st.games[&game()].status,
        GameStatus::Running,
        "threefold alone ends nothing"
    );
    let out = send(
        &mut st,
        ANNA,
        "4... Sg8\nDreimalige Stellungswiederholung, ich reklamiere Remis.",
        now,
    );
    assert_eq!(kinds(&out), vec![MailKind::GameEnd; 3]);
    let g = &st.games[&game()];
    assert_eq!(g.result.map(|r| r.as_str()), Some("1/2-1/2"));
    assert_eq!(
        g.end_reason.map(|r| r.as_str()),
        Some("threefold repetition")
    );
    assert_eq!(g.moves.len(), 8);
    // With the own move: Black's 4... Ng8 makes the start position appear the third time.
    let mut st = new_state(RuleSet::Fax);
    let seven: Vec<&str> = SHUFFLE.iter().cycle().take(7).copied().collect();
    let (now, _) = play_all(&mut st, &seven);
    let out = send(
        &mut st,
        BERT,
        "4. Ng1 Ng8\nI claim a draw by threefold repetition",
        now,
    );
    assert_eq!(
        kinds(&out),
        vec![
            MailKind::Move,
            MailKind::Receipt,
            MailKind::GameEnd,
            MailKind::GameEnd,
            MailKind::GameEnd
        ]
    );
    let g = &st.games[&game()];
    assert_eq!(g.moves.len(), 8);
    assert_eq!(
        g.end_reason.map(|r| r.as_str()),
        Some("threefold repetition")
    );
}

#[test]
fn s31_threefold_claim_false_is_query() {
    let mut st = new_state(RuleSet::Fax);
    let four: Vec<&str> = SHUFFLE.iter().cycle().take(4).copied().collect();
    let (now, _) = play_all(&mut st, &four);
    for text in [
        "2... Sg8\nDreimalige Stellungswiederholung",
        "2... Sg8 3. Sf3\nRemis durch Stellungswiederholung",
    ] {
        let out = send(&mut st, ANNA, text, now);
        assert_eq!(kinds(&out), vec![MailKind::Query], "{text}");
        assert!(
            reason(&out).contains("erst 2-mal"),
            "{text}: {}",
            reason(&out)
        );
        let g = &st.games[&game()];
        assert_eq!(
            (g.moves.len(), g.status),
            (4, GameStatus::Running),
            "{text}"
        );
    }
}

#[path = "../../../tests/shared/quiet_walk.rs"]
mod quiet_walk;
use quiet_walk::quiet_walk;

#[test]
fn s31_fifty_moves_adjourns() {
    let walk = quiet_walk(100);
    let mut st = new_state(RuleSet::Fax);
    let first: Vec<&str> = walk.iter().take(99).map(String::as_str).collect();
    let (now, _) = play_all(&mut st, &first);
    assert_eq!(
        st.games[&game()].status,
        GameStatus::Running,
        "99 plies go on"
    );
    let (now, out) = {
        let all: Vec<String> = walk.clone();
        let out = send(&mut st, BERT, &move_mail(&all, 99), now);
        (now, out)
    };
    assert_eq!(
        kinds(&out),
        vec![MailKind::Move, MailKind::Receipt, MailKind::Adjudication]
    );
    let adj = mail(&out, MailKind::Adjudication);
    assert_eq!(to(adj), vec![TL]);
    let cc: Vec<&str> = adj.cc.iter().map(|r| r.email.as_str()).collect();
    assert_eq!(cc, vec![ANNA, BERT]);
    let g = &st.games[&game()];
    assert_eq!(g.status, GameStatus::Adjourned);
    assert_eq!(adj.fen.as_deref(), Some(g.fen().as_str()));
    assert!(g.fen().contains(" 100 51"), "{}", g.fen());
    let pgn = &adj.attachments[0].body;
    assert!(
        pgn.contains("[Result \"*\"]") && pgn.contains("50."),
        "{pgn}"
    );
    assert_eq!(adjudication(adj).moves_without, 50);
    // Stopped: no deadlines, and a move is answered with a query.
    assert!(st.next_deadline(&settings()).is_none());
    let out = send(
        &mut st,
        ANNA,
        &format!("50... {}\n51. Nc3", walk[99]),
        now + Duration::hours(1),
    );
    assert!(reason(&out).contains("angehalten"), "{}", reason(&out));
    assert_eq!(st.games[&game()].moves.len(), 100);
}

// ------------------------------------------------------------------------------------------------
// TO §2, §4: offers, acceptances and resignations in words

#[test]
fn s2_offer_with_move_is_forwarded_and_acceptance_ends_the_game() {
    let mut st = new_state(RuleSet::Fax);
    let (now, _) = play_all(&mut st, &["e4"]);
    let out = send(&mut st, BERT, "1. e4 e5\nI offer a draw.", now);
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    assert!(forward(mail(&out, MailKind::Move)).draw_offer);
    assert!(forward(mail(&out, MailKind::Receipt)).draw_offer);
    let out = send(
        &mut st,
        ANNA,
        "1... e5\nIch nehme das Remis an.",
        now + Duration::hours(1),
    );
    assert_eq!(kinds(&out), vec![MailKind::GameEnd; 3]);
    let all: Vec<&str> = out.mails.iter().flat_map(to).collect();
    assert_eq!(all, vec![ANNA, BERT, TL]);
    let g = &st.games[&game()];
    assert_eq!(
        (
            g.result.map(|r| r.as_str()),
            g.end_reason.map(|r| r.as_str())
        ),
        (Some("1/2-1/2"), Some("draw agreed"))
    );
    assert_eq!(g.moves.len(), 2, "the acceptance replaces the move");
}

#[test]
fn s2_every_listed_form_is_read() {
    // (text with a move or alone, who, what happens)
    for offer in [
        "Remis?",
        "Ich biete Remis an.",
        "Remisangebot",
        "I offer a draw",
        "draw?",
    ] {
        let mut st = new_state(RuleSet::Fax);
        let (now, _) = play_all(&mut st, &["e4"]);
        let out = send(&mut st, BERT, &format!("1. e4 e5\n{offer}"), now);
        assert!(forward(mail(&out, MailKind::Move)).draw_offer, "{offer}");
        for accept in [
            "Remis angenommen",
            "Ich nehme das Remis an",
            "I accept the draw",
        ] {
            let mut st2 = st.clone();
            let out = send(&mut st2, ANNA, accept, now + Duration::hours(1));
            assert_eq!(
                kinds(&out),
                vec![MailKind::GameEnd; 3],
                "{offer} / {accept}"
            );
        }
    }
    for (resign, result) in [("Ich gebe auf.", "0-1"), ("I resign", "0-1")] {
        let mut st = new_state(RuleSet::Fax);
        let (now, _) = play_all(&mut st, &["e4", "e5"]);
        let out = send(&mut st, ANNA, &format!("1... e5\n{resign}"), now);
        assert_eq!(kinds(&out), vec![MailKind::GameEnd; 3], "{resign}");
        assert_eq!(st.games[&game()].result.map(|r| r.as_str()), Some(result));
        assert_eq!(
            st.games[&game()].end_reason.map(|r| r.as_str()),
            Some("resignation")
        );
    }
}

#[test]
fn s2_acceptance_without_offer_is_query() {
    // (text, words in the query)
    let cases: &[(&str, &str)] = &[
        ("Remis angenommen", "nothing to accept"),
        ("1-0", "without words is void"),
        ("½", "without words is void"),
        (
            "Remis angenommen?",
            "looks like the acceptance of a draw offer",
        ),
        ("Remis?", "only together with an own move"),
        ("I resign. I accept the draw.", "exclude each other"),
        ("1. e4 e5\nI resign", "replaces the own move"),
    ];
    for (text, words) in cases {
        let mut st = new_state(RuleSet::Fax);
        let (now, _) = play_all(&mut st, &["e4"]);
        let out = send(&mut st, BERT, text, now);
        assert_eq!(kinds(&out), vec![MailKind::Query], "{text}");
        assert!(reason(&out).contains(words), "{text}: {}", reason(&out));
        let g = &st.games[&game()];
        assert_eq!(
            (g.moves.len(), g.status),
            (1, GameStatus::Running),
            "{text}"
        );
    }
    // A pending offer does not make a bare or questioning acceptance valid.
    let mut st = new_state(RuleSet::Fax);
    let (now, _) = play_all(&mut st, &["e4"]);
    send(&mut st, BERT, "1. e4 e5 Remis?", now);
    for text in ["½-½", "Remis angenommen?"] {
        let out = send(&mut st, ANNA, text, now + Duration::hours(1));
        assert_eq!(kinds(&out), vec![MailKind::Query], "{text}");
        assert_eq!(st.games[&game()].status, GameStatus::Running);
    }
}

#[test]
fn s2_offer_lapses_when_partner_moves() {
    let mut st = new_state(RuleSet::Fax);
    let (now, _) = play_all(&mut st, &["e4"]);
    send(&mut st, BERT, "1. e4 e5\nRemis?", now);
    assert!(st.games[&game()].draw_offer.is_some());
    let out = send(&mut st, ANNA, "1... e5\n2. Sf3", now + Duration::hours(1));
    assert!(!forward(mail(&out, MailKind::Move)).draw_offer);
    assert!(
        st.games[&game()].draw_offer.is_none(),
        "the move declined it"
    );
    // Black, on move again, cannot accept the lapsed offer.
    let out = send(&mut st, BERT, "I accept the draw", now + Duration::hours(2));
    assert!(
        reason(&out).contains("nothing to accept"),
        "{}",
        reason(&out)
    );
    assert_eq!(st.games[&game()].status, GameStatus::Running);
}

#[test]
fn s4_take_back_after_resignation_changes_nothing() {
    let mut st = new_state(RuleSet::Fax);
    let (now, _) = play_all(&mut st, &["e4", "e5"]);
    send(&mut st, ANNA, "Ich gebe auf.", now);
    assert_eq!(st.games[&game()].result.map(|r| r.as_str()), Some("0-1"));
    let before = st.games[&game()].clone();
    for (who, text) in [
        (ANNA, "Ich nehme meine Aufgabe zurück!"),
        (BERT, "I take back my last move"),
    ] {
        let out = send(&mut st, who, text, now + Duration::hours(1));
        assert_eq!(kinds(&out), vec![MailKind::Query], "{text}");
        assert!(
            reason(&out).contains("zurückgenommen")
                || reason(&out).contains("cannot be taken back"),
            "{text}: {}",
            reason(&out)
        );
    }
    let after = &st.games[&game()];
    assert_eq!(
        (after.result, after.moves.len(), after.status),
        (before.result, 2, GameStatus::Finished)
    );
}

#[test]
fn s4_take_back_of_an_offer_changes_nothing() {
    let mut st = new_state(RuleSet::Fax);
    let (now, _) = play_all(&mut st, &["e4"]);
    send(&mut st, BERT, "1. e4 e5\nRemis?", now);
    let out = send(
        &mut st,
        BERT,
        "I withdraw my draw offer",
        now + Duration::hours(1),
    );
    assert!(
        reason(&out).contains("cannot be taken back"),
        "{}",
        reason(&out)
    );
    assert_eq!(st.games[&game()].draw_offer, Some(Color::Black.into()));
}

// ------------------------------------------------------------------------------------------------
// TO §6, §7: conditional moves

/// 1. e4 e5 2. Nf3 Nc6, then Anna's 3. Lc4 with the line 3... Sf6 4. Sg5 4... d5 5. exd5.
fn two_knights(rules: RuleSet) -> (State, DateTime<Utc>, Output) {
    let mut st = new_state(rules);
    let (now, _) = play_all(&mut st, &["e4", "e5", "Nf3", "Nc6"]);
    let out = send(
        &mut st,
        ANNA,
        "2... Sc6\n3. Lc4\nEventualzüge: 3... Sf6 4. Sg5 4... d5 5. exd5",
        now,
    );
    (st, now, out)
}

#[test]
fn s6_line_is_forwarded_in_the_partners_notation_and_kept() {
    let (st, _, out) = two_knights(RuleSet::Fax);
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    let fwd = mail(&out, MailKind::Move);
    assert_eq!(to(fwd), vec![BERT]);
    assert_eq!(forward(fwd).lines, ["3... Nf6 4. Ng5 4... d5 5. exd5"]);
    assert_eq!(forward(fwd).lines_by, "Anna Adler");
    let rcpt = mail(&out, MailKind::Receipt);
    assert_eq!(forward(rcpt).lines, ["3... Sf6 4. Sg5 4... d5 5. exd5"]);
    let g = &st.games[&game()];
    assert_eq!(g.conditional.len(), 1);
    assert_eq!(g.conditional[0].moves, vec!["g8f6", "f3g5", "d7d5", "e4d5"]);
    assert!(out.events.iter().any(|e| matches!(
        e.event,
        crate::core::model::Event::ConditionalProposed { .. }
    )));
}

#[test]
fn s6_conditional_line_auto_played() {
    let (mut st, now, _) = two_knights(RuleSet::Fax);
    // Bert's 3... Nf6 matches: 4. Ng5 is played at once.
    let t1 = now + Duration::hours(3);
    let out = send(&mut st, BERT, "3. Bc4 Nf6", t1);
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    let fwd = mail(&out, MailKind::Move);
    assert_eq!(
        to(fwd),
        vec![BERT],
        "the auto-played reply goes to the partner"
    );
    assert_eq!(forward(fwd).mv.as_deref(), Some("4. Ng5"));
    assert_eq!(forward(fwd).plies[0].text.as_deref(), Some("3... Nf6"));
    assert!(forward(fwd).plies[1].conditional);
    assert_eq!(forward(fwd).lines, ["4... d5 5. exd5"]);
    let rcpt = mail(&out, MailKind::Receipt);
    assert_eq!(to(rcpt), vec![ANNA], "the proposer gets a receipt");
    assert_eq!(forward(rcpt).mv.as_deref(), Some("4. Sg5"));
    assert_eq!(sans(&st)[5..], ["Nf6", "Ng5"]);
    let g = &st.games[&game()];
    assert_eq!(
        (g.moves[6].days_used, g.moves[6].charged),
        (0, 0),
        "TO §7: 0 days for the proposer"
    );
    assert_eq!(g.to_move(), Color::Black);
    assert_eq!(
        g.turn.since, t1,
        "the partner's clock restarts when the reply is sent"
    );
    assert_eq!(g.last_forward.as_deref(), Some(fwd.message_id.as_str()));
    // Bert's 4... d5 matches again: 5. exd5, and the line is used up.
    let out = send(&mut st, BERT, "4. Ng5 d5", t1 + Duration::hours(1));
    assert_eq!(
        forward(mail(&out, MailKind::Move)).mv.as_deref(),
        Some("5. exd5")
    );
    assert_eq!(sans(&st)[5..], ["Nf6", "Ng5", "d5", "exd5"]);
    assert!(st.games[&game()].conditional.is_empty());
    // Without a line nothing is played for Anna.
    let out = send(&mut st, BERT, "5. exd5 Na5", t1 + Duration::hours(2));
    assert_eq!(mail(&out, MailKind::Move).to[0].email, ANNA);
    assert_eq!(sans(&st).len(), 10);
}

#[test]
fn s6_deviation_drops_the_line() {
    // At once: 3... Bc5 leaves the line.
    let (mut st, now, _) = two_knights(RuleSet::Fax);
    let out = send(&mut st, BERT, "3. Bc4 Bc5", now + Duration::hours(1));
    let fwd = mail(&out, MailKind::Move);
    assert_eq!(to(fwd), vec![ANNA]);
    assert!(forward(fwd).lines_dropped);
    assert!(st.games[&game()].conditional.is_empty());
    assert_eq!(sans(&st).len(), 6);
    // Later: after 3... Nf6 4. Ng5, 4... Bc5 leaves it; 5. exd5 is not played.
    let (mut st, now, _) = two_knights(RuleSet::Fax);
    send(&mut st, BERT, "3. Bc4 Nf6", now + Duration::hours(1));
    let out = send(&mut st, BERT, "4. Ng5 Bc5", now + Duration::hours(2));
    assert_eq!(to(mail(&out, MailKind::Move)), vec![ANNA]);
    assert!(forward(mail(&out, MailKind::Move)).lines_dropped);
    assert_eq!(sans(&st)[5..], ["Nf6", "Ng5", "Bc5"]);
    assert!(st.games[&game()].conditional.is_empty());
}

#[test]
fn s7_partial_acceptance() {
    // Bert confirms 3... Nf6 4. Ng5 and then plays his own 4... Bc5: the rest is dropped.
    let (mut st, now, _) = two_knights(RuleSet::Fax);
    let out = send(
        &mut st,
        BERT,
        "3. Bc4 Nf6 4. Ng5 Bc5",
        now + Duration::hours(1),
    );
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    assert_eq!(to(mail(&out, MailKind::Move)), vec![ANNA]);
    assert_eq!(sans(&st)[5..], ["Nf6", "Ng5", "Bc5"]);
    assert!(st.games[&game()].conditional.is_empty());
    // A move of Anna's colour that is not hers is refused, and nothing is played.
    let (mut st, now, _) = two_knights(RuleSet::Fax);
    let out = send(
        &mut st,
        BERT,
        "3. Bc4 Nf6 4. d4 exd4",
        now + Duration::hours(1),
    );
    assert!(
        reason(&out).contains("not a conditional move"),
        "{}",
        reason(&out)
    );
    assert_eq!(sans(&st).len(), 5);
}

#[test]
fn s7_whole_line_in_one_mail_time_on_highest_move() {
    // Post rules: whole calendar days. Anna's 3. Bc4 on 1 Dec; Bert answers on 4 Dec with the
    // whole line 3... Nf6 4. Ng5 d5; 5. exd5 follows at once.
    let (mut st, now, _) = two_knights(RuleSet::Post);
    assert_eq!(
        crate::core::view::local_date(now, Berlin).to_string(),
        "2026-12-01"
    );
    let out = send(
        &mut st,
        BERT,
        "3. Bc4 Nf6 4. Ng5 d5",
        at(2026, 12, 4, 18, 0),
    );
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    assert_eq!(sans(&st)[5..], ["Nf6", "Ng5", "d5", "exd5"]);
    let g = &st.games[&game()];
    let days: Vec<u32> = g.moves[5..].iter().map(|m| m.days_used).collect();
    assert_eq!(days, vec![0, 0, 3, 0], "the time counts on 4... d5");
    assert_eq!(g.clocks.black.used_in_period, 3);
    assert_eq!(g.clocks.black.moves_in_period, 4);
    let fwd = mail(&out, MailKind::Move);
    assert_eq!(to(fwd), vec![BERT]);
    assert_eq!(forward(fwd).mv.as_deref(), Some("5. exd5"));
    let texts: Vec<&str> = forward(fwd)
        .plies
        .iter()
        .map(|p| p.text.as_deref().unwrap())
        .collect();
    assert_eq!(texts, vec!["3... Nf6", "4. Ng5", "4... d5", "5. exd5"]);
}

#[test]
fn s6_invalid_conditional_line_is_query() {
    // (Anna's mail after 1. e4 e5 2. Nf3 Nc6; words in the query)
    let cases: &[(&str, &str)] = &[
        (
            "2... Sc6\n3. Lc4\nEventualzüge: 4... Sf6 5. Sg5",
            "falsche Nummer",
        ),
        ("2... Sc6\n3. Lc4\nEventualzüge: 3... Sf6 4. Sg6", "4. Sg6"),
        (
            "2... Sc6\n3. Lc4\nEventualzüge: 3... Sf6 4. Sg5 4... d5",
            "nicht mit Ihrer eigenen Antwort",
        ),
        (
            "2... Sc6\n3. Lc4\nEventualzüge: 3... Sf6",
            "nicht mit Ihrer eigenen Antwort",
        ),
        (
            "2... Sc6\n3. Lc4\nEventualzüge:\n3... Sf6 4. Sg5\n3... Sf6 4. d3",
            "verschieden, 4. Sg5 und 4. d3",
        ),
        (
            "Eventualzüge: 3... Sf6 4. Sg5",
            "nur zusammen mit einem eigenen Zug",
        ),
        (
            "2... Sc6\n3. Lc4\nEventualzüge: 3... Sf6 4. Sz5",
            "nicht lesbar",
        ),
    ];
    for (text, words) in cases {
        let mut st = new_state(RuleSet::Fax);
        let (now, _) = play_all(&mut st, &["e4", "e5", "Nf3", "Nc6"]);
        let out = send(&mut st, ANNA, text, now);
        assert_eq!(kinds(&out), vec![MailKind::Query], "{text}");
        assert!(reason(&out).contains(words), "{text}: {}", reason(&out));
        let g = &st.games[&game()];
        assert_eq!(
            (g.moves.len(), g.conditional.len()),
            (4, 0),
            "nothing forwarded: {text}"
        );
    }
}

#[test]
fn s6_both_sides_lines_play_on_by_themselves() {
    // Anna proposes 3... Nf6 4. Ng5; Bert answers 3... Nf6 with his own line 4. Ng5 d5:
    // 4. Ng5 (Anna's) and 4... d5 (Bert's) are played at once; Anna is on move.
    let mut st = new_state(RuleSet::Fax);
    let (now, _) = play_all(&mut st, &["e4", "e5", "Nf3", "Nc6"]);
    send(
        &mut st,
        ANNA,
        "2... Sc6\n3. Lc4\nEventualzüge: 3... Sf6 4. Sg5",
        now,
    );
    let out = send(
        &mut st,
        BERT,
        "3. Bc4 Nf6\nif 4. Ng5 then 4... d5",
        now + Duration::hours(1),
    );
    assert_eq!(sans(&st)[5..], ["Nf6", "Ng5", "d5"]);
    let fwd = mail(&out, MailKind::Move);
    assert_eq!(to(fwd), vec![ANNA]);
    assert_eq!(forward(fwd).mv.as_deref(), Some("4... d5"));
    assert_eq!(to(mail(&out, MailKind::Receipt)), vec![BERT]);
    assert!(st.games[&game()].conditional.is_empty());
}

#[test]
fn s6_stored_games_without_lines_still_load() {
    let st = new_state(RuleSet::Fax);
    let mut v = serde_json::to_value(&st.games[&game()]).unwrap();
    v.as_object_mut().unwrap().remove("conditional");
    let g: crate::core::model::Game = serde_json::from_value(v).unwrap();
    assert!(g.conditional.is_empty());
}

#[test]
fn s6_mails_render_with_lines_and_plies() {
    let templates = crate::render::Templates::load(None).unwrap();
    let (mut st, now, out) = two_knights(RuleSet::Fax);
    let mut all = out.mails.clone();
    let o = send(&mut st, BERT, "3. Bc4 Nf6", now + Duration::hours(1));
    all.extend(o.mails);
    let o = send(&mut st, BERT, "4. Ng5 Bc5", now + Duration::hours(2));
    all.extend(o.mails);
    let texts: Vec<String> = all
        .iter()
        .map(|m| {
            templates
                .text(m.kind, m.lang, &crate::render::facts(m))
                .unwrap()
                .1
        })
        .collect();
    assert!(
        texts[0].contains("Anna Adler proposes conditional moves")
            && texts[0].contains("3... Nf6 4. Ng5 4... d5 5. exd5"),
        "{}",
        texts[0]
    );
    assert!(
        texts[1].contains("Ihre Eventualzüge wurden Bert Berger mitgeteilt"),
        "{}",
        texts[1]
    );
    assert!(
        texts[2].contains("4. Ng5   (conditional move of Anna Adler, played at once, 0 days)"),
        "{}",
        texts[2]
    );
    assert!(
        texts[3].contains("4. Sg5   (Eventualzug von Ihnen, sofort ausgeführt, 0 Tage)"),
        "{}",
        texts[3]
    );
    assert!(
        texts[4].contains("Ihre Eventualzüge sind hinfällig"),
        "{}",
        texts[4]
    );
}

#[test]
fn s31_adjudication_renders_in_both_languages() {
    let templates = crate::render::Templates::load(None).unwrap();
    let walk = quiet_walk(100);
    let mut st = new_state(RuleSet::Fax);
    let all: Vec<&str> = walk.iter().map(String::as_str).collect();
    let (_, out) = play_all(&mut st, &all);
    let adj = mail(&out, MailKind::Adjudication);
    for lang in [Lang::De, Lang::En] {
        let (subject, body) = templates
            .text(
                MailKind::Adjudication,
                lang,
                &serde_json::to_value(&adj.facts).unwrap(),
            )
            .unwrap();
        assert!(
            subject.contains("[T-1/1]") && subject.contains("§31"),
            "{subject}"
        );
        assert!(
            body.contains("50") && body.contains(adj.fen.as_deref().unwrap()),
            "{body}"
        );
    }
}

#[test]
fn s2_s6_offer_answered_by_a_conditional_reply_lapses() {
    let (mut st, now, _) = two_knights(RuleSet::Fax);
    let out = send(&mut st, BERT, "3. Bc4 Nf6\nDraw?", now + Duration::hours(1));
    assert_eq!(sans(&st)[5..], ["Nf6", "Ng5"]);
    assert!(st.games[&game()].draw_offer.is_none());
    let fwd = mail(&out, MailKind::Move);
    assert!(!forward(fwd).draw_offer);
    assert!(
        crate::render::facts(fwd)["notes"]
            .to_string()
            .contains("The draw offer lapsed"),
        "{}",
        crate::render::facts(fwd)["notes"]
    );
    // A claim with further moves is doubtful.
    let out = send(
        &mut st,
        BERT,
        "4. Ng5 d5 5. exd5\nthreefold repetition",
        now + Duration::hours(2),
    );
    assert!(
        reason(&out).contains("exclude each other"),
        "{}",
        reason(&out)
    );
}

/// The memo of `Game::position_after` never changes its answer: calls for fewer and more plies,
/// after each move added, after the moves were replaced by others, and with a move that cannot be
/// played, each give the position replayed from the start (which stops at such a move).
#[test]
fn s31_positions_replayed_with_the_memo_are_those_from_the_start() {
    use crate::core::model::{Game, PlayedMove};
    use shakmaty::uci::UciMove;
    use shakmaty::{EnPassantMode, Position};
    let from_start = |g: &Game, plies: usize| {
        let mut pos = Chess::default();
        for m in g.moves.iter().take(plies) {
            let Ok(uci) = m.uci.parse::<UciMove>() else {
                break;
            };
            let Ok(mv) = uci.to_move(&pos) else { break };
            pos.play_unchecked(mv);
        }
        Fen::from_position(&pos, EnPassantMode::Always).to_string()
    };
    let fen = |pos: Chess| Fen::from_position(&pos, EnPassantMode::Always).to_string();
    // A line of up to 40 plies: at each ply a legal move picked by `seed`.
    let line = |seed: usize| {
        let mut pos = Chess::default();
        let mut out = Vec::new();
        for i in 0..40 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[(seed * 7 + i * 13) % moves.len()];
            out.push(mv.to_uci(CastlingMode::Standard).to_string());
            pos.play_unchecked(mv);
        }
        out
    };
    let played = |uci: &str| PlayedMove {
        uci: uci.to_string(),
        san: String::new(),
        received: DateTime::<Utc>::default(),
        sent: DateTime::<Utc>::default(),
        days_used: 0,
        charged: 0,
        message_id: String::new(),
    };
    let st = new_state(RuleSet::Fax);
    let mut g = st.games[&game()].clone();
    for (i, uci) in line(1).iter().enumerate() {
        g.moves.push(played(uci));
        for plies in [i + 1, 0, i / 2, i, i + 1, 99] {
            assert_eq!(
                fen(g.position_after(plies)),
                from_start(&g, plies),
                "ply {i}, {plies}"
            );
        }
        assert_eq!(fen(g.position()), from_start(&g, g.moves.len()));
    }
    // Other moves in the same game (a director's correction): the memo does not hold for them.
    g.moves = line(2).iter().map(|u| played(u)).collect();
    for plies in [40, 10, 40, 5, 39] {
        assert_eq!(
            fen(g.position_after(plies)),
            from_start(&g, plies),
            "{plies}"
        );
    }
    // A move that cannot be played: the replay stops before it, the memo there too.
    g.moves[12].uci = "a1a1".to_string();
    for plies in [40, 12, 13, 40] {
        assert_eq!(
            fen(g.position_after(plies)),
            from_start(&g, plies),
            "{plies}"
        );
    }
    assert_eq!(from_start(&g, 40), from_start(&g, 12));
    // A clone answers alike, and the memo is not part of the game's value.
    let copy = g.clone();
    assert_eq!(fen(copy.position()), from_start(&g, 40));
    let mut unreplayed = st.games[&game()].clone();
    unreplayed.moves = g.moves.clone();
    assert_eq!(copy, unreplayed, "the memo is not compared");
}
