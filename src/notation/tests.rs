//! Table-driven tests of reading and writing moves, named after the TO paragraph they apply.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, CastlingSide, Chess, File, Move, Position, Role, Square};

use super::*;
use crate::lang::Lang;

fn fen(s: &str) -> Chess {
    let f: Fen = s.parse().expect("valid FEN");
    f.into_position(CastlingMode::Standard)
        .expect("legal position")
}

/// The position after `moves` (any form) from the start.
fn after(moves: &[&str]) -> Chess {
    let mut pos = Chess::default();
    for text in moves {
        let reading = read_move(text, &pos).unwrap_or_else(|e| panic!("{text}: {e}"));
        pos = pos.play(reading.mv).expect("legal");
    }
    pos
}

fn uci(pos: &Chess, mv: &Move) -> String {
    write_move(pos, mv, Form::Uci)
}

/// Reads `text` and returns the UCI of the move, panicking with the error otherwise.
fn read_uci(text: &str, pos: &Chess) -> String {
    match read_move(text, pos) {
        Ok(r) => uci(pos, &r.mv),
        Err(e) => panic!("{text:?} should read, got {e:?}"),
    }
}

fn reason(text: &str, pos: &Chess) -> IllegalReason {
    match read_move(text, pos) {
        Err(NotationError::Illegal { reason, .. }) => reason,
        other => panic!("{text:?} should be illegal, got {other:?}"),
    }
}

const CASTLING: &str = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
const PROMOTION: &str = "k2r4/4P3/8/8/8/8/8/4K3 w - - 0 1";
/// Knights b1 and f1 can both reach d2; rooks a1 and a5 both reach a3.
const DISAMBIGUATION: &str = "4k3/8/8/R7/8/8/8/RN2KN2 w - - 0 1";
/// After 1. e4 Nf6 2. e5 d5: en passant exd6 possible.
const EN_PASSANT: &str = "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";

// --- TO §2 Anhang: the seed example -----------------------------------------------------

#[test]
fn s2_seed_example_numeric_reads_and_writes_as_german_long() {
    let numeric = "1. 5254 5755 2. 7163 2836 3. 6125 1716 4. 2514 7866 5. 5171 6654";
    let german = "e2-e4 e7-e5 Sg1-f3 Sb8-c6 Lf1-b5 a7-a6 Lb5-a4 Sg8-f6 O-O Sf6xe4";
    let mut pos = Chess::default();
    let mut written = Vec::new();
    for token in numeric.split_whitespace().filter(|t| !t.ends_with('.')) {
        let reading = read_move(token, &pos).unwrap_or_else(|e| panic!("{token}: {e}"));
        assert_eq!(reading.form, Form::Iccf, "{token}");
        assert_eq!(write_move(&pos, &reading.mv, Form::Iccf), token);
        written.push(write_move(&pos, &reading.mv, Form::LongGerman));
        pos = pos.play(reading.mv).expect("legal");
    }
    assert_eq!(written.join(" "), german);

    // And back: the German long text reads to the same moves.
    let mut again = Chess::default();
    for (g, n) in german
        .split_whitespace()
        .zip(numeric.split_whitespace().filter(|t| !t.ends_with('.')))
    {
        let a = read_move(g, &again).expect("german long reads");
        let b = read_move(n, &again).expect("numeric reads");
        assert_eq!(a.mv, b.mv, "{g} vs {n}");
        assert!(fits_form(g, &again, Form::LongGerman), "{g}");
        again = again.play(a.mv).expect("legal");
    }
    assert_eq!(again, pos);
}

// --- TO §2/§3: every form of the same move reads to the same move -----------------------

#[test]
fn s2_every_form_reads_to_the_same_move() {
    let start = Chess::default();
    let cases: &[(&Chess, &str, &[&str])] = &[
        (
            &start,
            "g1f3",
            &[
                "Nf3",
                "Sf3",
                "♘f3",
                "♞f3",
                "Ng1-f3",
                "Sg1-f3",
                "Ng1f3",
                "Sg1f3",
                "g1f3",
                "7163",
                "Sf 3",
                "N g1 - f3",
                "nf3",
                "sf3",
                "Ng1–f3",
                "Sgf3",
                "N1f3",
                "g1-f3",
            ],
        ),
        (
            &start,
            "e2e4",
            &[
                "e4", "e2-e4", "e2e4", "5254", "Pe4", "♙e4", "e2 - e4", "e 4", "ee4", "Pe2-e4",
                "52-54",
            ],
        ),
        (
            &after(&["e4", "d5"]),
            "e4d5",
            &[
                "exd5", "ed5", "e:d5", "exd5+", "ed", "e4-d5", "e4xd5", "e4:d5", "e4d5", "5445",
                "e×d5", "Pxd5", "dxd5",
            ],
        ),
    ];
    for (pos, expected, texts) in cases {
        for text in *texts {
            // `dxd5` names no pawn on the d-file: the one case that must fail here.
            if *text == "dxd5" || *text == "Pxd5" {
                assert!(read_move(text, pos).is_err(), "{text}");
                continue;
            }
            assert_eq!(read_uci(text, pos), *expected, "{text}");
        }
    }
}

