//! [`read_move`]: one move text in any usual notation form (TO §2 Anhang, §3, §10) read
//! against the position it is to be played in.
//!
//! The text is first turned into *candidates*: every way it can be read syntactically (a
//! text such as `Ke2` fits short algebraic in both alphabets, so one text can give several).
//! Each candidate is then matched against the legal moves. Exactly one different legal move
//! over all candidates: that is the move (TO §5). Two or more: doubtful (TO §2, §3, §8).
//! None: the most precise reason why not (TO §8, §9).

use shakmaty::attacks;
use shakmaty::{CastlingSide, Chess, Color, File, Move, MoveList, Position, Rank, Role, Square};

use super::error::{IllegalReason, NotationError};
use super::form::Form;
use super::write::{castle_king_target, write_move};

/// A move read from a text, and the notation form it was written in (TO §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Reading {
    /// The legal move the text means.
    pub mv: Move,
    /// The form the text was written in. For texts that fit several forms (a pawn move
    /// `e4`, castling `O-O`, a king move `Ke2`) this is the English form of the text's
    /// shape; see [`fits_form`] to ask whether the text also fits another form.
    pub form: Form,
}

/// Longest text that can still be a move (with annotations and stray spaces).
const MAX_LEN: usize = 64;

/// Reads `text` as a move in `pos`, in any of the forms the relay reads (docs/rules.md,
/// "Notation forms the relay reads"):
///
/// - short algebraic with English (`K Q R B N`) or German (`K D T L S`) letters or figurines:
///   `Nf3`, `Sf3`, `♘f3`, `exd5`, `ed5`, `e:d5`, `ed`, `Nbd2`, `R1a3`, `e8=Q`, `e8D`, `e8(D)`
/// - long algebraic: `e2-e4`, `Sg1-f3`, `Ng1-f3`, `Sf6xe4`, `Lf1:b5`, `e7-e8D`
/// - castling: `O-O`, `0-0`, `o-o`, `O - O`, `O-O-O`, `0-0-0`, or the king's move `Ke1-g1`
/// - ICCF numeric: `5254`, castling `5171`, promotion digit `77782` (1 = Q, 2 = R, 3 = B, 4 = N)
/// - UCI: `e2e4`, `e7e8q`, castling `e1g1`
///
/// Check, capture and annotation signs (`+ # x : ! ? e.p. ep`, NAGs like `$1`) are ignored:
/// a missing or wrong sign never makes a move impossible (TO §10). Inner spaces are ignored.
///
/// # Errors
///
/// - [`NotationError::NotAMove`]: the text reads as no move in any form.
/// - [`NotationError::Illegal`]: it reads as a move, but none of its readings is legal here;
///   the reason is the most precise one found (TO §8, §9).
/// - [`NotationError::Ambiguous`]: its readings give two or more different legal moves
///   (e.g. `Sf36` with a stray digit; TO §2, §3, §8).
///
/// # Example
///
/// ```
/// use fernzug::notation::{read_move, Form, NotationError};
/// use shakmaty::Chess;
///
/// let pos = Chess::default();
/// let german = read_move("Sg1-f3", &pos).unwrap();
/// assert_eq!(german.form, Form::LongGerman);
/// // The same move in ICCF numeric, English short algebraic and UCI:
/// assert_eq!(read_move("7163", &pos).unwrap().mv, german.mv);
/// assert_eq!(read_move("Nf3+!", &pos).unwrap().mv, german.mv);
/// assert_eq!(read_move("g1f3", &pos).unwrap().form, Form::Uci);
/// // No knight can reach f4:
/// assert!(matches!(read_move("Sf4", &pos), Err(NotationError::Illegal { .. })));
/// ```
pub fn read_move(text: &str, pos: &Chess) -> Result<Reading, NotationError> {
    analyse(text, pos).result
}

/// The alphabet a move text's piece letters show: German (`S L T D`), English (`N B R Q P`),
/// or `None` when it shows neither (a pawn move, a king move, castling, ICCF, UCI, a figurine)
/// or both (TO §3: a move's letters are read by the alphabet the text itself shows).
///
/// ```
/// use fernzug::lang::Lang;
/// use fernzug::notation::letters_of;
/// assert_eq!(letters_of("Sf3"), Some(Lang::De));
/// assert_eq!(letters_of("Bc5"), Some(Lang::En));
/// assert_eq!(letters_of("e8D"), Some(Lang::De));
/// assert_eq!(letters_of("exd5"), None);
/// ```
pub fn letters_of(text: &str) -> Option<crate::lang::Lang> {
    let found: Vec<Alphabet> = parse(text.trim())
        .iter()
        .map(|c| c.alphabet)
        .filter(|a| *a != Alphabet::Neutral)
        .collect();
    match (
        found.contains(&Alphabet::German),
        found.contains(&Alphabet::English),
    ) {
        (true, false) => Some(crate::lang::Lang::De),
        (false, true) => Some(crate::lang::Lang::En),
        _ => None,
    }
}

