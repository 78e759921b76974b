//! [`Mail`]: an outgoing mail as the core decides it — who, what kind, which game, and the
//! facts the template shows. The shell renders it (`crate::render`) and queues it.

use serde::{Deserialize, Serialize};

use chrono::{NaiveDate, NaiveDateTime};
use shakmaty::Color;

use crate::core::model::{Crosstable, EndReason, Facts, GameResult, Refusal};
use crate::game_ref::GameRef;
use crate::lang::{Board, Lang};
use crate::mail_kind::MailKind;
use crate::notation::Form;

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
    /// Bytes to be sent exactly as they are (base64): an mbox of mails as they arrived. When
    /// set, `body` is empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Vec<u8>>,
}

impl Attachment {
    /// The PGN of `game` (TO §27 game end, §31 adjudication), named after it: `FAX-2026-3-7.pgn`.
    pub fn pgn(game: &GameRef, pgn: String) -> Attachment {
        Attachment {
            filename: format!("{}.pgn", game.to_string().replace('/', "-")),
            content_type: "application/vnd.chess-pgn".into(),
            body: pgn,
            bytes: None,
        }
    }

    /// The mails of `game` as an mbox (TO §11), exactly as `export mbox` writes them:
    /// `FAX-2026-3-7.mbox`.
    pub fn mbox(game: &GameRef, mbox: Vec<u8>) -> Attachment {
        Attachment {
            filename: format!("{}.mbox", game.to_string().replace('/', "-")),
            content_type: "application/mbox".into(),
            body: String::new(),
            bytes: Some(mbox),
        }
    }
}

/// What the shell encloses in a mail from the store, which the core does not hold: the
/// director's records by mail (TO §11, §29).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Enclosure {
    /// The game's mails as `export mbox` gives them, attached as `GAME.mbox`.
    Mbox(GameRef),
    /// A tournament's (or a game's) PGN as `export pgn` gives it, attached.
    Pgn(String),
    /// `verify`'s line for the game, in the text (`verified`).
    Verify(GameRef),
}

/// A sentence of a mail that the core decides as a value and the render layer writes in the
/// mail's language (`crate::render::words`): the core knows *what* to say, never the words.
#[derive(Debug, Clone, PartialEq)]
pub enum Sentence {
    /// TO §8: why the mail is not acted on — the query's `reason`.
    Refusal(Refusal),
    /// What a forward and a receipt point out besides the move (TO §3, §6, §15), one line each.
    Notes(Vec<Note>),
    /// TO §27: how the game ended — the `game-end` report's `reason`.
    EndReason(EndReason),
    /// Fax 2.2: the relay gave a mail up after retrying it for days (the report's `text`).
    GivenUp {
        kind: String,
        recipient: String,
        /// When the mail was decided, in local time.
        created: NaiveDateTime,
        days: i64,
        attempts: u32,
        last_error: String,
        message_id: String,
    },
    /// A tournament's crosstable as monospaced text, headed in the mail's language.
    CrosstableText(Crosstable),
    /// A tournament's crosstable as data for templates (with its text).
    CrosstableData(Crosstable),
    /// The title of a director's notice (the `director` mail's `title`).
    NoticeTitle(Told),
    /// The text of a director's notice (its `text`).
    NoticeText(Told),
    /// A decision about a game (TO §18, §29), as a reply to it names it.
    Decided(crate::core::model::Decided),
    /// TO §29: how to appeal a decision of the director `director` — in writing to him until
    /// `until`, with the documents, the fee and the instances.
    Appeal { director: String, until: NaiveDate },
    /// Every command of the director, one per line (the forms a director's `help` lists).
    DirectorForms,
}

