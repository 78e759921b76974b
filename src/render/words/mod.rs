//! Every sentence the core decides as a value ([`Sentence`]), in German and English: one
//! exhaustive `match` per type, so the compiler checks that every reason has its words. The
//! templates (`templates/de|en`) hold the frame of each mail; these are the sentences inside it.

pub mod crosstable;
pub mod decision;
mod leave_director;
mod notation;
mod notice;
mod page;
mod refusal;
pub mod request;

pub use leave_director::{FORMS_DE, FORMS_EN};
pub use page::{board_caption, page_not_found};

use serde_json::Value;

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};
use shakmaty::Color;

use crate::core::model::{EndReason, Note, Sentence, Stated};
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

/// The words of `sentence` in `lang`: a text, or a list of texts.
pub fn sentence(sentence: &Sentence, lang: Lang) -> Value {
    match sentence {
        Sentence::Refusal(r) => r.message(lang).into(),
        Sentence::Notes(notes) => notes.iter().map(|n| note(n, lang)).collect(),
        Sentence::EndReason(r) => end_reason(*r, lang).into(),
        Sentence::GivenUp {
            kind,
            recipient,
            created,
            days,
            attempts,
            last_error: err,
            message_id,
        } => match lang {
            Lang::De => format!(
                "Die Mail ({kind}) des Relais an {recipient} vom {} konnte in {days} Tagen und {attempts} Versuchen nicht zugestellt werden (letzter Fehler: {err}). Das Relais hat sie aufgegeben. Bitte übermitteln Sie den Inhalt auf anderem Weg (Fax 2.2); Message-ID: <{message_id}>.",
                date_time(*created, lang)
            ),
            Lang::En => format!(
                "The relay's mail ({kind}) to {recipient} of {} could not be delivered in {days} days and {attempts} attempts (last error: {err}). The relay has given it up. Please pass its content on another way (Fax 2.2); Message-ID: <{message_id}>.",
                date_time(*created, lang)
            ),
        }
        .into(),
        Sentence::CrosstableText(t) => crosstable::text(t, lang).into(),
        Sentence::CrosstableData(t) => crosstable::data(t, lang),
        Sentence::NoticeTitle(t) => notice::title(t, lang).into(),
        Sentence::NoticeText(t) => notice::text(t, lang).into(),
        Sentence::Decided(d) => decision::decided(d, lang).into(),
        Sentence::Appeal { director, until } => decision::appeal(director, *until, lang).into(),
        Sentence::DirectorForms => match lang {
            Lang::De => FORMS_DE.into(),
            Lang::En => FORMS_EN.into(),
        },
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

/// One remark of a forward or a receipt (TO §3, §6, §15).
fn note(n: &Note, lang: Lang) -> Value {
    let d = |x| date(x, lang);
    match (n, lang) {
        (Note::DateDiffers { which, stated, relay }, Lang::De) => {
            let what = match which {
                Stated::Received => "Erhalten",
                Stated::Sent => "Abgesandt",
            };
            format!(
                "Abweichung (TO §15): angegeben „{what}: {}“, laut Relais {}.",
                d(*stated),
                d(*relay)
            )
        }
        (Note::DateDiffers { which, stated, relay }, Lang::En) => {
            let what = match which {
                Stated::Received => "received",
                Stated::Sent => "sent",
            };
            format!(
                "Difference (TO §15): stated \"{what}: {}\", the relay's date is {}.",
                d(*stated),
                d(*relay)
            )
        }
        (Note::DaysDiffer { stated, relay }, Lang::De) => format!(
            "Abweichung (TO §15): angegeben {} Bedenkzeit, laut Relais {}.",
            days((*stated).into(), lang),
            days((*relay).into(), lang)
        ),
        (Note::DaysDiffer { stated, relay }, Lang::En) => format!(
            "Difference (TO §15): stated {} used, the relay counts {}.",
            days((*stated).into(), lang),
            days((*relay).into(), lang)
        ),
        (Note::FormSwitch { from, to }, Lang::De) => format!(
            "Hinweis (TO §3): Sie haben bisher {} geschrieben, jetzt {}. Bitte bleiben Sie bei einer Notation.",
            from.name(lang),
            to.name(lang)
        ),
        (Note::FormSwitch { from, to }, Lang::En) => format!(
            "Note (TO §3): you wrote {} so far, now {}. Please keep to one notation.",
            from.name(lang),
            to.name(lang)
        ),
        (Note::DrawOfferLapsed, Lang::De) => "Das Remisangebot ist erloschen: auf den Zug folgte sofort ein Eventualzug (TO §2, §6).".into(),
        (Note::DrawOfferLapsed, Lang::En) => "The draw offer lapsed: the move was answered at once by a conditional move (TO §2, §6).".into(),
    }
    .into()
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
