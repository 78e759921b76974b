//! The board a screen reader reads (docs/contract.md "A board a screen reader reads"): the
//! position of a mail as piece lists instead of the diagram, and the lead that says first what a
//! blind player needs — whose move it is, the last move, check — before the rest of the mail.

use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, Chess, Color, Position};

use super::common::colour;
use crate::core::model::GameContext;
use crate::lang::Lang;
use crate::notation::piece_list;

/// The position of `fen` as piece lists, a line each: White's pieces, Black's, who is to move,
/// in the letters of `lang` (the pawns as their squares). Indented as the mails indent their
/// data (a move, a line), so that no line is broken inside a list, however many pieces it has.
/// `None` when `fen` is no position.
///
/// ```
/// use fernzug::{lang::Lang, render::words::piece_lists};
/// let lists = piece_lists("6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", Lang::De).unwrap();
/// assert_eq!(lists, "  Weiß: Kg1, Td1, f2, g2, h2.\n  Schwarz: Kg8, f7, g7, h7.\n  Schwarz am Zug.");
/// let lists = piece_lists("6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - - 0 1", Lang::En).unwrap();
/// assert_eq!(lists, "  White: Kg1, Rd1, f2, g2, h2.\n  Black: Kg8, f7, g7, h7.\n  Black to move.");
/// ```
pub fn piece_lists(fen: &str, lang: Lang) -> Option<String> {
    let setup = fen.parse::<Fen>().ok()?.into_setup();
    let list = |side| piece_list(&setup.board, side, lang);
    let (white, black, turn) = (
        list(Color::White),
        list(Color::Black),
        colour(setup.turn, lang),
    );
    Some(match lang {
        Lang::De => format!("  Weiß: {white}.\n  Schwarz: {black}.\n  {turn} am Zug."),
        Lang::En => format!("  White: {white}.\n  Black: {black}.\n  {turn} to move."),
    })
}

/// What a blind player needs first, in one or two sentences for the top of the mail: whose move
/// it is (his own, or his partner's by name and colour; or that the game is over, suspended or
/// stopped), then the last move, and whether it gave check, mate or stalemate — spelt out, not
/// as `+` or `#`, which a screen reader reads as "plus" and "hash". `stopped`: the mail ended
/// (`over`) or stopped (`adjourned`) the game, which its facts still show running.
pub fn position_lead(c: &GameContext, stopped: Option<&str>, lang: Lang) -> String {
    let to_move = c.to_move.0;
    let yours = c.color.map(|c| c.0) == Some(to_move);
    let position = c
        .fen
        .parse::<Fen>()
        .ok()
        .and_then(|f| f.into_position::<Chess>(CastlingMode::Standard).ok());
    let ended = position
        .as_ref()
        .is_some_and(|p| p.is_checkmate() || p.is_stalemate());
    let state = match stopped {
        _ if ended => "finished",
        Some("over") => "finished",
        Some("adjourned") => "adjourned",
        _ => c.state,
    };
    let whose = match (state, lang) {
        ("finished", Lang::De) => "Die Partie ist beendet.".to_string(),
        ("finished", Lang::En) => "The game is over.".to_string(),
        ("suspended", Lang::De) => {
            "Die Partie ist ausgesetzt, bis der Turnierleiter entscheidet.".to_string()
        }
        ("suspended", Lang::En) => "The game is suspended until the director decides.".into(),
        ("adjourned", Lang::De) => {
            "Die Partie ist angehalten, der Turnierleiter schätzt sie ab.".to_string()
        }
        ("adjourned", Lang::En) => "The game is stopped for the director's adjudication.".into(),
        (_, Lang::De) if yours => "Sie sind am Zug.".to_string(),
        (_, Lang::En) if yours => "It is your move.".to_string(),
        (_, Lang::De) => format!("{} ist am Zug ({}).", c.to_move_name, colour(to_move, lang)),
        (_, Lang::En) => format!("{} is to move ({}).", c.to_move_name, colour(to_move, lang)),
    };
    let Some(last) = &c.last_move else {
        let none = match lang {
            Lang::De => "Noch kein Zug gespielt.",
            Lang::En => "No move has been played yet.",
        };
        return format!("{whose} {none}");
    };
    let last = last.trim_end_matches(['+', '#']);
    let after = match (position, lang) {
        (Some(p), Lang::De) if p.is_checkmate() => ", matt",
        (Some(p), Lang::En) if p.is_checkmate() => ", checkmate",
        (Some(p), Lang::De) if p.is_check() => ", Schach",
        (Some(p), Lang::En) if p.is_check() => ", check",
        (Some(p), Lang::De) if p.is_stalemate() => ", patt",
        (Some(p), Lang::En) if p.is_stalemate() => ", stalemate",
        _ => "",
    };
    match lang {
        Lang::De => format!("{whose} Letzter Zug: {last}{after}."),
        Lang::En => format!("{whose} Last move: {last}{after}."),
    }
}
