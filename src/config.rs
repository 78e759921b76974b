//! The relay's configuration file `fernzug.toml` (docs/contract.md "Configuration").
//!
//! [`load`] reads the file; [`parse`] is the pure core, given the text and a file reader (for
//! `ca_file`). The password keys are checked as keys only: the variable or file they name is read
//! when a connection logs in ([`crate::secret`]). Every error is one line naming the file, the key and what
//! is wrong (docs/contract.md "Exit status": bad configuration → exit 2 with that line), e.g.
//!
//! ```text
//! fernzug.toml: key `imap.port`: expected an integer from 1 to 65535, found "abc"
//! ```
//!
//! Relative paths in the file (`data_dir`, `templates_dir`, `password_file`) are taken relative to
//! the directory of the configuration file, so the relay behaves the same from any working
//! directory.
//!
//! The module also holds the small TOML reading kit ([`KeyProblem`], `fields`) that the tournament
//! file ([`crate::tournament_file`]) shares, so both files report errors the same way.

use std::fmt;
use std::io;
use std::net::{Ipv4Addr, Ipv6Addr};
use std::path::{Path, PathBuf};

use chrono::Weekday;
use chrono_tz::Tz;

use crate::lang::Lang;
use crate::secret::{Auth, Secret};

use self::fields::{Fields, KeyErr};

/// The configuration file used when neither `--config` nor `$FERNZUG_CONFIG` names one.
pub const DEFAULT_FILE: &str = "fernzug.toml";

/// The whole configuration of the relay.
#[derive(Debug, Clone)]
pub struct Config {
    /// The file this configuration was read from.
    pub path: PathBuf,
    pub relay: RelayConfig,
    pub imap: ImapConfig,
    pub smtp: SmtpConfig,
    pub limits: LimitsConfig,
    pub security: SecurityConfig,
    /// `[xfcc]` (optional): the XfccBasic endpoint `run` serves (docs/xfcc.md).
    pub xfcc: Option<XfccConfig>,
    /// `[http]` (optional): where `run` serves `/healthz` and `/metrics` (docs/operating.md).
    pub http: Option<HttpConfig>,
}

/// `[xfcc]`: where `fernzug run` serves XfccBasic (docs/xfcc.md).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XfccConfig {
    /// `listen = "HOST:PORT"`: the address the endpoint listens on.
    pub listen: std::net::SocketAddr,
    /// `url`: the endpoint as players reach it (behind a reverse proxy with TLS, say); shown in
    /// the start mails. Default `http://LISTEN/xfccbasic.asmx`.
    pub url: String,
}

/// `[http]`: where `fernzug run` serves the operator's `/healthz` and `/metrics`
/// (docs/operating.md); the same address as `[xfcc] listen` is allowed (one server answers both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpConfig {
    /// `listen = "HOST:PORT"`.
    pub listen: std::net::SocketAddr,
    /// `delay_moves = N` (default 0): the tournament pages show running games N moves (plies)
    /// behind, finished games whole (ICCF's public view).
    pub delay_moves: u32,
    /// `public_url = "https://…"` (optional): where players reach these pages (behind a reverse
    /// proxy, say), an absolute http(s) URL, kept without a final `/`. Every game mail then
    /// links to its game's page (`URL/g/ID/N`), the `start` mail to its tournament's
    /// (`URL/t/ID`); without it the mails carry no links.
    pub public_url: Option<String>,
}

/// `[relay]`: who the relay is and where it keeps its data.
#[derive(Debug, Clone)]
pub struct RelayConfig {
    /// The relay mailbox, a lower-cased addr-spec (`relay@fernschach.test`).
    pub address: String,
    /// Display name on outgoing mail.
    pub name: String,
    /// The embedded store and the mail archive.
    pub data_dir: PathBuf,
    /// Calendar days are counted in this zone.
    pub time_zone: Tz,
    /// Default language of outgoing mail (optional key, default `de`).
    pub language: Lang,
    /// The operator's template overrides (optional key `templates_dir`).
    pub templates_dir: Option<PathBuf>,
    /// Day of the weekly director digest (optional key `digest_day`, default Monday; `"off"`: none).
    pub digest_day: Option<Weekday>,
    /// Who is told when the relay cannot do its work (optional key `operator`, an address):
    /// `alert` mails. `None`: nobody (the log and `/healthz` still say it).
    pub operator: Option<String>,
    /// How long IMAP or SMTP may fail, or a mail wait in the outbox, before it counts as an
    /// outage (optional key `alert_minutes`, default 30): the operator is alerted and
    /// `/healthz` answers 503.
    pub alert_minutes: u32,
    /// TO §17: the player on move is warned once per time-control period when the days left
    /// before his control fall to this many (optional key `warn_days`, default 5; 0: none).
    pub warn_days: u32,
    /// The addresses that may register a tournament by mail (optional key `directors`, a list;
    /// `Turnier anmelden` / `register tournament`). A tournament's own director manages it
    /// afterwards whether listed or not.
    pub directors: Vec<String>,
}

/// Transport security of an IMAP or SMTP connection (one type for the whole program).
pub use crate::tls::Security;

/// `[imap]`: where the relay's mail arrives.
#[derive(Clone)]
pub struct ImapConfig {
    pub host: String,
    /// Default: 993 with `tls`, 143 with `starttls` or `none`.
    pub port: u16,
    pub security: Security,
    pub user: String,
    /// The password, from `password_env`, `password_file`, `password` or `password_command`.
    pub password: Secret,
    /// `auth`: `password` (default, LOGIN), `plain` (AUTHENTICATE PLAIN) or `xoauth2` (the
    /// password is an OAuth2 access token).
    pub auth: Auth,
    /// PEM certificates trusted besides the system's store (`ca_file`).
    pub ca_file: Option<PathBuf>,
    /// Default `INBOX`.
    pub mailbox: String,
    /// How long one IMAP IDLE waits before it is renewed (optional, default 5, 1 to 5 minutes).
    pub idle_minutes: u64,
}

/// `[smtp]`: where the relay's mail leaves.
#[derive(Clone)]
pub struct SmtpConfig {
    pub host: String,
    /// Default: 465 with `tls`, 587 with `starttls`, 25 with `none`.
    pub port: u16,
    pub security: Security,
    /// No user: no SMTP AUTH.
    pub user: Option<String>,
    /// The password; present exactly when `user` is.
    pub password: Option<Secret>,
    /// `auth`: `password` (default) or `xoauth2`.
    pub auth: Auth,
    /// PEM certificates trusted besides the system's store (`ca_file`).
    pub ca_file: Option<PathBuf>,
    /// The most mails (recipients) sent in any hour, and in any 24 hours, as the host counts
    /// them (`max_per_hour`, `max_per_day`; 0, the default: no limit).
    pub max_per_hour: u32,
    pub max_per_day: u32,
}

/// `[limits]` (optional section).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LimitsConfig {
    /// Larger incoming mails are not processed (default 262144).
    pub max_mail_bytes: u64,
    /// An outgoing mail undeliverable for this many days is given up (default 5).
    pub outbox_max_age_days: u32,
    /// At most this many automatic answers to one sender per day (default 10).
    pub auto_answers_per_day: u32,
}

impl Default for LimitsConfig {
    fn default() -> LimitsConfig {
        LimitsConfig {
            max_mail_bytes: 262_144,
            outbox_max_age_days: 5,
            auto_answers_per_day: 10,
        }
    }
}

/// `[security]` (optional section): how far the relay trusts a sender address.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SecurityConfig {
    /// Accept a mail only if the receiving server's `Authentication-Results` say `dmarc=pass`
    /// (default false). Requires `trusted_authserv_id`.
    pub require_dmarc_pass: bool,
    /// The authserv-id of the receiving server; `Authentication-Results` headers with any other
    /// id are ignored (RFC 8601 §5).
    pub trusted_authserv_id: Option<String>,
    /// Moves and commands count only through the sender's own `relay+KEY@` address (default
    /// false); a mail without it gets a query to the registered address and changes nothing.
    pub require_reply_key: bool,
}

impl fmt::Debug for ImapConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImapConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("user", &self.user)
            .field("password", &self.password)
            .field("ca_file", &self.ca_file)
            .field("mailbox", &self.mailbox)
            .field("idle_minutes", &self.idle_minutes)
            .finish()
    }
}

impl fmt::Debug for SmtpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("security", &self.security)
            .field("user", &self.user)
            .field("password", &self.password)
            .field("ca_file", &self.ca_file)
            .field("max_per_hour", &self.max_per_hour)
            .field("max_per_day", &self.max_per_day)
            .finish()
    }
}

/// What is wrong with one key of a TOML file (configuration or tournament file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyProblem {
    /// A required key is absent.
    Missing,
    /// The key is not one the file may have here.
    Unknown {
        /// The keys allowed at this place.
        allowed: Vec<&'static str>,
    },
    /// The value has the wrong type or is out of range.
    Expected {
        /// What the key takes, e.g. `an integer from 1 to 65535`.
        expected: String,
        /// The value found, as written in TOML (strings quoted).
        found: String,
    },
    /// The value has the right type but is not acceptable; the text says why.
    Invalid(String),
}

