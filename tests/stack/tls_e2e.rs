//! TLS and AUTH end to end (issue 11): moves over IMAPS + SMTPS and over STARTTLS + submission
//! with AUTH through the stack's test CA (`tests/mailstack/start.sh`), and every way the first
//! contact with a real host fails — an unknown CA, an expired certificate, a wrong host name, a
//! server that does not offer STARTTLS, a wrong password — each with its one line naming host,
//! port, the reason and the key to change, and no move lost.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{Relay, fetch_all, kinds, stack_dir, unique_addr, wait_for};

const WAIT: Duration = Duration::from_secs(20);
const NOW: &str = "2026-12-02T10:00:00+01:00";
const LATER: &str = "2026-12-02T11:00:00+01:00";
const LAST: &str = "2026-12-02T12:00:00+01:00";

fn ca() -> String {
    stack_dir()
        .join("tls/ca.pem")
        .to_string_lossy()
        .into_owned()
}

fn imaps() -> String {
    format!(
        "host = \"127.0.0.1\"\nport = 1993\nsecurity = \"tls\"\nuser = {{address}}\npassword = \"test\"\nca_file = \"{}\"\n",
        ca()
    )
}

fn smtps() -> String {
    format!(
        "host = \"127.0.0.1\"\nport = 2465\nsecurity = \"tls\"\nuser = {{address}}\npassword = \"test\"\nca_file = \"{}\"\n",
        ca()
    )
}

