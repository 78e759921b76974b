//! What the core's tests share: the relay settings, the players, Berlin times, tournament files,
//! letters as the reader would hand them over.

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Europe::Berlin;

use crate::core::model::{NewPlayer, NewTournament, Pairing, Person};
use crate::core::{Output, Settings, State};
use crate::game_ref::GameRef;
use crate::lang::Lang;
use crate::letter::{Content, Letter, MoveToken};
use crate::mail_kind::MailKind;
use crate::rules::RuleSet;

pub const ANNA: &str = "anna@fernschach.test";
pub const BERT: &str = "bert@fernschach.test";
pub const CARL: &str = "carl@fernschach.test";
pub const DORA: &str = "dora@fernschach.test";
pub const TL: &str = "tl@fernschach.test";

/// The relay of the tests: Berlin time, German by default, no weekly digest.
pub fn settings() -> Settings {
    Settings {
        relay_address: "relay@fernschach.test".into(),
        relay_name: "Relais".into(),
        tz: Berlin,
        default_lang: Lang::De,
        instance: "test".into(),
        digest_day: None,
        public_url: None,
        warn_days: 0,
        guard: crate::core::model::Guard {
            trusted_authserv_id: Some(OWN_SERVER.into()),
            ..Default::default()
        },
    }
}

/// The operator's own server in the tests' settings (`[security] trusted_authserv_id`).
pub const OWN_SERVER: &str = "mx.fernschach.test";

/// `l` as the operator's own server vouches for it (`spf=pass` for its From domain): a stranger
/// is answered only then (no backscatter).
pub fn vouched(mut l: Letter) -> Letter {
    let domain = l.from.rsplit_once('@').map_or("", |(_, d)| d).to_string();
    l.trace.auth_results.push(crate::letter::auth::AuthResults {
        authserv_id: OWN_SERVER.into(),
        results: vec![crate::letter::auth::AuthResult {
            method: "spf".into(),
            result: "pass".into(),
            props: vec![("smtp.mailfrom".into(), domain)],
        }],
    });
    l
}

/// Local Berlin time.
pub fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Utc> {
    Berlin
        .with_ymd_and_hms(y, mo, d, h, mi, 0)
        .single()
        .expect("valid local time")
        .with_timezone(&Utc)
}

/// A calendar day.
pub fn day(y: i32, m: u32, d: u32) -> NaiveDate {
    NaiveDate::from_ymd_opt(y, m, d).expect("valid date")
}

/// A tournament `id` starting 2026-12-01, directed by Tom Leiter, of `players` (name, email,
/// language) with exactly `games` (white, black) as indices into `players`, numbered 1.. in order.
pub fn tournament(
    id: &str,
    name: &str,
    rules: RuleSet,
    players: &[(&str, &str, Option<Lang>)],
    games: &[(usize, usize)],
) -> NewTournament {
    NewTournament {
        id: id.into(),
        name: name.into(),
        rules,
        start: day(2026, 12, 1),
        director: Person {
            name: "Tom Leiter".into(),
            email: TL.into(),
        },
        players: players
            .iter()
            .map(|(n, e, l)| NewPlayer {
                name: (*n).into(),
                email: (*e).into(),
                language: *l,
                also: Vec::new(),
                board: None,
            })
            .collect(),
        pairings: games
            .iter()
            .enumerate()
            .map(|(i, (white, black))| Pairing {
                number: i as u32 + 1,
                round: 1,
                white: *white,
                black: *black,
            })
            .collect(),
        digest: true,
    }
}

/// Anna Adler (German) against Bert Berger (English): game `T-1/1`, "Testturnier".
pub fn duel(rules: RuleSet) -> NewTournament {
    tournament(
        "T-1",
        "Testturnier",
        rules,
        &[
            ("Anna Adler", ANNA, None),
            ("Bert Berger", BERT, Some(Lang::En)),
        ],
        &[(0, 1)],
    )
}

/// `file` registered on 2026-11-30 12:00 into `st`, with reply keys `key1`, `key2`, … .
pub fn register(st: &mut State, file: &NewTournament) {
    let mut n = st.keys.len();
    let mut key = || {
        n += 1;
        format!("key{n}")
    };
    st.register(file, at(2026, 11, 30, 12, 0), &settings(), &mut key)
        .expect("registers");
}

/// A new relay with `file` registered.
pub fn registered(file: &NewTournament) -> State {
    let mut st = State::default();
    register(&mut st, file);
    st
}

/// The game of the one-game tests: T-1/1.
pub fn game() -> GameRef {
    GameRef::new("T-1", 1)
}

/// A letter from `from` about `game` (subject `Re: [GAME]`; `Re: Zug` without one), read as
/// `content`, with a Message-ID `mN@x` of its own.
pub fn letter(from: &str, game: Option<GameRef>, content: Content) -> Letter {
    use std::sync::atomic::{AtomicU64, Ordering};
    static SEQ: AtomicU64 = AtomicU64::new(0);
    Letter {
        message_id: format!("m{}@x", SEQ.fetch_add(1, Ordering::Relaxed)),
        from: from.into(),
        from_name: None,
        subject: game
            .as_ref()
            .map_or("Re: Zug".into(), |g| format!("Re: [{g}]")),
        game_ref: game,
        reply_keys: vec![],
        references: vec![],
        automatic: None,
        date_header: None,
        text: String::new(),
        attachments: vec![],
        content,
        trace: Default::default(),
        dsn: None,
    }
}

/// The moves (number, colour, text) as the reader finds them in a letter.
pub fn moves(list: &[(u32, shakmaty::Color, &str)]) -> Vec<MoveToken> {
    list.iter()
        .map(|&(number, color, text)| MoveToken {
            number,
            color,
            text: text.into(),
        })
        .collect()
}

/// What the shell does with a mail received at `now`: the deadlines due by then first, then the
/// letter; both outputs in one.
pub fn step_with(st: &mut State, l: &Letter, now: DateTime<Utc>, s: &Settings) -> Output {
    let mut out = st.tick(now, s);
    out.absorb(st.handle_letter(l, now, s));
    out
}

/// [`step_with`] the tests' [`settings`].
pub fn step(st: &mut State, l: &Letter, now: DateTime<Utc>) -> Output {
    step_with(st, l, now, &settings())
}

/// The kind of every mail decided, in order: the copies of one mail (one per reply key, see
/// `copies_per_key`) share its Message-ID and count once.
pub fn kinds(out: &Output) -> Vec<MailKind> {
    let mut seen = std::collections::BTreeSet::new();
    out.mails
        .iter()
        .filter(|m| seen.insert(m.message_id.clone()))
        .map(|m| m.kind)
        .collect()
}

/// The reason of the first query (`""` without one).
pub fn reason(out: &Output) -> String {
    out.mails
        .iter()
        .find(|m| m.kind == MailKind::Query)
        .map(|m| {
            crate::render::facts(m)["reason"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .unwrap_or_default()
}
