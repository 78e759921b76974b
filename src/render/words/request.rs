//! The words of a query about a request recognised in a player's sentence but not certain or not
//! complete (`crate::letter::requests`): the sentence quoted, what is missing, the exact form.

use crate::lang::Lang;
use crate::letter::{Ask, Missing, RequestKind};

/// What the request is, as the query names it.
fn what(kind: RequestKind, de: bool) -> &'static str {
    match (kind, de) {
        (RequestKind::Offer, true) => "ein Remisangebot",
        (RequestKind::Offer, false) => "a draw offer",
        (RequestKind::Accept, true) => "die Annahme eines Remisangebots",
        (RequestKind::Accept, false) => "the acceptance of a draw offer",
        (RequestKind::Draw, true) => "ein Remis",
        (RequestKind::Draw, false) => "a draw",
        (RequestKind::Resign, true) => "eine Aufgabe der Partie",
        (RequestKind::Resign, false) => "a resignation",
        (RequestKind::Announce, true) => {
            "eine Ankündigung von mehr als 10 Tagen Bedenkzeit (TO §13)"
        }
        (RequestKind::Announce, false) => {
            "an announcement of more than 10 days of thinking time (TO §13)"
        }
        (RequestKind::Claim, true) => "ein Remisantrag wegen Stellungswiederholung",
        (RequestKind::Claim, false) => "a draw claim by repetition",
        (RequestKind::Leave, true) => "eine Urlaubsmeldung (TO §24)",
        (RequestKind::Leave, false) => "a leave notice (TO §24)",
        (RequestKind::TakeBack, true) => "eine Rücknahme",
        (RequestKind::TakeBack, false) => "taking something back",
        (RequestKind::Status, true) => "eine Frage nach dem Stand Ihrer Partien",
        (RequestKind::Status, false) => "a question for the state of your games",
        (RequestKind::WithdrawLeave, true) => "ein Zurückziehen Ihres Urlaubs (TO §24)",
        (RequestKind::WithdrawLeave, false) => "withdrawing your leave (TO §24)",
        (RequestKind::Records, true) => "einer Anforderung der Partieakten (TO §11, §29)",
        (RequestKind::Records, false) => "a request for a game's records (TO §11, §29)",
        (RequestKind::Withdrawal, true) => "dem Rücktritt eines Spielers (TO §26)",
        (RequestKind::Withdrawal, false) => "the withdrawal of a player (TO §26)",
        (RequestKind::Question, true) => "einer Rückfrage an einen Spieler (TO §23)",
        (RequestKind::Question, false) => "a question to a player (TO §23)",
        (RequestKind::ThroughDirector, true) => "einer Anordnung „Züge über TL“ (TO §30)",
        (RequestKind::ThroughDirector, false) => "an order of moves through you (TO §30)",
    }
}

