//! Leave (TO §24/§25), the director's commands (TO §21–§26, §30, §31), unreachable players (Fax 2.2)
//! and the weekly digest, as table tests named after their paragraph, driven with explicit `now`.
//! Letters are real mails read by the real reader, so the forms players and directors write are
//! tested on the way.

use crate::core::testkit::{self, ANNA, BERT, CARL, TL, at, day, kinds, settings};
use chrono::{DateTime, NaiveDate, Utc, Weekday};
use chrono_tz::Europe::Berlin;
use shakmaty::Color;

use crate::core::NewTournament;
use crate::core::door::reply::director_key;
use crate::core::model::Event;
use crate::core::model::Facts;
use crate::core::model::GameStatus;
use crate::core::{Bounce, Output, Settings, State, view};
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{Letter, read_letter};
use crate::mail_kind::MailKind;
use crate::rules::RuleSet;

fn file(id: &str, rules: RuleSet) -> NewTournament {
    testkit::tournament(
        id,
        &format!("Turnier {id}"),
        rules,
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, Some(Lang::En)),
            ("Carl Clausen", CARL, None),
        ],
        &[(0, 1), (2, 0), (1, 2)],
    )
}

fn register(st: &mut State, f: &NewTournament) {
    testkit::register(st, f);
}

fn new_state(rules: RuleSet) -> State {
    let mut st = State::default();
    register(&mut st, &file("T-1", rules));
    st
}

fn g(n: u32) -> GameRef {
    GameRef::new("T-1", n)
}

/// A real mail from `from` with `subject` and `body`, read by the reader.
fn mail(from: &str, subject: &str, body: &str) -> Letter {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let raw = format!(
        "From: {from}\r\nTo: relay@fernschach.test\r\nSubject: {subject}\r\nMessage-ID: <t{n}@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    );
    read_letter(raw.as_bytes()).expect("reads")
}

/// Fires what time made due by `now` (as the shell does first), then returns what the letter led to.
fn step(st: &mut State, l: &Letter, now: DateTime<Utc>) -> Output {
    let s = settings();
    st.tick(now, &s);
    st.handle_letter(l, now, &s)
}

/// (kind, first recipient) of every mail.
fn sent(out: &Output) -> Vec<(MailKind, String)> {
    out.mails
        .iter()
        .map(|m| (m.kind, m.to[0].email.clone()))
        .collect()
}

/// TO §25: the notice to each of `partners` has the director in copy, who gets a copy of it (with
/// his own key of the game) beside the partner's.
fn director_in_copy_of_each_partners_notice(out: &Output, partners: &[&str]) {
    for partner in partners {
        let copies: Vec<&crate::core::model::Mail> = out
            .mails
            .iter()
            .filter(|m| m.kind == MailKind::Leave && m.to[0].email == *partner)
            .collect();
        let envelopes: Vec<Vec<String>> = copies.iter().map(|m| m.envelope.clone()).collect();
        assert_eq!(
            envelopes,
            vec![vec![partner.to_string()], vec![TL.to_string()]],
            "{partner}"
        );
        assert!(copies.iter().all(|m| m.cc.iter().any(|c| c.email == TL)));
    }
}

fn queries(out: &Output) -> Vec<String> {
    out.mails
        .iter()
        .filter(|m| m.kind == MailKind::Query)
        .map(|m| {
            crate::render::facts(m)["reason"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect()
}

fn leaves(st: &State, email: &str) -> Vec<(NaiveDate, NaiveDate)> {
    st.tournaments["T-1"]
        .player(email)
        .unwrap()
        .leaves
        .iter()
        .map(|r| (r.from, r.to))
        .collect()
}

fn play(st: &mut State, from: &str, game: u32, text: &str, now: DateTime<Utc>) -> Output {
    let out = step(st, &mail(from, &format!("[T-1/{game}]"), text), now);
    assert!(queries(&out).is_empty(), "{text}: {:?}", queries(&out));
    out
}

// ------------------------------------------------------------------------------------------------
// TO §24/§25: leave

/// Asks for leave on `now` with `text`; Ok(()) when granted, else the query's words.
fn ask(st: &mut State, text: &str, now: DateTime<Utc>) -> Result<(), String> {
    let out = step(st, &mail(BERT, "Leave [T-1]", text), now);
    match queries(&out).first() {
        Some(q) => {
            assert!(
                !out.mails.iter().any(|m| m.kind == MailKind::Leave),
                "a refused leave sends no notice"
            );
            Err(q.clone())
        }
        None => Ok(()),
    }
}

#[test]
fn s24_leave_min_7_days() {
    let cases: &[(&str, Option<&str>)] = &[
        ("leave 2026-12-20 to 2026-12-25", Some("only 6 days")),
        ("leave 2026-12-20 to 2026-12-20", Some("only 1 days")),
        ("Urlaub: 20.12.2026 – 26.12.2026", None),
        (
            "leave 2026-12-20 to 2026-12-19",
            Some("the last day comes before the first"),
        ),
    ];
    for (text, want) in cases {
        let mut st = new_state(RuleSet::Post);
        let got = ask(&mut st, text, at(2026, 12, 1, 10, 0));
        match want {
            None => assert_eq!(got, Ok(()), "{text}"),
            Some(w) => {
                let q = got.expect_err(text);
                assert!(q.contains(w), "{text}: {q}");
                assert!(leaves(&st, BERT).is_empty(), "{text}");
            }
        }
    }
}

#[test]
fn s24_not_in_the_past() {
    let mut st = new_state(RuleSet::Post);
    let q = ask(
        &mut st,
        "leave 2026-12-09 to 2026-12-20",
        at(2026, 12, 10, 9, 0),
    )
    .expect_err("begins yesterday");
    assert!(q.contains("before today") && q.contains("§25"), "{q}");
    // Beginning today is in time.
    assert_eq!(
        ask(
            &mut st,
            "leave 2026-12-10 to 2026-12-20",
            at(2026, 12, 10, 9, 0)
        ),
        Ok(())
    );
    // Without years: the nearest 20.12. and the next 3.1. after it.
    let mut st = new_state(RuleSet::Post);
    assert_eq!(
        ask(&mut st, "Urlaub vom 20.12. bis 3.1.", at(2026, 12, 1, 9, 0)),
        Ok(())
    );
    assert_eq!(
        leaves(&st, BERT),
        vec![(day(2026, 12, 20), day(2027, 1, 3))]
    );
}

#[test]
fn s24_no_overlap() {
    let mut st = new_state(RuleSet::Post);
    let now = at(2026, 12, 1, 10, 0);
    assert_eq!(ask(&mut st, "leave 2026-12-20 to 2027-01-03", now), Ok(()));
    for text in [
        "leave 2027-01-03 to 2027-01-10",
        "leave 2026-12-10 to 2026-12-20",
        "leave 2026-12-22 to 2026-12-29",
    ] {
        let q = ask(&mut st, text, now).expect_err(text);
        assert!(
            q.contains("overlaps your leave from 2026-12-20 to 2027-01-03"),
            "{q}"
        );
    }
    // Adjacent is fine.
    assert_eq!(ask(&mut st, "leave 2027-01-04 to 2027-01-10", now), Ok(()));
}

#[test]
fn s24_budget_per_tournament_year() {
    // The tournament started in December 2026: its years run Dec–Nov.
    let mut st = new_state(RuleSet::Post);
    let now = at(2026, 12, 1, 10, 0);
    // 21 days across the turn of the calendar year, 21 in March: 42, the whole budget.
    assert_eq!(ask(&mut st, "leave 2026-12-20 to 2027-01-09", now), Ok(()));
    assert_eq!(ask(&mut st, "leave 2027-03-01 to 2027-03-21", now), Ok(()));
    let q = ask(&mut st, "leave 2027-06-01 to 2027-06-07", now).expect_err("over budget");
    assert!(
        q.contains("2026-12-01 – 2027-11-30")
            && q.contains("already have 42")
            && q.contains("0 are left"),
        "{q}"
    );
    // Across the turn of the tournament year: 6 days in the full year are too many.
    let q = ask(&mut st, "leave 2027-11-25 to 2027-12-05", now).expect_err("6 days in year 1");
    assert!(q.contains("(6 days in that year)"), "{q}");
    // The next tournament year has its own budget.
    assert_eq!(ask(&mut st, "leave 2027-12-01 to 2028-01-11", now), Ok(()));
    // Special leave by the director does not count on the budget.
    let out = step(
        &mut st,
        &mail(
            TL,
            "[T-1]",
            "Sonderurlaub: 01.07.2027 – 14.07.2027 für bert@fernschach.test",
        ),
        now,
    );
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    assert_eq!(
        st.tournaments["T-1"]
            .player(BERT)
            .unwrap()
            .special_leaves
            .len(),
        1
    );
}

#[test]
fn s24_tournament_year_bounds() {
    use crate::core::director::leave::tournament_year;
    let start = day(2026, 12, 15);
    for (d, want) in [
        (day(2026, 12, 1), (day(2026, 12, 1), day(2027, 11, 30))),
        (day(2027, 11, 30), (day(2026, 12, 1), day(2027, 11, 30))),
        (day(2027, 12, 1), (day(2027, 12, 1), day(2028, 11, 30))),
        (day(2026, 11, 30), (day(2025, 12, 1), day(2026, 11, 30))),
    ] {
        assert_eq!(tournament_year(start, d), want, "{d}");
    }
}

#[test]
fn s25_leave_notice_to_every_partner_and_tl_receipt_to_him() {
    let mut st = new_state(RuleSet::Post);
    let out = step(
        &mut st,
        &mail(BERT, "Urlaub", "Urlaub: 20.12.2026 – 03.01.2027"),
        at(2026, 12, 1, 10, 0),
    );
    // Each partner's notice twice: his copy, and the director's (in copy, TO §25).
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Leave, ANNA.to_string()),
            (MailKind::Leave, ANNA.to_string()),
            (MailKind::Leave, CARL.to_string()),
            (MailKind::Leave, CARL.to_string()),
            (MailKind::Leave, TL.to_string()),
            (MailKind::Receipt, BERT.to_string()),
        ]
    );
    director_in_copy_of_each_partners_notice(&out, &[ANNA, CARL]);
    // Each partner's notice is about the game they play with him.
    assert_eq!(out.mails[0].game, Some(g(1)));
    assert_eq!(out.mails[2].game, Some(g(3)));
    let Facts::LeaveReceipt(receipt) = &out.mails[5].facts else {
        panic!("a leave receipt: {:?}", out.mails[5].facts)
    };
    assert_eq!(receipt.leave.left, 27);
    // Logged in each of his games; the mail is archived under them (TO §11).
    let logged: Vec<&GameRef> = out
        .events
        .iter()
        .filter(|e| matches!(e.event, Event::Leave { .. }))
        .map(|e| &e.game)
        .collect();
    assert_eq!(logged, vec![&g(1), &g(3)]);
    assert!(out.letter_games.contains(&g(1)) && out.letter_games.contains(&g(3)));
    assert_eq!(
        leaves(&st, BERT),
        vec![(day(2026, 12, 20), day(2027, 1, 3))]
    );
}

#[test]
fn s24_without_tournament_each_running_tournament_on_its_own_budget() {
    let mut st = new_state(RuleSet::Post);
    register(&mut st, &file("T-2", RuleSet::Fax));
    let now = at(2026, 12, 1, 10, 0);
    // In T-2 Bert already used his budget.
    let out = step(
        &mut st,
        &mail(BERT, "[T-2]", "leave 2027-02-01 to 2027-03-14"),
        now,
    );
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    let out = step(
        &mut st,
        &mail(BERT, "Leave", "leave 2027-04-01 to 2027-04-07"),
        now,
    );
    let receipts = out
        .mails
        .iter()
        .filter(|m| m.kind == MailKind::Receipt)
        .count();
    assert_eq!(receipts, 1, "granted in T-1");
    let q = queries(&out);
    assert_eq!(q.len(), 1, "refused in T-2");
    assert!(q[0].contains("tournament T-2"), "{}", q[0]);
    assert_eq!(leaves(&st, BERT), vec![(day(2027, 4, 1), day(2027, 4, 7))]);
}

#[test]
fn s24_no_reminder_during_leave() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    assert_eq!(
        ask(
            &mut st,
            "leave 2026-12-10 to 2026-12-30",
            at(2026, 12, 5, 10, 0)
        ),
        Ok(())
    );
    // Without leave the reminder came on 17.12.; Bert's 8 days before the leave count, the rest
    // after it: the 16th day is 7.1.
    let s = settings();
    // The copies delivered to Bert (the director's copy of a reminder is another one).
    let to_bert = |out: &Output| -> Vec<MailKind> {
        out.mails
            .iter()
            .filter(|m| {
                m.to.iter().any(|r| r.email == BERT) && m.envelope.iter().any(|e| e == BERT)
            })
            .map(|m| m.kind)
            .collect()
    };
    for now in [
        at(2026, 12, 17, 9, 0),
        at(2026, 12, 30, 23, 0),
        at(2027, 1, 6, 23, 0),
    ] {
        let out = st.tick(now, &s);
        assert!(to_bert(&out).is_empty(), "{now}: {:?}", sent(&out));
    }
    let f = view::clock_figures(
        &st.games[&g(1)],
        &st.tournaments["T-1"],
        Color::Black,
        at(2026, 12, 20, 12, 0),
        Berlin,
    );
    assert!(f.on_leave);
    assert_eq!(f.used, 8, "his clock rests during the leave");
    // Game 1 (Black, since 1.12. 10:00) and game 3 (White, since the start): both on 7.1.
    let out = st.tick(at(2027, 1, 7, 0, 0), &s);
    assert_eq!(to_bert(&out), vec![MailKind::Reminder, MailKind::Reminder]);
    // His partner's clock ran as usual: Carl, White in game 2, was reminded on 17.12.
    assert_eq!(st.games[&g(2)].turn.reminded, Some(at(2026, 12, 17, 0, 0)));
}

