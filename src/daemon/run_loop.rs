//! The daemon's loop (`run`): passes over the mailbox it keeps connected, waiting in IMAP IDLE
//! between them until the next wake-up ([`next_wake`]); while IMAP is away, passes without the
//! mailbox during the pause before it reconnects ([`reconnect_pause`]). What the loop keeps from
//! one pass to the next is a [`Daemon`].

use std::time::Duration;

use chrono::{DateTime, Utc};
use tokio::sync::watch;
use tracing::{info, warn};

use super::fetch::ReadTo;
use super::lending::{close_published, open_store, publish, requested, watch_requests};
use super::pass::{PassError, Reading, pass};
use super::seam::{Clock, Connect, Mailbox, Outgoing, login_backoff};
use super::systemd::Notifier;
use super::tending::Tending;
use crate::app::{App, AppError, Held};
use crate::config::Config;
use crate::imap::Woke;
use crate::pages::{StoreSlot, TakenBack};
use crate::vitals::Vitals;

/// What `run` keeps from one pass to the next.
pub(super) struct Daemon {
    /// The configuration it was started with.
    config: Config,
    /// What its passes do beyond `once`'s: the vitals and alerts, XFCC's calls, backups asked
    /// for, systemd's watchdog.
    tending: Tending,
    /// IMAP failures in a row: the pause before the next connection ([`reconnect_pause`]).
    failures: u32,
    /// Whether the first of them was a working connection that broke (tried again after a
    /// second) rather than a refused or failed connection or login.
    dropped: bool,
    /// Where the next listing begins: the mailbox's history is listed at the first pass after the
    /// store was opened, then only what came since.
    read_to: ReadTo,
    /// The store itself, kept open while the daemon waits for mail, until another fernzug command
    /// asks for it (`crate::app::store_request`): an idle pass does not reopen it.
    kept: Option<App>,
    /// What the last pass read, kept while the store is closed (`App::close`): a pass reads every
    /// game again only when another fernzug command wrote to the store meanwhile, or after an
    /// error.
    held: Option<Held>,
    /// Takes the store back from the pages when the loop ends, after `kept` is dropped.
    _taken_back: TakenBack,
    /// Where the tournament pages read the store the loop holds open (`crate::pages::StoreSlot`):
    /// put in when the loop opens the store, taken back whenever the loop lets go of it.
    pages: StoreSlot,
}

/// Where the loop goes after it left the mailbox.
pub(super) enum Then {
    /// To IMAP again (after the pause of [`reconnect_pause`]).
    Reconnect,
    /// Nowhere: shutdown.
    Stop,
}

/// What the loop waits for after a pass, and at most how long.
#[derive(Debug, Clone, Copy)]
pub(super) enum Waiting {
    /// Mail, in IMAP IDLE, re-issued at least every `idle_minutes`.
    Mail(Duration),
    /// IMAP, which is away: the rest of the pause before the next connection.
    Imap(Duration),
}

impl Daemon {
    /// Starts the HTTP listeners (XFCC, `/healthz`, the pages) and a daemon that has read
    /// nothing yet.
    pub(super) async fn start(
        config: Config,
        shutdown: &watch::Receiver<bool>,
    ) -> Result<Daemon, AppError> {
        let vitals = Vitals::new(config.relay.alert_minutes);
        // docs/xfcc.md: the XFCC listener hands its calls to this loop, which alone holds the
        // store. The tournament pages read the store the loop holds open; it is taken back from
        // them whenever the loop lets go of it, and when the loop ends.
        let pages = StoreSlot::default();
        let taken_back = pages.taken_back_on_drop();
        let xfcc = listen(&config, &vitals, &pages, shutdown.clone()).await?;
        let notifier = Notifier::from_env();
        Ok(Daemon {
            config,
            tending: Tending::new(vitals, xfcc, notifier),
            failures: 0,
            dropped: false,
            read_to: ReadTo::default(),
            kept: None,
            held: None,
            _taken_back: taken_back,
            pages,
        })
    }

