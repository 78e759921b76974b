//! [`Game`]: one game of a tournament, its moves, clocks and open duties.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Color, EnPassantMode, Position};

use crate::core::clock::PlayerClock;
use crate::core::model::{
    ConditionalLine, EndReason, Event, GameResult, LoggedEvent, MailSeal, Seal, SerdeColor,
};
use crate::game_ref::GameRef;
use crate::notation::Form;

/// Where a game stands (docs/contract.md: `status --json` `state`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GameStatus {
    /// Registered; the start mails are not yet out.
    WaitingStart,
    /// Being played.
    Running,
    /// Stopped after a second time forfeit until the director decides (TO §21).
    Suspended,
    /// Stopped for adjudication (TO §31).
    Adjourned,
    /// Over.
    Finished,
}

impl GameStatus {
    pub fn name(self) -> &'static str {
        match self {
            GameStatus::WaitingStart => "waiting-start",
            GameStatus::Running => "running",
            GameStatus::Suspended => "suspended",
            GameStatus::Adjourned => "adjourned",
            GameStatus::Finished => "finished",
        }
    }
}

/// One move that was played.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PlayedMove {
    /// The move in UCI (`e2e4`, `e1g1`).
    pub uci: String,
    /// The move in SAN with English letters.
    pub san: String,
    /// When the mover received the partner's move (or the clock started): TO §14 (a).
    #[serde(with = "super::stamp")]
    pub received: DateTime<Utc>,
    /// When the relay received the move: the postmark, TO §14 (b).
    #[serde(with = "super::stamp")]
    pub sent: DateTime<Utc>,
    /// Days used (TO §12 / Fax 1.4).
    pub days_used: u32,
    /// Days charged (TO §13: +5 without announcement past 10 days).
    pub charged: u32,
    /// The Message-ID of the mail that carried it.
    pub message_id: String,
}

/// A value per colour.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ByColor<T> {
    pub white: T,
    pub black: T,
}

impl<T> ByColor<T> {
    pub fn get(&self, c: Color) -> &T {
        match c {
            Color::White => &self.white,
            Color::Black => &self.black,
        }
    }

    pub fn get_mut(&mut self, c: Color) -> &mut T {
        match c {
            Color::White => &mut self.white,
            Color::Black => &mut self.black,
        }
    }
}

/// The duties of the player on move: when his move arrived and what was sent about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Turn {
    /// When the player on move received the partner's move (TO §14 (a)); for White's first move the clock start.
    #[serde(with = "super::stamp")]
    pub since: DateTime<Utc>,
    /// TO §13: he announced more than 10 days for this move.
    pub announced: bool,
    /// TO §16: when the reminder went out.
    pub reminded: Option<DateTime<Utc>>,
    /// TO §16: when the silence report went to the director.
    pub silence_reported: Option<DateTime<Utc>>,
    /// TO §18: a time forfeit was claimed during this move.
    pub forfeit_claimed: bool,
}

impl Turn {
    pub fn new(since: DateTime<Utc>) -> Turn {
        Turn {
            since,
            announced: false,
            reminded: None,
            silence_reported: None,
            forfeit_claimed: false,
        }
    }
}

