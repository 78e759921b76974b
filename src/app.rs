//! The shell around the core: it loads the state from the store, hands the core one input at a
//! time with its `now`, renders what the core decided, and commits each step in one store
//! transaction (state, events, outbox, archive, the mail marked processed) before anything is
//! acknowledged to IMAP. Delivery of the outbox and the IMAP loop live in `crate::daemon`.

use chrono::{DateTime, Utc};
use rand::Rng;

use crate::config::Config;
use crate::core::NewTournament;
use crate::core::{Output, Settings, State};
use crate::game_ref::GameRef;
use crate::letter::{self, Letter, Limits};
use crate::render::{self, Templates};
use crate::store::{
    ArchiveEntry, Batch, Direction, OutboxEntry, PendingStarts, QuarantineEntry, Store,
};

mod awake;
pub mod backup;
mod bounces;
mod desk;
mod due;
mod enrol;
pub mod shelf;
pub mod status_row;
pub mod verify;
pub mod xfcc;
use due::DueIndex;
pub use enrol::REGISTER_CHUNK;

/// A runtime failure of the shell: printed as one line, exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Render(#[from] render::RenderError),
    /// The IMAP server could not be reached, or failed a command.
    #[error(transparent)]
    Imap(#[from] crate::imap::ImapError),
    /// A mail was fetched and committed, but the server did not take its `\Seen` flag.
    #[error("uid {uid}: could not flag as done: {source}")]
    Flag {
        uid: u32,
        #[source]
        source: crate::imap::ImapError,
    },
    /// The SMTP sender could not be set up.
    #[error(transparent)]
    Smtp(#[from] crate::smtp::SmtpError),
    /// The SMTP server cannot be used as configured (its certificate, STARTTLS, the login):
    /// the mails wait in the outbox, uncounted, until the operator fixes it.
    #[error(transparent)]
    Send(crate::smtp::SendError),
    /// The tournament cannot be registered.
    #[error(transparent)]
    Register(#[from] crate::core::RegisterError),
    /// `--now` earlier than what the relay already acted on.
    #[error(transparent)]
    TimeBackwards(#[from] TimeBackwards),
    /// The XFCC endpoint could not be started, or a move by XFCC not written as a letter.
    #[error("XFCC: {0}")]
    Xfcc(String),
    /// An HTTP listener (`[http] listen`, `[xfcc] listen`) could not be started: the address is
    /// in use or not this host's.
    #[error("{0}")]
    Listen(String),
    /// A step that is no mail's (the deadlines due) failed in the core or in rendering: nothing
    /// of it was written, and the relay goes on with its other work.
    #[error("{0}")]
    Step(String),
}

/// Why a `--now` cannot be used.
#[derive(Debug, thiserror::Error)]
#[error(
    "--now {given} is earlier than {acted}, the latest time the relay has already acted on; the relay's time never runs backwards"
)]
pub struct TimeBackwards {
    pub given: DateTime<Utc>,
    pub acted: DateTime<Utc>,
}

/// What a processed incoming mail led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Processed {
    /// Acted on (or deliberately not answered); the log lines say what, and `refused` holds the
    /// refusals it drew: those made at once (a call's, `Output::refused`), then those of the
    /// queries to its sender (an XFCC move is answered with the code of the first,
    /// `crate::xfcc::games::code_of`).
    Done {
        log: Vec<String>,
        refused: Vec<crate::core::model::Refusal>,
    },
    /// The same Message-ID was processed before: nothing happened again.
    Duplicate,
    /// It could not be processed; kept in quarantine with the reason.
    Quarantined(String),
}

/// What [`App::close`] keeps of a closed relay for [`App::reopen`].
pub struct Held {
    generation: u64,
    state: State,
    due: DueIndex,
    away: Option<awake::Away>,
    /// The templates as read at the daemon's start (read once: a changed template is used after
    /// a restart).
    templates: Templates,
}

