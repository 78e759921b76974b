//! What `GetMyGames` shows and what `MakeAMove` is answered, on the core's state.

use shakmaty::Color::{Black, White};

use super::*;
use crate::core::testkit::{
    ANNA, BERT, CARL, at, letter, moves, register, registered, settings, step, tournament,
};
use crate::letter::Content;
use crate::rules::RuleSet;

/// Anna, Bert and Carl: game 1 Anna–Bert, 2 Bert–Carl, 3 Carl–Anna.
fn three() -> State {
    let mut st = registered(&tournament(
        "T-1",
        "Testturnier",
        RuleSet::Post,
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, None),
            ("Carl Clausen", CARL, None),
        ],
        &[(0, 1), (1, 2), (2, 0)],
    ));
    // The clocks start on 1 Dec (the games run).
    st.tick(at(2026, 12, 1, 9, 0), &settings());
    st
}

fn call(game_id: u32, movecount: u32, my_move: &str) -> MoveCall {
    MoveCall {
        game_id: game_id.to_string(),
        movecount: Some(movecount),
        my_move: my_move.into(),
        ..MoveCall::default()
    }
}

/// What `MakeAMove` of `email` is answered on a copy of `st` at 1 Dec 20:00, decided by the core
/// as the app hands it over (`App::xfcc_move`): the letter's text when the core took it, else
/// the code of its first refusal. A refusal the client shows at once sends no mail and logs no
/// event.
fn make_a_move(st: &State, email: &str, c: &MoveCall) -> Result<String, Code> {
    let mut st = st.clone();
    let Some(g) = game_of_id(&st, &c.game_id) else {
        return Err(Code::InvalidGameID);
    };
    let content = content_of(&st, &g, email, c);
    let text = letter_text(&content);
    let mut l = letter(email, Some(g.clone()), content);
    l.trace.direct = true;
    let out = step(&mut st, &l, at(2026, 12, 1, 20, 0));
    if !out.refused.is_empty() {
        assert!(
            out.mails.is_empty() && out.events.is_empty(),
            "{:?}",
            out.log
        );
    }
    let mut refused = out.refused.clone();
    refused.extend(crate::app::xfcc::refusals_to(&out, email));
    match refused.first() {
        Some(r) => Err(code_of(r, st.games.get(&g), email)),
        None => Ok(text),
    }
}

/// Plays `list` in game 1 by mail, each an hour after the one before from 1 Dec 10:00.
fn play(st: &mut State, list: &[(u32, shakmaty::Color, &str, &str)]) {
    let g = GameRef::new("T-1", 1);
    let mut last: Option<(u32, shakmaty::Color, String)> = st.games[&g].moves.last().map(|m| {
        (
            Game::number_of_ply(st.games[&g].moves.len() - 1),
            if st.games[&g].moves.len() % 2 == 1 {
                White
            } else {
                Black
            },
            m.san.clone(),
        )
    });
    for (i, &(n, c, text, from)) in list.iter().enumerate() {
        // TO §2: the partner's last move repeated, then the own.
        let mut tokens: Vec<(u32, shakmaty::Color, &str)> = Vec::new();
        if let Some((ln, lc, lt)) = &last {
            tokens.push((*ln, *lc, lt.as_str()));
        }
        tokens.push((n, c, text));
        let content = Content {
            moves: moves(&tokens),
            ..Content::default()
        };
        let out = step(
            st,
            &letter(from, Some(g.clone()), content),
            at(2026, 12, 1, 10 + i as u32, 0),
        );
        assert!(
            out.mails
                .iter()
                .all(|m| m.kind != crate::mail_kind::MailKind::Query),
            "{text}"
        );
        last = Some((n, c, text.to_string()));
    }
}

#[test]
fn ids_are_stable_readable_ints_without_a_dash() {
    let mut st = three();
    assert_eq!(game_id(&st, &GameRef::new("T-1", 3)), Some(100_003));
    assert_eq!(game_of_id(&st, "100003"), Some(GameRef::new("T-1", 3)));
    assert_eq!(game_of_id(&st, " 100002 "), Some(GameRef::new("T-1", 2)));
    for unknown in ["100004", "3", "200001", "-100001", "x", ""] {
        assert_eq!(game_of_id(&st, unknown), None, "{unknown}");
    }
    // A tournament registered later comes after: the ids of the first stay.
    let mut later = tournament(
        "A-0",
        "Früh benannt",
        RuleSet::Post,
        &[("Anna Adler", ANNA, None), ("Carl Clausen", CARL, None)],
        &[(0, 1)],
    );
    later.start = crate::core::testkit::day(2026, 12, 5);
    let mut key = 100;
    st.register(&later, at(2026, 12, 2, 8, 0), &settings(), &mut || {
        key += 1;
        format!("k{key}")
    })
    .unwrap();
    assert_eq!(game_id(&st, &GameRef::new("T-1", 3)), Some(100_003));
    assert_eq!(game_id(&st, &GameRef::new("A-0", 1)), Some(200_001));
    let _ = register;
}