#[test]
fn s3_form_of_the_text_is_reported() {
    let start = Chess::default();
    let castling = fen(CASTLING);
    let cases: &[(&Chess, &str, Form)] = &[
        (&start, "e4", Form::SanEnglish),
        (&start, "Nf3", Form::SanEnglish),
        (&start, "Sf3", Form::SanGerman),
        (&start, "♘f3", Form::SanEnglish),
        (&start, "e2-e4", Form::LongEnglish),
        (&start, "Ng1-f3", Form::LongEnglish),
        (&start, "Sg1-f3", Form::LongGerman),
        (&start, "5254", Form::Iccf),
        (&start, "e2e4", Form::Uci),
        (&start, "g1f3", Form::Uci),
        (&castling, "O-O", Form::SanEnglish),
        (&castling, "5171", Form::Iccf),
        (&castling, "e1g1", Form::Uci),
        (&castling, "Ke1-g1", Form::LongEnglish),
    ];
    for (pos, text, form) in cases {
        let reading = read_move(text, pos).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(reading.form, *form, "{text}");
    }
}

#[test]
fn s3_neutral_texts_fit_german_and_english() {
    let start = Chess::default();
    let castling = fen(CASTLING);
    let cases: &[(&Chess, &str, Form, bool)] = &[
        (&start, "e4", Form::SanGerman, true),
        (&start, "e4", Form::SanEnglish, true),
        (&start, "e4", Form::LongGerman, false),
        (&start, "Sf3", Form::SanGerman, true),
        (&start, "Sf3", Form::SanEnglish, false),
        (&start, "Nf3", Form::SanGerman, false),
        (&start, "e2-e4", Form::LongGerman, true),
        (&start, "e2-e4", Form::LongEnglish, true),
        (&start, "e2-e4", Form::Uci, false),
        (&start, "e2e4", Form::Uci, true),
        (&start, "5254", Form::Iccf, true),
        (&start, "5254", Form::Uci, false),
        (&castling, "O-O", Form::LongGerman, true),
        (&castling, "0-0-0", Form::SanGerman, true),
        (&castling, "O-O", Form::Iccf, false),
        (&start, "Sf4", Form::SanGerman, false),
    ];
    for (pos, text, form, fits) in cases {
        assert_eq!(fits_form(text, pos, *form), *fits, "{text} in {form:?}");
    }
}

// --- TO §10: signs do not matter -------------------------------------------------------

#[test]
fn s10_check_capture_and_annotation_signs_are_ignored() {
    let start = Chess::default();
    for text in [
        "Nf3+", "Nf3#", "Nf3!", "Nf3?!", "Nf3!!", "Nf3??", "Nxf3", "N:f3", "Nf3 $1", "Sf3+!?",
        "Nf3 (!)", "Sxf3+", "Ng1xf3", "Sg1:f3+", "Nf3‼", "Nf3 +-", "N×f3", "7163+", "g1f3+",
    ] {
        assert_eq!(read_uci(text, &start), "g1f3", "{text}");
    }
}

#[test]
fn s10_missing_or_wrong_capture_sign_never_makes_a_move_impossible() {
    let pos = after(&["e4", "d5"]);
    // Missing capture sign on a capture.
    assert_eq!(read_uci("ed5", &pos), "e4d5");
    assert_eq!(read_uci("e4-d5", &pos), "e4d5");
    // Capture sign on a quiet move.
    assert_eq!(read_uci("Nxf3", &pos), "g1f3");
    assert_eq!(read_uci("Ng1xf3", &pos), "g1f3");
    // Check sign on a move that gives no check.
    assert_eq!(read_uci("Nc3+", &pos), "b1c3");
}

