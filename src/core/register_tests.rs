//! The room of registrations (`register.rs`) through the core's entry points: a tournament file
//! checked by mail and not registered (`Turnier prüfen` / `check tournament`), and a tournament
//! withdrawn before its first move (`Turnier zurückziehen` / `withdraw tournament`) — who may,
//! when, what the players are told, and that nothing of it stays. Table tests named after what
//! they prove; the letters are real mails read by the real reader.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::core::door::reply::director_key;
use crate::core::model::{FileFault, FileProblem, Guard, RegisterRefusal};
use crate::core::testkit::{self, ANNA, BERT, CARL, DORA, TL, at, settings};
use crate::core::{NewTournament, Output, Settings, State, admit};
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{Letter, read_letter};
use crate::mail_kind::MailKind;
use crate::rules::RuleSet;

/// In `[relay] directors`; directs no tournament.
const LEITUNG: &str = "leitung@fernschach.test";
/// The director of T-2.
const UTE: &str = "ute@fernschach.test";
const ERIK: &str = "erik@fernschach.test";
const STRANGER: &str = "someone@example.org";

/// The relay of these tests: `[relay] directors = [LEITUNG]`.
fn relay() -> Settings {
    Settings {
        guard: Guard {
            directors: vec![LEITUNG.to_string()],
            ..settings().guard
        },
        ..settings()
    }
}

/// T-1: Anna (German), Bert (English), Carl, three games, directed by Tom; T-2: Dora and Erik,
/// directed by Ute.
fn two_tournaments() -> State {
    let mut st = State::default();
    testkit::register(&mut st, &t1());
    let mut t2 = testkit::tournament(
        "T-2",
        "Zweites Turnier",
        RuleSet::Post,
        &[("Dora Dorn", DORA, None), ("Erik Ernst", ERIK, None)],
        &[(0, 1)],
    );
    t2.director.email = UTE.into();
    testkit::register(&mut st, &t2);
    // The games have begun (no move yet): what time alone does is done before each test.
    st.tick(at(2026, 12, 1, 12, 0), &relay());
    st
}

fn t1() -> NewTournament {
    testkit::tournament(
        "T-1",
        "Pokal",
        RuleSet::Post,
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, Some(Lang::En)),
            ("Carl Clausen", CARL, None),
        ],
        &[(0, 1), (2, 0), (1, 2)],
    )
}

/// A real mail from `from` with `subject` and `body` (to `to`), read by the reader.
fn mail_to(from: &str, to: &str, subject: &str, body: &str) -> Letter {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let n = N.fetch_add(1, Ordering::Relaxed);
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <r{n}@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    );
    read_letter(raw.as_bytes()).expect("reads")
}

fn mail(from: &str, subject: &str, body: &str) -> Letter {
    mail_to(from, "relay@fernschach.test", subject, body)
}

/// What the shell does with a mail received at `now`: the deadlines first, then the letter.
fn step(st: &mut State, l: &Letter, now: DateTime<Utc>, s: &Settings) -> Output {
    st.tick(now, s);
    st.handle_letter(l, now, s)
}

/// (kind, recipient) of every copy decided.
fn sent(out: &Output) -> Vec<(MailKind, String)> {
    out.mails
        .iter()
        .map(|m| (m.kind, m.to[0].email.clone()))
        .collect()
}

