//! The words of [`NotationError`] and [`IllegalReason`]: one sentence in German or English that
//! says exactly what is wrong with a move text, for a query (Rückfrage, TO §8, §9). The types
//! live in `crate::notation` (which reads moves and knows no prose); their words live here, with
//! every other sentence a player reads.

use std::fmt;

use shakmaty::{CastlingSide, Role};

use crate::lang::Lang;
use crate::notation::{Form, IllegalReason, NotationError};

/// The words of a [`Form`]: the notations' names, where a player reads them (TO §3).
impl Form {
    /// The human name of the form, in `lang`, e.g. "deutsche Kurznotation" or "ICCF numeric".
    pub fn name(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Form::SanEnglish, Lang::De) => "englische Kurznotation",
            (Form::SanEnglish, Lang::En) => "short algebraic (English letters)",
            (Form::SanGerman, Lang::De) => "deutsche Kurznotation",
            (Form::SanGerman, Lang::En) => "short algebraic (German letters)",
            (Form::LongEnglish, Lang::De) => "englische Langnotation",
            (Form::LongEnglish, Lang::En) => "long algebraic (English letters)",
            (Form::LongGerman, Lang::De) => "deutsche Langnotation",
            (Form::LongGerman, Lang::En) => "long algebraic (German letters)",
            (Form::Iccf, Lang::De) => "ICCF-Ziffernnotation",
            (Form::Iccf, Lang::En) => "ICCF numeric",
            (Form::Uci, Lang::De) => "UCI-Notation",
            (Form::Uci, Lang::En) => "UCI",
        }
    }
}

/// At most this many characters of the text are quoted in a message.
const QUOTE_LIMIT: usize = 40;

/// The text as quoted in messages: cut after [`QUOTE_LIMIT`] characters.
fn quoted(text: &str) -> String {
    if text.chars().count() > QUOTE_LIMIT {
        let mut s: String = text.chars().take(QUOTE_LIMIT).collect();
        s.push('…');
        s
    } else {
        text.to_string()
    }
}

/// The English sentence (logs, errors): [`NotationError::message`] in English.
impl fmt::Display for NotationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message(Lang::En))
    }
}

impl std::error::Error for NotationError {}

impl NotationError {
    /// One sentence in German or English saying exactly what is wrong, e.g.
    /// "Sf3: kein Springer kann f3 erreichen" or "e2-e5: the pawn on e2 cannot move to e5".
    pub fn message(&self, lang: Lang) -> String {
        match (self, lang) {
            (NotationError::NotAMove { text }, Lang::De) => {
                format!(
                    "„{}“ ist in keiner bekannten Notation ein Zug",
                    quoted(text)
                )
            }
            (NotationError::NotAMove { text }, Lang::En) => {
                format!("\"{}\" is not a move in any known notation", quoted(text))
            }
            (NotationError::Illegal { text, reason }, _) => {
                format!("{}: {}", quoted(text), reason.message(lang))
            }
            (NotationError::Ambiguous { text, readings }, Lang::De) => {
                let readings: Vec<String> = readings.iter().map(|r| german_letters(r)).collect();
                if readings.len() == 1 {
                    format!(
                        "{}: zweifelhaft, gemeint ist vielleicht {}",
                        quoted(text),
                        join(&readings, "oder")
                    )
                } else {
                    format!(
                        "{}: mehrdeutig, gemeint sein kann {}",
                        quoted(text),
                        join(&readings, "oder")
                    )
                }
            }
            (NotationError::Ambiguous { text, readings }, Lang::En) => {
                if readings.len() == 1 {
                    format!(
                        "{}: doubtful, perhaps {} is meant",
                        quoted(text),
                        join(readings, "or")
                    )
                } else {
                    format!(
                        "{}: ambiguous, it can mean {}",
                        quoted(text),
                        join(readings, "or")
                    )
                }
            }
        }
    }
}