#[test]
fn s24_receipt_during_leave_counts_next_day() {
    let mut st = new_state(RuleSet::Post);
    assert_eq!(
        ask(
            &mut st,
            "leave 2026-12-14 to 2026-12-27",
            at(2026, 12, 1, 10, 0)
        ),
        Ok(())
    );
    // Anna's move reaches Bert during his leave: it counts as received on 28.12.
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 15, 10, 0));
    play(&mut st, BERT, 1, "1. e4 e5", at(2026, 12, 29, 10, 0));
    assert_eq!(st.games[&g(1)].moves[1].days_used, 1);
    assert_eq!(
        leaves(&st, BERT),
        vec![(day(2026, 12, 14), day(2026, 12, 27))]
    );
}

#[test]
fn s24_leave_asked_with_a_move_is_kept() {
    // Bert moves and, in the same mail, goes on leave from today: the move does not end it.
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    let out = play(
        &mut st,
        BERT,
        1,
        "1. e4 e5\n\nleave 2026-12-02 to 2026-12-15",
        at(2026, 12, 2, 10, 0),
    );
    assert_eq!(
        leaves(&st, BERT),
        vec![(day(2026, 12, 2), day(2026, 12, 15))]
    );
    let ended_early = out
        .mails
        .iter()
        .filter(|m| matches!(&m.facts, Facts::Leave(f) if f.ended_early))
        .count();
    assert_eq!(ended_early, 0, "granted, not granted and ended");
}

#[test]
fn s24_early_end_on_move() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 12, 10, 0));
    assert_eq!(
        ask(
            &mut st,
            "leave 2026-12-14 to 2026-12-27",
            at(2026, 12, 13, 10, 0)
        ),
        Ok(())
    );
    // Bert moves on 20.12. during his leave: it ends on 19.12., in all games of the tournament.
    let out = play(&mut st, BERT, 1, "1. e4 e5", at(2026, 12, 20, 10, 0));
    assert_eq!(
        leaves(&st, BERT),
        vec![(day(2026, 12, 14), day(2026, 12, 19))]
    );
    let notices: Vec<(MailKind, String)> = sent(&out)
        .into_iter()
        .filter(|(k, _)| *k == MailKind::Leave)
        .collect();
    director_in_copy_of_each_partners_notice(&out, &[ANNA, CARL]);
    assert_eq!(
        notices,
        vec![
            (MailKind::Leave, ANNA.to_string()),
            (MailKind::Leave, ANNA.to_string()),
            (MailKind::Leave, CARL.to_string()),
            (MailKind::Leave, CARL.to_string()),
            (MailKind::Leave, TL.to_string()),
        ]
    );
    let tl = out
        .mails
        .iter()
        .find(|m| m.kind == MailKind::Leave && m.to[0].email == TL)
        .unwrap();
    let Facts::Leave(notice) = &tl.facts else {
        panic!("a leave notice: {:?}", tl.facts)
    };
    assert!(notice.ended_early);
    assert_eq!(notice.days_returned, 8);
    // 13.12. counts, 14.–19.12. rest, 20.12. counts.
    assert_eq!(st.games[&g(1)].moves[1].days_used, 2);
    // The 8 days are back in the budget: 6 + 28 + 8 = 42 fit into this tournament year.
    assert_eq!(
        ask(
            &mut st,
            "leave 2027-02-01 to 2027-02-28",
            at(2026, 12, 21, 10, 0)
        ),
        Ok(())
    );
    // A move on the first day of a leave cancels it.
    assert_eq!(
        ask(
            &mut st,
            "leave 2026-12-24 to 2026-12-31",
            at(2026, 12, 21, 10, 0)
        ),
        Ok(())
    );
    play(&mut st, BERT, 3, "1. d4", at(2026, 12, 24, 10, 0));
    assert_eq!(
        leaves(&st, BERT),
        vec![
            (day(2026, 12, 14), day(2026, 12, 19)),
            (day(2027, 2, 1), day(2027, 2, 28))
        ]
    );
}

// ------------------------------------------------------------------------------------------------
// The director's commands

/// Drives game 1 to a second time forfeit of Bert: the clock says so, the game is suspended (§21).
fn second_forfeit(st: &mut State) {
    let game = st.games.get_mut(&g(1)).unwrap();
    game.clocks.black.forfeits = 2;
    game.turn.forfeit_claimed = true;
    game.status = GameStatus::Suspended;
}

#[test]
fn s22_tl_confirms_second_zu() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    // Nothing to confirm yet.
    let out = step(
        &mut st,
        &mail(TL, "Re: [T-1/1]", "ZÜ bestätigt"),
        at(2026, 12, 2, 10, 0),
    );
    assert!(
        queries(&out)[0].contains("keine zweite Zeitüberschreitung"),
        "{:?}",
        queries(&out)
    );
    assert_eq!(st.games[&g(1)].status, GameStatus::Running);
    second_forfeit(&mut st);
    let out = step(
        &mut st,
        &mail(TL, "Re: [T-1/1]", "ZÜ bestätigt"),
        at(2027, 3, 1, 10, 0),
    );
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::GameEnd, ANNA.to_string()),
            (MailKind::GameEnd, BERT.to_string()),
            (MailKind::GameEnd, TL.to_string()),
            (MailKind::Director, TL.to_string()),
        ]
    );
    let game = &st.games[&g(1)];
    assert_eq!(game.status, GameStatus::Finished);
    assert_eq!(game.result.map(|r| r.as_str()), Some("1-0"));
    assert!(out.events.iter().any(|e| matches!(&e.event, Event::Director { command, .. } if command.contains("second time forfeit"))));
    assert!(out.letter_games.contains(&g(1)));
}

#[test]
fn s26_tl_sets_result() {
    let cases = [
        ("Ergebnis: 1-0", "1-0"),
        ("result: 1/2-1/2", "1/2-1/2"),
        ("Ergebnis: 0:1", "0-1"),
    ];
    for (text, want) in cases {
        let mut st = new_state(RuleSet::Post);
        let out = step(&mut st, &mail(TL, "[T-1/2]", text), at(2026, 12, 5, 10, 0));
        assert_eq!(
            st.games[&g(2)].result.map(|r| r.as_str()),
            Some(want),
            "{text}"
        );
        assert_eq!(st.games[&g(2)].status, GameStatus::Finished);
        let game_ends = out
            .mails
            .iter()
            .filter(|m| m.kind == MailKind::GameEnd)
            .count();
        assert_eq!(game_ends, 3, "{text}");
        // The same result again changes nothing.
        let out = step(&mut st, &mail(TL, "[T-1/2]", text), at(2026, 12, 5, 11, 0));
        assert_eq!(
            sent(&out),
            vec![(MailKind::Query, TL.to_string())],
            "{text}"
        );
    }
}

#[test]
fn s30_time_adjustment() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    play(&mut st, BERT, 1, "1. e4 e5", at(2026, 12, 11, 10, 0));
    assert_eq!(st.games[&g(1)].clocks.black.used_in_period, 10);
    let out = step(
        &mut st,
        &mail(
            TL,
            "Re: [T-1/1]",
            "Bedenkzeit: +3 Tage für bert@fernschach.test, Grund: Zug doppelt gesandt (TO §8)",
        ),
        at(2026, 12, 12, 10, 0),
    );
    assert_eq!(st.games[&g(1)].clocks.black.used_in_period, 13);
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Director, TL.to_string()),
            (MailKind::Director, ANNA.to_string()),
            (MailKind::Director, BERT.to_string()),
        ]
    );
    // Both players are told the reason, each in his language.
    assert_eq!(out.mails[2].lang, Lang::En);
    for m in &out.mails {
        let Facts::Director(notice) = &m.facts else {
            panic!("a director's notice: {:?}", m.facts)
        };
        assert_eq!(
            notice.reason.as_deref(),
            Some("Zug doppelt gesandt (TO §8)")
        );
    }
    let out = step(
        &mut st,
        &mail(
            TL,
            "Re: [T-1/1]",
            "time: -20 days for bert@fernschach.test, reason: post strike",
        ),
        at(2026, 12, 12, 11, 0),
    );
    assert_eq!(
        st.games[&g(1)].clocks.black.used_in_period,
        0,
        "never below 0"
    );
    assert!(queries(&out).is_empty());
    // A player not in the game.
    let out = step(
        &mut st,
        &mail(
            TL,
            "Re: [T-1/1]",
            "time: +2 days for carl@fernschach.test, reason: x",
        ),
        at(2026, 12, 12, 12, 0),
    );
    assert!(
        queries(&out)[0].contains("carl@fernschach.test spielt nicht in T-1/1"),
        "{:?}",
        queries(&out)
    );
    // Added days that exceed the limit make the forfeit due at once (TO §17).
    let out = step(
        &mut st,
        &mail(
            TL,
            "Re: [T-1/1]",
            "Bedenkzeit: +31 Tage für anna@fernschach.test, Grund: Strafe (TO §30)",
        ),
        at(2026, 12, 12, 13, 0),
    );
    assert!(
        out.mails.iter().any(|m| m.kind == MailKind::TimeForfeit),
        "{:?}",
        sent(&out)
    );
}

#[test]
fn s25_late_leave_accepted_by_tl() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    // Bert tells too late: refused.
    assert!(
        ask(
            &mut st,
            "leave 2026-12-05 to 2026-12-15",
            at(2026, 12, 8, 10, 0)
        )
        .is_err()
    );
    // TL accepts it.
    let out = step(
        &mut st,
        &mail(
            TL,
            "[T-1]",
            "Urlaub nachträglich anerkannt 05.12.2026 – 15.12.2026 für bert@fernschach.test",
        ),
        at(2026, 12, 8, 11, 0),
    );
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    assert_eq!(
        leaves(&st, BERT),
        vec![(day(2026, 12, 5), day(2026, 12, 15))]
    );
    let to: Vec<String> = sent(&out).into_iter().map(|(_, t)| t).collect();
    assert_eq!(to, vec![TL, BERT, ANNA, CARL]);
    assert!(out.mails.iter().all(|m| m.kind == MailKind::Director));
    // Bert's clock rested from 5.12.: 2.–4.12. count.
    let f = view::clock_figures(
        &st.games[&g(1)],
        &st.tournaments["T-1"],
        Color::Black,
        at(2026, 12, 8, 12, 0),
        Berlin,
    );
    assert_eq!(f.used, 3);
    // The checks of a leave still apply (7 days).
    let out = step(
        &mut st,
        &mail(
            TL,
            "[T-1]",
            "accept late leave 2026-11-20 to 2026-11-22 for anna@fernschach.test",
        ),
        at(2026, 12, 8, 12, 0),
    );
    assert!(
        queries(&out)[0].contains("nur 3 Tage"),
        "{:?}",
        queries(&out)
    );
}

