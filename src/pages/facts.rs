//! What each page shows, read from the store and rendered: the facts the templates get (names,
//! never addresses), and the answer.

use chrono::{DateTime, Utc};
use serde::Serialize;
use shakmaty::{Color, Position};

use super::page::{Page, PagesConfig};
use crate::core::model::{Game, GameStatus};
use crate::core::{pgn, view};
use crate::game_ref::GameRef;
use crate::http::Response;
use crate::lang::Lang;
use crate::render::words;
use crate::store::Store;
use crate::store::shelf::tournament_games as games_of;

/// The page `page` in `lang` as of `now`.
pub(super) fn build(
    store: &Store,
    env: &minijinja::Environment<'static>,
    config: &PagesConfig,
    page: Page,
    lang: Lang,
    now: DateTime<Utc>,
) -> Response {
    let built = match page {
        Page::Index => index(store, config, lang).map(|f| render(env, lang, "index.html", &f)),
        Page::Tournament(id) => tournament(store, config, &id, lang)
            .map(|f| f.map(|f| render(env, lang, "tournament.html", &f)))
            .map(|r| r.unwrap_or_else(|| not_found(lang))),
        Page::Pgn(id) => pgn_of(store, config, &id).map(|p| match p {
            Some(text) => Response::with(200, "application/x-chess-pgn; charset=utf-8", text),
            None => not_found(lang),
        }),
        Page::Game(g) => game(store, config, &g, lang, now)
            .map(|f| f.map(|f| render(env, lang, "game.html", &f)))
            .map(|r| r.unwrap_or_else(|| not_found(lang))),
        Page::Style => Ok(Response::text(404, "")),
    };
    built.unwrap_or_else(|e| Response::text(500, format!("the store could not be read: {e}\n")))
}

fn not_found(lang: Lang) -> Response {
    Response::text(404, words::page_not_found(lang))
}

fn render<F: Serialize>(
    env: &minijinja::Environment<'static>,
    lang: Lang,
    name: &str,
    facts: &F,
) -> Response {
    let rendered = env
        .get_template(&format!("{}/{name}", lang.code()))
        .and_then(|t| t.render(minijinja::value::Serde(facts)));
    match rendered {
        Ok(html) => Response::with(200, "text/html; charset=utf-8", html),
        Err(e) => Response::text(500, format!("the page could not be rendered: {e}\n")),
    }
}

/// How many plies of `g` the pages show: a running game `delay` plies behind, a finished one
/// whole.
fn shown_plies(g: &Game, delay: u32) -> usize {
    if g.status == GameStatus::Finished {
        g.moves.len()
    } else {
        g.moves.len().saturating_sub(delay as usize)
    }
}

/// Who is on move after `plies` plies from the start position.
fn on_move_after(plies: usize) -> Color {
    if plies.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    }
}

/// `g` as the pages may show it: its moves cut to [`shown_plies`].
fn as_shown(g: &Game, delay: u32) -> Game {
    let mut shown = g.clone();
    shown.moves.truncate(shown_plies(g, delay));
    shown
}

#[derive(Serialize)]
struct IndexFacts {
    relay: String,
    tournaments: Vec<TournamentLine>,
}

#[derive(Serialize)]
struct TournamentLine {
    id: String,
    name: String,
    rules: &'static str,
    start: String,
    running: usize,
    finished: usize,
    games: usize,
}

fn index(
    store: &Store,
    config: &PagesConfig,
    lang: Lang,
) -> Result<IndexFacts, crate::store::StoreError> {
    let mut all = Vec::new();
    store.for_each_tournament(|t| all.push(t))?;
    let mut tournaments = Vec::with_capacity(all.len());
    for t in all {
        let (mut running, mut finished) = (0, 0);
        if t.rotated {
            finished = t.games.len();
        } else {
            store.games_of(&t.id, |g| {
                if g.status == GameStatus::Finished {
                    finished += 1;
                } else {
                    running += 1;
                }
            })?;
        }
        tournaments.push(TournamentLine {
            id: t.id.clone(),
            name: t.name.clone(),
            rules: t.rules.name(),
            start: words::date(t.start, lang),
            running,
            finished,
            games: t.games.len(),
        });
    }
    tournaments.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(IndexFacts {
        relay: config.relay_name.clone(),
        tournaments,
    })
}

