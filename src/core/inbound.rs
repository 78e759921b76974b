//! A letter from a player: which game, whether it is his turn, whether the move is valid
//! (TO §2–§10), the dates he states (TO §14/§15), an announcement (TO §13), draw offers,
//! acceptances and resignations (TO §2/§4); then the forward, the receipt or the query.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use serde_json::json;
use shakmaty::{Chess, Color, Move, Position};

use crate::core::clock;
use crate::core::event::Event;
use crate::core::game::{Game, GameStatus, PlayedMove, Turn};
use crate::core::mail::{Attachment, Mail, Recipient};
use crate::core::refusal::Refusal;
use crate::core::state::{Output, Settings, State};
use crate::core::{pgn, view};
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{Content, Doubt, Letter, MoveToken, StatedDate};
use crate::mail_kind::MailKind;
use crate::notation::{self, Form};

/// The own move of a valid mail, with what was read.
struct Resolved {
    mv: Move,
    form: Form,
}

impl State {
    /// Acts on one letter received at `now` (the postmark), after `crate::core::screen` let it in;
    /// [`State::handle_letter`] is the entry point.
    pub(crate) fn answer_letter(
        &mut self,
        letter: &Letter,
        now: DateTime<Utc>,
        s: &Settings,
    ) -> Output {
        let mut out = Output::default();
        if let Some(reason) = &letter.automatic {
            // RFC 3834: never answer an automatic mail.
            out.log.push(format!(
                "automatic mail {} from {} ({reason:?}): not answered",
                letter.message_id, letter.from
            ));
            return out;
        }
        if letter.from == s.relay_address {
            out.log.push(format!(
                "mail {} from the relay's own address: ignored",
                letter.message_id
            ));
            return out;
        }
        if !self.knows(&letter.from) {
            // A stranger's mail changes nothing and gets at most one polite answer.
            if self.meta.strangers_answered.insert(letter.from.clone()) {
                let lang = s.default_lang;
                self.query(&mut out, letter, None, lang, Refusal::Stranger, now, s);
            } else {
                out.log.push(format!(
                    "mail {} from stranger {}: already answered once, ignored",
                    letter.message_id, letter.from
                ));
            }
            return out;
        }
        let by_key = letter
            .reply_keys
            .iter()
            .find_map(|k| self.keys.get(k).cloned());
        let game_ref = match (by_key, &letter.game_ref) {
            (Some(kb), _) if kb.email != letter.from => {
                let lang = self.lang_for(&letter.from, None, s);
                self.query(&mut out, letter, None, lang, Refusal::ForeignKey, now, s);
                return out;
            }
            (Some(kb), Some(g)) if kb.game != *g => {
                let lang = self.lang_for(&letter.from, None, s);
                let r = Refusal::GameMismatch {
                    subject: g.to_string(),
                    key: kb.game.to_string(),
                };
                self.query(&mut out, letter, None, lang, r, now, s);
                return out;
            }
            (Some(kb), _) => kb.game,
            (None, Some(g)) => g.clone(),
            (None, None) => {
                let lang = self.lang_for(&letter.from, None, s);
                let open_games = self
                    .games_of(&letter.from)
                    .iter()
                    .filter(|g| g.status != GameStatus::Finished)
                    .map(|g| format!("[{}]", g.id))
                    .collect();
                self.query(
                    &mut out,
                    letter,
                    None,
                    lang,
                    Refusal::NoGameNamed { open_games },
                    now,
                    s,
                );
                return out;
            }
        };
        let Some(game) = self.games.get(&game_ref) else {
            let lang = self.lang_for(&letter.from, None, s);
            let r = Refusal::UnknownGame {
                game: game_ref.to_string(),
            };
            self.query(&mut out, letter, None, lang, r, now, s);
            return out;
        };
        out.letter_games.insert(game_ref.clone());
        let lang = self.lang_for(&letter.from, Some(&game_ref), s);
        let Some(color) = game.color_of(&letter.from) else {
            let r = Refusal::NotAPlayer {
                game: game_ref.to_string(),
            };
            self.query(&mut out, letter, Some(&game_ref), lang, r, now, s);
            return out;
        };
        if let Err(r) = self.check_letter(&game_ref, color, &letter.content, s, now) {
            self.query(&mut out, letter, Some(&game_ref), lang, r, now, s);
            return out;
        }
        let c = &letter.content;
        if c.resign {
            self.finish(
                &mut out,
                &game_ref,
                result_for_winner(!color),
                "resignation",
                now,
                s,
            );
            return out;
        }
        if c.draw_accept {
            self.finish(&mut out, &game_ref, "1/2-1/2", "draw agreed", now, s);
            return out;
        }
        if c.announce_long_think && !c.moves.iter().any(|m| m.color == color) {
            self.announce(&mut out, letter, &game_ref, color, now, s);
            return out;
        }
        match self.resolve(&game_ref, color, &c.moves) {
            Ok(resolved) => self.play(&mut out, letter, &game_ref, color, resolved, now, s),
            Err(r) => self.query(&mut out, letter, Some(&game_ref), lang, r, now, s),
        }
        out
    }

