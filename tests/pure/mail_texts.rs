//! Snapshots of every mail text the relay sends (docs/contract.md "Mail the relay sends"), in German and
//! English, in the manner of insta / mail-parser's test corpus: one scripted tournament is played
//! through the pure core (`State::register`, `handle_letter` on real letters read by
//! `letter::read_letter`, `tick`, `handle_bounce`), every mail it decides is rendered by
//! `render::render`, and the whole message — headers except `Date`, the decoded text body, the
//! attachments — is compared with `tests/snapshots/mail/<step>-<kind>-<recipient>.<lang>.txt`.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test --test pure mail_texts::` rewrites the files (and removes those no step
//! produces any more); otherwise a difference fails with a line diff. No snapshot crate: the
//! comparison is twenty lines, and the files are plain text a reviewer reads as the player would.
//!
//! Deterministic: fixed instants, reply keys from a counter, a fixed `Settings.instance`. The
//! scenario runs twice: with the relay's default language German (every mail recorded), and with
//! English (`[relay] language = "en"`; only the mails to the director are recorded, prefixed
//! `en-default-`), so that every director text exists in both languages.
//!
//! Besides the snapshots, each rendered text is checked for what no reader should ever see:
//! `None`, `null`, `[]`, template braces, a doubled word, trailing blanks, runs of empty lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Europe::Berlin;
use fernzug::core::model::{Facts, Guard, Mail};
use fernzug::core::{Bounce, OperatorAlert, Output, Settings, State};
use fernzug::game_ref::GameRef;
use fernzug::lang::{Board, Lang};
use fernzug::letter::read_letter;
use fernzug::mail_kind::MailKind;
use fernzug::render::{Templates, render_with};
use mail_parser::{Address, HeaderValue, MessageParser, MimeHeaders};

const TID: &str = "FAX-2026-3";
const ANNA: &str = "anna@fernschach.test";
const BERT: &str = "bert@fernschach.test";
const CLARA: &str = "clara@fernschach.test";
const DIRK: &str = "dirk@fernschach.test";
const TL: &str = "tl@fernschach.test";
const STRANGER: &str = "xaver@example.org";

const TOURNAMENT: &str = r#"
id = "FAX-2026-3"
name = "Telefax-Aufstiegsturnier 2026/3"
rules = "fax"
start = "2026-12-01"

[director]
name = "Tom Leiter"
email = "tl@fernschach.test"

[[players]]
name = "Anna Adler"
email = "anna@fernschach.test"
language = "de"

[[players]]
name = "Bert Berger"
email = "bert@fernschach.test"
language = "en"

[[players]]
name = "Clara Claus"
email = "clara@fernschach.test"
language = "de"

[[players]]
name = "Dirk Dorn"
email = "dirk@fernschach.test"
language = "en"

# 1: the main game (moves, queries, conditional moves, draw, announcement, leave)
[[games]]
white = "anna@fernschach.test"
black = "bert@fernschach.test"

# 2: White silent from the start: reminder, silence report, two time forfeits (TO §16–§22)
[[games]]
white = "dirk@fernschach.test"
black = "clara@fernschach.test"

# 3: Black silent after White's first move: reminder with the last move, a time forfeit
[[games]]
white = "bert@fernschach.test"
black = "clara@fernschach.test"

# 4: 50 moves without capture or pawn move: adjudication (TO §31)
[[games]]
white = "anna@fernschach.test"
black = "dirk@fernschach.test"
"#;

/// Local time in Berlin.
fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    Berlin
        .with_ymd_and_hms(y, mo, d, h, mi, 0)
        .single()
        .expect("valid local time")
        .with_timezone(&Utc)
}

/// The tournament of the scenario of piece lists (docs/contract.md "A board a screen reader
/// reads"): Bert reads piece lists as the file says, Anna asks for them by mail.
const BOARD_TOURNAMENT: &str = r#"
id = "DBSB-2027-1"
name = "Blindenschach-Fernturnier 2027"
rules = "post"
start = "2027-04-01"

[director]
name = "Tom Leiter"
email = "tl@fernschach.test"

[[players]]
name = "Anna Adler"
email = "anna@fernschach.test"
language = "de"

[[players]]
name = "Bert Berger"
email = "bert@fernschach.test"
language = "en"
board = "list"

[[games]]
white = "anna@fernschach.test"
black = "bert@fernschach.test"
"#;

fn settings(lang: Lang) -> Settings {
    Settings {
        relay_address: "relay@fernschach.test".into(),
        relay_name: "Fernschach-Relais".into(),
        tz: Berlin,
        default_lang: lang,
        instance: "snap".into(),
        // The digest is switched on only for the one tick that should send it (`Run::digest`).
        digest_day: None,
        public_url: None,
        warn_days: 5,
        guard: Guard {
            trusted_authserv_id: Some(OWN_SERVER.into()),
            ..Default::default()
        },
    }
}

/// The operator's own server (`[security] trusted_authserv_id`).
const OWN_SERVER: &str = "mx.fernschach.test";

/// `[http] public_url` of the mails kept with their links.
const PUBLIC_URL: &str = "https://schach.example.org";

/// A second tournament, registered when the first is over: Anna and Bert play on in it, so
/// that their overview lists running games and finished ones (`Übersicht`).
const POKAL: &str = r#"
id = "POKAL-2027-2"
name = "Pokal 2027/2"
rules = "post"
start = "2027-03-03"

[director]
name = "Tom Leiter"
email = "tl@fernschach.test"

[[players]]
name = "Anna Adler"
email = "anna@fernschach.test"
language = "de"

[[players]]
name = "Bert Berger"
email = "bert@fernschach.test"
language = "en"

[[players]]
name = "Clara Claus"
email = "clara@fernschach.test"
language = "de"

[[games]]
white = "anna@fernschach.test"
black = "bert@fernschach.test"

[[games]]
white = "clara@fernschach.test"
black = "anna@fernschach.test"

[[games]]
white = "bert@fernschach.test"
black = "clara@fernschach.test"
"#;

fn name_of(email: &str) -> &'static str {
    match email {
        ANNA => "Anna Adler",
        BERT => "Bert Berger",
        CLARA => "Clara Claus",
        DIRK => "Dirk Dorn",
        TL => "Tom Leiter",
        _ => "Xaver Fremd",
    }
}

/// One scripted run of the core, recording rendered mails.
struct Run {
    st: State,
    s: Settings,
    /// The id of the tournament the players' replies are about.
    tid: &'static str,
    templates: Templates,
    step: u32,
    letters: u32,
    /// Every mail decided so far, for replies.
    sent: Vec<Mail>,
    /// Snapshot file name → text.
    snaps: BTreeMap<String, String>,
    /// Only mails to this address are recorded (the English-default run records the director's).
    only_to: Option<&'static str>,
    /// Steps that record nothing and count no step number (the filler moves of game 4).
    quiet: bool,
    prefix: &'static str,
    /// (kind, lang, variant) of every recorded mail.
    seen: BTreeSet<(String, String, String)>,
    /// The kinds whose HTML part (the board, docs/contract.md "Pictures") has its snapshot: the
    /// first mail of each (its words are those of the text part, which every mail's snapshot has).
    html_seen: BTreeSet<String>,
    /// The languages whose start mail was kept with an XFCC login.
    xfcc_seen: BTreeSet<String>,
    /// The (kind, language) of the mails kept as they are with `[http] public_url` (their links
    /// to the pages): the first start, move and overview mail of each language.
    links_seen: BTreeSet<(String, String)>,
    /// Whether every mail about a game must show the link to its page with `public_url` (the
    /// built-in templates; an operator's own need not).
    links_checked: bool,
    /// Problems found in rendered texts.
    problems: Vec<String>,
}

