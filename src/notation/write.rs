//! [`write_move`]: a move in the notation form of the player it goes to (TO §3: the relay
//! writes to each player in his own form).

use shakmaty::san::{San, SanPlus, Suffix};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, CastlingSide, Chess, File, Move, Position, Role, Square};

use super::form::{Form, english_letter, german_letter};

/// Writes `mv`, played in `pos` (the position before the move), in `form`:
///
/// - [`Form::SanGerman`]: `Sf3`, `Lxb5+`, `exd5`, `e8D`, `O-O`
/// - [`Form::SanEnglish`]: standard SAN, `Nf3`, `Bxb5+`, `e8=Q`
/// - [`Form::LongGerman`]: `Sg1-f3`, `Sf6xe4`, `e2-e4`, `e7-e8D`, `O-O`
/// - [`Form::LongEnglish`]: `Ng1-f3`, `Nf6xe4`, `e7-e8=Q`, `O-O`
/// - [`Form::Iccf`]: `7163`, castling as the king's move `5171`, promotion `77781`
/// - [`Form::Uci`]: `e2e4`, `e7e8q`, castling `e1g1`
///
/// The algebraic forms carry `+`/`#` when the move gives check or mate. A move that is not
/// legal in `pos` is still written (without check sign); the function never panics.
pub fn write_move(pos: &Chess, mv: &Move, form: Form) -> String {
    let suffix = if pos.is_legal(*mv) {
        SanPlus::from_move(pos.clone(), *mv).suffix
    } else {
        None
    };
    let mut out = match form {
        Form::SanEnglish => San::from_move(pos, *mv).to_string(),
        Form::SanGerman => san_german(San::from_move(pos, *mv)),
        Form::LongEnglish => long(mv, english_letter, true),
        Form::LongGerman => long(mv, german_letter, false),
        Form::Iccf => return iccf(mv),
        Form::Uci => return UciMove::from_move(*mv, CastlingMode::Standard).to_string(),
    };
    match suffix {
        Some(Suffix::Check) => out.push('+'),
        Some(Suffix::Checkmate) => out.push('#'),
        None => {}
    }
    out
}

/// Castling in the algebraic forms.
fn castle(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "O-O",
        CastlingSide::QueenSide => "O-O-O",
    }
}

/// German short algebraic: shakmaty's SAN with German letters and `e8D` promotions.
fn san_german(san: San) -> String {
    match san {
        San::Normal {
            role,
            file,
            rank,
            capture,
            to,
            promotion,
        } => {
            let mut s = String::new();
            if role != Role::Pawn {
                s.push(german_letter(role));
            }
            if let Some(file) = file {
                s.push(file.char());
            }
            if let Some(rank) = rank {
                s.push(rank.char());
            }
            if capture {
                s.push('x');
            }
            s.push_str(&to.to_string());
            if let Some(p) = promotion {
                s.push(german_letter(p));
            }
            s
        }
        San::Castle(side) => castle(side).to_string(),
        San::Put { role, to } => format!("{}@{to}", german_letter(role)),
        San::Null => "--".to_string(),
    }
}

/// Long algebraic: piece letter (none for pawns), origin, `-` or `x`, target, promotion.
fn long(mv: &Move, letter: fn(Role) -> char, equals_before_promotion: bool) -> String {
    match *mv {
        Move::Castle { king, rook } => {
            castle(CastlingSide::from_king_side(king < rook)).to_string()
        }
        Move::Normal { .. } | Move::EnPassant { .. } | Move::Put { .. } => {
            let mut s = String::new();
            if mv.role() != Role::Pawn {
                s.push(letter(mv.role()));
            }
            if let Some(from) = mv.from() {
                s.push_str(&from.to_string());
            }
            s.push(if mv.is_capture() { 'x' } else { '-' });
            s.push_str(&mv.to().to_string());
            if let Some(p) = mv.promotion() {
                if equals_before_promotion {
                    s.push('=');
                }
                s.push(letter(p));
            }
            s
        }
    }
}

/// ICCF digit of a file (a = 1 … h = 8) or a rank (1 … 8).
fn digit(index: u32) -> char {
    char::from_digit(index + 1, 10).unwrap_or('?')
}

fn iccf_square(sq: Square) -> String {
    let mut s = String::with_capacity(2);
    s.push(digit(sq.file().to_u32()));
    s.push(digit(sq.rank().to_u32()));
    s
}

/// The square the king lands on when castling (g- or c-file of its rank).
pub(crate) fn castle_king_target(king: Square, rook: Square) -> Square {
    let file = if king < rook { File::G } else { File::C };
    Square::from_coords(file, king.rank())
}

/// ICCF numeric: origin and target as digit pairs, castling as the king's move, promotion as
/// a fifth digit 1 = queen, 2 = rook, 3 = bishop, 4 = knight.
fn iccf(mv: &Move) -> String {
    let (from, to) = match *mv {
        Move::Castle { king, rook } => (Some(king), castle_king_target(king, rook)),
        _ => (mv.from(), mv.to()),
    };
    let mut s = match from {
        Some(from) => iccf_square(from),
        None => String::new(),
    };
    s.push_str(&iccf_square(to));
    if let Some(p) = mv.promotion() {
        s.push(match p {
            Role::Queen => '1',
            Role::Rook => '2',
            Role::Bishop => '3',
            Role::Knight => '4',
            Role::King | Role::Pawn => '?',
        });
    }
    s
}