/// Whether `text` reads in `pos` as the one move [`read_move`] finds, in a reading that fits
/// `form`. Use it for the TO §3 warning: `e4` or `O-O` fits both German and English short
/// algebraic, so a player writing them has not switched forms.
pub fn fits_form(text: &str, pos: &Chess, form: Form) -> bool {
    let analysis = analyse(text, pos);
    match analysis.result {
        Ok(reading) => analysis
            .resolved
            .iter()
            .any(|(mv, forms)| *mv == reading.mv && forms.contains(&form)),
        Err(_) => false,
    }
}

/// Like [`read_move`], for a player whose usual form is known (TO §3: players keep to one
/// form):
///
/// - when the text fits `usual` (e.g. `e4` or `O-O` for a German player), the reading
///   reports `usual`, so a form-neutral text never counts as a switch;
/// - when the text is ambiguous across forms but exactly one of its readings fits `usual`,
///   that reading is taken.
///
/// The second point relaxes the literal TO §2 rule that a text reading as two different
/// legal moves is doubtful; use [`read_move`] where that rule is to apply strictly.
///
/// # Errors
///
/// As [`read_move`]; [`NotationError::Ambiguous`] only when `usual` does not decide.
pub fn read_move_in(text: &str, pos: &Chess, usual: Form) -> Result<Reading, NotationError> {
    let analysis = analyse(text, pos);
    let mut fitting: Vec<Move> = Vec::new();
    for (mv, forms) in &analysis.resolved {
        if forms.contains(&usual) && !fitting.contains(mv) {
            fitting.push(*mv);
        }
    }
    match (analysis.result, fitting.as_slice()) {
        (Ok(reading), [mv]) if reading.mv == *mv => Ok(Reading {
            mv: *mv,
            form: usual,
        }),
        (Err(NotationError::Ambiguous { .. }), [mv]) => Ok(Reading {
            mv: *mv,
            form: usual,
        }),
        (result, _) => result,
    }
}

