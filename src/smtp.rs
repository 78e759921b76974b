//! Sending mail over SMTP (lettre, tokio, rustls with ring, trusting what
//! [`crate::tls::Trust`] trusts: the system's store plus `[smtp] ca_file`; AUTH PLAIN or LOGIN,
//! only over TLS unless the server is on loopback).
//!
//! The relay renders every mail itself (with its own Message-ID) and sends the raw bytes
//! unchanged to one envelope recipient at a time. Failures are classified so the caller
//! knows whether to retry later ([`SendError::Transient`], with [`backoff`]) or give up
//! and treat the address as refusing mail ([`SendError::Permanent`], 5xx).

use std::borrow::Cow;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use lettre::address::{Address, Envelope};
use lettre::transport::smtp::authentication::{Credentials, Mechanism};
use lettre::transport::smtp::client::{Certificate, CertificateStore, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Tokio1Executor};

pub use crate::imap::{DEFAULT_TIMEOUT, Security};
use crate::secret::{Auth, Secret, SecretError};
use crate::tls::Trust;

/// Where and how to send mail.
#[derive(Clone, PartialEq, Eq)]
pub struct SmtpSettings {
    pub host: String,
    pub port: u16,
    pub security: Security,
    /// Login name; `None` sends without AUTH.
    pub user: Option<String>,
    pub password: Option<Secret>,
    /// AUTH PLAIN/LOGIN with the password, or XOAUTH2 with it as the token.
    pub auth: Auth,
    /// PEM certificates trusted besides the system's store.
    pub ca_file: Option<PathBuf>,
    /// Time limit of one network operation (default 60 s).
    pub timeout: Duration,
}

impl fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("user", &self.user)
            .field("password", &self.password)
            .field("ca_file", &self.ca_file)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// Why a [`Sender`] cannot be built.
#[derive(Debug, thiserror::Error)]
pub enum SmtpError {
    /// TLS parameters for the host could not be made (e.g. `ca_file` unreadable).
    #[error("SMTP {host}:{port}: cannot set up TLS: {reason}")]
    Tls {
        host: String,
        port: u16,
        reason: String,
    },
    /// `password_command` gave no password.
    #[error("SMTP: {0}; fix [smtp] password_command")]
    Secret(#[from] SecretError),
    /// A user without password or a password without user.
    #[error("SMTP login needs both a user and a password; only the {given} is set")]
    Credentials { given: &'static str },
    /// `Sender::new` was called outside a Tokio runtime (lettre's pool needs one).
    #[error("the SMTP sender must be created inside a Tokio runtime")]
    NoRuntime,
}

/// Why one mail to one recipient was not accepted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// Try again later: 4xx replies, refused or broken connections, timeouts, TLS.
    #[error("temporary SMTP failure{}: {message}", code.map(|c| format!(" ({c})")).unwrap_or_default())]
    Transient { code: Option<u16>, message: String },
    /// The server refused for good (5xx): the address does not take mail. An address
    /// that is not even syntactically valid is refused here with code 553 without
    /// contacting the server.
    #[error("permanent SMTP failure ({code}): {message}")]
    Permanent { code: u16, message: String },
    /// Not the mail's fault and no use retrying it: the server's certificate is not trusted,
    /// STARTTLS is missing, or the login was refused. The mail stays queued, uncounted, and
    /// the relay stops with this line until the operator fixes the configuration.
    #[error("{message}")]
    NeedsOperator { message: String },
}

impl SendError {
    /// Whether retrying is pointless.
    pub fn is_permanent(&self) -> bool {
        matches!(self, SendError::Permanent { .. })
    }

    /// Whether the operator must act (see [`SendError::NeedsOperator`]).
    pub fn needs_operator(&self) -> bool {
        matches!(self, SendError::NeedsOperator { .. })
    }

