//! The director's hand by mail (TO §21–§26, §30, §31; Fax 2.2): commands from the tournament
//! director's address, each carried out, confirmed to him (`director`), announced to the players it
//! touches (`director`, or `game-end` when it ends the game) and recorded in the game's event log.
//!
//! The rulebook leaves some choices open. They are fixed here, once:
//!
//! * **Who.** Only the director of the tournament the mail names (by the subject's `[ID/N]` or
//!   `[ID]`, or by the director's own reply key of a game) may command; anyone else gets a query
//!   and nothing changes. A mail from a director who plays in no tournament and says no command is
//!   answered with the list of valid forms.
//! * **All or nothing for the form.** A mail with a malformed command line (or none) is answered
//!   with a query that lists every valid form, and nothing of it is carried out. Well-formed commands
//!   are carried out one after the other; one that does not fit the game (e.g. `ZÜ bestätigt` where
//!   there is no second ZÜ) gets its own query, the others still count.
//! * **TO §22.** `ZÜ bestätigt` needs a game suspended after a second ZÜ; the offender loses.
//! * **TO §26, §31.** `Ergebnis:` ends the game with that result, whatever its state; on a finished
//!   game it corrects the result (a dispute), unless it is the same result.
//! * **TO §24.** Special leave needs no budget and no minimum length, and may begin before today.
//! * **TO §25.** A late leave accepted by the director is checked like a player's leave (7 days,
//!   budget, overlap) except that it may begin before today.
//! * **TO §8, §30, Fax 2.2.** `Bedenkzeit: ±N Tage für …` adds or removes days on the player's
//!   count of the current period in the named game (never below 0); both players are told the
//!   reason. A forfeit the change makes due is claimed in the same step.
//! * **Resuming.** `fortsetzen` puts a suspended (TO §21) or adjourned (TO §31) game back into play.
//!   After a second ZÜ it means the director did not find the second ZÜ: the offender's count of
//!   forfeits goes back to one, and no new forfeit is claimed on the same move; the days of the
//!   suspension count as before unless the director adjusts the time; a §16 reminder or silence
//!   report that fell due while the game was stopped is not sent late.

pub mod leave;

#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};
use shakmaty::Color;

use crate::core::clock::{self, Rest};
use crate::core::director::leave::{check_leave, complete_span};
use crate::core::model::LeaveRefusal;
use crate::core::model::Refusal;
use crate::core::model::Step;
use crate::core::model::{Command, DirectorRefusal, LeaveHow, Mail, Recipient, Sentence, Told};
use crate::core::model::{DirectorFacts, GameStatus};
use crate::core::model::{EndReason, Event, GameResult};
use crate::core::model::{Output, State};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{DirectorCommand, Letter};
use crate::mail_kind::MailKind;

/// What a director's letter is about: the game it names, the tournament, and the tournaments
/// its sender directs.
#[derive(Clone, Copy)]
struct Scope<'a> {
    game: Option<&'a GameRef>,
    tid: Option<&'a str>,
    directs: &'a [String],
}

/// What a carried-out command tells the director and the players it touches.
struct Notice {
    game: Option<GameRef>,
    tournament: String,
    /// What was done; the render layer writes its title and text.
    told: Told,
    reason: Option<String>,
    /// Players told with a `director` mail (those of a game that ended get `game-end` instead).
    players: Vec<String>,
}

impl State {
    /// Whether a letter goes to the director's hand: it holds a command, or it comes from a
    /// director who plays in no tournament.
    pub(crate) fn is_director_letter(&self, letter: &Letter) -> bool {
        if !letter.content.director.is_empty() {
            return true;
        }
        let directs = self
            .tournaments_with(&letter.from)
            .any(|t| t.director.email == letter.from);
        let plays = self
            .tournaments_with(&letter.from)
            .any(|t| t.player(&letter.from).is_some());
        directs && !plays
    }

