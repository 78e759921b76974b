//! A tournament registered in parts: the games, their reply keys and events are written a few
//! hundred games per transaction, and the tournament itself comes last. A database transaction
//! holds everything it writes in memory until it ends, and a 10,000-game tournament in one
//! transaction cost hundreds of megabytes; in parts, `tournament add` stays small.
//!
//! Until the last part, a note in the store (`Batch::registering`) marks the parts as not
//! counting: should the registration stop in between, the next opening of the store removes them
//! (`Store::abandon_registrations`), and the tournament can simply be added again.

use std::collections::BTreeMap;
use std::path::Path;

use chrono::{DateTime, Utc};

use super::{App, AppError, Processed, new_key};
use crate::config::Config;
use crate::core::NewTournament;
use crate::core::model::RegisterRefusal;
use crate::core::{KeyBinding, Output};
use crate::game_ref::GameRef;
use crate::letter::{Enrolment, Letter};
use crate::store::{Batch, PendingStarts};

/// Games written per transaction of a registration.
pub const REGISTER_CHUNK: usize = 500;

impl App {
    /// Writes what [`crate::core::State::register_without_mails`] decided (`out`, with the games
    /// and keys in the state) in parts of `chunk` games ([`REGISTER_CHUNK`]); the last transaction
    /// adds the tournament, the index of its deadlines and the note of its start mails still to
    /// queue.
    pub(crate) fn write_registration(
        &mut self,
        id: &str,
        out: &Output,
        now: DateTime<Utc>,
        chunk: usize,
        last_too: Batch,
    ) -> Result<(), AppError> {
        let mut keys_of: BTreeMap<&GameRef, Vec<(&String, &KeyBinding)>> = BTreeMap::new();
        for k in &out.keys {
            if let Some(b) = self.state.keys.get(k) {
                keys_of.entry(&b.game).or_default().push((k, b));
            }
        }
        let mut events_of: BTreeMap<&GameRef, Vec<(u64, serde_json::Value)>> = BTreeMap::new();
        for e in &out.events {
            events_of
                .entry(&e.game)
                .or_default()
                .push((e.seq, e.stored()));
        }
        let games: Vec<&GameRef> = out.games.iter().collect();
        for (i, part) in games.chunks(chunk.max(1)).enumerate() {
            let mut batch = Batch::default();
            if i == 0 {
                batch.registering(id, Some(now));
            }
            for g in part {
                let name = g.to_string();
                if let Some(game) = self.state.games.get(*g) {
                    batch.put_game(game, false);
                }
                for (k, b) in keys_of.remove(*g).unwrap_or_default() {
                    batch.bind_key(k, &name, b);
                }
                for (seq, e) in events_of.remove(*g).unwrap_or_default() {
                    batch.append_event(&name, seq, &e);
                }
            }
            // Made durable with the last part (a crash keeps a prefix of the transactions).
            self.store.apply(batch)?;
            crate::crash::point(crate::crash::BETWEEN_REGISTER_PARTS);
        }
        // What else the step commits (the letter that asked for it, marked done) goes with the
        // last part.
        let mut batch = last_too;
        // Keys and events of no game of the tournament (none today) go with the last part.
        for (k, b) in keys_of.into_values().flatten() {
            batch.bind_key(k, &b.game.to_string(), b);
        }
        for (g, events) in events_of {
            for (seq, e) in events {
                batch.append_event(&g.to_string(), seq, &e);
            }
        }
        batch.registering(id, None);
        batch.pending_starts(id, Some(&PendingStarts { at: now, next: 0 }));
        // Every new game's deadline into the index; the tournament (and anything else decided
        // but the games, keys and events written above) staged as any step.
        self.working.due.update(&self.state, &self.settings, out);
        let last = Output {
            tournaments: out.tournaments.clone(),
            mails: out.mails.clone(),
            log: out.log.clone(),
            ..Output::default()
        };
        super::stage::stage(self, &mut batch, &last, now)?;
        self.store.commit(batch)?;
        Ok(())
    }
}

