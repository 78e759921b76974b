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

impl Attachment {
    /// The PGN of `game` (TO §27 game end, §31 adjudication), named after it: `FAX-2026-3-7.pgn`.
    pub fn pgn(game: &GameRef, pgn: String) -> Attachment {
        Attachment {
            filename: format!("{}.pgn", game.to_string().replace('/', "-")),
            content_type: "application/vnd.chess-pgn".into(),
            body: pgn,
        }
    }
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

impl Mail {
    /// A mail of `kind` to `to` and nobody else, about no game, answering nothing, without
    /// headers for colour or position and without attachments: the fields a call site sets
    /// beyond these it names with struct update syntax (`Mail { game, ..Mail::new(…) }`).
    pub fn new(
        kind: MailKind,
        to: Vec<Recipient>,
        lang: Lang,
        message_id: String,
        data: serde_json::Value,
    ) -> Mail {
        Mail {
            kind,
            to,
            cc: Vec::new(),
            lang,
            game: None,
            reply_key: None,
            color: None,
            fen: None,
            in_reply_to: None,
            message_id,
            data,
            attachments: Vec::new(),
        }
    }
}