/// What a command could change: each game's state, result, clocks, duties and moves; the leaves.
fn frozen(st: &State) -> String {
    let games: Vec<String> = st
        .games
        .values()
        .map(|g| {
            format!(
                "{:?} {:?} {:?} {:?} {:?}",
                g.status, g.result, g.clocks, g.turn, g.moves
            )
        })
        .collect();
    format!("{games:?} {:?}", st.tournaments)
}

#[test]
fn director_command_from_non_tl_refused() {
    let mut st = new_state(RuleSet::Post);
    second_forfeit(&mut st);
    st.tick(at(2027, 3, 1, 10, 0), &settings());
    let before = frozen(&st);
    for (from, text) in [
        (ANNA, "ZÜ bestätigt"),
        (BERT, "result: 1-0"),
        (
            ANNA,
            "Bedenkzeit: -5 Tage für anna@fernschach.test, Grund: bitte",
        ),
        (CARL, "fortsetzen"),
    ] {
        let out = step(&mut st, &mail(from, "[T-1/1]", text), at(2027, 3, 1, 10, 0));
        assert_eq!(
            sent(&out),
            vec![(MailKind::Query, from.to_string())],
            "{from}: {text}"
        );
        let q = &queries(&out)[0];
        assert!(q.contains("T-1"), "{q}");
        assert!(
            out.letter_games.contains(&g(1)),
            "archived under the game (TO §11)"
        );
    }
    assert_eq!(frozen(&st), before, "nothing changed");
}

#[test]
fn director_malformed_or_missing_command_lists_the_forms() {
    let mut st = new_state(RuleSet::Post);
    second_forfeit(&mut st);
    st.tick(at(2027, 3, 1, 10, 0), &settings());
    let before = frozen(&st);
    for text in [
        "ZÜ bestätigt\nErgebnis: Weiß gewinnt",
        "Hallo, wie geht es?",
        "Sonderurlaub: bald",
    ] {
        let out = step(&mut st, &mail(TL, "[T-1/1]", text), at(2027, 3, 1, 10, 0));
        assert_eq!(
            sent(&out),
            vec![(MailKind::Query, TL.to_string())],
            "{text}"
        );
        let q = &queries(&out)[0];
        for form in [
            "ZÜ bestätigt",
            "Ergebnis: 1-0",
            "Sonderurlaub:",
            "Bedenkzeit: +3 Tage",
            "nachträglich",
            "fortsetzen",
        ] {
            assert!(q.contains(form), "{text}: {form} missing in {q}");
        }
    }
    assert_eq!(frozen(&st), before, "nothing changed");
}

#[test]
fn director_resumes_suspended_game_and_reply_key_names_it() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    second_forfeit(&mut st);
    let key = director_key(&st, &g(1)).expect("the director has a key per game");
    assert_eq!(st.keys.get(&key).unwrap().email, TL);
    let mut l = mail(TL, "Re: Zweite Zeitüberschreitung", "fortsetzen");
    l.reply_keys = vec![key];
    let out = step(&mut st, &l, at(2027, 3, 1, 10, 0));
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    let game = &st.games[&g(1)];
    assert_eq!(game.status, GameStatus::Running);
    assert_eq!(game.clocks.black.forfeits, 1, "the second ZÜ was not found");
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Director, TL.to_string()),
            (MailKind::Director, ANNA.to_string()),
            (MailKind::Director, BERT.to_string()),
        ]
    );
    // Moves are forwarded again.
    play(&mut st, BERT, 1, "1. e4 e5", at(2027, 3, 2, 10, 0));
    let out = step(
        &mut st,
        &mail(TL, "[T-1/1]", "resume"),
        at(2027, 3, 2, 11, 0),
    );
    assert!(
        queries(&out)[0].contains("weder angehalten"),
        "{:?}",
        queries(&out)
    );
}

// ------------------------------------------------------------------------------------------------
// Fax 2.2: unreachable players

fn bounce(recipient: &str, message_id: &str) -> Bounce {
    Bounce {
        message_id: message_id.into(),
        recipient: recipient.into(),
        kind: Some("move".into()),
        game: Some(g(1)),
        error: "550 5.1.1 Recipient address rejected".into(),
        text: Some("1. e4".into()),
    }
}

#[test]
fn fax_2_2_bounce_report_once() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    let before = st.games.clone();
    let s = settings();
    let now = at(2026, 12, 1, 10, 1);
    let out = st.handle_bounce(&bounce(BERT, "m1@x"), now, &s);
    assert_eq!(sent(&out), vec![(MailKind::BounceReport, TL.to_string())]);
    let m = &out.mails[0];
    assert_eq!(m.game, Some(g(1)));
    let Facts::Bounce(report) = &m.facts else {
        panic!("a bounce report: {:?}", m.facts)
    };
    assert_eq!(report.text.as_deref(), Some("1. e4"));
    assert_eq!(report.player_email, BERT);
    assert!(m.reply_key.is_some(), "TL answers with his key of the game");
    // The same failure learnt again (a DSN after the SMTP refusal): no second report.
    let again = st.handle_bounce(
        &Bounce {
            recipient: "Bert@Fernschach.TEST".into(),
            ..bounce(BERT, "m1@x")
        },
        now,
        &s,
    );
    assert!(again.mails.is_empty());
    // Another mail to him is another report.
    assert_eq!(
        st.handle_bounce(&bounce(BERT, "m2@x"), now, &s).mails.len(),
        1
    );
    // Nothing is lost: the move stands as forwarded, the clocks unchanged.
    assert_eq!(st.games[&g(1)].moves, before[&g(1)].moves);
    assert_eq!(st.games[&g(1)].turn, before[&g(1)].turn);
}

#[test]
fn fax_2_2_bounce_to_a_non_player_is_never_answered() {
    let mut st = new_state(RuleSet::Post);
    let s = settings();
    for r in [TL, "stranger@x.de", "relay@fernschach.test"] {
        let out = st.handle_bounce(&bounce(r, "m1@x"), at(2026, 12, 1, 10, 0), &s);
        assert!(out.mails.is_empty(), "{r}");
    }
}

// ------------------------------------------------------------------------------------------------
// The weekly digest

fn digests(out: &Output) -> usize {
    out.mails
        .iter()
        .filter(|m| m.kind == MailKind::Digest)
        .count()
}

#[test]
fn digest_weekly_once() {
    let mut st = new_state(RuleSet::Post);
    let mut off = file("T-2", RuleSet::Post);
    off.digest = false;
    register(&mut st, &off);
    let s = Settings {
        digest_day: Some(Weekday::Mon),
        warn_days: 0,
        guard: Default::default(),
        ..settings()
    };
    // Registered Monday 30.11. 12:00: the first digest is Monday 7.12. 00:00, for T-1 only.
    assert_eq!(digests(&st.tick(at(2026, 12, 6, 23, 59), &s)), 0);
    let out = st.tick(at(2026, 12, 7, 0, 0), &s);
    assert_eq!(sent(&out), vec![(MailKind::Digest, TL.to_string())]);
    let Facts::Digest(digest) = &out.mails[0].facts else {
        panic!("a digest: {:?}", out.mails[0].facts)
    };
    assert_eq!(digest.tournament_id, "T-1");
    assert_eq!(
        digests(&st.tick(at(2026, 12, 7, 18, 0), &s)),
        0,
        "never twice"
    );
    assert_eq!(digests(&st.tick(at(2026, 12, 13, 23, 0), &s)), 0);
    assert_eq!(digests(&st.tick(at(2026, 12, 14, 8, 0), &s)), 1);
    // Weeks missed: one digest, not one per week.
    assert_eq!(digests(&st.tick(at(2027, 1, 20, 8, 0), &s)), 1);
    assert_eq!(digests(&st.tick(at(2027, 1, 24, 8, 0), &s)), 0);
    assert_eq!(digests(&st.tick(at(2027, 1, 25, 0, 0), &s)), 1);
    // Without a digest day: none.
    let mut st2 = new_state(RuleSet::Post);
    assert_eq!(digests(&st2.tick(at(2027, 1, 25, 0, 0), &settings())), 0);
}

#[test]
fn digest_lists_silent_games_controls_leaves_and_suspensions() {
    let mut st = new_state(RuleSet::Post);
    let s = Settings {
        digest_day: Some(Weekday::Mon),
        warn_days: 0,
        guard: Default::default(),
        ..settings()
    };
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    let out = step(
        &mut st,
        &mail(CARL, "[T-1]", "Urlaub: 24.12.2026 – 05.01.2027"),
        at(2026, 12, 1, 11, 0),
    );
    assert!(queries(&out).is_empty());
    st.games.get_mut(&g(2)).unwrap().status = GameStatus::Adjourned;
    st.meta.digests.insert("T-1".into(), day(2026, 12, 14));
    let out = st.tick(at(2026, 12, 21, 0, 0), &s);
    let d = &crate::render::facts(
        out.mails
            .iter()
            .find(|m| m.kind == MailKind::Digest)
            .unwrap(),
    );
    let games = |key: &str| -> Vec<String> {
        d[key]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["game"].as_str().unwrap().to_string())
            .collect()
    };
    // Bert silent for 20 days in game 1 (since 1.12. 10:00) and game 3 (since the start).
    assert_eq!(games("silent"), vec!["T-1/1", "T-1/3"]);
    // Without an announcement the 26th day costs 31 (TO §13): both run out on 27.12.
    assert_eq!(games("controls"), vec!["T-1/1", "T-1/3"]);
    assert_eq!(d["controls"][0]["at"], "27.12.2026 00:00");
    assert_eq!(d["leaves"][0]["player"], "Carl Clausen");
    assert_eq!(d["leaves"][0]["starts"], true);
    assert_eq!(games("adjourned"), vec!["T-1/2"]);
    assert_eq!(d["quiet"], false);
}

