//! The tests through the real loopback mail stack (Postfix and Dovecot from
//! `tests/mailstack/start.sh`), one binary: each file is a module. The relay is driven with
//! `fernzug once --now …`; the only waiting is for the stack's own delivery.
//!
//! Run one file's tests with `cargo test --test stack relay_e2e::`; the load measurements
//! (`load/`, marked `#[ignore]`) with `scripts/load`.

mod common;
mod policy;
mod proxy;
#[path = "../shared/quiet_walk.rs"]
mod quiet_walk;

mod attacks_e2e;
mod board_e2e;
mod clock_e2e;
mod crash_e2e;
mod decisions_e2e;
mod desk_e2e;
mod director_e2e;
mod endings_e2e;
mod forgery_e2e;
mod http_e2e;
mod io_roundtrip;
mod limits_e2e;
mod load;
mod mailstack_smoke;
mod operations_e2e;
mod overview_e2e;
mod pages_e2e;
mod pictures_e2e;
mod records_e2e;
mod relay_e2e;
mod reliability_e2e;
mod tls_e2e;
mod tournament_end_e2e;
mod words_e2e;
mod xfcc_e2e;
