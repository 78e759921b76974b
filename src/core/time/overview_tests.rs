//! The player's overview (`crate::core::time::overview`): what it lists, across tournaments, as
//! `Status` counts it; the weekly one every Monday; who may ask and switch it.

use chrono::{DateTime, Utc};

use crate::core::model::{Facts, GameReport, OverviewFacts, OverviewGame};
use crate::core::needs::{Input, needs};
use crate::core::testkit::{
    self, ANNA, CARL, DORA, at, day, register, settings, step, step_with, tournament,
};
use crate::core::{Output, Settings, State};
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{Content, Letter, OverviewAsk};
use crate::mail_kind::MailKind;
use crate::render::Templates;
use crate::rules::RuleSet;
use shakmaty::Color::White as W;

fn t1(n: u32) -> GameRef {
    GameRef::new("T-1", n)
}

fn t2(n: u32) -> GameRef {
    GameRef::new("T-2", n)
}

/// T-1 "Testturnier": Anna (White) against Bert. T-2 "Pokal": Carl against Anna (1), Anna
/// against Dora (2). Anna has moved in T-1/1, Carl in T-2/1, and Anna resigned T-2/2.
fn anna_in_two_tournaments() -> State {
    let mut st = State::default();
    register(&mut st, &testkit::duel(RuleSet::Fax));
    register(
        &mut st,
        &tournament(
            "T-2",
            "Pokal",
            RuleSet::Post,
            &[
                ("Carl Claus", CARL, None),
                ("Anna Adler", ANNA, None),
                ("Dora Dorn", DORA, Some(Lang::En)),
            ],
            &[(0, 1), (1, 2)],
        ),
    );
    let moved = |from: &str, g: GameRef, mv: &str| {
        let content = Content {
            moves: testkit::moves(&[(1, W, mv)]),
            ..Content::default()
        };
        testkit::letter(from, Some(g), content)
    };
    step(&mut st, &moved(ANNA, t1(1), "e4"), at(2026, 12, 1, 10, 0));
    step(&mut st, &moved(CARL, t2(1), "d4"), at(2026, 12, 1, 11, 0));
    let resign = Content {
        resign: true,
        ..Content::default()
    };
    step(
        &mut st,
        &testkit::letter(ANNA, Some(t2(2)), resign),
        at(2026, 12, 2, 9, 0),
    );
    st
}

fn asks(from: &str, ask: OverviewAsk) -> Letter {
    testkit::letter(
        from,
        None,
        Content {
            overview: Some(ask),
            ..Content::default()
        },
    )
}

fn overviews(out: &Output) -> Vec<(&str, &OverviewFacts)> {
    out.mails
        .iter()
        .filter_map(|m| match &m.facts {
            Facts::Overview(f) => Some((m.to[0].email.as_str(), f)),
            _ => None,
        })
        .collect()
}

fn the_overview(out: &Output) -> &OverviewFacts {
    match overviews(out).as_slice() {
        [(_, f)] => f,
        other => panic!("one overview, got {}: {:?}", other.len(), out.log),
    }
}

fn games(list: &[OverviewGame]) -> Vec<&str> {
    list.iter().map(|g| g.report.game.as_str()).collect()
}

/// The game reports of the `Status` answer to `from` at `now`.
fn status_reports(st: &mut State, from: &str, now: DateTime<Utc>) -> Vec<GameReport> {
    let content = Content {
        status_request: true,
        ..Content::default()
    };
    let out = step(st, &testkit::letter(from, None, content), now);
    out.mails
        .iter()
        .filter_map(|m| match &m.facts {
            Facts::Status(f) => Some(f.tournaments.iter().flat_map(|t| t.games.clone())),
            _ => None,
        })
        .flatten()
        .collect()
}