    /// The language to write to `email` in: his own in the game's tournament, else in any of his
    /// tournaments, else the relay's default.
    fn lang_for(&self, email: &str, game: Option<&GameRef>, s: &Settings) -> Lang {
        if let Some(t) = game.and_then(|g| self.tournament_of(g))
            && let Some(l) = t.player(email).and_then(|p| p.lang)
        {
            return l;
        }
        self.tournaments
            .values()
            .find_map(|t| t.player(email).and_then(|p| p.lang))
            .unwrap_or(s.default_lang)
    }

    /// Whether the game takes a mail from `color` now, and whether the mail says one clear thing.
    fn check_letter(
        &self,
        game_ref: &GameRef,
        color: Color,
        c: &Content,
        s: &Settings,
        now: DateTime<Utc>,
    ) -> Result<(), Refusal> {
        let game = &self.games[game_ref];
        let name = game_ref.to_string();
        match game.status {
            GameStatus::Finished => {
                return Err(Refusal::GameOver {
                    game: name,
                    result: game.result.clone().unwrap_or_else(|| "*".into()),
                });
            }
            GameStatus::Suspended => return Err(Refusal::Suspended { game: name }),
            GameStatus::Adjourned => return Err(Refusal::Adjourned { game: name }),
            GameStatus::WaitingStart => {
                let start = self
                    .tournament_of(game_ref)
                    .map(|t| view::date_time(t.clock_start, s.tz, Lang::De))
                    .unwrap_or_default();
                return Err(Refusal::NotStarted { start });
            }
            GameStatus::Running => {}
        }
        // TO §4: nothing can be taken back.
        if c.take_back {
            return Err(Refusal::TakeBack);
        }
        if game.to_move() != color {
            return Err(Refusal::NotYourTurn { game: name });
        }
        // TO §2/§8: struck-out moves and unreadable move lines make the mail doubtful.
        if let Some(d) = c.doubts.first() {
            return Err(match d {
                Doubt::StruckOut(t) => Refusal::StruckOut { text: t.clone() },
                Doubt::Unreadable(l) => Refusal::Unreadable { line: l.clone() },
            });
        }
        // TO §2: offers, acceptances and resignations only in words.
        if let Some(b) = &c.bare_result {
            return Err(Refusal::BareResult { text: b.clone() });
        }
        let own_moves = c.moves.iter().any(|m| m.color == color);
        if c.resign && own_moves {
            return Err(Refusal::ActAndMove {
                act: if s.default_lang == Lang::De {
                    "Die Aufgabe"
                } else {
                    "The resignation"
                },
            });
        }
        if c.draw_accept {
            if game.draw_offer.map(Color::from) != Some(!color) {
                return Err(Refusal::NoOfferToAccept);
            }
            if own_moves {
                return Err(Refusal::ActAndMove {
                    act: if s.default_lang == Lang::De {
                        "Die Remisannahme"
                    } else {
                        "The draw acceptance"
                    },
                });
            }
        }
        if c.draw_offer && !own_moves && !c.resign && !c.draw_accept {
            return Err(Refusal::OfferWithoutMove);
        }
        // TO §13: the announcement must come before 10 days have passed on the current move.
        if c.announce_long_think && !own_moves {
            let t = &self.tournaments[&game_ref.tournament];
            let rest = t.rest_of(game.players.get(color));
            let days = clock::days_used(t.rules, game.turn.since, now, s.tz, &rest);
            if days > 10 {
                return Err(Refusal::AnnouncementTooLate { days });
            }
        }
        if !own_moves && !c.resign && !c.draw_accept && !c.announce_long_think && c.moves.is_empty()
        {
            let expected = self.expected_text(game_ref, color);
            return Err(Refusal::NoMove { expected });
        }
        Ok(())
    }

