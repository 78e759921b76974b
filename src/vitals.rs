//! How the relay is doing, for the operator (docs/operating.md): whether IMAP and SMTP work,
//! what waits in the outbox and in quarantine, how many games there are — kept by the daemon's
//! loop as it works, read by `/healthz` and `/metrics` ([`Ops`], a service of `crate::http`)
//! without asking the loop, and turned into `alert` mails to `[relay] operator` ([`Vitals::alarms`]).
//!
//! - **An outage** is IMAP or SMTP failing without a success since, or a mail (other than an
//!   alert) waiting in the outbox, for `[relay] alert_minutes`. A contact counts as a success
//!   when the server took the relay's mail or judged one recipient: an SMTP server that defers or
//!   refuses a recipient (4xx, 5xx at RCPT TO) works; a refused connection, a timeout, a TLS
//!   failure, and a refusal of the relay itself (its login, its sender, a quota, a policy, DATA:
//!   `core::unreachable::verdict`) do not.
//! - **Alarms** ([`Alarm`]): one when an outage begins to count, one when it is over, with its
//!   start. They are mails like any other (the outbox, retried), so an SMTP outage is told once
//!   SMTP works again. An outage of IMAP or SMTP that counted but ended before the loop looked
//!   is told both ways at its next look. Never a loop: an alert waiting in the outbox is not an
//!   outage of its own.
//! - **Metrics** (Prometheus text format, `prometheus-client`): `fernzug_mails_received_total`,
//!   `fernzug_mails_sent_total`, `fernzug_outbox_mails`, `fernzug_outbox_oldest_age_seconds`,
//!   `fernzug_quarantine_mails`, `fernzug_imap_last_success_timestamp_seconds`,
//!   `fernzug_smtp_last_success_timestamp_seconds`, `fernzug_games{state="…"}`.

use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Mutex};

use chrono::{DateTime, Duration, Utc};
use futures::future::BoxFuture;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

use crate::http::{Request, Response, Service};

/// What the operator's alerts are about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Concern {
    /// The mailbox cannot be read.
    Imap,
    /// The SMTP server cannot be reached.
    Smtp,
    /// A mail waits in the outbox (the SMTP server takes others, or takes none).
    Outbox,
}

impl Concern {
    /// The name in the alert's header and the log (`imap`, `smtp`, `outbox`).
    pub fn name(self) -> &'static str {
        match self {
            Concern::Imap => "imap",
            Concern::Smtp => "smtp",
            Concern::Outbox => "outbox",
        }
    }
}

/// A change the operator is told of: an outage that now counts, or one that is over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Alarm {
    /// `concern` fails since `since`; `detail` is the last error (or what waits).
    Raised {
        concern: Concern,
        since: DateTime<Utc>,
        detail: String,
    },
    /// `concern` failed from `since` until `until` and works again.
    Cleared {
        concern: Concern,
        since: DateTime<Utc>,
        until: DateTime<Utc>,
    },
}

/// One connection's record: its last success and, while it fails, since when and why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Link {
    last_success: Option<DateTime<Utc>>,
    failing_since: Option<DateTime<Utc>>,
    last_error: String,
    /// When it last worked again after failing.
    recovered: Option<DateTime<Utc>>,
}

impl Link {
    fn ok(&mut self, now: DateTime<Utc>) {
        self.last_success = Some(now);
        if self.failing_since.take().is_some() {
            self.recovered = Some(now);
        }
    }

    fn failed(&mut self, now: DateTime<Utc>, error: &str) {
        self.failing_since.get_or_insert(now);
        self.last_error = error.to_string();
    }
}

/// What the loop last saw of the store.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Figures {
    /// Entries waiting in the outbox (one per mail and recipient).
    pub outbox: u64,
    /// When the oldest entry other than an alert was queued.
    pub oldest: Option<DateTime<Utc>>,
    /// Why mail waits besides, when a sending limit holds it (`[smtp] max_per_day …`).
    pub held_by: Option<String>,
    /// Mails kept in quarantine.
    pub quarantine: u64,
}

