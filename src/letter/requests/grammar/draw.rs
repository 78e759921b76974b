//! TO §2: draws — offer, acceptance, or a draw word that is neither for certain.

use super::super::reading::{Reading, Request, Why};
use super::super::tokens::{Sentence, Tok, negated};
use super::clause::{
    OTHER_GAME, PAST, REJECTIONS, THIRD_PERSON, ask, bigram, declines, draw_word, english_was,
    first_person, hedged, particle_at_end, plays_on, second_person,
};
use crate::letter::types::{Missing, RequestKind};

/// Adjectives and nouns that describe a position as drawn, no request.
const DRAW_DESCRIPTIONS: &[&str] = &[
    "remisbreite",
    "remislich",
    "remisverdaechtig",
    "remisverdacht",
    "remisendspiel",
    "remisstellung",
    "remistendenz",
    "remisschwanger",
    "remiswege",
    "remisweg",
    "drawish",
    "drawn",
];

/// Words that offer (verbs in their forms, nouns).
const OFFER_WORDS: &[&str] = &[
    "biete",
    "bite",
    "biet",
    "bieten",
    "bietet",
    "anbieten",
    "anzubieten",
    "angeboten",
    "anbiete",
    "offeriere",
    "offerieren",
    "vorschlagen",
    "vorzuschlagen",
    "schlage",
    "einigen",
    "teilen",
    "offer",
    "offering",
    "offers",
    "offered",
    "propose",
    "proposing",
    "proposal",
    "suggest",
    "suggesting",
    "shall",
    "split",
    "share",
    "settle",
    "friedensangebot",
    "machen",
];

/// Words that accept for certain.
const ACCEPT_WORDS: &[&str] = &[
    "angenommen",
    "annehmen",
    "anzunehmen",
    "akzeptiere",
    "akzeptiert",
    "akzeptieren",
    "einverstanden",
    "zustimmen",
    "accept",
    "accepted",
    "accepting",
    "accepts",
    "agreed",
    "angenomen",
    "akzeptire",
];

/// Short words that accept when they open the sentence (`Ja, Remis!`, `OK, Remis.`).
const ACCEPT_OPENERS: &[&str] = &["ja", "yes", "ok", "okay", "gerne", "gern", "gladly", "fine"];

/// Accepting words of a sentence: certain ones, `nehme … an`, `stimme … zu`, `I agree to`,
/// `I'll take the draw`, or an opener (`Ja, Remis`, `Na gut, dann eben remis`).
fn accepts(s: &Sentence) -> bool {
    // An opener begins the sentence or a clause of it (`Hi Bert, yes, let's call it a draw`).
    let opener = s.toks.iter().enumerate().any(|(i, t)| {
        t.word().is_some_and(|w| ACCEPT_OPENERS.contains(&w))
            && (i == 0 || matches!(s.toks[i - 1], Tok::Comma | Tok::Dash))
    });
    s.has(ACCEPT_WORDS)
        || particle_at_end(s, "an") && s.has(&["nehme", "nehmen", "nimm", "nehm"])
        || s.has(&["stimme", "stimmen"]) && particle_at_end(s, "zu")
        || s.has(&["gehe", "gehen"]) && particle_at_end(s, "ein")
        || s.has(&["agree"]) && !s.has(&["we", "us", "let's", "lets", "could", "shall"])
        || s.has(&["take"]) && !s.has(&["back"])
        || opener
        || bigram(s, "na", "gut")
        || bigram(s, "also", "gut")
        || bigram(s, "dann", "eben")
}

