//! XFCC: the XfccBasic SOAP 1.1 web service that ChessBase, Scid and other correspondence
//! clients speak (docs/xfcc.md), served by `fernzug run` with `[xfcc] listen`.
//!
//! A move by XFCC is a letter by other means: `App::xfcc_letter` (`src/app/xfcc.rs`) writes it as the mail a
//! player would send, and the shell hands that to the core like any mail — same rules, clocks,
//! forwards, receipts, archive and seals. The pieces:
//!
//! - [`soap`] — reading a call from its envelope, writing answers and faults (pure);
//! - [`wsdl`] — the service description served at `?WSDL`;
//! - [`games`] — a player's games as `XfccGame`s, the game ids, and what a `MakeAMove` asks of a
//!   game before it becomes a letter (pure, on the core's state);
//! - `values.rs` — the service's values: [`XfccGame`], [`XfccResult`], [`Code`];
//! - [`login`] — the XFCC passwords (random, kept only as a salted hash) and the limit on failed
//!   logins;
//! - [`server`] — the bounded HTTP/1.1 listener, which hands each call to the daemon's loop and
//!   never touches the store itself.

pub mod games;
pub mod login;
pub mod server;
pub mod soap;
mod values;
pub mod wsdl;

pub use values::{Code, XfccGame, XfccResult};
