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
mod common;
pub(crate) mod desk;
pub mod leave;
mod notice;

#[cfg(test)]
mod tests;

use crate::core::door::reply::{lang_for, letter_context, query};
use crate::core::model::Refusal;
use crate::core::model::Step;
use crate::core::model::{Command, DirectorRefusal};
use crate::core::model::{Output, State};
use crate::game_ref::GameRef;
use crate::letter::{DirectorCommand, Letter};
use commands::{
    Order, address, adjust_time, confirm_forfeit, director_leave, game_order, resume, set_result,
};
use common::Scope;
use desk::{Records, ask, records, warn, withdraw};
use notice::{Notice, director_mails};

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

/// Carries out one command: each has a function of its own (`commands.rs`, `desk.rs`).
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
