//! Rendering: a decided [`Mail`] becomes a complete RFC 5322 message — the text from the
//! templates (`templates/de`, `templates/en`, built into the binary, each overridable from the
//! operator's `templates_dir`), the headers of the contract (`X-Fernzug-*`, `Auto-Submitted`,
//! Reply-To key), and the thread of its game (`References`).
//!
//! A template is a text file: its first line is `Subject: …`, then an empty line, then the body;
//! both are minijinja templates over the mail's data.

use std::path::Path;
use std::time::SystemTime;

use chrono::{DateTime, Utc};
use lettre::Message;
use lettre::message::header::{ContentTransferEncoding, ContentType, HeaderName, HeaderValue};
use lettre::message::{Attachment as LettreAttachment, Body, Mailbox, MultiPart, SinglePart};
use minijinja::Environment;

use crate::core::Settings;
use crate::core::model::{Mail, Recipient};
use crate::lang::{Board, Lang};
use crate::mail_kind::MailKind;

pub mod board;
pub mod words;

/// The built-in templates of `kinds` in both languages: (language, kind, source).
macro_rules! builtin {
    ($($kind:literal),* $(,)?) => {
        &[$(
            ("de", $kind, include_str!(concat!("../../templates/de/", $kind, ".txt"))),
            ("en", $kind, include_str!(concat!("../../templates/en/", $kind, ".txt"))),
        )*]
    };
}

/// The built-in templates, one per [`MailKind`] and language (the test
/// `every_builtin_template_loads_with_a_subject_line` checks that none is missing).
const BUILTIN: &[(&str, &str, &str)] = builtin![
    "start",
    "move",
    "receipt",
    "query",
    "reminder",
    "silence-report",
    "time-forfeit",
    "time-forfeit-2",
    "leave",
    "game-end",
    "adjudication",
    "bounce-report",
    "status",
    "digest",
    "director",
    "alert",
    "message",
    "clock-warning",
    "help",
    "overview",
    "tournament-end",
];

/// The template context of a mail: the core's typed facts (`Mail::facts`) serialised, its dates and colours written
/// in the mail's language, with every sentence the core decided as a value (`Mail::sentences`)
/// written under its key.
pub fn facts(mail: &Mail) -> serde_json::Value {
    // The typed facts as the template's context; a struct of plain fields serialises infallibly.
    let mut data = serde_json::to_value(&mail.facts).unwrap_or_default();
    words::write_values(&mut data, mail.lang);
    for (key, s) in &mail.sentences {
        let words = words::sentence(s, mail.lang);
        // `reason`, or a JSON pointer into the data: `/tournaments/0/crosstable`.
        let (parent, name) = match key.rsplit_once('/') {
            Some((parent, name)) if key.starts_with('/') => (parent, name),
            _ => ("", key.as_str()),
        };
        if let Some(serde_json::Value::Object(map)) = data.pointer_mut(parent) {
            map.insert(name.to_string(), words);
        }
    }
    write_board(&mut data, mail);
    data
}

/// docs/contract.md "A board a screen reader reads": how the mail shows the position (`board`:
/// `diagram` or `list`, as its recipients asked, `Mail::board`); for piece lists, the lists in
/// the diagram's place (`diagram`) and what a blind player needs first — whose move, the last
/// move, check — for the top of the text (`lead`).
fn write_board(data: &mut serde_json::Value, mail: &Mail) {
    let serde_json::Value::Object(map) = data else {
        return;
    };
    map.insert("board".into(), mail.board.name().into());
    let Some(c) = mail.facts.context().filter(|_| mail.board == Board::List) else {
        return;
    };
    if let Some(lists) = words::piece_lists(&c.fen, mail.lang) {
        map.insert("diagram".into(), lists.into());
    }
    let stopped = match &mail.facts {
        crate::core::model::Facts::Forward(f) => f.stopped,
        _ => None,
    };
    map.insert(
        "lead".into(),
        words::position_lead(c, stopped, mail.lang).into(),
    );
}

