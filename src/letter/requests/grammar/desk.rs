//! The director's desk in words (TO §11, §23, §26, §29, §30).

use super::super::reading::{Reading, Why};
use super::super::tokens::{Sentence, is_negation};
use super::clause::declines;
use crate::letter::types::{Ask, DirectorCommand, Missing, RequestKind};

/// A game as written in a sentence: `FAX-2026-3/7`.
static GAME_IN_TEXT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?:^|[\s(\[„\x22'])([A-Za-z0-9][A-Za-z0-9._-]*/\d+)\b")
        .expect("valid regex")
});

/// A tournament as written in a sentence: an id with a dash and a digit (`FAX-2026-3`), not a
/// game.
static TOURNAMENT_IN_TEXT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
    regex::Regex::new(r"(?:^|[\s(\[„\x22'])([A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*-\d[A-Za-z0-9]*)(?:$|[\s).,;:!?\]“\x22'])")
        .expect("valid regex")
});

fn game_in(s: &Sentence) -> Option<String> {
    GAME_IN_TEXT
        .captures(&s.text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

fn tournament_in(s: &Sentence) -> Option<String> {
    TOURNAMENT_IN_TEXT
        .captures(&s.text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// Asked back: the kind of request and what it lacks.
fn ask_back(s: &Sentence, kind: RequestKind, missing: Missing) -> Reading {
    Reading::Asks(Ask {
        kind,
        sentence: s.text.trim().to_string(),
        missing,
    })
}

/// The director's desk in a sentence. Each form needs its own words and an object a player's
/// chat does not name: a game (`FAX-2026-3/7`) or a player's address. A negated one is
/// declined; one without its object or its choice is asked back with the exact form. A
/// withdrawal's scoring may stand in the next sentence (`… ist zurückgetreten. Ihre Partien werden
/// als verloren gewertet.`).
pub(super) fn desk(s: &Sentence, after: &[Sentence]) -> Option<Reading> {
    let negated = s.words().any(|(_, w)| is_negation(w));
    let emails = s.emails();
    // TO §11, §29: `Bitte schicken Sie mir die Korrespondenz der Partie FAX-2026-3/7.`
    let wants = s.has(&[
        "schicken",
        "schicke",
        "schickt",
        "senden",
        "sende",
        "zusenden",
        "uebersenden",
        "send",
        "mail",
        "brauche",
        "benoetige",
        "erbitte",
        "bitte",
        "please",
        "moechte",
        "haette",
        "would",
        "need",
        "request",
        "anfordern",
        "fordere",
        "want",
    ]) || s.question;
    let correspondence = s
        .find_by(|w| {
            w.starts_with("korrespondenz")
                || w == "correspondence"
                || w.starts_with("schriftwechsel")
                || w == "mailverkehr"
        })
        .is_some();
    let pgn = s.has(&["pgn"]);
    let verify = s
        .find_by(|w| {
            w.starts_with("pruef")
                || w.starts_with("ueberpruef")
                || w == "verify"
                || w == "verification"
                || w == "nachrechnen"
        })
        .is_some()
        && s.find_by(|w| {
            w.starts_with("protokoll")
                || w == "record"
                || w.starts_with("siegel")
                || w.starts_with("pruefsumme")
                || w == "seal"
                || w == "chain"
        })
        .is_some();
    if (correspondence || pgn || verify) && wants {
        if negated {
            return Some(declines(RequestKind::Records, Why::Negated));
        }
        let game = game_in(s);
        let read = match (correspondence, verify, game) {
            (true, _, Some(game)) => Reading::Commands(DirectorCommand::Correspondence { game }),
            (false, true, Some(game)) => Reading::Commands(DirectorCommand::Verify { game }),
            (false, false, Some(game)) => Reading::Commands(DirectorCommand::Pgn { target: game }),
            (false, false, None) => match tournament_in(s) {
                Some(target) => Reading::Commands(DirectorCommand::Pgn { target }),
                None => ask_back(s, RequestKind::Records, Missing::Game),
            },
            _ => ask_back(s, RequestKind::Records, Missing::Game),
        };
        return Some(read);
    }
    // TO §26: `anna@x.de ist vom Turnier zurückgetreten; ihre Partien werten Sie als verloren.`
    let withdraws = s
        .find_by(|w| {
            w.starts_with("zurueckgetreten")
                || w.starts_with("ruecktritt")
                || w == "zurueck" && s.has(&["tritt", "treten", "trat"])
                || w == "withdrawn"
                || w == "withdraws"
                || w == "withdrew"
                || w.starts_with("withdrawal")
        })
        .is_some();
    if withdraws && let [player] = emails.as_slice() {
        let lost_in = |x: &Sentence| x.has(&["verloren", "lost", "kampflos", "forfeited"]);
        let annulled_in = |x: &Sentence| {
            x.find_by(|w| {
                w.starts_with("annull")
                    || w.starts_with("gestrichen")
                    || w.starts_with("streichen")
                    || w == "cancelled"
                    || w == "canceled"
                    || w == "void"
            })
            .is_some()
        };
        let next = after.first().filter(|n| n.emails().is_empty());
        let (mut lost, mut annulled) = (lost_in(s), annulled_in(s));
        if !lost
            && !annulled
            && let Some(n) = next
        {
            (lost, annulled) = (lost_in(n), annulled_in(n));
        }
        return Some(match (lost, annulled) {
            _ if negated && !lost && !annulled => declines(RequestKind::Withdrawal, Why::Negated),
            (true, false) => Reading::Commands(DirectorCommand::Withdraw {
                player: player.to_string(),
                annulled: false,
            }),
            (false, true) => Reading::Commands(DirectorCommand::Withdraw {
                player: player.to_string(),
                annulled: true,
            }),
            _ => ask_back(s, RequestKind::Withdrawal, Missing::Scoring),
        });
    }
    // TO §23: `Bitte fragen Sie anna@x.de, ob sie ihre Partien fortsetzt.`
    let first = s
        .words()
        .map(|(_, w)| w)
        .find(|w| !matches!(*w, "bitte" | "please" | "herr" | "frau"));
    let asks = matches!(
        first,
        Some("fragen" | "frage" | "frag" | "rueckfrage" | "ask" | "erkundigen")
    );
    if asks
        && !negated
        && let [player] = emails.as_slice()
    {
        let after = s
            .text
            .to_lowercase()
            .find(&player.to_lowercase())
            .map(|at| s.text[at + player.len()..].trim_start_matches([',', ':', ' ', ')']));
        return Some(match after.filter(|t| t.split_whitespace().count() >= 3) {
            Some(text) => Reading::Commands(DirectorCommand::Ask {
                player: player.to_string(),
                text: text.trim().to_string(),
            }),
            None => ask_back(s, RequestKind::Question, Missing::Text),
        });
    }
    // TO §30: `Die Züge der Partie FAX-2026-3/7 gehen ab sofort über mich.`
    let moves = s
        .find_by(|w| matches!(w, "zuege" | "zug" | "moves" | "move") || w.starts_with("zugmail"))
        .is_some();
    let through = (s.has(&["ueber"]) && s.has(&["mich", "tl", "turnierleiter"]))
        || (s.has(&["through"]) && s.has(&["me", "tl", "td", "director"]))
        || s.has(&["kopie", "copy"]) && s.has(&["mich", "me", "mir"]);
    if moves && through {
        let off = s.has(&["mehr", "longer", "aufgehoben", "lifted", "off", "nicht"]);
        return Some(match game_in(s) {
            Some(game) => Reading::Commands(DirectorCommand::ThroughDirector { game, on: !off }),
            None => ask_back(s, RequestKind::ThroughDirector, Missing::Game),
        });
    }
    None
}