impl fmt::Display for KeyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyProblem::Missing => f.write_str("required key is missing"),
            KeyProblem::Unknown { allowed } if allowed.is_empty() => f.write_str("unknown key"),
            KeyProblem::Unknown { allowed } => {
                write!(f, "unknown key (allowed here: {})", allowed.join(", "))
            }
            KeyProblem::Expected { expected, found } => {
                write!(f, "expected {expected}, found {found}")
            }
            KeyProblem::Invalid(why) => f.write_str(why),
        }
    }
}

/// Why a file an operator writes (the configuration, a tournament file) could not be loaded.
/// Display is one line naming the file, and the key where there is one.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    /// The file itself could not be read.
    #[error("{}: cannot read: {}", file.display(), crate::io_text::io_message(error))]
    Read { file: PathBuf, error: io::Error },
    /// The file is not valid TOML.
    #[error("{}: line {line}, column {column}{}: not valid TOML: {message}", file.display(), key_hint(key.as_deref()))]
    Syntax {
        file: PathBuf,
        line: usize,
        column: usize,
        /// The key written on that line, if the line has one (a hint: `[table]` header and key).
        key: Option<String>,
        message: String,
    },
    /// One key is missing, unknown or has a bad value.
    #[error("{}: key `{key}`: {problem}", file.display())]
    Key {
        file: PathBuf,
        /// The key path, e.g. `imap.port`, `players[2].email`.
        key: String,
        problem: KeyProblem,
    },
}

/// Why the configuration could not be loaded.
pub type ConfigError = FileError;

impl FileError {
    /// The file `file` is not valid TOML.
    pub(crate) fn syntax(file: &Path, e: fields::SyntaxErr) -> FileError {
        FileError::Syntax {
            file: file.to_path_buf(),
            line: e.line,
            column: e.column,
            key: e.key,
            message: e.message,
        }
    }

    /// Key `e.key` of `file` is missing, unknown or has a bad value.
    pub(crate) fn key(file: &Path, e: KeyErr) -> FileError {
        FileError::Key {
            file: file.to_path_buf(),
            key: e.key,
            problem: e.problem,
        }
    }
}

/// `, key `K`` for a syntax error's message, or nothing.
pub(crate) fn key_hint(key: Option<&str>) -> String {
    key.map(|k| format!(", key `{k}`")).unwrap_or_default()
}

/// The configuration file to use: `$FERNZUG_CONFIG` if set and not empty, else `fernzug.toml` in
/// the working directory (docs/contract.md "Command line"; `--config` overrides both, in the caller).
pub fn default_path(env_config: Option<&str>) -> PathBuf {
    match env_config {
        Some(p) if !p.trim().is_empty() => PathBuf::from(p),
        _ => PathBuf::from(DEFAULT_FILE),
    }
}

/// Reads and checks the configuration file at `path`; a `ca_file` is read from disk. The
/// password keys are only checked: the variable or file they name is read when a password is
/// needed ([`Secret::reveal`]), so commands that do not connect need none.
pub fn load(path: &Path) -> Result<Config, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|error| ConfigError::Read {
        file: path.to_path_buf(),
        error,
    })?;
    let read = |p: &Path| std::fs::read_to_string(p);
    parse(path, &text, &read)
}

/// Checks the configuration `text` of the file `path` (pure: the file system is reached only
/// through `read_file`, for `ca_file`).
pub fn parse(
    path: &Path,
    text: &str,
    read_file: &dyn Fn(&Path) -> io::Result<String>,
) -> Result<Config, ConfigError> {
    let table = fields::parse_toml(text).map_err(|e| FileError::syntax(path, e))?;
    let base = path.parent().unwrap_or(Path::new(""));
    let ctx = Ctx { base, read_file };
    ctx.config(&table)
        .map(|(relay, imap, smtp, limits, security, xfcc, http)| Config {
            path: path.to_path_buf(),
            relay,
            imap,
            smtp,
            limits,
            security,
            xfcc,
            http,
        })
        .map_err(|e| ConfigError::key(path, e))
}

/// What parsing needs besides the text.
struct Ctx<'a> {
    /// Directory that relative paths are taken from.
    base: &'a Path,
    read_file: &'a dyn Fn(&Path) -> io::Result<String>,
}

type Sections = (
    RelayConfig,
    ImapConfig,
    SmtpConfig,
    LimitsConfig,
    SecurityConfig,
    Option<XfccConfig>,
    Option<HttpConfig>,
);

impl Ctx<'_> {
    fn config(&self, table: &toml::Table) -> Result<Sections, KeyErr> {
        let top = Fields::new(
            table,
            "",
            &[
                "relay", "imap", "smtp", "limits", "security", "xfcc", "http",
            ],
        )?;
        let relay = self.relay(&top.req_table("relay")?)?;
        let imap = self.imap(&top.req_table("imap")?)?;
        let smtp = self.smtp(&top.req_table("smtp")?)?;
        let limits = match top.opt_table("limits")? {
            Some(t) => limits(&t)?,
            None => LimitsConfig::default(),
        };
        let security = match top.opt_table("security")? {
            Some(t) => security(&t)?,
            None => SecurityConfig::default(),
        };
        let xfcc = match top.opt_table("xfcc")? {
            Some(t) => Some(xfcc(&t)?),
            None => None,
        };
        let http = match top.opt_table("http")? {
            Some(t) => Some(http(&t)?),
            None => None,
        };
        Ok((relay, imap, smtp, limits, security, xfcc, http))
    }

    fn path(&self, p: &str) -> PathBuf {
        self.base.join(p)
    }

    fn relay(&self, f: &Fields<'_>) -> Result<RelayConfig, KeyErr> {
        f.allow(&[
            "address",
            "name",
            "data_dir",
            "time_zone",
            "language",
            "templates_dir",
            "digest_day",
            "operator",
            "alert_minutes",
            "warn_days",
            "directors",
        ])?;
        let address = f.req_email("address")?;
        let name = f.req_text("name")?.to_string();
        let data_dir = self.path(f.req_text("data_dir")?);
        let tz_text = f.req_text("time_zone")?;
        let time_zone: Tz = tz_text.parse().map_err(|_| {
            f.invalid(
                "time_zone",
                format!(
                    "{tz_text:?} is not a time zone of the IANA database (e.g. \"Europe/Berlin\")"
                ),
            )
        })?;
        let language = f.opt_lang("language")?.unwrap_or_default();
        let templates_dir = f.opt_text("templates_dir")?.map(|p| self.path(p));
        // The weekly director digest goes out on Mondays unless another day, or "off", is set.
        let digest_day = match f.opt_text("digest_day")? {
            None => Some(Weekday::Mon),
            Some(d) if ["off", "none", "never"].contains(&d.to_ascii_lowercase().as_str()) => None,
            Some(d) => Some(parse_weekday(d).ok_or_else(|| {
                f.expected(
                    "digest_day",
                    "a day of the week (\"monday\" to \"sunday\") or \"off\"",
                    format!("{d:?}"),
                )
            })?),
        };
        let operator = f.opt_email("operator")?;
        // From a minute to a week.
        let alert_minutes = f
            .opt_int("alert_minutes", 1, 10_080)?
            .map_or(30, saturate_u32);
        // Up to a whole period of the longer rule set (TO §12: 30 days per 10 moves).
        let warn_days = f.opt_int("warn_days", 0, 60)?.map_or(5, saturate_u32);
        let directors = f.opt_emails("directors")?;
        Ok(RelayConfig {
            address,
            name,
            data_dir,
            time_zone,
            language,
            templates_dir,
            digest_day,
            operator,
            alert_minutes,
            warn_days,
            directors,
        })
    }

    fn imap(&self, f: &Fields<'_>) -> Result<ImapConfig, KeyErr> {
        f.allow(&[
            "host",
            "port",
            "security",
            "user",
            "password_env",
            "password_file",
            "password",
            "password_command",
            "auth",
            "ca_file",
            "mailbox",
            "idle_minutes",
        ])?;
        let (host, security, port) = endpoint(f, |s| match s {
            Security::Tls => 993,
            Security::Starttls | Security::None => 143,
        })?;
        let user = f.req_text("user")?.to_string();
        let password = self
            .password(f)?
            .ok_or_else(|| f.err("password", KeyProblem::Invalid(NO_PASSWORD.to_string())))?;
        let ca_file = self.ca_file(f)?;
        let auth = auth(f)?;
        let mailbox = f.opt_text("mailbox")?.unwrap_or("INBOX").to_string();
        // Issue 2/7: IDLE is re-issued at least every 5 minutes (crate::imap::MAX_IDLE).
        let idle_minutes = f.opt_int("idle_minutes", 1, 5)?.unwrap_or(5);
        Ok(ImapConfig {
            host,
            port,
            security,
            user,
            password,
            auth,
            ca_file,
            mailbox,
            idle_minutes,
        })
    }

    fn smtp(&self, f: &Fields<'_>) -> Result<SmtpConfig, KeyErr> {
        f.allow(&[
            "host",
            "port",
            "security",
            "user",
            "password_env",
            "password_file",
            "password",
            "password_command",
            "auth",
            "ca_file",
            "max_per_hour",
            "max_per_day",
        ])?;
        let (host, security, port) = endpoint(f, |s| match s {
            Security::Tls => 465,
            Security::Starttls => 587,
            Security::None => 25,
        })?;
        let user = f.opt_text("user")?.map(str::to_string);
        let password = self.password(f)?;
        let ca_file = self.ca_file(f)?;
        let auth = auth(f)?;
        let max_per_hour = f
            .opt_int("max_per_hour", 0, 1_000_000)?
            .map_or(0, saturate_u32);
        let max_per_day = f
            .opt_int("max_per_day", 0, 1_000_000)?
            .map_or(0, saturate_u32);
        match (&user, &password) {
            (Some(_), None) => Err(f.err(
                "password",
                KeyProblem::Invalid(format!("{NO_PASSWORD}, since `{}` is set", f.key("user"))),
            )),
            (None, Some(_)) => Err(f.err(
                "user",
                KeyProblem::Invalid(
                    "required key is missing: a password is given but no user to log in as"
                        .to_string(),
                ),
            )),
            _ => Ok(SmtpConfig {
                host,
                port,
                security,
                user,
                password,
                auth,
                ca_file,
                max_per_hour,
                max_per_day,
            }),
        }
    }

    /// `ca_file`: a readable file with at least one PEM certificate.
    fn ca_file(&self, f: &Fields<'_>) -> Result<Option<PathBuf>, KeyErr> {
        let Some(file) = f.opt_text("ca_file")? else {
            return Ok(None);
        };
        let p = self.path(file);
        let bytes = (self.read_file)(&p).map_err(|e| {
            f.invalid(
                "ca_file",
                format!(
                    "cannot read {}: {}",
                    p.display(),
                    crate::io_text::io_message(&e)
                ),
            )
        })?;
        crate::tls::pem_certificates(&p, bytes.as_bytes())
            .map(|_| Some(p.clone()))
            .map_err(|e| f.invalid("ca_file", e.to_string()))
    }

    /// The password from exactly one of `password_env`, `password_file`, `password`; `None` if
    /// none of them is given.
    fn password(&self, f: &Fields<'_>) -> Result<Option<Secret>, KeyErr> {
        let sources: Vec<&str> = [
            "password_env",
            "password_file",
            "password",
            "password_command",
        ]
        .into_iter()
        .filter(|k| f.has(k))
        .collect();
        if let [first, second, ..] = sources[..] {
            return Err(f.err(
                second,
                KeyProblem::Invalid(format!(
                    "give only one of password_env, password_file, password and password_command (`{}` is set too)",
                    f.key(first)
                )),
            ));
        }
        // Read when a password is needed (`crate::secret`): a command that does not connect
        // needs none, and a file put right counts at the next login.
        if let Some(var) = f.opt_text("password_env")? {
            return Ok(Some(Secret::Env {
                key: f.key("password_env"),
                var: var.to_string(),
            }));
        }
        if let Some(file) = f.opt_text("password_file")? {
            return Ok(Some(Secret::File {
                key: f.key("password_file"),
                path: self.path(file),
            }));
        }
        if let Some(cmd) = f.opt_text("password_command")? {
            // Run when a connection logs in (`crate::secret`), so a fresh token each time.
            return Ok(Some(Secret::Command(cmd.to_string())));
        }
        match f.opt_str("password")? {
            Some("") => Err(f.invalid("password", "must not be empty".to_string())),
            Some(pw) => Ok(Some(Secret::Fixed(pw.to_string()))),
            None => Ok(None),
        }
    }
}

