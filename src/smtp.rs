//! Sending mail over SMTP (our own client in `smtp/client.rs`: tokio, rustls with ring, trusting what
//! [`crate::tls::Trust`] trusts: the system's store plus `[smtp] ca_file`; AUTH PLAIN, LOGIN or
//! XOAUTH2; `TCP_NODELAY`, PIPELINING where offered, open connections reused from a pool).
//!
//! The relay renders every mail itself (with its own Message-ID) and sends the raw bytes
//! unchanged to one envelope recipient at a time. A failure says what the server answered and at
//! which stage ([`SendError::Refused`]), or that it could not be reached
//! ([`SendError::Unreachable`]); whom it concerns — that recipient or the relay's own sending — is
//! the core's to judge (`crate::core::unreachable::verdict`).

use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lettre::address::Address;
use tokio_rustls::TlsConnector;

mod client;
mod error;
mod settings;

use client::{Connection, Failure};
pub use error::{SendError, SmtpError};
pub use settings::SmtpSettings;

use crate::core::unreachable::verdict::SmtpStage;
use crate::tls::Trust;
pub use crate::tls::{DEFAULT_TIMEOUT, Security};

/// How long a connection may wait unused in the pool before it is closed instead of reused
/// (servers drop idle clients after a minute or more; RFC 5321 asks them to wait 5 minutes).
const POOL_IDLE: Duration = Duration::from_secs(45);
/// The most idle connections kept.
const POOL_MAX: usize = 8;

/// Sends raw mails; cheap to clone (clones share one pool of open connections, used one mail
/// at a time each, so several mails can go out in parallel over several connections).
#[derive(Clone)]
pub struct Sender {
    settings: SmtpSettings,
    tls: Option<TlsConnector>,
    pool: Arc<Mutex<Vec<Connection>>>,
}

impl fmt::Debug for Sender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sender")
            .field("settings", &self.settings)
            .finish()
    }
}

