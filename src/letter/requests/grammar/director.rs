//! The director's commands in words (TO §21, §22, §24–§26, §30, §31).

use super::super::tokens::{Sentence, Tok, is_negation};
use super::clause::{bigram, span_of};
use crate::letter::types::{DateSpan, DirectorCommand};

/// `1-0`, `0-1`, `1/2-1/2`, `remis`, `draw` in a sentence, as the reader writes results.
fn result_in(s: &Sentence) -> Option<String> {
    for w in s.toks.windows(3) {
        match w {
            [Tok::Num(1), Tok::Dash | Tok::Colon, Tok::Num(0)] => return Some("1-0".into()),
            [Tok::Num(0), Tok::Dash | Tok::Colon, Tok::Num(1)] => return Some("0-1".into()),
            _ => {}
        }
    }
    let draw = s.has(&["remis", "unentschieden", "draw", "drawn"])
        || s.toks
            .windows(3)
            .any(|w| matches!(w, [Tok::Num(1), Tok::Dash, Tok::Num(2)]));
    draw.then(|| "1/2-1/2".into())
}

pub(super) fn director(s: &Sentence) -> Option<DirectorCommand> {
    if s.question || s.has(&["hoffe", "hope", "bitte", "please"]) && !s.has(&["resume"]) {
        // `Please resume the game.` is the one polite command read below.
        if !(s.has(&["resume"]) && s.has(&["game", "partie"])) {
            return None;
        }
    }
    // TO §8, §30, Fax 2.2: `Frau Adler werden 4 Tage Bedenkzeit gutgeschrieben, da …` — its own
    // rule (`super::super::time`), which asks negation and report of its verb's clause alone: a
    // reason beside it may say `nicht` or `verloren`.
    if let Some(cmd) = super::super::time::adjust(s) {
        return Some(cmd);
    }
    let negated = s.words().any(|(_, w)| is_negation(w));
    // A report (`die Partie wurde 1-0 gewertet`, `ich habe gewonnen`) or a wish commands nothing:
    // a player's chat must not turn his mail into a director's.
    let reported = s.has(&[
        "wurde",
        "wurden",
        "gewonnen",
        "verloren",
        "won",
        "lost",
        "hoffentlich",
        "hopefully",
        "wenn",
        "if",
        "falls",
    ]);
    if negated || reported {
        return None;
    }
    let emails = s.emails();
    let dates = span_of(s).0;
    // TO §22: `Ich bestätige die zweite Zeitüberschreitung`, `Second time forfeit confirmed.`
    let confirms = s.has(&[
        "bestaetige",
        "bestaetigt",
        "bestaetigen",
        "confirm",
        "confirmed",
    ]);
    let forfeit = s
        .find_by(|w| w.starts_with("zeitueberschreitung") || w == "zue" || w == "forfeit")
        .is_some();
    if confirms && forfeit {
        return Some(DirectorCommand::ConfirmForfeit);
    }
    // TO §30: `Hiermit ermahne ich anna@x.de wegen …` (`super::super::warn`).
    if let Some(cmd) = super::super::warn::warning(s) {
        return Some(cmd);
    }
    // TO §26: `Die Partie FAX-2026-3/7 wird annulliert.`, `The game is annulled.`
    if s.find_by(|w| w.starts_with("annull") || w == "annulled")
        .is_some()
        && s.has(&["partie", "game", "ergebnis", "result", "wertung"])
    {
        return Some(DirectorCommand::SetResult("annulled".into()));
    }
    // TO §26, §31: `Die Partie wird mit 1-0 für Weiß gewertet.`, `Ich werte die Partie als Remis.`
    if s.has(&[
        "gewertet", "werte", "werten", "scored", "score", "awarded", "award",
    ]) && let Some(r) = result_in(s)
    {
        return Some(DirectorCommand::SetResult(r));
    }
    // TO §24: `Ich gewähre anna@x.de Sonderurlaub vom 1.2. bis 14.2.2027.`
    if let ([player], [from, to, ..]) = (emails.as_slice(), dates.as_slice()) {
        let span = DateSpan {
            from: *from,
            to: *to,
        };
        if s.find_by(|w| w.starts_with("sonderurlaub")).is_some() || bigram(s, "special", "leave") {
            return Some(DirectorCommand::SpecialLeave {
                span,
                player: player.to_string(),
            });
        }
        // TO §25: `Den verspätet gemeldeten Urlaub von bert@x.de … erkenne ich an.`
        let late = s.has(&[
            "verspaetet",
            "nachtraeglich",
            "late",
            "verspaetete",
            "verspaeteten",
        ]);
        let accepts = s.has(&["erkenne", "anerkannt", "accept", "accepted", "akzeptiere"]);
        if late && accepts {
            return Some(DirectorCommand::AcceptLateLeave {
                span,
                player: player.to_string(),
            });
        }
    }
    // `Die Partie wird fortgesetzt.`, `Please resume the game.`: short, as a command is.
    if ((s.has(&["fortgesetzt", "fortsetzen"]) && s.has(&["partie", "wird"]))
        || (s.has(&["resume", "resumed"]) && s.has(&["game", "partie"])))
        && s.word_count() <= 6
    {
        return Some(DirectorCommand::Resume);
    }
    None
}
