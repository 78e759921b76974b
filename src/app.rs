//! The shell around the core: it loads the state from the store, hands the core one input at a
//! time with its `now`, renders what the core decided, and commits each step in one store
//! transaction (state, events, outbox, archive, the mail marked processed) before anything is
//! acknowledged to IMAP. Delivery of the outbox and the IMAP loop live in `crate::daemon`.

use std::path::Path;

use chrono::{DateTime, Utc};
use rand::Rng;

use crate::config::Config;
use crate::core::{Output, Settings, State};
use crate::game_ref::GameRef;
use crate::letter::{self, Letter, Limits};
use crate::render::{self, Templates};
use crate::store::{ArchiveEntry, Batch, Direction, OutboxEntry, QuarantineEntry, Store, Tree};
use crate::tournament_file::TournamentFile;

/// A runtime failure of the shell: printed as one line, exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Render(#[from] render::RenderError),
    #[error("{0}")]
    Other(String),
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
    /// Acted on (or deliberately not answered); the log lines say what.
    Done(Vec<String>),
    /// The same Message-ID was processed before: nothing happened again.
    Duplicate,
    /// It could not be processed; kept in quarantine with the reason.
    Quarantined(String),
}

/// The loaded relay.
pub struct App {
    pub config: Config,
    pub settings: Settings,
    pub store: Store,
    pub state: State,
    pub templates: Templates,
}

const META_STATE: &str = "state-meta";

/// How long a command waits for the store while another fernzug process holds it.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);
const META_INSTANCE: &str = "instance";

