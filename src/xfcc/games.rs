//! A player's games as XfccBasic shows them, the games' XFCC ids, what a `MakeAMove` says as the
//! content of a letter for the core to decide on, and the code of the core's refusal. Pure: the
//! core's state, the call and `now` in, values out. The rules are the core's alone.

use chrono::{DateTime, Duration, Utc};
use chrono_tz::Tz;
use shakmaty::{Chess, Color};

use super::soap::MoveCall;
use super::values::{Code, XfccGame, XfccResult};
use crate::core::clock;
use crate::core::model::{EndReason, Game, GameResult, GameStatus, Refusal, State, Tournament};
use crate::game_ref::GameRef;
use crate::letter::{Content, MoveToken, RequestKind};
use crate::notation::{Form, IllegalReason, NotationError, read_move, write_move};
use crate::render::words::request::written;

/// Finished games stay in `GetMyGames` this long after their end (the clients then keep them).
pub const FINISHED_SHOWN_DAYS: i64 = 28;

/// The XFCC ids: 100000 × the tournament's place in the order of registration (from 1) + the
/// game's number. Stable (tournaments only ever join the end of that order), an xs:int, without
/// `-` (Scid splits `server-id` on it), and readable: game 7 of the second tournament is 200007.
const ID_STRIDE: u64 = 100_000;

fn tournaments_in_order(state: &State) -> Vec<&Tournament> {
    let mut all: Vec<&Tournament> = state.tournaments.values().collect();
    all.sort_by(|a, b| (a.registered, &a.id).cmp(&(b.registered, &b.id)));
    all
}

/// The XFCC id of `game`; `None` beyond the range of xs:int.
pub fn game_id(state: &State, game: &GameRef) -> Option<u32> {
    let place = tournaments_in_order(state)
        .iter()
        .position(|t| t.id == game.tournament)? as u64
        + 1;
    let n = u64::from(game.number);
    if n >= ID_STRIDE {
        return None;
    }
    u32::try_from(place * ID_STRIDE + n)
        .ok()
        .filter(|&id| id <= i32::MAX as u32)
}

/// The game an XFCC id names, as written by the client.
pub fn game_of_id(state: &State, id: &str) -> Option<GameRef> {
    let id: u64 = id.trim().parse().ok()?;
    let (place, n) = (id / ID_STRIDE, id % ID_STRIDE);
    let order = tournaments_in_order(state);
    let t = order.get(usize::try_from(place).ok()?.checked_sub(1)?)?;
    let g = GameRef::new(t.id.clone(), u32::try_from(n).ok()?);
    t.games.contains(&g).then_some(g)
}

/// The games `email` plays, as `GetMyGames` lists them: about to begin, running, stopped, and
/// finished within [`FINISHED_SHOWN_DAYS`]. The games must be in `state` (the shell brings them in).
pub fn my_games(
    state: &State,
    email: &str,
    site: &str,
    now: DateTime<Utc>,
    tz: Tz,
) -> Vec<XfccGame> {
    let mut out = Vec::new();
    for t in state.tournaments_with(email) {
        if t.player(email).is_none() {
            continue;
        }
        for g in &t.games {
            let Some(game) = state.games.get(g) else {
                continue;
            };
            let Some(color) = game.color_of(email) else {
                continue;
            };
            // A game not begun is shown (not on move), so the program has it from its start
            // mail on; a finished one for four weeks.
            let shown = match game.status {
                GameStatus::Finished => game
                    .ended_at
                    .is_none_or(|e| now - e <= Duration::days(FINISHED_SHOWN_DAYS)),
                _ => true,
            };
            if !shown {
                continue;
            }
            let Some(id) = game_id(state, g) else {
                continue;
            };
            out.push(xfcc_game(id, game, t, color, site, now, tz));
        }
    }
    out
}

fn name_of(t: &Tournament, email: &str) -> String {
    t.player(email)
        .map(|p| p.name.clone())
        .unwrap_or_else(|| email.to_string())
}

