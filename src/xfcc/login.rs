//! XFCC passwords and the limit on failed logins.
//!
//! A password is 30 characters drawn from 32 (150 bits of randomness), written in six groups of
//! five (`k7qmz-…`) for whoever types it. The relay keeps only a salted SHA-256 of it
//! ([`Credential`]); a fast hash is enough for a secret that long, which no one can guess by
//! trying (docs/xfcc.md). Case, dashes and blanks do not matter when it is typed back.
//!
//! ```
//! use fernzug::xfcc::login::{Credential, new_password};
//! let mut rng = rand::thread_rng();
//! let pw = new_password(&mut rng);
//! assert_eq!(pw.len(), 35);
//! let c = Credential::of(&pw, &mut rng);
//! assert!(c.verify(&pw.to_uppercase().replace('-', " ")));
//! assert!(!c.verify("k7qmz"));
//! ```

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::net::IpAddr;
use std::time::{Duration, Instant};

use rand::Rng;
use serde::{Deserialize, Serialize};

use crate::letter::digest::{hex, sha256};

/// The alphabet: digits and lower-case letters without `i`, `l`, `o`, `u`.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
const GROUPS: usize = 6;
const GROUP: usize = 5;

/// A fresh password: 150 bits from `rng`.
pub fn new_password(rng: &mut impl Rng) -> String {
    let mut out = String::with_capacity(GROUPS * (GROUP + 1));
    for g in 0..GROUPS {
        if g > 0 {
            out.push('-');
        }
        for _ in 0..GROUP {
            out.push(ALPHABET[rng.gen_range(0..ALPHABET.len())] as char);
        }
    }
    out
}

/// The password as compared: lower case, without dashes and blanks.
fn normalized(password: &str) -> String {
    password
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// What the relay keeps of a player's XFCC password.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credential {
    /// 16 random bytes, hex.
    pub salt: String,
    /// SHA-256 of `fernzug-xfcc-1`, 0, the salt, 0, the normalised password; hex.
    pub hash: String,
}

impl Credential {
    /// The credential of `password` under a fresh salt.
    pub fn of(password: &str, rng: &mut impl Rng) -> Credential {
        let salt: [u8; 16] = rng.r#gen();
        let salt = hex(&salt);
        let hash = digest(&salt, password);
        Credential { salt, hash }
    }

