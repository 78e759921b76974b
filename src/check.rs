//! `fernzug check`: the operator's first run against a real mail host (docs/contract.md "Command line").
//!
//! One line per check, `ok` or `FAIL` with the reason and the key to change: the data directory
//! and the store (opened, never changed), the passwords (read as a login reads them: the
//! environment variable, the file or its systemd credential, the command), IMAP (connect, TLS,
//! login, IDLE, the mailbox), SMTP (connect, TLS, AUTH), then a probe mail to the relay's own plus-address `relay+check-…@` that
//! must arrive in the mailbox — it proves that plus-addresses reach the relay, which the private
//! reply keys need. The probe comes from the relay's own address with its `X-Loop` (a running
//! relay ignores it as its own mail) and is removed from the mailbox once seen.

use std::time::{Duration, Instant};

use crate::config::Config;
use crate::imap::{ImapError, Inbox};
use crate::smtp::Sender;

/// How long the probe may take to arrive.
const PROBE_WAIT: Duration = Duration::from_secs(60);

/// The report: the lines printed, and whether every check passed.
#[derive(Debug, Default)]
pub struct Report {
    pub lines: Vec<String>,
    pub failed: bool,
}

impl Report {
    fn ok(&mut self, what: &str, detail: impl std::fmt::Display) {
        let line = format!("ok    {what}: {detail}");
        println!("{line}");
        self.lines.push(line);
    }

    fn fail(&mut self, what: &str, why: impl std::fmt::Display) {
        let line = format!("FAIL  {what}: {why}");
        println!("{line}");
        self.lines.push(line);
        self.failed = true;
    }
}

/// Runs every check; prints each line as it is known.
pub async fn check(config: &Config, config_path: &std::path::Path) -> Report {
    let mut r = Report::default();
    r.ok("config", config_path.display());
    store(config, &mut r);
    let imap_password = password(&mut r, "IMAP password", Some(&config.imap.password));
    let smtp_password = password(&mut r, "SMTP password", config.smtp.password.as_ref());
    let inbox = match imap_password {
        true => imap(config, &mut r).await,
        false => None,
    };
    let sender = match smtp_password {
        true => smtp(config, &mut r).await,
        false => None,
    };
    if let Some(x) = &config.xfcc {
        xfcc(x, &mut r).await;
    }
    if let Some(h) = config
        .http
        .as_ref()
        .filter(|h| config.xfcc.as_ref().is_none_or(|x| x.listen != h.listen))
    {
        http(h.listen, &mut r).await;
    }
    match (inbox, sender) {
        (Some(inbox), Some(sender)) => probe(config, inbox, &sender, &mut r).await,
        (inbox, _) => {
            r.fail(
                "probe",
                "not sent: IMAP and SMTP must both pass first (see above)",
            );
            if let Some(i) = inbox {
                i.logout().await;
            }
        }
    }
    r
}

/// A password read as a login reads it (`crate::secret`): `ok` with where it came from, or
/// `FAIL` naming the key and the variable or file; then that server is not tried. No password
/// (SMTP without AUTH) passes.
fn password(r: &mut Report, what: &str, secret: Option<&crate::secret::Secret>) -> bool {
    let Some(secret) = secret else {
        return true;
    };
    match secret.reveal() {
        Ok(_) => {
            r.ok(what, secret.source());
            true
        }
        Err(e) => {
            r.fail(what, e);
            false
        }
    }
}

