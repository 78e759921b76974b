//! The mails the store keeps — an archived one ([`ArchiveEntry`]), one waiting in the outbox
//! ([`OutboxEntry`]), a quarantined one ([`QuarantineEntry`]) — and how a mail of the archive is
//! read back (`packed.rs`): the vocabulary the batch's writers (`batch.rs`), the transaction
//! (`handle.rs`), the outbox and the archive share.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::db::Db;
use super::error::StoreError;
use super::packed;
use super::schema::Tree;

/// Serde helper for raw mail bytes: stored as a JSON string when the bytes are UTF-8
/// (nearly every mail), as an array of numbers otherwise. Reads both forms.
pub mod raw_bytes {
    use std::fmt;

    use serde::de::{self, SeqAccess, Visitor};
    use serde::{Deserializer, Serializer};

    /// Serialize `bytes` as a string if it is UTF-8, else as bytes.
    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        match std::str::from_utf8(bytes) {
            Ok(text) => s.serialize_str(text),
            Err(_) => s.serialize_bytes(bytes),
        }
    }

    /// Deserialize from a string, bytes or a sequence of `u8`.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        d.deserialize_any(RawVisitor)
    }

    struct RawVisitor;

    impl<'de> Visitor<'de> for RawVisitor {
        type Value = Vec<u8>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("mail bytes as a string or an array of bytes")
        }

        fn visit_str<E: de::Error>(self, v: &str) -> Result<Vec<u8>, E> {
            Ok(v.as_bytes().to_vec())
        }

        fn visit_string<E: de::Error>(self, v: String) -> Result<Vec<u8>, E> {
            Ok(v.into_bytes())
        }

        fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Vec<u8>, E> {
            Ok(v.to_vec())
        }

        fn visit_byte_buf<E: de::Error>(self, v: Vec<u8>) -> Result<Vec<u8>, E> {
            Ok(v)
        }

        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<u8>, A::Error> {
            let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
            while let Some(b) = seq.next_element::<u8>()? {
                out.push(b);
            }
            Ok(out)
        }
    }
}

/// A mail that could not be handled, kept for the operator.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuarantineEntry {
    /// When it was quarantined.
    pub at: DateTime<Utc>,
    /// IMAP UIDVALIDITY of the mailbox it came from.
    pub uidvalidity: u32,
    /// IMAP UID.
    pub uid: u32,
    /// Its Message-ID, if it had one.
    pub message_id: Option<String>,
    /// Why it was quarantined.
    pub reason: String,
    /// The raw mail (or its header, for mails over the size limit).
    #[serde(with = "raw_bytes")]
    pub raw: Vec<u8>,
}

impl QuarantineEntry {
    /// How `fernzug quarantine` names it: `UIDVALIDITY-UID` for a mail from the mailbox, `id:`
    /// and its Message-ID for one that came otherwise (an XFCC call) — one name per entry, as
    /// the store keys it.
    pub fn id(&self) -> String {
        if self.from_mailbox() {
            format!("{}-{}", self.uidvalidity, self.uid)
        } else {
            let id = self
                .message_id
                .clone()
                .unwrap_or_else(|| self.at.to_rfc3339());
            format!("id:{id}")
        }
    }

    /// Whether it came from the mailbox (it has an IMAP UID), not by a call.
    pub fn from_mailbox(&self) -> bool {
        self.uidvalidity != 0 || self.uid != 0
    }
}

/// Direction of an archived mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Received over IMAP.
    In,
    /// Sent (or enqueued) by the relay.
    Out,
}

/// One archived mail.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveEntry {
    /// In or out.
    pub direction: Direction,
    /// The postmark: IMAP INTERNALDATE for In, the send/enqueue time for Out.
    pub at: DateTime<Utc>,
    /// The games this mail concerns (each gets an index entry among the game's records, `by_game`).
    pub games: Vec<String>,
    /// The mail's Message-ID.
    pub message_id: String,
    /// The raw mail.
    #[serde(with = "raw_bytes")]
    pub raw: Vec<u8>,
}

