//! The command line of docs/contract.md: `run`, `once`, `tournament add`, `tournament check`,
//! `status`, `export`, `verify`, `check`, `backup`, `quarantine`.
//! Exit status: 0 done; 1 a runtime failure (one clear line); 2 bad usage, configuration or file.

use std::path::PathBuf;
use std::process::ExitCode;

use chrono::{DateTime, Utc};
use clap::{Parser, Subcommand};

use crate::app::quarantine::{self, Listed};
use crate::app::status_row::{DeadlineRow, StatusRow, local_time};
use crate::app::{App, Processed};
use crate::config;
use crate::core::model::{Game, Tournament};
use crate::core::pgn;
use crate::game_ref::GameRef;

#[derive(Parser, Debug)]
#[command(
    name = "fernzug",
    version,
    about = "E-mail relay for correspondence chess under the BdF rules",
    long_about = "E-mail relay for correspondence chess under the rules of the German \
correspondence chess federation (BdF). Players mail their moves to one relay address; the relay \
checks notation and legality, keeps every player's thinking time, forwards the move to the \
partner, and on its own sends reminders through the tournament director, time-forfeit notices \
and game reports.",
    after_long_help = "EXIT STATUS: 0 done; 1 a runtime failure (one line, e.g. IMAP unreachable); \
2 bad usage, configuration or tournament file (the line names the file, the key and what is \
wrong; a tournament file's every error, a line each). `tournament check` exits 1 for a file \
with errors.\n\n\
ENVIRONMENT: FERNZUG_CONFIG (the configuration file); RUST_LOG=debug (more in the log, which goes \
to stderr).\n\n\
FILES: /etc/fernzug/fernzug.toml (the configuration; its comments explain every key); \
/var/lib/fernzug (data_dir: the store and the mail archive); /usr/share/doc/fernzug/ (the \
guides for operators, directors and players, and the rulebook as the relay applies it)."
)]
pub struct Cli {
    /// The configuration file (default: $FERNZUG_CONFIG, then ./fernzug.toml).
    #[arg(long, global = true)]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// The daemon: waits for mail, fires deadlines, delivers the outbox; stops on SIGTERM/SIGINT.
    Run,
    /// The operator's first run: config, store, passwords, IMAP, SMTP and a probe mail, one line
    /// each.
    Check,
    /// One pass, then exit.
    Once {
        /// Pretend the current time is TIME (RFC 3339).
        #[arg(long, value_parser = parse_time)]
        now: Option<DateTime<Utc>>,
    },
    /// Tournaments.
    #[command(subcommand)]
    Tournament(TournamentCommand),
    /// Games, positions, clocks, deadlines.
    Status {
        /// A game (`TOURNAMENT/N`) or a tournament id.
        target: Option<String>,
        /// Print the games as a JSON array (its fields: docs/contract.md, with the .deb in
        /// /usr/share/doc/fernzug/contract.md).
        #[arg(long)]
        json: bool,
        /// Judge clocks and deadlines at TIME (RFC 3339) instead of now.
        #[arg(long, value_parser = parse_time)]
        now: Option<DateTime<Utc>>,
    },
    /// PGN or mbox to stdout.
    #[command(subcommand)]
    Export(ExportCommand),
    /// Recomputes a game's hash chain (TO §29): `ok` with the final hash, or the first event
    /// that does not fit (exit 1).
    Verify {
        /// The game (`TOURNAMENT/N`).
        game: String,
    },
    /// A consistent copy of the store and the mail archive into DIR while `fernzug run` runs
    /// (it goes on meanwhile): a data_dir the relay runs on as it is.
    Backup {
        /// An empty folder, made if missing.
        dir: PathBuf,
    },
    /// The mails kept in quarantine (they could not be processed, or were not believed).
    #[command(subcommand)]
    Quarantine(QuarantineCommand),
}

