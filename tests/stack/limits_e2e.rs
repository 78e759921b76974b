//! A real mail host's limits, through the real stack (issue 51, CONTRACT "The operator's first
//! day, on a real mail host"): the stack's Postfix refuses the relay's mail on cue as Gmail does at
//! its sending quota, or as a full mailbox does (`policy.rs`), and the IMAP password is wrong
//! for a while. Nobody is blamed for the host's limits, nothing is lost, the operator is told
//! once, and `run` never gives up.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::{
    Daemon, HOST, IMAP_PORT, Relay, configure, fetch_all, free_port, get, header, kinds,
    unique_addr, wait_for, wait_listening,
};
use crate::policy;

const WAIT: Duration = Duration::from_secs(60);

/// A relay sending through the stack's policy port, its operator told after a minute, `/healthz`
/// on a port of its own; `imap`: the `[imap]` section's keys. Returns (relay, operator, port).
fn relay_on_policy_port(name: &str, imap: &str) -> (Relay, String, u16) {
    let relay = Relay::new(name);
    relay.set_servers(
        imap,
        &format!(
            "host = \"{HOST}\"\nport = {}\nsecurity = \"none\"",
            policy::SMTP_PORT
        ),
    );
    let ops = unique_addr("ops");
    let port = free_port();
    configure(
        &relay,
        &format!("operator = \"{ops}\"\nalert_minutes = 1\n"),
        &format!("[http]\nlisten = \"127.0.0.1:{port}\""),
    );
    (relay, ops, port)
}

fn imap_section(password: &str) -> String {
    format!(
        "host = \"{HOST}\"\nport = {IMAP_PORT}\nsecurity = \"none\"\nuser = {{address}}\n\
         {password}\nmailbox = \"INBOX\""
    )
}

/// `fernzug run` of `relay`, its log in `run.log`.
fn spawn_run(relay: &Relay) -> Daemon {
    let log = relay.dir.join("run.log");
    Daemon(
        relay
            .command(&["run"])
            .stderr(Stdio::from(std::fs::File::create(log).unwrap()))
            .spawn()
            .unwrap(),
    )
}

fn run_log(relay: &Relay) -> String {
    std::fs::read_to_string(relay.dir.join("run.log")).unwrap_or_default()
}

/// Waits until `/healthz` on `port` answers 503; its body.
fn unhealthy(port: u16, within: Duration) -> String {
    let started = Instant::now();
    loop {
        let (code, body) = get(port, "/healthz");
        if code == 503 {
            return body;
        }
        assert!(started.elapsed() < within, "/healthz still {code}");
        std::thread::sleep(Duration::from_millis(500));
    }
}

fn subjects(mails: &[Vec<u8>]) -> Vec<String> {
    mails
        .iter()
        .map(|m| header(m, "Subject").unwrap_or_default())
        .collect()
}

#[test]
fn fax_2_2_a_sending_quota_at_data_holds_every_mail_reports_no_player_and_tells_the_operator_once()
{
    let (relay, ops, port) = relay_on_policy_port("quota", &imap_section("password = \"test\""));
    let (t, anna, bert) = relay.duo_today();
    let mut daemon = spawn_run(&relay);
    wait_for(&anna, 1, WAIT);
    wait_for(&bert, 1, WAIT);
    wait_listening(port);

    // Gmail's reply at its daily sending quota, at DATA: the relay itself is refused.
    policy::refuse(
        &relay.address,
        "DATA",
        "550 5.4.5 Daily user sending quota exceeded.",
    );
    let subject = format!("Re: [{}] Zug", t.game(1));
    relay.send(&anna, &subject, "1. e4");
    relay.send(&anna, &subject, "Status?");
    assert_eq!(
        unhealthy(port, Duration::from_secs(150)),
        "unhealthy: smtp\n"
    );
    assert_eq!(fetch_all(&bert).len(), 1, "nothing went out while refused");

    policy::lift(&relay.address);
    let lifted = Instant::now();
    let bert_mails = wait_for(&bert, 2, Duration::from_secs(120));
    assert_eq!(kinds(&bert_mails), ["start", "move"]);
    let anna_kinds = kinds(&wait_for(&anna, 3, WAIT));
    let mut later = anna_kinds[1..].to_vec();
    later.sort();
    assert_eq!(later, ["receipt", "status"], "{anna_kinds:?}");
    let alerts = wait_for(&ops, 2, WAIT);
    let delivered = lifted.elapsed();
    assert_eq!(
        kinds(&alerts),
        ["alert", "alert"],
        "{:?}",
        subjects(&alerts)
    );
    // Never a loop, nobody blamed: no third alert, nothing to the director.
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(fetch_all(&ops).len(), 2, "told once");
    let tl = kinds(&fetch_all(&relay.director));
    assert!(!tl.contains(&"bounce-report".to_string()), "{tl:?}");
    assert_eq!(fetch_all(&anna).len(), 3, "each mail once");
    assert_eq!(fetch_all(&bert).len(), 2, "each mail once");
    assert_eq!(daemon.0.try_wait().unwrap(), None, "run is still up");
    let log = run_log(&relay);
    assert!(log.contains("SMTP holds every mail: quota"), "{log}");
    eprintln!(
        "sending quota at DATA: every mail delivered {:.1} s after the refusal lifted; \
         the operator told once ({} alerts), no bounce-report",
        delivered.as_secs_f64(),
        alerts.len()
    );
}