    /// What a valid mail must contain, e.g. `12. Lb5 12... <Ihr Zug>`.
    fn expected_text(&self, game_ref: &GameRef, color: Color) -> String {
        let game = &self.games[game_ref];
        let n = game.moves.len();
        let form = view::form_for(game, color, self.lang_of_color(game_ref, color));
        let own = view::number_prefix(Game::number_of_ply(n), color);
        match n.checked_sub(1).and_then(|p| view::ply_text(game, p, form)) {
            Some(rep) => format!("{rep} {own} …"),
            None => format!("{own} …"),
        }
    }

    fn lang_of_color(&self, game_ref: &GameRef, color: Color) -> Lang {
        let email = self.games[game_ref].players.get(color).clone();
        self.tournament_of(game_ref)
            .and_then(|t| t.player(&email).and_then(|p| p.lang))
            .unwrap_or_default()
    }

    /// TO §2: the partner's last move repeated (not for White's first move) and the own move, both
    /// correctly numbered; TO §5, §9, §10 via the notation reader.
    fn resolve(
        &self,
        game_ref: &GameRef,
        color: Color,
        tokens: &[MoveToken],
    ) -> Result<Resolved, Refusal> {
        let game = &self.games[game_ref];
        let n = game.moves.len();
        let own_number = Game::number_of_ply(n);
        let rep_key = n.checked_sub(1).map(|p| {
            (
                Game::number_of_ply(p),
                if p % 2 == 0 {
                    Color::White
                } else {
                    Color::Black
                },
            )
        });
        let label = |t: &MoveToken| view::numbered(t.number, t.color, &t.text);
        let own: Vec<&MoveToken> = tokens
            .iter()
            .filter(|t| t.number == own_number && t.color == color)
            .collect();
        let reps: Vec<&MoveToken> = tokens
            .iter()
            .filter(|t| Some((t.number, t.color)) == rep_key)
            .collect();
        let others: Vec<&MoveToken> = tokens
            .iter()
            .filter(|t| {
                !(t.number == own_number && t.color == color)
                    && Some((t.number, t.color)) != rep_key
            })
            .collect();
        let form = view::form_for(game, color, self.lang_of_color(game_ref, color));
        let read = |text: &str, pos: &Chess| read_in_usual_form(text, pos, form);
        let own_prefix = view::number_prefix(own_number, color);
        if tokens.is_empty() {
            return Err(Refusal::NoMove {
                expected: self.expected_text(game_ref, color),
            });
        }
        if let Some(first_other) = others.first() {
            // A move with a number that is neither the repetition nor the own move.
            if own.is_empty() && first_other.color == color {
                return Err(Refusal::WrongNumber {
                    expected: format!("{own_prefix} …"),
                    written: label(first_other),
                });
            }
            if reps.is_empty() && first_other.color != color && rep_key.is_some() {
                let expected = n
                    .checked_sub(1)
                    .and_then(|p| view::ply_text(game, p, form))
                    .unwrap_or_default();
                return Err(Refusal::WrongNumber {
                    expected,
                    written: label(first_other),
                });
            }
            let extra: Vec<String> = others.iter().map(|t| label(t)).collect();
            return Err(Refusal::TooManyMoves {
                extra: extra.join(" "),
            });
        }
        let Some(own_token) = own.first() else {
            return Err(Refusal::OwnMoveMissing {
                expected: format!("{own_prefix} …"),
            });
        };
        // TO §2 (repetition): the partner's last move, read in the position before it.
        if let Some(last) = n.checked_sub(1) {
            let Some(rep) = reps.first() else {
                return Err(Refusal::RepetitionMissing {
                    expected: view::ply_text(game, last, form).unwrap_or_default(),
                });
            };
            let before = game.position_after(last);
            let played = game.moves[last].uci.clone();
            let expected = view::ply_text(game, last, form).unwrap_or_default();
            for r in &reps {
                match read(&r.text, &before) {
                    Ok(reading) if crate::core::game::Game::uci_of(reading.mv) == played => {}
                    Ok(_) => {
                        return Err(Refusal::RepetitionWrong {
                            expected,
                            written: label(r),
                        });
                    }
                    Err(notation::NotationError::Ambiguous { readings, .. })
                        if readings.iter().any(|s| *s == game.moves[last].san) => {}
                    Err(error) => {
                        return Err(Refusal::BadRepetition {
                            number: label(rep),
                            error,
                        });
                    }
                }
            }
        }
        let pos: Chess = game.position();
        let reading = read(&own_token.text, &pos).map_err(|error| Refusal::BadMove {
            number: label(own_token),
            error,
        })?;
        // TO §2: two different own moves make the mail doubtful.
        for other in own.iter().skip(1) {
            let same = read(&other.text, &pos)
                .map(|r| r.mv == reading.mv)
                .unwrap_or(false);
            if !same {
                return Err(Refusal::TwoOwnMoves {
                    first: label(own_token),
                    second: label(other),
                });
            }
        }
        Ok(Resolved {
            mv: reading.mv,
            form: reading.form,
        })
    }