const NO_PASSWORD: &str = "required key is missing: give one of password_env, password_file, password or password_command";

/// `auth`: `"password"` (default: IMAP LOGIN), `"plain"` (SASL PLAIN) or `"xoauth2"`.
fn auth(f: &Fields<'_>) -> Result<Auth, KeyErr> {
    match f.opt_str("auth")? {
        None | Some("password") => Ok(Auth::Password),
        Some("plain") => Ok(Auth::Plain),
        Some("xoauth2") => Ok(Auth::Xoauth2),
        Some(other) => Err(f.expected(
            "auth",
            "one of \"password\", \"plain\", \"xoauth2\"",
            format!("{other:?}"),
        )),
    }
}

/// `host`, `security` (default `tls`) and `port` (default by security) of a server; `none` only
/// towards a loopback host.
fn endpoint(
    f: &Fields<'_>,
    default_port: fn(Security) -> u16,
) -> Result<(String, Security, u16), KeyErr> {
    let host = f.req_text("host")?.to_string();
    let security = match f.opt_str("security")? {
        None => Security::Tls,
        Some(s) => parse_security(s).ok_or_else(|| {
            f.expected(
                "security",
                "one of \"tls\", \"starttls\", \"none\"",
                format!("{s:?}"),
            )
        })?,
    };
    if security == Security::None && !is_loopback(&host) {
        return Err(f.invalid(
            "security",
            format!(
                "\"none\" (no encryption) is allowed only for a loopback host (127.0.0.0/8, ::1, localhost), not {host:?}"
            ),
        ));
    }
    let port = match f.opt_int("port", 1, u16::MAX.into())? {
        // Within 1..=65535 by the range check.
        Some(p) => u16::try_from(p).unwrap_or(u16::MAX),
        None => default_port(security),
    };
    Ok((host, security, port))
}

/// Whether `host` is a loopback address or `localhost`.
pub fn is_loopback(host: &str) -> bool {
    let h = host.trim_end_matches('.');
    if h.eq_ignore_ascii_case("localhost") {
        return true;
    }
    if let Ok(ip) = h.parse::<Ipv4Addr>() {
        return ip.is_loopback();
    }
    let bare = h
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .unwrap_or(h);
    bare.parse::<Ipv6Addr>().is_ok_and(|ip| ip.is_loopback())
}

fn parse_weekday(s: &str) -> Option<Weekday> {
    match s.trim().to_ascii_lowercase().as_str() {
        "monday" | "mon" => Some(Weekday::Mon),
        "tuesday" | "tue" => Some(Weekday::Tue),
        "wednesday" | "wed" => Some(Weekday::Wed),
        "thursday" | "thu" => Some(Weekday::Thu),
        "friday" | "fri" => Some(Weekday::Fri),
        "saturday" | "sat" => Some(Weekday::Sat),
        "sunday" | "sun" => Some(Weekday::Sun),
        _ => None,
    }
}

fn limits(f: &Fields<'_>) -> Result<LimitsConfig, KeyErr> {
    f.allow(&[
        "max_mail_bytes",
        "outbox_max_age_days",
        "auto_answers_per_day",
    ])?;
    let d = LimitsConfig::default();
    let u32_max = i64::from(u32::MAX);
    Ok(LimitsConfig {
        max_mail_bytes: f
            .opt_int("max_mail_bytes", 1, i64::MAX)?
            .unwrap_or(d.max_mail_bytes),
        outbox_max_age_days: f
            .opt_int("outbox_max_age_days", 1, u32_max)?
            .map_or(d.outbox_max_age_days, saturate_u32),
        auto_answers_per_day: f
            .opt_int("auto_answers_per_day", 1, u32_max)?
            .map_or(d.auto_answers_per_day, saturate_u32),
    })
}

/// A value already range-checked to fit.
fn saturate_u32(v: u64) -> u32 {
    u32::try_from(v).unwrap_or(u32::MAX)
}

fn xfcc(f: &Fields<'_>) -> Result<XfccConfig, KeyErr> {
    f.allow(&["listen", "url"])?;
    let text = f.req_text("listen")?;
    let listen: std::net::SocketAddr = text.parse().map_err(|_| {
        f.expected(
            "listen",
            "an IP address and a port, e.g. \"127.0.0.1:8080\" or \"[::1]:8080\"",
            format!("{text:?}"),
        )
    })?;
    let url = match f.opt_text("url")? {
        Some(u) if u.starts_with("http://") || u.starts_with("https://") => u.to_string(),
        Some(u) => {
            return Err(f.expected(
                "url",
                "the endpoint as players reach it, starting with http:// or https://",
                format!("{u:?}"),
            ));
        }
        None => format!("http://{listen}/xfccbasic.asmx"),
    };
    Ok(XfccConfig { listen, url })
}

fn http(f: &Fields<'_>) -> Result<HttpConfig, KeyErr> {
    f.allow(&["listen", "delay_moves", "public_url"])?;
    let text = f.req_text("listen")?;
    let listen: std::net::SocketAddr = text.parse().map_err(|_| {
        f.expected(
            "listen",
            "an IP address and a port, e.g. \"127.0.0.1:9090\" or \"[::1]:9090\"",
            format!("{text:?}"),
        )
    })?;
    let delay_moves = f.opt_int("delay_moves", 0, 1000)?.map_or(0, saturate_u32);
    let public_url = match f.opt_text("public_url")? {
        Some(u) => Some(absolute_http_url(u).ok_or_else(|| {
            f.expected(
                "public_url",
                "an absolute http:// or https:// URL with a host, without a query or fragment, \
                 e.g. \"https://schach.example.org\"",
                format!("{u:?}"),
            )
        })?),
        None => None,
    };
    Ok(HttpConfig {
        listen,
        delay_moves,
        public_url,
    })
}

