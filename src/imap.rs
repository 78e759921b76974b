//! The relay's inbox over IMAP (async-imap on tokio, TLS by tokio-rustls with ring, trusting
//! what [`crate::tls::Trust`] trusts: the system's store plus `[imap] ca_file`).
//!
//! This module moves bytes only: it lists the messages of one mailbox, fetches them
//! without setting `\Seen`, marks them `\Seen` once the caller has committed what it did
//! with them, and waits for new mail with IDLE (or NOOP polling when the server lacks
//! IDLE). Which messages still need work is decided by the caller from its store, by
//! (UIDVALIDITY, UID), never by a "last UID seen"; a caller that has seen every message below
//! a UID done may list only from there ([`Inbox::list_from`]). The server's answers are read
//! one by one and only what is kept of each stays in memory.
//!
//! Every network call runs under [`ImapSettings::timeout`]. After a timeout or an I/O
//! error the connection may be out of step with the server, so the [`Inbox`] refuses
//! further commands and the caller reconnects.

use std::fmt;
use std::io;
use std::path::PathBuf;
use std::time::Duration;

use async_imap::extensions::idle::IdleResponse;
use async_imap::imap_proto::{MailboxDatum, Response, Status};
use async_imap::types::{Flag, UnsolicitedResponse};
use async_imap::{Client, Session};
use chrono::{DateTime, Utc};
use futures::TryStreamExt;
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio::time::{Instant, timeout};
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::ServerName;

use crate::secret::{Auth, Secret, SecretError};

/// A one-step SASL client (PLAIN, XOAUTH2): the response to the first challenge, then an empty
/// answer (to XOAUTH2's error challenge, RFC 7628 style), so a refusal ends in a tagged NO, never
/// a hang.
struct Sasl {
    first: Option<String>,
}

impl Sasl {
    fn once(response: String) -> Sasl {
        Sasl {
            first: Some(response),
        }
    }
}

impl async_imap::Authenticator for Sasl {
    type Response = String;
    fn process(&mut self, _challenge: &[u8]) -> String {
        self.first.take().unwrap_or_default()
    }
}
pub use crate::tls::{DEFAULT_TIMEOUT, ParseSecurityError, Security};
use crate::tls::{Stream, Trust};

/// The longest single IDLE (servers may drop clients idle for 30 min; RFC 2177 says
/// re-issue at least every 29 min; we re-issue every 5).
pub const MAX_IDLE: Duration = Duration::from_secs(5 * 60);

/// How often to poll with NOOP when the server has no IDLE.
pub const POLL_INTERVAL: Duration = Duration::from_secs(5);

/// Where and how to reach the relay's mailbox.
#[derive(Clone, PartialEq, Eq)]
pub struct ImapSettings {
    pub host: String,
    pub port: u16,
    pub security: Security,
    pub user: String,
    pub password: Secret,
    /// LOGIN with the password, or AUTHENTICATE XOAUTH2 with it as the token.
    pub auth: Auth,
    /// PEM certificates trusted besides the system's store.
    pub ca_file: Option<PathBuf>,
    /// The mailbox to watch, normally `INBOX`.
    pub mailbox: String,
    /// Time limit of every single network call (default 60 s).
    pub timeout: Duration,
}

