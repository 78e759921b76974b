//! The vocabulary of a read letter: what the reader found in one incoming mail.
//!
//! The reader (`crate::letter::read_letter`) fills these from raw bytes, with no
//! knowledge of any game; the core (`crate::core`) judges them against the games.

use chrono::{DateTime, FixedOffset};
use serde::{Deserialize, Serialize};
use shakmaty::Color;

use crate::game_ref::GameRef;

/// One incoming mail as the relay understands it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Letter {
    /// The Message-ID without angle brackets; `sha256:<hex>`-like hash of the raw mail when it has none.
    pub message_id: String,
    /// The sender's address (addr-spec of `From:`), lower-cased.
    pub from: String,
    /// The sender's display name, decoded (RFC 2047).
    pub from_name: Option<String>,
    /// The decoded subject.
    pub subject: String,
    /// The game named in the subject as `[TOURNAMENT/N]`.
    pub game_ref: Option<GameRef>,
    /// Every KEY of a `relay+KEY@…` address among To, Cc, Delivered-To, X-Original-To.
    pub reply_keys: Vec<String>,
    /// Message-IDs of In-Reply-To and References, without angle brackets.
    pub references: Vec<String>,
    /// Why this mail is an automatic one that must never be answered (RFC 3834), if it is.
    pub automatic: Option<AutoReason>,
    /// The sender's `Date:` header. Never used for time (the postmark is the relay's receipt time).
    pub date_header: Option<DateTime<FixedOffset>>,
    /// The author's own text: quotes, reply headers, signatures and footers removed.
    pub text: String,
    /// The names of the mail's attachments (the MIME type where one has no name): never
    /// forwarded; the partner is told of them (TO §30).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
    /// What that text says.
    pub content: Content,
    /// X-Loop, Authentication-Results, size (`crate::letter::auth`).
    #[serde(default, skip_serializing_if = "crate::letter::auth::Trace::is_empty")]
    pub trace: crate::letter::auth::Trace,
    /// Fax 2.2: the delivery-status notification (RFC 3464) the mail is, if it is one. Not part
    /// of the serialised reading (the corpus' `.expected.json`); the core's answer shows it.
    #[serde(skip)]
    pub dsn: Option<crate::letter::dsn::Dsn>,
}

/// Why a mail counts as automatic (RFC 3834 and common practice).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AutoReason {
    /// `Auto-Submitted:` with a value other than `no`.
    AutoSubmitted(String),
    /// `Precedence: bulk|junk|list|auto_reply`.
    Precedence(String),
    /// `X-Autoreply`, `X-Autorespond`, `X-Auto-Response-Suppress: All` or similar.
    AutoreplyHeader(String),
    /// `List-Id` or `List-Unsubscribe`.
    MailingList,
    /// Empty return path (`Return-Path: <>`).
    EmptyReturnPath,
    /// From mailer-daemon or postmaster.
    MailerDaemon,
    /// multipart/report (delivery-status or disposition-notification).
    Report(String),
}