/// The outcome of reading a text, with every candidate that gave a legal move.
struct Analysis {
    result: Result<Reading, NotationError>,
    resolved: Vec<(Move, &'static [Form])>,
}

fn analyse(text: &str, pos: &Chess) -> Analysis {
    let text = text.trim();
    let candidates = parse(text);
    let result = |result| Analysis {
        result,
        resolved: Vec::new(),
    };
    if candidates.is_empty() {
        // TO §8: a stray digit (`Sf36`, `e45`) makes the text doubtful; name what it could be.
        let readings = stray_digit_readings(text, pos);
        if !readings.is_empty() {
            return result(Err(NotationError::Ambiguous {
                text: text.to_string(),
                readings,
            }));
        }
        return result(Err(NotationError::NotAMove {
            text: text.to_string(),
        }));
    }
    let legal = pos.legal_moves();
    if legal.is_empty() {
        return result(Err(NotationError::Illegal {
            text: text.to_string(),
            reason: IllegalReason::NoLegalMoves,
        }));
    }

    // Every candidate gives either legal moves or a reason.
    let mut resolved: Vec<(Move, &Candidate)> = Vec::new();
    let mut failures: Vec<IllegalReason> = Vec::new();
    for candidate in &candidates {
        match evaluate(&candidate.shape, pos, &legal) {
            Ok(moves) => resolved.extend(moves.into_iter().map(|m| (m, candidate))),
            Err(reason) => failures.push(reason),
        }
    }

    let mut distinct: Vec<Move> = Vec::new();
    for (mv, _) in &resolved {
        if !distinct.contains(mv) {
            distinct.push(*mv);
        }
    }
    let outcome = match distinct.as_slice() {
        [] => {
            // TO §8/§9: the most precise reason; ties go to the earlier (more usual) reading.
            let best = failures
                .into_iter()
                .enumerate()
                .max_by_key(|(i, r)| (precision(r), std::cmp::Reverse(*i)))
                .map(|(_, r)| r);
            match best {
                Some(reason) => Err(NotationError::Illegal {
                    text: text.to_string(),
                    reason,
                }),
                None => Err(NotationError::NotAMove {
                    text: text.to_string(),
                }),
            }
        }
        [mv] => {
            // TO §3: the form the text was written in; a German- or English-only reading
            // decides, otherwise the English form of the text's shape.
            let form = resolved
                .iter()
                .filter(|(m, _)| m == mv)
                .max_by_key(|(_, c)| c.alphabet)
                .map_or(Form::SanEnglish, |(_, c)| c.form());
            Ok(Reading { mv: *mv, form })
        }
        several => Err(NotationError::Ambiguous {
            text: text.to_string(),
            readings: several
                .iter()
                .map(|m| write_move(pos, m, Form::SanEnglish))
                .collect(),
        }),
    };
    Analysis {
        result: outcome,
        resolved: resolved.into_iter().map(|(m, c)| (m, c.forms())).collect(),
    }
}

/// The distinct legal moves `text` reads as when one of its digits is left out.
fn stray_digit_readings(text: &str, pos: &Chess) -> Vec<String> {
    let mut readings: Vec<String> = Vec::new();
    if text.chars().count() > 12 {
        return readings;
    }
    for (i, c) in text.char_indices() {
        if !c.is_ascii_digit() {
            continue;
        }
        let mut shorter = text.to_string();
        shorter.remove(i);
        if parse(&shorter).is_empty() {
            continue;
        }
        if let Ok(reading) = analyse(&shorter, pos).result {
            let san = write_move(pos, &reading.mv, Form::SanEnglish);
            if !readings.contains(&san) {
                readings.push(san);
            }
        }
    }
    readings
}

/// How precise a reason is: "nothing of that kind gets there" is the least precise.
fn precision(reason: &IllegalReason) -> u8 {
    match reason {
        IllegalReason::NoSuchPiece(_) | IllegalReason::NoPieceCanReach { .. } => 0,
        _ => 1,
    }
}

// ---------------------------------------------------------------------------------------
// Tokenizing
// ---------------------------------------------------------------------------------------

/// Which alphabet a reading's letters commit it to. Ordered by how strongly a reading
/// decides the form (TO §3): a German-only reading first, then English-only, then neutral.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Alphabet {
    /// Letters common to both (`K`, figurines, no letters at all).
    Neutral,
    /// English-only letters (`Q R N P`, `B` as bishop).
    English,
    /// German-only letters (`D T L S`).
    German,
}

impl Alphabet {
    /// Both alphabets together, or `None` when a reading mixes German and English letters.
    fn join(self, other: Alphabet) -> Option<Alphabet> {
        match (self, other) {
            (Alphabet::Neutral, x) | (x, Alphabet::Neutral) => Some(x),
            (a, b) if a == b => Some(a),
            _ => None,
        }
    }
}

/// One symbol of a normalized move text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sym {
    /// An ASCII letter other than `x`/`X`.
    Letter(char),
    /// A decimal digit.
    Digit(u32),
    /// A figurine (♔♕♖♗♘♙ and the black ones).
    Figurine(Role),
    /// `-` or a dash.
    Dash,
    /// A capture sign `x`, `:`, `×`.
    Capture,
}

/// The text as symbols; `None` when it contains a character no move text has.
/// Spaces and the signs TO §10 says do not matter are dropped here.
fn symbols(text: &str) -> Option<Vec<Sym>> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let sym = match c {
            'x' | 'X' | ':' | '×' => Sym::Capture,
            'a'..='z' | 'A'..='Z' => Sym::Letter(c),
            '0'..='9' => Sym::Digit(c.to_digit(10)?),
            '-' | '‐' | '‑' | '–' | '—' | '−' => Sym::Dash,
            '♔' | '♚' => Sym::Figurine(Role::King),
            '♕' | '♛' => Sym::Figurine(Role::Queen),
            '♖' | '♜' => Sym::Figurine(Role::Rook),
            '♗' | '♝' => Sym::Figurine(Role::Bishop),
            '♘' | '♞' => Sym::Figurine(Role::Knight),
            '♙' | '♟' => Sym::Figurine(Role::Pawn),
            // A NAG such as `$1`: the dollar and its digits are annotation.
            '$' => {
                while chars.next_if(char::is_ascii_digit).is_some() {}
                continue;
            }
            // TO §10: check, mate, annotation, promotion and bracket signs.
            '+' | '#' | '!' | '?' | '‼' | '⁇' | '⁈' | '⁉' | '†' | '‡' | '.' | '=' | '(' | ')'
            | '/' | '\u{FE0F}' | '\u{FE0E}' => continue,
            c if c.is_whitespace() => continue,
            _ => return None,
        };
        out.push(sym);
    }
    // `e.p.` / `ep` after an en-passant capture (dots already dropped).
    if let [.., Sym::Letter('e' | 'E'), Sym::Letter('p' | 'P')] = out.as_slice() {
        out.truncate(out.len().saturating_sub(2));
    }
    // Leading or trailing dashes and capture signs (`+-`, `Sf3:`) are annotation too.
    while matches!(out.last(), Some(Sym::Dash | Sym::Capture)) {
        out.pop();
    }
    let lead = out
        .iter()
        .take_while(|s| matches!(s, Sym::Dash | Sym::Capture))
        .count();
    out.drain(..lead);
    Some(out)
}

