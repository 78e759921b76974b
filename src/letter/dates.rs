//! Dates and spans as players write them (TO §14, §24): `30.11.2026`, `30.11.26`,
//! `30.11.`, `30.11`, `2026-11-30`, `30. Nov. 2026`, `30. November 2026`,
//! `Nov 30, 2026`, `30 Nov 2026`, `30/11/2026`, optionally after a weekday.

use std::sync::LazyLock;

use regex::Regex;

use super::types::{DateSpan, StatedDate};

const MONTHS: &str = "jan(?:uar|uary)?|jän(?:ner)?|feb(?:ruar|ruary)?|mär(?:z)?|maerz|mar(?:ch)?|apr(?:il)?|mai|may|jun[ei]?|jul[iy]?|aug(?:ust)?|sept?(?:ember)?|o[ck]t(?:ober)?|nov(?:ember)?|de[cz](?:ember)?";

const WEEKDAY: &str = r"(?:(?:mo|di|mi|do|fr|sa|so|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag|monday|tuesday|wednesday|thursday|friday|saturday|sunday),?\s+";

static ISO: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d{4})-(\d{1,2})-(\d{1,2})\b").expect("valid regex"));
static DOTTED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{1,2})\.\s?(\d{1,2})(?:\.\s?(\d{4}|\d{2})?)?(?:\b|$)").expect("valid regex")
});
static SLASHED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\d{1,2})/(\d{1,2})/(\d{4}|\d{2})\b").expect("valid regex"));
static DAY_MONTH: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)^(\d{{1,2}})\.?\s*({MONTHS})\b\.?(?:\s*(\d{{4}})\b)?"
    ))
    .expect("valid regex")
});
static MONTH_DAY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(&format!(
        r"(?i)^({MONTHS})\b\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s*(\d{{4}})\b)?"
    ))
    .expect("valid regex")
});
static WEEKDAY_PREFIX: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&format!(r"(?i)^{WEEKDAY}")).expect("valid regex"));

fn month_number(name: &str) -> Option<u32> {
    let n = name.to_lowercase();
    let n = n.as_str();
    Some(if n.starts_with("jan") || n.starts_with("jän") {
        1
    } else if n.starts_with("feb") {
        2
    } else if n.starts_with("mär") || n.starts_with("mar") || n.starts_with("mae") {
        3
    } else if n.starts_with("apr") {
        4
    } else if n.starts_with("mai") || n.starts_with("may") {
        5
    } else if n.starts_with("jun") {
        6
    } else if n.starts_with("jul") {
        7
    } else if n.starts_with("aug") {
        8
    } else if n.starts_with("sep") {
        9
    } else if n.starts_with("okt") || n.starts_with("oct") {
        10
    } else if n.starts_with("nov") {
        11
    } else if n.starts_with("dez") || n.starts_with("dec") {
        12
    } else {
        return None;
    })
}

fn year_of(s: Option<&str>) -> Option<Option<i32>> {
    match s {
        None => Some(None),
        Some(y) if y.len() == 2 => Some(Some(2000 + y.parse::<i32>().ok()?)),
        Some(y) => Some(Some(y.parse().ok()?)),
    }
}

fn make(day: &str, month: u32, year: Option<i32>) -> Option<StatedDate> {
    let day: u32 = day.parse().ok()?;
    ((1..=31).contains(&day) && (1..=12).contains(&month)).then_some(StatedDate {
        day,
        month,
        year,
    })
}