impl App {
    /// A tournament file sent by mail (`crate::letter::enrol`): checked as `tournament add` checks
    /// a file, decided by the core (`State::handle_registration`) and, when registered, written
    /// in parts with the letter marked done in the last one; its start mails are queued at once
    /// (they go out with the pass). `batch` holds what the deadlines up to then did.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn process_registration(
        &mut self,
        letter: &Letter,
        raw: &[u8],
        (postmark, now): (DateTime<Utc>, DateTime<Utc>),
        uid: Option<(u32, u32)>,
        mut batch: Batch,
        mut log: Vec<String>,
        enrolment: &Enrolment,
    ) -> Result<Processed, AppError> {
        let checked = checked_file(enrolment);
        let mut key = new_key;
        let out = self
            .state
            .handle_registration(letter, checked, now, &self.settings, &mut key);
        // The letter goes with what it decided; filed under no game (it made all of them).
        let mut marks = Batch::default();
        super::step::letter_done(&mut marks, (letter, raw), (postmark, now), uid, &out);
        let registered = out
            .tournaments
            .iter()
            .next()
            .filter(|_| !out.games.is_empty())
            .cloned();
        match registered {
            Some(id) => {
                batch.append(marks);
                if let Err(e) = self.write_registration(&id, &out, now, REGISTER_CHUNK, batch) {
                    let _ = self.store.abandon_registrations();
                    self.reload()?;
                    return Err(e);
                }
                log.extend(out.log.iter().cloned());
                log.extend(self.queue_starts()?);
            }
            None => {
                let mut answer = Batch::default();
                if let Err(e) = super::stage::stage(self, &mut answer, &out, now) {
                    self.reload()?;
                    return Err(e);
                }
                batch.append(answer);
                batch.append(marks);
                if let Err(e) = super::stage::commit(self, batch) {
                    self.reload()?;
                    return Err(e.into());
                }
                log.extend(out.log.iter().cloned());
            }
        }
        Ok(match out.quarantine {
            Some(reason) => Processed::Quarantined(reason),
            None => Processed::Done {
                log,
                refused: out.refused.clone(),
            },
        })
    }
}

/// The shell's check of a tournament file sent by mail, as `tournament add` checks a file, with
/// every error located.
fn checked_file(e: &Enrolment) -> Result<NewTournament, RegisterRefusal> {
    match e {
        Enrolment::Text { name, text } => {
            crate::tournament_file::check(text).map_err(|errors| RegisterRefusal::File {
                name: name.clone(),
                errors,
            })
        }
        Enrolment::Missing => Err(RegisterRefusal::Missing),
        Enrolment::Several(names) => Err(RegisterRefusal::Several(names.clone())),
        Enrolment::TooLarge { name, bytes } => Err(RegisterRefusal::TooLarge {
            name: name.clone(),
            bytes: *bytes,
        }),
        Enrolment::NotText { name } => Err(RegisterRefusal::NotText { name: name.clone() }),
    }
}

/// `fernzug tournament check FILE`: the tournament file at `file` checked as `tournament add`
/// checks it — every error of the file (`crate::tournament_file`), then, when it has none,
/// whether its id is free and no address it names is someone else's in another tournament
/// (`crate::core::admit`, over the tournaments of the store when there is one: opened as `status`
/// opens it, nothing written; with no store yet, none is made) — and the games it would make, as
/// registering makes them (`crate::core::games_of`). `Ok`: the lines to show, a headline and
/// the table of games (English, as the command line speaks); `Err`: every error, a line each.
/// Nothing is registered.
pub fn check_tournament_file(config: Config, file: &Path) -> Result<Vec<String>, Vec<String>> {
    let lines = |e: &dyn std::fmt::Display| -> Vec<String> {
        e.to_string().lines().map(str::to_string).collect()
    };
    let tf = crate::tournament_file::load(file).map_err(|e| lines(&e))?;
    let store = config.relay.data_dir.join("store");
    if store.join(crate::store::FILE).exists() || crate::store::Store::kept_by_sled(&store) {
        let app = App::open_lazy(config).map_err(|e| lines(&e))?;
        crate::core::admit(&app.state, &tf).map_err(|e| {
            vec![match e {
                crate::core::RegisterError::Duplicate(_) => {
                    format!("{}: key `id`: {e}", file.display())
                }
                e => format!("{}: {e}", file.display()),
            }]
        })?;
    }
    let games = crate::core::games_of(&tf);
    let mut out = vec![format!(
        "{}: tournament {} (\"{}\"): {} players, {} games, starting {}; the file holds, nothing was registered",
        file.display(),
        tf.id,
        tf.name,
        tf.players.len(),
        games.len(),
        tf.start
    )];
    let table = crate::render::words::games_table(&tf.id, &games, crate::lang::Lang::En, None);
    out.extend(table.lines().filter(|l| !l.is_empty()).map(str::to_string));
    if crate::core::fax_group_warning(tf.rules, tf.players.len()) {
        out.push(format!(
            "warning: {}: telefax tournaments are played in groups of {} players (Fax 1.2); this one has {}",
            file.display(),
            crate::core::FAX_GROUP,
            tf.players.len()
        ));
    }
    Ok(out)
}
