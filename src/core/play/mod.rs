//! A letter from a player: which game, whether it is his turn, whether the move is valid
//! (TO §2–§10), the dates he states (TO §14/§15), an announcement (TO §13), draw offers,
//! acceptances and resignations (TO §2/§4); then the forward, the receipt or the query.

pub mod conditional;
pub mod endings;
pub mod message;
mod resolved;

#[cfg(test)]
mod endings_tests;
#[cfg(test)]
mod tests;

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use shakmaty::{Chess, Color, Move, Position};

use crate::core::clock;
use crate::core::door::reply::Forfeited;
use crate::core::door::reply::{claim_forfeit, finish, lang_for};
use crate::core::model::Event;
use crate::core::model::{Act, EndReason, GameResult, Refusal};
use crate::core::model::{AnnouncementFacts, ForwardFacts, PlyFacts};
use crate::core::model::{Game, GameStatus, PlayedMove, Turn};
use crate::core::model::{Mail, Note, Sentence, Stated};
use crate::core::model::{Output, Settings, State};
use crate::core::model::{Parts, Step};
use crate::core::play::endings::adjourn;
use crate::core::view;
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{Content, Doubt, Letter, MoveToken, StatedDate};
use crate::mail_kind::MailKind;
use crate::notation::{self, Form};
use endings::Ending;
pub(crate) use resolved::Resolved;
use resolved::read_in_usual_form;

/// One ply to play.
struct Ply {
    by: Color,
    mv: Move,
    /// The form it was written in, for a move of the mail's sender (TO §3).
    form: Option<Form>,
    /// TO §14 (a): when the mover received the move he answers.
    received: DateTime<Utc>,
    days: u32,
    charged: u32,
    /// The mail that carried it (for a conditional move: the one that proposed it).
    message_id: String,
    /// TO §6/§7: a conditional move, played as the reply it foresaw.
    conditional: bool,
}

impl Ply {
    /// TO §6/§7: a conditional move played as the reply it foresaw: 0 days, counted from when
    /// its mover received the move it answers; `message_id` is the mail that proposed it.
    fn conditional(by: Color, mv: Move, received: DateTime<Utc>, message_id: String) -> Ply {
        Ply {
            by,
            mv,
            form: None,
            received,
            days: 0,
            charged: 0,
            message_id,
            conditional: true,
        }
    }
}

/// One mail's plies: who sent them and how, and what happened while they were played.
struct Run {
    /// The mail's sender.
    sender: Color,
    /// The index of the mail's first ply.
    first_ply: usize,
    /// TO §3: the form the sender wrote before this mail, and the one he wrote now.
    previous_form: Option<Form>,
    new_form: Form,
    /// TO §16: the sender had been reminded (the answer goes with the director in copy).
    reminded: bool,
    /// The index of the sender's highest-numbered move of the mail (TO §7: it carries the time).
    sender_ply: usize,
    /// Time forfeits to claim.
    forfeits: Vec<Forfeited>,
    /// Proposers all of whose conditional lines a move left (TO §6).
    dropped: Vec<Color>,
    /// Per ply played: whether it was a conditional move.
    conditional: Vec<bool>,
    /// The end or the stop the last ply made (TO §31).
    ending: Option<Ending>,
}

