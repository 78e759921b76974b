//! The rotated tournaments whose records the relay at work has not read ([`Away`]).

use std::collections::{BTreeSet, HashMap};

/// The rotated tournaments whose records the relay at work has not read, by id and by the id's
/// lower case (a letter names a tournament in any case, as the core reads it).
#[derive(Debug, Clone, Default)]
pub struct Away {
    /// By the id's lower case, the ids written so (never an empty list).
    ids: HashMap<String, Vec<String>>,
}

impl Away {
    pub(crate) fn new(rotated: BTreeSet<String>) -> Away {
        let mut away = Away::default();
        for id in rotated {
            away.ids
                .entry(id.to_ascii_lowercase())
                .or_default()
                .push(id);
        }
        away
    }

    pub(super) fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    pub(super) fn holds(&self, id: &str) -> bool {
        self.ids
            .get(&id.to_ascii_lowercase())
            .is_some_and(|ids| ids.iter().any(|x| x == id))
    }

    /// Takes `id` out, if it is away.
    pub(super) fn take(&mut self, id: &str) {
        let low = id.to_ascii_lowercase();
        if let Some(ids) = self.ids.get_mut(&low) {
            ids.retain(|x| x != id);
            if ids.is_empty() {
                self.ids.remove(&low);
            }
        }
    }

    /// The away ids `text` names, as the core reads a letter ([`crate::core::id_words`]).
    pub(super) fn named_in(&self, text: &str) -> Vec<String> {
        crate::core::id_words(text)
            .filter_map(|w| self.ids.get(&w.to_ascii_lowercase()))
            .flatten()
            .cloned()
            .collect()
    }

    pub(super) fn all(&self) -> Vec<String> {
        self.ids.values().flatten().cloned().collect()
    }
}
