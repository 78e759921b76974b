//! Tests of the report of a tournament's end (TO §27, `records::tournament_end`): once, to every
//! player and the director, whichever way the last game ends; its table the crosstable's.

use chrono::{DateTime, Duration, Utc};

use crate::core::model::{EndReport, Facts, GameStatus, Mail, Sentence};
use crate::core::records::crosstable::crosstable;
use crate::core::testkit::{self, ANNA, BERT, CARL, TL, at, settings};
use crate::core::{Output, State};
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{Letter, read_letter};
use crate::mail_kind::MailKind;
use crate::render::Templates;
use crate::rules::RuleSet;

/// Anna (German), Bert (English), Carl (German): 1 Anna–Bert, 2 Bert–Carl, 3 Carl–Anna.
fn trio() -> State {
    testkit::registered(&testkit::tournament(
        "T-1",
        "Testturnier",
        RuleSet::Fax,
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, Some(Lang::En)),
            ("Carl Clausen", CARL, None),
        ],
        &[(0, 1), (1, 2), (2, 0)],
    ))
}

fn g(n: u32) -> GameRef {
    GameRef::new("T-1", n)
}

/// A real mail from `from` about game `n` (none: `[T-1]`), read by the reader.
fn mail(from: &str, n: Option<u32>, body: &str) -> Letter {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let id = N.fetch_add(1, Ordering::Relaxed);
    let subject = match n {
        Some(n) => format!("Re: [T-1/{n}]"),
        None => "[T-1]".to_string(),
    };
    let raw = format!(
        "From: {from}\r\nTo: relay@fernschach.test\r\nSubject: {subject}\r\nMessage-ID: <end{id}@x>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    );
    read_letter(raw.as_bytes()).expect("reads")
}

/// As the shell steps: the deadlines due by `now`, then the letter.
fn step(st: &mut State, from: &str, n: Option<u32>, body: &str, now: DateTime<Utc>) -> Output {
    testkit::step(st, &mail(from, n, body), now)
}

/// The `tournament-end` mails of `out`: (first recipient, language).
fn ends(out: &Output) -> Vec<(String, Lang)> {
    out.mails
        .iter()
        .filter(|m| m.kind == MailKind::TournamentEnd)
        .map(|m| (m.to[0].email.clone(), m.lang))
        .collect()
}

/// Games 1 and 2 over: Bert resigns game 1 after 1. e4, Carl resigns game 2 after 1. d4.
fn two_games_over(st: &mut State) {
    step(st, ANNA, Some(1), "1. e4", at(2026, 12, 1, 10, 0));
    step(st, BERT, Some(1), "Ich gebe auf.", at(2026, 12, 2, 10, 0));
    step(st, BERT, Some(2), "1. d4", at(2026, 12, 2, 11, 0));
    step(st, CARL, Some(2), "Ich gebe auf.", at(2026, 12, 3, 10, 0));
    assert_eq!(st.games[&g(1)].status, GameStatus::Finished);
    assert_eq!(st.games[&g(2)].status, GameStatus::Finished);
}

/// The ways the last game (3, Carl–Anna) can end, each ending it on 2026-12-10 12:00.
fn end_game_3(st: &mut State, how: &str) {
    let now = at(2026, 12, 10, 12, 0);
    match how {
        "mate" => {
            step(st, CARL, Some(3), "1. f3", at(2026, 12, 4, 10, 0));
            step(st, ANNA, Some(3), "1. f3 e5", at(2026, 12, 5, 10, 0));
            step(st, CARL, Some(3), "1... e5 2. g4", at(2026, 12, 6, 10, 0));
            step(st, ANNA, Some(3), "2. g4 Dh4#", now);
        }
        "resignation" => {
            step(st, CARL, Some(3), "1. e4", at(2026, 12, 4, 10, 0));
            step(st, ANNA, Some(3), "Ich gebe auf.", now);
        }
        "draw agreed" => {
            step(st, CARL, Some(3), "1. e4\nRemis?", at(2026, 12, 4, 10, 0));
            step(st, ANNA, Some(3), "Remis angenommen", now);
        }
        "director's result" => {
            step(st, TL, Some(3), "Ergebnis: ½-½", now);
        }
        "confirmed time forfeit" => {
            step(st, CARL, Some(3), "1. e4", at(2026, 12, 4, 10, 0));
            // TO §21: Anna's second time forfeit suspended the game (as the tick decides it).
            let game = st.games.get_mut(&g(3)).unwrap();
            game.status = GameStatus::Suspended;
            game.clocks.black.forfeits = 2;
            step(st, TL, Some(3), "ZÜ bestätigt", now);
        }
        "withdrawal" => {
            step(
                st,
                TL,
                None,
                "Rücktritt: anna@fernschach.test Wertung: verloren",
                now,
            );
        }
        "annulment" => {
            step(st, TL, Some(3), "Ergebnis: annulliert", now);
        }
        other => panic!("no way {other}"),
    }
    assert_eq!(
        st.games[&g(3)].status,
        GameStatus::Finished,
        "{how}: game 3 is over"
    );
    assert_eq!(st.games[&g(3)].ended_at, Some(now), "{how}");
}

#[test]
fn s27_the_end_of_the_last_game_is_reported_once_to_every_player_and_the_director() {
    let s = settings();
    for how in [
        "mate",
        "resignation",
        "draw agreed",
        "director's result",
        "confirmed time forfeit",
        "withdrawal",
        "annulment",
    ] {
        let mut st = trio();
        two_games_over(&mut st);
        // Two of three games over: nothing to report, nothing due.
        let out = st.tick(at(2026, 12, 9, 12, 0), &s);
        assert_eq!(ends(&out), vec![], "{how}: before the last game ended");
        assert_eq!(st.tournaments["T-1"].end_report, EndReport::Pending);
        end_game_3(&mut st, how);
        let last_end = at(2026, 12, 10, 12, 0);
        // The shell is woken for it at once: the report falls due when the last game ended.
        assert_eq!(st.next_deadline(&s), Some(last_end), "{how}");
        let out = st.tick(last_end, &s);
        assert_eq!(
            ends(&out),
            vec![
                (ANNA.to_string(), Lang::De),
                (BERT.to_string(), Lang::En),
                (CARL.to_string(), Lang::De),
                (TL.to_string(), Lang::De),
            ],
            "{how}"
        );
        // One copy each: the mail of each reader goes to him alone, under no reply key.
        for m in out
            .mails
            .iter()
            .filter(|m| m.kind == MailKind::TournamentEnd)
        {
            assert_eq!(m.envelope, vec![m.to[0].email.clone()], "{how}");
            assert_eq!(
                (m.reply_key.as_ref(), m.game.as_ref()),
                (None, None),
                "{how}"
            );
        }
        assert_eq!(
            st.tournaments["T-1"].end_report,
            EndReport::Sent(last_end),
            "{how}"
        );
        assert!(
            out.tournaments.contains("T-1"),
            "{how}: the record is written"
        );
        // Once: neither the next tick nor a later one reports it again, nor is it due.
        assert_eq!(ends(&st.tick(last_end, &s)), vec![], "{how}");
        assert_eq!(
            ends(&st.tick(last_end + Duration::days(30), &s)),
            vec![],
            "{how}"
        );
        assert_eq!(
            st.next_deadline(&s).filter(|d| *d <= last_end),
            None,
            "{how}"
        );
    }
}

/// The `tournament-end` mail to `to` in `out`.
fn end_mail<'a>(out: &'a Output, to: &str) -> &'a Mail {
    out.mails
        .iter()
        .find(|m| m.kind == MailKind::TournamentEnd && m.to[0].email == to)
        .unwrap_or_else(|| panic!("no tournament-end to {to}"))
}