impl Sender {
    /// Build a sender (no connection is made yet). Must run inside a Tokio runtime.
    pub fn new(settings: SmtpSettings) -> Result<Sender, SmtpError> {
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(SmtpError::NoRuntime);
        }
        let tls_err = |reason: String| SmtpError::Tls {
            host: settings.host.clone(),
            port: settings.port,
            reason,
        };
        let tls = match settings.security {
            Security::Tls | Security::Starttls => {
                let trust = Trust::load(settings.ca_file.as_deref())
                    .map_err(|e| tls_err(format!("{e} ([smtp] ca_file)")))?;
                let config = trust.client_config().map_err(|e| tls_err(e.to_string()))?;
                Some(TlsConnector::from(config))
            }
            Security::None => None,
        };
        match (&settings.user, &settings.password) {
            (Some(_), None) => return Err(SmtpError::Credentials { given: "user" }),
            (None, Some(_)) => return Err(SmtpError::Credentials { given: "password" }),
            _ => {}
        }
        Ok(Sender {
            settings,
            tls,
            pool: Arc::new(Mutex::new(Vec::new())),
        })
    }

    /// `SMTP host:port`, how the lines name the server.
    fn server(&self) -> String {
        format!("SMTP {}:{}", self.settings.host, self.settings.port)
    }

    /// The server did not finish within `whole`: worth another try.
    fn too_slow(&self, whole: Duration) -> SendError {
        SendError::Unreachable {
            message: format!(
                "the SMTP server {}:{} did not finish within {} s",
                self.settings.host,
                self.settings.port,
                whole.as_secs()
            ),
        }
    }

    /// A new connection. The password is read for each (`[smtp] password_command` run again):
    /// one the operator mended is used at the next try, without a restart.
    async fn open(&self) -> Result<Connection, SendError> {
        let password = match (&self.settings.user, &self.settings.password) {
            (Some(_), Some(secret)) => {
                Some(secret.reveal().map_err(|e| SendError::NeedsOperator {
                    message: format!("{}: {}", self.server(), SmtpError::Secret(e)),
                })?)
            }
            _ => None,
        };
        Connection::open(&self.settings, self.tls.as_ref(), password.as_deref())
            .await
            .map_err(|f| client::classify(f, &self.server()))
    }

    /// Connect, TLS and AUTH without sending anything (`fernzug check`).
    pub async fn probe(&self) -> Result<(), SendError> {
        let whole = self.settings.timeout.saturating_mul(2);
        let attempt = async {
            let mut c = self.open().await?;
            let alive = c
                .noop()
                .await
                .map_err(|f| client::classify(f, &self.server()))?;
            c.quit().await;
            if alive {
                Ok(())
            } else {
                Err(SendError::Unreachable {
                    message: format!(
                        "the SMTP server {}:{} did not answer NOOP",
                        self.settings.host, self.settings.port
                    ),
                })
            }
        };
        match tokio::time::timeout(whole, attempt).await {
            Ok(r) => r,
            Err(_) => Err(self.too_slow(whole)),
        }
    }

    /// Send `raw` unchanged from `envelope_from` (empty: the null sender `<>`) to
    /// `recipient`. `Ok` means the server accepted the mail.
    pub async fn send(
        &self,
        envelope_from: &str,
        recipient: &str,
        raw: &[u8],
    ) -> Result<(), SendError> {
        // RFC 3463: X.1.7 the sender's address is bad, X.1.3 the recipient's.
        let invalid = |(stage, code): (SmtpStage, &str), addr: &str, e: &dyn fmt::Display| {
            let what = if stage == SmtpStage::Mail {
                "sender"
            } else {
                "recipient"
            };
            SendError::Refused {
                stage,
                code: 553,
                lines: vec![format!(
                    "{code} {what} address `{addr}` is not a valid mail address ({e}); not sent"
                )],
            }
        };
        let from = envelope_from.trim();
        if !from.is_empty() {
            from.parse::<Address>()
                .map_err(|e| invalid((SmtpStage::Mail, "5.1.7"), envelope_from, &e))?;
        }
        let to = recipient.trim();
        to.parse::<Address>()
            .map_err(|e| invalid((SmtpStage::Rcpt, "5.1.3"), recipient, &e))?;
        let utf8 = !from.is_ascii() || !to.is_ascii();
        let data = client::data_block(raw);
        // Every single read and write is limited; this bounds the whole exchange.
        let whole = self.settings.timeout.saturating_mul(4);
        match tokio::time::timeout(
            whole,
            self.send_data(from, to, &data, utf8, !raw.is_ascii()),
        )
        .await
        {
            Ok(r) => r,
            Err(_) => Err(self.too_slow(whole)),
        }
    }

    async fn send_data(
        &self,
        from: &str,
        to: &str,
        data: &[u8],
        utf8: bool,
        eight_bit: bool,
    ) -> Result<(), SendError> {
        if let Some(mut c) = self.pooled() {
            match c.send(from, to, data, utf8, eight_bit).await {
                Ok(()) => {
                    self.give_back(c);
                    return Ok(());
                }
                // A reused connection the server has closed meanwhile fails before it took
                // anything: the mail goes over a fresh one.
                Err(Failure::Io(_)) if !c.data_sent => {}
                Err(f) => {
                    if matches!(f, Failure::Reply(..)) {
                        self.give_back(c);
                    }
                    return Err(client::classify(f, &self.server()));
                }
            }
        }
        let mut c = self.open().await?;
        match c.send(from, to, data, utf8, eight_bit).await {
            Ok(()) => {
                self.give_back(c);
                Ok(())
            }
            Err(f) => {
                if matches!(f, Failure::Reply(..)) {
                    self.give_back(c);
                }
                Err(client::classify(f, &self.server()))
            }
        }
    }

    /// An open connection of the pool that has not waited too long, if there is one.
    fn pooled(&self) -> Option<Connection> {
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        while let Some(c) = pool.pop() {
            if c.idle_since.elapsed() < POOL_IDLE {
                return Some(c);
            }
        }
        None
    }

    fn give_back(&self, c: Connection) {
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        if pool.len() < POOL_MAX {
            pool.push(c);
        }
    }

    /// Closes the pooled connections politely (QUIT).
    pub async fn close(&self) {
        let all: Vec<Connection> = {
            let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
            pool.drain(..).collect()
        };
        for c in all {
            c.quit().await;
        }
    }
}