/// A server section without its `ca_file` line: only the system's store is trusted.
fn without_ca(section: String) -> String {
    section
        .lines()
        .filter(|l| !l.starts_with("ca_file"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A relay with a fax duel of Anna and Bert registered; returns (relay, game, anna, bert).
fn duel(name: &str, imap: &str, smtp: &str) -> (Relay, String, String, String) {
    let relay = Relay::new(name);
    relay.set_servers(imap, smtp);
    let anna = unique_addr("anna");
    let bert = unique_addr("bert");
    let t = relay.tournament(
        &[
            ("Anna Adler", &anna, Some("de")),
            ("Bert Berger", &bert, Some("en")),
        ],
        "fax",
        "2026-12-01",
    );
    relay.add(&t);
    (relay, t.game(1), anna, bert)
}

/// `fernzug once`, expecting exit 1 and one line on stderr; returns that line.
fn once_fails(relay: &Relay, now: &str) -> String {
    let out = relay.run(&["once", "--now", now]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(1), "stderr:\n{stderr}");
    let last = stderr
        .lines()
        .rfind(|l| l.starts_with("fernzug: "))
        .unwrap_or_else(|| panic!("no `fernzug:` line in\n{stderr}"))
        .to_string();
    eprintln!("the operator sees: {last}");
    last
}

fn move_travels(name: &str, imap: &str, smtp: &str) {
    let (relay, game, anna, bert) = duel(name, imap, smtp);
    relay.once(NOW);
    assert_eq!(kinds(&wait_for(&anna, 1, WAIT)), ["start"]);
    assert_eq!(kinds(&wait_for(&bert, 1, WAIT)), ["start"]);
    relay.send(&anna, &format!("Re: [{game}] Zug"), "1. e4\n");
    relay.once(LATER);
    let bert_mails = wait_for(&bert, 2, WAIT);
    assert_eq!(kinds(&bert_mails), ["start", "move"]);
}

#[test]
fn a_move_travels_over_imaps_and_smtps_with_auth() {
    move_travels("tls-implicit", &imaps(), &smtps());
}

#[test]
fn a_move_travels_over_starttls_and_submission_with_auth_and_a_password_command() {
    let imap = format!(
        "host = \"127.0.0.1\"\nport = 1143\nsecurity = \"starttls\"\nuser = {{address}}\npassword_command = \"printf 'test\\\\n'\"\nca_file = \"{}\"\n",
        ca()
    );
    let smtp = format!(
        "host = \"127.0.0.1\"\nport = 2587\nsecurity = \"starttls\"\nuser = {{address}}\npassword_command = \"echo test\"\nca_file = \"{}\"\n",
        ca()
    );
    move_travels("tls-starttls", &imap, &smtp);
}

#[test]
fn an_unknown_ca_stops_with_one_line_and_the_waiting_move_goes_out_once_trusted() {
    let (relay, game, anna, bert) = duel("tls-unknown-ca", &imaps(), &smtps());
    relay.once(NOW);
    wait_for(&bert, 1, WAIT);
    relay.send(&anna, &format!("Re: [{game}] Zug"), "1. e4\n");

    // IMAP without the CA: nothing is read, one line.
    relay.set_servers(&without_ca(imaps()), &smtps());
    let line = once_fails(&relay, LATER);
    assert!(line.contains("IMAP 127.0.0.1:1993"), "{line}");
    assert!(line.contains("unknown issuer"), "{line}");
    assert!(line.contains("[imap] ca_file"), "{line}");

    // SMTP without the CA: the move is read and decided, its forward waits in the outbox.
    relay.set_servers(&imaps(), &without_ca(smtps()));
    let line = once_fails(&relay, LATER);
    assert!(line.contains("SMTP 127.0.0.1:2465"), "{line}");
    assert!(line.contains("unknown issuer"), "{line}");
    assert!(line.contains("[smtp] ca_file"), "{line}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(fetch_all(&bert).len(), 1, "nothing went out untrusted");

    // Trusted again: the waiting forward goes out, once.
    relay.set_servers(&imaps(), &smtps());
    relay.once(LAST);
    assert_eq!(kinds(&wait_for(&bert, 2, WAIT)), ["start", "move"]);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(fetch_all(&bert).len(), 2);
}

#[test]
fn a_wrong_host_name_is_named() {
    let relay = Relay::new("tls-wrong-host");
    let imap = imaps().replace("127.0.0.1", "localhost");
    relay.set_servers(&imap, &smtps());
    let line = once_fails(&relay, NOW);
    assert!(line.contains("IMAP localhost:1993"), "{line}");
    assert!(line.contains("another host name"), "{line}");
    assert!(line.contains("[imap] host"), "{line}");

    let (relay, _, _, _) = duel(
        "tls-wrong-host-smtp",
        &imaps(),
        &smtps().replace("127.0.0.1", "localhost"),
    );
    let line = once_fails(&relay, NOW);
    assert!(line.contains("SMTP localhost:2465"), "{line}");
    assert!(line.contains("another host name"), "{line}");
}

#[test]
fn a_wrong_password_is_named_and_never_shown() {
    let relay = Relay::new("tls-wrong-password");
    relay.set_servers(&imaps().replace("\"test\"", "\"falsch-pw\""), &smtps());
    let line = once_fails(&relay, NOW);
    assert!(line.contains("IMAP 127.0.0.1:1993"), "{line}");
    assert!(line.contains("refused the login"), "{line}");
    assert!(!line.contains("falsch-pw"), "{line}");

    let (relay, _, _, bert) = duel(
        "tls-wrong-password-smtp",
        &imaps(),
        &smtps().replace("\"test\"", "\"falsch-pw\""),
    );
    let line = once_fails(&relay, NOW);
    assert!(line.contains("SMTP 127.0.0.1:2465"), "{line}");
    assert!(line.contains("refused the login"), "{line}");
    assert!(line.contains("[smtp] user and the password"), "{line}");
    assert!(!line.contains("falsch-pw"), "{line}");
    // The start mails wait, not given up, not reported as a refusing address.
    relay.set_servers(&imaps(), &smtps());
    relay.once(LATER);
    assert_eq!(kinds(&wait_for(&bert, 1, WAIT)), ["start"]);
}

/// A TLS server with the stack's expired certificate (same CA, same names): only the handshake.
fn expired_server() -> u16 {
    use tokio_rustls::rustls::{
        self,
        pki_types::{CertificateDer, PrivateKeyDer, pem::PemObject},
    };
    let dir = stack_dir().join("tls");
    let certs: Vec<CertificateDer<'static>> =
        CertificateDer::pem_file_iter(dir.join("expired.pem"))
            .expect("expired.pem")
            .collect::<Result<_, _>>()
            .expect("cert");
    let key = PrivateKeyDer::from_pem_file(dir.join("expired.key")).expect("expired.key");
    let config = rustls::ServerConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .expect("versions")
    .with_no_client_auth()
    .with_single_cert(certs, key)
    .expect("server config");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let config = Arc::new(config);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut conn = rustls::ServerConnection::new(config.clone()).expect("conn");
            let mut stream = stream;
            let _ = conn.complete_io(&mut stream);
        }
    });
    port
}

#[test]
fn an_expired_certificate_is_named() {
    let port = expired_server();
    let relay = Relay::new("tls-expired");
    relay.set_servers(
        &imaps().replace("port = 1993", &format!("port = {port}")),
        &smtps(),
    );
    let line = once_fails(&relay, NOW);
    assert!(line.contains(&format!("IMAP 127.0.0.1:{port}")), "{line}");
    assert!(line.contains("expired"), "{line}");
}

/// A plain server that greets like IMAP or SMTP but offers no STARTTLS; records what it heard.
fn no_starttls_server(smtp: bool) -> (u16, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let heard = Arc::new(Mutex::new(Vec::new()));
    let log = heard.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut w = stream.try_clone().expect("clone");
            let r = BufReader::new(stream);
            let greeting = if smtp {
                "220 fake ESMTP\r\n"
            } else {
                "* OK [CAPABILITY IMAP4rev1 AUTH=PLAIN] fake ready\r\n"
            };
            let _ = w.write_all(greeting.as_bytes());
            for line in r.lines() {
                let Ok(line) = line else { break };
                log.lock().unwrap().push(line.clone());
                let reply = if smtp {
                    if line.starts_with("EHLO") {
                        "250-fake\r\n250 AUTH PLAIN LOGIN\r\n".to_string()
                    } else if line.starts_with("QUIT") {
                        "221 bye\r\n".to_string()
                    } else {
                        "502 no\r\n".to_string()
                    }
                } else {
                    let tag = line.split(' ').next().unwrap_or("*");
                    if line.to_ascii_uppercase().contains("CAPABILITY") {
                        format!("* CAPABILITY IMAP4rev1 AUTH=PLAIN\r\n{tag} OK done\r\n")
                    } else {
                        format!("{tag} BAD unknown command\r\n")
                    }
                };
                if w.write_all(reply.as_bytes()).is_err() {
                    break;
                }
            }
        }
    });
    (port, heard)
}

