//! One function per director command (TO §21–§26, §29, §30): each takes the state and the
//! command's own values, changes what the command changes and says what to tell whom
//! ([`Notice`]); `director_command` only dispatches.

use shakmaty::Color;

use super::common::{Scope, director_event, name_of, player_and_partners, player_tournament};
use super::notice::{Desk, Notice};
use crate::core::clock::{self, Rest};
use crate::core::director::leave::add_leave;
use crate::core::director::leave::{check_leave, complete_span};
use crate::core::door::owners::taken;
use crate::core::door::reply::{finish, finish_as, open_games_in};
use crate::core::model::GameStatus;
use crate::core::model::LeaveRefusal;
use crate::core::model::Step;
use crate::core::model::{Command, DirectorRefusal, LeaveHow, Told};
use crate::core::model::{EndReason, GameResult};
use crate::core::model::{Output, State};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::letter::Letter;

/// TO §22: the director confirms a second time forfeit; the game ends, lost for the offender.
pub(super) fn confirm_forfeit(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    g: GameRef,
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let (now, s) = (at.now, at.s);
    let gm = &st.games[&g];
    let offender = [Color::White, Color::Black]
        .into_iter()
        .find(|c| gm.clocks.get(*c).forfeits >= 2)
        .filter(|_| gm.status == GameStatus::Suspended)
        .ok_or(DirectorRefusal::NoSecondForfeit {
            game: g.to_string(),
        })?;
    let result = GameResult::for_winner(!offender);
    let offender_email = gm.players.get(offender).clone();
    director_event(
        st,
        out,
        std::slice::from_ref(&g),
        letter,
        format!("confirmed the second time forfeit of {offender_email}: {result}"),
        now,
    );
    finish(st, out, &g, result, EndReason::ForfeitConfirmed, now, s);
    let name = name_of(st, &g.tournament, &offender_email);
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
        desk: Desk::default(),
    })
}

/// The director sets a game's result (TO §29: it may be appealed).
pub(super) fn set_result(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    g: GameRef,
    text: &str,
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let (now, s) = (at.now, at.s);
    // TO §26: `Ergebnis: annulliert` — the game, a finished one too, kept out of the crosstable.
    if text == "annulled" {
        let gm = &st.games[&g];
        if gm.status == GameStatus::Finished && gm.result.is_none() {
            return Err(DirectorRefusal::AlreadyResult {
                game: g.to_string(),
                result: "*".into(),
            });
        }
        let before = gm.result;
        director_event(
            st,
            out,
            std::slice::from_ref(&g),
            letter,
            "annulled the game (TO §26)".to_string(),
            now,
        );
        finish_as(st, out, &g, None, EndReason::Annulled, now, s);
        return Ok(Notice {
            game: Some(g.clone()),
            tournament: g.tournament.clone(),
            told: Told::Annulled {
                game: g.clone(),
                was: before,
            },
            reason: None,
            players: Vec::new(),
            desk: Desk::default(),
        });
    }
    // The reader gives only `1-0`, `0-1`, `1/2-1/2`; anything else is no command.
    let result: GameResult = text.parse().map_err(|_| DirectorRefusal::Malformed {
        lines: vec![text.to_string()],
    })?;
    let gm = &st.games[&g];
    if gm.status == GameStatus::Finished && gm.result == Some(result) {
        return Err(DirectorRefusal::AlreadyResult {
            game: g.to_string(),
            result: result.to_string(),
        });
    }
    let before = gm.result;
    director_event(
        st,
        out,
        std::slice::from_ref(&g),
        letter,
        format!("set the result {result}"),
        now,
    );
    finish(st, out, &g, result, EndReason::DirectorDecision, now, s);
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
        desk: Desk::default(),
    })
}

