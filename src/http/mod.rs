//! The relay's HTTP/1.1 listener: hyper's server (with keep-alive) under the relay's bounds —
//! connections in all and per client, the size of a request's head and body, the time to send a
//! head, a body and to take an answer — and read-only towards the store (a [`Service`] that must
//! change something hands its request to the daemon's loop, as XFCC does). What it answers is
//! plugged in as services: XFCC (`crate::xfcc::server`, at `/xfccbasic.asmx`), the operator's
//! `/healthz` and `/metrics` (`crate::vitals`), the tournament pages (`crate::pages`) — one server
//! for all of them when `[xfcc] listen` and `[http] listen` name the same address.
//!
//! * **Connections.** At most [`PER_CLIENT`] at once from one client address (an IPv6 client by
//!   its /64, what one host gets), [`QUEUED`] more wait up to [`HEAD_TIMEOUT`] for one of them to
//!   end; at most [`MAX_CONNECTIONS`] in all. Beyond that a connection is answered `503` and
//!   closed without being read. The address counted is the TCP peer's: a reverse proxy on the
//!   same host is one client to the listener (docs/operating.md says why that is right and what
//!   the proxy is to bound instead).
//! * **Time.** A request's head must arrive whole within [`HEAD_TIMEOUT`] of its first byte
//!   being awaited (hyper's `header_read_timeout`; a kept-alive connection waiting for its next
//!   request is cut after as long); its body within [`READ_TIMEOUT`] (else `408`); an answer that
//!   the client stops taking for [`READ_TIMEOUT`] cuts the connection.
//! * **Size.** [`MAX_HEAD`] bytes of head (`431`), [`MAX_BODY`] of body (`413`); a body must
//!   have a `Content-Length` (`411`).
//! * **Every answer** carries `Server: fernzug` and the security headers ([`SECURITY_HEADERS`]).
//! * **Stop.** When the shutdown watch turns true the listener takes no more connections; each
//!   connection finishes the answer it is writing and closes.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use futures::future::BoxFuture;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderMap, HeaderValue};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

/// At most this many connections at once (served and waiting); more are answered `503` and
/// closed.
pub const MAX_CONNECTIONS: usize = 512;
/// At most this many connections of one client address are served at once.
pub const PER_CLIENT: usize = 8;
/// This many more of one client address wait for one of its [`PER_CLIENT`] (up to
/// [`HEAD_TIMEOUT`]); more are answered `503` at once.
pub const QUEUED: usize = 8;
/// The request line and headers may have this many bytes.
pub const MAX_HEAD: usize = 16 * 1024;
/// The body may have this many bytes (a `MakeAMove` with a long message has a few KB).
pub const MAX_BODY: usize = 64 * 1024;
/// A request's head must arrive whole within this time.
pub const HEAD_TIMEOUT: Duration = Duration::from_secs(10);
/// A request's body must arrive within this time, and an answer the client stopped taking is
/// given up after it.
pub const READ_TIMEOUT: Duration = Duration::from_secs(20);

/// The headers every answer carries: no content sniffing, no script, no frames, no referrer.
/// The pages have no script and no inline style: their one style sheet is `/style.css`.
pub const SECURITY_HEADERS: [(&str, &str); 4] = [
    ("x-content-type-options", "nosniff"),
    (
        "content-security-policy",
        "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; \
         frame-ancestors 'none'",
    ),
    ("referrer-policy", "no-referrer"),
    ("x-frame-options", "DENY"),
];

/// A request as read.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The target as sent: the path and, after `?`, the query.
    pub target: String,
    pub body: Vec<u8>,
    /// The client a reverse proxy names (`X-Real-IP`; `X-Forwarded-For`, its last address;
    /// neither when both are sent and differ: one of them came from the client).
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

/// The address a client is counted by: an IPv4 address as it is (an IPv4-mapped IPv6 address
/// as its IPv4 one), an IPv6 address by its /64 (one host's share of a network).
pub fn client_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
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
    tokio::spawn(accept(listener, Arc::new(services), shutdown));
    Ok(bound)
}

/// hyper's HTTP/1.1 server with the relay's bounds.
fn builder() -> http1::Builder {
    let mut b = http1::Builder::new();
    b.timer(TokioTimer::new())
        .header_read_timeout(HEAD_TIMEOUT)
        // A head over MAX_HEAD is refused (`431`) by its size; the buffer holds a little more,
        // so that such a head is read whole before the answer (a close with unread bytes
        // would reset the answer away).
        .max_buf_size(MAX_HEAD + 4096)
        .max_header_size(MAX_HEAD)
        .keep_alive(true)
        .title_case_headers(true);
    b
}

