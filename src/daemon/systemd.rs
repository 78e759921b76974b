//! systemd's notify protocol for `run` under `Type=notify` (deploy/systemd/fernzug.service), through the
//! `sd-notify` crate: `READY=1` after the first IMAP login, `WATCHDOG=1` from the loop while it is
//! alive (at most every quarter of `WatchdogSec=`), with `STATUS=` saying it waits for mail.
//! Without systemd (no `NOTIFY_SOCKET`) every call does nothing.

use std::time::{Duration, Instant};

use sd_notify::NotifyState;

/// The daemon's side of the protocol.
#[derive(Debug)]
pub struct Notifier {
    /// `WatchdogSec=` as systemd passes it (`WATCHDOG_USEC`), if the watchdog is on.
    watchdog: Option<Duration>,
    last_ping: Option<Instant>,
    ready: bool,
}

impl Notifier {
    /// Reads the watchdog's interval from the environment systemd gave.
    pub fn from_env() -> Notifier {
        let mut usec = 0u64;
        let watchdog =
            sd_notify::watchdog_enabled(false, &mut usec).then(|| Duration::from_micros(usec));
        Notifier {
            watchdog,
            last_ping: None,
            ready: false,
        }
    }

    /// The longest the loop may wait between two pings (half the watchdog's interval).
    pub fn max_wait(&self) -> Option<Duration> {
        self.watchdog.map(|w| w / 2)
    }

    /// Ready: the mailbox was logged into for the first time (later logins say nothing).
    pub fn ready(&mut self) {
        if !self.ready {
            self.ready = true;
            let _ = sd_notify::notify(
                false,
                &[NotifyState::Ready, NotifyState::Status("waiting for mail")],
            );
        }
    }

    /// The loop is alive: pings the watchdog (at most every quarter of its interval).
    pub fn alive(&mut self) {
        let Some(w) = self.watchdog else {
            return;
        };
        if self.last_ping.is_none_or(|at| at.elapsed() >= w / 4) {
            self.last_ping = Some(Instant::now());
            let _ = sd_notify::notify(false, &[NotifyState::Watchdog]);
        }
    }
}