impl Run {
    fn new(lang: Lang, only_to: Option<&'static str>, prefix: &'static str) -> Run {
        Run {
            st: State::default(),
            s: settings(lang),
            tid: TID,
            templates: Templates::load(None).expect("built-in templates"),
            step: 0,
            letters: 0,
            sent: Vec::new(),
            snaps: BTreeMap::new(),
            only_to,
            quiet: false,
            prefix,
            seen: BTreeSet::new(),
            html_seen: BTreeSet::new(),
            xfcc_seen: BTreeSet::new(),
            links_seen: BTreeSet::new(),
            links_checked: true,
            problems: Vec::new(),
        }
    }

    fn register(&mut self, now: DateTime<Utc>) {
        self.register_file(TOURNAMENT, now);
    }

    /// Registers the tournament file `text` (reply keys `kNN` from a counter).
    fn register_file(&mut self, text: &str, now: DateTime<Utc>) {
        let file = fernzug::tournament_file::parse(Path::new("snap.toml"), text)
            .expect("the scenario's tournament file is valid");
        let mut n = 0;
        let prefix = if file.id == TID { "k" } else { "p" };
        let out = self
            .st
            .register(&file, now, &self.s, &mut || {
                n += 1;
                format!("{prefix}{n:02}")
            })
            .expect("registers");
        self.record("register", out, now);
    }

    /// Fires what is due by `now`.
    fn tick(&mut self, step: &str, now: DateTime<Utc>) {
        let out = self.st.tick(now, &self.s);
        self.record(step, out, now);
    }

    /// Fires what is due by `now` with the weekly digest switched on (Monday).
    fn digest(&mut self, step: &str, now: DateTime<Utc>) {
        let mut s = self.s.clone();
        s.digest_day = Some(chrono::Weekday::Mon);
        let out = self.st.tick(now, &s);
        self.record(step, out, now);
    }

    /// The subject line `mail` was rendered with.
    fn subject_of(&self, mail: &Mail) -> String {
        let (subject, _) = self
            .templates
            .text(mail.kind, mail.lang, &fernzug::render::facts(mail))
            .expect("renders");
        match &mail.game {
            Some(g) if !subject.contains(&format!("[{g}]")) => format!("[{g}] {subject}"),
            _ => subject,
        }
    }

    /// `from` answers the latest mail he got about `g` (its Reply-To key and subject), or writes a
    /// new mail naming the game in the subject when he got none with a key.
    fn reply(&mut self, step: &str, from: &str, g: u32, body: &str, now: DateTime<Utc>) {
        self.reply_in(step, from, GameRef::new(self.tid, g), body, now);
    }

    /// [`Run::reply`] about game `g` of any tournament.
    fn reply_in(&mut self, step: &str, from: &str, g: GameRef, body: &str, now: DateTime<Utc>) {
        let last = self
            .sent
            .iter()
            .rev()
            .find(|m| {
                m.game.as_ref() == Some(&g)
                    && m.to[0].email == from
                    && m.envelope.iter().any(|e| e == from)
                    // A player moves by replying to the game's mails, not to a decision's
                    // (whose replies go to the director: `Run::answer_decision`).
                    && (from == TL || !m.to_director)
            })
            .cloned();
        let (to, subject, irt) = match last {
            Some(m) => (
                match &m.reply_key {
                    Some(k) => format!("relay+{k}@fernschach.test"),
                    None => "relay@fernschach.test".to_string(),
                },
                format!("Re: {}", self.subject_of(&m)),
                Some(m.message_id.clone()),
            ),
            None => ("relay@fernschach.test".into(), format!("[{g}]"), None),
        };
        self.write(step, from, &to, &subject, irt.as_deref(), body, now);
    }

    /// `from`'s reply to the last decision about game `g` he was told of (a mail whose replies
    /// go to the director, TO §18, §29), through its reply key.
    fn answer_decision(&mut self, step: &str, from: &str, g: u32, body: &str, now: DateTime<Utc>) {
        let g = GameRef::new(self.tid, g);
        let last = self
            .sent
            .iter()
            .rev()
            .find(|m| {
                m.game.as_ref() == Some(&g) && m.to_director && m.envelope.iter().any(|e| e == from)
            })
            .cloned()
            .expect("a decision to answer");
        let key = last.reply_key.clone().expect("the decision's reply key");
        let subject = format!("Re: {}", self.subject_of(&last));
        self.write(
            step,
            from,
            &format!("relay+{key}@fernschach.test"),
            &subject,
            Some(&last.message_id),
            body,
            now,
        );
    }

    /// A new mail to the relay address.
    fn mail(&mut self, step: &str, from: &str, subject: &str, body: &str, now: DateTime<Utc>) {
        self.write(
            step,
            from,
            "relay@fernschach.test",
            subject,
            None,
            body,
            now,
        );
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        step: &str,
        from: &str,
        to: &str,
        subject: &str,
        in_reply_to: Option<&str>,
        body: &str,
        now: DateTime<Utc>,
    ) {
        self.letters += 1;
        let mut raw = format!(
            "From: {} <{from}>\r\nTo: Fernschach-Relais <{to}>\r\nSubject: {subject}\r\n\
             Date: {}\r\nMessage-ID: <letter{}@players.test>\r\n",
            name_of(from),
            now.to_rfc2822(),
            self.letters
        );
        if let Some(irt) = in_reply_to {
            raw.push_str(&format!("In-Reply-To: <{irt}>\r\nReferences: <{irt}>\r\n"));
        }
        // The operator's own server vouches for every sender of the scenario (a stranger is
        // answered only then: no backscatter).
        let domain = from.rsplit_once('@').map_or("", |(_, d)| d);
        raw.push_str(&format!(
            "Authentication-Results: {OWN_SERVER}; spf=pass smtp.mailfrom={domain}\r\n"
        ));
        raw.push_str(
            "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Transfer-Encoding: 8bit\r\n\r\n",
        );
        raw.push_str(&body.replace('\n', "\r\n"));
        raw.push_str("\r\n");
        let letter = read_letter(raw.as_bytes()).expect("the scenario's mails are readable");
        // As the shell does: what time alone made happen comes first.
        let mut out = self.st.tick(now, &self.s);
        let o = self.st.handle_letter(&letter, now, &self.s);
        out.mails.extend(o.mails);
        self.record(step, out, now);
    }

    /// A tournament file sent by mail from `from` (in `[relay] directors`) under `subject`
    /// (`Turnier anmelden`, `Turnier prüfen`), checked as the shell checks it and decided by the
    /// core (`State::handle_registration`).
    fn register_by_mail(
        &mut self,
        step: &str,
        (from, subject): (&str, &str),
        file: &str,
        now: DateTime<Utc>,
    ) {
        self.letters += 1;
        let raw = format!(
            "From: {} <{from}>\r\nTo: relay@fernschach.test\r\nSubject: {subject}\r\n\
             Message-ID: <letter{}@players.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\
             Content-Transfer-Encoding: 8bit\r\n\r\n{}\r\n",
            name_of(from),
            self.letters,
            file.replace('\n', "\r\n")
        );
        let letter = read_letter(raw.as_bytes()).expect("readable");
        let checked = match &letter.content.register {
            Some(fernzug::letter::Enrolment::Text { name, text }) => {
                fernzug::tournament_file::check(text).map_err(|errors| {
                    fernzug::core::model::RegisterRefusal::File {
                        name: name.clone(),
                        errors,
                    }
                })
            }
            other => panic!("not a registration: {other:?}"),
        };
        let mut s = self.s.clone();
        s.guard.directors = vec![from.to_string()];
        let mut n = 0;
        let mut out = self.st.tick(now, &self.s);
        let o = self
            .st
            .handle_registration(&letter, checked, now, &s, &mut || {
                n += 1;
                format!("r{n:02}")
            });
        out.mails.extend(o.mails);
        self.record(step, out, now);
    }