/// What the author's text says, read without knowledge of the game.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Content {
    /// Numbered moves of the main text, in the order written.
    pub moves: Vec<MoveToken>,
    /// TO §14 (a): stated arrival date of the partner's move.
    pub received: Option<StatedDate>,
    /// TO §14 (b): stated dispatch date of the own move.
    pub sent: Option<StatedDate>,
    /// TO §14 (c): stated thinking time used, in days.
    pub days_used: Option<u32>,
    /// TO §2: an explicit draw offer in words.
    pub draw_offer: bool,
    /// TO §2: an explicit draw acceptance in words.
    pub draw_accept: bool,
    /// TO §2: an explicit resignation in words.
    pub resign: bool,
    /// FIDE 9.2: an explicit claim of threefold repetition.
    pub claim_repetition: bool,
    /// TO §13: announcement of more than 10 days for the current move.
    pub announce_long_think: bool,
    /// TO §6: conditional lines (Eventualzüge), each in numeric order.
    pub conditional: Vec<Vec<MoveToken>>,
    /// TO §24: a leave request.
    pub leave: Option<DateSpan>,
    /// `Status`: the sender asks for his games.
    pub status_request: bool,
    /// `XFCC-Passwort` / `XFCC password`: the sender asks for a new XFCC password (answered with
    /// his status, which carries it; docs/xfcc.md).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub xfcc_password: bool,
    /// TO §4: the sender tries to take something back.
    pub take_back: bool,
    /// A bare result (`1-0`, `0-1`, `½`, `1/2`, `remis?` without an own move…) not written out in words: doubtful (§2/§8).
    pub bare_result: Option<String>,
    /// Commands only the tournament director may give.
    pub director: Vec<DirectorCommand>,
    /// Things that make the mail doubtful (§2/§8), each said in English for the log and as a key for templates.
    pub doubts: Vec<Doubt>,
    /// Requests recognised in the writer's sentences but incomplete or not certain
    /// (`crate::letter::requests`): each is queried, never guessed (TO §2, §8).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asks: Vec<Ask>,
    /// The writer's own words (TO §30): his prose as written, without what the reader read
    /// (moves, dates, commands, the sentences of requests); what the partner reads beside the
    /// move. Empty when there are none.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub words: String,
    /// TO §30: the text is words and nothing else — no move, nothing that looks like a failed
    /// one, no request, no date, no command: a `message` for the partner.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub message: bool,
    /// TO §17: `Keine Warnungen` / `no warnings` (`Some(false)`), `Warnungen` / `warnings`
    /// (`Some(true)`): the sender's clock warnings off or on again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<bool>,
    /// `Brett: Liste` / `board: list` (`List`), `Brett: Diagramm` / `board: diagram`
    /// (`Diagram`), the subject or a line alone: how the sender's mails show the position from
    /// now on (docs/contract.md "A board a screen reader reads").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<crate::lang::Board>,
    /// TO §24: `Urlaub zurückgezogen` / `cancel leave` (also in a sentence): a planned leave not
    /// yet begun is withdrawn — the one of these dates, when the writer names them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdraw_leave: Option<Withdrawal>,
    /// A tournament file sent to be registered (subject `Turnier anmelden` / `register
    /// tournament`): the mail says nothing else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub register: Option<Enrolment>,
    /// With [`Content::register`]: the file is to be checked only (subject `Turnier prüfen` /
    /// `check tournament`): answered with its errors or its games, nothing registered.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub check_only: bool,
    /// `Turnier zurückziehen: ID` / `withdraw tournament: ID` (the subject, or a line of the
    /// text): the tournament `ID` is to be withdrawn before its first move (empty: the mail
    /// names none). The mail says nothing else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdraw_tournament: Option<String>,
    /// `Hilfe` / `help` (the whole text, or the subject): the sender asks how to write to the
    /// relay; answered with the forms, nothing forwarded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub help: bool,
    /// TO §29: `Einspruch: TEXT` / `appeal: TEXT` — an appeal to the director; the text after the
    /// colon (the whole mail goes to the director).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub appeal: Option<String>,
    /// `Übersicht` / `overview` (the whole text, or the subject): the sender asks for the
    /// overview of his games, or to get it every Monday, or no longer
    /// (`crate::letter::requests::overview`). The mail says nothing else.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overview: Option<OverviewAsk>,
}

/// What a player asks of his overview (`Übersicht`, `Übersicht wöchentlich`, `Übersicht aus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum OverviewAsk {
    /// `Übersicht` / `overview`: once, now.
    Now,
    /// `Übersicht wöchentlich` / `weekly overview`: now, and every Monday from now on.
    Weekly,
    /// `Übersicht aus` / `overview off`: no longer every Monday.
    Off,
}

/// The tournament file of a mail that asks to register a tournament, or what keeps it from
/// being one (`crate::letter::enrol`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Enrolment {
    /// The file's text: a `.toml` attachment's (`name`), or the mail's own (`None`).
    Text { name: Option<String>, text: String },
    /// Neither a `.toml` attachment nor any text.
    Missing,
    /// More than one `.toml` attachment: which is meant?
    Several(Vec<String>),
    /// Larger than [`crate::letter::enrol::MAX_FILE_BYTES`] (`name` empty: the text).
    TooLarge { name: String, bytes: usize },
    /// The attachment is not UTF-8 text.
    NotText { name: String },
}

/// TO §24: which planned leave a player withdraws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Withdrawal {
    /// The leave's dates as he names them; `None`: his one planned leave.
    pub span: Option<DateSpan>,
}