#[test]
fn the_overview_lists_every_game_across_tournaments_his_moves_first_and_finished_with_results() {
    let mut st = anna_in_two_tournaments();
    let before = st.clone();
    let now = at(2026, 12, 5, 10, 0);
    let out = step(&mut st, &asks(ANNA, OverviewAsk::Now), now);
    assert_eq!(testkit::kinds(&out), vec![MailKind::Overview]);
    assert_eq!(out.mails[0].to[0].email, ANNA, "to the sender alone");
    assert!(out.mails[0].cc.is_empty());
    let f = the_overview(&out);
    assert_eq!(f.occasion, "asked");
    assert!(!f.weekly);
    // Her move in T-2/1 first; T-1/1 waits for Bert. The tournament she does not play is not
    // listed; Bert's and Carl's games are not hers.
    assert_eq!(games(&f.running), vec!["T-2/1", "T-1/1"]);
    assert_eq!(f.your_moves, 1);
    let pokal = &f.running[0];
    assert_eq!(
        (pokal.tournament.as_str(), pokal.number),
        ("Pokal", 1),
        "Black's first move awaited"
    );
    assert_eq!(pokal.report.partner.as_deref(), Some("Carl Claus"));
    assert!(pokal.report.your_move);
    // TO §16: Carl's move reached her on 1 Dec: the reminder is due on 17 Dec at 00:00.
    assert_eq!(pokal.deadline_kind, Some("reminder"));
    assert_eq!(
        pokal.deadline.map(|w| w.0.to_string()).as_deref(),
        Some("2026-12-17 00:00:00")
    );
    let duel = &f.running[1];
    assert!(!duel.report.your_move);
    assert_eq!(duel.report.to_move_name, "Bert Berger");
    // Finished: T-2/2, which she resigned as White.
    assert_eq!(games(&f.finished), vec!["T-2/2"]);
    assert_eq!(f.finished[0].report.result, "0-1");
    assert_eq!(f.finished[0].outcome, Some("lost"));
    assert_eq!(f.finished[0].deadline, None);
    // Nothing changed but the relay's counters.
    assert!(out.events.is_empty() && out.games.is_empty());
    assert_eq!(st.games, before.games);
}

#[test]
fn each_game_of_the_overview_is_what_status_shows_of_it() {
    let mut st = anna_in_two_tournaments();
    let now = at(2026, 12, 9, 18, 30);
    let out = step(&mut st, &asks(ANNA, OverviewAsk::Now), now);
    let f = the_overview(&out).clone();
    let status = status_reports(&mut st, ANNA, now);
    for g in f.running.iter().chain(&f.finished) {
        let same = status
            .iter()
            .find(|s| s.game == g.report.game)
            .unwrap_or_else(|| panic!("{} in the status", g.report.game));
        assert_eq!(&g.report, same, "{}", g.report.game);
    }
    // Her own clock in T-2/1 (post: 30 days for 10 moves; 8 days since 1 Dec): used, allowed,
    // left, the move after which the control falls.
    let clock = f.running[0].report.clock_you.expect("her clock");
    assert_eq!(
        (clock.used, clock.allowed, clock.left, clock.next_control),
        (8, 30, 22, 10)
    );
}

#[test]
fn the_weekly_overview_goes_out_every_monday_at_midnight_once_until_switched_off() {
    let mut st = anna_in_two_tournaments();
    let s = settings();
    // Wednesday 2 Dec: she asks for it weekly; the answer is this week's.
    let out = step(
        &mut st,
        &asks(ANNA, OverviewAsk::Weekly),
        at(2026, 12, 2, 12, 0),
    );
    let f = the_overview(&out);
    assert_eq!((f.occasion, f.weekly), ("subscribed", true));
    assert_eq!(st.meta.overviews.get(ANNA), Some(&day(2026, 11, 30)));
    assert_eq!(
        crate::core::time::overview::next_weekly(&st, &s),
        Some(at(2026, 12, 7, 0, 0))
    );
    assert!(
        st.next_deadline(&s)
            .is_some_and(|d| d <= at(2026, 12, 7, 0, 0))
    );
    assert!(overviews(&st.tick(at(2026, 12, 6, 23, 59), &s)).is_empty());
    let monday = st.tick(at(2026, 12, 7, 0, 0), &s);
    let sent = overviews(&monday);
    assert_eq!(sent.len(), 1, "{:?}", monday.log);
    assert_eq!(sent[0].0, ANNA);
    assert_eq!((sent[0].1.occasion, sent[0].1.weekly), ("weekly", true));
    assert_eq!(monday.mails[0].in_reply_to, None);
    // Once a week.
    assert!(overviews(&st.tick(at(2026, 12, 7, 10, 0), &s)).is_empty());
    assert!(overviews(&st.tick(at(2026, 12, 13, 23, 0), &s)).is_empty());
    assert_eq!(overviews(&st.tick(at(2026, 12, 14, 0, 0), &s)).len(), 1);
    // Switched off: answered, and no more Mondays.
    let out = step(
        &mut st,
        &asks(ANNA, OverviewAsk::Off),
        at(2026, 12, 15, 9, 0),
    );
    let f = the_overview(&out);
    assert_eq!((f.occasion, f.weekly), ("unsubscribed", false));
    assert!(st.meta.overviews.is_empty());
    assert!(overviews(&st.tick(at(2026, 12, 21, 0, 0), &s)).is_empty());
    assert_eq!(crate::core::time::overview::next_weekly(&st, &s), None);
}