/// What a director's command did, as his notice tells it (TO §21–§26, §30, §31).
#[derive(Debug, Clone, PartialEq)]
pub enum Told {
    /// TO §22: the second time forfeit is confirmed; `name` loses.
    ForfeitConfirmed {
        name: String,
        game: GameRef,
        result: GameResult,
    },
    /// TO §26, §31: the director scored the game (`was`: the result before).
    Scored {
        game: GameRef,
        result: GameResult,
        was: Option<GameResult>,
    },
    /// TO §26: the director annulled the game (`*`, kept out of the crosstable), a finished one
    /// too (`was`: the result before).
    Annulled {
        game: GameRef,
        was: Option<GameResult>,
    },
    /// A stopped game goes on.
    Resumed { game: GameRef, to_move: Color },
    /// TO §30: the game restricted to moves (`on`), or the restriction lifted.
    MovesOnly { game: GameRef, on: bool },
    /// TO §8, §30: thinking time of `player` (his address; `name`) charged (`days` > 0) or
    /// credited; the days used in the period `before` and now (`used`).
    TimeAdjusted {
        game: GameRef,
        name: String,
        player: String,
        days: i32,
        before: u32,
        used: u32,
    },
    /// A player's address changed (`change`: mail goes there now) or added.
    Address {
        name: String,
        address: String,
        change: bool,
        tournament: String,
    },
    /// TO §11: the game's correspondence, attached as an mbox.
    Correspondence { game: GameRef },
    /// TO §11 after Fax 2.8: the game's correspondence was removed four weeks after the
    /// tournament's end (`on`, when known); what is left (the PGN, `verify`'s line) is enclosed.
    CorrespondenceRotated {
        game: GameRef,
        on: Option<NaiveDate>,
    },
    /// The PGN of a tournament or a game, attached.
    Pgn { target: String },
    /// TO §29: `verify`'s line for a game.
    Verified { game: GameRef },
    /// TO §26: a player withdrew; each of his running games ended (`annulled`: as `*`).
    Withdrawn {
        name: String,
        tournament: String,
        annulled: bool,
        games: Vec<GameRef>,
    },
    /// TO §23: the director's question to a player (`asked`: the day; `text`: his words).
    Asked {
        name: String,
        text: String,
        asked: NaiveDate,
    },
    /// TO §23: the player's answer to the director's question of `asked`, whole (without the
    /// quoted original); `moves`: the moves it held, not played.
    Answered {
        name: String,
        question: String,
        asked: NaiveDate,
        answer: String,
        moves: Vec<String>,
    },
    /// TO §23: the question of `asked` is unanswered after 14 days.
    Unanswered {
        name: String,
        question: String,
        asked: NaiveDate,
    },
    /// TO §18, §23, §29: a player's words to the director — a reply to a decision about the game
    /// (`decided`: what and on which day) or an appeal (`appeal`) — whole, as he wrote them
    /// (without the quoted original), with the day they came and the moves they held (not
    /// played).
    ToDirector {
        name: String,
        email: String,
        game: GameRef,
        appeal: bool,
        decided: Option<(crate::core::model::Decided, NaiveDate)>,
        text: String,
        came: NaiveDate,
        moves: Vec<String>,
    },
    /// TO §30: a formal warning of a player (`player`, his address; `name`), the reason being
    /// the notice's, logged in `games`.
    Warned {
        name: String,
        player: String,
        tournament: String,
        games: Vec<GameRef>,
    },
    /// TO §30: every `move` mail of the game goes through the director (`on`), or no longer.
    ThroughDirector { game: GameRef, on: bool },
    /// A tournament registered by mail: its games, numbered, with round and players' names.
    Registered {
        tournament: String,
        name: String,
        start: NaiveDate,
        players: usize,
        games: Vec<(u32, u32, String, String)>,
        /// Fax 1.2: a telefax tournament whose group is not of seven players (registered, with
        /// a warning).
        fax_group: bool,
    },
    /// `Turnier prüfen` / `check tournament`: a tournament file that holds, checked and not
    /// registered: the games it would make, as [`Told::Registered`] lists them.
    Checked {
        tournament: String,
        name: String,
        start: NaiveDate,
        players: usize,
        games: Vec<(u32, u32, String, String)>,
        /// Fax 1.2: a telefax tournament whose group is not of seven players.
        fax_group: bool,
    },
    /// `Turnier prüfen` / `check tournament`: what keeps the file from being registered (as a
    /// registration would be refused); nothing was registered.
    CheckFailed(crate::core::model::RegisterRefusal),
    /// A tournament withdrawn before any move of it was played (`Turnier zurückziehen`): its
    /// `games` will not be played, and the relay forgets them.
    TournamentWithdrawn {
        tournament: String,
        name: String,
        players: usize,
        games: usize,
    },
    /// TO §24 special leave (`special`) or TO §25 a late leave accepted.
    Leave {
        special: bool,
        name: String,
        from: NaiveDate,
        to: NaiveDate,
        tournament: String,
    },
}

