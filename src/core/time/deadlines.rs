//! What time alone makes happen (TO §16–§21): reminders through the director, silence reports,
//! time forfeits — each the moment it is due, each exactly once — and the start of a tournament.
//! [`State::next_deadline`] tells the shell when to wake the core next.

use chrono::{DateTime, Utc};
use shakmaty::Color;

use crate::core::clock;
use crate::core::door::reply::Forfeited;
use crate::core::door::reply::claim_forfeit;
use crate::core::model::Event;
use crate::core::model::{ClockWarningFacts, Mail, ReminderFacts, SilenceFacts, WarningBody};
use crate::core::model::{Due, Game, GameStatus};
use crate::core::model::{Output, Settings, State, Tournament};
use crate::core::model::{Parts, Step};
use crate::core::time::digest::fire_digest;
use crate::core::time::questions::fire_questions;
use crate::core::view;
use crate::game_ref::GameRef;
use crate::mail_kind::MailKind;

impl State {
    /// The pending deadlines of `game` (of tournament `t`), in the order they fall due: what
    /// `status` shows beside a game.
    pub fn game_deadlines(
        &self,
        game: &Game,
        t: &Tournament,
        s: &Settings,
    ) -> Vec<(DateTime<Utc>, Due)> {
        let mut due = Vec::new();
        match game.status {
            GameStatus::WaitingStart => due.push((t.clock_start, Due::Start)),
            GameStatus::Running => {
                let c = game.to_move();
                let rest = t.rest_of(game.players.get(c));
                let turn = &game.turn;
                if turn.reminded.is_none() {
                    due.push((
                        clock::reminder_instant(turn.since, turn.announced, s.tz, &rest),
                        Due::Reminder,
                    ));
                } else if turn.silence_reported.is_none() {
                    due.push((
                        clock::silence_report_instant(turn.since, turn.announced, s.tz, &rest),
                        Due::SilenceReport,
                    ));
                }
                let pc = game.clocks.get(c);
                // TO §17/§21: a first forfeit, or a second one once the period has restarted (§20).
                let possible = pc.forfeits == 0 || (pc.forfeits == 1 && !pc.restart_pending);
                // TO §17: the warning before it, once per control, unless he declined them.
                if s.warn_days > 0
                    && possible
                    && !turn.forfeit_claimed
                    && pc.warned_control < pc.control()
                    && !self.meta.no_warnings.contains(game.players.get(c))
                {
                    let at = clock::warning_instant(
                        t.rules,
                        pc,
                        turn.since,
                        turn.announced,
                        s.tz,
                        &rest,
                        s.warn_days,
                    );
                    if at < DateTime::<Utc>::MAX_UTC {
                        due.push((at, Due::ClockWarning));
                    }
                }
                if !turn.forfeit_claimed && possible {
                    let at = clock::forfeit_instant(
                        t.rules,
                        pc,
                        turn.since,
                        turn.announced,
                        s.tz,
                        &rest,
                    );
                    if at < DateTime::<Utc>::MAX_UTC {
                        due.push((at, Due::Forfeit));
                    }
                }
            }
            GameStatus::Suspended | GameStatus::Adjourned | GameStatus::Finished => {}
        }
        due.sort();
        due
    }

    /// Every pending deadline, earliest first.
    pub fn deadlines(&self, s: &Settings) -> Vec<(DateTime<Utc>, GameRef, Due)> {
        let mut all: Vec<(DateTime<Utc>, GameRef, Due)> = self
            .games
            .values()
            .filter_map(|g| self.tournament_of(&g.id).map(|t| (g, t)))
            .flat_map(|(g, t)| {
                self.game_deadlines(g, t, s)
                    .into_iter()
                    .map(|(at, d)| (at, g.id.clone(), d))
            })
            .collect();
        all.extend(self.digest_deadlines(s));
        all.sort();
        all
    }

    /// The earliest pending deadline of one game (none for an unknown game): what a shell that
    /// keeps an index of the deadlines recomputes for each game a step changed.
    pub fn earliest_deadline_of(&self, game: &GameRef, s: &Settings) -> Option<DateTime<Utc>> {
        let g = self.games.get(game)?;
        let t = self.tournament_of(game)?;
        self.game_deadlines(g, t, s)
            .into_iter()
            .map(|(at, _)| at)
            .min()
    }

    /// The earliest pending deadline.
    pub(crate) fn earliest_deadline(&self, s: &Settings) -> Option<DateTime<Utc>> {
        self.deadlines(s).first().map(|(at, _, _)| *at)
    }
}