#[test]
fn leave_director_bounce_and_digest_mails_render_in_both_languages() {
    use crate::render::{Templates, render};
    let templates = Templates::load(None).expect("built-in templates");
    let s = Settings {
        digest_day: Some(Weekday::Mon),
        warn_days: 0,
        guard: Default::default(),
        ..settings()
    };
    let mut st = new_state(RuleSet::Post);
    let mut mails = Vec::new();
    mails.extend(play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0)).mails);
    mails.extend(
        step(
            &mut st,
            &mail(BERT, "[T-1]", "leave 2026-12-05 to 2026-12-20"),
            at(2026, 12, 2, 10, 0),
        )
        .mails,
    );
    mails.extend(play(&mut st, BERT, 1, "1. e4 e5", at(2026, 12, 6, 10, 0)).mails);
    let commands = [
        "time: +2 days for bert@fernschach.test, reason: late",
        "Ergebnis: remis",
        "Hallo",
    ];
    for (hour, body) in (11..).zip(commands) {
        let letter = mail(TL, "[T-1/1]", body);
        mails.extend(step(&mut st, &letter, at(2026, 12, 6, hour, 0)).mails);
    }
    mails.extend(
        st.handle_bounce(&bounce(CARL, "x@y"), at(2026, 12, 6, 14, 0), &s)
            .mails,
    );
    mails.extend(st.tick(at(2026, 12, 7, 0, 0), &s).mails);
    let kinds: std::collections::BTreeSet<&str> = mails.iter().map(|m| m.kind.name()).collect();
    for k in [
        "leave",
        "receipt",
        "director",
        "query",
        "game-end",
        "bounce-report",
        "digest",
    ] {
        assert!(kinds.contains(k), "{k} missing: {kinds:?}");
    }
    for m in &mails {
        for lang in [Lang::De, Lang::En] {
            let mut m = m.clone();
            m.lang = lang;
            let raw = render(&m, &templates, &s, at(2026, 12, 7, 0, 0))
                .unwrap_or_else(|e| panic!("{} ({lang:?}): {e}", m.kind.name()));
            let text = String::from_utf8_lossy(&raw);
            assert!(!text.contains("{{") && !text.contains("{%"), "{text}");
            if std::env::var_os("FERNZUG_SHOW_MAILS").is_some() {
                let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
                println!(
                    "===== {} {lang:?}: {}\n{}",
                    m.kind.name(),
                    parsed.subject().unwrap_or(""),
                    parsed.body_text(0).unwrap_or_default()
                );
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// A player's own words (TO §2, §13, §24) and his other addresses

#[test]
fn s2_s13_s24_players_own_sentences_are_understood() {
    let now = at(2026, 12, 1, 10, 0);
    // TO §24: a leave in a sentence is granted.
    for text in [
        "Ich nehme Urlaub vom 10.12.2026 bis 23.12.2026.",
        "Hiermit melde ich Urlaub vom 10.12. bis 23.12.2026 an.",
        "Urlaubsmeldung: 10.12.2026 – 23.12.2026",
        "Ich bin vom 10.12.2026 bis zum 23.12.2026 im Urlaub.",
        "I will be on leave from 10 December 2026 to 23 December 2026.",
    ] {
        let mut st = new_state(RuleSet::Fax);
        let out = step(&mut st, &mail(CARL, "Urlaub", text), now);
        assert!(queries(&out).is_empty(), "{text}: {:?}", queries(&out));
        assert_eq!(
            leaves(&st, CARL),
            vec![(day(2026, 12, 10), day(2026, 12, 23))],
            "{text}"
        );
    }
    // TO §2: a move with a draw offer in a question; the partner learns of the offer.
    let mut st = new_state(RuleSet::Fax);
    play(&mut st, ANNA, 1, "1. e4", now);
    play(
        &mut st,
        BERT,
        1,
        "1. e4 e5",
        now + chrono::Duration::hours(1),
    );
    let out = play(
        &mut st,
        ANNA,
        1,
        "1... e5\n2. Sf3\nWollen wir uns auf Remis einigen?",
        now + chrono::Duration::hours(2),
    );
    assert_eq!(st.games[&g(1)].draw_offer, Some(Color::White.into()));
    assert!(sent(&out).contains(&(MailKind::Move, BERT.to_string())));
    // TO §2: resignation in a sentence ends the game.
    for text in ["Ich gebe die Partie verloren.", "Hiermit gebe ich auf."] {
        let mut st = new_state(RuleSet::Fax);
        play(&mut st, ANNA, 1, "1. e4", now);
        let out = play(&mut st, BERT, 1, text, now + chrono::Duration::hours(1));
        assert!(
            out.mails.iter().any(|m| m.kind == MailKind::GameEnd),
            "{text}"
        );
        assert_eq!(st.games[&g(1)].status, GameStatus::Finished, "{text}");
    }
    // TO §13: the announcement in a sentence.
    let mut st = new_state(RuleSet::Fax);
    play(&mut st, ANNA, 1, "1. e4", now);
    let text = "Für meinen nächsten Zug brauche ich länger als zehn Tage.";
    let out = play(&mut st, BERT, 1, text, now + chrono::Duration::hours(1));
    assert!(st.games[&g(1)].turn.announced, "{text}");
    assert!(sent(&out).contains(&(MailKind::Status, ANNA.to_string())));
}

#[test]
fn s2_s24_an_uncertain_request_is_queried_quoting_the_sentence() {
    let now = at(2026, 12, 1, 10, 0);
    let mut st = new_state(RuleSet::Fax);
    // A draw word that is neither clearly an offer: nothing is forwarded, not even the move.
    let text = "1. e4\nVielleicht sollten wir uns bald auf Remis einigen.";
    let out = step(&mut st, &mail(ANNA, "[T-1/1]", text), now);
    assert_eq!(sent(&out), vec![(MailKind::Query, ANNA.to_string())]);
    let q = &queries(&out)[0];
    assert!(
        q.contains("„Vielleicht sollten wir uns bald auf Remis einigen.“"),
        "{q}"
    );
    assert!(q.contains("Ich biete Remis an."), "{q}");
    assert!(q.contains("TO §2"), "{q}");
    assert!(st.games[&g(1)].moves.is_empty());
    // A leave without its last day: asked about the leave, not about a game (English player).
    let out = step(
        &mut st,
        &mail(BERT, "Holidays", "I'm on leave from 20 December 2026."),
        now,
    );
    let q = &queries(&out)[0];
    assert!(q.contains("the last day of the leave is missing"), "{q}");
    assert!(q.contains("Leave: 2026-12-10 to 2026-12-23"), "{q}");
    assert!(leaves(&st, BERT).is_empty());
}

#[test]
fn also_addresses_count_as_the_player_and_mail_goes_to_the_registered_one() {
    let mut f = file("T-1", RuleSet::Fax);
    f.players[0].also = vec!["anna.handy@example.org".into()];
    let mut st = State::default();
    register(&mut st, &f);
    let now = at(2026, 12, 1, 10, 0);
    let from = "Anna Adler <anna.handy@example.org>";
    let out = step(&mut st, &mail(from, "[T-1/1]", "1. e4"), now);
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    assert_eq!(st.games[&g(1)].moves.len(), 1);
    let s = sent(&out);
    assert!(s.contains(&(MailKind::Receipt, ANNA.to_string())), "{s:?}");
    assert!(s.contains(&(MailKind::Move, BERT.to_string())), "{s:?}");
}

#[test]
fn director_changes_or_adds_an_address_partners_told_mail_follows() {
    let mut st = new_state(RuleSet::Fax);
    let now = at(2026, 12, 1, 10, 0);
    let hour = chrono::Duration::hours(1);
    let new = "anna.neu@example.org";
    let text = format!("Adresse: {ANNA} -> {new}");
    let out = step(&mut st, &mail(TL, "[T-1]", &text), now);
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    // The changed tournament is the shell's to store (else a restart forgets the address).
    assert!(out.tournaments.contains("T-1"), "{:?}", out.tournaments);
    let s = sent(&out);
    for to in [TL, new, BERT, CARL] {
        assert!(
            s.contains(&(MailKind::Director, to.to_string())),
            "{to}: {s:?}"
        );
    }
    assert!(!s.iter().any(|(_, to)| to == ANNA), "{s:?}");
    // A move from the new address is hers; her receipt goes there.
    let out = step(&mut st, &mail(new, "[T-1/1]", "1. e4"), now + hour);
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    assert!(sent(&out).contains(&(MailKind::Receipt, new.to_string())));
    // `Weitere Adresse`: mails from it count, the relay keeps writing to the registered one.
    let text = format!("Weitere Adresse: {BERT} + bert@work.example");
    let out = step(&mut st, &mail(TL, "[T-1]", &text), now + hour * 2);
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    assert!(out.tournaments.contains("T-1"), "{:?}", out.tournaments);
    let out = step(
        &mut st,
        &mail("bert@work.example", "[T-1/1]", "1. e4 e5"),
        now + hour * 3,
    );
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    assert!(sent(&out).contains(&(MailKind::Receipt, BERT.to_string())));
    // An address someone already has is refused; a player cannot change his own.
    let out = step(
        &mut st,
        &mail(TL, "[T-1]", &format!("Adresse: {CARL} -> {BERT}")),
        now + hour * 4,
    );
    assert!(
        queries(&out)[0].contains("ist bereits eine Adresse von"),
        "{:?}",
        queries(&out)
    );
    let out = step(
        &mut st,
        &mail(
            CARL,
            "[T-1]",
            &format!("Adresse: {CARL} -> carl@neu.example"),
        ),
        now + hour * 5,
    );
    assert!(
        queries(&out)[0].contains("nur von dessen Turnierleiter"),
        "{:?}",
        queries(&out)
    );
    assert!(st.tournaments["T-1"].player(CARL).unwrap().also.is_empty());
}

#[test]
fn unregistered_address_under_the_players_name_and_key_is_told_how_to_register() {
    let mut st = new_state(RuleSet::Fax);
    let now = at(2026, 12, 1, 10, 0);
    let key = st.games[&g(1)].keys.white.clone();
    let letter = |name: &str| {
        let raw = format!(
            "From: {name} <anna@neuer-anbieter.de>\r\nTo: relay+{key}@fernschach.test\r\nSubject: Re: [T-1/1]\r\nMessage-ID: <{name}@x>\r\n\r\n1. e4\r\n"
        );
        testkit::vouched(read_letter(raw.as_bytes()).expect("reads"))
    };
    let out = step(&mut st, &letter("Anna Adler"), now);
    assert_eq!(
        sent(&out),
        vec![(MailKind::Query, "anna@neuer-anbieter.de".to_string())]
    );
    let q = &queries(&out)[0];
    assert!(
        q.contains("Weitere Adresse: anna@fernschach.test + anna@neuer-anbieter.de"),
        "{q}"
    );
    assert!(q.contains(TL), "{q}");
    assert!(st.games[&g(1)].moves.is_empty());
    // Under another name (the next day: one answer a day) it is a stranger's mail: one polite
    // answer, no instructions.
    let out = step(&mut st, &letter("Mallory"), now + chrono::Duration::days(1));
    let q = queries(&out);
    assert_eq!(q.len(), 1, "{q:?}");
    assert!(!q.iter().any(|q| q.contains("Weitere Adresse")), "{q:?}");
    // Not vouched for by the own server: nothing at all (no backscatter).
    let mut forged = letter("Anna Adler");
    forged.trace = Default::default();
    let out = step(&mut st, &forged, now + chrono::Duration::days(2));
    assert!(out.mails.is_empty(), "{:?}", sent(&out));
    assert!(st.games[&g(1)].moves.is_empty());
}

#[test]
fn s24_a_planned_leave_is_withdrawn_before_it_begins_and_its_days_go_back() {
    let mut st = new_state(RuleSet::Post);
    let nothing = step(
        &mut st,
        &mail(BERT, "Urlaub", "Urlaub zurückgezogen"),
        at(2026, 12, 1, 9, 0),
    );
    assert_eq!(sent(&nothing), vec![(MailKind::Query, BERT.to_string())]);
    step(
        &mut st,
        &mail(BERT, "Urlaub", "Urlaub: 20.12.2026 – 03.01.2027"),
        at(2026, 12, 1, 10, 0),
    );
    step(
        &mut st,
        &mail(BERT, "Urlaub", "Urlaub: 01.02.2027 – 10.02.2027"),
        at(2026, 12, 1, 10, 5),
    );
    // Two planned leaves: which one is asked.
    let which = step(
        &mut st,
        &mail(BERT, "Urlaub", "Ich sage meinen Urlaub ab."),
        at(2026, 12, 2, 9, 0),
    );
    assert_eq!(sent(&which), vec![(MailKind::Query, BERT.to_string())]);
    assert_eq!(leaves(&st, BERT).len(), 2);
    // Named by its dates: withdrawn; every partner (TL in copy) and TL told, a receipt to him.
    let out = step(
        &mut st,
        &mail(
            BERT,
            "Urlaub",
            "Ich ziehe meinen Urlaub vom 20.12.2026 bis 03.01.2027 zurück.",
        ),
        at(2026, 12, 2, 10, 0),
    );
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Leave, ANNA.to_string()),
            (MailKind::Leave, ANNA.to_string()),
            (MailKind::Leave, CARL.to_string()),
            (MailKind::Leave, CARL.to_string()),
            (MailKind::Leave, TL.to_string()),
            (MailKind::Receipt, BERT.to_string()),
        ]
    );
    director_in_copy_of_each_partners_notice(&out, &[ANNA, CARL]);
    let Facts::Leave(notice) = &out.mails[0].facts else {
        panic!("a leave notice: {:?}", out.mails[0].facts)
    };
    assert!(notice.withdrawn && notice.days_returned == 15);
    let Facts::LeaveReceipt(receipt) = &out.mails[5].facts else {
        panic!("a leave receipt: {:?}", out.mails[5].facts)
    };
    assert!(receipt.leave.withdrawn);
    // 42 days, less the 10 of February's leave: the 15 withdrawn are back.
    assert_eq!(receipt.leave.left, 32);
    assert_eq!(leaves(&st, BERT), vec![(day(2027, 2, 1), day(2027, 2, 10))]);
    // A leave under way is not withdrawn (his next move ends it).
    let late = step(
        &mut st,
        &mail(BERT, "Urlaub", "Urlaub zurückgezogen"),
        at(2027, 2, 3, 10, 0),
    );
    assert_eq!(sent(&late), vec![(MailKind::Query, BERT.to_string())]);
}

