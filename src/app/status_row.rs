//! One game's row of `fernzug status` and `status --json` (docs/contract.md: the fields of
//! `status --json`). The fields are declared in the order the JSON has always shown them
//! (alphabetical), so the output stays the same byte for byte.
//!
//! The rows of a shelved tournament are also written beside its shelf file when it is shelved
//! (`shelf::write_rows`): its games are finished and their rows no longer change — but for
//! whether a player is on leave today ([`StatusRow::as_of`]) — so listing every game reads a
//! row per shelved game, not the game with its moves, clocks and log.

use chrono::{DateTime, Utc};
use chrono_tz::Tz;
use serde::de::{DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use shakmaty::Color;

use crate::core::Due;
use crate::core::model::{Game, GameStatus, Tournament};
use crate::core::view;

/// What `status` shows of a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatusRow {
    pub black: String,
    pub clock: Clocks,
    /// The pending deadlines, soonest first.
    pub deadlines: Vec<DeadlineRow>,
    pub fen: String,
    pub id: String,
    /// The moves in SAN with English letters.
    pub moves: Moves,
    /// `1-0`, `0-1`, `1/2-1/2` or `*`.
    pub result: String,
    /// `waiting-start`, `running`, `suspended`, `adjourned` or `finished`.
    pub state: String,
    /// `white` or `black` while the game runs (or waits for its start), else `null`.
    pub to_move: Option<String>,
    pub white: String,
}

/// Both players' clocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Clocks {
    pub black: ClockRow,
    pub white: ClockRow,
}

/// One player's clock: days used and allowed in the current period, time forfeits, on leave
/// today.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClockRow {
    pub allowed: u32,
    pub on_leave: bool,
    pub time_forfeits: u8,
    pub used: u32,
}

/// A pending deadline of the game: when (RFC 3339, in UTC with its offset), and what
/// (`reminder`, `silence-report`, `clock-warning`, `forfeit`, …: [`Due::name`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DeadlineRow {
    pub at: String,
    pub what: String,
}

impl DeadlineRow {
    /// `due`, falling due at `at`.
    pub fn new(at: DateTime<Utc>, due: Due) -> DeadlineRow {
        DeadlineRow {
            at: at.to_rfc3339(),
            what: due.name().to_string(),
        }
    }

    /// When it falls due in the relay's time zone `tz` (`[relay] time_zone`), to the minute and
    /// with the zone's abbreviation, as the text of `status` shows it: `2026-11-05 00:00 CET`.
    pub fn local(&self, tz: Tz) -> String {
        match DateTime::parse_from_rfc3339(&self.at) {
            Ok(at) => local_time(at.with_timezone(&Utc), tz),
            Err(_) => self.at.clone(),
        }
    }
}

/// `at` in the relay's time zone `tz`, to the minute, with the zone's abbreviation
/// (`2026-11-05 00:00 CET`): how the command line shows an instant to the operator.
pub fn local_time(at: DateTime<Utc>, tz: Tz) -> String {
    format!(
        "{} {}",
        view::local_minute(at, tz).format("%Y-%m-%d %H:%M"),
        at.with_timezone(&tz).format("%Z")
    )
}

/// A game's moves in SAN as `status --json` shows them (an array of strings), held as one line
/// (`e4 e5 Nf3`, a SAN never has a space): the kept rows of 100,000 games read into one string
/// each, not one per move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Moves(String);

impl Moves {
    /// The moves, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.split(' ').filter(|m| !m.is_empty())
    }

    /// How many moves.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<S: AsRef<str>> FromIterator<S> for Moves {
    fn from_iter<I: IntoIterator<Item = S>>(moves: I) -> Moves {
        let mut line = String::new();
        for m in moves {
            Append(&mut line).push(m.as_ref());
        }
        Moves(line)
    }
}

impl Serialize for Moves {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Moves {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Moves, D::Error> {
        d.deserialize_seq(MovesVisitor)
    }
}

struct MovesVisitor;

impl<'de> Visitor<'de> for MovesVisitor {
    type Value = Moves;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an array of moves in SAN")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Moves, A::Error> {
        let mut line = String::new();
        while seq.next_element_seed(Append(&mut line))?.is_some() {}
        Ok(Moves(line))
    }
}