/// The shape of a reading: what the text says, before looking at the position.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Shape {
    /// Castling, `O-O` / `O-O-O`.
    Castle(CastlingSide),
    /// Short algebraic: a piece (pawn if no letter), optional origin file/rank, target.
    Short {
        role: Role,
        file: Option<File>,
        rank: Option<Rank>,
        to: Square,
        promotion: Option<Role>,
    },
    /// Origin and target squares (long algebraic, UCI, ICCF), optionally naming the piece.
    FromTo {
        named: Option<Role>,
        from: Square,
        to: Square,
        promotion: Option<Role>,
    },
    /// A pawn capture given by files only: `ed`.
    Files { from: File, to: File },
}

/// What family of forms the text's shape belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Castle,
    Short,
    /// A piece letter and both squares without separator (`Qh4e1`, `Sg1f3`): short algebraic
    /// with full disambiguation, or long algebraic without its dash.
    ShortOrLong,
    Long,
    Uci,
    Iccf,
}

/// One syntactic reading of a text.
#[derive(Debug, Clone)]
struct Candidate {
    shape: Shape,
    kind: Kind,
    alphabet: Alphabet,
}

impl Candidate {
    /// Every form this reading fits, the form to report first.
    fn forms(&self) -> &'static [Form] {
        use Alphabet::{English, German, Neutral};
        match (self.kind, self.alphabet) {
            (Kind::Castle, _) => &[
                Form::SanEnglish,
                Form::SanGerman,
                Form::LongEnglish,
                Form::LongGerman,
            ],
            (Kind::Short, Neutral) => &[Form::SanEnglish, Form::SanGerman],
            (Kind::Short, English) => &[Form::SanEnglish],
            (Kind::Short, German) => &[Form::SanGerman],
            (Kind::ShortOrLong, Neutral) => &[
                Form::SanEnglish,
                Form::SanGerman,
                Form::LongEnglish,
                Form::LongGerman,
            ],
            (Kind::ShortOrLong, English) => &[Form::SanEnglish, Form::LongEnglish],
            (Kind::ShortOrLong, German) => &[Form::SanGerman, Form::LongGerman],
            (Kind::Long, Neutral) => &[Form::LongEnglish, Form::LongGerman],
            (Kind::Long, English) => &[Form::LongEnglish],
            (Kind::Long, German) => &[Form::LongGerman],
            (Kind::Uci, _) => &[Form::Uci],
            (Kind::Iccf, _) => &[Form::Iccf],
        }
    }

    /// The form reported for this reading.
    fn form(&self) -> Form {
        self.forms().first().copied().unwrap_or(Form::SanEnglish)
    }
}