#[derive(Serialize)]
struct TournamentFacts {
    relay: String,
    id: String,
    name: String,
    rules: &'static str,
    start: String,
    director: String,
    delay: u32,
    /// Every game has ended: the table is final (TO §27; the players and the director got
    /// `tournament-end`).
    finished: bool,
    /// The crosstable's column heads: the rank numbers 1..n.
    columns: Vec<usize>,
    rows: Vec<CrossRow>,
    games: Vec<GameLine>,
}

#[derive(Serialize)]
struct CrossRow {
    rank: usize,
    /// The row's number as a column head (its place in the table).
    number: usize,
    name: String,
    points: String,
    sb: String,
    played: u32,
    open: u32,
    cells: Vec<String>,
}

#[derive(Serialize)]
struct GameLine {
    number: u32,
    path: String,
    white: String,
    black: String,
    result: String,
    /// Full moves shown (a running game under `delay_moves`: behind).
    moves: u32,
    state: &'static str,
    /// The name of the player on move, while the game runs.
    turn: Option<String>,
}

fn tournament(
    store: &Store,
    config: &PagesConfig,
    id: &str,
    lang: Lang,
) -> Result<Option<TournamentFacts>, crate::store::StoreError> {
    let Some(t) = store.tournament(id)? else {
        return Ok(None);
    };
    let games = games_of(store, &t)?;
    let table = crate::core::records::crosstable::crosstable(&t, games.iter());
    let rows = table
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| CrossRow {
            rank: r.rank,
            number: i + 1,
            name: r.name.clone(),
            points: words::crosstable::points_text(r.half_points),
            sb: words::crosstable::quarters_text(r.sb_quarters, lang),
            played: r.played,
            open: r.open,
            cells: r.cells.clone(),
        })
        .collect();
    let lines = games
        .iter()
        .map(|g| {
            let shown = shown_plies(g, config.delay_moves);
            let open = g.status != GameStatus::Finished;
            let to_move = on_move_after(shown);
            GameLine {
                number: g.id.number,
                path: g.id.page_path(),
                white: t.recipient(&g.players.white).name,
                black: t.recipient(&g.players.black).name,
                result: g.result.map_or_else(|| "*".into(), |r| r.to_string()),
                moves: shown.div_ceil(2) as u32,
                state: g.status.name(),
                turn: open.then(|| t.recipient(g.players.get(to_move)).name),
            }
        })
        .collect();
    Ok(Some(TournamentFacts {
        relay: config.relay_name.clone(),
        id: t.id.clone(),
        name: t.name.clone(),
        rules: t.rules.name(),
        start: words::date(t.start, lang),
        director: t.director.name.clone(),
        delay: config.delay_moves,
        finished: !games.is_empty() && games.iter().all(|g| g.status == GameStatus::Finished),
        columns: (1..=table.rows.len()).collect(),
        rows,
        games: lines,
    }))
}

/// The PGN of tournament `id` as `export pgn` writes it (running games cut to what the pages show).
fn pgn_of(
    store: &Store,
    config: &PagesConfig,
    id: &str,
) -> Result<Option<String>, crate::store::StoreError> {
    let Some(t) = store.tournament(id)? else {
        return Ok(None);
    };
    let mut text = String::new();
    for g in games_of(store, &t)? {
        text.push_str(&pgn::game_pgn(
            &as_shown(&g, config.delay_moves),
            &t,
            config.tz,
        ));
    }
    Ok(Some(text))
}

