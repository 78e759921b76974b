//! Registering a tournament: its games (Fax 1.2: round robin or explicit) and the `start` mails;
//! for a tournament registered by mail, the answer with its games; a tournament file checked
//! and not registered (`Turnier prüfen`, `fernzug tournament check`); a tournament withdrawn
//! before its first move (`Turnier zurückziehen`).
//!
//! Choices made here, once:
//! * **What may be withdrawn.** A tournament none of whose games has a move or has ended (a
//!   result the director set, a withdrawal of a player, TO §26): before that nothing of it stands
//!   in any record but its start mails. Once a move is played or a game ended, the tournament is
//!   under way and stays: a `query` says which game; the director ends games one by one
//!   (`Ergebnis: annulliert`, TO §26).
//! * **What goes with it.** Everything of its own: its games with their logs and reply keys, its
//!   deadlines, the mails about its games not yet sent and those archived (its start mails:
//!   TO §11 keeps the correspondence of games, and these games are never played). A tournament of
//!   the same id can then be registered afresh.

use chrono::{NaiveTime, TimeZone, Utc};
use shakmaty::Color;

use crate::core::NewTournament;
use crate::core::clock::PlayerClock;
use crate::core::door::owners::{Taken, file_conflicts};
use crate::core::door::reply::query;
use crate::core::model::Step;
use crate::core::model::{ByColor, Game, GameStatus, Turn, color_name};
use crate::core::model::{DirectorFacts, Recipient, Refusal, RegisterRefusal, Told};
use crate::core::model::{EndReport, Event};
use crate::core::model::{KeyBinding, Output, Person, Player, State, Tournament};
use crate::core::model::{Mail, StartFacts};
use crate::core::model::{WithdrawRefusal, state::remove_tournament};
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

#[cfg(test)]
#[path = "register_tests.rs"]
mod tests;

/// Fax 1.2: a telefax tournament is played in groups of seven. A group of another size is
/// registered, with a warning that names Fax 1.2 (`tournament add` and by mail).
pub fn fax_group_warning(rules: crate::rules::RuleSet, players: usize) -> bool {
    rules == crate::rules::RuleSet::Fax && players != FAX_GROUP
}

/// Fax 1.2: the players of a telefax group.
pub const FAX_GROUP: usize = 7;

/// Whether `file` may be registered beside what `state` holds: its id is free, and no address
/// it names is someone else's in another tournament (an address belongs to one person,
/// `crate::core::door::owners`). What a registration checks first — by mail or `tournament add`
/// — and what a check says (`Turnier prüfen`, `fernzug tournament check`).
pub fn admit(state: &State, file: &NewTournament) -> Result<(), RegisterError> {
    if state.tournaments.contains_key(&file.id) {
        return Err(RegisterError::Duplicate(file.id.clone()));
    }
    let taken = file_conflicts(state, file);
    if !taken.is_empty() {
        return Err(RegisterError::AddressTaken(taken));
    }
    Ok(())
}

/// The games `file` makes, as registering makes them (game `N` of the tournament is the
/// pairing numbered `N`, Fax 1.2): number, round, White's name, Black's name. The table a
/// registration's answer and a check show.
pub fn games_of(file: &NewTournament) -> Vec<(u32, u32, String, String)> {
    file.pairings
        .iter()
        .filter_map(|p| {
            let (w, b) = (file.players.get(p.white)?, file.players.get(p.black)?);
            Some((p.number, p.round, w.name.clone(), b.name.clone()))
        })
        .collect()
}