#[test]
fn s10_en_passant_signs_are_ignored() {
    let pos = fen(EN_PASSANT);
    for text in [
        "exd6",
        "exd6 e.p.",
        "exd6e.p.",
        "exd6 ep",
        "ed6",
        "e5xd6 e.p.",
        "e5d6",
        "5546",
        "e5-d6 ep",
        "ed",
        "exd6 e. p.",
    ] {
        let reading = read_move(text, &pos).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(reading.mv.is_en_passant(), "{text}");
    }
}

// --- Promotions in every form ------------------------------------------------------------

#[test]
fn s2_promotions_read_in_every_form() {
    let pos = fen(PROMOTION);
    let cases: &[(&str, &[&str])] = &[
        (
            "e7e8q",
            &[
                "e8=Q", "e8Q", "e8D", "e8=D", "e8(D)", "e8(Q)", "e8/Q", "e7-e8Q", "e7-e8=D",
                "e7e8q", "e7e8Q", "57581", "e8♕", "e8=Q+", "Pe8=Q", "e8 = D", "e7-e8(D)",
            ],
        ),
        ("e7e8r", &["e8=R", "e8R", "e8T", "e7e8r", "57582", "e7-e8T"]),
        (
            "e7e8b",
            &["e8=B", "e8B", "e8L", "e7e8b", "57583", "e7-e8=L"],
        ),
        ("e7e8n", &["e8=N", "e8N", "e8S", "e7e8n", "57584", "e8(S)"]),
        (
            "e7d8q",
            &[
                "exd8=Q", "ed8D", "e7xd8Q", "e7d8q", "57481", "e:d8(D)", "ed8=Q+",
            ],
        ),
    ];
    for (expected, texts) in cases {
        for text in *texts {
            assert_eq!(read_uci(text, &pos), *expected, "{text}");
        }
    }
}

#[test]
fn s9_promotion_errors_are_precise() {
    let pos = fen(PROMOTION);
    for text in ["e8", "e7-e8", "e7e8", "5758", "exd8", "e7xd8"] {
        assert_eq!(
            reason(text, &pos),
            IllegalReason::PromotionMissing,
            "{text}"
        );
    }
    assert_eq!(
        reason("e8K", &pos),
        IllegalReason::InvalidPromotionPiece(Role::King)
    );
    assert_eq!(
        reason("e8=P", &pos),
        IllegalReason::InvalidPromotionPiece(Role::Pawn)
    );
    let start = Chess::default();
    assert_eq!(reason("e4Q", &start), IllegalReason::PromotionNotPossible);
    assert_eq!(
        reason("e2-e4D", &start),
        IllegalReason::PromotionNotPossible
    );
    assert_eq!(reason("52541", &start), IllegalReason::PromotionNotPossible);
}

// --- Castling in every form ---------------------------------------------------------------

#[test]
fn s2_castling_reads_in_every_form() {
    let white = fen(CASTLING);
    let black = fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    let cases: &[(&Chess, CastlingSide, &[&str])] = &[
        (
            &white,
            CastlingSide::KingSide,
            &[
                "O-O",
                "0-0",
                "o-o",
                "O - O",
                "OO",
                "00",
                "O-O+",
                "0-0!",
                "Ke1-g1",
                "Ke1g1",
                "K e1 - g1",
                "e1g1",
                "e1h1",
                "5171",
                "e1-g1",
                "♔e1-g1",
            ],
        ),
        (
            &white,
            CastlingSide::QueenSide,
            &[
                "O-O-O",
                "0-0-0",
                "o-o-o",
                "O - O - O",
                "OOO",
                "Ke1-c1",
                "e1c1",
                "e1a1",
                "5131",
            ],
        ),
        (
            &black,
            CastlingSide::KingSide,
            &["O-O", "0-0", "5878", "e8g8", "Ke8-g8"],
        ),
        (
            &black,
            CastlingSide::QueenSide,
            &["O-O-O", "0-0-0", "5838", "e8c8", "Ke8-c8"],
        ),
    ];
    for (pos, side, texts) in cases {
        for text in *texts {
            let reading = read_move(text, pos).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(reading.mv.castling_side(), Some(*side), "{text}");
        }
    }
}

