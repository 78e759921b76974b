//! The tournament file (docs/contract.md "Tournament file"): a tournament's id, rules, start day,
//! director, players and games.
//!
//! [`load`] reads and checks a file; [`parse`] checks its text; [`check`] checks the text of a
//! file sent by mail. Each gives every error the file has, in the order of the file: a line per
//! error naming the file, the line and key and what is wrong (docs/contract.md "Exit status":
//! bad tournament file → exit 2), e.g.
//!
//! ```text
//! t.toml: line 17, key `players[2].email`: "bert@" is not an e-mail address
//! ```
//!
//! (a syntax error is the only one: the file cannot be read past it). `[[players]]` and
//! `[[games]]` blocks are counted from 1 in key paths, as the operator counts them in the file.
//! Without `[[games]]` every player meets every other once, paired by the Berger tables
//! ([`berger`]).

use std::path::{Path, PathBuf};

use chrono::NaiveDate;

use crate::config::KeyProblem;
use crate::config::fields::{self, Fields, KeyErr};
use crate::core::model::{FileFault, FileProblem, NewPlayer, NewTournament, Pairing, Person};
use crate::game_ref::valid_tournament_id;
use crate::lang::Board;
use crate::rules::RuleSet;

/// At most this many players: a round robin of n players has n(n−1)/2 games.
pub const MAX_PLAYERS: usize = 1000;

/// At most this many explicit `[[games]]`.
pub const MAX_GAMES: usize = 100_000;

/// Why a tournament file was refused: every error, each on a line of its own that names the
/// file, and the line and key where the error is.
#[derive(Debug, thiserror::Error)]
pub enum TournamentFileError {
    /// The file itself could not be read.
    #[error("{}: cannot read: {}", file.display(), crate::io_text::io_message(error))]
    Read {
        file: PathBuf,
        error: std::io::Error,
    },
    /// The file is not valid TOML: where the reading stopped (nothing after it can be read, so
    /// this is the only error told).
    #[error("{}: line {line}, column {column}{}: not valid TOML: {message}", file.display(), crate::config::key_hint(key.as_deref()))]
    Syntax {
        file: PathBuf,
        line: usize,
        column: usize,
        /// The key written on that line, if the line has one.
        key: Option<String>,
        message: String,
    },
    /// Keys missing, unknown or with a bad value: every one, in the order of the file (those
    /// on no line last).
    #[error("{}", key_lines(file, errors))]
    Keys {
        file: PathBuf,
        errors: Vec<KeyError>,
    },
}

/// One key of a tournament file that is missing, unknown or has a bad value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyError {
    /// The line (1-based) the key is written on, when it is written on one.
    pub line: Option<usize>,
    /// The key path, e.g. `players[2].email`.
    pub key: String,
    pub problem: KeyProblem,
}

