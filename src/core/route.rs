//! Routing one letter to its room, after the door let it in: a stranger's mail, a `Status`
//! request (`records`), the player's `Übersicht` (`time::overview`), a director's mail
//! (`director`), a leave (`director::leave`), and a player's letter about a game (`play`).
//!
//! Choices made here, once:
//! * **No backscatter** (Postfix BACKSCATTER_README). A stranger (no player, no director) is
//!   answered only when his mail names a game or a tournament of the relay (a reply key, the
//!   subject's `[ID/N]`, or a known tournament id in subject or text) or the operator's server
//!   says `dmarc=pass` for it (`trusted_authserv_id`); then once ever. Otherwise one log line.
//! * **`[security] require_reply_key`.** Anything that may change a game or a tournament (a
//!   move, an offer, a resignation, a claim, an announcement, a leave, a director's command)
//!   counts only when the mail came through a `relay+KEY@` address given to its sender; else a
//!   `NotThroughReplyKey` query to the registered address. A bare `Status` (read-only, its
//!   answer goes to the registered address) needs no key.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};

use crate::core::director::desk::{answer_question, decision_reply_of, question_of, to_director};
use crate::core::director::leave::{end_leave_on_move, handle_leave, withdraw_leave};
use crate::core::director::{handle_director, is_director_letter};
use crate::core::door::reply::{
    came_through_own_key, finish, game_of_letter, lang_for, names_relay_game, query,
};
use crate::core::model::RegisterRefusal;
use crate::core::model::Step;
use shakmaty::Color;

use crate::core::model::{EndReason, GameResult, Output, Refusal, Settings, State};
use crate::core::play::conditional::check_conditional;
use crate::core::play::endings::{check_claim, claim_repetition};
use crate::core::play::message::message;
use crate::core::play::{announce, check_letter, play, resolve};
use crate::core::records::help::help;
use crate::core::records::status::answer_status;
use crate::core::records::status::says_more_than_status;
use crate::core::register::{
    RegisterError, admit, checked_mail, register_tournament, registered_mail, withdraw_tournament,
};
use crate::core::time::deadlines::fire_due;
use crate::core::time::overview::answer_overview;
use crate::game_ref::GameRef;
use crate::letter::auth::{DmarcVerdict, dmarc_verdict, vouched};
use crate::letter::{Letter, OverviewAsk};

/// What the core may read when it answers a letter: the tournaments whose games (with their
/// reply keys) must be at hand, and the reply keys the letter names. A relay that holds only some
/// games in memory (`crate::app`, lazily) brings in exactly this before it asks the core; the
/// core decides the same as with every game at hand (`tests/pure/letter_fixtures.rs` checks it
/// for every fixture letter).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Reach {
    /// The tournaments the letter may touch: those its sender plays in or directs (running
    /// ones; a leave or a `Status` is about all his games), the one of the game its subject or a
    /// delivery-status report names (shelved ones too: the core answers about a finished game),
    /// those of the reply keys at hand, and those of the recipients a delivery-status report
    /// names as failed.
    pub tournaments: BTreeSet<String>,
    /// Every reply key the letter came through: the holder of the state looks up those it does
    /// not hold, and their games' tournaments are reached too.
    pub keys: BTreeSet<String>,
    /// The games the letter may touch, of a tournament not read whole: a player's letter about
    /// one game of his (`single_game`) reads that game (with its reply keys) and what the rules
    /// need of its tournament (the tournament itself: players, leaves, addresses), not the
    /// other games of it (issue 33: a move costs the same in a tournament of 10,000 games as in
    /// one of 100).
    pub games: BTreeSet<GameRef>,
}

/// How many fresh random reply keys the shell must hand in (`State::spare_keys`) before the core
/// decides `letter`: one for each question of the director's (TO §23) it carries — each question
/// has a key of its own, never one a reader of the relay's mail could derive.
pub fn keys_needed(letter: &Letter) -> usize {
    letter
        .content
        .director
        .iter()
        .filter(|c| matches!(c, crate::letter::DirectorCommand::Ask { .. }))
        .count()
}