#[derive(Serialize)]
struct GameFacts {
    relay: String,
    tournament_id: String,
    tournament: String,
    game: String,
    number: u32,
    white: String,
    black: String,
    /// The board as in the mails (an HTML table), seen from White's side, its caption the
    /// pieces by side for a screen reader.
    board: String,
    moves: Vec<MovePair>,
    state: &'static str,
    result: String,
    /// How the game ended, in words.
    ended: Option<String>,
    /// The name of the player on move, while the game runs.
    turn: Option<String>,
    /// Both clocks as `status` counts them; not shown while a delay hides the last moves.
    clocks: Option<ClockFacts>,
    /// The plies not shown yet (`delay_moves`).
    behind: usize,
    delay: u32,
    fen: String,
}

#[derive(Serialize)]
struct MovePair {
    number: usize,
    white: String,
    black: String,
}

#[derive(Serialize)]
struct ClockFacts {
    white: ClockLine,
    black: ClockLine,
}

#[derive(Serialize)]
struct ClockLine {
    used: u32,
    allowed: u32,
    time_forfeits: u8,
    on_leave: bool,
}

fn game(
    store: &Store,
    config: &PagesConfig,
    id: &GameRef,
    lang: Lang,
    now: DateTime<Utc>,
) -> Result<Option<GameFacts>, crate::store::StoreError> {
    let Some(t) = store.tournament(&id.tournament)? else {
        return Ok(None);
    };
    if !t.games.contains(id) {
        return Ok(None);
    }
    let g = match store.game(id)? {
        Some(g) => g,
        None if t.rotated => {
            match crate::store::shelf::shelved_games(store, &t.id, std::slice::from_ref(id))?
                .into_iter()
                .next()
            {
                Some(g) => g,
                None => return Ok(None),
            }
        }
        None => return Ok(None),
    };
    let shown = shown_plies(&g, config.delay_moves);
    let position = g.position_after(shown);
    let fen =
        shakmaty::fen::Fen::from_position(&position, shakmaty::EnPassantMode::Legal).to_string();
    let last = shown
        .checked_sub(1)
        .and_then(|i| g.moves.get(i))
        .map(|m| m.uci.as_str());
    let pieces = |c: Color| crate::notation::piece_list(position.board(), c, lang);
    let caption = words::board_caption(&pieces(Color::White), &pieces(Color::Black), lang);
    let board = crate::render::board::board_web(&fen, last, &caption).unwrap_or_default();
    let sans = g.sans_plus();
    let moves = sans[..shown]
        .chunks(2)
        .enumerate()
        .map(|(i, pair)| MovePair {
            number: i + 1,
            white: pair.first().cloned().unwrap_or_default(),
            black: pair.get(1).cloned().unwrap_or_default(),
        })
        .collect();
    let open = g.status != GameStatus::Finished;
    let hidden = open && config.delay_moves > 0;
    let clock = |c: Color| {
        let f = view::clock_figures(&g, &t, c, now, config.tz);
        ClockLine {
            used: f.used,
            allowed: f.allowed,
            time_forfeits: f.time_forfeits,
            on_leave: f.on_leave,
        }
    };
    let to_move = on_move_after(shown);
    Ok(Some(GameFacts {
        relay: config.relay_name.clone(),
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        game: id.to_string(),
        number: id.number,
        white: t.recipient(&g.players.white).name,
        black: t.recipient(&g.players.black).name,
        board,
        moves,
        state: g.status.name(),
        result: g.result.map_or_else(|| "*".into(), |r| r.to_string()),
        ended: g
            .end_reason
            .filter(|_| !open)
            .map(|r| words::end_reason(r, lang).to_string()),
        turn: open.then(|| t.recipient(g.players.get(to_move)).name),
        clocks: (!hidden).then(|| ClockFacts {
            white: clock(Color::White),
            black: clock(Color::Black),
        }),
        behind: g.moves.len() - shown,
        delay: config.delay_moves,
        fen,
    }))
}