impl From<&crate::config::ImapConfig> for ImapSettings {
    /// The settings of `[imap]`, with the default time limit of a network call.
    fn from(c: &crate::config::ImapConfig) -> ImapSettings {
        ImapSettings {
            host: c.host.clone(),
            port: c.port,
            security: c.security,
            user: c.user.clone(),
            password: c.password.clone(),
            auth: c.auth,
            ca_file: c.ca_file.clone(),
            mailbox: c.mailbox.clone(),
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

impl fmt::Debug for ImapSettings {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("user", &self.user)
            .field("password", &self.password)
            .field("ca_file", &self.ca_file)
            .field("mailbox", &self.mailbox)
            .field("timeout", &self.timeout)
            .finish()
    }
}

/// What went wrong talking to the IMAP server.
#[derive(Debug, thiserror::Error)]
pub enum ImapError {
    /// The TCP connection could not be made.
    #[error("cannot connect to the IMAP server {host}:{port}: {source}")]
    Connect {
        host: String,
        port: u16,
        #[source]
        source: io::Error,
    },
    /// TLS could not be set up: an untrusted, expired or wrong-host certificate, no STARTTLS.
    /// The relay stops on it: retrying cannot help until the configuration or server changes.
    #[error("IMAP {host}:{port}: {reason}")]
    Tls {
        host: String,
        port: u16,
        reason: String,
    },
    /// The server refused the login (the password is never shown).
    #[error(
        "IMAP {host}:{port}: the server refused the login of user {user}: {reason}; check [imap] user and the password"
    )]
    Login {
        host: String,
        port: u16,
        user: String,
        reason: String,
    },
    /// No password could be had at this login: the environment variable, the file or the
    /// command its key names (the error names the key).
    #[error("IMAP password: {0}")]
    Secret(#[from] SecretError),
    /// The mailbox could not be selected.
    #[error("the IMAP server cannot open mailbox {mailbox}: {reason}")]
    Select { mailbox: String, reason: String },
    /// The message asked for is not (or no longer) in the mailbox.
    #[error("there is no message with UID {uid} in mailbox {mailbox}")]
    Missing { uid: u32, mailbox: String },
    /// Anything else the server or the connection did wrong.
    #[error("IMAP: {0}")]
    Protocol(String),
    /// A network call took longer than the time limit.
    #[error("the IMAP server did not answer in time: {what}")]
    Timeout { what: String },
}

/// One message of the mailbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Listed {
    pub uid: u32,
    /// RFC822.SIZE in bytes.
    pub size: u32,
    /// Whether it has the `\Seen` flag.
    pub seen: bool,
}

/// A fetched message (or only its header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub uid: u32,
    /// The server's INTERNALDATE: when the mail arrived (the postmark).
    pub internal_date: DateTime<Utc>,
    /// The raw bytes: the whole message, or only the header for [`Inbox::fetch_header`].
    pub raw: Vec<u8>,
}

/// Why [`Inbox::wait`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Woke {
    /// The server announced new mail (EXISTS or RECENT).
    NewMail,
    /// `max` passed without news.
    Timeout,
    /// The shutdown signal became `true` (IDLE was ended cleanly with DONE).
    Shutdown,
}

/// A TLS connector trusting the system's store plus `ca_file`, crypto by ring.
fn tls_connector(s: &ImapSettings) -> Result<TlsConnector, ImapError> {
    let tls_err = |reason: String| ImapError::Tls {
        host: s.host.clone(),
        port: s.port,
        reason,
    };
    let trust =
        Trust::load(s.ca_file.as_deref()).map_err(|e| tls_err(format!("{e} ([imap] ca_file)")))?;
    let config = trust.client_config().map_err(|e| tls_err(e.to_string()))?;
    Ok(TlsConnector::from(config))
}

impl ImapError {
    /// Whether this needs the operator (a certificate, STARTTLS, the login): retrying the same
    /// configuration cannot help, so the relay stops with this one line.
    pub fn needs_operator(&self) -> bool {
        matches!(
            self,
            ImapError::Tls { .. } | ImapError::Login { .. } | ImapError::Secret(_)
        )
    }
}

/// Run `fut` under the time limit `limit`; `what` names the call for the error.
async fn timed<T, E>(
    limit: Duration,
    what: impl FnOnce() -> String,
    fut: impl Future<Output = Result<T, E>>,
) -> Result<Result<T, E>, ImapError> {
    timeout(limit, fut).await.map_err(|_| ImapError::Timeout {
        what: format!("{} (limit {} s)", what(), limit.as_secs_f64()),
    })
}

/// A fetched message from the server's answer: its INTERNALDATE (the postmark; a protocol error
/// without one) and `bytes`, the part asked for.
fn fetched(uid: u32, f: &async_imap::types::Fetch, bytes: &[u8]) -> Result<Fetched, ImapError> {
    let internal_date = f.internal_date().ok_or_else(|| {
        ImapError::Protocol(format!(
            "UID FETCH {uid}: the server sent no valid INTERNALDATE"
        ))
    })?;
    Ok(Fetched {
        uid,
        internal_date: internal_date.with_timezone(&Utc),
        raw: bytes.to_vec(),
    })
}

/// Whether an untagged response announces new mail.
fn announces_new_mail(resp: &Response<'_>) -> bool {
    matches!(
        resp,
        Response::MailboxData(MailboxDatum::Exists(_))
            | Response::MailboxData(MailboxDatum::Recent(_))
    )
}

/// A logged-in session with the mailbox selected.
pub struct Inbox {
    session: Session<Stream>,
    settings: ImapSettings,
    uid_validity: u32,
    has_idle: bool,
    /// Whether [`Inbox::wait`] may use IDLE (when the server has it).
    use_idle: bool,
    /// The server announced new mail that no `list`/`wait` has reported yet.
    new_mail: bool,
    /// Set after an error that may have left the connection out of step.
    broken: Option<String>,
}

