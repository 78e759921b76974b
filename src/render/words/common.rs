//! The words every sentence uses: a day and an instant as the reader writes them, a colour, a
//! number of days, how a game ended; and the values the core leaves in a mail's data for them
//! ([`write_values`]).

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};
use serde_json::Value;
use shakmaty::Color;

use crate::core::model::EndReason;
use crate::lang::Lang;

/// A calendar day as the reader writes it: `30.11.2026` (de) or `2026-11-30` (en).
pub fn date(d: NaiveDate, lang: Lang) -> String {
    let (y, m, d) = (d.year(), d.month(), d.day());
    match lang {
        Lang::De => format!("{d:02}.{m:02}.{y:04}"),
        Lang::En => format!("{y:04}-{m:02}-{d:02}"),
    }
}

/// A local time as the reader writes it: `30.11.2026 10:00` (de) or `2026-11-30 10:00` (en).
pub fn date_time(at: NaiveDateTime, lang: Lang) -> String {
    format!(
        "{} {:02}:{:02}",
        date(at.date(), lang),
        at.hour(),
        at.minute()
    )
}

/// A day as [`crate::core::model::Day`] writes it: `2026-11-30`.
fn read_day(x: &str) -> Option<NaiveDate> {
    let b = x.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let year = i32::try_from(digits(&b[0..4])?).ok()?;
    NaiveDate::from_ymd_opt(year, digits(&b[5..7])?, digits(&b[8..10])?)
}

/// An instant as [`crate::core::model::When`] writes it: `2026-11-30T10:00`.
fn read_when(x: &str) -> Option<NaiveDateTime> {
    let b = x.as_bytes();
    if b.len() != 16 || b[10] != b'T' || b[13] != b':' {
        return None;
    }
    read_day(x.get(..10)?)?.and_hms_opt(digits(&b[11..13])?, digits(&b[14..16])?, 0)
}

/// Decimal digits, nothing else.
fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |v, d| {
        d.is_ascii_digit().then(|| v * 10 + u32::from(d - b'0'))
    })
}

/// A colour's name: `Weiß`, `Schwarz`; `White`, `Black`.
pub fn colour(c: Color, lang: Lang) -> &'static str {
    match (c, lang) {
        (Color::White, Lang::De) => "Weiß",
        (Color::Black, Lang::De) => "Schwarz",
        (Color::White, Lang::En) => "White",
        (Color::Black, Lang::En) => "Black",
    }
}

/// The values the core puts into a mail's data for the render layer to write — `{"$day": …}`,
/// `{"$when": …}`, `{"$colour": …}` (`crate::core::view`) — written in `lang`, wherever they stand.
pub fn write_values(v: &mut Value, lang: Lang) {
    match v {
        Value::Object(map) => {
            if map.len() == 1
                && let Some((k, Value::String(x))) = map.iter().next()
            {
                let written = match k.as_str() {
                    "$day" => read_day(x).map(|d| date(d, lang)),
                    "$when" => read_when(x).map(|t| date_time(t, lang)),
                    "$colour" => match x.as_str() {
                        "white" => Some(colour(Color::White, lang).to_string()),
                        "black" => Some(colour(Color::Black, lang).to_string()),
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(w) = written {
                    *v = Value::String(w);
                    return;
                }
            }
            for x in map.values_mut() {
                write_values(x, lang);
            }
        }
        Value::Array(items) => {
            for x in items {
                write_values(x, lang);
            }
        }
        _ => {}
    }
}

/// How a game ended (TO §27), shown in parentheses after the result: no parentheses inside.
pub(crate) fn end_reason(r: EndReason, lang: Lang) -> &'static str {
    match (r, lang) {
        (EndReason::Checkmate, Lang::De) => "Matt",
        (EndReason::Checkmate, Lang::En) => "checkmate",
        (EndReason::Stalemate, Lang::De) => "Patt",
        (EndReason::Stalemate, Lang::En) => "stalemate",
        (EndReason::Resignation, Lang::De) => "Aufgabe",
        (EndReason::Resignation, Lang::En) => "resignation",
        (EndReason::DrawAgreed, Lang::De) => "Remis vereinbart",
        (EndReason::DrawAgreed, Lang::En) => "draw agreed",
        (EndReason::DeadPosition, Lang::De) => "tote Stellung, ungenügendes Material",
        (EndReason::DeadPosition, Lang::En) => "dead position, insufficient material",
        (EndReason::FivefoldRepetition, Lang::De) => "fünfmalige Stellungswiederholung, FIDE 9.6",
        (EndReason::FivefoldRepetition, Lang::En) => "fivefold repetition",
        (EndReason::ThreefoldRepetition, Lang::De) => {
            "dreimalige Stellungswiederholung, reklamiert, FIDE 9.2"
        }
        (EndReason::ThreefoldRepetition, Lang::En) => "threefold repetition",
        (EndReason::ForfeitConfirmed, Lang::De) => {
            "Zeitüberschreitung, vom Turnierleiter bestätigt, TO §22"
        }
        (EndReason::ForfeitConfirmed, Lang::En) => "time forfeit confirmed by the director, TO §22",
        (EndReason::DirectorDecision, Lang::De) => "Entscheidung des Turnierleiters, TO §26, §31",
        (EndReason::DirectorDecision, Lang::En) => "decision of the director, TO §26, §31",
        (EndReason::Withdrawn, Lang::De) => "Rücktritt vom Turnier, TO §26",
        (EndReason::Withdrawn, Lang::En) => "withdrawal from the tournament, TO §26",
        (EndReason::Annulled, Lang::De) => "annulliert nach einem Rücktritt, TO §26",
        (EndReason::Annulled, Lang::En) => "annulled after a withdrawal, TO §26",
    }
}

/// A number of days in `lang`: `1 Tag`, `2 Tage`; `1 day`, `2 days` (also the templates'
/// `tage` and `days` filters).
pub fn days(n: i64, lang: Lang) -> String {
    match (n, lang) {
        (1, Lang::De) => "1 Tag".into(),
        (1, Lang::En) => "1 day".into(),
        (n, Lang::De) => format!("{n} Tage"),
        (n, Lang::En) => format!("{n} days"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn days_and_instants_are_read_as_the_facts_write_them_and_written_as_the_reader_does() {
        let day = NaiveDate::from_ymd_opt(2026, 3, 1).unwrap();
        let when = day.and_hms_opt(9, 5, 0).unwrap();
        assert_eq!(read_day("2026-03-01"), Some(day));
        assert_eq!(read_when("2026-03-01T09:05"), Some(when));
        for wrong in ["2026-3-01", "2026-02-30", "2026-03-01T", "x026-03-01", ""] {
            assert_eq!(read_day(wrong), None, "{wrong}");
        }
        for wrong in ["2026-03-01T9:05", "2026-03-01T24:00", "2026-03-01 09:05"] {
            assert_eq!(read_when(wrong), None, "{wrong}");
        }
        assert_eq!(date(day, Lang::De), "01.03.2026");
        assert_eq!(date(day, Lang::En), "2026-03-01");
        assert_eq!(date_time(when, Lang::De), "01.03.2026 09:05");
        assert_eq!(date_time(when, Lang::En), "2026-03-01 09:05");
        // The facts' own form, as a template would get it.
        let mut v = serde_json::json!({"a": crate::core::model::When(when), "b": [crate::core::model::Day(day)]});
        write_values(&mut v, Lang::De);
        assert_eq!(
            v,
            serde_json::json!({"a": "01.03.2026 09:05", "b": ["01.03.2026"]})
        );
    }
}