/// An English short algebraic reading in German letters (`Bc4` → `Lc4`), for German messages.
fn german_letters(san: &str) -> String {
    // The pieces' capitals (`K Q R B N`) through the one table of piece letters.
    san.chars()
        .map(|c| match c {
            'K' | 'Q' | 'R' | 'B' | 'N' => Role::from_char(c.to_ascii_lowercase())
                .map_or(c, |role| crate::notation::piece_letter(role, Lang::De)),
            c => c,
        })
        .collect()
}

/// `a`, `a or b`, `a, b or c`.
fn join<T: fmt::Display>(items: &[T], last_word: &str) -> String {
    let parts: Vec<String> = items.iter().map(ToString::to_string).collect();
    match parts.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} {last_word} {last}", rest.join(", ")),
    }
}

/// German nouns for a role: (nominative with definite article, "kein …", plural).
fn de_noun(role: Role) -> (&'static str, &'static str, &'static str) {
    match role {
        Role::King => ("der König", "kein König", "Könige"),
        Role::Queen => ("die Dame", "keine Dame", "Damen"),
        Role::Rook => ("der Turm", "kein Turm", "Türme"),
        Role::Bishop => ("der Läufer", "kein Läufer", "Läufer"),
        Role::Knight => ("der Springer", "kein Springer", "Springer"),
        Role::Pawn => ("der Bauer", "kein Bauer", "Bauern"),
    }
}

/// "ein König", "eine Dame", … (nominative, indefinite).
fn de_indefinite(role: Role) -> &'static str {
    match role {
        Role::King => "ein König",
        Role::Queen => "eine Dame",
        Role::Rook => "ein Turm",
        Role::Bishop => "ein Läufer",
        Role::Knight => "ein Springer",
        Role::Pawn => "ein Bauer",
    }
}

/// English noun of a role.
fn en_noun(role: Role) -> &'static str {
    match role {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    }
}

/// "a king", "an …" is never needed: every English piece noun starts with a consonant.
fn en_indefinite(role: Role) -> String {
    format!("a {}", en_noun(role))
}

fn de_side(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "die kurze Rochade",
        CastlingSide::QueenSide => "die lange Rochade",
    }
}

fn en_side(side: CastlingSide) -> &'static str {
    match side {
        CastlingSide::KingSide => "castling kingside",
        CastlingSide::QueenSide => "castling queenside",
    }
}