    /// Fax 2.2: the shell learnt that `mail` did not reach `recipient`.
    fn bounce(&mut self, step: &str, mail: &Mail, recipient: &str, now: DateTime<Utc>) {
        let (_, body) = self
            .templates
            .text(mail.kind, mail.lang, &fernzug::render::facts(mail))
            .expect("renders");
        let b = Bounce {
            message_id: mail.message_id.clone(),
            recipient: recipient.into(),
            kind: Some(mail.kind.name().into()),
            game: mail.game.clone(),
            error: format!(
                "550 5.1.1 <{recipient}>: Recipient address rejected: User unknown in virtual mailbox table"
            ),
            text: Some(body),
        };
        let out = self.st.handle_bounce(&b, now, &self.s);
        self.record(step, out, now);
    }

    /// The relay's own outage, told to the operator (`State::alert`).
    fn alert(&mut self, step: &str, alert: OperatorAlert, now: DateTime<Utc>) {
        let out = self.st.alert(&alert, now, &self.s);
        self.record(step, out, now);
    }

    /// The latest mail of `kind` to `to`.
    fn last(&self, kind: MailKind, to: &str) -> Mail {
        self.sent
            .iter()
            .rev()
            .find(|m| m.kind == kind && m.envelope.iter().any(|e| e == to))
            .cloned()
            .unwrap_or_else(|| panic!("no {kind:?} to {to}"))
    }

    fn record(&mut self, step: &str, out: Output, now: DateTime<Utc>) {
        if self.quiet {
            self.sent.extend(out.mails);
            return;
        }
        self.step += 1;
        for mail in out.mails {
            self.sent.push(mail.clone());
            let to = mail.to[0].email.clone();
            // One snapshot per decided mail: the copy its first recipient gets (the copies of
            // a mail differ only in their reply key).
            if self.only_to.is_some_and(|o| o != to) || !mail.envelope.contains(&to) {
                continue;
            }
            let who = to.split('@').next().unwrap_or("x").to_string();
            let lang = mail.lang.code();
            let base = format!(
                "{}{:02}-{step}-{}-{who}",
                self.prefix,
                self.step,
                mail.kind.name()
            );
            let mut name = format!("{base}.{lang}.txt");
            let mut n = 1;
            while self.snaps.contains_key(&name) {
                n += 1;
                name = format!("{base}-{n}.{lang}.txt");
            }
            // On a relay with `[xfcc]`: the status that answers `XFCC-Passwort` carries a new
            // password; the first start mail of each language is also kept as it is then.
            let login = fernzug::render::XfccLogin {
                url: "https://schach.example.org/xfccbasic.asmx".into(),
                user: to.clone(),
                password: "k7qmz-4ra2w-9dfhx-pq3ne-b8tjc-m2vy6".into(),
            };
            let asked = matches!(&mail.facts, Facts::Status(f) if f.xfcc_password);
            let raw = render_with(
                &mail,
                &self.templates,
                &self.s,
                now,
                asked.then_some(&login),
            )
            .expect("renders");
            if mail.kind == MailKind::Start && self.xfcc_seen.insert(lang.to_string()) {
                let with = render_with(&mail, &self.templates, &self.s, now, Some(&login))
                    .expect("renders");
                self.snaps
                    .insert(name.replace(".txt", ".xfcc.txt"), snapshot_text(&with));
            }
            // With `[http] public_url` (docs/contract.md, "Configuration"): every game mail
            // links to its game's page, the start mail to its tournament's, the overview to each
            // game's; the first start, move and overview mail of each language is kept so.
            if mail.game.is_some() || mail.kind == MailKind::Overview {
                let mut s = self.s.clone();
                s.public_url = Some(PUBLIC_URL.into());
                let with = render_with(&mail, &self.templates, &s, now, None).expect("renders");
                let text = snapshot_text(&with);
                let linked = name.replace(".txt", ".link.txt");
                if let Some(g) = &mail.game
                    && self.links_checked
                    && !text.contains(&format!("\n{PUBLIC_URL}/g/{g}\n"))
                {
                    self.problems.push(format!(
                        "{linked}: no line with the link to its game's page"
                    ));
                }
                if matches!(
                    mail.kind,
                    MailKind::Start | MailKind::Move | MailKind::Overview
                ) && self
                    .links_seen
                    .insert((mail.kind.name().to_string(), lang.to_string()))
                {
                    for p in problems_in(&text) {
                        self.problems.push(format!("{linked}: {p}"));
                    }
                    self.snaps.insert(linked, text);
                }
            }
            let text = snapshot_text(&raw);
            for p in problems_in(&text) {
                self.problems.push(format!("{name}: {p}"));
            }
            let variant = match mail.kind {
                MailKind::Status if matches!(mail.facts, Facts::Announcement(_)) => "announcement",
                MailKind::Status => "report",
                MailKind::Receipt if matches!(mail.facts, Facts::LeaveReceipt(_)) => "leave",
                MailKind::Query if mail.game.is_none() => "no-game",
                MailKind::Query if fernzug::render::facts(&mail)["color"].is_null() => "director",
                _ => "",
            };
            self.seen.insert((
                mail.kind.name().to_string(),
                lang.to_string(),
                variant.to_string(),
            ));
            // Every mail with a position has the board as an HTML part beside the text, but
            // for a reader of piece lists; the first of each kind is kept whole.
            let html = html_of(&raw);
            assert_eq!(
                html.is_some(),
                mail.fen.is_some() && mail.board == Board::Diagram,
                "{name}: an HTML part exactly when the mail has a position, to a reader of diagrams"
            );
            if mail.board == Board::List {
                for p in piece_list_problems(&text) {
                    self.problems.push(format!("{name}: {p}"));
                }
            }
            // Its lines short whatever the text (render/board.rs `fold_text`): never grown by
            // quoted-printable or base64.
            assert_eq!(
                html_encoding(&raw).as_deref(),
                html.as_ref().map(|_| "7bit"),
                "{name}: the HTML part goes 7bit"
            );
            if let Some(html) = html
                && self.html_seen.insert(mail.kind.name().to_string())
            {
                self.snaps.insert(name.replace(".txt", ".html"), html);
            }
            self.snaps.insert(name, text);
        }
    }
}

/// What a reader of piece lists (docs/contract.md "A board a screen reader reads") must not get:
/// a line of the text diagram; and what he needs first — whose move it is and the last move —
/// after the piece lists.
fn piece_list_problems(text: &str) -> Vec<String> {
    let body = text.split_once("\n\n").map(|(_, b)| b).unwrap_or(text);
    let mut found = Vec::new();
    for line in body.lines() {
        let cells: Vec<&str> = line.split_whitespace().collect();
        let rank = cells.len() == 10
            && cells[0] == cells[9]
            && cells[1..9].iter().all(|c| c.chars().count() == 1);
        let files = cells.len() == 8
            && cells
                .iter()
                .all(|c| c.len() == 1 && c.as_bytes()[0].is_ascii_lowercase());
        if rank || files {
            found.push(format!("a line of the diagram: {line:?}"));
        }
    }
    let lists = ["\n  Weiß: K", "\n  White: K"]
        .iter()
        .filter_map(|w| body.find(w))
        .min();
    let lead = ["am Zug", "to move", "your move", "ist beendet", "is over"]
        .iter()
        .filter_map(|w| body.find(w))
        .min();
    let last = [
        "Letzter Zug: ",
        "Last move: ",
        "Noch kein Zug",
        "No move has",
    ]
    .iter()
    .filter_map(|w| body.find(w))
    .min();
    if let Some(lists) = lists
        && (lead.is_none_or(|l| l > lists) || last.is_none_or(|l| l > lists))
    {
        found.push("whose move and the last move come after the piece lists".into());
    }
    found
}

