//! XFCC over the relay's HTTP listener (`crate::http`): the service at `/xfccbasic.asmx` reads a
//! call and hands it, as a [`Job`], to the daemon's loop, which alone holds the store; it never
//! blocks the mail handling, and the loop answers between two mails. Failed logins are counted
//! here ([`Limiter`]: per client and user name, and per client).

use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::future::BoxFuture;
use tokio::sync::{Notify, mpsc, oneshot, watch};

use super::login::Limiter;
use super::soap::{self, Call};
use super::{Code, XfccGame};
pub use crate::http::{MAX_BODY, MAX_CONNECTIONS, MAX_HEAD, PER_CLIENT, QUEUED, READ_TIMEOUT};
use crate::http::{Request, Response, Service};

/// The daemon's loop must answer within this time (it may be reconnecting to IMAP); otherwise
/// the call gets `ServerError` (a `MakeAMove` that is still handled later counts then: the
/// client sees the move on its next `GetMyGames`).
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);
/// Calls waiting for the loop at most; more are answered `ServerError` at once.
pub const QUEUE: usize = 256;
/// The endpoint's path (matched without regard to case: IIS does, and users type
/// `XfccBasic.asmx`).
pub const PATH: &str = "/xfccbasic.asmx";

/// One call for the daemon's loop, with where to put the answer.
#[derive(Debug)]
pub struct Job {
    pub call: Call,
    /// The client's IP address (logged with a move, counted for failed logins).
    pub client: IpAddr,
    pub reply: oneshot::Sender<Answer>,
}

/// The loop's answer to a [`Job`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// `GetMyGames`: the caller's games.
    Games(Vec<XfccGame>),
    /// `MakeAMove`: its result.
    Moved(Code),
    /// The address and password do not match.
    Denied,
    /// The relay could not handle the call (its store failed): `ServerError`.
    Failed,
}

/// XFCC as a service of the HTTP listener: the channel to the loop, the limit on failed
/// logins and the service description.
#[derive(Clone)]
pub struct Door {
    jobs: mpsc::Sender<Job>,
    wake: Arc<Notify>,
    limiter: Arc<Mutex<Limiter>>,
    wsdl: Arc<String>,
}

/// The loop's side: the calls and the signal that one is waiting.
pub struct Calls {
    pub jobs: mpsc::Receiver<Job>,
    /// Notified for every call handed over (a permit is kept when nobody waits).
    pub wake: Arc<Notify>,
}

/// The XFCC service (`wsdl` is the service description served at `?WSDL`) and the loop's side
/// of its channel.
pub fn door(wsdl: String) -> (Door, Calls) {
    let (tx, rx) = mpsc::channel(QUEUE);
    let wake = Arc::new(Notify::new());
    let door = Door {
        jobs: tx,
        wake: wake.clone(),
        limiter: Arc::new(Mutex::new(Limiter::default())),
        wsdl: Arc::new(wsdl),
    };
    (door, Calls { jobs: rx, wake })
}

/// Binds `addr` and serves XfccBasic alone until `shutdown` turns true (`crate::http::serve`
/// with the XFCC service). Returns the address bound (port 0 picks one) and the loop's side of
/// the channel.
pub async fn start(
    addr: SocketAddr,
    wsdl: String,
    shutdown: watch::Receiver<bool>,
) -> std::io::Result<(SocketAddr, Calls)> {
    let (door, calls) = door(wsdl);
    let bound = crate::http::serve(addr, vec![Arc::new(door)], shutdown).await?;
    Ok((bound, calls))
}

impl Service for Door {
    fn serves(&self, path: &str) -> bool {
        path.eq_ignore_ascii_case(PATH)
    }

    fn paths(&self) -> &'static str {
        PATH
    }

    fn answer(&self, request: Request) -> BoxFuture<'_, Response> {
        Box::pin(async move {
            let client = request.client();
            match request.method.as_str() {
                "GET" if request.query().eq_ignore_ascii_case("wsdl") => {
                    Response::with(200, "text/xml; charset=utf-8", self.wsdl.as_str())
                }
                "GET" => Response::text(
                    200,
                    "fernzug: XfccBasic endpoint (SOAP 1.1); the service description is at ?WSDL\n",
                ),
                "POST" => {
                    let (status, body) = call(&request.body, client, self).await;
                    Response::with(status, "text/xml; charset=utf-8", body)
                }
                _ => Response::text(405, "GET ?WSDL or POST a SOAP call\n"),
            }
        })
    }
}

