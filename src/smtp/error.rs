//! What goes wrong in sending: the sender not set up ([`SmtpError`]), one mail not accepted
//! ([`SendError`]).

use crate::core::unreachable::verdict::{SmtpRefusal, SmtpStage};
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
    /// The password could not be read (`password_env`, `password_file`, `password_command`).
    #[error("SMTP password: {0}")]
    Secret(#[from] SecretError),
    /// A user without password or a password without user.
    #[error("SMTP login needs both a user and a password; only the {given} is set")]
    Credentials { given: &'static str },
    /// `Sender::new` was called outside a Tokio runtime (the pool's timers need one).
    #[error("the SMTP sender must be created inside a Tokio runtime")]
    NoRuntime,
}

/// Why one mail to one recipient was not accepted. What follows is the core's to decide
/// ([`crate::core::unreachable::verdict::judge`] of [`SendError::refusal`]): the shell only says
/// what the server answered and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SendError {
    /// The server could not be reached or the connection broke: refused, reset, a timeout, an
    /// unreadable reply.
    #[error("{message}")]
    Unreachable { message: String },
    /// The server answered a command with an error code (4xx, 5xx). An address that is not
    /// even syntactically valid is refused so without contacting the server (553 with
    /// `5.1.3`, the sender's `5.1.7`).
    #[error("SMTP refused at {} ({code}): {}", stage.name(), lines.join(" "))]
    Refused {
        stage: SmtpStage,
        code: u16,
        lines: Vec<String>,
    },
    /// No reply to judge, and not the mail's fault: the server's certificate is not trusted,
    /// STARTTLS is missing or refused, no login mechanism fits. Every mail waits until the
    /// operator mends it (the relay keeps trying and says why).
    #[error("{message}")]
    NeedsOperator { message: String },
}

impl SendError {
    /// Whether the operator must act (see [`SendError::NeedsOperator`]).
    pub fn needs_operator(&self) -> bool {
        matches!(self, SendError::NeedsOperator { .. })
    }

    /// The SMTP reply code, if the server gave one.
    pub fn code(&self) -> Option<u16> {
        match self {
            SendError::Refused { code, .. } => Some(*code),
            SendError::Unreachable { .. } | SendError::NeedsOperator { .. } => None,
        }
    }

    /// What the core judges: a server not reached is a refusal of the connection (421), a
    /// failure only the operator can mend (TLS, the login mechanism) one of the login (530 5.7.0).
    pub fn refusal(&self) -> SmtpRefusal {
        match self {
            SendError::Refused { stage, code, lines } => SmtpRefusal {
                stage: *stage,
                code: *code,
                lines: lines.clone(),
            },
            SendError::Unreachable { message } => SmtpRefusal {
                stage: SmtpStage::Connect,
                code: 421,
                lines: vec![message.clone()],
            },
            SendError::NeedsOperator { message } => SmtpRefusal {
                stage: SmtpStage::Auth,
                code: 530,
                lines: vec![format!("5.7.0 {message}")],
            },
        }
    }
}