fn xfcc_game(
    id: u32,
    game: &Game,
    t: &Tournament,
    color: Color,
    site: &str,
    now: DateTime<Utc>,
    tz: Tz,
) -> XfccGame {
    let result = match game.result {
        // TO §26: annulled after a withdrawal.
        None if game.status == GameStatus::Finished => XfccResult::Cancelled,
        None => XfccResult::Ongoing,
        Some(GameResult::WhiteWins) => XfccResult::WhiteWins,
        Some(GameResult::BlackWins) => XfccResult::BlackWins,
        Some(GameResult::Draw) => XfccResult::Draw,
    };
    XfccGame {
        id,
        white: name_of(t, &game.players.white),
        black: name_of(t, &game.players.black),
        event: t.name.clone(),
        site: site.to_string(),
        my_turn: game.status == GameStatus::Running && game.to_move() == color,
        has_white: color == Color::White,
        player: time_left(game, t, color, now, tz),
        opponent: time_left(game, t, color.other(), now, tz),
        moves: movetext(&game.sans_plus()),
        draw_offered: game.is_open() && game.draw_offer.map(Color::from) == Some(color.other()),
        result,
        message: String::new(),
        server_info: format!("fernzug {}", game.id),
        event_date: t.start.format("%Y.%m.%d").to_string(),
        setup: false,
        fen: game.fen(),
        time_control: format!("10/{}", u64::from(t.rules.days_per_period()) * 86_400),
    }
}

/// `1.e4 e5 2.Nf3`: numbers without a space, as ICCF writes them.
pub fn movetext(sans: &[String]) -> String {
    let mut out = String::new();
    for (i, san) in sans.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if i % 2 == 0 {
            out.push_str(&format!("{}.", i / 2 + 1));
        }
        out.push_str(san);
    }
    out
}

/// The thinking time `color` has left in the current period, in days, hours and minutes: for the
/// player on move up to the instant his limit is exceeded (TO §17, with the §13 surcharge and his
/// leaves), for the other the days his next move may take.
fn time_left(
    game: &Game,
    t: &Tournament,
    color: Color,
    now: DateTime<Utc>,
    tz: Tz,
) -> (i64, i64, i64) {
    let pc = game.clocks.get(color);
    let days_room = i64::from(pc.allowed(t.rules).saturating_sub(pc.used_in_period));
    let minutes = if game.status == GameStatus::Running && game.to_move() == color {
        let rest = t.rest_of(game.players.get(color));
        let at =
            clock::forfeit_instant(t.rules, pc, game.turn.since, game.turn.announced, tz, &rest);
        if at == DateTime::<Utc>::MAX_UTC {
            days_room * 1440
        } else {
            (at - now).num_minutes().max(0)
        }
    } else {
        days_room * 1440
    };
    (minutes / 1440, minutes % 1440 / 60, minutes % 60)
}

/// What a `MakeAMove` of `email` in `game` says, as the content of the letter it stands for:
/// the partner's last move as TO §2 wants it repeated (the call implies it: "my move after
/// yours"), the own move numbered with the call's move count and the caller's colour, and the
/// flags in the words they stand for. Nothing is decided here: the core decides on it as on any
/// mail (`Trace::direct`: what the client can show as a code is refused at once). The move a
/// client sends beside a resignation or an acceptance is its board's last (Scid): left out.
pub fn content_of(state: &State, game: &GameRef, email: &str, call: &MoveCall) -> Content {
    let mut content = Content {
        resign: call.resign,
        draw_accept: call.accept_draw,
        // TO §30: the message field is the player's own words, forwarded like a mail's.
        words: crate::letter::content::plain_words(&call.my_message),
        ..Content::default()
    };
    let Some(g) = state.games.get(game) else {
        return content;
    };
    if call.resign || call.accept_draw {
        return content;
    }
    let color = g.color_of(email).unwrap_or(Color::White);
    if let Some(last) = g.moves.last() {
        let ply = g.moves.len() - 1;
        content.moves.push(MoveToken {
            number: Game::number_of_ply(ply),
            color: if ply % 2 == 0 {
                Color::White
            } else {
                Color::Black
            },
            text: last.san.clone(),
        });
    }
    content.moves.push(MoveToken {
        number: call.movecount.unwrap_or(0),
        color,
        text: as_read(&g.position(), call.my_move.trim()),
    });
    content.draw_offer = call.offer_draw;
    content.claim_repetition = call.claim_draw;
    content
}

