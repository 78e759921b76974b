//! Where and how the relay sends mail ([`SmtpSettings`]), from `[smtp]`.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::secret::{Auth, Secret};
use crate::tls::{DEFAULT_TIMEOUT, Security};

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

impl From<&crate::config::SmtpConfig> for SmtpSettings {
    /// The settings of `[smtp]`, with the default time limit of a network call.
    fn from(c: &crate::config::SmtpConfig) -> SmtpSettings {
        SmtpSettings {
            host: c.host.clone(),
            port: c.port,
            security: c.security,
            user: c.user.clone(),
            password: c.password.clone(),
            auth: c.auth,
            ca_file: c.ca_file.clone(),
            timeout: DEFAULT_TIMEOUT,
        }
    }
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