/// Appends the move it reads to a line of moves (no string of its own per move).
struct Append<'a>(&'a mut String);

impl Append<'_> {
    fn push(self, m: &str) {
        if !self.0.is_empty() {
            self.0.push(' ');
        }
        self.0.push_str(m);
    }
}

impl<'de> DeserializeSeed<'de> for Append<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Append<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a move in SAN")
    }

    fn visit_str<E: serde::de::Error>(self, m: &str) -> Result<(), E> {
        if m.is_empty() || m.contains(' ') {
            return Err(E::invalid_value(serde::de::Unexpected::Str(m), &self));
        }
        self.push(m);
        Ok(())
    }
}

impl StatusRow {
    /// The row of game `g` of tournament `t` as of `now`, with its pending `deadlines`.
    pub fn of(
        g: &Game,
        t: &Tournament,
        now: DateTime<Utc>,
        tz: Tz,
        deadlines: Vec<DeadlineRow>,
    ) -> StatusRow {
        let state = match g.status {
            GameStatus::Running if now < t.clock_start => GameStatus::WaitingStart,
            // Not yet ticked by a pass: as of `now` the clocks run.
            GameStatus::WaitingStart if now >= t.clock_start => GameStatus::Running,
            s => s,
        };
        let to_move = match state {
            GameStatus::Running | GameStatus::WaitingStart => Some(
                if g.to_move() == Color::White {
                    "white"
                } else {
                    "black"
                }
                .to_string(),
            ),
            _ => None,
        };
        let clock = |c: Color| {
            let f = view::clock_figures(g, t, c, now, tz);
            ClockRow {
                allowed: f.allowed,
                on_leave: f.on_leave,
                time_forfeits: f.time_forfeits,
                used: f.used,
            }
        };
        StatusRow {
            black: g.players.black.clone(),
            clock: Clocks {
                black: clock(Color::Black),
                white: clock(Color::White),
            },
            deadlines,
            fen: g.fen(),
            id: g.id.to_string(),
            moves: g.san_moves().iter().collect(),
            result: g.result.map_or_else(|| "*".into(), |r| r.to_string()),
            state: state.name().to_string(),
            to_move,
            white: g.players.white.clone(),
        }
    }

    /// The row of finished game `g` of `t` to keep beside its shelf file (`None` for a game
    /// not finished). Taken as of the tournament's clock start: of a finished game's row only
    /// whether a player is on leave depends on the day, and [`StatusRow::as_of`] sets that anew.
    pub fn kept(g: &Game, t: &Tournament) -> Option<StatusRow> {
        (g.status == GameStatus::Finished)
            .then(|| StatusRow::of(g, t, t.clock_start, chrono_tz::UTC, Vec::new()))
    }

    /// Whether a row kept from when the game was shelved is still the game's row as of any
    /// later time: a finished game's row changes only in whether a player is on leave today.
    pub fn keeps(&self) -> bool {
        self.state == GameStatus::Finished.name() && self.deadlines.is_empty()
    }

    /// A kept row (see [`StatusRow::keeps`]) as of `now`: whether each player is on leave today
    /// (TO §24), from tournament `t`.
    pub fn as_of(mut self, t: &Tournament, now: DateTime<Utc>, tz: Tz) -> StatusRow {
        self.clock.white.on_leave = view::on_leave(t, &self.white, now, tz);
        self.clock.black.on_leave = view::on_leave(t, &self.black, now, tz);
        self
    }
}