// ---------------------------------------------------------------------------------------------
// The director's desk by mail (TO §11, §23, §26, §29, §30).

/// A real mail from `from` to `to` (e.g. `relay+KEY@…`), read by the reader.
fn mail_to(from: &str, to: &str, subject: &str, body: &str) -> Letter {
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{}@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
        body.len() + subject.len() * 7 + to.len() * 13
    );
    read_letter(raw.as_bytes()).expect("reads")
}

fn director_facts(m: &crate::core::model::Mail) -> &crate::core::model::DirectorFacts {
    match &m.facts {
        Facts::Director(f) => f,
        other => panic!("{other:?}"),
    }
}

#[test]
fn s11_s29_the_records_go_to_the_director_alone_and_are_enclosed_by_the_shell() {
    use crate::core::model::Enclosure;
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    let out = step(
        &mut st,
        &mail(
            TL,
            "Akten",
            "Korrespondenz: T-1/1\nPGN: T-1\nPrüfen: [T-1/1]",
        ),
        at(2026, 12, 2, 10, 0),
    );
    assert_eq!(sent(&out), vec![(MailKind::Director, TL.to_string()); 3]);
    let enclosed: Vec<Vec<Enclosure>> = out.mails.iter().map(|m| m.enclose.clone()).collect();
    assert_eq!(
        enclosed,
        vec![
            vec![Enclosure::Mbox(g(1))],
            vec![Enclosure::Pgn("T-1".into())],
            vec![Enclosure::Verify(g(1))],
        ]
    );
    // Not filed under the game: an mbox in the game's own mbox would double it.
    assert!(out.mails.iter().all(|m| m.game.is_none()));
    assert_eq!(director_facts(&out.mails[0]).game.as_deref(), Some("T-1/1"));
    assert!(
        out.mails
            .iter()
            .all(|m| director_facts(m).form == "records")
    );
    // A player may not; an unknown game is named.
    let out = step(
        &mut st,
        &mail(ANNA, "Akten", "Korrespondenz: T-1/1"),
        at(2026, 12, 2, 11, 0),
    );
    assert_eq!(sent(&out), vec![(MailKind::Query, ANNA.to_string())]);
    assert!(out.mails[0].enclose.is_empty());
    let out = step(
        &mut st,
        &mail(TL, "Akten", "Korrespondenz: T-1/9"),
        at(2026, 12, 2, 12, 0),
    );
    assert!(queries(&out)[0].contains("T-1/9"), "{:?}", queries(&out));
}

#[test]
fn s26_a_withdrawal_ends_every_unfinished_game_of_the_player_lost_for_him() {
    let mut st = new_state(RuleSet::Post);
    // Game 2 (Carl – Anna) is over already; it stands.
    step(
        &mut st,
        &mail(TL, "[T-1/2]", "Ergebnis: 1-0"),
        at(2026, 12, 3, 10, 0),
    );
    let out = step(
        &mut st,
        &mail(
            TL,
            "[T-1] Rücktritt",
            "Rücktritt: anna@fernschach.test Wertung: verloren",
        ),
        at(2026, 12, 4, 10, 0),
    );
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::GameEnd, ANNA.to_string()),
            (MailKind::GameEnd, BERT.to_string()),
            (MailKind::GameEnd, TL.to_string()),
            (MailKind::Director, TL.to_string()),
        ]
    );
    let game = &st.games[&g(1)];
    assert_eq!(game.status, GameStatus::Finished);
    assert_eq!(game.result.map(|r| r.as_str()), Some("0-1"));
    assert_eq!(
        game.end_reason,
        Some(crate::core::model::EndReason::Withdrawn)
    );
    assert_eq!(st.games[&g(2)].result.map(|r| r.as_str()), Some("1-0"));
    // TO §29: the players are told the last day of the appeal, the director is not.
    let appeal: Vec<Option<String>> = out
        .mails
        .iter()
        .filter(|m| m.kind == MailKind::GameEnd)
        .map(|m| {
            crate::render::facts(m)["appeal_until"]
                .as_str()
                .map(str::to_string)
        })
        .collect();
    assert_eq!(
        appeal,
        vec![Some("18.12.2026".into()), Some("2026-12-18".into()), None]
    );
    assert!(out.events.iter().any(|e| matches!(&e.event, Event::Director { command, .. } if command.contains("withdrawal of anna@fernschach.test"))));
    // Nothing left to end: one query, nothing changes.
    let out = step(
        &mut st,
        &mail(
            TL,
            "[T-1]",
            "Rücktritt: anna@fernschach.test Wertung: verloren",
        ),
        at(2026, 12, 4, 11, 0),
    );
    assert_eq!(sent(&out), vec![(MailKind::Query, TL.to_string())]);
    assert!(queries(&out)[0].contains("keine offene Partie"));
}

#[test]
fn s26_an_annulled_withdrawal_keeps_the_games_out_of_the_crosstable() {
    let mut st = new_state(RuleSet::Post);
    step(
        &mut st,
        &mail(TL, "[T-1/3]", "Ergebnis: 1-0"),
        at(2026, 12, 3, 10, 0),
    );
    step(
        &mut st,
        &mail(
            TL,
            "[T-1]",
            "withdraw: anna@fernschach.test score: annulled",
        ),
        at(2026, 12, 4, 10, 0),
    );
    for n in [1, 2] {
        let game = &st.games[&g(n)];
        assert_eq!(game.status, GameStatus::Finished, "{n}");
        assert_eq!(game.result, None, "{n}");
        assert_eq!(
            game.end_reason,
            Some(crate::core::model::EndReason::Annulled)
        );
    }
    let t = &st.tournaments["T-1"];
    let table =
        crate::core::records::crosstable::crosstable(t, t.games.iter().map(|g| &st.games[g]));
    let points: Vec<(String, u32, u32)> = table
        .rows
        .iter()
        .map(|r| (r.name.clone(), r.half_points, r.played))
        .collect();
    assert_eq!(
        points,
        vec![
            ("Bert Berger".into(), 2, 1),
            ("Anna Adler".into(), 0, 0),
            ("Carl Clausen".into(), 0, 1),
        ]
    );
}

#[test]
fn s23_a_question_reaches_the_player_his_answer_the_director_and_silence_is_reported() {
    let mut st = new_state(RuleSet::Post);
    st.spare_keys = vec!["q-key-anna".into()];
    let out = step(
        &mut st,
        &mail(
            TL,
            "[T-1] Rückfrage",
            "Rückfrage an anna@fernschach.test: Wie steht es um Ihre Partien?",
        ),
        at(2027, 1, 4, 10, 0),
    );
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Director, TL.to_string()),
            (MailKind::Director, ANNA.to_string()),
        ]
    );
    assert_eq!(out.mails[1].reply_key.as_deref(), Some("q-key-anna"));
    assert_eq!(director_facts(&out.mails[1]).form, "question");
    assert_eq!(director_facts(&out.mails[0]).form, "decision");
    // Her reply through the question's key reaches the director, whatever it says.
    let out = step(
        &mut st,
        &mail_to(
            ANNA,
            "relay+q-key-anna@fernschach.test",
            "Re: Rückfrage",
            "Ich spiele weiter, nur war ich krank.\n\n> Wie steht es um Ihre Partien?",
        ),
        at(2027, 1, 6, 10, 0),
    );
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Director, TL.to_string()),
            (MailKind::Director, ANNA.to_string()),
        ]
    );
    let text = crate::render::facts(&out.mails[0])["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("Ich spiele weiter, nur war ich krank."),
        "{text}"
    );
    assert!(!text.contains("> Wie steht"), "{text}");
    assert!(st.tournaments["T-1"].questions[0].answered.is_some());
    // Bert leaves his unanswered: after 14 days the director is told, once.
    st.spare_keys = vec!["q-key-bert".into()];
    step(
        &mut st,
        &mail(
            TL,
            "[T-1]",
            "ask bert@fernschach.test: are you still playing?",
        ),
        at(2027, 1, 4, 11, 0),
    );
    let s = settings();
    assert_eq!(
        st.next_deadline(&s).map(|d| d <= at(2027, 1, 18, 11, 0)),
        Some(true)
    );
    let out = st.tick(at(2027, 1, 18, 10, 59), &s);
    assert!(out.mails.iter().all(|m| m.kind != MailKind::Director));
    let out = st.tick(at(2027, 1, 18, 11, 0), &s);
    assert_eq!(sent(&out), vec![(MailKind::Director, TL.to_string())]);
    assert_eq!(director_facts(&out.mails[0]).form, "unanswered");
    let out = st.tick(at(2027, 1, 25, 11, 0), &s);
    assert!(out.mails.iter().all(|m| m.kind != MailKind::Director));
    // The digest lists it while it is open.
    let s = Settings {
        digest_day: Some(Weekday::Mon),
        ..settings()
    };
    let out = st.tick(at(2027, 2, 1, 0, 0), &s);
    let digest = out
        .mails
        .iter()
        .find(|m| m.kind == MailKind::Digest)
        .expect("a digest");
    let questions = crate::render::facts(digest)["questions"].clone();
    assert_eq!(questions.as_array().map(Vec::len), Some(1), "{questions}");
    assert_eq!(questions[0]["player"], "Bert Berger");
}

#[test]
fn s30_moves_through_the_director_put_him_in_copy_of_every_move() {
    let mut st = new_state(RuleSet::Post);
    let out = step(
        &mut st,
        &mail(TL, "Anordnung", "Züge über TL: T-1/1"),
        at(2026, 12, 1, 9, 0),
    );
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Director, TL.to_string()),
            (MailKind::Director, ANNA.to_string()),
            (MailKind::Director, BERT.to_string()),
        ]
    );
    assert!(st.games[&g(1)].through_director);
    let out = play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    let envelopes: Vec<Vec<String>> = out
        .mails
        .iter()
        .filter(|m| m.kind == MailKind::Move)
        .map(|m| m.envelope.clone())
        .collect();
    assert_eq!(
        envelopes,
        vec![vec![BERT.to_string()], vec![TL.to_string()]]
    );
    step(
        &mut st,
        &mail(TL, "Anordnung", "moves through TL off: T-1/1"),
        at(2026, 12, 2, 9, 0),
    );
    let out = play(&mut st, BERT, 1, "1. e4 e5", at(2026, 12, 2, 10, 0));
    let moves = out
        .mails
        .iter()
        .filter(|m| m.kind == MailKind::Move)
        .count();
    assert_eq!(moves, 1);
}

fn registration(from: &str, body: &str) -> Letter {
    mail(from, "Turnier anmelden", body)
}

const FILE: &str = r#"id = "T-9"
name = "Pokal 2027"
rules = "fax"
start = 2027-01-10

[director]
name = "Tom Leiter"
email = "tl@fernschach.test"

[[players]]
name = "Anna Adler"
email = "anna@fernschach.test"

[[players]]
name = "Bert Berger"
email = "bert@fernschach.test"

[[players]]
name = "Carl Clausen"
email = "carl@fernschach.test"
"#;

/// The shell's check of the file (`crate::tournament_file::check`, tested there) stands in: the
/// file of these tests is the one [`FILE`] writes, or the errors given.
fn register_by_mail(
    st: &mut State,
    l: &Letter,
    checked: Result<NewTournament, crate::core::model::RegisterRefusal>,
    now: DateTime<Utc>,
    s: &Settings,
) -> Output {
    assert!(matches!(
        l.content.register,
        Some(crate::letter::Enrolment::Text { .. })
    ));
    let mut n = 0;
    let mut key = || {
        n += 1;
        format!("k{n}")
    };
    st.handle_registration(l, checked, now, s, &mut key)
}

fn t9() -> NewTournament {
    testkit::tournament(
        "T-9",
        "Pokal 2027",
        RuleSet::Fax,
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, None),
            ("Carl Clausen", CARL, None),
        ],
        &[(2, 0), (1, 2), (0, 1)],
    )
}

