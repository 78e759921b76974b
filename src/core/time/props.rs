//! Property tests of the deadlines (TO §16–§21): whatever the moments the core is woken at, each
//! deadline fires once, in time order, and the result equals one tick at the end.

use chrono::{Duration, TimeZone, Utc};
use chrono_tz::Europe::Berlin;
use proptest::prelude::*;

use crate::core::model::Event;
use crate::core::model::{NewPlayer, NewTournament, Pairing, Person};
use crate::core::testkit;
use crate::core::{Settings, State};
use crate::lang::Lang;
use crate::letter::{Content, Letter};
use crate::rules::RuleSet;

fn settings() -> Settings {
    Settings {
        relay_address: "relay@x.test".into(),
        relay_name: "Relais".into(),
        tz: Berlin,
        default_lang: Lang::De,
        instance: "prop".into(),
        digest_day: None,
        public_url: None,
        warn_days: 0,
        guard: Default::default(),
    }
}

fn state(rules: RuleSet) -> State {
    let file = NewTournament {
        id: "P".into(),
        name: "P".into(),
        rules,
        start: chrono::NaiveDate::from_ymd_opt(2026, 12, 1).expect("date"),
        director: Person {
            name: "TL".into(),
            email: "tl@x.test".into(),
        },
        players: vec![
            NewPlayer {
                name: "A".into(),
                email: "a@x.test".into(),
                language: None,
                also: Vec::new(),
                board: None,
            },
            NewPlayer {
                name: "B".into(),
                email: "b@x.test".into(),
                language: None,
                also: Vec::new(),
                board: None,
            },
        ],
        pairings: vec![Pairing {
            number: 1,
            round: 1,
            white: 0,
            black: 1,
        }],
        digest: false,
    };
    let mut st = State::default();
    let start = Berlin
        .with_ymd_and_hms(2026, 11, 30, 12, 0, 0)
        .single()
        .expect("time")
        .with_timezone(&Utc);
    st.register(&file, start, &settings(), &mut || "k".into())
        .expect("registers");
    // White's first move on 1 December; then Black stays silent.
    let content = Content {
        moves: testkit::moves(&[(1, shakmaty::Color::White, "e4")]),
        ..Content::default()
    };
    // One Message-ID for every state built here: the properties compare such states.
    let letter = Letter {
        message_id: "m1".into(),
        ..testkit::letter("a@x.test", Some("P/1".parse().expect("ref")), content)
    };
    let now = start + Duration::hours(22);
    st.tick(now, &settings());
    st.handle_letter(&letter, now, &settings());
    st
}

/// Events of one kind in an output, by name.
fn names(events: &[Event]) -> Vec<&'static str> {
    events
        .iter()
        .map(|e| match e {
            Event::Reminded { .. } => "reminder",
            Event::SilenceReported { .. } => "silence",
            Event::TimeForfeit { nth: 1, .. } => "forfeit-1",
            Event::TimeForfeit { .. } => "forfeit-2",
            _ => "other",
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn s16_s17_each_deadline_fires_once_whenever_the_core_is_woken(
        post in any::<bool>(),
        steps in proptest::collection::vec(1u32..(24 * 60 * 9), 1..40),
    ) {
        let rules = if post { RuleSet::Post } else { RuleSet::Fax };
        let mut woken = state(rules);
        let mut once = woken.clone();
        let mut now = woken.meta.acted_until.unwrap_or_else(Utc::now);
        let mut fired: Vec<Event> = Vec::new();
        for m in steps {
            now += Duration::minutes(i64::from(m));
            let out = woken.tick(now, &settings());
            fired.extend(out.events.into_iter().map(|e| e.event));
            // Nothing is left due after a tick.
            prop_assert!(woken.deadlines(&settings()).iter().all(|(at, _, _)| *at > now));
        }
        let all_at_once: Vec<Event> = once.tick(now, &settings()).events.into_iter().map(|e| e.event).collect();
        let n = names(&fired);
        for kind in ["reminder", "silence", "forfeit-1"] {
            prop_assert!(n.iter().filter(|k| **k == kind).count() <= 1, "{kind} fired twice: {n:?}");
        }
        prop_assert_eq!(n, names(&all_at_once));
        prop_assert_eq!(&woken.games, &once.games);
    }
}