/// The running tournaments (not rotated) that `email` plays in or directs, in the order of
/// their ids.
pub fn running_tournaments_of(state: &State, email: &str) -> Vec<String> {
    let email = email.trim().to_lowercase();
    state
        .tournaments_with(&email)
        .filter(|t| !t.rotated && (t.director.email == email || t.player(&email).is_some()))
        .map(|t| t.id.clone())
        .collect()
}

/// The [`Reach`] of `letter` in `state` at `now` (which need not hold any game: only the
/// tournaments and the reply keys at hand are read — the bindings of the letter's own keys
/// looked up first, so that a letter about one game reaches that game alone). Pure, like the
/// router it stands beside.
pub fn reach(state: &State, letter: &Letter, now: DateTime<Utc>) -> Reach {
    if let Some(game) = single_game(state, letter, now) {
        return Reach {
            keys: letter.reply_keys.iter().cloned().collect(),
            games: BTreeSet::from([game]),
            ..Reach::default()
        };
    }
    let running_of = |email: &str| running_tournaments_of(state, email);
    let mut r = Reach::default();
    r.tournaments.extend(running_of(&letter.from));
    // A tournament withdrawn: read whole (has a move been played?).
    r.tournaments
        .extend(letter.content.withdraw_tournament.iter().cloned());
    for k in &letter.reply_keys {
        r.keys.insert(k.clone());
        if let Some(b) = state.keys.get(k) {
            r.tournaments.insert(b.game.tournament.clone());
        }
    }
    r.tournaments
        .extend(letter.game_ref.iter().map(|g| g.tournament.clone()));
    if let Some(d) = &letter.dsn {
        r.tournaments
            .extend(d.game.iter().map(|g| g.tournament.clone()));
        for f in &d.failed {
            r.tournaments.extend(running_of(&f.recipient));
        }
    }
    r
}

/// The one game a letter is about, when it can touch nothing else: it came through the
/// sender's own reply key of a running game he plays (not as its director), names no other game,
/// and asks for nothing beyond that game — moves, words, a draw, a resignation, a claim,
/// conditional moves; no leave, no status, no command, no question of the reader, no
/// delivery-status report — and no leave of his could end by it (TO §24: a move during leave
/// ends it in all his games; any leave not over by yesterday counts, whatever the time zone).
/// `None`: the letter reaches whole tournaments ([`reach`]).
fn single_game(state: &State, letter: &Letter, now: DateTime<Utc>) -> Option<GameRef> {
    // A player's letter about a game and nothing else, as the router reads it ([`known`]),
    // that says nothing the router reads beside it: no delivery-status report, no automatic
    // reply, no question of the reader, no XFCC password, no tournament file.
    let c = &letter.content;
    let one_game = known(state, letter)
        == (
            None,
            Then::Player {
                withdraw_leave: false,
                leave: false,
                game: true,
            },
        );
    let plain = letter.dsn.is_none()
        && letter.automatic.is_none()
        && !c.xfcc_password
        && c.director.is_empty()
        && c.doubts.is_empty()
        && c.register.is_none()
        && c.withdraw_tournament.is_none()
        && c.overview.is_none();
    if !(one_game && plain) {
        return None;
    }
    let mut bound = letter.reply_keys.iter().filter_map(|k| state.keys.get(k));
    let kb = bound.next()?;
    if bound.any(|other| other.game != kb.game)
        || kb.email != letter.from
        || letter.game_ref.as_ref().is_some_and(|g| *g != kb.game)
    {
        return None;
    }
    let t = state.tournament_of(&kb.game).filter(|t| !t.rotated)?;
    if t.director.email == letter.from {
        return None;
    }
    let yesterday = (now - chrono::Duration::days(1)).date_naive();
    let player = t.player(&letter.from)?;
    let on_leave = player
        .leaves
        .iter()
        .chain(&player.special_leaves)
        .any(|r| r.to >= yesterday);
    (!on_leave).then(|| kb.game.clone())
}

#[cfg(test)]
#[path = "route_tests.rs"]
mod tests;