#[derive(Debug, Default)]
struct Inner {
    imap: Link,
    smtp: Link,
    figures: Figures,
    /// Games by state (`running`, `finished`, …).
    games: Vec<(String, u64)>,
    /// The outages the operator was told of, with their start.
    raised: std::collections::BTreeMap<Concern, DateTime<Utc>>,
    /// Outages that counted (`alert_minutes` long) but ended before the loop looked: told both
    /// ways at its next look, so that no outage `/healthz` showed goes untold.
    untold: Vec<Untold>,
    /// What `/healthz` last answered (the concerns failing; none: `ok`), logged when it changes.
    answered: Vec<Concern>,
}

/// An outage that counted and ended before it was told.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Untold {
    concern: Concern,
    since: DateTime<Utc>,
    until: DateTime<Utc>,
    detail: String,
}

impl Inner {
    /// `concern` works again at `now`: an outage of it that counted but was not told yet is
    /// kept to be told (`Vitals::alarms`).
    fn ended(&mut self, concern: Concern, now: DateTime<Utc>, alert_after: Duration) {
        let link = match concern {
            Concern::Imap => &self.imap,
            Concern::Smtp => &self.smtp,
            Concern::Outbox => return,
        };
        if let Some(since) = link.failing_since
            && now - since >= alert_after
            && !self.raised.contains_key(&concern)
        {
            self.untold.push(Untold {
                concern,
                since,
                until: now,
                detail: link.last_error.clone(),
            });
        }
    }
}

/// The relay's vitals: shared by the loop (which writes them) and the HTTP listener (which
/// reads them). Cheap to clone.
#[derive(Clone)]
pub struct Vitals {
    inner: Arc<Mutex<Inner>>,
    alert_after: Duration,
    registry: Arc<Registry>,
    received: Counter,
    sent: Counter,
    outbox: Gauge,
    outbox_age: Gauge<f64, AtomicU64>,
    quarantine: Gauge,
    imap_last: Gauge<f64, AtomicU64>,
    smtp_last: Gauge<f64, AtomicU64>,
    games: Family<Vec<(String, String)>, Gauge>,
}

impl std::fmt::Debug for Vitals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Vitals").finish_non_exhaustive()
    }
}

