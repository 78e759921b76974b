//! The words of a [`Refusal`] (TO §8: the query says exactly what was wrong), in both languages.

use crate::core::model::{Act, Refusal};
use crate::lang::Lang;
use crate::notation::NotationError;

impl Act {
    fn name(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (Act::Resignation, Lang::De) => "Die Aufgabe",
            (Act::Resignation, Lang::En) => "The resignation",
            (Act::DrawAcceptance, Lang::De) => "Die Remisannahme",
            (Act::DrawAcceptance, Lang::En) => "The draw acceptance",
        }
    }
}

impl Refusal {
    /// One or two sentences that say exactly what is wrong, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        let de = lang == Lang::De;
        match self {
            Refusal::NoGameNamed { open_games } => {
                let list = open_games.join(", ");
                if de {
                    format!(
                        "Die Mail nennt keine Partie. Bitte antworten Sie auf eine Mail des Relais oder schreiben Sie die Partie in den Betreff, z. B. {}.",
                        open_games
                            .first()
                            .map(String::as_str)
                            .unwrap_or("[TURNIER/1]")
                    ) + &if list.is_empty() {
                        String::new()
                    } else {
                        format!(" Ihre Partien: {list}.")
                    }
                } else {
                    format!(
                        "The mail names no game. Please reply to a mail of the relay or put the game into the subject, e.g. {}.",
                        open_games
                            .first()
                            .map(String::as_str)
                            .unwrap_or("[TOURNAMENT/1]")
                    ) + &if list.is_empty() {
                        String::new()
                    } else {
                        format!(" Your games: {list}.")
                    }
                }
            }
            Refusal::UnknownGame { game } => {
                if de {
                    format!("Eine Partie {game} gibt es nicht.")
                } else {
                    format!("There is no game {game}.")
                }
            }
            Refusal::NotAPlayer { game } => {
                if de {
                    format!("Sie spielen nicht in der Partie {game}.")
                } else {
                    format!("You do not play in game {game}.")
                }
            }
            Refusal::ForeignKey => {
                if de {
                    "Diese Antwortadresse gehört einem anderen Spieler; Züge zählen nur von der gemeldeten Adresse des Spielers.".into()
                } else {
                    "This reply address belongs to another player; moves count only from the player's registered address.".into()
                }
            }
            Refusal::GameMismatch { subject, key } => {
                if de {
                    format!(
                        "Der Betreff nennt die Partie {subject}, die Antwortadresse gehört zur Partie {key}. Bitte eindeutig."
                    )
                } else {
                    format!(
                        "The subject names game {subject}, the reply address belongs to game {key}. Please make it unambiguous."
                    )
                }
            }
            Refusal::NotYourTurn { game } => {
                if de {
                    format!(
                        "In der Partie {game} ist Ihr Partner am Zug, nicht Sie. Nichts wurde weitergeleitet."
                    )
                } else {
                    format!(
                        "In game {game} it is your partner's move, not yours. Nothing was forwarded."
                    )
                }
            }
            Refusal::MovesOnly { game } => {
                if de {
                    format!(
                        "Der Turnierleiter hat die Partie {game} auf Züge beschränkt (TO §30): Ihre Zeilen wurden nicht weitergeleitet. Züge und Anträge gehen weiter wie gewohnt."
                    )
                } else {
                    format!(
                        "The tournament director has restricted game {game} to moves (TO §30): your words were not forwarded. Moves and requests go on as usual."
                    )
                }
            }
            Refusal::TooManyMessages { game, max } => {
                if de {
                    format!(
                        "In der Partie {game} wurden heute schon {max} Nachrichten von Ihnen weitergeleitet, mehr nicht an einem Tag. Diese Nachricht wurde nicht weitergeleitet; senden Sie sie morgen noch einmal."
                    )
                } else {
                    format!(
                        "In game {game}, {max} messages of yours have been forwarded today, the most in one day. This message was not forwarded; please send it again tomorrow."
                    )
                }
            }
            Refusal::GameOver { game, result } => {
                if de {
                    format!("Die Partie {game} ist beendet ({result}).")
                } else {
                    format!("Game {game} is over ({result}).")
                }
            }
            Refusal::Suspended { game } => {
                if de {
                    format!(
                        "Die Partie {game} ist nach der zweiten Zeitüberschreitung bis zur Entscheidung des Turnierleiters angehalten (TO §21)."
                    )
                } else {
                    format!(
                        "Game {game} is suspended after the second time forfeit until the tournament director decides (TO §21)."
                    )
                }
            }
            Refusal::Adjourned { game } => {
                if de {
                    format!(
                        "Die Partie {game} ist zur Abschätzung durch den Turnierleiter angehalten (TO §31)."
                    )
                } else {
                    format!(
                        "Game {game} is stopped for adjudication by the tournament director (TO §31)."
                    )
                }
            }
            Refusal::NotStarted { start } => {
                if de {
                    format!(
                        "Das Turnier beginnt erst am {}.",
                        crate::render::words::date_time(*start, lang)
                    )
                } else {
                    format!(
                        "The tournament starts on {}.",
                        crate::render::words::date_time(*start, lang)
                    )
                }
            }
            Refusal::NoMove { expected } => {
                if de {
                    format!(
                        "In der Mail steht kein nummerierter Zug. Erwartet: {expected} (TO §2)."
                    )
                } else {
                    format!("The mail contains no numbered move. Expected: {expected} (TO §2).")
                }
            }
            Refusal::OwnMoveMissing { expected } => {
                if de {
                    format!("Ihr eigener Zug fehlt: erwartet {expected} (TO §2).")
                } else {
                    format!("Your own move is missing: expected {expected} (TO §2).")
                }
            }
            Refusal::RepetitionMissing { expected } => {
                if de {
                    format!(
                        "Die Wiederholung des letzten Zuges Ihres Partners fehlt: bitte {expected} mit angeben (TO §2)."
                    )
                } else {
                    format!(
                        "The repetition of your partner's last move is missing: please include {expected} (TO §2)."
                    )
                }
            }
            Refusal::RepetitionWrong { expected, written } => {
                if de {
                    format!(
                        "Sie wiederholen {written}, der letzte Zug Ihres Partners war aber {expected} (TO §2)."
                    )
                } else {
                    format!(
                        "You repeat {written}, but your partner's last move was {expected} (TO §2)."
                    )
                }
            }
            Refusal::WrongNumber { expected, written } => {
                if de {
                    format!(
                        "Falsche Zugnummer: {written} geschrieben, {expected} erwartet (TO §2)."
                    )
                } else {
                    format!("Wrong move number: {written} written, {expected} expected (TO §2).")
                }
            }
            Refusal::TwoOwnMoves { first, second } => {
                if de {
                    format!(
                        "Die Mail nennt zwei verschiedene eigene Züge, {first} und {second}; der Zug ist zweifelhaft (TO §2, §8)."
                    )
                } else {
                    format!(
                        "The mail names two different own moves, {first} and {second}; the move is doubtful (TO §2, §8)."
                    )
                }
            }
            Refusal::TooManyMoves { extra } => {
                if de {
                    format!(
                        "Die Mail enthält mehr Züge als die Wiederholung und Ihren eigenen Zug: {extra}. Eventualzüge bitte mit „Eventualzüge:“ kennzeichnen (TO §6)."
                    )
                } else {
                    format!(
                        "The mail contains more moves than the repetition and your own move: {extra}. Mark conditional moves with \"if:\" (TO §6)."
                    )
                }
            }
            Refusal::BadMove { number, error } => {
                let why = why(error, lang);
                match (error, de) {
                    (NotationError::Ambiguous { .. }, true) => format!(
                        "Ihr Zug {number} ist nicht eindeutig: {why} (TO §2, §8). Bitte schreiben Sie ihn so, dass nur ein Zug gemeint sein kann."
                    ),
                    (NotationError::Ambiguous { .. }, false) => format!(
                        "Your move {number} is not clear: {why} (TO §2, §8). Please write it so that only one move can be meant."
                    ),
                    (_, true) => format!("Ihr Zug {number} ist unmöglich: {why} (TO §8, §9)."),
                    (_, false) => format!("Your move {number} is impossible: {why} (TO §8, §9)."),
                }
            }
            Refusal::BadRepetition { number, error } => {
                let why = why(error, lang);
                if de {
                    format!(
                        "Die Wiederholung {number} passt nicht zur Partie: {why} (TO §2). Bitte wiederholen Sie den letzten Zug Ihres Partners so, wie er gespielt wurde."
                    )
                } else {
                    format!(
                        "The repetition {number} does not fit the game: {why} (TO §2). Please repeat your partner's last move as it was played."
                    )
                }
            }
            Refusal::BareResult { text } => {
                if de {
                    format!(
                        "„{text}“ ohne ausgeschriebene Worte ist ungültig: Remisangebot, Remisannahme und Aufgabe bitte in Worten („biete Remis an“, „Remis angenommen“, „ich gebe auf“) (TO §2)."
                    )
                } else {
                    format!(
                        "\"{text}\" without words is void: draw offers, acceptances and resignations must be written out (\"I offer a draw\", \"I accept the draw\", \"I resign\") (TO §2)."
                    )
                }
            }
            Refusal::StruckOut { text } => {
                if de {
                    format!(
                        "Ein Zug ist durchgestrichen oder verbessert ({text}); der Zug ist zweifelhaft (TO §2, §8). Bitte nur den gültigen Zug senden."
                    )
                } else {
                    format!(
                        "A move is struck out or corrected ({text}); the move is doubtful (TO §2, §8). Please send only the valid move."
                    )
                }
            }
            Refusal::Unreadable { line } => {
                if de {
                    format!("Die Zeile „{line}“ ist nicht lesbar (TO §8).")
                } else {
                    format!("The line \"{line}\" cannot be read (TO §8).")
                }
            }
            Refusal::OfferWithoutMove => {
                if de {
                    "Ein Remisangebot gilt nur zusammen mit einem eigenen Zug (TO §2).".into()
                } else {
                    "A draw offer counts only together with an own move (TO §2).".into()
                }
            }
            Refusal::NoOfferToAccept => {
                if de {
                    "Ihr Partner hat kein Remis angeboten; es gibt nichts anzunehmen (TO §2)."
                        .into()
                } else {
                    "Your partner has not offered a draw; there is nothing to accept (TO §2)."
                        .into()
                }
            }
            Refusal::ActAndMove { act } => {
                let act = act.name(lang);
                if de {
                    format!(
                        "{act} ersetzt den eigenen Zug; die Mail enthält aber auch einen Zug und ist zweifelhaft (TO §2)."
                    )
                } else {
                    format!(
                        "{act} replaces the own move, but the mail also contains a move and is doubtful (TO §2)."
                    )
                }
            }
            Refusal::TakeBack => {
                if de {
                    "Ein gültiger Zug, ein Remisangebot oder eine Aufgabe kann nicht zurückgenommen werden (TO §4). Es bleibt alles, wie es ist.".into()
                } else {
                    "A valid move, draw offer or resignation cannot be taken back (TO §4). Everything stays as it is.".into()
                }
            }
            Refusal::AnnouncementTooLate { days } => {
                if de {
                    format!(
                        "Mehr als 10 Tage müssen vorher angekündigt werden; für diesen Zug sind schon {days} Tage vergangen (TO §13)."
                    )
                } else {
                    format!(
                        "More than 10 days must be announced beforehand; {days} days have already passed on this move (TO §13)."
                    )
                }
            }
            Refusal::Stranger => {
                if de {
                    "Dies ist das Relais eines Fernschachturniers. Ihre Adresse ist in keinem Turnier gemeldet; die Mail wurde nicht bearbeitet. Spielen Sie in einem Turnier mit und schreiben von einer neuen Adresse, bitten Sie Ihren Turnierleiter, sie einzutragen. Weitere Mails von dieser Adresse bleiben heute unbeantwortet.".into()
                } else {
                    "This is the relay of a correspondence chess tournament. Your address is not registered in any tournament; the mail was not processed. If you play in a tournament and write from a new address, ask your tournament director to register it. Further mails from this address will not be answered today.".into()
                }
            }
            Refusal::NothingToDo => {
                if de {
                    "Die Mail enthält nichts, was das Relais ausführen kann: keinen Zug, kein Remisangebot, keine Aufgabe, keinen Urlaub, kein „Status“.".into()
                } else {
                    "The mail contains nothing the relay can act on: no move, draw offer, resignation, leave or \"Status\".".into()
                }
            }
            Refusal::Contradictory => {
                if de {
                    "Die Mail sagt zweierlei, das sich ausschließt (z. B. Aufgabe und Remis zugleich, oder eine Reklamation zusammen mit weiteren Zügen); sie ist zweifelhaft und wurde nicht ausgeführt (TO §2, §8). Bitte schreiben Sie eindeutig, was gelten soll.".into()
                } else {
                    "The mail says two things that exclude each other (e.g. a resignation and a draw at once, or a claim together with further moves); it is doubtful and was not acted on (TO §2, §8). Please write clearly what is to count.".into()
                }
            }
            Refusal::RepetitionClaimFalse { count } => {
                let times_de = if *count == 1 {
                    "erst einmal".to_string()
                } else {
                    format!("erst {count}-mal")
                };
                let times_en = match count {
                    1 => "only once".to_string(),
                    2 => "only twice".to_string(),
                    n => format!("only {n} times"),
                };
                if de {
                    format!(
                        "Die Reklamation der dreimaligen Stellungswiederholung trifft nicht zu: die Stellung kommt {times_de} vor (FIDE 9.2, TO §31). Remis durch Wiederholung gilt nur, wenn dieselbe Stellung (gleiche Figuren, gleiche Seite am Zug, gleiche Rochade- und En-passant-Rechte) zum dritten Mal entsteht. Nichts wurde ausgeführt oder weitergeleitet."
                    )
                } else {
                    format!(
                        "The claim of a threefold repetition does not hold: the position occurs {times_en} (FIDE 9.2, TO §31). A draw by repetition needs the same position (same pieces, same side to move, same castling and en-passant rights) for the third time. Nothing was played or forwarded."
                    )
                }
            }
            Refusal::ConditionalWithoutMove => {
                if de {
                    "Eventualzüge gelten nur zusammen mit einem eigenen Zug (TO §6). Bitte senden Sie Ihren Zug und die Eventualzüge in einer Mail.".into()
                } else {
                    "Conditional moves count only together with an own move (TO §6). Please send your move and the conditional moves in one mail.".into()
                }
            }
            Refusal::ConditionalWrongNumber {
                written,
                expected,
                line,
            } => {
                if de {
                    format!(
                        "In den Eventualzügen „{line}“ trägt {written} die falsche Nummer: erwartet {expected}. Eine Folge beginnt mit der Antwort Ihres Partners auf Ihren Zug und wechselt Zug um Zug die Farbe (TO §6). Nichts wurde weitergeleitet."
                    )
                } else {
                    format!(
                        "In the conditional moves \"{line}\", {written} carries the wrong number: expected {expected}. A line starts with your partner's reply to your move and alternates colours move by move (TO §6). Nothing was forwarded."
                    )
                }
            }
            Refusal::ConditionalBadMove { number, error } => {
                let why = why(error, lang);
                if de {
                    format!(
                        "Der Eventualzug {number} ist nicht möglich: {why} (TO §6, §8, §9). Nichts wurde weitergeleitet."
                    )
                } else {
                    format!(
                        "The conditional move {number} is not possible: {why} (TO §6, §8, §9). Nothing was forwarded."
                    )
                }
            }
            Refusal::ConditionalIncomplete { line } => {
                if de {
                    format!(
                        "Die Eventualzüge „{line}“ enden nicht mit Ihrer eigenen Antwort: eine Folge nennt einen Zug Ihres Partners und Ihre Antwort darauf (TO §6). Nichts wurde weitergeleitet."
                    )
                } else {
                    format!(
                        "The conditional moves \"{line}\" do not end with your own reply: a line names a move of your partner and your reply to it (TO §6). Nothing was forwarded."
                    )
                }
            }
            Refusal::ConditionalConflict { first, second } => {
                if de {
                    format!(
                        "Zwei Eventualzug-Folgen antworten auf dieselben Züge verschieden, {first} und {second}; das ist zweifelhaft (TO §2, §6, §8). Nichts wurde weitergeleitet."
                    )
                } else {
                    format!(
                        "Two conditional lines answer the same moves differently, {first} and {second}; that is doubtful (TO §2, §6, §8). Nothing was forwarded."
                    )
                }
            }
            Refusal::NotAConditionalMove { written } => {
                if de {
                    format!(
                        "{written} ist kein Eventualzug Ihres Partners: in einer Antwort dürfen Züge seiner Farbe nur stehen, wenn er sie als Eventualzüge vorgeschlagen hat (TO §6, §7). Nichts wurde weitergeleitet."
                    )
                } else {
                    format!(
                        "{written} is not a conditional move of your partner: an answer may contain moves of his colour only where he proposed them as conditional moves (TO §6, §7). Nothing was forwarded."
                    )
                }
            }
            Refusal::Leave(r) => r.message(lang),
            Refusal::Director(r) => r.message(lang),
            Refusal::Register(r) => r.message(lang),
            Refusal::Withdraw(r) => r.message(lang),
            Refusal::TooLarge { size, limit } => {
                if de {
                    format!(
                        "Die Mail ist mit {size} Bytes größer als die erlaubten {limit} Bytes; das Relais hat nur ihren Kopf gelesen und nichts ausgeführt. Bitte schicken Sie den Zug als kurze Textmail ohne Anhänge."
                    )
                } else {
                    format!(
                        "The mail has {size} bytes, more than the {limit} bytes allowed; the relay read only its header and did nothing. Please send the move as a short text mail without attachments."
                    )
                }
            }
            Refusal::AnswerLimit { limit } => {
                if de {
                    format!(
                        "Das Relais hat Ihnen heute schon {limit} automatische Antworten geschickt und antwortet Ihnen bis morgen nicht mehr. Ihre Züge werden weiter bearbeitet und weitergeleitet; nur Bestätigungen und Rückfragen bleiben heute aus."
                    )
                } else {
                    format!(
                        "The relay has already sent you {limit} automatic answers today and will not answer you again until tomorrow. Your moves are still processed and forwarded; only receipts and queries stop for today."
                    )
                }
            }
            Refusal::NotThroughReplyKey => {
                if de {
                    "Diese Mail wurde nicht bearbeitet: Sie kam nicht über Ihre persönliche Antwortadresse des Relais (relay+…@). Züge und Erklärungen zählen nur, wenn Sie auf eine Mail des Relais antworten. Bitte antworten Sie auf eine Mail des Relais zu Ihrer Partie. Haben Sie diese Mail nicht geschrieben, hat jemand Ihre Adresse als Absender benutzt; es wurde nichts ausgeführt.".into()
                } else {
                    "This mail was not acted on: it did not come through your private reply address of the relay (relay+…@). Moves and declarations count only when you reply to a mail of the relay. Please reply to a mail of the relay about your game. If you did not write this mail, someone used your address as the sender; nothing was done.".into()
                }
            }
            Refusal::Uncertain(ask) => super::request::message(ask, lang),
            Refusal::UnregisteredAddress {
                address,
                registered,
                director,
                director_email,
            } => {
                if de {
                    format!(
                        "Sie schreiben von {address}; im Turnier ist für Sie die Adresse {registered} eingetragen. Mails von einer anderen Adresse zählen nicht, es wurde nichts ausgeführt. Schreiben Sie von {registered} aus, oder bitten Sie den Turnierleiter {director} ({director_email}), diese Adresse einzutragen. Er schreibt dem Relais dazu die Zeile\n\n  Weitere Adresse: {registered} + {address}\n\n(oder „Adresse: {registered} -> {address}“, wenn alle Mails des Relais künftig an {address} gehen sollen)."
                    )
                } else {
                    format!(
                        "You wrote from {address}; the address registered for you in the tournament is {registered}. Mails from another address do not count; nothing was done. Write from {registered}, or ask the director {director} ({director_email}) to register this address. He sends the relay the line\n\n  also: {registered} + {address}\n\n(or \"address: {registered} -> {address}\" if all the relay's mails are to go to {address} from now on)."
                    )
                }
            }
        }
    }
}