/// What a letter is, as the router reads it: the first of these that holds, in this order
/// ([`classify`]). `answer_letter` matches over it, and [`reach`] (what the letter needs at
/// hand, `crate::core::needs`) reads the same value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Route {
    /// `Turnier zurückziehen: ID` / `withdraw tournament: ID` from a known address or one in
    /// `[relay] directors` (from anyone else: [`Route::Stranger`]): `crate::core::register`
    /// decides, once the router let the sender in.
    WithdrawTournament(String),
    /// From an address no tournament knows (`stranger`: answered only where the operator's
    /// server vouches for it, no backscatter).
    Stranger,
    /// TO §23: the answer to a director's question, through the question's own reply key: it
    /// goes to the director, whatever it says. The tournament and the question's index.
    QuestionAnswer(String, usize),
    /// `Hilfe` / `help`: the forms by mail, to the sender alone; nothing else of the mail is
    /// done (it changes nothing: no reply key needed).
    Help,
    /// TO §18, §29: a reply to a decision about a game, through the player's key of replies to
    /// decisions: it goes to the director, whatever it says, never to the partner.
    DecisionReply(GameRef, Color),
    /// `Übersicht` / `overview` (once, weekly, off): the sender's games at this relay, to him
    /// alone; nothing else of the mail is done (`crate::core::time::overview`). Switching the
    /// weekly overview on or off changes what the relay does for him: under `require_reply_key`
    /// only through his own key.
    Overview(OverviewAsk),
    /// `[security] require_reply_key`: anything that may change a game, a tournament or what
    /// the relay does for the sender — `Keine Warnungen`, `XFCC-Passwort` among them — counts
    /// only through the sender's own `relay+KEY@` address; a forged From cannot know it. The
    /// query goes to the registered address in From, so the real player learns of the attempt.
    /// A bare `Status` changes nothing and is answered to the registered address: it needs no
    /// key.
    NotThroughReplyKey,
    /// A letter of a player or a director: first what concerns the sender himself (his clock
    /// warnings, his status), then the rest of it.
    Known {
        account: Option<Account>,
        then: Then,
    },
}

/// What a letter asks about its sender himself, answered before anything else it says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Account {
    /// What the sender chooses for himself, answered with his status (which says so): TO §17
    /// `Keine Warnungen` (`false`) / `Warnungen` (`true`), his clock warnings off or on;
    /// `Brett: Liste` / `Brett: Diagramm`, how his mails show the position.
    Choices {
        warnings: Option<bool>,
        board: Option<crate::lang::Board>,
    },
    /// `Status` (`crate::core::records::status`).
    Status,
}

/// What a known sender's letter asks beyond [`Account`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Then {
    /// Nothing more: the account was all it said.
    Nothing,
    /// The director's hand (`crate::core::director`).
    Director,
    /// A request recognised in the writer's words but not certain or not complete: queried,
    /// quoting the sentence, never guessed (TO §2, §8; `crate::letter::requests`).
    Ask,
    /// A player's letter: a leave withdrawn, a leave (TO §24), and then, when `game` holds,
    /// what it says about a game (moves, words, a draw, a resignation, a claim…).
    Player {
        withdraw_leave: bool,
        leave: bool,
        game: bool,
    },
}

/// The [`Route`] of `letter` in `state`: pure, read before anything of the letter is done.
pub fn classify(state: &State, letter: &Letter, s: &Settings) -> Route {
    if let Some(id) = &letter.content.withdraw_tournament
        && (state.knows(&letter.from) || s.guard.directors.contains(&letter.from))
    {
        return Route::WithdrawTournament(id.clone());
    }
    if !state.knows(&letter.from) {
        return Route::Stranger;
    }
    if let Some((tid, i)) = question_of(state, letter) {
        return Route::QuestionAnswer(tid, i);
    }
    let c = &letter.content;
    if c.help {
        return Route::Help;
    }
    if let Some((game, color)) = decision_reply_of(state, letter) {
        return Route::DecisionReply(game, color);
    }
    if let Some(ask) = c.overview {
        if ask != OverviewAsk::Now
            && s.guard.require_reply_key
            && !came_through_own_key(state, letter)
        {
            return Route::NotThroughReplyKey;
        }
        return Route::Overview(ask);
    }
    let bare_status = c.status_request
        && !c.xfcc_password
        && c.warnings.is_none()
        && c.board.is_none()
        && !says_more_than_status(c);
    if s.guard.require_reply_key && !bare_status && !came_through_own_key(state, letter) {
        return Route::NotThroughReplyKey;
    }
    let (account, then) = known(state, letter);
    Route::Known { account, then }
}