/// Why templates could not be loaded or a mail not rendered.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error("template {path}: {source}")]
    Template {
        path: String,
        source: minijinja::Error,
    },
    #[error("template {path}: cannot read: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("template {0}: the first line must be `Subject: …`, followed by an empty line")]
    Shape(String),
    #[error("address {0:?} is not a valid mailbox")]
    Address(String),
    #[error("building the message failed: {0}")]
    Build(String),
}

/// The loaded templates.
pub struct Templates {
    env: Environment<'static>,
}

fn template_name(lang: &str, kind: &str) -> String {
    format!("{lang}/{kind}.txt")
}

impl Templates {
    /// The built-in templates, with any file `LANG/KIND.txt` under `overrides` taking precedence.
    pub fn load(overrides: Option<&Path>) -> Result<Templates, RenderError> {
        let mut env = Environment::new();
        let syntax = minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .trim_blocks(true)
            .lstrip_blocks(true)
            .build()
            .map_err(|source| RenderError::Template {
                path: "syntax".into(),
                source,
            })?;
        env.set_syntax(syntax);
        // In debug builds (every test, the stack tests' binary too) the built-in templates are
        // strict: a key the core did not send is an error when printed, compared or looped over,
        // never empty text, so a renamed key fails a test (`{% if key %}` still tests an optional
        // key). Release builds and an operator's `templates_dir` stay lenient: a missing word must
        // never stop the relay's mail.
        if overrides.is_none() && cfg!(debug_assertions) {
            env.set_undefined_behavior(minijinja::UndefinedBehavior::SemiStrict);
        }
        // `{{ n|tage }}` → "1 Tag" / "2 Tage"; `{{ n|days }}` → "1 day" / "2 days".
        env.add_filter("tage", |n: i64| words::days(n, Lang::De));
        env.add_filter("days", |n: i64| words::days(n, Lang::En));
        // `{{ text|wrap }}`, `{{ text|wrap(2) }}`: a paragraph from the core (a query's reason, a
        // director's notice) broken into lines of at most 78 characters, each indented by `indent`.
        env.add_filter("wrap", |text: String, indent: Option<usize>| {
            wrap(&text, indent.unwrap_or(0))
        });
        for (lang, kind, source) in BUILTIN {
            let name = template_name(lang, kind);
            let mut text = (*source).to_string();
            if let Some(dir) = overrides {
                let path = dir.join(lang).join(format!("{kind}.txt"));
                if path.exists() {
                    text = std::fs::read_to_string(&path).map_err(|source| RenderError::Read {
                        path: path.display().to_string(),
                        source,
                    })?;
                }
            }
            // The subject line and the body are separate templates, so that no block tag at the
            // end of the subject line can swallow the empty line between them.
            let Some((head, body)) = text.split_once("\n\n") else {
                return Err(RenderError::Shape(name));
            };
            let Some(subject) = head.strip_prefix("Subject:") else {
                return Err(RenderError::Shape(name));
            };
            let subject = subject.trim().to_string();
            let body = body.to_string();
            env.add_template_owned(format!("{name}#subject"), subject)
                .map_err(|source| RenderError::Template {
                    path: name.clone(),
                    source,
                })?;
            env.add_template_owned(format!("{name}#body"), body)
                .map_err(|source| RenderError::Template { path: name, source })?;
        }
        Ok(Templates { env })
    }

    /// Renders the subject and body of `kind` in `lang`.
    pub fn text(
        &self,
        kind: MailKind,
        lang: Lang,
        data: &serde_json::Value,
    ) -> Result<(String, String), RenderError> {
        self.text_of(kind, lang, template_value(data.clone()))
    }

    /// [`Templates::text`] of the facts as the template engine's values, once for the subject
    /// and the body.
    fn text_of(
        &self,
        kind: MailKind,
        lang: Lang,
        data: minijinja::Value,
    ) -> Result<(String, String), RenderError> {
        let name = template_name(lang.code(), kind.name());
        let render = |part: &str| {
            self.env
                .get_template(&format!("{name}#{part}"))
                .and_then(|t| t.render(&data))
                .map_err(|source| RenderError::Template {
                    path: name.clone(),
                    source,
                })
        };
        let subject = render("subject")?
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        let body = wrap_long_lines(&render("body")?);
        Ok((subject, body.trim_end().to_string() + "\n"))
    }
}

