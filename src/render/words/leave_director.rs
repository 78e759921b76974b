//! The words of a [`LeaveRefusal`] (TO §24/§25), a [`DirectorRefusal`], a [`RegisterRefusal`]
//! and a [`WithdrawRefusal`], in both languages.

use chrono::NaiveDate;

use crate::core::clock::{BUDGET_DAYS, MIN_LEAVE_DAYS};
use crate::core::model::{Command, DirectorRefusal, LeaveRefusal};
use crate::core::model::{FileFault, FileProblem, RegisterRefusal, WithdrawRefusal};
use crate::lang::Lang;

impl LeaveRefusal {
    /// One or two sentences in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        let d = |x: &NaiveDate| crate::render::words::date(*x, lang);
        let de = lang == Lang::De;
        match self {
            LeaveRefusal::BadSpan => {
                if de {
                    "Der Urlaub kann nicht gelesen werden: Bitte schreiben Sie Beginn und Ende, z. B. „Urlaub: 20.12.2026 – 03.01.2027“ (das Ende nicht vor dem Beginn).".into()
                } else {
                    "The leave cannot be read: please write its first and last day, e.g. \"leave 2026-12-20 to 2027-01-03\" (the end not before the beginning).".into()
                }
            }
            LeaveRefusal::TooShort { from, to, days } => {
                if de {
                    format!(
                        "Der Urlaub vom {} bis {} umfasst nur {days} Tage; ein Urlaub dauert mindestens {MIN_LEAVE_DAYS} zusammenhängende Tage (TO §24).",
                        d(from),
                        d(to)
                    )
                } else {
                    format!(
                        "The leave from {} to {} has only {days} days; a leave lasts at least {MIN_LEAVE_DAYS} consecutive days (TO §24).",
                        d(from),
                        d(to)
                    )
                }
            }
            LeaveRefusal::InThePast { from, today } => {
                if de {
                    format!(
                        "Der Urlaub beginnt am {}, vor dem heutigen Tag ({}). Urlaub muss vor Beginn gemeldet werden; eine nachträgliche Meldung kann nur der Turnierleiter anerkennen (TO §25).",
                        d(from),
                        d(today)
                    )
                } else {
                    format!(
                        "The leave begins on {}, before today ({}). Leave must be announced before it begins; only the tournament director can accept a late notice (TO §25).",
                        d(from),
                        d(today)
                    )
                }
            }
            LeaveRefusal::Overlap {
                from,
                to,
                other_from,
                other_to,
            } => {
                if de {
                    format!(
                        "Der Urlaub vom {} bis {} überschneidet sich mit Ihrem Urlaub vom {} bis {}.",
                        d(from),
                        d(to),
                        d(other_from),
                        d(other_to)
                    )
                } else {
                    format!(
                        "The leave from {} to {} overlaps your leave from {} to {}.",
                        d(from),
                        d(to),
                        d(other_from),
                        d(other_to)
                    )
                }
            }
            LeaveRefusal::OverBudget {
                tournament,
                year_from,
                year_to,
                taken,
                asked,
            } => {
                let left = (BUDGET_DAYS - taken).max(0);
                if de {
                    format!(
                        "Im Turnierjahr {} – {} des Turniers {tournament} haben Sie schon {taken} Urlaubstage; mit diesem Urlaub ({asked} Tage in diesem Jahr) wären es {}. Erlaubt sind {BUDGET_DAYS} Tage (TO §24), es bleiben {left}. Sonderurlaub kann nur der Turnierleiter gewähren.",
                        d(year_from),
                        d(year_to),
                        taken + asked
                    )
                } else {
                    format!(
                        "In the tournament year {} – {} of tournament {tournament} you already have {taken} days of leave; with this leave ({asked} days in that year) it would be {}. {BUDGET_DAYS} days are allowed (TO §24), {left} are left. Only the tournament director can grant special leave.",
                        d(year_from),
                        d(year_to),
                        taken + asked
                    )
                }
            }
            LeaveRefusal::NoTournament => {
                if de {
                    "Sie haben keine laufende Partie, für die ein Urlaub gelten könnte.".into()
                } else {
                    "You have no running game a leave could apply to.".into()
                }
            }
            LeaveRefusal::NotInTournament { tournament } => {
                if de {
                    format!("Sie spielen nicht im Turnier {tournament}.")
                } else {
                    format!("You do not play in tournament {tournament}.")
                }
            }
            LeaveRefusal::NothingToWithdraw => {
                if de {
                    "Ich finde keinen Urlaub von Ihnen, der noch nicht begonnen hat (mit diesen Daten). Nur ein geplanter Urlaub lässt sich zurückziehen; einen laufenden Urlaub beendet Ihr nächster Zug (TO §24).".into()
                } else {
                    "I find no leave of yours that has not begun yet (with these dates). Only a planned leave can be withdrawn; a leave under way ends with your next move (TO §24).".into()
                }
            }
            LeaveRefusal::WhichToWithdraw { leaves } => {
                let list = leaves
                    .iter()
                    .map(|(from, to)| format!("{} – {}", d(from), d(to)))
                    .collect::<Vec<_>>()
                    .join(", ");
                if de {
                    format!(
                        "Sie haben mehrere geplante Urlaube ({list}). Bitte nennen Sie den, den Sie zurückziehen, mit seinen Daten: „Urlaub vom … bis … zurückgezogen“."
                    )
                } else {
                    format!(
                        "You have several planned leaves ({list}). Please name the one you withdraw by its dates: \"cancel leave from … to …\"."
                    )
                }
            }
        }
    }
}