/// Why it is not acted on.
fn missing(m: Missing, kind: RequestKind, de: bool) -> &'static str {
    match (m, de) {
        (Missing::Dates, true) => "ich finde darin keinen ersten und letzten Urlaubstag",
        (Missing::Dates, false) => "I find no first and last day of the leave in it",
        (Missing::FirstDay, true) => "der erste Urlaubstag fehlt",
        (Missing::FirstDay, false) => "the first day of the leave is missing",
        (Missing::LastDay, true) => "der letzte Urlaubstag fehlt",
        (Missing::LastDay, false) => "the last day of the leave is missing",
        (Missing::Order, true) => "der letzte Tag liegt vor dem ersten",
        (Missing::Order, false) => "the last day comes before the first",
        (Missing::Days, true) => {
            "er sagt nicht, ob Sie mehr als 10 Tage brauchen (nur das ist anzukündigen)"
        }
        (Missing::Days, false) => {
            "it does not say whether you need more than 10 days (only that is to be announced)"
        }
        (Missing::OnePerMail, true) => {
            "die Mail nennt zwei Urlaube; das Relais nimmt je Mail einen an"
        }
        (Missing::OnePerMail, false) => "the mail names two leaves; the relay takes one per mail",
        (Missing::Which, true) => {
            "ich kann nicht sicher lesen, ob Sie Remis anbieten, ein Angebot annehmen oder nur die Stellung beurteilen"
        }
        (Missing::Which, false) => {
            "I cannot tell for certain whether you offer a draw, accept an offer or only judge the position"
        }
        (Missing::Certainty, true) if kind == RequestKind::Leave => {
            "die Daten klingen noch nicht fest"
        }
        (Missing::Certainty, false) if kind == RequestKind::Leave => {
            "the dates do not sound settled yet"
        }
        (Missing::Certainty, true) => {
            "ich kann nicht sicher lesen, ob Sie es erklären oder nur erwägen oder fragen"
        }
        (Missing::Certainty, false) => {
            "I cannot tell for certain whether you declare it or only consider or ask"
        }
        (Missing::Game, true) => "er nennt keine Partie als TURNIER/N",
        (Missing::Game, false) => "it names no game as TOURNAMENT/N",
        (Missing::Player, true) => "er nennt den Spieler nicht mit seiner Adresse",
        (Missing::Player, false) => "it does not name the player by his address",
        (Missing::Scoring, true) => {
            "er sagt nicht, ob seine offenen Partien als verloren oder annulliert zählen"
        }
        (Missing::Scoring, false) => {
            "it does not say whether his unfinished games count as lost or annulled"
        }
        (Missing::Text, true) => "die Frage selbst fehlt",
        (Missing::Text, false) => "the question itself is missing",
    }
}

/// The sentence the relay writes for a request in the letter it keeps for a player's XFCC call
/// (`crate::xfcc::games::letter_text`, TO §11): the English form, as his program's English
/// flags say it. `None` for a request an XFCC call cannot make.
///
/// ```
/// use fernzug::{letter::RequestKind, render::words::request::written};
/// assert_eq!(written(RequestKind::Resign), Some("I resign."));
/// ```
pub fn written(kind: RequestKind) -> Option<&'static str> {
    match kind {
        RequestKind::Offer => Some("I offer a draw."),
        RequestKind::Accept => Some("I accept the draw."),
        RequestKind::Resign => Some("I resign."),
        RequestKind::Claim => Some("I claim a draw by threefold repetition."),
        _ => None,
    }
}

