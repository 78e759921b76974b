//! What several grammars of the requests share: how a rule asks back or declines, the words
//! that turn a request around (a rejection, the person, the past, another game, a hedge,
//! playing on), a separable verb's particle and pairs of words; the draw words, and the leave
//! words with the dates of a span.

use super::super::reading::{Reading, Why};
use super::super::tokens::{Sentence, Tok};
use crate::letter::types::{Ask, Missing, RequestKind, StatedDate};

pub(super) fn ask(kind: RequestKind, s: &Sentence, missing: Missing) -> Reading {
    Reading::Asks(Ask {
        kind,
        sentence: super::super::tokens::sentence_text(s),
        missing,
    })
}

pub(super) fn declines(kind: RequestKind, why: Why) -> Reading {
    Reading::Declines { kind, why }
}

// ---------------------------------------------------------------------------------------
// The words that turn a request around (negation: `super::super::tokens`).

/// Declining an offer: it is no acceptance and no offer.
pub(super) const REJECTIONS: &[&str] = &[
    "ablehnen",
    "lehne",
    "lehnen",
    "abgelehnt",
    "abzulehnen",
    "decline",
    "declined",
    "declining",
    "reject",
    "rejected",
    "refuse",
    "refused",
    "verzichte",
];

const FIRST_PERSON: &[&str] = &[
    "ich", "i", "mein", "meine", "meinen", "meinem", "meiner", "mir", "mich", "my", "me", "i'm",
    "i'll", "i'd", "i've", "ive", "wir", "we", "uns", "us", "let's", "lets", "unsere", "our",
];

const SECOND_PERSON: &[&str] = &[
    "du",
    "dich",
    "dir",
    "dein",
    "deine",
    "deinen",
    "deinem",
    "deiner",
    "you",
    "your",
    "you're",
    "you've",
    "youre",
    "gibst",
    "nimmst",
    "bist",
    "hast",
    "willst",
    "moechtest",
    "machst",
];

/// Someone else's act (`er hat aufgegeben`, `mein Sohn hat …`).
pub(super) const THIRD_PERSON: &[&str] = &[
    "er",
    "he",
    "she",
    "they",
    "gegner",
    "opponent",
    "gegenspieler",
    "hat",
    "has",
    "sohn",
    "tochter",
    "frau",
    "mann",
    "freund",
    "son",
    "daughter",
    "wife",
    "husband",
    "friend",
];

/// Whether the sentence speaks to the partner: `du`, `you`, or a capitalised `Sie`/`Ihnen` after
/// the first word (the formal address).
pub(super) fn second_person(s: &Sentence) -> bool {
    // `Sie haben wohl …?`: a question opening with `Sie` speaks to the partner.
    let opens_with_sie = s.question && s.words().next().is_some_and(|(_, w)| w == "sie");
    opens_with_sie
        || s.has(SECOND_PERSON)
        || s.toks.iter().skip(1).any(|t| {
            matches!(t, Tok::Word { folded, upper: true } if folded == "sie" || folded == "ihnen")
        })
}

pub(super) fn first_person(s: &Sentence) -> bool {
    s.has(FIRST_PERSON)
}

/// The past (`war`, `hatte`, `letztes Jahr`, `yesterday`).
pub(super) const PAST: &[&str] = &[
    "war",
    "waren",
    "warst",
    "hatte",
    "hatten",
    "were",
    "had",
    "gestern",
    "yesterday",
    "damals",
    "vergangenen",
    "vergangene",
    "letztes",
    "letzten",
    "last",
    "ago",
    "frueher",
    "neulich",
    "gehabt",
];

/// Talk of another game or another event.
pub(super) const OTHER_GAME: &[&str] = &[
    "anderen",
    "andere",
    "other",
    "turnier",
    "tournament",
    "olympiade",
    "gegen",
    "against",
    "zwischen",
    "between",
    "bundesliga",
    "liga",
    "vereinsmeisterschaft",
    "jugendturnier",
    "club",
    "verein",
    "gruppe",
    "weltmeisterschaft",
];

/// Uncertainty: the writer thinks about it, does not declare it.
const HEDGES: &[&str] = &[
    "vielleicht",
    "eventuell",
    "evtl",
    "moeglicherweise",
    "wahrscheinlich",
    "voraussichtlich",
    "wohl",
    "ueberlege",
    "ueberlegen",
    "ueberlegt",
    "sollte",
    "sollten",
    "muesste",
    "koennte",
    "koennten",
    "bald",
    "spaeter",
    "demnaechst",
    "irgendwann",
    "maybe",
    "perhaps",
    "probably",
    "possibly",
    "might",
    "should",
    "considering",
    "consider",
    "thinking",
    "soon",
    "later",
    "wenn",
    "falls",
    "sofern",
    "if",
    "unless",
    "sonst",
    "otherwise",
    "waere",
    "would",
    "could",
    "eher",
    "denke",
    "glaube",
    "think",
    "guess",
    "seems",
    "scheint",
    "fair",
    "gerecht",
];

/// English `was` (German `was` is "what"): `I was on leave`, `it was drawn`.
pub(super) fn english_was(s: &Sentence) -> bool {
    [
        "i", "it", "he", "she", "that", "this", "game", "position", "there",
    ]
    .iter()
    .any(|w| bigram(s, w, "was"))
}

