//! What goes wrong in sending: the sender not set up ([`SmtpError`]), one mail not accepted
//! ([`SendError`]).

use crate::secret::SecretError;

/// Why a [`Sender`](super::Sender) cannot be built.
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
    /// `Sender::new` was called outside a Tokio runtime (the pool's timers need one).
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