impl Vitals {
    /// Vitals judging outages after `alert_minutes` (`[relay] alert_minutes`).
    pub fn new(alert_minutes: u32) -> Vitals {
        let mut registry = Registry::default();
        let received = Counter::default();
        let sent = Counter::default();
        let outbox = Gauge::default();
        let outbox_age = Gauge::<f64, AtomicU64>::default();
        let quarantine = Gauge::default();
        let imap_last = Gauge::<f64, AtomicU64>::default();
        let smtp_last = Gauge::<f64, AtomicU64>::default();
        let games = Family::<Vec<(String, String)>, Gauge>::default();
        registry.register(
            "fernzug_mails_received",
            "Mails read from the mailbox and decided on",
            received.clone(),
        );
        registry.register(
            "fernzug_mails_sent",
            "Mails the SMTP server accepted (one per recipient)",
            sent.clone(),
        );
        registry.register(
            "fernzug_outbox_mails",
            "Mails waiting in the outbox (one per recipient)",
            outbox.clone(),
        );
        registry.register(
            "fernzug_outbox_oldest_age_seconds",
            "How long the oldest mail of the outbox (alerts left out) has waited",
            outbox_age.clone(),
        );
        registry.register(
            "fernzug_quarantine_mails",
            "Mails kept in quarantine",
            quarantine.clone(),
        );
        registry.register(
            "fernzug_imap_last_success_timestamp_seconds",
            "When the mailbox was last read (Unix time; 0: not yet)",
            imap_last.clone(),
        );
        registry.register(
            "fernzug_smtp_last_success_timestamp_seconds",
            "When the SMTP server last answered (Unix time; 0: not yet)",
            smtp_last.clone(),
        );
        registry.register("fernzug_games", "Games by state", games.clone());
        Vitals {
            inner: Arc::new(Mutex::new(Inner::default())),
            alert_after: Duration::minutes(i64::from(alert_minutes)),
            registry: Arc::new(registry),
            received,
            sent,
            outbox,
            outbox_age,
            quarantine,
            imap_last,
            smtp_last,
            games,
        }
    }

    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        let mut inner = self.inner.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut inner)
    }

    /// The outages told before a restart (`concern` name, since): they are not told again
    /// while they last, and their end is told. A link that worked since the start is not
    /// failing for it.
    pub fn restore(&self, told: &[(String, DateTime<Utc>)]) {
        self.with(|i| {
            for (name, since) in told {
                let concern = match name.as_str() {
                    "imap" => Concern::Imap,
                    "smtp" => Concern::Smtp,
                    "outbox" => Concern::Outbox,
                    _ => continue,
                };
                i.raised.insert(concern, *since);
                let link = match concern {
                    Concern::Imap => &mut i.imap,
                    Concern::Smtp => &mut i.smtp,
                    Concern::Outbox => continue,
                };
                // Failing since the start (or not tried yet): since before the restart.
                if link.last_success.is_none() {
                    let first = link.failing_since.map_or(*since, |f| f.min(*since));
                    link.failing_since = Some(first);
                    if link.last_error.is_empty() {
                        link.last_error = "failing since before the restart".to_string();
                    }
                }
            }
        });
    }

    /// The mailbox was read (logged in, listed, or waited on) at `now`.
    pub fn imap_ok(&self, now: DateTime<Utc>) {
        self.with(|i| {
            i.ended(Concern::Imap, now, self.alert_after);
            i.imap.ok(now);
        });
    }

    /// The mailbox could not be read at `now`.
    pub fn imap_failed(&self, now: DateTime<Utc>, error: &str) {
        self.with(|i| i.imap.failed(now, error));
    }

    /// The SMTP server answered at `now`. Whether it had failed until then (it is back).
    pub fn smtp_ok(&self, now: DateTime<Utc>) -> bool {
        self.with(|i| {
            let was_failing = i.smtp.failing_since.is_some();
            i.ended(Concern::Smtp, now, self.alert_after);
            i.smtp.ok(now);
            was_failing
        })
    }

    /// The SMTP server could not be reached at `now`.
    pub fn smtp_failed(&self, now: DateTime<Utc>, error: &str) {
        self.with(|i| i.smtp.failed(now, error));
    }

    /// Mails read and decided on, and mails the SMTP server accepted.
    pub fn count(&self, received: u64, sent: u64) {
        self.received.inc_by(received);
        self.sent.inc_by(sent);
    }

    /// What the loop saw of the outbox and the quarantine.
    pub fn figures(&self, figures: Figures) {
        self.with(|i| i.figures = figures);
    }

    /// The games by state, as the loop last counted them.
    pub fn games(&self, games: Vec<(String, u64)>) {
        self.with(|i| i.games = games);
    }

    /// Whether something fails or waits (or an outage was told of): then the loop looks again
    /// within a short while, so that an outage is told soon after it counts, and its end too.
    pub fn unsettled(&self) -> bool {
        self.with(|i| {
            i.imap.failing_since.is_some()
                || i.smtp.failing_since.is_some()
                || i.figures.oldest.is_some()
                || !i.raised.is_empty()
        })
    }

    /// When the next outage will count (`alert_minutes` after a failure began or a mail began to
    /// wait), if one is coming and not yet told: the loop wakes then, so that the alert does not
    /// wait for its next look (`unsettled`).
    pub fn next_alarm_at(&self) -> Option<DateTime<Utc>> {
        self.with(|i| {
            let mut at = Vec::new();
            for (concern, link) in [(Concern::Imap, &i.imap), (Concern::Smtp, &i.smtp)] {
                if let Some(since) = link.failing_since
                    && !i.raised.contains_key(&concern)
                {
                    at.push(since + self.alert_after);
                }
            }
            if let Some(oldest) = i.figures.oldest
                && i.smtp.failing_since.is_none()
                && !i.raised.contains_key(&Concern::Outbox)
            {
                at.push(i.smtp.recovered.map_or(oldest, |r| oldest.max(r)) + self.alert_after);
            }
            at.into_iter().min()
        })
    }

    /// The outages at `now`: each concern that fails for `alert_minutes`, since when and why.
    fn outages(&self, inner: &Inner, now: DateTime<Utc>) -> Vec<(Concern, DateTime<Utc>, String)> {
        let mut out = Vec::new();
        let long = |since: DateTime<Utc>| now - since >= self.alert_after;
        for (concern, link) in [(Concern::Imap, &inner.imap), (Concern::Smtp, &inner.smtp)] {
            if let Some(since) = link.failing_since.filter(|s| long(*s)) {
                out.push((concern, since, link.last_error.clone()));
            }
        }
        // A mail that waits while SMTP fails is part of that outage, not one of its own; after
        // it, a mail counts as waiting from when SMTP worked again.
        let waiting = inner
            .figures
            .oldest
            .map(|o| inner.smtp.recovered.map_or(o, |r| o.max(r)));
        if let Some(oldest) = waiting.filter(|o| long(*o))
            && inner.smtp.failing_since.is_none()
        {
            out.push((
                Concern::Outbox,
                oldest,
                format!(
                    "{} mails wait in the outbox, the oldest since {}{}",
                    inner.figures.outbox,
                    oldest.format("%Y-%m-%d %H:%M UTC"),
                    inner
                        .figures
                        .held_by
                        .as_ref()
                        .map(|h| format!("; {h}"))
                        .unwrap_or_default()
                ),
            ));
        }
        out
    }

    /// `/healthz`'s answer at `now`: `Ok` while nothing fails for `alert_minutes`; else the
    /// concerns that fail, by name only (`imap, smtp`): no host, no error text, which are for the
    /// operator, not the world. The details go to the log, once each time the answer changes.
    pub fn healthz(&self, now: DateTime<Utc>) -> Result<(), String> {
        let (concerns, changed) = self.with(|i| {
            let concerns: Vec<Concern> = self.outages(i, now).iter().map(|o| o.0).collect();
            let changed = concerns != i.answered;
            i.answered.clone_from(&concerns);
            (concerns, changed)
        });
        if changed {
            match self.health(now) {
                Ok(()) => tracing::info!("/healthz: ok"),
                Err(why) => tracing::warn!("/healthz: unhealthy: {why}"),
            }
        }
        if concerns.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = concerns.iter().map(|c| c.name()).collect();
        Err(names.join(", "))
    }

    /// The operator's account of the outages at `now` (the log's): `Ok` while nothing fails for
    /// `alert_minutes`; else what fails, since when and why, one line.
    pub fn health(&self, now: DateTime<Utc>) -> Result<(), String> {
        let outages = self.with(|i| self.outages(i, now));
        if outages.is_empty() {
            return Ok(());
        }
        Err(outages
            .iter()
            .map(|(c, since, detail)| {
                format!(
                    "{} failing since {}: {detail}",
                    c.name(),
                    since.format("%Y-%m-%d %H:%M:%S UTC")
                )
            })
            .collect::<Vec<_>>()
            .join("; "))
    }

    /// What the operator is to be told at `now`: each outage that began to count since the
    /// last call, each one told of that is over, and each that counted and ended between two
    /// calls (both ways: it began, it is over). Each is returned once.
    pub fn alarms(&self, now: DateTime<Utc>) -> Vec<Alarm> {
        self.with(|inner| {
            let outages = self.outages(inner, now);
            let mut alarms = Vec::new();
            for u in std::mem::take(&mut inner.untold) {
                alarms.push(Alarm::Raised {
                    concern: u.concern,
                    since: u.since,
                    detail: u.detail,
                });
                alarms.push(Alarm::Cleared {
                    concern: u.concern,
                    since: u.since,
                    until: u.until,
                });
            }
            let raised: Vec<(Concern, DateTime<Utc>)> =
                inner.raised.iter().map(|(c, s)| (*c, *s)).collect();
            for (concern, since) in raised {
                if !outages.iter().any(|(c, ..)| *c == concern) {
                    inner.raised.remove(&concern);
                    alarms.push(Alarm::Cleared {
                        concern,
                        since,
                        until: now,
                    });
                }
            }
            for (concern, since, detail) in outages {
                if let std::collections::btree_map::Entry::Vacant(e) = inner.raised.entry(concern) {
                    e.insert(since);
                    alarms.push(Alarm::Raised {
                        concern,
                        since,
                        detail,
                    });
                }
            }
            alarms
        })
    }

    /// `/metrics`: the Prometheus text format, as of `now`.
    pub fn metrics(&self, now: DateTime<Utc>) -> String {
        let secs = |t: Option<DateTime<Utc>>| t.map_or(0.0, |t| t.timestamp_millis() as f64 / 1e3);
        self.with(|i| {
            self.outbox
                .set(i64::try_from(i.figures.outbox).unwrap_or(i64::MAX));
            self.outbox_age.set(
                i.figures
                    .oldest
                    .map_or(0.0, |o| (now - o).num_milliseconds().max(0) as f64 / 1e3),
            );
            self.quarantine
                .set(i64::try_from(i.figures.quarantine).unwrap_or(i64::MAX));
            self.imap_last.set(secs(i.imap.last_success));
            self.smtp_last.set(secs(i.smtp.last_success));
            self.games.clear();
            for (state, n) in &i.games {
                self.games
                    .get_or_create(&vec![("state".to_string(), state.clone())])
                    .set(i64::try_from(*n).unwrap_or(i64::MAX));
            }
        });
        let mut text = String::new();
        // Writing into a String does not fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut text, &self.registry);
        text
    }
}