/// The facts as the template engine's values, moved over: the same values minijinja makes of
/// them through serde, without the round trip (a third of the cost of rendering a mail's text).
fn template_value(v: serde_json::Value) -> minijinja::Value {
    use serde_json::Value as Json;
    match v {
        Json::Null => minijinja::Value::from(()),
        Json::Bool(b) => minijinja::Value::from(b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => minijinja::Value::from(i),
            (None, Some(u), _) => minijinja::Value::from(u),
            (None, None, f) => minijinja::Value::from(f.unwrap_or(f64::NAN)),
        },
        Json::String(s) => minijinja::Value::from(s),
        Json::Array(items) => {
            minijinja::Value::from(items.into_iter().map(template_value).collect::<Vec<_>>())
        }
        Json::Object(map) => minijinja::Value::from(
            map.into_iter()
                .map(|(k, v)| (k, template_value(v)))
                .collect::<std::collections::BTreeMap<_, _>>(),
        ),
    }
}

/// The width `wrap` breaks lines at (a printed page, a small window).
const WRAP_WIDTH: usize = 78;

/// Breaks each line of `text` at spaces into lines of at most `WRAP_WIDTH` characters, every line
/// indented by `indent` spaces. A line with two spaces in a row inside (an aligned table, e.g. the
/// director's command forms) is kept as it is; so is a word longer than the width.
pub fn wrap(text: &str, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let width = WRAP_WIDTH.saturating_sub(indent).max(20);
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            out.push(String::new());
            continue;
        }
        if line.chars().count() <= width || line.trim().contains("  ") {
            out.push(format!("{pad}{line}"));
            continue;
        }
        // Units that must stay on one line: "TO §24", "§ 2", "z. B.".
        let mut units: Vec<String> = Vec::new();
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            match units.last_mut() {
                Some(last) if word.starts_with('§') || last == "z." || last.ends_with(" z.") => {
                    last.push(' ');
                    last.push_str(word);
                }
                _ => units.push(word.to_string()),
            }
        }
        let mut current = String::new();
        for word in &units {
            let len = current.chars().count();
            if len > 0 && len + 1 + word.chars().count() > width {
                out.push(format!("{pad}{current}"));
                current.clear();
            }
            if !current.is_empty() {
                current.push(' ');
            }
            current.push_str(word);
        }
        if !current.is_empty() {
            out.push(format!("{pad}{current}"));
        }
    }
    out.join("\n")
}

/// A rendered body with every line longer than `WRAP_WIDTH` broken at spaces, so that a long name
/// or subject never makes a line a printer cuts off. Lines that start with a blank (lists, quoted
/// text, the diagram), with `[`, `{` or `>` (PGN, quotes) and aligned tables are kept as they are.
pub fn wrap_long_lines(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        let (text, end) = match line.strip_suffix('\n') {
            Some(t) => (t, "\n"),
            None => (line, ""),
        };
        if text.chars().count() > WRAP_WIDTH && !text.starts_with([' ', '[', '{', '>']) {
            out.push_str(&wrap(text, 0));
        } else {
            out.push_str(text);
        }
        out.push_str(end);
    }
    out
}

/// The Message-ID every mail of a game refers to, so that a game is one thread.
pub fn thread_root(game: &crate::game_ref::GameRef, s: &Settings) -> String {
    format!(
        "game.{}.{}.{}@{}",
        game.tournament,
        game.number,
        s.instance,
        s.domain()
    )
}

/// `relay+KEY@domain`.
pub fn reply_address(key: &str, s: &Settings) -> String {
    crate::core::view::reply_address(key, &s.relay_address)
}