impl fmt::Debug for Inbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Inbox")
            .field("host", &self.settings.host)
            .field("user", &self.settings.user)
            .field("mailbox", &self.settings.mailbox)
            .field("uid_validity", &self.uid_validity)
            .field("has_idle", &self.has_idle)
            .finish()
    }
}

/// Read the server greeting; anything but `* OK` / `* PREAUTH` is an error.
async fn read_greeting(
    client: &mut Client<Stream>,
    settings: &ImapSettings,
) -> Result<(), ImapError> {
    let server = || format!("{}:{}", settings.host, settings.port);
    let greeting = timed(
        settings.timeout,
        || format!("waiting for the greeting of {}", server()),
        client.read_response(),
    )
    .await?
    .map_err(|e| ImapError::Protocol(format!("reading the greeting of {}: {e}", server())))?;
    match greeting.as_ref().map(|g| g.parsed()) {
        Some(Response::Data { status, outcome }) => match status {
            Status::Ok | Status::PreAuth => Ok(()),
            other => Err(ImapError::Protocol(format!(
                "{} greeted with {other:?}: {}",
                server(),
                outcome.information.as_deref().unwrap_or("")
            ))),
        },
        Some(other) => Err(ImapError::Protocol(format!(
            "{} sent an unexpected greeting: {other:?}",
            server()
        ))),
        None => Err(ImapError::Protocol(format!(
            "{} closed the connection before greeting",
            server()
        ))),
    }
}

impl Inbox {
    /// Connect, log in, look at the server's capabilities and SELECT the mailbox.
    pub async fn connect(settings: ImapSettings) -> Result<Inbox, ImapError> {
        let s = &settings;
        let limit = s.timeout;
        let tcp = timed(
            limit,
            || format!("connecting to {}:{}", s.host, s.port),
            TcpStream::connect((s.host.as_str(), s.port)),
        )
        .await?
        .map_err(|source| ImapError::Connect {
            host: s.host.clone(),
            port: s.port,
            source,
        })?;
        let client = match s.security {
            Security::None => {
                let mut client = Client::new(Stream::Plain(tcp));
                read_greeting(&mut client, s).await?;
                client
            }
            Security::Tls => {
                let tls = tls_handshake(s, tcp).await?;
                let mut client = Client::new(Stream::Tls(Box::new(tls)));
                read_greeting(&mut client, s).await?;
                client
            }
            Security::Starttls => {
                let mut client = Client::new(Stream::Plain(tcp));
                read_greeting(&mut client, s).await?;
                timed(
                    limit,
                    || format!("STARTTLS with {}", s.host),
                    client.run_command_and_check_ok("STARTTLS", None),
                )
                .await?
                .map_err(|e| ImapError::Tls {
                    host: s.host.clone(),
                    port: s.port,
                    reason: format!(
                        "the server does not offer STARTTLS ({e}); fernzug never falls back to plain text: use [imap] security = \"tls\" (port 993) or a server that offers STARTTLS"
                    ),
                })?;
                let Stream::Plain(tcp) = client.into_inner() else {
                    return Err(ImapError::Tls {
                        host: s.host.clone(),
                        port: s.port,
                        reason: "STARTTLS on a connection that already uses TLS".to_string(),
                    });
                };
                Client::new(Stream::Tls(Box::new(tls_handshake(s, tcp).await?)))
            }
        };
        let password = s.password.reveal()?;
        let login = timed(limit, || format!("logging in as {}", s.user), async {
            match s.auth {
                Auth::Password => client
                    .login_with_capabilities(&s.user, &password)
                    .await
                    .map_err(|(e, _)| e),
                Auth::Plain => client
                    .authenticate(
                        "PLAIN",
                        Sasl::once(Auth::plain_response(&s.user, &password)),
                    )
                    .await
                    .map(|session| (session, None))
                    .map_err(|(e, _)| e),
                Auth::Xoauth2 => client
                    .authenticate(
                        "XOAUTH2",
                        Sasl::once(Auth::xoauth2_response(&s.user, &password)),
                    )
                    .await
                    .map(|session| (session, None))
                    .map_err(|(e, _)| e),
            }
        });
        let (mut session, caps) = login.await?.map_err(|e| ImapError::Login {
            host: s.host.clone(),
            port: s.port,
            user: s.user.clone(),
            reason: e.to_string(),
        })?;
        let has_idle = match caps {
            Some(caps) if caps.has_str("IDLE") => true,
            _ => {
                let caps = timed(limit, || "CAPABILITY".to_string(), session.capabilities())
                    .await?
                    .map_err(|e| ImapError::Protocol(format!("CAPABILITY: {e}")))?;
                caps.has_str("IDLE")
            }
        };
        let mailbox = timed(
            limit,
            || format!("selecting mailbox {}", s.mailbox),
            session.select(&s.mailbox),
        )
        .await?
        .map_err(|e| ImapError::Select {
            mailbox: s.mailbox.clone(),
            reason: e.to_string(),
        })?;
        let uid_validity = mailbox.uid_validity.ok_or_else(|| ImapError::Select {
            mailbox: s.mailbox.clone(),
            reason: "the server sent no UIDVALIDITY".to_string(),
        })?;
        let mut inbox = Inbox {
            session,
            settings,
            uid_validity,
            has_idle,
            use_idle: true,
            new_mail: false,
            broken: None,
        };
        inbox.drain_unsolicited();
        inbox.new_mail = false;
        Ok(inbox)
    }

