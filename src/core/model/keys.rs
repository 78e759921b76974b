//! [`Keys`]: the reply keys of every game — which key belongs to whom — looked up both ways;
//! [`KeyBinding`]: what one key stands for.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::game_ref::GameRef;

/// What a reply key stands for: a game and the player it was given to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeyBinding {
    pub game: GameRef,
    pub email: String,
    /// The key of the player's replies to decisions about the game (TO §18, §29): what comes
    /// through it goes to the director, never to the partner (`crate::core::director::desk`).
    /// The mails that carry a decision carry it instead of his key of the game.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub to_director: bool,
}

/// Every reply key and whom it binds (a player or the director, in one game), with the reverse
/// index: the key of a person in a game is found without looking at the others (the relay holds
/// three keys per game, hundreds of thousands in a federation's store).
///
/// ```
/// use fernzug::core::model::{KeyBinding, Keys};
/// let mut keys = Keys::default();
/// let game: fernzug::game_ref::GameRef = "T/1".parse().unwrap();
/// keys.insert("k1".into(), KeyBinding { game: game.clone(), email: "a@x.de".into(), to_director: false });
/// assert_eq!(keys.key_of(&game, "a@x.de"), Some("k1"));
/// assert_eq!(keys.get("k1").map(|b| b.email.as_str()), Some("a@x.de"));
/// ```
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(
    from = "BTreeMap<String, KeyBinding>",
    into = "BTreeMap<String, KeyBinding>"
)]
pub struct Keys {
    by_key: BTreeMap<String, KeyBinding>,
    /// (game, address) → the smallest key bound to them.
    by_holder: BTreeMap<(GameRef, String), String>,
    /// (game, address) → the smallest key of theirs that goes to the director
    /// (`KeyBinding::to_director`).
    to_director: BTreeMap<(GameRef, String), String>,
}

impl PartialEq for Keys {
    fn eq(&self, other: &Keys) -> bool {
        self.by_key == other.by_key
    }
}

impl From<BTreeMap<String, KeyBinding>> for Keys {
    fn from(by_key: BTreeMap<String, KeyBinding>) -> Keys {
        let mut keys = Keys::default();
        for (k, b) in by_key {
            keys.insert(k, b);
        }
        keys
    }
}

impl From<Keys> for BTreeMap<String, KeyBinding> {
    fn from(keys: Keys) -> BTreeMap<String, KeyBinding> {
        keys.by_key
    }
}

impl Keys {
    /// Binds `key` (bound before to another holder: moved).
    pub fn insert(&mut self, key: String, binding: KeyBinding) {
        if self.by_key.get(&key) == Some(&binding) {
            return;
        }
        if self.by_key.contains_key(&key) {
            self.remove(&key);
        }
        let holder = (binding.game.clone(), binding.email.clone());
        let index = if binding.to_director {
            &mut self.to_director
        } else {
            &mut self.by_holder
        };
        match index.get(&holder) {
            Some(k) if *k <= key => {}
            _ => {
                index.insert(holder, key.clone());
            }
        }
        self.by_key.insert(key, binding);
    }

    /// Unbinds `key` (its game was shelved: the shell keeps it in the store).
    pub fn remove(&mut self, key: &str) -> Option<KeyBinding> {
        let old = self.by_key.remove(key)?;
        let holder = (old.game.clone(), old.email.clone());
        let index = if old.to_director {
            &mut self.to_director
        } else {
            &mut self.by_holder
        };
        if index.get(&holder).is_some_and(|k| k == key) {
            index.remove(&holder);
            // Another key of the same holder and kind stands in (the smallest).
            if let Some((k, _)) = self.by_key.iter().find(|(_, b)| {
                b.game == holder.0 && b.email == holder.1 && b.to_director == old.to_director
            }) {
                let index = if old.to_director {
                    &mut self.to_director
                } else {
                    &mut self.by_holder
                };
                index.insert(holder, k.clone());
            }
        }
        Some(old)
    }

    pub fn get(&self, key: &str) -> Option<&KeyBinding> {
        self.by_key.get(key)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.by_key.contains_key(key)
    }

    /// The key of `email`'s replies to decisions about `game`, which go to the director.
    pub fn to_director_of(&self, game: &GameRef, email: &str) -> Option<&str> {
        self.to_director
            .get(&(game.clone(), email.to_string()))
            .map(String::as_str)
    }

    /// The key of `email` in `game`.
    pub fn key_of(&self, game: &GameRef, email: &str) -> Option<&str> {
        self.by_holder
            .get(&(game.clone(), email.to_string()))
            .map(String::as_str)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&String, &KeyBinding)> {
        self.by_key.iter()
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bind(game: &str, email: &str) -> KeyBinding {
        KeyBinding {
            game: game.parse().unwrap(),
            email: email.into(),
            to_director: false,
        }
    }

    #[test]
    fn a_key_bound_again_to_its_holder_changes_nothing_and_a_rebound_one_moves() {
        let game: GameRef = "T/1".parse().unwrap();
        let mut keys = Keys::default();
        keys.insert("k2".into(), bind("T/1", "a@x.de"));
        keys.insert("k1".into(), bind("T/1", "a@x.de"));
        assert_eq!(keys.key_of(&game, "a@x.de"), Some("k1"));
        // Read again from the store: the same binding.
        keys.insert("k1".into(), bind("T/1", "a@x.de"));
        keys.insert("k2".into(), bind("T/1", "a@x.de"));
        assert_eq!(keys.key_of(&game, "a@x.de"), Some("k1"));
        assert_eq!(keys.len(), 2);
        // Rebound to another player: the first one keeps his other key.
        keys.insert("k1".into(), bind("T/1", "b@x.de"));
        assert_eq!(keys.key_of(&game, "a@x.de"), Some("k2"));
        assert_eq!(keys.key_of(&game, "b@x.de"), Some("k1"));
        keys.insert("k2".into(), bind("T/1", "b@x.de"));
        assert_eq!(keys.key_of(&game, "a@x.de"), None);
        assert_eq!(keys.key_of(&game, "b@x.de"), Some("k1"));
    }
}