    /// Passes until `shutdown` turns true ([`super::run`]): connected, over the mailbox
    /// ([`Daemon::serve`]); after a failure of IMAP, without it until it reconnects
    /// ([`Daemon::away`]).
    pub(super) async fn run<C: Connect, S, K: Clock>(
        mut self,
        imap: &C,
        sender: &S,
        clock: &K,
        mut shutdown: watch::Receiver<bool>,
    ) -> Result<(), AppError>
    where
        S: Outgoing + Clone + Send + Sync + 'static,
    {
        while !*shutdown.borrow() {
            if self.failures > 0 {
                let then = self.away::<C::Mailbox, S, K>(sender, clock, &mut shutdown);
                if let Then::Stop = then.await? {
                    return Ok(());
                }
            }
            let Some(inbox) = self.connect(imap, clock).await? else {
                continue;
            };
            if let Then::Stop = self.serve(inbox, sender, clock, &mut shutdown).await? {
                return Ok(());
            }
        }
        Ok(())
    }

    /// Connects to IMAP. `None` after a failure (counted, and the loop pauses, [`reconnect_pause`]):
    /// `run` never gives up — a refused login, a certificate or a host that does not answer is
    /// tried again, at most 4 times an hour after the first hour, and told to the operator
    /// (`crate::vitals`) while the outbox and the alerts go on ([`Daemon::away`]).
    async fn connect<C: Connect>(
        &mut self,
        imap: &C,
        clock: &impl Clock,
    ) -> Result<Option<C::Mailbox>, AppError> {
        let inbox = match imap.connect().await {
            Ok(i) => i,
            Err(e) => {
                if self.failures == 0 {
                    self.dropped = false;
                }
                self.imap_failed(clock, &e.to_string());
                if e.needs_operator() {
                    warn!("IMAP: {e} (the operator must mend this; fernzug keeps trying)");
                } else {
                    warn!("IMAP: {e}");
                }
                return Ok(None);
            }
        };
        self.tending.vitals.imap_ok(clock.now());
        self.tending.notifier.ready();
        self.tending.notifier.alive();
        info!("IMAP connected; waiting for mail");
        Ok(Some(inbox))
    }

    /// IMAP failed once more (`error`): counted, and told to the vitals.
    fn imap_failed(&mut self, clock: &impl Clock, error: &str) {
        self.failures += 1;
        self.tending.vitals.imap_failed(clock.now(), error);
    }

