//! What a pass of `run` does beyond `once`'s ([`Tending`]): once the mailbox is read, the XFCC
//! calls waiting are answered and a backup asked for is taken; after the chores, the vitals are
//! fed, the operator's alerts sent and the watchdog pinged ([`Tending::tend`]).

use std::time::Duration;

use chrono::{DateTime, Utc};
use tracing::{info, warn};

use super::deliver::{finish, start_courier};
use super::report::PassReport;
use super::seam::{Clock, Outgoing};
use super::systemd::Notifier;
use crate::app::{App, AppError};
use crate::core::OperatorAlert;
use crate::vitals::{Alarm, Vitals};
use crate::xfcc::server::Calls;

/// What `run` keeps from one pass to the next for what it does beyond `once`.
pub(super) struct Tending {
    /// How the relay is doing (`/healthz`, `/metrics`), and the outages to tell the operator.
    pub(super) vitals: Vitals,
    /// The loop's side of XFCC's channel (`[xfcc]`): the calls the listener hands over.
    pub(super) xfcc: Option<Calls>,
    /// systemd's notify protocol: READY after the first IMAP login, WATCHDOG from each pass.
    pub(super) notifier: Notifier,
    /// A backup asked for by `fernzug backup`, written on a thread of its own (app/backup.rs).
    backup: Option<std::thread::JoinHandle<()>>,
    /// When the games were last counted by state (`/metrics`): at most once a minute.
    counted: Option<std::time::Instant>,
    /// Whether the outages told before the start were read from the store ([`Tending::restore`]).
    restored: bool,
}

impl Tending {
    /// Tending with nothing done yet.
    pub(super) fn new(vitals: Vitals, xfcc: Option<Calls>, notifier: Notifier) -> Tending {
        Tending {
            vitals,
            xfcc,
            notifier,
            backup: None,
            counted: None,
            restored: false,
        }
    }

    /// Once, at the first opening of the store: the outages the operator was told of before a
    /// restart (kept with their alert, `Meta::outages_told`) are not told again while they last,
    /// and their end is told.
    pub(super) fn restore(&mut self, app: &App) {
        if std::mem::replace(&mut self.restored, true) {
            return;
        }
        let told: Vec<(String, DateTime<Utc>)> = app
            .state
            .meta
            .outages_told
            .iter()
            .map(|(c, s)| (c.clone(), *s))
            .collect();
        if !told.is_empty() {
            info!("outages told before the restart: {told:?}");
        }
        self.vitals.restore(&told);
    }

    /// The mailbox was read: IMAP works, and the XFCC calls waiting are answered — a mail
    /// postmarked earlier decided before them, and the deadlines they fire are judged with the
    /// mailbox listed (TO §14). Then a backup asked for is taken.
    pub(super) fn mailbox_read(
        &mut self,
        app: &mut App,
        clock: &impl Clock,
    ) -> Result<(), AppError> {
        self.vitals.imap_ok(clock.now());
        if let Some(calls) = &mut self.xfcc {
            answer_xfcc(app, calls, clock)?;
        }
        self.take_backup(app);
        Ok(())
    }

    /// Takes a backup asked for ([`take_backup`]).
    pub(super) fn take_backup(&mut self, app: &App) {
        take_backup(app, &mut self.backup);
    }

    /// After the chores: what the pass did and what the store holds go to the vitals
    /// (`/healthz`, `/metrics`); each outage that began to count or ended is told to the operator
    /// ([`tell_operator`]); the watchdog is pinged.
    pub(super) async fn tend<S>(
        &mut self,
        app: &mut App,
        sender: &S,
        report: &PassReport,
        now: DateTime<Utc>,
    ) -> Result<(), AppError>
    where
        S: Outgoing + Clone + Send + Sync + 'static,
    {
        let back = self.feed(app, report, now)?;
        let alarms = self.vitals.alarms(now);
        if !alarms.is_empty() || back {
            tell_operator(app, sender, &self.vitals, alarms, now).await?;
        }
        self.notifier.alive();
        Ok(())
    }

    /// What the pass did and what the store holds go to the vitals (`crate::vitals`); the games
    /// are counted by state at most every [`GAMES_EVERY`]. Whether SMTP works again: then what
    /// waited for it is due now, not at each mail's next retry.
    fn feed(
        &mut self,
        app: &mut App,
        report: &PassReport,
        now: DateTime<Utc>,
    ) -> Result<bool, AppError> {
        let vitals = &self.vitals;
        vitals.count(report.processed as u64, report.sent as u64);
        let mut back = false;
        match &report.smtp {
            Some(Ok(())) => back = vitals.smtp_ok(now),
            Some(Err(e)) => vitals.smtp_failed(now, e),
            None => {}
        }
        if back {
            // SMTP works again: what waited for it goes now, not at each mail's next retry.
            let n = app.store.outbox().due_now(now)?;
            info!("SMTP works again: {n} mails waiting for a retry go now");
        }
        let f = app.store.figures()?;
        vitals.figures(crate::vitals::Figures {
            outbox: f.outbox,
            oldest: f.oldest,
            quarantine: f.quarantine,
            held_by: held_by(app, now)?,
        });
        if self.counted.is_none_or(|at| at.elapsed() >= GAMES_EVERY) {
            self.counted = Some(std::time::Instant::now());
            vitals.games(app.store.games_by_state()?.into_iter().collect());
        }
        Ok(back)
    }
}

