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

mod commands;
pub(crate) mod desk;
pub mod leave;

#[cfg(test)]
mod tests;

use chrono::{DateTime, Utc};

use crate::core::door::reply::{
    appeal_sentence, decided, director_key, lang_for, letter_context, query,
};
use crate::core::model::DirectorFacts;
use crate::core::model::Event;
use crate::core::model::Refusal;
use crate::core::model::Step;
use crate::core::model::{
    Command, Decided, DirectorRefusal, Enclosure, Mail, Recipient, SerdeColor, Told,
};
use crate::core::model::{Output, State};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{DirectorCommand, Letter};
use commands::{
    Order, address, adjust_time, confirm_forfeit, director_leave, game_order, resume, set_result,
};
use desk::{Records, ask, records, warn, withdraw};

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
    /// What the director's desk adds (TO §11, §23, §29): the kind of notice, what the shell
    /// encloses, the players' reply key.
    desk: Desk,
}

/// The desk's part of a [`Notice`]; the default is a command carried out.
#[derive(Default)]
struct Desk {
    /// `DirectorFacts::form` of the players' copies (`None`: `decision`); the director's copy
    /// says `decision` for a question, else the same.
    form: Option<&'static str>,
    /// Enclosed in the director's copy.
    enclose: Vec<Enclosure>,
    /// The reply key of the players' copies, instead of their game's.
    player_key: Option<String>,
}

/// Whether a letter goes to the director's hand: it holds a command, or it comes from a
/// director who plays in no tournament.
pub(crate) fn is_director_letter(state: &State, letter: &Letter) -> bool {
    if !letter.content.director.is_empty() {
        return true;
    }
    let directs = state
        .tournaments_with(&letter.from)
        .any(|t| t.director.email == letter.from);
    let plays = state
        .tournaments_with(&letter.from)
        .any(|t| t.player(&letter.from).is_some());
    directs && !plays
}

