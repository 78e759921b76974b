//! Core rules as table tests, named after their paragraph (docs/rules.md), driven with explicit `now`.

use crate::core::testkit::{
    self, ANNA, BERT, TL, at, game, kinds, reason, settings, step, step_with, vouched,
};
use shakmaty::Color;

use crate::core::NewTournament;
use crate::core::model::GameStatus;
use crate::core::{Output, State};
use crate::lang::Lang;
use crate::letter::{Content, Letter};
use crate::mail_kind::MailKind;
use crate::rules::RuleSet;

fn file(rules: RuleSet) -> NewTournament {
    testkit::duel(rules)
}

fn new_state(rules: RuleSet) -> State {
    testkit::registered(&file(rules))
}

/// Anna's `1. e4` played on 2026-12-01 at 10:00; Bert is on move.
fn after_first_move(rules: RuleSet) -> State {
    let mut st = new_state(rules);
    step(
        &mut st,
        &letter(ANNA, &[(1, W, "e4")]),
        at(2026, 12, 1, 10, 0),
    );
    st
}

/// A letter from `from` about game T-1/1 whose text holds `moves` (number, colour, text).
fn letter(from: &str, moves: &[(u32, Color, &str)]) -> Letter {
    letter_with(from, moves, Content::default())
}

fn letter_with(from: &str, moves: &[(u32, Color, &str)], content: Content) -> Letter {
    let content = Content {
        moves: testkit::moves(moves),
        ..content
    };
    testkit::letter(from, Some(game()), content)
}

use Color::{Black as B, White as W};

