//! The words of a director's notice ([`Told`]): its title and its text, in both languages.

use crate::core::model::Told;
use crate::lang::Lang;
use crate::render::words::days as d;

/// The notice's title (the `director` mail's subject).
pub fn title(t: &Told, lang: Lang) -> String {
    let de = lang == Lang::De;
    match t {
        Told::ForfeitConfirmed { result, .. } if de => {
            format!("Zeitüberschreitung bestätigt, {result}")
        }
        Told::ForfeitConfirmed { result, .. } => format!("time forfeit confirmed, {result}"),
        Told::Scored { result, .. } if de => format!("Ergebnis {result}"),
        Told::Scored { result, .. } => format!("result {result}"),
        Told::MovesOnly { on: true, .. } if de => "Nur Züge (TO §30)".into(),
        Told::MovesOnly { on: true, .. } => "moves only (TO §30)".into(),
        Told::MovesOnly { .. } if de => "Beschränkung auf Züge aufgehoben (TO §30)".into(),
        Told::MovesOnly { .. } => "restriction to moves lifted (TO §30)".into(),
        Told::Resumed { .. } if de => "Partie wird fortgesetzt".into(),
        Told::Resumed { .. } => "game resumed".into(),
        Told::TimeAdjusted { name, days, .. } => {
            let sign = if *days >= 0 { "+" } else { "-" };
            let n = d(days.unsigned_abs().into(), lang);
            if de {
                format!("Bedenkzeit {sign}{n} für {name}")
            } else {
                format!("time {sign}{n} for {name}")
            }
        }
        Told::Leave {
            special: true,
            name,
            ..
        } if de => format!("Sonderurlaub für {name}"),
        Told::Leave {
            special: true,
            name,
            ..
        } => format!("special leave for {name}"),
        Told::Address {
            name, change: true, ..
        } if de => format!("Neue Adresse von {name}"),
        Told::Address {
            name, change: true, ..
        } => format!("new address of {name}"),
        Told::Address { name, .. } if de => format!("Weitere Adresse von {name}"),
        Told::Address { name, .. } => format!("further address of {name}"),
        Told::Leave { name, .. } if de => format!("Urlaub von {name} nachträglich anerkannt"),
        Told::Leave { name, .. } => format!("late leave of {name} accepted"),
    }
}

