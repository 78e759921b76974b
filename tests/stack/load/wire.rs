//! The bare clients and the sink the relay is measured against: an SMTP sink in this process, a
//! bare SMTP client (one connection, pipelining, TCP_NODELAY) and a bare IMAP client in IDLE.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::common::{HOST, IMAP_PORT, PASSWORD};

/// One mail as it went over SMTP: envelope and data (dot-unstuffed, CRLF line ends).
#[derive(Debug, Clone)]
pub struct Envelope {
    pub from: String,
    pub to: Vec<String>,
    pub data: Vec<u8>,
}

/// An SMTP server on 127.0.0.1:<port> that accepts every mail at once (EHLO offers PIPELINING
/// and 8BITMIME), counts and keeps them. Lives as long as the test process.
pub struct Sink {
    pub port: u16,
    state: Arc<SinkState>,
}

#[derive(Default)]
struct SinkState {
    mails: AtomicUsize,
    kept: Mutex<Vec<Envelope>>,
}

impl Sink {
    pub fn start() -> Sink {
        let listener = TcpListener::bind((HOST, 0)).expect("sink: bind 127.0.0.1:0");
        let port = listener.local_addr().expect("sink: local address").port();
        let state = Arc::new(SinkState::default());
        let shared = state.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                let Ok(conn) = conn else { continue };
                let state = shared.clone();
                std::thread::spawn(move || {
                    let _ = serve(conn, &state);
                });
            }
        });
        Sink { port, state }
    }

    /// Mails accepted so far.
    pub fn count(&self) -> usize {
        self.state.mails.load(Ordering::SeqCst)
    }

    /// The mails accepted so far (and forgets them).
    pub fn take(&self) -> Vec<Envelope> {
        std::mem::take(&mut *self.state.kept.lock().expect("sink lock"))
    }
}

/// The address inside `<…>` of `MAIL FROM:<a> …` / `RCPT TO:<a> …`.
fn bracketed(line: &str) -> String {
    match (line.find('<'), line.find('>')) {
        (Some(a), Some(b)) if a < b => line[a + 1..b].to_string(),
        _ => line
            .split_once(':')
            .map(|(_, r)| r.trim().to_string())
            .unwrap_or_default(),
    }
}

fn serve(stream: TcpStream, state: &SinkState) -> std::io::Result<()> {
    stream.set_nodelay(true)?;
    let mut r = BufReader::new(stream.try_clone()?);
    let mut w = BufWriter::new(stream);
    w.write_all(b"220 sink.fernschach.test ESMTP load sink\r\n")?;
    w.flush()?;
    let mut from = String::new();
    let mut to: Vec<String> = Vec::new();
    let mut line = Vec::new();
    loop {
        line.clear();
        if r.read_until(b'\n', &mut line)? == 0 {
            return Ok(());
        }
        let text = String::from_utf8_lossy(&line);
        let cmd = text.trim_end();
        let verb = cmd
            .split([' ', ':'])
            .next()
            .unwrap_or("")
            .to_ascii_uppercase();
        match verb.as_str() {
            "EHLO" => w.write_all(
                b"250-sink.fernschach.test\r\n250-PIPELINING\r\n250-8BITMIME\r\n250 SIZE 1073741824\r\n",
            )?,
            "HELO" => w.write_all(b"250 sink.fernschach.test\r\n")?,
            "MAIL" => {
                from = bracketed(cmd);
                to.clear();
                w.write_all(b"250 2.1.0 Ok\r\n")?;
            }
            "RCPT" => {
                to.push(bracketed(cmd));
                w.write_all(b"250 2.1.5 Ok\r\n")?;
            }
            "DATA" => {
                w.write_all(b"354 End data with <CR><LF>.<CR><LF>\r\n")?;
                w.flush()?;
                let mut data = Vec::new();
                loop {
                    line.clear();
                    if r.read_until(b'\n', &mut line)? == 0 {
                        return Ok(());
                    }
                    if line == b".\r\n" || line == b".\n" {
                        break;
                    }
                    let l = if line.starts_with(b"..") {
                        &line[1..]
                    } else {
                        &line[..]
                    };
                    data.extend_from_slice(l);
                }
                state.kept.lock().expect("sink lock").push(Envelope {
                    from: std::mem::take(&mut from),
                    to: std::mem::take(&mut to),
                    data,
                });
                state.mails.fetch_add(1, Ordering::SeqCst);
                w.write_all(b"250 2.0.0 Ok: queued\r\n")?;
            }
            "RSET" => {
                from.clear();
                to.clear();
                w.write_all(b"250 2.0.0 Ok\r\n")?;
            }
            "NOOP" => w.write_all(b"250 2.0.0 Ok\r\n")?,
            "QUIT" => {
                w.write_all(b"221 2.0.0 Bye\r\n")?;
                w.flush()?;
                return Ok(());
            }
            _ => w.write_all(b"502 5.5.2 Error: command not recognized\r\n")?,
        }
        // Answer a pipelined group in one write, once everything sent so far was read.
        if r.buffer().is_empty() {
            w.flush()?;
        }
    }
}

