//! Test support for fernzug's end-to-end tests (`mod common;` in each `tests/*.rs`).
//!
//! The tests run against the real loopback mail stack of `tests/mailstack/start.sh`: Postfix SMTP on
//! 127.0.0.1:2525 and Dovecot IMAP on 127.0.0.1:1143. Every address `…@fernschach.test` is a mailbox
//! with the password `test`, `local+detail@` lands in `local@`, and a local part starting with `dead`
//! is refused at RCPT with 550 (an unreachable player). Each test makes its own addresses with
//! [`unique`], so tests never share a mailbox and may run in parallel.
//!
//! With `FERNZUG_STACK_IMAP=courier` ([`imap_server`]) the mailboxes are read through Courier-IMAP
//! instead, on the same Maildirs: the tests' own reading on 127.0.0.1:1144, each relay's over TLS
//! on 127.0.0.1:1994 (scripts/test runs a subset so).
//!
//! The relay is driven with `fernzug once --now …` ([`Relay::run`]); the only waiting here is the
//! bounded polling of [`wait_for`] for the mail stack's own delivery.
//!
//! SMTP and IMAP are spoken over plain `std::net::TcpStream`, so every helper is synchronous and may
//! be called from plain `#[test]`s as well as from inside a tokio runtime.

use mail_parser::MimeHeaders;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The mail domain of the loopback stack: every address in it is a mailbox.
pub const DOMAIN: &str = "fernschach.test";
/// The IMAP password of every mailbox.
pub const PASSWORD: &str = "test";
/// Where the stack listens.
pub const HOST: &str = "127.0.0.1";
/// Postfix SMTP (no auth, no TLS).
pub const SMTP_PORT: u16 = 2525;
/// Dovecot IMAP (no TLS, plaintext login). A test that names it reads through Dovecot whatever
/// [`imap_server`] says; [`imap_port`] is the chosen server's.
pub const IMAP_PORT: u16 = 1143;
/// Courier-IMAP on the same Maildirs (no TLS, plaintext login; STARTTLS offered; no IDLE).
pub const COURIER_PORT: u16 = 1144;
/// Courier-IMAP with implicit TLS, the certificate of the stack's test CA.
pub const COURIER_IMAPS_PORT: u16 = 1994;

/// The IMAP server the tests read mailboxes through, and the relays theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImapServer {
    /// Dovecot: IDLE, plain IMAP on 1143 for the tests and the relays.
    Dovecot,
    /// Courier-IMAP: no IDLE (the relay polls), plain IMAP on 1144 for the tests, TLS on 1994 for
    /// the relays.
    Courier,
}

/// The server `FERNZUG_STACK_IMAP` names: unset, empty or `dovecot`, Dovecot; `courier`,
/// Courier-IMAP. Panics naming any other value.
pub fn imap_server() -> ImapServer {
    match std::env::var("FERNZUG_STACK_IMAP").as_deref() {
        Err(_) | Ok("" | "dovecot") => ImapServer::Dovecot,
        Ok("courier") => ImapServer::Courier,
        Ok(other) => panic!("FERNZUG_STACK_IMAP={other:?}: expected \"dovecot\" or \"courier\""),
    }
}

/// The plain IMAP port the tests read mailboxes through: Dovecot's 1143 or Courier's 1144.
pub fn imap_port() -> u16 {
    match imap_server() {
        ImapServer::Dovecot => IMAP_PORT,
        ImapServer::Courier => COURIER_PORT,
    }
}

/// The port of a [`Relay`]'s `[imap]`: Dovecot's 1143 (plain) or Courier's 1994 (TLS).
pub fn relay_imap_port() -> u16 {
    match imap_server() {
        ImapServer::Dovecot => IMAP_PORT,
        ImapServer::Courier => COURIER_IMAPS_PORT,
    }
}

/// The `[imap]` keys of a [`Relay`] that say how to reach the server: plain to Dovecot, or TLS to
/// Courier trusting the stack's test CA.
fn relay_imap_server() -> String {
    let port = relay_imap_port();
    match imap_server() {
        ImapServer::Dovecot => format!("host = \"{HOST}\"\nport = {port}\nsecurity = \"none\"\n"),
        ImapServer::Courier => format!(
            "host = \"{HOST}\"\nport = {port}\nsecurity = \"tls\"\nca_file = {}\n",
            toml_str(&stack_dir().join("tls/ca.pem").to_string_lossy())
        ),
    }
}

/// The stack's directory (certificates in `tls/`), as `tests/mailstack/start.sh` has it.
pub fn stack_dir() -> PathBuf {
    std::env::var_os("FERNZUG_STACK_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/var/tmp/fernzug-mailstack"))
}

/// Network timeout of a single SMTP/IMAP read or write.
const IO_TIMEOUT: Duration = Duration::from_secs(30);
/// Poll interval of [`wait_for`].
const POLL: Duration = Duration::from_millis(20);

/// Where the loopback mail stack listens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stack {
    pub host: &'static str,
    pub smtp_port: u16,
    pub imap_port: u16,
    pub domain: &'static str,
    pub password: &'static str,
}

