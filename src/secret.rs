//! A password or token the relay logs in with, kept out of logs, `Debug` and error text.
//!
//! `password_env`, `password_file` and `password` are read once, when the configuration is
//! loaded; `password_command` is run each time a connection logs in (as mbsync's `PassCmd`), so a
//! command that prints a fresh OAuth2 access token works for a daemon that runs for weeks.

use std::fmt;
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
    /// Known since the configuration was loaded.
    Fixed(String),
    /// `password_command`: run by `sh -c`; its first line of output is the secret.
    Command(String),
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Secret::Fixed(_) => f.write_str("Secret(<redacted>)"),
            Secret::Command(c) => write!(f, "Secret(command {c:?})"),
        }
    }
}

/// Why `password_command` gave no password (its output is never shown).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SecretError {
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

impl Secret {
    /// The secret itself.
    pub fn reveal(&self) -> Result<String, SecretError> {
        match self {
            Secret::Fixed(s) => Ok(s.clone()),
            Secret::Command(command) => run(command),
        }
    }
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

    #[test]
    fn debug_never_shows_a_fixed_secret() {
        assert!(!format!("{:?}", Secret::Fixed("geheim".into())).contains("geheim"));
    }
}