/// One SMTP reply: its code and its lines.
struct Reply {
    code: u16,
    text: String,
}

fn reply(r: &mut BufReader<TcpStream>) -> Result<Reply, String> {
    let mut text = String::new();
    loop {
        let mut line = String::new();
        let n = r
            .read_line(&mut line)
            .map_err(|e| format!("SMTP read: {e}"))?;
        if n == 0 {
            return Err(format!("SMTP: connection closed after {text:?}"));
        }
        text.push_str(&line);
        let b = line.as_bytes();
        if b.len() < 4 || b[3] != b'-' {
            let code = line.get(..3).and_then(|c| c.parse().ok()).unwrap_or(0);
            return Ok(Reply { code, text });
        }
    }
}

fn expect(r: &mut BufReader<TcpStream>, class: u16, what: &str) -> Result<Reply, String> {
    let rep = reply(r)?;
    if rep.code / 100 != class {
        return Err(format!("{what}: {}", rep.text.trim_end()));
    }
    Ok(rep)
}

/// `data` with CRLF line ends, dot-stuffed and ended by `.CRLF`.
fn stuffed(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + 64);
    let mut at_line_start = true;
    let mut prev = 0u8;
    for &b in data {
        if at_line_start && b == b'.' {
            out.push(b'.');
        }
        if b == b'\n' && prev != b'\r' {
            out.push(b'\r');
        }
        out.push(b);
        at_line_start = b == b'\n';
        prev = b;
    }
    if !at_line_start {
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b".\r\n");
    out
}

/// A bare SMTP client: sends `mails` over one connection to 127.0.0.1:`port` (TCP_NODELAY;
/// MAIL, RCPT and DATA in one write when the server offers PIPELINING; BODY=8BITMIME for 8-bit
/// data when offered). Returns the time from connect to the answer to QUIT.
pub fn bare_send(port: u16, mails: &[Envelope]) -> Result<Duration, String> {
    bare_send_with(port, mails, || {})
}

/// [`bare_send`], calling `before` before each mail (work a client does beside handing over).
pub fn bare_send_with(
    port: u16,
    mails: &[Envelope],
    mut before: impl FnMut(),
) -> Result<Duration, String> {
    let started = Instant::now();
    let stream = TcpStream::connect((HOST, port)).map_err(|e| format!("connect {port}: {e}"))?;
    stream
        .set_nodelay(true)
        .and_then(|()| stream.set_read_timeout(Some(Duration::from_secs(120))))
        .map_err(|e| e.to_string())?;
    let mut w = stream.try_clone().map_err(|e| e.to_string())?;
    let mut r = BufReader::new(stream);
    expect(&mut r, 2, "greeting")?;
    w.write_all(b"EHLO bare.fernschach.test\r\n")
        .map_err(|e| e.to_string())?;
    let ehlo = expect(&mut r, 2, "EHLO")?.text.to_ascii_uppercase();
    let pipelining = ehlo.contains("PIPELINING");
    let eightbit = ehlo.contains("8BITMIME");
    for (i, m) in mails.iter().enumerate() {
        before();
        let body = if eightbit && !m.data.is_ascii() {
            " BODY=8BITMIME"
        } else {
            ""
        };
        let mut cmds = vec![format!("MAIL FROM:<{}>{body}\r\n", m.from)];
        cmds.extend(m.to.iter().map(|t| format!("RCPT TO:<{t}>\r\n")));
        cmds.push("DATA\r\n".to_string());
        if pipelining {
            w.write_all(cmds.concat().as_bytes())
                .map_err(|e| e.to_string())?;
            for (j, c) in cmds.iter().enumerate() {
                let class = if j + 1 == cmds.len() { 3 } else { 2 };
                expect(&mut r, class, &format!("mail {i}: {}", c.trim_end()))?;
            }
        } else {
            for (j, c) in cmds.iter().enumerate() {
                w.write_all(c.as_bytes()).map_err(|e| e.to_string())?;
                let class = if j + 1 == cmds.len() { 3 } else { 2 };
                expect(&mut r, class, &format!("mail {i}: {}", c.trim_end()))?;
            }
        }
        w.write_all(&stuffed(&m.data)).map_err(|e| e.to_string())?;
        expect(&mut r, 2, &format!("mail {i}: end of data"))?;
    }
    w.write_all(b"QUIT\r\n").map_err(|e| e.to_string())?;
    let _ = reply(&mut r);
    Ok(started.elapsed())
}