    /// The UIDVALIDITY of the selected mailbox (pairs with every UID).
    pub fn uid_validity(&self) -> u32 {
        self.uid_validity
    }

    /// Whether the server offers IDLE.
    pub fn has_idle(&self) -> bool {
        self.has_idle
    }

    /// Allow or forbid IDLE in [`Inbox::wait`] (default: allowed). Forbidden, `wait` polls
    /// with NOOP even when the server has IDLE (for servers whose IDLE misbehaves).
    pub fn set_use_idle(&mut self, on: bool) {
        self.use_idle = on;
    }

    /// The settings this inbox was opened with.
    pub fn settings(&self) -> &ImapSettings {
        &self.settings
    }

    /// Take the unsolicited responses async-imap queued (its queue is bounded and drops
    /// when full, so it is emptied after every command) and note new-mail announcements.
    fn drain_unsolicited(&mut self) {
        while let Ok(r) = self.session.unsolicited_responses.try_recv() {
            if matches!(
                r,
                UnsolicitedResponse::Exists(_) | UnsolicitedResponse::Recent(_)
            ) {
                self.new_mail = true;
            }
        }
    }

    fn usable(&self) -> Result<(), ImapError> {
        match &self.broken {
            Some(why) => Err(ImapError::Protocol(format!(
                "the connection is unusable after an earlier failure ({why}); reconnect"
            ))),
            None => Ok(()),
        }
    }

    /// Remember that the connection may be out of step after `e`.
    fn poison(&mut self, e: ImapError) -> ImapError {
        self.broken = Some(e.to_string());
        e
    }

    /// `UID FETCH set query`, each answer turned into what the caller keeps (`keep`) as it
    /// arrives: the server's answers are never held all at once (the library gives each its own
    /// buffer of at least 4 KiB — a mailbox of 10,000 messages listed whole was 60 MB).
    async fn uid_fetch<T>(
        &mut self,
        set: &str,
        query: &str,
        mut keep: impl FnMut(async_imap::types::Fetch) -> Option<T>,
    ) -> Result<Vec<T>, ImapError> {
        self.usable()?;
        let limit = self.settings.timeout;
        let what = format!("UID FETCH {set} {query}");
        let session = &mut self.session;
        let result = timed(limit, || what.clone(), async {
            let mut kept = Vec::new();
            let mut answers = session.uid_fetch(set, query).await?;
            while let Some(f) = answers.try_next().await? {
                kept.extend(keep(f));
            }
            Ok::<_, async_imap::error::Error>(kept)
        })
        .await;
        let kept = match result {
            Ok(Ok(k)) => k,
            Ok(Err(e)) => return Err(self.poison(ImapError::Protocol(format!("{what}: {e}")))),
            Err(e) => return Err(self.poison(e)),
        };
        self.drain_unsolicited();
        Ok(kept)
    }