/// The exact forms to send.
fn forms(kind: RequestKind, de: bool) -> &'static str {
    match (kind, de) {
        (RequestKind::Offer, true) => "Ich biete Remis an.   (mit Ihrem Zug)",
        (RequestKind::Offer, false) => "I offer a draw.   (with your move)",
        (RequestKind::Accept, true) => "Ich nehme das Remis an.   (ohne Zug)",
        (RequestKind::Accept, false) => "I accept the draw.   (without a move)",
        (RequestKind::Draw, true) => {
            "Ich biete Remis an.   (mit Ihrem Zug)\n  Ich nehme das Remis an.   (ohne Zug, auf ein Angebot des Partners)"
        }
        (RequestKind::Draw, false) => {
            "I offer a draw.   (with your move)\n  I accept the draw.   (without a move, to the partner's offer)"
        }
        (RequestKind::Resign, true) => "Ich gebe auf.",
        (RequestKind::Resign, false) => "I resign.",
        (RequestKind::Announce, true) => "Ich brauche für diesen Zug mehr als 10 Tage.",
        (RequestKind::Announce, false) => "I need more than 10 days for this move.",
        (RequestKind::Claim, true) => "Ich beantrage Remis durch dreimalige Stellungswiederholung.",
        (RequestKind::Claim, false) => "I claim a draw by threefold repetition.",
        (RequestKind::Leave, true) => "Urlaub: 10.12.2026 – 23.12.2026   (erster und letzter Tag)",
        (RequestKind::Leave, false) => "Leave: 2026-12-10 to 2026-12-23   (first and last day)",
        (RequestKind::TakeBack, true) | (RequestKind::TakeBack, false) => "",
        (RequestKind::Status, true) => "Status",
        (RequestKind::Status, false) => "Status",
        (RequestKind::WithdrawLeave, true) => "Urlaub zurückgezogen",
        (RequestKind::WithdrawLeave, false) => "cancel leave",
        (RequestKind::Records, true) => {
            "Korrespondenz: TURNIER/N\n  PGN: TURNIER\n  Prüfen: TURNIER/N"
        }
        (RequestKind::Records, false) => {
            "correspondence: TOURNAMENT/N\n  pgn: TOURNAMENT\n  verify: TOURNAMENT/N"
        }
        (RequestKind::Withdrawal, true) => {
            "Rücktritt: spieler@… Wertung: verloren   (oder: annulliert)"
        }
        (RequestKind::Withdrawal, false) => "withdraw: player@… score: lost   (or: annulled)",
        (RequestKind::Question, true) => "Rückfrage an spieler@…: Ihre Frage",
        (RequestKind::Question, false) => "ask player@…: your question",
        (RequestKind::ThroughDirector, true) => {
            "Züge über TL: TURNIER/N   (aufheben: Züge über TL aufgehoben: TURNIER/N)"
        }
        (RequestKind::ThroughDirector, false) => {
            "moves through TL: TOURNAMENT/N   (lift it: moves through TL off: TOURNAMENT/N)"
        }
    }
}

/// The whole paragraph of the query.
///
/// ```
/// use fernzug::lang::Lang;
/// use fernzug::letter::{Ask, Missing, RequestKind};
/// let ask = Ask {
///     kind: RequestKind::Leave,
///     sentence: "Ich bin ab dem 10.12. im Urlaub.".into(),
///     missing: Missing::LastDay,
/// };
/// let text = fernzug::render::words::request::message(&ask, Lang::De);
/// assert!(text.contains("„Ich bin ab dem 10.12. im Urlaub.“"));
/// assert!(text.contains("der letzte Urlaubstag fehlt"));
/// assert!(text.contains("Urlaub: 10.12.2026 – 23.12.2026"));
/// ```
pub fn message(ask: &Ask, lang: Lang) -> String {
    let de = lang == Lang::De;
    let (sentence, what, missing) = (
        &ask.sentence,
        what(ask.kind, de),
        missing(ask.missing, ask.kind, de),
    );
    let s2 = matches!(
        ask.kind,
        RequestKind::Offer | RequestKind::Accept | RequestKind::Draw | RequestKind::Resign
    );
    let mut out = if de {
        format!("Ihr Satz „{sentence}“ sieht nach {what} aus, aber {missing}.")
    } else {
        format!("Your sentence \"{sentence}\" looks like {what}, but {missing}.")
    };
    if s2 {
        out.push_str(if de {
            " Remis und Aufgabe gelten nur, wenn sie eindeutig in Worten erklärt sind (TO §2); das Relais rät nicht."
        } else {
            " A draw or a resignation counts only when it is declared clearly in words (TO §2); the relay does not guess."
        });
    }
    if ask.kind == RequestKind::TakeBack {
        out.push_str(if de {
            " Ein abgeschickter Zug, ein Angebot oder eine Aufgabe kann nicht zurückgenommen werden (TO §4)."
        } else {
            " A move, an offer or a resignation once sent cannot be taken back (TO §4)."
        });
    } else {
        let form = forms(ask.kind, de);
        out.push_str(&if de {
            format!(" Falls Sie das meinen, schreiben Sie bitte genau so:\n\n  {form}\n")
        } else {
            format!(" If you mean it, please write exactly:\n\n  {form}\n")
        });
    }
    out.trim_end().to_string()
}
