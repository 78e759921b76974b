//! [`diagram`]: a plain-text board for mails (the relay always adds the FEN besides, docs/rules.md
//! "Notation forms the relay reads"); [`piece_list`]: one side's pieces with their squares, the
//! board a screen reader reads (the pages' caption, the mails of a player who asked for it).

use shakmaty::{Chess, Color, File, Piece, Position, Rank, Role, Square};

use super::form::letter;
use crate::lang::Lang;

/// A plain-text board seen from `viewer`'s side: rank numbers left and right, file letters
/// above and below, piece letters of `lang` (German `K D T L S B`, English `K Q R B N P`),
/// upper case for White, lower case for Black, `.` for an empty square; then a line naming
/// the side to move. Every line ends with a newline.
///
/// ```text
///   a b c d e f g h
/// 8 t s l d k l s t 8
/// 7 b b b b b b b b 7
/// …
/// 1 T S L D K L S T 1
///   a b c d e f g h
/// Weiß am Zug
/// ```
pub fn diagram(pos: &Chess, viewer: Color, lang: Lang) -> String {
    let board = pos.board();
    let mut files: Vec<File> = File::ALL.to_vec();
    let mut ranks: Vec<Rank> = Rank::ALL.to_vec();
    match viewer {
        Color::White => ranks.reverse(),
        Color::Black => files.reverse(),
    }
    let file_line = {
        let mut s = String::from(" ");
        for f in &files {
            s.push(' ');
            s.push(f.char());
        }
        s.push('\n');
        s
    };
    let mut out = file_line.clone();
    for rank in &ranks {
        out.push(rank.char());
        for file in &files {
            out.push(' ');
            out.push(match board.piece_at(Square::from_coords(*file, *rank)) {
                Some(piece) => {
                    let c = letter(piece.role, lang);
                    match piece.color {
                        Color::White => c,
                        Color::Black => c.to_ascii_lowercase(),
                    }
                }
                None => '.',
            });
        }
        out.push(' ');
        out.push(rank.char());
        out.push('\n');
    }
    out.push_str(&file_line);
    out.push_str(match (pos.turn(), lang) {
        (Color::White, Lang::De) => "Weiß am Zug",
        (Color::Black, Lang::De) => "Schwarz am Zug",
        (Color::White, Lang::En) => "White to move",
        (Color::Black, Lang::En) => "Black to move",
    });
    out.push('\n');
    out
}

/// The pieces of `side` on `board` with their squares, in the letters of `lang` (the one table
/// of piece letters): king, queen, rooks, bishops, knights, then the pawns as their squares
/// alone (as algebraic notation writes a pawn), each kind file by file from a to h (a pawn on
/// e4 between those on d2 and f2).
///
/// ```
/// use fernzug::{lang::Lang, notation::piece_list};
/// use shakmaty::{Chess, Color, Position};
/// let start = Chess::default();
/// assert_eq!(
///     piece_list(start.board(), Color::White, Lang::De),
///     "Ke1, Dd1, Ta1, Th1, Lc1, Lf1, Sb1, Sg1, a2, b2, c2, d2, e2, f2, g2, h2"
/// );
/// assert!(piece_list(start.board(), Color::Black, Lang::En).starts_with("Ke8, Qd8, Ra8, Rh8, Bc8"));
/// ```
pub fn piece_list(board: &shakmaty::Board, side: Color, lang: Lang) -> String {
    let mut out = Vec::new();
    for role in [
        Role::King,
        Role::Queen,
        Role::Rook,
        Role::Bishop,
        Role::Knight,
        Role::Pawn,
    ] {
        let mut squares: Vec<Square> = board
            .by_piece(Piece { color: side, role })
            .into_iter()
            .collect();
        squares.sort_by_key(|sq| (sq.file(), sq.rank()));
        for sq in squares {
            match role {
                Role::Pawn => out.push(sq.to_string()),
                r => out.push(format!("{}{sq}", letter(r, lang))),
            }
        }
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::fen::Fen;
    use shakmaty::{CastlingMode, Chess};

    #[test]
    fn diagram_start_position_german_white() {
        let d = diagram(&Chess::default(), Color::White, Lang::De);
        let expected = "  a b c d e f g h
8 t s l d k l s t 8
7 b b b b b b b b 7
6 . . . . . . . . 6
5 . . . . . . . . 5
4 . . . . . . . . 4
3 . . . . . . . . 3
2 B B B B B B B B 2
1 T S L D K L S T 1
  a b c d e f g h
Weiß am Zug
";
        assert_eq!(d, expected);
    }

    #[test]
    fn diagram_from_black_side_english() {
        let fen: Fen = "4k3/8/8/8/4P3/8/8/R3K2N b Q - 0 1".parse().unwrap();
        let pos: Chess = fen.into_position(CastlingMode::Standard).unwrap();
        let d = diagram(&pos, Color::Black, Lang::En);
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(lines[0], "  h g f e d c b a");
        assert_eq!(lines[1], "1 N . . K . . . R 1");
        assert_eq!(lines[5], "5 . . . . . . . . 5");
        assert_eq!(lines[4], "4 . . . P . . . . 4");
        assert_eq!(lines[8], "8 . . . k . . . . 8");
        assert_eq!(lines[9], "  h g f e d c b a");
        assert_eq!(lines[10], "Black to move");
    }
}