/// Who writes which numbered moves.
type Plies<'a> = &'a [(&'a str, &'a [(u32, Color, &'a str)])];

#[test]
fn registration_queues_one_start_mail_per_player_per_game() {
    let st = State::default();
    let mut st2 = st.clone();
    let mut k = 0;
    let out = st2
        .register(
            &file(RuleSet::Fax),
            at(2026, 11, 30, 12, 0),
            &settings(),
            &mut || {
                k += 1;
                k.to_string()
            },
        )
        .unwrap();
    assert_eq!(kinds(&out), vec![MailKind::Start, MailKind::Start]);
    assert_eq!(out.mails[0].color.as_deref(), Some("white"));
    assert_eq!(out.mails[1].lang, Lang::En);
    assert_eq!(st2.games[&game()].status, GameStatus::WaitingStart);
    let dup = st2.register(
        &file(RuleSet::Fax),
        at(2026, 11, 30, 12, 0),
        &settings(),
        &mut || "x".into(),
    );
    assert!(dup.is_err(), "a duplicate id is refused");
}

#[test]
fn s2_white_first_move_needs_no_repetition() {
    let mut st = new_state(RuleSet::Fax);
    let out = step(
        &mut st,
        &letter(ANNA, &[(1, W, "e4")]),
        at(2026, 12, 1, 10, 0),
    );
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    assert_eq!(out.mails[0].to[0].email, BERT);
    assert_eq!(st.games[&game()].san_moves(), vec!["e4"]);
}

#[test]
fn s2_move_before_the_start_is_refused() {
    let mut st = new_state(RuleSet::Fax);
    let out = step(
        &mut st,
        &letter(ANNA, &[(1, W, "e4")]),
        at(2026, 11, 30, 18, 0),
    );
    assert_eq!(kinds(&out), vec![MailKind::Query]);
    assert!(st.games[&game()].moves.is_empty());
}

#[test]
fn s2_table_of_refusals() {
    // (moves after 1. e4 by Anna; Bert's mail) → expected words in the query
    type Case<'a> = (&'a [(u32, Color, &'a str)], &'a str);
    let cases: &[Case] = &[
        (
            &[(1, B, "e5")],
            "repetition of your partner's last move is missing",
        ),
        (
            &[(1, W, "d4"), (1, B, "e5")],
            "but your partner's last move was",
        ),
        (&[(1, W, "e4"), (2, B, "e5")], "Wrong move number"),
        (&[(1, W, "e4")], "Your own move is missing"),
        (&[(1, W, "e4"), (1, B, "e4")], "impossible"),
        (
            &[(1, W, "e4"), (1, B, "e5"), (1, B, "d5")],
            "two different own moves",
        ),
        (&[(1, W, "e4"), (1, B, "e5"), (2, W, "Nf3")], "more moves"),
        (&[], "no numbered move"),
    ];
    for (moves, expected) in cases {
        let mut st = new_state(RuleSet::Fax);
        step(
            &mut st,
            &letter(ANNA, &[(1, W, "e4")]),
            at(2026, 12, 1, 10, 0),
        );
        let out = step(&mut st, &letter(BERT, moves), at(2026, 12, 2, 10, 0));
        assert_eq!(kinds(&out), vec![MailKind::Query], "{moves:?}");
        assert!(
            reason(&out).contains(expected),
            "{moves:?}: {}",
            reason(&out)
        );
        assert_eq!(
            st.games[&game()].moves.len(),
            1,
            "nothing played for {moves:?}"
        );
    }
}

#[test]
fn s2_german_long_and_iccf_numeric_read() {
    let mut st = new_state(RuleSet::Fax);
    let plies: Plies = &[
        (ANNA, &[(1, W, "e2-e4")]),
        (BERT, &[(1, W, "5254"), (1, B, "5755")]),
        (ANNA, &[(1, B, "e7-e5"), (2, W, "Sg1-f3")]),
        (BERT, &[(2, W, "7163"), (2, B, "2836")]),
        (ANNA, &[(2, B, "Sb8-c6"), (3, W, "Lf1-b5")]),
        (BERT, &[(3, W, "6125"), (3, B, "1716")]),
        (ANNA, &[(3, B, "a7-a6"), (4, W, "Lb5-a4")]),
        (BERT, &[(4, W, "2514"), (4, B, "7866")]),
        (ANNA, &[(4, B, "Sg8-f6"), (5, W, "O-O")]),
        (BERT, &[(5, W, "5171"), (5, B, "6654")]),
    ];
    let mut now = at(2026, 12, 1, 10, 0);
    for (who, moves) in plies {
        let out = step(&mut st, &letter(who, moves), now);
        assert_eq!(
            kinds(&out),
            vec![MailKind::Move, MailKind::Receipt],
            "{moves:?}: {}",
            reason(&out)
        );
        now += chrono::Duration::hours(5);
    }
    assert_eq!(
        st.games[&game()].san_moves(),
        vec![
            "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Nxe4"
        ]
    );
}

#[test]
fn s2_draw_offer_only_with_a_move_and_acceptance_only_of_an_offer() {
    let mut st = new_state(RuleSet::Fax);
    let offer = Content {
        draw_offer: true,
        ..Content::default()
    };
    let out = step(
        &mut st,
        &letter_with(ANNA, &[], offer.clone()),
        at(2026, 12, 1, 10, 0),
    );
    assert!(
        reason(&out).contains("only together with an own move")
            || reason(&out).contains("nur zusammen")
    );
    let accept = Content {
        draw_accept: true,
        ..Content::default()
    };
    step(
        &mut st,
        &letter(ANNA, &[(1, W, "e4")]),
        at(2026, 12, 1, 11, 0),
    );
    let out = step(
        &mut st,
        &letter_with(BERT, &[], accept.clone()),
        at(2026, 12, 1, 12, 0),
    );
    assert!(
        reason(&out).contains("nothing to accept"),
        "{}",
        reason(&out)
    );
    step(
        &mut st,
        &letter_with(BERT, &[(1, W, "e4"), (1, B, "e5")], offer),
        at(2026, 12, 1, 13, 0),
    );
    let out = step(
        &mut st,
        &letter_with(ANNA, &[], accept),
        at(2026, 12, 1, 14, 0),
    );
    assert_eq!(kinds(&out), vec![MailKind::GameEnd; 3]);
    assert_eq!(
        st.games[&game()].result.map(|r| r.as_str()),
        Some("1/2-1/2")
    );
}

#[test]
fn s2_bare_result_is_a_query() {
    let mut st = new_state(RuleSet::Fax);
    let c = Content {
        bare_result: Some("1-0".into()),
        ..Content::default()
    };
    let out = step(
        &mut st,
        &letter_with(ANNA, &[(1, W, "e4")], c),
        at(2026, 12, 1, 10, 0),
    );
    assert_eq!(kinds(&out), vec![MailKind::Query]);
    assert!(st.games[&game()].moves.is_empty());
}

#[test]
fn s4_take_back_changes_nothing() {
    let mut st = after_first_move(RuleSet::Fax);
    let c = Content {
        take_back: true,
        ..Content::default()
    };
    let out = step(&mut st, &letter_with(ANNA, &[], c), at(2026, 12, 1, 11, 0));
    assert!(reason(&out).contains("zurückgenommen"), "{}", reason(&out));
    assert_eq!(st.games[&game()].moves.len(), 1);
}

#[test]
fn s8_wrong_turn_stranger_and_foreign_key() {
    let mut st = new_state(RuleSet::Fax);
    let out = step(
        &mut st,
        &letter(BERT, &[(1, W, "e4")]),
        at(2026, 12, 1, 10, 0),
    );
    assert!(reason(&out).contains("partner's move"), "{}", reason(&out));
    // A stranger (whom the own server vouches for) gets one polite answer, then silence.
    let out = step(
        &mut st,
        &vouched(letter("eve@x.test", &[(1, W, "e4")])),
        at(2026, 12, 1, 10, 0),
    );
    assert_eq!(kinds(&out), vec![MailKind::Query]);
    let out = step(
        &mut st,
        &vouched(letter("eve@x.test", &[(1, W, "e4")])),
        at(2026, 12, 1, 10, 0),
    );
    assert!(out.mails.is_empty());
    // Bert answering through Anna's key is refused.
    let anna_key = st.games[&game()].keys.white.clone();
    let mut l = letter(BERT, &[(1, W, "e4")]);
    l.reply_keys = vec![anna_key];
    let out = step(&mut st, &l, at(2026, 12, 1, 10, 0));
    assert!(
        reason(&out).contains("belongs to another player"),
        "{}",
        reason(&out)
    );
    assert!(st.games[&game()].moves.is_empty());
}

#[test]
fn s8_reply_key_names_the_game() {
    let mut st = new_state(RuleSet::Fax);
    let mut l = letter(ANNA, &[(1, W, "e4")]);
    l.game_ref = None;
    l.reply_keys = vec![st.games[&game()].keys.white.clone()];
    let out = step(&mut st, &l, at(2026, 12, 1, 10, 0));
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
}

#[test]
fn automatic_mail_is_never_answered() {
    let mut st = new_state(RuleSet::Fax);
    let mut l = letter(ANNA, &[(1, W, "e4")]);
    l.automatic = Some(crate::letter::AutoReason::AutoSubmitted(
        "auto-replied".into(),
    ));
    let out = step(&mut st, &l, at(2026, 12, 1, 10, 0));
    assert!(out.mails.is_empty());
    assert!(st.games[&game()].moves.is_empty());
}

#[test]
fn s16_reminder_after_16_days_then_silence_report_each_once() {
    let mut st = after_first_move(RuleSet::Fax);
    let s = settings();
    assert!(
        st.tick(at(2026, 12, 16, 23, 59), &s).mails.is_empty(),
        "not on day 15"
    );
    let out = st.tick(at(2026, 12, 17, 0, 0), &s);
    assert_eq!(kinds(&out), vec![MailKind::Reminder]);
    assert_eq!(out.mails[0].to[0].email, BERT);
    // The waiting partner's reminder, forwarded by the director: both in copy, each with his own
    // copy (and key).
    let cc: Vec<&str> = out.mails[0].cc.iter().map(|r| r.email.as_str()).collect();
    assert_eq!(cc, [TL, ANNA]);
    let envelopes: Vec<Vec<String>> = out.mails.iter().map(|m| m.envelope.clone()).collect();
    assert_eq!(envelopes, [[BERT], [TL], [ANNA]]);
    assert!(
        st.tick(at(2026, 12, 20, 0, 0), &s).mails.is_empty(),
        "a reminder fires once"
    );
    let out = st.tick(at(2026, 12, 31, 0, 0), &s);
    assert_eq!(kinds(&out), vec![MailKind::SilenceReport]);
    assert_eq!(out.mails[0].to[0].email, TL);
    assert!(st.tick(at(2027, 1, 5, 0, 0), &s).mails.is_empty());
    // The answer to a reminded move goes to the partner with TL in copy.
    let out = step(
        &mut st,
        &letter(BERT, &[(1, W, "e4"), (1, B, "e5")]),
        at(2027, 1, 2, 0, 0),
    );
    let fwd = out
        .mails
        .iter()
        .find(|m| m.kind == MailKind::Move)
        .expect("forwarded");
    assert_eq!(fwd.cc[0].email, TL);
}

#[test]
fn s16_reminder_and_forfeit_fire_in_time_order() {
    let mut st = after_first_move(RuleSet::Post);
    let out = st.tick(at(2027, 2, 1, 0, 0), &settings());
    assert_eq!(
        kinds(&out),
        vec![
            MailKind::Reminder,
            MailKind::TimeForfeit,
            MailKind::SilenceReport
        ]
    );
}

#[test]
fn s17_post_exactly_30_days_is_not_exceeded_31_is() {
    let mut st = after_first_move(RuleSet::Post);
    // Bert announces (TO §13), so no +5 days blur the boundary.
    let c = Content {
        announce_long_think: true,
        ..Content::default()
    };
    step(&mut st, &letter_with(BERT, &[], c), at(2026, 12, 3, 10, 0));
    let s = settings();
    let out = st.tick(at(2026, 12, 31, 23, 59), &s);
    assert_eq!(kinds(&out), vec![MailKind::Reminder], "30 days are allowed");
    let out = st.tick(at(2027, 1, 1, 0, 0), &s);
    assert_eq!(kinds(&out), vec![MailKind::TimeForfeit]);
    let m = &out.mails[0];
    let to: Vec<&str> = m.to.iter().map(|r| r.email.as_str()).collect();
    assert_eq!(to, vec![BERT, ANNA]);
    assert_eq!(m.cc[0].email, TL);
    assert_eq!(st.games[&game()].clocks.black.forfeits, 1);
    assert_eq!(
        st.games[&game()].status,
        GameStatus::Running,
        "TO §20: the game goes on"
    );
}

#[test]
fn s13_without_announcement_the_forfeit_comes_on_day_26() {
    // 26 days + 5 (TO §13) = 31 > 30.
    let mut st = after_first_move(RuleSet::Post);
    let s = settings();
    assert!(!kinds(&st.tick(at(2026, 12, 26, 23, 59), &s)).contains(&MailKind::TimeForfeit));
    assert_eq!(
        kinds(&st.tick(at(2026, 12, 27, 0, 0), &s)),
        vec![MailKind::TimeForfeit]
    );
}

#[test]
fn s20_offender_restarts_period_with_carry_and_s21_second_forfeit_suspends() {
    let mut st = after_first_move(RuleSet::Post);
    // Bert answers after 55 days, charged 60 (TO §13): 30 over the limit, 20 forgiven, 10 carried (TO §20).
    let out = step(
        &mut st,
        &letter(BERT, &[(1, W, "e4"), (1, B, "e5")]),
        at(2027, 1, 25, 10, 0),
    );
    assert!(kinds(&out).contains(&MailKind::TimeForfeit));
    assert!(kinds(&out).contains(&MailKind::Move));
    let g = &st.games[&game()];
    assert_eq!(g.clocks.black.moves_in_period, 0);
    assert_eq!(g.clocks.black.used_in_period, 10);
    step(
        &mut st,
        &letter(ANNA, &[(1, B, "e5"), (2, W, "Nf3")]),
        at(2027, 1, 25, 12, 0),
    );
    // In the new period 10 are used: 10 + 16 + 5 (TO §13) > 30 on day 16, with the reminder.
    let out = st.tick(at(2027, 2, 20, 0, 0), &settings());
    assert_eq!(
        kinds(&out),
        vec![MailKind::Reminder, MailKind::TimeForfeit2]
    );
    let m = out
        .mails
        .iter()
        .find(|m| m.kind == MailKind::TimeForfeit2)
        .unwrap();
    assert_eq!(m.to[0].email, TL);
    assert_eq!(st.games[&game()].status, GameStatus::Suspended);
    let out = step(
        &mut st,
        &letter(BERT, &[(2, W, "Nf3"), (2, B, "Nc6")]),
        at(2027, 2, 21, 0, 0),
    );
    assert!(reason(&out).contains("suspended"), "{}", reason(&out));
}

#[test]
fn fax_1_4_answer_within_24_hours_costs_nothing() {
    for (answer, days) in [
        (at(2026, 12, 2, 21, 6), 0),
        (at(2026, 12, 2, 21, 7), 1),
        (at(2026, 12, 3, 0, 0), 2),
    ] {
        let mut st = new_state(RuleSet::Fax);
        step(
            &mut st,
            &letter(ANNA, &[(1, W, "e4")]),
            at(2026, 12, 1, 21, 7),
        );
        step(
            &mut st,
            &letter(BERT, &[(1, W, "e4"), (1, B, "e5")]),
            answer,
        );
        assert_eq!(
            st.games[&game()].moves[1].days_used,
            days,
            "answered {answer}"
        );
    }
}

#[test]
fn s13_announcement_moves_the_reminder_to_26_days() {
    let mut st = after_first_move(RuleSet::Fax);
    let c = Content {
        announce_long_think: true,
        ..Content::default()
    };
    let out = step(&mut st, &letter_with(BERT, &[], c), at(2026, 12, 5, 10, 0));
    assert_eq!(kinds(&out), vec![MailKind::Status, MailKind::Receipt]);
    assert!(
        st.tick(at(2026, 12, 20, 0, 0), &settings())
            .mails
            .is_empty()
    );
    let out = st.tick(at(2026, 12, 27, 0, 0), &settings());
    assert_eq!(kinds(&out), vec![MailKind::Reminder]);
}

#[test]
fn s13_more_than_10_days_without_announcement_costs_5() {
    let mut st = after_first_move(RuleSet::Fax);
    step(
        &mut st,
        &letter(BERT, &[(1, W, "e4"), (1, B, "e5")]),
        at(2026, 12, 13, 10, 0),
    );
    let m = &st.games[&game()].moves[1];
    assert_eq!((m.days_used, m.charged), (12, 17));
}

#[test]
fn s31_checkmate_ends_the_game() {
    let mut st = new_state(RuleSet::Fax);
    let plies: Plies = &[
        (ANNA, &[(1, W, "f3")]),
        (BERT, &[(1, W, "f3"), (1, B, "e5")]),
        (ANNA, &[(1, B, "e5"), (2, W, "g4")]),
        (BERT, &[(2, W, "g4"), (2, B, "Qh4")]),
    ];
    let mut now = at(2026, 12, 1, 10, 0);
    let mut last = Output::default();
    for (who, moves) in plies {
        last = step(&mut st, &letter(who, moves), now);
        now += chrono::Duration::hours(1);
    }
    assert!(kinds(&last).contains(&MailKind::GameEnd));
    let g = &st.games[&game()];
    assert_eq!(g.result.map(|r| r.as_str()), Some("0-1"));
    assert_eq!(g.status, GameStatus::Finished);
    assert!(
        st.next_deadline(&settings()).is_none(),
        "a finished game has no deadlines"
    );
}

#[test]
fn deadlines_replay_gives_the_same_state() {
    // Ticking at every hour or once at the end gives the same clocks and mails.
    let mut a = new_state(RuleSet::Post);
    let mut b = new_state(RuleSet::Post);
    let first = letter(ANNA, &[(1, W, "e4")]);
    for st in [&mut a, &mut b] {
        step(st, &first, at(2026, 12, 1, 10, 0));
    }
    let mut n_a = 0;
    let mut t = at(2026, 12, 1, 10, 0);
    while t < at(2027, 2, 1, 0, 0) {
        t += chrono::Duration::hours(7);
        n_a += a.tick(t, &settings()).mails.len();
    }
    let n_b = b.tick(t, &settings()).mails.len();
    assert_eq!(n_a, n_b);
    assert_eq!(a.games, b.games);
}

/// TO §3, §8: a player without a language of his own is written to in the relay's: with
/// `language = "en"` the query's hint shows the partner's move with English letters.
#[test]
fn s8_query_hint_uses_the_relays_language_for_a_player_without_one() {
    let s = crate::core::Settings {
        default_lang: Lang::En,
        ..settings()
    };
    let file = testkit::tournament(
        "T-1",
        "Testturnier",
        RuleSet::Fax,
        &[("Anna Adler", ANNA, None), ("Bert Berger", BERT, None)],
        &[(0, 1)],
    );
    let mut st = State::default();
    let mut k = 0;
    st.register(&file, at(2026, 11, 30, 12, 0), &s, &mut || {
        k += 1;
        format!("k{k}")
    })
    .unwrap();
    testkit::step_with(
        &mut st,
        &letter(ANNA, &[(1, W, "Nf3")]),
        at(2026, 12, 1, 10, 0),
        &s,
    );
    let out = testkit::step_with(&mut st, &letter(BERT, &[]), at(2026, 12, 1, 11, 0), &s);
    assert_eq!(kinds(&out), vec![MailKind::Query]);
    let text = reason(&out);
    assert!(text.contains("1. Nf3 1... …"), "{text}");
}

/// A mail before the start is queried with the start written as its sender writes dates.
#[test]
fn s8_not_started_names_the_start_in_the_senders_way() {
    let mut st = new_state(RuleSet::Fax);
    let out = step(
        &mut st,
        &letter(BERT, &[(1, B, "e5")]),
        at(2026, 11, 30, 13, 0),
    );
    assert_eq!(kinds(&out), vec![MailKind::Query]);
    let text = reason(&out);
    assert!(text.contains("2026-12-01 00:00"), "{text}");
}

/// The forward facts of the mail of `kind` in `out`.
fn forward_facts(out: &Output, kind: MailKind) -> crate::core::model::ForwardFacts {
    let mail = out
        .mails
        .iter()
        .find(|m| m.kind == kind)
        .unwrap_or_else(|| panic!("a {kind:?} mail: {:?}", kinds(out)));
    match &mail.facts {
        crate::core::model::Facts::Forward(f) => f.clone(),
        other => panic!("forward facts: {other:?}"),
    }
}

#[test]
fn s30_the_players_words_and_attachment_names_go_with_his_move() {
    let mut st = after_first_move(RuleSet::Fax);
    let words = Content {
        words: "Liebe Grüße aus Köln — und frohe Weihnachten!".into(),
        ..Content::default()
    };
    let mut mail = letter_with(BERT, &[(1, W, "e4"), (1, B, "e5")], words);
    mail.attachments = vec!["analyse.pdf".into()];
    let out = step(&mut st, &mail, at(2026, 12, 2, 10, 0));
    let to_anna = forward_facts(&out, MailKind::Move);
    assert_eq!(
        to_anna.words.as_deref(),
        Some("Liebe Grüße aus Köln — und frohe Weihnachten!")
    );
    assert!(!to_anna.words_own && !to_anna.words_cut);
    assert_eq!(to_anna.words_by, "Bert Berger");
    assert_eq!(to_anna.attachments, vec!["analyse.pdf".to_string()]);
    let receipt = forward_facts(&out, MailKind::Receipt);
    assert!(receipt.words_own, "the receipt shows what was forwarded");
    assert_eq!(receipt.words, to_anna.words);

    // At most WORDS_MAX characters; a longer text is cut and says so.
    let long = Content {
        words: "ä".repeat(crate::core::model::WORDS_MAX + 1),
        ..Content::default()
    };
    let out = step(
        &mut st,
        &letter_with(ANNA, &[(1, B, "e5"), (2, W, "Nf3")], long),
        at(2026, 12, 3, 10, 0),
    );
    let to_bert = forward_facts(&out, MailKind::Move);
    assert!(to_bert.words_cut);
    assert_eq!(
        to_bert.words.map(|w| w.chars().count()),
        Some(crate::core::model::WORDS_MAX)
    );

    // No words: nothing shown.
    let out = step(
        &mut st,
        &letter(BERT, &[(2, W, "Nf3"), (2, B, "Nc6")]),
        at(2026, 12, 4, 10, 0),
    );
    assert_eq!(forward_facts(&out, MailKind::Move).words, None);
}

/// The settings with clock warnings `warn_days` days before the control (TO §17).
fn warning_settings(warn_days: u32) -> crate::core::Settings {
    crate::core::Settings {
        warn_days,
        ..settings()
    }
}

/// The clock warnings in `out`, by recipient.
fn warned(out: &Output) -> Vec<String> {
    out.mails
        .iter()
        .filter(|m| m.kind == MailKind::ClockWarning)
        .map(|m| m.to[0].email.clone())
        .collect()
}

#[test]
fn s17_the_clock_warning_comes_on_its_day_not_the_day_before_and_once() {
    // Post: 30 days for the first 10 moves. Bert received 1. e4 on 2026-12-01 at 10:00; without
    // announcement day 11 on is charged +5 (TO §13): 5 days left once 20 days are used, which
    // is the count from 2026-12-21 00:00 on.
    let s = warning_settings(5);
    let mut st = after_first_move(RuleSet::Post);
    assert!(
        warned(&st.tick(at(2026, 12, 20, 23, 59), &s)).is_empty(),
        "not the day before"
    );
    let out = st.tick(at(2026, 12, 21, 0, 0), &s);
    assert_eq!(warned(&out), [BERT]);
    let f = match &out
        .mails
        .iter()
        .find(|m| m.kind == MailKind::ClockWarning)
        .unwrap()
        .facts
    {
        crate::core::model::Facts::ClockWarning(f) => f.warning.clone(),
        other => panic!("{other:?}"),
    };
    assert_eq!((f.days_left, f.moves_to_go, f.next_control), (5, 10, 10));
    assert!(
        warned(&st.tick(at(2026, 12, 24, 0, 0), &s)).is_empty(),
        "once per control"
    );
    // 0: no warnings.
    let mut st = after_first_move(RuleSet::Post);
    assert!(warned(&st.tick(at(2026, 12, 26, 0, 0), &warning_settings(0))).is_empty());
}

#[test]
fn s17_a_leave_moves_the_warning_and_a_move_before_it_means_none() {
    let s = warning_settings(5);
    // Bert's leave of 10 days (TO §24) before the warning day: his count rests; the warning
    // comes 10 days later.
    let mut st = after_first_move(RuleSet::Post);
    let leave = crate::letter::content::read_content("Urlaub vom 10.12.2026 bis 19.12.2026");
    assert!(leave.leave.is_some());
    let out = step_with(
        &mut st,
        &letter_with(BERT, &[], leave),
        at(2026, 12, 2, 9, 0),
        &s,
    );
    assert_eq!(
        kinds(&out),
        [MailKind::Leave, MailKind::Leave, MailKind::Receipt]
    );
    assert!(warned(&st.tick(at(2026, 12, 30, 23, 59), &s)).is_empty());
    assert_eq!(warned(&st.tick(at(2026, 12, 31, 0, 0), &s)), [BERT]);

    // Bert moves the day before the warning day: no warning to him; Anna's own count starts.
    let mut st = after_first_move(RuleSet::Post);
    step_with(
        &mut st,
        &letter(BERT, &[(1, W, "e4"), (1, B, "e5")]),
        at(2026, 12, 20, 18, 0),
        &s,
    );
    let out = st.tick(at(2026, 12, 21, 0, 0), &s);
    assert!(warned(&out).is_empty(), "{:?}", kinds(&out));
}

#[test]
fn s17_a_player_declines_warnings_and_takes_them_back() {
    let s = warning_settings(5);
    let mut st = after_first_move(RuleSet::Post);
    let off = crate::letter::content::read_content("Keine Warnungen");
    assert_eq!(off.warnings, Some(false));
    let out = step_with(
        &mut st,
        &letter_with(BERT, &[], off),
        at(2026, 12, 2, 9, 0),
        &s,
    );
    assert_eq!(kinds(&out), [MailKind::Status]);
    assert!(warned(&st.tick(at(2026, 12, 22, 0, 0), &s)).is_empty());
    let on = crate::letter::content::read_content("warnings");
    step_with(
        &mut st,
        &letter_with(BERT, &[], on),
        at(2026, 12, 22, 9, 0),
        &s,
    );
    assert_eq!(warned(&st.tick(at(2026, 12, 22, 9, 1), &s)), [BERT]);
}

#[test]
fn s30_words_alone_go_as_a_message_five_a_day_and_not_under_moves_only() {
    let mut st = after_first_move(RuleSet::Fax);
    let words = |text: &str| crate::letter::content::read_content(text);
    let hello = words("Frohe Weihnachten!");
    assert!(hello.message);
    // Anna is not on move: her words go all the same, the clock does not change.
    let since = st.games[&game()].turn.since;
    let out = step(
        &mut st,
        &letter_with(ANNA, &[], hello.clone()),
        at(2026, 12, 2, 10, 0),
    );
    assert_eq!(kinds(&out), [MailKind::Message, MailKind::Receipt]);
    assert_eq!(out.mails[0].to[0].email, BERT);
    match &out.mails[1].facts {
        crate::core::model::Facts::Message(f) => {
            assert!(f.message.own && !f.message.awaited);
            assert_eq!(f.message.words, "Frohe Weihnachten!");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(st.games[&game()].turn.since, since);
    // Bert, on move, is told his move is still awaited.
    let out = step(
        &mut st,
        &letter_with(BERT, &[], words("Danke, ebenso!")),
        at(2026, 12, 2, 11, 0),
    );
    match &out.mails[1].facts {
        crate::core::model::Facts::Message(f) => assert!(f.message.awaited),
        other => panic!("{other:?}"),
    }
    // At most 5 a day per player and game: the sixth is queried.
    for h in 0..4 {
        let out = step(
            &mut st,
            &letter_with(ANNA, &[], hello.clone()),
            at(2026, 12, 2, 12 + h, 0),
        );
        assert_eq!(kinds(&out), [MailKind::Message, MailKind::Receipt]);
    }
    let out = step(
        &mut st,
        &letter_with(ANNA, &[], hello.clone()),
        at(2026, 12, 2, 17, 0),
    );
    assert_eq!(kinds(&out), [MailKind::Query]);
    assert!(reason(&out).contains("5"), "{}", reason(&out));
    // A day after the first, one more goes.
    let out = step(
        &mut st,
        &letter_with(ANNA, &[], hello.clone()),
        at(2026, 12, 3, 10, 1),
    );
    assert_eq!(kinds(&out), [MailKind::Message, MailKind::Receipt]);

    // TO §30: the director restricts the game to moves; words alone are queried, and the
    // words beside a move are not forwarded.
    let director = crate::letter::Letter {
        from: TL.into(),
        ..testkit::letter(TL, None, words("Nur Züge: T-1/1"))
    };
    let out = step(&mut st, &director, at(2026, 12, 3, 12, 0));
    assert_eq!(kinds(&out), [MailKind::Director; 3]);
    assert!(st.games[&game()].moves_only);
    let out = step(
        &mut st,
        &letter_with(BERT, &[], words("Hallo Anna!")),
        at(2026, 12, 3, 13, 0),
    );
    assert_eq!(kinds(&out), [MailKind::Query]);
    let with_move = Content {
        words: "Hallo Anna!".into(),
        ..Content::default()
    };
    let out = step(
        &mut st,
        &letter_with(BERT, &[(1, W, "e4"), (1, B, "e5")], with_move),
        at(2026, 12, 3, 14, 0),
    );
    assert_eq!(forward_facts(&out, MailKind::Move).words, None);
    let lift = testkit::letter(TL, None, words("Nur Züge aufgehoben: T-1/1"));
    step(&mut st, &lift, at(2026, 12, 3, 15, 0));
    assert!(!st.games[&game()].moves_only);
}