#[test]
fn a_tournament_is_registered_by_mail_from_an_allowed_address_only() {
    let s = Settings {
        guard: crate::core::model::Guard {
            directors: vec![TL.to_string()],
            ..Default::default()
        },
        ..settings()
    };
    let mut st = State::default();
    // Not allowed: not a word on the file, nothing registered.
    let out = register_by_mail(
        &mut st,
        &registration(ANNA, FILE),
        Ok(t9()),
        at(2027, 1, 2, 10, 0),
        &s,
    );
    assert!(st.tournaments.is_empty());
    // A stranger the operator's server does not vouch for: not answered at all.
    assert!(out.mails.is_empty(), "{:?}", out.log);
    // The director: registered, the games listed; no start mails yet (the shell queues them).
    let out = register_by_mail(
        &mut st,
        &registration(TL, FILE),
        Ok(t9()),
        at(2027, 1, 2, 10, 0),
        &s,
    );
    assert_eq!(sent(&out), vec![(MailKind::Director, TL.to_string())]);
    assert_eq!(st.tournaments["T-9"].games.len(), 3);
    let text = crate::render::facts(&out.mails[0])["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("T-9/1  Runde 1:  Carl Clausen – Anna Adler"),
        "{text}"
    );
    assert!(text.contains("3 Spieler, 3 Partien"), "{text}");
    // Now Anna plays: she is told she may not register, and nothing else.
    let out = register_by_mail(
        &mut st,
        &registration(ANNA, FILE),
        Ok(t9()),
        at(2027, 1, 2, 11, 0),
        &s,
    );
    assert_eq!(sent(&out), vec![(MailKind::Query, ANNA.to_string())]);
    let q = queries(&out)[0].clone();
    assert!(
        q.contains("dürfen nur die Adressen") && !q.contains("T-9"),
        "{q}"
    );
    // The same id again.
    let out = register_by_mail(
        &mut st,
        &registration(TL, FILE),
        Ok(t9()),
        at(2027, 1, 2, 12, 0),
        &s,
    );
    assert!(
        queries(&out)[0].contains("bereits angemeldet"),
        "{:?}",
        queries(&out)
    );
    // Every error of a file, with its line and key.
    use crate::core::model::{FileFault, FileProblem, RegisterRefusal};
    let errors = vec![
        FileProblem {
            line: Some(1),
            key: Some("id".into()),
            what: FileFault::Invalid("\"T 9\" is not a tournament id".into()),
        },
        FileProblem {
            line: Some(16),
            key: Some("players[2].email".into()),
            what: FileFault::Missing,
        },
    ];
    let refused = Err(RegisterRefusal::File { name: None, errors });
    let out = register_by_mail(
        &mut st,
        &registration(TL, FILE),
        refused,
        at(2027, 1, 2, 13, 0),
        &s,
    );
    let q = queries(&out)[0].clone();
    for want in [
        "2 Fehler",
        "Zeile 1, Schlüssel `id`: \"T 9\" is not",
        "Zeile 16, Schlüssel `players[2].email`: fehlt",
    ] {
        assert!(q.contains(want), "{want}: {q}");
    }
    assert_eq!(st.tournaments.len(), 1);
}

#[test]
fn s11_a_request_of_the_desk_without_its_game_is_asked_back_with_the_exact_form() {
    let mut st = new_state(RuleSet::Post);
    let out = step(
        &mut st,
        &mail(
            TL,
            "Akten",
            "Guten Tag,\n\nbitte schicken Sie mir die Korrespondenz der strittigen Partie.\n\nTom Leiter",
        ),
        at(2026, 12, 2, 10, 0),
    );
    assert_eq!(sent(&out), vec![(MailKind::Query, TL.to_string())]);
    let q = queries(&out)[0].clone();
    assert!(q.contains("Korrespondenz: TURNIER/N"), "{q}");
    assert!(q.contains("keine Partie"), "{q}");
}

#[test]
fn a_registration_counts_only_through_a_reply_key_when_keys_are_required() {
    let s = Settings {
        guard: crate::core::model::Guard {
            directors: vec![TL.to_string()],
            require_reply_key: true,
            ..Default::default()
        },
        ..settings()
    };
    let mut st = new_state(RuleSet::Post);
    let out = register_by_mail(
        &mut st,
        &registration(TL, FILE),
        Ok(t9()),
        at(2027, 1, 2, 10, 0),
        &s,
    );
    assert_eq!(sent(&out), vec![(MailKind::Query, TL.to_string())]);
    assert!(!st.tournaments.contains_key("T-9"));
    // Through his own key of a game he directs.
    let key = director_key(&st, &g(1)).expect("the director's key");
    let raw = format!(
        "From: {TL}\r\nTo: relay+{key}@fernschach.test\r\nSubject: Turnier anmelden\r\nMessage-ID: <reg-key@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{FILE}\r\n"
    );
    let letter = read_letter(raw.as_bytes()).unwrap();
    let out = register_by_mail(&mut st, &letter, Ok(t9()), at(2027, 1, 2, 11, 0), &s);
    assert_eq!(sent(&out), vec![(MailKind::Director, TL.to_string())]);
    assert!(st.tournaments.contains_key("T-9"));
}

// ------------------------------------------------------------------------------------------------
// No mail stops the relay, no address is taken over (docs/security.md)

/// Mallory's tournament file: his own address, and as his other addresses Anna's and TL's — who
/// play and direct T-1.
fn takeover_file() -> NewTournament {
    let mut f = testkit::tournament(
        "T-8",
        "Übernahme",
        RuleSet::Fax,
        &[
            ("Mallory", "mallory@evil.test", None),
            ("Moritz", "moritz@evil.test", None),
        ],
        &[(0, 1)],
    );
    f.director.email = "boss@evil.test".into();
    f.players[0].also = vec![ANNA.into(), TL.into()];
    f
}

#[test]
fn an_address_belongs_to_one_person_a_file_naming_anothers_is_refused() {
    let s = Settings {
        guard: crate::core::model::Guard {
            directors: vec![TL.to_string(), "boss@evil.test".to_string()],
            ..Default::default()
        },
        ..settings()
    };
    let mut st = new_state(RuleSet::Fax);
    let before = st.tournaments.clone();
    // By mail: a query naming both addresses, nothing registered.
    let out = register_by_mail(
        &mut st,
        &registration("boss@evil.test", FILE),
        Ok(takeover_file()),
        at(2026, 12, 2, 10, 0),
        &s,
    );
    assert_eq!(
        sent(&out),
        vec![(MailKind::Query, "boss@evil.test".to_string())]
    );
    let q = &queries(&out)[0];
    assert!(
        q.contains(ANNA) && q.contains(TL) && q.contains("T-1"),
        "{q}"
    );
    assert!(
        !q.contains("Anna Adler"),
        "who it is there is not told: {q}"
    );
    assert_eq!(st.tournaments, before);
    // As `tournament add` does it: the same check.
    let mut n = 0;
    let refused = st.register(&takeover_file(), at(2026, 12, 2, 10, 0), &s, &mut || {
        n += 1;
        format!("k{n}")
    });
    assert!(
        matches!(&refused, Err(crate::core::RegisterError::AddressTaken(t)) if t.len() == 2),
        "{refused:?}"
    );
    // A player's own address as someone's `also` in a file is refused as well; the same person
    // (his own address, his own other address) in a second tournament is not.
    let mut again = t9();
    again.players[0].also = vec!["anna.adler@example.org".into()];
    assert!(
        st.register(&again, at(2026, 12, 2, 10, 0), &s, &mut || "k".into())
            .is_ok()
    );
    let mut third = testkit::tournament(
        "T-7",
        "Dritter",
        RuleSet::Fax,
        &[("Bert Berger", BERT, None), ("Carl Clausen", CARL, None)],
        &[(0, 1)],
    );
    third.players[1].also = vec!["anna.adler@example.org".into()];
    let refused = st.register(&third, at(2026, 12, 2, 10, 0), &s, &mut || "k".into());
    assert!(
        refused.is_err(),
        "Anna's other address as Carl's: {refused:?}"
    );
}

#[test]
fn a_players_own_address_is_never_read_as_someone_elses() {
    let mut st = new_state(RuleSet::Fax);
    // Registered before the check existed (or written into the store by hand): the state holds
    // Mallory with Anna's and TL's addresses as his.
    let mut n = 0;
    let mut f = takeover_file();
    f.players[0].also.clear();
    st.register(&f, at(2026, 12, 1, 9, 0), &settings(), &mut || {
        n += 1;
        format!("m{n}")
    })
    .unwrap();
    let mut t = st.tournaments["T-8"].clone();
    t.players[0].also = vec![ANNA.into(), TL.into()];
    st.add_tournament(t);
    assert_eq!(st.registered_as(ANNA), None);
    assert_eq!(st.registered_as(TL), None);
    // Anna's move is hers, and TL's command his.
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    assert_eq!(st.games[&g(1)].moves.len(), 1);
    let out = step(
        &mut st,
        &mail(TL, "[T-1/1]", "Nur Züge: T-1/1"),
        at(2026, 12, 1, 11, 0),
    );
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    assert!(st.games[&g(1)].moves_only);
    // The director's `Weitere Adresse:` meets the same check: Bert's address cannot become
    // Carl's.
    let out = step(
        &mut st,
        &mail(TL, "[T-1]", &format!("Weitere Adresse: {CARL} + {BERT}")),
        at(2026, 12, 1, 12, 0),
    );
    assert!(queries(&out)[0].contains(BERT), "{:?}", queries(&out));
}

#[test]
fn a_tournament_by_mail_makes_at_most_20000_games() {
    let s = Settings {
        guard: crate::core::model::Guard {
            directors: vec![TL.to_string()],
            ..Default::default()
        },
        ..settings()
    };
    // 201 players: a round robin of 20,100 games.
    let players: Vec<(String, String)> = (0..201)
        .map(|i| (format!("Spieler {i}"), format!("p{i}@example.org")))
        .collect();
    let named: Vec<(&str, &str, Option<Lang>)> = players
        .iter()
        .map(|(n, e)| (n.as_str(), e.as_str(), None))
        .collect();
    let mut big = testkit::tournament("T-BIG", "Groß", RuleSet::Fax, &named, &[]);
    big.pairings = (0..201usize)
        .flat_map(|w| (w + 1..201).map(move |b| (w, b)))
        .zip(1u32..)
        .map(|((white, black), number)| crate::core::model::Pairing {
            number,
            round: 1,
            white,
            black,
        })
        .collect();
    assert_eq!(big.pairings.len(), 20_100);
    let mut st = State::default();
    let out = register_by_mail(
        &mut st,
        &registration(TL, FILE),
        Ok(big),
        at(2027, 1, 2, 10, 0),
        &s,
    );
    assert_eq!(sent(&out), vec![(MailKind::Query, TL.to_string())]);
    let q = &queries(&out)[0];
    assert!(q.contains("20100") && q.contains("20000"), "{q}");
    assert!(st.tournaments.is_empty() && st.games.is_empty());
}

#[test]
fn each_question_has_its_own_random_key_handed_in_by_the_shell() {
    let mut st = new_state(RuleSet::Post);
    let l = mail(
        TL,
        "[T-1] Rückfrage",
        "Rückfrage an anna@fernschach.test: Wie geht es?\nRückfrage an bert@fernschach.test: Spielen Sie weiter?",
    );
    assert_eq!(crate::core::keys_needed(&l), 2);
    st.spare_keys = vec!["r4nd0m-1".into(), "r4nd0m-2".into()];
    let out = step(&mut st, &l, at(2027, 1, 4, 10, 0));
    let mut keys: Vec<String> = out
        .mails
        .iter()
        .filter(|m| m.to[0].email != TL)
        .filter_map(|m| m.reply_key.clone())
        .collect();
    keys.sort();
    assert_eq!(keys, vec!["r4nd0m-1", "r4nd0m-2"]);
    let questions: Vec<&str> = st.tournaments["T-1"]
        .questions
        .iter()
        .map(|q| q.key.as_str())
        .collect();
    assert!(
        questions.iter().all(|k| k.starts_with("r4nd0m")),
        "{questions:?}"
    );
}

