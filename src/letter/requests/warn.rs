//! TO §30: the director's formal warning in a sentence — `Hiermit ermahne ich anna@x.de wegen
//! wiederholt verspäteter Antworten.`, `bert@y.de is formally warned for insulting his partner.`
//!
//! A warning word (`ermahne`, `ermahnt`, `Ermahnung`, `verwarne`, `verwarnt`, `Verwarnung`,
//! `warn`, `warned`, `warning`) and exactly one player's address; the reason is the sentence as
//! written. Without an address it is no command: players warn each other in jest (`ich warne
//! dich, mein Läufer kommt`).

use super::tokens::Sentence;
use crate::letter::types::DirectorCommand;

/// The words of a warning, folded.
const WARN: &[&str] = &[
    "ermahne",
    "ermahnt",
    "ermahnen",
    "ermahnung",
    "verwarne",
    "verwarnt",
    "verwarnen",
    "verwarnung",
    "warn",
    "warned",
    "warning",
];

/// The warning of a director's sentence, if it is one. Asked of a sentence that is neither a
/// question, nor hoped, nor negated, nor a report (`crate::letter::requests::grammar::director`).
pub(super) fn warning(s: &Sentence) -> Option<DirectorCommand> {
    s.find(WARN)?;
    let emails = s.emails();
    let [player] = emails.as_slice() else {
        return None;
    };
    Some(DirectorCommand::Warn {
        player: player.to_string(),
        reason: s.text.trim().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Reading, read_paragraph};
    use super::*;

    fn read(t: &str) -> Option<DirectorCommand> {
        read_paragraph(t).into_iter().find_map(|r| match r.reading {
            Reading::Commands(c) => Some(c),
            _ => None,
        })
    }

    #[test]
    fn a_directors_warning_in_a_sentence() {
        for (t, who) in [
            (
                "Hiermit ermahne ich anna@x.de wegen wiederholt verspäteter Antworten.",
                "anna@x.de",
            ),
            (
                "Herr Berger (bert@y.de) erhält eine Ermahnung wegen beleidigender Worte.",
                "bert@y.de",
            ),
            (
                "bert@y.de is formally warned for insulting his partner.",
                "bert@y.de",
            ),
        ] {
            assert!(
                matches!(read(t), Some(DirectorCommand::Warn { ref player, .. }) if player == who),
                "{t}: {:?}",
                read(t)
            );
        }
    }

    #[test]
    fn warnings_in_chat_command_nothing() {
        for t in [
            "Ich warne dich, mein Läufer kommt!",
            "Ich ermahne anna@x.de nicht, das war ein Versehen.",
            "Wurde anna@x.de ermahnt?",
            "Keine Warnungen",
        ] {
            assert!(
                !matches!(read(t), Some(DirectorCommand::Warn { .. })),
                "{t}: {:?}",
                read(t)
            );
        }
    }
}