/// A suspended or adjourned game goes on (TO §21, §31).
pub(super) fn resume(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    g: GameRef,
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let (now, s) = (at.now, at.s);
    let gm = st.games.get_mut(&g).ok_or(DirectorRefusal::UnknownGame {
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
    let t = st.tournaments.get(&g.tournament);
    if let Some(t) = t {
        let rest = t.rest_of(gm.players.get(gm.to_move()));
        let turn = &mut gm.turn;
        if turn.reminded.is_none()
            && clock::reminder_instant(turn.since, turn.announced, s.tz, &rest) <= now
        {
            turn.reminded = Some(now);
        }
        if turn.silence_reported.is_none()
            && clock::silence_report_instant(turn.since, turn.announced, s.tz, &rest) <= now
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
    director_event(
        st,
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
            to_move: st.games[&g].to_move(),
        },
        reason: None,
        players,
        desk: Desk::default(),
    })
}

/// TO §8, §30, Fax 2.2: days added to (or taken from) a player's clock, with the reason.
pub(super) fn adjust_time(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    g: GameRef,
    (days, player, reason): (&i32, &String, &String),
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let now = at.now;
    let gm = st.games.get_mut(&g).ok_or(DirectorRefusal::UnknownGame {
        game: g.to_string(),
    })?;
    if gm.status == GameStatus::Finished {
        return Err(DirectorRefusal::GameOver {
            game: g.to_string(),
        });
    }
    // The player by his address, or — a sentence names him as a person, `Frau Adler` — by his
    // name: the one player of the game whose name holds every word written.
    let named = if player.contains('@') {
        None
    } else {
        let t = st.tournaments.get(&g.tournament);
        let words = |s: &str| -> Vec<String> {
            s.split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(crate::letter::requests::tokens::fold)
                .collect()
        };
        let wanted = words(player);
        let gm = &st.games[&g];
        let fits: Vec<String> = [gm.players.white.clone(), gm.players.black.clone()]
            .into_iter()
            .filter(|email| {
                let name = t.map(|t| t.recipient(email).name).unwrap_or_default();
                let have = words(&name);
                !wanted.is_empty() && wanted.iter().all(|w| have.contains(w))
            })
            .collect();
        match fits.as_slice() {
            [one] => Some(one.clone()),
            _ => {
                return Err(DirectorRefusal::NotAPlayer {
                    player: player.clone(),
                    scope: g.to_string(),
                });
            }
        }
    };
    let player = named.as_ref().unwrap_or(player);
    let gm = st.games.get_mut(&g).ok_or(DirectorRefusal::UnknownGame {
        game: g.to_string(),
    })?;
    let c = gm.color_of(player).ok_or(DirectorRefusal::NotAPlayer {
        player: player.clone(),
        scope: g.to_string(),
    })?;
    let pc = gm.clocks.get_mut(c);
    let before = pc.used_in_period;
    pc.adjust(*days);
    let used = pc.used_in_period;
    let players = vec![gm.players.white.clone(), gm.players.black.clone()];
    out.games.insert(g.clone());
    director_event(
        st,
        out,
        std::slice::from_ref(&g),
        letter,
        format!(
            "time of {player} {}: {} days ({reason})",
            if *days > 0 { "charged" } else { "credited" },
            days.unsigned_abs()
        ),
        now,
    );
    let name = name_of(st, &g.tournament, player);
    Ok(Notice {
        game: Some(g.clone()),
        tournament: g.tournament.clone(),
        told: Told::TimeAdjusted {
            game: g.clone(),
            name,
            player: player.clone(),
            days: *days,
            before,
            used,
        },
        reason: Some(reason.clone()),
        players,
        desk: Desk::default(),
    })
}

/// TO §24, §25: a special leave, or a late leave accepted afterwards (`special` false).
pub(super) fn director_leave(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    scope: Scope<'_>,
    (span, player, special): (&crate::letter::DateSpan, &String, bool),
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let (now, s) = (at.now, at.s);
    let Scope { game, tid, directs } = scope;
    let command = if special {
        Command::SpecialLeave
    } else {
        Command::AcceptLateLeave
    };
    let tid = player_tournament(st, tid, directs, player, command)?;
    let today = view::local_date(now, s.tz);
    let leave_err = |refusal| DirectorRefusal::Leave {
        player: player.clone(),
        refusal,
    };
    let (from, to) = complete_span(*span, today).ok_or_else(|| leave_err(LeaveRefusal::BadSpan))?;
    if !special {
        check_leave(&st.tournaments[&tid], player, from, to, today, true).map_err(leave_err)?;
    }
    let how = if special {
        LeaveHow::Special
    } else {
        LeaveHow::Late
    };
    let rest = Rest { from, to };
    let games = open_games_in(st, &tid, player);
    director_event(
        st,
        out,
        &games,
        letter,
        format!("{} leave {from} to {to} for {player}", how.name()),
        now,
    );
    add_leave(st, out, &tid, player, rest, how, now);
    out.letter_games.extend(games.iter().cloned());
    let players = player_and_partners(st, player, &games);
    let name = name_of(st, &tid, player);
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
        desk: Desk::default(),
    })
}