/// The pieces a leading letter can name, in the order tried (the more usual one first).
fn piece_letter(sym: Sym) -> Vec<(Role, Alphabet)> {
    match sym {
        Sym::Figurine(role) => vec![(role, Alphabet::Neutral)],
        Sym::Letter(c) => match c {
            'K' | 'k' => vec![(Role::King, Alphabet::Neutral)],
            'Q' | 'q' => vec![(Role::Queen, Alphabet::English)],
            'R' | 'r' => vec![(Role::Rook, Alphabet::English)],
            'N' | 'n' => vec![(Role::Knight, Alphabet::English)],
            'P' | 'p' => vec![(Role::Pawn, Alphabet::English)],
            // The English bishop. German notation gives pawns no letter (TO §3): `B` as "Bauer"
            // is no usual form, so `Bc4` is never the pawn. Lower-case `b` is the b-file.
            'B' => vec![(Role::Bishop, Alphabet::English)],
            // Lower-case `d` is the d-file.
            'D' => vec![(Role::Queen, Alphabet::German)],
            'T' | 't' => vec![(Role::Rook, Alphabet::German)],
            'L' | 'l' => vec![(Role::Bishop, Alphabet::German)],
            'S' | 's' => vec![(Role::Knight, Alphabet::German)],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

/// The piece a promotion letter (after the target square) names.
fn promotion_letter(sym: Sym) -> Option<(Role, Alphabet)> {
    let found = match sym {
        Sym::Figurine(role) => (role, Alphabet::Neutral),
        Sym::Letter(c) => match c.to_ascii_uppercase() {
            'Q' | 'R' | 'B' | 'N' | 'P' => {
                (Role::from_char(c.to_ascii_lowercase())?, Alphabet::English)
            }
            'D' => (Role::Queen, Alphabet::German),
            'T' => (Role::Rook, Alphabet::German),
            'L' => (Role::Bishop, Alphabet::German),
            'S' => (Role::Knight, Alphabet::German),
            'K' => (Role::King, Alphabet::Neutral),
            _ => return None,
        },
        _ => return None,
    };
    Some(found)
}

/// A file `a`–`h` or rank `1`–`8` of the coordinate part of a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Coord {
    File(File),
    Rank(Rank),
}

fn rank_of_digit(d: u32) -> Option<Rank> {
    char::from_digit(d, 10).and_then(Rank::from_char)
}

/// An ICCF digit pair: file 1–8 (a–h), rank 1–8.
fn iccf_square(file: u32, rank: u32) -> Option<Square> {
    let file = File::from_char(char::from_u32(u32::from(b'a') + file.checked_sub(1)?)?)?;
    Some(Square::from_coords(file, rank_of_digit(rank)?))
}

/// Every syntactic reading of `text`; empty when it reads as no move at all.
/// A move written in capitals (`KG7`, `SF3`, `E4`, from a mail typed with caps lock) with its
/// squares' files in lower case (`Kg7`, `Sf3`, `e4`); `None` when the text has a lower-case
/// letter or no square.
///
/// ```
/// assert_eq!(fernzug::notation::capitals_as_files("KG7").as_deref(), Some("Kg7"));
/// assert_eq!(fernzug::notation::capitals_as_files("Kg7"), None);
/// ```
pub fn capitals_as_files(text: &str) -> Option<String> {
    if text.chars().any(|c| c.is_ascii_lowercase()) {
        return None;
    }
    let chars: Vec<char> = text.chars().collect();
    let mut changed = false;
    let out: String = chars
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let square = ('A'..='H').contains(&c)
                && chars.get(i + 1).is_some_and(|n| ('1'..='8').contains(n));
            changed |= square;
            if square { c.to_ascii_lowercase() } else { c }
        })
        .collect();
    changed.then_some(out)
}

fn parse(text: &str) -> Vec<Candidate> {
    let found = parse_as_written(text);
    match capitals_as_files(text) {
        Some(lower) if found.is_empty() => parse_as_written(&lower),
        _ => found,
    }
}

fn parse_as_written(text: &str) -> Vec<Candidate> {
    if text.is_empty() || text.chars().count() > MAX_LEN {
        return Vec::new();
    }
    let Some(syms) = symbols(text) else {
        return Vec::new();
    };
    if syms.is_empty() {
        return Vec::new();
    }
    if let Some(side) = parse_castle(&syms) {
        return vec![Candidate {
            shape: Shape::Castle(side),
            kind: Kind::Castle,
            alphabet: Alphabet::Neutral,
        }];
    }
    if let Some(candidate) = parse_iccf(&syms) {
        return vec![candidate];
    }
    parse_algebraic(&syms)
}

/// `O-O`, `0-0`, `o-o`, `OO` (two) or three of them: castling.
fn parse_castle(syms: &[Sym]) -> Option<CastlingSide> {
    let mut count = 0;
    for sym in syms {
        match sym {
            Sym::Letter('O' | 'o') | Sym::Digit(0) => count += 1,
            Sym::Dash => {}
            _ => return None,
        }
    }
    match count {
        2 => Some(CastlingSide::KingSide),
        3 => Some(CastlingSide::QueenSide),
        _ => None,
    }
}

