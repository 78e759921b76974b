//! Table tests of the door of the core (`screen`), the answer limit (`ratelimit`) and the
//! give-up report (`undeliverable`): who may make a move, who gets answers, and how many.

use chrono::{DateTime, TimeZone, Utc};
use chrono_tz::Europe::Berlin;
use shakmaty::Color;

use crate::core::model::Guard;
use crate::core::model::{NewPlayer, NewTournament, Pairing, Person};
use crate::core::testkit::{self, game, kinds, step_with as step};
use crate::core::{Settings, State, Undelivered};
use crate::lang::Lang;
use crate::letter::auth::{AuthResult, AuthResults};
use crate::letter::{AutoReason, Content, Letter};
use crate::mail_kind::MailKind;
use crate::rules::RuleSet;

const ANNA: &str = "anna@fernschach.test";
const BERT: &str = "bert@fernschach.test";
const TL: &str = "tl@fernschach.test";
const RELAY: &str = "relay@fernschach.test";

fn settings_with(guard: Guard) -> Settings {
    Settings {
        relay_address: RELAY.into(),
        relay_name: "Relais".into(),
        tz: Berlin,
        default_lang: Lang::De,
        instance: "test".into(),
        digest_day: None,
        public_url: None,
        warn_days: 0,
        guard,
    }
}

fn settings() -> Settings {
    settings_with(Guard::default())
}

fn at(d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    Berlin
        .with_ymd_and_hms(2026, 12, d, h, mi, 0)
        .single()
        .unwrap()
        .with_timezone(&Utc)
}