#[test]
fn a_server_without_starttls_gets_no_plain_text_login() {
    let (port, heard) = no_starttls_server(false);
    let relay = Relay::new("tls-no-starttls");
    let imap = format!(
        "host = \"127.0.0.1\"\nport = {port}\nsecurity = \"starttls\"\nuser = {{address}}\npassword = \"test\"\n"
    );
    relay.set_servers(&imap, &smtps());
    let line = once_fails(&relay, NOW);
    assert!(line.contains(&format!("IMAP 127.0.0.1:{port}")), "{line}");
    assert!(line.contains("does not offer STARTTLS"), "{line}");
    let heard = heard.lock().unwrap().clone();
    assert!(
        !heard
            .iter()
            .any(|l| l.to_ascii_uppercase().contains("LOGIN") || l.contains("AUTHENTICATE")),
        "{heard:?}"
    );

    let (port, heard) = no_starttls_server(true);
    let smtp = format!(
        "host = \"127.0.0.1\"\nport = {port}\nsecurity = \"starttls\"\nuser = {{address}}\npassword = \"test\"\n"
    );
    let (relay, _, _, _) = duel("tls-no-starttls-smtp", &imaps(), &smtp);
    let line = once_fails(&relay, NOW);
    assert!(line.contains(&format!("SMTP 127.0.0.1:{port}")), "{line}");
    assert!(line.contains("does not offer STARTTLS"), "{line}");
    let heard = heard.lock().unwrap().clone();
    assert!(
        !heard
            .iter()
            .any(|l| l.starts_with("AUTH") || l.starts_with("MAIL")),
        "{heard:?}"
    );
}

/// `fernzug check` against the TLS stack: every line `ok`, the probe arrives through a
/// plus-address and is gone afterwards; without the CA, IMAP TLS and SMTP each FAIL with the key.
#[test]
fn fernzug_check_passes_and_names_each_failure() {
    let relay = Relay::new("tls-check");
    relay.set_servers(&imaps(), &smtps());
    let out = relay.run(&["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!("{stdout}");
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for what in [
        "config",
        "data_dir",
        "store",
        "IMAP connect",
        "IMAP TLS",
        "IMAP login",
        "IMAP IDLE",
        "IMAP mailbox",
        "SMTP connect",
        "SMTP AUTH",
        "probe",
    ] {
        assert!(
            stdout
                .lines()
                .any(|l| l.starts_with(&format!("ok    {what}:"))),
            "no ok line for {what}:\n{stdout}"
        );
    }
    assert!(stdout.contains("IMAP IDLE: offered"), "{stdout}");
    assert_eq!(fetch_all(&relay.address).len(), 0, "the probe is removed");
    assert!(
        !relay.dir.join("data/store").exists(),
        "check creates no store"
    );

    relay.set_servers(&without_ca(imaps()), &without_ca(smtps()));
    let out = relay.run(&["check"]);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    eprintln!("{stdout}");
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    let fail = |what: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with(&format!("FAIL  {what}")))
            .unwrap_or_else(|| panic!("no FAIL line for {what}:\n{stdout}"))
            .to_string()
    };
    assert!(fail("IMAP TLS").contains("[imap] ca_file"), "{stdout}");
    assert!(fail("SMTP").contains("[smtp] ca_file"), "{stdout}");
    assert!(fail("probe").contains("not sent"), "{stdout}");
}

