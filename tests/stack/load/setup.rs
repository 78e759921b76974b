//! Setting the scene: relays pointed at the sink or at Postfix, tournaments of exactly N games,
//! move mails waiting in the relay's INBOX, and waiting for the stack to deliver.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use super::wire::{Envelope, bare_send};
use crate::common::{
    DOMAIN, HOST, IMAP_PORT, Mailbox, PASSWORD, Relay, SMTP_PORT, Tournament, text_mail, unique,
    unique_addr,
};

/// Points the relay's SMTP at `port` on 127.0.0.1 (IMAP stays on the stack).
pub fn smtp_to(relay: &Relay, port: u16) {
    relay.set_servers(
        &format!(
            "host = \"{HOST}\"\nport = {IMAP_PORT}\nsecurity = \"none\"\nuser = {{address}}\n\
             password = \"{PASSWORD}\"\nmailbox = \"INBOX\"\n"
        ),
        &format!("host = \"{HOST}\"\nport = {port}\nsecurity = \"none\"\n"),
    );
}

/// Points the relay's SMTP back at Postfix.
pub fn smtp_to_postfix(relay: &Relay) {
    smtp_to(relay, SMTP_PORT);
}

/// The fewest players whose round robin has at least `games` games.
pub fn players_for(games: usize) -> usize {
    (2..).find(|p| p * (p - 1) / 2 >= games).expect("some p")
}

/// The first `n` pairings (white, black) of a round robin of `players` by the circle method,
/// round after round, colours alternating.
pub fn pairings(players: usize, n: usize) -> Vec<(usize, usize)> {
    let m = players + players % 2; // a bye as the last one when odd
    let mut out = Vec::with_capacity(n);
    for round in 0..m - 1 {
        for k in 0..m / 2 {
            let a = if k == 0 { m - 1 } else { (round + k) % (m - 1) };
            let b = (round + m - 1 - k) % (m - 1);
            if a >= players || b >= players {
                continue;
            }
            let (w, b) = if (round + k) % 2 == 0 { (a, b) } else { (b, a) };
            out.push((w, b));
            if out.len() == n {
                return out;
            }
        }
    }
    out
}

/// A tournament file of exactly `games` games (explicit `[[games]]`) between fresh players,
/// starting today; returns it and the players' addresses.
pub fn tournament(relay: &Relay, prefix: &str, games: usize) -> (Tournament, Vec<String>) {
    let p = players_for(games);
    let players: Vec<(String, String)> = (0..p)
        .map(|i| (format!("Spieler {i}"), unique_addr(&format!("{prefix}{i}"))))
        .collect();
    let entries: Vec<(&str, &str, Option<&str>)> = players
        .iter()
        .map(|(n, e)| (n.as_str(), e.as_str(), None))
        .collect();
    let pairs: Vec<(&str, &str)> = pairings(p, games)
        .into_iter()
        .map(|(w, b)| (players[w].1.as_str(), players[b].1.as_str()))
        .collect();
    assert_eq!(pairs.len(), games);
    let today = chrono::Utc::now().date_naive().to_string();
    let t = relay.tournament_with_games(&entries, &pairs, "fax", &today);
    (t, players.into_iter().map(|(_, e)| e).collect())
}

/// A tournament of `games` games registered by `tournament add` in a relay pointed at `sink`,
/// then its start mails delivered by ONE `fernzug once`: the tournament, the two runs, and
/// the mails the sink took (asserted: two per game).
pub fn started_at_sink(
    relay: &Relay,
    prefix: &str,
    games: usize,
    sink: &super::wire::Sink,
) -> (
    Tournament,
    super::proc::Ran,
    super::proc::Ran,
    Vec<Envelope>,
) {
    let (t, _) = tournament(relay, prefix, games);
    let add = super::proc::fernzug(relay, &["tournament", "add", t.path.to_str().unwrap()], &[]);
    smtp_to(relay, sink.port);
    sink.take();
    let before = sink.count();
    let start = super::proc::fernzug(relay, &["once"], &[]);
    let sent = sink.count() - before;
    assert_eq!(
        sent,
        2 * games,
        "the relay's once delivered {sent} of {} start mails",
        2 * games
    );
    (t, add, start, sink.take())
}

/// A game as `status --json` lists it.
#[derive(Debug, Clone)]
pub struct Game {
    pub id: String,
    pub white: String,
    pub black: String,
}

/// Every game of the relay (`status --json`).
pub fn games(relay: &Relay) -> Vec<Game> {
    let out = super::proc::run_ok(relay, &["status", "--json"]);
    let v: Vec<serde_json::Value> = serde_json::from_str(&out).expect("status --json");
    v.iter()
        .map(|g| Game {
            id: g["id"].as_str().expect("id").to_string(),
            white: g["white"].as_str().expect("white").to_string(),
            black: g["black"].as_str().expect("black").to_string(),
        })
        .collect()
}

/// A short move mail as a player writes it.
pub fn move_mail(from: &str, to: &str, subject: &str, body: &str) -> Envelope {
    let id = format!("<{}@{DOMAIN}>", unique("load"));
    Envelope {
        from: from.to_string(),
        to: vec![to.to_string()],
        data: text_mail(from, to, subject, &format!("{body}\n\nGruß"), &id).into_bytes(),
    }
}