    /// Whether `password` is the one this credential was made of (compared in constant time).
    pub fn verify(&self, password: &str) -> bool {
        let got = digest(&self.salt, password);
        got.len() == self.hash.len()
            && got
                .bytes()
                .zip(self.hash.bytes())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

fn digest(salt: &str, password: &str) -> String {
    let mut data = Vec::with_capacity(64);
    data.extend_from_slice(b"fernzug-xfcc-1\0");
    data.extend_from_slice(salt.as_bytes());
    data.push(0);
    data.extend_from_slice(normalized(password).as_bytes());
    hex(&sha256(&data))
}

/// Failed logins counted per client (its IP address, `crate::http::client_key`) and user name,
/// and per client: after [`Limiter::PER_ADDRESS`] failures of one user name from one client, or
/// [`Limiter::PER_CLIENT`] from one client in all, within [`Limiter::WINDOW`], every login of that
/// user name from that client (or every login from that client) fails until the oldest failure
/// is older than the window — right password or not. Another client's logins of the same name
/// are not refused: one who knows a player's address cannot lock him out. Each table keeps at
/// most [`Limiter::KEYS`] keys (the one whose last failure is the oldest goes first), and a user
/// name is used as a key by its first [`Limiter::NAME_BYTES`] bytes.
#[derive(Debug, Default)]
pub struct Limiter {
    pairs: Failures<(IpAddr, String)>,
    clients: Failures<IpAddr>,
}

impl Limiter {
    pub const WINDOW: Duration = Duration::from_secs(15 * 60);
    pub const PER_ADDRESS: usize = 5;
    pub const PER_CLIENT: usize = 20;
    /// At most this many keys in each table.
    pub const KEYS: usize = 10_000;
    /// A user name is counted by this many bytes of it, lower case (an address has at most 254).
    pub const NAME_BYTES: usize = 254;

    fn pair(address: &str, client: IpAddr) -> (IpAddr, String) {
        let mut name = address.to_lowercase();
        if name.len() > Self::NAME_BYTES {
            let mut end = Self::NAME_BYTES;
            while !name.is_char_boundary(end) {
                end -= 1;
            }
            name.truncate(end);
        }
        (crate::http::client_key(client), name)
    }

    /// Whether a login of `address` from `client` is refused without looking at its password.
    pub fn blocked(&mut self, address: &str, client: IpAddr, now: Instant) -> bool {
        self.pairs.count(&Self::pair(address, client), now) >= Self::PER_ADDRESS
            || self.clients.count(&crate::http::client_key(client), now) >= Self::PER_CLIENT
    }

    /// Notes a failed login.
    pub fn failed(&mut self, address: &str, client: IpAddr, now: Instant) {
        self.pairs.failed(Self::pair(address, client), now);
        self.clients.failed(crate::http::client_key(client), now);
    }

    /// The keys kept (of both tables).
    pub fn keys(&self) -> usize {
        self.pairs.keys.len() + self.clients.keys.len()
    }
}

/// Failures by key within the window, at most [`Limiter::KEYS`] keys: a full table lets go of
/// the key whose last failure is the oldest.
#[derive(Debug)]
struct Failures<K> {
    /// Each key's failures in the window (oldest first) and the stamp of its last one.
    keys: HashMap<K, (VecDeque<Instant>, u64)>,
    /// The keys by the stamp of their last failure.
    order: BTreeMap<u64, K>,
    stamp: u64,
}

impl<K> Default for Failures<K> {
    fn default() -> Self {
        Failures {
            keys: HashMap::new(),
            order: BTreeMap::new(),
            stamp: 0,
        }
    }
}

impl<K: std::hash::Hash + Eq + Clone> Failures<K> {
    fn count(&mut self, key: &K, now: Instant) -> usize {
        match self.keys.get_mut(key) {
            Some((q, _)) => {
                while q
                    .front()
                    .is_some_and(|t| now.saturating_duration_since(*t) > Limiter::WINDOW)
                {
                    q.pop_front();
                }
                q.len()
            }
            None => 0,
        }
    }

    fn failed(&mut self, key: K, now: Instant) {
        self.stamp += 1;
        if let Some((q, stamp)) = self.keys.get_mut(&key) {
            q.push_back(now);
            // At most the failures that can block.
            while q.len() > Limiter::PER_CLIENT {
                q.pop_front();
            }
            self.order.remove(stamp);
            *stamp = self.stamp;
            self.order.insert(self.stamp, key);
            return;
        }
        while self.keys.len() >= Limiter::KEYS {
            let Some((_, oldest)) = self.order.pop_first() else {
                break;
            };
            self.keys.remove(&oldest);
        }
        self.order.insert(self.stamp, key.clone());
        self.keys.insert(key, (VecDeque::from([now]), self.stamp));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn passwords_carry_150_bits_and_differ() {
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let a = new_password(&mut rng);
        let b = new_password(&mut rng);
        assert_ne!(a, b);
        assert_eq!(normalized(&a).len(), 30, "30 characters of 5 bits each");
        assert!(normalized(&a).bytes().all(|c| ALPHABET.contains(&c)));
        let c = Credential::of(&a, &mut rng);
        assert!(c.verify(&a));
        assert!(!c.verify(&b));
        assert!(!c.hash.contains(&normalized(&a)), "kept only as a hash");
        // The same password under another salt hashes differently.
        assert_ne!(Credential::of(&a, &mut rng).hash, c.hash);
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn failed_logins_block_the_name_from_that_client_and_the_client_for_the_window() {
        let mut l = Limiter::default();
        let t0 = Instant::now();
        for _ in 0..Limiter::PER_ADDRESS {
            assert!(!l.blocked("anna@x.test", ip("10.0.0.1"), t0));
            l.failed("anna@x.test", ip("10.0.0.1"), t0);
        }
        assert!(
            l.blocked("Anna@X.test", ip("10.0.0.1"), t0),
            "the name, that client"
        );
        assert!(
            !l.blocked("anna@x.test", ip("10.0.0.2"), t0),
            "another client logs in as Anna: one who knows her address cannot lock her out"
        );
        assert!(!l.blocked("bert@x.test", ip("10.0.0.1"), t0));
        let later = t0 + Limiter::WINDOW + Duration::from_secs(1);
        assert!(
            !l.blocked("anna@x.test", ip("10.0.0.1"), later),
            "the window passed"
        );
        for i in 0..Limiter::PER_CLIENT {
            l.failed(&format!("p{i}@x.test"), ip("10.0.0.9"), later);
        }
        assert!(l.blocked("new@x.test", ip("10.0.0.9"), later), "the client");
        assert!(!l.blocked("new@x.test", ip("10.0.0.8"), later));
    }

    #[test]
    fn an_ipv6_client_is_counted_by_its_64() {
        let mut l = Limiter::default();
        let t0 = Instant::now();
        for i in 0..Limiter::PER_ADDRESS {
            l.failed("anna@x.test", ip(&format!("2001:db8:1:2::{i:x}")), t0);
        }
        assert!(l.blocked("anna@x.test", ip("2001:db8:1:2:ffff::1"), t0));
        assert!(!l.blocked("anna@x.test", ip("2001:db8:1:3::1"), t0));
    }

    #[test]
    fn long_names_are_one_key_and_the_tables_stay_bounded() {
        let mut l = Limiter::default();
        let t0 = Instant::now();
        // Names alike in their first 254 bytes are one name: a 64 KB name is a 254-byte key.
        let long = "a".repeat(64 * 1024);
        for i in 0..Limiter::PER_ADDRESS {
            l.failed(&format!("{}{i}", &long[..300]), ip("10.0.0.1"), t0);
        }
        assert!(l.blocked(&long, ip("10.0.0.1"), t0));
        assert!(
            l.pairs
                .keys
                .keys()
                .all(|(_, n)| n.len() <= Limiter::NAME_BYTES),
            "keys of at most 254 bytes"
        );
        // A multi-byte character at the cut is not split.
        let wide = "ä".repeat(200);
        l.failed(&wide, ip("10.0.0.1"), t0);
        assert!(
            l.pairs
                .keys
                .keys()
                .any(|(_, n)| n.len() == 254 && n.starts_with('ä'))
        );
        // Many clients and names: at most KEYS each; the oldest go first.
        let mut l = Limiter::default();
        for i in 0..(Limiter::KEYS + 500) as u32 {
            let client = IpAddr::V4(std::net::Ipv4Addr::from(0x0a00_0000 + i));
            l.failed(&format!("p{i}@x.test"), client, t0);
        }
        assert_eq!(l.keys(), 2 * Limiter::KEYS);
        assert_eq!(l.clients.count(&ip("10.0.0.0"), t0), 0, "the oldest let go");
        let last = IpAddr::V4(std::net::Ipv4Addr::from(
            0x0a00_0000 + Limiter::KEYS as u32 + 499,
        ));
        assert_eq!(l.clients.count(&last, t0), 1, "the newest kept");
        // A key that fails again is the newest: it is kept when others come.
        let mut l = Limiter::default();
        l.failed("anna@x.test", ip("10.9.9.9"), t0);
        for i in 0..(Limiter::KEYS - 1) as u32 {
            let client = IpAddr::V4(std::net::Ipv4Addr::from(0x0b00_0000 + i));
            l.failed("x@x.test", client, t0);
        }
        l.failed("anna@x.test", ip("10.9.9.9"), t0);
        l.failed("x@x.test", ip("12.0.0.1"), t0);
        assert_eq!(l.clients.count(&ip("10.9.9.9"), t0), 2);
        assert_eq!(l.clients.count(&ip("11.0.0.0"), t0), 0);
    }
}
