//! The values a mail's facts carry that the render layer writes in the reader's language: a
//! calendar day, a local instant, a colour. Each is serialised as a marker object
//! (`{"$day": …}`, `{"$when": …}`, `{"$colour": …}`) that `render::words::write_values` turns
//! into words (TO §14/§15 dates, every mail's `now`, the colours of TO §18 and the start mail).

use chrono::{Datelike, NaiveDate, NaiveDateTime, Timelike};
use serde::ser::{Serialize, SerializeMap, Serializer};
use shakmaty::Color;

use crate::core::model::color_name;

/// A calendar day: `{"$day": "2026-11-30"}`; written as the reader writes dates (`30.11.2026`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Day(pub NaiveDate);

/// An instant in the relay's local time, to the minute: `{"$when": "2026-11-30T10:00"}`; written
/// as the reader writes dates and times (`30.11.2026 10:00`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct When(pub NaiveDateTime);

/// A colour: `{"$colour": "white"}`; written as its name in the reader's language (`Weiß`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Colour(pub Color);

/// A one-key marker object.
fn marker<S: Serializer>(s: S, key: &str, value: &str) -> Result<S::Ok, S::Error> {
    let mut map = s.serialize_map(Some(1))?;
    map.serialize_entry(key, value)?;
    map.end()
}

impl Serialize for Day {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = self.0;
        marker(
            s,
            "$day",
            &format!("{:04}-{:02}-{:02}", d.year(), d.month(), d.day()),
        )
    }
}

impl Serialize for When {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let t = self.0;
        let (y, mo, d, h, mi) = (t.year(), t.month(), t.day(), t.hour(), t.minute());
        marker(s, "$when", &format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}"))
    }
}

impl Serialize for Colour {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        marker(s, "$colour", color_name(self.0))
    }
}