/// What a known sender's letter asks (the parts of [`Route::Known`]), once it passed the
/// questions, `Hilfe`, the replies to decisions and `require_reply_key`.
fn known(state: &State, letter: &Letter) -> (Option<Account>, Then) {
    let c = &letter.content;
    let account = match (c.warnings, c.board) {
        (None, None) if c.status_request => Some(Account::Status),
        (None, None) => None,
        (warnings, board) => Some(Account::Choices { warnings, board }),
    };
    let then = if account.is_some() && !says_more_than_status(c) {
        Then::Nothing
    } else if is_director_letter(state, letter) {
        Then::Director
    } else if !c.asks.is_empty() {
        Then::Ask
    } else {
        let (withdraw_leave, leave) = (c.withdraw_leave.is_some(), c.leave.is_some());
        let about_game = !c.moves.is_empty() || c.resign || c.draw_accept || c.announce_long_think;
        Then::Player {
            withdraw_leave,
            leave,
            game: about_game || !(withdraw_leave || leave),
        }
    };
    (account, then)
}

/// Acts on one letter received at `now` (the postmark), after `crate::core::door::screen` let it in;
/// [`State::handle_letter`] is the entry point. Automatic mails, the relay's own and
/// unauthenticated ones were screened out before.
pub(crate) fn answer_letter(
    state: &mut State,
    letter: &Letter,
    now: DateTime<Utc>,
    s: &Settings,
) -> Output {
    let mut out = Output::default();
    let at = Step { now, s };
    match classify(state, letter, s) {
        Route::WithdrawTournament(id) => withdraw_letter(state, &mut out, letter, &id, at),
        Route::Stranger => stranger(state, &mut out, letter, at),
        Route::QuestionAnswer(tid, i) => answer_question(state, &mut out, letter, (tid, i), at),
        Route::Help => help(state, &mut out, letter, at),
        Route::DecisionReply(game, color) => {
            to_director(state, &mut out, letter, (&game, color), at);
        }
        Route::Overview(ask) => answer_overview(state, &mut out, letter, ask, at),
        Route::NotThroughReplyKey => not_through_reply_key(state, &mut out, letter, at),
        Route::Known { account, then } => {
            if let Some(account) = account {
                answer_account(state, &mut out, letter, account, at);
            }
            match then {
                Then::Nothing => {}
                Then::Director => {
                    handle_director(state, &mut out, letter, at);
                    // A change of time may make a forfeit due at once (TO §17).
                    out.absorb(fire_due(state, at));
                }
                Then::Ask => ask(state, &mut out, letter, at),
                Then::Player {
                    withdraw_leave: withdrawn,
                    leave,
                    game,
                } => {
                    // TO §24: a planned leave withdrawn, a leave asked for.
                    if let Some(w) = letter.content.withdraw_leave.filter(|_| withdrawn) {
                        withdraw_leave(state, &mut out, letter, w.span, at);
                    }
                    if let Some(span) = letter.content.leave.filter(|_| leave) {
                        handle_leave(state, &mut out, letter, span, at);
                    }
                    if game {
                        game_letter(state, &mut out, letter, at);
                    }
                }
            }
        }
    }
    out
}

/// [`Route::NotThroughReplyKey`]: the query to the registered address in From, about the game
/// the subject names when the sender plays it.
fn not_through_reply_key(state: &mut State, out: &mut Output, letter: &Letter, at: Step<'_>) {
    let game = letter
        .game_ref
        .as_ref()
        .filter(|g| state.color_in(g, &letter.from).is_some())
        .cloned();
    let lang = lang_for(state, &letter.from, game.as_ref(), at.s);
    if let Some(g) = &game {
        out.letter_games.insert(g.clone());
    }
    query(
        state,
        out,
        letter,
        game.as_ref(),
        lang,
        Refusal::NotThroughReplyKey,
        at,
    );
}