#[test]
fn s9_castling_errors_say_why() {
    let cases: &[(&str, &str, IllegalReason)] = &[
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1",
            "O-O",
            IllegalReason::CastlingRightLost(CastlingSide::KingSide),
        ),
        (
            "r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1",
            "5171",
            IllegalReason::CastlingRightLost(CastlingSide::KingSide),
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "O-O",
            IllegalReason::CastlingPathBlocked(CastlingSide::KingSide),
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "0-0-0",
            IllegalReason::CastlingPathBlocked(CastlingSide::QueenSide),
        ),
        (
            "4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1",
            "O-O",
            IllegalReason::CastlingOutOfCheck(CastlingSide::KingSide),
        ),
        (
            "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1",
            "O-O",
            IllegalReason::CastlingNotAllowed(CastlingSide::KingSide),
        ),
        (
            "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1",
            "Ke1-g1",
            IllegalReason::CastlingNotAllowed(CastlingSide::KingSide),
        ),
        (
            "4k3/8/8/8/8/8/5r2/R3K2R w KQ - 0 1",
            "e1g1",
            IllegalReason::CastlingNotAllowed(CastlingSide::KingSide),
        ),
    ];
    for (f, text, expected) in cases {
        assert_eq!(reason(text, &fen(f)), *expected, "{text} in {f}");
    }
    let e = read_move("O-O", &fen("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1")).unwrap_err();
    assert_eq!(
        e.message(Lang::De),
        "O-O: die kurze Rochade ist nicht mehr erlaubt, weil König oder Turm schon gezogen haben"
    );
}

// --- TO §8/§9: impossible moves, precise reasons ----------------------------------------

#[test]
fn s9_illegal_moves_give_the_most_precise_reason() {
    let start = Chess::default();
    let pinned = fen("4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1");
    let checked = fen("4k3/8/8/8/8/8/8/r3K3 w - - 0 1");
    let bare = fen("4k3/8/8/8/8/8/8/4K3 w - - 0 1");
    let disamb = fen(DISAMBIGUATION);
    let only_f3 = after(&["Nf3", "e5", "b3", "e4"]);
    let mated = after(&["f3", "e5", "g4", "Qh4"]);
    let cases: &[(&Chess, &str, IllegalReason)] = &[
        (
            &start,
            "e2-e5",
            IllegalReason::PieceCannotMoveThere {
                piece: Role::Pawn,
                from: Square::E2,
                to: Square::E5,
            },
        ),
        (&start, "e3-e4", IllegalReason::NoPieceOnSquare(Square::E3)),
        (&start, "e3e4", IllegalReason::NoPieceOnSquare(Square::E3)),
        (&start, "5354", IllegalReason::NoPieceOnSquare(Square::E3)),
        (&start, "e7-e5", IllegalReason::WrongColorPiece(Square::E7)),
        (&start, "5755", IllegalReason::WrongColorPiece(Square::E7)),
        (
            &start,
            "Lg1-f3",
            IllegalReason::WrongPieceOnSquare {
                square: Square::G1,
                named: Role::Bishop,
                found: Role::Knight,
            },
        ),
        (
            &start,
            "Sf4",
            IllegalReason::NoPieceCanReach {
                piece: Role::Knight,
                to: Square::F4,
            },
        ),
        (
            &start,
            "e5",
            IllegalReason::NoPieceCanReach {
                piece: Role::Pawn,
                to: Square::E5,
            },
        ),
        (&start, "Sd2", IllegalReason::OwnPieceOnTarget(Square::D2)),
        (
            &start,
            "Ng1-e2",
            IllegalReason::OwnPieceOnTarget(Square::E2),
        ),
        (
            &start,
            "Ng1-g3",
            IllegalReason::PieceCannotMoveThere {
                piece: Role::Knight,
                from: Square::G1,
                to: Square::G3,
            },
        ),
        (&pinned, "Nc3", IllegalReason::LeavesKingInCheck),
        (&pinned, "Se2-c3", IllegalReason::LeavesKingInCheck),
        (&checked, "Kd1", IllegalReason::LeavesKingInCheck),
        (&bare, "Nf3", IllegalReason::NoSuchPiece(Role::Knight)),
        (&mated, "e4", IllegalReason::NoLegalMoves),
        (
            &start,
            "ed",
            IllegalReason::NoPawnCapture {
                from_file: File::E,
                to_file: File::D,
            },
        ),
        (
            &disamb,
            "Nd2",
            IllegalReason::SeveralPiecesCanReach {
                piece: Role::Knight,
                to: Square::D2,
                candidates: vec![Square::B1, Square::F1],
            },
        ),
        (
            &disamb,
            "Ta3",
            IllegalReason::SeveralPiecesCanReach {
                piece: Role::Rook,
                to: Square::A3,
                candidates: vec![Square::A1, Square::A5],
            },
        ),
        (
            &only_f3,
            "Sbd4",
            IllegalReason::NotFromThere {
                piece: Role::Knight,
                to: Square::D4,
                candidates: vec![Square::F3],
            },
        ),
    ];
    for (pos, text, expected) in cases {
        assert_eq!(reason(text, pos), *expected, "{text}");
    }
}

