//! Unreachable players (Fax 2.2): a delivery-status report of a mail the relay sent
//! (`bounce`), and a mail the SMTP server refused outright (`undeliverable`); both go to the
//! director, once per mail and recipient. And the relay itself unreachable: the operator's
//! `alert` (`alert`). Whom an SMTP refusal concerns — that recipient, or the relay's own sending —
//! is decided in `verdict`.

pub mod alert;
pub mod bounce;
pub mod limits;
pub mod undeliverable;
pub mod verdict;

#[cfg(test)]
mod tests;

pub use alert::OperatorAlert;
pub use bounce::Bounce;
pub use undeliverable::Undelivered;
