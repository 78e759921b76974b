//! The listener's own rules: whom a proxy names, how clients are counted, and a client's
//! connections over a real socket (keep-alive, the bound per client, the headers of every answer).

use super::*;
use tokio::io::AsyncReadExt;

fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut h = HeaderMap::new();
    for (name, value) in pairs {
        h.append(
            header::HeaderName::from_bytes(name.as_bytes()).unwrap(),
            HeaderValue::from_str(value).unwrap(),
        );
    }
    h
}

fn ip(s: &str) -> IpAddr {
    s.parse().unwrap()
}

#[test]
fn the_client_a_proxy_names_is_believed_only_where_the_client_cannot_choose_it() {
    assert_eq!(forwarded(&headers(&[])), None);
    assert_eq!(
        forwarded(&headers(&[("X-Real-IP", "198.51.100.7")])),
        Some(ip("198.51.100.7"))
    );
    // A proxy appends the address it saw: the last one.
    assert_eq!(
        forwarded(&headers(&[("X-Forwarded-For", "10.9.9.9, 198.51.100.7")])),
        Some(ip("198.51.100.7"))
    );
    // nginx sets both, alike.
    assert_eq!(
        forwarded(&headers(&[
            ("X-Forwarded-For", "10.9.9.9, 198.51.100.7"),
            ("X-Real-IP", "198.51.100.7")
        ])),
        Some(ip("198.51.100.7"))
    );
    // A proxy that sets only X-Real-IP passes on the client's own X-Forwarded-For (finding 16),
    // and one that appends only to X-Forwarded-For the client's own X-Real-IP: when they differ,
    // neither is believed.
    assert_eq!(
        forwarded(&headers(&[
            ("X-Forwarded-For", "203.0.113.1"),
            ("X-Real-IP", "198.51.100.7")
        ])),
        None
    );
    assert_eq!(forwarded(&headers(&[("X-Real-IP", "nonsense")])), None);
}

#[test]
fn clients_are_counted_by_address_and_ipv6_by_its_64() {
    assert_eq!(client_key(ip("192.0.2.1")), ip("192.0.2.1"));
    assert_eq!(client_key(ip("::ffff:192.0.2.1")), ip("192.0.2.1"));
    assert_eq!(client_key(ip("2001:db8:1:2:3:4:5:6")), ip("2001:db8:1:2::"));
    assert_eq!(
        client_key(ip("2001:db8:1:2:ffff::1")),
        client_key(ip("2001:db8:1:2::9"))
    );
    assert_ne!(
        client_key(ip("2001:db8:1:3::1")),
        client_key(ip("2001:db8:1:2::1"))
    );
}

#[test]
fn the_gate_lets_in_what_the_bounds_allow_and_takes_back_what_ends() {
    let gate = Arc::new(Gate::default());
    let one: Vec<Ticket> = (0..PER_CLIENT + QUEUED)
        .map(|_| Gate::admit(&gate, ip("192.0.2.1")).expect("within the bound"))
        .collect();
    assert!(Gate::admit(&gate, ip("192.0.2.1")).is_none(), "one client");
    assert!(Gate::admit(&gate, ip("192.0.2.2")).is_some(), "another");
    drop(one);
    assert!(Gate::admit(&gate, ip("192.0.2.1")).is_some(), "given back");
    assert!(gate.0.lock().unwrap().clients.is_empty());
    let all: Vec<Ticket> = (0..MAX_CONNECTIONS as u32)
        .map(|i| Gate::admit(&gate, IpAddr::V4((0x0a00_0000 + i).into())).unwrap())
        .collect();
    assert!(Gate::admit(&gate, ip("192.0.2.3")).is_none(), "in all");
    drop(all);
    assert_eq!(gate.0.lock().unwrap().total, 0);
}

/// Answers every path with its method and path.
struct Echo;

impl Service for Echo {
    fn serves(&self, _: &str) -> bool {
        true
    }

    fn paths(&self) -> &'static str {
        "/"
    }

    fn answer(&self, request: Request) -> BoxFuture<'_, Response> {
        Box::pin(async move {
            let mut r = Response::text(200, format!("{} {}\n", request.method, request.target));
            r.headers.push(("ETag", "\"1\"".into()));
            r
        })
    }
}

