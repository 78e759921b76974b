//! TO §27: the end of a tournament. When its last game has ended, every player and the director
//! get `tournament-end`: the final crosstable (points, Sonneborn-Berger, places — [`crosstable`],
//! as the tournament page and `fernzug status TOURNAMENT` show it), every game with its result,
//! how it ended and its seal (TO §29: `fernzug verify`'s line, which the shell fills in), and the
//! PGN of every game attached (as the director's `PGN: TOURNAMENT` encloses it, `export pgn`).
//!
//! The choices the rulebook leaves open, fixed once:
//!
//! * **When.** The instant its last game ended — by a move, a resignation, an agreed draw, or a
//!   decision of the director (a result, a confirmed time forfeit, a withdrawal, an annulment) —
//!   is the report's deadline ([`Due::TournamentEnd`](crate::core::model::Due), from
//!   [`end_report_due`]). The tick after the step that ended the game sends it (the shell ticks
//!   once its mails are read, in the same pass): with the whole tournament at hand, and with that
//!   step's record written, so that each game's seal is `verify`'s as it reads the store.
//! * **Once.** `Tournament::end_report` turns [`EndReport::Sent`]. A result the director corrects
//!   afterwards is told by his notice and the `game-end`, not by a second report.
//! * **Not at all** for a tournament of one game (its `game-end` already carries the result, the
//!   PGN and the seal), nor for one that ended before this report existed
//!   ([`EndReport::Untracked`]).
//! * **To whom.** Each player of the tournament (one who withdrew too, TO §26), in his language,
//!   with his own place; the director in the relay's language. A director who plays gets the
//!   player's mail.
//! * **Size.** The PGN of every game goes to every reader: a round robin of 15 (105 games of 40
//!   moves) makes a mail of about 650 KB, nearly all of it the PGN. A tournament of more than
//!   [`MAX_LISTED_GAMES`] games (a round robin of 17 or more) gets the table alone, and the mail
//!   says where its PGN is (the director's `PGN:`, `fernzug export pgn`): the PGN of every game to
//!   every player would grow with the cube of the players, past what a mailbox takes and what the
//!   relay holds in memory while it writes the mails.

use crate::core::door::reply::end_report_due;
use crate::core::model::{Enclosure, EndReport, EndedGame, Game, GameResult, Mail, Recipient};
use crate::core::model::{Output, Sentence, State, Step, TournamentEndFacts};
use crate::core::records::crosstable::crosstable;
use crate::core::view;
use crate::lang::Lang;
use crate::mail_kind::MailKind;

/// At most this many games are listed with their seals, and their PGN attached, in a
/// tournament's report: a round robin of 16.
pub const MAX_LISTED_GAMES: usize = 120;

/// Reports the end of every tournament whose report is due by `at.now` ([`end_report_due`]),
/// once each.
pub(crate) fn report_ends(state: &mut State, at: Step<'_>) -> Output {
    let mut out = Output::default();
    let due: Vec<String> = state
        .tournaments
        .values()
        .filter(|t| end_report_due(state, t).is_some_and(|when| when <= at.now))
        .map(|t| t.id.clone())
        .collect();
    for id in due {
        report(state, &mut out, &id, at);
    }
    out
}

/// The `tournament-end` mails of tournament `tid` (every game of it at hand and finished).
fn report(state: &mut State, out: &mut Output, tid: &str, at: Step<'_>) {
    let (now, s) = (at.now, at.s);
    let Some(t) = state.tournaments.get(tid) else {
        return;
    };
    let ended = end_report_due(state, t).unwrap_or(now);
    let games: Vec<&Game> = t.games.iter().filter_map(|g| state.games.get(g)).collect();
    let table = crosstable(t, games.iter().copied());
    let listed = games.len() <= MAX_LISTED_GAMES;
    let lines: Vec<EndedGame> = games
        .iter()
        .filter(|_| listed)
        .map(|g| EndedGame {
            game: g.id.to_string(),
            white: t.recipient(&g.players.white).name,
            black: t.recipient(&g.players.black).name,
            result: g.result.map_or("*", GameResult::as_str).to_string(),
            moves: g.moves.len().div_ceil(2),
            seal: g.seal.clone(),
            verified: None,
        })
        .collect();
    let mut sentences = vec![
        ("crosstable".into(), Sentence::CrosstableText(table.clone())),
        ("table".into(), Sentence::CrosstableData(table.clone())),
    ];
    let mut enclose = Vec::new();
    if listed {
        sentences.extend(games.iter().enumerate().filter_map(|(i, g)| {
            g.end_reason
                .map(|r| (format!("/games/{i}/reason"), Sentence::EndReason(r)))
        }));
        enclose.push(Enclosure::Pgn(tid.to_string()));
        enclose.extend(games.iter().map(|g| Enclosure::Verify(g.id.clone())));
    }
    // Each player with his line of the table, then the director (unless he plays).
    let mut readers: Vec<(Recipient, Lang, Option<usize>)> = t
        .players
        .iter()
        .map(|p| {
            let row = table.rows.iter().position(|r| r.email == p.email);
            (
                t.recipient(&p.email),
                t.lang_of(&p.email, s.default_lang),
                row,
            )
        })
        .collect();
    if t.player(&t.director.email).is_none() {
        readers.push((t.director_recipient(), s.default_lang, None));
    }
    let facts = |row: Option<usize>, recipient: String| TournamentEndFacts {
        recipient,
        tournament_id: t.id.clone(),
        tournament: t.name.clone(),
        director: t.director.name.clone(),
        ended: view::day(view::local_date(ended, s.tz)),
        row,
        shared: row.is_some_and(|i| {
            table
                .rows
                .iter()
                .filter(|r| r.rank == table.rows[i].rank)
                .count()
                > 1
        }),
        game_count: games.len(),
        games: lines.clone(),
    };
    let decided: Vec<(Recipient, Lang, TournamentEndFacts)> = readers
        .into_iter()
        .map(|(rcpt, lang, row)| {
            let f = facts(row, rcpt.name.clone());
            (rcpt, lang, f)
        })
        .collect();
    let players = t.players.len();
    for (rcpt, lang, f) in decided {
        let message_id = state
            .meta
            .next_message_id(s, MailKind::TournamentEnd.name());
        out.mails.push(Mail {
            sentences: sentences.clone(),
            enclose: enclose.clone(),
            ..Mail::new(MailKind::TournamentEnd, vec![rcpt], lang, message_id, f)
        });
    }
    if let Some(t) = state.tournaments.get_mut(tid) {
        t.end_report = EndReport::Sent(now);
    }
    out.tournaments.insert(tid.to_string());
    out.log.push(format!(
        "{tid}: tournament over, its end reported to its {players} players and the director (TO §27)"
    ));
}
