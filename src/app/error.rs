//! The shell's failures ([`AppError`]) and a `--now` that cannot be used ([`TimeBackwards`]).

use chrono::{DateTime, Utc};

use crate::render;

/// A runtime failure of the shell: printed as one line, exit status 1.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    #[error(transparent)]
    Store(#[from] crate::store::StoreError),
    #[error(transparent)]
    Render(#[from] render::RenderError),
    /// The IMAP server could not be reached, or failed a command.
    #[error(transparent)]
    Imap(#[from] crate::imap::ImapError),
    /// A mail was fetched and committed, but the server did not take its `\Seen` flag.
    #[error("uid {uid}: could not flag as done: {source}")]
    Flag {
        uid: u32,
        #[source]
        source: crate::imap::ImapError,
    },
    /// The SMTP sender could not be set up.
    #[error(transparent)]
    Smtp(#[from] crate::smtp::SmtpError),
    /// The SMTP server cannot be used as configured (its certificate, STARTTLS, the login):
    /// the mails wait in the outbox, uncounted, until the operator fixes it.
    #[error(transparent)]
    Send(crate::smtp::SendError),
    /// The tournament cannot be registered.
    #[error(transparent)]
    Register(#[from] crate::core::RegisterError),
    /// `--now` earlier than what the relay already acted on.
    #[error(transparent)]
    TimeBackwards(#[from] TimeBackwards),
    /// The XFCC endpoint could not be started, or a move by XFCC not written as a letter.
    #[error("XFCC: {0}")]
    Xfcc(String),
    /// An HTTP listener (`[http] listen`, `[xfcc] listen`) could not be started: the address is
    /// in use or not this host's.
    #[error("{0}")]
    Listen(String),
    /// A step that is no mail's (the deadlines due) failed in the core or in rendering: nothing
    /// of it was written, and the relay goes on with its other work.
    #[error("{0}")]
    Step(String),
}

/// Why a `--now` cannot be used.
#[derive(Debug, thiserror::Error)]
#[error(
    "--now {given} is earlier than {acted}, the latest time the relay has already acted on; the relay's time never runs backwards"
)]
pub struct TimeBackwards {
    pub given: DateTime<Utc>,
    pub acted: DateTime<Utc>,
}
