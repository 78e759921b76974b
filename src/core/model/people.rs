//! [`People`]: which tournaments an address appears in, so that knowing a sender (a player, a
//! director, one of a player's other addresses) does not mean looking through every tournament
//! the relay ever registered.

use std::collections::HashMap;
use std::sync::Arc;

use crate::core::model::Tournament;

/// Every address of the tournaments — a director's, a player's own, a player's other ones
/// (`Player::also`) — with the ids of the tournaments it appears in, in id order (the order in
/// which the state keeps its tournaments, so a lookup through the index finds what a look
/// through every tournament would find first). Small: most addresses appear in one or two
/// tournaments, and a tournament's id is kept once for all its addresses.
///
/// It is derived from the tournaments and kept beside them by [`State`](super::State)
/// (`add_tournament`, `note_address`); never stored.
///
/// ```
/// use fernzug::core::model::People;
///
/// let mut people = People::default();
/// people.note("anna@example.org", "T2");
/// people.note("anna@example.org", "T1");
/// let ids: Vec<&str> = people.tournaments_of("anna@example.org").collect();
/// assert_eq!(ids, ["T1", "T2"]);
/// assert_eq!(people.tournaments_of("bert@example.org").count(), 0);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct People(HashMap<Box<str>, Vec<Arc<str>>>);

impl People {
    /// Notes that `address` appears in tournament `id`.
    pub fn note(&mut self, address: &str, id: &str) {
        self.note_shared(address, &Arc::from(id));
    }

    /// Notes that `address` appears in tournament `id`, sharing the id's text.
    fn note_shared(&mut self, address: &str, id: &Arc<str>) {
        let ids = match self.0.get_mut(address) {
            Some(ids) => ids,
            None => self.0.entry(Box::from(address)).or_default(),
        };
        if let Err(at) = ids.binary_search_by(|t| (**t).cmp(&**id)) {
            ids.insert(at, Arc::clone(id));
        }
    }

    /// Notes every address of `t`.
    pub fn note_tournament(&mut self, t: &Tournament) {
        let id: Arc<str> = Arc::from(t.id.as_str());
        for a in addresses(t) {
            self.note_shared(a, &id);
        }
    }

    /// Forgets tournament `t`'s addresses (before it is replaced by another version of it).
    pub fn forget_tournament(&mut self, t: &Tournament) {
        for a in addresses(t) {
            if let Some(ids) = self.0.get_mut(a) {
                ids.retain(|id| **id != *t.id);
                if ids.is_empty() {
                    self.0.remove(a);
                }
            }
        }
    }

    /// The ids of the tournaments `address` appears in, in id order.
    pub fn tournaments_of<'a>(&'a self, address: &str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .get(address)
            .into_iter()
            .flat_map(|ids| ids.iter().map(|id| &**id))
    }

    /// The index as a fresh look through `tournaments` would build it.
    pub fn of<'a>(tournaments: impl IntoIterator<Item = &'a Tournament>) -> People {
        let mut people = People::default();
        for t in tournaments {
            people.note_tournament(t);
        }
        people
    }
}

/// Every address tournament `t` names: its director's, each player's own and other ones.
pub fn addresses(t: &Tournament) -> impl Iterator<Item = &str> {
    std::iter::once(t.director.email.as_str()).chain(
        t.players.iter().flat_map(|p| {
            std::iter::once(p.email.as_str()).chain(p.also.iter().map(String::as_str))
        }),
    )
}