/// The text the template shows under `key` of the first mail of `kind` to `to`.
fn said(out: &Output, kind: MailKind, to: &str, key: &str) -> String {
    let m = out
        .mails
        .iter()
        .find(|m| m.kind == kind && m.to[0].email == to)
        .unwrap_or_else(|| panic!("no {kind:?} to {to}: {:?}", sent(out)));
    crate::render::facts(m)[key]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

const WHEN: fn() -> DateTime<Utc> = || at(2026, 12, 3, 10, 0);

// ------------------------------------------------------------------------------------------------
// `Turnier zurückziehen: ID` / `withdraw tournament: ID`

/// What a withdrawal led to.
#[derive(Debug, PartialEq)]
enum Then {
    /// The tournament is gone; each player and the sender got a `director` notice.
    Withdrawn,
    /// One query to the sender, with this reason; nothing changed.
    Refused(String),
    /// No answer at all (a stranger the operator's server does not vouch for); nothing changed.
    Silent,
}

fn judge(st: &State, before: &State, out: &Output, from: &str) -> Then {
    if out.withdrawn.contains("T-1") {
        assert!(!st.tournaments.contains_key("T-1"));
        return Then::Withdrawn;
    }
    assert_eq!(st.tournaments, before.tournaments, "nothing changed");
    assert_eq!(st.games, before.games, "nothing changed");
    match out.mails.as_slice() {
        [] => Then::Silent,
        [q] if q.kind == MailKind::Query && q.to[0].email == from => Then::Refused(
            crate::render::facts(q)["reason"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
        ),
        _ => panic!("unexpected mails: {:?}", sent(out)),
    }
}

/// The reason of a refusal (panics on anything else).
fn refused(then: Then, what: &str) -> String {
    match then {
        Then::Refused(reason) => reason,
        other => panic!("{what}: refused expected, got {other:?}"),
    }
}

#[test]
fn only_its_director_or_a_relay_director_may_withdraw_a_tournament() {
    let s = relay();
    let not_allowed = || Then::Refused("dürfen nur sein Turnierleiter".into());
    let table: [(&str, &str, &str, Then); 6] = [
        (
            "its director",
            TL,
            "Turnier zurückziehen: T-1",
            Then::Withdrawn,
        ),
        (
            "an address of [relay] directors",
            LEITUNG,
            "withdraw tournament: T-1",
            Then::Withdrawn,
        ),
        (
            "a player of it",
            ANNA,
            "Turnier zurückziehen: T-1",
            not_allowed(),
        ),
        (
            "another tournament's director",
            UTE,
            "Turnier zurückziehen: T-1",
            not_allowed(),
        ),
        (
            "another tournament's director, of a tournament that does not exist",
            UTE,
            "Turnier zurückziehen: T-9",
            not_allowed(),
        ),
        (
            "a stranger",
            STRANGER,
            "Turnier zurückziehen: T-1",
            Then::Silent,
        ),
    ];
    for (who, from, subject, want) in table {
        let mut st = two_tournaments();
        let before = st.clone();
        let out = step(&mut st, &mail(from, subject, ""), WHEN(), &s);
        match (want, judge(&st, &before, &out, from)) {
            (Then::Refused(words), Then::Refused(reason)) => {
                assert!(reason.contains(&words), "{who}: {reason}");
                assert!(
                    !reason.contains("T-9"),
                    "{who}: says nothing of it: {reason}"
                );
            }
            (want, got) => assert_eq!(got, want, "{who}: {:?}", out.log),
        }
        // T-2 is not touched, whoever asked.
        assert_eq!(
            st.tournaments.get("T-2"),
            before.tournaments.get("T-2"),
            "{who}"
        );
        assert!(st.games.contains_key(&GameRef::new("T-2", 1)), "{who}");
    }
}

#[test]
fn a_withdrawal_tells_every_player_in_his_language_and_the_director_in_copy() {
    let s = relay();
    let mut st = two_tournaments();
    // Anna's mail goes to another address since the director said so (before any move).
    let moved = mail(
        TL,
        "[T-1]",
        "Adresse: anna@fernschach.test -> anna.neu@example.org",
    );
    let out = step(&mut st, &moved, at(2026, 12, 2, 9, 0), &s);
    assert!(
        out.mails.iter().all(|m| m.kind != MailKind::Query),
        "{:?}",
        out.log
    );
    let out = step(
        &mut st,
        &mail(LEITUNG, "withdraw tournament: T-1", ""),
        WHEN(),
        &s,
    );
    assert!(out.mails.iter().all(|m| m.kind == MailKind::Director));
    let to: BTreeSet<String> = sent(&out).into_iter().map(|(_, to)| to).collect();
    assert_eq!(
        to,
        BTreeSet::from(["anna.neu@example.org", BERT, CARL, LEITUNG].map(str::to_string)),
        "one notice each, the sender's confirmation"
    );
    assert_eq!(out.mails.len(), 4, "{:?}", sent(&out));
    let anna = said(&out, MailKind::Director, "anna.neu@example.org", "text");
    assert!(
        anna.contains("Das Turnier T-1 („Pokal“) ist zurückgezogen") && anna.contains("3 Partien"),
        "{anna}"
    );
    let bert = said(&out, MailKind::Director, BERT, "text");
    assert!(
        bert.contains("Tournament T-1 (\"Pokal\") is withdrawn"),
        "{bert}"
    );
    assert_eq!(
        said(&out, MailKind::Director, BERT, "title"),
        "tournament T-1 withdrawn"
    );
    // The confirmation: in the sender's language (`withdraw tournament`), TL in copy.
    let confirmation = out
        .mails
        .iter()
        .find(|m| m.to[0].email == LEITUNG)
        .expect("the confirmation");
    assert_eq!(confirmation.lang, Lang::En);
    assert_eq!(confirmation.cc[0].email, TL);
    assert!(confirmation.envelope.contains(&TL.to_string()));
    // No mail carries a key of the games that are gone.
    assert!(
        out.mails
            .iter()
            .all(|m| m.game.is_none() && m.reply_key.is_none())
    );
}

#[test]
fn a_tournament_under_way_cannot_be_withdrawn() {
    let s = relay();
    // Each: what happened first, in which game, and what the refusal says.
    let table: [(&str, &str, &str, &str, &str); 3] = [
        (
            "a move",
            CARL,
            "[T-1/2]",
            "1. e4",
            "In der Partie T-1/2 ist schon gezogen worden",
        ),
        (
            "a game annulled",
            TL,
            "[T-1/1]",
            "Ergebnis: annulliert",
            "Die Partie T-1/1 ist schon beendet",
        ),
        (
            "a player withdrawn (TO §26)",
            TL,
            "[T-1]",
            "Rücktritt: bert@fernschach.test Wertung: verloren",
            "Die Partie T-1/1 ist schon beendet",
        ),
    ];
    for (what, from, subject, body, words) in table {
        let mut st = two_tournaments();
        let out = step(
            &mut st,
            &mail(from, subject, body),
            at(2026, 12, 2, 9, 0),
            &s,
        );
        assert!(
            out.mails.iter().all(|m| m.kind != MailKind::Query),
            "{what}: {:?}",
            out.log
        );
        let before = st.clone();
        let out = step(
            &mut st,
            &mail(TL, "Turnier zurückziehen: T-1", ""),
            WHEN(),
            &s,
        );
        let reason = refused(judge(&st, &before, &out, TL), what);
        assert!(reason.contains(words), "{what}: {reason}");
        assert!(reason.contains("Ergebnis: annulliert"), "{what}: {reason}");
        assert!(out.withdrawn.is_empty(), "{what}");
    }
}

#[test]
fn a_withdrawal_must_name_a_tournament_that_exists() {
    let s = relay();
    let table: [(&str, &str, &str, &str); 3] = [
        (
            "an unknown id",
            LEITUNG,
            "Turnier zurückziehen: T-9",
            "Ein Turnier „T-9“ gibt es nicht",
        ),
        (
            "no id",
            TL,
            "Turnier zurückziehen",
            "Die Mail nennt kein Turnier",
        ),
        (
            "no id, in English",
            TL,
            "withdraw tournament",
            "The mail names no tournament",
        ),
    ];
    for (what, from, subject, words) in table {
        let mut st = two_tournaments();
        let before = st.clone();
        let out = step(&mut st, &mail(from, subject, ""), WHEN(), &s);
        let reason = refused(judge(&st, &before, &out, from), what);
        assert!(reason.contains(words), "{what}: {reason}");
    }
}

#[test]
fn the_withdrawal_is_read_from_a_line_of_the_text_too() {
    let s = relay();
    let mut st = two_tournaments();
    let l = mail(
        TL,
        "Re: [T-1] Turnierleiter: Turnier T-1 angemeldet",
        "Guten Tag,\n\nTurnier zurückziehen: [T-1].\n\nTom Leiter",
    );
    let out = step(&mut st, &l, WHEN(), &s);
    assert_eq!(out.withdrawn, BTreeSet::from(["T-1".to_string()]));
}

#[test]
fn a_withdrawn_tournament_is_forgotten_and_its_id_and_addresses_are_free_again() {
    let s = relay();
    let mut st = two_tournaments();
    let out = step(
        &mut st,
        &mail(TL, "Turnier zurückziehen: T-1", ""),
        WHEN(),
        &s,
    );
    assert_eq!(out.withdrawn.len(), 1, "{:?}", out.log);
    assert!(st.games.keys().all(|g| g.tournament == "T-2"));
    assert!(st.keys.iter().all(|(_, b)| b.game.tournament == "T-2"));
    assert!(!st.meta.digests.contains_key("T-1"));
    for gone in [ANNA, BERT, CARL, TL] {
        assert!(!st.knows(gone), "{gone} is known no more");
    }
    assert!(st.knows(DORA) && st.knows(UTE));
    // Nothing to fire for it.
    assert!(
        st.tick(at(2027, 3, 1, 10, 0), &s)
            .mails
            .iter()
            .all(|m| m.game.as_ref().is_none_or(|g| g.tournament != "T-1"))
    );
    // The same file registers again.
    assert_eq!(admit(&st, &t1()), Ok(()));
    testkit::register(&mut st, &t1());
    assert_eq!(st.tournaments["T-1"].games.len(), 3);
}

#[test]
fn a_withdrawal_counts_only_through_a_reply_key_when_keys_are_required() {
    let s = Settings {
        guard: Guard {
            require_reply_key: true,
            ..relay().guard
        },
        ..relay()
    };
    let mut st = two_tournaments();
    let before = st.clone();
    let out = step(
        &mut st,
        &mail(TL, "Turnier zurückziehen: T-1", ""),
        WHEN(),
        &s,
    );
    let reason = refused(judge(&st, &before, &out, TL), "without a key");
    assert!(reason.contains("persönliche Antwortadresse"), "{reason}");
    let key = director_key(&st, &GameRef::new("T-1", 1)).expect("TL's key");
    let through = mail_to(
        TL,
        &format!("relay+{key}@fernschach.test"),
        "Turnier zurückziehen: T-1",
        "",
    );
    let out = step(&mut st, &through, WHEN(), &s);
    assert_eq!(out.withdrawn.len(), 1, "{:?}", out.log);
}

// ------------------------------------------------------------------------------------------------
// `Turnier prüfen` / `check tournament`

const FILE: &str = "id = \"T-9\"\nname = \"Neun\"\nrules = \"post\"\nstart = 2027-01-10\n";

/// The file of these checks as the shell read it: Anna, Bert and Carl, three games.
fn t9() -> NewTournament {
    let mut f = t1();
    f.id = "T-9".into();
    f.name = "Neun".into();
    f.players.iter_mut().for_each(|p| {
        p.email = p.email.replace("@fernschach", "@neun");
    });
    f
}

/// A check by mail of `checked` (the shell's check of the file) from `from` under `subject`.
fn check(
    st: &mut State,
    from: &str,
    subject: &str,
    checked: Result<NewTournament, RegisterRefusal>,
) -> Output {
    let l = mail(from, subject, FILE);
    assert!(l.content.check_only && l.content.register.is_some());
    let mut key = || -> String { panic!("a check makes no key") };
    st.handle_registration(&l, checked, WHEN(), &relay(), &mut key)
}

/// A check's case: what, the subject, the shell's check of the file, the words the answer has.
type Row = (
    &'static str,
    &'static str,
    Result<NewTournament, RegisterRefusal>,
    Vec<&'static str>,
);

#[test]
fn a_check_by_mail_answers_a_director_with_the_games_or_every_error_and_registers_nothing() {
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
    let duplicate = NewTournament {
        id: "T-2".into(),
        ..t9()
    };
    let mut taken = t9();
    taken.players[0].also = vec![DORA.into()];
    let mut huge = t9();
    huge.pairings = vec![huge.pairings[0]; crate::core::route::MAX_GAMES_BY_MAIL + 1];
    let table: Vec<Row> = vec![
        (
            "a file that holds",
            "Turnier prüfen",
            Ok(t9()),
            vec![
                "Die Turnierdatei ist in Ordnung",
                "3 Spieler und 3 Partien",
                "T-9/2  Runde 1:  Carl Clausen – Anna Adler",
                "Angemeldet ist nichts",
            ],
        ),
        (
            "a file that holds, asked in English",
            "check tournament",
            Ok(t9()),
            vec![
                "The tournament file holds",
                "T-9/3  round 1:  Bert Berger – Carl Clausen",
            ],
        ),
        (
            "a file with errors",
            "Turnier prüfen",
            Err(RegisterRefusal::File { name: None, errors }),
            vec![
                "2 Fehler",
                "Zeile 1, Schlüssel `id`",
                "Zeile 16, Schlüssel `players[2].email`",
            ],
        ),
        (
            "an id registered already",
            "Turnier prüfen",
            Ok(duplicate),
            vec!["„T-2“ ist bereits angemeldet"],
        ),
        (
            "an address someone else's",
            "Turnier prüfen",
            Ok(taken),
            vec![
                "Eine Adresse gehört einer Person",
                "dora@fernschach.test: im Turnier T-2",
            ],
        ),
        (
            "too many games for a mail",
            "Turnier prüfen",
            Ok(huge),
            vec!["20001 Partien"],
        ),
    ];
    for (what, subject, checked, words) in table {
        let mut st = two_tournaments();
        let before = st.clone();
        let out = check(&mut st, LEITUNG, subject, checked);
        assert_eq!(
            st.tournaments, before.tournaments,
            "{what}: nothing registered"
        );
        assert_eq!(st.games, before.games, "{what}");
        assert_eq!(st.keys, before.keys, "{what}");
        assert!(out.games.is_empty() && out.tournaments.is_empty() && out.keys.is_empty());
        assert_eq!(
            sent(&out),
            vec![(MailKind::Director, LEITUNG.to_string())],
            "{what}"
        );
        let text = said(&out, MailKind::Director, LEITUNG, "text");
        for w in words {
            assert!(text.contains(w), "{what}: {w}: {text}");
        }
    }
}

#[test]
fn a_check_from_anyone_else_is_answered_as_a_registration_from_him() {
    let mut st = two_tournaments();
    // A player: told he may not register, not a word on the file.
    let out = check(&mut st, ANNA, "Turnier prüfen", Ok(t9()));
    assert_eq!(sent(&out), vec![(MailKind::Query, ANNA.to_string())]);
    let q = said(&out, MailKind::Query, ANNA, "reason");
    assert!(
        q.contains("dürfen nur die Adressen") && !q.contains("T-9"),
        "{q}"
    );
    // A stranger the operator's server does not vouch for: no answer.
    let out = check(&mut st, STRANGER, "Turnier prüfen", Ok(t9()));
    assert!(out.mails.is_empty(), "{:?}", sent(&out));
    // The director of a tournament, not in `[relay] directors`, may not register either.
    let out = check(&mut st, TL, "check tournament", Ok(t9()));
    assert_eq!(sent(&out), vec![(MailKind::Query, TL.to_string())]);
    assert!(!st.tournaments.contains_key("T-9"));
}