/// `text` as the base of the pages' links: `http://` or `https://`, a host (a name, an IPv4
/// address or a bracketed IPv6 one) with an optional port, an optional path — no user, no
/// query, no fragment, no blank —, without its final `/`. `None` when it is not one.
fn absolute_http_url(text: &str) -> Option<String> {
    let rest = text
        .strip_prefix("https://")
        .or_else(|| text.strip_prefix("http://"))?;
    if text.contains(|c: char| c.is_whitespace() || c.is_control() || matches!(c, '?' | '#'))
        || !text.is_ascii()
    {
        return None;
    }
    let (authority, _path) = rest.split_once('/').unwrap_or((rest, ""));
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => {
            let (addr, after) = v6.split_once(']')?;
            addr.parse::<std::net::Ipv6Addr>().ok()?;
            (addr, after.strip_prefix(':'))
        }
        None => match authority.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (authority, None),
        },
    };
    let name_ok = !host.is_empty()
        && host
            .split('.')
            .all(|l| !l.is_empty() && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'));
    if !(name_ok || authority.starts_with('[')) {
        return None;
    }
    if let Some(p) = port
        && p.parse::<u16>().ok().filter(|p| *p > 0).is_none()
    {
        return None;
    }
    Some(text.trim_end_matches('/').to_string())
}

fn security(f: &Fields<'_>) -> Result<SecurityConfig, KeyErr> {
    f.allow(&[
        "require_dmarc_pass",
        "trusted_authserv_id",
        "require_reply_key",
    ])?;
    let require_dmarc_pass = f.opt_bool("require_dmarc_pass")?.unwrap_or(false);
    let trusted_authserv_id = f.opt_text("trusted_authserv_id")?.map(str::to_string);
    if require_dmarc_pass && trusted_authserv_id.is_none() {
        return Err(f.invalid(
            "trusted_authserv_id",
            "required key is missing: `security.require_dmarc_pass = true` needs the authserv-id \
             of the receiving server, whose Authentication-Results alone are trusted"
                .to_string(),
        ));
    }
    let require_reply_key = f.opt_bool("require_reply_key")?.unwrap_or(false);
    Ok(SecurityConfig {
        require_dmarc_pass,
        trusted_authserv_id,
        require_reply_key,
    })
}

/// Whether `s` is a plain e-mail address (addr-spec `local@domain`): a dot-atom local part and a
/// domain of letters, digits and hyphens in dot-separated labels; ASCII only, no display name,
/// no angle brackets, no quoted local parts.
pub fn valid_email(s: &str) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    const ATEXT: &str = "!#$%&'*+-/=?^_`{|}~";
    let local_ok = !local.is_empty()
        && local.len() <= 64
        && local.split('.').all(|a| {
            !a.is_empty()
                && a.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ATEXT.contains(c))
        });
    let domain_ok = !domain.is_empty()
        && domain.len() <= 253
        && domain.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && !l.starts_with('-')
                && !l.ends_with('-')
                && l.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    local_ok && domain_ok
}

/// Reading a parsed TOML table key by key, with errors naming the full key path.
pub(crate) mod fields {
    use super::{KeyProblem, valid_email};
    use crate::lang::Lang;
    use toml::{Table, Value};