pub(super) fn hedged(s: &Sentence) -> bool {
    s.has(HEDGES)
}

/// The player plays on (`ich spiele weiter`, `I'll play on`): no draw, no resignation.
pub(super) fn plays_on(s: &Sentence) -> bool {
    s.has(&["weiter", "weiterspielen", "weiterkaempfen"])
        && s.has(&[
            "spiele",
            "spielen",
            "kaempfe",
            "kaempfen",
            "geht",
            "weiterspielen",
        ])
        || s.has(&["play", "playing", "keep"]) && s.has(&["on", "playing"])
}

/// A separable verb's particle closes its clause (`ich gebe … auf`, `ich nehme … an`): whether
/// `particle` is the last word of a clause of the sentence, or is followed only by `und`,
/// `hiermit`, `jetzt`, `bzw.`.
pub(super) fn particle_at_end(s: &Sentence, particle: &str) -> bool {
    s.toks.iter().enumerate().any(|(i, t)| {
        t.word() == Some(particle) && {
            let (_, end) = s.clause_of(i);
            match s.toks[i + 1..end].iter().find_map(Tok::word) {
                None => true,
                Some(next) => matches!(
                    next,
                    "und" | "and" | "hiermit" | "jetzt" | "nun" | "bitte" | "bzw" | "oder" | "or"
                ),
            }
        }
    })
}

/// Whether word `a` is followed by word `b` (`na gut`, `call it`).
pub(super) fn bigram(s: &Sentence, a: &str, b: &str) -> bool {
    let mut words = s.words().map(|(_, w)| w);
    let Some(mut before) = words.next() else {
        return false;
    };
    words.any(|w| {
        let pair = before == a && w == b;
        before = w;
        pair
    })
}

// ---------------------------------------------------------------------------------------
// The draw words (TO §2, FIDE 9.2): a draw's grammar and a claim's.

/// `draw` as a verb of drawing: `draw your attention`, `draw me a diagram`.
const DRAW_OTHER_SENSE_NEXT: &[&str] = &[
    "your",
    "attention",
    "up",
    "conclusions",
    "conclusion",
    "on",
    "from",
    "out",
    "lots",
    "lot",
    "breath",
    "closer",
    "near",
    "picture",
    "pictures",
    "diagram",
    "diagrams",
    "sketch",
    "line",
    "lines",
    "map",
    "inspiration",
    "me",
    "him",
    "her",
    "them",
    "us",
    "some",
];

/// Whether word `w` (token `i`) is a draw word: `remis` and its compounds, `unentschieden`,
/// `Punkteteilung`, English `draw` as a noun.
pub(super) fn draw_word(s: &Sentence, i: usize, w: &str) -> bool {
    // `Remise`: a shed.
    (w.starts_with("remis") && w != "remise")
        || w == "unentschieden"
        || w == "punkteteilung"
        || w == "friedensangebot"
        || w == "drawish"
        || ((w == "draw" || w == "drawn") && !draw_other_sense(s, i))
}

fn draw_other_sense(s: &Sentence, i: usize) -> bool {
    let next = s.toks.get(i + 1).and_then(Tok::word);
    next.is_some_and(|n| DRAW_OTHER_SENSE_NEXT.contains(&n))
}

// ---------------------------------------------------------------------------------------
// The leave words and the dates of a span (TO §24): a leave's grammar, its withdrawal's,
// an announcement's and a director's.

/// Words that always carry a leave.
pub(super) fn leave_word(w: &str) -> bool {
    (w.contains("urlaub")
        && !w.starts_with("urlaubsgruess")
        && !w.starts_with("urlaubsgruesse")
        && w != "urlaubsreif")
        || w == "ferien"
        || w.starts_with("abwesenheit")
        || w == "abwesend"
        || w == "vacation"
        || w == "vacations"
        || w == "holiday"
        || w == "holidays"
}

/// The dates of a sentence, in order: `10.12. – 23.12.2026`, `vom 10. bis 23. Dezember`,
/// `1.–14. Februar 2027`, `zwischen dem 5. und 19. April` (a bare day before a date takes its
/// month and year); and the token index of the first.
pub(super) fn span_of(s: &Sentence) -> (Vec<StatedDate>, Option<usize>) {
    let mut dates = Vec::new();
    let mut first_at = None;
    for (i, t) in s.toks.iter().enumerate() {
        match t {
            Tok::Date(d) => {
                first_at.get_or_insert(i);
                dates.push(*d);
            }
            Tok::Ordinal(n) | Tok::Num(n) if (1..=31).contains(n) && dates.is_empty() => {
                let sep = s.toks.get(i + 1);
                let joined = matches!(sep, Some(Tok::Dash))
                    || sep.and_then(Tok::word).is_some_and(|w| {
                        matches!(w, "bis" | "to" | "until" | "till" | "und" | "and")
                    });
                let to = (i + 2..(i + 5).min(s.toks.len())).find_map(|j| match &s.toks[j] {
                    Tok::Date(d) => Some(*d),
                    _ => None,
                });
                if joined && let Some(to) = to {
                    first_at.get_or_insert(i);
                    dates.push(StatedDate {
                        day: *n,
                        month: to.month,
                        year: to.year,
                    });
                }
            }
            _ => {}
        }
    }
    (dates, first_at)
}
