//! The relay's HTTP/1.1 listener: one request per connection (`Connection: close`), bounded in
//! the number of connections, the size of the request and its time, and read-only towards the
//! store (a [`Service`] that must change something hands its request to the daemon's loop, as
//! XFCC does). What it answers is plugged in as services: XFCC (`crate::xfcc::server`, at
//! `/xfccbasic.asmx`), the operator's `/healthz` and `/metrics` (`crate::vitals`) — one server
//! for all of them when `[xfcc] listen` and `[http] listen` name the same address.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

/// At most this many connections at once; more are answered `503` and closed.
pub const MAX_CONNECTIONS: usize = 64;
/// The request line and headers may have this many bytes.
pub const MAX_HEAD: usize = 16 * 1024;
/// The body may have this many bytes (a `MakeAMove` with a long message has a few KB).
pub const MAX_BODY: usize = 64 * 1024;
/// A request must arrive whole within this time, and its answer must be taken within it.
pub const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// A request as read.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The target as sent: the path and, after `?`, the query.
    pub target: String,
    pub body: Vec<u8>,
    /// The client a reverse proxy names (`X-Forwarded-For`, its last address; `X-Real-IP`).
    pub forwarded: Option<IpAddr>,
    /// The address the connection came from.
    pub peer: IpAddr,
    /// `Accept-Language`, as sent.
    pub accept_language: Option<String>,
    /// `If-None-Match`, as sent: the page's `ETag` the client holds.
    pub if_none_match: Option<String>,
}

impl Request {
    /// The target's path.
    pub fn path(&self) -> &str {
        self.target.split_once('?').map_or(&self.target, |(p, _)| p)
    }

    /// The target's query (after `?`; empty without one).
    pub fn query(&self) -> &str {
        self.target.split_once('?').map_or("", |(_, q)| q)
    }

    /// The client: the one a reverse proxy on the same host names (the TLS in front,
    /// docs/xfcc.md), else the peer. From elsewhere such headers are not believed.
    pub fn client(&self) -> IpAddr {
        match self.forwarded {
            Some(c) if self.peer.is_loopback() => c,
            _ => self.peer,
        }
    }
}

/// An answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    pub content_type: &'static str,
    pub body: String,
    /// Further headers (`ETag`, `Cache-Control`, `Retry-After`).
    pub headers: Vec<(&'static str, String)>,
}

impl Response {
    /// A plain text answer.
    pub fn text(status: u16, body: impl Into<String>) -> Response {
        Response::with(status, "text/plain; charset=utf-8", body)
    }

    /// An answer of `content_type`.
    pub fn with(status: u16, content_type: &'static str, body: impl Into<String>) -> Response {
        Response {
            status,
            content_type,
            body: body.into(),
            headers: Vec::new(),
        }
    }
}

/// What a listener answers: the paths it serves and how.
pub trait Service: Send + Sync + 'static {
    /// Whether this service answers `path`.
    fn serves(&self, path: &str) -> bool;
    /// The paths it serves, for the answer to a path nobody serves.
    fn paths(&self) -> &'static str;
    /// The answer to `request` (whose path it serves).
    fn answer(&self, request: Request) -> BoxFuture<'_, Response>;
}

/// Binds `addr` and serves `services` until `shutdown` turns true; the first that serves a
/// path answers it, a path none serves gets `404`. Returns the address bound (port 0 picks one).
pub async fn serve(
    addr: SocketAddr,
    services: Vec<Arc<dyn Service>>,
    shutdown: watch::Receiver<bool>,
) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(addr).await?;
    let bound = listener.local_addr()?;
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    tokio::spawn(accept(listener, Arc::new(services), slots, shutdown));
    Ok(bound)
}

async fn accept(
    listener: TcpListener,
    services: Arc<Vec<Arc<dyn Service>>>,
    slots: Arc<Semaphore>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            _ = shutdown.changed() => return,
        };
        if *shutdown.borrow() {
            return;
        }
        let (stream, peer) = match accepted {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!("HTTP: accept failed: {e}");
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
        };
        match slots.clone().try_acquire_owned() {
            Ok(permit) => {
                let services = services.clone();
                tokio::spawn(async move {
                    connection(stream, peer.ip(), &services).await;
                    drop(permit);
                });
            }
            Err(_) => {
                tokio::spawn(async move {
                    let mut stream = stream;
                    let busy = Response::text(503, "busy, try again\n");
                    let _ = respond(&mut stream, &busy).await;
                });
            }
        }
    }
}

/// Why a request could not be read: the answer (`None`: just close).
struct Refused(Option<Response>);