/// Ensures the mail stack is up (runs `tests/mailstack/start.sh` once per test process) and says
/// where it listens. Panics with the script's output when the stack cannot be started.
pub fn stack() -> Stack {
    static STARTED: OnceLock<Result<(), String>> = OnceLock::new();
    let started = STARTED.get_or_init(|| {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mailstack/start.sh");
        match Command::new("bash").arg(&script).output() {
            Ok(out) if out.status.success() => Ok(()),
            Ok(out) => Err(format!(
                "{} exited with {}\n{}{}",
                script.display(),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )),
            Err(e) => Err(format!("cannot run {}: {e}", script.display())),
        }
    });
    if let Err(e) = started {
        panic!("the loopback mail stack is not available: {e}");
    }
    Stack {
        host: HOST,
        smtp_port: SMTP_PORT,
        imap_port: imap_port(),
        domain: DOMAIN,
        password: PASSWORD,
    }
}

/// A local part no other test (in this or any other process) uses:
/// `<prefix>-<pid>-<counter>-<random>`, lower case, at most 64 characters.
/// The prefix is kept (sanitised to `a-z0-9-`), so `unique("dead-bert")` still starts with `dead`.
pub fn unique(prefix: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut clean: String = prefix
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .take(32)
        .collect();
    if clean.is_empty() {
        clean.push('t');
    }
    format!(
        "{clean}-{}-{n}-{:06x}",
        std::process::id(),
        random() & 0xff_ffff
    )
}

/// `<local>@fernschach.test`.
pub fn addr(local: &str) -> String {
    format!("{local}@{DOMAIN}")
}

/// A fresh address `<unique(prefix)>@fernschach.test`.
pub fn unique_addr(prefix: &str) -> String {
    addr(&unique(prefix))
}

/// 64 random-enough bits (std's per-process random hash keys, mixed with the clock and a counter).
fn random() -> u64 {
    static SALT: AtomicU64 = AtomicU64::new(0);
    let mut h = RandomState::new().build_hasher();
    h.write_u64(SALT.fetch_add(1, Ordering::Relaxed));
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0),
    );
    h.finish()
}

// ------------------------------------------------------------------------------------------------
// SMTP

/// Sends `raw` (a complete RFC 5322 message; bare `\n` line ends are turned into CRLF, lines
/// starting with `.` are dot-stuffed) by plain SMTP to 127.0.0.1:2525 with the given envelope.
///
/// All or nothing: if the server refuses the sender, any recipient or the data, the transaction is
/// abandoned and `Err` holds the command and the server's complete reply, e.g.
/// `RCPT TO:<dead-bert-…@fernschach.test>: 550 5.1.1 <…>: Recipient address rejected: …`.
pub fn send_mail(raw: &[u8], mail_from: &str, rcpt_to: &[&str]) -> Result<(), String> {
    let st = stack();
    let mut smtp = Smtp::connect(st.host, st.smtp_port)?;
    let result = smtp.transaction(raw, mail_from, rcpt_to);
    if result.is_err() {
        let _ = smtp.command("RSET");
    }
    let _ = smtp.command("QUIT");
    result
}

/// Sends many mails `(raw, mail_from, rcpt_to)` over one SMTP connection (one transaction each),
/// for bursts; `Err` names the first that was refused.
pub fn send_many(mails: &[(String, String, String)]) -> Result<(), String> {
    let st = stack();
    let mut smtp = Smtp::connect(st.host, st.smtp_port)?;
    for (i, (raw, from, to)) in mails.iter().enumerate() {
        smtp.transaction(raw.as_bytes(), from, &[to.as_str()])
            .map_err(|e| format!("mail {i} of {} from {from}: {e}", mails.len()))?;
    }
    let _ = smtp.command("QUIT");
    Ok(())
}

/// Sends a simple UTF-8 `text/plain` mail from `from` to `to` (each either `addr` or
/// `Name <addr>`) and returns its Message-ID as it appears in the header, with angle brackets
/// (`<…@fernschach.test>`, comparable with `In-Reply-To`/`References`). Panics if the stack
/// refuses the mail (use [`send_mail`] to test refusals).
pub fn send_text(from: &str, to: &str, subject: &str, body: &str) -> String {
    let message_id = format!("<{}@{DOMAIN}>", unique("msg"));
    let raw = text_mail(from, to, subject, body, &message_id);
    if let Err(e) = send_mail(
        raw.as_bytes(),
        envelope_address(from),
        &[envelope_address(to)],
    ) {
        panic!("send_text from {from} to {to} ({subject:?}) was refused: {e}");
    }
    message_id
}

/// The raw mail [`send_text`] sends.
pub fn text_mail(from: &str, to: &str, subject: &str, body: &str, message_id: &str) -> String {
    let cte = if body.is_ascii() { "7bit" } else { "8bit" };
    let mut body = body.replace("\r\n", "\n");
    if !body.ends_with('\n') {
        body.push('\n');
    }
    format!(
        "From: {}\r\nTo: {}\r\nSubject: {}\r\nDate: {}\r\nMessage-ID: {message_id}\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Transfer-Encoding: {cte}\r\n\r\n{}",
        encode_mailbox(from),
        encode_mailbox(to),
        encode_words(subject),
        chrono::Local::now().to_rfc2822(),
        body.replace('\n', "\r\n")
    )
}