/// A player's address changed, or one more he may write from.
pub(super) fn address(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    scope: Scope<'_>,
    (player, address, change): (&String, &String, &bool),
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let now = at.now;
    let Scope { game, tid, directs } = scope;
    let tid = player_tournament(st, tid, directs, player, Command::Address)?;
    // An address belongs to one person, in every tournament (the check a tournament file meets
    // too, `crate::core::door::owners`).
    if let Some(t) = taken(st, address, player, None) {
        return Err(DirectorRefusal::AddressTaken {
            address: address.clone(),
            owner: t.owner,
        });
    }
    let Some(p) = st
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
    st.note_address(address, &tid);
    // The player's record changed: the shell stores the tournament.
    out.tournaments.insert(tid.clone());
    let games = open_games_in(st, &tid, player);
    let what = if *change {
        "address"
    } else {
        "further address"
    };
    director_event(
        st,
        out,
        &games,
        letter,
        format!("{what} of {player}: {address}"),
        now,
    );
    out.letter_games.extend(games.iter().cloned());
    // The player and every partner of his open games are told.
    let players = player_and_partners(st, player, &games);
    let name = name_of(st, &tid, player);
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
        desk: Desk::default(),
    })
}

/// A TO §30 order about one game's mails.
#[derive(Clone, Copy)]
pub(super) enum Order {
    /// No words of either player are forwarded (`Nur Züge`).
    MovesOnly,
    /// Every `move` mail has the director in copy (`Züge über TL`).
    ThroughDirector,
}

/// TO §30: the director gives an order about a game's mails (`on`) or lifts it; both players
/// are told. The game is the one the command names, in a tournament the sender directs.
pub(super) fn game_order(
    st: &mut State,
    out: &mut Output,
    letter: &Letter,
    scope: Scope<'_>,
    (game, order, on): (&str, Order, bool),
    at: Step<'_>,
) -> Result<Notice, DirectorRefusal> {
    let unknown = || DirectorRefusal::UnknownGame {
        game: game.to_string(),
    };
    let g: GameRef = game.parse().map_err(|_| unknown())?;
    if !scope.directs.contains(&g.tournament) {
        return Err(DirectorRefusal::NotDirector {
            tournament: Some(g.tournament.clone()),
        });
    }
    let gm = st.games.get_mut(&g).ok_or_else(unknown)?;
    match order {
        Order::MovesOnly => gm.moves_only = on,
        Order::ThroughDirector => gm.through_director = on,
    }
    let players = vec![gm.players.white.clone(), gm.players.black.clone()];
    out.games.insert(g.clone());
    out.letter_games.insert(g.clone());
    let command = match (order, on) {
        (Order::MovesOnly, true) => "restricted the game to moves (TO §30)",
        (Order::MovesOnly, false) => "lifted the restriction to moves (TO §30)",
        (Order::ThroughDirector, true) => "ordered the game's moves through the director (TO §30)",
        (Order::ThroughDirector, false) => {
            "lifted the order of moves through the director (TO §30)"
        }
    };
    director_event(
        st,
        out,
        std::slice::from_ref(&g),
        letter,
        command.to_string(),
        at.now,
    );
    let told = match order {
        Order::MovesOnly => Told::MovesOnly {
            game: g.clone(),
            on,
        },
        Order::ThroughDirector => Told::ThroughDirector {
            game: g.clone(),
            on,
        },
    };
    Ok(Notice {
        game: Some(g.clone()),
        tournament: g.tournament.clone(),
        told,
        reason: None,
        players,
        desk: Desk::default(),
    })
}
