//! One SMTP client connection (RFC 5321) as the relay needs it: TCP with `TCP_NODELAY` (each
//! command goes out at once instead of waiting ≈ 40 ms for the server's delayed ACK), implicit
//! TLS or STARTTLS by tokio-rustls, AUTH PLAIN, LOGIN or XOAUTH2, and PIPELINING (RFC 2920) where
//! the server offers it: `MAIL`, `RCPT` and `DATA` in one write, the message and its end in one
//! more. A connection carries any number of mails, one after the other.

use std::fmt;
use std::io;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;
use tokio_rustls::rustls::pki_types::ServerName;

use super::{Security, SendError, SmtpSettings};
use crate::core::unreachable::verdict::SmtpStage;
use crate::secret::Auth;
use crate::tls::Stream;

/// The longest reply line the client reads (RFC 5321 allows 512 octets; servers send more).
const MAX_LINE: usize = 64 * 1024;
/// The most lines one reply may have.
const MAX_LINES: usize = 1000;

/// One reply of the server: its code and the text of each line (without the code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reply {
    pub code: u16,
    pub lines: Vec<String>,
}

impl Reply {
    fn ok(&self) -> bool {
        (200..400).contains(&self.code)
    }

    /// The lines joined by a space.
    fn text(&self) -> String {
        self.lines.join(" ")
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.code, self.text())
    }
}

/// What went wrong on a connection.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The server answered the command of that stage with an error code.
    Reply(SmtpStage, Reply),
    /// The network, TLS, a timeout, an unreadable reply: the connection is unusable.
    Io(io::Error),
    /// The operator must act and there is no reply to judge (STARTTLS missing or refused, no
    /// login mechanism fits, an untrusted certificate).
    Operator(String),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        Failure::Io(e)
    }
}

/// What the server offered in its EHLO reply.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Offers {
    pub pipelining: bool,
    pub starttls: bool,
    pub eight_bit: bool,
    pub utf8: bool,
    /// The AUTH mechanisms, upper case.
    pub auth: Vec<String>,
}

impl Offers {
    fn read(lines: &[String]) -> Offers {
        let mut o = Offers::default();
        for line in lines.iter().skip(1) {
            let mut words = line.split_ascii_whitespace();
            let Some(keyword) = words.next() else {
                continue;
            };
            match keyword.to_ascii_uppercase().as_str() {
                "PIPELINING" => o.pipelining = true,
                "STARTTLS" => o.starttls = true,
                "8BITMIME" => o.eight_bit = true,
                "SMTPUTF8" => o.utf8 = true,
                "AUTH" => o.auth.extend(words.map(|w| w.to_ascii_uppercase())),
                k if k.starts_with("AUTH=") => o
                    .auth
                    .extend(k["AUTH=".len()..].split(',').map(str::to_string)),
                _ => {}
            }
        }
        o
    }
}

/// One open, greeted (and, as configured, encrypted and logged-in) connection.
pub(crate) struct Connection {
    io: BufReader<Stream>,
    offers: Offers,
    timeout: Duration,
    /// When it last finished a mail (for the pool's idle limit).
    pub(crate) idle_since: tokio::time::Instant,
    /// The current mail's data went out: from here on a broken connection may have delivered it.
    pub(crate) data_sent: bool,
}

impl fmt::Debug for Connection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Connection")
            .field("offers", &self.offers)
            .finish()
    }
}

/// The name the client gives in EHLO: this machine's host name.
fn client_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_graphic()))
        .unwrap_or_else(|| "localhost".to_string())
}

async fn timed<T>(
    limit: Duration,
    what: &str,
    f: impl std::future::Future<Output = io::Result<T>>,
) -> io::Result<T> {
    match tokio::time::timeout(limit, f).await {
        Ok(r) => r,
        Err(_) => Err(io::Error::new(
            io::ErrorKind::TimedOut,
            format!("no answer within {} s ({what})", limit.as_secs()),
        )),
    }
}

