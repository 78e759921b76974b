//! The request reader: what a player asks for in his own sentences (TO §2, §4, §13, §24; FIDE
//! 9.2) — `Ich nehme Urlaub vom 10.12. bis 23.12.2026.`, `Wollen wir uns auf Remis einigen?`,
//! `Ich gebe die Partie verloren.`, `I'll need more than ten days for my next move.`
//!
//! Not a pile of patterns: [`tokens`] cuts the prose into sentences of folded words, dates and
//! numbers; [`grammar`] has one small rule per request, built from the words that carry it
//! (verbs in their forms, nouns and compounds, number words) and the words that turn it around
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
mod time;
pub mod tokens;
mod warn;

use serde::{Deserialize, Serialize};

use super::types::{Ask, Content, DateSpan, DirectorCommand, Missing, RequestKind};

/// A request understood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Request {
    /// TO §2: a draw offer.
    Offer,
    /// TO §2: the acceptance of the partner's draw offer.
    Accept,
    /// FIDE 9.2: a draw claim by repetition.
    Claim,
    /// TO §2: a resignation.
    Resign,
    /// TO §13: more than 10 days for the next move.
    Announce,
    /// TO §4: something taken back.
    TakeBack,
    /// The writer asks for his games.
    Status,
    /// TO §24: a leave, first and last day.
    Leave(DateSpan),
    /// TO §24: a planned leave withdrawn (the one of these dates, if named).
    WithdrawLeave(Option<DateSpan>),
}

impl Request {
    /// The kind of request this is.
    pub fn kind(&self) -> RequestKind {
        match self {
            Request::Offer => RequestKind::Offer,
            Request::Accept => RequestKind::Accept,
            Request::Claim => RequestKind::Claim,
            Request::Resign => RequestKind::Resign,
            Request::Announce => RequestKind::Announce,
            Request::TakeBack => RequestKind::TakeBack,
            Request::Status => RequestKind::Status,
            Request::Leave(_) => RequestKind::Leave,
            Request::WithdrawLeave(_) => RequestKind::WithdrawLeave,
        }
    }
}

/// Why a sentence with a request's word asks for nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Why {
    /// `nicht`, `kein`, `never`, `no draw`, or the offer declined (`lehne … ab`).
    Negated,
    /// About the partner's act: `hast du aufgegeben?`, `wenn du aufgibst`, `bist du im Urlaub?`.
    AboutPartner,
    /// A report of the past or of another game: `endete remis`, `im Urlaub war ich in Italien`.
    Reported,
    /// Describes the position: `in der Remisbreite`, `drawish`.
    Describes,
    /// The word in another sense: `draw your attention`, `leave it`, `eine schwere Aufgabe`,
    /// a wish (`schöne Feiertage`), `Status` as a noun of something else.
    OtherSense,
}

/// What one sentence says about one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reading {
    Acts(Request),
    Asks(Ask),
    Declines {
        kind: RequestKind,
        why: Why,
    },
    /// A director's command in a sentence (`Ich werte die Partie als Remis.`); the core decides
    /// whether the writer may give it.
    Commands(DirectorCommand),
}

/// Requests that answer the same question: a draw (offer, acceptance, claim), a resignation,
/// an announcement, a leave, a take-back, a status.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Family {
    Draw,
    Resign,
    Announce,
    Leave,
    TakeBack,
    Status,
    /// The director's desk (TO §11, §23, §26, §29, §30).
    Desk,
}

impl RequestKind {
    /// The family of the kind.
    pub fn family(self) -> Family {
        match self {
            RequestKind::Offer | RequestKind::Accept | RequestKind::Draw | RequestKind::Claim => {
                Family::Draw
            }
            RequestKind::Resign => Family::Resign,
            RequestKind::Announce => Family::Announce,
            RequestKind::Leave => Family::Leave,
            RequestKind::TakeBack => Family::TakeBack,
            RequestKind::Status => Family::Status,
            // A leave taken back, not asked for: what a take-back reads (TO §4, §24).
            RequestKind::WithdrawLeave => Family::TakeBack,
            RequestKind::Records
            | RequestKind::Withdrawal
            | RequestKind::Question
            | RequestKind::ThroughDirector => Family::Desk,
        }
    }
}

impl Reading {
    /// The family of the request the reading is about; `None` for a director's command.
    pub fn family(&self) -> Option<Family> {
        self.kind().map(RequestKind::family)
    }

    /// The kind of request the reading is about; `None` for a director's command.
    pub fn kind(&self) -> Option<RequestKind> {
        match self {
            Reading::Acts(r) => Some(r.kind()),
            Reading::Asks(a) => Some(a.kind),
            Reading::Declines { kind, .. } => Some(*kind),
            Reading::Commands(_) => None,
        }
    }
}

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
                sentence: sentence_text(s),
                reading,
            });
        }
    }
    out
}

/// The sentence as quoted back to the writer: without a leading greeting cut off by a comma
/// (`Lieber Bert, wollen wir …` → `wollen wir …`) when the rest is the request.
fn sentence_text(s: &tokens::Sentence) -> String {
    const GREETINGS: &[&str] = &[
        "lieber", "liebe", "hallo", "hi", "hello", "dear", "sehr", "guten", "moin", "servus",
    ];
    let text = s.text.trim();
    if let Some((head, rest)) = text.split_once(',') {
        let first = tokens::fold(head.split_whitespace().next().unwrap_or(""));
        if GREETINGS.contains(&first.as_str()) && head.split_whitespace().count() <= 4 {
            return rest.trim().to_string();
        }
    }
    text.to_string()
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