fn mailbox(r: &Recipient) -> Result<Mailbox, RenderError> {
    let addr = r
        .email
        .parse()
        .map_err(|_| RenderError::Address(r.email.clone()))?;
    // Whatever a name holds, the header stays one header (lettre cannot write CR or LF in a
    // name: its `Display` would fail, and `to_string` panic).
    let clean = crate::letter::headers::clean_header_text(&r.name);
    let name = if clean.is_empty() || clean == r.email {
        None
    } else {
        Some(clean)
    };
    Ok(Mailbox::new(name, addr))
}

fn raw(name: &'static str, value: String) -> HeaderValue {
    HeaderValue::new(HeaderName::new_from_ascii_str(name), value)
}

/// Renders `mail` to the bytes that go out, dated `date`.
pub fn render(
    mail: &Mail,
    templates: &Templates,
    s: &Settings,
    date: DateTime<Utc>,
) -> Result<Vec<u8>, RenderError> {
    render_with(mail, templates, s, date, None)
}

/// The links to the relay's pages, with `[http] public_url` only (docs/contract.md,
/// "Configuration"): `game_page` in every mail about a game (its game's page, `URL/g/ID/N`),
/// `tournament_page` in the `start` mail (`URL/t/ID`), and `page` beside each game of an
/// `overview`. The templates show each where it is set.
fn links(data: &mut serde_json::Value, mail: &Mail, s: &Settings) {
    let (Some(base), serde_json::Value::Object(map)) = (s.public_url.as_deref(), data) else {
        return;
    };
    if let Some(g) = &mail.game {
        map.insert(
            "game_page".into(),
            format!("{base}{}", g.page_path()).into(),
        );
        if mail.kind == MailKind::Start {
            let path = crate::game_ref::tournament_page_path(&g.tournament);
            map.insert("tournament_page".into(), format!("{base}{path}").into());
        }
    }
    if mail.kind == MailKind::Overview {
        for list in ["running", "finished"] {
            let Some(serde_json::Value::Array(games)) = map.get_mut(list) else {
                continue;
            };
            for game in games.iter_mut() {
                let id = game["game"]
                    .as_str()
                    .and_then(|g| g.parse::<crate::game_ref::GameRef>().ok());
                if let (Some(id), serde_json::Value::Object(g)) = (id, game) {
                    g.insert("page".into(), format!("{base}{}", id.page_path()).into());
                }
            }
        }
    }
}

/// A player's XFCC login as his `start` mail (and the `status` mail that answers
/// `XFCC-Passwort`) shows it: in the text (`xfcc.url`, `xfcc.user`, `xfcc.password`) and in the
/// header `X-Fernzug-XFCC-Password` (docs/contract.md "XFCC"). The shell issues it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct XfccLogin {
    pub url: String,
    pub user: String,
    pub password: String,
}

impl XfccLogin {
    /// The same login with the password withheld: the copy the archive keeps, so that neither
    /// the store nor `export mbox` holds a password.
    pub fn withheld(&self) -> XfccLogin {
        XfccLogin {
            password: "********".into(),
            ..self.clone()
        }
    }
}

