//! A password or token the relay logs in with, kept out of logs, `Debug` and error text.
//!
//! Only `password` (inline) is known once the configuration is loaded. `password_env` and
//! `password_file` are read when a password is needed — each time a connection logs in, and by
//! `fernzug check` — so commands that do not connect (`status`, `export`, `tournament add`, …)
//! need none, and a password file put right is used at the next login without a restart.
//! `password_command` is run each time a connection logs in (as mbsync's `PassCmd`), so a command
//! that prints a fresh OAuth2 access token works for a daemon that runs for weeks.
//!
//! A `password_file` is read from `$CREDENTIALS_DIRECTORY/<its file name>` when that file exists
//! — systemd's `LoadCredential=`, which hands the service a copy of a file only root may read —
//! and from its own path otherwise (root's shell, or no systemd).

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How a connection logs in (`auth` in `[imap]`, `[smtp]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Auth {
    /// A password: IMAP LOGIN; SMTP AUTH PLAIN or LOGIN, whichever the server offers.
    #[default]
    Password,
    /// A password by SASL PLAIN only: IMAP AUTHENTICATE PLAIN; SMTP AUTH PLAIN.
    Plain,
    /// OAuth2 (SASL XOAUTH2, as Gmail and Microsoft 365 require): the secret is the access token.
    Xoauth2,
}

impl Auth {
    /// The SASL PLAIN response: `^Auser^Apassword` (RFC 4616, no authorization identity).
    pub fn plain_response(user: &str, password: &str) -> String {
        format!("\0{user}\0{password}")
    }

    /// The SASL XOAUTH2 initial response: `user=U^Aauth=Bearer T^A^A`.
    pub fn xoauth2_response(user: &str, token: &str) -> String {
        format!("user={user}\x01auth=Bearer {token}\x01\x01")
    }
}

/// Where a password comes from.
#[derive(Clone, PartialEq, Eq)]
pub enum Secret {
    /// Known since the configuration was loaded (`password`).
    Fixed(String),
    /// `password_env`: the environment variable `var`, read when the password is needed. `key`
    /// is the configuration key that names it (`imap.password_env`), for the error.
    Env { key: String, var: String },
    /// `password_file`: read when the password is needed, from `$CREDENTIALS_DIRECTORY/<its
    /// file name>` when that file exists, else from `path`; its one trailing line end is not
    /// part of the password. `key` is the configuration key (`imap.password_file`).
    File { key: String, path: PathBuf },
    /// `password_command`: run by `sh -c`; its first line of output is the secret.
    Command(String),
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Secret::Fixed(_) => f.write_str("Secret(<redacted>)"),
            Secret::Env { var, .. } => write!(f, "Secret(environment variable {var})"),
            Secret::File { path, .. } => write!(f, "Secret(file {})", path.display()),
            Secret::Command(c) => write!(f, "Secret(command {c:?})"),
        }
    }
}

/// Why no password could be had (the secret itself is never shown). Each names the
/// configuration key to fix, or the command it ran.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
    #[error("key `{key}`: the environment variable {var} is not set")]
    EnvUnset { key: String, var: String },
    #[error("key `{key}`: the environment variable {var} is empty")]
    EnvEmpty { key: String, var: String },
    #[error("key `{key}`: cannot read {}: {reason}", path.display())]
    FileUnreadable {
        key: String,
        path: PathBuf,
        reason: String,
    },
    #[error("key `{key}`: {} is empty", path.display())]
    FileEmpty { key: String, path: PathBuf },
    #[error("password_command `{command}` could not be started: {reason}")]
    Start { command: String, reason: String },
    #[error("password_command `{command}` failed ({status}){}", if stderr.is_empty() { String::new() } else { format!(": {stderr}") })]
    Failed {
        command: String,
        status: String,
        /// The command's own first line of error output (its stdout may hold the secret).
        stderr: String,
    },
    #[error("password_command `{command}` printed no password")]
    Empty { command: String },
}

/// The environment variable systemd sets for a service with credentials (`LoadCredential=`).
pub const CREDENTIALS_DIRECTORY: &str = "CREDENTIALS_DIRECTORY";

/// What a secret is read from besides the process: the environment and the file system (the
/// tests give their own).
struct Host<'a> {
    env: &'a dyn Fn(&str) -> Option<String>,
    exists: &'a dyn Fn(&Path) -> bool,
    read: &'a dyn Fn(&Path) -> io::Result<String>,
}

const SYSTEM: Host<'static> = Host {
    env: &|name| std::env::var(name).ok(),
    exists: &|path| std::fs::symlink_metadata(path).is_ok(),
    read: &|path| std::fs::read_to_string(path),
};