/// Whether the game takes a mail from `color` now, and whether the mail says one clear thing.
pub(crate) fn check_letter(
    state: &State,
    game_ref: &GameRef,
    color: Color,
    c: &Content,
    at: Step<'_>,
) -> Result<(), Refusal> {
    let (now, s) = (at.now, at.s);
    let game = &state.games[game_ref];
    let name = game_ref.to_string();
    // TO §4: nothing can be taken back — not a move, an offer, a resignation, nor the end it made.
    if c.take_back {
        return Err(Refusal::TakeBack);
    }
    match game.status {
        GameStatus::Finished => {
            return Err(Refusal::GameOver {
                game: name,
                result: game.result.map_or_else(|| "*".into(), |r| r.to_string()),
            });
        }
        GameStatus::Suspended => return Err(Refusal::Suspended { game: name }),
        GameStatus::Adjourned => return Err(Refusal::Adjourned { game: name }),
        GameStatus::WaitingStart => {
            let start = state
                .tournament_of(game_ref)
                .map(|t| view::local_minute(t.clock_start, s.tz))
                .unwrap_or_default();
            return Err(Refusal::NotStarted { start });
        }
        GameStatus::Running => {}
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
    // TO §2/§8: a mail that could be read two ways is doubtful — a resignation together with a
    // draw offer, an acceptance or a repetition claim, or an acceptance with a claim.
    let acts = [c.resign, c.draw_accept, c.claim_repetition]
        .iter()
        .filter(|a| **a)
        .count();
    if acts > 1 || (c.resign && c.draw_offer) {
        return Err(Refusal::Contradictory);
    }
    if c.resign && own_moves {
        return Err(Refusal::ActAndMove {
            act: Act::Resignation,
        });
    }
    if c.draw_accept {
        if game.draw_offer.map(Color::from) != Some(!color) {
            return Err(Refusal::NoOfferToAccept);
        }
        if own_moves {
            return Err(Refusal::ActAndMove {
                act: Act::DrawAcceptance,
            });
        }
    }
    if c.draw_offer && !own_moves && !c.resign && !c.draw_accept {
        return Err(Refusal::OfferWithoutMove);
    }
    // TO §6: conditional moves come with the proposer's move.
    if !c.conditional.is_empty() && !own_moves {
        return Err(Refusal::ConditionalWithoutMove);
    }
    // TO §13: the announcement must come before 10 days have passed on the current move.
    if c.announce_long_think && !own_moves {
        let t = &state.tournaments[&game_ref.tournament];
        let rest = t.rest_of(game.players.get(color));
        let days = clock::days_used(t.rules, game.turn.since, now, s.tz, &rest);
        if days > 10 {
            return Err(Refusal::AnnouncementTooLate { days });
        }
    }
    if !own_moves
        && !c.resign
        && !c.draw_accept
        && !c.announce_long_think
        && !c.claim_repetition
        && c.moves.is_empty()
    {
        let expected = expected_text(state, game_ref, color, s);
        return Err(Refusal::NoMove { expected });
    }
    Ok(())
}

/// What a valid mail must contain, e.g. `12. Lb5 12... <Ihr Zug>`.
fn expected_text(state: &State, game_ref: &GameRef, color: Color, s: &Settings) -> String {
    let game = &state.games[game_ref];
    let n = game.moves.len();
    let form = view::form_for(
        game,
        color,
        lang_for(
            state,
            state.games[game_ref].players.get(color),
            Some(game_ref),
            s,
        ),
    );
    let own = view::number_prefix(Game::number_of_ply(n), color);
    match n.checked_sub(1).and_then(|p| view::ply_text(game, p, form)) {
        Some(rep) => format!("{rep} {own} …"),
        None => format!("{own} …"),
    }
}

/// TO §2: the partner's last move repeated (not for White's first move) and the own move, both
/// correctly numbered; TO §5, §9, §10 via the notation reader.
pub(crate) fn resolve(
    state: &State,
    game_ref: &GameRef,
    color: Color,
    tokens: &[MoveToken],
    s: &Settings,
) -> Result<Resolved, Refusal> {
    let game = &state.games[game_ref];
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
    let history = view::form_for(
        game,
        color,
        lang_for(
            state,
            state.games[game_ref].players.get(color),
            Some(game_ref),
            s,
        ),
    );
    // TO §3: a move's letters are read by the alphabet the mail itself shows (`S L T D` or
    // `N B R Q`); the player's history decides only where the mail shows none.
    let shown: Vec<Lang> = tokens
        .iter()
        .filter_map(|t| notation::letters_of(&t.text))
        .collect();
    let form = match (
        shown.first(),
        shown.iter().all(|l| Some(l) == shown.first()),
    ) {
        (Some(&lang), true) if history.alphabet() != Some(lang) => Form::default_for(lang),
        _ => history,
    };
    let read = |text: &str, pos: &Chess| read_in_usual_form(text, pos, form);
    // Interpretation (TO §2): players often copy more of the game than the repetition
    // (`21. Sh4 Ld7 22. Df3`, a whole table). An earlier move that reads as the move played at
    // its number is context and ignored; any other extra move is still queried.
    let is_context = |t: &MoveToken| {
        let ply = (t.number as usize)
            .checked_sub(1)
            .map(|m| m * 2 + usize::from(t.color == Color::Black));
        ply.filter(|&p| p + 1 < n).is_some_and(|p| {
            read(&t.text, &game.position_after(p))
                .is_ok_and(|r| Game::uci_of(r.mv) == game.moves[p].uci)
        })
    };
    let others: Vec<&MoveToken> = tokens
        .iter()
        .filter(|t| {
            !(t.number == own_number && t.color == color)
                && Some((t.number, t.color)) != rep_key
                && !is_context(t)
        })
        .collect();
    // TO §7: beyond the own move, the moves of the partner's conditional line it accepts.
    let (extension, others): (Vec<&MoveToken>, Vec<&MoveToken>) =
        if game.conditional.iter().any(|l| Color::from(l.by) != color) {
            others
                .into_iter()
                .partition(|t| conditional::ply_of(t).is_some_and(|p| p > n))
        } else {
            (Vec::new(), others)
        };
    let own_prefix = view::number_prefix(own_number, color);
    if tokens.is_empty() {
        return Err(Refusal::NoMove {
            expected: expected_text(state, game_ref, color, s),
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
                Ok(reading) if crate::core::model::Game::uci_of(reading.mv) == played => {}
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
    let more = if extension.is_empty() {
        Vec::new()
    } else {
        let mut after = pos.clone();
        after.play_unchecked(reading.mv);
        conditional::check_extension(
            game,
            color,
            &Game::uci_of(reading.mv),
            &after,
            &extension,
            form,
        )?
    };
    Ok(Resolved {
        mv: reading.mv,
        form: reading.form,
        more,
        lines: Vec::new(),
        claim: false,
    })
}

/// Plays a valid mail: its own move and, TO §7, the accepted conditional line after it; the
/// conditional lines it proposes (TO §6) and the conditional replies they make due at once;
/// clocks (TO §12–§13, §20), §3 memory, §14/§15 comparison; then the `move` to the player now
/// on move and the `receipt` to the other; and the end or the stop of the game if the position
/// makes one (TO §31).
pub(crate) fn play(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    game_ref: &GameRef,
    color: Color,
    resolved: Resolved,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    // The tournament is read in place while the games and counters change (State::split).
    let (t, mut p) = state
        .split(&game_ref.tournament)
        .expect("checked by the caller");
    let c = &letter.content;
    let game = &p.games[game_ref];
    let rest = t.rest_of(game.players.get(color));
    let received = game.turn.since;
    let first_ply = game.moves.len();
    let reminded = game.turn.reminded.is_some();
    let previous_form = *game.forms.get(color);
    // TO §12 / Fax 1.4: days used; TO §13: +5 without announcement past 10 days.
    let days = clock::days_used(t.rules, received, now, s.tz, &rest);
    let charged = clock::charged(days, game.turn.announced);
    let mail_moves: Vec<Move> = std::iter::once(resolved.mv)
        .chain(resolved.more.iter().copied())
        .collect();
    // TO §7: with an accepted line in one mail, the time counts on the highest-numbered own move.
    let last_own = (0..mail_moves.len())
        .rev()
        .find(|i| i % 2 == 0)
        .unwrap_or(0);
    let mut run = Run {
        sender: color,
        first_ply,
        previous_form,
        new_form: resolved.form,
        reminded,
        sender_ply: first_ply + last_own,
        forfeits: Vec::new(),
        dropped: Vec::new(),
        conditional: Vec::new(),
        ending: None,
    };
    for (i, mv) in mail_moves.iter().enumerate() {
        if i % 2 == 0 {
            let (d, ch) = if i == last_own {
                (days, charged)
            } else {
                (0, 0)
            };
            let ply = Ply {
                by: color,
                mv: *mv,
                form: Some(resolved.form),
                received,
                days: d,
                charged: ch,
                message_id: letter.message_id.clone(),
                conditional: false,
            };
            p.apply_ply(out, game_ref, ply, now, t, &mut run);
        } else {
            // The partner's conditional reply, accepted in this mail (TO §7): 0 days.
            let game = &p.games[game_ref];
            let message_id = conditional::due(game).map(|(_, m)| m).unwrap_or_default();
            let ply = Ply::conditional(!color, *mv, game.turn.since, message_id);
            p.apply_ply(out, game_ref, ply, now, t, &mut run);
        }
        // FIDE 9.2: a claim that holds ends the game with the own move.
        if i == 0 && resolved.claim && run.ending.is_none() {
            run.ending = Some(Ending::Over {
                result: GameResult::Draw,
                reason: EndReason::ThreefoldRepetition,
            });
        }
        if run.ending.is_some() {
            break;
        }
    }
    if run.ending.is_none() {
        let game = p.games.get_mut(game_ref).expect("checked by the caller");
        // TO §2: a new offer comes with this move (every move cleared the one pending).
        if c.draw_offer {
            game.draw_offer = Some(color.into());
        }
        // TO §13: an announcement sent with a move is for the sender's next move.
        if game.to_move() == color {
            game.turn.announced |= c.announce_long_think;
        } else {
            *game.announced_next.get_mut(color) = c.announce_long_think;
        }
        if c.announce_long_think {
            p.log_event(
                out,
                game_ref,
                Event::Announced {
                    at: now,
                    color: color.into(),
                },
            );
        }
        if !resolved.lines.is_empty() {
            let game = p.games.get_mut(game_ref).expect("checked by the caller");
            conditional::propose(game, color, &resolved.lines, &letter.message_id);
            p.log_event(
                out,
                game_ref,
                Event::ConditionalProposed {
                    at: now,
                    color: color.into(),
                    lines: resolved.lines.clone(),
                },
            );
        }
        // TO §6/§7: the conditional replies due now are played at once, 0 days each.
        while run.ending.is_none() {
            let game = &p.games[game_ref];
            let Some((mv, message_id)) = conditional::due(game) else {
                break;
            };
            let ply = Ply::conditional(game.to_move(), mv, game.turn.since, message_id);
            p.apply_ply(out, game_ref, ply, now, t, &mut run);
        }
    }
    p.sequence_mails(out, letter, game_ref, &run, Step { now, s }, t);
    for f in std::mem::take(&mut run.forfeits) {
        claim_forfeit(state, out, game_ref, f, Step { now, s });
    }
    match run.ending {
        Some(Ending::Over { result, reason }) => {
            finish(state, out, game_ref, result, reason, now, s);
        }
        Some(Ending::Adjourn) => adjourn(state, out, game_ref, at),
        None => {}
    }
    seal_receipts(state, out, game_ref);
}

/// TO §29: the `receipt` of a move names the game's seal as the move's step left it (its
/// moves, and a forfeit, the end or the stop they made) — what `fernzug verify` recomputes for
/// the game at that point, so that the mover holds proof of the record as it stood.
fn seal_receipts(state: &State, out: &mut Output, game_ref: &GameRef) {
    let Some(game) = state.games.get(game_ref) else {
        return;
    };
    for m in out
        .mails
        .iter_mut()
        .filter(|m| m.kind == MailKind::Receipt && m.game.as_ref() == Some(game_ref))
    {
        if let crate::core::model::Facts::Forward(f) = &mut m.facts {
            f.seal = Some(game.seal.clone());
        }
    }
}

/// TO §13: an announcement without a move is for the move being thought on; the partner is told.
pub(crate) fn announce(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    game_ref: &GameRef,
    color: Color,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    if !state.tournaments.contains_key(&game_ref.tournament) {
        return;
    }
    if let Some(g) = state.games.get_mut(game_ref) {
        g.turn.announced = true;
    }
    state.log_event(
        out,
        game_ref,
        Event::Announced {
            at: now,
            color: color.into(),
        },
    );
    let t = &state.tournaments[&game_ref.tournament];
    let game = &state.games[game_ref];
    let partner = game.players.get(!color).clone();
    let mut mails = Vec::new();
    for (c, email, kind) in [
        (!color, partner, MailKind::Status),
        (color, letter.from.clone(), MailKind::Receipt),
    ] {
        let lang = t.lang_of(&email, s.default_lang);
        let data = AnnouncementFacts {
            context: view::game_context(game, t, Some(c), lang, now, s.tz),
            recipient: t.recipient(&email).name,
            announcer: t.recipient(&letter.from).name,
            announcement: true,
            own: c == color,
        };
        mails.push((kind, c, email, lang, data));
    }
    let fen = Some(game.fen());
    answer_both(&mut state.meta, out, s, (t, game), letter, fen, mails);
    out.log.push(format!(
        "{game_ref}: {} announced more than 10 days (TO §13)",
        letter.from
    ));
}

/// The answer to a letter that goes to both players of `game` (his partner's mail and his
/// `receipt`): each with his own reply key, threaded to the letter, with `fen` where a position
/// belongs. `mails`: kind, the recipient's colour, address, language and facts.
pub(crate) fn answer_both<F: Into<crate::core::model::Facts>>(
    meta: &mut crate::core::model::Meta,
    out: &mut Output,
    s: &Settings,
    (t, game): (&crate::core::model::Tournament, &Game),
    letter: &Letter,
    fen: Option<String>,
    mails: Vec<(MailKind, Color, String, Lang, F)>,
) {
    for (kind, c, email, lang, data) in mails {
        let message_id = meta.next_message_id(s, kind.name());
        out.mails.push(Mail {
            game: Some(game.id.clone()),
            reply_key: Some(game.keys.get(c).clone()),
            fen: fen.clone(),
            in_reply_to: Some(letter.message_id.clone()),
            ..Mail::new(kind, vec![t.recipient(&email)], lang, message_id, data)
        });
    }
}

/// The steps of [`play`] that change the games while the tournament is read in place.
impl Parts<'_> {
    /// Plays one ply: clocks (TO §12–§13, §17–§20), the move, the lapse of a pending offer
    /// (TO §2), the conditional lines it keeps or drops (TO §6), the mover's partner's turn.
    fn apply_ply(
        &mut self,
        out: &mut Output,
        game_ref: &GameRef,
        ply: Ply,
        now: DateTime<Utc>,
        t: &crate::core::model::Tournament,
        run: &mut Run,
    ) {
        let conditional_reply = ply.conditional;
        let game = self.games.get_mut(game_ref).expect("checked by the caller");
        let by = ply.by;
        let pos = game.position();
        let index = game.moves.len();
        let san = shakmaty::san::San::from_move(&pos, ply.mv).to_string();
        let uci = Game::uci_of(ply.mv);
        {
            let pc = game.clocks.get_mut(by);
            // TO §17–§19: a forfeit the deadline tick has not claimed yet is claimed with the move.
            if !game.turn.forfeit_claimed && pc.forfeit_due(t.rules, ply.charged).is_some() {
                let used = pc.used_with(ply.charged);
                let allowed = pc.allowed(t.rules);
                let nth = match pc.register_forfeit() {
                    clock::Forfeit::First => 1,
                    clock::Forfeit::Second => 2,
                };
                run.forfeits.push(Forfeited {
                    offender: by,
                    nth,
                    used,
                    allowed,
                });
            }
        }
        let recorded = game.clocks.get_mut(by).record_move(t.rules, ply.charged);
        if let Some(form) = ply.form {
            *game.forms.get_mut(by) = Some(form);
        }
        game.moves.push(PlayedMove {
            uci: uci.clone(),
            san: san.clone(),
            received: ply.received,
            sent: now,
            days_used: ply.days,
            charged: ply.charged,
            message_id: ply.message_id.clone(),
        });
        // TO §2: an offer lapses when the partner moves instead of accepting it.
        game.draw_offer = None;
        // TO §6: the lines that had this move go on, the others are dropped.
        run.dropped.extend(conditional::advance(game, index, &uci));
        // TO §13: the partner's announcement made with his last move is for this turn.
        let partner_announced = std::mem::take(game.announced_next.get_mut(!by));
        game.turn = Turn::new(now);
        game.turn.announced = partner_announced;
        run.ending = endings::ending_of(game);
        run.conditional.push(conditional_reply);
        let email = game.players.get(by).clone();
        self.log_event(
            out,
            game_ref,
            Event::Moved {
                at: now,
                color: by.into(),
                san: san.clone(),
                uci,
                days_used: ply.days,
                charged: ply.charged,
                message_id: ply.message_id,
            },
        );
        if let Some(carry) = recorded.period_restarted {
            self.log_event(
                out,
                game_ref,
                Event::PeriodRestarted {
                    at: now,
                    color: by.into(),
                    carry,
                },
            );
        }
        out.log.push(format!(
            "{game_ref}: {} played by {email} ({} days, charged {}){}",
            view::numbered(Game::number_of_ply(index), by, &san),
            ply.days,
            ply.charged,
            if conditional_reply {
                " as a conditional move (TO §6)"
            } else {
                ""
            }
        ));
    }

    /// The mails of a played mail: the `move` to the player now on move, the `receipt` to the
    /// other (TL in copy on the one to the sender's partner while a §16 reminder is open).
    /// With one ply that is the forward to the partner and the receipt to the sender; when
    /// conditional moves were played (TO §6/§7), both mails list every ply.
    fn sequence_mails(
        &mut self,
        out: &mut Output,
        letter: &Letter,
        game_ref: &GameRef,
        run: &Run,
        at: Step<'_>,
        t: &crate::core::model::Tournament,
    ) {
        let (now, s) = (at.now, at.s);
        let Run {
            sender,
            first_ply,
            previous_form,
            new_form,
            reminded,
            ..
        } = *run;
        let c = &letter.content;
        let game = &self.games[game_ref];
        let Some(last) = game.moves.len().checked_sub(1) else {
            return;
        };
        let Some(own) = game.moves.get(run.sender_ply) else {
            return;
        };
        let last_by = conditional::color_of_ply(last);
        let played = &game.moves[last];
        let offer_lapsed = c.draw_offer && run.ending.is_none() && game.draw_offer.is_none();
        // TO §14/§15: compare the stated dates with the relay's.
        let mut notes = stated_differences(c, own.received, now, own.days_used, s);
        if let Some(prev) = previous_form
            && prev != new_form
        {
            // TO §3: a switch of notation form is accepted but noted.
            notes.push(Note::FormSwitch {
                from: prev,
                to: new_form,
            });
        }
        if offer_lapsed {
            notes.push(Note::DrawOfferLapsed);
        }
        let draw_offer = game.draw_offer.map(Color::from) == Some(last_by);
        // The game ended or stopped with this mail (TO §31): nobody is asked to move.
        let stopped = match run.ending {
            Some(Ending::Over { .. }) => Some("over"),
            Some(Ending::Adjourn) => Some("adjourned"),
            None => None,
        };
        let several = game.moves.len() - first_ply > 1;
        // TO §30: the sender's own words go with the move, cut at WORDS_MAX characters; not
        // in a game the director restricted to moves.
        let (words, words_cut) = message::cut_words(&c.words);
        let words = (!words.is_empty() && !game.moves_only).then_some(words);
        let attachments = if game.moves_only {
            Vec::new()
        } else {
            letter.attachments.clone()
        };
        let mut mails = Vec::new();
        for rc in [!last_by, last_by] {
            let email = game.players.get(rc).clone();
            let lang = t.lang_of(&email, s.default_lang);
            let form = view::form_for(game, rc, lang);
            let plies: Vec<PlyFacts> = if several {
                (first_ply..game.moves.len())
                    .map(|i| {
                        let by = conditional::color_of_ply(i);
                        PlyFacts {
                            text: view::ply_text(game, i, form),
                            by: t.recipient(game.players.get(by)).name,
                            own: by == rc,
                            conditional: run
                                .conditional
                                .get(i - first_ply)
                                .copied()
                                .unwrap_or(false),
                        }
                    })
                    .collect()
            } else {
                Vec::new()
            };
            let data = ForwardFacts {
                context: view::game_context(game, t, Some(rc), lang, now, s.tz),
                received: view::when(played.received, s.tz),
                sent: view::when(played.sent, s.tz),
                days_used: played.days_used,
                charged: played.charged,
                penalty: played.charged > played.days_used,
                draw_offer,
                announcement: c.announce_long_think && last_by == sender,
                reminder_open: reminded,
                through_director: game.through_director,
                stopped,
                recipient: t.recipient(&email).name,
                mover: t.recipient(game.players.get(last_by)).name,
                partner_name: t.recipient(game.players.get(!rc)).name,
                mv: view::ply_text(game, last, form),
                plies,
                lines: conditional::line_texts(game, form),
                lines_by: t.recipient(game.players.get(last_by)).name,
                lines_dropped: run.dropped.contains(&rc),
                words: words.clone(),
                words_by: t.recipient(game.players.get(sender)).name,
                words_own: rc == sender,
                words_cut,
                words_withheld: game.moves_only && rc == sender && !c.words.is_empty(),
                attachments: attachments.clone(),
                // The receipt's, once the step is done (`seal_receipts`).
                seal: None,
            };
            let kind = if rc == last_by {
                MailKind::Receipt
            } else {
                MailKind::Move
            };
            let mut cc = Vec::new();
            // TO §16: an answer to a reminder; TO §30: moves through the director.
            if (reminded || game.through_director) && rc != sender {
                cc.push(t.director_recipient());
            }
            let in_reply_to = if rc == sender {
                Some(letter.message_id.clone())
            } else {
                game.last_forward.clone()
            };
            mails.push((kind, rc, email, lang, cc, in_reply_to, data));
        }
        let fen = game.fen();
        let keys = game.keys.clone();
        for (kind, rc, email, lang, cc, in_reply_to, data) in mails {
            let message_id = self.meta.next_message_id(s, kind.name());
            if kind == MailKind::Move
                && let Some(g) = self.games.get_mut(game_ref)
            {
                g.last_forward = Some(message_id.clone());
            }
            out.mails.push(Mail {
                sentences: vec![("notes".into(), Sentence::Notes(notes.clone()))],
                cc,
                game: Some(game_ref.clone()),
                reply_key: Some(keys.get(rc).clone()),
                fen: Some(fen.clone()),
                in_reply_to,
                ..Mail::new(kind, vec![t.recipient(&email)], lang, message_id, data)
            });
        }
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

/// TO §14/§15: each stated value that differs from the relay's own.
fn stated_differences(
    c: &Content,
    received: DateTime<Utc>,
    sent: DateTime<Utc>,
    days: u32,
    s: &Settings,
) -> Vec<Note> {
    let mut notes = Vec::new();
    let rec = view::local_date(received, s.tz);
    let snt = view::local_date(sent, s.tz);
    for (stated, relay, which) in [
        (c.received, rec, Stated::Received),
        (c.sent, snt, Stated::Sent),
    ] {
        if let Some(st) = stated
            && let Some(d) = complete(st, relay)
            && d != relay
        {
            notes.push(Note::DateDiffers {
                which,
                stated: d,
                relay,
            });
        }
    }
    if let Some(st) = c.days_used
        && st != days
    {
        notes.push(Note::DaysDiffer {
            stated: st,
            relay: days,
        });
    }
    notes
}
