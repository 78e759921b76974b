//! The own move of a valid mail as read, and how a move is read in the form its player usually
//! writes: what the steps of a letter (`play`, its conditional lines and its endings) share.

use shakmaty::{Chess, Move};

use crate::notation::{self, Form};

/// The own move of a valid mail, with what was read.
pub(crate) struct Resolved {
    pub(crate) mv: Move,
    pub(crate) form: Form,
    /// TO §7: the moves after the own move when the mail accepts the partner's conditional line
    /// (alternating: the partner's conditional reply, the own next move, …).
    pub(crate) more: Vec<Move>,
    /// TO §6: the conditional lines proposed with the move, as UCI moves.
    pub(crate) lines: Vec<Vec<String>>,
    /// FIDE 9.2: a threefold repetition claimed (and found to hold) with the move.
    pub(crate) claim: bool,
}

/// Reads a move as the player usually writes (TO §3). Interpretation (TO §2, §3, §8): a text that
/// reads as two different legal moves is doubtful and is queried; `B` is always the English
/// bishop (German notation gives pawns no letter), so `Bc4` never means a pawn.
pub(super) fn read_in_usual_form(
    text: &str,
    pos: &Chess,
    usual: Form,
) -> Result<notation::Reading, notation::NotationError> {
    match usual {
        Form::SanEnglish | Form::LongEnglish => notation::read_move_in(text, pos, usual),
        _ => notation::read_move(text, pos).map(|mut r| {
            // `e4` fits German and English alike: it is no switch of form (TO §3).
            if notation::fits_form(text, pos, usual) {
                r.form = usual;
            }
            r
        }),
    }
}