#[test]
fn s8_query_messages_in_both_languages() {
    let start = Chess::default();
    let cases: &[(&str, &str, &str)] = &[
        (
            "Sf4",
            "Sf4: kein Springer kann f4 erreichen",
            "Sf4: no knight can reach f4",
        ),
        (
            "e2-e5",
            "e2-e5: der Bauer auf e2 kann nicht nach e5 ziehen",
            "e2-e5: the pawn on e2 cannot move to e5",
        ),
        (
            "e7-e5",
            "e7-e5: die Figur auf e7 gehört dem Gegner",
            "e7-e5: the piece on e7 belongs to the opponent",
        ),
        (
            "Lg1-f3",
            "Lg1-f3: auf g1 steht ein Springer, nicht ein Läufer",
            "Lg1-f3: there is a knight on g1, not a bishop",
        ),
        (
            "Dh5",
            "Dh5: keine Dame kann h5 erreichen",
            "Dh5: no queen can reach h5",
        ),
        (
            "Zf3",
            "„Zf3“ ist in keiner bekannten Notation ein Zug",
            "\"Zf3\" is not a move in any known notation",
        ),
    ];
    for (text, de, en) in cases {
        let e = read_move(text, &start).unwrap_err();
        assert_eq!(e.message(Lang::De), *de);
        assert_eq!(e.message(Lang::En), *en);
    }
}

#[test]
fn s9_not_a_move_in_any_form() {
    let start = Chess::default();
    for text in [
        "", "   ", "hello", "Zf3", "e9", "i4", "5959", "1-0", "½-½", "O-O-O-O", "Nf3 Nc6",
        "e2-e4-e5", "K", "x", "+", "e.p.", "1.", "59", "Ne", "Remis", "I resign", "55555",
        "a1a1a1",
    ] {
        assert!(
            matches!(read_move(text, &start), Err(NotationError::NotAMove { .. })),
            "{text:?}: {:?}",
            read_move(text, &start)
        );
    }
}

// --- TO §2/§3/§8: ambiguity across forms ------------------------------------------------

#[test]
fn s3_b_is_the_bishop_never_the_bauer() {
    // German notation gives pawns no letter (TO §3): `Bc4` is the bishop even where a pawn
    // could go to c4 too, and `Bc3`, which only a pawn could mean, is no move.
    let pos = after(&["e4", "e5"]);
    let c4 = read_move("Bc4", &pos).expect("bishop");
    assert_eq!(
        (uci(&pos, &c4.mv), c4.form),
        ("f1c4".to_string(), Form::SanEnglish)
    );
    assert_eq!(
        read_move_in("Bc4", &pos, Form::SanGerman).map(|r| r.mv),
        Ok(c4.mv)
    );
    assert!(matches!(
        read_move("Bc3", &pos),
        Err(NotationError::Illegal { .. })
    ));
    let b5 = read_move("Bb5", &pos).expect("bishop");
    assert_eq!(
        (uci(&pos, &b5.mv), b5.form),
        ("f1b5".to_string(), Form::SanEnglish)
    );
    // The German and figurine bishop are never ambiguous; nor is long notation.
    assert_eq!(read_uci("Lc4", &pos), "f1c4");
    assert_eq!(read_uci("♗c4", &pos), "f1c4");
    assert_eq!(read_uci("Bf1-c4", &pos), "f1c4");
    assert!(matches!(
        read_move("Bc2-c4", &pos),
        Err(NotationError::Illegal { .. })
    ));
    // Lower-case b is the b-file.
    assert!(matches!(
        read_move("bc4", &pos),
        Err(NotationError::Illegal { .. })
    ));
}