    /// `NOOP`: the server tells of what changed (new mail: EXISTS) in its answer.
    async fn noop(&mut self) -> Result<(), ImapError> {
        self.usable()?;
        let limit = self.settings.timeout;
        match timed(limit, || "NOOP".to_string(), self.session.noop()).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(self.poison(ImapError::Protocol(format!("NOOP: {e}")))),
            Err(e) => Err(self.poison(e)),
        }
    }

    /// Every message in the mailbox with its size, by ascending UID.
    pub async fn list(&mut self) -> Result<Vec<Listed>, ImapError> {
        self.list_from(1).await
    }

    /// The messages from UID `first` on (`UID FETCH first:*`), with their sizes, by ascending
    /// UID: every message the server has when asked. A message added later always gets a higher
    /// UID than every one listed (RFC 3501 2.3.1.1), so a caller that has seen every message below
    /// `first` done lists only what came since.
    pub async fn list_from(&mut self, first: u32) -> Result<Vec<Listed>, ImapError> {
        // A NOOP first: Courier-IMAP looks into the Maildir for new mail at NOOP (and IDLE), not
        // at FETCH, so without it a mail that came since its last look would be missing here,
        // though the caller counts the listing as everything that had come by now.
        self.noop().await?;
        // Announcements made before this listing are covered by it.
        self.drain_unsolicited();
        self.new_mail = false;
        let first = first.max(1);
        let mut listed = self
            .uid_fetch(&format!("{first}:*"), "(UID RFC822.SIZE FLAGS)", |f| {
                Some(Listed {
                    uid: f.uid?,
                    size: f.size?,
                    seen: f.flags().any(|fl| fl == Flag::Seen),
                })
            })
            .await?;
        // `first:*` with `first` past the last UID names the last message (RFC 3501 6.4.8: `*`
        // is the highest UID, and a range is read either way round).
        listed.retain(|l| l.uid >= first);
        listed.sort_by_key(|l| l.uid);
        listed.dedup_by_key(|l| l.uid);
        Ok(listed)
    }

    /// The whole message `uid` (`BODY.PEEK[]`: does not set `\Seen`) and its INTERNALDATE.
    pub async fn fetch(&mut self, uid: u32) -> Result<Fetched, ImapError> {
        self.fetch_part(uid, "BODY.PEEK[]", |f| f.body()).await
    }

    /// The whole messages `uids` in one command (one round trip for many mails), by UID; a UID
    /// the server did not return is missing from the answer.
    pub async fn fetch_many(
        &mut self,
        uids: &[u32],
    ) -> Result<std::collections::HashMap<u32, Fetched>, ImapError> {
        let mut out = std::collections::HashMap::new();
        if uids.is_empty() {
            return Ok(out);
        }
        let set = uid_set(uids);
        let fetched = self
            .uid_fetch(&set, "(UID INTERNALDATE BODY.PEEK[])", |f| {
                let (uid, body) = (f.uid?, f.body()?);
                Some(fetched(uid, &f, body))
            })
            .await?;
        for f in fetched {
            let f = f?;
            out.insert(f.uid, f);
        }
        Ok(out)
    }

    /// Only the header of message `uid` (`BODY.PEEK[HEADER]`), e.g. for mails over the
    /// size limit.
    pub async fn fetch_header(&mut self, uid: u32) -> Result<Fetched, ImapError> {
        self.fetch_part(uid, "BODY.PEEK[HEADER]", |f| f.header())
            .await
    }

    async fn fetch_part(
        &mut self,
        uid: u32,
        item: &str,
        part: impl Fn(&async_imap::types::Fetch) -> Option<&[u8]>,
    ) -> Result<Fetched, ImapError> {
        let found = self
            .uid_fetch(
                &uid.to_string(),
                &format!("(UID INTERNALDATE {item})"),
                |f| match (f.uid, part(&f)) {
                    (Some(u), Some(bytes)) if u == uid => Some(fetched(uid, &f, bytes)),
                    _ => None,
                },
            )
            .await?;
        found.into_iter().next().unwrap_or_else(|| {
            Err(ImapError::Missing {
                uid,
                mailbox: self.settings.mailbox.clone(),
            })
        })
    }

    /// Whether message `uid` has the `\Seen` flag.
    pub async fn is_seen(&mut self, uid: u32) -> Result<bool, ImapError> {
        let seen = self
            .uid_fetch(&uid.to_string(), "(UID FLAGS)", |f| {
                (f.uid == Some(uid)).then(|| f.flags().any(|fl| fl == Flag::Seen))
            })
            .await?;
        seen.first().copied().ok_or_else(|| ImapError::Missing {
            uid,
            mailbox: self.settings.mailbox.clone(),
        })
    }

    /// Mark message `uid` as done: `UID STORE uid +FLAGS (\Seen)`. Call only after the
    /// store committed what was done with it.
    pub async fn mark_done(&mut self, uid: u32) -> Result<(), ImapError> {
        self.mark_done_many(&[uid]).await
    }

    /// Flags messages `uids` as done in one command.
    pub async fn mark_done_many(&mut self, uids: &[u32]) -> Result<(), ImapError> {
        if uids.is_empty() {
            return Ok(());
        }
        self.usable()?;
        let limit = self.settings.timeout;
        let set = uid_set(uids);
        let what = format!("UID STORE {set} +FLAGS (\\Seen)");
        let session = &mut self.session;
        let result = timed(limit, || what.clone(), async {
            // The answers (the flags now set) are read and let go one by one, not held.
            session
                .uid_store(set.clone(), "+FLAGS (\\Seen)")
                .await?
                .try_for_each(|_| async { Ok(()) })
                .await
        })
        .await;
        match result {
            Ok(Ok(_)) => {
                self.drain_unsolicited();
                Ok(())
            }
            Ok(Err(e)) => Err(self.poison(ImapError::Protocol(format!("{what}: {e}")))),
            Err(e) => Err(self.poison(e)),
        }
    }

    /// Remove message `uid` (`fernzug check`'s probe only): `\Deleted`, then `UID EXPUNGE`
    /// where the server has UIDPLUS, so no other message is touched; without UIDPLUS the probe
    /// stays flagged `\Seen \Deleted` (the relay ignores it anyway: it is its own mail).
    pub async fn remove(&mut self, uid: u32) -> Result<(), ImapError> {
        self.usable()?;
        let limit = self.settings.timeout;
        let what = format!("UID STORE {uid} +FLAGS (\\Seen \\Deleted)");
        let session = &mut self.session;
        let result = timed(limit, || what.clone(), async {
            session
                .uid_store(uid.to_string(), "+FLAGS (\\Seen \\Deleted)")
                .await?
                .try_collect::<Vec<_>>()
                .await?;
            let caps = session.capabilities().await?;
            if caps.has_str("UIDPLUS") {
                session
                    .uid_expunge(uid.to_string())
                    .await?
                    .try_collect::<Vec<_>>()
                    .await?;
            }
            Ok::<(), async_imap::error::Error>(())
        })
        .await;
        match result {
            Ok(Ok(())) => {
                self.drain_unsolicited();
                Ok(())
            }
            Ok(Err(e)) => Err(self.poison(ImapError::Protocol(format!("{what}: {e}")))),
            Err(e) => Err(self.poison(e)),
        }
    }

    /// Wait up to `max` (at most [`MAX_IDLE`]) for new mail or the shutdown signal.
    ///
    /// With IDLE the server pushes EXISTS/RECENT; without, a NOOP is sent every
    /// [`POLL_INTERVAL`]. On shutdown IDLE is ended with DONE, so the returned inbox can
    /// log out cleanly. On error the connection is gone: reconnect.
    pub async fn wait(
        mut self,
        max: Duration,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<(Inbox, Woke), ImapError> {
        self.usable()?;
        self.drain_unsolicited();
        if self.new_mail {
            self.new_mail = false;
            return Ok((self, Woke::NewMail));
        }
        if *shutdown.borrow_and_update() {
            return Ok((self, Woke::Shutdown));
        }
        let max = max.min(MAX_IDLE);
        if self.has_idle && self.use_idle {
            self.wait_idle(max, shutdown).await
        } else {
            self.wait_poll(max, shutdown).await
        }
    }

    async fn wait_idle(
        self,
        max: Duration,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<(Inbox, Woke), ImapError> {
        let Inbox {
            session,
            settings,
            uid_validity,
            has_idle,
            use_idle,
            ..
        } = self;
        let limit = settings.timeout;
        let mut handle = session.idle();
        timed(limit, || "starting IDLE".to_string(), handle.init())
            .await?
            .map_err(|e| ImapError::Protocol(format!("IDLE: {e}")))?;
        let deadline = Instant::now() + max;
        let woke = loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                break Woke::Timeout;
            }
            let step = {
                let (idle, _stop) = handle.wait_with_timeout(remaining);
                tokio::select! {
                    r = idle => Some(r),
                    () = shutdown_requested(shutdown) => None,
                }
            };
            match step {
                None => break Woke::Shutdown,
                Some(Ok(IdleResponse::NewData(data))) => {
                    if announces_new_mail(data.parsed()) {
                        break Woke::NewMail;
                    }
                }
                Some(Ok(IdleResponse::Timeout)) => break Woke::Timeout,
                Some(Ok(IdleResponse::ManualInterrupt)) => {
                    return Err(ImapError::Protocol(format!(
                        "{} closed the connection during IDLE",
                        settings.host
                    )));
                }
                Some(Err(e)) => return Err(ImapError::Protocol(format!("during IDLE: {e}"))),
            }
        };
        let session = timed(limit, || "ending IDLE (DONE)".to_string(), handle.done())
            .await?
            .map_err(|e| ImapError::Protocol(format!("ending IDLE (DONE): {e}")))?;
        let mut inbox = Inbox {
            session,
            settings,
            uid_validity,
            has_idle,
            use_idle,
            new_mail: false,
            broken: None,
        };
        // EXISTS that came with the end of IDLE also counts.
        inbox.drain_unsolicited();
        let woke = if woke == Woke::Timeout && inbox.new_mail {
            Woke::NewMail
        } else {
            woke
        };
        if woke == Woke::NewMail {
            inbox.new_mail = false;
        }
        Ok((inbox, woke))
    }

    async fn wait_poll(
        mut self,
        max: Duration,
        shutdown: &mut watch::Receiver<bool>,
    ) -> Result<(Inbox, Woke), ImapError> {
        let deadline = Instant::now() + max;
        loop {
            let remaining = deadline.saturating_duration_since(Instant::now());
            if remaining.is_zero() {
                return Ok((self, Woke::Timeout));
            }
            tokio::select! {
                () = tokio::time::sleep(remaining.min(POLL_INTERVAL)) => {}
                () = shutdown_requested(shutdown) => return Ok((self, Woke::Shutdown)),
            }
            self.noop().await?;
            self.drain_unsolicited();
            if self.new_mail {
                self.new_mail = false;
                return Ok((self, Woke::NewMail));
            }
        }
    }

    /// Say LOGOUT and close the connection (errors are ignored: the connection ends
    /// either way).
    pub async fn logout(mut self) {
        if self.broken.is_none() {
            let limit = self.settings.timeout;
            let _ = timeout(limit, self.session.logout()).await;
        }
    }
}