    /// Plays a valid move: clocks (TO §12–§13, §20), §3 memory, §14/§15 comparison, the forward,
    /// the receipt, and the end of the game if the position ends it (TO §31: FIDE).
    #[allow(clippy::too_many_arguments)]
    fn play(
        &mut self,
        out: &mut Output,
        letter: &Letter,
        game_ref: &GameRef,
        color: Color,
        resolved: Resolved,
        now: DateTime<Utc>,
        s: &Settings,
    ) {
        let t = self.tournaments[&game_ref.tournament].clone();
        let game = self.games.get_mut(game_ref).expect("checked by the caller");
        let c = &letter.content;
        let rest = t.rest_of(game.players.get(color));
        let pos = game.position();
        let ply = game.moves.len();
        let number = Game::number_of_ply(ply);
        let san = shakmaty::san::San::from_move(&pos, resolved.mv).to_string();
        let uci = Game::uci_of(resolved.mv);
        let received = game.turn.since;
        // TO §12 / Fax 1.4: days used; TO §13: +5 without announcement past 10 days.
        let days = clock::days_used(t.rules, received, now, s.tz, &rest);
        let charged = clock::charged(days, game.turn.announced);
        let mut forfeit_now = None;
        {
            let pc = game.clocks.get_mut(color);
            // TO §17–§19: a forfeit the deadline tick has not claimed yet is claimed with the move.
            if !game.turn.forfeit_claimed && pc.forfeit_due(t.rules, charged).is_some() {
                let used = pc.used_with(charged);
                let allowed = pc.allowed(t.rules);
                let nth = match pc.register_forfeit() {
                    clock::Forfeit::First => 1,
                    clock::Forfeit::Second => 2,
                };
                forfeit_now = Some((nth, used, allowed));
            }
        }
        let reminded = game.turn.reminded.is_some();
        let recorded = game.clocks.get_mut(color).record_move(t.rules, charged);
        let previous_form = *game.forms.get(color);
        *game.forms.get_mut(color) = Some(resolved.form);
        game.moves.push(PlayedMove {
            uci: uci.clone(),
            san: san.clone(),
            received,
            sent: now,
            days_used: days,
            charged,
            message_id: letter.message_id.clone(),
        });
        // TO §2: an offer lapses when the partner moves instead; a new one comes with this move.
        game.draw_offer = if c.draw_offer {
            Some(color.into())
        } else {
            None
        };
        // TO §13: an announcement sent with a move is for the sender's next move.
        *game.announced_next.get_mut(color) = c.announce_long_think;
        let partner_announced = std::mem::take(game.announced_next.get_mut(!color));
        game.turn = Turn::new(now);
        game.turn.announced = partner_announced;
        let after = game.position();
        let ending = ending_of(&after);
        let partner_email = game.players.get(!color).clone();
        self.log_event(
            out,
            game_ref,
            Event::Moved {
                at: now,
                color: color.into(),
                san: san.clone(),
                uci,
                days_used: days,
                charged,
                message_id: letter.message_id.clone(),
            },
        );
        if let Some(carry) = recorded.period_restarted {
            self.log_event(
                out,
                game_ref,
                Event::PeriodRestarted {
                    at: now,
                    color: color.into(),
                    carry,
                },
            );
        }
        if c.announce_long_think {
            self.log_event(
                out,
                game_ref,
                Event::Announced {
                    at: now,
                    color: color.into(),
                },
            );
        }
        // TO §14/§15: compare the stated dates with the relay's.
        let notes_for = |lang: Lang| {
            let mut notes = stated_differences(c, received, now, days, s, lang);
            if let Some(prev) = previous_form
                && prev != resolved.form
            {
                // TO §3: a switch of notation form is accepted but noted.
                notes.push(match lang {
                    Lang::De => format!(
                        "Hinweis (TO §3): Sie haben bisher {} geschrieben, jetzt {}. Bitte bleiben Sie bei einer Notation.",
                        prev.name(lang),
                        resolved.form.name(lang)
                    ),
                    Lang::En => format!(
                        "Note (TO §3): you wrote {} so far, now {}. Please keep to one notation.",
                        prev.name(lang),
                        resolved.form.name(lang)
                    ),
                });
            }
            notes
        };
        let game = &self.games[game_ref];
        let sender_lang = t.lang_of(&letter.from, s.default_lang);
        let partner_lang = t.lang_of(&partner_email, s.default_lang);
        let partner_form = view::form_for(game, !color, partner_lang);
        let sender_form = view::form_for(game, color, sender_lang);
        let move_for = |form: Form| {
            view::numbered(
                number,
                color,
                &notation::write_move(&pos, &resolved.mv, form),
            )
        };
        let facts = |lang: Lang| {
            json!({
                "received": view::date_time(received, s.tz, lang),
                "sent": view::date_time(now, s.tz, lang),
                "days_used": days,
                "charged": charged,
                "penalty": charged > days,
                "draw_offer": c.draw_offer,
                "announcement": c.announce_long_think,
                "reminder_open": reminded,
            })
        };
        // The forward to the partner (TL in copy while a §16 reminder is open).
        let partner_data = view::merge(
            view::merge(
                view::game_context(game, &t, Some(!color), partner_lang, now, s.tz),
                facts(partner_lang),
            ),
            json!({
                "recipient": t.recipient(&partner_email).name,
                "mover": t.recipient(&letter.from).name,
                "move": move_for(partner_form),
                "notes": notes_for(partner_lang),
            }),
        );
        let mut cc = Vec::new();
        if reminded {
            cc.push(t.director_recipient());
        }
        let fen = game.fen();
        let partner_key = game.keys.get(!color).clone();
        let sender_key = game.keys.get(color).clone();
        let forward_id = self.next_message_id(s, "move");
        out.mails.push(Mail {
            kind: MailKind::Move,
            to: vec![t.recipient(&partner_email)],
            cc,
            lang: partner_lang,
            game: Some(game_ref.clone()),
            reply_key: Some(partner_key),
            color: None,
            fen: Some(fen.clone()),
            in_reply_to: self.games[game_ref].last_forward.clone(),
            message_id: forward_id.clone(),
            data: partner_data,
            attachments: Vec::new(),
        });
        let game = &self.games[game_ref];
        let receipt_data = view::merge(
            view::merge(
                view::game_context(game, &t, Some(color), sender_lang, now, s.tz),
                facts(sender_lang),
            ),
            json!({
                "recipient": t.recipient(&letter.from).name,
                "partner_name": t.recipient(&partner_email).name,
                "move": move_for(sender_form),
                "notes": notes_for(sender_lang),
            }),
        );
        let receipt_id = self.next_message_id(s, "receipt");
        out.mails.push(Mail {
            kind: MailKind::Receipt,
            to: vec![t.recipient(&letter.from)],
            cc: Vec::new(),
            lang: sender_lang,
            game: Some(game_ref.clone()),
            reply_key: Some(sender_key),
            color: None,
            fen: Some(fen),
            in_reply_to: Some(letter.message_id.clone()),
            message_id: receipt_id,
            data: receipt_data,
            attachments: Vec::new(),
        });
        if let Some(g) = self.games.get_mut(game_ref) {
            g.last_forward = Some(forward_id);
        }
        out.log.push(format!(
            "{game_ref}: {} played by {} ({days} days, charged {charged})",
            view::numbered(number, color, &san),
            letter.from
        ));
        if let Some((nth, used, allowed)) = forfeit_now {
            self.claim_forfeit(out, game_ref, color, nth, used, allowed, now, s);
        }
        if let Some((result, reason)) = ending {
            self.finish(out, game_ref, result, reason, now, s);
        }
    }