#[test]
fn s3_usual_form_decides_a_cross_form_ambiguity() {
    let pos = after(&["e4", "e5"]);
    // Two e-pawns capturing on the d-file fit the same form: still ambiguous.
    let two = fen("4k3/3p4/4P3/3p4/4P3/8/8/4K3 w - - 0 1");
    assert!(matches!(
        read_move_in("ed", &two, Form::SanEnglish),
        Err(NotationError::Ambiguous { .. })
    ));
    // A neutral text reports the usual form; a text that does not fit it, its own form.
    assert_eq!(
        read_move_in("d3", &pos, Form::SanGerman).map(|r| r.form),
        Ok(Form::SanGerman)
    );
    assert_eq!(
        read_move_in("O-O", &fen(CASTLING), Form::LongGerman).map(|r| r.form),
        Ok(Form::LongGerman)
    );
    assert_eq!(
        read_move_in("Sf3", &pos, Form::SanEnglish).map(|r| r.form),
        Ok(Form::SanGerman)
    );
    assert_eq!(
        read_move_in("Sf4", &pos, Form::SanGerman),
        read_move("Sf4", &pos)
    );
}

#[test]
fn s8_ambiguous_message_names_the_readings() {
    // Two pawns of the e-file can capture on the d-file: `ed` names neither.
    let two = fen("4k3/3p4/4P3/3p4/4P3/8/8/4K3 w - - 0 1");
    let e = read_move("ed", &two).unwrap_err();
    assert_eq!(
        e.message(Lang::En),
        "ed: ambiguous, it can mean exd5 or exd7+"
    );
    assert_eq!(
        e.message(Lang::De),
        "ed: mehrdeutig, gemeint sein kann exd5 oder exd7+"
    );
}

#[test]
fn s8_stray_digit_names_the_readings() {
    // `Sf36`: a knight to f3 or to f6 — after 1. e4 only Black's g8 knight can go to f6.
    let pos = after(&["e4"]);
    let e = read_move("Sf36", &pos).unwrap_err();
    assert_eq!(
        e,
        NotationError::Ambiguous {
            text: "Sf36".into(),
            readings: vec!["Nf6".into()]
        }
    );
    assert_eq!(
        e.message(Lang::De),
        "Sf36: zweifelhaft, gemeint ist vielleicht Sf6"
    );
    // `d34`: d4 (the 3 stray) or d3 (the 4 stray), both legal at the start.
    let pos = Chess::default();
    let e = read_move("d34", &pos).unwrap_err();
    assert_eq!(e.message(Lang::En), "d34: ambiguous, it can mean d4 or d3");
    assert!(matches!(
        read_move("Sf99", &pos),
        Err(NotationError::NotAMove { .. })
    ));
}

#[test]
fn s2_pawn_capture_by_files_only_if_unambiguous() {
    // Two e-pawns can capture on the d-file.
    let pos = fen("4k3/3p4/4P3/3p4/4P3/8/8/4K3 w - - 0 1");
    match read_move("ed", &pos) {
        Err(NotationError::Ambiguous { readings, .. }) => {
            assert_eq!(readings, vec!["exd5".to_string(), "exd7+".to_string()]);
        }
        other => panic!("expected ambiguous, got {other:?}"),
    }
    assert_eq!(read_uci("ed5", &pos), "e4d5");
    assert_eq!(read_uci("ed7", &pos), "e6d7");
    // One e-pawn with captures to both sides: each file pair is one move.
    let pos = fen("4k3/8/8/3p1p2/4P3/8/8/4K3 w - - 0 1");
    assert_eq!(read_uci("ed", &pos), "e4d5");
    assert_eq!(read_uci("ef", &pos), "e4f5");
}

#[test]
fn s2_disambiguation_reads() {
    let pos = fen(DISAMBIGUATION);
    let cases: &[(&str, &str)] = &[
        ("Nbd2", "b1d2"),
        ("Sbd2", "b1d2"),
        ("Sfd2", "f1d2"),
        ("N1d2", "b1d2"), // rank 1 is ambiguous? both knights are on rank 1
        ("R1a3", "a1a3"),
        ("T1a3", "a1a3"),
        ("R5a3", "a5a3"),
        ("Ra1-a3", "a1a3"),
        ("Ta5-a3", "a5a3"),
    ];
    for (text, expected) in cases {
        if *text == "N1d2" {
            assert!(matches!(
                reason(text, &pos),
                IllegalReason::SeveralPiecesCanReach { .. }
            ));
            continue;
        }
        assert_eq!(read_uci(text, &pos), *expected, "{text}");
    }
}

// --- write_move ----------------------------------------------------------------------------