/// The transfer encoding of the HTML part of `raw`, if it has one.
fn html_encoding(raw: &[u8]) -> Option<String> {
    let msg = MessageParser::default().parse(raw)?;
    if msg.html_body_count() == 0 || msg.html_body.first() == msg.text_body.first() {
        return None;
    }
    msg.html_part(0)?
        .content_transfer_encoding()
        .map(|e| e.to_ascii_lowercase())
}

/// The decoded HTML part of `raw`, if it has one.
fn html_of(raw: &[u8]) -> Option<String> {
    let msg = MessageParser::default().parse(raw)?;
    if msg.html_body_count() == 0 || msg.html_body.first() == msg.text_body.first() {
        return None;
    }
    msg.body_html(0).map(|h| h.replace("\r\n", "\n"))
}

/// The message as a reader sees it: every header but `Date` (decoded, one per line, in order, the
/// multipart boundary masked), an empty line, the text body, and each attachment.
fn snapshot_text(raw: &[u8]) -> String {
    let msg = MessageParser::default()
        .parse(raw)
        .expect("rendered mail parses");
    let mut out = String::new();
    for h in msg.root_part().headers() {
        let name = h.name.as_str();
        if name.eq_ignore_ascii_case("Date") {
            continue;
        }
        let ids = ["Message-ID", "In-Reply-To", "References"]
            .iter()
            .any(|n| n.eq_ignore_ascii_case(name));
        let value = match &h.value {
            HeaderValue::Text(t) if ids => format!("<{t}>"),
            HeaderValue::TextList(l) if ids => l
                .iter()
                .map(|t| format!("<{t}>"))
                .collect::<Vec<_>>()
                .join(" "),
            HeaderValue::Text(t) => t.to_string(),
            HeaderValue::TextList(l) => l.join(", "),
            HeaderValue::Address(Address::List(list)) => list
                .iter()
                .map(|a| match (&a.name, &a.address) {
                    (Some(n), Some(e)) => format!("{n} <{e}>"),
                    (None, Some(e)) => e.to_string(),
                    (Some(n), None) => n.to_string(),
                    (None, None) => String::new(),
                })
                .collect::<Vec<_>>()
                .join(", "),
            HeaderValue::ContentType(ct) => {
                let mut v = format!(
                    "{}/{}",
                    ct.c_type,
                    ct.c_subtype.as_deref().unwrap_or_default()
                );
                for a in ct.attributes.iter().flatten() {
                    let value = if a.name.eq_ignore_ascii_case("boundary") {
                        "…"
                    } else {
                        &a.value
                    };
                    v.push_str(&format!("; {}={value}", a.name));
                }
                v
            }
            other => format!("{other:?}"),
        };
        out.push_str(&format!("{name}: {value}\n"));
    }
    out.push('\n');
    let body = msg.body_text(0).expect("a text body").replace("\r\n", "\n");
    out.push_str(&body);
    for a in msg.attachments() {
        let ct = a
            .content_type()
            .map(|c| {
                format!(
                    "{}/{}",
                    c.c_type,
                    c.c_subtype.as_deref().unwrap_or_default()
                )
            })
            .unwrap_or_default();
        out.push_str(&format!(
            "\n=== attachment {} ({ct}) ===\n",
            a.attachment_name().unwrap_or("?")
        ));
        out.push_str(&String::from_utf8_lossy(a.contents()).replace("\r\n", "\n"));
    }
    out
}

/// What no reader should ever see in a mail.
fn problems_in(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let body = text.split_once("\n\n").map(|(_, b)| b).unwrap_or(text);
    for bad in [
        "None",
        "null",
        "[]",
        "()",
        "„“",
        "{{",
        "}}",
        "{%",
        "%}",
        "undefined",
        "\"\"",
    ] {
        // Words are whole words (`annulliert` is no `null`); marks are marks anywhere.
        let word = bad.chars().all(char::is_alphanumeric);
        let hit = if word {
            text.split(|c: char| !c.is_alphanumeric()).any(|w| w == bad)
        } else {
            text.contains(bad)
        };
        if hit {
            found.push(format!("contains {bad:?}"));
        }
    }
    for (i, line) in body.lines().enumerate() {
        if !line.ends_with("-- ") && line.ends_with([' ', '\t']) {
            found.push(format!("line {}: trailing blank: {line:?}", i + 1));
        }
        // Lines a printer or a small window breaks badly; indented lines are lists and quotes of
        // data (status lines, the undelivered text), PGN lines start with `[` or `{`.
        if line.chars().count() > 78 && !line.starts_with([' ', '[', '{']) {
            found.push(format!(
                "line {}: longer than 78 characters: {line:?}",
                i + 1
            ));
        }
        // A doubled word ("die die"); single letters are the diagram's pieces.
        let words: Vec<&str> = line.split_whitespace().collect();
        for w in words.windows(2) {
            let a = w[0].trim_matches(|c: char| !c.is_alphanumeric());
            if a.chars().count() > 1
                && a.chars().all(char::is_alphabetic)
                && a.eq_ignore_ascii_case(w[1])
            {
                found.push(format!("line {}: doubled word {a:?}", i + 1));
            }
        }
    }
    if body.contains("\n\n\n") {
        found.push("two empty lines in a row".into());
    }
    if body.starts_with('\n') {
        found.push("the body starts with an empty line".into());
    }
    found
}

/// SAN with German piece letters.
fn german(san: &str) -> String {
    san.chars()
        .map(|c| match c {
            'N' => 'S',
            'B' => 'L',
            'R' => 'T',
            'Q' => 'D',
            other => other,
        })
        .collect()
}

/// The text of the mail carrying ply `i` of `walk` (0-based): the repetition and the own move,
/// White writing German letters (Anna), Black English (Dirk).
fn walk_mail(walk: &[String], i: usize) -> String {
    let n = i / 2 + 1;
    if i.is_multiple_of(2) {
        if i == 0 {
            format!("{n}. {}", german(&walk[0]))
        } else {
            format!(
                "{}... {}\n{n}. {}",
                n - 1,
                german(&walk[i - 1]),
                german(&walk[i])
            )
        }
    } else {
        format!("{n}. {}\n{n}... {}", walk[i - 1], walk[i])
    }
}