/// Fires every deadline due by `now`, in time order (a reminder on day 16 goes out before a
/// forfeit on day 31 even if both are due at `now`). Each fires once. The report of a
/// tournament's end ([`Due::TournamentEnd`]) is the records room's, which writes the table
/// (`crate::core::records::tournament_end`): the tick fires it after these.
pub(crate) fn fire_due(state: &mut State, step: Step<'_>) -> Output {
    let (now, s) = (step.now, step.s);
    let mut out = Output::default();
    // Each firing removes its deadline or moves it later; the bound only guards against a bug.
    for _ in 0..100_000 {
        let Some((at, game, due)) = state
            .deadlines(s)
            .into_iter()
            .find(|(_, _, due)| *due != Due::TournamentEnd)
        else {
            break;
        };
        if at > now {
            break;
        }
        fire(state, &mut out, &game, due, at, step);
    }
    out
}

fn fire(
    state: &mut State,
    out: &mut Output,
    game_ref: &GameRef,
    due: Due,
    at: DateTime<Utc>,
    step: Step<'_>,
) {
    let (now, s) = (step.now, step.s);
    if due == Due::Digest {
        fire_digest(state, out, &game_ref.tournament, step);
        return;
    }
    if due == Due::Question {
        fire_questions(state, out, &game_ref.tournament, step);
        return;
    }
    // The tournament is read in place while the games and counters change (State::split).
    let Some((t, mut p)) = state.split(&game_ref.tournament) else {
        return;
    };
    let Some(game) = p.games.get_mut(game_ref) else {
        return;
    };
    let c = game.to_move();
    match due {
        Due::Start => {
            game.status = GameStatus::Running;
            out.games.insert(game_ref.clone());
            out.log.push(format!("{game_ref}: clocks started"));
        }
        Due::Reminder => {
            game.turn.reminded = Some(at);
            p.log_event(
                out,
                game_ref,
                Event::Reminded {
                    at,
                    color: c.into(),
                },
            );
            p.reminder_mail(out, game_ref, t, c, at, Step { now, s });
        }
        Due::SilenceReport => {
            game.turn.silence_reported = Some(at);
            p.log_event(
                out,
                game_ref,
                Event::SilenceReported {
                    at,
                    color: c.into(),
                },
            );
            p.silence_mail(out, game_ref, t, c, at, Step { now, s });
        }
        Due::ClockWarning => {
            let pc = game.clocks.get_mut(c);
            pc.warned_control = pc.control();
            p.clock_warning_mail(out, game_ref, t, c, at, Step { now, s });
        }
        Due::Forfeit => {
            let rest = t.rest_of(game.players.get(c));
            let days = clock::days_used(t.rules, game.turn.since, at, s.tz, &rest);
            let charged = clock::charged(days, game.turn.announced);
            let pc = game.clocks.get_mut(c);
            let used = pc.used_with(charged);
            let allowed = pc.allowed(t.rules);
            // TO §20: after the first, the offender's period restarts with the move after this one.
            let nth = match pc.register_forfeit() {
                clock::Forfeit::First => 1,
                clock::Forfeit::Second => 2,
            };
            game.turn.forfeit_claimed = true;
            let f = Forfeited {
                offender: c,
                nth,
                used,
                allowed,
            };
            claim_forfeit(state, out, game_ref, f, Step { now: at, s });
        }
        // Fired above, before the game lookup; the tournament's end by the records room.
        Due::Digest | Due::Question | Due::TournamentEnd => {}
    }
}