/// What an XOAUTH2 gateway saw: the decoded SASL responses.
type Heard = Arc<Mutex<Vec<String>>>;

fn b64_decode(s: &str) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in s.trim().bytes().filter(|&c| c != b'=') {
        let Some(v) = ALPHABET.iter().position(|&a| a == c) else {
            continue;
        };
        bits = (bits << 6) | v as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A local server that checks the SASL XOAUTH2 exchange (`user=U^Aauth=Bearer TOKEN^A^A`, the
/// token `expected`) and, once it holds, logs in to the real stack with the password and passes
/// the rest of the connection through: IMAP to Dovecot (1143), SMTP to Postfix (2525).
fn xoauth2_gateway(smtp: bool, expected: &'static str) -> (u16, Heard) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    let heard: Heard = Arc::new(Mutex::new(Vec::new()));
    let log = heard.clone();
    std::thread::spawn(move || {
        for client in listener.incoming().flatten() {
            let log = log.clone();
            std::thread::spawn(move || {
                let _ = gateway_session(client, smtp, expected, &log);
            });
        }
    });
    (port, heard)
}

fn gateway_session(
    client: std::net::TcpStream,
    smtp: bool,
    expected: &str,
    log: &Heard,
) -> std::io::Result<()> {
    let mut w = client.try_clone()?;
    let mut r = BufReader::new(client);
    let mut line = String::new();
    let ok_sasl = |resp: &str, log: &Heard| {
        let decoded = b64_decode(resp);
        log.lock().unwrap().push(decoded.clone());
        let user = decoded
            .strip_prefix("user=")
            .and_then(|rest| rest.split('\x01').next())
            .unwrap_or_default()
            .to_string();
        (
            decoded.ends_with(&format!("\x01auth=Bearer {expected}\x01\x01")),
            user,
        )
    };
    let user;
    if smtp {
        w.write_all(b"220 oauth-gateway ESMTP\r\n")?;
        loop {
            line.clear();
            if r.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let l = line.trim_end();
            if l.starts_with("EHLO") || l.starts_with("HELO") {
                w.write_all(b"250-oauth-gateway\r\n250 AUTH XOAUTH2\r\n")?;
            } else if let Some(resp) = l.strip_prefix("AUTH XOAUTH2 ") {
                let (good, u) = ok_sasl(resp, log);
                if !good {
                    w.write_all(b"535 5.7.8 bad token\r\n")?;
                    return Ok(());
                }
                w.write_all(b"235 2.7.0 accepted\r\n")?;
                user = u;
                break;
            } else if l == "QUIT" {
                w.write_all(b"221 bye\r\n")?;
                return Ok(());
            } else {
                w.write_all(b"530 5.7.0 authenticate first\r\n")?;
            }
        }
    } else {
        w.write_all(b"* OK [CAPABILITY IMAP4rev1 AUTH=XOAUTH2] oauth gateway\r\n")?;
        loop {
            line.clear();
            if r.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let l = line.trim_end().to_string();
            let tag = l.split(' ').next().unwrap_or("*").to_string();
            let up = l.to_ascii_uppercase();
            if up.contains("AUTHENTICATE XOAUTH2") {
                w.write_all(b"+ \r\n")?;
                line.clear();
                r.read_line(&mut line)?;
                let (good, u) = ok_sasl(line.trim_end(), log);
                if !good {
                    w.write_all(
                        format!("{tag} NO [AUTHENTICATIONFAILED] bad token\r\n").as_bytes(),
                    )?;
                    return Ok(());
                }
                w.write_all(format!("{tag} OK authenticated\r\n").as_bytes())?;
                user = u;
                break;
            } else if up.contains("CAPABILITY") {
                w.write_all(
                    format!("* CAPABILITY IMAP4rev1 AUTH=XOAUTH2\r\n{tag} OK\r\n").as_bytes(),
                )?;
            } else if up.contains("LOGOUT") {
                w.write_all(format!("* BYE\r\n{tag} OK\r\n").as_bytes())?;
                return Ok(());
            } else {
                w.write_all(format!("{tag} NO authenticate first\r\n").as_bytes())?;
            }
        }
    }
    // The token held: log in to the real server with the stack's password, then pass through.
    let backend = std::net::TcpStream::connect(("127.0.0.1", if smtp { 2525 } else { 1143 }))?;
    let mut bw = backend.try_clone()?;
    let mut br = BufReader::new(backend);
    let mut l = String::new();
    br.read_line(&mut l)?;
    if smtp {
        bw.write_all(b"EHLO oauth-gateway\r\n")?;
        loop {
            l.clear();
            br.read_line(&mut l)?;
            if l.len() < 4 || &l[3..4] == " " {
                break;
            }
        }
    } else {
        bw.write_all(format!("g1 LOGIN \"{user}\" \"test\"\r\n").as_bytes())?;
        loop {
            l.clear();
            br.read_line(&mut l)?;
            if l.starts_with("g1 ") || l.is_empty() {
                break;
            }
        }
    }
    // Whatever either side had buffered goes first.
    let pending_client = r.buffer().to_vec();
    let pending_backend = br.buffer().to_vec();
    bw.write_all(&pending_client)?;
    w.write_all(&pending_backend)?;
    let mut c2b_r = r.into_inner();
    let mut b2c_r = br.into_inner();
    let mut c2b_w = bw;
    let mut b2c_w = w;
    let t = std::thread::spawn(move || {
        let _ = std::io::copy(&mut c2b_r, &mut c2b_w);
        let _ = c2b_w.shutdown(std::net::Shutdown::Write);
    });
    let _ = std::io::copy(&mut b2c_r, &mut b2c_w);
    let _ = b2c_w.shutdown(std::net::Shutdown::Write);
    let _ = t.join();
    Ok(())
}

/// OAuth2 as Gmail and Microsoft 365 ask it: `auth = "xoauth2"`, the access token from
/// `password_command`, checked by local gateways in front of the stack; a move travels.
#[test]
fn a_move_travels_with_xoauth2_tokens_from_a_password_command() {
    let (imap_port, imap_heard) = xoauth2_gateway(false, "ya29.imap-token");
    let (smtp_port, smtp_heard) = xoauth2_gateway(true, "ya29.smtp-token");
    let imap = format!(
        "host = \"127.0.0.1\"\nport = {imap_port}\nsecurity = \"none\"\nuser = {{address}}\nauth = \"xoauth2\"\npassword_command = \"echo ya29.imap-token\"\n"
    );
    let smtp = format!(
        "host = \"127.0.0.1\"\nport = {smtp_port}\nsecurity = \"none\"\nuser = {{address}}\nauth = \"xoauth2\"\npassword_command = \"echo ya29.smtp-token\"\n"
    );
    move_travels("xoauth2", &imap, &smtp);
    for heard in [imap_heard, smtp_heard] {
        let heard = heard.lock().unwrap().clone();
        assert!(!heard.is_empty(), "no XOAUTH2 exchange");
        assert!(
            heard.iter().all(|h| h.starts_with("user=relay-")),
            "{heard:?}"
        );
    }

    // A refused token: one line, the relay stops.
    let relay = Relay::new("xoauth2-refused");
    relay.set_servers(&imap.replace("ya29.imap-token\"", "ya29.stale\""), &smtp);
    let line = once_fails(&relay, NOW);
    assert!(
        line.contains(&format!("IMAP 127.0.0.1:{imap_port}")),
        "{line}"
    );
    assert!(line.contains("refused the login"), "{line}");
}

/// `auth = "plain"`: IMAP AUTHENTICATE PLAIN (never LOGIN) and SMTP AUTH PLAIN; a move travels
/// over IMAPS + SMTPS with it, and a recording server sees the AUTHENTICATE, no LOGIN.
#[test]
fn auth_plain_uses_authenticate_plain_and_a_move_travels() {
    let plain = |s: String| format!("{s}auth = \"plain\"\n");
    move_travels("auth-plain", &plain(imaps()), &plain(smtps()));

    let (port, heard) = no_starttls_server(false);
    let relay = Relay::new("auth-plain-heard");
    let imap = format!(
        "host = \"127.0.0.1\"\nport = {port}\nsecurity = \"none\"\nuser = {{address}}\npassword = \"test\"\nauth = \"plain\"\n"
    );
    relay.set_servers(&imap, &smtps());
    let line = once_fails(&relay, NOW);
    assert!(line.contains("refused the login"), "{line}");
    let heard = heard.lock().unwrap().clone();
    assert!(
        heard
            .iter()
            .any(|l| l.to_ascii_uppercase().contains("AUTHENTICATE PLAIN")),
        "{heard:?}"
    );
    assert!(
        !heard
            .iter()
            .any(|l| l.to_ascii_uppercase().contains(" LOGIN ")),
        "{heard:?}"
    );
}