    /// The SMTP reply code, if the server gave one.
    pub fn code(&self) -> Option<u16> {
        match self {
            SendError::Transient { code, .. } => *code,
            SendError::Permanent { code, .. } => Some(*code),
            SendError::NeedsOperator { .. } => None,
        }
    }
}

/// Classify one of lettre's SMTP errors.
fn classify(e: &lettre::transport::smtp::Error, s: &SmtpSettings) -> SendError {
    let server = format!("SMTP {}:{}", s.host, s.port);
    if let Some(why) = crate::tls::explain(e, "smtp") {
        return SendError::NeedsOperator {
            message: format!("{server}: {why}"),
        };
    }
    let text = e.to_string();
    if e.is_client() && text.contains("STARTTLS") {
        return SendError::NeedsOperator {
            message: format!(
                "{server}: the server does not offer STARTTLS; fernzug never falls back to plain text: use [smtp] security = \"tls\" (port 465) or a server that offers STARTTLS"
            ),
        };
    }
    if e.is_client() && text.contains("authentication") {
        return SendError::NeedsOperator {
            message: format!("{server}: {text}; check [smtp] user and the password"),
        };
    }
    // 530 authentication required, 534 mechanism too weak, 535 credentials invalid, 538
    // encryption required (RFC 4954).
    if let Some(code) = e.status().map(u16::from)
        && matches!(code, 530 | 534 | 535 | 538)
    {
        let reply = std::error::Error::source(e)
            .map(|m| m.to_string())
            .unwrap_or(text);
        return SendError::NeedsOperator {
            message: format!(
                "{server}: the server refused the login ({code} {reply}); check [smtp] user and the password"
            ),
        };
    }
    // For reply errors lettre's source is the server's text; the Display adds the code.
    let message = match std::error::Error::source(e) {
        Some(src) if e.status().is_some() => src.to_string(),
        _ => e.to_string(),
    };
    match e.status() {
        Some(code) if e.is_permanent() => SendError::Permanent {
            code: code.into(),
            message,
        },
        Some(code) => SendError::Transient {
            code: Some(code.into()),
            message,
        },
        // Connection, network, TLS, timeout, unparsable reply: all worth another try.
        None => SendError::Transient {
            code: None,
            message,
        },
    }
}

/// Sends raw mails; cheap to clone (clones share one connection pool).
#[derive(Clone)]
pub struct Sender {
    transport: AsyncSmtpTransport<Tokio1Executor>,
    settings: SmtpSettings,
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
        let tls_params = || {
            let trust = Trust::load(settings.ca_file.as_deref())
                .map_err(|e| tls_err(format!("{e} ([smtp] ca_file)")))?;
            let mut b =
                TlsParameters::builder(settings.host.clone()).certificate_store(if trust.mozilla {
                    CertificateStore::WebpkiRoots
                } else {
                    CertificateStore::None
                });
            for root in trust.roots() {
                let cert =
                    Certificate::from_der(root.to_vec()).map_err(|e| tls_err(e.to_string()))?;
                b = b.add_root_certificate(cert);
            }
            b.build_rustls().map_err(|e| tls_err(e.to_string()))
        };
        let tls = match settings.security {
            Security::Tls => Tls::Wrapper(tls_params()?),
            Security::Starttls => Tls::Required(tls_params()?),
            Security::None => Tls::None,
        };
        let mut builder =
            AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(settings.host.clone())
                .port(settings.port)
                .tls(tls)
                .timeout(Some(settings.timeout));
        match (&settings.user, &settings.password) {
            (Some(user), Some(password)) => {
                builder = builder.credentials(Credentials::new(user.clone(), password.reveal()?));
                match settings.auth {
                    Auth::Password => {}
                    Auth::Plain => builder = builder.authentication(vec![Mechanism::Plain]),
                    Auth::Xoauth2 => builder = builder.authentication(vec![Mechanism::Xoauth2]),
                }
            }
            (Some(_), None) => return Err(SmtpError::Credentials { given: "user" }),
            (None, Some(_)) => return Err(SmtpError::Credentials { given: "password" }),
            (None, None) => {}
        }
        Ok(Sender {
            transport: builder.build(),
            settings,
        })
    }