/// A director's mail: checks who sent it and what it says, then carries out each command.
pub(crate) fn handle_director(state: &mut State, out: &mut Output, letter: &Letter, at: Step<'_>) {
    let (now, s) = (at.now, at.s);
    let lang = s.default_lang;
    let (game, tid) = letter_context(state, letter);
    // TO §11: every mail about a game is archived under it, a refused one too.
    if let Some(g) = game.as_ref().filter(|g| state.games.contains_key(*g)) {
        out.letter_games.insert(g.clone());
    }
    let directs: Vec<String> = state
        .tournaments_with(&letter.from)
        .filter(|t| t.director.email == letter.from)
        .map(|t| t.id.clone())
        .collect();
    let refuse = |st: &mut State, out: &mut Output, g: Option<&GameRef>, r: DirectorRefusal| {
        let g = g.filter(|g| st.games.contains_key(*g));
        let lang = if directs.is_empty() {
            lang_for(st, &letter.from, None, s)
        } else {
            lang
        };
        query(
            st,
            out,
            letter,
            g,
            lang,
            Refusal::Director(r),
            Step { now, s },
        );
    };
    if directs.is_empty() || tid.as_ref().is_some_and(|t| !directs.contains(t)) {
        let r = DirectorRefusal::NotDirector {
            tournament: tid.clone(),
        };
        refuse(state, out, game.as_ref(), r);
        return;
    }
    if let Some(g) = &game
        && !state.games.contains_key(g)
    {
        let r = DirectorRefusal::UnknownGame {
            game: g.to_string(),
        };
        refuse(state, out, None, r);
        return;
    }
    let commands = &letter.content.director;
    // A request of the desk recognised in a sentence but not complete (`Bitte schicken Sie mir
    // die Korrespondenz.`): asked back with the exact form, nothing done.
    if commands.is_empty()
        && let Some(ask) = letter.content.asks.first()
    {
        let g = game.as_ref().filter(|g| state.games.contains_key(*g));
        query(
            state,
            out,
            letter,
            g,
            lang,
            Refusal::Uncertain(ask.clone()),
            Step { now, s },
        );
        return;
    }
    let malformed: Vec<String> = commands
        .iter()
        .filter_map(|c| match c {
            DirectorCommand::Malformed(l) => Some(l.clone()),
            _ => None,
        })
        .collect();
    if commands.is_empty() || !malformed.is_empty() {
        refuse(
            state,
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
        match director_command(state, out, letter, cmd, scope, Step { now, s }) {
            Ok(notice) => director_mails(state, out, letter, &notice, at),
            Err(r) => refuse(state, out, game.as_ref(), r),
        }
    }
}

/// Carries out one command: each has a function of its own below.
fn director_command(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    cmd: &DirectorCommand,
    scope: Scope<'_>,
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let need_game = |command: Command| {
        scope
            .game
            .cloned()
            .ok_or(DirectorRefusal::NoGame { command })
    };
    match cmd {
        DirectorCommand::ConfirmForfeit => {
            confirm_forfeit(state, out, letter, need_game(Command::ConfirmForfeit)?, at)
        }
        DirectorCommand::SetResult(text) => {
            set_result(state, out, letter, need_game(Command::SetResult)?, text, at)
        }
        DirectorCommand::Resume => resume(state, out, letter, need_game(Command::Resume)?, at),
        DirectorCommand::AdjustTime {
            days,
            player,
            reason,
        } => {
            let g = need_game(Command::AdjustTime)?;
            adjust_time(state, out, letter, g, (days, player, reason), at)
        }
        DirectorCommand::SpecialLeave { span, player } => {
            director_leave(state, out, letter, scope, (span, player, true), at)
        }
        DirectorCommand::AcceptLateLeave { span, player } => {
            director_leave(state, out, letter, scope, (span, player, false), at)
        }
        DirectorCommand::Address {
            player,
            address: to,
            change,
        } => address(state, out, letter, scope, (player, to, change), at),
        DirectorCommand::MovesOnly { game, on } => {
            game_order(state, out, letter, scope, (game, Order::MovesOnly, *on), at)
        }
        DirectorCommand::Correspondence { game } => {
            records(state, scope, Records::Correspondence(game), at.s.tz)
        }
        DirectorCommand::Pgn { target } => records(state, scope, Records::Pgn(target), at.s.tz),
        DirectorCommand::Verify { game } => records(state, scope, Records::Verify(game), at.s.tz),
        DirectorCommand::Withdraw { player, annulled } => {
            withdraw(state, out, letter, scope, (player, *annulled), at)
        }
        DirectorCommand::Ask { player, text } => ask(state, out, letter, scope, (player, text), at),
        DirectorCommand::Warn { player, reason } => {
            warn(state, out, letter, scope, (player, reason), at)
        }
        DirectorCommand::ThroughDirector { game, on } => {
            let order = Order::ThroughDirector;
            game_order(state, out, letter, scope, (game, order, *on), at)
        }
        DirectorCommand::Malformed(line) => Err(DirectorRefusal::Malformed {
            lines: vec![line.clone()],
        }),
    }
}

/// The tournament a command about a player (leave, address) is about: the named one, else
/// the only one the director directs in which the player plays.
fn player_tournament(
    state: &State,
    tid: Option<&str>,
    directs: &[String],
    player: &str,
    command: Command,
) -> Result<String, DirectorRefusal> {
    let plays = |t: &str| {
        state
            .tournaments
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
fn player_and_partners(state: &State, player: &str, games: &[GameRef]) -> Vec<String> {
    let mut players = vec![player.to_string()];
    for g in games {
        if let Some(gm) = state.games.get(g)
            && let Some(c) = gm.color_of(player)
        {
            players.push(gm.players.get(!c).clone());
        }
    }
    players
}

fn name_of(state: &State, tid: &str, email: &str) -> String {
    state
        .tournaments
        .get(tid)
        .map(|t| t.recipient(email).name)
        .unwrap_or_else(|| email.to_string())
}

/// Logs a carried-out command in the games it concerns.
fn director_event(
    state: &mut State,
    out: &mut Output,
    games: &[GameRef],
    letter: &Letter,
    command: String,
    now: DateTime<Utc>,
) {
    for g in games {
        state.log_event(
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

/// What a notice decided about its game that the players may dispute or appeal (TO §29), if
/// anything, and against whom (their copies say how to appeal it): a charge against the player
/// charged, a credit against his partner, an order about the game against both.
fn decision_of(state: &State, n: &Notice) -> Option<(Decided, Vec<String>)> {
    let game = n.game.as_ref().and_then(|g| state.games.get(g));
    let color = |email: &str| game.and_then(|g| g.color_of(email)).map(SerdeColor::from);
    let both = || {
        game.map(|g| vec![g.players.white.clone(), g.players.black.clone()])
            .unwrap_or_default()
    };
    let partner = |email: &str| {
        game.and_then(|g| g.color_of(email).map(|c| g.players.get(!c).clone()))
            .into_iter()
            .collect()
    };
    match &n.told {
        Told::MovesOnly { on, .. } => Some((
            Decided::MovesOnly { on: *on },
            if *on { both() } else { vec![] },
        )),
        Told::ThroughDirector { on, .. } => Some((
            Decided::ThroughDirector { on: *on },
            if *on { both() } else { vec![] },
        )),
        Told::TimeAdjusted { player, days, .. } => Some((
            Decided::Time {
                color: color(player)?,
                days: *days,
            },
            if *days > 0 {
                vec![player.clone()]
            } else {
                partner(player)
            },
        )),
        Told::Warned { player, .. } => {
            color(player).map(|c| (Decided::Warning { color: c }, vec![player.clone()]))
        }
        Told::Resumed { .. } => Some((Decided::Resumed, vec![])),
        _ => None,
    }
}

/// The confirmation to the director and the announcement to each player a command touches.
fn director_mails(state: &mut State, out: &mut Output, letter: &Letter, n: &Notice, at: Step<'_>) {
    let records = n.desk.form == Some("records");
    let (now, s) = (at.now, at.s);
    // A decision about the game: the players' replies to it go to the director (TO §18, §29).
    let decision = decision_of(state, n);
    if let (Some((what, _)), Some(g)) = (&decision, &n.game) {
        decided(state, out, g, what.clone(), now);
    }
    // TO §29: a decision against a player tells him how to appeal it — a warning too when it
    // names no game.
    let against: Vec<String> = match (&decision, &n.told) {
        (Some((_, against)), _) => against.clone(),
        (None, Told::Warned { player, .. }) => vec![player.clone()],
        _ => Vec::new(),
    };
    let Some(t) = state.tournaments.get(&n.tournament) else {
        return;
    };
    let mut mails: Vec<(Recipient, Option<String>, Lang, bool)> = Vec::new();
    let tl_key = n.game.as_ref().and_then(|g| director_key(state, g));
    mails.push((t.director_recipient(), tl_key, s.default_lang, true));
    let mut seen = Vec::new();
    for p in &n.players {
        if seen.contains(p) {
            continue;
        }
        seen.push(p.clone());
        let key = n.desk.player_key.clone().or_else(|| {
            n.game
                .as_ref()
                .and_then(|g| state.games.get(g))
                .and_then(|g| g.color_of(p).map(|c| g.keys.get(c).clone()))
        });
        mails.push((t.recipient(p), key, t.lang_of(p, s.default_lang), false));
    }
    for (to, reply_key, lang, for_director) in mails {
        let to_email = to.email.clone();
        let form = match n.desk.form {
            Some("question") if for_director => "decision",
            Some(form) => form,
            None => "decision",
        };
        let data = DirectorFacts {
            recipient: to.name.clone(),
            director: t.director.name.clone(),
            tournament_id: t.id.clone(),
            tournament: t.name.clone(),
            game: n.game.as_ref().map(GameRef::to_string),
            reason: n.reason.clone(),
            for_director,
            now: view::when(now, s.tz),
            form,
            verified: None,
        };
        let message_id = state.meta.next_message_id(s, "director");
        let mut mail = Mail {
            // The records asked for are not filed under the game (TO §11: an mbox in the
            // game's own mbox would double it with every request).
            game: n.game.clone().filter(|_| !records),
            reply_key,
            in_reply_to: Some(letter.message_id.clone()),
            enclose: if for_director {
                n.desk.enclose.clone()
            } else {
                Vec::new()
            },
            // A player's reply to a notice about his game goes to the director, never to his
            // partner (TO §18, §29).
            to_director: true,
            ..Mail::notice(n.told.clone(), vec![to], lang, message_id, data)
        };
        if !for_director && form == "decision" && against.contains(&to_email) {
            mail.sentences
                .push(appeal_sentence(&t.director.name, now, s));
        }
        out.mails.push(mail);
    }
}
