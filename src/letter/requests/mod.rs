//! The request reader: what a player asks for in his own sentences (TO §2, §4, §13, §24; FIDE
//! 9.2) — `Ich nehme Urlaub vom 10.12. bis 23.12.2026.`, `Wollen wir uns auf Remis einigen?`,
//! `Ich gebe die Partie verloren.`, `I'll need more than ten days for my next move.`
//!
//! Not a pile of patterns: [`tokens`] cuts the prose into sentences of folded words, dates and
//! numbers (and reads what every rule asks of a sentence: negation, spans of days); [`grammar`]
//! has one small rule per request, built from the words that carry it (verbs in their forms,
//! nouns and compounds, number words) and the words that turn it around
//! (negation, a question about the partner, a report of the past, a wish). Each rule that finds
//! its request's word in a sentence gives that sentence exactly one of three readings:
//!
//! - [`Reading::Acts`] — understood: the relay acts on it;
//! - [`Reading::Asks`] — recognised as the request but incomplete or uncertain (a leave with one
//!   date, a draw word that may be an offer or not): the relay queries it, quoting the sentence
//!   and showing the exact form (TO §2: a draw or resignation that is doubtful is void, so it is
//!   never guessed);
//! - [`Reading::Declines`] — the word is there but the sentence asks for nothing (`ich gebe nicht
//!   auf`, `hast du aufgegeben?`, `meine Partie gegen Müller endete remis`), with the reason.
//!
//! A request word that gets none of the three cannot happen: every rule ends in `Asks` when
//! nothing else fits, and `tests/pure/phrases.rs` walks the corpus `tests/fixtures/phrases/`
//! to prove it.

pub mod grammar;
pub mod help;
pub mod overview;
mod reading;
mod time;
pub mod tokens;
mod warn;

use super::types::{Ask, Content, Missing, RequestKind};
pub use reading::{Family, Reading, Request, Why};

/// One reading with the sentence it came from, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Read {
    pub sentence: String,
    pub reading: Reading,
}

/// Reads every sentence of a paragraph of prose.
///
/// ```
/// use fernzug::letter::requests::{read_paragraph, Reading, Request};
/// let reads = read_paragraph("Lieber Bert, wollen wir uns auf Remis einigen? Gruß Anna");
/// assert_eq!(reads.len(), 1);
/// assert_eq!(reads[0].reading, Reading::Acts(Request::Offer));
/// assert_eq!(reads[0].sentence, "wollen wir uns auf Remis einigen?");
/// ```
pub fn read_paragraph(paragraph: &str) -> Vec<Read> {
    read_units(&[paragraph])
}

/// Reads the sentences of several units of prose in order (a sentence never crosses a unit; a
/// leave's dates may stand in the sentences after its word).
pub fn read_units<S: AsRef<str>>(units: &[S]) -> Vec<Read> {
    let sentences: Vec<tokens::Sentence> = units
        .iter()
        .flat_map(|u| tokens::sentences(u.as_ref()))
        .collect();
    let mut out = Vec::new();
    for (i, s) in sentences.iter().enumerate() {
        let after = &sentences[i + 1..(i + 3).min(sentences.len())];
        let before = i.checked_sub(1).map(|b| &sentences[b]);
        for reading in grammar::read_sentence(s, before, after) {
            out.push(Read {
                sentence: tokens::sentence_text(s),
                reading,
            });
        }
    }
    out
}

/// Settles what a whole letter asks: a request made clearly in one sentence is not asked again
/// for another that hedges about the same thing (`Ich gebe auf. Glückwunsch zum Sieg!`), and of
/// several uncertain sentences about one thing the first is asked.
pub fn settle(c: &mut Content) {
    let acts = |f: Family| match f {
        Family::Draw => c.draw_offer || c.draw_accept || c.claim_repetition,
        Family::Resign => c.resign,
        Family::Announce => c.announce_long_think,
        // A leave withdrawn answers the leave too (the subject `Urlaub` above it).
        Family::Leave => c.leave.is_some() || c.withdraw_leave.is_some(),
        Family::TakeBack => c.take_back || c.withdraw_leave.is_some(),
        Family::Status => c.status_request,
        Family::Desk => !c.director.is_empty(),
    };
    let mut seen: Vec<Family> = Vec::new();
    let keep: Vec<bool> = c
        .asks
        .iter()
        .map(|a| {
            let f = a.kind.family();
            let first = !seen.contains(&f);
            seen.push(f);
            first && !acts(f)
        })
        .collect();
    let mut keep = keep.into_iter();
    c.asks.retain(|_| keep.next().unwrap_or(false));
}

/// Puts what was read into the letter's [`Content`]: understood requests set their flag (the
/// first leave counts), requests not certain become [`Content::asks`].
pub fn apply(reads: &[Read], c: &mut Content) {
    for r in reads {
        match &r.reading {
            Reading::Acts(req) => match req {
                Request::Offer => c.draw_offer = true,
                Request::Accept => c.draw_accept = true,
                Request::Claim => c.claim_repetition = true,
                Request::Resign => c.resign = true,
                Request::Announce => c.announce_long_think = true,
                Request::TakeBack => c.take_back = true,
                Request::Status => c.status_request = true,
                Request::WithdrawLeave(span) => {
                    c.withdraw_leave = Some(crate::letter::types::Withdrawal { span: *span });
                }
                // Two different leaves in one mail are not guessed at: asked, one per mail.
                Request::Leave(span) => match c.leave {
                    None if !c.asks.iter().any(|a| a.missing == Missing::OnePerMail) => {
                        c.leave = Some(*span);
                    }
                    Some(first) if first != *span => {
                        c.leave = None;
                        c.asks.push(Ask {
                            kind: RequestKind::Leave,
                            sentence: r.sentence.clone(),
                            missing: Missing::OnePerMail,
                        });
                    }
                    _ => {}
                },
            },
            Reading::Asks(a) => {
                if !c.asks.contains(a) {
                    c.asks.push(a.clone());
                }
            }
            Reading::Declines { .. } => {}
            Reading::Commands(cmd) => c.director.push(cmd.clone()),
        }
    }
}
