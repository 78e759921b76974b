//! [`NotationError`] and [`IllegalReason`]: what is wrong with a move text, precisely enough
//! for a query (Rückfrage, TO §8, §9) that says exactly what was wrong. Their words (and their
//! `Display`, the English sentence) are in `crate::render::words`, with every sentence a player
//! reads.

use shakmaty::{CastlingSide, File, Role, Square};

/// Why a text cannot be played as a move in the current position (TO §8, §9).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotationError {
    /// The text reads as no move in any notation form.
    NotAMove {
        /// The text as given (trimmed).
        text: String,
    },
    /// The text reads as a move, but that move is not legal in the position.
    Illegal {
        /// The text as given (trimmed).
        text: String,
        /// The most precise reason found.
        reason: IllegalReason,
    },
    /// The text reads as two or more different legal moves (TO §2, §3, §8: doubtful).
    Ambiguous {
        /// The text as given (trimmed).
        text: String,
        /// The legal moves it could mean, in English short algebraic.
        readings: Vec<String>,
    },
}

/// The precise reason why a move that was read is not legal here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IllegalReason {
    /// No legal move exists at all: the game is over (mate or stalemate).
    NoLegalMoves,
    /// The origin square named is empty.
    NoPieceOnSquare(Square),
    /// The piece on the origin square belongs to the side not on move.
    WrongColorPiece(Square),
    /// The origin square holds a different piece than the one named (`Sg1-f3` with a bishop on g1).
    WrongPieceOnSquare {
        /// The origin square.
        square: Square,
        /// The piece the text names.
        named: Role,
        /// The piece that stands there.
        found: Role,
    },
    /// The side to move has no piece of that kind any more.
    NoSuchPiece(Role),
    /// No piece of that kind can reach the target square.
    NoPieceCanReach {
        /// The piece named.
        piece: Role,
        /// The target square.
        to: Square,
    },
    /// Pieces of that kind can reach the target, but none from where the text says.
    NotFromThere {
        /// The piece named.
        piece: Role,
        /// The target square.
        to: Square,
        /// The squares from which such a piece can reach the target.
        candidates: Vec<Square>,
    },
    /// Two or more pieces of that kind can reach the target; the text does not say which.
    SeveralPiecesCanReach {
        /// The piece named.
        piece: Role,
        /// The target square.
        to: Square,
        /// The origin squares of the pieces that can reach the target.
        candidates: Vec<Square>,
    },
    /// The piece on `from` cannot move to `to`.
    PieceCannotMoveThere {
        /// The piece on `from`.
        piece: Role,
        /// The origin square.
        from: Square,
        /// The target square.
        to: Square,
    },
    /// A piece of the side to move already stands on the target square.
    OwnPieceOnTarget(Square),
    /// The move would leave (or put) the mover's own king in check.
    LeavesKingInCheck,
    /// No pawn of the first file can capture onto the second (`ed`).
    NoPawnCapture {
        /// The file the pawn comes from.
        from_file: File,
        /// The file it captures on.
        to_file: File,
    },
    /// The king or that rook has moved: the castling right is gone.
    CastlingRightLost(CastlingSide),
    /// Pieces stand between king and rook.
    CastlingPathBlocked(CastlingSide),
    /// The king is in check; castling out of check is not allowed.
    CastlingOutOfCheck(CastlingSide),
    /// Castling is not allowed now (the king would pass or land on an attacked square).
    CastlingNotAllowed(CastlingSide),
    /// A pawn reaching the last rank must promote, and the text names no piece.
    PromotionMissing,
    /// The text names a promotion piece for a move that is no promotion.
    PromotionNotPossible,
    /// A pawn cannot promote to this piece (king or pawn).
    InvalidPromotionPiece(Role),
}

impl NotationError {
    /// The text the error is about (trimmed).
    pub fn text(&self) -> &str {
        match self {
            NotationError::NotAMove { text }
            | NotationError::Illegal { text, .. }
            | NotationError::Ambiguous { text, .. } => text,
        }
    }
}
