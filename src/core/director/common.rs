//! What the director's commands share: the scope of his letter, the tournament a command about
//! a player is about, the names and partners it is announced to, and the event it logs.

use chrono::{DateTime, Utc};

use crate::core::model::Event;
use crate::core::model::{Command, DirectorRefusal};
use crate::core::model::{Output, State};
use crate::game_ref::GameRef;
use crate::letter::Letter;

/// What a director's letter is about: the game it names, the tournament, and the tournaments
/// its sender directs.
#[derive(Clone, Copy)]
pub(super) struct Scope<'a> {
    pub(super) game: Option<&'a GameRef>,
    pub(super) tid: Option<&'a str>,
    pub(super) directs: &'a [String],
}

/// The tournament a command about a player (leave, address) is about: the named one, else
/// the only one the director directs in which the player plays.
pub(super) fn player_tournament(
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
pub(super) fn player_and_partners(state: &State, player: &str, games: &[GameRef]) -> Vec<String> {
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

/// The name of `email` in tournament `tid` (his address where the tournament is not known).
pub(super) fn name_of(state: &State, tid: &str, email: &str) -> String {
    state
        .tournaments
        .get(tid)
        .map(|t| t.recipient(email).name)
        .unwrap_or_else(|| email.to_string())
}

/// Logs a carried-out command in the games it concerns.
pub(super) fn director_event(
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
