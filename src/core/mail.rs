//! [`Mail`]: an outgoing mail as the core decides it — who, what kind, which game, and the
//! facts the template shows. The shell renders it (`crate::render`) and queues it.

use serde::{Deserialize, Serialize};

use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::mail_kind::MailKind;

/// A person the relay writes to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Recipient {
    pub name: String,
    pub email: String,
}

/// An attachment (e.g. the PGN of a finished game).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    pub filename: String,
    pub content_type: String,
    pub body: String,
}

/// One outgoing mail, decided but not yet rendered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mail {
    pub kind: MailKind,
    pub to: Vec<Recipient>,
    pub cc: Vec<Recipient>,
    /// The language of the text: the primary recipient's.
    pub lang: Lang,
    pub game: Option<GameRef>,
    /// The Reply-To key (`relay+KEY@…`), private to the game and the primary recipient.
    pub reply_key: Option<String>,
    /// `X-Fernzug-Color`: the recipient's colour (on `start`).
    pub color: Option<String>,
    /// `X-Fernzug-FEN`: the position after the event.
    pub fen: Option<String>,
    /// The Message-ID (without brackets) of the mail this one answers.
    pub in_reply_to: Option<String>,
    /// The stable Message-ID (without brackets), fixed when the core decides the mail.
    pub message_id: String,
    /// What the template shows.
    pub data: serde_json::Value,
    pub attachments: Vec<Attachment>,
}