/// `t.toml: line 17, key `players[2].email`: …`, one line per error.
fn key_lines(file: &Path, errors: &[KeyError]) -> String {
    errors
        .iter()
        .map(|e| match e.line {
            Some(l) => format!(
                "{}: line {l}, key `{}`: {}",
                file.display(),
                e.key,
                e.problem
            ),
            None => format!("{}: key `{}`: {}", file.display(), e.key, e.problem),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Reads and checks the tournament file at `path`.
pub fn load(path: &Path) -> Result<NewTournament, TournamentFileError> {
    let text = std::fs::read_to_string(path).map_err(|error| TournamentFileError::Read {
        file: path.to_path_buf(),
        error,
    })?;
    parse(path, &text)
}

/// Checks the text of the tournament file `path` (named in errors only): every error.
pub fn parse(path: &Path, text: &str) -> Result<NewTournament, TournamentFileError> {
    let table = fields::parse_toml(text).map_err(|e| TournamentFileError::Syntax {
        file: path.to_path_buf(),
        line: e.line,
        column: e.column,
        key: e.key,
        message: e.message,
    })?;
    tournament(&table).map_err(|all| TournamentFileError::Keys {
        file: path.to_path_buf(),
        errors: located(text, all)
            .into_iter()
            .map(|(line, e)| KeyError {
                line,
                key: e.key,
                problem: e.problem,
            })
            .collect(),
    })
}

/// Checks the text of a tournament file and gives every error it finds (a syntax error stops
/// the reading: it is the only one), each with its line and key: [`parse`]'s errors, as the
/// core takes them (`RegisterRefusal::File`, a file sent by mail).
pub fn check(text: &str) -> Result<NewTournament, Vec<FileProblem>> {
    let table = fields::parse_toml(text).map_err(|e| {
        vec![FileProblem {
            line: Some(e.line),
            key: e.key,
            what: FileFault::Syntax(e.message),
        }]
    })?;
    tournament(&table).map_err(|all| {
        located(text, all)
            .into_iter()
            .map(|(line, e)| FileProblem {
                line,
                key: Some(e.key),
                what: match e.problem {
                    KeyProblem::Missing => FileFault::Missing,
                    KeyProblem::Unknown { allowed } => FileFault::Unknown {
                        allowed: allowed.iter().map(|a| a.to_string()).collect(),
                    },
                    KeyProblem::Expected { expected, found } => {
                        FileFault::Expected { expected, found }
                    }
                    KeyProblem::Invalid(why) => FileFault::Invalid(why),
                },
            })
            .collect()
    })
}

/// Each error with the line its key is written on, in the order of the file; those on no line
/// last, in the order they were found.
fn located(text: &str, errors: Vec<KeyErr>) -> Vec<(Option<usize>, KeyErr)> {
    let mut all: Vec<(Option<usize>, KeyErr)> = errors
        .into_iter()
        .map(|e| (fields::line_of_key(text, &e.key), e))
        .collect();
    all.sort_by_key(|(line, _)| line.unwrap_or(usize::MAX));
    all
}

/// The value of `r`, or `None` with its error kept in `errs`.
fn keep<T>(errs: &mut Vec<KeyErr>, r: Result<T, KeyErr>) -> Option<T> {
    r.map_err(|e| errs.push(e)).ok()
}

fn tournament(table: &toml::Table) -> Result<NewTournament, Vec<KeyErr>> {
    let mut errs = Vec::new();
    let allowed = [
        "id", "name", "rules", "start", "director", "players", "games", "digest",
    ];
    let top = Fields::lenient(table, "");
    for k in table.keys().filter(|k| !allowed.contains(&k.as_str())) {
        errs.push(top.err(
            k,
            KeyProblem::Unknown {
                allowed: allowed.to_vec(),
            },
        ));
    }
    let id = keep(&mut errs, top.req_text("id")).and_then(|id| {
        if valid_tournament_id(id) {
            Some(id)
        } else {
            errs.push(top.invalid(
                "id",
                format!(
                    "{id:?} is not a tournament id (letters, digits and '-', at most 64 characters)"
                ),
            ));
            None
        }
    });
    let name = keep(&mut errs, top.req_text("name")).map(str::to_string);
    let rules = keep(
        &mut errs,
        top.req_text("rules")
            .and_then(|r| match r.to_ascii_lowercase().as_str() {
                "fax" => Ok(RuleSet::Fax),
                "post" => Ok(RuleSet::Post),
                _ => {
                    let found = top
                        .value("rules")
                        .map_or_else(String::new, fields::describe);
                    Err(top.expected("rules", "\"fax\" or \"post\"", found))
                }
            }),
    );
    let start = keep(&mut errs, start_date(&top));
    let director = keep(&mut errs, top.req_table("director")).and_then(|d| {
        keep(&mut errs, d.allow(&["name", "email"]));
        let name = keep(&mut errs, d.req_text("name"));
        let email = keep(&mut errs, d.req_email("email"));
        Some(Person {
            name: name?.to_string(),
            email: email?,
        })
    });
    let players = players(&top, &mut errs);
    if let (Some(director), Some(players)) = (&director, &players)
        && let Some(i) = players
            .iter()
            .position(|p| p.email == director.email || p.also.contains(&director.email))
    {
        errs.push(KeyErr {
            key: "director.email".to_string(),
            problem: KeyProblem::Invalid(format!(
                "{:?} is also the e-mail of players[{}]; the director cannot play",
                director.email,
                i + 1
            )),
        });
    }
    let pairings = match keep(&mut errs, top.opt_tables("games")) {
        Some(Some(games)) => players
            .as_ref()
            .and_then(|p| explicit_games(&top, &games, p, &mut errs)),
        Some(None) => players.as_ref().map(|p| round_robin(p.len())),
        None => None,
    };
    let digest = keep(&mut errs, top.opt_bool("digest")).map(|d| d.unwrap_or(true));
    match (id, name, rules, start, director, players, pairings, digest) {
        (
            Some(id),
            Some(name),
            Some(rules),
            Some(start),
            Some(director),
            Some(players),
            Some(pairings),
            Some(digest),
        ) if errs.is_empty() => Ok(NewTournament {
            id: id.to_string(),
            name,
            rules,
            start,
            director,
            players,
            pairings,
            digest,
        }),
        _ => Err(errs),
    }
}

/// `start`: a TOML local date (`start = 2026-12-01`) or a string `"YYYY-MM-DD"`.
fn start_date(top: &Fields<'_>) -> Result<NaiveDate, KeyErr> {
    const EXPECTED: &str = "a date YYYY-MM-DD";
    let found = |v: &toml::Value| fields::describe(v);
    match top.value("start") {
        None => Err(top.err("start", KeyProblem::Missing)),
        Some(toml::Value::Datetime(dt)) => match (dt.date, dt.time, dt.offset) {
            (Some(d), None, None) => {
                NaiveDate::from_ymd_opt(i32::from(d.year), u32::from(d.month), u32::from(d.day))
                    .ok_or_else(|| top.expected("start", EXPECTED, dt.to_string()))
            }
            _ => Err(top.expected("start", EXPECTED, dt.to_string())),
        },
        Some(v @ toml::Value::String(s)) => {
            let t = s.trim();
            let shape_ok = t.len() == 10
                && t.char_indices().all(|(i, c)| match i {
                    4 | 7 => c == '-',
                    _ => c.is_ascii_digit(),
                });
            if !shape_ok {
                return Err(top.expected("start", EXPECTED, found(v)));
            }
            NaiveDate::parse_from_str(t, "%Y-%m-%d")
                .map_err(|_| top.invalid("start", format!("{s:?} is not a day of the calendar")))
        }
        Some(v) => Err(top.expected("start", EXPECTED, found(v))),
    }
}

/// The `[[players]]` blocks; every block's errors are kept in `errs`.
fn players(top: &Fields<'_>, errs: &mut Vec<KeyErr>) -> Option<Vec<NewPlayer>> {
    let blocks = keep(errs, top.opt_tables("players"))?.unwrap_or_default();
    if blocks.len() < 2 {
        errs.push(top.invalid(
            "players",
            format!(
                "a tournament needs at least 2 players ([[players]] blocks), found {}",
                blocks.len()
            ),
        ));
        return None;
    }
    if blocks.len() > MAX_PLAYERS {
        errs.push(top.invalid(
            "players",
            format!(
                "at most {MAX_PLAYERS} players are allowed, found {}",
                blocks.len()
            ),
        ));
        return None;
    }
    let before = errs.len();
    let mut players: Vec<NewPlayer> = Vec::with_capacity(blocks.len());
    for b in &blocks {
        if let Some(p) = player(b, &players, errs) {
            players.push(p);
        }
    }
    (errs.len() == before && players.len() == blocks.len()).then_some(players)
}

/// One `[[players]]` block, checked against the players before it.
fn player(b: &Fields<'_>, players: &[NewPlayer], errs: &mut Vec<KeyErr>) -> Option<NewPlayer> {
    keep(
        errs,
        b.allow(&["name", "email", "language", "also", "board"]),
    );
    let name = keep(errs, b.req_text("name")).map(str::to_string);
    let email = keep(errs, b.req_email("email"));
    let taken = |address: &str| {
        players
            .iter()
            .position(|p| p.email == address || p.also.iter().any(|a| a == address))
    };
    if let Some(email) = &email
        && let Some(i) = taken(email)
    {
        let what = if players[i].email == *email {
            "the e-mail"
        } else {
            "an address"
        };
        errs.push(b.invalid(
            "email",
            format!("{email:?} is already {what} of players[{}]", i + 1),
        ));
    }
    let language = keep(errs, b.opt_lang("language"));
    let board = keep(errs, board(b));
    // A player's other addresses (phone, work, a new provider): mail from them counts as his.
    let mut also: Vec<String> = Vec::new();
    for a in keep(errs, b.opt_emails("also")).unwrap_or_default() {
        if email.as_ref() == Some(&a) || also.contains(&a) {
            errs.push(b.invalid("also", format!("{a:?} is named twice for this player")));
            continue;
        }
        if let Some(i) = taken(&a) {
            errs.push(b.invalid(
                "also",
                format!("{a:?} is already an address of players[{}]", i + 1),
            ));
            continue;
        }
        also.push(a);
    }
    Some(NewPlayer {
        name: name?,
        email: email?,
        language: language?,
        also,
        board: board?,
    })
}

/// A player's `board`: how his mails show the position, `"list"` (piece lists a screen reader
/// reads) or `"diagram"` (docs/contract.md "A board a screen reader reads").
fn board(b: &Fields<'_>) -> Result<Option<Board>, KeyErr> {
    const EXPECTED: &str = "\"list\" or \"diagram\"";
    match b.opt_str("board") {
        Ok(None) => Ok(None),
        Ok(Some(s)) => Board::parse(s)
            .map(Some)
            .ok_or_else(|| b.expected("board", EXPECTED, format!("{s:?}"))),
        // Not a string: the same words as for a wrong string.
        Err(e) => match e.problem {
            KeyProblem::Expected { found, .. } => Err(b.expected("board", EXPECTED, found)),
            _ => Err(e),
        },
    }
}

/// The `[[games]]` blocks; every block's errors are kept in `errs`.
fn explicit_games(
    top: &Fields<'_>,
    games: &[Fields<'_>],
    players: &[NewPlayer],
    errs: &mut Vec<KeyErr>,
) -> Option<Vec<Pairing>> {
    if games.is_empty() {
        errs.push(top.invalid(
            "games",
            "lists no game (leave `games` out for a round robin)".to_string(),
        ));
        return None;
    }
    if games.len() > MAX_GAMES {
        errs.push(top.invalid(
            "games",
            format!(
                "at most {MAX_GAMES} games are allowed, found {}",
                games.len()
            ),
        ));
        return None;
    }
    let before = errs.len();
    let mut pairings: Vec<Pairing> = Vec::with_capacity(games.len());
    for (number, g) in (1u32..).zip(games) {
        keep(errs, g.allow(&["white", "black"]));
        let player = |key: &str| -> Result<usize, KeyErr> {
            let email = g.req_email(key)?;
            players
                .iter()
                .position(|p| p.email == email)
                .ok_or_else(|| g.invalid(key, format!("{email:?} is not the e-mail of a player")))
        };
        let (Some(white), Some(black)) = (keep(errs, player("white")), keep(errs, player("black")))
        else {
            continue;
        };
        if white == black {
            errs.push(g.invalid(
                "black",
                "is the same player as `white`; a player cannot play himself".to_string(),
            ));
            continue;
        }
        if let Some(dup) = pairings
            .iter()
            .find(|p| p.white == white && p.black == black)
        {
            errs.push(g.invalid(
                "black",
                format!(
                    "the same pairing (same players, same colours) is already games[{}]",
                    dup.number
                ),
            ));
            continue;
        }
        pairings.push(Pairing {
            number,
            round: 1,
            white,
            black,
        });
    }
    (errs.len() == before).then_some(pairings)
}

/// The round robin of `n` players by [`berger`], numbered 1.. in round order.
fn round_robin(n: usize) -> Vec<Pairing> {
    (1u32..)
        .zip(berger(n))
        .flat_map(|(round, games)| {
            games
                .into_iter()
                .map(move |(white, black)| (round, white, black))
        })
        .zip(1u32..)
        .map(|((round, white, black), number)| Pairing {
            number,
            round,
            white,
            black,
        })
        .collect()
}

/// The rounds of a round robin of `n` players (indexes `0..n`) by the standard Berger tables:
/// each round a list of `(white, black)`, table 1 first.
///
/// For odd `n` a dummy player `n` is added and its games (the byes) are dropped. Each pair meets
/// exactly once; for even `n` there are `n − 1` rounds of `n / 2` games, for odd `n`, `n` rounds
/// of `(n − 1) / 2`. Every player's number of whites and blacks differ by at most one. Memory
/// grows as n², so callers bound `n` (the tournament file allows at most [`MAX_PLAYERS`]).
///
/// In the table's 1-based numbering with `m` players (`m` even): in round `r` player `m` meets
/// `p = ((r − 1)·m/2 mod (m − 1)) + 1`, with White in even rounds and Black in odd ones; the other
/// tables pair `p + k` (White) with `p − k` (Black), `k = 1 .. m/2 − 1`, counted modulo `m − 1`
/// in `1 ..= m − 1`. For m = 6: round 1 is 1–6, 2–5, 3–4; round 2 is 6–4, 5–3, 1–2.
pub fn berger(n: usize) -> Vec<Vec<(usize, usize)>> {
    if n < 2 {
        return Vec::new();
    }
    // m players (m even, the last one the dummy if n is odd), 0-based here: the fixed player is
    // m − 1, the others rotate in 0 ..= m − 2 (q = m − 1 of them).
    let Some(m) = n.checked_add(n % 2) else {
        return Vec::new();
    };
    let q = m - 1;
    let half = m / 2;
    let mut rounds = Vec::with_capacity(q);
    let mut p = 0; // ((r − 1)·m/2) mod q, 0-based player index
    for r in 1..=q {
        let mut games = Vec::with_capacity(half);
        let first = if r % 2 == 1 { (p, m - 1) } else { (m - 1, p) };
        games.push(first);
        for k in 1..half {
            let white = (p + k) % q;
            let black = (p + q - k) % q;
            games.push((white, black));
        }
        games.retain(|&(w, b)| w < n && b < n);
        rounds.push(games);
        p = (p + half) % q;
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Lang;
    use std::collections::{BTreeMap, BTreeSet};

    /// The example of docs/contract.md "Tournament file", verbatim.
    const CONTRACT_EXAMPLE: &str = r#"
id = "FAX-2026-3"                   # tournament id (Turnierkennziffer); letters, digits, '-'
name = "Telefax-Aufstiegsturnier 2026/3"
rules = "fax"                       # fax (40 days/10 moves, 24-hour rule) | post (30 days/10 moves)
start = "2026-12-01"                # clocks of the first moves start at 00:00 of this day, or at registration if later

[director]
name = "Tom Leiter"
email = "tl@fernschach.test"

[[players]]
name = "Anna Adler"
email = "anna@fernschach.test"
language = "de"                     # optional; the relay's default otherwise

[[players]]
name = "Bert Berger"
email = "bert@fernschach.test"

# Optional. Without [[games]] every player meets every other once (round robin, Berger tables,
# games numbered 1.. in round order). With it, exactly these games are created, numbered in order.
[[games]]
white = "anna@fernschach.test"
black = "bert@fernschach.test"
"#;

    const HEAD: &str = r#"
id = "POST-2027-1"
name = "Post-Turnier"
rules = "post"
start = "2027-01-15"

[director]
name = "Tom Leiter"
email = "tl@fernschach.test"
"#;

    fn player_blocks(n: usize) -> String {
        (1..=n)
            .map(|i| {
                format!("[[players]]\nname = \"Player {i}\"\nemail = \"p{i}@fernschach.test\"\n")
            })
            .collect()
    }

    fn ok(text: &str) -> NewTournament {
        match parse(Path::new("t.toml"), text) {
            Ok(t) => t,
            Err(e) => panic!("expected a valid tournament file, got: {e}"),
        }
    }

    fn err(text: &str) -> String {
        match parse(Path::new("t.toml"), text) {
            Ok(t) => panic!("expected an error, got {t:?}"),
            Err(e) => {
                let s = e.to_string();
                assert!(!s.contains('\n'), "message not on one line: {s:?}");
                s
            }
        }
    }

    #[test]
    fn contract_example_parses() {
        let t = ok(CONTRACT_EXAMPLE);
        assert_eq!(t.id, "FAX-2026-3");
        assert_eq!(t.name, "Telefax-Aufstiegsturnier 2026/3");
        assert_eq!(t.rules, RuleSet::Fax);
        assert_eq!(NaiveDate::from_ymd_opt(2026, 12, 1), Some(t.start));
        assert_eq!(
            t.director,
            Person {
                name: "Tom Leiter".to_string(),
                email: "tl@fernschach.test".to_string()
            }
        );
        assert_eq!(
            t.players,
            vec![
                NewPlayer {
                    name: "Anna Adler".to_string(),
                    email: "anna@fernschach.test".to_string(),
                    language: Some(Lang::De),
                    also: Vec::new(),
                    board: None
                },
                NewPlayer {
                    name: "Bert Berger".to_string(),
                    email: "bert@fernschach.test".to_string(),
                    language: None,
                    also: Vec::new(),
                    board: None
                },
            ]
        );
        assert_eq!(
            t.pairings,
            vec![Pairing {
                number: 1,
                round: 1,
                white: 0,
                black: 1
            }]
        );
        assert!(t.digest);
    }

    #[test]
    fn contract_example_without_games_is_a_round_robin() {
        let text = CONTRACT_EXAMPLE
            .split("# Optional.")
            .next()
            .unwrap_or_default();
        let t = ok(text);
        assert_eq!(t.pairings.len(), 1);
        assert_eq!((t.pairings[0].white, t.pairings[0].black), (0, 1));
    }

    #[test]
    fn seven_players_play_21_games_in_berger_order() {
        let t = ok(&format!("{HEAD}{}", player_blocks(7)));
        assert_eq!(t.rules, RuleSet::Post);
        assert_eq!(t.pairings.len(), 21);
        let numbers: Vec<u32> = t.pairings.iter().map(|p| p.number).collect();
        assert_eq!(numbers, (1..=21).collect::<Vec<u32>>());
        let rounds: Vec<u32> = t.pairings.iter().map(|p| p.round).collect();
        let expected_rounds: Vec<u32> = (1..=7).flat_map(|r| [r, r, r]).collect();
        assert_eq!(rounds, expected_rounds);
        let flat: Vec<(usize, usize)> = berger(7).into_iter().flatten().collect();
        let from_file: Vec<(usize, usize)> =
            t.pairings.iter().map(|p| (p.white, p.black)).collect();
        assert_eq!(from_file, flat);
        let pairs: BTreeSet<(usize, usize)> =
            flat.iter().map(|&(w, b)| (w.min(b), w.max(b))).collect();
        assert_eq!(pairs.len(), 21);
    }

    /// Each pair exactly once, nobody twice in a round, whites and blacks differ by at most one.
    #[test]
    fn berger_is_a_balanced_round_robin_for_2_to_12_players() {
        for n in 2..=12usize {
            let rounds = berger(n);
            let expected_rounds = if n % 2 == 0 { n - 1 } else { n };
            assert_eq!(rounds.len(), expected_rounds, "n = {n}");
            let mut pairs = BTreeSet::new();
            let mut colours: BTreeMap<usize, (i32, i32)> = BTreeMap::new();
            for round in &rounds {
                assert_eq!(round.len(), n / 2, "n = {n}");
                let mut seen = BTreeSet::new();
                for &(w, b) in round {
                    assert!(w < n && b < n && w != b, "n = {n}: {w}-{b}");
                    assert!(
                        seen.insert(w) && seen.insert(b),
                        "n = {n}: twice in a round"
                    );
                    assert!(pairs.insert((w.min(b), w.max(b))), "n = {n}: {w}-{b} twice");
                    colours.entry(w).or_default().0 += 1;
                    colours.entry(b).or_default().1 += 1;
                }
            }
            assert_eq!(pairs.len(), n * (n - 1) / 2, "n = {n}");
            for (player, (whites, blacks)) in colours {
                assert_eq!(
                    whites + blacks,
                    i32::try_from(n - 1).unwrap_or(0),
                    "n = {n}"
                );
                assert!(
                    (whites - blacks).abs() <= 1,
                    "n = {n}: player {player} has {whites} whites, {blacks} blacks"
                );
            }
        }
    }

    /// The published Berger tables (FIDE Handbook C.05 Annex 1), 1-based.
    #[test]
    fn berger_matches_the_published_tables() {
        let one_based = |n: usize| -> Vec<Vec<(usize, usize)>> {
            berger(n)
                .into_iter()
                .map(|r| r.into_iter().map(|(w, b)| (w + 1, b + 1)).collect())
                .collect()
        };
        assert_eq!(
            one_based(4),
            vec![
                vec![(1, 4), (2, 3)],
                vec![(4, 3), (1, 2)],
                vec![(2, 4), (3, 1)]
            ]
        );
        assert_eq!(
            one_based(6),
            vec![
                vec![(1, 6), (2, 5), (3, 4)],
                vec![(6, 4), (5, 3), (1, 2)],
                vec![(2, 6), (3, 1), (4, 5)],
                vec![(6, 5), (1, 4), (2, 3)],
                vec![(3, 6), (4, 2), (5, 1)],
            ]
        );
        assert_eq!(
            one_based(8).get(..2),
            Some(
                &[
                    vec![(1, 8), (2, 7), (3, 6), (4, 5)],
                    vec![(8, 5), (6, 4), (7, 3), (1, 2)],
                ][..]
            )
        );
        // Odd: the 6-table with player 6 as the bye.
        assert_eq!(
            one_based(5),
            vec![
                vec![(2, 5), (3, 4)],
                vec![(5, 3), (1, 2)],
                vec![(3, 1), (4, 5)],
                vec![(1, 4), (2, 3)],
                vec![(4, 2), (5, 1)],
            ]
        );
        assert!(berger(0).is_empty() && berger(1).is_empty());
        assert_eq!(berger(2), vec![vec![(0, 1)]]);
    }

    #[test]
    fn explicit_games_are_kept_in_order() {
        let games = "[[games]]\nwhite = \"p3@fernschach.test\"\nblack = \"p1@fernschach.test\"\n\
                     [[games]]\nwhite = \"P1@Fernschach.test\"\nblack = \"p3@fernschach.test\"\n\
                     [[games]]\nwhite = \"p2@fernschach.test\"\nblack = \"p4@fernschach.test\"\n";
        let t = ok(&format!("{HEAD}{}{games}", player_blocks(4)));
        let got: Vec<(u32, u32, usize, usize)> = t
            .pairings
            .iter()
            .map(|p| (p.number, p.round, p.white, p.black))
            .collect();
        assert_eq!(got, vec![(1, 1, 2, 0), (2, 1, 0, 2), (3, 1, 1, 3)]);
    }

    #[test]
    fn e_mails_are_lower_cased_and_optional_keys_read() {
        let text = format!(
            "digest = false\n{HEAD}[[players]]\nname = \"A\"\nemail = \"Anna@Fernschach.TEST\"\n\
             language = \"en\"\n[[players]]\nname = \"B\"\nemail = \"b@x.test\"\n"
        );
        let t = ok(&text);
        assert_eq!(t.players[0].email, "anna@fernschach.test");
        assert_eq!(t.players[0].language, Some(Lang::En));
        assert!(!t.digest);
    }

    #[test]
    fn a_players_board_is_list_or_diagram_and_nothing_else() {
        let text = |board: &str| {
            format!(
                "{HEAD}[[players]]\nname = \"A\"\nemail = \"a@x.test\"\nboard = {board}\n\
                 [[players]]\nname = \"B\"\nemail = \"b@x.test\"\n"
            )
        };
        let t = ok(&text("\"list\""));
        assert_eq!(t.players[0].board, Some(Board::List));
        assert_eq!(t.players[1].board, None, "not said: as he asks by mail");
        assert_eq!(
            ok(&text("\"diagram\"")).players[0].board,
            Some(Board::Diagram)
        );
        assert_eq!(
            err(&text("\"liste\"")),
            "t.toml: line 13, key `players[1].board`: expected \"list\" or \"diagram\", found \"liste\""
        );
        assert_eq!(
            err(&text("true")),
            "t.toml: line 13, key `players[1].board`: expected \"list\" or \"diagram\", found true"
        );
    }

    #[test]
    fn start_may_be_a_toml_date() {
        let text = format!(
            "{}{}",
            HEAD.replace("\"2027-01-15\"", "2027-01-15"),
            player_blocks(2)
        );
        assert_eq!(NaiveDate::from_ymd_opt(2027, 1, 15), Some(ok(&text).start));
    }

    fn head_with(from: &str, to: &str) -> String {
        format!("{}{}", HEAD.replace(from, to), player_blocks(3))
    }

    #[test]
    fn bad_top_level_values() {
        assert_eq!(
            err(&head_with("POST-2027-1", "POST 2027/1")),
            "t.toml: line 2, key `id`: \"POST 2027/1\" is not a tournament id (letters, digits and '-', at most 64 characters)"
        );
        assert_eq!(
            err(&head_with("\"post\"", "\"blitz\"")),
            "t.toml: line 4, key `rules`: expected \"fax\" or \"post\", found \"blitz\""
        );
        assert_eq!(
            err(&head_with("\"2027-01-15\"", "\"15.01.2027\"")),
            "t.toml: line 5, key `start`: expected a date YYYY-MM-DD, found \"15.01.2027\""
        );
        assert_eq!(
            err(&head_with("\"2027-01-15\"", "\"2027-02-30\"")),
            "t.toml: line 5, key `start`: \"2027-02-30\" is not a day of the calendar"
        );
        assert_eq!(
            err(&head_with("\"2027-01-15\"", "2027-01-15T10:00:00")),
            "t.toml: line 5, key `start`: expected a date YYYY-MM-DD, found 2027-01-15T10:00:00"
        );
        assert_eq!(
            err(&head_with("name = \"Post-Turnier\"\n", "")),
            "t.toml: key `name`: required key is missing"
        );
        assert_eq!(
            err(&format!("digest = \"no\"\n{HEAD}{}", player_blocks(2))),
            "t.toml: line 1, key `digest`: expected true or false, found \"no\""
        );
        // Two errors: each on a line of its own.
        let both = parse(Path::new("t.toml"), &head_with("rules", "regeln"))
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(
            both,
            Err("t.toml: line 4, key `regeln`: unknown key (allowed here: id, name, rules, start, director, players, games, digest)\n\
                 t.toml: key `rules`: required key is missing"
                .to_string())
        );
    }

    #[test]
    fn bad_director() {
        assert_eq!(
            err(&head_with("tl@fernschach.test", "tl-at-fernschach.test")),
            "t.toml: line 9, key `director.email`: \"tl-at-fernschach.test\" is not an e-mail address"
        );
        assert_eq!(
            err(&head_with("tl@fernschach.test", "P2@fernschach.test")),
            "t.toml: line 9, key `director.email`: \"p2@fernschach.test\" is also the e-mail of players[2]; the director cannot play"
        );
        assert_eq!(
            err(&head_with(
                "[director]\nname = \"Tom Leiter\"\nemail = \"tl@fernschach.test\"\n",
                ""
            )),
            "t.toml: key `director`: required key is missing"
        );
    }

    #[test]
    fn bad_players() {
        assert_eq!(
            err(&format!("{HEAD}{}", player_blocks(1))),
            "t.toml: key `players`: a tournament needs at least 2 players ([[players]] blocks), found 1"
        );
        assert_eq!(
            err(&format!(
                "{HEAD}{}",
                player_blocks(3).replace("p2@fernschach.test", "bert@")
            )),
            "t.toml: line 15, key `players[2].email`: \"bert@\" is not an e-mail address"
        );
        assert_eq!(
            err(&format!("{HEAD}{}", player_blocks(3).replace("p3@", "P1@"))),
            "t.toml: line 18, key `players[3].email`: \"p1@fernschach.test\" is already the e-mail of players[1]"
        );
        assert_eq!(
            err(&format!("{HEAD}{}language = \"fr\"\n", player_blocks(2))),
            "t.toml: line 16, key `players[2].language`: expected \"de\" or \"en\", found \"fr\""
        );
        assert_eq!(
            err(&format!("{HEAD}{}elo = 2100\n", player_blocks(2))),
            "t.toml: line 16, key `players[2].elo`: unknown key (allowed here: name, email, language, also, board)"
        );
        assert_eq!(
            err(&format!(
                "{HEAD}{}also = \"p1@fernschach.test\"\n",
                player_blocks(2)
            )),
            "t.toml: line 16, key `players[2].also`: expected a list of e-mail addresses, found \"p1@fernschach.test\""
        );
        assert_eq!(
            err(&format!(
                "{HEAD}{}also = [\"p1@fernschach.test\"]\n",
                player_blocks(2)
            )),
            "t.toml: line 16, key `players[2].also`: \"p1@fernschach.test\" is already an address of players[1]"
        );
        assert_eq!(
            err(&format!("{HEAD}{}also = [\"handy@\"]\n", player_blocks(2))),
            "t.toml: line 16, key `players[2].also`: \"handy@\" is not an e-mail address"
        );
        assert_eq!(
            err(&format!("players = \"all\"\n{HEAD}")),
            "t.toml: line 1, key `players`: expected an array of tables ([[players]]), found \"all\""
        );
        let many = player_blocks(MAX_PLAYERS + 1);
        assert_eq!(
            err(&format!("{HEAD}{many}")),
            format!(
                "t.toml: key `players`: at most {MAX_PLAYERS} players are allowed, found {}",
                MAX_PLAYERS + 1
            )
        );
    }

    fn with_games(games: &str) -> String {
        format!("{HEAD}{}{games}", player_blocks(3))
    }

    #[test]
    fn bad_games() {
        assert_eq!(
            err(&with_games(
                "[[games]]\nwhite = \"p1@fernschach.test\"\nblack = \"zoe@fernschach.test\"\n"
            )),
            "t.toml: line 21, key `games[1].black`: \"zoe@fernschach.test\" is not the e-mail of a player"
        );
        assert_eq!(
            err(&with_games(
                "[[games]]\nwhite = \"p1@fernschach.test\"\nblack = \"p2@fernschach.test\"\n[[games]]\nwhite = \"p2@fernschach.test\"\nblack = \"P2@fernschach.test\"\n"
            )),
            "t.toml: line 24, key `games[2].black`: is the same player as `white`; a player cannot play himself"
        );
        assert_eq!(
            err(&with_games(
                "[[games]]\nwhite = \"p1@fernschach.test\"\nblack = \"p2@fernschach.test\"\n[[games]]\nwhite = \"p1@fernschach.test\"\nblack = \"p2@fernschach.test\"\n"
            )),
            "t.toml: line 24, key `games[2].black`: the same pairing (same players, same colours) is already games[1]"
        );
        assert_eq!(
            err(&with_games("[[games]]\nwhite = \"p1@fernschach.test\"\n")),
            "t.toml: key `games[1].black`: required key is missing"
        );
        assert_eq!(
            err(&with_games(
                "[[games]]\nwhite = \"p1@fernschach.test\"\nblack = \"p2@fernschach.test\"\nround = 2\n"
            )),
            "t.toml: line 22, key `games[1].round`: unknown key (allowed here: white, black)"
        );
        assert_eq!(
            err(&format!("games = []\n{}", with_games(""))),
            "t.toml: line 1, key `games`: lists no game (leave `games` out for a round robin)"
        );
    }

    #[test]
    fn syntax_error_and_missing_file() {
        assert_eq!(
            err(&format!("{HEAD}[[players]\n")),
            "t.toml: line 10, column 10: not valid TOML: invalid table header; expected `.`, `]]`"
        );
        assert_eq!(
            err(&format!(
                "{HEAD}{}{}",
                player_blocks(2),
                "name = \"twice\"\n"
            )),
            "t.toml: line 16, column 1, key `players[2].name`: not valid TOML: duplicate key `name` in table `players`"
        );
        let e = load(Path::new("/nonexistent/fernzug-test/t.toml"))
            .map(|_| ())
            .map_err(|e| e.to_string());
        assert_eq!(
            e,
            Err(
                "/nonexistent/fernzug-test/t.toml: cannot read: No such file or directory"
                    .to_string()
            )
        );
    }

    #[test]
    fn also_addresses_are_read_lower_cased() {
        let t = ok(&format!(
            "{HEAD}[[players]]\nname = \"A\"\nemail = \"a@x.test\"\nalso = [\"Anna.Handy@Example.ORG\", \"anna@work.test\"]\n[[players]]\nname = \"B\"\nemail = \"b@x.test\"\n"
        ));
        assert_eq!(
            t.players[0].also,
            vec![
                "anna.handy@example.org".to_string(),
                "anna@work.test".to_string()
            ]
        );
        assert!(t.players[1].also.is_empty());
    }

    #[test]
    fn every_error_is_named_with_its_line_and_key_by_mail_and_on_the_command_line() {
        let text = format!(
            "{HEAD}colour = \"blue\"\n\n{}[[players]]\nname = \"Bert\"\nemail = \"bert@\"\n\n\
             [[players]]\nname = \"Carl\"\nemail = \"p1@fernschach.test\"\nlanguage = \"xx\"\n",
            player_blocks(1)
        )
        .replace("rules = \"post\"", "rules = \"blitz\"");
        let errors = check(&text).expect_err("four errors");
        let found: Vec<(Option<usize>, Option<&str>)> =
            errors.iter().map(|e| (e.line, e.key.as_deref())).collect();
        assert_eq!(
            found,
            vec![
                (Some(4), Some("rules")),
                (Some(10), Some("director.colour")),
                (Some(17), Some("players[2].email")),
                (Some(21), Some("players[3].email")),
                (Some(22), Some("players[3].language")),
            ],
            "{errors:?}"
        );
        // `tournament add` and `tournament check` say the same, every error on a line of its own.
        let said = parse(Path::new("t.toml"), &text)
            .map(|_| ())
            .map_err(|e| e.to_string())
            .expect_err("five errors");
        let lines: Vec<&str> = said.lines().collect();
        assert_eq!(
            lines,
            vec![
                "t.toml: line 4, key `rules`: expected \"fax\" or \"post\", found \"blitz\"",
                "t.toml: line 10, key `director.colour`: unknown key (allowed here: name, email)",
                "t.toml: line 17, key `players[2].email`: \"bert@\" is not an e-mail address",
                "t.toml: line 21, key `players[3].email`: \"p1@fernschach.test\" is already the e-mail of players[1]",
                "t.toml: line 22, key `players[3].language`: expected \"de\" or \"en\", found \"xx\"",
            ],
            "{said}"
        );
        // A syntax error is the only one: the file cannot be read further.
        let errors = check("id = \"x\"\nname = \n").expect_err("syntax");
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].line, Some(2));
        assert!(matches!(errors[0].what, FileFault::Syntax(_)));
    }
}