/// One game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Game {
    pub id: GameRef,
    pub round: u32,
    /// The players' addresses.
    pub players: ByColor<String>,
    /// The private Reply-To keys (one per player of this game).
    pub keys: ByColor<String>,
    pub status: GameStatus,
    pub moves: Vec<PlayedMove>,
    pub clocks: ByColor<PlayerClock>,
    pub turn: Turn,
    /// TO §3: the notation form each player used last.
    pub forms: ByColor<Option<Form>>,
    /// TO §2: a pending draw offer by this colour.
    pub draw_offer: Option<SerdeColor>,
    /// The result once finished.
    pub result: Option<GameResult>,
    /// How the game ended.
    pub end_reason: Option<EndReason>,
    /// When the game ended (TO §27; Fax 2.8 counts the archive's four weeks from the last end).
    #[serde(default)]
    pub ended_at: Option<DateTime<Utc>>,
    /// TO §13 announcement the player made with his last move, for his next move.
    pub announced_next: ByColor<bool>,
    /// Message-ID of the last `move` mail, to thread reminders into.
    pub last_forward: Option<String>,
    /// The number of events appended to this game's log.
    pub events: u64,
    /// TO §29: the hash of the last sealed event of the log ([`crate::core::model::Seal`]);
    /// empty while no event is sealed (a game of a version before the seals, until its next
    /// event).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub seal: String,
    /// TO §6: the pending conditional lines (Eventualzüge).
    #[serde(default)]
    pub conditional: Vec<ConditionalLine>,
    /// TO §30: the director restricted the game's mails to moves: no words of either player are
    /// forwarded (`Nur Züge: GAME`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub moves_only: bool,
    /// TO §30: the director ordered that the game's moves go through him: every `move` mail
    /// has him in copy (`Züge über TL: GAME`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub through_director: bool,
    /// The `message` mails forwarded in the last day, by whom and when (at most
    /// [`MESSAGES_PER_DAY`] per player; older ones are dropped).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<(SerdeColor, DateTime<Utc>)>,
    /// TO §18, §29: the last decision about the game its players may dispute or appeal; a
    /// reply through a player's key of replies to decisions answers it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<crate::core::model::Decision>,
    /// The last position [`Game::position_after`] reached: not part of the game (not stored,
    /// not compared), only what spares the next call replaying the moves from the start.
    #[serde(skip)]
    pub replayed: Replayed,
}

/// A memo of [`Game::position_after`]: the last two positions it reached, each with how many
/// moves it followed and a fingerprint of them. A later call whose moves begin with those of a
/// slot goes on from its position; any other starts again from the first move. Two slots, so
/// that asking for the position before the last move and after it in turn replays nothing
/// twice. Small (no copy of the moves) and held apart from the game: an empty memo is a
/// pointer's size, so 10,000 games in memory carry no room for 20,000 positions. Equal to every
/// other memo, cloned with its game.
#[derive(Default)]
pub struct Replayed(std::sync::Mutex<Vec<Reached>>);

/// One remembered position: after `plies` moves whose UCI have the fingerprint `moves`.
#[derive(Clone)]
struct Reached {
    plies: usize,
    moves: u64,
    pos: Chess,
}

/// The fingerprint of a game's first moves (their UCI, in order, each ended by a byte no UCI
/// has): FNV-1a, 64 bits. The moves are hashed at every look into the memo, a few bytes a move;
/// SipHash's rounds for each of them were 1.3 % of a burst's CPU.
fn fingerprint(moves: &[PlayedMove]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0100_0000_01b3;
    let mut h = OFFSET;
    for m in moves {
        for &b in m.uci.as_bytes().iter().chain(&[0xff]) {
            h = (h ^ u64::from(b)).wrapping_mul(PRIME);
        }
    }
    h
}

impl Replayed {
    /// The furthest remembered position no more than `plies` moves into `moves` that those
    /// moves lead to: which slot, how many moves, the position.
    fn from(&self, moves: &[PlayedMove], plies: usize) -> Option<(usize, usize, Chess)> {
        let slots = self.0.lock().unwrap_or_else(|p| p.into_inner());
        slots
            .iter()
            .enumerate()
            .filter(|(_, s)| {
                s.plies <= plies
                    && s.plies <= moves.len()
                    && fingerprint(&moves[..s.plies]) == s.moves
            })
            .max_by_key(|(_, s)| s.plies)
            .map(|(i, s)| (i, s.plies, s.pos.clone()))
    }

    /// Remembers `pos` as the position after `moves`, in the slot it did not start from.
    fn keep(&self, moves: &[PlayedMove], pos: &Chess, started: Option<usize>) {
        let mut slots = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let reached = Reached {
            plies: moves.len(),
            moves: fingerprint(moves),
            pos: pos.clone(),
        };
        match started {
            Some(i) if slots.len() == 2 => slots[1 - i] = reached,
            _ if slots.len() < 2 => slots.push(reached),
            _ => slots[0] = reached,
        }
    }
}