/// The whole tournament, step by step. Each step's name says what happens; the mails it decides
/// are recorded under `NN-step-kind-recipient.lang.txt`.
fn scenario(r: &mut Run) {
    // Registration the day before the start: a start mail per player and game.
    r.register(at(2026, 11, 30, 10, 0));

    // Game 1: White's first move, answered to the start mail.
    r.reply("anna-first-move", ANNA, 1, "1. e4", at(2026, 12, 1, 9, 0));
    // Game 3: Bert opens; Clara will stay silent.
    r.reply("bert-first-move", BERT, 3, "1. d4", at(2026, 12, 1, 10, 0));
    // Game 4: 50 moves without capture or pawn move, one mail a minute; the last one stops it.
    let walk = crate::quiet_walk::quiet_walk(100);
    for i in 0..100 {
        let (who, step) = if i % 2 == 0 {
            (ANNA, "walk")
        } else {
            (DIRK, "walk")
        };
        let now = at(2026, 12, 1, 11, 0) + chrono::Duration::minutes(i as i64);
        if i < 99 {
            // Not recorded: ordinary moves, like the ones recorded elsewhere.
            r.quiet = true;
            r.reply(step, who, 4, &walk_mail(&walk, i), now);
            r.quiet = false;
        } else {
            r.reply("fifty-moves", who, 4, &walk_mail(&walk, i), now);
        }
    }

    // Game 1: Black answers with the three dates of TO §14, one of them differing (TO §15).
    r.reply(
        "bert-moves-with-dates",
        BERT,
        1,
        "1. e4 c5\n\nReceived: 2026-12-01\nSent: 2026-12-03\nTime used: 1 day",
        at(2026, 12, 2, 20, 0),
    );
    // Queries (TO §8): the repetition missing, an impossible move.
    r.reply(
        "anna-no-repetition",
        ANNA,
        1,
        "2. Sf3",
        at(2026, 12, 3, 8, 0),
    );
    r.reply(
        "anna-impossible-move",
        ANNA,
        1,
        "1... c5\n2. Sf7",
        at(2026, 12, 3, 8, 30),
    );
    // A move with a conditional line (TO §6).
    r.reply(
        "anna-conditional",
        ANNA,
        1,
        "1... c5\n2. Sf3\nEventualzüge: 2... d6 3. d4",
        at(2026, 12, 3, 9, 0),
    );
    // Bert's reply matches the line: 3. d4 is played at once (TO §7).
    r.reply(
        "bert-meets-line",
        BERT,
        1,
        "2. Nf3 d6",
        at(2026, 12, 3, 12, 0),
    );
    r.reply(
        "bert-wrong-repetition",
        BERT,
        1,
        "3. d5 cxd4",
        at(2026, 12, 3, 13, 0),
    );
    r.reply(
        "bert-draw-offer",
        BERT,
        1,
        "3. d4 cxd4\nI offer a draw.",
        at(2026, 12, 3, 14, 0),
    );
    // Anna declines by moving, and announces more than 10 days for her next move (TO §13).
    r.reply(
        "anna-announces-with-move",
        ANNA,
        1,
        "3... cxd4\n4. Sxd4\nAnkündigung: mehr als 10 Tage",
        at(2026, 12, 4, 9, 0),
    );
    r.reply(
        "anna-not-her-turn",
        ANNA,
        1,
        "3... cxd4\n4. Sxd4",
        at(2026, 12, 4, 10, 0),
    );
    r.reply(
        "bert-accepts-nothing",
        BERT,
        1,
        "I accept the draw",
        at(2026, 12, 4, 11, 0),
    );
    // An announcement alone, for the move being thought on (TO §13): `status` to the partner.
    r.reply(
        "bert-announces",
        BERT,
        1,
        "I need more than 10 days",
        at(2026, 12, 5, 9, 0),
    );
    // Game 3: Clara, silent so far, announces too: her partner is told in English.
    r.reply(
        "clara-announces",
        CLARA,
        3,
        "Ankündigung: mehr als 10 Tage",
        at(2026, 12, 5, 9, 30),
    );
    // `Status`, from a German and an English player and from the director.
    r.mail(
        "anna-status",
        ANNA,
        "Status",
        "Status",
        at(2026, 12, 5, 10, 0),
    );
    r.mail(
        "bert-status",
        BERT,
        "Status",
        "Status",
        at(2026, 12, 5, 10, 5),
    );
    r.mail(
        "director-status",
        TL,
        "Status",
        "Status",
        at(2026, 12, 5, 10, 10),
    );
    // A stranger, a mail naming no game, a take-back. (The stranger names the tournament: one
    // who names nothing of the relay is not answered at all, no backscatter.)
    r.mail(
        "stranger",
        STRANGER,
        "Mitspielen?",
        "Guten Tag, kann ich bei Ihrem Turnier FAX-2026-3 mitspielen?",
        at(2026, 12, 5, 11, 0),
    );
    r.mail(
        "anna-no-game",
        ANNA,
        "Mein Zug",
        "4... Sf6",
        at(2026, 12, 5, 12, 0),
    );
    r.reply(
        "anna-takes-back",
        ANNA,
        1,
        "Ich nehme meinen Zug zurück.",
        at(2026, 12, 6, 9, 0),
    );
    // Fax 2.2: the move forwarded to Bert came back undelivered.
    let undelivered = r.last(MailKind::Move, BERT);
    r.bounce("bounce", &undelivered, BERT, at(2026, 12, 7, 9, 0));
    // The director settles it (TO §8, §30, Fax 2.2), and tries a command that does not fit.
    r.reply(
        "director-time",
        TL,
        1,
        "Bedenkzeit: -2 Tage für bert@fernschach.test, Grund: Mail nicht zustellbar (Fax 2.2)",
        at(2026, 12, 8, 9, 0),
    );
    r.reply(
        "director-wrong-command",
        TL,
        1,
        "ZÜ bestätigt",
        at(2026, 12, 8, 9, 30),
    );
    r.reply("bert-moves", BERT, 1, "4. Nxd4 Nf6", at(2026, 12, 9, 9, 0));
    // Leave (TO §24, §25): Anna's accepted; Bert's too short, then accepted.
    r.mail(
        "anna-leave",
        ANNA,
        "Urlaub",
        "Urlaub: 20.12.2026 – 03.01.2027",
        at(2026, 12, 10, 9, 0),
    );
    r.mail(
        "bert-leave-too-short",
        BERT,
        "Leave",
        "leave 2027-01-10 to 2027-01-12",
        at(2026, 12, 10, 10, 0),
    );
    r.mail(
        "bert-leave",
        BERT,
        "Leave",
        "leave 2027-01-10 to 2027-01-20",
        at(2026, 12, 11, 9, 0),
    );
    // TO §16: reminders after 16 days (game 2: the first move; game 3: with the last move).
    r.tick("reminder-dirk", at(2026, 12, 17, 9, 0));
    r.tick("reminder-clara", at(2026, 12, 27, 11, 0));
    // Anna moves during her leave: it ends the day before (TO §24).
    r.reply(
        "anna-moves-on-leave",
        ANNA,
        1,
        "4... Sf6\n5. Sc3",
        at(2026, 12, 28, 9, 0),
    );
    r.reply(
        "bert-offers-draw",
        BERT,
        1,
        "5. Nc3 a6\nI offer a draw",
        at(2026, 12, 30, 9, 0),
    );
    // TO §16: 14 further days without an answer.
    r.tick("silence-dirk", at(2026, 12, 31, 9, 0));
    r.reply(
        "anna-accepts-draw",
        ANNA,
        1,
        "Remis angenommen",
        at(2026, 12, 31, 12, 0),
    );
    // The weekly digest (Monday).
    r.digest("digest", at(2027, 1, 4, 0, 0));
    // TO §31: the director adjudicates game 4.
    r.reply(
        "director-adjudicates",
        TL,
        4,
        "Ergebnis: ½-½",
        at(2027, 1, 4, 9, 0),
    );
    // TO §17/§18: the first time forfeits (36 days, charged 41 > 40).
    r.tick("forfeit-dirk", at(2027, 1, 6, 9, 0));
    // Dirk moves at last: TL in copy (TO §16), +5 days (TO §13).
    r.reply("dirk-moves-late", DIRK, 2, "1. e4", at(2027, 1, 6, 12, 0));
    r.reply("clara-answers", CLARA, 2, "1. e4 e5", at(2027, 1, 6, 14, 0));
    // Clara announced (TO §13): silence report after 40 days, forfeit after 41.
    r.tick("silence-clara", at(2027, 1, 10, 11, 0));
    r.tick("forfeit-clara", at(2027, 1, 11, 11, 0));
    r.reply(
        "clara-moves-late",
        CLARA,
        3,
        "1. d4 Sf6",
        at(2027, 1, 11, 13, 0),
    );
    // Game 2: Dirk silent again — reminder, silence report, second time forfeit (TO §21).
    r.tick("reminder-dirk-again", at(2027, 1, 23, 9, 0));
    r.tick("silence-dirk-again", at(2027, 2, 5, 9, 0));
    // Game 3: Bert's move waits; Clara's move reached him during his leave (TO §24).
    r.tick("reminder-bert", at(2027, 2, 6, 9, 0));
    r.tick("forfeit-2-dirk", at(2027, 2, 12, 9, 0));
    r.reply(
        "dirk-moves-suspended",
        DIRK,
        2,
        "1... e5\n2. Nf3",
        at(2027, 2, 12, 10, 0),
    );
    // TO §22: the director confirms; TO §24: he grants special leave.
    r.reply(
        "director-confirms-forfeit",
        TL,
        2,
        "ZÜ bestätigt",
        at(2027, 2, 12, 11, 0),
    );
    // TO §18, §29: Dirk answers the end of game 2 (his second forfeit confirmed) — his words,
    // and the move in them, reach the director, not Clara; he is told where moves go.
    r.answer_decision(
        "dirk-disputes",
        DIRK,
        2,
        "I object: I was in hospital from 1 to 12 February, the certificate follows.\n\n2. Nf3\n\nDirk",
        at(2027, 2, 12, 11, 30),
    );
    r.mail(
        "director-special-leave",
        TL,
        "[FAX-2026-3] Sonderurlaub",
        "Sonderurlaub: 01.03.2027 – 14.03.2027 für clara@fernschach.test",
        at(2027, 2, 12, 12, 0),
    );
    // TO §29: Clara appeals in a mail about game 3 (her forfeit): to the director, with the
    // game's records; TO §30: the director warns Bert; players ask for help.
    r.reply(
        "clara-appeals",
        CLARA,
        3,
        "Einspruch: Die Zeitüberschreitung vom 11.01. ist falsch berechnet; mein Zug ging am 10.01. ab.\n\nClara Claus",
        at(2027, 2, 12, 12, 30),
    );
    r.mail(
        "director-warns",
        TL,
        &format!("[{TID}/1] Ermahnung"),
        "Ermahnung: bert@fernschach.test Grund: wiederholt unhöfliche Worte an die Partnerin",
        at(2027, 2, 12, 12, 40),
    );
    r.mail("anna-help", ANNA, "Hilfe", "Hilfe", at(2027, 2, 12, 12, 50));
    r.mail("bert-help", BERT, "help", "help", at(2027, 2, 12, 12, 55));
    // docs/xfcc.md: a new XFCC password, asked in German and in English (answered with the
    // status, which carries it on a relay with `[xfcc]`).
    r.mail(
        "anna-xfcc-password",
        ANNA,
        "Neues XFCC-Passwort",
        "Bitte ein neues XFCC-Passwort.",
        at(2027, 2, 13, 9, 0),
    );
    r.mail(
        "bert-xfcc-password",
        BERT,
        "XFCC password",
        "XFCC password",
        at(2027, 2, 13, 9, 5),
    );
    // The relay itself: SMTP failed for `alert_minutes`, then works again (docs/operating.md);
    // the director is the operator here, as in a small federation.
    let since = at(2027, 2, 13, 10, 0);
    let alert = |until| OperatorAlert {
        operator: TL.into(),
        concern: "smtp".into(),
        since,
        until,
        detail: "temporary SMTP failure: connection refused".into(),
    };
    r.alert("alert-smtp", alert(None), at(2027, 2, 13, 10, 30));
    r.alert(
        "alert-smtp-back",
        alert(Some(at(2027, 2, 13, 11, 15))),
        at(2027, 2, 13, 11, 15),
    );
    // TO §30: words alone go to the partner as a message; the director restricts the game to
    // moves (words are then queried) and lifts it; a player declines clock warnings.
    r.reply(
        "anna-message",
        ANNA,
        1,
        "Lieber Bert,\n\nfrohe Weihnachten und danke für die schöne Partie!\n\nAnna",
        at(2027, 2, 14, 8, 0),
    );
    r.mail(
        "director-moves-only",
        TL,
        "Anweisung",
        &format!("Nur Züge: {TID}/1"),
        at(2027, 2, 14, 8, 10),
    );
    r.reply(
        "bert-words-under-moves-only",
        BERT,
        1,
        "Thank you, Anna, and a happy new year!",
        at(2027, 2, 14, 8, 20),
    );
    r.mail(
        "director-moves-only-off",
        TL,
        "Anweisung",
        &format!("Nur Züge aufgehoben: {TID}/1"),
        at(2027, 2, 14, 8, 30),
    );
    r.reply(
        "bert-message",
        BERT,
        1,
        "Thank you, Anna, and a happy new year!",
        at(2027, 2, 14, 8, 35),
    );
    // TO §24: a leave planned and withdrawn before it begins.
    r.mail(
        "bert-plans-leave",
        BERT,
        "Leave",
        "Leave: 2027-03-01 to 2027-03-14",
        at(2027, 2, 14, 8, 36),
    );
    r.mail(
        "bert-withdraws-leave",
        BERT,
        "Leave",
        "I'd like to cancel my leave, my trip was called off.",
        at(2027, 2, 14, 8, 38),
    );
    r.mail(
        "dirk-no-warnings",
        DIRK,
        "Keine Warnungen",
        "Keine Warnungen",
        at(2027, 2, 14, 8, 40),
    );
    r.mail(
        "dirk-warnings",
        DIRK,
        "Warnungen",
        "Warnungen",
        at(2027, 2, 14, 8, 50),
    );
    // The director's desk by mail (TO §11, §23, §26, §29, §30).
    r.mail(
        "director-records",
        TL,
        "Akten",
        &format!("Korrespondenz: {TID}/1\nPGN: {TID}\nPrüfen: {TID}/1"),
        at(2027, 2, 15, 9, 0),
    );
    r.mail(
        "director-through-tl",
        TL,
        "Anordnung",
        &format!("Züge über TL: {TID}/1"),
        at(2027, 2, 15, 9, 10),
    );
    r.st.spare_keys = vec!["q-bert".into()];
    r.mail(
        "director-asks-bert",
        TL,
        &format!("[{TID}] Rückfrage"),
        &format!("Rückfrage an {BERT}: Wie steht es um Ihre Partien?"),
        at(2027, 2, 15, 9, 20),
    );
    let question = r.last(MailKind::Director, BERT);
    let subject = format!("Re: {}", r.subject_of(&question));
    r.write(
        "bert-answers",
        BERT,
        "relay+q-bert@fernschach.test",
        &subject,
        Some(&question.message_id),
        "All is well, my next move follows this week.\n\n> Wie steht es um Ihre Partien?",
        at(2027, 2, 16, 9, 0),
    );
    r.st.spare_keys = vec!["q-anna".into()];
    r.mail(
        "director-asks-anna",
        TL,
        &format!("[{TID}] Rückfrage"),
        &format!("Rückfrage an {ANNA}: Spielen Sie Ihre Partien weiter?"),
        at(2027, 2, 16, 9, 10),
    );
    r.tick("question-unanswered", at(2027, 3, 2, 9, 10));
    r.mail(
        "director-withdraws-bert",
        TL,
        &format!("[{TID}] Rücktritt"),
        &format!("Rücktritt: {BERT} Wertung: verloren"),
        at(2027, 3, 2, 10, 0),
    );
    // TO §27: the withdrawal ended the last game; the tick after it reports the tournament's
    // end to every player and the director (the shell encloses the PGN and `verify`'s lines).
    r.tick("tournament-over", at(2027, 3, 2, 10, 0));
    r.register_by_mail(
        "register-by-mail",
        (TL, "Turnier anmelden"),
        "id = \"POKAL-2027\"\nname = \"Pokal 2027\"\nrules = \"post\"\nstart = 2027-04-01\n\n\
         [director]\nname = \"Tom Leiter\"\nemail = \"tl@fernschach.test\"\n\n\
         [[players]]\nname = \"Anna Adler\"\nemail = \"anna@fernschach.test\"\n\n\
         [[players]]\nname = \"Bert Berger\"\nemail = \"bert@fernschach.test\"\n\n\
         [[players]]\nname = \"Clara Claus\"\nemail = \"clara@fernschach.test\"\n",
        at(2027, 3, 2, 11, 0),
    );
    r.register_by_mail(
        "register-by-mail-errors",
        (TL, "Turnier anmelden"),
        "id = \"POKAL 2027\"\nname = \"Pokal 2027\"\nrules = \"blitz\"\nstart = 2027-04-01\n\n\
         [director]\nname = \"Tom Leiter\"\nemail = \"tl@fernschach.test\"\n\n\
         [[players]]\nname = \"Anna Adler\"\nemail = \"anna@\"\n\n\
         [[players]]\nname = \"Bert Berger\"\nemail = \"bert@fernschach.test\"\n",
        at(2027, 3, 2, 11, 10),
    );
    // A file checked, not registered: its games; then one whose id is taken.
    let pokal = |id: &str| {
        format!(
            "id = \"{id}\"\nname = \"Pokal 2028\"\nrules = \"fax\"\nstart = 2028-04-01\n\n\
             [director]\nname = \"Tom Leiter\"\nemail = \"tl@fernschach.test\"\n\n\
             [[players]]\nname = \"Anna Adler\"\nemail = \"anna@fernschach.test\"\n\n\
             [[players]]\nname = \"Clara Claus\"\nemail = \"clara@fernschach.test\"\n"
        )
    };
    r.register_by_mail(
        "check-by-mail",
        (TL, "Turnier prüfen"),
        &pokal("POKAL-2028"),
        at(2027, 3, 2, 11, 20),
    );
    r.register_by_mail(
        "check-by-mail-taken",
        (TL, "check tournament"),
        &pokal("POKAL-2027"),
        at(2027, 3, 2, 11, 30),
    );
    // The tournament registered by mail, withdrawn before its first move.
    r.mail(
        "withdraw-tournament",
        TL,
        "Turnier zurückziehen: POKAL-2027",
        "",
        at(2027, 3, 2, 12, 0),
    );
    // The player's overview: a second tournament starts (not recorded: start mails and moves
    // as above); Anna asks once, Bert weekly and gets it on Monday, then stops it.
    r.quiet = true;
    r.register_file(POKAL, at(2027, 3, 2, 13, 0));
    let pokal = |n| GameRef::new("POKAL-2027-2", n);
    r.reply_in("pokal", ANNA, pokal(1), "1. e4", at(2027, 3, 3, 10, 0));
    r.reply_in("pokal", CLARA, pokal(2), "1. d4", at(2027, 3, 3, 11, 0));
    r.quiet = false;
    r.mail(
        "anna-overview",
        ANNA,
        "Übersicht",
        "Übersicht",
        at(2027, 3, 5, 10, 0),
    );
    r.mail(
        "bert-weekly-overview",
        BERT,
        "Overview",
        "Hello,\n\nweekly overview\n\nBert",
        at(2027, 3, 5, 10, 5),
    );
    r.tick("weekly-overview", at(2027, 3, 8, 0, 0));
    r.mail(
        "bert-overview-off",
        BERT,
        "overview off",
        "",
        at(2027, 3, 8, 9, 0),
    );
}