/// ICCF numeric: four digits (origin, target), a fifth for the promotion piece.
fn parse_iccf(syms: &[Sym]) -> Option<Candidate> {
    let mut digits = Vec::new();
    for sym in syms {
        match sym {
            Sym::Digit(d) => digits.push(*d),
            Sym::Dash | Sym::Capture => {}
            _ => return None,
        }
    }
    let (squares, promotion) = match digits.as_slice() {
        [a, b, c, d] => ([*a, *b, *c, *d], None),
        [a, b, c, d, p] => {
            let role = match p {
                1 => Role::Queen,
                2 => Role::Rook,
                3 => Role::Bishop,
                4 => Role::Knight,
                _ => return None,
            };
            ([*a, *b, *c, *d], Some(role))
        }
        _ => return None,
    };
    let [ff, fr, tf, tr] = squares;
    Some(Candidate {
        shape: Shape::FromTo {
            named: None,
            from: iccf_square(ff, fr)?,
            to: iccf_square(tf, tr)?,
            promotion,
        },
        kind: Kind::Iccf,
        alphabet: Alphabet::Neutral,
    })
}

/// Algebraic texts: short, long, UCI, each with its possible letter meanings.
fn parse_algebraic(syms: &[Sym]) -> Vec<Candidate> {
    // Leading piece letter, if any.
    let (pieces, rest) = match syms.split_first() {
        Some((first, rest)) => {
            let pieces = piece_letter(*first);
            if pieces.is_empty() {
                (Vec::new(), syms)
            } else {
                (pieces, rest)
            }
        }
        None => return Vec::new(),
    };
    let named = !pieces.is_empty();

    // Trailing promotion letter, right after a rank digit.
    let (promotion, rest) = match rest {
        [body @ .., Sym::Digit(_), last] => match promotion_letter(*last) {
            Some(p) => (Some(p), rest.get(..=body.len()).unwrap_or(rest)),
            None => (None, rest),
        },
        _ => (None, rest),
    };

    // The coordinates, and whether a separator stands between them.
    let mut coords = Vec::new();
    let mut separated = false;
    for sym in rest {
        match *sym {
            Sym::Letter(c) => match File::from_char(c) {
                Some(f) => coords.push(Coord::File(f)),
                None => return Vec::new(),
            },
            Sym::Digit(d) => match rank_of_digit(d) {
                Some(r) => coords.push(Coord::Rank(r)),
                None => return Vec::new(),
            },
            Sym::Dash | Sym::Capture => separated = true,
            Sym::Figurine(_) => return Vec::new(),
        }
    }

    let pieces = if named {
        pieces
    } else {
        vec![(Role::Pawn, Alphabet::Neutral)]
    };
    let (promo_role, promo_alphabet) = match promotion {
        Some((role, alphabet)) => (Some(role), alphabet),
        None => (None, Alphabet::Neutral),
    };

    let mut out = Vec::new();
    for (role, piece_alphabet) in pieces {
        let Some(alphabet) = piece_alphabet.join(promo_alphabet) else {
            continue; // German and English letters mixed in one reading
        };
        let (shape, kind) = match coords.as_slice() {
            [Coord::File(tf), Coord::Rank(tr)] => (
                short(role, None, None, Square::from_coords(*tf, *tr), promo_role),
                Kind::Short,
            ),
            [Coord::File(ff), Coord::File(tf), Coord::Rank(tr)] => (
                short(
                    role,
                    Some(*ff),
                    None,
                    Square::from_coords(*tf, *tr),
                    promo_role,
                ),
                Kind::Short,
            ),
            [Coord::Rank(fr), Coord::File(tf), Coord::Rank(tr)] => (
                short(
                    role,
                    None,
                    Some(*fr),
                    Square::from_coords(*tf, *tr),
                    promo_role,
                ),
                Kind::Short,
            ),
            [
                Coord::File(ff),
                Coord::Rank(fr),
                Coord::File(tf),
                Coord::Rank(tr),
            ] => {
                let kind = if separated {
                    Kind::Long
                } else if named {
                    Kind::ShortOrLong
                } else if alphabet == Alphabet::German {
                    Kind::Long // `e7e8D`: long algebraic without its dash
                } else {
                    Kind::Uci
                };
                (
                    Shape::FromTo {
                        named: named.then_some(role),
                        from: Square::from_coords(*ff, *fr),
                        to: Square::from_coords(*tf, *tr),
                        promotion: promo_role,
                    },
                    kind,
                )
            }
            // `ed`: a pawn capture named by its files, only for neighbouring files.
            [Coord::File(ff), Coord::File(tf)]
                if role == Role::Pawn && promotion.is_none() && ff.distance(*tf) == 1 =>
            {
                (Shape::Files { from: *ff, to: *tf }, Kind::Short)
            }
            _ => continue,
        };
        out.push(Candidate {
            shape,
            kind,
            alphabet,
        });
    }
    out
}