    /// A director's mail: checks who sent it and what it says, then carries out each command.
    pub(crate) fn handle_director(&mut self, out: &mut Output, letter: &Letter, at: Step<'_>) {
        let (now, s) = (at.now, at.s);
        let lang = s.default_lang;
        let (game, tid) = self.letter_context(letter);
        // TO §11: every mail about a game is archived under it, a refused one too.
        if let Some(g) = game.as_ref().filter(|g| self.games.contains_key(*g)) {
            out.letter_games.insert(g.clone());
        }
        let directs: Vec<String> = self
            .tournaments_with(&letter.from)
            .filter(|t| t.director.email == letter.from)
            .map(|t| t.id.clone())
            .collect();
        let refuse = |st: &mut State, out: &mut Output, g: Option<&GameRef>, r: DirectorRefusal| {
            let g = g.filter(|g| st.games.contains_key(*g));
            let lang = if directs.is_empty() {
                st.lang_for(&letter.from, None, s)
            } else {
                lang
            };
            st.query(out, letter, g, lang, Refusal::Director(r), Step { now, s });
        };
        if directs.is_empty() || tid.as_ref().is_some_and(|t| !directs.contains(t)) {
            let r = DirectorRefusal::NotDirector {
                tournament: tid.clone(),
            };
            refuse(self, out, game.as_ref(), r);
            return;
        }
        if let Some(g) = &game
            && !self.games.contains_key(g)
        {
            let r = DirectorRefusal::UnknownGame {
                game: g.to_string(),
            };
            refuse(self, out, None, r);
            return;
        }
        let commands = &letter.content.director;
        let malformed: Vec<String> = commands
            .iter()
            .filter_map(|c| match c {
                DirectorCommand::Malformed(l) => Some(l.clone()),
                _ => None,
            })
            .collect();
        if commands.is_empty() || !malformed.is_empty() {
            refuse(
                self,
                out,
                game.as_ref(),
                DirectorRefusal::Malformed { lines: malformed },
            );
            return;
        }
        for cmd in commands {
            let scope = Scope {
                game: game.as_ref(),
                tid: tid.as_deref(),
                directs: &directs,
            };
            match self.director_command(out, letter, cmd, scope, Step { now, s }) {
                Ok(notice) => self.director_mails(out, letter, &notice, at),
                Err(r) => refuse(self, out, game.as_ref(), r),
            }
        }
    }