#[test]
fn get_my_games_shows_the_players_games_with_the_relays_clock() {
    let mut st = three();
    play(&mut st, &[(1, White, "e4", ANNA), (1, Black, "c5", BERT)]);
    // Anna is on move since 1 Dec 11:00; asked 3 days and 2 hours 30 minutes later.
    let now = at(2026, 12, 4, 13, 30);
    let games = my_games(&st, ANNA, "Relais", now, chrono_tz::Europe::Berlin);
    assert_eq!(games.len(), 2, "games 1 and 3, not Bert–Carl");
    let g = &games[0];
    assert_eq!(
        (g.id, g.white.as_str(), g.black.as_str()),
        (100_001, "Anna Adler", "Bert Berger")
    );
    assert!(g.my_turn && g.has_white && !g.draw_offered);
    assert_eq!(g.moves, "1.e4 c5");
    assert_eq!(g.result, XfccResult::Ongoing);
    assert_eq!(g.event, "Testturnier");
    assert_eq!(g.event_date, "2026.12.01");
    assert_eq!(g.time_control, "10/2592000", "TO §12: 30 days per 10 moves");
    assert_eq!(
        g.fen,
        "rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
    // TO §17 with §13: 30 days for the first 10 moves, and a move of more than 10 days without
    // announcement costs 5 more: the limit is passed when his 26th day begins (27 Dec 00:00).
    let left = g.player.0 * 1440 + g.player.1 * 60 + g.player.2;
    assert_eq!(left, (at(2026, 12, 27, 0, 0) - now).num_minutes());
    assert_eq!(g.player, (22, 10, 30));
    assert_eq!(
        g.opponent,
        (30, 0, 0),
        "Bert answered within the day: 30 days for his next"
    );
    let mut xml = String::new();
    g.write_xml(&mut xml);
    assert!(xml.starts_with("<XfccGame><id>100001</id><white>Anna Adler</white>"));
    assert!(xml.contains("<myTurn>true</myTurn><hasWhite>true</hasWhite>"));
    // Bert sees the same game from his side.
    let b = &my_games(&st, BERT, "Relais", now, chrono_tz::Europe::Berlin)[0];
    assert!(!b.my_turn && !b.has_white);
    assert_eq!(b.player, g.opponent);
}

#[test]
fn make_a_move_is_checked_in_the_order_of_the_servers() {
    let mut st = three();
    let cases: &[(&str, MoveCall, Result<&str, Code>)] = &[
        (
            "an id the relay never gave",
            call(999, 1, "e4"),
            Err(Code::InvalidGameID),
        ),
        ("Bert–Carl", call(100_002, 1, "e4"), Err(Code::NotYourGame)),
        (
            "Carl is White in game 3",
            call(100_003, 1, "e5"),
            Err(Code::NotYourTurn),
        ),
        (
            "move 2 at the start",
            call(100_001, 2, "e4"),
            Err(Code::InvalidMoveNumber),
        ),
        (
            "no movecount",
            MoveCall {
                movecount: None,
                ..call(100_001, 1, "e4")
            },
            Err(Code::InvalidMoveNumber),
        ),
        (
            "a pawn cannot go to e5",
            call(100_001, 1, "e5"),
            Err(Code::InvalidMove),
        ),
        (
            "no move at all",
            call(100_001, 1, "hello"),
            Err(Code::InvalidMove),
        ),
        (
            "no offer to accept",
            MoveCall {
                accept_draw: true,
                ..call(100_001, 1, "")
            },
            Err(Code::NoDrawWasOffered),
        ),
        ("the first move", call(100_001, 1, "e4"), Ok("1. e4")),
        (
            "with a draw offer",
            MoveCall {
                offer_draw: true,
                ..call(100_001, 1, "Nf3")
            },
            Ok("1. Nf3\n\nI offer a draw."),
        ),
        (
            "a resignation ignores the move Scid sends beside it",
            MoveCall {
                resign: true,
                ..call(100_001, 7, "Qxf7")
            },
            Ok("I resign."),
        ),
    ];
    for (what, c, want) in cases {
        let got = make_a_move(&st, ANNA, c);
        assert_eq!(
            got.as_deref().map_err(|c| *c),
            want.as_ref().map(|s| *s).map_err(|c| *c),
            "{what}"
        );
    }
    // Black repeats White's move (TO §2).
    play(&mut st, &[(1, White, "d4", ANNA)]);
    let bert = make_a_move(&st, BERT, &call(100_001, 1, "Nf6")).unwrap();
    assert_eq!(bert, "1. d4\n1... Nf6");
    assert_eq!(
        make_a_move(&st, ANNA, &call(100_001, 2, "c4")),
        Err(Code::NotYourTurn)
    );
}

#[test]
fn a_move_two_pieces_can_make_is_ambiguous() {
    let mut st = three();
    play(
        &mut st,
        &[
            (1, White, "d4", ANNA),
            (1, Black, "d5", BERT),
            (2, White, "Nf3", ANNA),
            (2, Black, "Nf6", BERT),
        ],
    );
    // Nb1-d2 and Nf3-d2.
    assert_eq!(
        make_a_move(&st, ANNA, &call(100_001, 3, "Nd2")),
        Err(Code::MoveIsAmbigous)
    );
    let a = make_a_move(&st, ANNA, &call(100_001, 3, "Nbd2")).unwrap();
    assert_eq!(a, "2... Nf6\n3. Nbd2");
}

#[test]
fn a_player_whose_time_ran_out_is_told_so() {
    let mut st = three();
    let g = GameRef::new("T-1", 1);
    {
        let game = st.games.get_mut(&g).unwrap();
        game.status = GameStatus::Finished;
        game.result = Some(GameResult::BlackWins);
        game.end_reason = Some(EndReason::ForfeitConfirmed);
    }
    assert_eq!(
        make_a_move(&st, ANNA, &call(100_001, 1, "e4")),
        Err(Code::LostOnTime)
    );
    assert_eq!(
        make_a_move(&st, BERT, &call(100_001, 1, "e5")),
        Err(Code::NotYourTurn),
        "the game is over"
    );
    let game = st.games.get_mut(&g).unwrap();
    game.status = GameStatus::Suspended;
    game.clocks.white.forfeits = 2;
    assert_eq!(
        make_a_move(&st, ANNA, &call(100_001, 1, "e4")),
        Err(Code::LostOnTime),
        "TO §21"
    );
}

#[test]
fn refusals_of_the_core_map_to_codes() {
    use crate::core::model::Refusal as R;
    use crate::notation::NotationError;
    assert_eq!(
        code_of(
            &R::NotYourTurn {
                game: "T-1/1".into()
            },
            None,
            ANNA
        ),
        Code::NotYourTurn
    );
    assert_eq!(
        code_of(&R::NoOfferToAccept, None, ANNA),
        Code::NoDrawWasOffered
    );
    assert_eq!(
        code_of(
            &R::BadMove {
                number: "3.".into(),
                error: NotationError::Ambiguous {
                    text: "Nd2".into(),
                    readings: vec![]
                }
            },
            None,
            ANNA
        ),
        Code::MoveIsAmbigous
    );
    assert_eq!(
        code_of(
            &R::WrongNumber {
                expected: "3.".into(),
                written: "4.".into()
            },
            None,
            ANNA
        ),
        Code::InvalidMoveNumber
    );
    assert_eq!(
        code_of(&R::RepetitionClaimFalse { count: 2 }, None, ANNA),
        Code::InvalidMove
    );
    assert_eq!(code_of(&R::Stranger, None, ANNA), Code::ServerError);
}

#[test]
fn movetext_numbers_without_a_space() {
    let m = |v: &[&str]| movetext(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
    assert_eq!(m(&[]), "");
    assert_eq!(m(&["e4"]), "1.e4");
    assert_eq!(m(&["e4", "e5", "Nf3"]), "1.e4 e5 2.Nf3");
}

#[test]
fn s26_a_withdrawal_shows_as_the_win_it_is_and_an_annulled_game_as_cancelled() {
    let mut st = three();
    let now = at(2026, 12, 4, 13, 30);
    let result_of = |st: &State, n: usize| {
        my_games(st, ANNA, "Relais", now, chrono_tz::Europe::Berlin)[n].result
    };
    for (result, reason, want) in [
        (
            Some(GameResult::BlackWins),
            EndReason::Withdrawn,
            XfccResult::BlackWins,
        ),
        (
            Some(GameResult::WhiteWins),
            EndReason::Withdrawn,
            XfccResult::WhiteWins,
        ),
        (None, EndReason::Annulled, XfccResult::Cancelled),
        (
            Some(GameResult::BlackWins),
            EndReason::Resignation,
            XfccResult::BlackWins,
        ),
    ] {
        let game = st.games.get_mut(&GameRef::new("T-1", 1)).unwrap();
        game.status = GameStatus::Finished;
        game.result = result;
        game.end_reason = Some(reason);
        assert_eq!(result_of(&st, 0), want, "{reason:?}");
    }
}
