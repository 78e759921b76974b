//! The IO shell against the real loopback mail stack (`tests/mailstack/start.sh`, started by
//! `crate::common::stack()`): `fernzug::smtp::Sender` delivers through Postfix on 127.0.0.1:2525,
//! `fernzug::imap::Inbox` reads from Dovecot on 127.0.0.1:1143. Every test uses its own fresh
//! mailbox, so the tests run in parallel.

use std::time::{Duration, Instant};

use chrono::Utc;
use fernzug::core::unreachable::verdict::{Cause, SmtpStage, Verdict, judge};
use fernzug::imap::{ImapError, ImapSettings, Inbox, Security, Woke};
use fernzug::secret::Secret;
use fernzug::smtp::{SendError, Sender, SmtpSettings};
use tokio::sync::watch;

fn imap_settings(user: &str) -> ImapSettings {
    let st = crate::common::stack();
    ImapSettings {
        host: st.host.to_string(),
        port: st.imap_port,
        security: Security::None,
        user: user.to_string(),
        password: Secret::Fixed(st.password.to_string()),
        auth: fernzug::secret::Auth::Password,
        ca_file: None,
        mailbox: "INBOX".to_string(),
        timeout: Duration::from_secs(20),
    }
}

fn smtp_settings(port: u16) -> SmtpSettings {
    SmtpSettings {
        host: crate::common::HOST.to_string(),
        port,
        security: Security::None,
        user: None,
        password: None,
        auth: fernzug::secret::Auth::Password,
        ca_file: None,
        timeout: Duration::from_secs(20),
    }
}

/// A raw mail with CRLF line ends whose body has a line starting with `.` (dot-stuffing),
/// 8-bit UTF-8 text and trailing spaces, all of which must come back unchanged.
fn tricky_mail(from: &str, to: &str, message_id: &str) -> Vec<u8> {
    format!(
        "From: Relay <{from}>\r\nTo: {to}\r\nSubject: io roundtrip\r\nDate: {}\r\n\
         Message-ID: {message_id}\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n\
         1. e4 e5 2. Sf3 Sc6\r\n.\r\n.. two dots\r\nÄnderung: Läufer auf c4 \r\n\r\n-- \r\nfernzug\r\n",
        Utc::now().to_rfc2822()
    )
    .into_bytes()
}

/// Names of the header fields in `head` (a header block, folded lines skipped).
fn field_names(head: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(head)
        .split("\r\n")
        .filter(|l| !l.is_empty() && !l.starts_with([' ', '\t']))
        .filter_map(|l| {
            l.split_once(':')
                .map(|(n, _)| n.trim().to_ascii_lowercase())
        })
        .collect()
}

/// Delivers `raw` to `to` through the stack (common's own SMTP client) and waits until it is there.
fn deliver(raw: &[u8], from: &str, to: &str) {
    crate::common::send_mail(raw, from, &[to]).unwrap_or_else(|e| panic!("delivery to {to}: {e}"));
}