    /// TO §13: an announcement without a move is for the move being thought on; the partner is told.
    fn announce(
        &mut self,
        out: &mut Output,
        letter: &Letter,
        game_ref: &GameRef,
        color: Color,
        now: DateTime<Utc>,
        s: &Settings,
    ) {
        let Some(t) = self.tournament_of(game_ref).cloned() else {
            return;
        };
        if let Some(g) = self.games.get_mut(game_ref) {
            g.turn.announced = true;
        }
        self.log_event(
            out,
            game_ref,
            Event::Announced {
                at: now,
                color: color.into(),
            },
        );
        let game = &self.games[game_ref];
        let partner = game.players.get(!color).clone();
        let mut mails = Vec::new();
        for (c, email, kind) in [
            (!color, partner, MailKind::Status),
            (color, letter.from.clone(), MailKind::Receipt),
        ] {
            let lang = t.lang_of(&email, s.default_lang);
            let data = view::merge(
                view::game_context(game, &t, Some(c), lang, now, s.tz),
                json!({
                    "recipient": t.recipient(&email).name,
                    "announcer": t.recipient(&letter.from).name,
                    "announcement": true,
                    "own": c == color,
                }),
            );
            mails.push((kind, c, email, lang, data));
        }
        let fen = game.fen();
        let keys = game.keys.clone();
        for (kind, c, email, lang, data) in mails {
            let message_id = self.next_message_id(s, kind.name());
            out.mails.push(Mail {
                kind,
                to: vec![t.recipient(&email)],
                cc: Vec::new(),
                lang,
                game: Some(game_ref.clone()),
                reply_key: Some(keys.get(c).clone()),
                color: None,
                fen: Some(fen.clone()),
                in_reply_to: Some(letter.message_id.clone()),
                message_id,
                data,
                attachments: Vec::new(),
            });
        }
        out.log.push(format!(
            "{game_ref}: {} announced more than 10 days (TO §13)",
            letter.from
        ));
    }

