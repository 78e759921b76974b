//! What the templates show: dates, numbered moves, clocks and diagrams, written for one reader
//! (the values of `model::facts`: [`Day`], [`When`], [`Colour`], [`GameContext`]).

use chrono::{DateTime, NaiveDate, NaiveDateTime, Timelike, Utc};
use chrono_tz::Tz;
use shakmaty::{Chess, Color, Move};

use crate::core::clock::{self, PlayerClock};
use crate::core::model::{ClockFigures, Colour, Day, GameContext, Tournament, When};
use crate::core::model::{Game, GameReport, GameStatus, Step, color_name};
use crate::lang::Lang;
use crate::notation::{self, Form};

/// A calendar day as a value for the templates: `{"$day": "2026-11-30"}`; the render layer
/// writes it as the reader writes dates (`30.11.2026`, `2026-11-30`).
/// `relay+KEY@domain`: the relay's address with a reply key.
pub fn reply_address(key: &str, relay: &str) -> String {
    match relay.split_once('@') {
        Some((local, domain)) => format!("{local}+{key}@{domain}"),
        None => relay.to_string(),
    }
}

pub fn day(d: NaiveDate) -> Day {
    Day(d)
}

/// The local date of an instant.
pub fn local_date(at: DateTime<Utc>, tz: Tz) -> NaiveDate {
    at.with_timezone(&tz).date_naive()
}

/// An instant as a value for the templates, in local time: `{"$when": "2026-11-30T10:00"}`; the
/// render layer writes it as the reader writes dates (`30.11.2026 10:00`).
pub fn when(at: DateTime<Utc>, tz: Tz) -> When {
    When(local_minute(at, tz))
}

/// An instant in local time, to the minute.
pub fn local_minute(at: DateTime<Utc>, tz: Tz) -> NaiveDateTime {
    let local = at.with_timezone(&tz).naive_local();
    local
        .with_second(0)
        .unwrap_or(local)
        .with_nanosecond(0)
        .unwrap_or(local)
}

/// `12. Lb5` or `12... a6`.
pub fn numbered(number: u32, color: Color, text: &str) -> String {
    match color {
        Color::White => format!("{number}. {text}"),
        Color::Black => format!("{number}... {text}"),
    }
}

/// The number prefix a player writes next: `13.` or `12...`.
pub fn number_prefix(number: u32, color: Color) -> String {
    match color {
        Color::White => format!("{number}."),
        Color::Black => format!("{number}..."),
    }
}

/// The form a player is written to in: the one he used last, else his language's default (docs/rules.md).
pub fn form_for(game: &Game, color: Color, lang: Lang) -> Form {
    game.forms
        .get(color)
        .unwrap_or_else(|| Form::default_for(lang))
}

/// Ply `ply` (0-based) of the game, numbered, in `form`.
pub fn ply_text(game: &Game, ply: usize, form: Form) -> Option<String> {
    let played = game.moves.get(ply)?;
    let pos = game.position_after(ply);
    let mv = move_of(&pos, &played.uci)?;
    let color = if ply.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    Some(numbered(
        Game::number_of_ply(ply),
        color,
        &notation::write_move(&pos, &mv, form),
    ))
}

/// The legal move of a UCI text in a position.
pub fn move_of(pos: &Chess, uci: &str) -> Option<Move> {
    uci.parse::<shakmaty::uci::UciMove>()
        .ok()?
        .to_move(pos)
        .ok()
}

/// A colour as a value for the templates: `{"$colour": "white"}`; the render layer writes its
/// name in the reader's language (`Weiß`, `White`).
pub fn colour(c: Color) -> Colour {
    Colour(c)
}

/// The days the running move has cost so far (charged, TO §13 included).
pub fn running_charged(game: &Game, t: &Tournament, now: DateTime<Utc>, tz: Tz) -> u32 {
    let c = game.to_move();
    let rest = t.rest_of(game.players.get(c));
    let days = clock::days_used(t.rules, game.turn.since, now, tz, &rest);
    clock::charged(days, game.turn.announced)
}

/// The clock figures of one colour as of `now` (docs/contract.md `status --json` `clock.*`):
/// `used` includes the running move, `allowed` is the limit of the move being thought on or just made.
pub fn clock_figures(
    game: &Game,
    t: &Tournament,
    color: Color,
    now: DateTime<Utc>,
    tz: Tz,
) -> ClockFigures {
    let pc: &PlayerClock = game.clocks.get(color);
    let on_move = game.is_open() && game.to_move() == color;
    let (used, allowed) = if on_move {
        let running = running_charged(game, t, now, tz);
        (pc.used_with(running), pc.allowed(t.rules))
    } else {
        (
            pc.used_in_period,
            clock::limit(t.rules, pc.moves_in_period.max(1)),
        )
    };
    let own_moves = game
        .moves
        .iter()
        .enumerate()
        .filter(|(i, _)| (i % 2 == 0) == (color == Color::White))
        .count() as u32;
    // The control is due after the move that closes the current block of 10 moves of the period.
    let k = if on_move {
        pc.k()
    } else {
        pc.moves_in_period.max(1)
    };
    let period_first_move = own_moves + 1 - pc.moves_in_period;
    let next_control = period_first_move + k.div_ceil(10) * 10 - 1;
    ClockFigures {
        used,
        allowed,
        left: allowed.saturating_sub(used),
        next_control,
        time_forfeits: pc.forfeits,
        on_leave: on_leave(t, game.players.get(color), now, tz),
    }
}