/// The scenario of piece lists (docs/contract.md "A board a screen reader reads"), recorded as
/// `board-NN-step-kind-recipient.lang.txt`: Bert reads them as the tournament file says, Anna
/// asks for them by mail; check in words; Bert asks for the diagram back; a query; Anna resigns.
fn board_scenario(r: &mut Run) {
    r.register_file(BOARD_TOURNAMENT, at(2027, 3, 30, 10, 0));
    r.mail(
        "anna-asks-for-lists",
        ANNA,
        "Brett: Liste",
        "Brett: Liste",
        at(2027, 3, 31, 9, 0),
    );
    r.reply("anna-first-move", ANNA, 1, "1. e4", at(2027, 4, 1, 9, 0));
    r.reply("bert-moves", BERT, 1, "1. e4 f5", at(2027, 4, 2, 9, 0));
    r.reply(
        "anna-checks",
        ANNA,
        1,
        "1... f5\n2. Dh5+",
        at(2027, 4, 3, 9, 0),
    );
    r.mail(
        "bert-asks-for-the-diagram",
        BERT,
        "board: diagram",
        "board: diagram",
        at(2027, 4, 3, 10, 0),
    );
    r.reply("bert-blocks", BERT, 1, "2. Qh5+ g6", at(2027, 4, 4, 9, 0));
    r.reply(
        "anna-impossible-move",
        ANNA,
        1,
        "2... g6\n3. Dxh8",
        at(2027, 4, 4, 10, 0),
    );
    r.reply(
        "anna-resigns",
        ANNA,
        1,
        "Ich gebe auf.",
        at(2027, 4, 5, 9, 0),
    );
}