#[test]
fn s3_write_move_in_every_form() {
    let start = Chess::default();
    let nf3 = read_move("Nf3", &start).expect("legal").mv;
    let expected = [
        (Form::SanGerman, "Sf3"),
        (Form::SanEnglish, "Nf3"),
        (Form::LongGerman, "Sg1-f3"),
        (Form::LongEnglish, "Ng1-f3"),
        (Form::Iccf, "7163"),
        (Form::Uci, "g1f3"),
    ];
    for (form, text) in expected {
        assert_eq!(write_move(&start, &nf3, form), text, "{form:?}");
    }

    let ruy = after(&["e4", "e5", "Nf3", "d6"]);
    let bxb5 = read_move("Bb5+", &ruy).expect("legal").mv;
    assert_eq!(write_move(&ruy, &bxb5, Form::SanGerman), "Lb5+");
    assert_eq!(write_move(&ruy, &bxb5, Form::LongGerman), "Lf1-b5+");
    let capture = after(&["e4", "d5", "Bb5", "c6", "Nc3", "cxb5"]);
    let nxb5 = read_move("Sxb5", &capture).expect("legal").mv;
    assert_eq!(write_move(&capture, &nxb5, Form::SanGerman), "Sxb5");
    assert_eq!(write_move(&capture, &nxb5, Form::LongGerman), "Sc3xb5");
    assert_eq!(write_move(&capture, &nxb5, Form::LongEnglish), "Nc3xb5");

    let promo = fen(PROMOTION);
    let e8q = read_move("e8=Q", &promo).expect("legal").mv;
    let expected = [
        (Form::SanGerman, "e8D"),
        (Form::SanEnglish, "e8=Q"),
        (Form::LongGerman, "e7-e8D"),
        (Form::LongEnglish, "e7-e8=Q"),
        (Form::Iccf, "57581"),
        (Form::Uci, "e7e8q"),
    ];
    for (form, text) in expected {
        assert_eq!(write_move(&promo, &e8q, form), text, "{form:?}");
    }
    let exd8n = read_move("exd8=N", &promo).expect("legal").mv;
    assert_eq!(write_move(&promo, &exd8n, Form::SanGerman), "exd8S");
    assert_eq!(write_move(&promo, &exd8n, Form::Iccf), "57484");

    let castling = fen(CASTLING);
    let oo = read_move("O-O", &castling).expect("legal").mv;
    let ooo = read_move("O-O-O", &castling).expect("legal").mv;
    for (form, short, long) in [
        (Form::SanGerman, "O-O", "O-O-O"),
        (Form::SanEnglish, "O-O", "O-O-O"),
        (Form::LongGerman, "O-O", "O-O-O"),
        (Form::LongEnglish, "O-O", "O-O-O"),
        (Form::Iccf, "5171", "5131"),
        (Form::Uci, "e1g1", "e1c1"),
    ] {
        assert_eq!(write_move(&castling, &oo, form), short, "{form:?}");
        assert_eq!(write_move(&castling, &ooo, form), long, "{form:?}");
    }

    let disamb = fen(DISAMBIGUATION);
    let nbd2 = read_move("Nbd2", &disamb).expect("legal").mv;
    assert_eq!(write_move(&disamb, &nbd2, Form::SanGerman), "Sbd2");
    assert_eq!(write_move(&disamb, &nbd2, Form::SanEnglish), "Nbd2");
    let r1a3 = read_move("R1a3", &disamb).expect("legal").mv;
    assert_eq!(write_move(&disamb, &r1a3, Form::SanGerman), "T1a3");
    assert_eq!(write_move(&disamb, &r1a3, Form::SanEnglish), "R1a3");

    let mate = after(&["f3", "e5", "g4"]);
    let qh4 = read_move("Dh4", &mate).expect("legal").mv;
    assert_eq!(write_move(&mate, &qh4, Form::SanGerman), "Dh4#");
    assert_eq!(write_move(&mate, &qh4, Form::LongGerman), "Dd8-h4#");

    let ep = fen(EN_PASSANT);
    let exd6 = read_move("exd6", &ep).expect("legal").mv;
    assert_eq!(write_move(&ep, &exd6, Form::SanGerman), "exd6");
    assert_eq!(write_move(&ep, &exd6, Form::LongGerman), "e5xd6");
    assert_eq!(write_move(&ep, &exd6, Form::Iccf), "5546");
}