/// Resolves once the shutdown flag is `true`; never, if the sender is gone.
async fn shutdown_requested(shutdown: &mut watch::Receiver<bool>) {
    if shutdown.wait_for(|stop| *stop).await.is_err() {
        std::future::pending::<()>().await;
    }
}

/// An IMAP sequence set of `uids` (`3,5:9,12`), runs of consecutive UIDs joined.
fn uid_set(uids: &[u32]) -> String {
    let mut sorted = uids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while let Some(&start) = sorted.get(i) {
        let mut end = start;
        while sorted.get(i + 1) == Some(&end.saturating_add(1)) {
            end += 1;
            i += 1;
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}:{end}")
        });
        i += 1;
    }
    parts.join(",")
}

/// TLS handshake over `tcp`, verifying the certificate for `settings.host`.
async fn tls_handshake(
    settings: &ImapSettings,
    tcp: TcpStream,
) -> Result<TlsStream<TcpStream>, ImapError> {
    let host = &settings.host;
    let name = ServerName::try_from(host.clone()).map_err(|e| ImapError::Tls {
        host: host.clone(),
        port: settings.port,
        reason: format!("`{host}` is not a valid server name: {e}; fix [imap] host"),
    })?;
    let connector = tls_connector(settings)?;
    timed(
        settings.timeout,
        || format!("TLS handshake with {host}"),
        connector.connect(name, tcp),
    )
    .await?
    .map_err(|e| match crate::tls::explain(&e, "imap") {
        // What TLS refused (a certificate, a protocol): the operator's to fix.
        Some(reason) => ImapError::Tls {
            host: host.clone(),
            port: settings.port,
            reason,
        },
        // The connection broke off (the server going away or restarting): tried again, as a
        // connection that cannot be made is.
        None => ImapError::Connect {
            host: host.clone(),
            port: settings.port,
            source: io::Error::new(e.kind(), format!("the TLS handshake broke off: {e}")),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_sets_join_runs() {
        assert_eq!(uid_set(&[5, 3, 6, 7, 9, 12, 11, 3]), "3,5:7,9,11:12");
        assert_eq!(uid_set(&[1]), "1");
        assert_eq!(uid_set(&[]), "");
    }

    #[test]
    fn security_parses_and_prints() {
        assert_eq!("tls".parse::<Security>(), Ok(Security::Tls));
        assert_eq!(" STARTTLS ".parse::<Security>(), Ok(Security::Starttls));
        assert_eq!("none".parse::<Security>(), Ok(Security::None));
        let err = "ssl".parse::<Security>().unwrap_err();
        assert!(err.to_string().contains("`ssl`"), "{err}");
        for s in [Security::Tls, Security::Starttls, Security::None] {
            assert_eq!(s.to_string().parse::<Security>(), Ok(s));
            let json = serde_json::to_string(&s).unwrap();
            assert_eq!(json, format!("\"{s}\""));
            assert_eq!(serde_json::from_str::<Security>(&json).unwrap(), s);
        }
    }

    #[test]
    fn settings_debug_hides_the_password() {
        let s = ImapSettings {
            host: "h".into(),
            port: 1,
            security: Security::None,
            user: "u".into(),
            auth: Auth::Password,
            password: Secret::Fixed("sekrit".into()),
            ca_file: None,
            mailbox: "INBOX".into(),
            timeout: DEFAULT_TIMEOUT,
        };
        assert!(!format!("{s:?}").contains("sekrit"));
    }

    #[tokio::test]
    async fn closed_port_is_a_connect_error_naming_host_and_port() {
        // Bind then drop a listener to get a port nobody listens on.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            l.local_addr().unwrap().port()
        };
        let s = ImapSettings {
            host: "127.0.0.1".into(),
            port,
            security: Security::None,
            user: "u".into(),
            auth: Auth::Password,
            password: Secret::Fixed("p".into()),
            ca_file: None,
            mailbox: "INBOX".into(),
            timeout: Duration::from_secs(5),
        };
        let err = Inbox::connect(s).await.unwrap_err();
        assert!(matches!(err, ImapError::Connect { .. }), "{err:?}");
        assert!(
            err.to_string().contains(&format!("127.0.0.1:{port}")),
            "{err}"
        );
    }

    #[tokio::test]
    async fn a_connection_closed_in_the_tls_handshake_is_tried_again_not_the_operators() {
        // A server that accepts and hangs up at once, as one going away does.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            loop {
                let (sock, _) = listener.accept().await.unwrap();
                drop(sock);
            }
        });
        let s = ImapSettings {
            host: "127.0.0.1".into(),
            port,
            security: Security::Tls,
            user: "u".into(),
            auth: Auth::Password,
            password: Secret::Fixed("p".into()),
            ca_file: None,
            mailbox: "INBOX".into(),
            timeout: Duration::from_secs(5),
        };
        let err = Inbox::connect(s).await.unwrap_err();
        assert!(!err.needs_operator(), "{err:?}");
        assert!(matches!(err, ImapError::Connect { .. }), "{err:?}");
        assert!(err.to_string().contains("TLS handshake broke off"), "{err}");
        server.abort();
    }

    #[tokio::test]
    async fn silent_server_times_out() {
        // A listener that accepts but never greets.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let keep = tokio::spawn(async move {
            let (sock, _) = listener.accept().await.unwrap();
            tokio::time::sleep(Duration::from_secs(5)).await;
            drop(sock);
        });
        let s = ImapSettings {
            host: "127.0.0.1".into(),
            port,
            security: Security::None,
            user: "u".into(),
            auth: Auth::Password,
            password: Secret::Fixed("p".into()),
            ca_file: None,
            mailbox: "INBOX".into(),
            timeout: Duration::from_millis(200),
        };
        let err = Inbox::connect(s).await.unwrap_err();
        assert!(matches!(err, ImapError::Timeout { .. }), "{err:?}");
        assert!(err.to_string().contains("greeting"), "{err}");
        keep.abort();
    }

    #[tokio::test]
    async fn server_greeting_bye_is_a_protocol_error() {
        use tokio::io::AsyncWriteExt;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            let (mut sock, _) = listener.accept().await.unwrap();
            sock.write_all(b"* BYE too busy\r\n").await.unwrap();
            tokio::time::sleep(Duration::from_secs(1)).await;
        });
        let s = ImapSettings {
            host: "127.0.0.1".into(),
            port,
            security: Security::None,
            user: "u".into(),
            auth: Auth::Password,
            password: Secret::Fixed("p".into()),
            ca_file: None,
            mailbox: "INBOX".into(),
            timeout: Duration::from_secs(5),
        };
        let err = Inbox::connect(s).await.unwrap_err();
        assert!(matches!(err, ImapError::Protocol(_)), "{err:?}");
        assert!(err.to_string().contains("too busy"), "{err}");
        server.abort();
    }
}