/// The loaded relay.
pub struct App {
    pub config: Config,
    pub settings: Settings,
    pub store: Store,
    pub state: State,
    pub templates: Templates,
    /// Group commit ([`App::group`]): the mails' transactions are applied and made durable
    /// together by [`App::sync`], before any of them is acknowledged.
    grouped: bool,
    /// The pending deadlines, kept beside the state (`due.rs`).
    due: DueIndex,
    /// Opened without the games (`awake.rs`): each input brings in what it needs.
    lazy: bool,
    /// The rotated tournaments whose records were not read (the daemon and `once`: an input
    /// brings in those it names, `awake.rs`); `None` when every tournament was read.
    away: Option<awake::Away>,
    /// The XFCC passwords this process issued (`xfcc.rs`), by address, so that all start mails
    /// of one registration carry the same one. Only in memory: the store keeps their hashes.
    xfcc_issued: std::collections::HashMap<String, xfcc::Issued>,
}

/// What [`App::open_with`] reads of the games.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Load {
    /// Every game but the shelved ones.
    All,
    /// None: each input brings in the tournaments it needs (`awake.rs`).
    Lazy,
    /// None, nor the rotated tournaments' records: each input brings in the tournaments it
    /// needs, a rotated one too (`awake.rs`). The daemon's and `once`'s way.
    Working,
    /// None, and nothing is decided (a command about one game).
    Nothing,
}

/// Start mails queued per transaction: games of a tournament whose start mails are rendered and
/// queued together (two mails each).
pub const START_CHUNK: usize = 100;

/// How long a command waits for the store while another fernzug process holds it.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// The file by which a command asks the running daemon, which keeps the store open while it
/// waits for mail, to let go of it (`crate::daemon` looks for it several times a second). It is
/// there while a command waits for the store, and removed once it has it.
pub fn store_request(data_dir: &std::path::Path) -> std::path::PathBuf {
    data_dir.join("store.wanted")
}

/// Fresh keys the shell hands the core beside what an input asks for (`State::spare_keys`): the
/// two players' keys of replies to decisions of a game registered before there were any, twice.
const SPARE_KEYS: usize = 4;

/// `n` fresh random reply keys ([`new_key`]).
fn fresh_keys(n: usize) -> Vec<String> {
    (0..n).map(|_| new_key()).collect()
}