/// One remark of a forward or a receipt.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// TO §15: a stated date that is not the relay's.
    DateDiffers {
        which: Stated,
        stated: NaiveDate,
        relay: NaiveDate,
    },
    /// TO §15: stated days used that are not the relay's count.
    DaysDiffer { stated: u32, relay: u32 },
    /// TO §3: the player switched notation forms; accepted, but noted.
    FormSwitch { from: Form, to: Form },
    /// TO §2, §6: the draw offer lapsed at once: a conditional move answered the move.
    DrawOfferLapsed,
}

/// Which date of TO §14 a player stated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stated {
    /// (a): when he received the partner's move.
    Received,
    /// (b): when he sent his own.
    Sent,
}

/// One outgoing mail, decided but not yet rendered.
#[derive(Debug, Clone, PartialEq)]
pub struct Mail {
    pub kind: MailKind,
    pub to: Vec<Recipient>,
    pub cc: Vec<Recipient>,
    /// The language of the text: the primary recipient's.
    pub lang: Lang,
    /// How the text shows the position: as its recipients asked (docs/contract.md "A board a
    /// screen reader reads"). Set per copy by the core's entry points (`copies_per_key`: the
    /// recipients of a copy read the same board); the diagram until then.
    pub board: Board,
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
    /// What the template shows, besides the sentences: typed per kind ([`Facts`]).
    pub facts: Facts,
    /// The sentences the template shows, each under its key in the template's context: a
    /// top-level key (`reason`), or a JSON pointer into the serialised `facts`
    /// (`/tournaments/0/crosstable`).
    pub sentences: Vec<(String, Sentence)>,
    /// The addresses this copy is delivered to (the SMTP envelope): those of `to` and `cc` whose
    /// reply key is this copy's. The core's entry points set it (`State::handle_letter` & co.).
    pub envelope: Vec<String>,
    pub attachments: Vec<Attachment>,
    /// What the shell encloses from the store before the mail is rendered.
    pub enclose: Vec<Enclosure>,
    /// The mail carries a decision about its game (TO §18, §29): each player's copy carries his
    /// key of replies to decisions (`KeyBinding::to_director`), so that his answer reaches the
    /// director, not his partner.
    pub to_director: bool,
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
        facts: impl Into<Facts>,
    ) -> Mail {
        Mail {
            kind,
            to,
            cc: Vec::new(),
            lang,
            board: Board::Diagram,
            game: None,
            reply_key: None,
            color: None,
            fen: None,
            in_reply_to: None,
            message_id,
            facts: facts.into(),
            sentences: Vec::new(),
            envelope: Vec::new(),
            attachments: Vec::new(),
            enclose: Vec::new(),
            to_director: false,
        }
    }

    /// A `director` notice of `told` to `to`: [`Mail::new`] with the notice's title and text as
    /// the sentences its template shows (`title`, `text`).
    pub fn notice(
        told: Told,
        to: Vec<Recipient>,
        lang: Lang,
        message_id: String,
        facts: crate::core::model::DirectorFacts,
    ) -> Mail {
        Mail {
            sentences: vec![
                ("title".into(), Sentence::NoticeTitle(told.clone())),
                ("text".into(), Sentence::NoticeText(told)),
            ],
            ..Mail::new(MailKind::Director, to, lang, message_id, facts)
        }
    }
}