/// [`Route::WithdrawTournament`]: only the tournament's director or an address in `[relay]
/// directors` may withdraw it (anyone else learns nothing of it), and under
/// `require_reply_key` only through a reply key of his own; then the room of registrations
/// decides (`crate::core::register`).
fn withdraw_letter(state: &mut State, out: &mut Output, letter: &Letter, id: &str, at: Step<'_>) {
    let s = at.s;
    let said = format!("{}\n{}", letter.subject, letter.text).to_lowercase();
    let lang = if said.contains("withdraw") && said.contains("tournament") {
        crate::lang::Lang::En
    } else if said.contains("zurückziehen") || said.contains("zurueckziehen") {
        crate::lang::Lang::De
    } else {
        s.default_lang
    };
    if id.is_empty() {
        // Names no tournament: nothing to hide, the form to write.
        let r = crate::core::model::WithdrawRefusal::Unknown {
            tournament: String::new(),
        };
        query(state, out, letter, None, lang, Refusal::Withdraw(r), at);
        return;
    }
    let directs = state
        .tournaments
        .get(id)
        .is_some_and(|t| t.director.email == letter.from);
    if !directs && !s.guard.directors.contains(&letter.from) {
        out.log.push(format!(
            "tournament {id:?} not withdrawn: {} neither directs it nor is in [relay] directors",
            letter.from
        ));
        let r = Refusal::Withdraw(crate::core::model::WithdrawRefusal::NotAllowed);
        query(state, out, letter, None, lang, r, at);
        return;
    }
    if s.guard.require_reply_key && !came_through_own_key(state, letter) {
        query(
            state,
            out,
            letter,
            None,
            lang,
            Refusal::NotThroughReplyKey,
            at,
        );
        return;
    }
    withdraw_tournament(state, out, letter, id, lang, at);
}

/// [`Account`]: the sender's warnings switched (TO §17), his board chosen, and his status as the
/// answer.
fn answer_account(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    account: Account,
    at: Step<'_>,
) {
    let Account::Choices { warnings, board } = account else {
        // `Status` needs no game (src/core/records/status.rs).
        answer_status(state, out, letter, at);
        return;
    };
    if let Some(board) = board {
        // For all his games, before what a tournament file says (`board_for`).
        state.meta.boards.insert(letter.from.clone(), board);
        out.log.push(format!(
            "{} reads the position {} from now on",
            letter.from,
            match board {
                crate::lang::Board::List => "as piece lists",
                crate::lang::Board::Diagram => "as the diagram",
            }
        ));
    }
    if let Some(on) = warnings {
        if on {
            state.meta.no_warnings.remove(&letter.from);
        } else {
            state.meta.no_warnings.insert(letter.from.clone());
        }
        out.log.push(format!(
            "clock warnings {} for {} (TO §17)",
            if on { "on" } else { "off" },
            letter.from
        ));
        // The deadlines of his games change.
        for g in state
            .games
            .values()
            .filter(|g| g.color_of(&letter.from).is_some())
        {
            out.games.insert(g.id.clone());
        }
    }
    // `Status` needs no game (src/core/records/status.rs); a mail that says more goes on as usual.
    answer_status(state, out, letter, at);
}

/// [`Then::Ask`]: the first uncertain request queried, quoting the sentence.
fn ask(state: &mut State, out: &mut Output, letter: &Letter, at: Step<'_>) {
    let Some(ask) = letter.content.asks.first() else {
        return;
    };
    let game = game_of_letter(state, letter)
        .ok()
        .filter(|g| state.color_in(g, &letter.from).is_some());
    if let Some(g) = &game {
        out.letter_games.insert(g.clone());
    }
    let lang = lang_for(state, &letter.from, game.as_ref(), at.s);
    let r = Refusal::Uncertain(ask.clone());
    query(state, out, letter, game.as_ref(), lang, r, at);
}

