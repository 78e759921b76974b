//! A long quiet game, shared by both test binaries and the core's endings tests (`#[path]`-included).

/// `plies` moves (SAN, English letters) without capture, pawn move or any position three times:
/// each side walks its pieces in its own half, always to the position seen least — the way to
/// TO §31's 50 moves without a repetition ending the game first.
pub fn quiet_walk(plies: usize) -> Vec<String> {
    use shakmaty::fen::Fen;
    use shakmaty::san::San;
    use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position, Role};
    let key = |p: &Chess| {
        let fen = Fen::from_position(p, EnPassantMode::Legal).to_string();
        fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
    };
    let mut pos = Chess::default();
    let mut seen: std::collections::BTreeMap<String, usize> = Default::default();
    seen.insert(key(&pos), 1);
    let mut out = Vec::new();
    for _ in 0..plies {
        let white = pos.turn() == Color::White;
        let best = pos
            .legal_moves()
            .into_iter()
            .filter(|m| !m.is_capture() && m.role() != Role::Pawn)
            .filter(|m| {
                let rank = u32::from(m.to().rank());
                if white { rank <= 3 } else { rank >= 4 }
            })
            .filter(|m| {
                let mut p = pos.clone();
                p.play_unchecked(*m);
                !p.is_check()
            })
            .min_by_key(|m| {
                let mut p = pos.clone();
                p.play_unchecked(*m);
                (
                    seen.get(&key(&p)).copied().unwrap_or(0),
                    m.to_uci(CastlingMode::Standard).to_string(),
                )
            })
            .expect("a quiet move");
        out.push(San::from_move(&pos, best).to_string());
        pos.play_unchecked(best);
        *seen.entry(key(&pos)).or_default() += 1;
    }
    assert!(
        seen.values().all(|n| *n < 3),
        "the walk repeats no position three times"
    );
    out
}