impl Secret {
    /// The secret itself, read at this moment: the environment variable, the file (or its
    /// systemd credential), the command's output.
    pub fn reveal(&self) -> Result<String, SecretError> {
        self.reveal_on(&SYSTEM)
    }

    /// Where the secret comes from, for `fernzug check`'s line (never the secret).
    pub fn source(&self) -> String {
        self.source_on(&SYSTEM)
    }

    fn reveal_on(&self, host: &Host<'_>) -> Result<String, SecretError> {
        match self {
            Secret::Fixed(s) => Ok(s.clone()),
            Secret::Env { key, var } => match (host.env)(var) {
                Some(v) if !v.is_empty() => Ok(v),
                Some(_) => Err(SecretError::EnvEmpty {
                    key: key.clone(),
                    var: var.clone(),
                }),
                None => Err(SecretError::EnvUnset {
                    key: key.clone(),
                    var: var.clone(),
                }),
            },
            Secret::File { key, path } => {
                let path = credential(path, host).unwrap_or_else(|| path.clone());
                let text = (host.read)(&path).map_err(|e| SecretError::FileUnreadable {
                    key: key.clone(),
                    path: path.clone(),
                    reason: crate::io_text::io_message(&e),
                })?;
                let pw = text
                    .strip_suffix('\n')
                    .map(|t| t.strip_suffix('\r').unwrap_or(t))
                    .unwrap_or(&text);
                if pw.is_empty() {
                    return Err(SecretError::FileEmpty {
                        key: key.clone(),
                        path,
                    });
                }
                Ok(pw.to_string())
            }
            Secret::Command(command) => run(command),
        }
    }

    fn source_on(&self, host: &Host<'_>) -> String {
        match self {
            Secret::Fixed(_) => "given in the configuration (password)".to_string(),
            Secret::Env { var, .. } => format!("from the environment variable {var}"),
            Secret::File { path, .. } => match credential(path, host) {
                Some(c) => format!(
                    "from {} (the systemd credential of {})",
                    c.display(),
                    path.display()
                ),
                None => format!("from {}", path.display()),
            },
            Secret::Command(c) => format!("from password_command `{c}`"),
        }
    }
}

/// `$CREDENTIALS_DIRECTORY/<file name of path>`, when systemd put that file there.
fn credential(path: &Path, host: &Host<'_>) -> Option<PathBuf> {
    let dir = (host.env)(CREDENTIALS_DIRECTORY).filter(|d| !d.is_empty())?;
    let c = Path::new(&dir).join(path.file_name()?);
    (host.exists)(&c).then_some(c)
}