async fn accept(
    listener: TcpListener,
    services: Arc<Vec<Arc<dyn Service>>>,
    mut shutdown: watch::Receiver<bool>,
) {
    let gate = Arc::new(Gate::default());
    let builder = Arc::new(builder());
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
        let _ = stream.set_nodelay(true);
        match Gate::admit(&gate, peer.ip()) {
            Some(ticket) => {
                let (services, builder) = (services.clone(), builder.clone());
                let shutdown = shutdown.clone();
                tokio::spawn(connection(
                    stream,
                    peer.ip(),
                    ticket,
                    services,
                    builder,
                    shutdown,
                ));
            }
            None => {
                tokio::spawn(turn_away(stream));
            }
        }
    }
}

/// The connections held, in all and by client.
#[derive(Default)]
struct Gate(Mutex<Held>);

#[derive(Default)]
struct Held {
    total: usize,
    clients: HashMap<IpAddr, Client>,
}

/// One client's connections: served and waiting, and the places to be served in.
struct Client {
    held: usize,
    slots: Arc<Semaphore>,
}

/// A connection let in: its place in the gate, given back when dropped.
struct Ticket {
    gate: Arc<Gate>,
    client: IpAddr,
    slots: Arc<Semaphore>,
}

impl Gate {
    /// A connection from `peer`, if the bounds let it in.
    fn admit(gate: &Arc<Gate>, peer: IpAddr) -> Option<Ticket> {
        let client = client_key(peer);
        let mut held = gate.0.lock().unwrap_or_else(|p| p.into_inner());
        if held.total >= MAX_CONNECTIONS {
            return None;
        }
        let c = held.clients.entry(client).or_insert_with(|| Client {
            held: 0,
            slots: Arc::new(Semaphore::new(PER_CLIENT)),
        });
        if c.held >= PER_CLIENT + QUEUED {
            return None;
        }
        c.held += 1;
        let slots = c.slots.clone();
        held.total += 1;
        Some(Ticket {
            gate: gate.clone(),
            client,
            slots,
        })
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut held = self.gate.0.lock().unwrap_or_else(|p| p.into_inner());
        held.total -= 1;
        if let Some(c) = held.clients.get_mut(&self.client) {
            c.held -= 1;
            if c.held == 0 {
                held.clients.remove(&self.client);
            }
        }
    }
}

/// The answer to a connection the bounds do not let in: `503`, written without reading the
/// request, then what the client sent is read off for a moment (so that the close does not
/// reset the answer away) and the connection closed.
async fn turn_away(mut stream: TcpStream) {
    let mut head = String::from(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\n\
         Content-Length: 17\r\nConnection: close\r\nRetry-After: 5\r\nServer: fernzug\r\n",
    );
    for (name, value) in SECURITY_HEADERS {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\nbusy, try again\n");
    let answered = async {
        stream.write_all(head.as_bytes()).await?;
        stream.shutdown().await?;
        let mut sink = [0u8; 4096];
        let mut read = 0;
        while read < MAX_HEAD {
            let n = tokio::io::AsyncReadExt::read(&mut stream, &mut sink).await?;
            if n == 0 {
                break;
            }
            read += n;
        }
        Ok::<(), io::Error>(())
    };
    let _ = tokio::time::timeout(Duration::from_secs(2), answered).await;
}

/// One connection let in: it waits for a place among its client's, then hyper serves it until
/// the client closes it, a bound cuts it, or the relay stops.
async fn connection(
    stream: TcpStream,
    peer: IpAddr,
    ticket: Ticket,
    services: Arc<Vec<Arc<dyn Service>>>,
    builder: Arc<http1::Builder>,
    mut shutdown: watch::Receiver<bool>,
) {
    let place = tokio::time::timeout(HEAD_TIMEOUT, ticket.slots.clone().acquire_owned()).await;
    let Ok(Ok(_place)) = place else {
        turn_away(stream).await;
        return;
    };
    let io = TokioIo::new(Stall::new(stream));
    let service = hyper::service::service_fn(move |request| {
        let services = services.clone();
        async move { Ok::<_, Infallible>(handle(request, peer, &services).await) }
    });
    let conn = builder.serve_connection(io, service);
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => {}
        _ = async { let _ = shutdown.wait_for(|stop| *stop).await; } => {
            conn.as_mut().graceful_shutdown();
            let _ = tokio::time::timeout(READ_TIMEOUT, conn).await;
        }
    }
    drop(ticket);
}