/// The first retry delay.
const BACKOFF_BASE: Duration = Duration::from_secs(30);
/// The longest retry delay (before jitter).
const BACKOFF_CAP: Duration = Duration::from_secs(60 * 60);

/// The delay before the next delivery attempt after `attempts` failed ones: 30 s, 1 min,
/// 2 min, 4 min, … capped at 1 h (`attempts` 0 and 1 both give 30 s), then scaled by
/// `0.8 + 0.4 * jitter_unit` (±20 %; `jitter_unit` in 0..1, supplied by the caller,
/// clamped; NaN counts as 0.5).
pub fn backoff(attempts: u32, jitter_unit: f64) -> Duration {
    let doublings = attempts.saturating_sub(1).min(16);
    let base = BACKOFF_BASE
        .saturating_mul(1u32 << doublings)
        .min(BACKOFF_CAP);
    let unit = if jitter_unit.is_nan() {
        0.5
    } else {
        jitter_unit.clamp(0.0, 1.0)
    };
    base.mul_f64(0.8 + 0.4 * unit)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secret::Auth;

    fn secs(d: Duration) -> f64 {
        d.as_secs_f64()
    }

    #[test]
    fn backoff_doubles_from_30_s_up_to_one_hour() {
        let mid: Vec<f64> = (0..12).map(|n| secs(backoff(n, 0.5))).collect();
        assert_eq!(
            mid,
            vec![
                30.0, 30.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 3600.0, 3600.0, 3600.0,
                3600.0
            ]
        );
        assert_eq!(secs(backoff(u32::MAX, 0.5)), 3600.0);
    }

    #[test]
    fn backoff_jitter_is_plus_minus_20_percent() {
        assert!((secs(backoff(3, 0.0)) - 96.0).abs() < 1e-9);
        assert!((secs(backoff(3, 1.0)) - 144.0).abs() < 1e-9);
        assert!((secs(backoff(3, 7.0)) - 144.0).abs() < 1e-9);
        assert!((secs(backoff(3, -1.0)) - 96.0).abs() < 1e-9);
        assert!((secs(backoff(3, f64::NAN)) - 120.0).abs() < 1e-9);
        assert!((secs(backoff(20, 1.0)) - 4320.0).abs() < 1e-9);
    }

    #[test]
    fn send_error_says_the_stage_and_the_code() {
        let r = SendError::Refused {
            stage: SmtpStage::Rcpt,
            code: 550,
            lines: vec!["5.1.1 no such user".into()],
        };
        let c = SendError::Unreachable {
            message: "connection refused".into(),
        };
        assert_eq!((r.code(), c.code()), (Some(550), None));
        assert_eq!(
            r.to_string(),
            "SMTP refused at RCPT TO (550): 5.1.1 no such user"
        );
        assert_eq!(c.to_string(), "connection refused");
        assert_eq!(c.refusal().stage, SmtpStage::Connect);
    }

    fn settings(port: u16) -> SmtpSettings {
        SmtpSettings {
            host: "127.0.0.1".into(),
            port,
            security: Security::None,
            user: None,
            password: None,
            auth: Auth::Password,
            ca_file: None,
            timeout: Duration::from_secs(5),
        }
    }

    #[test]
    fn sender_outside_runtime_is_refused() {
        assert!(matches!(
            Sender::new(settings(25)),
            Err(SmtpError::NoRuntime)
        ));
    }

    #[tokio::test]
    async fn half_credentials_are_refused() {
        let mut s = settings(25);
        s.user = Some("relay".into());
        let err = Sender::new(s).unwrap_err();
        assert!(
            matches!(err, SmtpError::Credentials { given: "user" }),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn an_invalid_recipient_is_refused_at_rcpt_without_contacting_a_server() {
        let sender = Sender::new(settings(1)).unwrap();
        let err = sender
            .send("relay@x.test", "not an address", b"x")
            .await
            .unwrap_err();
        assert!(
            matches!(
                &err,
                SendError::Refused { stage: SmtpStage::Rcpt, code: 553, lines }
                    if lines[0].starts_with("5.1.3 ")
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("not an address"), "{err}");
    }

    #[tokio::test]
    async fn a_closed_port_is_unreachable() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let sender = Sender::new(settings(port)).unwrap();
        let err = sender
            .send("relay@x.test", "a@x.test", b"Subject: x\r\n\r\nx\r\n")
            .await
            .unwrap_err();
        assert!(matches!(err, SendError::Unreachable { .. }), "{err:?}");
    }

    /// A one-shot fake SMTP server: `replies` gives the reply (any number of lines, each with its
    /// code) to the commands starting with its word (`EHLO`, `AUTH`, `MAIL`, `RCPT`, `DATA`, `.`
    /// for the end of the data, `220` for the greeting); the others are answered as a server
    /// that takes everything would. `pipelining`: whether EHLO offers PIPELINING.
    async fn fake_server(
        replies: &'static [(&'static str, &'static str)],
        pipelining: bool,
    ) -> (u16, tokio::task::JoinHandle<()>) {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let answer = move |word: &str, default: &str| {
            replies
                .iter()
                .find(|(w, _)| *w == word)
                .map(|(_, r)| format!("{}\r\n", r.replace('\n', "\r\n")))
                .unwrap_or_else(|| default.to_string())
        };
        let task = tokio::spawn(async move {
            let (sock, _) = listener.accept().await.unwrap();
            let (r, mut w) = sock.into_split();
            let mut lines = BufReader::new(r).lines();
            w.write_all(answer("220", "220 fake ESMTP\r\n").as_bytes())
                .await
                .unwrap();
            let mut in_data = false;
            while let Ok(Some(line)) = lines.next_line().await {
                let cmd = line.to_ascii_uppercase();
                let reply = if in_data {
                    if line != "." {
                        continue;
                    }
                    in_data = false;
                    answer(".", "250 queued\r\n")
                } else if cmd.starts_with("EHLO") {
                    let offers = if pipelining {
                        "250-fake\r\n250-PIPELINING\r\n250 AUTH PLAIN\r\n"
                    } else {
                        "250-fake\r\n250 AUTH PLAIN\r\n"
                    };
                    answer("EHLO", offers)
                } else if cmd.starts_with("AUTH") {
                    answer("AUTH", "235 ok\r\n")
                } else if cmd.starts_with("MAIL") {
                    answer("MAIL", "250 ok\r\n")
                } else if cmd.starts_with("RCPT") {
                    answer("RCPT", "250 ok\r\n")
                } else if cmd.starts_with("DATA") {
                    let r = answer("DATA", "354 go\r\n");
                    in_data = r.starts_with("354");
                    r
                } else if cmd.starts_with("QUIT") {
                    let _ = w.write_all(b"221 bye\r\n").await;
                    break;
                } else {
                    "250 ok\r\n".to_string()
                };
                if w.write_all(reply.as_bytes()).await.is_err() {
                    break;
                }
            }
        });
        (port, task)
    }

    /// What sending one mail through a fake server with `replies` ends in.
    async fn refusal(
        replies: &'static [(&'static str, &'static str)],
        pipelining: bool,
        login: bool,
    ) -> SendError {
        let (port, task) = fake_server(replies, pipelining).await;
        let mut s = settings(port);
        if login {
            s.user = Some("relay".into());
            s.password = Some(crate::secret::Secret::Fixed("secret".into()));
        }
        let sender = Sender::new(s).unwrap();
        let err = sender
            .send("relay@x.test", "a@x.test", b"Subject: x\r\n\r\nx\r\n")
            .await
            .unwrap_err();
        task.abort();
        err
    }

    fn refused(stage: SmtpStage, code: u16, lines: &[&str]) -> SendError {
        SendError::Refused {
            stage,
            code,
            lines: lines.iter().map(|l| l.to_string()).collect(),
        }
    }

    #[tokio::test]
    async fn a_rcpt_refusal_names_rcpt_with_its_code_and_text() {
        for pipelining in [false, true] {
            let err = refusal(&[("RCPT", "451 4.3.0 try again later")], pipelining, false).await;
            assert_eq!(
                err,
                refused(SmtpStage::Rcpt, 451, &["4.3.0 try again later"])
            );
            let err = refusal(&[("RCPT", "550 5.1.1 no such mailbox")], pipelining, false).await;
            assert_eq!(
                err,
                refused(SmtpStage::Rcpt, 550, &["5.1.1 no such mailbox"])
            );
        }
    }

    #[tokio::test]
    async fn a_refusal_at_data_names_the_data_stage_and_keeps_every_line() {
        const G9: &str = "550-5.4.5 Daily user sending limit exceeded. For more information on Gmail\n550-5.4.5 sending limits go to\n550 5.4.5  https://support.google.com/a/answer/166852 x - gsmtp";
        for pipelining in [false, true] {
            let err = refusal(&[("DATA", G9)], pipelining, false).await;
            assert_eq!(
                err,
                refused(
                    SmtpStage::Data,
                    550,
                    &[
                        "5.4.5 Daily user sending limit exceeded. For more information on Gmail",
                        "5.4.5 sending limits go to",
                        "5.4.5  https://support.google.com/a/answer/166852 x - gsmtp",
                    ]
                )
            );
        }
    }

    #[tokio::test]
    async fn a_refusal_after_the_data_names_the_end_of_data() {
        let err = refusal(&[(".", "554 5.2.2 mailbox full")], true, false).await;
        assert_eq!(
            err,
            refused(SmtpStage::EndOfData, 554, &["5.2.2 mailbox full"])
        );
    }

    #[tokio::test]
    async fn a_refused_sender_names_mail_from() {
        let err = refusal(
            &[(
                "MAIL",
                "553 5.7.1 <relay@x.test>: Sender address rejected: not owned by user",
            )],
            true,
            false,
        )
        .await;
        assert!(
            matches!(
                err,
                SendError::Refused {
                    stage: SmtpStage::Mail,
                    code: 553,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn a_454_or_535_at_auth_is_a_reply_to_judge_not_an_operator_failure() {
        let err = refusal(
            &[(
                "AUTH",
                "454 4.7.0 Too many login attempts, please try again later.",
            )],
            false,
            true,
        )
        .await;
        assert_eq!(
            err,
            refused(
                SmtpStage::Auth,
                454,
                &["4.7.0 Too many login attempts, please try again later."]
            )
        );
        let err = refusal(
            &[("AUTH", "535 5.7.8 Error: authentication failed")],
            false,
            true,
        )
        .await;
        assert!(
            matches!(
                err,
                SendError::Refused {
                    stage: SmtpStage::Auth,
                    code: 535,
                    ..
                }
            ),
            "{err:?}"
        );
    }

    #[tokio::test]
    async fn a_greeting_554_names_the_connection() {
        let err = refusal(
            &[(
                "220",
                "554-gmx.net Nemesis ESMTP Service not available\n554 IP address is block listed.",
            )],
            false,
            false,
        )
        .await;
        assert_eq!(
            err,
            refused(
                SmtpStage::Connect,
                554,
                &[
                    "gmx.net Nemesis ESMTP Service not available",
                    "IP address is block listed."
                ]
            )
        );
    }
}