/// Handles one SOAP call: the HTTP status and the envelope to answer with.
async fn call(body: &[u8], client: IpAddr, door: &Door) -> (u16, String) {
    let call = match soap::parse(body) {
        Ok(c) => c,
        Err(e) => return (500, soap::fault(true, &e.to_string())),
    };
    let (username, is_move) = match &call {
        Call::GetMyGames { username, .. } => (username.clone(), false),
        Call::MakeAMove(m) => (m.username.clone(), true),
    };
    let blocked = door
        .limiter
        .lock()
        .map(|mut l| l.blocked(&username, client, Instant::now()))
        .unwrap_or(true);
    let answer = if blocked {
        let shown: String = username.chars().take(100).collect();
        tracing::warn!("XFCC: login of {shown:?} from {client} refused: too many failed logins");
        Answer::Denied
    } else {
        ask(call, client, door).await
    };
    let failed = matches!(
        answer,
        Answer::Denied | Answer::Moved(Code::AuthenticationFailed)
    );
    if failed
        && !blocked
        && let Ok(mut l) = door.limiter.lock()
    {
        l.failed(&username, client, Instant::now());
    }
    match (answer, is_move) {
        (Answer::Games(games), _) => (200, soap::games_response(&games)),
        (Answer::Moved(code), _) => (200, soap::move_response(code)),
        (Answer::Denied, true) => (200, soap::move_response(Code::AuthenticationFailed)),
        (Answer::Failed, true) => (200, soap::move_response(Code::ServerError)),
        // Clients look for the code in the fault's faultstring (docs/xfcc.md); nothing else is
        // told.
        (Answer::Denied, false) => (500, soap::fault(true, Code::AuthenticationFailed.name())),
        (Answer::Failed, false) => (500, soap::fault(false, Code::ServerError.name())),
    }
}