/// The address inside `Name <addr>`, or the whole (trimmed) string when there are no brackets.
pub fn envelope_address(mailbox: &str) -> &str {
    let m = mailbox.trim();
    match (m.rfind('<'), m.rfind('>')) {
        (Some(open), Some(close)) if open < close => m.get(open + 1..close).unwrap_or(m),
        _ => m,
    }
}

/// `Name <addr>` with a non-ASCII name RFC 2047-encoded.
fn encode_mailbox(mailbox: &str) -> String {
    let m = mailbox.trim();
    match m.rfind('<') {
        Some(open) if !m.is_ascii() => {
            let name = m.get(..open).unwrap_or("").trim().trim_matches('"');
            format!("{} {}", encode_words(name), m.get(open..).unwrap_or(""))
        }
        _ => m.to_string(),
    }
}

/// RFC 2047 `=?UTF-8?B?…?=` words for non-ASCII text (folded, at most 45 input bytes per word);
/// ASCII text unchanged.
fn encode_words(text: &str) -> String {
    if text.is_ascii() {
        return text.to_string();
    }
    let mut words = Vec::new();
    let mut chunk = String::new();
    for c in text.chars() {
        if chunk.len() + c.len_utf8() > 45 {
            words.push(format!("=?UTF-8?B?{}?=", base64(chunk.as_bytes())));
            chunk.clear();
        }
        chunk.push(c);
    }
    if !chunk.is_empty() {
        words.push(format!("=?UTF-8?B?{}?=", base64(chunk.as_bytes())));
    }
    words.join("\r\n ")
}

fn base64(data: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// CRLF line ends, dot-stuffing and the terminating `.` line of SMTP DATA.
fn smtp_data(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + raw.len() / 40 + 8);
    let mut lines: Vec<&[u8]> = raw.split(|b| *b == b'\n').collect();
    if raw.ends_with(b"\n") {
        lines.pop();
    }
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.starts_with(b".") {
            out.push(b'.');
        }
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b".\r\n");
    out
}

struct Smtp {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

impl Smtp {
    fn connect(host: &str, port: u16) -> Result<Smtp, String> {
        let stream =
            TcpStream::connect((host, port)).map_err(|e| format!("connect {host}:{port}: {e}"))?;
        let io = |e: std::io::Error| format!("SMTP {host}:{port}: {e}");
        stream.set_read_timeout(Some(IO_TIMEOUT)).map_err(io)?;
        stream.set_write_timeout(Some(IO_TIMEOUT)).map_err(io)?;
        let writer = stream.try_clone().map_err(io)?;
        let mut smtp = Smtp {
            reader: BufReader::new(stream),
            writer,
        };
        let (code, reply) = smtp.reply()?;
        if code != 220 {
            return Err(format!("greeting: {reply}"));
        }
        Ok(smtp)
    }

    fn transaction(&mut self, raw: &[u8], mail_from: &str, rcpt_to: &[&str]) -> Result<(), String> {
        self.expect("EHLO fernzug-tests", &[250])?;
        let body = if raw.is_ascii() { "" } else { " BODY=8BITMIME" };
        self.expect(&format!("MAIL FROM:<{mail_from}>{body}"), &[250])?;
        for rcpt in rcpt_to {
            self.expect(&format!("RCPT TO:<{rcpt}>"), &[250, 251])?;
        }
        self.expect("DATA", &[354])?;
        self.writer
            .write_all(&smtp_data(raw))
            .and_then(|()| self.writer.flush())
            .map_err(|e| format!("DATA: {e}"))?;
        let (code, reply) = self.reply()?;
        if code != 250 {
            return Err(format!("end of DATA: {reply}"));
        }
        Ok(())
    }

    fn expect(&mut self, command: &str, ok: &[u16]) -> Result<(), String> {
        let (code, reply) = self.command(command)?;
        if ok.contains(&code) {
            Ok(())
        } else {
            Err(format!("{command}: {reply}"))
        }
    }

    fn command(&mut self, command: &str) -> Result<(u16, String), String> {
        self.writer
            .write_all(format!("{command}\r\n").as_bytes())
            .and_then(|()| self.writer.flush())
            .map_err(|e| format!("{command}: {e}"))?;
        self.reply().map_err(|e| format!("{command}: {e}"))
    }