#[test]
fn warnings_board_and_xfcc_password_need_the_reply_key_under_require_reply_key() {
    let s = Settings {
        guard: crate::core::model::Guard {
            require_reply_key: true,
            ..Default::default()
        },
        ..settings()
    };
    for body in ["Keine Warnungen", "XFCC-Passwort", "Brett: Liste"] {
        let mut st = new_state(RuleSet::Post);
        st.tick(at(2026, 12, 1, 10, 0), &s);
        let out = st.handle_letter(&mail(ANNA, "[T-1/1]", body), at(2026, 12, 1, 10, 0), &s);
        assert_eq!(kinds(&out), vec![MailKind::Query], "{body}");
        assert!(
            queries(&out)[0].contains("persönliche Antwortadresse"),
            "{body}: {:?}",
            queries(&out)
        );
        assert!(st.meta.no_warnings.is_empty(), "{body}");
        assert!(st.meta.boards.is_empty(), "{body}");
        // Through her own key it counts.
        let key = st.games[&g(1)].keys.white.clone();
        let out = st.handle_letter(
            &mail_to(ANNA, &format!("relay+{key}@fernschach.test"), "Re", body),
            at(2026, 12, 1, 10, 5),
            &s,
        );
        assert_eq!(kinds(&out), vec![MailKind::Status], "{body}");
    }
    // A bare `Status` changes nothing: it needs no key.
    let mut st = new_state(RuleSet::Post);
    let out = st.handle_letter(&mail(ANNA, "Status", "Status"), at(2026, 12, 1, 10, 0), &s);
    assert_eq!(kinds(&out), vec![MailKind::Status]);
}

// Fax 2.2: a delivery-status report counts only for a mail the relay sent to that recipient.

fn dsn_letter(failed: &[&str], sent_to: Option<&[&str]>, error: &str) -> Letter {
    let mut l = mail(
        "mailer-daemon@fernschach.test",
        "Undelivered Mail Returned to Sender",
        "undeliverable",
    );
    l.automatic = Some(crate::letter::AutoReason::MailerDaemon);
    l.dsn = Some(crate::letter::dsn::Dsn {
        failed: failed
            .iter()
            .map(|r| crate::letter::dsn::Failed {
                recipient: r.to_string(),
                error: error.to_string(),
            })
            .collect(),
        original_id: Some("fernzug.test.7.move@fernschach.test".into()),
        kind: Some("move".into()),
        game: Some(g(1)),
        text: Some("1. e4".into()),
        sent_to: sent_to.map(|s| s.iter().map(|a| a.to_string()).collect()),
    });
    l
}

#[test]
fn fax_2_2_a_report_counts_only_for_a_mail_the_relay_sent_to_that_recipient() {
    let now = at(2026, 12, 1, 10, 0);
    // Forged: the relay never sent that Message-ID (the shell found none in the game's archive):
    // dropped, not answered, nothing sealed.
    let mut st = new_state(RuleSet::Post);
    let events = st.games[&g(1)].events;
    let out = step(&mut st, &dsn_letter(&[BERT], None, "5.1.1"), now);
    assert!(out.mails.is_empty(), "{:?}", sent(&out));
    assert!(
        out.log.iter().any(|l| l.contains("dropped")),
        "{:?}",
        out.log
    );
    assert_eq!(st.games[&g(1)].events, events);
    // The relay sent it to Anna, not to Bert: a report naming Bert is not believed.
    let out = step(&mut st, &dsn_letter(&[BERT], Some(&[ANNA]), "5.1.1"), now);
    assert!(out.mails.is_empty(), "{:?}", sent(&out));
    // Sent to Bert: one report to TL, quoting at most 500 characters of the server's words.
    let long = format!("5.1.1 {}", "http://evil.example/ ".repeat(100));
    let out = step(
        &mut st,
        &dsn_letter(&[BERT, CARL], Some(&[BERT]), &long),
        now,
    );
    assert_eq!(sent(&out), vec![(MailKind::BounceReport, TL.to_string())]);
    let Facts::Bounce(report) = &out.mails[0].facts else {
        panic!("{:?}", out.mails[0].facts)
    };
    assert_eq!(report.player_email, BERT);
    assert!(
        report.error.chars().count() <= 500,
        "{}",
        report.error.len()
    );
    // Under `require_dmarc_pass` a report the own server does not vouch for is not believed.
    let s = Settings {
        guard: crate::core::model::Guard {
            dmarc_authserv_id: Some("mx.fernschach.test".into()),
            ..Default::default()
        },
        ..settings()
    };
    let mut st = new_state(RuleSet::Post);
    let out = st.handle_letter(&dsn_letter(&[BERT], Some(&[BERT]), "5.1.1"), now, &s);
    assert!(out.mails.is_empty(), "{:?}", sent(&out));
}

#[test]
fn a_mail_about_a_game_from_someone_not_playing_it_is_not_kept_among_its_mails() {
    // Carl plays in T-1 but not in game 1 (Anna–Bert): his mail naming it is answered without
    // the game, and it is not archived under it (anyone registered could grow its records).
    let mut st = new_state(RuleSet::Post);
    let out = step(
        &mut st,
        &mail(CARL, "[T-1/1]", "1. e4"),
        at(2026, 12, 1, 10, 0),
    );
    assert_eq!(sent(&out), vec![(MailKind::Query, CARL.to_string())]);
    assert!(out.letter_games.is_empty(), "{:?}", out.letter_games);
    assert!(out.mails[0].game.is_none());
    assert!(out.events.is_empty());
}

// ------------------------------------------------------------------------------------------------
// Every word to the person the rulebook names (issue 49)

/// The key through which `email` got the mail `m` (his copy's reply key).
fn key_in(out: &Output, kind: MailKind, email: &str) -> String {
    out.mails
        .iter()
        .find(|m| m.kind == kind && m.envelope.iter().any(|e| e == email))
        .and_then(|m| m.reply_key.clone())
        .unwrap_or_else(|| panic!("{email} got no {kind:?}: {:?}", sent(out)))
}

#[test]
fn s29_a_reply_to_a_decision_reaches_the_director_not_the_partner() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    let out = step(
        &mut st,
        &mail(TL, "[T-1/1]", "Ergebnis: 0-1"),
        at(2026, 12, 2, 10, 0),
    );
    // Anna's copy of the game end carries her key of replies to decisions, not her game key.
    let key = key_in(&out, MailKind::GameEnd, ANNA);
    assert_ne!(key, st.games[&g(1)].keys.white);
    assert!(st.keys.get(&key).is_some_and(|b| b.to_director));
    // Her words through it reach TL whole, none reaches Bert, and the move in them is not played.
    let reply = mail_to(
        ANNA,
        &format!("relay+{key}@fernschach.test"),
        "Re: Partieende",
        "Das ist falsch, Bert hat mir den Zug nie geschickt!\n\n2. Sf3\n\nAnna\n\n> Gegen diese Entscheidung",
    );
    let out = step(&mut st, &reply, at(2026, 12, 5, 10, 0));
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Director, TL.to_string()),
            (MailKind::Receipt, ANNA.to_string()),
        ]
    );
    let to_tl = crate::render::facts(&out.mails[0]);
    let text = to_tl["text"].as_str().unwrap();
    assert!(
        text.contains("nie geschickt") && text.contains("2. Sf3"),
        "{text}"
    );
    assert!(
        !text.contains("Gegen diese Entscheidung"),
        "no quote: {text}"
    );
    assert!(text.contains("nicht gespielt"), "{text}");
    let receipt = crate::render::facts(&out.mails[1]);
    assert_eq!(receipt["to_director"]["came"], "05.12.2026");
    assert_eq!(receipt["to_director"]["appeal_until"], "16.12.2026");
    assert_eq!(st.games[&g(1)].moves.len(), 1, "nothing played");
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e.event, Event::ToDirector { appeal: false, .. }))
    );
}

#[test]
fn s18_a_dispute_of_a_time_forfeit_by_reply_goes_to_the_director() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    // Bert silent for 31 days: the first time forfeit (TO §17, §18).
    let out = st.tick(at(2027, 1, 3, 10, 0), &settings());
    let key = key_in(&out, MailKind::TimeForfeit, BERT);
    let reply = mail_to(
        BERT,
        &format!("relay+{key}@fernschach.test"),
        "Re: Zeitüberschreitung",
        "Ich war im Urlaub, den hatte ich gemeldet.",
    );
    let out = step(&mut st, &reply, at(2027, 1, 3, 12, 0));
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Director, TL.to_string()),
            (MailKind::Receipt, BERT.to_string()),
        ]
    );
    // A forfeit the relay claimed is no decision of the director: no §29 term in the receipt.
    assert!(crate::render::facts(&out.mails[1])["to_director"]["appeal_until"].is_null());
}

#[test]
fn s23_the_answer_reaches_the_director_whole_and_a_move_in_it_is_not_played() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    st.spare_keys = vec!["q-bert".into()];
    step(
        &mut st,
        &mail(
            TL,
            "[T-1]",
            "Rückfrage an bert@fernschach.test: Spielen Sie weiter?",
        ),
        at(2026, 12, 20, 10, 0),
    );
    let out = step(
        &mut st,
        &mail_to(
            BERT,
            "relay+q-bert@fernschach.test",
            "Re: Rückfrage",
            "Entschuldigung, ich war krank.\nHier mein Zug: 1... e5\nGruß Bert",
        ),
        at(2026, 12, 21, 10, 0),
    );
    let text = crate::render::facts(&out.mails[0])["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("ich war krank") && text.contains("1... e5") && text.contains("Gruß Bert"),
        "{text}"
    );
    assert!(text.contains("nicht gespielt"), "{text}");
    assert_eq!(st.games[&g(1)].moves.len(), 1, "the move was not played");
}

#[test]
fn s23_s24_the_fortnight_of_a_question_rests_while_the_player_is_on_leave() {
    let mut st = new_state(RuleSet::Post);
    // Bert's leave of 10 days, within the fortnight.
    let out = step(
        &mut st,
        &mail(BERT, "Urlaub [T-1]", "Urlaub: 10.01.2027 – 19.01.2027"),
        at(2027, 1, 2, 10, 0),
    );
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    st.spare_keys = vec!["q-bert".into()];
    step(
        &mut st,
        &mail(
            TL,
            "[T-1]",
            "Rückfrage an bert@fernschach.test: Spielen Sie weiter?",
        ),
        at(2027, 1, 4, 10, 0),
    );
    // Not after 14 days (18 Jan): ten of them were leave.
    let out = st.tick(at(2027, 1, 19, 10, 0), &settings());
    assert!(
        !out.mails.iter().any(|m| m.kind == MailKind::Director),
        "{:?}",
        sent(&out)
    );
    // After 14 days not on leave (28 Jan): TL is told.
    let out = st.tick(at(2027, 1, 28, 10, 0), &settings());
    assert_eq!(sent(&out), vec![(MailKind::Director, TL.to_string())]);
}

#[test]
fn s30_words_go_to_the_director_too_while_the_game_goes_through_him() {
    let mut st = new_state(RuleSet::Post);
    step(
        &mut st,
        &mail(TL, "Anordnung", "Züge über TL: T-1/1"),
        at(2026, 12, 1, 9, 0),
    );
    let out = step(
        &mut st,
        &mail(
            ANNA,
            "[T-1/1]",
            "Lieber Bert, ich freue mich auf die Partie.",
        ),
        at(2026, 12, 1, 10, 0),
    );
    let envelopes: Vec<Vec<String>> = out
        .mails
        .iter()
        .filter(|m| m.kind == MailKind::Message)
        .map(|m| m.envelope.clone())
        .collect();
    assert_eq!(
        envelopes,
        vec![vec![BERT.to_string()], vec![TL.to_string()]]
    );
}

#[test]
fn s30_under_moves_only_the_writer_is_told_his_words_were_kept_back() {
    let mut st = new_state(RuleSet::Post);
    step(
        &mut st,
        &mail(TL, "Anordnung", "Nur Züge: T-1/1"),
        at(2026, 12, 1, 9, 0),
    );
    let out = play(
        &mut st,
        ANNA,
        1,
        "1. e4\n\nDas wird eine schöne Partie!",
        at(2026, 12, 1, 10, 0),
    );
    let receipt = out
        .mails
        .iter()
        .find(|m| m.kind == MailKind::Receipt)
        .unwrap();
    assert_eq!(crate::render::facts(receipt)["words_withheld"], true);
    let forward = out.mails.iter().find(|m| m.kind == MailKind::Move).unwrap();
    assert!(crate::render::facts(forward)["words"].is_null());
}

