//! The notation reader on arbitrary text in a few positions: no panic, no hang; a reading is
//! always a legal move, and writing it in every form and reading that back gives the same move.
#![no_main]

use fernzug::notation::{Form, read_move, read_move_in, write_move};
use libfuzzer_sys::fuzz_target;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Position};

const FENS: [&str; 6] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r3k2r/pPpp1ppp/8/3Pp3/8/8/P1PP1PPP/R3K2R w KQkq e6 0 10",
    "3r2rk/2pb1pp1/1pnq3p/p1bPpN1Q/8/P1P3BP/1P1R1PP1/4RBK1 b - - 7 27",
    "4k3/1P6/8/8/8/8/6p1/4K3 b - - 0 50",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 60",
];

fuzz_target!(|data: &[u8]| {
    let Some((&first, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let Ok(fen) = FENS[usize::from(first) % FENS.len()].parse::<Fen>() else {
        return;
    };
    let Ok(pos) = fen.into_position::<Chess>(CastlingMode::Standard) else {
        return;
    };
    let usual = Form::ALL[usize::from(first / 8) % Form::ALL.len()];
    let _ = read_move_in(text, &pos, usual);
    if let Ok(reading) = read_move(text, &pos) {
        assert!(pos.is_legal(reading.mv));
        for form in Form::ALL {
            let written = write_move(&pos, &reading.mv, form);
            let again = read_move_in(&written, &pos, form)
                .unwrap_or_else(|e| panic!("{written} ({form:?}) does not read back: {e}"));
            assert_eq!(again.mv, reading.mv, "{written} ({form:?})");
        }
    }
});