/// A short-algebraic shape; a pawn without origin file moves on its own file.
fn short(
    role: Role,
    file: Option<File>,
    rank: Option<Rank>,
    to: Square,
    promotion: Option<Role>,
) -> Shape {
    let file = if role == Role::Pawn && file.is_none() && rank.is_none() {
        Some(to.file())
    } else {
        file
    };
    Shape::Short {
        role,
        file,
        rank,
        to,
        promotion,
    }
}

// ---------------------------------------------------------------------------------------
// Matching against the position
// ---------------------------------------------------------------------------------------

/// The legal moves a reading gives, or why it gives none.
fn evaluate(shape: &Shape, pos: &Chess, legal: &MoveList) -> Result<Vec<Move>, IllegalReason> {
    match *shape {
        Shape::Castle(side) => {
            let moves: Vec<Move> = legal
                .iter()
                .filter(|m| m.castling_side() == Some(side))
                .copied()
                .collect();
            if moves.is_empty() {
                Err(castling_reason(pos, side))
            } else {
                Ok(moves)
            }
        }
        Shape::Short {
            role,
            file,
            rank,
            to,
            promotion,
        } => {
            let hint = |sq: Square| {
                file.is_none_or(|f| sq.file() == f) && rank.is_none_or(|r| sq.rank() == r)
            };
            let moves: Vec<Move> = legal
                .iter()
                .filter(|m| {
                    m.role() == role && !m.is_castle() && m.to() == to && m.from().is_some_and(hint)
                })
                .copied()
                .collect();
            if moves.is_empty() {
                return Err(short_reason(pos, role, to, hint));
            }
            let moves = with_promotion(moves, promotion)?;
            let mut froms: Vec<Square> = moves.iter().filter_map(|m| m.from()).collect();
            froms.sort_unstable();
            froms.dedup();
            if froms.len() > 1 {
                return Err(IllegalReason::SeveralPiecesCanReach {
                    piece: role,
                    to,
                    candidates: froms,
                });
            }
            Ok(moves)
        }
        Shape::FromTo {
            named,
            from,
            to,
            promotion,
        } => from_to(pos, legal, named, from, to, promotion),
        Shape::Files { from, to } => {
            let moves: Vec<Move> = legal
                .iter()
                .filter(|m| {
                    m.role() == Role::Pawn
                        && m.is_capture()
                        && m.from().is_some_and(|s| s.file() == from)
                        && m.to().file() == to
                })
                .copied()
                .collect();
            if moves.is_empty() {
                return Err(IllegalReason::NoPawnCapture {
                    from_file: from,
                    to_file: to,
                });
            }
            with_promotion(moves, None)
        }
    }
}

/// Keeps the moves with the promotion the text names (TO §9: a missing or wrong promotion
/// piece makes the move impossible as written).
fn with_promotion(moves: Vec<Move>, promotion: Option<Role>) -> Result<Vec<Move>, IllegalReason> {
    let any_promotion = moves.iter().any(|m| m.is_promotion());
    match promotion {
        None if any_promotion => Err(IllegalReason::PromotionMissing),
        None => Ok(moves),
        Some(_) if !any_promotion => Err(IllegalReason::PromotionNotPossible),
        Some(role @ (Role::King | Role::Pawn)) => Err(IllegalReason::InvalidPromotionPiece(role)),
        Some(role) => Ok(moves
            .into_iter()
            .filter(|m| m.promotion() == Some(role))
            .collect()),
    }
}

/// Why no piece of kind `role` (from where `hint` allows) can go to `to`.
fn short_reason(
    pos: &Chess,
    role: Role,
    to: Square,
    hint: impl Fn(Square) -> bool,
) -> IllegalReason {
    let ours = pos.our(role);
    if ours.is_empty() {
        return IllegalReason::NoSuchPiece(role);
    }
    let reachers: Vec<Square> = ours
        .into_iter()
        .filter(|&from| reaches(pos, from, to))
        .collect();
    if reachers.is_empty() {
        return IllegalReason::NoPieceCanReach { piece: role, to };
    }
    if !reachers.iter().any(|&sq| hint(sq)) {
        return IllegalReason::NotFromThere {
            piece: role,
            to,
            candidates: reachers,
        };
    }
    if pos.us().contains(to) {
        return IllegalReason::OwnPieceOnTarget(to);
    }
    IllegalReason::LeavesKingInCheck
}