impl Connection {
    /// Connects as `s` says: TCP, TLS (implicit or STARTTLS), EHLO, AUTH with `password`.
    pub(crate) async fn open(
        s: &SmtpSettings,
        tls: Option<&TlsConnector>,
        password: Option<&str>,
    ) -> Result<Connection, Failure> {
        let tcp = timed(
            s.timeout,
            "connecting",
            TcpStream::connect((s.host.as_str(), s.port)),
        )
        .await?;
        tcp.set_nodelay(true)?;
        let stream = match s.security {
            Security::Tls => Stream::Tls(Box::new(handshake(s, tls, tcp).await?)),
            Security::Starttls | Security::None => Stream::Plain(tcp),
        };
        let mut c = Connection {
            io: BufReader::new(stream),
            offers: Offers::default(),
            timeout: s.timeout,
            idle_since: tokio::time::Instant::now(),
            data_sent: false,
        };
        let greeting = c.reply().await?;
        if greeting.code != 220 {
            return Err(Failure::Reply(SmtpStage::Connect, greeting));
        }
        c.ehlo().await?;
        if s.security == Security::Starttls {
            if !c.offers.starttls {
                return Err(Failure::Operator(
                    "the server does not offer STARTTLS; fernzug never falls back to plain text: use [smtp] security = \"tls\" (port 465) or a server that offers STARTTLS".to_string(),
                ));
            }
            let r = c.command("STARTTLS").await?;
            if r.code != 220 {
                return Err(Failure::Operator(format!(
                    "the server refused STARTTLS ({r}); fernzug never falls back to plain text"
                )));
            }
            let Stream::Plain(tcp) = c.io.into_inner() else {
                return Err(Failure::Operator(
                    "STARTTLS on a connection that already uses TLS".to_string(),
                ));
            };
            c.io = BufReader::new(Stream::Tls(Box::new(handshake(s, tls, tcp).await?)));
            c.ehlo().await?;
        }
        if let (Some(user), Some(password)) = (&s.user, password) {
            c.login(user, password, s.auth).await?;
        }
        Ok(c)
    }

    async fn ehlo(&mut self) -> Result<(), Failure> {
        let line = format!("EHLO {}\r\n", client_name());
        self.write(line.as_bytes()).await?;
        let reply = self.reply().await?;
        if reply.code != 250 {
            return Err(Failure::Reply(SmtpStage::Ehlo, reply));
        }
        self.offers = Offers::read(&reply.lines);
        Ok(())
    }

    async fn login(&mut self, user: &str, password: &str, auth: Auth) -> Result<(), Failure> {
        let offered = |m: &str| self.offers.auth.iter().any(|a| a == m);
        // Whether a refusal is "try again" (454) or the password's, the core judges.
        let refused = |r: Reply| Failure::Reply(SmtpStage::Auth, r);
        let reply = match auth {
            Auth::Xoauth2 => {
                let token = base64(format!("user={user}\x01auth=Bearer {password}\x01\x01"));
                let r = self.command(&format!("AUTH XOAUTH2 {token}")).await?;
                if r.code == 334 {
                    // The server's error details; an empty line ends the exchange.
                    self.command("").await?
                } else {
                    r
                }
            }
            Auth::Plain | Auth::Password if auth == Auth::Plain || offered("PLAIN") => {
                let token = base64(format!("\0{user}\0{password}"));
                self.command(&format!("AUTH PLAIN {token}")).await?
            }
            Auth::Password if offered("LOGIN") => {
                let r = self.command("AUTH LOGIN").await?;
                if r.code != 334 {
                    return Err(refused(r));
                }
                let r = self.command(&base64(user)).await?;
                if r.code != 334 {
                    return Err(refused(r));
                }
                self.command(&base64(password)).await?
            }
            Auth::Password | Auth::Plain => {
                return Err(Failure::Operator(format!(
                    "the server offers no login fernzug can use (AUTH {}); fernzug logs in with PLAIN or LOGIN, or XOAUTH2 with [smtp] auth = \"xoauth2\"",
                    if self.offers.auth.is_empty() {
                        "none".to_string()
                    } else {
                        self.offers.auth.join(" ")
                    }
                )));
            }
        };
        if reply.code == 235 {
            Ok(())
        } else {
            Err(refused(reply))
        }
    }