/// The status rows kept beside the shelf file of tournament `t`: those of its finished `games`
/// (see [`StatusRow::kept`]).
pub(crate) fn rows_of(t: &Tournament, games: &[Game]) -> Vec<StatusRow> {
    games.iter().filter_map(|g| StatusRow::kept(g, t)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::clock::Rest;
    use crate::core::model::GameResult;
    use crate::core::testkit::{ANNA, at, day, duel, game, registered};
    use crate::rules::RuleSet;

    #[test]
    fn moves_read_and_write_as_the_array_of_san_they_always_were() {
        let sans = vec!["e4".to_string(), "e5".to_string(), "Nf3".to_string()];
        let moves: Moves = sans.iter().collect();
        assert_eq!((moves.len(), moves.is_empty()), (3, false));
        let json = serde_json::to_string(&moves).unwrap();
        assert_eq!(json, serde_json::to_string(&sans).unwrap());
        assert_eq!(serde_json::from_str::<Moves>(&json).unwrap(), moves);
        let none: Moves = serde_json::from_str("[]").unwrap();
        assert_eq!((none.len(), none.is_empty()), (0, true));
        assert_eq!(serde_json::to_string(&none).unwrap(), "[]");
        // A move read with an escape (`\u0065` is `e`) is the same move.
        assert_eq!(
            serde_json::from_str::<Moves>(r#"["\u00654","e5","Nf3"]"#).unwrap(),
            moves
        );
        assert!(serde_json::from_str::<Moves>(r#"["e4 e5"]"#).is_err());
        assert!(serde_json::from_str::<Moves>(r#"[""]"#).is_err());
    }

    #[test]
    fn a_deadline_shows_in_the_relays_time_zone_by_its_name_and_stays_rfc_3339_in_json() {
        let berlin = chrono_tz::Europe::Berlin;
        let winter = DeadlineRow::new("2026-11-04T23:00:00Z".parse().unwrap(), Due::SilenceReport);
        assert_eq!(winter.local(berlin), "2026-11-05 00:00 CET");
        assert_eq!(
            serde_json::to_string(&winter).unwrap(),
            r#"{"at":"2026-11-04T23:00:00+00:00","what":"silence-report"}"#
        );
        let summer = DeadlineRow::new("2026-07-01T08:30:00Z".parse().unwrap(), Due::ClockWarning);
        assert_eq!(summer.local(berlin), "2026-07-01 10:30 CEST");
        assert_eq!(summer.what, "clock-warning");
        assert_eq!(summer.local(chrono_tz::UTC), "2026-07-01 08:30 UTC");
        let names: Vec<&str> = [
            Due::Start,
            Due::Reminder,
            Due::SilenceReport,
            Due::ClockWarning,
            Due::Forfeit,
            Due::Question,
            Due::Digest,
        ]
        .map(Due::name)
        .to_vec();
        assert_eq!(
            names,
            [
                "start",
                "reminder",
                "silence-report",
                "clock-warning",
                "forfeit",
                "question",
                "digest"
            ]
        );
    }

    #[test]
    fn a_kept_row_is_the_finished_games_row_on_any_later_day_and_says_who_is_on_leave_then() {
        let mut st = registered(&duel(RuleSet::Fax));
        let g = st.games.get_mut(&game()).unwrap();
        g.status = GameStatus::Finished;
        g.result = Some(GameResult::BlackWins);
        let g = g.clone();
        let t = st.tournaments["T-1"].clone();
        let tz = chrono_tz::Europe::Berlin;
        let kept = StatusRow::kept(&g, &t).expect("a finished game's row is kept");
        assert!(kept.keeps());
        let later = at(2027, 3, 1, 12, 0);
        assert_eq!(
            kept.clone().as_of(&t, later, tz),
            StatusRow::of(&g, &t, later, tz, Vec::new())
        );
        // TO §24: a leave of Anna's in March 2027 shows on its days, and only then.
        let mut on_leave = t.clone();
        on_leave.players[0].leaves.push(Rest {
            from: day(2027, 3, 1),
            to: day(2027, 3, 3),
        });
        assert_eq!(on_leave.players[0].email, ANNA);
        let row = kept.clone().as_of(&on_leave, later, tz);
        assert!(row.clock.white.on_leave && !row.clock.black.on_leave);
        assert_eq!(row, StatusRow::of(&g, &on_leave, later, tz, Vec::new()));
        let after = at(2027, 3, 4, 12, 0);
        assert!(
            !kept
                .clone()
                .as_of(&on_leave, after, tz)
                .clock
                .white
                .on_leave
        );
        // A running game's row depends on the day: none is kept.
        let mut running = g.clone();
        running.status = GameStatus::Running;
        assert_eq!(StatusRow::kept(&running, &t), None);
    }
}