    /// Sends a query (TO §8) to the letter's sender and records it; nothing else changes.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn query(
        &mut self,
        out: &mut Output,
        letter: &Letter,
        game_ref: Option<&GameRef>,
        lang: Lang,
        refusal: Refusal,
        now: DateTime<Utc>,
        s: &Settings,
    ) {
        let reason = refusal.message(lang);
        let mut data = json!({
            "recipient": letter.from_name.clone().unwrap_or_else(|| letter.from.clone()),
            "reason": reason,
            "subject": letter.subject,
            "now": view::date_time(now, s.tz, lang),
        });
        let mut reply_key = None;
        let mut fen = None;
        if let Some(g) = game_ref
            && let (Some(game), Some(t)) = (self.games.get(g), self.tournament_of(g))
        {
            let color = game.color_of(&letter.from);
            data = view::merge(view::game_context(game, t, color, lang, now, s.tz), data);
            reply_key = color.map(|c| game.keys.get(c).clone());
            fen = Some(game.fen());
        }
        if let Some(g) = game_ref {
            self.log_event(
                out,
                g,
                Event::Queried {
                    at: now,
                    from: letter.from.clone(),
                    reason: refusal.message(Lang::En),
                    message_id: letter.message_id.clone(),
                },
            );
        }
        let message_id = self.next_message_id(s, "query");
        out.mails.push(Mail {
            kind: MailKind::Query,
            to: vec![Recipient {
                name: letter.from_name.clone().unwrap_or_default(),
                email: letter.from.clone(),
            }],
            cc: Vec::new(),
            lang,
            game: game_ref.cloned(),
            reply_key,
            color: None,
            fen,
            in_reply_to: Some(letter.message_id.clone()),
            message_id,
            data,
            attachments: Vec::new(),
        });
        out.log.push(format!(
            "query to {} about {}: {}",
            letter.from,
            letter.message_id,
            refusal.message(Lang::En)
        ));
    }

    /// Ends a game (TO §27): result, reason, `game-end` to both players and the director with the PGN.
    pub(crate) fn finish(
        &mut self,
        out: &mut Output,
        game_ref: &GameRef,
        result: &str,
        reason: &str,
        now: DateTime<Utc>,
        s: &Settings,
    ) {
        let Some(game) = self.games.get_mut(game_ref) else {
            return;
        };
        game.status = GameStatus::Finished;
        game.result = Some(result.to_string());
        game.end_reason = Some(reason.to_string());
        game.draw_offer = None;
        self.log_event(
            out,
            game_ref,
            Event::Ended {
                at: now,
                result: result.to_string(),
                reason: reason.to_string(),
            },
        );
        let game = &self.games[game_ref];
        let Some(t) = self.tournament_of(game_ref).cloned() else {
            return;
        };
        let pgn_text = pgn::game_pgn(game, &t, s.tz);
        let mut mails = Vec::new();
        let white = t.recipient(&game.players.white);
        let black = t.recipient(&game.players.black);
        for (c, rcpt) in [
            (Some(Color::White), white),
            (Some(Color::Black), black),
            (None, t.director_recipient()),
        ] {
            let lang = match c {
                Some(_) => t.lang_of(&rcpt.email, s.default_lang),
                None => s.default_lang,
            };
            let data = view::merge(
                view::game_context(game, &t, c, lang, now, s.tz),
                json!({
                    "recipient": rcpt.name,
                    "result": result,
                    "reason": reason_text(reason, lang),
                    "pgn": pgn_text,
                }),
            );
            mails.push((c, rcpt, lang, data));
        }
        let fen = game.fen();
        let keys = game.keys.clone();
        let in_reply_to = game.last_forward.clone();
        for (c, rcpt, lang, data) in mails {
            let message_id = self.next_message_id(s, "game-end");
            out.mails.push(Mail {
                kind: MailKind::GameEnd,
                to: vec![rcpt],
                cc: Vec::new(),
                lang,
                game: Some(game_ref.clone()),
                reply_key: c.map(|c| keys.get(c).clone()),
                color: None,
                fen: Some(fen.clone()),
                in_reply_to: in_reply_to.clone(),
                message_id,
                data,
                attachments: vec![Attachment {
                    filename: format!("{}.pgn", game_ref.to_string().replace('/', "-")),
                    content_type: "application/vnd.chess-pgn".into(),
                    body: pgn_text.clone(),
                }],
            });
        }
        out.log
            .push(format!("{game_ref}: game over, {result} ({reason})"));
    }
}