/// The notice's text.
pub fn text(t: &Told, lang: Lang) -> String {
    let de = lang == Lang::De;
    match t {
        Told::ForfeitConfirmed {
            name,
            game: g,
            result,
        } if de => format!(
            "Die zweite Zeitüberschreitung von {name} in der Partie {g} ist bestätigt (TO §22). Die Partie ist für {name} verloren: {result}."
        ),
        Told::ForfeitConfirmed {
            name,
            game: g,
            result,
        } => format!(
            "The second time forfeit of {name} in game {g} is confirmed (TO §22). {name} loses the game: {result}."
        ),
        Told::Scored {
            game: g,
            result,
            was,
        } if de => {
            let was = was
                .as_ref()
                .map(|b| format!(" (bisher {b})"))
                .unwrap_or_default();
            format!(
                "Die Partie {g} ist mit {result}{was} gewertet (Entscheidung des Turnierleiters, TO §26, §31)."
            )
        }
        Told::Scored {
            game: g,
            result,
            was,
        } => {
            let was = was
                .as_ref()
                .map(|b| format!(" (was {b})"))
                .unwrap_or_default();
            format!("Game {g} is scored {result}{was} (director's decision, TO §26, §31).")
        }
        Told::MovesOnly { game: g, on: true } => {
            if de {
                format!(
                    "Der Turnierleiter beschränkt die Partie {g} auf Züge (TO §30): Von jetzt an leitet das Relais keine Worte der Spieler mehr weiter, weder neben einem Zug noch als Nachricht. Züge, Anträge und die Mitteilungen des Relais gehen weiter wie gewohnt."
                )
            } else {
                format!(
                    "The tournament director restricts game {g} to moves (TO §30): from now on the relay forwards no words of the players, neither beside a move nor as a message. Moves, requests and the relay's own mails go on as usual."
                )
            }
        }
        Told::MovesOnly { game: g, .. } => {
            if de {
                format!(
                    "Der Turnierleiter hebt die Beschränkung der Partie {g} auf Züge auf (TO §30): Die Worte der Spieler werden wieder weitergeleitet."
                )
            } else {
                format!(
                    "The tournament director lifts the restriction of game {g} to moves (TO §30): the players' words are forwarded again."
                )
            }
        }
        Told::Resumed { game: g, to_move } => {
            let to_move = crate::render::words::colour(*to_move, lang);
            if de {
                format!(
                    "Die Partie {g} wird auf Anweisung des Turnierleiters fortgesetzt. {to_move} ist am Zug; Züge werden wieder weitergeleitet."
                )
            } else {
                format!(
                    "Game {g} is resumed on the director's instruction. {to_move} is to move; moves are forwarded again."
                )
            }
        }
        Told::TimeAdjusted {
            game: g,
            name,
            days,
            used,
        } => {
            let n = days.unsigned_abs();
            let (amount, used) = (d(n.into(), lang), d((*used).into(), lang));
            if de {
                let werden = if n == 1 { "wird" } else { "werden" };
                let verb = if *days >= 0 {
                    "angerechnet"
                } else {
                    "gutgeschrieben"
                };
                format!(
                    "In der Partie {g} {werden} {name} {amount} Bedenkzeit {verb} (TO §8, §30). Verbraucht im laufenden Zeitabschnitt (ohne den laufenden Zug): jetzt {used}."
                )
            } else {
                let are = if n == 1 { "is" } else { "are" };
                let verb = if *days >= 0 {
                    "charged to"
                } else {
                    "given back to"
                };
                format!(
                    "In game {g}, {amount} of thinking time {are} {verb} {name} (TO §8, §30). Used in the current period (without the running move): now {used}."
                )
            }
        }
        Told::Address {
            name,
            address,
            change,
            tournament: tid,
        } => match (change, de) {
            (true, true) => format!(
                "Der Turnierleiter hat die Adresse von {name} im Turnier {tid} geändert: Die Mails des Relais an {name} gehen ab jetzt an {address}, und Mails von dieser Adresse zählen als die von {name}."
            ),
            (true, false) => format!(
                "The director changed the address of {name} in tournament {tid}: the relay's mails to {name} go to {address} from now on, and mails from that address count as those of {name}."
            ),
            (false, true) => format!(
                "Der Turnierleiter hat für {name} im Turnier {tid} die weitere Adresse {address} eingetragen: Mails von dieser Adresse zählen als die von {name}. Die Mails des Relais gehen weiter an die bisherige Adresse."
            ),
            (false, false) => format!(
                "The director added the address {address} for {name} in tournament {tid}: mails from that address count as those of {name}. The relay's mails still go to the registered address."
            ),
        },
        Told::Leave {
            special,
            name,
            from,
            to,
            tournament: tid,
        } => {
            let days = (*to - *from).num_days() + 1;
            let (f, t) = (
                crate::render::words::date(*from, lang),
                crate::render::words::date(*to, lang),
            );
            match (special, de) {
                (true, true) => format!(
                    "Der Turnierleiter gewährt {name} Sonderurlaub vom {f} bis {t} ({days} Tage) im Turnier {tid}, über das Urlaubskonto hinaus (TO §24). In dieser Zeit ruhen die Bedenkzeit von {name} und alle Fristen gegen {name} in allen Partien des Turniers; die Uhren der Partner laufen, bis sie gezogen haben."
                ),
                (true, false) => format!(
                    "The director grants {name} special leave from {f} to {t} ({days} days) in tournament {tid}, beyond the leave budget (TO §24). Meanwhile the thinking time of {name} and every deadline against {name} rest in all games of the tournament; the partners' clocks run until they have moved."
                ),
                (false, true) => format!(
                    "Der Turnierleiter erkennt den verspätet gemeldeten Urlaub von {name} vom {f} bis {t} ({days} Tage) im Turnier {tid} an (TO §25). Für diese Tage ruhen die Bedenkzeit von {name} und alle Fristen gegen {name} in allen Partien des Turniers."
                ),
                (false, false) => format!(
                    "The director accepts the late leave notice of {name} from {f} to {t} ({days} days) in tournament {tid} (TO §25). For these days the thinking time of {name} and every deadline against {name} rest in all games of the tournament."
                ),
            }
        }
    }
}
