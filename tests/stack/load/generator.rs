//! A store generator for the scale measurements (issue 13, P4): tournaments of eleven players
//! (55 games each, the Berger round robin of `tournament add`), registered through the core as
//! `tournament add` registers them, and played out with random legal moves whose times, clocks and
//! event log are what the relay would have written: each move a `moved` event, each finished game
//! a result, an end reason, an `ended` time and its `ended` event.
//!
//! - Running tournaments: every game running, 8–60 plies played, the last move between one hour
//!   and nine days before `now` (so no deadline is overdue when the measurement starts; some
//!   reminders fall due in the days after).
//! - Finished tournaments: every game over (20–90 plies, a result), ended more than four weeks
//!   before `now`, the archive rotated away (Fax 2.8) — the store of a federation after a few
//!   years; their games and keys on the shelf (`src/app/shelf.rs`), where the relay puts them.
//!
//! Not generated: the archived mails of the moves (the hot path only appends to the archive; the
//! start mails' and moves' mails of the running tournaments would be gigabytes) and the outbox
//! (everything was delivered).

use std::path::Path;

use chrono::{DateTime, Duration, Utc};
use fernzug::app::App;
use fernzug::app::shelf::{self, ShelfFile};
use fernzug::core::model::{
    EndReason, Event, GameResult, GameStatus, PlayedMove, SerdeColor, Turn,
};
use fernzug::core::model::{NewPlayer, Pairing};
use fernzug::core::{NewTournament, Person, State};
use fernzug::game_ref::GameRef;
use fernzug::rules::RuleSet;
use fernzug::store::Batch;
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use shakmaty::{Chess, Color, Position};

/// Players per generated tournament (55 games each).
pub const PLAYERS: usize = 11;
/// Games per generated tournament.
pub const GAMES_PER_TOURNAMENT: usize = PLAYERS * (PLAYERS - 1) / 2;

/// One running game of the generated store, as a player would see it.
#[derive(Debug, Clone)]
pub struct RunningGame {
    /// `GEN…/N`.
    pub game: String,
    /// The address of the player on move.
    pub mover: String,
    /// His reply key: his mails to `relay+KEY@…` name the game.
    pub key: String,
    /// The partner's address (who gets the forward).
    pub partner: String,
    /// The number of the move he is to make (`12` for `12. …` or `12... …`).
    pub move_number: u32,
    /// Whose move: White or Black.
    pub white_to_move: bool,
    /// A legal move for him in SAN with English letters (`Nf3`).
    pub san: String,
}

impl RunningGame {
    /// The move as a player writes it: `12. Nf3` or `12... Nf3`.
    pub fn move_text(&self) -> String {
        if self.white_to_move {
            format!("{}. {}", self.move_number, self.san)
        } else {
            format!("{}... {}", self.move_number, self.san)
        }
    }
}

/// What [`generate`] wrote.
#[derive(Debug, Default)]
pub struct Generated {
    pub running: Vec<RunningGame>,
    pub finished_games: usize,
    pub tournaments: usize,
}

/// Fills the store of the relay configured at `config` (its `data_dir`) with about
/// `running_games` running and `finished_games` finished games (rounded up to whole tournaments
/// of [`GAMES_PER_TOURNAMENT`]), reproducibly from `seed`, as of the current time. The relay's
/// address domain is used for the players' addresses, so forwards land in mailboxes of the stack.
pub fn generate(
    config: &Path,
    running_games: usize,
    finished_games: usize,
    seed: u64,
) -> Generated {
    generate_at(config, running_games, finished_games, seed, Utc::now())
}