/// [`render`], with the recipient's XFCC login shown where the template shows it.
pub fn render_with(
    mail: &Mail,
    templates: &Templates,
    s: &Settings,
    date: DateTime<Utc>,
    xfcc: Option<&XfccLogin>,
) -> Result<Vec<u8>, RenderError> {
    let mut data = facts(mail);
    links(&mut data, mail, s);
    if let (Some(login), serde_json::Value::Object(map)) = (xfcc, &mut data) {
        map.insert(
            "xfcc".into(),
            serde_json::to_value(login).unwrap_or_default(),
        );
    }
    // What the HTML part needs of the facts; the rest go to the template engine whole.
    let part = |key: &str| data[key].as_str().map(str::to_string);
    let (board_side, last_uci, diagram) = (part("board_side"), part("last_uci"), part("diagram"));
    let (mut subject, body) = templates.text_of(mail.kind, mail.lang, template_value(data))?;
    if let Some(g) = &mail.game {
        // docs/contract.md: the subject of a game mail contains `[TOURNAMENT/N]`, whatever a template says.
        let tag = format!("[{g}]");
        if !subject.contains(&tag) {
            subject = format!("{tag} {subject}");
        }
    }
    let from = Mailbox::new(
        Some(s.relay_name.clone()),
        s.relay_address
            .parse()
            .map_err(|_| RenderError::Address(s.relay_address.clone()))?,
    );
    let mut b = Message::builder()
        .from(from)
        .subject(subject.clone())
        .date(SystemTime::from(date))
        .message_id(Some(format!("<{}>", mail.message_id)));
    for r in &mail.to {
        b = b.to(mailbox(r)?);
    }
    for r in &mail.cc {
        b = b.cc(mailbox(r)?);
    }
    if let Some(key) = &mail.reply_key {
        let addr = reply_address(key, s);
        let reply = Mailbox::new(
            Some(s.relay_name.clone()),
            addr.parse()
                .map_err(|_| RenderError::Address(addr.clone()))?,
        );
        b = b.reply_to(reply);
    }
    let mut refs = Vec::new();
    if let Some(g) = &mail.game {
        refs.push(format!("<{}>", thread_root(g, s)));
    }
    if let Some(irt) = &mail.in_reply_to {
        b = b.in_reply_to(format!("<{irt}>"));
        refs.push(format!("<{irt}>"));
    }
    if !refs.is_empty() {
        b = b.references(refs.join(" "));
    }
    b = b
        .raw_header(raw("Auto-Submitted", "auto-generated".into()))
        .raw_header(raw("X-Loop", s.relay_address.clone()))
        .raw_header(raw("X-Fernzug-Kind", mail.kind.name().into()))
        .raw_header(raw("Content-Language", mail.lang.code().into()));
    if let Some(g) = &mail.game {
        b = b.raw_header(raw("X-Fernzug-Game", g.to_string()));
    }
    if let Some(c) = &mail.color {
        b = b.raw_header(raw("X-Fernzug-Color", c.clone()));
    }
    if let Some(f) = &mail.fen {
        b = b.raw_header(raw("X-Fernzug-FEN", f.clone()));
    }
    if let Some(login) = xfcc {
        b = b.raw_header(raw("X-Fernzug-XFCC-Password", login.password.clone()));
    }
    // docs/contract.md "Pictures": a mail with a position shows the board in an HTML part beside
    // the text — unless its reader asked for piece lists ("A board a screen reader reads"): then
    // the text alone, which a screen reader reads as it stands.
    let picture = mail.fen.as_deref().filter(|_| mail.board == Board::Diagram);
    let html = picture.and_then(|fen| {
        let side = match board_side.as_deref() {
            Some("black") => shakmaty::Color::Black,
            _ => shakmaty::Color::White,
        };
        let table = board::board_table(fen, side, last_uci.as_deref())?;
        Some(board::html_part(
            &subject,
            mail.lang.code(),
            &body,
            diagram.as_deref(),
            &table,
        ))
    });
    let html = html.map(html_single_part);
    // With CRLF already: lettre would insert each CR into the string, moving the rest of it.
    let text = SinglePart::plain(crlf(body));
    let message = match (html, mail.attachments.is_empty()) {
        (None, true) => b.singlepart(text),
        (Some(html), true) => b.multipart(alternative(text, html)),
        (html, false) => {
            let mut mp = match html {
                None => MultiPart::mixed().singlepart(text),
                Some(html) => MultiPart::mixed().multipart(alternative(text, html)),
            };
            for a in &mail.attachments {
                let ct = ContentType::parse(&a.content_type).map_err(|e| {
                    RenderError::Build(format!("content type {}: {e}", a.content_type))
                })?;
                let attachment = LettreAttachment::new(a.filename.clone());
                mp = mp.singlepart(match &a.bytes {
                    // Bytes exactly as they are (an mbox of mails as they arrived): base64.
                    Some(bytes) => attachment.body(
                        Body::new_with_encoding(bytes.clone(), ContentTransferEncoding::Base64)
                            .map_err(|_| {
                                RenderError::Build(format!("attachment {}", a.filename))
                            })?,
                        ct,
                    ),
                    None => attachment.body(a.body.clone(), ct),
                });
            }
            b.multipart(mp)
        }
    }
    .map_err(|e| RenderError::Build(e.to_string()))?;
    Ok(message.formatted())
}