fn refused(status: u16, text: &str) -> Refused {
    Refused(Some(Response::text(status, text)))
}

async fn read_request(stream: &mut TcpStream, peer: IpAddr) -> Result<Request, Refused> {
    let mut buf: Vec<u8> = Vec::with_capacity(4096);
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            if i > MAX_HEAD {
                return Err(refused(431, "request header too large\n"));
            }
            break i;
        }
        if buf.len() > MAX_HEAD {
            return Err(refused(431, "request header too large\n"));
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.map_err(|_| Refused(None))?;
        if n == 0 {
            return Err(Refused(None));
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = std::str::from_utf8(&buf[..head_end]).map_err(|_| refused(400, "bad request\n"))?;
    let mut lines = head.split("\r\n");
    let mut first = lines.next().unwrap_or_default().split(' ');
    let method = first.next().unwrap_or_default().to_string();
    let target = first.next().unwrap_or_default().to_string();
    let mut length: usize = 0;
    let mut expect_continue = false;
    let mut forwarded: Option<IpAddr> = None;
    let (mut accept_language, mut if_none_match) = (None, None);
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let (name, value) = (name.trim(), value.trim());
        if name.eq_ignore_ascii_case("content-length") {
            length = value
                .parse()
                .map_err(|_| refused(400, "bad Content-Length\n"))?;
        } else if name.eq_ignore_ascii_case("transfer-encoding")
            && !value.eq_ignore_ascii_case("identity")
        {
            return Err(refused(411, "a Content-Length is required\n"));
        } else if name.eq_ignore_ascii_case("expect") && value.eq_ignore_ascii_case("100-continue")
        {
            expect_continue = true;
        } else if name.eq_ignore_ascii_case("x-forwarded-for") {
            // The proxy in front appends the address it saw last.
            forwarded = value.rsplit(',').next().and_then(|a| a.trim().parse().ok());
        } else if name.eq_ignore_ascii_case("x-real-ip") && forwarded.is_none() {
            forwarded = value.parse().ok();
        } else if name.eq_ignore_ascii_case("accept-language") {
            accept_language = Some(value.to_string());
        } else if name.eq_ignore_ascii_case("if-none-match") {
            if_none_match = Some(value.to_string());
        }
    }
    if length > MAX_BODY {
        return Err(refused(413, "request too large\n"));
    }
    let mut body = buf[head_end + 4..].to_vec();
    if expect_continue && body.len() < length {
        stream
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
            .await
            .map_err(|_| Refused(None))?;
    }
    while body.len() < length {
        let mut chunk = vec![0u8; (length - body.len()).min(16 * 1024)];
        let n = stream.read(&mut chunk).await.map_err(|_| Refused(None))?;
        if n == 0 {
            return Err(Refused(None));
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(length);
    Ok(Request {
        method,
        target,
        body,
        forwarded,
        peer,
        accept_language,
        if_none_match,
    })
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

async fn connection(mut stream: TcpStream, peer: IpAddr, services: &[Arc<dyn Service>]) {
    let request = match tokio::time::timeout(READ_TIMEOUT, read_request(&mut stream, peer)).await {
        Ok(Ok(r)) => r,
        Ok(Err(Refused(Some(answer)))) => {
            let _ = respond(&mut stream, &answer).await;
            return;
        }
        Ok(Err(Refused(None))) => return,
        Err(_) => {
            let _ = respond(&mut stream, &Response::text(408, "request timeout\n")).await;
            return;
        }
    };
    let answer = match services.iter().find(|s| s.serves(request.path())) {
        Some(service) => service.answer(request).await,
        None => {
            let paths: Vec<&str> = services.iter().map(|s| s.paths()).collect();
            Response::text(
                404,
                format!("not found: this server answers {}\n", paths.join(", ")),
            )
        }
    };
    let _ = respond(&mut stream, &answer).await;
}

async fn respond(stream: &mut TcpStream, answer: &Response) -> std::io::Result<()> {
    let status = answer.status;
    let reason = match status {
        200 => "OK",
        304 => "Not Modified",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        413 => "Payload Too Large",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        _ => "Service Unavailable",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {}\r\nContent-Length: {}\r\n\
         Connection: close\r\nServer: fernzug\r\n",
        answer.content_type,
        answer.body.len()
    );
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let io = async {
        stream.write_all(head.as_bytes()).await?;
        stream.write_all(answer.body.as_bytes()).await?;
        stream.shutdown().await
    };
    tokio::time::timeout(READ_TIMEOUT, io)
        .await
        .unwrap_or_else(|_| Err(std::io::ErrorKind::TimedOut.into()))
}
