//! [`GameRef`]: the name of one game, `TOURNAMENT/N` (e.g. `FAX-2026-3/7`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

/// A game's reference: the tournament id and the game number within it.
///
/// ```
/// use fernzug::game_ref::GameRef;
/// let g: GameRef = "FAX-2026-3/7".parse().unwrap();
/// assert_eq!(g.tournament, "FAX-2026-3");
/// assert_eq!(g.number, 7);
/// assert_eq!(g.to_string(), "FAX-2026-3/7");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct GameRef {
    pub tournament: String,
    pub number: u32,
}

impl GameRef {
    pub fn new(tournament: impl Into<String>, number: u32) -> GameRef {
        GameRef {
            tournament: tournament.into(),
            number,
        }
    }

    /// The path of the game's page on the relay's pages (`crate::pages`): `/g/FAX-2026-3/7`.
    pub fn page_path(&self) -> String {
        format!("/g/{self}")
    }
}

/// The path of a tournament's page on the relay's pages (`crate::pages`): `/t/FAX-2026-3`.
pub fn tournament_page_path(id: &str) -> String {
    format!("/t/{id}")
}

/// Why a text is not a game reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a game reference of the form TOURNAMENT/N (e.g. FAX-2026-3/7)")]
pub struct ParseGameRefError(pub String);

/// Whether `id` is a valid tournament id: letters, digits and `-`, not empty.
pub fn valid_tournament_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

impl FromStr for GameRef {
    type Err = ParseGameRefError;
    fn from_str(s: &str) -> Result<GameRef, ParseGameRefError> {
        let err = || ParseGameRefError(s.to_string());
        let (t, n) = s.trim().split_once('/').ok_or_else(err)?;
        if !valid_tournament_id(t) || n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) {
            return Err(err());
        }
        let number: u32 = n.parse().map_err(|_| err())?;
        if number == 0 {
            return Err(err());
        }
        Ok(GameRef::new(t, number))
    }
}

impl fmt::Display for GameRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.tournament, self.number)
    }
}

/// Written as its name, `TOURNAMENT/N`.
impl Serialize for GameRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Read from its name, parsed where it lies (a tournament's record names each of its games: no
/// string is made for a name only to be parsed).
impl<'de> Deserialize<'de> for GameRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<GameRef, D::Error> {
        struct Name;
        impl de::Visitor<'_> for Name {
            type Value = GameRef;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a game reference of the form TOURNAMENT/N")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<GameRef, E> {
                s.parse().map_err(E::custom)
            }
        }
        d.deserialize_str(Name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_game_ref_is_written_and_read_as_its_name() {
        let g = GameRef::new("FAX-2026-3", 7);
        assert_eq!(serde_json::to_string(&g).unwrap(), r#""FAX-2026-3/7""#);
        let back: GameRef = serde_json::from_str(r#""FAX-2026-3/7""#).unwrap();
        assert_eq!(back, g);
        // Escaped in the JSON (not borrowed from it), and as a map's key.
        let escaped: GameRef = serde_json::from_str(r#""FAX-2026-3\u002f7""#).unwrap();
        assert_eq!(escaped, g);
        let map: std::collections::BTreeMap<GameRef, u8> =
            serde_json::from_str(r#"{"FAX-2026-3/7": 1}"#).unwrap();
        assert_eq!(map.get(&g), Some(&1));
        assert_eq!(
            serde_json::to_string(&map).unwrap(),
            r#"{"FAX-2026-3/7":1}"#
        );
    }

    #[test]
    fn a_bad_name_is_refused_with_what_was_wrong() {
        for bad in [r#""FAX-2026-3""#, r#""FAX/0""#, r#""/7""#, "7"] {
            let err = serde_json::from_str::<GameRef>(bad)
                .unwrap_err()
                .to_string();
            assert!(err.contains("TOURNAMENT/N"), "{bad}: {err}");
        }
    }
}