#[test]
fn s27_the_report_carries_the_crosstable_each_game_its_seal_and_encloses_the_pgn() {
    let s = settings();
    let mut st = trio();
    two_games_over(&mut st);
    end_game_3(&mut st, "mate");
    let out = st.tick(at(2026, 12, 10, 12, 0), &s);
    let t = &st.tournaments["T-1"];
    let table = crosstable(t, st.games.values());
    let anna = end_mail(&out, ANNA);
    // The table is the crosstable of the pages and `status` (the same value, the same words).
    assert!(
        anna.sentences
            .contains(&("crosstable".into(), Sentence::CrosstableText(table.clone())))
    );
    // Anna: 1 (game 1) + 1 (game 3) = 2; Bert: 0 + 1 = 1; Carl 0. Anna first.
    assert_eq!(
        table
            .rows
            .iter()
            .map(|r| (r.rank, r.email.as_str(), r.half_points, r.open))
            .collect::<Vec<_>>(),
        vec![(1, ANNA, 4, 0), (2, BERT, 2, 0), (3, CARL, 0, 0)]
    );
    let Facts::TournamentEnd(f) = &anna.facts else {
        panic!("tournament-end facts: {:?}", anna.facts)
    };
    assert_eq!((f.row, f.shared), (Some(0), false));
    let seals: Vec<(&str, &str, &str)> = f
        .games
        .iter()
        .map(|x| (x.game.as_str(), x.result.as_str(), x.seal.as_str()))
        .collect();
    assert_eq!(
        seals,
        vec![
            ("T-1/1", "1-0", st.games[&g(1)].seal.as_str()),
            ("T-1/2", "1-0", st.games[&g(2)].seal.as_str()),
            ("T-1/3", "0-1", st.games[&g(3)].seal.as_str()),
        ]
    );
    assert!(
        f.games
            .iter()
            .all(|x| x.seal.len() == 64 && x.verified.is_none())
    );
    // The shell encloses the tournament's PGN (as `PGN: T-1`) and each game's `verify` line.
    use crate::core::model::Enclosure;
    assert_eq!(
        anna.enclose,
        vec![
            Enclosure::Pgn("T-1".into()),
            Enclosure::Verify(g(1)),
            Enclosure::Verify(g(2)),
            Enclosure::Verify(g(3)),
        ]
    );
    let Facts::TournamentEnd(tl) = &end_mail(&out, TL).facts else {
        panic!("tournament-end facts")
    };
    assert_eq!(tl.row, None, "the director has no place");
    // Rendered: the table's text, the reader's place, each game with how it ended.
    let templates = Templates::load(None).expect("templates");
    let text = |m: &Mail| {
        templates
            .text(m.kind, m.lang, &crate::render::facts(m))
            .expect("renders")
    };
    let (subject, body) = text(anna);
    assert_eq!(subject, "[T-1] Endstand: Testturnier");
    assert!(
        body.contains(&crate::render::words::crosstable::text(&table, Lang::De)),
        "{body}"
    );
    assert!(
        body.contains("Ihr Platz: 1 · Punkte 2 · Sonneborn-Berger"),
        "{body}"
    );
    assert!(
        body.contains("  T-1/3  Carl Clausen – Anna Adler: 0-1 (Matt), Züge: 2\n"),
        "{body}"
    );
    assert!(
        body.contains(&format!("  Prüfsumme {}\n", st.games[&g(3)].seal)),
        "{body}"
    );
    let (subject, body) = text(end_mail(&out, BERT));
    assert_eq!(subject, "[T-1] Final table: Testturnier");
    assert!(body.contains("Your place: 2 · points 1 ·"), "{body}");
    assert!(
        body.contains("T-1/1  Anna Adler – Bert Berger: 1-0 (resignation)"),
        "{body}"
    );
    let (_, body) = text(end_mail(&out, TL));
    assert!(!body.contains("Ihr Platz"), "{body}");
    assert!(
        body.contains("Die Spieler haben diesen Bericht ebenfalls erhalten"),
        "{body}"
    );
}

