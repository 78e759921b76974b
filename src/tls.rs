//! Whom the relay trusts over TLS, and what it says when a server is not trusted.
//!
//! Certificates are checked against the operating system's store (on Debian `/etc/ssl/certs`,
//! what `update-ca-certificates` installs, read by `rustls-native-certs`; `SSL_CERT_FILE` and
//! `SSL_CERT_DIR` are honoured) plus the PEM certificates of the section's `ca_file` — a
//! federation's own CA or a self-signed server. Only when the system has no store at all (a bare
//! container) the compiled-in Mozilla roots (`webpki-roots`) stand in, so hosted providers still
//! work. The host name — or the IP address, when `host` is one — is checked against the
//! certificate by rustls (webpki). One [`Trust`] serves IMAP (tokio-rustls) and SMTP (both tokio-rustls).
//!
//! The vocabulary IMAP and SMTP share lives here too: how a connection is secured
//! ([`Security`]), the byte stream under a session, plain or TLS (`Stream`), and the time
//! limit of one network call ([`DEFAULT_TIMEOUT`]).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::str::FromStr;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::{self, CertificateError, RootCertStore, pki_types::CertificateDer};

/// The time limit of one network call, IMAP and SMTP alike.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// How a connection to a mail server is secured (shared by IMAP and SMTP).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    /// TLS from the first byte (IMAPS 993, SMTPS 465).
    Tls,
    /// Plain connection upgraded with STARTTLS (IMAP 143, submission 587).
    Starttls,
    /// No encryption (only for a server on the same host, e.g. tests).
    None,
}

impl Security {
    /// The name used in the configuration file.
    pub fn name(self) -> &'static str {
        match self {
            Security::Tls => "tls",
            Security::Starttls => "starttls",
            Security::None => "none",
        }
    }
}

impl fmt::Display for Security {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Security::Tls => "tls",
            Security::Starttls => "starttls",
            Security::None => "none",
        })
    }
}

/// Why a text is not a [`Security`] mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a connection security mode: use tls, starttls or none")]
pub struct ParseSecurityError(pub String);

impl FromStr for Security {
    type Err = ParseSecurityError;
    fn from_str(s: &str) -> Result<Security, ParseSecurityError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "tls" => Ok(Security::Tls),
            "starttls" => Ok(Security::Starttls),
            "none" => Ok(Security::None),
            _ => Err(ParseSecurityError(s.to_string())),
        }
    }
}

/// The byte stream under an IMAP or SMTP session: plain TCP (also before STARTTLS) or TLS over
/// TCP.
#[derive(Debug)]
pub(crate) enum Stream {
    Plain(TcpStream),
    Tls(Box<TlsStream<TcpStream>>),
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// The roots one connection trusts.
#[derive(Clone)]
pub struct Trust {
    roots: Vec<CertificateDer<'static>>,
    /// The system has no store: the compiled-in Mozilla roots stand in.
    pub mozilla: bool,
}

impl fmt::Debug for Trust {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Trust({} roots)", self.roots.len())
    }
}

/// Why the trusted roots could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrustError {
    /// `ca_file` cannot be read.
    #[error("cannot read {}: {reason}", path.display())]
    Unreadable { path: PathBuf, reason: String },
    /// `ca_file` holds no PEM certificate, or a broken one.
    #[error("{} holds no usable PEM certificate ({reason})", path.display())]
    NoCertificate { path: PathBuf, reason: String },
}

impl Trust {
    /// The system's roots plus those of `ca_file`.
    pub fn load(ca_file: Option<&Path>) -> Result<Trust, TrustError> {
        let mut roots = system_roots();
        let mozilla = roots.is_empty();
        if let Some(path) = ca_file {
            roots.extend(read_ca_file(path)?);
        }
        Ok(Trust { roots, mozilla })
    }

    /// A rustls client configuration (ring, TLS 1.2 and 1.3) trusting these roots.
    pub fn client_config(&self) -> Result<Arc<rustls::ClientConfig>, rustls::Error> {
        let mut store = RootCertStore::empty();
        store.add_parsable_certificates(self.roots.iter().cloned());
        if self.mozilla {
            store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        }
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()?
        .with_root_certificates(store)
        .with_no_client_auth();
        Ok(Arc::new(config))
    }
}

/// The operating system's roots (empty when it has no store).
fn system_roots() -> Vec<CertificateDer<'static>> {
    let found = rustls_native_certs::load_native_certs();
    if found.certs.is_empty() && !found.errors.is_empty() {
        tracing::debug!("no system certificate store: {:?}", found.errors);
    }
    found.certs
}

/// The PEM certificates of `path`: at least one, none broken.
pub fn read_ca_file(path: &Path) -> Result<Vec<CertificateDer<'static>>, TrustError> {
    let bytes = std::fs::read(path).map_err(|e| TrustError::Unreadable {
        path: path.to_path_buf(),
        reason: crate::io_text::io_message(&e),
    })?;
    pem_certificates(path, &bytes)
}

/// The PEM certificates in `bytes` (read from `path`): at least one, none broken.
pub fn pem_certificates(
    path: &Path,
    bytes: &[u8],
) -> Result<Vec<CertificateDer<'static>>, TrustError> {
    use rustls::pki_types::pem::PemObject;
    let certs = CertificateDer::pem_slice_iter(bytes)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| TrustError::NoCertificate {
            path: path.to_path_buf(),
            reason: e.to_string(),
        })?;
    if certs.is_empty() {
        return Err(TrustError::NoCertificate {
            path: path.to_path_buf(),
            reason: "no -----BEGIN CERTIFICATE----- block".to_string(),
        });
    }
    Ok(certs)
}

/// Why a TLS connection was refused, in the operator's words, with the key to change; `None`
/// when `err` (or its sources) is no certificate problem.
pub fn explain(err: &(dyn std::error::Error + 'static), section: &str) -> Option<String> {
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(err);
    while let Some(e) = cur {
        if let Some(r) = e.downcast_ref::<rustls::Error>() {
            return Some(explain_rustls(r, section));
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>()
            && let Some(inner) = io.get_ref()
            && let Some(r) = inner.downcast_ref::<rustls::Error>()
        {
            return Some(explain_rustls(r, section));
        }
        cur = e.source();
    }
    None
}

fn explain_rustls(e: &rustls::Error, section: &str) -> String {
    match e {
        rustls::Error::InvalidCertificate(c) => match c {
            CertificateError::UnknownIssuer => format!(
                "the server's certificate is not signed by a trusted CA (unknown issuer); if the server uses its own CA or a self-signed certificate, put that certificate (PEM) into [{section}] ca_file"
            ),
            CertificateError::Expired | CertificateError::ExpiredContext { .. } => {
                "the server's certificate has expired; the server's operator must renew it (fernzug does not accept expired certificates)".to_string()
            }
            CertificateError::NotValidYet | CertificateError::NotValidYetContext { .. } => {
                "the server's certificate is not valid yet; check this machine's clock and the server's certificate".to_string()
            }
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                format!(
                    "the server's certificate is for another host name; set [{section}] host to a name the certificate names"
                )
            }
            CertificateError::Revoked => "the server's certificate is revoked".to_string(),
            other => format!("the server's certificate is refused ({other:?})"),
        },
        other => format!("TLS failed: {other}"),
    }
}
