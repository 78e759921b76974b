//! The words of a decision about a game (TO §18, §29) as a reply to it names it, and of the
//! appeal of TO §29 that every decision of the director tells the players.

use chrono::NaiveDate;

use crate::core::model::{Decided, GameResult};
use crate::lang::Lang;

use super::{colour, date, end_reason};

/// What was decided, as one phrase: `Zeitüberschreitung von Weiß (TO §18)`.
pub fn decided(d: &Decided, lang: Lang) -> String {
    let de = lang == Lang::De;
    match d {
        Decided::Forfeit { color, nth } => {
            let c = colour((*color).into(), lang);
            match (de, *nth >= 2) {
                (true, false) => format!("die Zeitüberschreitung von {c} (TO §18)"),
                (true, true) => format!("die zweite Zeitüberschreitung von {c} (TO §21)"),
                (false, false) => format!("the time forfeit of {c} (TO §18)"),
                (false, true) => format!("the second time forfeit of {c} (TO §21)"),
            }
        }
        Decided::Ended { reason, result } => {
            let r = result.map_or("*", GameResult::as_str);
            let why = end_reason(*reason, lang);
            if de {
                format!("das Ende der Partie, {r} ({why})")
            } else {
                format!("the end of the game, {r} ({why})")
            }
        }
        Decided::MovesOnly { on: true } if de => "die Beschränkung auf Züge (TO §30)".into(),
        Decided::MovesOnly { on: true } => "the restriction to moves (TO §30)".into(),
        Decided::MovesOnly { on: false } if de => {
            "die Aufhebung der Beschränkung auf Züge (TO §30)".into()
        }
        Decided::MovesOnly { on: false } => "the end of the restriction to moves (TO §30)".into(),
        Decided::ThroughDirector { on: true } if de => {
            "die Übermittlung der Züge über den Turnierleiter (TO §30)".into()
        }
        Decided::ThroughDirector { on: true } => "the moves through the director (TO §30)".into(),
        Decided::ThroughDirector { on: false } if de => {
            "das Ende der Übermittlung über den Turnierleiter (TO §30)".into()
        }
        Decided::ThroughDirector { on: false } => {
            "the end of the moves through the director (TO §30)".into()
        }
        Decided::Time { color, days } => {
            let c = colour((*color).into(), lang);
            let n = days.unsigned_abs();
            match (de, *days > 0) {
                (true, true) => format!("{n} angerechnete Tage Bedenkzeit für {c} (TO §30)"),
                (true, false) => format!("{n} gutgeschriebene Tage Bedenkzeit für {c} (TO §8)"),
                (false, true) => format!("{n} days of thinking time charged to {c} (TO §30)"),
                (false, false) => format!("{n} days of thinking time credited to {c} (TO §8)"),
            }
        }
        Decided::Warning { color } => {
            let c = colour((*color).into(), lang);
            if de {
                format!("die Ermahnung von {c} (TO §30)")
            } else {
                format!("the formal warning of {c} (TO §30)")
            }
        }
        Decided::Resumed if de => "die Fortsetzung der Partie".into(),
        Decided::Resumed => "the resumption of the game".into(),
    }
}

/// TO §29 in the words of a decision's notice: to whom, until when, with what, what it costs,
/// and who decides.
pub fn appeal(director: &str, until: NaiveDate, lang: Lang) -> String {
    let day = date(until, lang);
    match lang {
        Lang::De => format!(
            "Gegen diese Entscheidung können Sie Einspruch einlegen (TO §29): schriftlich beim Turnierleiter {director}, bis zum {day} (zwei Wochen), unter Einsendung aller erforderlichen Unterlagen — am einfachsten als Antwort auf diese Mail; sie erreicht nur den Turnierleiter, nicht Ihren Partner. Innerhalb derselben Frist ist eine Gebühr von 20 Euro auf ein Konto des Deutschen Fernschachbundes (BdF) einzuzahlen; bei Erfolg wird sie ganz oder teilweise erstattet. Über den Einspruch entscheidet der Turnierausschuss als erste Revisionsinstanz, danach, wenn er es zulässt, der Spielausschuss als zweite und letzte."
        ),
        Lang::En => format!(
            "You may appeal this decision (TO §29): in writing to the tournament director {director}, by {day} (two weeks), sending all the documents needed — most simply as a reply to this mail, which reaches the director only, not your partner. Within the same term a fee of 20 euros is to be paid into an account of the German correspondence chess federation (BdF); it is refunded in whole or in part if the appeal succeeds. The tournament committee decides as the first instance, then, if it allows it, the playing committee as the second and last."
        ),
    }
}