/// [`generate`] as of `now`.
pub fn generate_at(
    config: &Path,
    running_games: usize,
    finished_games: usize,
    seed: u64,
    now: DateTime<Utc>,
) -> Generated {
    let config = fernzug::config::load(config).expect("the relay's config");
    let domain = config
        .relay
        .address
        .rsplit_once('@')
        .map(|(_, d)| d.to_string())
        .expect("relay address with a domain");
    let app = App::open(config.clone()).expect("the relay's store");
    let mut rng = StdRng::seed_from_u64(seed);
    let mut out = Generated::default();
    let finished_t = finished_games.div_ceil(GAMES_PER_TOURNAMENT);
    let running_t = running_games.div_ceil(GAMES_PER_TOURNAMENT);
    for i in 0..finished_t + running_t {
        let finished = i < finished_t;
        let id = format!("GEN{seed}-{}{i}", if finished { "F" } else { "R" });
        // Finished tournaments: a year or more ago, over at least five weeks ago.
        let age_days = if finished {
            rng.gen_range(400..1500)
        } else {
            rng.gen_range(200..360)
        };
        let registered = now - Duration::days(age_days);
        let file = tournament(&id, &domain, seed, registered);
        let mut state = State::default();
        let mut key_rng = StdRng::seed_from_u64(seed ^ (i as u64).wrapping_mul(0x9e37_79b9));
        let mut fresh_key = || {
            let bytes: [u8; 16] = key_rng.r#gen();
            bytes.iter().map(|b| format!("{b:02x}")).collect::<String>()
        };
        let registered_out = state
            .register(&file, registered, &app.settings, &mut fresh_key)
            .expect("a generated tournament registers");
        let mut batch = Batch::default();
        // A rotated tournament's games and their logs wait in its shelf file (src/app/shelf.rs).
        let mut shelf = finished.then(|| ShelfFile {
            tournament: id.clone(),
            ..ShelfFile::default()
        });
        for e in &registered_out.events {
            log_event(
                &mut batch,
                &mut shelf,
                &e.game.to_string(),
                e.seq,
                &e.stored(),
            );
        }
        let refs: Vec<GameRef> = state.tournaments[&id].games.clone();
        for r in &refs {
            let game = state.games.get_mut(r).expect("registered game");
            game.status = GameStatus::Running;
            let plies = if finished {
                rng.gen_range(20..=90)
            } else {
                rng.gen_range(8..=60)
            };
            // The game's moves spread from its start to its end (finished: ended ≥ 5 weeks ago)
            // or to a last move between one hour and nine days ago (running).
            let end = if finished {
                now - Duration::days(rng.gen_range(35..age_days.max(36)))
            } else {
                now - Duration::minutes(rng.gen_range(60..9 * 24 * 60))
            };
            let start = registered + Duration::days(1);
            // The moves first, then their times: a running game whose random play would have run
            // into a finished position stops earlier, and its last move must still be recent (a
            // store as the relay leaves it has no deadline overdue).
            let mut pos = Chess::default();
            let mut chosen = Vec::new();
            for _ in 0..plies {
                let legal = pos.legal_moves();
                let Some(m) = legal.choose(&mut rng).cloned() else {
                    break;
                };
                let next_pos = pos.clone().play(m).expect("a legal move");
                // A running game must stay playable: never play into a finished position.
                if !finished && next_pos.is_game_over() {
                    break;
                }
                chosen.push((pos, m));
                pos = next_pos;
            }
            let played = chosen.len();
            let span = (end - start).num_minutes().max(played as i64);
            let mut last = start;
            for (n, (before, m)) in chosen.into_iter().enumerate() {
                let at = start + Duration::minutes(span * (n as i64 + 1) / played as i64);
                let days = u32::try_from((at - last).num_days()).unwrap_or(0);
                let color = before.turn();
                let san = shakmaty::san::San::from_move(&before, m).to_string();
                let uci = m.to_uci(shakmaty::CastlingMode::Standard).to_string();
                let message_id = format!("<gen-{id}-{}-{n}@{domain}>", r.number);
                game.moves.push(PlayedMove {
                    uci: uci.clone(),
                    san: san.clone(),
                    received: last,
                    sent: at,
                    days_used: days,
                    charged: days,
                    message_id: message_id.clone(),
                });
                let clock = game.clocks.get_mut(color);
                clock.moves_in_period = (clock.moves_in_period + 1) % 10;
                clock.used_in_period = if clock.moves_in_period == 0 {
                    0
                } else {
                    clock.used_in_period + days.min(2)
                };
                let (seq, stored) = sealed(
                    game,
                    Event::Moved {
                        at,
                        color: SerdeColor::from(color),
                        san,
                        uci,
                        days_used: days,
                        charged: days,
                        message_id: message_id.clone(),
                    },
                );
                log_event(&mut batch, &mut shelf, &r.to_string(), seq, &stored);
                game.last_forward = Some(message_id);
                last = at;
            }
            game.turn = Turn::new(last);
            if finished {
                let result = match rng.gen_range(0..3) {
                    0 => GameResult::WhiteWins,
                    1 => GameResult::BlackWins,
                    _ => GameResult::Draw,
                };
                game.status = GameStatus::Finished;
                game.end_reason = Some(match result {
                    GameResult::Draw => EndReason::DrawAgreed,
                    _ => EndReason::Resignation,
                });
                game.result = Some(result);
                game.ended_at = Some(last);
                let ended = Event::Ended {
                    at: last,
                    result,
                    reason: game.end_reason.expect("set above"),
                };
                let (seq, stored) = sealed(game, ended);
                log_event(&mut batch, &mut shelf, &r.to_string(), seq, &stored);
                out.finished_games += 1;
            } else {
                let to_move = pos.turn();
                let legal = pos.legal_moves();
                let m = legal.choose(&mut rng).expect("a running game has a move");
                let mover = game.players.get(to_move).clone();
                out.running.push(RunningGame {
                    game: r.to_string(),
                    partner: game.players.get(!to_move).clone(),
                    key: game.keys.get(to_move).clone(),
                    mover,
                    move_number: u32::try_from(played / 2 + 1).expect("a short game"),
                    white_to_move: to_move == Color::White,
                    san: shakmaty::san::San::from_move(&pos, *m).to_string(),
                });
            }
            match &mut shelf {
                Some(file) => file.games.push(game.clone()),
                None => {
                    batch.put_game(game, false);
                }
            }
        }
        if let Some(file) = &shelf {
            let dir = shelf::dir(&app.store);
            let t = &state.tournaments[&id];
            shelf::write_rows(&dir, t, &file.games).expect("write a shelf's rows");
            shelf::write(&dir, file).expect("write a shelf file");
        }
        let t = state.tournaments.get_mut(&id).expect("registered");
        t.rotated = finished;
        batch.put_tournament(t);
        for (k, b) in state.keys.iter() {
            if finished {
                batch.put_shelved_key(k, b);
            } else {
                batch.bind_key(k, &b.game.to_string(), b);
            }
        }
        app.store
            .commit(batch)
            .expect("commit a generated tournament");
        out.tournaments += 1;
    }
    // The relay writes its index of deadlines (src/app/due.rs) with every step; a store that
    // has none yet gets it at its first start: done here, as the relay would have done long ago.
    drop(app);
    drop(App::reopen(config, None).expect("the generated store indexed"));
    out
}

