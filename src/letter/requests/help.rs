//! `Hilfe` / `help`, and an appeal in the writer's sentence (TO §29). `Hilfe` / `help`: the writer asks the relay how to write to it — the whole text (a greeting
//! and a sign-off around it allowed), or the subject. Answered with the forms (kind `help`),
//! never forwarded: a question to the relay is not words for the partner (issue 49, users'
//! review a2: "Hilfe, wie biete ich Remis an?" reached the opponent).
//!
//! Only what cannot mean anything else counts: `Hilfe`, `Hilfe!`, `help please`, `Ich brauche
//! Hilfe`, and the few questions that ask the relay what went wrong (`Was war falsch?`, `What did
//! I do wrong?`). `Danke für die Hilfe!` or `Wie geht es dir?` stay words for the partner.

/// Lines that ask for help and nothing else, folded (lower case, `ä ö ü ß` as `ae oe ue ss`,
/// punctuation and blanks between words made one blank).
const HELP: &[&str] = &[
    "hilfe",
    "hilfe bitte",
    "bitte hilfe",
    "ich brauche hilfe",
    "ich brauche bitte hilfe",
    "brauche hilfe",
    "hilf mir",
    "helfen sie mir",
    "helfen sie mir bitte",
    "bitte helfen sie mir",
    "kann mir jemand helfen",
    "wie funktioniert das",
    "wie funktioniert das hier",
    "was war falsch",
    "was ist falsch",
    "was ist daran falsch",
    "was habe ich falsch gemacht",
    "was mache ich falsch",
    "warum ist das falsch",
    "wieso ist das falsch",
    "warum ist mein zug falsch",
    "wieso ist mein zug falsch",
    "warum wurde mein zug nicht angenommen",
    "warum wurde mein zug abgelehnt",
    "help",
    "help please",
    "please help",
    "help me",
    "please help me",
    "i need help",
    "need help",
    "how does this work",
    "what was wrong",
    "what is wrong",
    "whats wrong",
    "what s wrong",
    "what did i do wrong",
    "what am i doing wrong",
    "why is that wrong",
    "why is my move wrong",
    "why was my move refused",
    "why was my move not accepted",
];

/// Lines that may stand around the request: a greeting, a sign-off, a name.
const COURTESY: &[&str] = &[
    "hallo",
    "hi",
    "hello",
    "hey",
    "moin",
    "servus",
    "guten",
    "tag",
    "dear",
    "lieber",
    "liebe",
    "sehr",
    "geehrte",
    "geehrter",
    "gruss",
    "gruesse",
    "gruessen",
    "viele",
    "beste",
    "besten",
    "freundliche",
    "freundlichen",
    "mfg",
    "vg",
    "lg",
    "danke",
    "regards",
    "best",
    "thanks",
    "thank",
    "you",
    "cheers",
    "kind",
    "sincerely",
    "mit",
    "und",
];