/// The snapshot folder.
fn snapshot_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/mail")
}

/// A line diff (longest common subsequence): `-` expected, `+` actual, two lines of context around
/// each change, `…` for the unchanged lines between.
fn diff(expected: &str, actual: &str) -> String {
    let a: Vec<&str> = expected.lines().collect();
    let b: Vec<&str> = actual.lines().collect();
    let mut lcs = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for i in (0..a.len()).rev() {
        for j in (0..b.len()).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut lines: Vec<(char, &str)> = Vec::new();
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            lines.push((' ', a[i]));
            i += 1;
            j += 1;
        } else if i < a.len() && (j == b.len() || lcs[i + 1][j] >= lcs[i][j + 1]) {
            lines.push(('-', a[i]));
            i += 1;
        } else {
            lines.push(('+', b[j]));
            j += 1;
        }
    }
    let changed: Vec<usize> = (0..lines.len()).filter(|k| lines[*k].0 != ' ').collect();
    let near = |k: usize| changed.iter().any(|c| c.abs_diff(k) <= 2);
    let mut out = String::new();
    let mut skipped = false;
    for (k, (tag, line)) in lines.iter().enumerate() {
        if near(k) {
            out.push_str(&format!("{tag} {line}\n"));
            skipped = false;
        } else if !skipped {
            out.push_str("  …\n");
            skipped = true;
        }
    }
    out
}