/// Reads a move as the player usually writes (TO §3). Interpretation (TO §2, §3, §8): a text that
/// reads as two different legal moves is doubtful — except that a player who writes English letters
/// means the bishop by `B`, never the German "Bauer"; for everybody else `Bc4` that could be a bishop
/// or a pawn stays doubtful and is queried.
fn read_in_usual_form(
    text: &str,
    pos: &Chess,
    usual: Form,
) -> Result<notation::Reading, notation::NotationError> {
    match usual {
        Form::SanEnglish | Form::LongEnglish => notation::read_move_in(text, pos, usual),
        _ => notation::read_move(text, pos).map(|mut r| {
            // `e4` fits German and English alike: it is no switch of form (TO §3).
            if notation::fits_form(text, pos, usual) {
                r.form = usual;
            }
            r
        }),
    }
}

/// `1-0` or `0-1`.
pub(crate) fn result_for_winner(winner: Color) -> &'static str {
    match winner {
        Color::White => "1-0",
        Color::Black => "0-1",
    }
}

/// TO §31 / FIDE: endings the position decides by itself.
fn ending_of(pos: &Chess) -> Option<(&'static str, &'static str)> {
    if pos.is_checkmate() {
        Some((result_for_winner(!pos.turn()), "checkmate"))
    } else if pos.is_stalemate() {
        Some(("1/2-1/2", "stalemate"))
    } else if pos.is_insufficient_material() {
        Some(("1/2-1/2", "dead position (insufficient material)"))
    } else {
        None
    }
}