    /// A TOML syntax error, located.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub(crate) struct SyntaxErr {
        pub line: usize,
        pub column: usize,
        /// The key written on the error's line, with its table, e.g. `imap.port`.
        pub key: Option<String>,
        /// toml's message, on one line.
        pub message: String,
    }

    /// Parses `text` as a TOML document; a syntax error is located by line and column (1-based).
    pub(crate) fn parse_toml(text: &str) -> Result<Table, SyntaxErr> {
        toml::from_str::<Table>(text).map_err(|e| {
            let start = e.span().map_or(0, |s| s.start);
            let before = text.get(..start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let message = e
                .message()
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect::<Vec<_>>()
                .join("; ");
            SyntaxErr {
                line,
                column,
                key: key_on_line(text, line),
                message,
            }
        })
    }

    /// The key on line `line` (1-based) of `text`, prefixed by the last `[table]` header above
    /// it (`[[table]]` blocks counted from 1: `players[2].name`); or the header itself if the
    /// line is one. A hint only: it reads lines, not TOML, so it gives up (`None`) on anything
    /// unusual.
    fn key_on_line(text: &str, line: usize) -> Option<String> {
        let lines: Vec<&str> = text.lines().take(line).collect();
        let here = line.checked_sub(1)?;
        let current = lines.get(here)?.trim();
        if current.starts_with('[') {
            return header_path(&lines, here);
        }
        let (key, _) = current.split_once('=')?;
        let key = key.trim();
        if !simple_key(key) {
            return None;
        }
        let table = (0..here).rev().find(|&j| {
            lines
                .get(j)
                .is_some_and(|l| l.trim_start().starts_with('['))
        });
        match table {
            Some(j) => header_path(&lines, j).map(|t| format!("{t}.{key}")),
            None => Some(key.to_string()),
        }
    }

    /// The line (1-based) on which key `key` (a path as [`KeyErr`] names it: `players[2].email`,
    /// `director`, `games[3]`) is written, reading lines as [`key_on_line`] does: a hint only,
    /// `None` for anything unusual (inline tables, dotted keys) or a key not written at all.
    pub(crate) fn line_of_key(text: &str, key: &str) -> Option<usize> {
        let lines: Vec<&str> = text.lines().collect();
        let mut table: Option<String> = None;
        for (j, l) in lines.iter().enumerate() {
            let t = l.trim();
            if t.starts_with('[') {
                table = header_path(&lines, j);
                if table.as_deref() == Some(key) {
                    return Some(j + 1);
                }
                continue;
            }
            let Some((k, _)) = t.split_once('=') else {
                continue;
            };
            let k = k.trim();
            if !simple_key(k) {
                continue;
            }
            let full = match &table {
                Some(p) => format!("{p}.{k}"),
                None => k.to_string(),
            };
            if full == key {
                return Some(j + 1);
            }
        }
        None
    }

    /// The path a header line opens: `imap` for `[imap]`, `players[2]` for the second
    /// `[[players]]` up to that line.
    fn header_path(lines: &[&str], j: usize) -> Option<String> {
        let header = |l: &str| -> Option<(String, bool)> {
            let l = l.split('#').next()?.trim();
            let (inner, array) = match l.strip_prefix("[[").and_then(|r| r.strip_suffix("]]")) {
                Some(inner) => (inner, true),
                None => (l.strip_prefix('[')?.strip_suffix(']')?, false),
            };
            let inner = inner.trim();
            simple_key(inner).then(|| (inner.to_string(), array))
        };
        let (name, array) = header(lines.get(j)?)?;
        if !array {
            return Some(name);
        }
        let count = lines
            .get(..=j)?
            .iter()
            .filter(|l| header(l).is_some_and(|(n, a)| a && n == name))
            .count();
        Some(format!("{name}[{count}]"))
    }

    /// A bare (possibly dotted) key: letters, digits, `_`, `-`, `.`.
    fn simple_key(k: &str) -> bool {
        !k.is_empty()
            && k.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.')
    }

    /// One key's problem, before the file name is attached.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub(crate) struct KeyErr {
        /// Full key path, e.g. `imap.port` or `players[2].email`.
        pub key: String,
        pub problem: KeyProblem,
    }

    /// How a value looks in an error message: strings quoted, numbers as written, tables and
    /// arrays by kind.
    pub(crate) fn describe(v: &Value) -> String {
        match v {
            Value::String(s) => format!("{s:?}"),
            Value::Integer(i) => i.to_string(),
            Value::Float(x) => x.to_string(),
            Value::Boolean(b) => b.to_string(),
            Value::Datetime(d) => d.to_string(),
            Value::Array(_) => "an array".to_string(),
            Value::Table(_) => "a table".to_string(),
        }
    }

    /// A table at a key path (`""` for the document itself).
    pub(crate) struct Fields<'a> {
        table: &'a Table,
        path: String,
    }

    impl<'a> Fields<'a> {
        /// The table at `path`, refusing any key not in `allowed`.
        pub fn new(
            table: &'a Table,
            path: &str,
            allowed: &[&'static str],
        ) -> Result<Fields<'a>, KeyErr> {
            let f = Fields {
                table,
                path: path.to_string(),
            };
            f.allow(allowed)?;
            Ok(f)
        }

        /// Refuses the first key (in the table's key order) that is not in `allowed`.
        /// The table at `path` without checking its keys (the caller reports unknown ones).
        pub fn lenient(table: &'a Table, path: &str) -> Fields<'a> {
            Fields {
                table,
                path: path.to_string(),
            }
        }

        pub fn allow(&self, allowed: &[&'static str]) -> Result<(), KeyErr> {
            match self.table.keys().find(|k| !allowed.contains(&k.as_str())) {
                Some(k) => Err(self.err(
                    k,
                    KeyProblem::Unknown {
                        allowed: allowed.to_vec(),
                    },
                )),
                None => Ok(()),
            }
        }

        /// The full path of `name` in this table.
        pub fn key(&self, name: &str) -> String {
            if self.path.is_empty() {
                name.to_string()
            } else {
                format!("{}.{name}", self.path)
            }
        }

        pub fn err(&self, name: &str, problem: KeyProblem) -> KeyErr {
            KeyErr {
                key: self.key(name),
                problem,
            }
        }

        pub fn invalid(&self, name: &str, why: String) -> KeyErr {
            self.err(name, KeyProblem::Invalid(why))
        }

        pub fn expected(&self, name: &str, expected: &str, found: String) -> KeyErr {
            self.err(
                name,
                KeyProblem::Expected {
                    expected: expected.to_string(),
                    found,
                },
            )
        }

        fn wrong(&self, name: &str, expected: &str, v: &Value) -> KeyErr {
            self.expected(name, expected, describe(v))
        }

        pub fn has(&self, name: &str) -> bool {
            self.table.contains_key(name)
        }

        fn required<T>(&self, name: &str, v: Option<T>) -> Result<T, KeyErr> {
            v.ok_or_else(|| self.err(name, KeyProblem::Missing))
        }

        /// A string, as written.
        pub fn opt_str(&self, name: &str) -> Result<Option<&'a str>, KeyErr> {
            match self.table.get(name) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.as_str())),
                Some(v) => Err(self.wrong(name, "a string", v)),
            }
        }

        /// A one-line text: a string, trimmed, not empty, without control characters.
        pub fn opt_text(&self, name: &str) -> Result<Option<&'a str>, KeyErr> {
            let Some(s) = self.opt_str(name)? else {
                return Ok(None);
            };
            if s.chars().any(char::is_control) {
                return Err(self.invalid(
                    name,
                    format!("{s:?} contains a control character (such as a line break)"),
                ));
            }
            let t = s.trim();
            if t.is_empty() {
                return Err(self.invalid(name, "must not be empty".to_string()));
            }
            Ok(Some(t))
        }

        pub fn req_text(&self, name: &str) -> Result<&'a str, KeyErr> {
            let v = self.opt_text(name)?;
            self.required(name, v)
        }

        /// A list of e-mail addresses (addr-specs), lower-cased; `[]` when the key is absent.
        pub fn opt_emails(&self, name: &str) -> Result<Vec<String>, KeyErr> {
            match self.table.get(name) {
                None => Ok(Vec::new()),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|v| match v {
                        Value::String(s) if valid_email(s.trim()) => {
                            Ok(s.trim().to_ascii_lowercase())
                        }
                        Value::String(s) => {
                            Err(self.invalid(name, format!("{s:?} is not an e-mail address")))
                        }
                        v => Err(self.wrong(name, "a list of e-mail addresses", v)),
                    })
                    .collect(),
                Some(v) => Err(self.wrong(name, "a list of e-mail addresses", v)),
            }
        }

        /// An e-mail address (addr-spec), lower-cased.
        pub fn opt_email(&self, name: &str) -> Result<Option<String>, KeyErr> {
            match self.opt_str(name)? {
                None => Ok(None),
                Some(s) if valid_email(s.trim()) => Ok(Some(s.trim().to_ascii_lowercase())),
                Some(s) => Err(self.invalid(name, format!("{s:?} is not an e-mail address"))),
            }
        }

        pub fn req_email(&self, name: &str) -> Result<String, KeyErr> {
            let v = self.opt_email(name)?;
            self.required(name, v)
        }

        /// `de` or `en`.
        pub fn opt_lang(&self, name: &str) -> Result<Option<Lang>, KeyErr> {
            match self.table.get(name) {
                None => Ok(None),
                Some(v @ Value::String(s)) => Lang::parse(s)
                    .map(Some)
                    .ok_or_else(|| self.wrong(name, "\"de\" or \"en\"", v)),
                Some(v) => Err(self.wrong(name, "\"de\" or \"en\"", v)),
            }
        }

        /// An integer from `min` to `max` (`min` ≥ 0).
        pub fn opt_int(&self, name: &str, min: i64, max: i64) -> Result<Option<u64>, KeyErr> {
            match self.table.get(name) {
                None => Ok(None),
                Some(Value::Integer(i)) if (min..=max).contains(i) => Ok(u64::try_from(*i).ok()),
                Some(v) => {
                    let expected = if max == i64::MAX {
                        format!("an integer of at least {min}")
                    } else {
                        format!("an integer from {min} to {max}")
                    };
                    Err(self.wrong(name, &expected, v))
                }
            }
        }

        pub fn opt_bool(&self, name: &str) -> Result<Option<bool>, KeyErr> {
            match self.table.get(name) {
                None => Ok(None),
                Some(Value::Boolean(b)) => Ok(Some(*b)),
                Some(v) => Err(self.wrong(name, "true or false", v)),
            }
        }

        /// A sub-table (`[name]`), with no key checking yet (see [`Fields::allow`]).
        pub fn opt_table(&self, name: &str) -> Result<Option<Fields<'a>>, KeyErr> {
            match self.table.get(name) {
                None => Ok(None),
                Some(Value::Table(t)) => Ok(Some(Fields {
                    table: t,
                    path: self.key(name),
                })),
                Some(v) => Err(self.wrong(name, &format!("a table ([{}])", self.key(name)), v)),
            }
        }

        pub fn req_table(&self, name: &str) -> Result<Fields<'a>, KeyErr> {
            let v = self.opt_table(name)?;
            self.required(name, v)
        }

        /// An array of tables (`[[name]]`); element `i` gets the path `name[i+1]` (counted from 1,
        /// as the operator counts the `[[name]]` blocks).
        pub fn opt_tables(&self, name: &str) -> Result<Option<Vec<Fields<'a>>>, KeyErr> {
            let expected = format!("an array of tables ([[{}]])", self.key(name));
            match self.table.get(name) {
                None => Ok(None),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        let path = format!("{}[{}]", self.key(name), i + 1);
                        match item {
                            Value::Table(t) => Ok(Fields { table: t, path }),
                            v => Err(KeyErr {
                                key: path,
                                problem: KeyProblem::Expected {
                                    expected: "a table".to_string(),
                                    found: describe(v),
                                },
                            }),
                        }
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some),
                Some(v) => Err(self.wrong(name, &expected, v)),
            }
        }

        /// The raw value of a key.
        pub fn value(&self, name: &str) -> Option<&'a Value> {
            self.table.get(name)
        }
    }
}

