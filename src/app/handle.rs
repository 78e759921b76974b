//! The relay opened ([`App`]) and what comes with it: what a command keeps of a closed one
//! ([`Held`]), the records read for showing ([`Records`]), what a mail led to ([`Processed`]),
//! fresh reply keys. `App`'s entry points are in `crate::app` (`app.rs`) and in the files of the
//! parts they belong to.

use rand::Rng;

use super::passwords::Issuer;
use super::working::Working;
use crate::config::Config;
use crate::core::{Settings, State};
use crate::render::Templates;
use crate::store::Store;

/// What a processed incoming mail led to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Processed {
    /// Acted on (or deliberately not answered); the log lines say what, and `refused` holds the
    /// refusals it drew: those made at once (a call's, `Output::refused`), then those of the
    /// queries to its sender (an XFCC move is answered with the code of the first,
    /// `crate::xfcc::games::code_of`).
    Done {
        log: Vec<String>,
        refused: Vec<crate::core::model::Refusal>,
    },
    /// The same Message-ID was processed before: nothing happened again.
    Duplicate,
    /// It could not be processed; kept in quarantine with the reason.
    Quarantined(String),
}

/// The records as the shell reads them for showing or enclosing (`App::records`): the state in
/// memory and, for what is not there, the store, its archive and the shelf (`desk.rs`,
/// `verify.rs`, `shelf.rs`, `bounces.rs`). It only reads.
pub struct Records<'a> {
    pub(crate) state: &'a State,
    pub(crate) store: &'a Store,
    pub(crate) settings: &'a Settings,
}

/// What [`App::close`] keeps of a closed relay for [`App::reopen`].
pub struct Held {
    pub(super) generation: u64,
    pub(super) state: State,
    pub(super) working: Working,
    /// The templates as read at the daemon's start (read once: a changed template is used after
    /// a restart).
    pub(super) templates: Templates,
}

/// The loaded relay.
pub struct App {
    pub config: Config,
    pub settings: Settings,
    pub store: Store,
    pub state: State,
    pub templates: Templates,
    /// Group commit ([`App::group`]): the mails' transactions are applied and made durable
    /// together by [`App::sync`], before any of them is acknowledged.
    pub(super) grouped: bool,
    /// What of the store is in memory beside the state, and how the rest gets there
    /// (`working/`): the index of deadlines, the rotated tournaments not read.
    pub(super) working: Working,
    /// The XFCC passwords this process issued (`xfcc.rs`).
    pub(super) xfcc_issued: Issuer,
}

/// Start mails queued per transaction: games of a tournament whose start mails are rendered and
/// queued together (two mails each).
pub const START_CHUNK: usize = 100;

/// How long a command waits for the store while another fernzug process holds it.
pub const LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// The file by which a command asks the running daemon, which keeps the store open while it
/// waits for mail, to let go of it (`crate::daemon` looks for it several times a second). It is
/// there while a command waits for the store, and removed once it has it.
pub fn store_request(data_dir: &std::path::Path) -> std::path::PathBuf {
    data_dir.join("store.wanted")
}

/// Fresh keys the shell hands the core beside what an input asks for (`State::spare_keys`): the
/// two players' keys of replies to decisions of a game registered before there were any, twice.
pub(super) const SPARE_KEYS: usize = 4;

/// `n` fresh random reply keys ([`new_key`]).
pub(super) fn fresh_keys(n: usize) -> Vec<String> {
    (0..n).map(|_| new_key()).collect()
}

/// A fresh random reply key: 128 bits from the operating system's random source
/// (`getrandom`), hex (docs/contract.md: private to the game and recipient; docs/security.md).
pub fn new_key() -> String {
    let bytes: [u8; 16] = rand::rngs::OsRng.r#gen();
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