    /// One (possibly multi-line) reply: its code and its lines joined by `\n`.
    fn reply(&mut self) -> Result<(u16, String), String> {
        let mut text = String::new();
        loop {
            let mut line = String::new();
            let n = self
                .reader
                .read_line(&mut line)
                .map_err(|e| format!("reading the reply: {e}"))?;
            if n == 0 {
                return Err(format!("connection closed after {text:?}"));
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(line);
            let code = line.get(..3).and_then(|c| c.parse::<u16>().ok());
            let Some(code) = code else {
                return Err(format!("malformed reply {line:?}"));
            };
            if line.as_bytes().get(3) != Some(&b'-') {
                return Ok((code, text));
            }
        }
    }
}

// ------------------------------------------------------------------------------------------------
// IMAP

/// Every message in `user`'s INBOX (login `user`/`test`; a bare local part gets `@fernschach.test`),
/// raw bytes, in the order the relay decided them ([`in_relay_order`]; mails not from a relay
/// first, in arrival order): Postfix delivers mails handed over together in any order. Read-only:
/// no flag is changed. Panics if IMAP fails.
pub fn fetch_all(user: &str) -> Vec<Vec<u8>> {
    in_relay_order(
        Mailbox::open(user)
            .and_then(|mut m| m.fetch_all())
            .unwrap_or_else(|e| panic!("fetch_all({user}): {e}")),
    )
}

/// Waits (polling every 20 ms, at most `timeout`) until `user`'s INBOX holds at least `n` messages,
/// then returns all of them as [`fetch_all`] does. Only for waiting on the mail stack's own
/// delivery. Panics on timeout, naming how many messages did arrive.
pub fn wait_for(user: &str, n: usize, timeout: Duration) -> Vec<Vec<u8>> {
    let started = Instant::now();
    let mut mailbox = Mailbox::open(user).unwrap_or_else(|e| panic!("wait_for({user}): {e}"));
    loop {
        let count = mailbox
            .count()
            .unwrap_or_else(|e| panic!("wait_for({user}): {e}"));
        if count >= n {
            return in_relay_order(
                mailbox
                    .fetch_all()
                    .unwrap_or_else(|e| panic!("wait_for({user}): {e}")),
            );
        }
        if started.elapsed() >= timeout {
            panic!("wait_for({user}): {count} of {n} messages after {timeout:?}");
        }
        std::thread::sleep(POLL);
    }
}

/// A logged-in IMAP session on one user's INBOX (read-only).
pub struct Mailbox {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    tag: u32,
    user: String,
}

/// One untagged or tagged IMAP response: its text pieces and the literals between them.
#[derive(Debug, Default)]
struct Response {
    text: Vec<u8>,
    literals: Vec<Vec<u8>>,
}

impl Mailbox {
    /// Connects to the chosen server ([`imap_port`]) and logs in as `user` (`@fernschach.test`
    /// added to a bare local part).
    pub fn open(user: &str) -> Result<Mailbox, String> {
        Mailbox::open_on(imap_port(), user)
    }

    /// As [`Mailbox::open`], on 127.0.0.1:`port` ([`IMAP_PORT`], [`COURIER_PORT`]).
    pub fn open_on(port: u16, user: &str) -> Result<Mailbox, String> {
        let st = stack();
        let user = if user.contains('@') {
            user.to_string()
        } else {
            addr(user)
        };
        let host = st.host;
        let stream =
            TcpStream::connect((host, port)).map_err(|e| format!("connect {host}:{port}: {e}"))?;
        let io = |e: std::io::Error| format!("IMAP {host}:{port}: {e}");
        stream.set_read_timeout(Some(IO_TIMEOUT)).map_err(io)?;
        stream.set_write_timeout(Some(IO_TIMEOUT)).map_err(io)?;
        let writer = stream.try_clone().map_err(io)?;
        let mut mailbox = Mailbox {
            reader: BufReader::new(stream),
            writer,
            tag: 0,
            user: user.clone(),
        };
        let greeting = mailbox.response()?;
        if !greeting.text.starts_with(b"* OK") {
            return Err(format!(
                "greeting: {}",
                String::from_utf8_lossy(&greeting.text)
            ));
        }
        mailbox.command(&format!("LOGIN {} {}", quote(&user), quote(st.password)))?;
        Ok(mailbox)
    }

    /// How many messages the INBOX holds now.
    pub fn count(&mut self) -> Result<usize, String> {
        let responses = self.command("STATUS INBOX (MESSAGES)")?;
        responses
            .iter()
            .filter(|r| r.text.starts_with(b"* STATUS "))
            .find_map(|r| number_after(&r.text, b"MESSAGES "))
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("{}: no MESSAGES in the STATUS answer", self.user))
    }

    /// Every message's raw bytes, in arrival (UID) order; flags stay untouched.
    pub fn fetch_all(&mut self) -> Result<Vec<Vec<u8>>, String> {
        let responses = self.command("EXAMINE INBOX")?;
        let exists = responses
            .iter()
            .filter(|r| r.text.starts_with(b"* ") && r.text.ends_with(b" EXISTS"))
            .find_map(|r| number_after(&r.text, b"* "))
            .unwrap_or(0);
        if exists == 0 {
            return Ok(Vec::new());
        }
        let mut messages = Vec::new();
        for r in self.command("UID FETCH 1:* (UID BODY.PEEK[])")? {
            if !(r.text.starts_with(b"* ") && contains(&r.text, b" FETCH (")) {
                continue;
            }
            // An untagged FETCH without UID or body is a flag change another session (the
            // relay setting \Seen) made meanwhile, not an answer to this command: skip it.
            let (Some(uid), Some(body)) = (
                number_after(&r.text, b"UID "),
                r.literals.into_iter().next(),
            ) else {
                continue;
            };
            messages.push((uid, body));
        }
        messages.sort_by_key(|(uid, _)| *uid);
        Ok(messages.into_iter().map(|(_, body)| body).collect())
    }