impl Content {
    /// Whether nothing but words was read: no move or conditional line, no §14 statement, no
    /// request (certain or not), no command, no doubt, no bare result.
    pub fn only_words(&self) -> bool {
        !self.words.is_empty()
            && self.moves.is_empty()
            && self.conditional.is_empty()
            && self.received.is_none()
            && self.sent.is_none()
            && self.days_used.is_none()
            && !(self.draw_offer
                || self.draw_accept
                || self.resign
                || self.claim_repetition
                || self.announce_long_think
                || self.status_request
                || self.xfcc_password
                || self.take_back)
            && self.leave.is_none()
            && self.warnings.is_none()
            && self.board.is_none()
            && self.withdraw_leave.is_none()
            && self.bare_result.is_none()
            && self.director.is_empty()
            && self.doubts.is_empty()
            && self.asks.is_empty()
            && !self.help
            && self.overview.is_none()
            && self.appeal.is_none()
    }
}

/// The requests a player can make in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RequestKind {
    /// TO §2: a draw offer.
    Offer,
    /// TO §2: accepting the partner's draw offer.
    Accept,
    /// TO §2: a draw word that may be an offer, an acceptance or neither.
    Draw,
    /// TO §2: a resignation.
    Resign,
    /// TO §13: more than 10 days for the next move.
    Announce,
    /// FIDE 9.2: a draw claim by repetition.
    Claim,
    /// TO §24: leave.
    Leave,
    /// TO §4: taking something back.
    TakeBack,
    /// Asking for the status of one's games.
    Status,
    /// TO §24: withdrawing a planned leave before it begins.
    WithdrawLeave,
    /// TO §11, §29: the director asks for a game's correspondence, a PGN, or its check.
    Records,
    /// TO §26: the director withdraws a player.
    Withdrawal,
    /// TO §23: the director's question to a player.
    Question,
    /// TO §30: the director orders a game's moves through him.
    ThroughDirector,
}

/// What keeps a recognised request from being acted on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Missing {
    /// A leave without any readable date.
    Dates,
    /// A leave whose first day is missing (`bis 23.12.`).
    FirstDay,
    /// A leave whose last day is missing (`ab dem 10.12.`).
    LastDay,
    /// A leave whose last day comes before its first.
    Order,
    /// §13 without the number of days (`ich brauche länger`).
    Days,
    /// The sentence hedges or asks (`vielleicht`, `sollte ich …?`): not a declaration.
    Certainty,
    /// A draw word that is neither clearly an offer nor an acceptance.
    Which,
    /// Two different leaves in one mail: each goes in a mail of its own.
    OnePerMail,
    /// The director's request names no game (`TOURNAMENT/N`).
    Game,
    /// The director's request names no player by his address.
    Player,
    /// A withdrawal that does not say how the games count: lost or annulled (TO §26).
    Scoring,
    /// A question without its words.
    Text,
}

/// A request recognised but not acted on: the sentence as written and what is missing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ask {
    pub kind: RequestKind,
    pub sentence: String,
    pub missing: Missing,
}

/// One numbered move as written: `12. Lb5` is (12, White, "Lb5"), `12... a6` is (12, Black, "a6").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveToken {
    pub number: u32,
    #[serde(with = "color_serde")]
    pub color: Color,
    /// The move text as written (trimmed), e.g. `Sg1-f3`, `5254`, `O - O`.
    pub text: String,
}

/// A date as a player wrote it; the year may be missing (`30.11.`), the core completes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatedDate {
    pub day: u32,
    pub month: u32,
    pub year: Option<i32>,
}

/// A span of days, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DateSpan {
    pub from: StatedDate,
    pub to: StatedDate,
}