/// A fresh random reply key: 128 bits from the operating system's random source
/// (`getrandom`), hex (docs/contract.md: private to the game and recipient; docs/security.md).
pub fn new_key() -> String {
    let bytes: [u8; 16] = rand::rngs::OsRng.r#gen();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl App {
    /// Opens the store under the configured data directory and loads everything (every game
    /// but the shelved ones).
    ///
    /// The store is held by one process at a time; the daemon holds it only while it works, so a
    /// command given meanwhile waits (up to [`LOCK_WAIT`]) for it.
    pub fn open(config: Config) -> Result<App, AppError> {
        App::open_with(config, None, Load::All, true)
    }

    /// Opens the store for work without reading the games, as [`App::reopen`] does for the
    /// daemon; while the daemon holds the store, it is asked to let go ([`store_request`]).
    /// `once` and `tournament add` work this way.
    pub fn open_lazy(config: Config) -> Result<App, AppError> {
        App::open_with(config, None, Load::Lazy, true)
    }

    /// Opens the store as [`App::open_lazy`] does, for deciding what the mailbox and the clock
    /// bring (`once`): without the rotated tournaments' records either, read only when an input
    /// names one of them or one of their people (`awake.rs`).
    pub fn open_working(config: Config) -> Result<App, AppError> {
        App::open_with(config, None, Load::Working, true)
    }

    /// Closes the store and keeps what was read from it (the daemon between two passes: other
    /// fernzug commands may use the store meanwhile) — without the games, which the next pass
    /// reads again as it needs them.
    pub fn close(mut self) -> Held {
        self.rest();
        Held {
            generation: self.store.generation(),
            state: self.state,
            due: self.due,
            away: self.away,
            templates: self.templates,
        }
    }

    /// Opens the store for work without reading the games: the tournaments, the reply keys and
    /// the index of deadlines; each input then brings in the tournaments it needs (`awake.rs`).
    /// `held` ([`App::close`]) is taken as it is when no other process wrote to the store since.
    /// The daemon's way (it does not ask anyone to let go of the store).
    pub fn reopen(config: Config, held: Option<Held>) -> Result<App, AppError> {
        App::open_with(config, held, Load::Working, false)
    }

    /// Opens the store with only game `id` and its tournament read (from the state's trees or
    /// the shelf): what a command about one game needs (`status GAME`, `export … GAME`), without
    /// reading every game. Nothing is decided with it.
    pub fn open_game(config: Config, id: &GameRef) -> Result<App, AppError> {
        let mut app = App::open_with(config, None, Load::Nothing, true)?;
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
        app.due = DueIndex::build(&app.state, &app.settings);
        Ok(app)
    }

    /// `ask`: while the store is held by another process, ask it to let go ([`store_request`]).
    fn open_with(
        config: Config,
        held: Option<Held>,
        load: Load,
        ask: bool,
    ) -> Result<App, AppError> {
        let path = config.relay.data_dir.join("store");
        // The data directory is the players' (the store, the shelf): 0700 whatever the umask.
        crate::store::private::dir_all(&config.relay.data_dir).map_err(|source| {
            crate::store::StoreError::Files {
                path: config.relay.data_dir.clone(),
                what: "create the data directory",
                source,
            }
        })?;
        let request = store_request(&config.relay.data_dir);
        let started = std::time::Instant::now();
        let mut asked = false;
        let opened = loop {
            match Store::open(&path) {
                Ok(s) => break Ok(s),
                Err(e) if e.is_locked() && started.elapsed() < LOCK_WAIT => {
                    if ask && !request.exists() {
                        // Best effort: a daemon that cannot be asked keeps the store.
                        asked |= std::fs::write(&request, std::process::id().to_string()).is_ok();
                    }
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => break Err(e),
            }
        };
        if asked {
            let _ = std::fs::remove_file(&request);
        }
        let store = opened?;
        for id in store.abandon_registrations()? {
            tracing::warn!(
                "the registration of tournament {id} stopped before its end and does not count: \
                 its parts were removed; add it again"
            );
        }
        let (kept, templates) = match held {
            Some(h) => (Some((h.generation, h.state, h.due, h.away)), h.templates),
            None => (
                None,
                Templates::load(config.relay.templates_dir.as_deref())?,
            ),
        };
        let instance = match store.instance()? {
            Some(i) => i,
            None => {
                let id: [u8; 6] = rand::rngs::OsRng.r#gen();
                let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
                let mut b = Batch::default();
                b.put_instance(&id);
                store.commit(b)?;
                id
            }
        };
        let settings = Settings {
            relay_address: config.relay.address.clone(),
            relay_name: config.relay.name.clone(),
            tz: config.relay.time_zone,
            default_lang: config.relay.language,
            instance,
            digest_day: config.relay.digest_day,
            warn_days: config.relay.warn_days,
            guard: crate::core::model::Guard {
                answers_per_day: config.limits.auto_answers_per_day,
                max_mail_bytes: config.limits.max_mail_bytes,
                dmarc_authserv_id: config
                    .security
                    .require_dmarc_pass
                    .then(|| config.security.trusted_authserv_id.clone())
                    .flatten(),
                trusted_authserv_id: config.security.trusted_authserv_id.clone(),
                require_reply_key: config.security.require_reply_key,
                directors: config.relay.directors.clone(),
            },
        };
        let (state, due, away) = match (kept, load) {
            (Some((generation, state, due, away)), Load::Working)
                if generation == store.generation() =>
            {
                (state, Some(due), away)
            }
            (_, Load::All) => {
                let mut state = load_state(&store, true)?;
                store.upgrade().ends(&mut state)?;
                store.upgrade().shelf(&mut state, &shelf::rows_of)?;
                (state, None, None)
            }
            (_, Load::Lazy | Load::Working) => {
                let (state, due, away) = lazy_state(&store, &settings, load == Load::Working)?;
                (state, Some(due), away)
            }
            (_, Load::Nothing) => {
                let mut state = State::default();
                if let Some(meta) = store.meta_state()? {
                    state.meta = meta;
                }
                (state, None, None)
            }
        };
        let due = due.unwrap_or_else(|| DueIndex::build(&state, &settings));
        Ok(App {
            config,
            settings,
            store,
            state,
            templates,
            grouped: false,
            due,
            lazy: matches!(load, Load::Lazy | Load::Working),
            away,
            xfcc_issued: Default::default(),
        })
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

    /// One step's transaction: committed (durable) at once, or applied for the group's sync.
    fn commit(&self, batch: Batch) -> Result<(), crate::store::StoreError> {
        if self.grouped {
            self.store.apply(batch)
        } else {
            self.store.commit(batch)
        }
    }

    /// After a failed step: the state as the store has it (the step wrote nothing), without
    /// the games (each input brings in what it needs).
    pub(crate) fn reload(&mut self) -> Result<(), AppError> {
        // A password issued in a step that was not written holds nowhere.
        self.xfcc_issued.clear();
        if self.away.is_some() {
            let (state, away) = working_state(&self.store)?;
            self.state = state;
            self.away = Some(away);
        } else {
            self.state = load_state(&self.store, false)?;
        }
        self.due = DueIndex::load(&self.store)?;
        self.lazy = true;
        Ok(())
    }

    /// The earliest pending deadline of the core (from the shell's index).
    pub fn next_deadline(&self) -> Result<Option<DateTime<Utc>>, AppError> {
        Ok(self.due.earliest(&self.store)?)
    }

    /// The instant to act at: `--now` if given (refused if earlier than what the relay already acted
    /// on), else the system clock, never earlier than the relay's latest action.
    pub fn now(&self, given: Option<DateTime<Utc>>) -> Result<DateTime<Utc>, TimeBackwards> {
        self.now_at(given, Utc::now())
    }

    /// [`App::now`] with the wall clock read by the caller (the daemon's clock).
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
                for g in &games[next..end] {
                    self.wake_game(g)?;
                }
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
                self.settle(batch, &out, pending.at)?;
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
            let out = self.fire_due(now)?;
            self.settle(Batch::default(), &out, now)?;
            Ok(out)
        }));
        let failure = match step {
            Ok(Err(AppError::Render(e))) => e.to_string(),
            Ok(done) => return done,
            Err(panic) => panic_text(&panic),
        };
        self.reload()?;
        Err(AppError::Step(format!(
            "the deadlines due by {now} could not be fired: {failure}"
        )))
    }

    /// The core's decisions on every deadline due by `now`, with the tournaments they concern in
    /// memory; the index of deadlines looks at all of them again, whatever the core says it
    /// touched. Nothing is written: the caller stages the output.
    fn fire_due(&mut self, now: DateTime<Utc>) -> Result<Output, AppError> {
        let woken = self.wake_due(now)?;
        // A forfeit of a game registered before the keys of replies to decisions gives its
        // players theirs (`crate::core::door::reply::decided`).
        self.state.spare_keys = fresh_keys(SPARE_KEYS);
        let out = self.state.tick(now, &self.settings);
        self.due.refresh(&self.state, &self.settings, woken.iter());
        Ok(out)
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
        self.process_mail(raw, postmark, uid, None, None)
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
        self.process_mail(raw, postmark, None, None, Some(content))
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
        self.process_mail(header, postmark, uid, Some(size), None)
    }

    /// [`App::process`] and its kin, each under one guard: a panic anywhere in the mail's step —
    /// reading, bringing in its games, deciding, rendering, registering — undoes the step (the
    /// state is read back from the store, which the step did not change) and quarantines the
    /// mail with the reason. No mail stops the relay (docs/security.md).
    fn process_mail(
        &mut self,
        raw: &[u8],
        postmark: DateTime<Utc>,
        uid: Option<(u32, u32)>,
        oversized: Option<u64>,
        call: Option<crate::letter::Content>,
    ) -> Result<Processed, AppError> {
        // Should the process die in this step (an abort, a kill), the next one learns which
        // message it was (`crate::store::step`).
        if let Some((v, u)) = uid {
            self.store.step().begins(v, u)?;
        }
        let step = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::crash::point_for(crate::crash::IN_STEP, raw);
            self.step_mail(raw, postmark, uid, oversized, call)
        }));
        let done = match step {
            Ok(done) => done,
            Err(panic) => {
                let reason = format!("failure while processing: {}", panic_text(&panic));
                self.reload()?;
                let mut batch = Batch::default();
                self.quarantine_into(&mut batch, raw, None, postmark, uid, &reason);
                self.commit(batch)?;
                Ok(Processed::Quarantined(reason))
            }
        };
        if uid.is_some() {
            self.store.step().ends()?;
        }
        done
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
                crate::daemon::POISON_AFTER
            );
        }
        self.store.step().ends()?;
        Ok(())
    }

    fn step_mail(
        &mut self,
        raw: &[u8],
        postmark: DateTime<Utc>,
        uid: Option<(u32, u32)>,
        oversized: Option<u64>,
        call: Option<crate::letter::Content>,
    ) -> Result<Processed, AppError> {
        let limits = Limits {
            max_text_bytes: self.config.limits.max_mail_bytes as usize,
            ..Limits::default()
        };
        // The reader stands on mail-parser: should either of them panic on some mail, that mail
        // is quarantined like any unreadable one instead of stopping the daemon on it again and
        // again.
        let read = match std::panic::catch_unwind(|| letter::read_letter_with(raw, &limits)) {
            Ok(read) => read.map_err(|e| e.to_string()),
            Err(panic) => Err(format!("reader failure: {}", panic_text(&panic))),
        };
        let mut letter: Letter = match read {
            Ok(l) => l,
            Err(e) => {
                let reason = format!("unreadable mail: {e}");
                let mut batch = Batch::default();
                self.quarantine_into(&mut batch, raw, None, postmark, uid, &reason);
                self.commit(batch)?;
                return Ok(Processed::Quarantined(reason));
            }
        };
        letter.trace.oversized = oversized;
        if let Some(content) = call {
            letter.content = content;
            letter.trace.direct = true;
        }
        if self.store.is_processed(&letter.message_id)? {
            if let Some((v, u)) = uid {
                let mut batch = Batch::default();
                batch.uid_done(v, u);
                self.commit(batch)?;
            }
            return Ok(Processed::Duplicate);
        }
        // Time never runs backwards: a mail seen late counts at the latest time acted on.
        let now = match self.state.meta.acted_until {
            Some(a) if a > postmark => a,
            _ => postmark,
        };
        // No copy of the state is taken (it grows with the store): when a step fails, the state
        // is read back from the store, which the failed step did not change.
        // What time alone made happen is not the mail's fault: its failure is an error. The core
        // is asked only when its index says something is due by then (nothing else would fire).
        let due = self.due.earliest(&self.store)?.is_some_and(|at| at <= now);
        let mut batch = Batch::default();
        let tick_out = if due {
            self.fire_before_mail(&mut batch, now)?
        } else {
            Output::default()
        };
        self.with_original(&mut letter);
        if let Err(e) = self.warm(&letter, now) {
            self.reload()?;
            return Err(e);
        }
        // A tournament file by mail is registered in parts, as `tournament add` does it.
        if let Some(enrolment) = letter.content.register.clone() {
            let at = (postmark, now);
            return self.process_registration(
                &letter,
                raw,
                at,
                uid,
                batch,
                tick_out.log,
                &enrolment,
            );
        }
        // A fresh random reply key for each of the director's questions (TO §23) the letter
        // carries, and for the players of a game registered before the keys of replies to
        // decisions should the letter decide about it.
        self.state.spare_keys = fresh_keys(crate::core::keys_needed(&letter) + SPARE_KEYS);
        let decided = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.state.handle_mail(&letter, raw, now, &self.settings)
        }));
        let failure = match decided {
            Err(panic) => Err(format!("core failure: {}", panic_text(&panic))),
            Ok(out) => {
                let mut letter_batch = Batch::default();
                let staged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    crate::crash::point_for(crate::crash::IN_STAGE, raw);
                    self.stage(&mut letter_batch, &out, now)
                }));
                match staged {
                    Err(panic) => Err(format!("rendering failure: {}", panic_text(&panic))),
                    Ok(Err(e)) => Err(format!("cannot render the answer: {e}")),
                    Ok(Ok(())) => Ok((out, letter_batch)),
                }
            }
        };
        let (out, letter_batch) = match failure {
            Ok(done) => done,
            Err(reason) => {
                // Nothing the letter did stays; the deadlines up to now do (fired again on the
                // state as it was: the same deadlines, the same decisions).
                self.reload()?;
                batch = Batch::default();
                if due {
                    self.fire_before_mail(&mut batch, now)?;
                }
                self.quarantine_into(
                    &mut batch,
                    raw,
                    Some(&letter.message_id),
                    postmark,
                    uid,
                    &reason,
                );
                if let Err(e) = self.commit(batch) {
                    self.reload()?;
                    return Err(e.into());
                }
                return Ok(Processed::Quarantined(reason));
            }
        };
        batch.append(letter_batch);
        letter_done(&mut batch, (&letter, raw), (postmark, now), uid, &out);
        if let Err(e) = self.commit(batch) {
            self.reload()?;
            return Err(e.into());
        }
        let mut refused = out.refused.clone();
        refused.extend(xfcc::refusals_to(&out, &letter.from));
        let mut log = tick_out.log;
        log.extend(out.log);
        match out.quarantine {
            Some(reason) => {
                for line in log {
                    tracing::info!("{line}");
                }
                Ok(Processed::Quarantined(reason))
            }
            None => Ok(Processed::Done { log, refused }),
        }
    }

    /// The deadlines due by `now`, fired and staged into `batch` before a mail's letter. Should
    /// that fail in the core or in rendering (a panic, a template that does not render), the
    /// failure is logged, nothing of it is staged, and the mail goes on without it: it is not
    /// the mail's fault, and the relay keeps reading its mail (the deadlines stay due and are
    /// tried again at the next step). A failure of the store is returned.
    fn fire_before_mail(
        &mut self,
        batch: &mut Batch,
        now: DateTime<Utc>,
    ) -> Result<Output, AppError> {
        let fired = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let out = self.fire_due(now)?;
            self.stage(batch, &out, now)?;
            Ok::<_, AppError>(out)
        }));
        let failure = match fired {
            Ok(Ok(out)) => return Ok(out),
            Ok(Err(e @ AppError::Render(_))) => e.to_string(),
            Ok(Err(e)) => {
                self.reload()?;
                return Err(e);
            }
            Err(panic) => panic_text(&panic),
        };
        tracing::error!(
            "the deadlines due by {now} could not be fired: {failure}; the mail is read without them"
        );
        self.reload()?;
        *batch = Batch::default();
        Ok(Output::default())
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
        self.quarantine_into(&mut batch, raw, None, postmark, Some(uid), &reason);
        self.commit(batch)?;
        Ok(reason)
    }

    /// Adds to `batch`: the mail kept in quarantine with `reason`, marked processed and done.
    fn quarantine_into(
        &self,
        batch: &mut Batch,
        raw: &[u8],
        message_id: Option<&str>,
        at: DateTime<Utc>,
        uid: Option<(u32, u32)>,
        reason: &str,
    ) {
        let (uidvalidity, uid_n) = uid.unwrap_or((0, 0));
        let message_id = message_id
            .map(str::to_string)
            .unwrap_or_else(|| crate::letter::digest::sha256_name(raw));
        batch.quarantine(&QuarantineEntry {
            at,
            uidvalidity,
            uid: uid_n,
            message_id: Some(message_id.clone()),
            reason: reason.to_string(),
            raw: raw.to_vec(),
        });
        batch.processed(&message_id, at);
        if let Some((v, u)) = uid {
            batch.uid_done(v, u);
        }
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
        self.wake_for_entry(entry)?;
        let out = self.state.report_undeliverable(&u, now, &self.settings);
        let mut batch = Batch::default();
        batch.unqueue(&entry.id);
        self.settle(batch, &out, now)?;
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
        self.settle(Batch::default(), &out, now)?;
        Ok(out.log)
    }

    /// Fax 2.8: removes the archive of every tournament the core says may be rotated
    /// (`crate::core::records::retention`). The mails go first, then the core's mark: a crash in
    /// between removes nothing twice and leaves nothing behind. Returns the log lines.
    pub fn rotate_archive(&mut self, now: DateTime<Utc>) -> Result<Vec<String>, AppError> {
        self.wake_rotations(now)?;
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
            let shelved = self.stage(&mut batch, &out, now).and_then(|()| {
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

    /// Stages `out` into `batch` ([`App::stage`]) and commits it durably; on any failure the
    /// state is read back from the store (which the step did not change) and the error returned.
    pub(crate) fn settle(
        &mut self,
        mut batch: Batch,
        out: &Output,
        now: DateTime<Utc>,
    ) -> Result<(), AppError> {
        let done = self
            .stage(&mut batch, out, now)
            .and_then(|()| Ok(self.store.commit(batch)?));
        if done.is_err() {
            self.reload()?;
        }
        done
    }

    /// Puts what the core decided into `batch`: changed state, events, rendered mails (outbox and
    /// archive), the counters (`Meta`, with the relay's clock the core moved on).
    pub(crate) fn stage(
        &mut self,
        batch: &mut Batch,
        out: &Output,
        now: DateTime<Utc>,
    ) -> Result<(), AppError> {
        for id in &out.tournaments {
            if let Some(t) = self.state.tournaments.get(id) {
                batch.put_tournament(t);
            }
        }
        for g in &out.games {
            if let Some(game) = self.state.games.get(g) {
                batch.put_game(game, self.shelved(g));
            }
        }
        for k in &out.keys {
            if let Some(b) = self.state.keys.get(k) {
                batch.bind_key(k, &b.game.to_string(), b);
            }
        }
        for e in &out.events {
            batch.append_event(&e.game.to_string(), e.seq, &e.stored());
        }
        for mail in &out.mails {
            // What the director asked of the records (TO §11, §29), from the store.
            let filled;
            let mail = if mail.enclose.is_empty() {
                mail
            } else {
                filled = self.enclosed(mail)?;
                &filled
            };
            let login = self.xfcc_login(mail, batch);
            let raw =
                render::render_with(mail, &self.templates, &self.settings, now, login.as_ref())?;
            // The archive keeps the mail without the password (docs/xfcc.md); a mail without
            // one is stored once, the outbox naming the archived mail.
            let withheld = match &login {
                Some(l) => Some(render::render_with(
                    mail,
                    &self.templates,
                    &self.settings,
                    now,
                    Some(&l.withheld()),
                )?),
                None => None,
            };
            let once = withheld.is_none();
            batch.archive(&ArchiveEntry {
                direction: Direction::Out,
                at: now,
                games: mail.game.iter().map(GameRef::to_string).collect(),
                message_id: mail.message_id.clone(),
                raw: withheld.unwrap_or_else(|| raw.clone()),
            });
            for recipient in &mail.envelope {
                let entry = OutboxEntry {
                    id: OutboxEntry::make_id(&mail.message_id, recipient),
                    message_id: mail.message_id.clone(),
                    envelope_from: self.settings.relay_address.clone(),
                    recipient: recipient.clone(),
                    // Beside the entry when not archived; else only for a pass's courier,
                    // which sends it as it is (a tournament's start pass holds no copies).
                    raw: if !once || self.store.outbox().watching_enqueued() {
                        raw.clone()
                    } else {
                        Vec::new()
                    },
                    kind: mail.kind.name().to_string(),
                    game: mail.game.as_ref().map(GameRef::to_string),
                    created: now,
                    attempts: 0,
                    next_attempt: now,
                    last_error: None,
                    seq: 0,
                };
                if once {
                    batch.enqueue_archived(&entry);
                } else {
                    batch.enqueue(&entry);
                }
            }
        }
        self.whole_at_an_end(out)?;
        batch.put_meta_state(&self.state.meta);
        self.due.update(&self.state, &self.settings, out);
        self.due.persist(batch);
        Ok(())
    }
}

/// Adds to `batch` what becomes of the letter `raw` the core decided `out` on: its IMAP message
/// marked done; the letter spent and archived under the games it concerns — or, screened out
/// (e.g. no DMARC pass), kept in quarantine with its Message-ID not spent, so an authentic copy
/// arriving later is still read; or neither, a letter refused at once that changed nothing (its
/// client was told, `process_call`).
pub(crate) fn letter_done(
    batch: &mut Batch,
    (letter, raw): (&Letter, &[u8]),
    (postmark, now): (DateTime<Utc>, DateTime<Utc>),
    uid: Option<(u32, u32)>,
    out: &Output,
) {
    if let Some((v, u)) = uid {
        batch.uid_done(v, u);
    }
    if let Some(reason) = &out.quarantine {
        batch.quarantine(&QuarantineEntry {
            at: postmark,
            uidvalidity: uid.map(|(v, _)| v).unwrap_or(0),
            uid: uid.map(|(_, u)| u).unwrap_or(0),
            message_id: Some(letter.message_id.clone()),
            reason: reason.clone(),
            raw: raw.to_vec(),
        });
    } else if out.refused.is_empty() || !out.events.is_empty() || !out.mails.is_empty() {
        batch.processed(&letter.message_id, now);
        batch.archive(&ArchiveEntry {
            direction: Direction::In,
            at: postmark,
            games: out.letter_games.iter().map(|g| g.to_string()).collect(),
            message_id: letter.message_id.clone(),
            raw: raw.to_vec(),
        });
    }
}

/// The state as the store has it: with every game (but the shelved ones) and every reply key
/// when `games`, else with neither.
fn load_state(store: &Store, games: bool) -> Result<State, AppError> {
    let mut state = State::default();
    store.for_each_tournament(|t| state.add_tournament(t))?;
    if games {
        store.for_each_game(|g| {
            state.games.insert(g.id.clone(), g);
        })?;
        store.for_each_key(|k, b| {
            state.keys.insert(k, b);
        })?;
    }
    if let Some(meta) = store.meta_state()? {
        state.meta = meta;
    }
    Ok(state)
}

/// The state as the relay at work starts from: no games, no reply keys, and no rotated
/// tournaments — those are the [`awake::Away`] ones, read as an input names them.
fn working_state(store: &Store) -> Result<(State, awake::Away), AppError> {
    let mut state = State::default();
    let rotated = store.for_each_tournament_but_rotated(|t| state.add_tournament(t))?;
    if let Some(meta) = store.meta_state()? {
        state.meta = meta;
    }
    Ok((state, awake::Away::new(rotated)))
}

/// The state without its games and the index of deadlines, for a relay that brings in games as
/// it needs them; `working`: without the rotated tournaments either (they are returned as the
/// [`awake::Away`] ones). A store from before the indexes (or before the migrations below) is
/// read whole once, migrated, indexed and the indexes written.
fn lazy_state(
    store: &Store,
    settings: &Settings,
    working: bool,
) -> Result<(State, DueIndex, Option<awake::Away>), AppError> {
    if store.upgrade().done()? {
        let due = DueIndex::load(store)?;
        if working {
            let (state, away) = working_state(store)?;
            return Ok((state, due, Some(away)));
        }
        return Ok((load_state(store, false)?, due, None));
    }
    let mut state = load_state(store, true)?;
    store.upgrade().ends(&mut state)?;
    store.upgrade().shelf(&mut state, &shelf::rows_of)?;
    let mut due = DueIndex::build(&state, settings);
    store
        .upgrade()
        .indexes(&state, |batch| due.persist_all(batch))?;
    state.games.clear();
    state.keys = Default::default();
    // Every tournament is in memory now: none is away.
    Ok((
        state,
        due,
        working.then(|| awake::Away::new(Default::default())),
    ))
}

/// The message of a panic payload.
fn panic_text(p: &Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}