fn run(command: &str) -> Result<String, SecretError> {
    let out = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| SecretError::Start {
            command: command.to_string(),
            reason: e.to_string(),
        })?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        return Err(SecretError::Failed {
            command: command.to_string(),
            status: out.status.to_string(),
            stderr: stderr.lines().next().unwrap_or_default().trim().to_string(),
        });
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .next()
        .unwrap_or_default()
        .trim_end_matches('\r');
    if line.is_empty() {
        return Err(SecretError::Empty {
            command: command.to_string(),
        });
    }
    Ok(line.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn password_command_gives_its_first_line() {
        let s = Secret::Command("printf 'geheim\\nzweite\\n'".into());
        assert_eq!(s.reveal().unwrap(), "geheim");
    }

    #[test]
    fn password_command_failure_names_the_exit_status_never_the_output() {
        let s = Secret::Command("printf '%s%s\\n' geh eim; echo oops >&2; exit 3".into());
        let e = s.reveal().unwrap_err().to_string();
        assert!(e.contains("exit status: 3"), "{e}");
        assert!(e.contains("oops"), "{e}");
        assert!(!e.contains("geheim"), "{e}");
    }

    #[test]
    fn empty_output_is_no_password() {
        let s = Secret::Command("true".into());
        assert!(matches!(s.reveal(), Err(SecretError::Empty { .. })));
    }

    /// A host with `vars` for an environment and `files` for a file system.
    fn on<T>(vars: &[(&str, &str)], files: &[(&str, &str)], f: impl FnOnce(&Host<'_>) -> T) -> T {
        let env = |name: &str| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| v.to_string())
        };
        let find = |p: &Path| {
            files
                .iter()
                .find(|(n, _)| Path::new(n) == p)
                .map(|(_, t)| *t)
        };
        let exists = |p: &Path| find(p).is_some();
        let read = |p: &Path| {
            find(p)
                .map(str::to_string)
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
        };
        f(&Host {
            env: &env,
            exists: &exists,
            read: &read,
        })
    }

    fn env(var: &str) -> Secret {
        Secret::Env {
            key: "imap.password_env".into(),
            var: var.into(),
        }
    }

    fn file(path: &str) -> Secret {
        Secret::File {
            key: "imap.password_file".into(),
            path: path.into(),
        }
    }

    #[test]
    fn password_env_is_read_when_needed_and_a_missing_one_names_the_key() {
        let vars = [("FERNZUG_IMAP_PASSWORD", "geheim"), ("EMPTY", "")];
        on(&vars, &[], |h| {
            assert_eq!(env("FERNZUG_IMAP_PASSWORD").reveal_on(h).unwrap(), "geheim");
            assert_eq!(
                env("NOPE").reveal_on(h).unwrap_err().to_string(),
                "key `imap.password_env`: the environment variable NOPE is not set"
            );
            assert_eq!(
                env("EMPTY").reveal_on(h).unwrap_err().to_string(),
                "key `imap.password_env`: the environment variable EMPTY is empty"
            );
        });
    }

    #[test]
    fn password_file_loses_one_line_end_and_an_empty_or_missing_one_names_the_key() {
        let files = [
            ("/etc/fernzug/imap.password", "from-file\n"),
            ("/etc/fernzug/crlf.pw", "crlf-pw\r\n"),
            ("/etc/fernzug/two-lines.pw", "pw\n\n"),
            ("/etc/fernzug/spaces.pw", " with spaces "),
            ("/etc/fernzug/empty.pw", "\n"),
        ];
        on(&[], &files, |h| {
            let read = |p: &str| file(p).reveal_on(h).map_err(|e| e.to_string());
            assert_eq!(read("/etc/fernzug/imap.password").unwrap(), "from-file");
            assert_eq!(read("/etc/fernzug/crlf.pw").unwrap(), "crlf-pw");
            assert_eq!(read("/etc/fernzug/two-lines.pw").unwrap(), "pw\n");
            assert_eq!(read("/etc/fernzug/spaces.pw").unwrap(), " with spaces ");
            assert_eq!(
                read("/etc/fernzug/empty.pw").unwrap_err(),
                "key `imap.password_file`: /etc/fernzug/empty.pw is empty"
            );
            assert_eq!(
                read("/etc/fernzug/missing.pw").unwrap_err(),
                "key `imap.password_file`: cannot read /etc/fernzug/missing.pw: entity not found"
            );
        });
    }

    #[test]
    fn password_file_is_the_systemd_credential_of_its_name_when_there_else_its_path() {
        let files = [
            ("/etc/fernzug/imap.password", "roots-copy\n"),
            (
                "/run/credentials/fernzug.service/imap.password",
                "credential\n",
            ),
        ];
        let service = [(CREDENTIALS_DIRECTORY, "/run/credentials/fernzug.service")];
        on(&service, &files, |h| {
            let s = file("/etc/fernzug/imap.password");
            assert_eq!(s.reveal_on(h).unwrap(), "credential");
            assert_eq!(
                s.source_on(h),
                "from /run/credentials/fernzug.service/imap.password (the systemd credential of \
                 /etc/fernzug/imap.password)"
            );
            // A file the unit loads no credential for: its own path.
            let other = file("/etc/fernzug/smtp.password");
            assert!(
                other
                    .reveal_on(h)
                    .unwrap_err()
                    .to_string()
                    .contains("cannot read /etc/fernzug/smtp.password")
            );
        });
        // Root's shell: no credentials directory, the file itself.
        on(&[], &files, |h| {
            let s = file("/etc/fernzug/imap.password");
            assert_eq!(s.reveal_on(h).unwrap(), "roots-copy");
            assert_eq!(s.source_on(h), "from /etc/fernzug/imap.password");
        });
    }

    #[test]
    fn a_password_file_put_right_is_read_at_the_next_reveal() {
        let dir = std::env::temp_dir().join(format!("fernzug-secret-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("imap.password");
        std::fs::write(&path, "wrong\n").unwrap();
        let s = Secret::File {
            key: "imap.password_file".into(),
            path: path.clone(),
        };
        assert_eq!(s.reveal().unwrap(), "wrong");
        std::fs::write(&path, "right\n").unwrap();
        assert_eq!(s.reveal().unwrap(), "right");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn debug_never_shows_a_fixed_secret() {
        assert!(!format!("{:?}", Secret::Fixed("geheim".into())).contains("geheim"));
    }
}