#[test]
fn a_relay_down_for_weeks_sends_one_weekly_overview_not_one_per_missed_week() {
    let mut st = anna_in_two_tournaments();
    let s = settings();
    step(
        &mut st,
        &asks(ANNA, OverviewAsk::Weekly),
        at(2026, 12, 2, 12, 0),
    );
    // Back on Wednesday 30 Dec, three Mondays later.
    let out = st.tick(at(2026, 12, 30, 8, 0), &s);
    assert_eq!(overviews(&out).len(), 1);
    assert_eq!(st.meta.overviews.get(ANNA), Some(&day(2026, 12, 28)));
    assert_eq!(
        crate::core::time::overview::next_weekly(&st, &s),
        Some(at(2027, 1, 4, 0, 0))
    );
}

#[test]
fn a_week_without_an_open_game_sends_no_overview_and_keeps_the_subscription() {
    let mut st = testkit::registered(&testkit::duel(RuleSet::Fax));
    let s = settings();
    step(
        &mut st,
        &asks(ANNA, OverviewAsk::Weekly),
        at(2026, 12, 2, 12, 0),
    );
    let resign = Content {
        resign: true,
        ..Content::default()
    };
    step(
        &mut st,
        &testkit::letter(ANNA, Some(testkit::game()), resign),
        at(2026, 12, 3, 9, 0),
    );
    let out = st.tick(at(2026, 12, 7, 0, 0), &s);
    assert!(overviews(&out).is_empty());
    assert!(
        out.log.iter().any(|l| l.contains("no game of his is open")),
        "{:?}",
        out.log
    );
    assert_eq!(
        st.meta.overviews.get(ANNA),
        Some(&day(2026, 12, 7)),
        "still subscribed, this week done"
    );
    // Asked for, it lists the finished game.
    let out = step(
        &mut st,
        &asks(ANNA, OverviewAsk::Now),
        at(2026, 12, 7, 9, 0),
    );
    let f = the_overview(&out);
    assert!(f.running.is_empty());
    assert_eq!(games(&f.finished), vec!["T-1/1"]);
}

#[test]
fn the_overview_through_one_games_key_reaches_all_his_tournaments() {
    let st = anna_in_two_tournaments();
    let key = st.reply_key_for(&t1(1), ANNA).expect("her key");
    let mut l = asks(ANNA, OverviewAsk::Now);
    l.reply_keys = vec![key];
    let r = crate::core::reach(&st, &l, at(2026, 12, 5, 10, 0));
    assert!(r.games.is_empty(), "not one game alone: {r:?}");
    assert_eq!(
        r.tournaments.into_iter().collect::<Vec<_>>(),
        vec!["T-1".to_string(), "T-2".to_string()]
    );
    // The weekly one reads the tournaments she plays in, whole.
    let players = std::collections::BTreeSet::from([ANNA.to_string()]);
    let n = needs(&st, Input::Overviews(&players));
    assert_eq!(
        n.tournaments.into_iter().collect::<Vec<_>>(),
        vec!["T-1".to_string(), "T-2".to_string()]
    );
    assert!(n.people.contains(ANNA));
}