#[test]
fn s27_players_equal_on_points_and_sonneborn_berger_share_their_place() {
    let s = settings();
    let mut st = trio();
    // Three draws: everyone 1 point, SB 1 each.
    for (n, white, black) in [(1, ANNA, BERT), (2, BERT, CARL), (3, CARL, ANNA)] {
        let now = at(2026, 12, n + 1, 10, 0);
        step(&mut st, white, Some(n), "1. e4\nRemis?", now);
        step(
            &mut st,
            black,
            Some(n),
            "Remis angenommen",
            now + Duration::hours(1),
        );
    }
    let out = st.tick(at(2026, 12, 5, 12, 0), &s);
    for who in [ANNA, BERT, CARL] {
        let Facts::TournamentEnd(f) = &end_mail(&out, who).facts else {
            panic!("tournament-end facts")
        };
        assert!(f.shared, "{who}");
    }
}

#[test]
fn s27_a_tournament_of_one_game_ends_with_its_game_end_alone() {
    let s = settings();
    let mut st = testkit::registered(&testkit::duel(RuleSet::Fax));
    step(&mut st, ANNA, Some(1), "1. e4", at(2026, 12, 1, 10, 0));
    step(&mut st, BERT, Some(1), "I resign.", at(2026, 12, 2, 10, 0));
    assert_eq!(st.games[&g(1)].status, GameStatus::Finished);
    assert_eq!(ends(&st.tick(at(2026, 12, 3, 10, 0), &s)), vec![]);
    assert_eq!(st.next_deadline(&s), None);
}

#[test]
fn s27_a_result_corrected_after_the_end_is_not_reported_again() {
    let s = settings();
    let mut st = trio();
    two_games_over(&mut st);
    end_game_3(&mut st, "resignation");
    assert_eq!(ends(&st.tick(at(2026, 12, 10, 12, 0), &s)).len(), 4);
    // The director corrects game 3: told by his notice and the game-end, not by a second report.
    let out = step(
        &mut st,
        TL,
        Some(3),
        "Ergebnis: ½-½",
        at(2026, 12, 11, 9, 0),
    );
    assert!(out.mails.iter().any(|m| m.kind == MailKind::GameEnd));
    assert_eq!(ends(&out), vec![]);
    assert_eq!(ends(&st.tick(at(2026, 12, 12, 9, 0), &s)), vec![]);
}