    /// Hands one mail to the server. `Ok` once the server accepted it with 250 after the data;
    /// a refusal leaves the connection usable (the transaction is reset).
    pub(crate) async fn send(
        &mut self,
        from: &str,
        to: &str,
        data: &[u8],
        utf8_addresses: bool,
        eight_bit: bool,
    ) -> Result<(), Failure> {
        self.data_sent = false;
        let mut params = String::new();
        if eight_bit && self.offers.eight_bit {
            params.push_str(" BODY=8BITMIME");
        }
        if utf8_addresses {
            if !self.offers.utf8 {
                return Err(Failure::Reply(
                    SmtpStage::Rcpt,
                    Reply {
                        code: 553,
                        lines: vec![
                            "5.1.3 the address is not ASCII and the server does not offer SMTPUTF8"
                                .to_string(),
                        ],
                    },
                ));
            }
            params.push_str(" SMTPUTF8");
        }
        let mail = format!("MAIL FROM:<{from}>{params}\r\n");
        let rcpt = format!("RCPT TO:<{to}>\r\n");
        let replies = if self.offers.pipelining {
            self.write(format!("{mail}{rcpt}DATA\r\n").as_bytes())
                .await?;
            [
                self.reply().await?,
                self.reply().await?,
                self.reply().await?,
            ]
        } else {
            let m = self.command(mail.trim_end()).await?;
            if !m.ok() {
                return self.refused(SmtpStage::Mail, m, false).await;
            }
            let r = self.command(rcpt.trim_end()).await?;
            if !r.ok() {
                return self.refused(SmtpStage::Rcpt, r, false).await;
            }
            let d = self.command("DATA").await?;
            [m, r, d]
        };
        let [m, r, d] = replies;
        // The first refusal keeps its own stage: a refused RCPT is the recipient's, not DATA's.
        let first_error = [(SmtpStage::Mail, &m), (SmtpStage::Rcpt, &r)]
            .into_iter()
            .find(|(_, x)| !x.ok())
            .map(|(stage, x)| (stage, x.clone()));
        if d.code != 354 {
            let (stage, reply) = first_error.unwrap_or((SmtpStage::Data, d));
            return self.refused(stage, reply, false).await;
        }
        if let Some((stage, e)) = first_error {
            // RFC 2920: DATA was accepted although the envelope was not: end it empty.
            return self.refused(stage, e, true).await;
        }
        self.data_sent = true;
        self.write(data).await?;
        let done = self.reply().await?;
        self.idle_since = tokio::time::Instant::now();
        if done.code == 250 {
            // The server took the mail; the outbox does not know it yet.
            crate::crash::point(crate::crash::AFTER_SMTP_250);
            Ok(())
        } else {
            Err(Failure::Reply(SmtpStage::EndOfData, done))
        }
    }

    /// After a refusal at `stage`: end an opened DATA, reset the transaction, report the refusal.
    async fn refused(
        &mut self,
        stage: SmtpStage,
        reply: Reply,
        in_data: bool,
    ) -> Result<(), Failure> {
        if in_data {
            self.write(b".\r\n").await?;
            self.reply().await?;
        }
        let _ = self.command("RSET").await?;
        self.idle_since = tokio::time::Instant::now();
        Err(Failure::Reply(stage, reply))
    }

    /// Whether a NOOP is answered (the `fernzug check` probe).
    pub(crate) async fn noop(&mut self) -> Result<bool, Failure> {
        Ok(self.command("NOOP").await?.code == 250)
    }

    /// Says goodbye (best effort).
    pub(crate) async fn quit(mut self) {
        let _ = tokio::time::timeout(Duration::from_secs(2), async {
            let _ = self.write(b"QUIT\r\n").await;
            let _ = self.reply().await;
            let _ = self.io.get_mut().shutdown().await;
        })
        .await;
    }

    async fn command(&mut self, line: &str) -> Result<Reply, Failure> {
        self.write(format!("{line}\r\n").as_bytes()).await?;
        self.reply().await
    }