#[derive(Subcommand, Debug)]
pub enum QuarantineCommand {
    /// Every mail in quarantine: its id, when it was received, its sender, its subject and why
    /// it is kept.
    List,
    /// Runs the mail through the step of a fetched mail once more (once the cause is fixed):
    /// processed and out of quarantine, or kept with the new reason (exit 1).
    Retry {
        /// The mail's id as `quarantine list` shows it (UIDVALIDITY-UID).
        id: String,
    },
    /// Takes the mail out of quarantine without processing it.
    Drop {
        /// The mail's id as `quarantine list` shows it (UIDVALIDITY-UID).
        id: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum TournamentCommand {
    /// Register a tournament from its file and queue the start mails.
    Add {
        /// The tournament file (TOML: id, name, rules, start, director, players, games).
        file: PathBuf,
        /// Register as if the current time were TIME (RFC 3339).
        #[arg(long, value_parser = parse_time)]
        now: Option<DateTime<Utc>>,
    },
    /// Check a tournament file without registering it: every error with its line and key
    /// (exit 1), or the games it would make (exit 0).
    Check {
        /// The tournament file.
        file: PathBuf,
    },
}

#[derive(Subcommand, Debug)]
pub enum ExportCommand {
    /// PGN of a tournament or a game (TO §27).
    Pgn {
        /// A tournament id, or a game (`TOURNAMENT/N`).
        target: String,
    },
    /// Every mail of one game, in and out, unchanged, as mbox (TO §11).
    Mbox {
        /// The game (`TOURNAMENT/N`).
        game: String,
    },
}

fn parse_time(s: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(s)
        .map(|d| d.with_timezone(&Utc))
        .map_err(|e| {
            format!("`{s}` is not an RFC 3339 time such as 2026-12-17T09:00:00+01:00: {e}")
        })
}

/// A failure with its exit status.
struct Failure {
    code: u8,
    message: String,
}

fn runtime(e: impl std::fmt::Display) -> Failure {
    Failure {
        code: 1,
        message: e.to_string(),
    }
}

fn usage(e: impl std::fmt::Display) -> Failure {
    Failure {
        code: 2,
        message: e.to_string(),
    }
}

/// Runs the command line; returns the exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // Journald-friendly: no colours unless stderr is a terminal; under systemd (JOURNAL_STREAM
    // set) no timestamp of our own either, journald stamps every line.
    use std::io::IsTerminal;
    let builder = tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    if std::env::var_os("JOURNAL_STREAM").is_some() {
        builder.without_time().init();
    } else {
        builder.init();
    }
    match execute(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            eprintln!("fernzug: {}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn execute(cli: Cli) -> Result<(), Failure> {
    let path = cli
        .config
        .clone()
        .unwrap_or_else(|| config::default_path(std::env::var("FERNZUG_CONFIG").ok().as_deref()));
    let cfg = config::load(&path).map_err(usage)?;
    if let Command::Check = cli.command {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(runtime)?;
        let report = rt.block_on(crate::check::check(&cfg, &path));
        return if report.failed {
            Err(Failure {
                code: 1,
                message: "check failed (see the FAIL lines above)".to_string(),
            })
        } else {
            Ok(())
        };
    }
    if let Command::Tournament(TournamentCommand::Check { file }) = &cli.command {
        return match crate::app::check_tournament_file(cfg, file) {
            Ok(lines) => {
                lines.iter().for_each(|l| println!("{l}"));
                Ok(())
            }
            Err(lines) => {
                lines.iter().for_each(|l| eprintln!("{l}"));
                Err(runtime(format!("{}: nothing registered", file.display())))
            }
        };
    }
    if let Command::Backup { dir } = &cli.command {
        return match crate::app::backup::backup(&cfg.relay.data_dir, dir) {
            Ok(line) => {
                println!("{line}");
                Ok(())
            }
            Err(reason) => Err(runtime(reason)),
        };
    }
    if let Command::Run = cli.command {
        tracing::info!(
            "fernzug {} starting: config {}, store {}, IMAP {}:{} ({}, mailbox {}), SMTP {}:{} ({})",
            env!("CARGO_PKG_VERSION"),
            path.display(),
            cfg.relay.data_dir.display(),
            cfg.imap.host,
            cfg.imap.port,
            cfg.imap.security,
            cfg.imap.mailbox,
            cfg.smtp.host,
            cfg.smtp.port,
            cfg.smtp.security,
        );
        // The daemon opens the store for each pass itself.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(runtime)?;
        return rt.block_on(async {
            let (tx, rx) = tokio::sync::watch::channel(false);
            tokio::spawn(async move {
                shutdown_signal().await;
                let _ = tx.send(true);
            });
            crate::daemon::run(cfg, rx).await.map_err(runtime)
        });
    }
    // Showing games reads the shelved ones too (src/app/shelf.rs), a tournament at a time;
    // acting never needs them all. A command about one game reads only that game.
    let one_game: Option<GameRef> = match &cli.command {
        Command::Status {
            target: Some(t), ..
        }
        | Command::Export(ExportCommand::Pgn { target: t })
            if t.contains('/') =>
        {
            t.parse().ok()
        }
        Command::Export(ExportCommand::Mbox { game }) | Command::Verify { game } => {
            game.parse().ok()
        }
        _ => None,
    };
    let opened = match &one_game {
        Some(id) => App::open_game(cfg, id),
        // `status` and `export` read a tournament's games when its turn comes
        // (`each_tournament`), so that memory holds one tournament at a time; `once` and
        // `tournament add` read games only as they need them; `once`, deciding what the mailbox
        // and the clock bring, reads a rotated tournament's record only when it needs it too.
        None if matches!(
            cli.command,
            Command::Once { .. } | Command::Quarantine(QuarantineCommand::Retry { .. })
        ) =>
        {
            App::open_working(cfg)
        }
        None => App::open_lazy(cfg),
    };
    let mut app = opened.map_err(|e| match e {
        // A broken template override is the operator's configuration: exit 2.
        crate::app::AppError::Render(_) => usage(e),
        e => runtime(e),
    })?;
    let rt = || {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(runtime)
    };
    match cli.command {
        // Handled above, before the store is opened.
        Command::Run
        | Command::Check
        | Command::Backup { .. }
        | Command::Tournament(TournamentCommand::Check { .. }) => Ok(()),
        Command::Once { now } => {
            app.now_at(now, chrono::Utc::now()).map_err(usage)?;
            let rt = rt()?;
            let report = rt
                .block_on(crate::daemon::once(&mut app, now))
                .map_err(runtime)?;
            tracing::info!(
                "pass done: {} processed, {} duplicates, {} quarantined, {} sent, {} deferred, {} refused, {} given up",
                report.processed,
                report.duplicates,
                report.quarantined,
                report.sent,
                report.deferred,
                report.failed,
                report.given_up
            );
            // Everything is applied and kept; the operator is told what to mend.
            match report.needs_operator {
                Some(line) => Err(runtime(line)),
                None => Ok(()),
            }
        }
        Command::Tournament(TournamentCommand::Add { file, now }) => {
            let now = app.now_at(now, chrono::Utc::now()).map_err(usage)?;
            let tf = crate::tournament_file::load(&file).map_err(usage)?;
            let out = app.register(&tf, now).map_err(|e| {
                // A duplicate id is the file's fault, not the runtime's.
                if e.to_string().contains("already registered") {
                    usage(format!("{}: key `id`: {e}", file.display()))
                } else {
                    runtime(e)
                }
            })?;
            for line in out.log {
                println!("{line}");
            }
            if crate::core::fax_group_warning(tf.rules, tf.players.len()) {
                println!(
                    "warning: {}: telefax tournaments are played in groups of {} players (Fax 1.2); this one has {}",
                    file.display(),
                    crate::core::FAX_GROUP,
                    tf.players.len()
                );
            }
            Ok(())
        }
        Command::Status { target, json, now } => {
            let now = app.now_at(now, chrono::Utc::now()).map_err(usage)?;
            status(&app, target.as_deref(), json, now)
        }
        Command::Export(ExportCommand::Pgn { target }) => {
            each_tournament(&app, Some(&target), |t, games| {
                for g in games {
                    print!("{}", pgn::game_pgn(g, t, app.settings.tz));
                }
                Ok(())
            })
        }
        Command::Export(ExportCommand::Mbox { game }) => {
            let id: GameRef = game.parse().map_err(usage)?;
            if !app.state.games.contains_key(&id) {
                return Err(usage(format!("no game {id}")));
            }
            let entries = app
                .store
                .archive()
                .for_game(&id.to_string())
                .map_err(runtime)?;
            use std::io::Write;
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(&crate::mbox::mbox(&entries, &app.settings.relay_address))
                .map_err(runtime)?;
            stdout.flush().map_err(runtime)?;
            Ok(())
        }
        Command::Quarantine(q) => quarantine_command(&mut app, q),
        Command::Verify { game } => {
            let id: GameRef = game.parse().map_err(usage)?;
            let verdict = app
                .verify(&id)
                .map_err(runtime)?
                .ok_or_else(|| usage(format!("no game {id}")))?;
            println!("{verdict}");
            match verdict.fault {
                None => Ok(()),
                Some(_) => Err(Failure {
                    code: 1,
                    message: format!("the record of {id} does not verify"),
                }),
            }
        }
    }
}

/// The games of `target` (a game, a tournament, or every game when `None`), a tournament at a
/// time in the order of their ids, each tournament's games in their order: the running
/// tournaments' from memory, a shelved tournament's read from the shelf and dropped after it.
fn each_tournament(
    app: &App,
    target: Option<&str>,
    mut each: impl FnMut(&Tournament, &[&Game]) -> Result<(), Failure>,
) -> Result<(), Failure> {
    if let Some(t) = target.filter(|t| t.contains('/')) {
        let id: GameRef = t.parse().map_err(usage)?;
        let g = app
            .state
            .games
            .get(&id)
            .ok_or_else(|| usage(format!("no game {id}")))?;
        return match app.state.tournament_of(&id) {
            Some(tournament) => each(tournament, &[g]),
            None => Ok(()),
        };
    }
    for t in tournaments(app, target)? {
        let games = app.records().games_of(t).map_err(runtime)?;
        each(t, &games.iter().collect::<Vec<_>>())?;
    }
    Ok(())
}

/// The tournaments `target` names (one, or every one when `None`), in the order of their ids.
fn tournaments<'a>(
    app: &'a App,
    target: Option<&'a str>,
) -> Result<impl Iterator<Item = &'a Tournament>, Failure> {
    if let Some(t) = target
        && !app.state.tournaments.contains_key(t)
    {
        return Err(usage(format!("no tournament {t}")));
    }
    Ok(app
        .state
        .tournaments
        .values()
        .filter(move |t| target.is_none_or(|id| id == t.id)))
}

/// The `status` rows of every tournament's games, or of `target`'s (a tournament or a game), a
/// tournament at a time, in the order of the tournaments: a running tournament's made by `row`
/// from its games (read from the store), a shelved one's from the rows kept beside its shelf file
/// (`App::shelved_rows_of`), so listing every game does not read the games of the years before.
/// The tournaments are read by [`READERS`] threads, tournament `i` by thread `i % READERS`, while
/// `each` takes the rows of those before (a few tournaments' rows are held at a time).
fn each_tournament_rows(
    app: &App,
    target: Option<&str>,
    now: DateTime<Utc>,
    row: &(dyn Fn(&Game, &Tournament) -> StatusRow + Sync),
    mut each: impl FnMut(Vec<StatusRow>) -> Result<(), Failure>,
) -> Result<(), Failure> {
    if target.is_some_and(|t| t.contains('/')) {
        return each_tournament(app, target, |t, games| {
            each(games.iter().map(|g| row(g, t)).collect())
        });
    }
    let ts: Vec<&Tournament> = tournaments(app, target)?.collect();
    let rows_of = |t: &Tournament| -> Result<Vec<StatusRow>, Failure> {
        if t.rotated {
            app.shelved_rows_of(t, now).map_err(runtime)
        } else {
            Ok(app
                .records()
                .games_of(t)
                .map_err(runtime)?
                .iter()
                .map(|g| row(g, t))
                .collect())
        }
    };
    std::thread::scope(|scope| {
        let mut done = Vec::with_capacity(READERS);
        let mut readers = Vec::with_capacity(READERS);
        for k in 0..READERS {
            let (tx, rx) = std::sync::mpsc::sync_channel(2);
            let (ts, rows_of) = (&ts, &rows_of);
            readers.push(scope.spawn(move || {
                for t in ts.iter().skip(k).step_by(READERS) {
                    // Refused only when `each` stopped: nothing more is wanted.
                    if tx.send(rows_of(t)).is_err() {
                        break;
                    }
                }
            }));
            done.push(rx);
        }
        let mut result = Ok(());
        for i in 0..ts.len() {
            let rows = done[i % READERS]
                .recv()
                .unwrap_or_else(|_| Err(runtime("reading the games stopped (a panic)")));
            if let Err(e) = rows.and_then(&mut each) {
                result = Err(e);
                break;
            }
        }
        drop(done);
        for r in readers {
            if r.join().is_err() && result.is_ok() {
                result = Err(runtime("reading the games stopped (a panic)"));
            }
        }
        result
    })
}

/// Threads that read the games for `status` (the machine's two cores: these and the writer).
const READERS: usize = 2;

fn status(
    app: &App,
    target: Option<&str>,
    as_json: bool,
    now: DateTime<Utc>,
) -> Result<(), Failure> {
    use serde::ser::{SerializeSeq, Serializer};
    use std::io::Write;
    let tz = app.settings.tz;
    let row = |g: &Game, t: &Tournament| {
        let deadlines = app
            .state
            .game_deadlines(g, t, &app.settings)
            .into_iter()
            .map(|(at, d)| DeadlineRow::new(at, d))
            .collect();
        StatusRow::of(g, t, now, tz, deadlines)
    };
    if as_json {
        // One array, written row by row (a federation's store holds more games than fit in
        // memory at once comfortably).
        let stdout = std::io::BufWriter::new(std::io::stdout().lock());
        let mut out = serde_json::Serializer::pretty(stdout);
        let mut seq = out.serialize_seq(None).map_err(runtime)?;
        each_tournament_rows(app, target, now, &row, |rows| {
            for r in rows {
                seq.serialize_element(&r).map_err(runtime)?;
            }
            Ok(())
        })?;
        seq.end().map_err(runtime)?;
        let mut w = out.into_inner();
        writeln!(w).map_err(runtime)?;
        w.flush().map_err(runtime)?;
        return Ok(());
    }
    print_quarantine(app)?;
    let mut table = None;
    each_tournament_rows(app, target, now, &row, |rows| {
        let mut w = std::io::stdout().lock();
        for r in rows {
            writeln!(
                w,
                "{:<16} {:<9} {:<7} {} – {}  moves {}  clocks W {}/{} B {}/{}{}",
                r.id,
                r.state,
                r.result,
                r.white,
                r.black,
                r.moves.len(),
                r.clock.white.used,
                r.clock.white.allowed,
                r.clock.black.used,
                r.clock.black.allowed,
                r.to_move
                    .as_deref()
                    .map(|c| format!("  {c} to move"))
                    .unwrap_or_default(),
            )
            .map_err(runtime)?;
            if let Some(d) = r.deadlines.first() {
                writeln!(w, "{:<16} next: {} at {}", "", d.what, d.local(tz)).map_err(runtime)?;
            }
        }
        Ok(())
    })?;
    // The crosstable of a tournament asked for (src/core/records/crosstable.rs) below its games.
    if let Some(t) = target.and_then(|id| app.state.tournaments.get(id)) {
        each_tournament(app, target, |t, games| {
            table = Some(crate::core::records::crosstable::crosstable(
                t,
                games.iter().copied(),
            ));
            Ok(())
        })?;
        if let Some(table) = table {
            println!("\n{} ({})\n", t.name, t.id);
            print!(
                "{}",
                crate::render::words::crosstable::text(&table, app.settings.default_lang)
            );
        }
    }
    Ok(())
}

/// The mails kept in quarantine (could not be processed, or not believed), as `status` shows
/// them above the games; nothing when there is none.
fn print_quarantine(app: &App) -> Result<(), Failure> {
    let listed = quarantine::list(app).map_err(runtime)?;
    if !listed.is_empty() {
        print_listed(&listed, app.settings.tz);
    }
    Ok(())
}

/// The operator's list: per mail its id, when it was received (in the relay's time zone), its
/// sender and subject, then why it is kept.
fn print_listed(listed: &[Listed], tz: chrono_tz::Tz) {
    println!("quarantined mails: {}", listed.len());
    for l in listed {
        println!(
            "  {}  {}  from {}  subject {}",
            l.id,
            local_time(l.at, tz),
            l.sender.as_deref().unwrap_or("-"),
            l.subject
                .as_deref()
                .map(|s| format!("{s:?}"))
                .unwrap_or_else(|| "-".to_string()),
        );
        println!("      why: {}", l.why);
    }
}

/// `fernzug quarantine list | retry ID | drop ID`.
fn quarantine_command(app: &mut App, q: QuarantineCommand) -> Result<(), Failure> {
    let known = |app: &App, id: &str| {
        quarantine::find(app, id).map_err(runtime)?.ok_or_else(|| {
            runtime(format!(
                "no mail in quarantine has the id {id} (`fernzug quarantine list` shows them)"
            ))
        })
    };
    match q {
        QuarantineCommand::List => {
            let listed = quarantine::list(app).map_err(runtime)?;
            if listed.is_empty() {
                println!("no mail in quarantine");
            } else {
                print_listed(&listed, app.settings.tz);
            }
            Ok(())
        }
        QuarantineCommand::Retry { id } => {
            let entry = known(app, &id)?;
            if !entry.from_mailbox() {
                return Err(runtime(format!(
                    "{id} came by an XFCC call, not from the mailbox: its client was told that it \
                     failed, so it is not retried; `fernzug quarantine drop {id}` removes it"
                )));
            }
            match quarantine::retry(app, &entry).map_err(runtime)? {
                Processed::Done { log, .. } => {
                    for line in log {
                        println!("{line}");
                    }
                    println!(
                        "{id}: processed and out of quarantine; its answers go out with the next \
                         pass of `run` or `once`"
                    );
                    Ok(())
                }
                Processed::Duplicate => {
                    println!(
                        "{id}: a copy of it (its Message-ID) was processed before; out of quarantine"
                    );
                    Ok(())
                }
                Processed::Quarantined(reason) => {
                    Err(runtime(format!("{id}: quarantined again: {reason}")))
                }
            }
        }
        QuarantineCommand::Drop { id } => {
            let entry = known(app, &id)?;
            quarantine::drop(app, &entry).map_err(runtime)?;
            println!("{id}: out of quarantine, not processed");
            Ok(())
        }
    }
}

async fn shutdown_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = match signal(SignalKind::terminate()) {
            Ok(s) => s,
            Err(_) => {
                let _ = tokio::signal::ctrl_c().await;
                return;
            }
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = tokio::signal::ctrl_c() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}