fn store(config: &Config, r: &mut Report) {
    let dir = &config.relay.data_dir;
    let probe = dir.join(format!(".fernzug-check-{}", std::process::id()));
    match crate::store::private::dir_all(dir)
        .and_then(|()| std::fs::write(&probe, b"check"))
        .and_then(|()| std::fs::remove_file(&probe))
    {
        Ok(()) => r.ok("data_dir", format!("{} is writable", dir.display())),
        Err(e) => {
            r.fail(
                "data_dir",
                format!(
                    "{} is not writable: {e}; fix [relay] data_dir or its owner",
                    dir.display()
                ),
            );
            return;
        }
    }
    let path = dir.join("store");
    if !path.exists() {
        r.ok(
            "store",
            "none yet; the first `tournament add` or `run` creates it",
        );
        return;
    }
    use crate::store::Store;
    if Store::kept_by_sled(&path) {
        r.ok(
            "store",
            format!(
                "{} was kept by an earlier fernzug (sled); the next `run` (or any other command) takes it over",
                path.display()
            ),
        );
        return;
    }
    match Store::open(&path) {
        Ok(store) => match store.tournament_count() {
            Ok(n) => r.ok(
                "store",
                format!("{} opens; {n} tournaments", path.display()),
            ),
            Err(e) => r.fail("store", format!("cannot be read: {e}")),
        },
        Err(e) if e.is_locked() => r.ok("store", "in use by a running fernzug (that is fine)"),
        Err(e) => r.fail("store", format!("cannot be opened: {e}")),
    }
}

/// `[xfcc]`: the address `run` will listen on is free, or already served by a running fernzug.
async fn xfcc(x: &crate::config::XfccConfig, r: &mut Report) {
    let told = format!("players are told {}", x.url);
    match tokio::net::TcpListener::bind(x.listen).await {
        Ok(_) => r.ok("xfcc", format!("`run` can listen on {}; {told}", x.listen)),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            if served_by_fernzug(x.listen).await {
                r.ok(
                    "xfcc",
                    format!("{} is served by the running fernzug; {told}", x.listen),
                );
            } else {
                r.fail(
                    "xfcc",
                    format!(
                        "{} is in use by another program; free it or change [xfcc] listen",
                        x.listen
                    ),
                );
            }
        }
        Err(e) => r.fail(
            "xfcc",
            format!("cannot listen on {}: {e}; change [xfcc] listen", x.listen),
        ),
    }
}

