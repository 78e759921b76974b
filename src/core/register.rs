//! Registering a tournament: its games (Fax 1.2: round robin or explicit) and the `start` mails;
//! for a tournament registered by mail, the answer with its games.

use chrono::{NaiveTime, TimeZone, Utc};
use shakmaty::Color;

use crate::core::NewTournament;
use crate::core::clock::PlayerClock;
use crate::core::door::owners::{Taken, file_conflicts};
use crate::core::model::Event;
use crate::core::model::Step;
use crate::core::model::{ByColor, Game, GameStatus, Turn, color_name};
use crate::core::model::{DirectorFacts, Recipient, Told};
use crate::core::model::{KeyBinding, Output, Person, Player, State, Tournament};
use crate::core::model::{Mail, StartFacts};
use crate::core::view;
use crate::game_ref::GameRef;
use crate::mail_kind::MailKind;

/// Why a tournament cannot be registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegisterError {
    #[error("a tournament with id `{0}` is already registered")]
    Duplicate(String),
    /// The file names addresses another tournament gives to someone else (an address belongs
    /// to one person: `crate::core::door::owners`).
    #[error("{}", taken_text(.0))]
    AddressTaken(Vec<Taken>),
}

/// The addresses taken, as one line: `anna@… is someone else's in tournament T (…)`.
fn taken_text(taken: &[Taken]) -> String {
    let each: Vec<String> = taken
        .iter()
        .map(|t| {
            format!(
                "{} belongs to someone else in tournament {} ({})",
                t.address,
                t.tournament,
                if t.owner == t.address {
                    "that person's own address".to_string()
                } else {
                    format!("another address of {}", t.owner)
                }
            )
        })
        .collect();
    format!(
        "not registered: an address belongs to one person, and {}",
        each.join("; ")
    )
}

/// Fax 1.2: a telefax tournament is played in groups of seven. A group of another size is
/// registered, with a warning that names Fax 1.2 (`tournament add` and by mail).
pub fn fax_group_warning(rules: crate::rules::RuleSet, players: usize) -> bool {
    rules == crate::rules::RuleSet::Fax && players != FAX_GROUP
}

/// Fax 1.2: the players of a telefax group.
pub const FAX_GROUP: usize = 7;

/// Registers a tournament from its file: creates its games (their `start` mails come from
/// [`start_mails_of`]). `new_key` supplies fresh random reply keys.
pub(crate) fn register_tournament(
    state: &mut State,
    file: &NewTournament,
    at: Step<'_>,
    new_key: &mut dyn FnMut() -> String,
) -> Result<Output, RegisterError> {
    let (now, settings) = (at.now, at.s);
    if state.tournaments.contains_key(&file.id) {
        return Err(RegisterError::Duplicate(file.id.clone()));
    }
    let taken = file_conflicts(state, file);
    if !taken.is_empty() {
        return Err(RegisterError::AddressTaken(taken));
    }
    let mut out = Output::default();
    // docs/contract.md: clocks of the first moves start at 00:00 of `start`, or at registration if later.
    let midnight = settings
        .tz
        .from_local_datetime(&file.start.and_time(NaiveTime::MIN))
        .earliest()
        .map(|d| d.with_timezone(&Utc))
        .unwrap_or(now);
    let clock_start = midnight.max(now);
    let mut t = Tournament {
        id: file.id.clone(),
        name: file.name.clone(),
        rules: file.rules,
        start: file.start,
        clock_start,
        registered: now,
        director: Person {
            name: file.director.name.clone(),
            email: file.director.email.to_lowercase(),
        },
        players: file
            .players
            .iter()
            .map(|p| Player {
                name: p.name.clone(),
                email: p.email.to_lowercase(),
                lang: p.language,
                also: p.also.iter().map(|a| a.to_lowercase()).collect(),
                send_to: None,
                leaves: Vec::new(),
                special_leaves: Vec::new(),
            })
            .collect(),
        digest: file.digest,
        rotated: false,
        rotated_at: None,
        questions: Vec::new(),
        games: Vec::new(),
    };
    let status = if clock_start > now {
        GameStatus::WaitingStart
    } else {
        GameStatus::Running
    };
    for p in &file.pairings {
        let (Some(w), Some(b)) = (t.players.get(p.white), t.players.get(p.black)) else {
            continue;
        };
        let id = GameRef::new(file.id.clone(), p.number);
        let keys = ByColor {
            white: new_key(),
            black: new_key(),
        };
        let game = Game {
            id: id.clone(),
            round: p.round,
            players: ByColor {
                white: w.email.clone(),
                black: b.email.clone(),
            },
            keys: keys.clone(),
            status,
            moves: Vec::new(),
            clocks: ByColor {
                white: PlayerClock::default(),
                black: PlayerClock::default(),
            },
            turn: Turn::new(clock_start),
            forms: ByColor::default(),
            draw_offer: None,
            result: None,
            end_reason: None,
            ended_at: None,
            announced_next: ByColor::default(),
            last_forward: None,
            events: 0,
            seal: String::new(),
            conditional: Vec::new(),
            moves_only: false,
            through_director: false,
            messages: Vec::new(),
            decision: None,
            replayed: Default::default(),
        };
        for (c, key) in [(Color::White, &keys.white), (Color::Black, &keys.black)] {
            state.keys.insert(
                key.clone(),
                KeyBinding {
                    game: id.clone(),
                    email: game.players.get(c).clone(),
                    to_director: false,
                },
            );
            out.keys.push(key.clone());
        }
        // The director's own reply key for this game: his answers name the game.
        let director_key = new_key();
        state.keys.insert(
            director_key.clone(),
            KeyBinding {
                game: id.clone(),
                email: t.director.email.clone(),
                to_director: false,
            },
        );
        out.keys.push(director_key);
        t.games.push(id.clone());
        state.games.insert(id.clone(), game);
        state.log_event(&mut out, &id, Event::Started { at: now });
    }
    // Each player's key of his replies to decisions about the game (TO §18, §29), which go to
    // the director: made after every game's own keys.
    for id in &t.games {
        let Some(game) = state.games.get(id) else {
            continue;
        };
        for email in [game.players.white.clone(), game.players.black.clone()] {
            let key = new_key();
            state.keys.insert(
                key.clone(),
                KeyBinding {
                    game: id.clone(),
                    email,
                    to_director: true,
                },
            );
            out.keys.push(key);
        }
    }
    state.add_tournament(t);
    out.tournaments.insert(file.id.clone());
    out.log.push(format!(
        "tournament {} registered: {} games, clocks start {}",
        file.id,
        state.tournaments[&file.id].games.len(),
        clock_start
    ));
    Ok(out)
}

