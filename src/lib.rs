#![forbid(unsafe_code)]
//! fernzug — an e-mail relay for correspondence chess under the rules of the German correspondence
//! chess federation (BdF). Players mail their moves to one relay address; the relay checks notation
//! and legality, keeps every player's thinking-time clock, forwards the move to the partner, and on
//! its own sends reminders through the tournament director, time-forfeit notices and game reports.
//!
//! # Layout
//!
//! The program is a pure core inside a thin shell (sans-IO, in the manner of quinn-proto):
//!
//! - [`core`] — the rules. Takes the state, one input (a read letter, a tick, a tournament to
//!   register) and `now`; returns decided mails and events as values, and says when it next needs a
//!   tick. No IO, no clock, no randomness inside. Built in layers (`core/mod.rs`, docs/design.md,
//!   checked by `scripts/layers`): `clock` and `model` (the vocabulary), `view`/`pgn`, the
//!   `door` (screening, rate limit, shared replies), one room per rule area (`play`, `time`,
//!   `director`, `unreachable`, `records`, `register`), `route` above them (what a letter is, as a
//!   value, [`core::Route`], and the match that sends it to its room: a reply to a decision goes
//!   to the director from `route.rs` through `director/desk.rs`), and `needs` on top
//!   ([`core::needs::needs`]: what an input needs at hand, which the shell loads). The rulebook,
//!   § by §, with the code and tests of each: docs/rules.md.
//! - [`letter`] — reading one incoming mail (raw bytes → [`letter::Letter`]): headers, the author's
//!   own text without quotes and signatures, and what it says (moves, dates, offers, commands). Pure.
//! - [`notation`] — reading and writing chess moves in every notation the rulebook allows
//!   (German/English algebraic, long algebraic, ICCF numeric, UCI), the text diagram and the piece
//!   lists a screen reader reads. Pure.
//! - [`render`] — a decided mail → RFC 5322 bytes, from the templates in `templates/de|en` (the
//!   frames) and `render::words` (every sentence the core decides as a value).
//! - [`config`], [`tournament_file`] — the two files an operator writes.
//! - [`store`] — the one module that touches the database (redb): state, event log, outbox, archive,
//!   IMAP UIDs; a handle ([`store::Store`]) and a face for each part (`store.outbox()`,
//!   `store.archive()`, `store.due()`, `store.step()`, `store.upgrade()`), its version upgraded by
//!   ordered steps.
//! - [`imap`], [`smtp`] — the network: fetching with `BODY.PEEK[]` and IDLE; sending raw mail;
//!   [`tls`] — whom they trust (the system store plus `ca_file`) and the one line an operator reads
//!   when a certificate is refused; [`secret`] — passwords from the environment, a file or a
//!   command, never shown; [`check`] — `fernzug check`, the operator's first contact with the host.
//! - [`app`] — the shell's steps, `App`'s entry points: open (`app/open.rs`), process one mail
//!   in one transaction (`app/step.rs`, under one guard: a mail whose step fails or panics is
//!   quarantined, docs/security.md; `app/stage.rs` puts what the core decided into it), tick,
//!   register. `app/working/` is the working set: it loads the games, keys and records an input
//!   needs — as `core::needs` names them, nothing else decides what to load — and drops them
//!   again.
//! - [`daemon`] — `once` and `run` over IMAP and SMTP, reached through a seam (mailbox, sender,
//!   clock) so the in-process tests run them on paused time; [`cli`] — the command line; [`mbox`] — a
//!   game's archive as mboxrd (TO §11).
//! - [`crash`] — named crash points for the crash tests (`FERNZUG_CRASH_AT`, `FERNZUG_CRASH_IF`),
//!   shell only.
//! - [`xfcc`] — XfccBasic, the SOAP service of correspondence-chess programs (ChessBase, Scid),
//!   served by `run` with `[xfcc]`: a move by XFCC is handed to the core as the letter it
//!   stands for (docs/xfcc.md).
//! - [`http`] — the HTTP/1.1 listener (hyper's server under the relay's bounds: connections per
//!   client, the head's size and time, security headers) that the services plug into
//!   ([`http::Service`]): XFCC, the operator's `/healthz` and `/metrics`, the pages;
//!   [`pages`] — the tournament pages (`/`, `/t/ID`, `/g/ID/N`), read-only from a read
//!   transaction of the store, built once per change of it; [`vitals`] — how the relay is doing
//!   (the last IMAP and SMTP successes and failures, the outbox and quarantine), the operator's
//!   alerts and the metrics registry.
//! - Vocabulary: [`game_ref`], [`lang`], [`rules`], [`mail_kind`].

pub mod app;
pub mod check;
pub mod cli;
pub mod config;
pub mod core;
pub mod crash;
pub mod daemon;
pub mod game_ref;
pub mod http;
pub mod imap;
mod io_text;
pub mod lang;
pub mod letter;
pub mod mail_kind;
pub mod mbox;
pub mod notation;
pub mod pages;
pub mod render;
pub mod rules;
pub mod secret;
pub mod smtp;
pub mod store;
pub mod tls;
pub mod tournament_file;
pub mod vitals;
pub mod xfcc;