/// A player's letter about a game: the game it is about and his colour in it (or the query
/// saying why there is none), an appeal (TO §29) and words (TO §30) first, then what it does
/// in the game ([`act_in_game`]).
fn game_letter(state: &mut State, out: &mut Output, letter: &Letter, at: Step<'_>) {
    let s = at.s;
    let game_ref = match game_of_letter(state, letter) {
        Ok(g) => g,
        Err(r) => {
            let lang = lang_for(state, &letter.from, None, s);
            query(state, out, letter, None, lang, r, at);
            return;
        }
    };
    let Some(game) = state.games.get(&game_ref) else {
        let lang = lang_for(state, &letter.from, None, s);
        let r = Refusal::UnknownGame {
            game: game_ref.to_string(),
        };
        query(state, out, letter, None, lang, r, at);
        return;
    };
    let lang = lang_for(state, &letter.from, Some(&game_ref), s);
    let Some(color) = game.color_of(&letter.from) else {
        // Not one of the game's players: answered without the game, and not kept among its
        // mails (anyone registered could grow another game's records, docs/security.md).
        let r = Refusal::NotAPlayer {
            game: game_ref.to_string(),
        };
        query(state, out, letter, None, lang, r, at);
        return;
    };
    out.letter_games.insert(game_ref.clone());
    // TO §29: an appeal (`Einspruch:`) in any mail about the game goes to the director.
    if letter.content.appeal.is_some() {
        to_director(state, out, letter, (&game_ref, color), at);
        return;
    }
    // TO §30: words and nothing else go to the partner, in any state of the game.
    if letter.content.message {
        message(state, out, letter, &game_ref, color, at);
        return;
    }
    if let Err(r) = check_letter(state, &game_ref, color, &letter.content, at) {
        query(state, out, letter, Some(&game_ref), lang, r, at);
        return;
    }
    act_in_game(state, out, letter, (&game_ref, color), lang, at);
}

/// What a player's checked letter does in his game: resign, accept a draw, claim a repetition,
/// announce a long think, or moves (with a claim or conditional moves) played — or the query
/// saying why not.
fn act_in_game(
    state: &mut State,
    out: &mut Output,
    letter: &Letter,
    (game_ref, color): (&GameRef, Color),
    lang: crate::lang::Lang,
    at: Step<'_>,
) {
    let (now, s) = (at.now, at.s);
    let c = &letter.content;
    if c.resign {
        let result = GameResult::for_winner(!color);
        finish(state, out, game_ref, result, EndReason::Resignation, now, s);
        return;
    }
    if c.draw_accept {
        let result = GameResult::Draw;
        finish(state, out, game_ref, result, EndReason::DrawAgreed, now, s);
        return;
    }
    let own_moves = c.moves.iter().any(|m| m.color == color);
    if c.claim_repetition && !own_moves {
        claim_repetition(state, out, letter, game_ref, at);
        return;
    }
    if c.announce_long_think && !own_moves {
        announce(state, out, letter, game_ref, color, at);
        return;
    }
    let resolved = resolve(state, game_ref, color, &c.moves, s)
        .and_then(|r| check_claim(state, game_ref, r, c))
        .and_then(|r| check_conditional(state, game_ref, color, r, c));
    match resolved {
        Ok(resolved) => {
            // TO §24: a move sent during leave ends it the day before.
            end_leave_on_move(state, out, game_ref, &letter.from, letter, at);
            play(state, out, letter, game_ref, color, resolved, at);
        }
        Err(r) => query(state, out, letter, Some(game_ref), lang, r, at),
    }
}