/// `event` appended to `game`'s log as the relay does it (`Game::log`): its number and the JSON
/// the store keeps.
fn sealed(game: &mut fernzug::core::model::Game, event: Event) -> (u64, serde_json::Value) {
    let logged = game.log(None, event);
    (logged.seq, logged.stored())
}

/// Event `seq` of `game`: into the store's log, or the shelf file's for a rotated tournament.
fn log_event(
    batch: &mut Batch,
    shelf: &mut Option<ShelfFile>,
    game: &str,
    seq: u64,
    event: &serde_json::Value,
) {
    match shelf {
        Some(file) => file
            .events
            .entry(game.to_string())
            .or_default()
            .push((seq, event.clone())),
        None => {
            batch.append_event(game, seq, event);
        }
    }
}

fn tournament(id: &str, domain: &str, seed: u64, registered: DateTime<Utc>) -> NewTournament {
    let players: Vec<NewPlayer> = (0..PLAYERS)
        .map(|p| NewPlayer {
            name: format!("Spieler {p} {id}"),
            email: format!("gen{seed}-{}-p{p}@{domain}", id.to_lowercase()),
            language: None,
            also: Vec::new(),
            board: None,
        })
        .collect();
    let pairings = (1u32..)
        .zip(fernzug::tournament_file::berger(PLAYERS))
        .flat_map(|(round, games)| games.into_iter().map(move |g| (round, g)))
        .zip(1u32..)
        .map(|((round, (white, black)), number)| Pairing {
            number,
            round,
            white,
            black,
        })
        .collect();
    NewTournament {
        id: id.to_string(),
        name: format!("Generiertes Turnier {id}"),
        rules: RuleSet::Fax,
        start: registered.date_naive(),
        director: Person {
            name: "Generierte Turnierleitung".to_string(),
            email: format!("gen{seed}-tl@{domain}"),
        },
        players,
        pairings,
        digest: false,
    }
}