    /// Sends `command` (e.g. `SELECT INBOX`); returns the text of its untagged responses
    /// (literals left out), or the tagged NO/BAD as error.
    pub fn untagged(&mut self, command: &str) -> Result<Vec<String>, String> {
        Ok(self
            .command(command)?
            .into_iter()
            .map(|r| String::from_utf8_lossy(&r.text).into_owned())
            .collect())
    }

    /// Sends `command` with a fresh tag; returns the untagged responses, or the tagged NO/BAD as error.
    fn command(&mut self, command: &str) -> Result<Vec<Response>, String> {
        self.tag += 1;
        let tag = format!("f{}", self.tag);
        self.writer
            .write_all(format!("{tag} {command}\r\n").as_bytes())
            .and_then(|()| self.writer.flush())
            .map_err(|e| format!("{}: {command}: {e}", self.user))?;
        let mut untagged = Vec::new();
        loop {
            let r = self
                .response()
                .map_err(|e| format!("{}: {command}: {e}", self.user))?;
            if r.text.starts_with(format!("{tag} ").as_bytes()) {
                return if r.text.starts_with(format!("{tag} OK").as_bytes()) {
                    Ok(untagged)
                } else {
                    Err(format!(
                        "{}: {command}: {}",
                        self.user,
                        String::from_utf8_lossy(&r.text)
                    ))
                };
            }
            untagged.push(r);
        }
    }

    /// One response line, with its `{n}` literals read in full.
    fn response(&mut self) -> Result<Response, String> {
        let mut r = Response::default();
        loop {
            let mut line = Vec::new();
            let n = self
                .reader
                .read_until(b'\n', &mut line)
                .map_err(|e| format!("reading: {e}"))?;
            if n == 0 {
                return Err("connection closed".to_string());
            }
            while line.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
                line.pop();
            }
            let literal = literal_length(&line);
            r.text.extend_from_slice(&line);
            let Some(len) = literal else {
                return Ok(r);
            };
            let mut data = vec![0; len];
            self.reader
                .read_exact(&mut data)
                .map_err(|e| format!("reading a literal of {len} bytes: {e}"))?;
            r.literals.push(data);
        }
    }
}

impl Drop for Mailbox {
    fn drop(&mut self) {
        let _ = self.writer.write_all(b"z LOGOUT\r\n");
    }
}

