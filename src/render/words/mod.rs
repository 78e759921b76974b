//! Every sentence the core decides as a value ([`Sentence`]), in German and English: one
//! exhaustive `match` per type, so the compiler checks that every reason has its words. The
//! templates (`templates/de|en`) hold the frame of each mail; these are the sentences inside it.

mod board;
mod common;
pub mod crosstable;
pub mod decision;
mod leave_director;
mod notation;
mod notice;
mod page;
mod refusal;
pub mod request;

pub use board::{piece_lists, position_lead};
pub(crate) use common::end_reason;
pub use common::{colour, date, date_time, days, write_values};
pub use leave_director::{FORMS_DE, FORMS_EN};
pub use notice::games_table;
pub use page::{board_caption, page_not_found};

use serde_json::Value;

use crate::core::model::{Note, Sentence, Stated};
use crate::lang::Lang;

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
