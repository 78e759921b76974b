//! One rule per request, over the folded words of a sentence ([`super::tokens`]).
//!
//! Each rule first looks for the words that *carry* its request (the lexicon beside it: verbs in
//! their forms, nouns and compounds, number words); without one it says nothing. With one it
//! always gives a reading ([`Reading::Acts`], [`Reading::Asks`] or [`Reading::Declines`]), asking
//! in this order: is the word used in another sense; is it negated in its clause; is it about the
//! partner, another game or the past; is the sentence a question or hedged; is the request
//! complete. What is not certain is asked, never guessed (TO §2, §8).
//!
//! One file per rule, its lexicon and helpers beside it (`draw.rs` with `bare_accept`,
//! `claim.rs`, `resign.rs`, `announce.rs`, `take_back.rs`, `withdraw_leave.rs`, `status.rs`,
//! `leave.rs`, `director.rs`, `desk.rs`); what several rules share — asking back and declining,
//! negation's companions (person, the past, another game, hedges, particles, word pairs), the
//! draw and leave words, the dates of a span — is in `clause.rs`. This file only hands a
//! sentence to them, in order.

mod announce;
mod claim;
mod clause;
mod desk;
mod director;
#[cfg(test)]
mod director_tests;
mod draw;
mod leave;
mod resign;
mod status;
mod take_back;
#[cfg(test)]
mod tests;
mod withdraw_leave;

use self::announce::announce;
use self::claim::claim;
use self::clause::declines;
use self::desk::desk;
use self::director::director;
use self::draw::{bare_accept, draw};
use self::leave::leave;
use self::resign::resign;
use self::status::status;
use self::take_back::take_back;
use self::withdraw_leave::withdraw_leave;
use super::reading::{Reading, Why};
use super::tokens::Sentence;
use crate::letter::types::{Ask, Missing, RequestKind};

/// Every reading of one sentence. `before` is the sentence before it (`Agreed. Draw.`), `after`
/// the (up to two) sentences after it (a leave's dates may follow there:
/// `Urlaubsmeldung. 10.12.2026 – 23.12.2026`; `Remis? Nein danke!`).
pub fn read_sentence(s: &Sentence, before: Option<&Sentence>, after: &[Sentence]) -> Vec<Reading> {
    // The director's desk in words (TO §11, §23, §26, §29, §30): acted on, asked back with the
    // exact form, or declined.
    if let Some(r) = desk(s, after) {
        return vec![r];
    }
    // A director's command in words (TO §21–§26, §30): the sentence is his, not a player's.
    if let Some(cmd) = director(s) {
        return vec![Reading::Commands(cmd)];
    }
    // TO §24: a planned leave withdrawn (`Urlaub zurückgezogen`, `I cancel my leave`) is the
    // sentence's one request: not a leave asked for, not a move taken back (TO §4).
    if let Some(r) = withdraw_leave(s) {
        return vec![r];
    }
    let mut out = Vec::new();
    // TO §4: what a take-back names (`ich ziehe mein Remisangebot zurück`) is not made anew.
    let took_back = take_back(s);
    let taken = matches!(took_back, Some(Reading::Acts(_) | Reading::Asks(_)));
    out.extend(took_back);
    if !taken {
        let claim = claim(s);
        let claimed = claim.is_some();
        out.extend(claim);
        if !claimed {
            let draw = draw(s, before, after);
            if draw.is_none() {
                out.extend(bare_accept(s));
            }
            out.extend(draw);
        }
        out.extend(resign(s));
    }
    let announced = announce(s);
    let leave = match (&announced, leave(s, after)) {
        // `mehr als 10 Tage (Urlaub ohne Bücher)`: a leave without dates explains the §13
        // announcement beside it, it asks for nothing.
        (
            Some(Reading::Acts(_)),
            Some(Reading::Asks(Ask {
                missing: Missing::Dates,
                ..
            })),
        ) => Some(declines(RequestKind::Leave, Why::Describes)),
        (_, leave) => leave,
    };
    out.extend(announced);
    out.extend(status(s));
    out.extend(leave);
    out
}