/// A bare IMAP client on one user's INBOX (selected), for IDLE.
pub struct Idler {
    reader: BufReader<TcpStream>,
    writer: TcpStream,
    tag: u32,
}

impl Idler {
    pub fn open(user: &str) -> Idler {
        Idler::connect(user, "SELECT INBOX")
    }

    /// Logs in and opens the INBOX with `select` (`SELECT INBOX` or `EXAMINE INBOX`).
    fn connect(user: &str, select: &str) -> Idler {
        let stream = TcpStream::connect((HOST, IMAP_PORT)).expect("IMAP connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(30)))
            .expect("IMAP timeout");
        let writer = stream.try_clone().expect("IMAP clone");
        let mut i = Idler {
            reader: BufReader::new(stream),
            writer,
            tag: 0,
        };
        i.line();
        i.command(&format!("LOGIN \"{user}\" \"{PASSWORD}\""));
        i.command(select);
        i
    }

    fn line(&mut self) -> String {
        let mut l = String::new();
        let n = self.reader.read_line(&mut l).expect("IMAP read");
        assert!(n > 0, "IMAP: connection closed");
        l
    }

    fn command(&mut self, c: &str) {
        self.tag += 1;
        let tag = format!("i{} ", self.tag);
        self.writer
            .write_all(format!("{tag}{c}\r\n").as_bytes())
            .expect("IMAP write");
        loop {
            let l = self.line();
            if let Some(rest) = l.strip_prefix(&tag) {
                assert!(rest.starts_with("OK"), "IMAP {c}: {l}");
                return;
            }
        }
    }

    /// Enters IDLE (returns at the server's continuation).
    pub fn idle(&mut self) {
        self.tag += 1;
        self.writer
            .write_all(format!("i{} IDLE\r\n", self.tag).as_bytes())
            .expect("IMAP write");
        loop {
            if self.line().starts_with('+') {
                return;
            }
        }
    }

    /// Waits (in IDLE) for the next `* N EXISTS`; the instant it was read.
    pub fn wait_exists(&mut self) -> Instant {
        loop {
            let l = self.line();
            if l.starts_with("* ") && l.trim_end().ends_with(" EXISTS") {
                return Instant::now();
            }
        }
    }

    /// Leaves IDLE.
    pub fn done(&mut self) {
        self.writer.write_all(b"DONE\r\n").expect("IMAP write");
        let tag = format!("i{} ", self.tag);
        loop {
            let l = self.line();
            if l.starts_with(&tag) {
                return;
            }
        }
    }
}

/// How many messages of `user`'s INBOX are flagged \Seen (a fresh session, EXAMINE, SEARCH).
pub fn seen_count(user: &str) -> usize {
    let mut i = Idler::connect(user, "EXAMINE INBOX");
    i.tag += 1;
    let tag = format!("i{} ", i.tag);
    i.writer
        .write_all(format!("{tag}SEARCH SEEN\r\n").as_bytes())
        .expect("IMAP write");
    let mut n = 0;
    loop {
        let l = i.line();
        if let Some(found) = l.strip_prefix("* SEARCH") {
            n = found.split_whitespace().count();
        } else if l.starts_with(&tag) {
            return n;
        }
    }
}

impl Drop for Idler {
    fn drop(&mut self) {
        let _ = self.writer.write_all(b"z LOGOUT\r\n");
    }
}
