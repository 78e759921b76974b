//! The stack's Postfix refusing on cue, as a real host does: a Postfix policy service
//! (the policy delegation protocol, postfix.org/SMTPD_POLICY_README.html: `name=value` lines and
//! an empty line in, `action=…` and an empty line out) that this test process runs on
//! 127.0.0.1:2527. Postfix asks it at RCPT and DATA for mail that comes in on the stack's port
//! 2526 only (`tests/mailstack/start.sh`), so the other tests never pass through it.
//!
//! Refusals are kept per envelope sender (each relay of a test has its own address), so tests
//! that run at the same time never see each other's: [`refuse`] the relay's mail at a stage with
//! a reply a real host sends, [`lift`] it again. Postfix wraps the text as it does for every
//! restriction (`550 5.4.5 <DATA>: Data command rejected: Daily user sending quota exceeded.`).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Mutex, OnceLock};

/// The policy service's address, as `start.sh` names it.
const ADDRESS: &str = "127.0.0.1:2527";
/// The stack's SMTP port whose RCPT and DATA ask this policy service.
pub const SMTP_PORT: u16 = 2526;

/// Per envelope sender (lower-cased): the refusals, each at a protocol state (`RCPT`, `DATA`),
/// for one recipient or (`None`) every one, and the action.
type Table = HashMap<String, Vec<(String, Option<String>, String)>>;

fn table() -> &'static Mutex<Table> {
    static TABLE: OnceLock<Mutex<Table>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let listener = TcpListener::bind(ADDRESS).unwrap_or_else(|e| {
            panic!("the policy service cannot listen on {ADDRESS}: {e} (another test process?)")
        });
        std::thread::spawn(move || {
            for conn in listener.incoming().flatten() {
                std::thread::spawn(move || serve(conn));
            }
        });
        Mutex::new(HashMap::new())
    })
}

/// From now on, mail from `sender` is answered with `reply` (e.g. `550 5.4.5 Daily user sending
/// quota exceeded.`) at `state` (`RCPT` or `DATA`).
pub fn refuse(sender: &str, state: &str, reply: &str) {
    add(sender, None, state, reply);
}

/// As [`refuse`], for mail to `recipient` only.
pub fn refuse_to(sender: &str, recipient: &str, state: &str, reply: &str) {
    add(sender, Some(recipient), state, reply);
}

fn add(sender: &str, recipient: Option<&str>, state: &str, reply: &str) {
    let mut t = table().lock().unwrap();
    t.entry(sender.to_lowercase()).or_default().push((
        state.to_string(),
        recipient.map(str::to_lowercase),
        reply.to_string(),
    ));
}

/// Mail from `sender` goes through again.
pub fn lift(sender: &str) {
    table().lock().unwrap().remove(&sender.to_lowercase());
}

/// Answers one of Postfix's connections (it keeps them open and asks many times).
fn serve(conn: TcpStream) {
    let Ok(mut out) = conn.try_clone() else {
        return;
    };
    let mut lines = BufReader::new(conn).lines();
    let mut attrs: HashMap<String, String> = HashMap::new();
    while let Some(Ok(line)) = lines.next() {
        if !line.is_empty() {
            if let Some((k, v)) = line.split_once('=') {
                attrs.insert(k.to_string(), v.to_string());
            }
            continue;
        }
        let attr = |k: &str| attrs.get(k).cloned().unwrap_or_default().to_lowercase();
        let (sender, recipient) = (attr("sender"), attr("recipient"));
        let state = attrs.get("protocol_state").cloned().unwrap_or_default();
        let action = table()
            .lock()
            .unwrap()
            .get(&sender)
            .and_then(|refusals| {
                refusals.iter().find_map(|(at, to, action)| {
                    let whom = to.as_ref().is_none_or(|to| *to == recipient);
                    (*at == state && whom).then(|| action.clone())
                })
            })
            .unwrap_or_else(|| "DUNNO".to_string());
        attrs.clear();
        if write!(out, "action={action}\n\n").is_err() {
            return;
        }
    }
}