/// One request: read whole within the bounds, answered by the service of its path.
async fn handle(
    request: hyper::Request<Incoming>,
    peer: IpAddr,
    services: &[Arc<dyn Service>],
) -> hyper::Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let headers = &parts.headers;
    let chunked = headers
        .get_all(header::TRANSFER_ENCODING)
        .iter()
        .any(|v| !v.as_bytes().eq_ignore_ascii_case(b"identity"));
    if chunked {
        return closing(Response::text(411, "a Content-Length is required\n"));
    }
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.trim().parse::<u64>().ok())
        .unwrap_or(0);
    if length > MAX_BODY as u64 {
        return closing(Response::text(413, "request too large\n"));
    }
    let body =
        match tokio::time::timeout(READ_TIMEOUT, Limited::new(body, MAX_BODY).collect()).await {
            Ok(Ok(b)) => b.to_bytes().to_vec(),
            Ok(Err(e)) if e.is::<http_body_util::LengthLimitError>() => {
                return closing(Response::text(413, "request too large\n"));
            }
            Ok(Err(_)) => return closing(Response::text(400, "bad request\n")),
            Err(_) => return closing(Response::text(408, "request timeout\n")),
        };
    let request = Request {
        method: parts.method.as_str().to_string(),
        target: parts
            .uri
            .path_and_query()
            .map_or_else(|| parts.uri.path().to_string(), |p| p.as_str().to_string()),
        body,
        forwarded: forwarded(headers),
        peer,
        accept_language: text_of(headers, header::ACCEPT_LANGUAGE),
        if_none_match: text_of(headers, header::IF_NONE_MATCH),
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
    response(answer)
}

fn text_of(headers: &HeaderMap, name: header::HeaderName) -> Option<String> {
    headers
        .get(name)
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_string())
}

/// The client a reverse proxy on the same host names: `X-Real-IP` (a proxy sets it whole), else
/// the last address of `X-Forwarded-For` (a proxy appends the one it saw). A proxy that sets only
/// one of them passes the other on as the client sent it: when both are there and differ, one
/// is the client's own word and neither is believed.
fn forwarded(headers: &HeaderMap) -> Option<IpAddr> {
    let real = headers.get("x-real-ip").map(|v| {
        std::str::from_utf8(v.as_bytes())
            .ok()
            .and_then(|a| a.trim().parse::<IpAddr>().ok())
    });
    let chain = headers
        .get_all("x-forwarded-for")
        .iter()
        .next_back()
        .map(|v| {
            std::str::from_utf8(v.as_bytes())
                .ok()
                .and_then(|a| a.rsplit(',').next())
                .and_then(|a| a.trim().parse::<IpAddr>().ok())
        });
    match (real, chain) {
        (Some(r), Some(c)) if r == c => r,
        (Some(_), Some(_)) => None,
        (Some(r), None) => r,
        (None, Some(c)) => c,
        (None, None) => None,
    }
}

/// `answer`, the connection closed after it (its request was not read whole).
fn closing(answer: Response) -> hyper::Response<Full<Bytes>> {
    let mut r = response(answer);
    r.headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    r
}

/// A service's answer as hyper sends it.
fn response(answer: Response) -> hyper::Response<Full<Bytes>> {
    let mut r = hyper::Response::new(Full::new(Bytes::from(answer.body)));
    *r.status_mut() = hyper::StatusCode::from_u16(answer.status)
        .unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static(answer.content_type),
    );
    h.insert(header::SERVER, HeaderValue::from_static("fernzug"));
    for (name, value) in SECURITY_HEADERS {
        h.insert(name, HeaderValue::from_static(value));
    }
    for (name, value) in answer.headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.append(name, v);
        }
    }
    r
}

/// The connection's stream, which fails a write that the client has not taken for
/// [`READ_TIMEOUT`] (a client that stopped reading its answer).
struct Stall {
    stream: TcpStream,
    waiting: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Stall {
    fn new(stream: TcpStream) -> Stall {
        Stall {
            stream,
            waiting: None,
        }
    }

    /// A write that could not go on: pending until [`READ_TIMEOUT`] after the first that could
    /// not, then failed.
    fn stalled<T>(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<T>> {
        let waiting = self
            .waiting
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(READ_TIMEOUT)));
        match waiting.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::ErrorKind::TimedOut.into())),
            Poll::Pending => Poll::Pending,
        }
    }

    fn went_on<T>(
        &mut self,
        done: Poll<io::Result<T>>,
        cx: &mut Context<'_>,
    ) -> Poll<io::Result<T>> {
        match done {
            Poll::Pending => self.stalled(cx),
            ready => {
                self.waiting = None;
                ready
            }
        }
    }
}

impl AsyncRead for Stall {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stall {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let done = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.went_on(done, cx)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let done = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.went_on(done, cx)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let done = Pin::new(&mut this.stream).poll_flush(cx);
        this.went_on(done, cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let done = Pin::new(&mut this.stream).poll_shutdown(cx);
        this.went_on(done, cx)
    }
}

#[cfg(test)]
mod tests;