pub(super) fn draw(s: &Sentence, before: Option<&Sentence>, after: &[Sentence]) -> Option<Reading> {
    let kind = RequestKind::Draw;
    let Some((d, dw)) = s
        .words()
        .find(|&(i, w)| draw_word(s, i, w))
        .map(|(i, w)| (i, w.to_string()))
    else {
        // `draw me a diagram`, `das Auto steht in der Remise`: the word, in another sense.
        return s
            .find_by(|w| w == "draw" || w == "drawing" || w == "remise")
            .map(|_| declines(kind, Why::OtherSense));
    };
    // `the game was drawn`, `in der Remisbreite`: a description.
    if DRAW_DESCRIPTIONS.contains(&dw.as_str()) && !s.has(OFFER_WORDS) && !accepts(s) {
        return Some(declines(kind, Why::Describes));
    }
    if s.has(REJECTIONS) || plays_on(s) || s.has(&["frueh", "early", "erst"]) {
        return Some(declines(kind, Why::Negated));
    }
    // `Wollen wir nicht Remis machen?`, `Shouldn't we call it a draw?`: an offer.
    if s.question
        && s.has(&[
            "wollen",
            "sollen",
            "sollten",
            "shall",
            "should",
            "shouldn't",
            "koennen",
        ])
        && s.has(&["wir", "we"])
    {
        return Some(Reading::Acts(Request::Offer));
    }
    // `kein Remis`, `no draw`, `ich biete kein Remis an`; a negation in another clause
    // (`ich kann nicht mehr, Remis?`) does not count.
    if negated(s, d) || s.find(&["agree", "agreed"]).is_some_and(|i| negated(s, i)) {
        return Some(declines(kind, Why::Negated));
    }
    // `Remis? Nein danke!`, `Remis? Auf keinen Fall!`: the partner's offer quoted and refused.
    if s.question
        && s.word_count() <= 2
        && after.first().is_some_and(|n| {
            n.words()
                .next()
                .is_some_and(|(_, w)| matches!(w, "nein" | "no" | "auf" | "never" | "niemals"))
                || plays_on(n)
        })
    {
        return Some(declines(kind, Why::Negated));
    }
    // `Danke für das Remisangebot, aber …`: the partner's offer, thanked for.
    if s.has(&["danke", "thanks", "thank"]) && !accepts(s) && !s.has(&["biete", "offer"]) {
        return Some(declines(kind, Why::AboutPartner));
    }
    // `Bei einem Remis steigen wir beide auf`: what a draw would mean.
    if bigram(s, "bei", "einem") || bigram(s, "with", "a") && s.has(&["would"]) {
        return Some(declines(kind, Why::Describes));
    }
    let accept = accepts(s);
    let offer = s.has(OFFER_WORDS)
        || dw.contains("angebot")
        || dw.contains("vorschlag")
        || dw.contains("offerte")
        || bigram(s, "call", "it")
        || bigram(s, "how", "about")
        || bigram(s, "was", "haeltst")
        || bigram(s, "was", "halten")
        || (s.has(&["wollen", "sollen", "koennen", "what", "wie"]) && s.question);
    let reported = ((s.has(PAST) || english_was(s)) && !s.question)
        || s.has(OTHER_GAME)
        || (s.has(THIRD_PERSON) && !s.question && !s.has(&["hiermit"]))
        || s.has(&["gespielt", "played", "endete", "ended"]);
    if reported && !(dw.contains("angebot") && s.has(&["ihr", "dein", "deinen", "ihren", "your"])) {
        return Some(declines(kind, Why::Reported));
    }
    // `Hast du mir Remis angeboten?`, `Did you offer a draw?`: a question about the partner's act.
    if s.question && s.has(&["hast", "haben", "did", "have"]) && second_person(s) {
        return Some(declines(kind, Why::AboutPartner));
    }
    // `Agreed. Draw.`: an acceptance split in two sentences.
    let short_after_accept = s.word_count() <= 2
        && before.is_some_and(|b| b.word_count() <= 2 && accepts(b) && !b.question);
    // An offer verb wins over an acceptance said only under a condition (`ich biete Remis an,
    // sofern Sie einverstanden sind`).
    let conditional_accept = s.has(&["sofern", "falls", "wenn", "if"]);
    if (accept && !(offer && conditional_accept) && !s.has(&["biete", "anbieten", "offeriere"]))
        || short_after_accept
    {
        if s.question {
            // `Nimmst du Remis an?`, `Would you accept a draw?`: asking the partner is offering.
            if second_person(s) {
                return Some(Reading::Acts(Request::Offer));
            }
            return Some(ask(RequestKind::Accept, s, Missing::Certainty));
        }
        // `Ich bin mit Remis einverstanden, falls Sie das auch so sehen.`: agreeing under a
        // condition may be an offer or an acceptance.
        if conditional_accept && !offer {
            return Some(ask(kind, s, Missing::Which));
        }
        if hedged(s) {
            return Some(ask(RequestKind::Accept, s, Missing::Certainty));
        }
        return Some(Reading::Acts(Request::Accept));
    }
    // `Über ein Remis könnten wir ja mal reden.`, `Maybe we could agree a draw?`
    if hedged(s) && s.has(&["wir", "we", "uns", "us"]) && !s.has(&["biete", "offer"]) {
        return Some(ask(RequestKind::Offer, s, Missing::Certainty));
    }
    if offer || s.question {
        if hedged(s) && !s.question && !s.has(&["gerne", "gern", "hiermit", "hereby", "like"]) {
            return Some(ask(RequestKind::Offer, s, Missing::Certainty));
        }
        // `Wäre ein Remis für Sie denkbar?`: a question whether a draw could be, not an offer.
        if s.question
            && s.has(&[
                "denkbar",
                "vorstellbar",
                "moeglich",
                "conceivable",
                "possible",
                "thinkable",
            ])
        {
            return Some(ask(RequestKind::Offer, s, Missing::Certainty));
        }
        // `Du hast mir Remis angeboten.`: the partner's offer, reported (not `… und schlage
        // Ihnen Remis vor`, where the writer offers).
        if !s.question
            && second_person(s)
            && !first_person(s)
            && s.has(&[
                "angeboten",
                "offered",
                "vorgeschlagen",
                "suggested",
                "proposed",
            ])
        {
            return Some(declines(kind, Why::AboutPartner));
        }
        return Some(Reading::Acts(Request::Offer));
    }
    Some(ask(kind, s, Missing::Which))
}

/// `Einverstanden.`, `Dein Angebot nehme ich an.`: an acceptance that names no draw.
pub(super) fn bare_accept(s: &Sentence) -> Option<Reading> {
    if s.words().any(|(i, w)| draw_word(s, i, w)) || s.question {
        return None;
    }
    let names_offer = s.has(&["angebot", "vorschlag", "offer", "proposal"]);
    let short =
        s.word_count() <= 2 && s.has(&["einverstanden", "angenommen", "agreed", "accepted"]);
    if !(short || names_offer && accepts(s)) || negated(s, 0) || s.has(REJECTIONS) {
        return None;
    }
    Some(ask(RequestKind::Accept, s, Missing::Which))
}