/// Why mail waits for a sending limit at `now`, in the operator's words, if it does: "held by
/// [smtp] max_per_day = 500 (500 sent in the last 24 h); the next goes at 2026-12-07 14:03 CET".
fn held_by(app: &App, now: DateTime<Utc>) -> Result<Option<String>, AppError> {
    let Some((budget, window)) = super::deliver::sending_window(app, now)? else {
        return Ok(None);
    };
    let Some(free) = budget.next_free else {
        return Ok(None);
    };
    let smtp = &app.config.smtp;
    let mut limits = Vec::new();
    if smtp.max_per_hour > 0 {
        limits.push(format!(
            "max_per_hour = {} ({} sent in the last hour)",
            smtp.max_per_hour,
            window.used(now, 60)
        ));
    }
    if smtp.max_per_day > 0 {
        limits.push(format!(
            "max_per_day = {} ({} sent in the last 24 h)",
            smtp.max_per_day,
            window.used(now, 24 * 60)
        ));
    }
    Ok(Some(format!(
        "held by [smtp] {}; the next goes at {}",
        limits.join(", "),
        free.with_timezone(&app.config.relay.time_zone)
            .format("%Y-%m-%d %H:%M %Z")
    )))
}

/// How often the games are counted by state for `/metrics` at most (one read of every game).
const GAMES_EVERY: Duration = Duration::from_secs(60);

/// Tells `[relay] operator` of each outage that began to count or ended (`alarms`) by an
/// `alert`, sent at once together with what else is due (after an SMTP outage: what waited for
/// it); an SMTP outage's alert waits in the outbox until SMTP works again. Without an operator
/// the alarms are logged.
async fn tell_operator<S>(
    app: &mut App,
    sender: &S,
    vitals: &Vitals,
    alarms: Vec<Alarm>,
    now: DateTime<Utc>,
) -> Result<(), AppError>
where
    S: Outgoing + Clone + Send + Sync + 'static,
{
    let Some(operator) = app.config.relay.operator.clone() else {
        for a in &alarms {
            warn!("{a:?} (no [relay] operator to tell)");
        }
        return Ok(());
    };
    for a in alarms {
        for line in app.alert(&alert_of(&operator, a), now)? {
            warn!("{line}");
        }
    }
    // Sent at once (an SMTP outage's alert waits in the outbox until SMTP works again).
    let mut sent = PassReport::default();
    let courier = start_courier(app, sender, now)?;
    finish(app, courier, now, &mut sent).await?;
    vitals.count(0, sent.sent as u64);
    Ok(())
}

/// The alert that tells `operator` of `alarm`: an outage that began to count, or its end.
fn alert_of(operator: &str, alarm: Alarm) -> OperatorAlert {
    match alarm {
        Alarm::Raised {
            concern,
            since,
            detail,
        } => OperatorAlert {
            operator: operator.to_string(),
            concern: concern.name().into(),
            since,
            until: None,
            detail,
        },
        Alarm::Cleared {
            concern,
            since,
            until,
        } => OperatorAlert {
            operator: operator.to_string(),
            concern: concern.name().into(),
            since,
            until: Some(until),
            detail: String::new(),
        },
    }
}

/// Answers every XFCC call waiting (docs/xfcc.md): a login is checked against the store, a
/// move processed as the letter it stands for, durable before it is answered (its forward and
/// receipt leave with the pass's outbox). Only a failure of the store is an error; the call then
/// gets `ServerError`. Called after the mailbox was read: while IMAP is away, calls wait (and
/// get `ServerError` after a minute), since no deadline can be judged then.
fn answer_xfcc(
    app: &mut App,
    calls: &mut crate::xfcc::server::Calls,
    clock: &impl Clock,
) -> Result<(), AppError> {
    use crate::xfcc::server::Answer;
    use crate::xfcc::soap::Call;
    while let Ok(job) = calls.jobs.try_recv() {
        let now = app.now_at(None, clock.now())?;
        let (username, password) = match &job.call {
            Call::GetMyGames { username, password } => (username, password),
            Call::MakeAMove(m) => (&m.username, &m.password),
        };
        let done = match app.xfcc_check_login(username, password) {
            Ok(None) => {
                // At most 100 characters of what the client wrote, so the log stays readable.
                let shown: String = username.chars().take(100).collect();
                warn!("XFCC: failed login of {shown:?} from {}", job.client);
                Ok(Answer::Denied)
            }
            Ok(Some(email)) => match &job.call {
                Call::GetMyGames { .. } => app.xfcc_games(&email, now).map(Answer::Games),
                Call::MakeAMove(m) => app.xfcc_move(&email, m, job.client, now).map(Answer::Moved),
            },
            Err(e) => Err(e),
        };
        match done {
            Ok(answer) => {
                let _ = job.reply.send(answer);
            }
            Err(e) => {
                let _ = job.reply.send(Answer::Failed);
                return Err(e);
            }
        }
    }
    Ok(())
}

/// Takes a backup asked for by `fernzug backup` (`crate::app::backup`), unless one is still
/// being written: it is written on a thread of its own through a clone of the store, while the
/// loop goes on.
fn take_backup(app: &App, slot: &mut Option<std::thread::JoinHandle<()>>) {
    if slot.as_ref().is_some_and(|h| !h.is_finished()) {
        return;
    }
    *slot = crate::app::backup::take(&app.store, &app.config.relay.data_dir);
}