/// The ending reason in the reader's language.
fn reason_text(reason: &str, lang: Lang) -> String {
    if lang == Lang::En {
        return reason.to_string();
    }
    match reason {
        "checkmate" => "Matt".into(),
        "stalemate" => "Patt".into(),
        "resignation" => "Aufgabe".into(),
        "draw agreed" => "Remis vereinbart".into(),
        "dead position (insufficient material)" => "tote Stellung (ungenügendes Material)".into(),
        other => other.to_string(),
    }
}

/// Completes a stated date without a year: the year that puts it nearest to `near`.
fn complete(d: StatedDate, near: NaiveDate) -> Option<NaiveDate> {
    match d.year {
        Some(y) => NaiveDate::from_ymd_opt(y, d.month, d.day),
        None => [near.year() - 1, near.year(), near.year() + 1]
            .into_iter()
            .filter_map(|y| NaiveDate::from_ymd_opt(y, d.month, d.day))
            .min_by_key(|c| (*c - near).num_days().abs()),
    }
}

/// TO §14/§15: each stated value that differs from the relay's own, as a sentence.
fn stated_differences(
    c: &Content,
    received: DateTime<Utc>,
    sent: DateTime<Utc>,
    days: u32,
    s: &Settings,
    lang: Lang,
) -> Vec<String> {
    let mut notes = Vec::new();
    let rec = view::local_date(received, s.tz);
    let snt = view::local_date(sent, s.tz);
    let pairs = [
        (c.received, rec, ("Erhalten", "received")),
        (c.sent, snt, ("Abgesandt", "sent")),
    ];
    for (stated, own, (de, en)) in pairs {
        if let Some(st) = stated
            && let Some(d) = complete(st, own)
            && d != own
        {
            notes.push(match lang {
                Lang::De => format!(
                    "Abweichung (TO §15): angegeben \"{de}: {}\", laut Relais {}.",
                    view::date(d, lang),
                    view::date(own, lang)
                ),
                Lang::En => format!(
                    "Difference (TO §15): stated \"{en}: {}\", the relay's date is {}.",
                    view::date(d, lang),
                    view::date(own, lang)
                ),
            });
        }
    }
    if let Some(st) = c.days_used
        && st != days
    {
        notes.push(match lang {
            Lang::De => {
                format!("Abweichung (TO §15): angegeben {st} Tage Bedenkzeit, laut Relais {days}.")
            }
            Lang::En => {
                format!("Difference (TO §15): stated {st} days used, the relay counts {days}.")
            }
        });
    }
    notes
}
