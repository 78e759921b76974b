//! Routing one letter to its room, after the door let it in: a stranger's mail, a `Status`
//! request (`records`), a director's mail (`director`), a leave (`director::leave`), and a player's
//! letter about a game (`play`).

use chrono::{DateTime, Utc};

use crate::core::model::Step;
use crate::core::model::{EndReason, GameResult, Output, Refusal, Settings, State};
use crate::core::records::status::says_more_than_status;
use crate::letter::Letter;

impl State {
    /// Acts on one letter received at `now` (the postmark), after `crate::core::door::screen` let it in;
    /// [`State::handle_letter`] is the entry point.
    pub(crate) fn answer_letter(
        &mut self,
        letter: &Letter,
        now: DateTime<Utc>,
        s: &Settings,
    ) -> Output {
        // Automatic mails, the relay's own and unauthenticated ones were screened out before.
        let mut out = Output::default();
        if !self.knows(&letter.from) {
            // A stranger's mail changes nothing and gets at most one polite answer.
            if self.meta.strangers_answered.insert(letter.from.clone()) {
                let lang = s.default_lang;
                self.query(
                    &mut out,
                    letter,
                    None,
                    lang,
                    Refusal::Stranger,
                    Step { now, s },
                );
            } else {
                out.log.push(format!(
                    "mail {} from stranger {}: already answered once, ignored",
                    letter.message_id, letter.from
                ));
            }
            return out;
        }
        // `Status` needs no game (src/core/records/status.rs); a mail that says more goes on as usual.
        if letter.content.status_request {
            self.answer_status(&mut out, letter, Step { now, s });
            if !says_more_than_status(&letter.content) {
                return out;
            }
        }
        // The director's hand (crate::core::director) and leave (crate::core::director::leave).
        if self.is_director_letter(letter) {
            self.handle_director(&mut out, letter, Step { now, s });
            // A change of time may make a forfeit due at once (TO §17).
            out.absorb(self.fire_due(Step { now, s }));
            return out;
        }
        if let Some(span) = letter.content.leave {
            self.handle_leave(&mut out, letter, span, Step { now, s });
            let c = &letter.content;
            if c.moves.is_empty() && !c.resign && !c.draw_accept && !c.announce_long_think {
                return out;
            }
        }
        let game_ref = match self.game_of_letter(letter) {
            Ok(g) => g,
            Err(r) => {
                let lang = self.lang_for(&letter.from, None, s);
                self.query(&mut out, letter, None, lang, r, Step { now, s });
                return out;
            }
        };
        let Some(game) = self.games.get(&game_ref) else {
            let lang = self.lang_for(&letter.from, None, s);
            let r = Refusal::UnknownGame {
                game: game_ref.to_string(),
            };
            self.query(&mut out, letter, None, lang, r, Step { now, s });
            return out;
        };
        out.letter_games.insert(game_ref.clone());
        let lang = self.lang_for(&letter.from, Some(&game_ref), s);
        let Some(color) = game.color_of(&letter.from) else {
            let r = Refusal::NotAPlayer {
                game: game_ref.to_string(),
            };
            self.query(&mut out, letter, Some(&game_ref), lang, r, Step { now, s });
            return out;
        };
        if let Err(r) = self.check_letter(&game_ref, color, &letter.content, Step { now, s }) {
            self.query(&mut out, letter, Some(&game_ref), lang, r, Step { now, s });
            return out;
        }
        let c = &letter.content;
        if c.resign {
            self.finish(
                &mut out,
                &game_ref,
                GameResult::for_winner(!color),
                EndReason::Resignation,
                now,
                s,
            );
            return out;
        }
        if c.draw_accept {
            self.finish(
                &mut out,
                &game_ref,
                GameResult::Draw,
                EndReason::DrawAgreed,
                now,
                s,
            );
            return out;
        }
        let own_moves = c.moves.iter().any(|m| m.color == color);
        if c.claim_repetition && !own_moves {
            self.claim_repetition(&mut out, letter, &game_ref, Step { now, s });
            return out;
        }
        if c.announce_long_think && !own_moves {
            self.announce(&mut out, letter, &game_ref, color, Step { now, s });
            return out;
        }
        let resolved = self
            .resolve(&game_ref, color, &c.moves, s)
            .and_then(|r| self.check_claim(&game_ref, r, c))
            .and_then(|r| self.check_lines(&game_ref, color, r, c));
        match resolved {
            Ok(resolved) => {
                // TO §24: a move sent during leave ends it the day before.
                self.end_leave_on_move(&mut out, &game_ref, &letter.from, letter, Step { now, s });
                self.play(
                    &mut out,
                    letter,
                    &game_ref,
                    color,
                    resolved,
                    Step { now, s },
                )
            }
            Err(r) => self.query(&mut out, letter, Some(&game_ref), lang, r, Step { now, s }),
        }
        out
    }
}
