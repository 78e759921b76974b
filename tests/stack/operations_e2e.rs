//! A year unattended, through the real stack (docs/operating.md): `fernzug backup` while `run`
//! plays a game, each backup a data_dir that `status` and `verify` read, a restore that loses no
//! move; `/healthz` and `/metrics` of `[http] listen`; an SMTP outage (a proxy cut in front of
//! the stack's Postfix, so the other tests keep their mail) seen by `/healthz` and told to
//! `[relay] operator` once SMTP is back; root's shell on a data_dir the service's user owns (no
//! password but to log in, every file left to that user); the quarantine handled while `run`
//! runs (`quarantine list | retry | drop`).

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::{
    Daemon, HOST, IMAP_PORT, PASSWORD, Relay, SMTP_PORT, configure, fetch_all, free_port, get,
    header, kinds, stack_dir, unique, unique_addr, wait_for, wait_listening,
};
use crate::proxy::Proxy;

const WAIT: Duration = Duration::from_secs(60);

/// `fernzug run` of `relay`, its log in `run.log`.
fn spawn_run(relay: &Relay) -> Daemon {
    let log = relay.dir.join("run.log");
    Daemon(
        relay
            .command(&["run"])
            .env("RUST_LOG", "info,fernzug::daemon=debug")
            .stderr(Stdio::from(std::fs::File::create(log).unwrap()))
            .spawn()
            .unwrap(),
    )
}