/// Connects and lists until `n` messages are there (the stack delivers asynchronously).
async fn inbox_with(user: &str, n: usize) -> (Inbox, Vec<fernzug::imap::Listed>) {
    let started = Instant::now();
    let mut inbox = Inbox::connect(imap_settings(user)).await.expect("connect");
    loop {
        let listed = inbox.list().await.expect("list");
        if listed.len() >= n {
            return (inbox, listed);
        }
        assert!(
            started.elapsed() < Duration::from_secs(15),
            "{user}: only {} of {n} messages after 15 s",
            listed.len()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn imap_list_fetch_peek_and_mark_done() {
    let from = crate::common::unique_addr("io-from");
    let user = crate::common::unique_addr("io-imap");
    let message_id = format!(
        "<{}@{}>",
        crate::common::unique("io-mid"),
        crate::common::DOMAIN
    );
    let sent = tricky_mail(&from, &user, &message_id);
    let before = Utc::now() - chrono::Duration::seconds(5);
    deliver(&sent, &from, &user);

    let (mut inbox, listed) = inbox_with(&user, 1).await;
    assert_ne!(inbox.uid_validity(), 0);
    assert!(inbox.has_idle(), "Dovecot offers IDLE");
    assert_eq!(listed.len(), 1);
    let uid = listed[0].uid;

    let got = inbox.fetch(uid).await.expect("fetch");
    assert_eq!(got.uid, uid);
    assert_eq!(
        listed[0].size as usize,
        got.raw.len(),
        "RFC822.SIZE is the raw length"
    );
    assert!(
        got.raw.ends_with(&sent),
        "the fetched mail ends with the sent bytes unchanged:\n{}",
        String::from_utf8_lossy(&got.raw)
    );
    assert!(
        got.internal_date >= before
            && got.internal_date <= Utc::now() + chrono::Duration::seconds(5)
    );
    assert!(
        !inbox.is_seen(uid).await.unwrap(),
        "BODY.PEEK[] must not set \\Seen"
    );

    let head = inbox.fetch_header(uid).await.expect("fetch_header");
    assert_eq!(head.internal_date, got.internal_date);
    assert!(
        head.raw.ends_with(b"\r\n\r\n"),
        "a header block ends with an empty line"
    );
    assert!(
        got.raw.starts_with(&head.raw),
        "the header is the start of the mail"
    );
    assert!(
        !head.raw.windows(5).any(|w| w == b"1. e4"),
        "no body in the header"
    );
    assert!(
        !inbox.is_seen(uid).await.unwrap(),
        "BODY.PEEK[HEADER] must not set \\Seen"
    );

    inbox.mark_done(uid).await.expect("mark_done");
    assert!(inbox.is_seen(uid).await.unwrap());
    inbox.logout().await;

    // The flag is stored on the server, and a new session sees the same UIDVALIDITY.
    let (mut again, listed) = inbox_with(&user, 1).await;
    assert_eq!(listed[0].uid, uid);
    assert!(again.is_seen(uid).await.unwrap());
    let missing = again.fetch(uid + 1000).await.unwrap_err();
    assert!(matches!(missing, ImapError::Missing { .. }), "{missing:?}");
    again.logout().await;
}

/// A listing from a UID gives the messages from there on, and nothing past the last one (where
/// `N:*` names the last message); many messages are listed whole.
#[tokio::test]
async fn imap_list_from_a_uid_gives_what_came_since() {
    let from = crate::common::unique_addr("io-from");
    let user = crate::common::unique_addr("io-list-from");
    for i in 0..40 {
        let id = format!(
            "<{}-{i}@{}>",
            crate::common::unique("io-mid"),
            crate::common::DOMAIN
        );
        deliver(&tricky_mail(&from, &user, &id), &from, &user);
    }
    let (mut inbox, listed) = inbox_with(&user, 40).await;
    let uids: Vec<u32> = listed.iter().map(|l| l.uid).collect();
    assert_eq!(uids.len(), 40, "{uids:?}");
    assert!(uids.windows(2).all(|w| w[0] < w[1]), "ascending: {uids:?}");
    let since = inbox.list_from(uids[25]).await.expect("list_from");
    assert_eq!(since, listed[25..].to_vec(), "from the 26th message on");
    let past = inbox
        .list_from(uids[39] + 1)
        .await
        .expect("list_from past the last");
    assert!(past.is_empty(), "nothing past the last message: {past:?}");
    assert_eq!(inbox.list_from(1).await.expect("list_from 1"), listed);
    inbox.logout().await;
}

#[tokio::test]
async fn imap_wait_wakes_on_new_mail_during_idle() {
    let from = crate::common::unique_addr("io-from");
    let user = crate::common::unique_addr("io-idle");
    let (inbox, listed) = inbox_with(&user, 0).await;
    assert!(listed.is_empty());
    let (_stop_tx, mut stop_rx) = watch::channel(false);

    let to = user.clone();
    let sender = tokio::task::spawn_blocking(move || {
        std::thread::sleep(Duration::from_millis(300));
        let raw =
            crate::common::text_mail(&from, &to, "wake up", "1. d4", "<wake@fernschach.test>");
        deliver(raw.as_bytes(), &from, &to);
        Instant::now()
    });
    let (mut inbox, woke) = inbox
        .wait(Duration::from_secs(30), &mut stop_rx)
        .await
        .expect("wait");
    let woke_at = Instant::now();
    let sent_at = sender.await.unwrap();
    assert_eq!(woke, Woke::NewMail);
    assert!(
        woke_at.saturating_duration_since(sent_at) < Duration::from_secs(2),
        "woke {:?} after the mail was handed to SMTP",
        woke_at.saturating_duration_since(sent_at)
    );
    let listed = inbox.list().await.expect("list after IDLE");
    assert_eq!(listed.len(), 1, "the inbox is usable after DONE");
    inbox.logout().await;
}

#[tokio::test]
async fn imap_wait_times_out_when_nothing_comes() {
    let user = crate::common::unique_addr("io-quiet");
    let (inbox, _) = inbox_with(&user, 0).await;
    let (_stop_tx, mut stop_rx) = watch::channel(false);
    let started = Instant::now();
    let (mut inbox, woke) = inbox
        .wait(Duration::from_secs(1), &mut stop_rx)
        .await
        .expect("wait");
    let took = started.elapsed();
    assert_eq!(woke, Woke::Timeout);
    assert!(
        took >= Duration::from_secs(1) && took < Duration::from_secs(3),
        "took {took:?}"
    );
    assert!(inbox.list().await.expect("list after IDLE").is_empty());
    inbox.logout().await;
}

#[tokio::test]
async fn imap_wait_ends_idle_cleanly_on_shutdown() {
    let user = crate::common::unique_addr("io-shutdown");
    let (inbox, _) = inbox_with(&user, 0).await;
    let (stop_tx, mut stop_rx) = watch::channel(false);
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let _ = stop_tx.send(true);
        // Keep the sender alive a little so the receiver sees the value, not a closed channel.
        tokio::time::sleep(Duration::from_secs(5)).await;
    });
    let started = Instant::now();
    let (mut inbox, woke) = inbox
        .wait(Duration::from_secs(30), &mut stop_rx)
        .await
        .expect("wait");
    assert_eq!(woke, Woke::Shutdown);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(inbox.list().await.expect("list after DONE").is_empty());
    // A signal already set returns at once.
    let (inbox, woke) = inbox
        .wait(Duration::from_secs(30), &mut stop_rx)
        .await
        .expect("wait");
    assert_eq!(woke, Woke::Shutdown);
    inbox.logout().await;
}

#[tokio::test]
async fn imap_wait_polls_with_noop_without_idle() {
    let from = crate::common::unique_addr("io-from");
    let user = crate::common::unique_addr("io-poll");
    let (mut inbox, _) = inbox_with(&user, 0).await;
    inbox.set_use_idle(false);
    let (_stop_tx, mut stop_rx) = watch::channel(false);
    let to = user.clone();
    let sender = tokio::task::spawn_blocking(move || {
        std::thread::sleep(Duration::from_millis(300));
        let raw = crate::common::text_mail(&from, &to, "poll", "1. c4", "<poll@fernschach.test>");
        deliver(raw.as_bytes(), &from, &to);
    });
    let started = Instant::now();
    let (mut inbox, woke) = inbox
        .wait(Duration::from_secs(30), &mut stop_rx)
        .await
        .expect("wait");
    sender.await.unwrap();
    assert_eq!(woke, Woke::NewMail);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(inbox.list().await.unwrap().len(), 1);
    inbox.logout().await;
}

#[tokio::test]
async fn imap_wrong_password_and_unknown_mailbox_are_named() {
    let user = crate::common::unique_addr("io-login");
    let mut s = imap_settings(&user);
    s.password = Secret::Fixed("not-the-password".to_string());
    let err = Inbox::connect(s).await.unwrap_err();
    assert!(matches!(err, ImapError::Login { .. }), "{err:?}");
    let msg = err.to_string();
    assert!(
        msg.contains(&user) && !msg.contains("not-the-password"),
        "{msg}"
    );

    let mut s = imap_settings(&user);
    s.mailbox = "No-Such-Folder".to_string();
    let err = Inbox::connect(s).await.unwrap_err();
    assert!(matches!(err, ImapError::Select { .. }), "{err:?}");
    assert!(err.to_string().contains("No-Such-Folder"), "{err}");
}

/// A listing holds every mail the server has when asked, on both of the stack's servers, though
/// the mail came after the mailbox was opened and nothing waited for it: Courier-IMAP looks into
/// the Maildir for new mail only at NOOP (and IDLE), never at FETCH.
#[tokio::test]
async fn imap_list_shows_mail_that_came_after_the_mailbox_was_opened_on_both_servers() {
    use crate::common::{COURIER_PORT, IMAP_PORT, Mailbox};
    for port in [IMAP_PORT, COURIER_PORT] {
        let user = crate::common::unique_addr("io-late");
        let mut settings = imap_settings(&user);
        settings.port = port;
        let mut inbox = Inbox::connect(settings).await.expect("connect");
        assert!(inbox.list().await.expect("list").is_empty(), "port {port}");
        crate::common::send_text(
            &crate::common::unique_addr("io-from"),
            &user,
            "late",
            "1. e4",
        );
        // In the Maildir: Dovecot counts it (on another connection).
        let mut dovecot = Mailbox::open_on(IMAP_PORT, &user).expect("Dovecot login");
        let started = Instant::now();
        while dovecot.count().expect("STATUS") < 1 {
            assert!(started.elapsed() < Duration::from_secs(15), "not delivered");
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let listed = inbox.list().await.expect("list");
        assert_eq!(listed.len(), 1, "port {port}: {listed:?}");
        inbox.logout().await;
    }
}

#[tokio::test]
async fn imap_tls_modes_against_a_plain_server_fail_as_tls_errors() {
    let user = crate::common::unique_addr("io-tls");
    for security in [Security::Tls, Security::Starttls] {
        let mut s = imap_settings(&user);
        s.security = security;
        s.timeout = Duration::from_secs(5);
        let err = Inbox::connect(s).await.unwrap_err();
        assert!(matches!(err, ImapError::Tls { .. }), "{security}: {err:?}");
        assert!(err.to_string().contains("127.0.0.1"), "{err}");
    }
}

#[tokio::test]
async fn smtp_tls_modes_against_a_plain_server_are_transient() {
    let from = crate::common::unique_addr("io-relay");
    let to = crate::common::unique_addr("io-smtp-tls");
    for security in [Security::Tls, Security::Starttls] {
        let mut s = smtp_settings(crate::common::SMTP_PORT);
        s.security = security;
        s.timeout = Duration::from_secs(5);
        let sender = Sender::new(s).expect("sender");
        let err = sender
            .send(
                &from,
                &to,
                &tricky_mail(&from, &to, "<tls@fernschach.test>"),
            )
            .await
            .unwrap_err();
        assert_ne!(
            judge(&err.refusal()),
            Verdict::Unreachable,
            "{security}: {err:?}"
        );
    }
}

#[tokio::test]
async fn smtp_sends_raw_bytes_unchanged() {
    let from = crate::common::unique_addr("io-relay");
    let to = crate::common::unique_addr("io-smtp");
    let message_id = format!(
        "<{}@{}>",
        crate::common::unique("io-mid"),
        crate::common::DOMAIN
    );
    let raw = tricky_mail(&from, &to, &message_id);
    let sender = Sender::new(smtp_settings(crate::common::SMTP_PORT)).expect("sender");
    sender.send(&from, &to, &raw).await.expect("send");

    let got = crate::common::wait_for(&to, 1, Duration::from_secs(15));
    assert_eq!(got.len(), 1);
    let mail = &got[0];
    assert!(
        mail.ends_with(&raw),
        "the delivered mail ends with the sent bytes unchanged:\n{:?}",
        String::from_utf8_lossy(mail)
    );
    // Only the trace fields of the servers are in front.
    let prefix = &mail[..mail.len() - raw.len()];
    for name in field_names(prefix) {
        assert!(
            ["received", "return-path", "delivered-to"].contains(&name.as_str()),
            "unexpected header {name:?} added in front:\n{}",
            String::from_utf8_lossy(prefix)
        );
    }
    assert_eq!(
        crate::common::headers(mail, "Message-ID"),
        vec![message_id],
        "lettre added no Message-ID"
    );
}

#[tokio::test]
async fn smtp_dead_recipient_is_refused_at_rcpt_550_judged_unreachable_and_the_pool_goes_on() {
    let from = crate::common::unique_addr("io-relay");
    let dead = crate::common::unique_addr("dead-player");
    let live = crate::common::unique_addr("io-live");
    let sender = Sender::new(smtp_settings(crate::common::SMTP_PORT)).expect("sender");

    let raw = tricky_mail(&from, &dead, "<dead@fernschach.test>");
    let err = sender.send(&from, &dead, &raw).await.unwrap_err();
    assert!(
        matches!(
            err,
            SendError::Refused {
                stage: SmtpStage::Rcpt,
                code: 550,
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(judge(&err.refusal()), Verdict::Unreachable, "{err:?}");
    assert!(err.to_string().contains("550"), "{err}");

    // The same sender (pooled connection) still delivers to a live address.
    let raw = tricky_mail(&from, &live, "<live@fernschach.test>");
    sender
        .send(&from, &live, &raw)
        .await
        .expect("send after a refusal");
    assert_eq!(
        crate::common::wait_for(&live, 1, Duration::from_secs(15)).len(),
        1
    );
}

#[tokio::test]
async fn smtp_closed_port_is_unreachable_and_holds_every_mail() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let sender = Sender::new(smtp_settings(port)).expect("sender");
    let err = sender
        .send(
            "relay@fernschach.test",
            "x@fernschach.test",
            b"Subject: x\r\n\r\nx\r\n",
        )
        .await
        .unwrap_err();
    assert!(matches!(err, SendError::Unreachable { .. }), "{err:?}");
    assert_eq!(judge(&err.refusal()), Verdict::Hold(Cause::Server));
}
