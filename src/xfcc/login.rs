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

use std::collections::{HashMap, VecDeque};
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

/// Failed logins counted per address and per client (its IP address): after
/// [`Limiter::PER_ADDRESS`] failures for one address, or [`Limiter::PER_CLIENT`] from one client,
/// within [`Limiter::WINDOW`], every login of that address or from that client fails until the
/// oldest failure is older than the window — right password or not.
#[derive(Debug, Default)]
pub struct Limiter {
    failures: HashMap<String, VecDeque<Instant>>,
}

impl Limiter {
    pub const WINDOW: Duration = Duration::from_secs(15 * 60);
    pub const PER_ADDRESS: usize = 5;
    pub const PER_CLIENT: usize = 20;
    /// Above this many keys, keys without a failure in the window are dropped.
    const KEYS: usize = 10_000;

    fn count(&mut self, key: &str, now: Instant) -> usize {
        match self.failures.get_mut(key) {
            Some(q) => {
                while q
                    .front()
                    .is_some_and(|t| now.duration_since(*t) > Self::WINDOW)
                {
                    q.pop_front();
                }
                q.len()
            }
            None => 0,
        }
    }

    /// Whether a login of `address` from `client` is refused without looking at its password.
    pub fn blocked(&mut self, address: &str, client: &str, now: Instant) -> bool {
        self.count(&format!("a:{}", address.to_lowercase()), now) >= Self::PER_ADDRESS
            || self.count(&format!("c:{client}"), now) >= Self::PER_CLIENT
    }

    /// Notes a failed login.
    pub fn failed(&mut self, address: &str, client: &str, now: Instant) {
        if self.failures.len() > Self::KEYS {
            self.failures.retain(|_, q| {
                q.back()
                    .is_some_and(|t| now.duration_since(*t) <= Self::WINDOW)
            });
        }
        for key in [
            format!("a:{}", address.to_lowercase()),
            format!("c:{client}"),
        ] {
            self.failures.entry(key).or_default().push_back(now);
        }
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

    #[test]
    fn failed_logins_block_the_address_and_the_client_for_the_window() {
        let mut l = Limiter::default();
        let t0 = Instant::now();
        for _ in 0..Limiter::PER_ADDRESS {
            assert!(!l.blocked("anna@x.test", "10.0.0.1", t0));
            l.failed("anna@x.test", "10.0.0.1", t0);
        }
        assert!(l.blocked("Anna@X.test", "10.0.0.2", t0), "the address");
        assert!(!l.blocked("bert@x.test", "10.0.0.2", t0));
        let later = t0 + Limiter::WINDOW + Duration::from_secs(1);
        assert!(
            !l.blocked("anna@x.test", "10.0.0.1", later),
            "the window passed"
        );
        for i in 0..Limiter::PER_CLIENT {
            l.failed(&format!("p{i}@x.test"), "10.0.0.9", later);
        }
        assert!(l.blocked("new@x.test", "10.0.0.9", later), "the client");
    }
}