async fn echo() -> (SocketAddr, watch::Sender<bool>) {
    let (stop, shutdown) = watch::channel(false);
    let addr = serve(
        "127.0.0.1:0".parse().unwrap(),
        vec![Arc::new(Echo)],
        shutdown,
    )
    .await
    .unwrap();
    (addr, stop)
}

/// One answer from `s`: its head and body (by `Content-Length`); empty when the connection ends.
async fn answer(s: &mut TcpStream) -> (String, String) {
    let mut out = Vec::new();
    let mut chunk = [0u8; 4096];
    loop {
        if let Some(end) = out.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&out[..end]).into_owned();
            let length: usize = head
                .to_lowercase()
                .lines()
                .find_map(|l| l.strip_prefix("content-length: ").map(str::to_string))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(0);
            if out.len() >= end + 4 + length {
                let body = String::from_utf8_lossy(&out[end + 4..end + 4 + length]).into_owned();
                return (head, body);
            }
        }
        let n = s.read(&mut chunk).await.unwrap_or(0);
        if n == 0 {
            return (String::from_utf8_lossy(&out).into_owned(), String::new());
        }
        out.extend_from_slice(&chunk[..n]);
    }
}

#[tokio::test]
async fn two_requests_on_one_connection_each_answer_with_the_security_headers() {
    let (addr, _stop) = echo().await;
    let mut s = TcpStream::connect(addr).await.unwrap();
    for path in ["/a", "/b?x=1"] {
        s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let (head, body) = answer(&mut s).await;
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
        assert_eq!(body, format!("GET {path}\n"));
        for line in [
            "Server: fernzug",
            "Content-Type: text/plain; charset=utf-8",
            "X-Content-Type-Options: nosniff",
            "Referrer-Policy: no-referrer",
            "X-Frame-Options: DENY",
            "Content-Security-Policy: default-src 'none'; style-src 'self';",
        ] {
            assert!(head.contains(line), "{line} in {head}");
        }
        assert!(!head.to_lowercase().contains("connection: close"), "{head}");
    }
    // A request that asks for the close gets it.
    s.write_all(b"HEAD /c HTTP/1.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let (head, body) = answer(&mut s).await;
    assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
    assert_eq!(body, "", "HEAD: no body");
    let mut rest = Vec::new();
    s.read_to_end(&mut rest).await.unwrap();
    assert!(rest.is_empty());
}

#[tokio::test]
async fn a_client_beyond_its_bound_waits_for_one_of_its_connections() {
    let (addr, _stop) = echo().await;
    let mut held = Vec::new();
    for _ in 0..PER_CLIENT {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(b"GET /held HTTP/1.1\r\n\r\n").await.unwrap();
        assert!(answer(&mut s).await.0.starts_with("HTTP/1.1 200 "));
        held.push(s);
    }
    // The ninth waits: its client holds eight, kept alive.
    let mut ninth = TcpStream::connect(addr).await.unwrap();
    ninth
        .write_all(b"GET /ninth HTTP/1.1\r\n\r\n")
        .await
        .unwrap();
    let mut byte = [0u8; 1];
    let waited = tokio::time::timeout(Duration::from_millis(300), ninth.read(&mut byte)).await;
    assert!(waited.is_err(), "not served while eight are held");
    held.pop();
    let (head, body) = answer(&mut ninth).await;
    assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
    assert_eq!(body, "GET /ninth\n");
}

#[tokio::test]
async fn bodies_over_the_bound_and_without_a_length_are_refused() {
    let (addr, _stop) = echo().await;
    for (request, status) in [
        (
            format!(
                "POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n",
                MAX_BODY + 1
            ),
            "413",
        ),
        (
            "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n".to_string(),
            "411",
        ),
        (
            format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_HEAD + 10)),
            "431",
        ),
    ] {
        let mut s = TcpStream::connect(addr).await.unwrap();
        s.write_all(request.as_bytes()).await.unwrap();
        let (head, _) = answer(&mut s).await;
        assert!(head.starts_with(&format!("HTTP/1.1 {status} ")), "{head}");
    }
    let mut s = TcpStream::connect(addr).await.unwrap();
    s.write_all(b"POST /p HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello")
        .await
        .unwrap();
    let (head, body) = answer(&mut s).await;
    assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
    assert_eq!(body, "POST /p\n");
}
