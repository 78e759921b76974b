//! The instants of a game's moves in its record (`#[serde(with = "stamp")]`), in exactly the form
//! chrono's own serde writes — RFC 3339 in UTC with `Z`, a fraction only when there is one (3, 6
//! or 9 digits) — but written and read directly. A game's record holds two instants a move and
//! is read and written at every move; chrono's general formatter and parser took 4 % of the
//! relay's CPU in a burst (docs/performance.md). Whatever else chrono reads (an offset, a space
//! for the `T`, a leap second) is still read, by chrono.
//!
//! ```
//! use chrono::{TimeZone, Utc};
//! #[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
//! struct Move {
//!     #[serde(with = "fernzug::core::model::stamp")]
//!     sent: chrono::DateTime<Utc>,
//! }
//! let m = Move { sent: Utc.with_ymd_and_hms(2026, 3, 1, 9, 30, 0).unwrap() };
//! let json = serde_json::to_string(&m).unwrap();
//! assert_eq!(json, r#"{"sent":"2026-03-01T09:30:00Z"}"#);
//! assert_eq!(serde_json::from_str::<Move>(&json).unwrap(), m);
//! let offset: Move = serde_json::from_str(r#"{"sent":"2026-03-01T10:30:00+01:00"}"#).unwrap();
//! assert_eq!(offset, m);
//! ```

use std::fmt;

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, Timelike, Utc};
use serde::{Deserializer, Serialize, Serializer, de};

/// Writes `t` as chrono's serde would.
pub fn serialize<S: Serializer>(t: &DateTime<Utc>, s: S) -> Result<S::Ok, S::Error> {
    let mut buf = [0u8; 32];
    match write(t, &mut buf) {
        Some(n) => {
            s.serialize_str(std::str::from_utf8(&buf[..n]).map_err(serde::ser::Error::custom)?)
        }
        None => t.serialize(s),
    }
}

/// Reads an instant as chrono's serde would.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    d.deserialize_str(Visitor)
}

struct Visitor;

impl de::Visitor<'_> for Visitor {
    type Value = DateTime<Utc>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an RFC 3339 date and time")
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<DateTime<Utc>, E> {
        match read(s) {
            Some(t) => Ok(t),
            None => s
                .parse::<DateTime<FixedOffset>>()
                .map(|t| t.with_timezone(&Utc))
                .map_err(E::custom),
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS[.fff|.ffffff|.fffffffff]Z` into `buf`: its length, or `None` for what
/// only chrono writes (a year outside 0–9999, a leap second).
fn write(t: &DateTime<Utc>, buf: &mut [u8; 32]) -> Option<usize> {
    let year = u32::try_from(t.year()).ok().filter(|y| *y <= 9999)?;
    let nanos = t.nanosecond();
    if nanos >= 1_000_000_000 {
        return None;
    }
    let mut digits = |at: usize, value: u32, len: usize| {
        let mut v = value;
        for i in (at..at + len).rev() {
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    };
    digits(0, year, 4);
    digits(5, t.month(), 2);
    digits(8, t.day(), 2);
    digits(11, t.hour(), 2);
    digits(14, t.minute(), 2);
    digits(17, t.second(), 2);
    let (fraction, len) = match nanos {
        0 => (0, 0),
        _ if nanos.is_multiple_of(1_000_000) => (nanos / 1_000_000, 3),
        _ if nanos.is_multiple_of(1_000) => (nanos / 1_000, 6),
        _ => (nanos, 9),
    };
    digits(20, fraction, len);
    for (at, c) in [(4, b'-'), (7, b'-'), (10, b'T'), (13, b':'), (16, b':')] {
        buf[at] = c;
    }
    let end = if len == 0 {
        19
    } else {
        buf[19] = b'.';
        20 + len
    };
    buf[end] = b'Z';
    Some(end + 1)
}

/// The form [`write`] writes (any fraction of 1–9 digits), or `None`.
fn read(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    let num = |from: usize, len: usize| -> Option<u32> {
        b.get(from..from + len)?.iter().try_fold(0u32, |v, d| {
            d.is_ascii_digit().then(|| v * 10 + u32::from(d - b'0'))
        })
    };
    let at = |i: usize, c: u8| b.get(i) == Some(&c);
    if !(at(4, b'-') && at(7, b'-') && at(10, b'T') && at(13, b':') && at(16, b':')) {
        return None;
    }
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    let (nanos, end) = if at(19, b'.') {
        let digits = b[20..].iter().take_while(|d| d.is_ascii_digit()).count();
        if !(1..=9).contains(&digits) {
            return None;
        }
        (num(20, digits)? * 10u32.pow(9 - digits as u32), 20 + digits)
    } else {
        (0, 19)
    };
    if b.len() != end + 1 || !at(end, b'Z') {
        return None;
    }
    Some(
        NaiveDate::from_ymd_opt(i32::try_from(year).ok()?, month, day)?
            .and_hms_nano_opt(hour, minute, second, nanos)?
            .and_utc(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
    struct Ours(#[serde(with = "super")] DateTime<Utc>);

    proptest! {
        /// Written byte for byte as chrono writes it, and read back, whatever the fraction.
        #[test]
        fn an_instant_is_written_as_chrono_writes_it_and_read_back(
            secs in -62_000_000_000i64..253_402_300_799i64,
            nanos in prop_oneof![Just(0u32), 0u32..1000, (0u32..1000).prop_map(|m| m * 1_000_000), (0u32..1_000_000).prop_map(|u| u * 1000), 0u32..1_000_000_000],
        ) {
            let t = DateTime::from_timestamp(secs, nanos).unwrap();
            let chrono = serde_json::to_string(&t).unwrap();
            let ours = serde_json::to_string(&Ours(t)).unwrap();
            prop_assert_eq!(&ours, &chrono);
            prop_assert_eq!(serde_json::from_str::<Ours>(&chrono).unwrap(), Ours(t));
        }
    }

    #[test]
    fn what_only_chrono_reads_is_read_by_chrono_and_nonsense_is_refused() {
        let t = |s: &str| serde_json::from_str::<Ours>(&format!("\"{s}\"")).map(|o| o.0);
        let nine = DateTime::parse_from_rfc3339("2026-03-01T09:00:00Z").unwrap();
        assert_eq!(t("2026-03-01T10:00:00+01:00").unwrap(), nine);
        assert_eq!(t("2026-03-01 09:00:00Z").unwrap(), nine);
        assert_eq!(
            t("2026-03-01T09:00:00.5Z").unwrap().nanosecond(),
            500_000_000
        );
        assert!(t("2026-02-30T09:00:00Z").is_err());
        assert!(t("2026-03-01T09:00:00").is_err());
        assert!(t("yesterday").is_err());
        // A year beyond 9999 is written by chrono, and read back.
        let far = DateTime::from_timestamp(300_000_000_000, 0).unwrap();
        let json = serde_json::to_string(&Ours(far)).unwrap();
        assert_eq!(json, serde_json::to_string(&far).unwrap());
        assert_eq!(serde_json::from_str::<Ours>(&json).unwrap().0, far);
    }
}