/// Stops the daemon as systemd does (SIGTERM) and waits for it.
fn stop(daemon: &mut Daemon) {
    let child: &mut Child = &mut daemon.0;
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < WAIT, "run did not stop on SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The relay's config with `data_dir` set to `data` (to read a backup as it is).
fn config_for(relay: &Relay, data: &Path, name: &str) -> PathBuf {
    let text = std::fs::read_to_string(&relay.config).unwrap();
    let data_line = text
        .lines()
        .find(|l| l.starts_with("data_dir"))
        .unwrap()
        .to_string();
    let text = text.replace(
        &data_line,
        &format!("data_dir = {:?}", data.to_string_lossy()),
    );
    let path = relay.dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The moves of `game` as `status --json` of the store in `data` says, and `verify`'s line.
fn read_backup(relay: &Relay, data: &Path, game: &str, n: usize) -> (usize, String) {
    let config = config_for(relay, data, &format!("backup-{n}.toml"));
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fernzug"))
            .arg("--config")
            .arg(&config)
            .args(args)
            .env_remove("FERNZUG_CONFIG")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "fernzug {args:?} on {}: {}",
            data.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let status: serde_json::Value =
        serde_json::from_str(&run(&["status", game, "--json"])).unwrap();
    let moves = status[0]["moves"].as_array().map_or(0, Vec::len);
    (moves, run(&["verify", game]))
}

/// The text of move `i` (0: White's first) of `moves` as TO §2 wants it: the partner's last move
/// repeated, then the own.
fn move_text(moves: &[&str], i: usize) -> String {
    let n = i / 2 + 1;
    let own = if i.is_multiple_of(2) {
        format!("{n}. {}", moves[i])
    } else {
        format!("{n}... {}", moves[i])
    };
    match i {
        0 => own,
        _ if i.is_multiple_of(2) => format!("{}... {} {own}", n - 1, moves[i - 1]),
        _ => format!("{n}. {} {own}", moves[i - 1]),
    }
}

#[test]
fn backups_taken_while_run_plays_hold_every_move_and_a_restore_plays_the_rest() {
    let relay = Relay::new("backup");
    let port = free_port();
    configure(
        &relay,
        "",
        &format!("[http]\nlisten = \"127.0.0.1:{port}\""),
    );
    let (t, anna, bert) = relay.duo_today();
    let game = t.game(1);
    let mut daemon = spawn_run(&relay);
    wait_for(&anna, 1, WAIT);
    wait_for(&bert, 1, WAIT);
    wait_listening(port);
    let moves = [
        "e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "Ba4", "Nf6", "O-O", "Be7",
    ];
    let (mut n_anna, mut n_bert) = (1, 1);
    let mut backups: Vec<(PathBuf, std::ops::RangeInclusive<usize>, f64)> = Vec::new();
    for i in 0..moves.len() {
        let from = if i.is_multiple_of(2) { &anna } else { &bert };
        relay.send(from, &format!("Re: [{game}] Zug"), &move_text(&moves, i));
        if i == 5 {
            // A backup while this move is still being played: it holds it whole or not at all.
            let dir = relay.dir.join(format!("backup-{i}"));
            let started = Instant::now();
            let line = relay.run_ok(&["backup", dir.to_str().unwrap()]);
            assert!(line.starts_with("backup written to "), "{line}");
            backups.push((dir, i..=i + 1, started.elapsed().as_secs_f64()));
        }
        // The forward to the partner and the receipt to the player: one mail more for each.
        n_anna += 1;
        n_bert += 1;
        wait_for(&anna, n_anna, WAIT);
        wait_for(&bert, n_bert, WAIT);
        if i == 3 || i == 7 {
            let dir = relay.dir.join(format!("backup-{i}"));
            let started = Instant::now();
            let line = relay.run_ok(&["backup", dir.to_str().unwrap()]);
            let took = started.elapsed().as_secs_f64();
            eprintln!(
                "`fernzug backup` beside run, after {} moves: {took:.2} s: {line}",
                i + 1
            );
            backups.push((dir, i + 1..=i + 1, took));
        }
    }
    // The operator's view while it runs.
    let (code, health) = get(port, "/healthz");
    assert_eq!((code, health.as_str()), (200, "ok\n"));
    let (code, metrics) = get(port, "/metrics");
    assert_eq!(code, 200);
    for name in [
        "fernzug_mails_received_total",
        "fernzug_mails_sent_total",
        "fernzug_outbox_mails",
        "fernzug_outbox_oldest_age_seconds",
        "fernzug_quarantine_mails 0",
        "fernzug_imap_last_success_timestamp_seconds",
        "fernzug_smtp_last_success_timestamp_seconds",
        "fernzug_games{state=\"running\"} 1",
    ] {
        assert!(metrics.contains(name), "{name} in\n{metrics}");
    }
    // Bad input: a folder that is not empty, a backup under way; the relay goes on.
    let busy = relay.dir.join("backup-3");
    let refused = relay.run(&["backup", busy.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("is not empty"));
    let data = relay.dir.join("data");
    std::fs::write(
        data.join("backup.request"),
        format!(
            "{{\"dir\":\"/nowhere\",\"id\":\"x\",\"pid\":{}}}",
            std::process::id()
        ),
    )
    .unwrap();
    let twice = relay.run(&["backup", relay.dir.join("b2").to_str().unwrap()]);
    std::fs::remove_file(data.join("backup.request")).unwrap();
    assert_eq!(twice.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&twice.stderr).contains("another backup is under way"),
        "{}",
        String::from_utf8_lossy(&twice.stderr)
    );

    // Each backup is a data_dir: every game verifies and holds the moves played before it.
    for (dir, held, _) in &backups {
        let (moves, verified) = read_backup(&relay, dir, &game, *held.start());
        assert!(
            held.contains(&moves),
            "{}: {moves} moves, {held:?}",
            dir.display()
        );
        assert!(verified.starts_with("ok"), "{}: {verified}", dir.display());
    }

    // Restore: stop, put the backup after move 4 in place, start: the mails after it are read
    // again from the mailbox and played; no move is lost.
    stop(&mut daemon);
    let (first, _, _) = &backups[0];
    std::fs::rename(&data, relay.dir.join("data.before-restore")).unwrap();
    let copy = std::process::Command::new("cp")
        .args(["-a", first.to_str().unwrap(), data.to_str().unwrap()])
        .status()
        .unwrap();
    assert!(copy.success());
    relay.run_ok(&["once"]);
    let (moves_now, verified) = read_backup(&relay, &data, &game, 99);
    assert_eq!(moves_now, moves.len(), "every move after the restore");
    assert!(verified.starts_with("ok"), "{verified}");
    let took: Vec<String> = backups.iter().map(|b| format!("{:.2}", b.2)).collect();
    eprintln!("backups beside run took {} s", took.join(", "));
}

#[test]
fn an_smtp_outage_is_seen_by_healthz_and_told_to_the_operator_once_smtp_is_back() {
    let relay = Relay::new("alert");
    let proxy = Proxy::new(SMTP_PORT);
    relay.set_servers(
        &format!(
            "host = \"{HOST}\"\nport = {IMAP_PORT}\nsecurity = \"none\"\nuser = {{address}}\n\
             password = \"{PASSWORD}\"\nmailbox = \"INBOX\""
        ),
        &format!(
            "host = \"{HOST}\"\nport = {}\nsecurity = \"none\"",
            proxy.port
        ),
    );
    let ops = unique_addr("ops");
    let port = free_port();
    configure(
        &relay,
        &format!("operator = \"{ops}\"\nalert_minutes = 1\n"),
        &format!("[http]\nlisten = \"127.0.0.1:{port}\""),
    );
    let (t, anna, bert) = relay.duo_today();
    let game = t.game(1);
    let _daemon = spawn_run(&relay);
    wait_for(&anna, 1, WAIT);
    wait_for(&bert, 1, WAIT);
    wait_listening(port);
    assert_eq!(get(port, "/healthz"), (200, "ok\n".to_string()));

    proxy.cut();
    let cut = Instant::now();
    relay.send(&anna, &format!("Re: [{game}] Zug"), "1. e4");
    // The outage counts after alert_minutes (1) from the first failed send: /healthz says so
    // (the alert waits in the outbox: SMTP is what fails).
    let (seen, why) = loop {
        let (code, body) = get(port, "/healthz");
        if code == 503 {
            break (cut.elapsed(), body);
        }
        assert!(
            cut.elapsed() < Duration::from_secs(150),
            "/healthz still {code}"
        );
        std::thread::sleep(Duration::from_millis(500));
    };
    assert_eq!(why, "unhealthy: smtp\n");
    assert!(seen <= Duration::from_secs(60 + 60), "seen after {seen:?}");
    let (_, metrics) = get(port, "/metrics");
    assert!(metrics.contains("fernzug_outbox_mails "), "{metrics}");

    proxy.restore();
    let back = Instant::now();
    // The move and both alerts at the next try after SMTP works again (the relay tries a server
    // that refused its connection after 30 s, 60 s, 120 s, …: within two minutes of the restore
    // here), and what waited goes at once.
    let next_try = Duration::from_secs(150);
    wait_for(&bert, 2, next_try);
    let alerts = wait_for(&ops, 2, next_try);
    let told = back.elapsed();
    let subjects: Vec<String> = alerts
        .iter()
        .map(|a| header(a, "Subject").unwrap_or_default())
        .collect();
    assert!(
        subjects[0].contains("Mailversand (SMTP)") || subjects[0].contains("SMTP"),
        "{subjects:?}"
    );
    let kinds: Vec<Option<String>> = alerts.iter().map(|a| header(a, "X-Fernzug-Kind")).collect();
    assert_eq!(kinds, [Some("alert".into()), Some("alert".into())]);
    assert!(
        alerts.iter().all(|a| header(a, "X-Fernzug-Game").is_none()),
        "no game, no reply key"
    );
    let started = Instant::now();
    while get(port, "/healthz").0 != 200 {
        assert!(
            started.elapsed() < WAIT,
            "/healthz stays 503 after SMTP is back"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    eprintln!(
        "SMTP outage: /healthz 503 {:.1} s after the cut (alert_minutes = 1); the move and \
         both alerts delivered {:.1} s after SMTP was back",
        seen.as_secs_f64(),
        told.as_secs_f64()
    );
    // Never a loop: no third alert.
    std::thread::sleep(Duration::from_secs(5));
    assert_eq!(crate::common::fetch_all(&ops).len(), 2);
}

/// The oldest store this fernzug takes over: a sled store written by commit 1201393 (the last
/// before redb), made through the mail stack by tests/fixtures/upgrade/make.sh. The current
/// binary opens it (the take-over and every upgrade since), says of it what the old binary said
/// (`status`, `status --json`, `export pgn`: tests/fixtures/upgrade/sled-1201393.expected.txt),
/// and every game verifies (TO §29).
#[test]
fn a_store_of_the_oldest_supported_format_is_taken_over_and_says_what_it_said() {
    // The old relay had no clock warnings (TO §17): with them off, the new one must say
    // exactly what it said.
    let compared = says_what_it_said("sled-1201393", true, Some("was taken over"), |_| {});
    assert_eq!(
        compared, 4,
        "status, status TOURNAMENT, status --json, export pgn"
    );
}

/// A store of the layout before a game's records were kept side by side (version 1: the games,
/// their logs, archive indexes and reply keys in trees of their own, their deadlines in `due`),
/// written by commit 8353adf through the mail stack (tests/fixtures/upgrade/make.sh with
/// `UPGFIX_STORE=redb1`). The current binary moves it at the first opening and says of it what
/// the old one said — `status`, `status --json`, `export pgn`, what `verify` says of each game
/// (the same seals, the same mails checked) and each game's archive byte for byte (`export
/// mbox`) — and its deadlines fire as they would have.
#[test]
fn a_store_of_layout_1_is_moved_and_says_what_it_said() {
    let compared = says_what_it_said("redb1-8353adf", false, None, |fernzug| {
        // Its index of deadlines, moved with it: game 3's reminder (TO §16) and the weekly
        // digest fire, as the old binary's did on the same store, through Postfix.
        let now = "2026-11-05T10:00:00+01:00";
        let (_, log) = fernzug(&["once", "--now", now]);
        assert!(log.contains("4 sent"), "{log}");
        assert_eq!(log.matches("(reminder) to").count(), 3, "{log}");
        assert_eq!(log.matches("(digest) to").count(), 1, "{log}");
        let (said, _) = fernzug(&["status", "UPG-2026/3", "--now", now]);
        let said = String::from_utf8_lossy(&said);
        assert!(
            said.contains("next: silence-report at 2026-11-19 00:00 CET"),
            "{said}"
        );
    });
    assert_eq!(
        compared, 10,
        "status, status TOURNAMENT, status --json, export pgn, 3 × verify, 3 × export mbox"
    );
}

/// The service's user of these tests: `nobody` (the unit's is a dynamic one; any other than root).
const SERVICE_UID: u32 = 65534;

/// Every file and folder under `dir` (itself included) not owned by `uid`:`gid`.
fn not_owned_by(dir: &Path, uid: u32, gid: u32) -> Vec<String> {
    use std::os::unix::fs::MetadataExt;
    let mut wrong = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(p) = todo.pop() {
        let m = std::fs::symlink_metadata(&p).unwrap();
        if (m.uid(), m.gid()) != (uid, gid) {
            wrong.push(format!("{} ({}:{})", p.display(), m.uid(), m.gid()));
        }
        if m.is_dir() {
            for e in std::fs::read_dir(&p).unwrap() {
                todo.push(e.unwrap().path());
            }
        }
    }
    wrong
}

/// The packaged install's root shell (README "Running it for real"): with no password to be had
/// (its file missing, its variable not set), every command that does not connect works as root —
/// `tournament add`, `status`, `export`, `verify`, `backup`, `quarantine list` — and leaves every
/// file it makes in the data_dir to the user that owns it (the service's), who goes on using the
/// store; `check` names each missing password by its key and tries no login with it, and reads
/// the password from systemd's credential of the same name (`$CREDENTIALS_DIRECTORY`) before
/// its file.
#[test]
fn a_root_shell_needs_no_password_but_to_log_in_and_leaves_every_file_to_the_service_user() {
    use std::os::unix::fs::MetadataExt;
    let relay = Relay::new("root-shell");
    let probe = relay.dir.join("whoami");
    std::fs::write(&probe, "").unwrap();
    assert_eq!(
        std::fs::metadata(&probe).unwrap().uid(),
        0,
        "the stack tests run as root"
    );
    let ca = stack_dir().join("tls/ca.pem");
    let smtp_var = unique("FERNZUG_ROOT_SHELL")
        .replace('-', "_")
        .to_uppercase();
    relay.set_servers(
        &format!(
            "host = \"127.0.0.1\"\nport = 1993\nsecurity = \"tls\"\nuser = {{address}}\n\
             password_file = \"imap.password\"\nca_file = {ca:?}\n"
        ),
        &format!(
            "host = \"127.0.0.1\"\nport = 2465\nsecurity = \"tls\"\nuser = {{address}}\n\
             password_env = \"{smtp_var}\"\nca_file = {ca:?}\n"
        ),
    );
    let data = relay.dir.join("data");
    std::os::unix::fs::chown(&data, Some(SERVICE_UID), Some(SERVICE_UID)).unwrap();
    let root = |args: &[&str]| {
        let out = relay.command(args).env_remove(&smtp_var).output().unwrap();
        assert!(
            out.status.success(),
            "fernzug {args:?} as root: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let (t, _anna, _bert) = relay.duo_today();
    let game = t.game(1);
    assert!(root(&["status"]).contains(&game));
    assert!(root(&["status", &game, "--json"]).contains("\"deadlines\""));
    assert!(root(&["export", "pgn", &t.id]).contains("[Event "));
    root(&["export", "mbox", &game]);
    assert!(root(&["verify", &game]).starts_with("ok"));
    assert_eq!(root(&["quarantine", "list"]), "no mail in quarantine\n");
    let backup = relay.dir.join("backup");
    assert!(root(&["backup", backup.to_str().unwrap()]).starts_with("backup written to "));
    let wrong = not_owned_by(&data, SERVICE_UID, SERVICE_UID);
    assert!(
        wrong.is_empty(),
        "made by root, not given to the service's user:\n{}",
        wrong.join("\n")
    );
    // The service's user goes on with the store root used: reads it, and registers a tournament.
    let (carla, dora) = (unique_addr("carla"), unique_addr("dora"));
    let second = relay.tournament(
        &[
            ("Carla Castro", carla.as_str(), None),
            ("Dora Dahl", dora.as_str(), None),
        ],
        "fax",
        "2026-12-01",
    );
    let as_service = |args: &[&str]| {
        let uid = SERVICE_UID.to_string();
        let out = std::process::Command::new("setpriv")
            .args(["--reuid", &uid, "--regid", &uid, "--clear-groups", "--"])
            .arg(env!("CARGO_BIN_EXE_fernzug"))
            .arg("--config")
            .arg(&relay.config)
            .args(args)
            .env_remove("FERNZUG_CONFIG")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "fernzug {args:?} as the service's user: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    as_service(&["tournament", "add", second.path.to_str().unwrap()]);
    as_service(&["status"]);
    assert!(not_owned_by(&data, SERVICE_UID, SERVICE_UID).is_empty());

    // `check` reads each password as a login would, and names the key of one it cannot have.
    let out = relay
        .command(&["check"])
        .env_remove(&smtp_var)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(out.status.code(), Some(1), "{said}");
    let imap_file = relay.dir.join("imap.password");
    assert!(
        said.contains(&format!(
            "FAIL  IMAP password: key `imap.password_file`: cannot read {}: No such file or directory",
            imap_file.display()
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "FAIL  SMTP password: key `smtp.password_env`: the environment variable {smtp_var} is not set"
        )),
        "{said}"
    );
    assert!(
        !said.contains("IMAP connect"),
        "no login without a password:\n{said}"
    );
    // The file holds a wrong one; systemd's credential of the same name the right one.
    std::fs::write(&imap_file, "wrong\n").unwrap();
    let credentials = relay.dir.join("credentials");
    std::fs::create_dir_all(&credentials).unwrap();
    std::fs::write(credentials.join("imap.password"), format!("{PASSWORD}\n")).unwrap();
    let out = relay
        .command(&["check"])
        .env(&smtp_var, PASSWORD)
        .env("CREDENTIALS_DIRECTORY", &credentials)
        .output()
        .unwrap();
    let said = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{said}");
    assert!(
        said.contains(&format!(
            "ok    IMAP password: from {} (the systemd credential of {})",
            credentials.join("imap.password").display(),
            imap_file.display()
        )),
        "{said}"
    );
    assert!(
        said.contains(&format!(
            "ok    SMTP password: from the environment variable {smtp_var}"
        )),
        "{said}"
    );
    assert!(said.contains("ok    IMAP login"), "{said}");
}

/// `fernzug quarantine list | retry ID | drop ID` while `run` runs: two mails of Anna's that
/// made rendering fail (on purpose: `FERNZUG_CRASH_IF`) are listed with their ids, sender,
/// subject and reason; `retry` of the first, the cause gone, plays her move — forwarded to Bert
/// by the running relay — and takes it out; `retry` of the second failing again keeps it under
/// its id with the new reason (exit 1); an unknown id is one line, exit 1, and changes nothing;
/// `drop` takes the second out unprocessed. The relay runs on throughout.
#[test]
fn quarantine_list_retry_and_drop_work_while_run_runs() {
    let relay = Relay::new("quarantine");
    let (t, anna, bert) = relay.duo_today();
    let game = t.game(1);
    let marker = unique("POISON");
    let log = relay.dir.join("run.log");
    let mut daemon = Daemon(
        relay
            .command(&["run"])
            .env("FERNZUG_CRASH_AT", "in-stage")
            .env("FERNZUG_CRASH_IF", &marker)
            .env("FERNZUG_CRASH_HOW", "panic")
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
            .spawn()
            .unwrap(),
    );
    wait_for(&anna, 1, WAIT);
    wait_for(&bert, 1, WAIT);
    // The mark in the subject, which the reader does not read beside the game's reference.
    let subject = format!("Re: [{game}] Zug {marker}");
    relay.send(&anna, &subject, "1. e4");
    relay.send(&anna, &subject, "Status");

    let list = || relay.run_ok(&["quarantine", "list"]);
    let ids = |listed: &str| -> Vec<String> {
        listed
            .lines()
            .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with("why:"))
            .map(|l| l.split_whitespace().next().unwrap().to_string())
            .collect()
    };
    let started = Instant::now();
    let mut listed = list();
    while ids(&listed).len() < 2 {
        assert!(started.elapsed() < WAIT, "not quarantined:\n{listed}");
        std::thread::sleep(Duration::from_millis(300));
        listed = list();
    }
    assert!(listed.starts_with("quarantined mails: 2\n"), "{listed}");
    let (first, second) = (ids(&listed)[0].clone(), ids(&listed)[1].clone());
    assert!(
        first
            .split_once('-')
            .is_some_and(|(v, u)| v.parse::<u32>().is_ok() && u.parse::<u32>().is_ok()),
        "UIDVALIDITY-UID: {first}"
    );
    assert_eq!(
        listed
            .matches(&format!("from {anna}  subject {subject:?}"))
            .count(),
        2,
        "{listed}"
    );
    assert_eq!(
        listed.matches("why: rendering failure").count(),
        2,
        "{listed}"
    );
    assert!(
        listed.contains(&format!(
            "  {first}  {}",
            chrono::Utc::now()
                .with_timezone(&chrono_tz::Europe::Berlin)
                .format("%Y-%m-%d")
        )),
        "received today, in the relay's time zone:\n{listed}"
    );

    // The cause gone (this command is not told to fail): her move is played.
    let said = relay.run_ok(&["quarantine", "retry", &first]);
    assert!(
        said.contains(&format!("{first}: processed and out of quarantine")),
        "{said}"
    );
    let bert_has = wait_for(&bert, 2, WAIT);
    assert_eq!(kinds(&bert_has)[1], "move", "the running relay sent it");
    assert_eq!(ids(&list()), vec![second.clone()]);

    // It fails again: kept under its id, with the new reason.
    let again = relay
        .command(&["quarantine", "retry", &second])
        .env("FERNZUG_CRASH_AT", "in-step")
        .env("FERNZUG_CRASH_IF", &marker)
        .env("FERNZUG_CRASH_HOW", "panic")
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    let why = String::from_utf8_lossy(&again.stderr);
    assert!(
        why.contains(&format!(
            "{second}: quarantined again: failure while processing"
        )),
        "{why}"
    );
    let listed = list();
    assert_eq!(ids(&listed), vec![second.clone()]);
    assert!(listed.contains("why: failure while processing"), "{listed}");

    // An unknown id: one line, exit 1, nothing changed.
    for command in ["retry", "drop"] {
        let out = relay.run(&["quarantine", command, "1-999999"]);
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            "fernzug: no mail in quarantine has the id 1-999999 (`fernzug quarantine list` shows them)\n"
        );
    }
    assert_eq!(list(), listed);

    let said = relay.run_ok(&["quarantine", "drop", &second]);
    assert_eq!(
        said,
        format!("{second}: out of quarantine, not processed\n")
    );
    assert_eq!(list(), "no mail in quarantine\n");
    assert!(!relay.run_ok(&["status"]).contains("quarantined"));
    assert!(
        daemon.0.try_wait().unwrap().is_none(),
        "run went on: {}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    // Nothing more went to Bert than the move (the dropped mail was not processed).
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(fetch_all(&bert).len(), 2);
    stop(&mut daemon);
}

/// Unpacks fixture `name` of tests/fixtures/upgrade into a directory of its own, opens it with
/// the current binary and compares what it says with every section of `name.expected.txt`
/// (`## fernzug ARGS`: the output; `## sha256 of fernzug ARGS`: the SHA-256 of the output);
/// `log`: what the first opening logs; `then` goes on with the store (given a way to run the
/// current binary on it). Returns how many sections were compared.
fn says_what_it_said(
    name: &str,
    no_clock_warnings: bool,
    log: Option<&str>,
    then: impl FnOnce(&dyn Fn(&[&str]) -> (Vec<u8>, String)),
) -> usize {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/upgrade");
    let dir = std::env::temp_dir()
        .join("fernzug-e2e")
        .join(crate::common::unique("upgrade"));
    let data = dir.join("data");
    std::fs::create_dir_all(&data).unwrap();
    let unpacked = std::process::Command::new("tar")
        .arg("xzf")
        .arg(fixtures.join(format!("{name}.tar.gz")))
        .arg("-C")
        .arg(&data)
        .status()
        .unwrap();
    assert!(unpacked.success());
    let config = dir.join("fernzug.toml");
    let text = std::fs::read_to_string(fixtures.join(format!("{name}.toml"))).unwrap();
    let mut text = text.replace("@DATA@", &data.to_string_lossy());
    if no_clock_warnings {
        text = text.replace(
            "time_zone = \"Europe/Berlin\"\n",
            "time_zone = \"Europe/Berlin\"\nwarn_days = 0\n",
        );
    }
    std::fs::write(&config, text).unwrap();
    let fernzug = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_fernzug"))
            .arg("--config")
            .arg(&config)
            .args(args)
            .env_remove("FERNZUG_CONFIG")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "fernzug {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        (
            out.stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let expected = std::fs::read_to_string(fixtures.join(format!("{name}.expected.txt"))).unwrap();
    let mut first = true;
    let mut compared = 0;
    for section in expected.split("\n## ").skip(1) {
        let (head, body) = section.split_once('\n').unwrap_or((section, ""));
        let (command, hashed) = match head.strip_prefix("sha256 of fernzug ") {
            Some(c) => (c, true),
            None => match head.strip_prefix("fernzug ") {
                Some(c) => (c, false),
                None => continue, // the list of game ids
            },
        };
        let args: Vec<&str> = command.split_whitespace().collect();
        let (said, logged) = fernzug(&args);
        if first {
            if let Some(log) = log {
                assert!(
                    logged.contains(log),
                    "the first opening logs {log:?}: {logged}"
                );
            }
            first = false;
        }
        let said = if hashed {
            sha256(&said)
        } else {
            String::from_utf8_lossy(&said).into_owned()
        };
        assert_eq!(said.trim_end(), body.trim_end(), "fernzug {command}");
        compared += 1;
    }
    for game in ["UPG-2026/1", "UPG-2026/2", "UPG-2026/3"] {
        let (verdict, _) = fernzug(&["verify", game]);
        let verdict = String::from_utf8_lossy(&verdict);
        assert!(verdict.starts_with(&format!("ok {game}")), "{verdict}");
    }
    then(&fernzug);
    let _ = std::fs::remove_dir_all(&dir);
    compared
}

/// The SHA-256 of `bytes` in hex (`sha256sum`, as make.sh wrote it).
fn sha256(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sha256sum runs");
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string()
}