/// A mail from an address no tournament knows. It changes nothing. No backscatter: it is
/// answered only where the operator's own server vouches for its From (`dmarc=pass`, or
/// `spf=pass` for its domain: [`vouched`]) and it names a game or tournament of the relay (or has
/// `dmarc=pass`) — a spam run with forged senders draws no mail at all — and then at most once a
/// day per address and [`STRANGER_ANSWERS_PER_DAY`] a day in all. The answer repeats nothing of
/// the mail (`crate::core::door::reply::query`). A player writing from an address not (yet) his,
/// through his own reply key and under his name, is told how to have it added; anyone else,
/// that the relay answers only its players.
fn stranger(state: &mut State, out: &mut Output, letter: &Letter, at: Step<'_>) {
    let (now, s) = (at.now, at.s);
    if !stranger_may_be_answered(state, letter, s) {
        out.log.push(format!(
            "mail {} from stranger {}: the operator's server does not vouch for it (spf or \
             dmarc pass) or it names no game or tournament of the relay; not answered (no \
             backscatter)",
            letter.message_id, letter.from
        ));
        return;
    }
    let today = crate::core::view::local_date(now, s.tz);
    let answered = &mut state.meta.strangers;
    if answered.day != Some(today) {
        answered.day = Some(today);
        answered.addresses.clear();
    }
    if answered.addresses.contains(&letter.from) {
        out.log.push(format!(
            "mail {} from stranger {}: already answered today, not again",
            letter.message_id, letter.from
        ));
        return;
    }
    if answered.addresses.len() >= STRANGER_ANSWERS_PER_DAY {
        out.log.push(format!(
            "mail {} from stranger {}: {STRANGER_ANSWERS_PER_DAY} strangers answered today \
             already, not answered",
            letter.message_id, letter.from
        ));
        return;
    }
    answered.addresses.insert(letter.from.clone());
    if let Some((game, r)) = unregistered_address(state, letter) {
        let lang = lang_for(state, &r.1, Some(&game), s);
        out.letter_games.insert(game.clone());
        query(state, out, letter, Some(&game), lang, r.0, at);
        return;
    }
    query(
        state,
        out,
        letter,
        None,
        s.default_lang,
        Refusal::Stranger,
        at,
    );
}

/// At most this many addresses no tournament knows are answered a day, in all.
pub const STRANGER_ANSWERS_PER_DAY: usize = 50;

/// A mail from an address no one has, that came through a player's own reply key and carries
/// his name as its display name: the query that tells him how to register the address, and
/// the player's registered address.
fn unregistered_address(state: &State, letter: &Letter) -> Option<(GameRef, (Refusal, String))> {
    let words = |name: &str| {
        let mut w: Vec<String> = name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(crate::letter::requests::tokens::fold)
            .collect();
        w.sort();
        w
    };
    let written = words(letter.from_name.as_deref()?);
    let kb = letter.reply_keys.iter().find_map(|k| state.keys.get(k))?;
    let t = state.tournament_of(&kb.game)?;
    let player = t.player(&kb.email)?;
    if written.is_empty() || words(&player.name) != written {
        return None;
    }
    let r = Refusal::UnregisteredAddress {
        address: letter.from.clone(),
        registered: player.email.clone(),
        director: t.director.name.clone(),
        director_email: t.director.email.clone(),
    };
    Some((kb.game.clone(), (r, player.email.clone())))
}

/// The stranger rule's vouchers (no backscatter): the operator's own server
/// (`trusted_authserv_id`) vouches for the From address ([`vouched`]: `dmarc=pass`, or an aligned
/// `spf=pass`), and the letter names a game or tournament of the relay or has `dmarc=pass`.
fn stranger_may_be_answered(state: &State, letter: &Letter, s: &Settings) -> bool {
    let Some(id) = s
        .guard
        .trusted_authserv_id
        .as_ref()
        .or(s.guard.dmarc_authserv_id.as_ref())
    else {
        return false;
    };
    vouched(&letter.trace, id, &letter.from)
        && (names_relay_game(state, letter)
            || dmarc_verdict(&letter.trace, id, &letter.from) == DmarcVerdict::Pass)
}

/// The most games a tournament registered by mail may make (`tournament add` allows
/// `crate::tournament_file::MAX_GAMES`).
pub const MAX_GAMES_BY_MAIL: usize = 20_000;