#[test]
fn every_mail_text_matches_its_snapshot() {
    let mut de = Run::new(Lang::De, None, "");
    scenario(&mut de);
    let mut en = Run::new(Lang::En, Some(TL), "en-default-");
    scenario(&mut en);
    let mut board = Run::new(Lang::De, None, "board-");
    board.tid = "DBSB-2027-1";
    // The HTML parts and XFCC logins of its mails are the main scenario's.
    board.html_seen = MailKind::ALL.iter().map(|k| k.name().to_string()).collect();
    board.xfcc_seen = ["de".to_string(), "en".to_string()].into();
    board_scenario(&mut board);

    // Every kind of the docs/contract.md in both languages, and the variants the brief names.
    let seen: BTreeSet<(String, String, String)> = de.seen.union(&en.seen).cloned().collect();
    let mut missing = Vec::new();
    for kind in MailKind::ALL {
        for lang in ["de", "en"] {
            if !seen.iter().any(|(k, l, _)| k == kind.name() && l == lang) {
                missing.push(format!("{}.{lang}", kind.name()));
            }
        }
    }
    for (kind, variant) in [
        ("status", "announcement"),
        ("status", "report"),
        ("receipt", "leave"),
        ("query", "director"),
        ("query", "no-game"),
    ] {
        for lang in ["de", "en"] {
            if !seen.contains(&(kind.into(), lang.into(), variant.into())) {
                missing.push(format!("{kind} ({variant}).{lang}"));
            }
        }
    }
    assert!(missing.is_empty(), "the scenario lacks: {missing:?}");

    let snaps: BTreeMap<String, String> = de
        .snaps
        .into_iter()
        .chain(en.snaps)
        .chain(board.snaps)
        .collect();
    let dir = snapshot_dir();
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v != "0" && !v.is_empty());
    if update {
        std::fs::create_dir_all(&dir).expect("snapshot dir");
        for entry in std::fs::read_dir(&dir).expect("snapshot dir").flatten() {
            let name = entry.file_name().to_string_lossy().to_string();
            if (name.ends_with(".txt") || name.ends_with(".html")) && !snaps.contains_key(&name) {
                std::fs::remove_file(entry.path()).expect("remove stale snapshot");
            }
        }
        for (name, text) in &snaps {
            std::fs::write(dir.join(name), text).expect("write snapshot");
        }
    }
    let problems: Vec<String> = de
        .problems
        .iter()
        .chain(&en.problems)
        .chain(&board.problems)
        .cloned()
        .collect();
    assert!(
        problems.is_empty(),
        "texts a reader should not see:\n{}",
        problems.join("\n")
    );
    if update {
        return;
    }
    let mut failures = Vec::new();
    for (name, text) in &snaps {
        match std::fs::read_to_string(dir.join(name)) {
            Ok(expected) if expected == *text => {}
            Ok(expected) => failures.push(format!("--- {name}\n{}", diff(&expected, text))),
            Err(_) => failures.push(format!("--- {name}: no snapshot; new text:\n{text}")),
        }
    }
    let on_disk: BTreeSet<String> = std::fs::read_dir(&dir)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().to_string())
                .filter(|n| n.ends_with(".txt") || n.ends_with(".html"))
                .collect()
        })
        .unwrap_or_default();
    for stale in on_disk.iter().filter(|n| !snaps.contains_key(*n)) {
        failures.push(format!("--- {stale}: no step produces this mail any more"));
    }
    assert!(
        failures.is_empty(),
        "{} mail text(s) differ from tests/snapshots/mail (UPDATE_SNAPSHOTS=1 cargo test --test pure mail_texts:: rewrites them):\n\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// An operator's own template (`templates_dir`), written against the data as it was before this
/// review, still renders every mail of its kind; the subject keeps the game (docs/contract.md).
#[test]
fn an_operators_template_still_renders() {
    let dir = std::env::temp_dir().join(format!("fernzug-mail-texts-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("de")).unwrap();
    std::fs::write(
        dir.join("de/move.txt"),
        "Subject: Zug {{ move }}\n\nHallo {{ recipient }},\n\n{{ mover }} zog {{ move }}.\n\n\
         {{ diagram }}\n\nRest: {{ clock_you.left }} Tage. Antwort: {{ move }} {{ next_number }} …\n\n\
         {% for note in notes %}{{ note }}\n{% endfor %}-- \nMein Relais\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("en")).unwrap();
    std::fs::write(
        dir.join("en/receipt.txt"),
        "Subject: {% if leave %}Leave{% else %}Got {{ move }}{% endif %}\n\n\
         {% if leave %}{% for p in leave.partners %}{{ p }}\n{% endfor %}{% elif move %}{{ move }}{% else %}announcement{% endif %}\n",
    )
    .unwrap();
    let mut r = Run::new(Lang::De, None, "");
    r.templates = Templates::load(Some(&dir)).expect("the operator's templates load");
    r.links_checked = false;
    scenario(&mut r);
    let _ = std::fs::remove_dir_all(&dir);
    let moves: Vec<&String> = r
        .snaps
        .values()
        .filter(|text| text.contains("\nX-Fernzug-Kind: move\nContent-Language: de\n"))
        .collect();
    assert!(moves.len() >= 5, "{}", moves.len());
    for text in moves {
        let subject = text.lines().find(|l| l.starts_with("Subject: ")).unwrap();
        assert!(subject.starts_with("Subject: [FAX-2026-3/"), "{subject}");
        assert!(subject.contains("] Zug "), "{subject}");
        assert!(
            text.contains("\n\nHallo ") && text.contains("Mein Relais"),
            "{text}"
        );
    }
    let leave = &r.snaps["27-anna-leave-receipt-anna.de.txt"];
    assert!(
        leave.contains("Urlaub bestätigt"),
        "German receipt stays built in: {leave}"
    );
    let leave = &r.snaps["29-bert-leave-receipt-bert.en.txt"];
    assert!(
        leave.contains("\n\nAnna Adler (FAX-2026-3/1)\nClara Claus (FAX-2026-3/3)\n"),
        "the old list of partners is still there: {leave}"
    );
    // The operator's texts are checked like the built-in ones.
    assert!(r.problems.is_empty(), "{:?}", r.problems);
}

#[test]
fn the_diff_shows_changed_lines() {
    let d = diff("a\nb\nc\n", "a\nB\nc\n");
    assert_eq!(d, "  a\n- b\n+ B\n  c\n");
    let d = diff("a\n", "a\nb\n");
    assert_eq!(d, "  a\n+ b\n");
    let long = "1\n2\n3\n4\n5\n6\n7\n8\n";
    let d = diff(long, &long.replace('6', "six"));
    assert_eq!(d, "  …\n  4\n  5\n- 6\n+ six\n  7\n  8\n");
}

#[test]
fn the_checks_find_what_a_reader_should_not_see() {
    let text = "Subject: x\n\nGuten Tag None,\nder der Zug \n\n\nFEN: null\n";
    let p = problems_in(text);
    for want in [
        "\"None\"",
        "\"null\"",
        "doubled word",
        "trailing blank",
        "two empty lines",
    ] {
        assert!(p.iter().any(|x| x.contains(want)), "{want}: {p:?}");
    }
    assert!(problems_in("Subject: x\n\n8 t s l d k l s t 8\n7 b b b b b b b b 7\n").is_empty());
}

#[test]
fn a_date_is_written_in_the_readers_form() {
    // The dates in the snapshots are written by `render::words`; this pins the two forms.
    let d = NaiveDate::from_ymd_opt(2026, 12, 1).unwrap();
    assert_eq!(fernzug::render::words::date(d, Lang::De), "01.12.2026");
    assert_eq!(fernzug::render::words::date(d, Lang::En), "2026-12-01");
}