/// `[http]`: the address `run` will serve `/healthz` and `/metrics` on is free, or already served
/// by a running fernzug.
async fn http(addr: std::net::SocketAddr, r: &mut Report) {
    match tokio::net::TcpListener::bind(addr).await {
        Ok(_) => r.ok(
            "http",
            format!("`run` can serve /healthz and /metrics on {addr}"),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => {
            if answers(addr, "/healthz", "HTTP/1.1 ").await {
                r.ok("http", format!("{addr} is served by the running fernzug"));
            } else {
                r.fail(
                    "http",
                    format!("{addr} is in use by another program; free it or change [http] listen"),
                );
            }
        }
        Err(e) => r.fail(
            "http",
            format!("cannot listen on {addr}: {e}; change [http] listen"),
        ),
    }
}

/// Whether `addr` answers `GET path` with a text containing `expect` (within 5 s).
async fn answers(addr: std::net::SocketAddr, path: &str, expect: &str) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let asked = async {
        let mut s = tokio::net::TcpStream::connect(addr).await.ok()?;
        s.write_all(
            format!("GET {path} HTTP/1.1\r\nHost: fernzug-check\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .await
        .ok()?;
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.ok()?;
        let text = String::from_utf8_lossy(&out);
        Some(text.contains(expect) && text.contains("Server: fernzug"))
    };
    tokio::time::timeout(std::time::Duration::from_secs(5), asked)
        .await
        .ok()
        .flatten()
        .unwrap_or(false)
}

/// Whether `addr` answers `?WSDL` with XfccBasic's service description.
async fn served_by_fernzug(addr: std::net::SocketAddr) -> bool {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let asked = async {
        let mut s = tokio::net::TcpStream::connect(addr).await.ok()?;
        s.write_all(b"GET /xfccbasic.asmx?WSDL HTTP/1.1\r\nHost: fernzug-check\r\nConnection: close\r\n\r\n")
            .await
            .ok()?;
        let mut out = Vec::new();
        s.read_to_end(&mut out).await.ok()?;
        Some(String::from_utf8_lossy(&out).contains(crate::xfcc::soap::NS))
    };
    tokio::time::timeout(std::time::Duration::from_secs(5), asked)
        .await
        .ok()
        .flatten()
        .unwrap_or(false)
}

async fn imap(config: &Config, r: &mut Report) -> Option<Inbox> {
    let s = crate::imap::ImapSettings::from(&config.imap);
    let server = format!("{}:{} ({})", s.host, s.port, s.security);
    match Inbox::connect(s.clone()).await {
        Ok(inbox) => {
            r.ok("IMAP connect", &server);
            r.ok("IMAP TLS", tls_said(s.security));
            r.ok("IMAP login", format!("as {}", s.user));
            if inbox.has_idle() {
                r.ok(
                    "IMAP IDLE",
                    "offered: new mail is seen as soon as the server announces it",
                );
            } else {
                r.ok(
                    "IMAP IDLE",
                    format!(
                        "not offered: the relay polls every {} s instead",
                        crate::imap::POLL_INTERVAL.as_secs()
                    ),
                );
            }
            r.ok(
                "IMAP mailbox",
                format!("{} (UIDVALIDITY {})", s.mailbox, inbox.uid_validity()),
            );
            Some(inbox)
        }
        Err(e) => {
            let what = match &e {
                ImapError::Connect { .. } | ImapError::Timeout { .. } => "IMAP connect",
                ImapError::Tls { .. } => "IMAP TLS",
                ImapError::Login { .. } | ImapError::Secret(_) => "IMAP login",
                ImapError::Select { .. } => "IMAP mailbox",
                _ => "IMAP",
            };
            let key = match &e {
                ImapError::Connect { .. } | ImapError::Timeout { .. } => {
                    "; check [imap] host, port and security"
                }
                ImapError::Select { .. } => "; check [imap] mailbox",
                _ => "",
            };
            r.fail(what, format!("{e}{key}"));
            None
        }
    }
}

fn tls_said(security: crate::imap::Security) -> &'static str {
    match security {
        crate::imap::Security::Tls => "implicit TLS, certificate trusted",
        crate::imap::Security::Starttls => "STARTTLS, certificate trusted",
        crate::imap::Security::None => "none (loopback only)",
    }
}

async fn smtp(config: &Config, r: &mut Report) -> Option<Sender> {
    let s = crate::smtp::SmtpSettings::from(&config.smtp);
    let sender = match Sender::new(s.clone()) {
        Ok(sender) => sender,
        Err(e) => {
            r.fail("SMTP", e);
            return None;
        }
    };
    match sender.probe().await {
        Ok(()) => {
            r.ok(
                "SMTP connect",
                format!(
                    "{}:{} ({}), {}",
                    s.host,
                    s.port,
                    s.security,
                    tls_said(s.security)
                ),
            );
            match &s.user {
                Some(u) => r.ok("SMTP AUTH", format!("as {u}")),
                None => r.ok("SMTP AUTH", "none configured (no [smtp] user)"),
            }
            Some(sender)
        }
        Err(e) => {
            let hint = if e.needs_operator() {
                String::new()
            } else {
                "; check [smtp] host, port and security".to_string()
            };
            r.fail("SMTP", format!("{e}{hint}"));
            None
        }
    }
}

async fn probe(config: &Config, mut inbox: Inbox, sender: &Sender, r: &mut Report) {
    let relay = &config.relay.address;
    let Some((local, domain)) = relay.rsplit_once('@') else {
        r.fail("probe", format!("[relay] address {relay} has no domain"));
        return;
    };
    let token = format!("{:012x}", rand::random::<u64>() & 0xffff_ffff_ffff);
    let to = format!("{local}+check-{token}@{domain}");
    let raw = format!(
        "From: {name} <{relay}>\r\nTo: <{to}>\r\nSubject: fernzug check {token}\r\n\
         Message-ID: <fernzug.check.{token}@{domain}>\r\nDate: {date}\r\n\
         X-Loop: {relay}\r\nX-Fernzug-Probe: {token}\r\nAuto-Submitted: auto-generated\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         A probe of `fernzug check`; it is removed once seen.\r\n",
        name = config.relay.name,
        date = chrono::Utc::now().to_rfc2822(),
    );
    if let Err(e) = sender.send(relay, &to, raw.as_bytes()).await {
        r.fail("probe", format!("{to} was not accepted: {e}"));
        inbox.logout().await;
        return;
    }
    let started = Instant::now();
    loop {
        match find_probe(&mut inbox, &token).await {
            Ok(Some((uid, header))) => {
                r.ok(
                    "probe",
                    format!(
                        "a mail to {to} arrived in {} after {:.1} s: plus-addresses reach the relay",
                        config.imap.mailbox,
                        started.elapsed().as_secs_f64()
                    ),
                );
                r.ok("probe's authentication", authentication(&header));
                if let Err(e) = inbox.remove(uid).await {
                    r.fail(
                        "probe removed",
                        format!("{e}; delete the mail `fernzug check {token}` by hand"),
                    );
                    return;
                }
                inbox.logout().await;
                return;
            }
            Ok(None) if started.elapsed() < PROBE_WAIT => {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
            Ok(None) => {
                r.fail(
                    "probe",
                    format!(
                        "a mail to {to} did not arrive in {} within {} s: plus-addresses (relay+KEY@) must be delivered to the relay's mailbox (Postfix: recipient_delimiter = +), or [relay] address / [imap] mailbox name another box",
                        config.imap.mailbox,
                        PROBE_WAIT.as_secs()
                    ),
                );
                inbox.logout().await;
                return;
            }
            Err(e) => {
                r.fail("probe", format!("while waiting for it: {e}"));
                return;
            }
        }
    }
}

/// The UID and the header of the probe with `token`, looked for among the newest messages.
async fn find_probe(inbox: &mut Inbox, token: &str) -> Result<Option<(u32, String)>, ImapError> {
    let listed = inbox.list().await?;
    for l in listed.iter().rev().take(50) {
        let h = inbox.fetch_header(l.uid).await?;
        let text = String::from_utf8_lossy(&h.raw);
        if text
            .lines()
            .any(|line| line.starts_with("X-Fernzug-Probe:") && line.contains(token))
        {
            return Ok(Some((l.uid, text.into_owned())));
        }
    }
    Ok(None)
}

/// What the receiving mail server wrote of the probe's SPF, DKIM and DMARC
/// (`Authentication-Results`, RFC 8601), as a player's server will judge the relay's mail:
/// each such header unfolded on one line, or that there is none.
fn authentication(header: &str) -> String {
    let mut found: Vec<String> = Vec::new();
    let mut current: Option<String> = None;
    for line in header.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some(c) = current.as_mut() {
                c.push(' ');
                c.push_str(line.trim());
            }
            continue;
        }
        found.extend(current.take());
        if line
            .get(..23)
            .is_some_and(|n| n.eq_ignore_ascii_case("Authentication-Results:"))
        {
            current = Some(line[23..].trim().to_string());
        }
    }
    found.extend(current);
    if found.is_empty() {
        "the relay's mail server wrote no Authentication-Results header on the probe: it does not \
         check SPF, DKIM or DMARC of its own mail; a player's server will (docs/operating.md, \
         \"SPF, DKIM and DMARC\")"
            .to_string()
    } else {
        format!(
            "as the relay's mail server saw the probe: {}",
            found.join(" | ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::authentication;

    #[test]
    fn the_probes_authentication_results_are_shown_unfolded_or_their_absence_named() {
        let header = "Received: from x\r\nAuthentication-Results: mx.example.org;\r\n\tspf=pass smtp.mailfrom=example.org;\r\n dkim=pass header.d=example.org\r\nauthentication-results: other; dmarc=fail\r\nSubject: fernzug check\r\n";
        assert_eq!(
            authentication(header),
            "as the relay's mail server saw the probe: mx.example.org; spf=pass \
             smtp.mailfrom=example.org; dkim=pass header.d=example.org | other; dmarc=fail"
        );
        assert!(authentication("Subject: x\r\n").starts_with("the relay's mail server wrote no"));
    }
}