#[test]
fn s3_round_trip_write_then_read_for_every_legal_move() {
    let positions = [
        Chess::default(),
        after(&["e4", "e5", "Nf3", "Nc6", "Lb5", "a6", "La4", "Nf6"]),
        fen(CASTLING),
        fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1"),
        fen(PROMOTION),
        fen("1n2k3/P1P5/8/8/8/8/5p1p/2K3N1 b - - 0 1"),
        fen(EN_PASSANT),
        fen(DISAMBIGUATION),
        // Three queens that need a full square to tell them apart.
        fen("4k3/8/8/8/7Q/8/8/4K2Q w - - 0 1"),
        fen("6k1/8/8/Q1Q5/8/8/8/Q3K3 w - - 0 1"),
        after(&["e4", "e5"]),
        after(&["d4", "d5", "c4", "e6", "Nc3", "Nf6", "Lg5", "Le7"]),
    ];
    let mut checked = 0;
    for pos in &positions {
        for mv in pos.legal_moves() {
            for form in Form::ALL {
                let text = write_move(pos, &mv, form);
                let known = read_move_in(&text, pos, form).map(|r| (r.mv, r.form));
                assert_eq!(known, Ok((mv, form)), "{text} in its own form {form:?}");
                match read_move(&text, pos) {
                    Ok(reading) => {
                        assert_eq!(reading.mv, mv, "{text} in {form:?}");
                        assert!(fits_form(&text, pos, form), "{text} should fit {form:?}");
                    }
                    Err(e) => panic!("{text} in {form:?}: {e:?}"),
                }
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "only {checked} round trips");
}

// --- robustness -----------------------------------------------------------------------------

#[test]
fn s9_never_panics_on_weird_input() {
    let positions = [
        Chess::default(),
        fen(PROMOTION),
        fen(CASTLING),
        after(&["f3", "e5", "g4", "Qh4"]),
    ];
    let long = "e4".repeat(1000);
    let huge = "♘".repeat(10_000);
    let mut inputs: Vec<String> = [
        "",
        " ",
        "x",
        "-",
        "O",
        "0",
        "00000",
        "99999",
        "a",
        "a1",
        "a9",
        "i1",
        "Ka",
        "K",
        "=Q",
        "e8=",
        "e8==Q",
        "♔",
        "♔♔♔",
        "日本語",
        "ẞf3",
        "\u{0}",
        "\u{FE0F}",
        "💩",
        "Ñf3",
        "e.p.",
        "ep",
        "$",
        "$$1",
        "(",
        "))",
        "x:x",
        "1.",
        "...",
        "e2-",
        "-e4",
        "e2--e4",
        "O-O-O-O-O",
        "K♔e1",
        "♙e8♕",
        "B",
        "BB",
        "Bb",
        "Bbb",
        "bb",
        "ee",
        "ab",
        "ah",
        "h8h8",
        "e1e1",
        "00-00",
        "5555",
        "12345",
        "8888",
        "1111",
        "11115",
        "11110",
        "0000",
        "e7e8k",
        "e7e8p",
        "a7a8x",
        "Kxx",
        "exd",
        "e:",
        ":e",
        "Qh4e1",
        "Q",
        "Ph8",
        "Ke1-e1",
        "e2-e2",
        "5252",
        "a1h8",
        "\t\nNf3\r\n",
        "N\u{00A0}f3",
        "e4\u{200B}",
        "0-0-0-0",
        "o-O-0",
        "P",
        "p",
        "bx",
        "e8D8",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    inputs.push(long);
    inputs.push(huge);

    // A deterministic pseudo-random mix of the characters move texts are made of.
    let alphabet: Vec<char> = "abcdefghKQRBNDTLSPO0123456789xX:-=()+#!? ♘♕.ep"
        .chars()
        .collect();
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for _ in 0..3000 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let len = (state % 8) as usize + 1;
        let mut s = String::new();
        let mut x = state;
        for _ in 0..len {
            let i = (x % alphabet.len() as u64) as usize;
            s.push(alphabet.get(i).copied().unwrap_or('a'));
            x /= alphabet.len() as u64;
            if x == 0 {
                x = state.rotate_left(17);
            }
        }
        inputs.push(s);
    }

    for pos in &positions {
        for text in &inputs {
            match read_move(text, pos) {
                Ok(r) => assert!(pos.is_legal(r.mv), "{text:?}"),
                Err(e) => {
                    assert!(!e.message(Lang::De).is_empty());
                    assert!(!e.message(Lang::En).is_empty());
                }
            }
            let _ = fits_form(text, pos, Form::SanGerman);
        }
    }
}

#[test]
fn write_move_never_panics_on_illegal_moves() {
    let start = Chess::default();
    let illegal = Move::Normal {
        role: Role::Queen,
        from: Square::A8,
        capture: None,
        to: Square::H1,
        promotion: Some(Role::King),
    };
    for form in Form::ALL {
        assert!(!write_move(&start, &illegal, form).is_empty());
    }
}