/// A duel registered and started (`once`) on a relay sending through the policy port; returns
/// (relay, game, anna, bert).
fn duel_on_policy_port(name: &str) -> (Relay, String, String, String) {
    let relay = Relay::new(name);
    relay.set_servers(
        &imap_section("password = \"test\""),
        &format!(
            "host = \"{HOST}\"\nport = {}\nsecurity = \"none\"",
            policy::SMTP_PORT
        ),
    );
    let (t, anna, bert) = relay.duel_started();
    (relay, t.game(1), anna, bert)
}

#[test]
fn fax_2_3_a_full_mailbox_at_rcpt_is_retried_not_reported() {
    let (relay, game, anna, bert) = duel_on_policy_port("full-mailbox");
    // Dovecot's quota-status answer, as Postfix wraps it: Bert's mailbox is full.
    policy::refuse_to(
        &relay.address,
        &bert,
        "RCPT",
        "554 5.2.2 Quota exceeded (mailbox for user is full)",
    );
    relay.send(&anna, &format!("Re: [{game}] Zug"), "1. e4");
    for now in [
        "2026-12-01T10:00:00+01:00",
        "2026-12-02T10:00:00+01:00",
        "2026-12-03T09:00:00+01:00",
    ] {
        relay.once(now);
    }
    policy::lift(&relay.address);
    relay.once("2026-12-03T10:00:00+01:00");
    assert_eq!(kinds(&wait_for(&bert, 2, WAIT)), ["start", "move"]);
    let tl = kinds(&fetch_all(&relay.director));
    assert!(!tl.contains(&"bounce-report".to_string()), "{tl:?}");
}

#[test]
fn fax_2_3_a_mailbox_full_for_three_days_is_reported_to_the_director() {
    let (relay, game, anna, bert) = duel_on_policy_port("full-three-days");
    policy::refuse_to(
        &relay.address,
        &bert,
        "RCPT",
        "552 5.2.2 Quota exceeded (mailbox for user is full)",
    );
    relay.send(&anna, &format!("Re: [{game}] Zug"), "1. e4");
    relay.once("2026-12-01T10:00:00+01:00");
    relay.once("2026-12-03T09:59:00+01:00");
    assert!(
        fetch_all(&relay.director).is_empty(),
        "not before three days"
    );
    relay.once("2026-12-04T10:01:00+01:00");
    let tl = wait_for(&relay.director, 1, WAIT);
    policy::lift(&relay.address);
    assert_eq!(kinds(&tl), ["bounce-report"]);
    let text = crate::common::body_text(&tl[0]);
    assert!(text.contains(&bert), "{text}");
}

#[test]
fn a_wrong_imap_password_keeps_run_up_healthz_503_alert_then_the_move_goes_without_a_restart() {
    let secret = std::env::temp_dir().join(format!("{}.pw", unique_addr("imap")));
    std::fs::write(&secret, "wrong\n").unwrap();
    let imap = imap_section(&format!(
        "password_command = \"cat {}\"",
        secret.to_string_lossy()
    ));
    let (relay, ops, port) = relay_on_policy_port("wrong-imap-password", &imap);
    let (t, anna, bert) = relay.duo_today();
    relay.send(&anna, &format!("Re: [{}] Zug", t.game(1)), "1. e4");
    wait_for(&relay.address, 1, WAIT);
    let mut daemon = spawn_run(&relay);
    let started = Instant::now();
    // The start mails go while IMAP is refused: the outbox does not wait for it.
    wait_for(&bert, 1, WAIT);
    wait_listening(port);
    assert_eq!(
        unhealthy(port, Duration::from_secs(150)),
        "unhealthy: imap\n"
    );
    let alert = wait_for(&ops, 1, Duration::from_secs(90));
    assert_eq!(kinds(&alert), ["alert"]);
    assert_eq!(daemon.0.try_wait().unwrap(), None, "run stays up");
    let told = started.elapsed();

    std::fs::write(&secret, "test\n").unwrap();
    let fixed = Instant::now();
    let bert_mails = wait_for(&bert, 2, Duration::from_secs(300));
    assert_eq!(kinds(&bert_mails), ["start", "move"]);
    let forwarded = fixed.elapsed();
    assert_eq!(
        daemon.0.try_wait().unwrap(),
        None,
        "the same process, no restart"
    );
    let log = run_log(&relay);
    let refused = log.matches("refused the login").count();
    // 30 s, 60 s, 120 s …: a handful of tries in these minutes, not one every ten seconds.
    assert!(
        (2..=6).contains(&refused),
        "{refused} refused logins\n{log}"
    );
    let _ = std::fs::remove_file(&secret);
    eprintln!(
        "wrong IMAP password: /healthz 503 and the alert {:.1} s after the start ({refused} \
         refused logins); the move forwarded {:.1} s after the password was mended, no restart",
        told.as_secs_f64(),
        forwarded.as_secs_f64()
    );
}