/// Every mail of the relay waits: the SMTP server refused the relay itself — its connection,
/// login, sender, quota or a policy (`core::unreachable::verdict::Verdict::Hold`). Kept in the
/// store, so that neither a restart nor `fernzug once` tries sooner than the pause allows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SendHold {
    /// The first refusal of this hold.
    pub since: DateTime<Utc>,
    /// How many tries were refused since.
    pub tries: u32,
    /// The next try, not before.
    pub until: DateTime<Utc>,
    /// Why (`quota`, `server`, `sender`, `policy`, `login`).
    pub cause: String,
    /// The server's last answer.
    pub detail: String,
}

/// One mail to one envelope recipient waiting in the outbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutboxEntry {
    /// The mail's Message-ID + `|` + envelope recipient: stable, the outbox key.
    pub id: String,
    /// The Message-ID the rendered mail carries.
    pub message_id: String,
    /// SMTP `MAIL FROM`.
    pub envelope_from: String,
    /// SMTP `RCPT TO`: one recipient per entry, so one refused address never blocks others.
    pub recipient: String,
    /// The fully rendered RFC 5322 mail.
    #[serde(with = "raw_bytes")]
    pub raw: Vec<u8>,
    /// What kind of mail this is (caller's vocabulary).
    pub kind: String,
    /// The game the mail belongs to, if any.
    pub game: Option<String>,
    /// When the entry was enqueued.
    pub created: DateTime<Utc>,
    /// How many delivery attempts failed so far.
    pub attempts: u32,
    /// Not to be tried before this time.
    pub next_attempt: DateTime<Utc>,
    /// The last delivery error, if any.
    pub last_error: Option<String>,
    /// The order of enqueueing, allocated by the store (a counter in `Meta`) when the entry is
    /// first enqueued; 0 until then. Among entries of the same `created`, lower goes first.
    #[serde(default)]
    pub seq: u64,
    /// When the recipient's host first said his mailbox is full (Fax 2.3: retried for
    /// `core::unreachable::verdict::FULL_MAILBOX_DAYS`, then reported); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_since: Option<DateTime<Utc>>,
}

impl OutboxEntry {
    /// The entry without its mail (`raw` empty): what the courier holds until it sends it.
    pub fn head(&self) -> OutboxEntry {
        OutboxEntry {
            id: self.id.clone(),
            message_id: self.message_id.clone(),
            envelope_from: self.envelope_from.clone(),
            recipient: self.recipient.clone(),
            raw: Vec::new(),
            kind: self.kind.clone(),
            game: self.game.clone(),
            created: self.created,
            attempts: self.attempts,
            next_attempt: self.next_attempt,
            last_error: self.last_error.clone(),
            full_since: self.full_since,
            seq: self.seq,
        }
    }

    /// The outbox key for a mail and one envelope recipient: `message_id|recipient`.
    pub fn make_id(message_id: &str, recipient: &str) -> String {
        format!("{message_id}|{recipient}")
    }
}

/// An outbox entry as it is stored (`packed.rs`): the entry without its mail, and, when the mail
/// is the one archived beside it, that mail's archive id.
#[derive(Serialize)]
pub(super) struct Stored<'a> {
    #[serde(flatten)]
    pub entry: &'a OutboxEntry,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archived: Option<u64>,
}

/// Where a stored entry's mail is, read from its head.
#[derive(Deserialize)]
pub(super) struct Where {
    #[serde(default)]
    pub(super) archived: Option<u64>,
}

/// The archived mail `id`, if it is there.
pub(super) fn archived(db: &Db, id: u64) -> Result<Option<ArchiveEntry>, StoreError> {
    let key = id.to_be_bytes();
    match db.get_raw(Tree::Archive, &key)? {
        Some(v) => archive_entry(db, &key, &v).map(Some),
        None => Ok(None),
    }
}

/// The archived mail stored as `value` under `key`: its head, and its mail decompressed
/// (`packed.rs`; an earlier version's entry is JSON with the mail inside).
pub(super) fn archive_entry(db: &Db, key: &[u8], value: &[u8]) -> Result<ArchiveEntry, StoreError> {
    let mut entry: ArchiveEntry = db.decode(Tree::Archive, key, value)?;
    if let Some(p) = packed::unpack(value) {
        entry.raw = db.inflate(Tree::Archive, key, &p)?;
    }
    Ok(entry)
}