    /// Carries out one command.
    fn director_command(
        &mut self,
        out: &mut Output,
        letter: &Letter,
        cmd: &DirectorCommand,
        scope: Scope<'_>,
        at: Step<'_>,
    ) -> Result<Notice, DirectorRefusal> {
        let (now, s) = (at.now, at.s);
        let Scope { game, tid, directs } = scope;
        let need_game = |command: Command| game.cloned().ok_or(DirectorRefusal::NoGame { command });
        match cmd {
            DirectorCommand::ConfirmForfeit => {
                let g = need_game(Command::ConfirmForfeit)?;
                let gm = &self.games[&g];
                let offender = [Color::White, Color::Black]
                    .into_iter()
                    .find(|c| gm.clocks.get(*c).forfeits >= 2)
                    .filter(|_| gm.status == GameStatus::Suspended)
                    .ok_or(DirectorRefusal::NoSecondForfeit {
                        game: g.to_string(),
                    })?;
                let result = GameResult::for_winner(!offender);
                let offender_email = gm.players.get(offender).clone();
                self.director_event(
                    out,
                    std::slice::from_ref(&g),
                    letter,
                    format!("confirmed the second time forfeit of {offender_email}: {result}"),
                    now,
                );
                self.finish(out, &g, result, EndReason::ForfeitConfirmed, now, s);
                let name = self.name_of(&g.tournament, &offender_email);
                Ok(Notice {
                    game: Some(g.clone()),
                    tournament: g.tournament.clone(),
                    told: Told::ForfeitConfirmed {
                        name,
                        game: g.clone(),
                        result,
                    },
                    reason: None,
                    players: Vec::new(),
                })
            }
            DirectorCommand::SetResult(text) => {
                let g = need_game(Command::SetResult)?;
                // The reader gives only `1-0`, `0-1`, `1/2-1/2`; anything else is no command.
                let result: GameResult = text.parse().map_err(|_| DirectorRefusal::Malformed {
                    lines: vec![text.clone()],
                })?;
                let gm = &self.games[&g];
                if gm.status == GameStatus::Finished && gm.result == Some(result) {
                    return Err(DirectorRefusal::AlreadyResult {
                        game: g.to_string(),
                        result: result.to_string(),
                    });
                }
                let before = gm.result;
                self.director_event(
                    out,
                    std::slice::from_ref(&g),
                    letter,
                    format!("set the result {result}"),
                    now,
                );
                self.finish(out, &g, result, EndReason::DirectorDecision, now, s);
                Ok(Notice {
                    game: Some(g.clone()),
                    tournament: g.tournament.clone(),
                    told: Told::Scored {
                        game: g.clone(),
                        result,
                        was: before,
                    },
                    reason: None,
                    players: Vec::new(),
                })
            }
            DirectorCommand::Resume => {
                let g = need_game(Command::Resume)?;
                let gm = self.games.get_mut(&g).ok_or(DirectorRefusal::UnknownGame {
                    game: g.to_string(),
                })?;
                let was = gm.status;
                if !matches!(was, GameStatus::Suspended | GameStatus::Adjourned) {
                    return Err(DirectorRefusal::NotStopped {
                        game: g.to_string(),
                        state: was.name().to_string(),
                    });
                }
                gm.status = GameStatus::Running;
                // The director knows the game's state: duties that fell due while it was stopped
                // (TO §16 reminder, silence report) are not sent late.
                let t = self.tournaments.get(&g.tournament);
                if let Some(t) = t {
                    let rest = t.rest_of(gm.players.get(gm.to_move()));
                    let turn = &mut gm.turn;
                    if turn.reminded.is_none()
                        && clock::reminder_instant(turn.since, turn.announced, s.tz, &rest) <= now
                    {
                        turn.reminded = Some(now);
                    }
                    if turn.silence_reported.is_none()
                        && clock::silence_report_instant(turn.since, turn.announced, s.tz, &rest)
                            <= now
                    {
                        turn.silence_reported = Some(now);
                    }
                }
                if was == GameStatus::Suspended {
                    for c in [Color::White, Color::Black] {
                        let pc = gm.clocks.get_mut(c);
                        if pc.forfeits >= 2 {
                            pc.forfeits = 1;
                        }
                    }
                    gm.turn.forfeit_claimed = true;
                }
                let players = vec![gm.players.white.clone(), gm.players.black.clone()];
                out.games.insert(g.clone());
                self.director_event(
                    out,
                    std::slice::from_ref(&g),
                    letter,
                    format!("resumed the game (was {})", was.name()),
                    now,
                );
                Ok(Notice {
                    game: Some(g.clone()),
                    tournament: g.tournament.clone(),
                    told: Told::Resumed {
                        game: g.clone(),
                        to_move: self.games[&g].to_move(),
                    },
                    reason: None,
                    players,
                })
            }
            DirectorCommand::AdjustTime {
                days,
                player,
                reason,
            } => {
                let g = need_game(Command::AdjustTime)?;
                let gm = self.games.get_mut(&g).ok_or(DirectorRefusal::UnknownGame {
                    game: g.to_string(),
                })?;
                if gm.status == GameStatus::Finished {
                    return Err(DirectorRefusal::GameOver {
                        game: g.to_string(),
                    });
                }
                let c = gm.color_of(player).ok_or(DirectorRefusal::NotAPlayer {
                    player: player.clone(),
                    scope: g.to_string(),
                })?;
                let pc = gm.clocks.get_mut(c);
                pc.adjust(*days);
                let used = pc.used_in_period;
                let players = vec![gm.players.white.clone(), gm.players.black.clone()];
                out.games.insert(g.clone());
                self.director_event(
                    out,
                    std::slice::from_ref(&g),
                    letter,
                    format!("time {days:+} days for {player}: {reason}"),
                    now,
                );
                let name = self.name_of(&g.tournament, player);
                Ok(Notice {
                    game: Some(g.clone()),
                    tournament: g.tournament.clone(),
                    told: Told::TimeAdjusted {
                        game: g.clone(),
                        name,
                        days: *days,
                        used,
                    },
                    reason: Some(reason.clone()),
                    players,
                })
            }
            DirectorCommand::SpecialLeave { span, player }
            | DirectorCommand::AcceptLateLeave { span, player } => {
                let special = matches!(cmd, DirectorCommand::SpecialLeave { .. });
                let command = if special {
                    Command::SpecialLeave
                } else {
                    Command::AcceptLateLeave
                };
                let tid = self.player_tournament(tid, directs, player, command)?;
                let today = view::local_date(now, s.tz);
                let leave_err = |refusal| DirectorRefusal::Leave {
                    player: player.clone(),
                    refusal,
                };
                let (from, to) =
                    complete_span(*span, today).ok_or_else(|| leave_err(LeaveRefusal::BadSpan))?;
                if !special {
                    check_leave(&self.tournaments[&tid], player, from, to, today, true)
                        .map_err(leave_err)?;
                }
                let how = if special {
                    LeaveHow::Special
                } else {
                    LeaveHow::Late
                };
                let rest = Rest { from, to };
                let games = self.open_games_in(&tid, player);
                self.director_event(
                    out,
                    &games,
                    letter,
                    format!("{} leave {from} to {to} for {player}", how.name()),
                    now,
                );
                self.add_leave(out, &tid, player, rest, how, now);
                out.letter_games.extend(games.iter().cloned());
                let players = self.player_and_partners(player, &games);
                let name = self.name_of(&tid, player);
                Ok(Notice {
                    game: game.cloned().filter(|g| games.contains(g)),
                    told: Told::Leave {
                        special,
                        name,
                        from,
                        to,
                        tournament: tid.clone(),
                    },
                    tournament: tid,
                    reason: None,
                    players,
                })
            }
            DirectorCommand::Address {
                player,
                address,
                change,
            } => {
                let tid = self.player_tournament(tid, directs, player, Command::Address)?;
                if let Some(owner) = self.address_in_use(address)
                    && owner != player
                {
                    return Err(DirectorRefusal::AddressTaken {
                        address: address.clone(),
                        owner: owner.to_string(),
                    });
                }
                let Some(p) = self
                    .tournaments
                    .get_mut(&tid)
                    .and_then(|t| t.players.iter_mut().find(|p| &p.email == player))
                else {
                    return Err(DirectorRefusal::NotAPlayer {
                        player: player.clone(),
                        scope: tid,
                    });
                };
                if address != player && !p.also.contains(address) {
                    p.also.push(address.clone());
                }
                if *change {
                    p.send_to = (address != player).then(|| address.clone());
                }
                self.note_address(address, &tid);
                let games = self.open_games_in(&tid, player);
                let what = if *change {
                    "address"
                } else {
                    "further address"
                };
                self.director_event(
                    out,
                    &games,
                    letter,
                    format!("{what} of {player}: {address}"),
                    now,
                );
                out.letter_games.extend(games.iter().cloned());
                // The player and every partner of his open games are told.
                let players = self.player_and_partners(player, &games);
                let name = self.name_of(&tid, player);
                Ok(Notice {
                    game: game.cloned().filter(|g| games.contains(g)),
                    told: Told::Address {
                        name,
                        address: address.clone(),
                        change: *change,
                        tournament: tid.clone(),
                    },
                    tournament: tid,
                    reason: None,
                    players,
                })
            }
            DirectorCommand::Malformed(line) => Err(DirectorRefusal::Malformed {
                lines: vec![line.clone()],
            }),
        }
    }

