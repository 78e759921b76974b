//! The shell around the core: it loads the state from the store, hands the core one input at a
//! time with its `now`, renders what the core decided, and commits each step in one store
//! transaction (state, events, outbox, archive, the mail marked processed) before anything is
//! acknowledged to IMAP. Delivery of the outbox and the IMAP loop live in `crate::daemon`.

use chrono::{DateTime, Utc};
use rand::Rng;

use crate::config::Config;
use crate::core::NewTournament;
use crate::core::{Output, Settings};
use crate::game_ref::GameRef;
use crate::letter::{self, Letter, Limits};
use crate::render::{self, Templates};
use crate::store::{
    ArchiveEntry, Batch, Direction, OutboxEntry, PendingStarts, QuarantineEntry, Store,
};

pub mod backup;
mod bounces;
mod desk;
mod enrol;
mod open;
pub mod quarantine;
pub mod shelf;
mod stage;
pub mod status_row;
mod step;
pub use step::POISON_AFTER;
mod error;
mod handle;
mod passwords;
pub mod verify;
mod working;
pub mod xfcc;
pub use enrol::{REGISTER_CHUNK, check_tournament_file};
pub use error::{AppError, TimeBackwards};
pub use handle::{App, Held, LOCK_WAIT, Processed, Records, START_CHUNK, new_key, store_request};
use handle::{SPARE_KEYS, fresh_keys};
pub use working::KEEP_GAMES;
use working::{Load, Working};

impl App {
    /// Opens the store under the configured data directory and loads everything (every game
    /// but the shelved ones).
    ///
    /// The store is held by one process at a time; the daemon holds it only while it works, so a
    /// command given meanwhile waits (up to [`LOCK_WAIT`]) for it.
    pub fn open(config: Config) -> Result<App, AppError> {
        open::open_with(config, None, Load::All, true)
    }

    /// Opens the store for work without reading the games, as [`App::reopen`] does for the
    /// daemon; while the daemon holds the store, it is asked to let go ([`store_request`]).
    /// `once` and `tournament add` work this way.
    pub fn open_lazy(config: Config) -> Result<App, AppError> {
        open::open_with(config, None, Load::Lazy, true)
    }

    /// Opens the store as [`App::open_lazy`] does, for deciding what the mailbox and the clock
    /// bring (`once`): without the rotated tournaments' records either, read only when an input
    /// names one of them or one of their people (`working/`).
    pub fn open_working(config: Config) -> Result<App, AppError> {
        open::open_with(config, None, Load::Working, true)
    }

    /// Closes the store and keeps what was read from it (the daemon between two passes: other
    /// fernzug commands may use the store meanwhile) — without the games, which the next pass
    /// reads again as it needs them.
    pub fn close(mut self) -> Held {
        self.working.rest(&mut self.state);
        Held {
            generation: self.store.generation(),
            state: self.state,
            working: self.working,
            templates: self.templates,
        }
    }

    /// Opens the store for work without reading the games: the tournaments, the reply keys and
    /// the index of deadlines; each input then brings in the tournaments it needs (`working/`).
    /// `held` ([`App::close`]) is taken as it is when no other process wrote to the store since.
    /// The daemon's way (it does not ask anyone to let go of the store).
    pub fn reopen(config: Config, held: Option<Held>) -> Result<App, AppError> {
        open::open_with(config, held, Load::Working, false)
    }

    /// Opens the store with only game `id` and its tournament read (from the state's trees or
    /// the shelf): what a command about one game needs (`status GAME`, `export … GAME`), without
    /// reading every game. Nothing is decided with it.
    pub fn open_game(config: Config, id: &GameRef) -> Result<App, AppError> {
        let mut app = open::open_with(config, None, Load::Nothing, true)?;
        if let Some(t) = app.store.tournament(&id.tournament)? {
            app.state.add_tournament(t);
        }
        let game = match app.store.game(id)? {
            Some(g) => Some(g),
            None => {
                shelf::shelved_games(&app.store, &id.tournament, std::slice::from_ref(id))?.pop()
            }
        };
        if let Some(g) = game {
            app.state.games.insert(g.id.clone(), g);
        }
        app.working = Working::open(&app.store, &app.settings, Load::Nothing)?.1;
        app.working.due = working::due::DueIndex::build(&app.state, &app.settings);
        Ok(app)
    }

    /// Group commit on (`true`) or off: while on, the steps of [`App::process`] are applied to
    /// the store each in its own transaction but made durable only by [`App::sync`], which the
    /// caller runs before it acknowledges any of the mails (one fsync for many mails). Turning it
    /// off syncs.
    pub fn group(&mut self, on: bool) -> Result<(), AppError> {
        if self.grouped && !on {
            self.sync()?;
        }
        self.grouped = on;
        Ok(())
    }