impl Clone for Replayed {
    fn clone(&self) -> Self {
        Replayed(std::sync::Mutex::new(
            self.0.lock().unwrap_or_else(|p| p.into_inner()).clone(),
        ))
    }
}

impl PartialEq for Replayed {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for Replayed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Replayed")
    }
}

/// TO §30: the most `message` mails of one player in one game forwarded within a day.
pub const MESSAGES_PER_DAY: usize = 5;

impl Game {
    /// Appends `event` to the game's log: numbered after the last, sealed after it (TO §29) with
    /// the mail `input` it came from.
    pub fn log(&mut self, input: Option<&MailSeal>, event: Event) -> LoggedEvent {
        self.events += 1;
        let seal = Seal::after(
            Seal::prev_of(&self.seal),
            &self.id.to_string(),
            self.events,
            input,
            &event,
        );
        self.seal = seal.hash.clone();
        LoggedEvent {
            game: self.id.clone(),
            seq: self.events,
            event,
            seal,
        }
    }

    /// The position after all played moves.
    pub fn position(&self) -> Chess {
        self.position_after(self.moves.len())
    }

    /// The position after the first `plies` moves. Replaying stops at the first move that
    /// cannot be played (none of a game the relay kept). The position reached is remembered
    /// ([`Replayed`]): the next call for these moves or more goes on from it.
    pub fn position_after(&self, plies: usize) -> Chess {
        let plies = plies.min(self.moves.len());
        let (slot, start, mut pos) = match self.replayed.from(&self.moves, plies) {
            Some((slot, start, pos)) => (Some(slot), start, pos),
            None => (None, 0, Chess::default()),
        };
        let mut reached = start;
        for m in &self.moves[start..plies] {
            let Ok(uci) = m.uci.parse::<UciMove>() else {
                break;
            };
            let Ok(mv) = uci.to_move(&pos) else { break };
            pos.play_unchecked(mv);
            reached += 1;
        }
        if reached > start || slot.is_none() {
            self.replayed.keep(&self.moves[..reached], &pos, slot);
        }
        pos
    }

    /// The side to move.
    pub fn to_move(&self) -> Color {
        if self.moves.len().is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        }
    }

    /// The colour of a player's address in this game.
    pub fn color_of(&self, email: &str) -> Option<Color> {
        if self.players.white == email {
            Some(Color::White)
        } else if self.players.black == email {
            Some(Color::Black)
        } else {
            None
        }
    }

    /// The move number of ply index `ply` (0-based): ply 0 and 1 are move 1.
    pub fn number_of_ply(ply: usize) -> u32 {
        (ply / 2) as u32 + 1
    }

    /// The FEN of the current position.
    pub fn fen(&self) -> String {
        shakmaty::fen::Fen::from_position(&self.position(), EnPassantMode::Legal).to_string()
    }

    /// The moves as SAN with English letters.
    pub fn san_moves(&self) -> Vec<String> {
        self.moves.iter().map(|m| m.san.clone()).collect()
    }

    /// The moves as SAN with `+` and `#` (the relay keeps them without), replayed from the start.
    pub fn sans_plus(&self) -> Vec<String> {
        let mut pos = Chess::default();
        let mut out = Vec::with_capacity(self.moves.len());
        for m in &self.moves {
            match m
                .uci
                .parse::<shakmaty::uci::UciMove>()
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
            {
                Some(mv) => out.push(
                    shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut pos, mv).to_string(),
                ),
                // Not replayable (never expected): the rest as kept.
                None => {
                    out.extend(self.moves[out.len()..].iter().map(|m| m.san.clone()));
                    break;
                }
            }
        }
        out
    }

    pub fn uci_of(mv: shakmaty::Move) -> String {
        mv.to_uci(CastlingMode::Standard).to_string()
    }

    pub fn is_open(&self) -> bool {
        matches!(self.status, GameStatus::Running)
    }
}