/// A line folded as `HELP` is written: lower case, `ä ö ü ß` as `ae oe ue ss`, the words
/// joined by one blank.
pub fn fold_line(line: &str) -> String {
    super::tokens::fold(line)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Words that open a question to the relay after `Hilfe` / `help`.
const QUESTION_WORDS: &[&str] = &[
    "wie", "was", "wo", "wann", "warum", "wieso", "kann", "darf", "muss", "how", "what", "where",
    "when", "why", "can", "may", "do", "must",
];

/// Whether `line` (a line or a subject) asks for help and says nothing else: a line of
/// `HELP`, or `Hilfe` / `help` and a question (`Hilfe, wie biete ich Remis an?`).
pub fn line_asks_for_help(line: &str) -> bool {
    let folded = fold_line(line);
    let mut words = folded.split(' ');
    HELP.contains(&folded.as_str())
        || matches!(words.next(), Some("hilfe" | "help"))
            && words.next().is_some_and(|w| QUESTION_WORDS.contains(&w))
            && line.trim_end().ends_with('?')
}

/// Whether the whole `text` asks for help: one line of `HELP`, the others a greeting, a
/// sign-off or a name (one or two words, or words of `COURTESY` only).
pub fn asks_for_help(text: &str) -> bool {
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    let asks = lines.iter().filter(|l| line_asks_for_help(l)).count();
    asks == 1 && lines.iter().all(|l| line_asks_for_help(l) || courtesy(l))
}

/// Whether `line` (trimmed) may stand around a request to the relay that is the whole text: a
/// greeting, a sign-off or a name (one or two words, or words of `COURTESY` only), no digit, no
/// question.
pub fn courtesy(line: &str) -> bool {
    let folded = fold_line(line);
    let words: Vec<&str> = folded.split(' ').filter(|w| !w.is_empty()).collect();
    !line.contains(|c: char| c.is_ascii_digit() || c == '?')
        && (words.len() <= 2
            && line
                .split_whitespace()
                .all(|w| w.starts_with(|c: char| c.is_uppercase()))
            || words.len() <= 4 && words.iter().all(|w| COURTESY.contains(w)))
        || words.len() <= 6
            && words.first().is_some_and(|w| COURTESY.contains(w))
            && line.ends_with(',')
}

/// The words of an appeal (TO §29), folded.
const APPEAL_WORDS: &[&str] = &[
    "einspruch",
    "widerspruch",
    "berufung",
    "appeal",
    "appealing",
];

/// Words that make a sentence with an appeal word no appeal now: a condition, a negation, a
/// report of one past or withdrawn, one the writer speaks of to his partner (`du`, `dein`: a
/// director is addressed as `Sie`, so `Sie`, `Ihre` and English `you` stay possible in an appeal —
/// `Gegen Ihre Entscheidung lege ich Einspruch ein`, `I appeal against your decision`). When in
/// doubt the words go to the director: the receipt tells the writer so, while an appeal that
/// reached the partner would be lost.
const NOT_NOW: &[&str] = &[
    "wenn",
    "falls",
    "ob",
    "sonst",
    "nicht",
    "kein",
    "keinen",
    "keine",
    "erledigt",
    "zurueck",
    "zurueckgezogen",
    "gestern",
    "damals",
    "du",
    "dein",
    "deine",
    "deinen",
    "if",
    "unless",
    "otherwise",
    "not",
    "no",
    "dont",
    "don",
    "withdraw",
    "withdrawn",
    "yesterday",
    "would",
    "wuerde",
];

/// Words that say the writer appeals now: `Ich lege (hiermit) Einspruch ein`, `Hiermit erhebe
/// ich Widerspruch`, `I (hereby) appeal`, `I wish to appeal`.
const I_DO: &[&str] = &[
    "ich", "hiermit", "lege", "erhebe", "einlegen", "moechte", "i", "hereby", "wish", "lodge",
    "file",
];

/// Words that open a question how to appeal (`Wie lege ich Einspruch ein?`): a question to the
/// relay, answered with the forms ([`asks_for_help`]'s kind), never words for the partner.
const HOW: &[&str] = &["wie", "wo", "kann", "darf", "how", "where", "can", "may"];

/// The sentences of `text`, each with whether it ends in a question mark.
fn sentences(text: &str) -> impl Iterator<Item = (&str, bool)> {
    text.split_inclusive(['.', '!', '?', '\n'])
        .map(|s| (s.trim(), s.trim_end().ends_with('?')))
        .filter(|(s, _)| !s.is_empty())
}

/// TO §29 in the writer's own sentence: whether one sentence of `text` appeals now (an appeal
/// word, a word of the writer doing it, no condition, negation or report:
/// `Ich lege hiermit Einspruch gegen die Wertung ein.`), or asks how to appeal (`Wie lege ich
/// Einspruch ein?`). Either way the mail is not words for the partner.
pub fn appeal_in_sentences(text: &str) -> Option<AppealSentence> {
    for (sentence, question) in sentences(text) {
        let folded = fold_line(sentence);
        let words: Vec<&str> = folded.split(' ').filter(|w| !w.is_empty()).collect();
        if !words.iter().any(|w| APPEAL_WORDS.contains(w)) {
            continue;
        }
        if question {
            if words.first().is_some_and(|w| HOW.contains(w)) {
                return Some(AppealSentence::HowTo);
            }
            continue;
        }
        if words.iter().any(|w| NOT_NOW.contains(w)) {
            continue;
        }
        if words.iter().any(|w| I_DO.contains(w)) {
            return Some(AppealSentence::Appeals);
        }
    }
    None
}

/// What a sentence about an appeal is ([`appeal_in_sentences`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AppealSentence {
    /// The writer appeals now: his words go to the director.
    Appeals,
    /// He asks how to appeal: answered with the forms.
    HowTo,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s29_an_appeal_in_the_writers_own_sentence() {
        for t in [
            "Ich lege hiermit Einspruch gegen die Wertung ein.",
            "Gegen diese Entscheidung lege ich Einspruch ein!",
            "Hiermit erhebe ich Widerspruch gegen die Zeitüberschreitung.",
            "Ich möchte Einspruch einlegen, mein Zug kam rechtzeitig.",
            "I hereby appeal against the decision.",
            "I wish to appeal the result of game 3.",
            "Gegen Ihre Entscheidung vom 3. Dezember lege ich Einspruch ein.",
            "I appeal against your decision.",
            "Ich will Einspruch einlegen.",
        ] {
            assert_eq!(
                appeal_in_sentences(t),
                Some(AppealSentence::Appeals),
                "{t:?}"
            );
        }
        for t in [
            "Wie lege ich Einspruch ein?",
            "How can I appeal?",
            "Kann ich Einspruch einlegen?",
        ] {
            assert_eq!(appeal_in_sentences(t), Some(AppealSentence::HowTo), "{t:?}");
        }
        for t in [
            "Mein Einspruch von gestern ist erledigt.",
            "Wenn du nicht ziehst, lege ich Einspruch ein.",
            "Ich werde keinen Einspruch einlegen.",
            "Hast du Einspruch eingelegt?",
            "I will not appeal, well played.",
            "Your appeal was fair.",
            "Ich finde deinen Einspruch unfair.",
            "Das war ein schöner Zug.",
        ] {
            assert_eq!(appeal_in_sentences(t), None, "{t:?}");
        }
    }

    #[test]
    fn help_alone_or_with_a_greeting_asks_for_help() {
        for t in [
            "Hilfe",
            "Hilfe!",
            "hilfe?",
            "HILFE",
            "Hilfe, bitte!",
            "help",
            "Help!",
            "help please",
            "Please help.",
            "Ich brauche Hilfe.",
            "Was war falsch?",
            "What did I do wrong?",
            "Warum wurde mein Zug nicht angenommen?",
            "Why was my move refused?",
            "Hilfe, wie biete ich Remis an?",
            "Help: how do I resign?",
            "Hallo,\n\nHilfe!\n\nGruß\nAnna",
            "Hi,\nhelp please\nThanks, Bert",
            "Sehr geehrte Damen und Herren,\nwas habe ich falsch gemacht?\nMit freundlichen Grüßen\nAnna Adler",
        ] {
            assert!(asks_for_help(t), "{t:?}");
        }
    }

    #[test]
    fn words_that_only_mention_help_are_no_request() {
        for t in [
            "Danke für die Hilfe!",
            "Wie geht es dir?",
            "Hilfe! Dein Läufer ist zu stark.",
            "Hilfe\n12... Sf6",
            "Hilfe\nHilfe",
            "Ich brauche keine Hilfe.",
            "Thanks for your help",
            "",
        ] {
            assert!(!asks_for_help(t), "{t:?}");
        }
    }

    #[test]
    fn a_subject_asks_for_help_alone() {
        assert!(line_asks_for_help("Hilfe"));
        assert!(line_asks_for_help("help?"));
        assert!(!line_asks_for_help("Adler – Berger"));
        assert!(!line_asks_for_help("Hilfe beim Umzug"));
    }
}