/// The square a move lands its piece on (the king's square for castling).
fn destination(m: &Move) -> Square {
    match *m {
        Move::Castle { king, rook } => castle_king_target(king, rook),
        _ => m.to(),
    }
}

/// A move given by origin and target square (long algebraic, UCI, ICCF).
fn from_to(
    pos: &Chess,
    legal: &MoveList,
    named: Option<Role>,
    from: Square,
    to: Square,
    promotion: Option<Role>,
) -> Result<Vec<Move>, IllegalReason> {
    let board = pos.board();
    let Some(piece) = board.piece_at(from) else {
        return Err(IllegalReason::NoPieceOnSquare(from));
    };
    if piece.color != pos.turn() {
        return Err(IllegalReason::WrongColorPiece(from));
    }
    if let Some(named) = named
        && named != piece.role
    {
        return Err(IllegalReason::WrongPieceOnSquare {
            square: from,
            named,
            found: piece.role,
        });
    }
    let moves: Vec<Move> = legal
        .iter()
        .filter(|m| {
            m.from() == Some(from) && (destination(m) == to || (m.is_castle() && m.to() == to))
        })
        .copied()
        .collect();
    if !moves.is_empty() {
        return with_promotion(moves, promotion);
    }
    if piece.role == Role::King
        && let Some(side) = castling_attempt(pos, piece.color, from, to)
    {
        return Err(castling_reason(pos, side));
    }
    if from != to && pos.us().contains(to) {
        return Err(IllegalReason::OwnPieceOnTarget(to));
    }
    if from != to && reaches(pos, from, to) {
        return Err(IllegalReason::LeavesKingInCheck);
    }
    Err(IllegalReason::PieceCannotMoveThere {
        piece: piece.role,
        from,
        to,
    })
}

/// Whether a king move `from`–`to` is meant as castling: two files along the back rank
/// from the e-file, or onto the square of a rook it may castle with.
fn castling_attempt(pos: &Chess, color: Color, from: Square, to: Square) -> Option<CastlingSide> {
    let backrank = color.backrank();
    if from.rank() != backrank || to.rank() != backrank {
        return None;
    }
    let side = CastlingSide::from_king_side(to.file() > from.file());
    let two_files = from.file() == File::E && from.file().distance(to.file()) == 2;
    let onto_rook = pos.castles().rook(color, side) == Some(to);
    (two_files || onto_rook).then_some(side)
}

/// Why castling on `side` is not legal now.
fn castling_reason(pos: &Chess, side: CastlingSide) -> IllegalReason {
    let color = pos.turn();
    let castles = pos.castles();
    if !castles.has(color, side) {
        IllegalReason::CastlingRightLost(side)
    } else if castles.path(color, side).intersects(pos.board().occupied()) {
        IllegalReason::CastlingPathBlocked(side)
    } else if pos.is_check() {
        IllegalReason::CastlingOutOfCheck(side)
    } else {
        IllegalReason::CastlingNotAllowed(side)
    }
}

/// Whether the piece on `from` could move to `to` by the way it moves, ignoring checks.
/// A target holding an own piece counts as reached (so that the reason can name it), except
/// that a pawn push onto any occupied square does not.
fn reaches(pos: &Chess, from: Square, to: Square) -> bool {
    let board = pos.board();
    let Some(piece) = board.piece_at(from) else {
        return false;
    };
    if piece.role != Role::Pawn {
        return attacks::attacks(from, piece, board.occupied()).contains(to);
    }
    let forward = if piece.color == Color::White { 8 } else { -8 };
    let enemy_on_target = board.by_color(piece.color.other()).contains(to);
    if attacks::pawn_attacks(piece.color, from).contains(to) {
        return board.occupied().contains(to) || pos.maybe_ep_square() == Some(to);
    }
    let one = from.offset(forward);
    if one == Some(to) {
        return !enemy_on_target;
    }
    let start_rank = if piece.color == Color::White {
        Rank::Second
    } else {
        Rank::Seventh
    };
    from.rank() == start_rank
        && one.is_some_and(|sq| !board.occupied().contains(sq))
        && from.offset(2 * forward) == Some(to)
        && !enemy_on_target
}