#[test]
fn s27_a_tournament_of_an_earlier_version_is_reported_only_once_a_game_of_it_ends() {
    let s = settings();
    // Ended before the report existed: never reported, not even when its result is corrected.
    let mut st = trio();
    two_games_over(&mut st);
    end_game_3(&mut st, "resignation");
    st.tournaments.get_mut("T-1").unwrap().end_report = EndReport::Untracked;
    assert_eq!(ends(&st.tick(at(2026, 12, 10, 12, 0), &s)), vec![]);
    step(
        &mut st,
        TL,
        Some(3),
        "Ergebnis: ½-½",
        at(2026, 12, 11, 9, 0),
    );
    assert_eq!(ends(&st.tick(at(2026, 12, 12, 9, 0), &s)), vec![]);
    assert_eq!(st.tournaments["T-1"].end_report, EndReport::Untracked);
    // Running when the relay was updated: its next game that ends makes it reported.
    let mut st = trio();
    st.tournaments.get_mut("T-1").unwrap().end_report = EndReport::Untracked;
    two_games_over(&mut st);
    assert_eq!(st.tournaments["T-1"].end_report, EndReport::Pending);
    end_game_3(&mut st, "mate");
    assert_eq!(ends(&st.tick(at(2026, 12, 10, 12, 0), &s)).len(), 4);
}

#[test]
fn s27_the_report_waits_for_every_game_at_hand() {
    let s = settings();
    let mut st = trio();
    two_games_over(&mut st);
    end_game_3(&mut st, "mate");
    // A relay holding only some games (the shell reads the tournament whole for its deadlines,
    // `core::needs`): without game 1 at hand the end is not seen, nor is it due.
    let held = st.games.remove(&g(1)).unwrap();
    assert_eq!(st.next_deadline(&s), None);
    assert_eq!(ends(&st.tick(at(2026, 12, 10, 12, 0), &s)), vec![]);
    st.games.insert(g(1), held);
    assert_eq!(ends(&st.tick(at(2026, 12, 10, 12, 5), &s)).len(), 4);
}

/// A round robin of `n` players, every game over (1-0 by resignation) on 2026-12-20.
fn round_robin_over(n: usize) -> State {
    let players: Vec<(String, String)> = (0..n)
        .map(|i| (format!("Spieler {i}"), format!("p{i}@fernschach.test")))
        .collect();
    let listed: Vec<(&str, &str, Option<Lang>)> = players
        .iter()
        .map(|(name, email)| (name.as_str(), email.as_str(), None))
        .collect();
    let pairs: Vec<(usize, usize)> = (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .collect();
    let mut st = testkit::registered(&testkit::tournament(
        "T-1",
        "Großturnier",
        RuleSet::Post,
        &listed,
        &pairs,
    ));
    for game in st.games.values_mut() {
        game.status = GameStatus::Finished;
        game.result = Some(crate::core::model::GameResult::WhiteWins);
        game.end_reason = Some(crate::core::model::EndReason::Resignation);
        game.ended_at = Some(at(2026, 12, 20, 12, 0));
    }
    st
}

#[test]
fn s27_up_to_120_games_are_listed_with_their_pgn_beyond_that_the_table_goes_alone() {
    use crate::core::records::tournament_end::MAX_LISTED_GAMES;
    let s = settings();
    let now = at(2026, 12, 20, 12, 0);
    // A round robin of 16: 120 games, each listed, the PGN and every `verify` line enclosed.
    let mut st = round_robin_over(16);
    let out = st.tick(now, &s);
    assert_eq!(ends(&out).len(), 17);
    let m = end_mail(&out, TL);
    let Facts::TournamentEnd(f) = &m.facts else {
        panic!("tournament-end facts")
    };
    assert_eq!(
        (f.game_count, f.games.len()),
        (MAX_LISTED_GAMES, MAX_LISTED_GAMES)
    );
    assert_eq!(m.enclose.len(), 1 + MAX_LISTED_GAMES);
    // A round robin of 17: 136 games — the table alone, and where the PGN is.
    let mut st = round_robin_over(17);
    let out = st.tick(now, &s);
    assert_eq!(ends(&out).len(), 18);
    let templates = Templates::load(None).expect("templates");
    for who in [TL, "p0@fernschach.test"] {
        let m = end_mail(&out, who);
        let Facts::TournamentEnd(f) = &m.facts else {
            panic!("tournament-end facts")
        };
        assert_eq!((f.game_count, f.games.len()), (136, 0));
        assert!(m.enclose.is_empty(), "nothing enclosed");
        let (_, body) = templates
            .text(m.kind, m.lang, &crate::render::facts(m))
            .expect("renders");
        let body = body.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            body.contains("Seine 136 Partien sind zu viele für eine Mail"),
            "{body}"
        );
        assert!(body.contains("„PGN: T-1“"), "{body}");
        assert!(body.contains(" 1. Spieler 0 "), "the table: {body}");
    }
}
