//! An address belongs to one person (docs/security.md, "An address belongs to one person").
//!
//! Every address a tournament names has an owner there: the director's address is the
//! director's, a player's own address is his, and each of his other addresses (`also`, or one
//! the director added) is his too — the owner being named by the player's own address. The relay
//! reads a mail from an address as its owner's, in every tournament: so no tournament may name
//! an address as someone else's than another tournament does. A tournament file (by mail or
//! `tournament add`) and the director's `Adresse:` / `Weitere Adresse:` are held to that one
//! check, here; and an address that is anyone's own (a player's or a director's) is never read
//! as another player's (`State::registered_as`).

use crate::core::NewTournament;
use crate::core::model::{State, Tournament};

/// An address another tournament gives to someone else.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Taken {
    /// The address.
    pub address: String,
    /// The tournament that gives it to someone else.
    pub tournament: String,
    /// Whose it is there: the director's or the player's own address.
    pub owner: String,
}

/// Whose `address` is in `t`: the director's address, a player's own address (for his own and
/// for each of his other addresses); `None` when `t` does not name it.
pub fn owner_in<'t>(t: &'t Tournament, address: &str) -> Option<&'t str> {
    if t.director.email == address {
        return Some(t.director.email.as_str());
    }
    t.players
        .iter()
        .find(|p| p.email == address || p.also.iter().any(|a| a == address))
        .map(|p| p.email.as_str())
}

/// The first tournament (other than `except`) in which `address` is someone else's than
/// `owner`'s.
pub fn taken(state: &State, address: &str, owner: &str, except: Option<&str>) -> Option<Taken> {
    state
        .tournaments_with(address)
        .filter(|t| Some(t.id.as_str()) != except)
        .find_map(|t| {
            let other = owner_in(t, address)?;
            (other != owner).then(|| Taken {
                address: address.to_string(),
                tournament: t.id.clone(),
                owner: other.to_string(),
            })
        })
}

/// Every address of the tournament file `file` that another tournament gives to someone else
/// (each once): a file that names one is refused, whoever sends it.
pub fn file_conflicts(state: &State, file: &NewTournament) -> Vec<Taken> {
    let director = file.director.email.to_lowercase();
    let mut named: Vec<(String, String)> = vec![(director.clone(), director)];
    for p in &file.players {
        let own = p.email.to_lowercase();
        named.push((own.clone(), own.clone()));
        named.extend(p.also.iter().map(|a| (a.to_lowercase(), own.clone())));
    }
    let mut out: Vec<Taken> = Vec::new();
    for (address, owner) in named {
        if out.iter().any(|t| t.address == address) {
            continue;
        }
        if let Some(t) = taken(state, &address, &owner, Some(&file.id)) {
            out.push(t);
        }
    }
    out
}

/// The addresses of all tournaments an address list must be checked against: those a file
/// names (its director's, its players' own and other addresses), lower-cased.
pub fn addresses_of(file: &NewTournament) -> Vec<String> {
    let mut out = vec![file.director.email.to_lowercase()];
    for p in &file.players {
        out.push(p.email.to_lowercase());
        out.extend(p.also.iter().map(|a| a.to_lowercase()));
    }
    out
}