    /// Passes over the connected `inbox`, each followed by a wait in IMAP IDLE until the next
    /// wake-up ([`next_wake`], [`Daemon::wait`]), until IMAP fails or shutdown.
    async fn serve<M: Mailbox, S>(
        &mut self,
        mut inbox: M,
        sender: &S,
        clock: &impl Clock,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<Then, AppError>
    where
        S: Outgoing + Clone + Send + Sync + 'static,
    {
        loop {
            let started = std::time::Instant::now();
            let Some(mut app) = self.open(shutdown).await? else {
                inbox.logout().await;
                return Ok(Then::Stop);
            };
            let reading = Reading::Kept(&mut inbox, &mut self.read_to);
            let tending = Some(&mut self.tending);
            match pass(&mut app, reading, (sender, clock), None, tending, started).await {
                Ok(_) => self.failures = 0,
                Err(PassError::Mailbox { error, drained }) => {
                    drained?;
                    self.dropped = true;
                    self.imap_failed(clock, &error.to_string());
                    warn!("{error}; reconnecting");
                    return Ok(Then::Reconnect);
                }
                Err(PassError::Stop(e)) => return Err(e),
            }
            // The store stays open while waiting; the games read stay only up to a bound.
            app.rest_if_full();
            let idle_max = Duration::from_secs(self.config.imap.idle_minutes.clamp(1, 5) * 60);
            let wake = next_wake(&app, &self.tending, clock.now(), Waiting::Mail(idle_max))?;
            match self.wait(app, inbox, wake, clock, shutdown).await {
                Ok(i) => inbox = i,
                Err(then) => return Ok(then),
            }
        }
    }

    /// The store for a pass: the one kept open, else opened again (see [`open_store`]) and read
    /// from the mailbox's start; lent to the pages. `None` on shutdown.
    async fn open(
        &mut self,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<Option<App>, AppError> {
        let app = match self.kept.take() {
            Some(app) => app,
            None => {
                self.pages.set(None);
                // The store was let go (to another command, after an error): what it holds
                // as done may have changed, so this pass lists the mailbox from the start.
                self.read_to = ReadTo::default();
                match open_store(&self.config, self.held.take(), shutdown).await? {
                    Some(app) => app,
                    None => return Ok(None),
                }
            }
        };
        self.tending.restore(&app);
        publish(&self.pages, &self.config, &app);
        Ok(Some(app))
    }

    /// Waits in IMAP IDLE for at most `wake`, with the store open: mail, an XFCC call (answered
    /// at the top of the next pass) or the wait's end keep it open for the next pass; a command
    /// that asks for the store ends the wait, and the store is let go until that command is
    /// done. The mailbox for the next pass, or where the loop goes instead.
    async fn wait<M: Mailbox>(
        &mut self,
        app: App,
        inbox: M,
        wake: Duration,
        clock: &impl Clock,
        shutdown: &watch::Receiver<bool>,
    ) -> Result<M, Then> {
        let data_dir = &self.config.relay.data_dir;
        let xfcc_wake = self.tending.xfcc.as_ref().map(|c| c.wake.clone());
        let (mut woken, watcher) = watch_requests(shutdown, data_dir, xfcc_wake);
        let waited = inbox.wait(wake, &mut woken).await;
        watcher.abort();
        match waited {
            Ok((i, Woke::Shutdown)) if *shutdown.borrow() => {
                i.logout().await;
                Err(Then::Stop)
            }
            Ok((i, Woke::Shutdown)) if requested(data_dir) => {
                info!("another fernzug command asks for the store: let go until it is done");
                self.held = Some(close_published(app, &self.pages));
                Ok(i)
            }
            // New mail, the wait's end, or an XFCC call: the store stays open.
            Ok((i, _)) => {
                self.kept = Some(app);
                Ok(i)
            }
            Err(e) => {
                self.held = Some(close_published(app, &self.pages));
                self.dropped = true;
                self.imap_failed(clock, &e.to_string());
                warn!("IMAP: {e}; reconnecting");
                Err(Then::Reconnect)
            }
        }
    }

    /// IMAP is away: the pause of [`reconnect_pause`] before the next connection. The outbox
    /// does not wait for IMAP, deadlines do (see `chores`): meanwhile passes go on without the
    /// mailbox, each with the store opened and let go again, looked at again soon (an outage is
    /// told once it counts, `crate::vitals`). `M`: the loop's kind of mailbox, which these passes
    /// do not read.
    async fn away<M: Mailbox, S, K: Clock>(
        &mut self,
        sender: &S,
        clock: &K,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<Then, AppError>
    where
        S: Outgoing + Clone + Send + Sync + 'static,
    {
        let wait = reconnect_pause(self.failures, self.dropped, rand::random());
        let next = clock.now() + chrono::Duration::from_std(wait).unwrap_or_default();
        warn!(
            "IMAP: next try in {:.0} s, at {}",
            wait.as_secs_f64(),
            next.with_timezone(&self.config.relay.time_zone)
                .format("%Y-%m-%d %H:%M:%S %Z")
        );
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            if let Some(app) = self.kept.take() {
                self.held = Some(close_published(app, &self.pages));
            }
            // A store dropped without `close_published` (an error) is not kept open by a page.
            self.pages.set(None);
            let Some(mut app) = open_store(&self.config, self.held.take(), shutdown).await? else {
                return Ok(Then::Stop);
            };
            self.tending.restore(&app);
            publish(&self.pages, &self.config, &app);
            let (world, tending) = ((sender, clock), Some(&mut self.tending));
            let started = std::time::Instant::now();
            pass(&mut app, Reading::<M>::Away, world, None, tending, started).await?;
            let rest = deadline.saturating_duration_since(tokio::time::Instant::now());
            let wake = next_wake(&app, &self.tending, clock.now(), Waiting::Imap(rest))?;
            self.held = Some(close_published(app, &self.pages));
            let step = tokio::time::Instant::now() + wake;
            tokio::select! {
                _ = tokio::time::sleep_until(step.min(deadline)) => {}
                _ = shutdown.changed() => {}
            }
            if *shutdown.borrow() {
                return Ok(Then::Stop);
            }
            if tokio::time::Instant::now() >= deadline {
                return Ok(Then::Reconnect);
            }
        }
    }
}

/// The shortest wait for something due: one that is due already is looked at again after this,
/// not at once.
const MIN_WAKE: Duration = Duration::from_millis(50);

/// How long the loop may wait after a pass before the next one is needed, from `now` (the
/// clock's): until the core's next deadline, the outbox's next retry and the next outage to tell
/// ([`Vitals::next_alarm_at`]: an outage is told the moment it counts, not at the next look),
/// each at least [`MIN_WAKE`] away; at most [`UNSETTLED_WAKE`] while something fails or waits
/// (always while IMAP is away), half the watchdog's interval, and what `waiting` allows.
/// Deadlines and outages wake only a loop that reads the mailbox: no deadline fires without it
/// (see `chores`), and a loop without it looks every [`UNSETTLED_WAKE`].
pub(super) fn next_wake(
    app: &App,
    tending: &Tending,
    now: DateTime<Utc>,
    waiting: Waiting,
) -> Result<Duration, AppError> {
    let until = |at: DateTime<Utc>| (at - now).to_std().unwrap_or(Duration::ZERO).max(MIN_WAKE);
    let (mut wake, reading) = match waiting {
        Waiting::Mail(idle_max) => (idle_max, true),
        Waiting::Imap(rest) => (rest, false),
    };
    let deadline = if reading { app.next_deadline()? } else { None };
    let mut retry = app.store.outbox().next_head_attempt()?;
    // Under a sending limit that is reached: when the next mail may go.
    if let Some(free) = super::deliver::sending_budget(app, now)?.next_free {
        retry = retry.map(|r| r.max(free));
    }
    let alarm = if reading {
        tending.vitals.next_alarm_at()
    } else {
        None
    };
    for at in [deadline, retry, alarm].into_iter().flatten() {
        wake = wake.min(until(at));
    }
    if tending.vitals.unsettled() {
        wake = wake.min(UNSETTLED_WAKE);
    }
    if let Some(w) = tending.notifier.max_wait() {
        wake = wake.min(w);
    }
    Ok(wake)
}

/// The pause before connecting to IMAP again after `failures` failures in a row: a working
/// connection that broke (`dropped`: the server restarted, IDLE was cut) is tried again after a
/// second; every failed connection or login after that waits [`login_backoff`] (30 s doubling
/// to 15 minutes).
pub fn reconnect_pause(failures: u32, dropped: bool, jitter_unit: f64) -> Duration {
    match (failures, dropped) {
        (0 | 1, true) => Duration::from_secs(1),
        (n, true) => login_backoff(n - 1, jitter_unit),
        (n, false) => login_backoff(n, jitter_unit),
    }
}

/// Starts the HTTP listeners of `[xfcc] listen` and `[http] listen` — one server when both name
/// the same address (`crate::http`) — and returns the loop's side of XFCC's channel.
async fn listen(
    config: &Config,
    vitals: &Vitals,
    store: &StoreSlot,
    shutdown: watch::Receiver<bool>,
) -> Result<Option<crate::xfcc::server::Calls>, AppError> {
    use crate::http::Service;
    use std::sync::Arc;
    let mut servers: Vec<(std::net::SocketAddr, Vec<Arc<dyn Service>>)> = Vec::new();
    let mut calls = None;
    if let Some(x) = &config.xfcc {
        let (door, c) = crate::xfcc::server::door(crate::xfcc::wsdl::wsdl(&x.url));
        calls = Some(c);
        servers.push((x.listen, vec![Arc::new(door)]));
    }
    if let Some(h) = &config.http {
        let ops: Arc<dyn Service> = Arc::new(crate::vitals::Ops {
            vitals: vitals.clone(),
        });
        let pages = crate::pages::Pages::new(
            store.clone(),
            crate::pages::PagesConfig {
                relay_name: config.relay.name.clone(),
                tz: config.relay.time_zone,
                default_lang: config.relay.language,
                delay_moves: h.delay_moves,
                templates_dir: config.relay.templates_dir.clone(),
            },
        )
        .map_err(AppError::Listen)?;
        let pages: Arc<dyn Service> = Arc::new(pages);
        match servers.iter_mut().find(|(a, _)| *a == h.listen) {
            Some((_, services)) => services.extend([ops, pages]),
            None => servers.push((h.listen, vec![ops, pages])),
        }
    }
    for (addr, services) in servers {
        let paths: Vec<&str> = services.iter().map(|s| s.paths()).collect();
        let paths = paths.join(", ");
        let bound = crate::http::serve(addr, services, shutdown.clone())
            .await
            .map_err(|e| AppError::Listen(format!("cannot listen on {addr} ({paths}): {e}")))?;
        info!("HTTP: serving {paths} on http://{bound}");
        if let Some(x) = config.xfcc.as_ref().filter(|x| x.listen == addr) {
            info!(
                "XFCC: serving XfccBasic on http://{bound}/xfccbasic.asmx (players are told {})",
                x.url
            );
        }
    }
    Ok(calls)
}

/// How long the loop waits at most while something fails or waits (`Vitals::unsettled`): an
/// outage is told within this of counting, and its end too.
const UNSETTLED_WAKE: Duration = Duration::from_secs(30);