/// `/healthz` and `/metrics` as a service of the HTTP listener.
pub struct Ops {
    pub vitals: Vitals,
}

impl Service for Ops {
    fn serves(&self, path: &str) -> bool {
        path == "/healthz" || path == "/metrics"
    }

    fn paths(&self) -> &'static str {
        "/healthz, /metrics"
    }

    fn answer(&self, request: Request) -> BoxFuture<'_, Response> {
        Box::pin(async move {
            if request.method != "GET" && request.method != "HEAD" {
                return Response::text(405, "GET only\n");
            }
            let now = Utc::now();
            if request.path() == "/metrics" {
                return Response::with(
                    200,
                    "text/plain; version=0.0.4; charset=utf-8",
                    self.vitals.metrics(now),
                );
            }
            match self.vitals.healthz(now) {
                Ok(()) => Response::text(200, "ok\n"),
                Err(what) => Response::text(503, format!("unhealthy: {what}\n")),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn at(h: u32, m: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 12, 4, h, m, 0).unwrap()
    }

    #[test]
    fn an_outage_counts_after_alert_minutes_and_is_told_once_each_way() {
        let v = Vitals::new(30);
        v.imap_ok(at(9, 0));
        v.smtp_ok(at(9, 0));
        assert_eq!(v.health(at(9, 0)), Ok(()));
        v.smtp_failed(at(9, 5), "connection refused");
        v.smtp_failed(at(9, 20), "connection refused");
        assert_eq!(v.health(at(9, 34)), Ok(()), "not yet 30 minutes");
        assert!(v.alarms(at(9, 34)).is_empty());
        let why = v.health(at(9, 35)).unwrap_err();
        assert!(
            why.starts_with("smtp failing since 2026-12-04 09:05:00 UTC: connection refused"),
            "{why}"
        );
        assert_eq!(
            v.alarms(at(9, 35)),
            vec![Alarm::Raised {
                concern: Concern::Smtp,
                since: at(9, 5),
                detail: "connection refused".into()
            }]
        );
        assert!(v.alarms(at(9, 50)).is_empty(), "told once");
        v.smtp_ok(at(10, 0));
        assert_eq!(v.health(at(10, 0)), Ok(()));
        assert_eq!(
            v.alarms(at(10, 1)),
            vec![Alarm::Cleared {
                concern: Concern::Smtp,
                since: at(9, 5),
                until: at(10, 1)
            }]
        );
        assert!(v.alarms(at(10, 2)).is_empty());
    }

    #[test]
    fn an_outage_that_ends_before_the_loop_looks_is_told_both_ways() {
        let v = Vitals::new(30);
        v.smtp_failed(at(9, 5), "connection refused");
        assert!(v.alarms(at(9, 34)).is_empty(), "not yet 30 minutes");
        assert!(v.health(at(9, 35)).is_err(), "/healthz shows it");
        // SMTP works again before the loop looked after 9:35.
        assert!(v.smtp_ok(at(9, 36)));
        assert_eq!(
            v.alarms(at(9, 36)),
            vec![
                Alarm::Raised {
                    concern: Concern::Smtp,
                    since: at(9, 5),
                    detail: "connection refused".into()
                },
                Alarm::Cleared {
                    concern: Concern::Smtp,
                    since: at(9, 5),
                    until: at(9, 36)
                }
            ]
        );
        assert!(v.alarms(at(9, 37)).is_empty(), "told once");
        // Shorter than alert_minutes: nothing to tell; a told outage ends as before.
        v.imap_failed(at(10, 0), "timeout");
        v.imap_ok(at(10, 29));
        assert!(v.alarms(at(10, 29)).is_empty());
        v.imap_failed(at(11, 0), "timeout");
        assert_eq!(v.alarms(at(11, 30)).len(), 1);
        v.imap_ok(at(11, 31));
        assert_eq!(
            v.alarms(at(11, 31)),
            vec![Alarm::Cleared {
                concern: Concern::Imap,
                since: at(11, 0),
                until: at(11, 31)
            }]
        );
    }

    #[test]
    fn mail_held_by_a_sending_limit_says_so_in_the_outbox_alarm() {
        let v = Vitals::new(30);
        v.figures(Figures {
            outbox: 40,
            oldest: Some(at(9, 0)),
            held_by: Some("held by [smtp] max_per_day = 500 (500 sent in the last 24 h)".into()),
            ..Figures::default()
        });
        let alarms = v.alarms(at(9, 30));
        let [
            Alarm::Raised {
                concern, detail, ..
            },
        ] = alarms.as_slice()
        else {
            panic!("{alarms:?}");
        };
        assert_eq!(*concern, Concern::Outbox);
        assert!(
            detail.ends_with("; held by [smtp] max_per_day = 500 (500 sent in the last 24 h)"),
            "{detail}"
        );
        assert!(v.alarms(at(9, 40)).is_empty(), "told once");
    }

    #[test]
    fn a_waiting_mail_is_an_outage_unless_smtp_is_down_and_an_alert_is_not_one() {
        let v = Vitals::new(30);
        v.figures(Figures {
            outbox: 3,
            oldest: Some(at(9, 0)),
            ..Figures::default()
        });
        assert!(v.health(at(9, 29)).is_ok());
        let why = v.health(at(9, 30)).unwrap_err();
        assert!(
            why.starts_with("outbox failing since 2026-12-04 09:00:00 UTC: 3 mails wait"),
            "{why}"
        );
        v.smtp_failed(at(9, 0), "timeout");
        let alarms = v.alarms(at(9, 40));
        assert_eq!(alarms.len(), 1, "{alarms:?}");
        assert!(matches!(
            alarms[0],
            Alarm::Raised {
                concern: Concern::Smtp,
                ..
            }
        ));
    }

    #[test]
    fn healthz_names_what_fails_and_nothing_else() {
        let v = Vitals::new(30);
        v.imap_ok(at(9, 0));
        v.smtp_ok(at(9, 0));
        assert_eq!(v.healthz(at(9, 0)), Ok(()));
        v.imap_failed(
            at(9, 5),
            "cannot connect to the IMAP server mail.intern.test:993: connection refused",
        );
        assert_eq!(v.healthz(at(9, 35)), Err("imap".to_string()));
        v.smtp_failed(at(9, 10), "SMTP 10.0.0.5:25: 421 too busy");
        let both = v.healthz(at(9, 40)).unwrap_err();
        assert_eq!(both, "imap, smtp");
        assert!(
            v.health(at(9, 40))
                .unwrap_err()
                .contains("mail.intern.test"),
            "the log's"
        );
        v.imap_ok(at(9, 41));
        v.smtp_ok(at(9, 41));
        assert_eq!(v.healthz(at(9, 41)), Ok(()));
    }

    #[test]
    fn metrics_are_prometheus_text_with_the_names_of_the_contract() {
        let v = Vitals::new(30);
        v.count(5, 7);
        v.imap_ok(at(9, 0));
        v.figures(Figures {
            outbox: 2,
            oldest: Some(at(8, 59)),
            quarantine: 1,
            held_by: None,
        });
        v.games(vec![("running".into(), 10), ("finished".into(), 4)]);
        let text = v.metrics(at(9, 0));
        for line in [
            "fernzug_mails_received_total 5",
            "fernzug_mails_sent_total 7",
            "fernzug_outbox_mails 2",
            "fernzug_outbox_oldest_age_seconds 60.0",
            "fernzug_quarantine_mails 1",
            "fernzug_imap_last_success_timestamp_seconds 1796374800.0",
            "fernzug_smtp_last_success_timestamp_seconds 0.0",
            "fernzug_games{state=\"running\"} 10",
            "fernzug_games{state=\"finished\"} 4",
            "# TYPE fernzug_outbox_mails gauge",
        ] {
            assert!(text.lines().any(|l| l == line), "{line} in\n{text}");
        }
    }
}