fn new_state() -> State {
    let file = NewTournament {
        id: "T-1".into(),
        name: "Test".into(),
        rules: RuleSet::Fax,
        start: chrono::NaiveDate::from_ymd_opt(2026, 12, 1).unwrap(),
        director: Person {
            name: "Tom Leiter".into(),
            email: TL.into(),
        },
        players: vec![
            NewPlayer {
                name: "Anna".into(),
                email: ANNA.into(),
                language: None,
                also: Vec::new(),
                board: None,
            },
            NewPlayer {
                name: "Bert".into(),
                email: BERT.into(),
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
    let mut n = 0;
    st.register(
        &file,
        Berlin
            .with_ymd_and_hms(2026, 11, 30, 12, 0, 0)
            .unwrap()
            .with_timezone(&Utc),
        &settings(),
        &mut || {
            n += 1;
            format!("key{n}")
        },
    )
    .unwrap();
    st
}

fn letter(from: &str, moves: &[(u32, Color, &str)]) -> Letter {
    let content = Content {
        moves: testkit::moves(moves),
        ..Content::default()
    };
    testkit::letter(from, Some(game()), content)
}

fn moves(st: &State) -> Vec<String> {
    st.games[&game()].san_moves()
}

use Color::{Black as B, White as W};

#[test]
fn rfc3834_automatic_mail_and_our_own_are_never_answered() {
    let reasons = [
        AutoReason::AutoSubmitted("auto-replied".into()),
        AutoReason::Precedence("bulk".into()),
        AutoReason::AutoreplyHeader("X-Autoreply: yes".into()),
        AutoReason::MailingList,
        AutoReason::EmptyReturnPath,
        AutoReason::MailerDaemon,
        AutoReason::Report("delivery-status".into()),
        AutoReason::Report("disposition-notification".into()),
    ];
    for r in reasons {
        let mut st = new_state();
        let mut l = letter(ANNA, &[(1, W, "e4")]);
        l.automatic = Some(r.clone());
        let out = step(&mut st, &l, at(1, 10, 0), &settings());
        assert!(out.mails.is_empty(), "{r:?} answered");
        assert!(moves(&st).is_empty(), "{r:?} played");
    }
    // From the relay itself, or carrying our X-Loop (a player's forward of our mail back to us).
    let mut st = new_state();
    let mut l = letter(RELAY, &[(1, W, "e4")]);
    let out = step(&mut st, &l, at(1, 10, 0), &settings());
    assert!(out.mails.is_empty());
    l = letter(ANNA, &[(1, W, "e4")]);
    l.trace.x_loop = vec![RELAY.into()];
    let out = step(&mut st, &l, at(1, 10, 0), &settings());
    assert!(out.mails.is_empty() && moves(&st).is_empty());
    // Someone else's X-Loop (a player's own procmail) is no reason to ignore a move.
    l = letter(ANNA, &[(1, W, "e4")]);
    l.trace.x_loop = vec!["anna@fernschach.test".into()];
    let out = step(&mut st, &l, at(1, 10, 0), &settings());
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    assert_eq!(moves(&st), vec!["e4"]);
}

#[test]
fn s2_strangers_partner_out_of_turn_and_foreign_keys_make_no_move() {
    let st0 = new_state();
    let anna_key = st0.games[&game()].keys.white.clone();
    let bert_key = st0.games[&game()].keys.black.clone();
    // (sender, moves, reply keys, expected answer kinds)
    type Case<'a> = (&'a str, &'a [(u32, Color, &'a str)], Vec<String>);
    let cases: Vec<Case> = vec![
        // A stranger, even with the right game and a legal move.
        ("mallory@evil.test", &[(1, W, "e4")], vec![]),
        // A stranger who knows Anna's reply key.
        ("mallory@evil.test", &[(1, W, "e4")], vec![anna_key.clone()]),
        // The partner out of turn.
        (BERT, &[(1, W, "e4")], vec![]),
        (BERT, &[(1, B, "e5")], vec![]),
        // Bert with Anna's key (a reused or forwarded key).
        (BERT, &[(1, W, "e4")], vec![anna_key.clone()]),
        // Anna with Bert's key.
        (ANNA, &[(1, W, "e4")], vec![bert_key.clone()]),
        // The director is not a player.
        (TL, &[(1, W, "e4")], vec![]),
    ];
    for (from, mv, keys) in cases {
        let mut st = st0.clone();
        let mut l = letter(from, mv);
        l.reply_keys = keys.clone();
        let out = step(&mut st, &l, at(1, 10, 0), &settings());
        assert!(moves(&st).is_empty(), "{from} {keys:?} made a move");
        assert!(
            out.mails.iter().all(|m| m.kind == MailKind::Query),
            "{from}: only a query may answer: {:?}",
            kinds(&out)
        );
        assert!(
            out.mails
                .iter()
                .all(|m| m.to.len() == 1 && m.to[0].email == from && m.cc.is_empty()),
            "{from}: an answer goes to the sender only"
        );
    }
    // A stranger (vouched for by the own server) is answered once, not again that day.
    let mut st = st0.clone();
    let x = || vouched_by(letter("x@y.test", &[]), OWN, "spf");
    let o1 = step(&mut st, &x(), at(1, 10, 0), &trusting());
    let o2 = step(&mut st, &x(), at(1, 11, 0), &trusting());
    assert_eq!((o1.mails.len(), o2.mails.len()), (1, 0));
}

fn authed(from: &str, ar: &[(&str, &str, &str)]) -> Letter {
    let mut l = letter(from, &[(1, W, "e4")]);
    l.trace.auth_results = ar
        .iter()
        .map(|(id, res, dom)| AuthResults {
            authserv_id: (*id).into(),
            results: vec![AuthResult {
                method: "dmarc".into(),
                result: (*res).into(),
                props: vec![("header.from".into(), (*dom).into())],
            }],
        })
        .collect();
    l
}