    async fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        let limit = self.timeout;
        timed(limit, "sending", async {
            let s = self.io.get_mut();
            s.write_all(bytes).await?;
            s.flush().await
        })
        .await
    }

    /// Reads one (possibly multi-line) reply: `250-…` lines, then `250 …`.
    async fn reply(&mut self) -> Result<Reply, Failure> {
        let limit = self.timeout;
        let io = &mut self.io;
        let lines = timed(limit, "waiting for the server's reply", async {
            let mut lines = Vec::new();
            let mut buf = Vec::new();
            loop {
                buf.clear();
                let n = (&mut *io)
                    .take(MAX_LINE as u64)
                    .read_until(b'\n', &mut buf)
                    .await?;
                if n == 0 {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "the server closed the connection",
                    ));
                }
                let line = String::from_utf8_lossy(&buf).trim_end().to_string();
                let bad = || {
                    io::Error::new(
                        io::ErrorKind::InvalidData,
                        format!("not an SMTP reply: {line:?}"),
                    )
                };
                let code = line
                    .get(..3)
                    .filter(|c| c.bytes().all(|b| b.is_ascii_digit()))
                    .ok_or_else(bad)?
                    .to_string();
                let more = line.as_bytes().get(3) == Some(&b'-');
                lines.push(line);
                if !more || lines.len() >= MAX_LINES {
                    return Ok((code, lines));
                }
            }
        })
        .await?;
        let (code, lines) = lines;
        let code: u16 = code.parse().unwrap_or(0);
        let lines = lines
            .iter()
            .map(|l| l.get(4..).unwrap_or("").trim().to_string())
            .collect();
        Ok(Reply { code, lines })
    }
}

/// TLS over `tcp`, verifying the certificate for the configured host.
async fn handshake(
    s: &SmtpSettings,
    tls: Option<&TlsConnector>,
    tcp: TcpStream,
) -> Result<TlsStream<TcpStream>, Failure> {
    let Some(connector) = tls else {
        return Err(Failure::Operator("TLS is not set up".to_string()));
    };
    let name = ServerName::try_from(s.host.clone()).map_err(|e| {
        Failure::Operator(format!(
            "`{}` is not a valid server name: {e}; fix [smtp] host",
            s.host
        ))
    })?;
    match timed(s.timeout, "TLS handshake", connector.connect(name, tcp)).await {
        Ok(t) => Ok(t),
        Err(e) => match crate::tls::explain(&e, "smtp") {
            Some(why) => Err(Failure::Operator(why)),
            None => Err(Failure::Io(e)),
        },
    }
}

/// The DATA block for `raw`: line ends made CRLF (SMTP carries no other), lines starting with a
/// dot doubled (RFC 5321 4.5.2), a final line end, and the ending `.` line.
pub(crate) fn data_block(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len() + raw.len() / 32 + 5);
    let mut rest = raw;
    while !rest.is_empty() {
        // A line at a time: its text copied whole, its end (CRLF, CR or LF) written CRLF.
        let end = memchr::memchr2(b'\r', b'\n', rest).unwrap_or(rest.len());
        let (text, after) = rest.split_at(end);
        if text.first() == Some(&b'.') {
            out.push(b'.');
        }
        out.extend_from_slice(text);
        rest = match after {
            [] => {
                out.extend_from_slice(b"\r\n");
                after
            }
            [b'\r', b'\n', more @ ..] | [_, more @ ..] => {
                out.extend_from_slice(b"\r\n");
                more
            }
        };
    }
    out.extend_from_slice(b".\r\n");
    out
}