    /// Makes everything applied so far durable (one commit redb writes with an fsync).
    pub fn sync(&mut self) -> Result<(), AppError> {
        Ok(self.store.sync()?)
    }

    /// After a failed step: the state as the store has it (the step wrote nothing), without
    /// the games (each input brings in what it needs).
    pub(crate) fn reload(&mut self) -> Result<(), AppError> {
        // A password issued in a step that was not written holds nowhere.
        self.xfcc_issued.clear();
        self.state = self.working.reload(&self.store)?;
        Ok(())
    }

    /// The records, for reading ([`Records`]).
    pub fn records(&self) -> Records<'_> {
        Records {
            state: &self.state,
            store: &self.store,
            settings: &self.settings,
        }
    }

    /// Drops the games from memory once more than [`KEEP_GAMES`] are held (within a long drain,
    /// between two groups of mails: they are all durable in the store then).
    pub fn rest_if_full(&mut self) {
        self.working.rest_if_full(&mut self.state);
    }

    /// Brings every game of tournament `id` into memory, as a deadline due in it would.
    #[cfg(test)]
    pub(crate) fn wake(&mut self, id: &str) -> Result<(), AppError> {
        let ids = std::collections::BTreeSet::from([id.to_string()]);
        let due = crate::core::needs::Input::Due(&ids);
        self.working.satisfy(&mut self.state, &self.store, due)
    }

    /// The index of deadlines as the store holds it, and as a reading of every game gives it.
    #[cfg(test)]
    #[allow(clippy::type_complexity)]
    pub(crate) fn due_stored_and_rebuilt(
        &self,
    ) -> (
        Vec<(crate::store::DueEntry, DateTime<Utc>)>,
        Vec<(crate::store::DueEntry, DateTime<Utc>)>,
    ) {
        let mut stored = Vec::new();
        self.store
            .due()
            .for_each(|e, at| stored.push((e, at)))
            .expect("the stored index");
        stored.sort();
        let all = working::load_state(&self.store, true).expect("every game");
        let rebuilt = working::due::DueIndex::build(&all, &self.settings);
        (stored, rebuilt.entries())
    }

    /// The earliest pending deadline of the core (from the shell's index).
    pub fn next_deadline(&self) -> Result<Option<DateTime<Utc>>, AppError> {
        Ok(self
            .working
            .due
            .earliest(&self.store, &self.state, &self.settings)?)
    }

    /// The instant to act at: `--now` if given (refused if earlier than what the relay already
    /// acted on), else `wall` (the clock the caller read: the system's, the daemon's), never
    /// earlier than the relay's latest action.
    pub fn now_at(
        &self,
        given: Option<DateTime<Utc>>,
        wall: DateTime<Utc>,
    ) -> Result<DateTime<Utc>, TimeBackwards> {
        let acted = self.state.meta.acted_until;
        match (given, acted) {
            (Some(g), Some(a)) if g < a => Err(TimeBackwards { given: g, acted: a }),
            (Some(g), _) => Ok(g),
            (None, Some(a)) => Ok(wall.max(a)),
            (None, None) => Ok(wall),
        }
    }

    /// Registers a tournament and queues its start mails.
    ///
    /// The games, their keys and events are written in parts of [`REGISTER_CHUNK`] games, the
    /// tournament last (`enrol.rs`: a registration stopped in between does not count and is removed
    /// at the next opening). The tournament is committed with a note of the start mails
    /// still to queue (`PendingStarts`); then the start mails are rendered and queued
    /// [`START_CHUNK`] games at a time, each part in its own transaction that moves the note on
    /// (memory stays small however many games the tournament has). Should the relay stop in
    /// between, the next pass of the daemon (or `once`) queues the rest ([`App::queue_starts`]).
    pub fn register(
        &mut self,
        file: &NewTournament,
        now: DateTime<Utc>,
    ) -> Result<Output, AppError> {
        let mut key = new_key;
        let mut out = self
            .state
            .register_without_mails(file, now, &self.settings, &mut key)?;
        let written =
            self.write_registration(&file.id, &out, now, REGISTER_CHUNK, Batch::default());
        if let Err(e) = written {
            // Nothing of it counts: the parts written go now (or at the next opening).
            let _ = self.store.abandon_registrations();
            self.reload()?;
            return Err(e);
        }
        out.log.extend(self.queue_starts()?);
        Ok(out)
    }

    /// Queues the start mails of registered tournaments not queued yet (see [`App::register`]).
    /// Returns the log lines.
    pub fn queue_starts(&mut self) -> Result<Vec<String>, AppError> {
        let mut log = Vec::new();
        for (id, pending) in self.store.pending_starts()? {
            let Some(t) = self.state.tournaments.get(&id) else {
                let mut batch = Batch::default();
                batch.pending_starts(&id, None);
                self.store.commit(batch)?;
                continue;
            };
            let games = t.games.clone();
            let mut next = pending.next.min(games.len());
            let mut mails = 0;
            loop {
                let end = (next + START_CHUNK).min(games.len());
                // A start mail reads its game and the tournament's own record: the games of
                // this part alone are read (a tournament of 10,000 games starts in the memory
                // of a few hundred).
                let starts = crate::core::needs::Input::Starts(&games[next..end]);
                self.working.satisfy(&mut self.state, &self.store, starts)?;
                let out = self
                    .state
                    .start_mails(&games[next..end], pending.at, &self.settings);
                mails += out.mails.len();
                let mut batch = Batch::default();
                if end == games.len() {
                    batch.pending_starts(&id, None);
                } else {
                    let moved = PendingStarts {
                        at: pending.at,
                        next: end,
                    };
                    batch.pending_starts(&id, Some(&moved));
                }
                stage::settle(self, batch, &out, pending.at)?;
                self.rest_if_full();
                crate::crash::point(crate::crash::BETWEEN_START_PARTS);
                next = end;
                if next == games.len() {
                    break;
                }
            }
            log.push(format!("tournament {id}: {mails} start mails queued"));
        }
        Ok(log)
    }

    /// Fires every deadline due by `now` and commits it.
    ///
    /// A panic in the core or in rendering undoes the step (the state is read back from the
    /// store) and is returned as [`AppError::Step`]: the deadlines stay due, and the relay goes
    /// on with its mails.
    pub fn tick(&mut self, now: DateTime<Utc>) -> Result<Output, AppError> {
        let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let out = step::fire_due(self, now)?;
            stage::settle(self, Batch::default(), &out, now)?;
            Ok(out)
        }));
        let failure = match step {
            Ok(Err(AppError::Render(e))) => e.to_string(),
            Ok(done) => return done,
            Err(panic) => step::panic_text(&panic),
        };
        self.reload()?;
        Err(AppError::Step(format!(
            "the deadlines due by {now} could not be fired: {failure}"
        )))
    }

    /// Processes one incoming mail received at `postmark` (IMAP INTERNALDATE, or `--now`): deadlines
    /// up to then first, then the letter; everything in one transaction with the mail marked done.
    ///
    /// A mail that makes processing fail — unreadable, a failure of the core (a panic) or of
    /// rendering what it decided — is quarantined with its reason (kept, marked done, logged by
    /// the caller, listed by `fernzug status`): never retried forever, never blocking the mails
    /// after it. Only a failure of the store itself (not the mail's fault) returns `Err`, and
    /// nothing of the step is written then.
    pub fn process(
        &mut self,
        raw: &[u8],
        postmark: DateTime<Utc>,
        uid: Option<(u32, u32)>,
    ) -> Result<Processed, AppError> {
        let arrival = step::Arrival {
            raw,
            postmark,
            uid,
            oversized: None,
            call: None,
            again: None,
        };
        step::process_mail(self, arrival)
    }

    /// Processes the letter `raw` a client's call stands for (XFCC's `MakeAMove`, `app/xfcc.rs`)
    /// with what the call says as its `content`: a letter from a client that shows a refusal
    /// itself (`Trace::direct`). A letter the core refuses at once (`Output::refused`) is
    /// neither archived nor spent: nothing of it is kept.
    pub(crate) fn process_call(
        &mut self,
        raw: &[u8],
        postmark: DateTime<Utc>,
        content: crate::letter::Content,
    ) -> Result<Processed, AppError> {
        let arrival = step::Arrival {
            raw,
            postmark,
            uid: None,
            oversized: None,
            call: Some(content),
            again: None,
        };
        step::process_mail(self, arrival)
    }

    /// Processes a mail larger than `[limits] max_mail_bytes` of which only `header` was fetched:
    /// its sender gets a query saying it was too large (`crate::core::door::screen`).
    pub fn process_oversized(
        &mut self,
        header: &[u8],
        size: u64,
        postmark: DateTime<Utc>,
        uid: Option<(u32, u32)>,
    ) -> Result<Processed, AppError> {
        let arrival = step::Arrival {
            raw: header,
            postmark,
            uid,
            oversized: Some(size),
            call: None,
            again: None,
        };
        step::process_mail(self, arrival)
    }

    /// Counts, durably, the death of an earlier process in the step of the message the step
    /// record names (`crate::store::step`), unless that message was done after all; then clears
    /// the record. A message the relay died in twice is quarantined unread by the daemon.
    pub fn count_interrupted_step(&mut self) -> Result<(), AppError> {
        let Some((v, u)) = self.store.step().interrupted()? else {
            return Ok(());
        };
        if !self.store.is_uid_done(v, u)? {
            let times = self.store.begun(v, u)?.saturating_add(1);
            let mut batch = Batch::default();
            batch.begin_uid(v, u, times);
            self.store.commit(batch)?;
            tracing::warn!(
                "the relay stopped while it processed uid {u} (UIDVALIDITY {v}): {times} time(s) \
                 so far; at {} it is quarantined unread",
                step::POISON_AFTER
            );
        }
        self.store.step().ends()?;
        Ok(())
    }

    /// Quarantines, unread, the mail `raw` (IMAP message `uid`, received at `postmark`) whose
    /// step began `times` times and never ended: the process died with it each time
    /// (`crate::daemon`). Returns the reason kept with it.
    pub fn quarantine_unfinished(
        &mut self,
        raw: &[u8],
        postmark: DateTime<Utc>,
        uid: (u32, u32),
        times: u32,
    ) -> Result<String, AppError> {
        let reason = format!(
            "its step began {times} times and the relay stopped in it each time: not begun again"
        );
        let mut batch = Batch::default();
        step::quarantine_into(&mut batch, raw, None, postmark, Some(uid), &reason);
        stage::commit(self, batch)?;
        Ok(reason)
    }

    /// Gives up an outbox entry that could not be delivered for `[limits] outbox_max_age_days`:
    /// in one transaction the entry leaves the outbox and the report to the director
    /// (`crate::core::unreachable::undeliverable`) enters it. Returns the log lines.
    pub fn give_up(
        &mut self,
        entry: &OutboxEntry,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, AppError> {
        let u = crate::core::Undelivered {
            message_id: entry.message_id.clone(),
            recipient: entry.recipient.clone(),
            kind: entry.kind.clone(),
            game: entry.game.as_deref().and_then(|g| g.parse().ok()),
            created: entry.created,
            attempts: entry.attempts.saturating_add(1),
            last_error: entry.last_error.clone(),
        };
        self.working
            .wake_for_entry(&mut self.state, &self.store, entry)?;
        let out = self.state.report_undeliverable(&u, now, &self.settings);
        let mut batch = Batch::default();
        batch.unqueue(&entry.id);
        stage::settle(self, batch, &out, now)?;
        Ok(out.log)
    }

    /// The relay cannot do its work, or can again: the operator's `alert`
    /// (`crate::core::unreachable::alert`), queued in one transaction. Returns the log lines.
    pub fn alert(
        &mut self,
        alert: &crate::core::OperatorAlert,
        now: DateTime<Utc>,
    ) -> Result<Vec<String>, AppError> {
        let out = self.state.alert(alert, now, &self.settings);
        stage::settle(self, Batch::default(), &out, now)?;
        Ok(out.log)
    }

    /// Fax 2.8: removes the archive of every tournament the core says may be rotated
    /// (`crate::core::records::retention`). The mails go first, then the core's mark: a crash in
    /// between removes nothing twice and leaves nothing behind. Returns the log lines.
    pub fn rotate_archive(&mut self, now: DateTime<Utc>) -> Result<Vec<String>, AppError> {
        self.working
            .wake_rotations(&mut self.state, &self.store, now)?;
        let out = self.state.rotate_archives(now);
        let mut log = Vec::new();
        for (id, games) in &out.rotate {
            let games = games.iter().map(GameRef::to_string).collect();
            let n = match self.store.archive().rotate(&games) {
                Ok(n) => n,
                Err(e) => {
                    self.reload()?;
                    return Err(e.into());
                }
            };
            log.push(format!(
                "archive of tournament {id} rotated: {n} mails removed (Fax 2.8)"
            ));
        }
        if !out.rotate.is_empty() {
            let mut batch = Batch::default();
            // The rotated tournaments' games go to their shelf files (shelf.rs), durable before
            // the transaction that marks them rotated and removes them from the store.
            let ids: std::collections::BTreeSet<String> =
                out.rotate.iter().map(|(id, _)| id.clone()).collect();
            let shelved = stage::stage(self, &mut batch, &out, now).and_then(|()| {
                let rows = &shelf::rows_of;
                Ok(shelf::shelve(
                    &self.store,
                    &self.state,
                    &ids,
                    &mut batch,
                    rows,
                )?)
            });
            let done = shelved.and_then(|moved| {
                self.store.commit(batch)?;
                Ok(moved)
            });
            let (games, keys) = match done {
                Ok(moved) => moved,
                Err(e) => {
                    self.reload()?;
                    return Err(e);
                }
            };
            shelf::forget(&mut self.state, &games, &keys);
        }
        Ok(log)
    }
}
