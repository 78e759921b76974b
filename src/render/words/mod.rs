//! Every sentence the core decides as a value ([`Sentence`]), in German and English: one
//! exhaustive `match` per type, so the compiler checks that every reason has its words. The
//! templates (`templates/de|en`) hold the frame of each mail; these are the sentences inside it.

mod leave_director;
mod notice;
mod refusal;

pub use leave_director::{FORMS_DE, FORMS_EN};

use serde_json::Value;

use crate::core::model::{Note, Sentence, Stated};
use crate::core::view;
use crate::lang::Lang;

/// The words of `sentence` in `lang`: a text, or a list of texts.
pub fn sentence(sentence: &Sentence, lang: Lang) -> Value {
    match sentence {
        Sentence::Refusal(r) => r.message(lang).into(),
        Sentence::Notes(notes) => notes.iter().map(|n| note(n, lang)).collect(),
        Sentence::NoticeTitle(t) => notice::title(t, lang).into(),
        Sentence::NoticeText(t) => notice::text(t, lang).into(),
    }
}

/// One remark of a forward or a receipt (TO §3, §6, §15).
fn note(n: &Note, lang: Lang) -> Value {
    let d = |x| view::date(x, lang);
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
