//! Cheap tests that rule a pattern out before its regex runs (issue 13: CPU per mail).
//!
//! A prefilter may only say "cannot match": where it lets a line through, the regex decides as
//! before, so what the reader finds is unchanged. The case-insensitive patterns (`(?i)`) match by
//! Unicode simple case folding: a text they match contains their words in [`lower`]'s form —
//! lower case, with the long `ſ` (which folds to `s`) written `s`; the Kelvin sign (which folds to
//! `k`) already lowers to `k`.

use regex::Regex;

/// The text lower-cased for [`any_of`] and [`starts_any`]: `to_lowercase`, and `ſ` as `s`.
pub(crate) fn lower(text: &str) -> String {
    if text.is_ascii() {
        return text.to_ascii_lowercase();
    }
    text.chars()
        .flat_map(char::to_lowercase)
        .map(|c| if c == 'ſ' { 's' } else { c })
        .collect()
}

/// A pattern that finds any of `words` (each written in lower case) in a text made by
/// [`lower`]: one pass of the regex crate's literal search, not one search per word.
pub(crate) fn any_of(words: &[&str]) -> Regex {
    let alternatives: Vec<String> = words.iter().map(|w| regex::escape(w)).collect();
    Regex::new(&alternatives.join("|")).expect("valid regex")
}

/// Whether `lowered` (see [`lower`]) starts with one of `words` (each written in lower case).
pub(crate) fn starts_any(lowered: &str, words: &[&str]) -> bool {
    words.iter().any(|w| lowered.starts_with(w))
}

/// A line [`lower`]ed, and whether it holds any word of `keys` at all: one search answers
/// every [`Lowered::has`] of a line that has none.
pub(crate) struct Lowered {
    text: String,
    keyed: bool,
}

impl Lowered {
    /// `keys` must find every word of every pattern [`Lowered::has`] is asked about.
    pub(crate) fn new(line: &str, keys: &Regex) -> Lowered {
        let text = lower(line);
        let keyed = keys.is_match(&text);
        Lowered { text, keyed }
    }

    /// Whether the line holds one of the words `words` finds ([`any_of`]).
    pub(crate) fn has(&self, words: &Regex) -> bool {
        self.keyed && words.is_match(&self.text)
    }

    /// Whether the line starts with one of `words` (each written in lower case).
    pub(crate) fn starts_with_any(&self, words: &[&str]) -> bool {
        starts_any(&self.text, words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_keeps_what_case_insensitive_patterns_match() {
        let re = Regex::new(r"(?i)sent|bedenkzeit|grüße").unwrap();
        let words = any_of(&["sent", "bedenkzeit", "grüße"]);
        for text in [
            "SENT",
            "ſent",
            "BEDENKZEIT",
            "Bedenkzeit",
            "BEDEN\u{212a}ZEIT",
            "GRÜSSE",
            "GRÜßE",
            "GRÜẞE",
            "Grüße",
            "nichts",
        ] {
            assert_eq!(re.is_match(text), words.is_match(&lower(text)), "{text}");
        }
        assert!(starts_any(&lower("Wenn du"), &["wenn"]));
        assert!(!starts_any(&lower("Du, wenn"), &["wenn"]));
    }
}