    /// The server did not finish within `whole`: worth another try.
    fn too_slow(&self, whole: Duration) -> SendError {
        SendError::Transient {
            code: None,
            message: format!(
                "the SMTP server {}:{} did not finish within {} s",
                self.settings.host,
                self.settings.port,
                whole.as_secs()
            ),
        }
    }

    /// Connect, TLS and AUTH without sending anything (`fernzug check`).
    pub async fn probe(&self) -> Result<(), SendError> {
        let whole = self.settings.timeout.saturating_mul(2);
        match tokio::time::timeout(whole, self.transport.test_connection()).await {
            Ok(Ok(true)) => Ok(()),
            Ok(Ok(false)) => Err(SendError::Transient {
                code: None,
                message: format!(
                    "the SMTP server {}:{} did not answer NOOP",
                    self.settings.host, self.settings.port
                ),
            }),
            Ok(Err(e)) => Err(classify(&e, &self.settings)),
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
        let invalid = |what: &str, addr: &str, e: &dyn fmt::Display| SendError::Permanent {
            code: 553,
            message: format!("{what} address `{addr}` is not a valid mail address ({e}); not sent"),
        };
        let from = if envelope_from.trim().is_empty() {
            None
        } else {
            Some(
                envelope_from
                    .trim()
                    .parse::<Address>()
                    .map_err(|e| invalid("sender", envelope_from, &e))?,
            )
        };
        let to = recipient
            .trim()
            .parse::<Address>()
            .map_err(|e| invalid("recipient", recipient, &e))?;
        let envelope =
            Envelope::new(from, vec![to]).map_err(|e| invalid("recipient", recipient, &e))?;
        // lettre limits every single read and write; this bounds the whole exchange.
        let whole = self.settings.timeout.saturating_mul(4);
        let body = data_content(raw);
        match tokio::time::timeout(whole, self.transport.send_raw(&envelope, &body)).await {
            Ok(Ok(_)) => Ok(()),
            Ok(Err(e)) => Err(classify(&e, &self.settings)),
            Err(_) => Err(self.too_slow(whole)),
        }
    }
}

/// What to hand to lettre so that the server receives exactly `raw`.
///
/// lettre dot-stuffs the content and always ends DATA with `CRLF . CRLF`, which adds a
/// line end of its own: so one final CRLF of `raw` is dropped here. SMTP carries only CRLF
/// line ends (lettre's dot-stuffing sees no other), so a bare LF or CR in `raw` (never in
/// the relay's own rendering) is turned into CRLF first.
fn data_content(raw: &[u8]) -> Cow<'_, [u8]> {
    let bare = raw.iter().enumerate().any(|(i, &b)| match b {
        b'\n' => i == 0 || raw.get(i - 1) != Some(&b'\r'),
        b'\r' => raw.get(i + 1) != Some(&b'\n'),
        _ => false,
    });
    let mut body: Cow<'_, [u8]> = if bare {
        let mut out = Vec::with_capacity(raw.len() + raw.len() / 32);
        let mut i = 0;
        while let Some(&b) = raw.get(i) {
            match b {
                b'\r' if raw.get(i + 1) == Some(&b'\n') => {
                    out.extend_from_slice(b"\r\n");
                    i += 2;
                    continue;
                }
                b'\r' | b'\n' => out.extend_from_slice(b"\r\n"),
                _ => out.push(b),
            }
            i += 1;
        }
        Cow::Owned(out)
    } else {
        Cow::Borrowed(raw)
    };
    if body.ends_with(b"\r\n") {
        match body {
            Cow::Borrowed(b) => body = Cow::Borrowed(b.get(..b.len() - 2).unwrap_or_default()),
            Cow::Owned(ref mut v) => v.truncate(v.len() - 2),
        }
    }
    body
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
    fn data_content_drops_the_final_crlf_lettre_adds_back() {
        assert_eq!(&*data_content(b"A: b\r\n\r\nbody\r\n"), b"A: b\r\n\r\nbody");
        assert_eq!(&*data_content(b"A: b\r\n\r\nbody"), b"A: b\r\n\r\nbody");
        assert_eq!(
            &*data_content(b"A: b\r\n\r\nbody\r\n\r\n"),
            b"A: b\r\n\r\nbody\r\n"
        );
        assert!(matches!(data_content(b"x\r\n"), Cow::Borrowed(_)));
        assert_eq!(&*data_content(b""), b"");
        assert_eq!(&*data_content(b"\r\n"), b"");
    }

    #[test]
    fn data_content_turns_bare_line_ends_into_crlf() {
        assert_eq!(&*data_content(b"A: b\n\n.x\n"), b"A: b\r\n\r\n.x");
        assert_eq!(&*data_content(b"\nA\rB\r\nC\n"), b"\r\nA\r\nB\r\nC");
    }

    #[test]
    fn send_error_reports_permanence_and_code() {
        let p = SendError::Permanent {
            code: 550,
            message: "no such user".into(),
        };
        let t = SendError::Transient {
            code: Some(421),
            message: "busy".into(),
        };
        let c = SendError::Transient {
            code: None,
            message: "connection refused".into(),
        };
        assert!(p.is_permanent() && !t.is_permanent() && !c.is_permanent());
        assert_eq!((p.code(), t.code(), c.code()), (Some(550), Some(421), None));
        assert_eq!(p.to_string(), "permanent SMTP failure (550): no such user");
        assert_eq!(t.to_string(), "temporary SMTP failure (421): busy");
        assert_eq!(c.to_string(), "temporary SMTP failure: connection refused");
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
    async fn invalid_recipient_is_permanent_without_contacting_a_server() {
        let sender = Sender::new(settings(1)).unwrap();
        let err = sender
            .send("relay@x.test", "not an address", b"x")
            .await
            .unwrap_err();
        assert!(
            matches!(err, SendError::Permanent { code: 553, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("not an address"), "{err}");
    }

    #[tokio::test]
    async fn closed_port_is_transient() {
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let sender = Sender::new(settings(port)).unwrap();
        let err = sender
            .send("relay@x.test", "a@x.test", b"Subject: x\r\n\r\nx\r\n")
            .await
            .unwrap_err();
        assert!(
            matches!(err, SendError::Transient { code: None, .. }),
            "{err:?}"
        );
    }

    /// A one-shot fake SMTP server answering RCPT with `rcpt_reply`.
    async fn fake_server(rcpt_reply: &'static str) -> (u16, tokio::task::JoinHandle<()>) {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let task = tokio::spawn(async move {
            let (sock, _) = listener.accept().await.unwrap();
            let (r, mut w) = sock.into_split();
            let mut lines = BufReader::new(r).lines();
            w.write_all(b"220 fake ESMTP\r\n").await.unwrap();
            while let Ok(Some(line)) = lines.next_line().await {
                let cmd = line.to_ascii_uppercase();
                let reply = if cmd.starts_with("EHLO") {
                    "250 fake\r\n".to_string()
                } else if cmd.starts_with("RCPT") {
                    format!("{rcpt_reply}\r\n")
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

    #[tokio::test]
    async fn rcpt_4xx_is_transient_with_code() {
        let (port, task) = fake_server("451 4.3.0 try again later").await;
        let sender = Sender::new(settings(port)).unwrap();
        let err = sender
            .send("relay@x.test", "a@x.test", b"Subject: x\r\n\r\nx\r\n")
            .await
            .unwrap_err();
        assert_eq!(
            err,
            SendError::Transient {
                code: Some(451),
                message: "4.3.0 try again later".into()
            }
        );
        task.abort();
    }

    #[tokio::test]
    async fn rcpt_5xx_is_permanent_with_code() {
        let (port, task) = fake_server("550 5.1.1 no such mailbox").await;
        let sender = Sender::new(settings(port)).unwrap();
        let err = sender
            .send("", "gone@x.test", b"Subject: x\r\n\r\nx\r\n")
            .await
            .unwrap_err();
        assert_eq!(
            err,
            SendError::Permanent {
                code: 550,
                message: "5.1.1 no such mailbox".into()
            }
        );
        task.abort();
    }
}