fn parse_security(s: &str) -> Option<Security> {
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A whole configuration as an operator writes one (once the example of docs/contract.md,
    /// which now links to deploy/fernzug.example.toml instead).
    const CONTRACT_EXAMPLE: &str = r#"
[relay]
address = "relay@fernschach.test"   # the relay mailbox; plus-addresses relay+KEY@ must reach it
name = "Fernschach-Relais"          # display name on outgoing mail
data_dir = "/var/lib/fernzug"       # the embedded store and the mail archive
time_zone = "Europe/Berlin"         # calendar days are counted in this zone
language = "de"                     # default language of outgoing mail: de | en

[imap]
host = "127.0.0.1"
port = 993
security = "tls"                    # tls | starttls | none (none only for loopback)
user = "relay@fernschach.test"
password_env = "FERNZUG_IMAP_PASSWORD"   # or password_file = "...", or password = "..."
mailbox = "INBOX"

[smtp]
host = "127.0.0.1"
port = 465
security = "tls"                    # tls | starttls | none
user = "relay@fernschach.test"      # optional: no user, no AUTH
password_env = "FERNZUG_SMTP_PASSWORD"
"#;

    /// A small valid configuration whose sections tests replace or extend.
    const RELAY: &str = r#"
[relay]
address = "relay@fernschach.test"
name = "Relais"
data_dir = "/var/lib/fernzug"
time_zone = "Europe/Berlin"
"#;
    const IMAP: &str = "[imap]\nhost = \"imap.example.org\"\nuser = \"u\"\npassword = \"pw\"\n";
    const SMTP: &str = "[smtp]\nhost = \"smtp.example.org\"\n";

    /// The file system the tests' configurations see (`ca_file`): nothing is there.
    fn read_file(_: &Path) -> io::Result<String> {
        Err(io::Error::from(io::ErrorKind::NotFound))
    }

    fn path() -> &'static Path {
        Path::new("/etc/fernzug/fernzug.toml")
    }

    fn ok(text: &str) -> Config {
        match parse(path(), text, &read_file) {
            Ok(c) => c,
            Err(e) => panic!("expected a valid configuration, got: {e}"),
        }
    }

    /// The one-line message of the error `text` gives.
    fn err(text: &str) -> String {
        match parse(path(), text, &read_file) {
            Ok(c) => panic!("expected an error, got {c:?}"),
            Err(e) => {
                let s = e.to_string();
                assert!(!s.contains('\n'), "message not on one line: {s:?}");
                s
            }
        }
    }

    fn with(relay: &str, imap: &str, smtp: &str, rest: &str) -> String {
        format!("{relay}\n{imap}\n{smtp}\n{rest}")
    }

    /// deploy/fernzug.example.toml, the one place where every key is written out for operators
    /// (installed as /etc/fernzug/fernzug.toml): it parses as it is, and each key it shows
    /// commented out is one the relay knows (uncommented alone, with its section, it is never an
    /// unknown key).
    #[test]
    fn the_deploy_example_parses_and_names_only_known_keys() {
        const EXAMPLE: &str = include_str!("../deploy/fernzug.example.toml");
        let c = ok(EXAMPLE);
        assert_eq!(c.relay.address, "relay@fernschach.test");
        let lines: Vec<&str> = EXAMPLE.lines().collect();
        let key = regex::Regex::new(r"^# ([a-z_]+) = ").unwrap();
        let mut section = None;
        let mut tried = 0;
        for (i, line) in lines.iter().enumerate() {
            if line.starts_with('[') || line.starts_with("# [") {
                section = Some(i);
                continue;
            }
            if !key.is_match(line) {
                continue;
            }
            let mut text: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            text[i] = line["# ".len()..].to_string();
            if let Some(h) = section {
                text[h] = text[h].trim_start_matches("# ").to_string();
            }
            if let Err(e) = parse(path(), &text.join("\n"), &read_file) {
                assert!(
                    !e.to_string().contains("unknown key"),
                    "line {}: {line}: {e}",
                    i + 1
                );
            }
            tried += 1;
        }
        assert!(tried >= 12, "{tried} commented keys tried");
    }

    /// The other way round: every key the relay knows, in every section, is named in
    /// deploy/fernzug.example.toml — the configuration is written out in that one place, and the
    /// guides link to it.
    #[test]
    fn every_known_key_is_named_in_the_deploy_example() {
        const EXAMPLE: &str = include_str!("../deploy/fernzug.example.toml");
        let named = |key: &str| {
            regex::Regex::new(&format!(r"(^|[^A-Za-z0-9_]){key}([^A-Za-z0-9_]|$)"))
                .unwrap()
                .is_match(EXAMPLE)
        };
        let mut checked = 0;
        for section in [
            "relay", "imap", "smtp", "limits", "security", "xfcc", "http",
        ] {
            // A key no section knows makes the error list the section's keys.
            let mut text = EXAMPLE.to_string();
            let header = format!("\n[{section}]");
            if !text.contains(&header) {
                text.push_str(&format!("\n[{section}]\n"));
            }
            text = text.replacen(&header, &format!("{header}\nzz_not_a_key = 1"), 1);
            let e = parse(path(), &text, &read_file).expect_err("an unknown key");
            let FileError::Key {
                problem: KeyProblem::Unknown { allowed },
                ..
            } = &e
            else {
                panic!("[{section}]: {e}");
            };
            for key in allowed {
                assert!(
                    named(key),
                    "[{section}] {key} is not in deploy/fernzug.example.toml"
                );
                checked += 1;
            }
        }
        assert!(checked >= 40, "{checked} keys checked");
    }

    #[test]
    fn contract_example_parses() {
        let c = ok(CONTRACT_EXAMPLE);
        assert_eq!(c.path, path());
        assert_eq!(c.relay.address, "relay@fernschach.test");
        assert_eq!(c.relay.name, "Fernschach-Relais");
        assert_eq!(c.relay.data_dir, PathBuf::from("/var/lib/fernzug"));
        assert_eq!(c.relay.time_zone, chrono_tz::Europe::Berlin);
        assert_eq!(c.relay.language, Lang::De);
        assert_eq!(c.relay.templates_dir, None);
        assert_eq!(c.relay.digest_day, Some(Weekday::Mon), "Monday by default");
        assert_eq!(c.imap.host, "127.0.0.1");
        assert_eq!(c.imap.port, 993);
        assert_eq!(c.imap.security, Security::Tls);
        assert_eq!(c.imap.user, "relay@fernschach.test");
        assert_eq!(
            c.imap.password,
            Secret::Env {
                key: "imap.password_env".into(),
                var: "FERNZUG_IMAP_PASSWORD".into()
            }
        );
        assert_eq!(c.imap.mailbox, "INBOX");
        assert_eq!(c.imap.idle_minutes, 5);
        assert_eq!(c.smtp.port, 465);
        assert_eq!(c.smtp.security, Security::Tls);
        assert_eq!(c.smtp.user.as_deref(), Some("relay@fernschach.test"));
        assert_eq!(
            c.smtp.password,
            Some(Secret::Env {
                key: "smtp.password_env".into(),
                var: "FERNZUG_SMTP_PASSWORD".into()
            })
        );
        assert_eq!(c.limits, LimitsConfig::default());
        assert_eq!(c.limits.max_mail_bytes, 262_144);
        assert_eq!(c.limits.outbox_max_age_days, 5);
        assert_eq!(c.limits.auto_answers_per_day, 10);
        assert_eq!(c.security, SecurityConfig::default());
        assert!(!c.security.require_dmarc_pass);
        assert!(!c.security.require_reply_key, "off by default");
    }

    /// The password keys are checked as keys when the file is loaded; the variable or file they
    /// name is read when a connection logs in (`crate::secret`): a configuration whose
    /// variable is not set loads (commands that do not connect need no password), and the
    /// password names the key when it is needed.
    #[test]
    fn a_password_variable_not_set_loads_and_is_named_when_the_password_is_needed() {
        let c = ok(CONTRACT_EXAMPLE);
        if std::env::var_os("FERNZUG_IMAP_PASSWORD").is_none() {
            assert_eq!(
                c.imap.password.reveal().map_err(|e| e.to_string()),
                Err("key `imap.password_env`: the environment variable \
                     FERNZUG_IMAP_PASSWORD is not set"
                    .to_string())
            );
        }
        let c = ok(&with(
            RELAY,
            &imap_with("password_file = \"/nonexistent/fernzug-test/imap.password\"\n"),
            SMTP,
            "",
        ));
        assert_eq!(
            c.imap.password.reveal().map_err(|e| e.to_string()),
            Err("key `imap.password_file`: cannot read \
                 /nonexistent/fernzug-test/imap.password: No such file or directory"
                .to_string())
        );
    }

    #[test]
    fn optional_keys_are_read() {
        let relay = format!(
            "{RELAY}language = \"en\"\ntemplates_dir = \"templates\"\ndigest_day = \"Monday\"\n"
        );
        let imap = "[imap]\nhost = \"h\"\nuser = \"u\"\npassword = \"p\"\nmailbox = \"Relay\"\nidle_minutes = 3\n";
        let rest = "[limits]\nmax_mail_bytes = 1000000\noutbox_max_age_days = 3\nauto_answers_per_day = 4\n\
                    [security]\nrequire_dmarc_pass = true\ntrusted_authserv_id = \"mx.fernschach.test\"\n\
                    require_reply_key = true\n";
        let c = ok(&with(&relay, imap, SMTP, rest));
        assert!(c.security.require_reply_key);
        assert_eq!(c.relay.language, Lang::En);
        assert_eq!(
            c.relay.templates_dir,
            Some(PathBuf::from("/etc/fernzug/templates"))
        );
        assert_eq!(c.relay.digest_day, Some(Weekday::Mon));
        assert_eq!(c.imap.mailbox, "Relay");
        assert_eq!(c.imap.idle_minutes, 3);
        assert_eq!(
            c.limits,
            LimitsConfig {
                max_mail_bytes: 1_000_000,
                outbox_max_age_days: 3,
                auto_answers_per_day: 4
            }
        );
        assert!(c.security.require_dmarc_pass);
        assert_eq!(
            c.security.trusted_authserv_id.as_deref(),
            Some("mx.fernschach.test")
        );
    }

    #[test]
    fn address_is_lower_cased_and_relative_data_dir_follows_the_file() {
        let relay = RELAY
            .replace("relay@fernschach.test", "Relay@Fernschach.TEST")
            .replace("/var/lib/fernzug", "data");
        let c = ok(&with(&relay, IMAP, SMTP, ""));
        assert_eq!(c.relay.address, "relay@fernschach.test");
        assert_eq!(c.relay.data_dir, PathBuf::from("/etc/fernzug/data"));
    }

    #[test]
    fn port_defaults_follow_security() {
        let cases = [("tls", 993, 465), ("starttls", 143, 587), ("none", 143, 25)];
        for (sec, imap_port, smtp_port) in cases {
            let imap = format!(
                "[imap]\nhost = \"127.0.0.1\"\nsecurity = \"{sec}\"\nuser = \"u\"\npassword = \"p\"\n"
            );
            let smtp = format!("[smtp]\nhost = \"localhost\"\nsecurity = \"{sec}\"\n");
            let c = ok(&with(RELAY, &imap, &smtp, ""));
            assert_eq!((c.imap.port, c.smtp.port), (imap_port, smtp_port), "{sec}");
            assert_eq!(c.imap.security.name(), sec);
        }
        // Without `security`: TLS.
        let c = ok(&with(RELAY, IMAP, SMTP, ""));
        assert_eq!((c.imap.security, c.imap.port), (Security::Tls, 993));
        assert_eq!((c.smtp.security, c.smtp.port), (Security::Tls, 465));
    }

    #[test]
    fn security_none_only_for_loopback() {
        for host in [
            "127.0.0.1",
            "127.1.2.3",
            "::1",
            "[::1]",
            "localhost",
            "LOCALHOST.",
        ] {
            assert!(is_loopback(host), "{host}");
        }
        for host in [
            "128.0.0.1",
            "10.0.0.1",
            "::2",
            "mail.example.org",
            "localhost.example.org",
        ] {
            assert!(!is_loopback(host), "{host}");
        }
        let smtp = "[smtp]\nhost = \"mail.example.org\"\nsecurity = \"none\"\n";
        assert_eq!(
            err(&with(RELAY, IMAP, smtp, "")),
            "/etc/fernzug/fernzug.toml: key `smtp.security`: \"none\" (no encryption) is allowed \
             only for a loopback host (127.0.0.0/8, ::1, localhost), not \"mail.example.org\""
        );
    }

    #[test]
    fn bad_port_names_key_and_value() {
        let imap = format!("{IMAP}port = \"abc\"\n");
        assert_eq!(
            err(&with(RELAY, &imap, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `imap.port`: expected an integer from 1 to 65535, found \"abc\""
        );
        let smtp = format!("{SMTP}port = 70000\n");
        assert_eq!(
            err(&with(RELAY, IMAP, &smtp, "")),
            "/etc/fernzug/fernzug.toml: key `smtp.port`: expected an integer from 1 to 65535, found 70000"
        );
        let smtp = format!("{SMTP}port = 0\n");
        assert!(err(&with(RELAY, IMAP, &smtp, "")).ends_with("found 0"));
    }

    #[test]
    fn bad_security_value() {
        let imap = format!("{IMAP}security = \"ssl\"\n");
        assert_eq!(
            err(&with(RELAY, &imap, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `imap.security`: expected one of \"tls\", \"starttls\", \"none\", found \"ssl\""
        );
    }

    #[test]
    fn xfcc_listens_where_told_and_tells_players_its_url() {
        let c = ok(&with(
            RELAY,
            IMAP,
            SMTP,
            "[xfcc]\nlisten = \"127.0.0.1:8080\"\n",
        ));
        let x = c.xfcc.expect("[xfcc]");
        assert_eq!(x.listen.to_string(), "127.0.0.1:8080");
        assert_eq!(x.url, "http://127.0.0.1:8080/xfccbasic.asmx");
        let proxied =
            "[xfcc]\nlisten = \"[::1]:8080\"\nurl = \"https://schach.example/xfccbasic.asmx\"\n";
        let x = ok(&with(RELAY, IMAP, SMTP, proxied)).xfcc.unwrap();
        assert_eq!(x.url, "https://schach.example/xfccbasic.asmx");
        assert!(ok(&with(RELAY, IMAP, SMTP, "")).xfcc.is_none());
        assert_eq!(
            err(&with(RELAY, IMAP, SMTP, "[xfcc]\nlisten = \"localhost\"\n")),
            "/etc/fernzug/fernzug.toml: key `xfcc.listen`: expected an IP address and a port, e.g. \
             \"127.0.0.1:8080\" or \"[::1]:8080\", found \"localhost\""
        );
        assert!(
            err(&with(RELAY, IMAP, SMTP, "[xfcc]\nurl = \"https://x\"\n")).contains("xfcc.listen")
        );
    }

    #[test]
    fn the_operator_is_alerted_after_alert_minutes_and_http_listens_where_told() {
        let c = ok(&with(RELAY, IMAP, SMTP, ""));
        assert_eq!(
            (c.relay.operator.as_deref(), c.relay.alert_minutes),
            (None, 30)
        );
        assert!(c.http.is_none());
        let relay = format!("{RELAY}operator = \"Ops@Example.org\"\nalert_minutes = 5\n");
        let c = ok(&with(
            &relay,
            IMAP,
            SMTP,
            "[http]\nlisten = \"127.0.0.1:9090\"\n",
        ));
        assert_eq!(c.relay.operator.as_deref(), Some("ops@example.org"));
        assert_eq!(c.relay.alert_minutes, 5);
        assert_eq!(c.http.unwrap().listen, "127.0.0.1:9090".parse().unwrap());
        let e = err(&with(
            &format!("{RELAY}alert_minutes = 0\n"),
            IMAP,
            SMTP,
            "",
        ));
        assert!(
            e.contains("key `relay.alert_minutes`") && e.contains("from 1 to 10080"),
            "{e}"
        );
        let e = err(&with(
            &format!("{RELAY}operator = \"ops\"\n"),
            IMAP,
            SMTP,
            "",
        ));
        assert!(e.contains("key `relay.operator`"), "{e}");
        let e = err(&with(RELAY, IMAP, SMTP, "[http]\nlisten = \"localhost\"\n"));
        assert!(
            e.contains("key `http.listen`: expected an IP address and a port"),
            "{e}"
        );
    }

    #[test]
    fn public_url_is_an_absolute_http_url_kept_without_its_final_slash() {
        let http = |url: &str| {
            with(
                RELAY,
                IMAP,
                SMTP,
                &format!("[http]\nlisten = \"127.0.0.1:9090\"\npublic_url = \"{url}\"\n"),
            )
        };
        let c = ok(&with(
            RELAY,
            IMAP,
            SMTP,
            "[http]\nlisten = \"127.0.0.1:9090\"\n",
        ));
        assert_eq!(c.http.unwrap().public_url, None, "no links unless set");
        for (url, kept) in [
            ("https://schach.example.org", "https://schach.example.org"),
            ("https://schach.example.org/", "https://schach.example.org"),
            ("http://127.0.0.1:9090", "http://127.0.0.1:9090"),
            (
                "https://example.org/fernschach/",
                "https://example.org/fernschach",
            ),
            ("http://[::1]:8080", "http://[::1]:8080"),
        ] {
            let c = ok(&http(url));
            assert_eq!(c.http.unwrap().public_url.as_deref(), Some(kept), "{url}");
        }
        for url in [
            "schach.example.org",
            "ftp://schach.example.org",
            "https://",
            "https:///t/x",
            "https://schach example.org",
            "https://user@schach.example.org",
            "https://schach.example.org/?lang=en",
            "https://schach.example.org/#top",
            "https://schach.example.org:0",
            "https://schach.example.org:99999",
            "https://[::1",
        ] {
            let e = err(&http(url));
            assert!(
                e.contains("key `http.public_url`: expected an absolute http:// or https:// URL"),
                "{url}: {e}"
            );
        }
    }

    #[test]
    fn unknown_keys_are_refused() {
        let relay = RELAY.replace("address", "adress");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.adress`: unknown key (allowed here: address, \
             name, data_dir, time_zone, language, templates_dir, digest_day, operator, alert_minutes, warn_days, directors)"
        );
        assert_eq!(
            err(&with(RELAY, IMAP, SMTP, "[pop3]\nhost = \"x\"\n")),
            "/etc/fernzug/fernzug.toml: key `pop3`: unknown key (allowed here: relay, imap, smtp, \
             limits, security, xfcc, http)"
        );
        let e = err(&with(RELAY, IMAP, SMTP, "[limits]\nmax_mail_size = 5\n"));
        assert!(
            e.starts_with("/etc/fernzug/fernzug.toml: key `limits.max_mail_size`: unknown key"),
            "{e}"
        );
    }

    #[test]
    fn missing_keys_are_named() {
        let relay = RELAY.replace("address = \"relay@fernschach.test\"\n", "");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.address`: required key is missing"
        );
        assert_eq!(
            err(&with(RELAY, "", SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `imap`: required key is missing"
        );
        let relay = RELAY.replace("time_zone = \"Europe/Berlin\"\n", "");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.time_zone`: required key is missing"
        );
        let smtp = "[smtp]\nport = 25\n";
        assert_eq!(
            err(&with(RELAY, IMAP, smtp, "")),
            "/etc/fernzug/fernzug.toml: key `smtp.host`: required key is missing"
        );
    }

    #[test]
    fn wrong_types_are_named() {
        assert_eq!(
            err(&with(RELAY, IMAP, SMTP, "limits = 5\n")
                .replace("limits = 5\n", "")
                .replace("[relay]", "limits = 5\n[relay]")),
            "/etc/fernzug/fernzug.toml: key `limits`: expected a table ([limits]), found 5"
        );
        let relay = RELAY.replace("name = \"Relais\"", "name = 7");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.name`: expected a string, found 7"
        );
        let e = err(&with(
            RELAY,
            IMAP,
            SMTP,
            "[security]\nrequire_dmarc_pass = \"yes\"\n",
        ));
        assert_eq!(
            e,
            "/etc/fernzug/fernzug.toml: key `security.require_dmarc_pass`: expected true or false, found \"yes\""
        );
    }

    #[test]
    fn bad_time_zone_names_the_value() {
        let relay = RELAY.replace("Europe/Berlin", "Europe/Berlinn");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.time_zone`: \"Europe/Berlinn\" is not a time \
             zone of the IANA database (e.g. \"Europe/Berlin\")"
        );
    }

    #[test]
    fn bad_address_language_and_day() {
        let relay = RELAY.replace("relay@fernschach.test", "Fernschach Relais <relay@x.test>");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.address`: \"Fernschach Relais <relay@x.test>\" \
             is not an e-mail address"
        );
        let relay = format!("{RELAY}language = \"fr\"\n");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.language`: expected \"de\" or \"en\", found \"fr\""
        );
        let off = with(&format!("{RELAY}digest_day = \"off\"\n"), IMAP, SMTP, "");
        assert_eq!(ok(&off).relay.digest_day, None, "\"off\" sends no digest");
        let relay = format!("{RELAY}digest_day = \"someday\"\n");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.digest_day`: expected a day of the week \
             (\"monday\" to \"sunday\") or \"off\", found \"someday\""
        );
        let relay = RELAY.replace("name = \"Relais\"", "name = \"Relais\\r\\nBcc: x@y.z\"");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.name`: \"Relais\\r\\nBcc: x@y.z\" contains a \
             control character (such as a line break)"
        );
        let relay = RELAY.replace("name = \"Relais\"", "name = \"  \"");
        assert_eq!(
            err(&with(&relay, IMAP, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `relay.name`: must not be empty"
        );
    }

    #[test]
    fn idle_minutes_at_most_5() {
        let imap = format!("{IMAP}idle_minutes = 6\n");
        assert_eq!(
            err(&with(RELAY, &imap, SMTP, "")),
            "/etc/fernzug/fernzug.toml: key `imap.idle_minutes`: expected an integer from 1 to 5, found 6"
        );
    }

    #[test]
    fn limits_must_be_positive() {
        assert_eq!(
            err(&with(RELAY, IMAP, SMTP, "[limits]\nmax_mail_bytes = -1\n")),
            "/etc/fernzug/fernzug.toml: key `limits.max_mail_bytes`: expected an integer of at least 1, found -1"
        );
        assert_eq!(
            err(&with(
                RELAY,
                IMAP,
                SMTP,
                "[limits]\noutbox_max_age_days = 0\n"
            )),
            "/etc/fernzug/fernzug.toml: key `limits.outbox_max_age_days`: expected an integer from 1 to 4294967295, found 0"
        );
    }

    #[test]
    fn dmarc_needs_a_trusted_authserv_id() {
        let e = err(&with(
            RELAY,
            IMAP,
            SMTP,
            "[security]\nrequire_dmarc_pass = true\n",
        ));
        assert!(
            e.starts_with("/etc/fernzug/fernzug.toml: key `security.trusted_authserv_id`: required key is missing"),
            "{e}"
        );
    }

    fn imap_with(password_lines: &str) -> String {
        format!("[imap]\nhost = \"h\"\nuser = \"u\"\n{password_lines}")
    }

    #[test]
    fn password_sources() {
        // A relative password_file is taken from the configuration's folder.
        let c = ok(&with(
            RELAY,
            &imap_with("password_file = \"imap.pw\"\n"),
            SMTP,
            "",
        ));
        assert_eq!(
            c.imap.password,
            Secret::File {
                key: "imap.password_file".into(),
                path: "/etc/fernzug/imap.pw".into()
            }
        );
        let c = ok(&with(
            RELAY,
            &imap_with("password = \" with spaces \"\n"),
            SMTP,
            "",
        ));
        assert_eq!(c.imap.password, Secret::Fixed(" with spaces ".into()));
        let c = ok(&with(
            RELAY,
            &imap_with("password_env = \"FERNZUG_IMAP_PASSWORD\"\n"),
            SMTP,
            "",
        ));
        assert_eq!(
            c.imap.password,
            Secret::Env {
                key: "imap.password_env".into(),
                var: "FERNZUG_IMAP_PASSWORD".into()
            }
        );
    }

    #[test]
    fn password_errors() {
        let f = "/etc/fernzug/fernzug.toml";
        assert_eq!(
            err(&with(RELAY, &imap_with(""), SMTP, "")),
            format!(
                "{f}: key `imap.password`: required key is missing: give one of password_env, password_file, password or password_command"
            )
        );
        assert_eq!(
            err(&with(
                RELAY,
                &imap_with("password = \"a\"\npassword_env = \"X\"\n"),
                SMTP,
                ""
            )),
            format!(
                "{f}: key `imap.password`: give only one of password_env, password_file, password and password_command (`imap.password_env` is set too)"
            )
        );
        assert_eq!(
            err(&with(RELAY, &imap_with("password_env = \"\"\n"), SMTP, "")),
            format!("{f}: key `imap.password_env`: must not be empty")
        );
        assert_eq!(
            err(&with(RELAY, &imap_with("password = \"\"\n"), SMTP, "")),
            format!("{f}: key `imap.password`: must not be empty")
        );
    }

    #[test]
    fn smtp_user_and_password_go_together() {
        let c = ok(&with(RELAY, IMAP, SMTP, ""));
        assert_eq!((c.smtp.user, c.smtp.password), (None, None));
        let smtp = format!("{SMTP}user = \"relay\"\n");
        assert_eq!(
            err(&with(RELAY, IMAP, &smtp, "")),
            "/etc/fernzug/fernzug.toml: key `smtp.password`: required key is missing: give one of \
             password_env, password_file, password or password_command, since `smtp.user` is set"
        );
        let smtp = format!("{SMTP}password = \"x\"\n");
        assert_eq!(
            err(&with(RELAY, IMAP, &smtp, "")),
            "/etc/fernzug/fernzug.toml: key `smtp.user`: required key is missing: a password is \
             given but no user to log in as"
        );
        let smtp = format!("{SMTP}user = \"relay\"\npassword_file = \"smtp.pw\"\n");
        let c = ok(&with(RELAY, IMAP, &smtp, ""));
        assert_eq!(
            c.smtp.password,
            Some(Secret::File {
                key: "smtp.password_file".into(),
                path: "/etc/fernzug/smtp.pw".into()
            })
        );
    }

    #[test]
    fn syntax_errors_give_line_and_column() {
        let text = "[relay]\naddress = \"relay@fernschach.test\"\nname = Relais\n";
        let e = err(text);
        assert_eq!(
            e,
            "/etc/fernzug/fernzug.toml: line 3, column 8, key `relay.name`: not valid TOML: \
             invalid string; expected `\"`, `'`"
        );
        let text = format!("{RELAY}name = \"again\"\n{IMAP}{SMTP}");
        assert_eq!(
            err(&text),
            "/etc/fernzug/fernzug.toml: line 7, column 1, key `relay.name`: not valid TOML: \
             duplicate key `name` in table `relay`"
        );
        let text = format!("{RELAY}{IMAP}{SMTP}[imap]\n");
        let e = err(&text);
        assert!(e.contains(", key `imap`: not valid TOML: "), "{e}");
        let e = err("[relay\n");
        assert_eq!(
            e,
            "/etc/fernzug/fernzug.toml: line 1, column 7: not valid TOML: invalid table header; \
             expected `.`, `]`"
        );
    }

    #[test]
    fn load_names_an_unreadable_file() {
        let p = Path::new("/nonexistent/fernzug-test/fernzug.toml");
        let e = load(p).map(|_| ()).map_err(|e| e.to_string());
        assert_eq!(
            e,
            Err(
                "/nonexistent/fernzug-test/fernzug.toml: cannot read: No such file or directory"
                    .to_string()
            )
        );
    }

    #[test]
    fn debug_hides_passwords() {
        let c = ok(&with(
            RELAY,
            &imap_with("password = \"imap-secret\"\n"),
            &format!("{SMTP}user = \"relay\"\npassword = \"smtp-secret\"\n"),
            "",
        ));
        let d = format!("{c:?}");
        assert!(
            !d.contains("imap-secret") && !d.contains("smtp-secret"),
            "{d}"
        );
        assert!(d.contains("<redacted>"));
    }

    #[test]
    fn default_path_prefers_the_environment() {
        assert_eq!(
            default_path(Some("/etc/f.toml")),
            PathBuf::from("/etc/f.toml")
        );
        assert_eq!(default_path(Some("")), PathBuf::from("fernzug.toml"));
        assert_eq!(default_path(None), PathBuf::from("fernzug.toml"));
    }

    #[test]
    fn e_mail_addresses() {
        for good in [
            "a@b",
            "anna@fernschach.test",
            "a.b+c@x-y.example.org",
            "o'neil@x.ie",
        ] {
            assert!(valid_email(good), "{good}");
        }
        for bad in [
            "",
            "bert@",
            "@x.de",
            "a@@b",
            "a b@c.de",
            "<a@b.de>",
            "a..b@c.de",
            ".a@c.de",
            "a@-c.de",
            "a@c..de",
            "a@c.de.",
            "jürgen@x.de",
            "a@b@c.de",
        ] {
            assert!(!valid_email(bad), "{bad}");
        }
    }
}