/// Why a move text is no move, without the text itself in front ("Sf7: kein Springer …"), which
/// the sentence around it already names.
fn why(error: &NotationError, lang: Lang) -> String {
    let message = error.message(lang);
    let text = error.text();
    match message.split_once(": ") {
        Some((head, rest)) if !head.is_empty() && text.starts_with(head.trim_end_matches('…')) => {
            rest.to_string()
        }
        _ => message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::IllegalReason;
    use shakmaty::{Role, Square};

    /// TO §8: the query says exactly what is wrong, naming the move once.
    #[test]
    fn s8_query_names_the_move_once() {
        let illegal = Refusal::BadMove {
            number: "2. Sf7".into(),
            error: NotationError::Illegal {
                text: "Sf7".into(),
                reason: IllegalReason::NoPieceCanReach {
                    piece: Role::Knight,
                    to: Square::F7,
                },
            },
        };
        let de = illegal.message(Lang::De);
        assert_eq!(de.matches("Sf7").count(), 1, "{de}");
        assert!(de.starts_with("Ihr Zug 2. Sf7 ist unmöglich: "), "{de}");
        let ambiguous = Refusal::BadMove {
            number: "2. Bc4".into(),
            error: NotationError::Ambiguous {
                text: "Bc4".into(),
                readings: vec!["Lc4".into(), "c4".into()],
            },
        };
        let en = ambiguous.message(Lang::En);
        assert_eq!(en.matches("Bc4").count(), 1, "{en}");
        assert!(en.contains("Lc4") && en.contains(" c4"), "{en}");
        let unreadable = Refusal::BadMove {
            number: "2. Xy9".into(),
            error: NotationError::NotAMove { text: "Xy9".into() },
        };
        assert!(unreadable.message(Lang::De).contains("„Xy9“"));
    }
}