#[test]
fn security_require_dmarc_pass_from_the_trusted_server_only() {
    let s = settings_with(Guard {
        dmarc_authserv_id: Some("mx.fernschach.test".into()),
        ..Guard::default()
    });
    type Case<'a> = (&'a [(&'a str, &'a str, &'a str)], bool);
    let cases: &[Case] = &[
        (&[("mx.fernschach.test", "pass", "fernschach.test")], true),
        (&[], false),
        (&[("mx.fernschach.test", "fail", "fernschach.test")], false),
        (&[("mx.fernschach.test", "none", "fernschach.test")], false),
        // A pass by someone else's server (the forger's own header) is not believed.
        (&[("evil.test", "pass", "fernschach.test")], false),
        // The trusted server's header on top says fail; a forged pass below it does not count.
        (
            &[
                ("mx.fernschach.test", "fail", "fernschach.test"),
                ("mx.fernschach.test", "pass", "fernschach.test"),
            ],
            false,
        ),
        // A pass for another domain than the From address.
        (&[("mx.fernschach.test", "pass", "evil.test")], false),
    ];
    for (ar, accepted) in cases {
        let mut st = new_state();
        let out = step(&mut st, &authed(ANNA, ar), at(1, 10, 0), &s);
        if *accepted {
            assert_eq!(moves(&st), vec!["e4"], "{ar:?}");
            assert!(out.quarantine.is_none());
        } else {
            assert!(moves(&st).is_empty(), "{ar:?} played");
            // Not a word to the address the forger wrote: the real player.
            assert!(out.mails.is_empty(), "{ar:?} answered");
            assert!(out.quarantine.is_some(), "{ar:?} not shown to the operator");
        }
    }
    // Without the setting, no header is needed.
    let mut st = new_state();
    step(&mut st, &authed(ANNA, &[]), at(1, 10, 0), &settings());
    assert_eq!(moves(&st), vec!["e4"]);
}

#[test]
fn oversized_mail_gets_a_too_large_query_from_players_only() {
    let mut st = new_state();
    let mut l = letter(ANNA, &[]);
    l.trace.oversized = Some(5_000_000);
    let out = step(&mut st, &l, at(1, 10, 0), &settings());
    assert_eq!(kinds(&out), vec![MailKind::Query]);
    let reason = crate::render::facts(&out.mails[0])["reason"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        reason.contains("5000000") && reason.contains("262144"),
        "{reason}"
    );
    assert!(moves(&st).is_empty());
    // A stranger's oversized mail is a stranger's mail: one polite answer (when the own server
    // vouches for it), not this one.
    let mut l = vouched_by(letter("big@x.test", &[]), OWN, "spf");
    l.trace.oversized = Some(5_000_000);
    let out = step(&mut st, &l, at(1, 10, 0), &trusting());
    assert_eq!(kinds(&out), vec![MailKind::Query]);
    assert!(
        !crate::render::facts(&out.mails[0])["reason"]
            .as_str()
            .unwrap()
            .contains("5000000")
    );
}

#[test]
fn rate_limit_at_most_10_answers_a_day_then_one_notice() {
    let mut st = new_state();
    let s = settings();
    // A header-less auto-responder of Anna's: 30 mails a day that each would get a query.
    let mut total = 0;
    let mut notices = 0;
    for i in 0..30 {
        let out = step(&mut st, &letter(ANNA, &[]), at(1, 8, i), &s);
        total += out.mails.len();
        notices += out
            .mails
            .iter()
            .filter(|m| {
                crate::render::facts(m)["reason"]
                    .as_str()
                    .is_some_and(|r| r.contains("bis morgen"))
            })
            .count();
    }
    assert_eq!(total, 11, "10 answers and one notice");
    assert_eq!(notices, 1);
    // A move still counts and goes to the partner; its receipt is no loop and is not held back.
    let out = step(&mut st, &letter(ANNA, &[(1, W, "e4")]), at(1, 9, 0), &s);
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    assert_eq!(out.mails[0].to[0].email, BERT);
    assert_eq!(moves(&st), vec!["e4"]);
    // Bert is not affected by Anna's count.
    let out = step(
        &mut st,
        &letter(BERT, &[(1, W, "e4"), (1, B, "e5")]),
        at(1, 9, 10),
        &s,
    );
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    // The next calendar day (Berlin), answers again.
    let out = step(&mut st, &letter(ANNA, &[]), at(1, 23, 59), &s);
    assert!(out.mails.is_empty());
    let out = step(&mut st, &letter(ANNA, &[]), at(2, 0, 0), &s);
    assert_eq!(kinds(&out), vec![MailKind::Query]);
    // The limit is configurable.
    let mut st = new_state();
    let s = settings_with(Guard {
        answers_per_day: 2,
        ..Guard::default()
    });
    let n: usize = (0..10)
        .map(|i| {
            step(&mut st, &letter(BERT, &[]), at(1, 8, i), &s)
                .mails
                .len()
        })
        .sum();
    assert_eq!(n, 3);
}

#[test]
fn fax_2_3_undeliverable_mail_is_reported_to_the_director() {
    let mut st = new_state();
    let s = settings();
    let u = Undelivered {
        message_id: "fernzug.test.7.move@fernschach.test".into(),
        recipient: BERT.into(),
        kind: "move".into(),
        game: Some(game()),
        created: at(1, 10, 0),
        attempts: 40,
        last_error: Some("temporary SMTP failure (451): try later".into()),
    };
    let out = st.report_undeliverable(&u, at(6, 10, 0), &s);
    assert_eq!(kinds(&out), vec![MailKind::BounceReport]);
    let m = &out.mails[0];
    assert_eq!(m.to[0].email, TL);
    let text = crate::render::facts(m)["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains(BERT) && text.contains("5 Tagen") && text.contains("451"),
        "{text}"
    );
    // About a mail to the director himself, or without a game: only the log.
    let to_tl = Undelivered {
        recipient: TL.into(),
        ..u.clone()
    };
    assert!(
        st.report_undeliverable(&to_tl, at(6, 10, 0), &s)
            .mails
            .is_empty()
    );
    let no_game = Undelivered { game: None, ..u };
    let out = st.report_undeliverable(&no_game, at(6, 10, 0), &s);
    assert!(out.mails.is_empty() && !out.log.is_empty());
}

// ------------------------------------------------------------------------------------------------
// `[security] require_reply_key` and no backscatter (issue 11, item 7)

fn keyed() -> Settings {
    settings_with(Guard {
        require_reply_key: true,
        ..Guard::default()
    })
}

/// The reply key registration gave `email` for game 1.
fn key_of(st: &State, email: &str) -> String {
    st.reply_key_for(&game(), email).expect("a key of the game")
}

/// A real mail from `from` to `to`, read by the reader.
fn raw_letter(from: &str, to: &str, subject: &str, body: &str) -> Letter {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <door{n}@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    );
    crate::letter::read_letter(raw.as_bytes()).expect("reads")
}

/// The query's reason, rendered.
fn reason_of(out: &crate::core::model::Output) -> String {
    testkit::reason(out)
}

#[test]
fn forged_from_without_reply_key_is_refused_under_require_reply_key() {
    let st0 = new_state();
    let bert_key = key_of(&st0, BERT);
    // (reply keys of the mail): none (the bare relay address), or Bert's key with Anna's From.
    for keys in [
        vec![],
        vec![bert_key.clone()],
        vec!["unknown-key".to_string()],
    ] {
        let mut st = st0.clone();
        let mut l = letter(ANNA, &[(1, W, "e4")]);
        l.reply_keys = keys.clone();
        let out = step(&mut st, &l, at(1, 10, 0), &keyed());
        assert!(moves(&st).is_empty(), "{keys:?} made a move");
        // No forward to Bert: only the query, and it goes to Anna's registered address.
        assert_eq!(kinds(&out), vec![MailKind::Query], "{keys:?}");
        assert!(
            out.mails
                .iter()
                .all(|m| m.to.len() == 1 && m.to[0].email == ANNA && m.cc.is_empty()),
            "{keys:?}: the query goes to the registered address alone"
        );
        let r = reason_of(&out);
        assert!(
            r.contains("persönliche Antwortadresse") && r.contains("antworten Sie auf eine Mail"),
            "{r}"
        );
        // The attempt is in the game's record, for the director.
        assert!(
            out.events.iter().any(|e| e.game == game()
                && matches!(&e.event, crate::core::model::Event::Queried { reason, .. } if reason == "NotThroughReplyKey")),
            "{:?}",
            out.events
        );
        // The query carries Anna's own key: answering it is the way in.
        assert_eq!(out.mails[0].reply_key, Some(key_of(&st0, ANNA)));
    }
    // Without the option the same mail (no key) is believed, as before.
    let mut st = st0.clone();
    let out = step(
        &mut st,
        &letter(ANNA, &[(1, W, "e4")]),
        at(1, 10, 0),
        &settings(),
    );
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    assert_eq!(moves(&st), vec!["e4"]);
}

#[test]
fn own_reply_key_counts_under_require_reply_key() {
    let mut st = new_state();
    let mut l = letter(ANNA, &[(1, W, "e4")]);
    l.reply_keys = vec![key_of(&st, ANNA)];
    let out = step(&mut st, &l, at(1, 10, 0), &keyed());
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    assert_eq!(moves(&st), vec!["e4"]);
    // Through the key alone (no game in the subject), read by the reader.
    let bert_key = key_of(&st, BERT);
    let l = raw_letter(
        BERT,
        &format!("relay+{bert_key}@fernschach.test"),
        "Re: Zug",
        "1. e4 e5",
    );
    assert_eq!(l.reply_keys, vec![bert_key]);
    let out = step(&mut st, &l, at(1, 11, 0), &keyed());
    assert_eq!(kinds(&out), vec![MailKind::Move, MailKind::Receipt]);
    assert_eq!(moves(&st), vec!["e4", "e5"]);
}

#[test]
fn every_act_needs_the_reply_key_but_status_does_not_under_require_reply_key() {
    let st0 = new_state();
    let bare = "relay@fernschach.test";
    let subject = format!("Re: [{}]", game());
    // Acts that change a game or a tournament, each from the bare relay address.
    let acts: &[(&str, &str)] = &[
        (ANNA, "1. e4 und ich biete Remis an"),
        (ANNA, "Ich gebe auf."),
        (ANNA, "Urlaub: 20.12.2026 – 27.12.2026"),
        (
            ANNA,
            "Ich beanspruche Remis durch dreimalige Stellungswiederholung.",
        ),
        (TL, "Ergebnis: 1-0"),
        (TL, "Bedenkzeit: +3 Tage für anna@fernschach.test"),
    ];
    // What the acts could change (the Queried event in the record aside).
    let view = |st: &State| {
        let g = &st.games[&game()];
        format!(
            "{:?} {:?} {:?} {:?} {:?} {:?}",
            g.status, g.moves, g.draw_offer, g.result, g.clocks, st.tournaments
        )
    };
    let mut ticked = st0.clone();
    ticked.tick(at(1, 10, 0), &keyed());
    for (from, body) in acts {
        let mut st = st0.clone();
        let l = raw_letter(from, bare, &subject, body);
        let out = step(&mut st, &l, at(1, 10, 0), &keyed());
        assert_eq!(kinds(&out), vec![MailKind::Query], "{from}: {body}");
        assert_eq!(out.mails[0].to[0].email, *from, "{body}");
        assert!(
            reason_of(&out).contains("persönliche Antwortadresse"),
            "{body}: {}",
            reason_of(&out)
        );
        assert_eq!(view(&st), view(&ticked), "{from}: {body} changed something");
    }
    // The director through his own key of the game: his command counts.
    let mut st = st0.clone();
    let tl_key = key_of(&st, TL);
    let l = raw_letter(
        TL,
        &format!("relay+{tl_key}@fernschach.test"),
        &subject,
        "Ergebnis: 1-0",
    );
    step(&mut st, &l, at(1, 10, 0), &keyed());
    assert_eq!(
        st.games[&game()].result,
        Some(crate::core::model::GameResult::WhiteWins)
    );
    // A bare `Status` is read-only and its answer goes to the registered address: no key needed.
    for from in [ANNA, TL] {
        let mut st = st0.clone();
        let out = step(
            &mut st,
            &raw_letter(from, bare, "Status", "Status"),
            at(1, 10, 0),
            &keyed(),
        );
        assert_eq!(kinds(&out), vec![MailKind::Status], "{from}");
    }
}

/// The operator's own server, as `[security] trusted_authserv_id` names it.
const OWN: &str = "mx.fernschach.test";

fn trusting() -> Settings {
    settings_with(Guard {
        trusted_authserv_id: Some(OWN.into()),
        ..Guard::default()
    })
}

/// `l` with an `Authentication-Results` of server `id` saying `method=pass` for `from`'s domain.
fn vouched_by(mut l: Letter, id: &str, method: &str) -> Letter {
    let domain = l.from.rsplit_once('@').unwrap().1.to_string();
    let prop = match method {
        "dmarc" => ("header.from".to_string(), domain),
        _ => ("smtp.mailfrom".to_string(), domain),
    };
    l.trace.auth_results = vec![AuthResults {
        authserv_id: id.into(),
        results: vec![AuthResult {
            method: method.into(),
            result: "pass".into(),
            props: vec![prop],
        }],
    }];
    l
}

#[test]
fn stranger_naming_nothing_is_not_answered_no_backscatter() {
    let mut st = new_state();
    // A spam run: 200 forged senders, each naming nothing of the relay.
    for i in 0..200 {
        let from = format!("victim{i}@example.org");
        let l = raw_letter(&from, RELAY, "Great offer", "Hallo, kann ich mitspielen?");
        let out = step(&mut st, &l, at(1, 10, 0), &trusting());
        assert!(out.mails.is_empty(), "{from} answered");
        assert!(
            out.log
                .iter()
                .any(|l| l.contains("not answered (no backscatter)")),
            "{:?}",
            out.log
        );
        assert!(out.quarantine.is_none());
    }
    // Nobody counts as answered, so one who later names the tournament, vouched for by the own
    // server, still gets his answer.
    assert!(st.meta.strangers.addresses.is_empty());
    let l = raw_letter("victim7@example.org", RELAY, "Turnier T-1", "Mitspielen?");
    assert_eq!(
        kinds(&step(
            &mut st,
            &vouched_by(l, OWN, "spf"),
            at(1, 11, 0),
            &trusting()
        )),
        vec![MailKind::Query]
    );
    // A game reference of another relay, or a longer id, is not ours.
    for (subject, body) in [("[T-9/1]", "1. e4"), ("Hallo", "Partie T-10/1 und T-1x")] {
        let l = vouched_by(
            raw_letter("other@example.org", RELAY, subject, body),
            OWN,
            "spf",
        );
        assert!(
            step(&mut st, &l, at(1, 12, 0), &trusting())
                .mails
                .is_empty(),
            "{subject} {body}"
        );
    }
}

#[test]
fn stranger_naming_a_game_is_answered_only_when_vouched_for_once_a_day_and_fifty_in_all() {
    let st0 = new_state();
    let anna_key = key_of(&st0, ANNA);
    let named: Vec<Letter> = vec![
        // The game in the subject.
        raw_letter(
            "s1@example.org",
            RELAY,
            &format!("Re: [{}]", game()),
            "1. e4",
        ),
        // A game reference in the text.
        raw_letter("s2@example.org", RELAY, "Frage", "Wie steht T-1/1?"),
        // The tournament id in the subject, any case.
        raw_letter("s3@example.org", RELAY, "Turnier t-1", "Mitspielen?"),
        // Through a reply key of the relay (a forwarded mail).
        raw_letter(
            "s4@example.org",
            &format!("relay+{anna_key}@fernschach.test"),
            "Fwd",
            "1. e4",
        ),
    ];
    for l in named {
        // Not vouched for (no header, or another server's, or no trusted server configured):
        // a forged sender gets nothing, whatever the mail names.
        for (l, s) in [
            (l.clone(), trusting()),
            (
                vouched_by(l.clone(), "mx.elsewhere.test", "spf"),
                trusting(),
            ),
            (vouched_by(l.clone(), OWN, "spf"), settings()),
        ] {
            let mut st = st0.clone();
            assert!(
                step(&mut st, &l, at(1, 10, 0), &s).mails.is_empty(),
                "{}",
                l.from
            );
        }
        for method in ["spf", "dmarc"] {
            let mut st = st0.clone();
            let l = vouched_by(l.clone(), OWN, method);
            let out = step(&mut st, &l, at(1, 10, 0), &trusting());
            assert_eq!(kinds(&out), vec![MailKind::Query], "{}", l.from);
            assert_eq!(out.mails[0].to[0].email, l.from);
            assert!(moves(&st).is_empty());
            // Once a day: not again today, again tomorrow.
            assert!(
                step(&mut st, &l, at(1, 11, 0), &trusting())
                    .mails
                    .is_empty()
            );
            assert_eq!(step(&mut st, &l, at(2, 9, 0), &trusting()).mails.len(), 1);
        }
    }
    // dmarc=pass by the operator's own server vouches for a stranger naming nothing; spf=pass
    // alone does not (spam domains pass SPF); a pass by another server does not.
    for (id, method, answered) in [
        (OWN, "dmarc", true),
        (OWN, "spf", false),
        ("evil.test", "dmarc", false),
    ] {
        let mut st = st0.clone();
        let l = raw_letter("s5@example.org", RELAY, "Hallo", "Mitspielen?");
        let out = step(
            &mut st,
            &vouched_by(l, id, method),
            at(1, 10, 0),
            &trusting(),
        );
        assert_eq!(out.mails.len(), usize::from(answered), "{id} {method}");
    }
    // At most 50 strangers a day in all.
    let mut st = st0.clone();
    let mut answered = 0;
    for i in 0..80 {
        let l = raw_letter(&format!("p{i}@example.org"), RELAY, "Turnier T-1", "Hallo");
        answered += step(
            &mut st,
            &vouched_by(l, OWN, "spf"),
            at(1, 10, 0),
            &trusting(),
        )
        .mails
        .len();
    }
    assert_eq!(answered, crate::core::route::STRANGER_ANSWERS_PER_DAY);
}

#[test]
fn an_answer_to_a_stranger_repeats_nothing_of_his_mail() {
    let mut st = new_state();
    let mut l = raw_letter(
        "s6@example.org",
        RELAY,
        "T-1 Cheap pills at http://spam.example",
        "Hallo",
    );
    l.from_name = Some("Claim your prize at http://spam.example".into());
    let out = step(
        &mut st,
        &vouched_by(l, OWN, "spf"),
        at(1, 10, 0),
        &trusting(),
    );
    assert_eq!(kinds(&out), vec![MailKind::Query]);
    let mail = &out.mails[0];
    assert_eq!(mail.to[0].name, "");
    let rendered = crate::render::render(
        mail,
        &crate::render::Templates::load(None).unwrap(),
        &trusting(),
        at(1, 10, 0),
    )
    .unwrap();
    let text = String::from_utf8_lossy(&rendered);
    assert!(!text.contains("spam.example"), "{text}");
    assert!(!text.contains("Claim"), "{text}");
}