/// A fresh random reply key: 128 bits, hex (CONTRACT: private to the game and recipient).
pub fn new_key() -> String {
    let bytes: [u8; 16] = rand::thread_rng().r#gen();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

impl App {
    /// Opens the store under the configured data directory and loads everything.
    ///
    /// The store is held by one process at a time; the daemon holds it only while it works, so a
    /// command given meanwhile waits (up to [`LOCK_WAIT`]) for it.
    pub fn open(config: Config) -> Result<App, AppError> {
        let path = config.relay.data_dir.join("store");
        let started = std::time::Instant::now();
        let store = loop {
            match Store::open(&path) {
                Ok(s) => break s,
                Err(e) if e.is_locked() && started.elapsed() < LOCK_WAIT => {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                Err(e) => return Err(e.into()),
            }
        };
        let templates = Templates::load(config.relay.templates_dir.as_deref())?;
        let instance = match store.get::<String>(Tree::Meta, META_INSTANCE.as_bytes())? {
            Some(i) => i,
            None => {
                let id: [u8; 6] = rand::thread_rng().r#gen();
                let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
                let mut b = Batch::default();
                b.put(Tree::Meta, META_INSTANCE.as_bytes(), &id);
                store.commit(b)?;
                id
            }
        };
        let mut state = State::default();
        for (_, t) in store.scan::<crate::core::Tournament>(Tree::Tournaments)? {
            state.tournaments.insert(t.id.clone(), t);
        }
        for (_, g) in store.scan::<crate::core::game::Game>(Tree::Games)? {
            state.games.insert(g.id.clone(), g);
        }
        for (k, b) in store.scan::<crate::core::KeyBinding>(Tree::Keys)? {
            state
                .keys
                .insert(String::from_utf8_lossy(&k).into_owned(), b);
        }
        if let Some(meta) = store.get(Tree::Meta, META_STATE.as_bytes())? {
            state.meta = meta;
        }
        let settings = Settings {
            relay_address: config.relay.address.clone(),
            relay_name: config.relay.name.clone(),
            tz: config.relay.time_zone,
            default_lang: config.relay.language,
            instance,
            digest_day: config.relay.digest_day,
        };
        Ok(App {
            config,
            settings,
            store,
            state,
            templates,
        })
    }

    /// The instant to act at: `--now` if given (refused if earlier than what the relay already acted
    /// on), else the system clock, never earlier than the relay's latest action.
    pub fn now(&self, given: Option<DateTime<Utc>>) -> Result<DateTime<Utc>, TimeBackwards> {
        let acted = self.state.meta.acted_until;
        match (given, acted) {
            (Some(g), Some(a)) if g < a => Err(TimeBackwards { given: g, acted: a }),
            (Some(g), _) => Ok(g),
            (None, Some(a)) => Ok(Utc::now().max(a)),
            (None, None) => Ok(Utc::now()),
        }
    }

    /// Registers a tournament and queues its start mails.
    pub fn register(
        &mut self,
        file: &TournamentFile,
        now: DateTime<Utc>,
    ) -> Result<Output, AppError> {
        let mut key = new_key;
        let out = self
            .state
            .register(file, now, &self.settings, &mut key)
            .map_err(|e| AppError::Other(e.to_string()))?;
        let mut batch = Batch::default();
        self.stage(&mut batch, &out, now)?;
        self.store.commit(batch)?;
        Ok(out)
    }

    /// Fires every deadline due by `now` and commits it.
    pub fn tick(&mut self, now: DateTime<Utc>) -> Result<Output, AppError> {
        let out = self.state.tick(now, &self.settings);
        let mut batch = Batch::default();
        self.stage(&mut batch, &out, now)?;
        self.store.commit(batch)?;
        Ok(out)
    }

    /// Processes one incoming mail received at `postmark` (IMAP INTERNALDATE, or `--now`): deadlines
    /// up to then first, then the letter; everything in one transaction with the mail marked done.
    pub fn process(
        &mut self,
        raw: &[u8],
        postmark: DateTime<Utc>,
        uid: Option<(u32, u32)>,
    ) -> Result<Processed, AppError> {
        let limits = Limits {
            max_text_bytes: self.config.limits.max_mail_bytes as usize,
            ..Limits::default()
        };
        let letter: Letter = match letter::read_letter_with(raw, &limits) {
            Ok(l) => l,
            Err(e) => {
                let reason = format!("unreadable mail: {e}");
                let mut batch = Batch::default();
                let (uidvalidity, uid_n) = uid.unwrap_or((0, 0));
                batch.quarantine(&QuarantineEntry {
                    at: postmark,
                    uidvalidity,
                    uid: uid_n,
                    message_id: None,
                    reason: reason.clone(),
                    raw: raw.to_vec(),
                });
                if let Some((v, u)) = uid {
                    batch.uid_done(v, u);
                }
                self.store.commit(batch)?;
                return Ok(Processed::Quarantined(reason));
            }
        };
        if self.store.is_processed(&letter.message_id)? {
            if let Some((v, u)) = uid {
                let mut batch = Batch::default();
                batch.uid_done(v, u);
                self.store.commit(batch)?;
            }
            return Ok(Processed::Duplicate);
        }
        // Time never runs backwards: a mail seen late counts at the latest time acted on.
        let now = match self.state.meta.acted_until {
            Some(a) if a > postmark => a,
            _ => postmark,
        };
        let before = self.state.clone();
        let mut out = self.state.tick(now, &self.settings);
        let letter_out = self.letter_or_bounces(&letter, raw, now);
        merge_output(&mut out, letter_out);
        let mut batch = Batch::default();
        let staged = self.stage(&mut batch, &out, now);
        if let Err(e) = staged {
            self.state = before;
            return Err(e);
        }
        batch.processed(&letter.message_id, now);
        if let Some((v, u)) = uid {
            batch.uid_done(v, u);
        }
        batch.archive(&ArchiveEntry {
            direction: Direction::In,
            at: postmark,
            games: out.letter_games.iter().map(|g| g.to_string()).collect(),
            message_id: letter.message_id.clone(),
            raw: raw.to_vec(),
        });
        if let Err(e) = self.store.commit(batch) {
            self.state = before;
            return Err(e.into());
        }
        Ok(Processed::Done(out.log))
    }

    /// Puts what the core decided into `batch`: changed state, events, rendered mails (outbox and
    /// archive), and the relay's clock.
    pub(crate) fn stage(
        &mut self,
        batch: &mut Batch,
        out: &Output,
        now: DateTime<Utc>,
    ) -> Result<(), AppError> {
        for id in &out.tournaments {
            if let Some(t) = self.state.tournaments.get(id) {
                batch.put(Tree::Tournaments, id.as_bytes(), t);
            }
        }
        for g in &out.games {
            if let Some(game) = self.state.games.get(g) {
                batch.put(Tree::Games, g.to_string().as_bytes(), game);
            }
        }
        for k in &out.keys {
            if let Some(b) = self.state.keys.get(k) {
                batch.put(Tree::Keys, k.as_bytes(), b);
            }
        }
        for (g, seq, e) in &out.events {
            batch.append_event(&g.to_string(), *seq, e);
        }
        for mail in &out.mails {
            let raw = render::render(mail, &self.templates, &self.settings, now)?;
            let games: Vec<String> = mail.game.iter().map(GameRef::to_string).collect();
            batch.archive(&ArchiveEntry {
                direction: Direction::Out,
                at: now,
                games,
                message_id: mail.message_id.clone(),
                raw: raw.clone(),
            });
            for r in mail.to.iter().chain(mail.cc.iter()) {
                batch.enqueue(&OutboxEntry {
                    id: format!("{}|{}", mail.message_id, r.email),
                    message_id: mail.message_id.clone(),
                    envelope_from: self.settings.relay_address.clone(),
                    recipient: r.email.clone(),
                    raw: raw.clone(),
                    kind: mail.kind.name().to_string(),
                    game: mail.game.as_ref().map(GameRef::to_string),
                    created: now,
                    attempts: 0,
                    next_attempt: now,
                    last_error: None,
                });
            }
        }
        if self.state.meta.acted_until.is_none_or(|a| a < now) {
            self.state.meta.acted_until = Some(now);
        }
        batch.put(Tree::Meta, META_STATE.as_bytes(), &self.state.meta);
        Ok(())
    }

    /// Reads a tournament file and registers it.
    pub fn register_file(&mut self, path: &Path, now: DateTime<Utc>) -> Result<Output, AppError> {
        let file =
            crate::tournament_file::load(path).map_err(|e| AppError::Other(e.to_string()))?;
        self.register(&file, now)
    }
}

fn merge_output(into: &mut Output, other: Output) {
    into.mails.extend(other.mails);
    into.events.extend(other.events);
    into.games.extend(other.games);
    into.tournaments.extend(other.tournaments);
    into.keys.extend(other.keys);
    into.letter_games.extend(other.letter_games);
    into.log.extend(other.log);
}