/// Whether player `email` of `t` is on leave (TO §24) on the local day of `now`.
pub fn on_leave(t: &Tournament, email: &str, now: DateTime<Utc>, tz: Tz) -> bool {
    let today = local_date(now, tz);
    t.rest_of(email)
        .iter()
        .any(|r| r.from <= today && today <= r.to)
}

/// The facts every game mail shows ([`GameContext`]), for the reader playing `reader` (or a
/// director: `None`).
pub fn game_context(
    game: &Game,
    t: &Tournament,
    reader: Option<Color>,
    lang: Lang,
    now: DateTime<Utc>,
    tz: Tz,
) -> GameContext {
    let white = t.recipient(&game.players.white).name;
    let black = t.recipient(&game.players.black).name;
    let viewer = reader.unwrap_or(Color::White);
    let pos = game.position();
    let to_move = game.to_move();
    // The last move in the reader's notation (a director's: his language's default form).
    let form = match reader {
        Some(c) => form_for(game, c, lang),
        None => Form::default_for(lang),
    };
    let last_move = game
        .moves
        .len()
        .checked_sub(1)
        .and_then(|p| ply_text(game, p, form));
    let clock = |c: Color| clock_figures(game, t, c, now, tz);
    GameContext {
        game: game.id.to_string(),
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        round: game.round,
        white,
        black,
        director: t.director.name.clone(),
        director_email: t.director.email.clone(),
        state: game.status.name(),
        rules: t.rules.name(),
        days_per_period: t.rules.days_per_period(),
        color: reader.map(colour),
        partner: reader.map(|c| t.recipient(game.players.get(!c)).name),
        to_move: colour(to_move),
        to_move_name: t.recipient(game.players.get(to_move)).name,
        your_move: game.status == GameStatus::Running && reader == Some(to_move),
        last_move,
        next_number: number_prefix(Game::number_of_ply(game.moves.len()), to_move),
        fen: game.fen(),
        // Without its final line end: the template decides the empty line after it.
        diagram: notation::diagram(&pos, viewer, lang).trim_end().to_string(),
        board_side: match viewer {
            Color::White => "white",
            Color::Black => "black",
        },
        last_uci: game.moves.last().map(|m| m.uci.clone()),
        clock_white: clock(Color::White),
        clock_black: clock(Color::Black),
        clock_you: reader.map(clock),
        clock_partner: reader.map(|c| clock(!c)),
        now: when(now, tz),
        today: day(local_date(now, tz)),
    }
}

/// One game as the `status` report (and the player's `overview`) shows it to `reader` (his
/// colour, or `None` for a director): the position, whose move since when, both clocks.
pub fn game_report(
    g: &Game,
    t: &Tournament,
    reader: Option<Color>,
    lang: Lang,
    at: Step<'_>,
) -> GameReport {
    let (now, s) = (at.now, at.s);
    let to_move = g.to_move();
    let running = g.status == GameStatus::Running && now >= t.clock_start;
    // The reader's own notation; a director's is his language's default.
    let form = match reader {
        Some(c) => form_for(g, c, lang),
        None => crate::notation::Form::default_for(lang),
    };
    let last_move = g
        .moves
        .len()
        .checked_sub(1)
        .and_then(|p| ply_text(g, p, form));
    let clock = |c: Color| clock_figures(g, t, c, now, s.tz);
    GameReport {
        game: g.id.to_string(),
        white: t.recipient(&g.players.white).name,
        black: t.recipient(&g.players.black).name,
        color: reader.map(colour),
        partner: reader.map(|c| t.recipient(g.players.get(!c)).name),
        state: g.status.name(),
        running,
        result: g.result.map_or_else(|| "*".into(), |r| r.to_string()),
        to_move: colour(to_move),
        to_move_name: t.recipient(g.players.get(to_move)).name,
        to_move_color: color_name(to_move),
        your_move: running && reader == Some(to_move),
        next_number: number_prefix(Game::number_of_ply(g.moves.len()), to_move),
        since: when(g.turn.since.max(t.clock_start), s.tz),
        running_days: if running {
            running_charged(g, t, now, s.tz)
        } else {
            0
        },
        last_move,
        moves: g.moves.len(),
        fen: g.fen(),
        clock_white: clock(Color::White),
        clock_black: clock(Color::Black),
        clock_you: reader.map(clock),
        clock_partner: reader.map(|c| clock(!c)),
    }
}