/// The text and its HTML part, as alternatives (docs/contract.md "Pictures").
fn alternative(text: SinglePart, html: SinglePart) -> MultiPart {
    MultiPart::alternative().singlepart(text).singlepart(html)
}

/// The HTML part ([`board::html_part`]: ASCII, no line longer than 73 characters however long
/// the text's are): lettre chooses the transfer encoding, `7bit` — never quoted-printable or
/// base64, which grew the part.
///
/// The part is handed over with CRLF line ends already ([`crlf`], which leaves a CRLF as it is),
/// as bytes: lettre leaves their line ends alone (as a string it would look through the whole part
/// for a bare LF, character by character from the end); the part is ASCII, so it still goes
/// `7bit`.
fn html_single_part(html: String) -> SinglePart {
    SinglePart::builder()
        .header(ContentType::TEXT_HTML)
        .body(Body::new(crlf(html).into_bytes()))
}

/// `text` with every line end CRLF: each bare LF gets its CR, in one pass into a string of about
/// the final size (`str::replace` grows its result as it goes; lettre inserts each CR into the
/// string, moving the rest of it). A text without a bare LF is given back as it is.
fn crlf(text: String) -> String {
    let bytes = text.as_bytes();
    let mut bare = memchr::memchr_iter(b'\n', bytes)
        .filter(|&i| i == 0 || bytes[i - 1] != b'\r')
        .peekable();
    if bare.peek().is_none() {
        return text;
    }
    let mut out = String::with_capacity(text.len() + text.len() / 24 + 8);
    let mut from = 0;
    for i in bare {
        out.push_str(&text[from..i]);
        out.push('\r');
        from = i;
    }
    out.push_str(&text[from..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::model::{QueryAround, QueryFacts, Refusal, Sentence, When};
    use crate::game_ref::GameRef;
    use crate::notation::{IllegalReason, NotationError};
    use shakmaty::{Role, Square};

    fn settings() -> Settings {
        Settings {
            relay_address: "relay@fernschach.test".into(),
            relay_name: "Fernschach-Relais".into(),
            tz: chrono_tz::Europe::Berlin,
            default_lang: Lang::De,
            instance: "abc".into(),
            digest_day: None,
            public_url: None,
            warn_days: 0,
            guard: Default::default(),
        }
    }

    fn mail() -> Mail {
        Mail {
            kind: MailKind::Query,
            to: vec![Recipient {
                name: "Jürgen Größ".into(),
                email: "juergen@fernschach.test".into(),
            }],
            cc: vec![],
            lang: Lang::De,
            board: Board::Diagram,
            game: Some(GameRef::new("FAX-1", 7)),
            reply_key: Some("k3y".into()),
            color: None,
            fen: Some("8/8/8/8/8/8/8/K6k w - - 0 1".into()),
            in_reply_to: Some("orig@x".into()),
            message_id: "fernzug.abc.1.query@fernschach.test".into(),
            facts: QueryFacts {
                recipient: "Jürgen Größ".into(),
                about: "player",
                subject: "Zug".into(),
                read: vec!["12... Sf6".into()],
                around: QueryAround::Bare {
                    now: When(
                        chrono::NaiveDate::from_ymd_opt(2026, 11, 30)
                            .and_then(|d| d.and_hms_opt(10, 0, 0))
                            .unwrap(),
                    ),
                },
            }
            .into(),
            sentences: vec![(
                "reason".into(),
                Sentence::Refusal(Refusal::BadMove {
                    number: "12... Sf6".into(),
                    error: NotationError::Illegal {
                        text: "Sf6".into(),
                        reason: IllegalReason::NoPieceCanReach {
                            piece: Role::Knight,
                            to: Square::F6,
                        },
                    },
                }),
            )],
            envelope: vec![],
            attachments: vec![],
            enclose: vec![],
            to_director: false,
        }
    }

    proptest::proptest! {
        /// `crlf` gives what a CR before each bare LF gives, character by character.
        #[test]
        fn crlf_puts_a_cr_before_every_bare_lf_and_nothing_else(text in "[a\r\nä ]{0,40}") {
            let mut expected = String::new();
            let mut last = None;
            for c in text.chars() {
                if c == '\n' && last != Some('\r') {
                    expected.push('\r');
                }
                expected.push(c);
                last = Some(c);
            }
            proptest::prop_assert_eq!(crlf(text.clone()), expected);
        }
    }

    #[test]
    fn every_builtin_template_loads_with_a_subject_line() {
        let t = Templates::load(None).expect("built-in templates load");
        for kind in MailKind::ALL {
            for lang in [Lang::De, Lang::En] {
                let name = template_name(lang.code(), kind.name());
                assert!(
                    t.env.get_template(&format!("{name}#subject")).is_ok(),
                    "{name}"
                );
                assert!(
                    t.env.get_template(&format!("{name}#body")).is_ok(),
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn a_mail_with_a_board_is_light_and_its_html_part_is_not_base64() {
        let s = settings();
        let t = Templates::load(None).unwrap();
        let mut m = mail();
        m.fen = Some("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1".into());
        let raw = render(&m, &t, &s, chrono::Utc::now()).unwrap();
        assert!(raw.len() < 8 * 1024, "{} bytes", raw.len());
        let text = String::from_utf8_lossy(&raw);
        let html = text
            .split("Content-Type: text/html")
            .nth(1)
            .expect("an HTML part");
        assert!(!html.contains("base64"), "{html}");
        let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let html = parsed.body_html(0).unwrap();
        assert_eq!(html.matches("bgcolor=").count(), 64);
        assert!(html.contains("Gr&#246;&#223;"), "the umlauts as references");
    }

    #[test]
    fn contract_headers_thread_and_umlauts() {
        let s = settings();
        let t = Templates::load(None).unwrap();
        let raw = render(&mail(), &t, &s, chrono::Utc::now()).unwrap();
        let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let h = |n: &str| {
            parsed
                .header_raw(n)
                .map(|v| v.trim().to_string())
                .unwrap_or_default()
        };
        assert_eq!(h("X-Fernzug-Kind"), "query");
        assert_eq!(h("X-Fernzug-Game"), "FAX-1/7");
        assert_eq!(h("Auto-Submitted"), "auto-generated");
        assert_eq!(h("X-Fernzug-FEN"), "8/8/8/8/8/8/8/K6k w - - 0 1");
        assert_eq!(
            parsed.message_id(),
            Some("fernzug.abc.1.query@fernschach.test")
        );
        assert!(h("Reply-To").contains("relay+k3y@fernschach.test"));
        assert!(h("References").contains("<game.FAX-1.7.abc@fernschach.test>"));
        assert!(h("References").contains("<orig@x>"));
        assert!(parsed.subject().unwrap().contains("[FAX-1/7]"));
        assert_eq!(
            parsed.to().and_then(|a| a.first()).and_then(|a| a.name()),
            Some("Jürgen Größ")
        );
        let body = parsed.body_text(0).unwrap();
        assert!(body.contains("kein Springer kann f6 erreichen"), "{body}");
        assert!(body.contains("Guten Tag Jürgen Größ"), "{body}");
    }

    #[test]
    fn the_facts_moved_over_are_the_values_minijinja_makes_of_them_through_serde() {
        let json = serde_json::json!({
            "game": "T/1", "n": 3, "minus": -7, "big": u64::MAX, "half": 0.5, "none": null,
            "yes": true, "list": [1, "a", {"b": [null, 2.0]}], "empty": {}, "words": "für",
        });
        let through_serde = minijinja::Value::from(minijinja::value::Serde(&json));
        let moved = template_value(json);
        assert_eq!(moved, through_serde);
        assert_eq!(moved.to_string(), through_serde.to_string());
    }

    #[test]
    fn a_block_tag_ending_the_subject_line_does_not_swallow_the_body() {
        let t = Templates::load(None).unwrap();
        let (subject, body) = t
            .text(
                MailKind::Receipt,
                Lang::De,
                &serde_json::json!({"game": "T/1", "move": "1. e4", "recipient": "Anna", "partner_name": "Bert",
                    "received": "01.12.2026 10:00", "sent": "02.12.2026 11:00", "charged": 1,
                    "tournament": "Test", "tournament_id": "T", "director": "Dirk", "partner": "Bert",
                    "fen": "8/8/8/8/8/8/8/K6k w - - 0 1", "diagram": "", "notes": [], "plies": [], "lines": [],
                    "stopped": null, "penalty": null, "announcement": null, "draw_offer": null, "leave": null,
                    "days_used": 1, "clock_you": {"used": 1, "allowed": 40, "left": 39, "next_control": 10}}),
            )
            .unwrap();
        assert_eq!(subject, "[T/1] Bestätigung: 1. e4");
        assert!(body.starts_with("Guten Tag Anna,"), "{body}");
        assert!(body.contains("Bedenkzeit: 1 Tag\n"), "singular: {body}");
    }

    #[test]
    fn wrap_breaks_long_lines_and_keeps_tables() {
        let long = "Die Wiederholung des letzten Zuges Ihres Partners fehlt: bitte 1... c5 mit angeben (TO §2).";
        let w = wrap(long, 2);
        assert!(w.lines().count() > 1, "{w}");
        assert!(
            w.lines()
                .all(|l| l.starts_with("  ") && l.chars().count() <= 78),
            "{w}"
        );
        assert_eq!(
            w.split_whitespace().collect::<Vec<_>>(),
            long.split_whitespace().collect::<Vec<_>>()
        );
        let table = "ZÜ bestätigt                                   – zweite Zeitüberschreitung bestätigen: Partie verloren (TO §22)";
        assert_eq!(wrap(table, 0), table);
        assert_eq!(wrap("kurz\n\nzwei", 0), "kurz\n\nzwei");
        // "TO §24" and "z. B." are never torn apart.
        let rule = format!(
            "{} über das Urlaubskonto hinaus (TO §24), z. B. so.",
            "x".repeat(50)
        );
        let w = wrap(&rule, 0);
        assert!(w.contains("(TO §24)") && w.contains("z. B."), "{w}");
        let body = format!("{long}\n  {long}\n[Event \"{long}\"]\n");
        let wrapped = wrap_long_lines(&body);
        assert_eq!(wrapped.lines().count(), 4, "{wrapped}");
        assert!(
            wrapped.ends_with(&format!("  {long}\n[Event \"{long}\"]\n")),
            "{wrapped}"
        );
    }

    #[test]
    fn an_operator_template_overrides_the_builtin_one() {
        let dir = std::env::temp_dir().join(format!("fernzug-tpl-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("de")).unwrap();
        std::fs::write(
            dir.join("de/query.txt"),
            "Subject: Bitte noch einmal\n\nHallo {{ recipient }}: {{ reason }}\n",
        )
        .unwrap();
        let t = Templates::load(Some(&dir)).unwrap();
        let raw = render(&mail(), &t, &settings(), chrono::Utc::now()).unwrap();
        let parsed = mail_parser::MessageParser::default().parse(&raw).unwrap();
        // The override is used, and the subject still names the game (docs/contract.md).
        assert_eq!(parsed.subject(), Some("[FAX-1/7] Bitte noch einmal"));
        assert!(
            parsed
                .body_text(0)
                .unwrap()
                .starts_with("Hallo Jürgen Größ")
        );
        std::fs::write(dir.join("de/query.txt"), "no subject line").unwrap();
        assert!(matches!(
            Templates::load(Some(&dir)),
            Err(RenderError::Shape(_))
        ));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