/// Sends `mails` to Postfix over one connection and waits until `mailbox` holds `before +
/// mails.len()` messages.
pub fn put_waiting(mailbox: &str, mails: &[Envelope]) {
    let mut b = Mailbox::open(mailbox).expect("IMAP");
    let before = b.count().expect("STATUS");
    bare_send(SMTP_PORT, mails).expect("send to Postfix");
    wait_count(
        &mut b,
        before + mails.len(),
        Duration::from_secs(60) + Duration::from_millis(50) * mails.len() as u32,
        Duration::from_millis(50),
    )
    .unwrap_or_else(|e| panic!("{mailbox}: {e}"));
}

/// Polls STATUS every `poll` until the mailbox holds `n` messages.
pub fn wait_count(
    b: &mut Mailbox,
    n: usize,
    timeout: Duration,
    poll: Duration,
) -> Result<Instant, String> {
    let started = Instant::now();
    loop {
        let c = b.count()?;
        if c >= n {
            return Ok(Instant::now());
        }
        if started.elapsed() > timeout {
            return Err(format!("{c} of {n} messages after {timeout:?}"));
        }
        std::thread::sleep(poll);
    }
}

/// Waits until the mailboxes together hold at least `total` messages, or until their sum has
/// not changed for `quiet`; returns the counts.
pub fn wait_total(
    boxes: &[String],
    total: usize,
    quiet: Duration,
    timeout: Duration,
) -> BTreeMap<String, usize> {
    // Dovecot allows a limited number of connections: up to KEPT stay open, the others are
    // opened for each look.
    const KEPT: usize = 400;
    let mut open: Vec<(String, Mailbox)> = boxes
        .iter()
        .take(KEPT)
        .map(|a| (a.clone(), Mailbox::open(a).expect("IMAP")))
        .collect();
    let started = Instant::now();
    let mut last = (usize::MAX, Instant::now());
    loop {
        let mut counts: BTreeMap<String, usize> = open
            .iter_mut()
            .map(|(a, b)| (a.clone(), b.count().expect("STATUS")))
            .collect();
        for a in boxes.iter().skip(KEPT) {
            let n = Mailbox::open(a)
                .and_then(|mut b| b.count())
                .expect("STATUS");
            counts.insert(a.clone(), n);
        }
        let sum: usize = counts.values().sum();
        if sum >= total || started.elapsed() > timeout {
            return counts;
        }
        if sum != last.0 {
            last = (sum, Instant::now());
        } else if last.1.elapsed() > quiet {
            return counts;
        }
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `relay+KEY@…`: a player's reply address for one game.
pub fn key_address(relay: &Relay, key: &str) -> String {
    let (local, domain) = relay.address.split_once('@').expect("relay address");
    format!("{local}+{key}@{domain}")
}

/// A fresh seed for the generator (its players' addresses depend on it, so every run has mailboxes
/// of its own).
pub fn fresh_seed() -> u64 {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    (t as u64 ^ u64::from(std::process::id()).rotate_left(32)) & 0xffff_ffff
}

/// The move mails of `games` (each from the player on move to his `relay+KEY@` address, one per
/// game), each repeating the partner's last move before his own as TO §2 wants (`16. g3` /
/// `16... Nf6`); the partner's last move is read with `status TOURNAMENT --json`.
pub fn generated_moves(relay: &Relay, games: &[super::generator::RunningGame]) -> Vec<Envelope> {
    let tournaments: BTreeSet<&str> = games
        .iter()
        .map(|g| g.game.split_once('/').map_or(g.game.as_str(), |(t, _)| t))
        .collect();
    let mut last: BTreeMap<String, String> = BTreeMap::new();
    for t in tournaments {
        let out = super::proc::run_ok(relay, &["status", t, "--json"]);
        let v: Vec<serde_json::Value> = serde_json::from_str(&out).expect("status --json");
        for g in &v {
            if let (Some(id), Some(san)) = (
                g["id"].as_str(),
                g["moves"]
                    .as_array()
                    .and_then(|m| m.last())
                    .and_then(|m| m.as_str()),
            ) {
                last.insert(id.to_string(), san.to_string());
            }
        }
    }
    games
        .iter()
        .map(|g| {
            let n = g.move_number;
            let body = match (last.get(&g.game), g.white_to_move) {
                (Some(l), true) => format!("{}... {l}\n{n}. {}", n - 1, g.san),
                (Some(l), false) => format!("{n}. {l}\n{n}... {}", g.san),
                (None, _) => g.move_text(),
            };
            move_mail(
                &g.mover,
                &key_address(relay, &g.key),
                &format!("Re: [{}] Zug", g.game),
                &body,
            )
        })
        .collect()
}

/// Counts, per game, the forwards (`X-Fernzug-Kind: move`) in the partners' mailboxes; the games
/// of `expected` (game → partner) whose forward did not arrive exactly once, as text.
pub fn forwards_not_once(expected: &BTreeMap<String, String>) -> Vec<String> {
    let mut by_partner: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (g, p) in expected {
        by_partner.entry(p.as_str()).or_default().push(g.as_str());
    }
    let mut wrong = Vec::new();
    for (partner, games) in by_partner {
        let mails = crate::common::fetch_all(partner);
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        for m in &mails {
            if crate::common::header(m, "X-Fernzug-Kind").as_deref() == Some("move") {
                let g = crate::common::header(m, "X-Fernzug-Game").unwrap_or_default();
                *seen.entry(g).or_default() += 1;
            }
        }
        for g in games {
            let n = seen.get(g).copied().unwrap_or(0);
            if n != 1 {
                wrong.push(format!("{g}: {n} forwards to {partner}"));
            }
        }
    }
    wrong
}