/// The `start` mails of the registered games `ids`, one per player (White's asks for the
/// first move).
pub(crate) fn start_mails_of(state: &mut State, ids: &[GameRef], at: Step<'_>) -> Output {
    let mut out = Output::default();
    for id in ids {
        for c in [Color::White, Color::Black] {
            if let Some(m) = start_mail(state, id, c, at) {
                out.mails.push(m);
            }
        }
    }
    out
}

fn start_mail(state: &mut State, id: &GameRef, c: Color, at: Step<'_>) -> Option<Mail> {
    let (now, settings) = (at.now, at.s);
    let game = state.games.get(id)?;
    let t = state.tournaments.get(&id.tournament)?;
    let email = game.players.get(c).clone();
    let lang = t.lang_of(&email, settings.default_lang);
    let data = StartFacts {
        context: view::game_context(game, t, Some(c), lang, now, settings.tz),
        recipient: t.recipient(&email).name,
        white_first: c == Color::White,
        clock_start: view::when(t.clock_start, settings.tz),
        first_allowed: t.rules.days_per_period(),
        through_key: settings.guard.require_reply_key,
    };
    let to = vec![t.recipient(&email)];
    let key = game.keys.get(c).clone();
    let fen = game.fen();
    let message_id = state.meta.next_message_id(settings, "start");
    Some(Mail {
        game: Some(id.clone()),
        reply_key: Some(key),
        color: Some(color_name(c).to_string()),
        fen: Some(fen),
        ..Mail::new(MailKind::Start, to, lang, message_id, data)
    })
}

/// The answer to a tournament registered by mail: the `director` notice with its games, to the
/// sender and, when another, to the file's director.
pub(crate) fn registered_mail(
    state: &mut State,
    letter: &crate::letter::Letter,
    tid: &str,
    lang: crate::lang::Lang,
    at: Step<'_>,
) -> Option<Mail> {
    let (now, s) = (at.now, at.s);
    let t = state.tournaments.get(tid)?;
    let games = t
        .games
        .iter()
        .filter_map(|g| state.games.get(g))
        .map(|g| {
            (
                g.id.number,
                g.round,
                t.recipient(&g.players.white).name,
                t.recipient(&g.players.black).name,
            )
        })
        .collect();
    let told = Told::Registered {
        tournament: t.id.clone(),
        name: t.name.clone(),
        start: t.start,
        players: t.players.len(),
        games,
        fax_group: fax_group_warning(t.rules, t.players.len()),
    };
    let sender = Recipient {
        name: letter
            .from_name
            .clone()
            .unwrap_or_else(|| letter.from.clone()),
        email: letter.from.clone(),
    };
    let mut cc = Vec::new();
    if t.director.email != letter.from {
        cc.push(t.director_recipient());
    }
    let data = DirectorFacts {
        recipient: sender.name.clone(),
        director: t.director.name.clone(),
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        game: None,
        reason: None,
        for_director: true,
        now: view::when(now, s.tz),
        form: "registered",
        verified: None,
    };
    let message_id = state.meta.next_message_id(s, "director");
    Some(Mail {
        cc,
        in_reply_to: Some(letter.message_id.clone()),
        ..Mail::notice(told, vec![sender], lang, message_id, data)
    })
}
