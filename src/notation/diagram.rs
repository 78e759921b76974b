//! [`diagram`]: a plain-text board for mails (the relay always adds the FEN besides, docs/rules.md
//! "Notation forms the relay reads").

use shakmaty::{Chess, Color, File, Position, Rank, Square};

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