/// Base64 (RFC 4648, with padding) of `data`, for AUTH.
fn base64(data: impl AsRef<[u8]>) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let data = data.as_ref();
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for (i, shift) in [18u32, 12, 6, 0].into_iter().enumerate() {
            if i <= chunk.len() {
                let idx = ((n >> shift) & 63) as usize;
                out.push(char::from(ALPHABET.get(idx).copied().unwrap_or(b'A')));
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// Turns a connection failure into the relay's [`SendError`]; `server` names it (`SMTP host:port`).
/// No judgement here: the core decides whom a refusal concerns.
pub(crate) fn classify(f: Failure, server: &str) -> SendError {
    match f {
        Failure::Operator(why) => SendError::NeedsOperator {
            message: format!("{server}: {why}"),
        },
        Failure::Io(e) => SendError::Unreachable {
            message: format!("{server}: {e}"),
        },
        Failure::Reply(stage, r) => SendError::Refused {
            stage,
            code: r.code,
            lines: r.lines,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 5321's DATA block written byte by byte, as the client did before it copied whole
    /// lines: the reference the faster one is held to.
    fn data_block_byte_by_byte(raw: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut line_start = true;
        let mut i = 0;
        while let Some(&b) = raw.get(i) {
            if line_start && b == b'.' {
                out.push(b'.');
            }
            match b {
                b'\r' if raw.get(i + 1) == Some(&b'\n') => {
                    out.extend_from_slice(b"\r\n");
                    i += 2;
                    line_start = true;
                    continue;
                }
                b'\r' | b'\n' => {
                    out.extend_from_slice(b"\r\n");
                    line_start = true;
                }
                _ => {
                    out.push(b);
                    line_start = false;
                }
            }
            i += 1;
        }
        if !line_start {
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b".\r\n");
        out
    }

    proptest::proptest! {
        #[test]
        fn data_block_is_the_byte_by_byte_block(
            raw in proptest::collection::vec(proptest::sample::select(b"ab.\r\n \xc3".to_vec()), 0..64)
        ) {
            proptest::prop_assert_eq!(data_block(&raw), data_block_byte_by_byte(&raw));
        }
    }

    #[test]
    fn data_block_stuffs_dots_and_ends_with_a_dot_line() {
        assert_eq!(
            data_block(b"A: b\r\n\r\nbody\r\n"),
            b"A: b\r\n\r\nbody\r\n.\r\n"
        );
        assert_eq!(
            data_block(b"A: b\r\n\r\nbody"),
            b"A: b\r\n\r\nbody\r\n.\r\n"
        );
        assert_eq!(
            data_block(b".x\r\n..y\r\nz.\r\n"),
            b"..x\r\n...y\r\nz.\r\n.\r\n"
        );
        assert_eq!(data_block(b"A: b\n\n.x\n"), b"A: b\r\n\r\n..x\r\n.\r\n");
        assert_eq!(data_block(b"a\rb\r\n"), b"a\r\nb\r\n.\r\n");
        assert_eq!(data_block(b""), b".\r\n");
        assert_eq!(data_block(b"\r\n.\n\r."), b"\r\n..\r\n\r\n..\r\n.\r\n");
    }

    #[test]
    fn base64_pads() {
        assert_eq!(base64(""), "");
        assert_eq!(base64("f"), "Zg==");
        assert_eq!(base64("fo"), "Zm8=");
        assert_eq!(base64("foo"), "Zm9v");
        assert_eq!(base64("\0u\0p"), "AHUAcA==");
    }

    #[test]
    fn ehlo_offers_are_read() {
        let lines: Vec<String> = [
            "mail.example",
            "PIPELINING",
            "SIZE 10240000",
            "AUTH PLAIN LOGIN",
            "AUTH=LOGIN",
            "8BITMIME",
            "starttls",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let o = Offers::read(&lines);
        assert!(o.pipelining && o.starttls && o.eight_bit && !o.utf8);
        assert_eq!(o.auth, ["PLAIN", "LOGIN", "LOGIN"]);
    }

    #[test]
    fn replies_keep_their_stage_and_lines() {
        let r = Failure::Reply(
            SmtpStage::Data,
            Reply {
                code: 550,
                lines: vec![
                    "5.4.5 Daily user sending limit exceeded.".into(),
                    "5.4.5 more".into(),
                ],
            },
        );
        assert_eq!(
            classify(r, "SMTP h:1"),
            SendError::Refused {
                stage: SmtpStage::Data,
                code: 550,
                lines: vec![
                    "5.4.5 Daily user sending limit exceeded.".into(),
                    "5.4.5 more".into()
                ],
            }
        );
        let io = Failure::Io(io::Error::new(io::ErrorKind::TimedOut, "slow"));
        assert!(matches!(
            classify(io, "SMTP h:1"),
            SendError::Unreachable { .. }
        ));
        let op = Failure::Operator("no STARTTLS".into());
        assert!(classify(op, "SMTP h:1").needs_operator());
    }
}
