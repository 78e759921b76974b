//! [`Form`]: the notation form families the relay reads and writes (TO §2, §3), and the
//! piece letters of each alphabet.

use serde::{Deserialize, Serialize};
use shakmaty::Role;

use crate::lang::Lang;

/// The notation form family a move was written in (TO §3).
///
/// The relay remembers each player's form per game and writes to him in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Form {
    /// Short algebraic with English piece letters: `Nf3`, `exd5`, `e8=Q`, `O-O`.
    SanEnglish,
    /// Short algebraic with German piece letters: `Sf3`, `exd5`, `e8D`, `O-O`.
    SanGerman,
    /// Long algebraic with English piece letters: `Ng1-f3`, `e2-e4`, `Nf6xe4`.
    LongEnglish,
    /// Long algebraic with German piece letters: `Sg1-f3`, `e2-e4`, `Sf6xe4`.
    LongGerman,
    /// ICCF numeric: `5254`, castling as the king's move `5171`, promotion digit `77781`.
    Iccf,
    /// UCI: `e2e4`, `e7e8q`, castling as the king's move `e1g1`.
    Uci,
}

impl Form {
    /// Every form, in a fixed order.
    pub const ALL: [Form; 6] = [
        Form::SanEnglish,
        Form::SanGerman,
        Form::LongEnglish,
        Form::LongGerman,
        Form::Iccf,
        Form::Uci,
    ];

    /// The form the relay writes in before a player has sent a move (TO §3 interpretation
    /// in docs/rules.md): German short algebraic for `de`, English short algebraic for `en`.
    pub fn default_for(lang: Lang) -> Form {
        match lang {
            Lang::De => Form::SanGerman,
            Lang::En => Form::SanEnglish,
        }
    }

    /// The alphabet of the form's piece letters: German (`K D T L S`), English (`K Q R B N`), or
    /// none (ICCF numeric, UCI).
    pub fn alphabet(self) -> Option<Lang> {
        match self {
            Form::SanGerman | Form::LongGerman => Some(Lang::De),
            Form::SanEnglish | Form::LongEnglish => Some(Lang::En),
            Form::Iccf | Form::Uci => None,
        }
    }
}

/// The English piece letter of a role (`K Q R B N`, `P` for a pawn).
pub(crate) fn english_letter(role: Role) -> char {
    match role {
        Role::King => 'K',
        Role::Queen => 'Q',
        Role::Rook => 'R',
        Role::Bishop => 'B',
        Role::Knight => 'N',
        Role::Pawn => 'P',
    }
}

/// The German piece letter of a role (`K D T L S`; `B` for Bauer only where a piece must be
/// named, e.g. a drop — moves never give the pawn a letter).
pub(crate) fn german_letter(role: Role) -> char {
    match role {
        Role::King => 'K',
        Role::Queen => 'D',
        Role::Rook => 'T',
        Role::Bishop => 'L',
        Role::Knight => 'S',
        Role::Pawn => 'B',
    }
}

/// The piece letter of a role in the alphabet of `lang`: the one table of piece letters
/// (the pages and the words of queries use it too).
pub fn letter(role: Role, lang: Lang) -> char {
    match lang {
        Lang::De => german_letter(role),
        Lang::En => english_letter(role),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s3_default_form_follows_language() {
        assert_eq!(Form::default_for(Lang::De), Form::SanGerman);
        assert_eq!(Form::default_for(Lang::En), Form::SanEnglish);
    }

    #[test]
    fn s3_every_form_has_distinct_names() {
        for lang in [Lang::De, Lang::En] {
            let mut names: Vec<&str> = Form::ALL.iter().map(|f| f.name(lang)).collect();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), Form::ALL.len());
        }
        assert_eq!(Form::SanGerman.name(Lang::De), "deutsche Kurznotation");
        assert_eq!(Form::Iccf.name(Lang::En), "ICCF numeric");
    }
}