/// Every command form, German (the forms in English follow in [`FORMS_EN`]).
pub const FORMS_DE: &str = "\
ZÜ bestätigt                                   – zweite Zeitüberschreitung bestätigen: Partie verloren (TO §22)
Ergebnis: 1-0   (oder 0-1, 1/2-1/2, annulliert)   – Ergebnis festsetzen, auch einer beendeten Partie (TO §26, §31, Streitfälle)
Sonderurlaub: 01.02.2027 – 14.02.2027 für spieler@…   – Sonderurlaub über das Urlaubskonto hinaus (TO §24)
Bedenkzeit anrechnen: 3 Tage für spieler@…, Grund: …      – 3 Tage mehr verbraucht (TO §30; auch „Bedenkzeit: +3 Tage für …“)
Bedenkzeit gutschreiben: 3 Tage für spieler@…, Grund: …   – 3 Tage zurückgeben, weniger verbraucht (TO §8, Fax 2.2; auch „Bedenkzeit: -3 Tage für …“)
Urlaub nachträglich anerkannt 20.12.2026 – 03.01.2027 für spieler@…   – verspätete Urlaubsmeldung anerkennen (TO §25)
fortsetzen                                     – angehaltene oder zur Abschätzung gestellte Partie fortsetzen
Adresse: spieler@… -> neu@…                    – neue Adresse eines Spielers: Mails gehen künftig dorthin
Weitere Adresse: spieler@… + zweite@…          – eine weitere Adresse, von der ein Spieler schreiben darf
Nur Züge: TURNIER/N   (Nur Züge aufgehoben: …)  – keine Worte der Spieler weiterleiten (TO §30)
Züge über TL: TURNIER/N   (Züge über TL aufgehoben: …)   – jede Zugmail der Partie in Kopie an Sie (TO §30)
Korrespondenz: TURNIER/N                       – alle Mails der Partie als mbox-Datei (TO §11)
PGN: TURNIER                                   – die Partien des Turniers als PGN-Datei
Prüfen: TURNIER/N                              – das versiegelte Partieprotokoll nachrechnen (TO §29)
Rücktritt: spieler@… Wertung: verloren   (oder annulliert)   – alle offenen Partien des Spielers beenden (TO §26)
Rückfrage an spieler@…: TEXT                   – eine Frage an den Spieler (alle Zeilen bis zu Ihrem Gruß); seine Antwort geht an Sie (TO §23)
Ermahnung: spieler@… Grund: TEXT               – den Spieler förmlich ermahnen, vermerkt bei seinen Partien (TO §30)
Betreff „Turnier anmelden“, Turnierdatei als .toml-Anhang oder als Text   – ein Turnier anmelden
Betreff „Turnier prüfen“, Turnierdatei wie beim Anmelden   – die Datei prüfen: ihre Fehler oder ihre Partien, nichts wird angemeldet
Turnier zurückziehen: TURNIER                  – ein Turnier zurückziehen, bevor ein Zug gespielt ist: es wird mit allem entfernt, jeder Spieler erfährt es";