    /// The tournament a command about a player (leave, address) is about: the named one, else
    /// the only one the director directs in which the player plays.
    fn player_tournament(
        &self,
        tid: Option<&str>,
        directs: &[String],
        player: &str,
        command: Command,
    ) -> Result<String, DirectorRefusal> {
        let plays = |t: &str| {
            self.tournaments
                .get(t)
                .is_some_and(|t| t.player(player).is_some())
        };
        if let Some(t) = tid {
            return if plays(t) {
                Ok(t.to_string())
            } else {
                Err(DirectorRefusal::NotAPlayer {
                    player: player.to_string(),
                    scope: t.to_string(),
                })
            };
        }
        let candidates: Vec<&String> = directs.iter().filter(|t| plays(t)).collect();
        match candidates.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(DirectorRefusal::NotAPlayer {
                player: player.to_string(),
                scope: directs.join(", "),
            }),
            _ => Err(DirectorRefusal::NoTournament { command }),
        }
    }

    /// `player` and his partner in each of `games`: whom a command about him is announced to.
    fn player_and_partners(&self, player: &str, games: &[GameRef]) -> Vec<String> {
        let mut players = vec![player.to_string()];
        for g in games {
            if let Some(gm) = self.games.get(g)
                && let Some(c) = gm.color_of(player)
            {
                players.push(gm.players.get(!c).clone());
            }
        }
        players
    }

    fn name_of(&self, tid: &str, email: &str) -> String {
        self.tournaments
            .get(tid)
            .map(|t| t.recipient(email).name)
            .unwrap_or_else(|| email.to_string())
    }

    /// Logs a carried-out command in the games it concerns.
    fn director_event(
        &mut self,
        out: &mut Output,
        games: &[GameRef],
        letter: &Letter,
        command: String,
        now: DateTime<Utc>,
    ) {
        for g in games {
            self.log_event(
                out,
                g,
                Event::Director {
                    at: now,
                    by: letter.from.clone(),
                    command: command.clone(),
                    message_id: letter.message_id.clone(),
                },
            );
        }
        out.log.push(format!(
            "director {}: {command} ({})",
            letter.from,
            games
                .iter()
                .map(GameRef::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }

    /// The confirmation to the director and the announcement to each player a command touches.
    fn director_mails(&mut self, out: &mut Output, letter: &Letter, n: &Notice, at: Step<'_>) {
        let (now, s) = (at.now, at.s);
        let Some(t) = self.tournaments.get(&n.tournament) else {
            return;
        };
        let mut mails: Vec<(Recipient, Option<String>, Lang, bool)> = Vec::new();
        let tl_key = n.game.as_ref().and_then(|g| self.director_key(g));
        mails.push((t.director_recipient(), tl_key, s.default_lang, true));
        let mut seen = Vec::new();
        for p in &n.players {
            if seen.contains(p) {
                continue;
            }
            seen.push(p.clone());
            let key = n
                .game
                .as_ref()
                .and_then(|g| self.games.get(g))
                .and_then(|g| g.color_of(p).map(|c| g.keys.get(c).clone()));
            mails.push((t.recipient(p), key, t.lang_of(p, s.default_lang), false));
        }
        for (to, reply_key, lang, for_director) in mails {
            let data = DirectorFacts {
                recipient: to.name.clone(),
                director: t.director.name.clone(),
                tournament_id: t.id.clone(),
                tournament: t.name.clone(),
                game: n.game.as_ref().map(GameRef::to_string),
                reason: n.reason.clone(),
                for_director,
                now: view::when(now, s.tz),
            };
            let message_id = self.meta.next_message_id(s, "director");
            out.mails.push(Mail {
                sentences: vec![
                    ("title".into(), Sentence::NoticeTitle(n.told.clone())),
                    ("text".into(), Sentence::NoticeText(n.told.clone())),
                ],
                game: n.game.clone(),
                reply_key,
                in_reply_to: Some(letter.message_id.clone()),
                ..Mail::new(MailKind::Director, vec![to], lang, message_id, data)
            });
        }
    }
}
