//! The stored form of a value that carries a whole mail: an archived mail ([`Tree::Archive`]) and
//! an outbox entry ([`Tree::Outbox`]).
//!
//! A mail is most of what the store holds, and mails of a tournament are much alike (the same
//! template, the same board), so its bytes are kept compressed (zstd, level [`LEVEL`]) apart
//! from the entry's other fields, which stay JSON and can be read without the mail (the outbox's
//! heads, the figures of `/metrics`):
//!
//! ```text
//! 0x00 | dictionary: u8 | head length: u32, big-endian | head: the entry as JSON, its `raw` empty
//!      | zstd(raw)
//! ```
//!
//! The mails are compressed against a dictionary ([`DICTIONARY`], number 1): raw content, mails
//! of the relay's own (a start, a move, a receipt, a player's move, the text of queries and
//! game ends in German and English). A mail of the relay's then shrinks to 200–600 bytes instead
//! of 1.7–2 KB. Its bytes are part of the stored format: a store written with it can only be
//! read with it, so it never changes; another one would come as number 2 beside it.
//!
//! An outbox entry whose mail is the one archived in the same transaction keeps no bytes of its
//! own: its head names the archived mail (`"archived": ID`) and the mail is read from there when
//! it is sent (a mail is stored once, not in the archive and again in the outbox for each
//! recipient). Values of earlier versions are JSON through and through (they begin with `{`)
//! and are read as they are; nothing is rewritten.
//!
//! [`Tree::Archive`]: super::Tree::Archive
//! [`Tree::Outbox`]: super::Tree::Outbox

/// The first byte of a packed value (no JSON value begins with it).
const MARK: u8 = 0;

/// Dictionary number 1 (see the module's text). Never edited.
const DICTIONARY: &[u8] = include_bytes!("dict/mails-1.txt");

/// The dictionary the relay compresses with now.
pub(super) const CURRENT: u8 = 1;

/// The largest mail a packed value holds when decompressed (`[limits] max_mail_bytes` is far
/// below): a corrupt length never makes the relay allocate more.
const MAX_MAIL: u64 = 256 * 1024 * 1024;

/// The dictionary prepared once per process (zstd's `CDict`, `DDict`): a compression attaches it
/// instead of loading 37 KB into its tables for every mail, which cost more than compressing.
static PREPARED: std::sync::OnceLock<(
    zstd::dict::EncoderDictionary<'static>,
    zstd::dict::DecoderDictionary<'static>,
)> = std::sync::OnceLock::new();

fn prepared() -> &'static (
    zstd::dict::EncoderDictionary<'static>,
    zstd::dict::DecoderDictionary<'static>,
) {
    PREPARED.get_or_init(|| {
        (
            zstd::dict::EncoderDictionary::copy(DICTIONARY, LEVEL),
            zstd::dict::DecoderDictionary::copy(DICTIONARY),
        )
    })
}

thread_local! {
    static COMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Compressor<'static>>> =
        const { std::cell::RefCell::new(None) };
    static DECOMPRESSOR: std::cell::RefCell<Option<zstd::bulk::Decompressor<'static>>> =
        const { std::cell::RefCell::new(None) };
}

/// zstd's level: 1, its fastest standard level. Against the dictionary it packs a relay's mail
/// 2.4 times as fast as level 3 (its default), 1–3 % larger (`zstd -b1 -e3 -D
/// src/store/dict/mails-1.txt MAIL`): every mail the relay sends is packed in the burst's
/// path, and the store is far below its 25 KB a game (issue 33). Only the packing depends on
/// it: a store written at any level reads the same.
const LEVEL: i32 = 1;

/// A packed value, its parts borrowed.
#[derive(Debug, Clone, Copy)]
pub(super) struct Packed<'a> {
    /// The entry's JSON without its mail.
    pub head: &'a [u8],
    /// The mail, compressed; empty when the head names where the mail is kept.
    pub body: &'a [u8],
    /// The dictionary the body was compressed with (0: none).
    pub dictionary: u8,
}