/// Every command form, English.
pub const FORMS_EN: &str = "\
confirm time forfeit                           – confirm a second time forfeit: the game is lost (TO §22)
result: 1-0   (or 0-1, 1/2-1/2, annulled)      – set the result, of a finished game too (TO §26, §31, disputes)
special leave 2027-02-01 to 2027-02-14 for player@…   – special leave beyond the budget (TO §24)
charge time: 3 days for player@…, reason: …    – 3 more days used (TO §30; also \"time: +3 days for …\")
credit time: 3 days for player@…, reason: …    – 3 days given back, fewer used (TO §8, Fax 2.2; also \"time: -3 days for …\")
accept late leave 2026-12-20 to 2027-01-03 for player@…   – accept a late leave notice (TO §25)
resume                                         – resume a suspended or adjourned game
address: player@… -> new@…                     – a player's new address: mail goes there from now on
also: player@… + second@…                      – a further address a player may write from
moves only: TOURNAMENT/N   (moves only off: …)  – forward no words of the players (TO §30)
moves through TL: TOURNAMENT/N   (moves through TL off: …)   – a copy of every move mail of the game to you (TO §30)
correspondence: TOURNAMENT/N                   – every mail of the game as an mbox file (TO §11)
pgn: TOURNAMENT                                – the tournament's games as a PGN file
verify: TOURNAMENT/N                           – recompute the game's sealed record (TO §29)
withdraw: player@… score: lost   (or annulled) – end every unfinished game of the player (TO §26)
ask player@…: TEXT                             – a question to the player (every line up to your signature); his answer comes to you (TO §23)
warning: player@… reason: TEXT                 – a formal warning of the player, recorded with his games (TO §30)
subject \"register tournament\", the tournament file as a .toml attachment or as the text   – register a tournament
subject \"check tournament\", the tournament file as for registering   – check the file: its errors or its games, nothing is registered
withdraw tournament: ID                        – withdraw a tournament before any move is played: it is removed with everything, each player is told";

impl DirectorRefusal {
    /// What is wrong, in `lang`; malformed mails get the list of valid forms.
    pub fn message(&self, lang: Lang) -> String {
        let de = lang == Lang::De;
        let forms = if de { FORMS_DE } else { FORMS_EN };
        match self {
            DirectorRefusal::NotDirector { tournament } => match (tournament, de) {
                (Some(t), true) => format!(
                    "Anweisungen des Turnierleiters nimmt das Relais für das Turnier {t} nur von dessen Turnierleiter an. Es wurde nichts geändert."
                ),
                (Some(t), false) => format!(
                    "For tournament {t} the relay takes director's commands only from its tournament director. Nothing was changed."
                ),
                (None, true) => "Anweisungen des Turnierleiters nimmt das Relais nur vom Turnierleiter des Turniers an. Es wurde nichts geändert.".into(),
                (None, false) => "The relay takes director's commands only from the tournament's director. Nothing was changed.".into(),
            },
            DirectorRefusal::Malformed { lines } => {
                let shown = lines
                    .iter()
                    .map(|l| format!("  „{l}“"))
                    .collect::<Vec<_>>()
                    .join("\n");
                match (lines.is_empty(), de) {
                    (true, true) => format!(
                        "Die Mail enthält keine Anweisung. Es wurde nichts geändert. Gültige Formen (je eine Zeile; die Partie im Betreff als [TURNIER/N] oder als Antwort auf eine Mail des Relais):\n\n{forms}"
                    ),
                    (true, false) => format!(
                        "The mail contains no command. Nothing was changed. Valid forms (one per line; the game in the subject as [TOURNAMENT/N] or by replying to a mail of the relay):\n\n{forms}"
                    ),
                    (false, true) => format!(
                        "Diese Zeilen sind keine gültige Anweisung:\n{shown}\nEs wurde nichts geändert. Gültige Formen (je eine Zeile; die Partie im Betreff als [TURNIER/N] oder als Antwort auf eine Mail des Relais):\n\n{forms}"
                    ),
                    (false, false) => format!(
                        "These lines are no valid command:\n{shown}\nNothing was changed. Valid forms (one per line; the game in the subject as [TOURNAMENT/N] or by replying to a mail of the relay):\n\n{forms}"
                    ),
                }
            }
            DirectorRefusal::NoGame { command } => {
                let command = command_name(*command);
                if de {
                    format!(
                        "„{command}“ gilt einer Partie: Bitte nennen Sie sie im Betreff als [TURNIER/N] oder antworten Sie auf eine Mail des Relais zu dieser Partie."
                    )
                } else {
                    format!(
                        "\"{command}\" applies to a game: please name it in the subject as [TOURNAMENT/N] or reply to a mail of the relay about that game."
                    )
                }
            }
            DirectorRefusal::NoTournament { command } => {
                let command = command_name(*command);
                if de {
                    format!(
                        "„{command}“: Es ist nicht eindeutig, welches Turnier gemeint ist. Bitte nennen Sie es im Betreff als [TURNIER] oder [TURNIER/N]."
                    )
                } else {
                    format!(
                        "\"{command}\": it is not clear which tournament is meant. Please name it in the subject as [TOURNAMENT] or [TOURNAMENT/N]."
                    )
                }
            }
            DirectorRefusal::UnknownGame { game } => {
                if de {
                    format!("Eine Partie {game} gibt es nicht.")
                } else {
                    format!("There is no game {game}.")
                }
            }
            DirectorRefusal::NoSecondForfeit { game } => {
                if de {
                    format!(
                        "In der Partie {game} gibt es keine zweite Zeitüberschreitung, die zu bestätigen wäre (TO §21, §22)."
                    )
                } else {
                    format!(
                        "In game {game} there is no second time forfeit to confirm (TO §21, §22)."
                    )
                }
            }
            DirectorRefusal::AlreadyResult { game, result } => {
                if de {
                    format!("Die Partie {game} ist bereits mit {result} beendet.")
                } else {
                    format!("Game {game} has already ended {result}.")
                }
            }
            DirectorRefusal::NotStopped { game, state } => {
                if de {
                    format!(
                        "Die Partie {game} ist weder angehalten noch zur Abschätzung gestellt (Stand: {state}); „fortsetzen“ ändert nichts."
                    )
                } else {
                    format!(
                        "Game {game} is neither suspended nor adjourned (state: {state}); \"resume\" changes nothing."
                    )
                }
            }
            DirectorRefusal::GameOver { game } => {
                if de {
                    format!("Die Partie {game} ist beendet.")
                } else {
                    format!("Game {game} is over.")
                }
            }
            DirectorRefusal::NotAPlayer { player, scope } => {
                if de {
                    format!("{player} spielt nicht in {scope}.")
                } else {
                    format!("{player} does not play in {scope}.")
                }
            }
            DirectorRefusal::Leave { player, refusal } => {
                if de {
                    format!("Urlaub für {player}: {}", refusal.message(lang))
                } else {
                    format!("Leave for {player}: {}", refusal.message(lang))
                }
            }
            DirectorRefusal::NoOpenGames { player, tournament } => {
                if de {
                    format!(
                        "{player} hat im Turnier {tournament} keine offene Partie mehr; es wurde nichts geändert."
                    )
                } else {
                    format!(
                        "{player} has no unfinished game left in tournament {tournament}; nothing was changed."
                    )
                }
            }
            DirectorRefusal::AddressTaken { address, owner } => {
                if de {
                    format!(
                        "{address} ist bereits eine Adresse von {owner}. Es wurde nichts geändert."
                    )
                } else {
                    format!("{address} is already an address of {owner}. Nothing was changed.")
                }
            }
        }
    }
}

/// A command's name as the forms above spell it, German and English at once.
fn command_name(c: Command) -> &'static str {
    match c {
        Command::ConfirmForfeit => "ZÜ bestätigt / confirm time forfeit",
        Command::SetResult => "Ergebnis / result",
        Command::Resume => "fortsetzen / resume",
        Command::AdjustTime => "Bedenkzeit / time",
        Command::SpecialLeave => "Sonderurlaub / special leave",
        Command::AcceptLateLeave => "Urlaub nachträglich anerkannt / accept late leave",
        Command::Address => "Adresse / address",
        Command::Withdraw => "Rücktritt / withdraw",
        Command::Ask => "Rückfrage / ask",
        Command::Warn => "Ermahnung / warning",
    }
}

impl RegisterRefusal {
    /// Why the tournament was not registered, in `lang`; a file with errors gets every one,
    /// each with its line and key.
    pub fn message(&self, lang: Lang) -> String {
        let de = lang == Lang::De;
        let file = |name: &Option<String>| match (name, de) {
            (Some(n), true) => format!("Die Turnierdatei „{n}“"),
            (Some(n), false) => format!("The tournament file \"{n}\""),
            (None, true) => "Die Turnierdatei im Text der Mail".to_string(),
            (None, false) => "The tournament file in the text of the mail".to_string(),
        };
        let nothing = if de {
            "Es wurde nichts angemeldet."
        } else {
            "Nothing was registered."
        };
        match self {
            RegisterRefusal::NotAllowed if de => "Turniere anmelden dürfen nur die Adressen, die der Betreiber des Relais dafür eingetragen hat. Es wurde nichts angemeldet.".into(),
            RegisterRefusal::NotAllowed => "Only the addresses the relay's operator entered for it may register tournaments. Nothing was registered.".into(),
            RegisterRefusal::Missing if de => "Die Mail enthält keine Turnierdatei: Bitte hängen Sie sie als .toml-Datei an oder schreiben Sie sie als Text der Mail (docs/directors.md). Es wurde nichts angemeldet.".into(),
            RegisterRefusal::Missing => "The mail holds no tournament file: please attach it as a .toml file or write it as the text of the mail (docs/directors.md). Nothing was registered.".into(),
            RegisterRefusal::Several(names) => {
                let list = names.join(", ");
                if de {
                    format!("Die Mail hat mehrere .toml-Anhänge ({list}); bitte schicken Sie je Mail eine Turnierdatei. {nothing}")
                } else {
                    format!("The mail has several .toml attachments ({list}); please send one tournament file per mail. {nothing}")
                }
            }
            RegisterRefusal::TooLarge { name, bytes } => {
                let what = if name.is_empty() { None } else { Some(name.clone()) };
                let limit = crate::letter::enrol::MAX_FILE_BYTES / 1024;
                if de {
                    format!("{} ist mit {bytes} Bytes größer als die erlaubten {limit} KB. {nothing}", file(&what))
                } else {
                    format!("{} has {bytes} bytes, more than the {limit} KB allowed. {nothing}", file(&what))
                }
            }
            RegisterRefusal::NotText { name } => {
                if de {
                    format!("{} ist keine Textdatei in UTF-8. {nothing}", file(&Some(name.clone())))
                } else {
                    format!("{} is not a UTF-8 text file. {nothing}", file(&Some(name.clone())))
                }
            }
            RegisterRefusal::Duplicate { id } => {
                if de {
                    format!("Ein Turnier mit der Kennung „{id}“ ist bereits angemeldet (Schlüssel `id`). {nothing}")
                } else {
                    format!("A tournament with the id \"{id}\" is already registered (key `id`). {nothing}")
                }
            }
            RegisterRefusal::AddressTaken { taken } => {
                let each: Vec<String> = taken
                    .iter()
                    .map(|(address, tournament)| {
                        if de {
                            format!("- {address}: im Turnier {tournament} die Adresse einer anderen Person")
                        } else {
                            format!("- {address}: in tournament {tournament} the address of another person")
                        }
                    })
                    .collect();
                if de {
                    format!("Eine Adresse gehört einer Person: Die Datei nennt Adressen, die ein anderes Turnier einer anderen Person gibt.\n\n{}\n\nBitte prüfen Sie die Adressen (Schlüssel `email`, `also`, `director.email`). {nothing}", each.join("\n"))
                } else {
                    format!("An address belongs to one person: the file names addresses that another tournament gives to another person.\n\n{}\n\nPlease check the addresses (keys `email`, `also`, `director.email`). {nothing}", each.join("\n"))
                }
            }
            RegisterRefusal::TooManyGames { games, max } => {
                if de {
                    format!("Die Datei ergibt {games} Partien; ein Turnier, das per Mail angemeldet wird, darf höchstens {max} haben. Größere Turniere meldet der Betreiber mit `fernzug tournament add` an. {nothing}")
                } else {
                    format!("The file makes {games} games; a tournament registered by mail may have at most {max}. The operator registers larger ones with `fernzug tournament add`. {nothing}")
                }
            }
            RegisterRefusal::File { name, errors } => {
                let n = errors.len();
                let head = match (de, n) {
                    (true, 1) => format!("{} hat einen Fehler:", file(name)),
                    (true, _) => format!("{} hat {n} Fehler:", file(name)),
                    (false, 1) => format!("{} has an error:", file(name)),
                    (false, _) => format!("{} has {n} errors:", file(name)),
                };
                let lines: Vec<String> = errors.iter().map(|e| problem(e, lang)).collect();
                format!("{head}\n\n{}\n\n{nothing}", lines.join("\n"))
            }
        }
    }
}

impl WithdrawRefusal {
    /// Why the tournament was not withdrawn, in `lang`.
    pub fn message(&self, lang: Lang) -> String {
        let de = lang == Lang::De;
        match self {
            WithdrawRefusal::NotAllowed if de => "Ein Turnier zurückziehen dürfen nur sein Turnierleiter und die Adressen, die der Betreiber des Relais dafür eingetragen hat. Es wurde nichts geändert.".into(),
            WithdrawRefusal::NotAllowed => "Only a tournament's director and the addresses the relay's operator entered for it may withdraw a tournament. Nothing was changed.".into(),
            WithdrawRefusal::Unknown { tournament } if tournament.is_empty() => {
                if de {
                    "Die Mail nennt kein Turnier. Bitte schreiben Sie „Turnier zurückziehen: TURNIER“ mit der Kennung des Turniers. Es wurde nichts geändert.".into()
                } else {
                    "The mail names no tournament. Please write \"withdraw tournament: ID\" with the tournament's id. Nothing was changed.".into()
                }
            }
            WithdrawRefusal::Unknown { tournament } => {
                if de {
                    format!("Ein Turnier „{tournament}“ gibt es nicht. Es wurde nichts geändert.")
                } else {
                    format!("There is no tournament \"{tournament}\". Nothing was changed.")
                }
            }
            WithdrawRefusal::Begun {
                tournament,
                game,
                moved,
            } => {
                let what = match (moved, de) {
                    (true, true) => format!("In der Partie {game} ist schon gezogen worden"),
                    (true, false) => format!("A move was played in game {game}"),
                    (false, true) => format!("Die Partie {game} ist schon beendet"),
                    (false, false) => format!("Game {game} has already ended"),
                };
                if de {
                    format!(
                        "{what}: Das Turnier {tournament} hat begonnen. Zurückziehen lässt sich ein Turnier nur, bevor ein Zug gespielt ist und eine Partie endet. Es wurde nichts geändert; Partien beenden Sie einzeln, z. B. mit „Ergebnis: annulliert“ (TO §26)."
                    )
                } else {
                    format!(
                        "{what}: tournament {tournament} has begun. A tournament can be withdrawn only before any move is played and any game ends. Nothing was changed; end games one by one, e.g. with \"result: annulled\" (TO §26)."
                    )
                }
            }
        }
    }
}

/// One error of a tournament file: `Zeile 12, Schlüssel `players[2].email`: …`.
fn problem(p: &FileProblem, lang: Lang) -> String {
    let de = lang == Lang::De;
    let mut at = Vec::new();
    if let Some(l) = p.line {
        at.push(if de {
            format!("Zeile {l}")
        } else {
            format!("line {l}")
        });
    }
    if let Some(k) = &p.key {
        at.push(if de {
            format!("Schlüssel `{k}`")
        } else {
            format!("key `{k}`")
        });
    }
    let what = match (&p.what, de) {
        (FileFault::Syntax(m), true) => format!("kein gültiges TOML: {m}"),
        (FileFault::Syntax(m), false) => format!("not valid TOML: {m}"),
        (FileFault::Missing, true) => "fehlt, ist aber nötig".to_string(),
        (FileFault::Missing, false) => "required key is missing".to_string(),
        (FileFault::Unknown { allowed }, true) => {
            format!(
                "unbekannter Schlüssel (erlaubt sind hier: {})",
                allowed.join(", ")
            )
        }
        (FileFault::Unknown { allowed }, false) => {
            format!("unknown key (allowed here: {})", allowed.join(", "))
        }
        (FileFault::Expected { expected, found }, true) => {
            format!("erwartet ist {expected}, gefunden {found}")
        }
        (FileFault::Expected { expected, found }, false) => {
            format!("expected {expected}, found {found}")
        }
        (FileFault::Invalid(why), _) => why.clone(),
    };
    format!("– {}: {what}", at.join(", "))
}