/// A tournament file sent by mail (`Turnier anmelden` / `register tournament`), after
/// `crate::core::door::screen` let it in: registered when its sender is in `[relay] directors`
/// and `checked` (the shell's check of the file, as `tournament add` checks it) holds, and
/// answered with the table of games; else one query saying why, and nothing registered. A
/// sender not allowed learns nothing of what the file says; a stranger the operator's server
/// does not vouch for is not answered at all (no backscatter). A file sent to be checked only
/// (`Turnier prüfen` / `check tournament`) gets, after the same gates, a `director` notice with
/// what a registration would have said — its errors, or its games — and nothing is registered.
pub(crate) fn register_letter(
    state: &mut State,
    letter: &Letter,
    checked: Result<crate::core::NewTournament, RegisterRefusal>,
    at: Step<'_>,
    new_key: &mut dyn FnMut() -> String,
) -> Output {
    let (now, s) = (at.now, at.s);
    let mut out = Output::default();
    // The director's language: the subject's (`register tournament` is English).
    let subject = letter.subject.to_lowercase();
    let english = [
        "register",
        "tournament registration",
        "check tournament",
        "tournament check",
    ];
    let lang = if english.iter().any(|w| subject.contains(w)) {
        crate::lang::Lang::En
    } else if ["anmeld", "prüf", "pruef"]
        .iter()
        .any(|w| subject.contains(w))
    {
        crate::lang::Lang::De
    } else {
        s.default_lang
    };
    let refuse = |state: &mut State, out: &mut Output, r: RegisterRefusal| {
        out.log.push(format!(
            "tournament file from {} not registered: {r:?}",
            letter.from
        ));
        query(state, out, letter, None, lang, Refusal::Register(r), at);
    };
    if !s.guard.directors.contains(&letter.from) {
        if !state.knows(&letter.from) && !stranger_may_be_answered(state, letter, s) {
            out.log.push(format!(
                "mail {} from stranger {}: a tournament file from an address not allowed to \
                 register, not vouched for: not answered",
                letter.message_id, letter.from
            ));
            return out;
        }
        refuse(state, &mut out, RegisterRefusal::NotAllowed);
        return out;
    }
    // `[security] require_reply_key` holds for directors as for players: a registration counts
    // only through a reply key of the sender's own (of a tournament he directs); DMARC was
    // checked by the screen before.
    if s.guard.require_reply_key && !came_through_own_key(state, letter) {
        query(
            state,
            &mut out,
            letter,
            None,
            lang,
            Refusal::NotThroughReplyKey,
            at,
        );
        return out;
    }
    // The file as the shell checked it, then as registering would: a mail makes at most so
    // many games — a round robin of a thousand players would be half a million games and a
    // million start mails (docs/security.md) —, its id is free, no address is someone else's.
    let checked = checked.and_then(|file| {
        if file.pairings.len() > MAX_GAMES_BY_MAIL {
            return Err(RegisterRefusal::TooManyGames {
                games: file.pairings.len(),
                max: MAX_GAMES_BY_MAIL,
            });
        }
        admit(state, &file).map_err(refusal_of)?;
        Ok(file)
    });
    if letter.content.check_only {
        out.log.push(match &checked {
            Ok(file) => format!(
                "tournament file {} from {} checked: {} games, not registered",
                file.id,
                letter.from,
                file.pairings.len()
            ),
            Err(r) => format!("tournament file from {} checked: {r:?}", letter.from),
        });
        let answer = checked_mail(
            state,
            letter,
            checked.as_ref().map_err(Clone::clone),
            lang,
            at,
        );
        out.mails.push(answer);
        return out;
    }
    let file = match checked {
        Ok(file) => file,
        Err(r) => {
            refuse(state, &mut out, r);
            return out;
        }
    };
    match register_tournament(state, &file, at, new_key) {
        Err(e) => refuse(state, &mut out, refusal_of(e)),
        Ok(registered) => {
            out.absorb(registered);
            out.log.push(format!(
                "tournament {} registered by mail from {}",
                file.id, letter.from
            ));
            if let Some(m) = registered_mail(state, letter, &file, lang, Step { now, s }) {
                out.mails.push(m);
            }
        }
    }
    out
}

/// What a mail is told when registering refused its file.
fn refusal_of(e: RegisterError) -> RegisterRefusal {
    match e {
        RegisterError::Duplicate(id) => RegisterRefusal::Duplicate { id },
        RegisterError::AddressTaken(taken) => RegisterRefusal::AddressTaken {
            taken: taken
                .into_iter()
                .map(|t| (t.address, t.tournament))
                .collect(),
        },
    }
}