/// The client's move (PGN's English SAN) written so that the relay's reader, whatever notation
/// the player uses by mail (TO §3), cannot take it for another move: in SAN where that reads
/// back as the same move, else in UCI. A text the reader does not read as one move is passed on
/// as it came, for the core to refuse (an illegal, unreadable or ambiguous move).
fn as_read(pos: &Chess, text: &str) -> String {
    let Ok(reading) = read_move(text, pos) else {
        return text.to_string();
    };
    let mv = reading.mv;
    [Form::SanEnglish, Form::Uci]
        .into_iter()
        .map(|f| write_move(pos, &mv, f))
        .find(|w| read_move(w, pos).is_ok_and(|r| r.mv == mv))
        .unwrap_or_else(|| write_move(pos, &mv, Form::Uci))
}

/// The text of the letter a `MakeAMove` stands for, as its player would have written it (TO §2:
/// the move numbered, the flags in words): what the archive keeps of the call (TO §11).
pub fn letter_text(content: &Content) -> String {
    let mut lines: Vec<String> = content
        .moves
        .iter()
        .map(|m| match m.color {
            Color::White => format!("{}. {}", m.number, m.text),
            Color::Black => format!("{}... {}", m.number, m.text),
        })
        .collect();
    // The words are render's (`crate::render::words::request::written`).
    for (said, kind) in [
        (content.resign, RequestKind::Resign),
        (content.draw_accept, RequestKind::Accept),
        (content.draw_offer, RequestKind::Offer),
        (content.claim_repetition, RequestKind::Claim),
    ] {
        if let Some(words) = written(kind).filter(|_| said) {
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(words.to_string());
        }
    }
    lines.join("\n")
}

/// The XfccBasic code for a refusal the core decided about a call of `email` in `game` (as the
/// core left it): the refusal the player would have read in his mail. A game that stopped or
/// ended because `email`'s time ran out (TO §21, §22) is `LostOnTime`.
pub fn code_of(refusal: &Refusal, game: Option<&Game>, email: &str) -> Code {
    use Refusal as R;
    let lost_on_time = game.is_some_and(|g| {
        g.color_of(email).is_some_and(|color| match g.status {
            GameStatus::Suspended => g.clocks.get(color).forfeits >= 2,
            GameStatus::Finished => {
                g.end_reason == Some(EndReason::ForfeitConfirmed)
                    && g.result == Some(GameResult::for_winner(color.other()))
            }
            _ => false,
        })
    });
    match refusal {
        R::GameOver { .. } | R::Suspended { .. } if lost_on_time => Code::LostOnTime,
        R::UnknownGame { .. } | R::NoGameNamed { .. } => Code::InvalidGameID,
        R::NotAPlayer { .. } | R::ForeignKey => Code::NotYourGame,
        R::NotYourTurn { .. }
        | R::GameOver { .. }
        | R::Suspended { .. }
        | R::Adjourned { .. }
        | R::NotStarted { .. } => Code::NotYourTurn,
        R::WrongNumber { .. } => Code::InvalidMoveNumber,
        R::NoOfferToAccept => Code::NoDrawWasOffered,
        R::BadMove { error, .. } if ambiguous(error) => Code::MoveIsAmbigous,
        R::BadMove { .. } | R::RepetitionClaimFalse { .. } | R::OfferWithoutMove => {
            Code::InvalidMove
        }
        _ => Code::ServerError,
    }
}

/// Whether a move text names more than one legal move: two readings (`Bb5` as a German pawn
/// move and an English bishop move), or two pieces that reach the square (`Nd2`).
fn ambiguous(e: &NotationError) -> bool {
    matches!(
        e,
        NotationError::Ambiguous { .. }
            | NotationError::Illegal {
                reason: IllegalReason::SeveralPiecesCanReach { .. },
                ..
            }
    )
}

#[cfg(test)]
#[path = "games_tests.rs"]
mod tests;