/// The mails of the deadlines, written while the tournament is read in place.
impl Parts<'_> {
    /// TO §16: the last move repeated to the silent player, the director in copy.
    fn reminder_mail(
        &mut self,
        out: &mut Output,
        game_ref: &GameRef,
        t: &Tournament,
        silent: Color,
        at: DateTime<Utc>,
        step: Step<'_>,
    ) {
        let (now, s) = (step.now, step.s);
        let game = &self.games[game_ref];
        let email = game.players.get(silent).clone();
        let lang = t.lang_of(&email, s.default_lang);
        let rest = t.rest_of(&email);
        let silence_at =
            clock::silence_report_instant(game.turn.since, game.turn.announced, s.tz, &rest);
        // The last move is the context's, in the reader's notation.
        let data = ReminderFacts {
            context: view::game_context(game, t, Some(silent), lang, now, s.tz),
            recipient: t.recipient(&email).name,
            since: view::when(game.turn.since, s.tz),
            days_waited: if game.turn.announced { 26 } else { 16 },
            at: view::when(at, s.tz),
            silence_report_at: view::when(silence_at, s.tz),
            // TO §13: the count shown includes 5 extra days after 10 days without announcement.
            penalty: !game.turn.announced,
        };
        let fen = game.fen();
        let key = game.keys.get(silent).clone();
        let in_reply_to = game.last_forward.clone();
        // TO §16: the reminder is the waiting partner's, sent through the director: both in copy.
        let waiting = t.recipient(game.players.get(!silent));
        let message_id = self.meta.next_message_id(s, "reminder");
        out.mails.push(Mail {
            cc: vec![t.director_recipient(), waiting],
            game: Some(game_ref.clone()),
            reply_key: Some(key),
            fen: Some(fen),
            in_reply_to,
            ..Mail::new(
                MailKind::Reminder,
                vec![t.recipient(&email)],
                lang,
                message_id,
                data,
            )
        });
        out.log
            .push(format!("{game_ref}: reminder to {email} (TO §16)"));
    }

    /// TO §17: the player on move is warned that the days before his control are few.
    fn clock_warning_mail(
        &mut self,
        out: &mut Output,
        game_ref: &GameRef,
        t: &Tournament,
        on_move: Color,
        at: DateTime<Utc>,
        step: Step<'_>,
    ) {
        let (now, s) = (step.now, step.s);
        let game = &self.games[game_ref];
        let email = game.players.get(on_move).clone();
        let lang = t.lang_of(&email, s.default_lang);
        let rest = t.rest_of(&email);
        let turn = &game.turn;
        let pc = game.clocks.get(on_move);
        // As the clock in the mail shows it: at the moment it is written.
        let days = clock::days_used(t.rules, turn.since, at.max(now), s.tz, &rest);
        let charged = clock::charged(days, turn.announced);
        let forfeit_at =
            clock::forfeit_instant(t.rules, pc, turn.since, turn.announced, s.tz, &rest);
        let context = view::game_context(game, t, Some(on_move), lang, now, s.tz);
        let next_control = context.clock_you.as_ref().map_or(0, |c| c.next_control);
        let data = ClockWarningFacts {
            recipient: t.recipient(&email).name,
            warning: WarningBody {
                days_left: pc.allowed(t.rules).saturating_sub(pc.used_with(charged)),
                next_control,
                moves_to_go: pc.moves_to_control(),
                forfeit_at: view::when(forfeit_at, s.tz),
                announced: turn.announced,
            },
            context,
        };
        let key = game.keys.get(on_move).clone();
        let in_reply_to = game.last_forward.clone();
        let message_id = self.meta.next_message_id(s, "clock-warning");
        out.mails.push(Mail {
            game: Some(game_ref.clone()),
            reply_key: Some(key),
            in_reply_to,
            ..Mail::new(
                MailKind::ClockWarning,
                vec![t.recipient(&email)],
                lang,
                message_id,
                data,
            )
        });
        out.log.push(format!(
            "{game_ref}: clock warning to {email} (TO §17, {} warn days)",
            s.warn_days
        ));
    }

    /// TO §16: 14 further days of silence are reported to the director.
    fn silence_mail(
        &mut self,
        out: &mut Output,
        game_ref: &GameRef,
        t: &Tournament,
        silent: Color,
        at: DateTime<Utc>,
        step: Step<'_>,
    ) {
        let (now, s) = (step.now, step.s);
        let game = &self.games[game_ref];
        let email = game.players.get(silent).clone();
        let lang = s.default_lang;
        let data = SilenceFacts {
            context: view::game_context(game, t, None, lang, now, s.tz),
            silent: t.recipient(&email).name,
            silent_email: email.clone(),
            silent_color: view::colour(silent),
            since: view::when(game.turn.since, s.tz),
            reminded: game.turn.reminded.map(|r| view::when(r, s.tz)),
            at: view::when(at, s.tz),
        };
        let in_reply_to = game.last_forward.clone();
        let message_id = self.meta.next_message_id(s, "silence-report");
        let reply_key = self.director_key(t, game_ref);
        out.mails.push(Mail {
            game: Some(game_ref.clone()),
            reply_key,
            in_reply_to,
            ..Mail::new(
                MailKind::SilenceReport,
                vec![t.director_recipient()],
                lang,
                message_id,
                data,
            )
        });
        out.log
            .push(format!("{game_ref}: silence of {email} reported (TO §16)"));
    }
}
