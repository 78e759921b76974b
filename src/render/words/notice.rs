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
        Told::Annulled { .. } if de => "Partie annulliert (TO §26)".into(),
        Told::Annulled { .. } => "game annulled (TO §26)".into(),
        Told::MovesOnly { on: true, .. } if de => "Nur Züge (TO §30)".into(),
        Told::MovesOnly { on: true, .. } => "moves only (TO §30)".into(),
        Told::MovesOnly { .. } if de => "Beschränkung auf Züge aufgehoben (TO §30)".into(),
        Told::MovesOnly { .. } => "restriction to moves lifted (TO §30)".into(),
        Told::Resumed { .. } if de => "Partie wird fortgesetzt".into(),
        Told::Resumed { .. } => "game resumed".into(),
        Told::TimeAdjusted { name, days, .. } => {
            let n = d(days.unsigned_abs().into(), lang);
            match (de, *days > 0) {
                (true, true) => format!("Bedenkzeit: {n} angerechnet für {name}"),
                (true, false) => format!("Bedenkzeit: {n} gutgeschrieben für {name}"),
                (false, true) => format!("thinking time: {n} charged to {name}"),
                (false, false) => format!("thinking time: {n} credited to {name}"),
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
        Told::Correspondence { game } if de => format!("Korrespondenz der Partie {game} (TO §11)"),
        Told::Correspondence { game } => format!("correspondence of game {game} (TO §11)"),
        Told::CorrespondenceRotated { game, .. } if de => {
            format!("Korrespondenz der Partie {game} (TO §11, Fax 2.8)")
        }
        Told::CorrespondenceRotated { game, .. } => {
            format!("correspondence of game {game} (TO §11, Fax 2.8)")
        }
        Told::Pgn { target } if de => format!("PGN von {target}"),
        Told::Pgn { target } => format!("PGN of {target}"),
        Told::Verified { game } if de => format!("Prüfung der Partie {game} (TO §29)"),
        Told::Verified { game } => format!("check of game {game} (TO §29)"),
        Told::Withdrawn { name, .. } if de => format!("Rücktritt von {name} (TO §26)"),
        Told::Withdrawn { name, .. } => format!("withdrawal of {name} (TO §26)"),
        Told::Asked { .. } if de => "Rückfrage des Turnierleiters (TO §23)".into(),
        Told::Asked { .. } => "a question of the tournament director (TO §23)".into(),
        Told::Answered { name, .. } if de => {
            format!("Antwort von {name} auf die Rückfrage (TO §23)")
        }
        Told::Answered { name, .. } => format!("answer of {name} to the question (TO §23)"),
        Told::Unanswered { name, .. } if de => {
            format!("Rückfrage an {name} unbeantwortet (TO §23)")
        }
        Told::Unanswered { name, .. } => format!("question to {name} unanswered (TO §23)"),
        Told::ThroughDirector { on: true, .. } if de => {
            "Züge über den Turnierleiter (TO §30)".into()
        }
        Told::ThroughDirector { on: true, .. } => "moves through the director (TO §30)".into(),
        Told::ThroughDirector { .. } if de => {
            "Züge nicht mehr über den Turnierleiter (TO §30)".into()
        }
        Told::ThroughDirector { .. } => "moves no longer through the director (TO §30)".into(),
        Told::Registered { tournament, .. } if de => format!("Turnier {tournament} angemeldet"),
        Told::Registered { tournament, .. } => format!("tournament {tournament} registered"),
        Told::Checked { tournament, .. } if de => {
            format!("Turnierdatei {tournament} geprüft: in Ordnung")
        }
        Told::Checked { tournament, .. } => {
            format!("tournament file {tournament} checked: it holds")
        }
        Told::CheckFailed(_) if de => "Turnierdatei geprüft: nicht anmeldbar".into(),
        Told::CheckFailed(_) => "tournament file checked: it cannot be registered".into(),
        Told::TournamentWithdrawn { tournament, .. } if de => {
            format!("Turnier {tournament} zurückgezogen")
        }
        Told::TournamentWithdrawn { tournament, .. } => {
            format!("tournament {tournament} withdrawn")
        }
        Told::ToDirector {
            name, appeal: true, ..
        } if de => format!("Einspruch von {name} (TO §29)"),
        Told::ToDirector {
            name, appeal: true, ..
        } => format!("appeal of {name} (TO §29)"),
        Told::ToDirector { name, .. } if de => format!("Antwort von {name} auf eine Entscheidung"),
        Told::ToDirector { name, .. } => format!("{name}'s answer to a decision"),
        Told::Warned { name, .. } if de => format!("Ermahnung von {name} (TO §30)"),
        Told::Warned { name, .. } => format!("warning of {name} (TO §30)"),
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
        Told::Annulled { game: g, was } => {
            let was = match (was, de) {
                (Some(b), true) => format!(" (bisher {b})"),
                (Some(b), false) => format!(" (was {b})"),
                (None, _) => String::new(),
            };
            if de {
                format!(
                    "Die Partie {g}{was} ist annulliert (TO §26): Sie wird mit * gewertet und zählt in der Kreuztabelle nicht."
                )
            } else {
                format!(
                    "Game {g}{was} is annulled (TO §26): it is scored * and does not count in the crosstable."
                )
            }
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
            before,
            used,
            ..
        } => {
            let n = days.unsigned_abs();
            let (amount, before, used) = (
                d(n.into(), lang),
                d((*before).into(), lang),
                d((*used).into(), lang),
            );
            if de {
                let werden = if n == 1 { "wird" } else { "werden" };
                let (verb, meaning, rule) = if *days > 0 {
                    ("angerechnet", "mehr verbraucht", "TO §30")
                } else {
                    (
                        "gutgeschrieben",
                        "zurückgegeben, weniger verbraucht",
                        "TO §8",
                    )
                };
                format!(
                    "In der Partie {g} {werden} {name} {amount} Bedenkzeit {verb} ({meaning}; {rule}). Verbraucht im laufenden Zeitabschnitt (ohne den laufenden Zug): bisher {before}, jetzt {used}."
                )
            } else {
                let are = if n == 1 { "is" } else { "are" };
                let (verb, meaning, rule) = if *days > 0 {
                    ("charged to", "more used", "TO §30")
                } else {
                    ("credited to", "given back, fewer used", "TO §8")
                };
                format!(
                    "In game {g}, {amount} of thinking time {are} {verb} {name} ({meaning}; {rule}). Used in the current period (without the running move): before {before}, now {used}."
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
        _ => desk_text(t, lang),
    }
}

/// The text of a notice of the director's desk (TO §11, §23, §26, §29, §30).
fn desk_text(t: &Told, lang: Lang) -> String {
    let de = lang == Lang::De;
    let date = |d| crate::render::words::date(d, lang);
    match t {
        Told::Correspondence { game } if de => format!(
            "Die gesamte Korrespondenz der Partie {game} liegt als mbox-Datei bei (TO §11): jede Mail, die das Relais zu dieser Partie erhalten und gesendet hat, byte-genau, wie „fernzug export mbox“ sie ausgibt. Thunderbird öffnet sie mit der Erweiterung ImportExportTools NG (Extras → ImportExportTools NG → mbox-Datei importieren); jeder Texteditor zeigt sie als Text. Outlook und Webmail öffnen keine mbox-Dateien."
        ),
        Told::Correspondence { game } => format!(
            "The whole correspondence of game {game} is attached as an mbox file (TO §11): every mail the relay received and sent about this game, byte for byte, as \"fernzug export mbox\" writes it. Thunderbird opens it with the add-on ImportExportTools NG (Tools → ImportExportTools NG → import mbox file); any text editor shows it as text. Outlook and webmail do not open mbox files."
        ),
        Told::CorrespondenceRotated { game, on } => {
            let when = match (on, de) {
                (Some(d), true) => format!("am {}", date(*d)),
                (Some(d), false) => format!("on {}", date(*d)),
                (None, true) => "vier Wochen nach dem Turnierende".into(),
                (None, false) => "four weeks after the tournament's end".into(),
            };
            if de {
                format!(
                    "Die Mails der Partie {game} sind nicht mehr im Archiv: Es wurde {when} geleert, vier Wochen nach dem Ende des Turniers (Fax 2.8). Was von den Aufzeichnungen bleibt, liegt bei: die Partie als PGN-Datei, und unten die Prüfung ihres versiegelten Protokolls (TO §29)."
                )
            } else {
                format!(
                    "The mails of game {game} are no longer in the archive: it was emptied {when}, four weeks after the tournament's end (Fax 2.8). What is left of the records is attached: the game as a PGN file, and below the check of its sealed record (TO §29)."
                )
            }
        }
        Told::Pgn { target } if de => format!(
            "Die Partien von {target} liegen als PGN-Datei bei, wie „fernzug export pgn“ sie ausgibt (laufende Partien bis zum letzten Zug)."
        ),
        Told::Pgn { target } => format!(
            "The games of {target} are attached as a PGN file, as \"fernzug export pgn\" writes it (running games up to their last move)."
        ),
        Told::Verified { game } if de => format!(
            "Das Relais hat das versiegelte Protokoll der Partie {game} nachgerechnet (TO §29): jedes Ereignis gegen die Prüfsumme davor und jede Mail, aus der es kam, gegen das Archiv. Das Ergebnis von „fernzug verify“:"
        ),
        Told::Verified { game } => format!(
            "The relay recomputed the sealed record of game {game} (TO §29): each event against the hash before it and each mail it came from against the archive. The result of \"fernzug verify\":"
        ),
        Told::Withdrawn {
            name,
            tournament,
            annulled,
            games,
        } => {
            let list = games
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            match (annulled, de) {
                (false, true) => format!(
                    "{name} ist vom Turnier {tournament} zurückgetreten (TO §26). Seine offenen Partien sind für ihn verloren gewertet: {list}. Seine beendeten Partien bleiben, wie sie sind. Jeder Partner hat den Partiebericht erhalten."
                ),
                (false, false) => format!(
                    "{name} has withdrawn from tournament {tournament} (TO §26). His unfinished games are scored as lost for him: {list}. His finished games stand. Each partner got the game report."
                ),
                (true, true) => format!(
                    "{name} ist vom Turnier {tournament} zurückgetreten (TO §26). Seine offenen Partien sind annulliert (*) und zählen nicht in der Kreuztabelle: {list}. Seine beendeten Partien bleiben, wie sie sind. Jeder Partner hat den Partiebericht erhalten."
                ),
                (true, false) => format!(
                    "{name} has withdrawn from tournament {tournament} (TO §26). His unfinished games are annulled (*) and do not count in the crosstable: {list}. His finished games stand. Each partner got the game report."
                ),
            }
        }
        Told::ToDirector {
            name,
            email,
            game,
            appeal,
            decided,
            text,
            came,
            moves,
        } => {
            let what = decided
                .as_ref()
                .map(|(d, on)| (super::decision::decided(d, lang), date(*on)));
            let head = match (de, appeal, &what) {
                (true, true, Some((d, on))) => format!(
                    "{name} <{email}> legt Einspruch ein (TO §29), Partie {game}; zuletzt entschieden: {d} am {on}. Eingegangen am {}:",
                    date(*came)
                ),
                (true, true, None) => format!(
                    "{name} <{email}> legt Einspruch ein (TO §29), Partie {game}. Eingegangen am {}:",
                    date(*came)
                ),
                (true, false, Some((d, on))) => format!(
                    "{name} <{email}> antwortet auf {d} vom {on}, Partie {game}. Eingegangen am {}; die Antwort ging nur an Sie, nicht an den Partner:",
                    date(*came)
                ),
                (true, false, None) => format!(
                    "{name} <{email}> antwortet auf eine Entscheidung, Partie {game}. Eingegangen am {}; die Antwort ging nur an Sie, nicht an den Partner:",
                    date(*came)
                ),
                (false, true, Some((d, on))) => format!(
                    "{name} <{email}> appeals (TO §29), game {game}; last decided: {d} on {on}. Received on {}:",
                    date(*came)
                ),
                (false, true, None) => format!(
                    "{name} <{email}> appeals (TO §29), game {game}. Received on {}:",
                    date(*came)
                ),
                (false, false, Some((d, on))) => format!(
                    "{name} <{email}> answers {d} of {on}, game {game}. Received on {}; the answer went to you only, not to the partner:",
                    date(*came)
                ),
                (false, false, None) => format!(
                    "{name} <{email}> answers a decision, game {game}. Received on {}; the answer went to you only, not to the partner:",
                    date(*came)
                ),
            };
            let mut out = format!("{head}\n\n{text}");
            if !moves.is_empty() {
                let list = moves.join(" ");
                out.push_str(&if de {
                    format!("\n\nDie Mail enthält Züge ({list}); sie wurden nicht gespielt, und {name} wurde gesagt, wohin Züge gehen.")
                } else {
                    format!("\n\nThe mail holds moves ({list}); they were not played, and {name} was told where moves go.")
                });
            }
            out
        }
        Told::Warned {
            name,
            tournament,
            games,
            ..
        } => {
            let list = games
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ");
            match (de, games.is_empty()) {
                (true, false) => format!(
                    "Der Turnierleiter erteilt {name} im Turnier {tournament} eine Ermahnung (TO §30). Sie ist in den Unterlagen der Partien {list} vermerkt."
                ),
                (true, true) => format!(
                    "Der Turnierleiter erteilt {name} im Turnier {tournament} eine Ermahnung (TO §30)."
                ),
                (false, false) => format!(
                    "The tournament director gives {name} a formal warning in tournament {tournament} (TO §30). It is recorded in the records of the games {list}."
                ),
                (false, true) => format!(
                    "The tournament director gives {name} a formal warning in tournament {tournament} (TO §30)."
                ),
            }
        }
        Told::Asked { name, text, asked } if de => format!(
            "Rückfrage an {name} vom {} (TO §23):\n\n„{text}“",
            date(*asked)
        ),
        Told::Asked { name, text, asked } => format!(
            "Question to {name} of {} (TO §23):\n\n\"{text}\"",
            date(*asked)
        ),
        Told::Answered {
            name,
            question,
            asked,
            answer,
            moves,
        } => {
            let mut out = if de {
                format!(
                    "{name} antwortet auf die Rückfrage vom {}:\n\n„{question}“\n\nDie Antwort:\n\n{answer}",
                    date(*asked)
                )
            } else {
                format!(
                    "{name} answers the question of {}:\n\n\"{question}\"\n\nThe answer:\n\n{answer}",
                    date(*asked)
                )
            };
            if !moves.is_empty() {
                let list = moves.join(" ");
                out.push_str(&if de {
                    format!("\n\nDie Antwort enthält Züge ({list}): Sie wurden nicht gespielt. Züge gehen als Antwort auf die Zugmails der Partie an das Relais, nicht an den Turnierleiter.")
                } else {
                    format!("\n\nThe answer holds moves ({list}): they were not played. Moves go to the relay as a reply to the game's move mails, not to the tournament director.")
                });
            }
            out
        }
        Told::Unanswered {
            name,
            question,
            asked,
        } if de => format!(
            "{name} hat die Rückfrage vom {} („{question}“) seit 14 Tagen nicht beantwortet. Nach TO §23 können Sie ihn als zurückgetreten behandeln: „Rücktritt: … Wertung: verloren“ oder „… annulliert“.",
            date(*asked)
        ),
        Told::Unanswered {
            name,
            question,
            asked,
        } => format!(
            "{name} has not answered the question of {} (\"{question}\") for 14 days. Under TO §23 you may treat him as withdrawn: \"withdraw: … score: lost\" or \"… annulled\".",
            date(*asked)
        ),
        Told::ThroughDirector { game, on: true } if de => format!(
            "Der Turnierleiter hat angeordnet, dass die Züge der Partie {game} über ihn gehen (TO §30): Von jetzt an erhält er jede Zugmail dieser Partie in Kopie. Für die Spieler ändert sich sonst nichts."
        ),
        Told::ThroughDirector { game, on: true } => format!(
            "The tournament director has ordered that the moves of game {game} go through him (TO §30): from now on he gets a copy of every move mail of this game. Nothing else changes for the players."
        ),
        Told::ThroughDirector { game, .. } if de => {
            format!("Die Züge der Partie {game} gehen nicht mehr über den Turnierleiter (TO §30).")
        }
        Told::ThroughDirector { game, .. } => format!(
            "The moves of game {game} no longer go through the tournament director (TO §30)."
        ),
        Told::Registered {
            tournament,
            name,
            start,
            players,
            games,
            fax_group,
        } => {
            let mut text = registered_text(tournament, name, *start, *players, games, lang);
            if *fax_group {
                text.push_str(&fax_group_text(*players, lang));
            }
            text
        }
        Told::Checked {
            tournament,
            name,
            start,
            players,
            games,
            fax_group,
        } => {
            let start = crate::render::words::date(*start, lang);
            let mut text = if de {
                format!(
                    "Die Turnierdatei ist in Ordnung: Das Turnier {tournament} („{name}“) hätte {players} Spieler und {}, Beginn am {start}. Angemeldet ist nichts; zum Anmelden schicken Sie dieselbe Datei mit dem Betreff „Turnier anmelden“.\n\nDie Partien:\n",
                    games_word(games.len(), lang)
                )
            } else {
                format!(
                    "The tournament file holds: tournament {tournament} (\"{name}\") would have {players} players and {}, starting on {start}. Nothing was registered; to register it, send the same file with the subject \"register tournament\".\n\nThe games:\n",
                    games_word(games.len(), lang)
                )
            };
            text.push_str(&games_table(tournament, games, lang, Some(LISTED_GAMES)));
            if games.len() > LISTED_GAMES {
                text.push('.');
            }
            if *fax_group {
                text.push_str(&match lang {
                    Lang::De => format!(
                        "\n\nHinweis: Telefaxturniere werden in Gruppen zu 7 Spielern gespielt (Fax 1.2); diese Gruppe hat {players}. Das Turnier würde trotzdem angemeldet."
                    ),
                    Lang::En => format!(
                        "\n\nNote: telefax tournaments are played in groups of 7 players (Fax 1.2); this group has {players}. The tournament would be registered all the same."
                    ),
                });
            }
            text
        }
        Told::CheckFailed(r) => r.message(lang),
        Told::TournamentWithdrawn {
            tournament,
            name,
            players,
            games,
        } => {
            let (de_games, en_games) = match games {
                1 => (
                    "Seine Partie wird nicht gespielt, und das Relais vergisst sie".to_string(),
                    "its game will not be played, and the relay forgets it".to_string(),
                ),
                n => (
                    format!("Seine {n} Partien werden nicht gespielt, und das Relais vergisst sie"),
                    format!("its {n} games will not be played, and the relay forgets them"),
                ),
            };
            if de {
                format!(
                    "Das Turnier {tournament} („{name}“) ist zurückgezogen, bevor ein Zug gespielt wurde: {de_games} mit allem, was dazugehört — Antwortadressen, Fristen und die noch nicht gesendeten Startmails. Alle {players} Spieler haben diese Mitteilung erhalten. Mails zu diesen Partien nimmt das Relais nicht mehr an."
                )
            } else {
                format!(
                    "Tournament {tournament} (\"{name}\") is withdrawn before any move was played: {en_games} with all that belongs to it — reply addresses, deadlines and the start mails not yet sent. All {players} players got this notice. The relay takes no more mails about these games."
                )
            }
        }
        _ => String::new(),
    }
}

/// `1 Partie` / `3 Partien`, `1 game` / `3 games`.
fn games_word(n: usize, lang: Lang) -> String {
    match (lang, n) {
        (Lang::De, 1) => "1 Partie".into(),
        (Lang::De, n) => format!("{n} Partien"),
        (Lang::En, 1) => "1 game".into(),
        (Lang::En, n) => format!("{n} games"),
    }
}

/// Fax 1.2's warning: a telefax group has seven players.
pub fn fax_group_text(players: usize, lang: Lang) -> String {
    match lang {
        Lang::De => format!(
            "\n\nHinweis: Telefaxturniere werden in Gruppen zu 7 Spielern gespielt (Fax 1.2); diese Gruppe hat {players}. Das Turnier ist trotzdem angemeldet."
        ),
        Lang::En => format!(
            "\n\nNote: telefax tournaments are played in groups of 7 players (Fax 1.2); this group has {players}. The tournament is registered all the same."
        ),
    }
}

/// The most games a registration notice lists one by one.
const LISTED_GAMES: usize = 500;

/// A tournament registered by mail: what it is and its games, numbered.
fn registered_text(
    tournament: &str,
    name: &str,
    start: chrono::NaiveDate,
    players: usize,
    games: &[(u32, u32, String, String)],
    lang: Lang,
) -> String {
    let de = lang == Lang::De;
    let start = crate::render::words::date(start, lang);
    let mut text = if de {
        format!(
            "Das Turnier {tournament} („{name}“) ist angemeldet: {players} Spieler, {} Partien, Beginn am {start}. Die Startmails gehen sogleich an die Spieler; die Bedenkzeit beginnt am Starttag.\n\nDie Partien:\n",
            games.len()
        )
    } else {
        format!(
            "Tournament {tournament} (\"{name}\") is registered: {players} players, {} games, starting on {start}. The start mails go to the players right away; the thinking time begins on the start day.\n\nThe games:\n",
            games.len()
        )
    };
    text.push_str(&games_table(tournament, games, lang, Some(LISTED_GAMES)));
    if games.len() > LISTED_GAMES {
        text.push_str(if de {
            " (alle mit „Status“)."
        } else {
            " (all of them with \"Status\")."
        });
    }
    text
}

/// The games of tournament `tournament` (number, round, White, Black), one line each, each line
/// after a line break (`FAX-2026-3/2  Runde 2:  Anna Adler – Bert Berger`); the first `limit`
/// of them (all: `None`), then how many more there are. The table a registration, a check by
/// mail and `fernzug tournament check` show.
pub fn games_table(
    tournament: &str,
    games: &[(u32, u32, String, String)],
    lang: Lang,
    limit: Option<usize>,
) -> String {
    let de = lang == Lang::De;
    let round = if de { "Runde" } else { "round" };
    let shown = limit.unwrap_or(games.len());
    let mut text = String::new();
    for (n, r, white, black) in games.iter().take(shown) {
        text.push_str(&format!(
            "\n{tournament}/{n}  {round} {r}:  {white} – {black}"
        ));
    }
    if games.len() > shown {
        let more = games.len() - shown;
        text.push_str(&if de {
            format!("\n… und {more} weitere")
        } else {
            format!("\n… and {more} more")
        });
    }
    text
}