#[test]
fn s26_a_finished_game_is_annulled_by_result_annulled() {
    let mut st = new_state(RuleSet::Post);
    step(
        &mut st,
        &mail(TL, "[T-1/1]", "Ergebnis: 1-0"),
        at(2026, 12, 3, 10, 0),
    );
    let mut l = mail(TL, "[T-1/1]", "Ergebnis: annulliert");
    // The reader's reading of the form (crate::letter).
    l.content.director = vec![crate::letter::DirectorCommand::SetResult("annulled".into())];
    let out = step(&mut st, &l, at(2026, 12, 4, 10, 0));
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    let game = &st.games[&g(1)];
    assert_eq!(game.result, None);
    assert_eq!(
        game.end_reason,
        Some(crate::core::model::EndReason::Annulled)
    );
    assert!(out.mails.iter().any(|m| m.kind == MailKind::GameEnd));
}

#[test]
fn fax_1_2_a_group_not_of_seven_is_registered_with_a_warning() {
    assert!(crate::core::fax_group_warning(RuleSet::Fax, 3));
    assert!(!crate::core::fax_group_warning(RuleSet::Fax, 7));
    assert!(!crate::core::fax_group_warning(RuleSet::Post, 3));
    let s = Settings {
        guard: crate::core::model::Guard {
            directors: vec![TL.to_string()],
            ..Default::default()
        },
        ..settings()
    };
    let mut st = State::default();
    let out = register_by_mail(
        &mut st,
        &registration(TL, FILE),
        Ok(t9()),
        at(2027, 1, 2, 10, 0),
        &s,
    );
    let text = crate::render::facts(&out.mails[0])["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("Fax 1.2") && text.contains("diese Gruppe hat 3"),
        "{text}"
    );
}

#[test]
fn help_is_answered_to_the_sender_alone_and_changes_nothing() {
    let mut st = new_state(RuleSet::Post);
    st.tick(at(2026, 12, 1, 10, 0), &settings());
    let before = st.games.clone();
    let mut l = mail(ANNA, "[T-1/1] Hilfe", "Hilfe");
    l.content.help = true;
    let out = step(&mut st, &l, at(2026, 12, 1, 10, 0));
    assert_eq!(sent(&out), vec![(MailKind::Help, ANNA.to_string())]);
    assert_eq!(st.games, before);
    // A director's help lists his commands too.
    let mut l = mail(TL, "Hilfe", "Hilfe");
    l.content.help = true;
    let out = step(&mut st, &l, at(2026, 12, 1, 11, 0));
    let facts = crate::render::facts(&out.mails[0]);
    assert!(
        facts["director_forms"]
            .as_str()
            .unwrap()
            .contains("Ermahnung")
    );
}

/// The facts of the first mail of `kind` to `email` as one string: every text its template shows.
fn text_to(out: &Output, kind: MailKind, email: &str) -> String {
    let m = out
        .mails
        .iter()
        .find(|m| m.kind == kind && m.envelope.iter().any(|e| e == email))
        .unwrap_or_else(|| panic!("{email} got no {kind:?}: {:?}", sent(out)));
    // Every text the template shows, its sentences' words among them.
    crate::render::facts(m).to_string()
}

#[test]
fn s30_a_warning_reaches_the_player_with_its_reason_and_the_appeal_and_is_logged_in_his_game() {
    let mut st = new_state(RuleSet::Post);
    let out = step(
        &mut st,
        &mail(
            TL,
            "[T-1/1]",
            "Ermahnung: anna@fernschach.test Grund: beleidigende Worte an den Partner",
        ),
        at(2026, 12, 3, 10, 0),
    );
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Director, TL.to_string()),
            (MailKind::Director, ANNA.to_string()),
        ]
    );
    let to_anna = text_to(&out, MailKind::Director, ANNA);
    assert!(to_anna.contains("beleidigende Worte"), "{to_anna}");
    assert!(
        to_anna.contains("§29") || to_anna.contains("§ 29"),
        "{to_anna}"
    );
    // Logged and sealed in the game the mail names, not in her other game.
    let logged: Vec<&crate::core::model::LoggedEvent> = out
        .events
        .iter()
        .filter(
            |e| matches!(&e.event, Event::Director { command, .. } if command.contains("TO §30")),
        )
        .collect();
    assert_eq!(logged.len(), 1);
    assert_eq!(logged[0].game, g(1));
    // Without a game in the subject: in each of her running games of the tournament.
    let out = step(
        &mut st,
        &mail(
            TL,
            "[T-1]",
            "Ermahnung: anna@fernschach.test Grund: wiederholt zu spät",
        ),
        at(2026, 12, 4, 10, 0),
    );
    let games: Vec<String> = out
        .events
        .iter()
        .filter(|e| matches!(&e.event, Event::Director { .. }))
        .map(|e| e.game.to_string())
        .collect();
    assert_eq!(games, vec!["T-1/1".to_string(), "T-1/2".to_string()]);
}

#[test]
fn s8_s30_a_credit_in_a_sentence_lowers_the_days_used_and_both_players_are_told_before_and_after() {
    let mut st = new_state(RuleSet::Post);
    // Anna thinks six days over her first move.
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 7, 10, 0));
    let before = st.games[&g(1)].clocks.white.used_in_period;
    assert_eq!(before, 6);
    let out = step(
        &mut st,
        &mail(
            TL,
            "Re: [T-1/1]",
            "Frau Adler werden 4 Tage Bedenkzeit gutgeschrieben, weil ihr Zug bei der Post verloren ging.",
        ),
        at(2026, 12, 8, 10, 0),
    );
    assert!(queries(&out).is_empty(), "{:?}", queries(&out));
    assert_eq!(st.games[&g(1)].clocks.white.used_in_period, 2);
    let to_anna = text_to(&out, MailKind::Director, ANNA);
    assert!(to_anna.contains("gutgeschrieben"), "{to_anna}");
    assert!(
        to_anna.contains("bisher 6 Tage") && to_anna.contains("jetzt 2 Tage"),
        "{to_anna}"
    );
    // Bert reads it in English, the same way round.
    let to_bert = text_to(&out, MailKind::Director, BERT);
    assert!(to_bert.contains("credited"), "{to_bert}");
    // And the signed form charges: +2 is two days more.
    step(
        &mut st,
        &mail(
            TL,
            "Re: [T-1/1]",
            "Bedenkzeit: +2 Tage für anna@fernschach.test, Grund: §8",
        ),
        at(2026, 12, 8, 11, 0),
    );
    assert_eq!(st.games[&g(1)].clocks.white.used_in_period, 4);
}

#[test]
fn s29_every_decision_against_a_player_names_the_appeal() {
    for (command, player) in [
        (
            "Bedenkzeit: +2 Tage für bert@fernschach.test, Grund: Zug doppelt",
            BERT,
        ),
        ("Nur Züge: T-1/1", ANNA),
        ("Züge über TL: T-1/1", ANNA),
        ("Ermahnung: anna@fernschach.test Grund: Ton", ANNA),
    ] {
        let mut st = new_state(RuleSet::Post);
        play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
        let out = step(
            &mut st,
            &mail(TL, "[T-1/1]", command),
            at(2026, 12, 2, 10, 0),
        );
        assert!(queries(&out).is_empty(), "{command}: {:?}", queries(&out));
        let m = out
            .mails
            .iter()
            .find(|m| m.kind == MailKind::Director && m.envelope.iter().any(|e| e == player))
            .unwrap_or_else(|| panic!("{command}: {:?}", sent(&out)));
        assert!(
            m.sentences
                .iter()
                .any(|(_, s)| matches!(s, crate::core::model::Sentence::Appeal { .. })),
            "{command}: {:?}",
            m.sentences
        );
        // A reply to it goes to TL (its key is the player's key of replies to decisions).
        let key = m.reply_key.clone().expect("a reply key");
        assert!(
            st.keys.get(&key).is_some_and(|b| b.to_director),
            "{command}"
        );
    }
}

#[test]
fn s29_an_appeal_in_a_mail_about_the_game_goes_to_the_director_with_its_records() {
    let mut st = new_state(RuleSet::Post);
    play(&mut st, ANNA, 1, "1. e4", at(2026, 12, 1, 10, 0));
    let out = step(
        &mut st,
        &mail(
            BERT,
            "Re: [T-1/1]",
            "Einspruch: Die Zeitberechnung ist falsch, ich hatte Urlaub gemeldet.\n\nBert",
        ),
        at(2026, 12, 3, 10, 0),
    );
    assert_eq!(
        sent(&out),
        vec![
            (MailKind::Director, TL.to_string()),
            (MailKind::Receipt, BERT.to_string()),
        ]
    );
    let to_tl = &out.mails[0];
    assert!(
        to_tl
            .enclose
            .iter()
            .any(|e| matches!(e, crate::core::model::Enclosure::Pgn(_)))
            && to_tl
                .enclose
                .iter()
                .any(|e| matches!(e, crate::core::model::Enclosure::Verify(_))),
        "{:?}",
        to_tl.enclose
    );
    let text = crate::render::facts(to_tl)["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(text.contains("Zeitberechnung ist falsch"), "{text}");
    let receipt = crate::render::facts(&out.mails[1]);
    // Bert reads English: his dates are written as English mails write them.
    assert_eq!(receipt["to_director"]["came"], "2026-12-03");
    assert!(
        out.events
            .iter()
            .any(|e| matches!(e.event, Event::ToDirector { appeal: true, .. }))
    );
}

#[test]
fn fax_2_8_the_correspondence_after_rotation_says_when_and_encloses_what_is_left() {
    let mut st = new_state(RuleSet::Post);
    let t = st.tournaments.get_mut("T-1").expect("T-1");
    t.rotated = true;
    t.rotated_at = Some(at(2027, 3, 1, 3, 0));
    let out = step(
        &mut st,
        &mail(TL, "[T-1/1]", "Korrespondenz: T-1/1"),
        at(2027, 3, 10, 10, 0),
    );
    assert_eq!(sent(&out), vec![(MailKind::Director, TL.to_string())]);
    let m = &out.mails[0];
    assert!(
        !m.enclose
            .iter()
            .any(|e| matches!(e, crate::core::model::Enclosure::Mbox(_))),
        "no empty mbox: {:?}",
        m.enclose
    );
    assert!(
        m.enclose
            .iter()
            .any(|e| matches!(e, crate::core::model::Enclosure::Pgn(_))),
        "{:?}",
        m.enclose
    );
    let text = text_to(&out, MailKind::Director, TL);
    assert!(text.contains("01.03.2027"), "{text}");
}

#[test]
fn the_start_mail_teaches_the_forms_and_follows_require_reply_key() {
    let templates = crate::render::Templates::load(None).expect("built-in templates");
    for (required, says, never) in [
        (
            false,
            "muss der Betreff [T-1/1] enthalten",
            "zählt für Züge und Anträge nicht",
        ),
        (true, "zählt für Züge und Anträge nicht", "muss der Betreff"),
    ] {
        let mut s = settings();
        s.guard.require_reply_key = required;
        let mut st = State::default();
        let mut n = 0;
        let out = st
            .register(
                &file("T-1", RuleSet::Post),
                at(2026, 11, 30, 12, 0),
                &s,
                &mut || {
                    n += 1;
                    format!("key{n}")
                },
            )
            .expect("registers");
        let start = out
            .mails
            .iter()
            .find(|m| m.kind == MailKind::Start && m.envelope == [ANNA] && m.game == Some(g(1)))
            .expect("Anna's start mail of game 1");
        let (_, body) = templates
            .text(MailKind::Start, start.lang, &crate::render::facts(start))
            .expect("renders");
        let body = body.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            body.contains(says) && !body.contains(never),
            "{required}: {body}"
        );
        for form in ["Remis?", "Ich gebe auf", "Urlaub:", "Status", "Hilfe"] {
            assert!(body.contains(form), "{form}: {body}");
        }
    }
}