/// Hands the call to the loop and waits for its answer.
async fn ask(call: Call, client: IpAddr, door: &Door) -> Answer {
    let (tx, rx) = oneshot::channel();
    let job = Job {
        call,
        client,
        reply: tx,
    };
    if door.jobs.try_send(job).is_err() {
        tracing::warn!("XFCC: {QUEUE} calls already wait for the relay; answered ServerError");
        return Answer::Failed;
    }
    door.wake.notify_one();
    match tokio::time::timeout(ANSWER_TIMEOUT, rx).await {
        Ok(Ok(a)) => a,
        _ => Answer::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::TcpStream;

    /// The listener with a stand-in for the daemon's loop: the password `right` logs in;
    /// `GetMyGames` has no games, `MakeAMove` succeeds. Counts the calls it was asked.
    async fn serve() -> (SocketAddr, Arc<AtomicUsize>, watch::Sender<bool>) {
        let (stop, shutdown) = watch::channel(false);
        let (addr, mut calls) = start(
            "127.0.0.1:0".parse().unwrap(),
            super::super::wsdl::wsdl("http://x/xfccbasic.asmx"),
            shutdown,
        )
        .await
        .unwrap();
        let asked = Arc::new(AtomicUsize::new(0));
        let counter = asked.clone();
        tokio::spawn(async move {
            while let Some(job) = calls.jobs.recv().await {
                counter.fetch_add(1, Ordering::SeqCst);
                let ok = match &job.call {
                    Call::GetMyGames { password, .. } => password == "right",
                    Call::MakeAMove(m) => m.password == "right",
                };
                let answer = match (&job.call, ok) {
                    (_, false) => Answer::Denied,
                    (Call::GetMyGames { .. }, true) => Answer::Games(Vec::new()),
                    (Call::MakeAMove(_), true) => Answer::Moved(Code::Success),
                };
                let _ = job.reply.send(answer);
            }
        });
        (addr, asked, stop)
    }

    /// Sends `request` as it is and reads its answer: the head, then as many bytes as its
    /// `Content-Length` says (the connection stays open: keep-alive).
    async fn http(addr: SocketAddr, request: &[u8]) -> String {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(request).await.unwrap();
        answer(&mut s).await
    }

    /// One answer read from `s`.
    async fn answer(s: &mut TcpStream) -> String {
        let mut out = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            if let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&out[..end]).to_lowercase();
                let length: usize = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length: "))
                    .and_then(|n| n.trim().parse().ok())
                    .unwrap_or(0);
                if out.len() >= end + 4 + length {
                    out.truncate(end + 4 + length);
                    return String::from_utf8(out).unwrap();
                }
            }
            let n = s.read(&mut chunk).await.unwrap();
            if n == 0 {
                return String::from_utf8(out).unwrap();
            }
            out.extend_from_slice(&chunk[..n]);
        }
    }

    /// A POST of `body` as Scid's Tcl client sends it: the charset quoted, no SOAPAction.
    fn scid_post(body: &str) -> Vec<u8> {
        format!(
            "POST /xfccbasic.asmx HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: Tcl http client package 2.9.5\r\n\
             Accept: */*\r\nAccept-Encoding: gzip,deflate,compress\r\n\
             Content-Type: text/xml; charset=\"utf-8\"\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    }

    /// Scid's envelope, verbatim (docs/xfcc.md), for `op` with `params`.
    fn scid_envelope(op: &str, params: &str) -> String {
        format!(
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\t<soap:Envelope xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:soap=\"http://schemas.xmlsoap.org/soap/envelope/\">\n\t<soap:Body>\n\t<{op} xmlns=\"http://www.bennedik.com/webservices/XfccBasic\">{params}</{op}></soap:Body>\n\t</soap:Envelope>"
        )
    }

    #[tokio::test]
    async fn scids_requests_get_the_answers_scid_reads() {
        let (addr, _, _stop) = serve().await;
        let moved = http(
            addr,
            &scid_post(&scid_envelope(
                "MakeAMove",
                "<username>anna@x.test</username><password>right</password><gameId>100001</gameId><resign>0</resign><acceptDraw>0</acceptDraw><movecount>1</movecount><myMove>e4</myMove><offerDraw>0</offerDraw><claimDraw>0</claimDraw><myMessage></myMessage>",
            )),
        )
        .await;
        assert!(moved.starts_with("HTTP/1.1 200 OK\r\n"), "{moved}");
        assert!(moved.contains("Content-Type: text/xml; charset=utf-8\r\n"));
        // Scid: regsub `.*<MakeAMoveResponse.*\">`, then the unprefixed result.
        assert!(moved.contains("<MakeAMoveResponse xmlns=\"http://www.bennedik.com/webservices/XfccBasic\"><MakeAMoveResult>Success</MakeAMoveResult></MakeAMoveResponse>"), "{moved}");
        let games = http(
            addr,
            &scid_post(&scid_envelope(
                "GetMyGames",
                "<username>anna@x.test</username><password>right</password>",
            )),
        )
        .await;
        assert!(
            games.contains("<GetMyGamesResult></GetMyGamesResult>"),
            "{games}"
        );
        // A wrong password: Scid's SOAPError looks for `<soap:Fault>` and the code.
        let denied = http(
            addr,
            &scid_post(&scid_envelope(
                "GetMyGames",
                "<username>anna@x.test</username><password>wrong</password>",
            )),
        )
        .await;
        assert!(denied.starts_with("HTTP/1.1 500 "), "{denied}");
        assert!(denied.contains("<soap:Fault><faultcode>soap:Client</faultcode><faultstring>AuthenticationFailed</faultstring>"), "{denied}");
        assert!(
            !denied.contains("GetMyGamesResult"),
            "a client must not take it for a login"
        );
        let refused = http(
            addr,
            &scid_post(&scid_envelope(
                "MakeAMove",
                "<username>anna@x.test</username><password>wrong</password><gameId>1</gameId>",
            )),
        )
        .await;
        assert!(
            refused.contains("<MakeAMoveResult>AuthenticationFailed</MakeAMoveResult>"),
            "{refused}"
        );
    }

    #[tokio::test]
    async fn the_wsdl_and_what_is_not_a_call() {
        let (addr, asked, _stop) = serve().await;
        for target in ["/xfccbasic.asmx?WSDL", "/XfccBasic.asmx?wsdl"] {
            let w = http(
                addr,
                format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes(),
            )
            .await;
            assert!(w.starts_with("HTTP/1.1 200 OK"), "{w}");
            assert!(
                w.contains("<wsdl:definitions")
                    && w.contains(
                        "soapAction=\"http://www.bennedik.com/webservices/XfccBasic/MakeAMove\""
                    )
            );
        }
        let nf = http(addr, b"GET /other HTTP/1.1\r\n\r\n").await;
        assert!(nf.starts_with("HTTP/1.1 404 "), "{nf}");
        let put = http(
            addr,
            b"PUT /xfccbasic.asmx HTTP/1.1\r\nContent-Length: 0\r\n\r\n",
        )
        .await;
        assert!(put.starts_with("HTTP/1.1 405 "), "{put}");
        let big = http(
            addr,
            format!(
                "POST /xfccbasic.asmx HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
                MAX_BODY + 1
            )
            .as_bytes(),
        )
        .await;
        assert!(big.starts_with("HTTP/1.1 413 "), "{big}");
        let chunked = http(
            addr,
            b"POST /xfccbasic.asmx HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        )
        .await;
        assert!(chunked.starts_with("HTTP/1.1 411 "), "{chunked}");
        let head = http(
            addr,
            format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD + 10)).as_bytes(),
        )
        .await;
        assert!(head.starts_with("HTTP/1.1 431 "), "{head}");
        let bad = http(addr, &scid_post("<soap:Envelope>")).await;
        assert!(
            bad.starts_with("HTTP/1.1 500 ") && bad.contains("<faultcode>soap:Client</faultcode>"),
            "{bad}"
        );
        let two = http(addr, &scid_post(&scid_envelope("MakeAMove2", ""))).await;
        assert!(two.contains("no operation `MakeAMove2`"), "{two}");
        assert_eq!(
            asked.load(Ordering::SeqCst),
            0,
            "none of them reached the relay"
        );
    }

    #[tokio::test]
    async fn failed_logins_lock_the_name_out_for_that_client_only_without_asking_the_relay() {
        let (addr, asked, _stop) = serve().await;
        let login = |pw: &str, client: &str| {
            let body = scid_envelope(
                "GetMyGames",
                &format!("<username>bert@x.test</username><password>{pw}</password>"),
            );
            format!(
                "POST /xfccbasic.asmx HTTP/1.1\r\nX-Real-IP: {client}\r\n\
                 Content-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        };
        for _ in 0..Limiter::PER_ADDRESS {
            assert!(
                http(addr, &login("guess", "198.51.100.7"))
                    .await
                    .contains("AuthenticationFailed")
            );
        }
        let n = asked.load(Ordering::SeqCst);
        let locked = http(addr, &login("right", "198.51.100.7")).await;
        assert!(locked.contains("AuthenticationFailed"), "{locked}");
        assert_eq!(asked.load(Ordering::SeqCst), n, "the relay was not asked");
        // Bert himself, from his own address, is not locked out by the one who guessed.
        let own = http(addr, &login("right", "203.0.113.9")).await;
        assert!(own.contains("<GetMyGamesResult>"), "{own}");
    }

    #[tokio::test]
    async fn a_call_the_relay_cannot_answer_gets_server_error() {
        let (_stop, shutdown) = watch::channel(false);
        let (addr, mut calls) = start("127.0.0.1:0".parse().unwrap(), String::new(), shutdown)
            .await
            .unwrap();
        // The loop's store failed: it drops the call unanswered.
        tokio::spawn(async move {
            while let Some(job) = calls.jobs.recv().await {
                drop(job);
            }
        });
        let moved = http(
            addr,
            &scid_post(&scid_envelope(
                "MakeAMove",
                "<username>a@x.test</username><password>p</password><gameId>1</gameId>",
            )),
        )
        .await;
        assert!(
            moved.contains("<MakeAMoveResult>ServerError</MakeAMoveResult>"),
            "{moved}"
        );
        let games = http(
            addr,
            &scid_post(&scid_envelope(
                "GetMyGames",
                "<username>a@x.test</username><password>p</password>",
            )),
        )
        .await;
        assert!(
            games.starts_with("HTTP/1.1 500 ")
                && games.contains(
                    "<faultcode>soap:Server</faultcode><faultstring>ServerError</faultstring>"
                ),
            "{games}"
        );
    }

    #[tokio::test]
    async fn behind_a_proxy_each_client_is_counted_apart() {
        let (addr, _, _stop) = serve().await;
        let login = |user: &str, pw: &str, client: &str| {
            let body = scid_envelope(
                "GetMyGames",
                &format!("<username>{user}</username><password>{pw}</password>"),
            );
            format!(
                "POST /xfccbasic.asmx HTTP/1.1\r\nX-Forwarded-For: 10.9.9.9, {client}\r\n\
                 Content-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .into_bytes()
        };
        // One client guesses (a different address each time): it is locked out...
        for i in 0..Limiter::PER_CLIENT {
            let a = http(
                addr,
                &login(&format!("p{i}@x.test"), "guess", "198.51.100.7"),
            )
            .await;
            assert!(a.contains("AuthenticationFailed"));
        }
        let locked = http(addr, &login("anna@x.test", "right", "198.51.100.7")).await;
        assert!(locked.contains("AuthenticationFailed"), "{locked}");
        // ...the other players behind the same proxy are not.
        let other = http(addr, &login("anna@x.test", "right", "203.0.113.9")).await;
        assert!(other.contains("<GetMyGamesResult>"), "{other}");
    }

    #[tokio::test]
    async fn connections_of_one_client_beyond_the_bound_are_turned_away() {
        let (addr, _, _stop) = serve().await;
        let mut idle = Vec::new();
        for _ in 0..PER_CLIENT + QUEUED {
            idle.push(TcpStream::connect(addr).await.unwrap());
        }
        // Give the listener time to take them all.
        let mut turned_away = String::new();
        for _ in 0..50 {
            turned_away = http(addr, b"GET /xfccbasic.asmx?WSDL HTTP/1.1\r\n\r\n").await;
            if turned_away.starts_with("HTTP/1.1 503 ") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(turned_away.starts_with("HTTP/1.1 503 "), "{turned_away}");
        drop(idle);
    }
}