/// Reads a date at the start of `s`; returns it and the rest of `s` after it.
pub fn parse_date_prefix(s: &str) -> Option<(StatedDate, &str)> {
    let s = s.trim_start();
    // A weekday and a month open with a letter, every other form with a digit (`\d`: any
    // decimal digit, which `char::is_numeric` includes); the patterns that cannot match are not
    // asked.
    let opens_with = |s: &str, f: fn(char) -> bool| s.chars().next().is_some_and(f);
    let s = if opens_with(s, char::is_alphabetic) {
        WEEKDAY_PREFIX.find(s).map_or(s, |m| &s[m.end()..])
    } else {
        s
    };
    if !opens_with(s, char::is_numeric) {
        if !opens_with(s, char::is_alphabetic) {
            return None;
        }
        let c = MONTH_DAY.captures(s)?;
        let month = month_number(c.get(1)?.as_str())?;
        let d = make(
            c.get(2)?.as_str(),
            month,
            year_of(c.get(3).map(|m| m.as_str()))?,
        )?;
        return Some((d, &s[c.get(0)?.end()..]));
    }
    // What follows the first digit or two: each form asks for its own sign there (a `\d` is
    // one character, and no sign below is numeric).
    let mut after = s.chars().skip_while(|c| c.is_numeric());
    let digits = s.chars().take_while(|c| c.is_numeric()).count();
    let sign = after.next();
    let short = (1..=2).contains(&digits);
    if digits == 4
        && sign == Some('-')
        && let Some(c) = ISO.captures(s)
    {
        let month = c.get(2)?.as_str().parse().ok()?;
        let year = c.get(1)?.as_str().parse().ok()?;
        let d = make(c.get(3)?.as_str(), month, Some(year))?;
        return Some((d, &s[c.get(0)?.end()..]));
    }
    let month_follows = || {
        s.chars()
            .skip(digits)
            .skip_while(|&c| c == '.')
            .find(|c| !c.is_whitespace())
            .is_some_and(char::is_alphabetic)
    };
    if short
        && month_follows()
        && let Some(c) = DAY_MONTH.captures(s)
    {
        let month = month_number(c.get(2)?.as_str())?;
        let d = make(
            c.get(1)?.as_str(),
            month,
            year_of(c.get(3).map(|m| m.as_str()))?,
        )?;
        return Some((d, &s[c.get(0)?.end()..]));
    }
    if short
        && sign == Some('/')
        && let Some(c) = SLASHED.captures(s)
    {
        let (a, b): (u32, u32) = (
            c.get(1)?.as_str().parse().ok()?,
            c.get(2)?.as_str().parse().ok()?,
        );
        // Day first, as in Europe, unless only the other order is possible (11/30/2026).
        let (day, month) = if b > 12 && a <= 12 { (b, a) } else { (a, b) };
        let d = make(
            &day.to_string(),
            month,
            year_of(c.get(3).map(|m| m.as_str()))?,
        )?;
        return Some((d, &s[c.get(0)?.end()..]));
    }
    // `DD.` then, maybe after a blank, the month's digit.
    let dotted = || {
        let mut rest = s.chars().skip(digits + 1);
        match rest.next() {
            Some(c) if c.is_whitespace() => rest.next().is_some_and(char::is_numeric),
            c => c.is_some_and(char::is_numeric),
        }
    };
    if short
        && sign == Some('.')
        && dotted()
        && let Some(c) = DOTTED.captures(s)
    {
        let month = c.get(2)?.as_str().parse().ok()?;
        let d = make(
            c.get(1)?.as_str(),
            month,
            year_of(c.get(3).map(|m| m.as_str()))?,
        )?;
        return Some((d, &s[c.get(0)?.end()..]));
    }
    None
}

/// A date that makes up all of `s` (but for trailing punctuation and words like `Uhr`).
pub fn parse_date(s: &str) -> Option<StatedDate> {
    parse_date_prefix(s).map(|(d, _)| d)
}

static SPAN_SEP: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:-|–|—|−|bis(?:\s+zum|\s+einschließlich)?|to|until|till|thru|through|\.\.)\s*",
    )
    .expect("valid regex")
});

/// Reads `DATE – DATE` (or `DATE bis DATE`, `DATE to DATE`) at the start of `s`;
/// returns the span and the rest.
pub fn parse_span_prefix(s: &str) -> Option<(DateSpan, &str)> {
    let (from, rest) = parse_date_prefix(s)?;
    let sep = SPAN_SEP.find(rest)?;
    let (to, rest) = parse_date_prefix(&rest[sep.end()..])?;
    Some((DateSpan { from, to }, rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(day: u32, month: u32, year: Option<i32>) -> StatedDate {
        StatedDate { day, month, year }
    }

    #[test]
    fn s14_date_forms() {
        let y = Some(2026);
        for (s, want) in [
            ("30.11.2026", d(30, 11, y)),
            ("30.11.26", d(30, 11, y)),
            ("30.11.", d(30, 11, None)),
            ("30.11", d(30, 11, None)),
            ("2026-11-30", d(30, 11, y)),
            ("30. Nov. 2026", d(30, 11, y)),
            ("30. November 2026", d(30, 11, y)),
            ("Nov 30, 2026", d(30, 11, y)),
            ("30 Nov 2026", d(30, 11, y)),
            ("30. Nov.", d(30, 11, None)),
            ("3.1.", d(3, 1, None)),
            ("Mo., 30.11.2026", d(30, 11, y)),
            ("Montag, 30. November 2026", d(30, 11, y)),
            ("1. März 2027", d(1, 3, Some(2027))),
            ("30/11/2026", d(30, 11, y)),
            ("11/30/2026", d(30, 11, y)),
            ("December 3rd, 2026", d(3, 12, y)),
        ] {
            assert_eq!(parse_date(s), Some(want), "{s}");
        }
    }

    #[test]
    fn non_dates() {
        for s in ["", "2 Tage", "32.11.2026", "30.13.2026", "heute", "12. Lb5"] {
            assert_eq!(parse_date(s), None, "{s}");
        }
    }

    #[test]
    fn s24_spans() {
        let (span, rest) = parse_span_prefix("20.12.2026 – 03.01.2027 für x").unwrap();
        assert_eq!(span.from, d(20, 12, Some(2026)));
        assert_eq!(span.to, d(3, 1, Some(2027)));
        assert_eq!(rest.trim(), "für x");
        let (span, _) = parse_span_prefix("2026-12-20 to 2027-01-03").unwrap();
        assert_eq!(span.to, d(3, 1, Some(2027)));
        let (span, _) = parse_span_prefix("20.12.2026-03.01.2027").unwrap();
        assert_eq!(span.from, d(20, 12, Some(2026)));
        let (span, _) = parse_span_prefix("20.12. bis 3.1.").unwrap();
        assert_eq!(span.to, d(3, 1, None));
        assert!(parse_span_prefix("20.12.2026").is_none());
    }
}