/// `n` of a line ending in `{n}` or `{n+}`.
fn literal_length(line: &[u8]) -> Option<usize> {
    let inner = line.strip_suffix(b"}")?;
    let open = inner.iter().rposition(|b| *b == b'{')?;
    let digits = inner.get(open + 1..)?;
    let digits = digits.strip_suffix(b"+").unwrap_or(digits);
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// The decimal number right after the first occurrence of `key`.
fn number_after(text: &[u8], key: &[u8]) -> Option<u64> {
    let start = text.windows(key.len()).position(|w| w == key)? + key.len();
    let digits: String = text
        .get(start..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .map(|b| char::from(*b))
        .collect();
    digits.parse().ok()
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// An IMAP quoted string.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

// ------------------------------------------------------------------------------------------------
// Reading mails

/// The first `name:` header of `raw` (case-insensitive), unfolded and trimmed, with RFC 2047
/// encoded words decoded. Structured values stay as written: `Message-ID` keeps its angle
/// brackets, `Reply-To` its display name (see [`envelope_address`]).
pub fn header(raw: &[u8], name: &str) -> Option<String> {
    headers(raw, name).into_iter().next()
}

/// The `X-Fernzug-Kind` of each mail, in order (`""` where a mail has none).
/// `mails` in the order the relay decided them (the sequence number of its Message-IDs,
/// `fernzug.INSTANCE.SEQ.KIND@…`): the stack may deliver mails handed over quickly in any order.
pub fn in_relay_order(mut mails: Vec<Vec<u8>>) -> Vec<Vec<u8>> {
    let seq = |m: &Vec<u8>| -> u64 {
        header(m, "Message-ID")
            .and_then(|id| {
                id.trim_matches(['<', '>', ' '])
                    .split('.')
                    .nth(2)
                    .and_then(|n| n.parse().ok())
            })
            .unwrap_or(0)
    };
    mails.sort_by_key(seq);
    mails
}

pub fn kinds(mails: &[Vec<u8>]) -> Vec<String> {
    mails
        .iter()
        .map(|m| header(m, "X-Fernzug-Kind").unwrap_or_default())
        .collect()
}

/// Every `name:` header of `raw`, in order, as [`header`] returns them.
pub fn headers(raw: &[u8], name: &str) -> Vec<String> {
    let end = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .or_else(|| raw.windows(2).position(|w| w == b"\n\n"))
        .unwrap_or(raw.len());
    let head = String::from_utf8_lossy(raw.get(..end).unwrap_or(raw));
    let mut fields: Vec<String> = Vec::new();
    for line in head.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.starts_with([' ', '\t']) {
            if let Some(last) = fields.last_mut() {
                last.push_str(line);
            }
        } else {
            fields.push(line.to_string());
        }
    }
    fields
        .iter()
        .filter_map(|field| {
            let (key, value) = field.split_once(':')?;
            key.trim()
                .eq_ignore_ascii_case(name)
                .then(|| decode_words(value.trim()))
        })
        .collect()
}

/// Decodes RFC 2047 encoded words (by letting mail-parser read the value as unstructured text).
fn decode_words(value: &str) -> String {
    if !value.contains("=?") {
        return value.to_string();
    }
    let synthetic = format!("Subject: {value}\r\n\r\n");
    mail_parser::MessageParser::default()
        .parse(synthetic.as_bytes())
        .and_then(|m| m.subject().map(str::to_string))
        .unwrap_or_else(|| value.to_string())
}

/// The decoded text of the first text part (mail-parser's `body_text(0)`), "" if there is none.
pub fn body_text(raw: &[u8]) -> String {
    mail_parser::MessageParser::default()
        .parse(raw)
        .and_then(|m| m.body_text(0).map(|t| t.into_owned()))
        .unwrap_or_default()
}

/// Waits (at most 20 s) until `user` has a mail of `kind` (`X-Fernzug-Kind`) beyond the first
/// `seen`; returns it.
pub fn next_of(user: &str, kind: &str, seen: usize) -> Vec<u8> {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let all = fetch_all(user);
        let of: Vec<&Vec<u8>> = all
            .iter()
            .filter(|m| header(m, "X-Fernzug-Kind").as_deref() == Some(kind))
            .collect();
        if of.len() > seen {
            return of[seen].clone();
        }
        assert!(
            Instant::now() < until,
            "{user} got no {kind} mail #{}: {:?}",
            seen + 1,
            kinds(&all)
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Every attachment of `raw`: its file name (if any) and decoded contents.
pub fn attachments(raw: &[u8]) -> Vec<(Option<String>, Vec<u8>)> {
    mail_parser::MessageParser::default()
        .parse(raw)
        .map(|m| {
            m.attachments()
                .map(|a| {
                    (
                        a.attachment_name().map(str::to_string),
                        a.contents().to_vec(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

// ------------------------------------------------------------------------------------------------
// The relay under test

/// A fernzug relay of one test: its own directory (under the system temp dir), config, data dir,
/// relay address and tournament director address. The directory is removed when the test passes
/// and kept (and printed) when it fails, or always with `FERNZUG_KEEP_TEST_DIRS=1`.
pub struct Relay {
    /// The test's directory.
    pub dir: PathBuf,
    /// `<dir>/fernzug.toml`.
    pub config: PathBuf,
    /// The relay mailbox, `relay-<unique>@fernschach.test`.
    pub address: String,
    /// The tournament director of every tournament file written by this relay.
    pub director: String,
}

/// A tournament file written by [`Relay::tournament`].
#[derive(Debug, Clone)]
pub struct Tournament {
    pub path: PathBuf,
    /// Unique tournament id; game references are `<id>/<n>`.
    pub id: String,
    /// The director's address (same as the relay's `director`).
    pub director: String,
}

impl Tournament {
    /// The reference of game `n`, `<id>/<n>`.
    pub fn game(&self, n: u32) -> String {
        format!("{}/{n}", self.id)
    }
}

impl Relay {
    /// Creates the test's directory and writes its `fernzug.toml` for the loopback stack.
    pub fn new(test_name: &str) -> Relay {
        stack();
        let dir = std::env::temp_dir()
            .join("fernzug-e2e")
            .join(unique(test_name));
        let data_dir = dir.join("data");
        std::fs::create_dir_all(&data_dir)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", data_dir.display()));
        let address = addr(&unique("relay"));
        let director = addr(&unique("tl"));
        let config = dir.join("fernzug.toml");
        let text = format!(
            "[relay]\n\
             address = {address}\n\
             name = \"Fernschach-Relais\"\n\
             data_dir = {data}\n\
             time_zone = \"Europe/Berlin\"\n\
             language = \"de\"\n\
             \n\
             [imap]\n\
             {imap}\
             user = {address}\n\
             password = \"{PASSWORD}\"\n\
             mailbox = \"INBOX\"\n\
             \n\
             [smtp]\n\
             host = \"{HOST}\"\n\
             port = {SMTP_PORT}\n\
             security = \"none\"\n",
            address = toml_str(&address),
            data = toml_str(&data_dir.to_string_lossy()),
            imap = relay_imap_server(),
        );
        std::fs::write(&config, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", config.display()));
        Relay {
            dir,
            config,
            address,
            director,
        }
    }

    /// Replaces the `[imap]` and `[smtp]` sections of the relay's config (`imap`, `smtp`: the
    /// sections' keys, without the headers; the relay's address is `{address}` in them).
    pub fn set_servers(&self, imap: &str, smtp: &str) {
        let text = std::fs::read_to_string(&self.config).expect("config");
        let head = &text[..text.find("[imap]").expect("[imap]")];
        let fill = |s: &str| s.replace("{address}", &toml_str(&self.address));
        let text = format!("{head}[imap]\n{}\n[smtp]\n{}\n", fill(imap), fill(smtp));
        std::fs::write(&self.config, text).expect("config written");
    }

    /// The built `fernzug --config <config> ARGS…` in the relay's directory, not started yet
    /// (e.g. `relay.command(&["run"]).spawn()` for the daemon).
    pub fn command(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fernzug"));
        cmd.arg("--config")
            .arg(&self.config)
            .args(args)
            .env_remove("FERNZUG_CONFIG")
            .current_dir(&self.dir);
        cmd
    }

    /// Runs [`Relay::command`] and returns its output
    /// (e.g. `relay.run(&["once", "--now", "2026-12-01T10:00:00+01:00"])`).
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run fernzug {args:?}: {e}"))
    }

    /// [`Relay::run`], asserting exit status 0; returns stdout.
    pub fn run_ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert!(
            out.status.success(),
            "fernzug {args:?} exited with {}\nstdout:\n{}\nstderr:\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Sends a text mail from `from` to the relay (or to `to`, e.g. a `relay+KEY@` address that lands
    /// in the relay's mailbox) and waits until the relay's INBOX holds it, so that the next
    /// `once` sees it. Returns the Message-ID.
    pub fn send(&self, from: &str, subject: &str, body: &str) -> String {
        self.send_to(from, &self.address.clone(), subject, body)
    }

    /// As [`Relay::send`], to `to`.
    pub fn send_to(&self, from: &str, to: &str, subject: &str, body: &str) -> String {
        let mut inbox = Mailbox::open(&self.address)
            .unwrap_or_else(|e| panic!("relay mailbox {}: {e}", self.address));
        let before = inbox
            .count()
            .unwrap_or_else(|e| panic!("relay mailbox: {e}"));
        let id = send_text(from, to, subject, body);
        let started = Instant::now();
        while inbox
            .count()
            .unwrap_or_else(|e| panic!("relay mailbox: {e}"))
            <= before
        {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "mail {id} did not reach the relay's mailbox"
            );
            std::thread::sleep(POLL);
        }
        id
    }

    /// `fernzug tournament add FILE --now REGISTERED`, asserting success.
    pub fn add(&self, t: &Tournament) -> String {
        let path = t.path.to_string_lossy().into_owned();
        self.run_ok(&["tournament", "add", &path, "--now", REGISTERED])
    }

    /// For the tests that run the daemon in real time: a fax tournament of Anna Adler and Bert
    /// Berger (fresh addresses) that starts today, registered now (no `--now`).
    /// Returns the tournament, Anna's and Bert's address.
    pub fn duo_today(&self) -> (Tournament, String, String) {
        let anna = unique_addr("anna");
        let bert = unique_addr("bert");
        let today = chrono::Utc::now().date_naive().to_string();
        let t = self.tournament(
            &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
            "fax",
            &today,
        );
        let path = t.path.to_string_lossy().into_owned();
        self.run_ok(&["tournament", "add", &path]);
        (t, anna, bert)
    }

    /// A fax duel of Anna (White) and Bert starting 2026-12-01, registered 2026-11-30 12:00 and
    /// started (`once`), both start mails delivered: (tournament, anna, bert).
    pub fn duel_started(&self) -> (Tournament, String, String) {
        let anna = unique_addr("anna");
        let bert = unique_addr("bert");
        let t = self.tournament(
            &[("Anna Adler", &anna, None), ("Bert Berger", &bert, None)],
            "fax",
            "2026-12-01",
        );
        self.add(&t);
        self.once(REGISTERED);
        wait_for(&anna, 1, Duration::from_secs(20));
        wait_for(&bert, 1, Duration::from_secs(20));
        (t, anna, bert)
    }

    /// `fernzug once --now NOW`, asserting success.
    pub fn once(&self, now: &str) -> String {
        self.run_ok(&["once", "--now", now])
    }

    /// As [`Relay::tournament_file`], returning the id and director too.
    pub fn tournament(
        &self,
        players: &[(&str, &str, Option<&str>)],
        rules: &str,
        start: &str,
    ) -> Tournament {
        self.tournament_with_games(players, &[], rules, start)
    }

    /// As [`Relay::tournament`], with explicit `[[games]]` as `(white email, black email)`.
    pub fn tournament_with_games(
        &self,
        players: &[(&str, &str, Option<&str>)],
        games: &[(&str, &str)],
        rules: &str,
        start: &str,
    ) -> Tournament {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let id = format!(
            "T{}-{}-{:04X}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed),
            random() & 0xffff
        );
        let mut text = format!(
            "id = {}\nname = {}\nrules = {}\nstart = {}\ndigest = false\n\n[director]\nname = \"Tom Leiter\"\nemail = {}\n",
            toml_str(&id),
            toml_str(&format!("fernzug e2e {id}")),
            toml_str(rules),
            toml_str(start),
            toml_str(&self.director)
        );
        for (name, email, language) in players {
            text.push_str(&format!(
                "\n[[players]]\nname = {}\nemail = {}\n",
                toml_str(name),
                toml_str(email)
            ));
            if let Some(language) = language {
                text.push_str(&format!("language = {}\n", toml_str(language)));
            }
        }
        for (white, black) in games {
            text.push_str(&format!(
                "\n[[games]]\nwhite = {}\nblack = {}\n",
                toml_str(white),
                toml_str(black)
            ));
        }
        let path = self.dir.join(format!("tournament-{id}.toml"));
        std::fs::write(&path, text)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        Tournament {
            path,
            id,
            director: self.director.clone(),
        }
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        if std::thread::panicking() || std::env::var_os("FERNZUG_KEEP_TEST_DIRS").is_some() {
            eprintln!("fernzug test files kept in {}", self.dir.display());
        } else {
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }
}

/// A TOML basic string.
fn toml_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

// ------------------------------------------------------------------------------------------------
// A game between two players

/// When the tests register their tournaments.
pub const REGISTERED: &str = "2026-11-30T12:00:00+01:00";

/// Anna (White) against Bert (Black): one game of a tournament starting 2026-12-01, registered at
/// [`REGISTERED`], with both start mails delivered.
pub struct Duel {
    pub relay: Relay,
    pub anna: String,
    pub bert: String,
    /// The tournament id.
    pub id: String,
    /// The game, `ID/1`.
    pub game: String,
    pub director: String,
}

impl Duel {
    /// `anna` and `bert` are (display name, language) of the two players.
    pub fn new(
        test: &str,
        rules: &str,
        anna: (&str, Option<&str>),
        bert: (&str, Option<&str>),
    ) -> Duel {
        let relay = Relay::new(test);
        let anna_addr = unique_addr("anna");
        let bert_addr = unique_addr("bert");
        let t = relay.tournament_with_games(
            &[(anna.0, &anna_addr, anna.1), (bert.0, &bert_addr, bert.1)],
            &[(&anna_addr, &bert_addr)],
            rules,
            "2026-12-01",
        );
        relay.add(&t);
        relay.once(REGISTERED);
        wait_for(&anna_addr, 1, Duration::from_secs(20));
        wait_for(&bert_addr, 1, Duration::from_secs(20));
        Duel {
            id: t.id.clone(),
            game: t.game(1),
            director: t.director.clone(),
            relay,
            anna: anna_addr,
            bert: bert_addr,
        }
    }

    /// Sends `body` from `from` about the game (`Re: [GAME] Zug`), waits until the relay's mailbox
    /// has it, and runs `fernzug once --now NOW`.
    pub fn play(&self, from: &str, body: &str, now: &str) {
        self.relay
            .send(from, &format!("Re: [{}] Zug", self.game), body);
        self.relay.once(now);
    }

    /// `fernzug status GAME --json --now NOW`: the game's object.
    pub fn status(&self, now: &str) -> serde_json::Value {
        let out = self
            .relay
            .run_ok(&["status", self.game.as_str(), "--json", "--now", now]);
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("status --json: {e}: {out}"));
        v[0].clone()
    }
}

// ------------------------------------------------------------------------------------------------

/// A `fernzug run` that is killed if the test ends early (a failed assertion).
pub struct Daemon(pub std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.0.try_wait() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

// ------------------------------------------------------------------------------------------------
// HTTP

/// A port nobody listens on now (for `[http] listen`).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Adds `text` to the relay's config: to `[relay]` when `relay` is true, else at the end.
pub fn configure(relay: &Relay, in_relay: &str, at_end: &str) {
    let text = std::fs::read_to_string(&relay.config).unwrap();
    let text = text.replacen("[imap]", &format!("{in_relay}\n[imap]"), 1);
    std::fs::write(&relay.config, format!("{text}\n{at_end}\n")).unwrap();
}

/// `GET path` on 127.0.0.1:`port`: the status code and the body.
pub fn get(port: u16, path: &str) -> (u16, String) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("the HTTP listener");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(s, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    let out = crate::common::http_answer(&mut s);
    let status = out
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = out.split_once("\r\n\r\n").map(|(_, b)| b.to_string());
    (status, body.unwrap_or_default())
}

/// Waits until 127.0.0.1:`port` takes connections.
pub fn wait_listening(port: u16) {
    let started = Instant::now();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "nothing listens on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Reads one HTTP answer from `s` as a client does on a kept-alive connection: the head, then as
/// many bytes of body as its `Content-Length` says (or to the end of the connection without one).
/// The whole answer as text; what came before an error or the end when it breaks off.
pub fn http_answer(s: &mut TcpStream) -> String {
    let mut out = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&out[..end]).to_lowercase();
            let length = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|n| n.trim().parse::<usize>().ok());
            if let Some(length) = length
                && out.len() >= end + 4 + length
            {
                out.truncate(end + 4 + length);
                return String::from_utf8_lossy(&out).into_owned();
            }
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return String::from_utf8_lossy(&out).into_owned(),
            Ok(n) => out.extend_from_slice(&chunk[..n]),
        }
    }
}