impl IllegalReason {
    /// The reason as a sentence fragment (without the move text), in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        match lang {
            Lang::De => self.message_de(),
            Lang::En => self.message_en(),
        }
    }

    fn message_de(&self) -> String {
        match self {
            IllegalReason::NoLegalMoves => {
                "es ist kein Zug mehr möglich, die Partie ist beendet".to_string()
            }
            IllegalReason::NoPieceOnSquare(sq) => format!("auf {sq} steht keine Figur"),
            IllegalReason::WrongColorPiece(sq) => {
                format!("die Figur auf {sq} gehört dem Gegner")
            }
            IllegalReason::WrongPieceOnSquare {
                square,
                named,
                found,
            } => format!(
                "auf {square} steht {}, nicht {}",
                de_indefinite(*found),
                de_indefinite(*named)
            ),
            IllegalReason::NoSuchPiece(role) => {
                let (_, none, _) = de_noun(*role);
                format!("{none} der eigenen Farbe steht noch auf dem Brett")
            }
            IllegalReason::NoPieceCanReach {
                piece: Role::King,
                to,
            } => format!("der König kann {to} nicht erreichen"),
            IllegalReason::NoPieceCanReach { piece, to } => {
                let (_, none, _) = de_noun(*piece);
                format!("{none} kann {to} erreichen")
            }
            IllegalReason::NotFromThere {
                piece,
                to,
                candidates,
            } => {
                let (_, none, _) = de_noun(*piece);
                format!(
                    "{none} von dort kann {to} erreichen, nur von {}",
                    join(candidates, "oder")
                )
            }
            IllegalReason::SeveralPiecesCanReach {
                piece,
                to,
                candidates,
            } => {
                let (_, _, plural) = de_noun(*piece);
                format!(
                    "mehrere {plural} können {to} erreichen (von {}), bitte das Ausgangsfeld angeben",
                    join(candidates, "und")
                )
            }
            IllegalReason::PieceCannotMoveThere { piece, from, to } => {
                let (the, _, _) = de_noun(*piece);
                format!("{the} auf {from} kann nicht nach {to} ziehen")
            }
            IllegalReason::OwnPieceOnTarget(sq) => format!("auf {sq} steht eine eigene Figur"),
            IllegalReason::LeavesKingInCheck => {
                "nach diesem Zug stünde der eigene König im Schach".to_string()
            }
            IllegalReason::NoPawnCapture { from_file, to_file } => {
                format!("kein Bauer der {from_file}-Linie kann auf der {to_file}-Linie schlagen")
            }
            IllegalReason::CastlingRightLost(side) => format!(
                "{} ist nicht mehr erlaubt, weil König oder Turm schon gezogen haben",
                de_side(*side)
            ),
            IllegalReason::CastlingPathBlocked(side) => format!(
                "{} ist jetzt nicht möglich, weil Figuren zwischen König und Turm stehen",
                de_side(*side)
            ),
            IllegalReason::CastlingOutOfCheck(side) => format!(
                "{} ist nicht erlaubt, weil der König im Schach steht",
                de_side(*side)
            ),
            IllegalReason::CastlingNotAllowed(side) => format!(
                "{} ist jetzt nicht erlaubt, weil der König über ein angegriffenes Feld ziehen oder auf einem landen würde",
                de_side(*side)
            ),
            IllegalReason::PromotionMissing => {
                "der Bauer muss sich umwandeln, bitte die neue Figur angeben".to_string()
            }
            IllegalReason::PromotionNotPossible => {
                "dieser Zug ist keine Bauernumwandlung".to_string()
            }
            IllegalReason::InvalidPromotionPiece(role) => {
                let target = match role {
                    Role::King => "einen König",
                    Role::Pawn => "einen Bauern",
                    Role::Queen => "eine Dame",
                    Role::Rook => "einen Turm",
                    Role::Bishop => "einen Läufer",
                    Role::Knight => "einen Springer",
                };
                format!("ein Bauer kann sich nicht in {target} umwandeln")
            }
        }
    }

    fn message_en(&self) -> String {
        match self {
            IllegalReason::NoLegalMoves => {
                "no move is possible any more, the game is over".to_string()
            }
            IllegalReason::NoPieceOnSquare(sq) => format!("there is no piece on {sq}"),
            IllegalReason::WrongColorPiece(sq) => {
                format!("the piece on {sq} belongs to the opponent")
            }
            IllegalReason::WrongPieceOnSquare {
                square,
                named,
                found,
            } => format!(
                "there is {} on {square}, not {}",
                en_indefinite(*found),
                en_indefinite(*named)
            ),
            IllegalReason::NoSuchPiece(role) => {
                format!("you have no {} left", en_noun(*role))
            }
            IllegalReason::NoPieceCanReach {
                piece: Role::King,
                to,
            } => format!("the king cannot reach {to}"),
            IllegalReason::NoPieceCanReach { piece, to } => {
                format!("no {} can reach {to}", en_noun(*piece))
            }
            IllegalReason::NotFromThere {
                piece,
                to,
                candidates,
            } => format!(
                "no {} from there can reach {to}, only from {}",
                en_noun(*piece),
                join(candidates, "or")
            ),
            IllegalReason::SeveralPiecesCanReach {
                piece,
                to,
                candidates,
            } => format!(
                "several {}s can reach {to} (from {}), please give the starting square",
                en_noun(*piece),
                join(candidates, "and")
            ),
            IllegalReason::PieceCannotMoveThere { piece, from, to } => {
                format!("the {} on {from} cannot move to {to}", en_noun(*piece))
            }
            IllegalReason::OwnPieceOnTarget(sq) => {
                format!("one of your own pieces stands on {sq}")
            }
            IllegalReason::LeavesKingInCheck => {
                "this move would leave your own king in check".to_string()
            }
            IllegalReason::NoPawnCapture { from_file, to_file } => {
                format!("no pawn on the {from_file}-file can capture on the {to_file}-file")
            }
            IllegalReason::CastlingRightLost(side) => format!(
                "{} is no longer allowed because the king or the rook has moved",
                en_side(*side)
            ),
            IllegalReason::CastlingPathBlocked(side) => format!(
                "{} is not possible now because pieces stand between king and rook",
                en_side(*side)
            ),
            IllegalReason::CastlingOutOfCheck(side) => format!(
                "{} is not allowed because the king is in check",
                en_side(*side)
            ),
            IllegalReason::CastlingNotAllowed(side) => format!(
                "{} is not allowed now because the king would pass or land on an attacked square",
                en_side(*side)
            ),
            IllegalReason::PromotionMissing => {
                "the pawn must promote, please name the new piece".to_string()
            }
            IllegalReason::PromotionNotPossible => "this move is not a promotion".to_string(),
            IllegalReason::InvalidPromotionPiece(role) => {
                format!("a pawn cannot promote to {}", en_indefinite(*role))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Square;

    fn illegal(text: &str, reason: IllegalReason) -> NotationError {
        NotationError::Illegal {
            text: text.to_string(),
            reason,
        }
    }

    #[test]
    fn s8_messages_say_exactly_what_is_wrong() {
        let e = illegal(
            "Sf3",
            IllegalReason::NoPieceCanReach {
                piece: Role::Knight,
                to: Square::F3,
            },
        );
        assert_eq!(e.message(Lang::De), "Sf3: kein Springer kann f3 erreichen");
        assert_eq!(e.message(Lang::En), "Sf3: no knight can reach f3");
        let e = illegal(
            "e2-e5",
            IllegalReason::PieceCannotMoveThere {
                piece: Role::Pawn,
                from: Square::E2,
                to: Square::E5,
            },
        );
        assert_eq!(
            e.message(Lang::En),
            "e2-e5: the pawn on e2 cannot move to e5"
        );
        assert_eq!(
            e.message(Lang::De),
            "e2-e5: der Bauer auf e2 kann nicht nach e5 ziehen"
        );
        assert_eq!(e.to_string(), e.message(Lang::En));
    }

    #[test]
    fn s8_king_is_named_as_the_one_king() {
        let e = illegal(
            "Ke3",
            IllegalReason::NoPieceCanReach {
                piece: Role::King,
                to: Square::E3,
            },
        );
        assert_eq!(
            e.message(Lang::De),
            "Ke3: der König kann e3 nicht erreichen"
        );
        assert_eq!(e.message(Lang::En), "Ke3: the king cannot reach e3");
    }

    #[test]
    fn s8_ambiguous_message_lists_readings() {
        let e = NotationError::Ambiguous {
            text: "Bc4".to_string(),
            readings: vec!["Bc4".to_string(), "c4".to_string()],
        };
        assert_eq!(e.message(Lang::En), "Bc4: ambiguous, it can mean Bc4 or c4");
        assert_eq!(
            e.message(Lang::De),
            "Bc4: mehrdeutig, gemeint sein kann Lc4 oder c4"
        );
    }

    #[test]
    fn s8_several_pieces_named_with_squares() {
        let e = illegal(
            "Sd2",
            IllegalReason::SeveralPiecesCanReach {
                piece: Role::Knight,
                to: Square::D2,
                candidates: vec![Square::B1, Square::F3],
            },
        );
        assert_eq!(
            e.message(Lang::De),
            "Sd2: mehrere Springer können d2 erreichen (von b1 und f3), bitte das Ausgangsfeld angeben"
        );
        assert_eq!(
            e.message(Lang::En),
            "Sd2: several knights can reach d2 (from b1 and f3), please give the starting square"
        );
    }

    #[test]
    fn s8_long_text_is_cut_in_message() {
        let e = NotationError::NotAMove {
            text: "x".repeat(500),
        };
        assert!(e.message(Lang::En).chars().count() < 100);
        assert_eq!(e.text().len(), 500);
    }

    #[test]
    fn join_lists_naturally() {
        assert_eq!(join::<&str>(&[], "or"), "");
        assert_eq!(join(&["a"], "or"), "a");
        assert_eq!(join(&["a", "b", "c"], "or"), "a, b or c");
    }
}