/// A director's command (TO §22, §24, §25, §26, §30, §31; Fax 2.2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum DirectorCommand {
    /// §22: `ZÜ bestätigt` / `confirm time forfeit`.
    ConfirmForfeit,
    /// `Ergebnis: 1-0` / `result: 1/2-1/2`; the value is one of `1-0`, `0-1`, `1/2-1/2`, or
    /// `annulled` (`Ergebnis: annulliert` / `result: annulled`, TO §26: the game kept out of the
    /// crosstable, also a finished one).
    SetResult(String),
    /// §24: `Sonderurlaub: 01.02.2027 – 14.02.2027 für anna@…`.
    SpecialLeave { span: DateSpan, player: String },
    /// §8/§30/Fax 2.2: time used changed — `days` > 0 **charges** that many days (more used:
    /// `Bedenkzeit: +3 Tage für anna@…`, `Bedenkzeit anrechnen: 3 Tage für …`, `charge time: …`,
    /// in sentences `angerechnet`, `abgezogen`, `gekürzt`, `charged`, `deducted`), `days` < 0
    /// **credits** them (fewer used: `Bedenkzeit: -3 Tage …`, `Bedenkzeit gutschreiben: 3 Tage
    /// für …`, `credit time: …`, in sentences `gutgeschrieben`, `zurückgegeben`, `credited`,
    /// `given back`).
    ///
    /// `player` is the player's address; a sentence that names none but a person (`Frau Adler
    /// werden 4 Tage Bedenkzeit gutgeschrieben`) gives his name as written (`Adler`, `Anna
    /// Adler`: no `@`), which the core matches against the game's two players. `reason` is the
    /// text after `Grund:` / `reason:` (empty when the line has none), or the whole sentence.
    AdjustTime {
        days: i32,
        player: String,
        reason: String,
    },
    /// §25: `Urlaub nachträglich anerkannt … für anna@…`.
    AcceptLateLeave { span: DateSpan, player: String },
    /// `fortsetzen` / `resume`.
    Resume,
    /// A player's address: `Adresse: anna@x.de -> anna.neu@y.de` (`change`: mail goes to the new
    /// address from now on) or `Weitere Adresse: anna@x.de + anna.handy@y.de` (an address he may
    /// also write from). Both count as his from then on.
    Address {
        player: String,
        address: String,
        change: bool,
    },
    /// TO §30: `Nur Züge: GAME` / `moves only: GAME` (`on`), `Nur Züge aufgehoben: GAME` /
    /// `moves only off: GAME`: no words of either player of the game are forwarded.
    MovesOnly { game: String, on: bool },
    /// TO §11: `Korrespondenz: GAME` / `correspondence: GAME`: the game's mails as an mbox.
    Correspondence { game: String },
    /// `PGN: TOURNAMENT` / `pgn: TOURNAMENT` (or a game): the PGN as `export pgn` gives it.
    Pgn { target: String },
    /// TO §29: `Prüfen: GAME` / `verify: GAME`: `verify`'s line for the game.
    Verify { game: String },
    /// TO §26: `Rücktritt: anna@… Wertung: verloren` / `withdraw: anna@… score: annulled`: every
    /// running game of the player ends, lost for him (`annulled`: kept out of the crosstable).
    Withdraw { player: String, annulled: bool },
    /// TO §23: `Rückfrage an anna@…: TEXT` / `ask anna@…: TEXT`: the director's question —
    /// every line he wrote after the colon, up to his signature.
    Ask { player: String, text: String },
    /// TO §30: `Ermahnung: anna@… Grund: TEXT` / `warning: anna@… reason: TEXT`: a formal
    /// warning of a player, with its reason.
    Warn { player: String, reason: String },
    /// TO §30: `Züge über TL: GAME` / `moves through TL: GAME` (`on`), `… aufgehoben` / `… off`:
    /// every `move` mail of the game has the director in copy.
    ThroughDirector { game: String, on: bool },
    /// A line that looks like a command but is malformed: the line as written.
    Malformed(String),
}

/// Something that makes a mail doubtful (§2, §8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Doubt {
    /// A move appears struck out or corrected (`~~Sf3~~`, `Sf3 (nein: Sc3)`, `<del>`/`<s>` in HTML).
    StruckOut(String),
    /// A line that starts like a move number but cannot be read: the line as written.
    Unreadable(String),
}

/// Why raw bytes could not be read as a mail at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("the message cannot be parsed as an Internet mail")]
    Unparseable,
    #[error("the message has no sender address in From:")]
    NoSender,
}

mod color_serde {
    use serde::{Deserialize, Deserializer, Serializer};
    use shakmaty::Color;

    pub fn serialize<S: Serializer>(c: &Color, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if c.is_white() { "white" } else { "black" })
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Color, D::Error> {
        match String::deserialize(d)?.as_str() {
            "white" => Ok(Color::White),
            "black" => Ok(Color::Black),
            other => Err(serde::de::Error::custom(format!("not a colour: {other}"))),
        }
    }
}

/// Bounds on how much of a mail is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limits {
    /// At most this many bytes of body text are read (default 256 KiB); the rest is ignored.
    pub max_text_bytes: usize,
    /// At most this many MIME parts are looked at (default 100).
    pub max_parts: usize,
    /// Parts nested deeper than this many multipart levels are ignored (default 10).
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_text_bytes: 256 * 1024,
            max_parts: 100,
            max_depth: 10,
        }
    }
}