#[test]
fn under_require_reply_key_asking_needs_no_key_but_switching_the_weekly_overview_does() {
    let mut st = anna_in_two_tournaments();
    let s = Settings {
        guard: crate::core::model::Guard {
            require_reply_key: true,
            ..settings().guard
        },
        ..settings()
    };
    let now = at(2026, 12, 5, 10, 0);
    let out = step_with(&mut st, &asks(ANNA, OverviewAsk::Now), now, &s);
    assert_eq!(testkit::kinds(&out), vec![MailKind::Overview]);
    let out = step_with(&mut st, &asks(ANNA, OverviewAsk::Weekly), now, &s);
    assert_eq!(testkit::kinds(&out), vec![MailKind::Query]);
    assert!(
        st.meta.overviews.is_empty(),
        "a forged From switches nothing"
    );
    let mut through_key = asks(ANNA, OverviewAsk::Weekly);
    through_key.reply_keys = vec![st.reply_key_for(&t1(1), ANNA).expect("her key")];
    let out = step_with(&mut st, &through_key, now, &s);
    assert_eq!(testkit::kinds(&out), vec![MailKind::Overview]);
    assert!(st.meta.overviews.contains_key(ANNA));
}

#[test]
fn a_stranger_asking_for_an_overview_is_answered_as_a_stranger_asking_for_status() {
    const STRANGER: &str = "xaver@example.org";
    let status = Content {
        status_request: true,
        ..Content::default()
    };
    let overview = Content {
        overview: Some(OverviewAsk::Now),
        ..Content::default()
    };
    // Naming nothing: no answer (no backscatter); naming a game and vouched for: one query.
    for (game, vouched) in [(None, false), (None, true), (Some(t1(1)), true)] {
        let outcome = |c: &Content| {
            let mut st = anna_in_two_tournaments();
            let mut l = testkit::letter(STRANGER, game.clone(), c.clone());
            if vouched {
                l = testkit::vouched(l);
            }
            let out = step(&mut st, &l, at(2026, 12, 5, 10, 0));
            (testkit::kinds(&out), st.meta.overviews.is_empty())
        };
        let asked = outcome(&overview);
        assert_eq!(asked, outcome(&status), "{game:?} vouched: {vouched}");
        assert!(!asked.0.contains(&MailKind::Overview));
    }
}

#[test]
fn the_overview_reads_on_a_phone_short_lines_in_german_and_english() {
    let mut st = anna_in_two_tournaments();
    let templates = Templates::load(None).unwrap();
    for (who, lang) in [(ANNA, Lang::De), (DORA, Lang::En)] {
        let out = step(
            &mut st,
            &asks(who, OverviewAsk::Now),
            at(2026, 12, 5, 10, 0),
        );
        let mail = &out.mails[0];
        assert_eq!(mail.lang, lang);
        let (subject, body) = templates
            .text(mail.kind, mail.lang, &crate::render::facts(mail))
            .unwrap();
        assert!(subject.chars().count() <= 60, "{subject}");
        // No wide table: every line but a tournament's name fits a phone's screen.
        for line in body
            .lines()
            .filter(|l| *l != "Pokal" && *l != "Testturnier")
        {
            assert!(line.chars().count() <= 44, "{lang:?}: {line:?}\n{body}");
        }
        let want = match lang {
            Lang::De => "Zug 1: Sie sind am Zug",
            Lang::En => "Move 1: Carl Claus to move",
        };
        if lang == Lang::De {
            assert!(body.contains(want), "{body}");
        } else {
            // Dora plays Anna in T-2/2 (over) alone.
            assert!(body.contains("Result: 0-1, won"), "{body}");
            assert!(!body.contains(want), "{body}");
        }
    }
}

#[test]
fn the_weekly_overview_is_due_from_the_counters_alone() {
    // The shell asks without any game at hand: the subscription decides when.
    let mut st = anna_in_two_tournaments();
    step(
        &mut st,
        &asks(ANNA, OverviewAsk::Weekly),
        at(2026, 12, 2, 12, 0),
    );
    let s = settings();
    let mut bare = st.clone();
    bare.games.clear();
    assert_eq!(
        crate::core::time::overview::next_weekly(&bare, &s),
        Some(at(2026, 12, 7, 0, 0))
    );
    let due = crate::core::time::overview::weekly_due(&bare, at(2026, 12, 7, 0, 0), &s);
    assert_eq!(due.into_iter().collect::<Vec<_>>(), vec![ANNA.to_string()]);
    assert!(crate::core::time::overview::weekly_due(&bare, at(2026, 12, 6, 23, 59), &s).is_empty());
}