/// Registers a tournament from its file: creates its games (their `start` mails come from
/// [`start_mails_of`]). `new_key` supplies fresh random reply keys.
pub(crate) fn register_tournament(
    state: &mut State,
    file: &NewTournament,
    at: Step<'_>,
    new_key: &mut dyn FnMut() -> String,
) -> Result<Output, RegisterError> {
    let (now, settings) = (at.now, at.s);
    admit(state, file)?;
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
                board: p.board,
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
        end_report: EndReport::Pending,
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
    file: &NewTournament,
    lang: crate::lang::Lang,
    at: Step<'_>,
) -> Option<Mail> {
    let (now, s) = (at.now, at.s);
    let t = state.tournaments.get(&file.id)?;
    let told = Told::Registered {
        tournament: t.id.clone(),
        name: t.name.clone(),
        start: t.start,
        players: t.players.len(),
        games: games_of(file),
        fax_group: fax_group_warning(t.rules, t.players.len()),
    };
    let sender = sender_of(letter);
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

/// The sender of `letter` as the relay writes back to him: the name his mail gives, else his
/// address.
fn sender_of(letter: &crate::letter::Letter) -> Recipient {
    Recipient {
        name: letter
            .from_name
            .clone()
            .unwrap_or_else(|| letter.from.clone()),
        email: letter.from.clone(),
    }
}

/// The answer to `Turnier prüfen` / `check tournament` from a director (the router let him in):
/// the `director` notice with the games the file would make, or what keeps it from being
/// registered (`checked`: the shell's check of the file and the core's, as a registration makes
/// them). To the sender alone; nothing is registered.
pub(crate) fn checked_mail(
    state: &mut State,
    letter: &crate::letter::Letter,
    checked: Result<&NewTournament, RegisterRefusal>,
    lang: crate::lang::Lang,
    at: Step<'_>,
) -> Mail {
    let (now, s) = (at.now, at.s);
    let sender = sender_of(letter);
    let (told, id, name, director) = match checked {
        Ok(file) => (
            Told::Checked {
                tournament: file.id.clone(),
                name: file.name.clone(),
                start: file.start,
                players: file.players.len(),
                games: games_of(file),
                fax_group: fax_group_warning(file.rules, file.players.len()),
            },
            file.id.clone(),
            file.name.clone(),
            file.director.name.clone(),
        ),
        Err(r) => {
            let id = match &r {
                RegisterRefusal::Duplicate { id } => id.clone(),
                _ => String::new(),
            };
            let director = sender.name.clone();
            (Told::CheckFailed(r), id, String::new(), director)
        }
    };
    let data = DirectorFacts {
        recipient: sender.name.clone(),
        director,
        tournament_id: id,
        tournament: name,
        game: None,
        reason: None,
        for_director: true,
        now: view::when(now, s.tz),
        form: "checked",
        verified: None,
    };
    let message_id = state.meta.next_message_id(s, "director");
    Mail {
        in_reply_to: Some(letter.message_id.clone()),
        ..Mail::notice(told, vec![sender], lang, message_id, data)
    }
}

/// `Turnier zurückziehen: ID` / `withdraw tournament: ID` from the tournament's director or an
/// address in `[relay] directors` (the router checked who may, and the reply key): a tournament
/// none of whose games has a move or has ended is withdrawn (the module's choices) — every
/// player gets a `director` notice in his language, the sender the confirmation (the
/// tournament's director in copy when someone else sent it), and the tournament leaves the state
/// ([`Output::withdrawn`]: the shell removes it from the store in the same step). Else one
/// `query` saying why; nothing changes.
pub(crate) fn withdraw_tournament(
    state: &mut State,
    out: &mut Output,
    letter: &crate::letter::Letter,
    id: &str,
    lang: crate::lang::Lang,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let Some(t) = state.tournaments.get(id) else {
        let r = WithdrawRefusal::Unknown {
            tournament: id.to_string(),
        };
        out.log.push(format!(
            "tournament {id:?} not withdrawn for {}: there is none",
            letter.from
        ));
        query(state, out, letter, None, lang, Refusal::Withdraw(r), at);
        return;
    };
    if let Some(r) = begun(state, t) {
        out.log.push(format!(
            "tournament {id} not withdrawn for {}: {r:?}",
            letter.from
        ));
        query(state, out, letter, None, lang, Refusal::Withdraw(r), at);
        return;
    }
    let Some(t) = remove_tournament(state, id) else {
        return;
    };
    let told = Told::TournamentWithdrawn {
        tournament: t.id.clone(),
        name: t.name.clone(),
        players: t.players.len(),
        games: t.games.len(),
    };
    let facts = |recipient: &str, for_director: bool, form: &'static str| DirectorFacts {
        recipient: recipient.to_string(),
        director: t.director.name.clone(),
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        game: None,
        reason: None,
        for_director,
        now: view::when(now, s.tz),
        form,
        verified: None,
    };
    for p in &t.players {
        // Where his mail goes now (the tournament that says so is gone when the step ends).
        let to = Recipient {
            name: p.name.clone(),
            email: p.send_to.clone().unwrap_or_else(|| p.email.clone()),
        };
        let plang = p.lang.unwrap_or(s.default_lang);
        let message_id = state.meta.next_message_id(s, "director");
        let data = facts(&p.name, false, "decision");
        out.mails.push(Mail::notice(
            told.clone(),
            vec![to],
            plang,
            message_id,
            data,
        ));
    }
    let sender = sender_of(letter);
    let cc = if t.director.email == letter.from {
        Vec::new()
    } else {
        vec![t.director_recipient()]
    };
    let message_id = state.meta.next_message_id(s, "director");
    let data = facts(&sender.name, true, "withdrawn");
    out.mails.push(Mail {
        cc,
        in_reply_to: Some(letter.message_id.clone()),
        ..Mail::notice(told, vec![sender], lang, message_id, data)
    });
    out.log.push(format!(
        "tournament {id} withdrawn before its first move by {}: {} games, {} players told",
        letter.from,
        t.games.len(),
        t.players.len()
    ));
    out.withdrawn.insert(t.id);
}

/// Why `t` can no longer be withdrawn: its first game (in order) that has a move, or has
/// ended. A game not at hand counts as under way (the router reads the tournament whole).
fn begun(state: &State, t: &Tournament) -> Option<WithdrawRefusal> {
    t.games.iter().find_map(|g| {
        let r = |moved| WithdrawRefusal::Begun {
            tournament: t.id.clone(),
            game: g.to_string(),
            moved,
        };
        match state.games.get(g) {
            None => Some(r(false)),
            Some(game) if !game.moves.is_empty() => Some(r(true)),
            Some(game) if game.status == GameStatus::Finished || game.result.is_some() => {
                Some(r(false))
            }
            Some(_) => None,
        }
    })
}