/// `head` and the mail `raw` as one value; `raw` `None`: no bytes of its own (the head says
/// where they are).
pub(super) fn pack(head: &[u8], raw: Option<&[u8]>) -> std::io::Result<Vec<u8>> {
    let body = match raw {
        Some(raw) => compress(raw)?,
        None => Vec::new(),
    };
    Ok(join(head, &body))
}

/// The body of a packed value holding the mail `raw` (with the current dictionary).
pub(super) fn compress(raw: &[u8]) -> std::io::Result<Vec<u8>> {
    COMPRESSOR.with(|c| {
        let mut c = c.borrow_mut();
        if c.is_none() {
            *c = Some(zstd::bulk::Compressor::with_prepared_dictionary(
                &prepared().0,
            )?);
        }
        c.as_mut().map_or_else(
            || Err(std::io::Error::other("no compressor")),
            |c| c.compress(raw),
        )
    })
}

/// `head` and an already compressed `body` (with the current dictionary) as one value.
pub(super) fn join(head: &[u8], body: &[u8]) -> Vec<u8> {
    let len = u32::try_from(head.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(6 + head.len() + body.len());
    out.push(MARK);
    out.push(CURRENT);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(head);
    out.extend_from_slice(body);
    out
}

/// The parts of `value`, or `None` when it is plain JSON (an earlier version's value).
pub(super) fn unpack(value: &[u8]) -> Option<Packed<'_>> {
    if value.first() != Some(&MARK) || value.len() < 6 {
        return None;
    }
    let len = u32::from_be_bytes(value[2..6].try_into().ok()?) as usize;
    let head = value.get(6..6 + len)?;
    Some(Packed {
        head,
        body: &value[6 + len..],
        dictionary: value[1],
    })
}

/// The mail of a packed value.
pub(super) fn inflate(p: &Packed<'_>) -> std::io::Result<Vec<u8>> {
    if p.dictionary != CURRENT {
        return Err(std::io::Error::other(format!(
            "compressed with dictionary {}, which this version does not know",
            p.dictionary
        )));
    }
    let size = zstd::zstd_safe::get_frame_content_size(p.body)
        .map_err(|_| std::io::Error::other("not a zstd frame"))?
        .ok_or_else(|| std::io::Error::other("a zstd frame without its size"))?;
    if size > MAX_MAIL {
        return Err(std::io::Error::other(format!("a mail of {size} bytes")));
    }
    DECOMPRESSOR.with(|d| {
        let mut d = d.borrow_mut();
        if d.is_none() {
            *d = Some(zstd::bulk::Decompressor::with_prepared_dictionary(
                &prepared().1,
            )?);
        }
        d.as_mut().map_or_else(
            || Err(std::io::Error::other("no decompressor")),
            |d| d.decompress(p.body, size as usize),
        )
    })
}

/// The JSON of a value, packed or not (a packed value's head).
pub(super) fn json(value: &[u8]) -> &[u8] {
    unpack(value).map_or(value, |p| p.head)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mail_comes_back_byte_for_byte_and_smaller() {
        let raw: Vec<u8> = "<td bgcolor=\"#f0d9b5\">&#9820;</td>\r\n"
            .repeat(64)
            .into_bytes();
        let value = pack(br#"{"raw":""}"#, Some(&raw)).unwrap();
        assert!(
            value.len() < raw.len() / 5,
            "{} of {}",
            value.len(),
            raw.len()
        );
        let p = unpack(&value).unwrap();
        assert_eq!(p.head, br#"{"raw":""}"#);
        assert_eq!(inflate(&p).unwrap(), raw);
        assert_eq!(json(&value), br#"{"raw":""}"#);
        // Without bytes of its own; plain JSON as it was.
        let bare = pack(b"{}", None).unwrap();
        assert!(unpack(&bare).unwrap().body.is_empty());
        assert!(unpack(br#"{"raw":"x"}"#).is_none());
        assert_eq!(json(br#"{"raw":"x"}"#), br#"{"raw":"x"}"#);
        // A value cut short is no packed value; a body that is no zstd frame says so.
        assert!(unpack(&value[..3]).is_none());
        let broken = join(b"{}", b"not zstd");
        assert!(inflate(&unpack(&broken).unwrap()).is_err());
    }
}
