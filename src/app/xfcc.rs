//! XFCC in the shell (docs/xfcc.md): the passwords issued into start mails, the login, a
//! player's games, and a move by XFCC handed to the core as the letter it stands for.

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use lettre::Message;
use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Mailbox, SinglePart};

use super::{App, AppError, Processed};
use crate::core::Output;
use crate::core::model::{Refusal, Sentence};
use crate::core::needs::Input;
use crate::game_ref::GameRef;
use crate::mail_kind::MailKind;
use crate::xfcc::games;
use crate::xfcc::login::Credential;
use crate::xfcc::soap::MoveCall;
use crate::xfcc::{Code, XfccGame};

/// The refusals of the queries in `out` addressed to `from`.
pub(crate) fn refusals_to(out: &Output, from: &str) -> Vec<Refusal> {
    out.mails
        .iter()
        .filter(|m| m.kind == MailKind::Query && m.to.iter().any(|r| r.email == from))
        .flat_map(|m| &m.sentences)
        .filter_map(|(_, s)| match s {
            Sentence::Refusal(r) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

impl App {
    /// The address a login names when `password` is his XFCC password; `None` otherwise (an
    /// address the relay does not know, or one never given a password, fails alike).
    pub fn xfcc_check_login(
        &mut self,
        username: &str,
        password: &str,
    ) -> Result<Option<String>, AppError> {
        // Who a login is, the core's tournaments say, all of them (a game's XFCC id counts
        // every tournament too, `Input::Xfcc`).
        let login = crate::core::needs::Input::Login;
        self.working.satisfy(&mut self.state, &self.store, login)?;
        let given = username.trim().to_lowercase();
        let email = self
            .state
            .registered_as(&given)
            .map(str::to_string)
            .unwrap_or(given);
        if !self.state.knows(&email) {
            return Ok(None);
        }
        let c: Option<Credential> = self.store.xfcc_credential(&email)?;
        Ok(c.filter(|c| c.verify(password)).map(|_| email))
    }

    /// `GetMyGames` of `email` (logged in) at `now`.
    pub fn xfcc_games(
        &mut self,
        email: &str,
        now: DateTime<Utc>,
    ) -> Result<Vec<XfccGame>, AppError> {
        self.working
            .satisfy(&mut self.state, &self.store, Input::Xfcc(email))?;
        let site = self.settings.relay_name.clone();
        Ok(games::my_games(
            &self.state,
            email,
            &site,
            now,
            self.settings.tz,
        ))
    }

    /// `MakeAMove` of `email` (logged in) from `client` at `now`: written as the letter it
    /// stands for, with the call's content (`games::content_of`), and decided by the core like a
    /// mail (one transaction: the move, the forward to the partner, the receipt, the archive).
    /// What the client shows as a code the core refuses at once, and nothing of the call is
    /// kept; what only the rules tell (a false claim) goes to the player by mail too. Returns the
    /// code of the core's first refusal, or `Success`.
    pub fn xfcc_move(
        &mut self,
        email: &str,
        call: &MoveCall,
        client: IpAddr,
        now: DateTime<Utc>,
    ) -> Result<Code, AppError> {
        self.working
            .satisfy(&mut self.state, &self.store, Input::Xfcc(email))?;
        let Some(game) = games::game_of_id(&self.state, &call.game_id) else {
            tracing::info!(
                "XFCC: move of {email} in game {} refused: {}",
                call.game_id,
                Code::InvalidGameID.name()
            );
            return Ok(Code::InvalidGameID);
        };
        let content = games::content_of(&self.state, &game, email, call);
        let raw = self.xfcc_letter(
            email,
            &game,
            &games::letter_text(&content),
            call,
            client,
            now,
        )?;
        let refused = match self.process_call(&raw, now, content)? {
            Processed::Done { log, refused } => {
                for line in log {
                    tracing::info!("{line}");
                }
                refused
            }
            Processed::Duplicate => return Ok(Code::ServerError),
            Processed::Quarantined(reason) => {
                tracing::warn!("XFCC: the move of {email} was quarantined: {reason}");
                return Ok(Code::ServerError);
            }
        };
        let code = refused
            .first()
            .map(|r| games::code_of(r, self.state.games.get(&game), email))
            .unwrap_or(Code::Success);
        tracing::info!(
            "XFCC: move of {email} in game {game} ({}): {}",
            call.game_id,
            code.name()
        );
        Ok(code)
    }

    /// The mail a move by XFCC stands for, as its player would have written it: from him, to
    /// his private reply address of the game, the game in the subject, `text` (the moves as
    /// TO §2 wants them); its message in the header `X-Fernzug-XFCC-Message`, where the reader
    /// does not take it for a request. It is archived with the game like any mail (TO §11).
    fn xfcc_letter(
        &self,
        email: &str,
        game: &GameRef,
        text: &str,
        call: &MoveCall,
        client: IpAddr,
        now: DateTime<Utc>,
    ) -> Result<Vec<u8>, AppError> {
        let s = &self.settings;
        let fail =
            |what: &str| AppError::Xfcc(format!("cannot write the letter of an XFCC move: {what}"));
        let name = self
            .state
            .tournament_of(game)
            .and_then(|t| t.player(email))
            .map(|p| p.name.clone());
        let from = Mailbox::new(name, email.parse().map_err(|_| fail(email))?);
        let to_addr = match self.state.reply_key_for(game, email) {
            Some(k) => crate::render::reply_address(&k, s),
            None => s.relay_address.clone(),
        };
        let to = Mailbox::new(None, to_addr.parse().map_err(|_| fail(&to_addr))?);
        let token: u64 = rand::random();
        let message_id = format!(
            "<xfcc.{}.{token:016x}@{}>",
            now.timestamp_millis(),
            s.domain()
        );
        let header = |name: &'static str, value: String| {
            HeaderValue::new(HeaderName::new_from_ascii_str(name), value)
        };
        let mut b = Message::builder()
            .from(from)
            .to(to)
            .subject(format!("[{game}] XFCC"))
            .date(std::time::SystemTime::from(now))
            .message_id(Some(message_id))
            .raw_header(header("X-Fernzug-Via", format!("XFCC from {client}")));
        // One header line: line breaks and other control characters become blanks (nothing a
        // client sends can add a header of its own).
        let message: String = call
            .my_message
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .take(2000)
            .collect();
        let message = message.trim();
        if !message.is_empty() {
            b = b.raw_header(header("X-Fernzug-XFCC-Message", message.to_string()));
        }
        let m = b
            .singlepart(SinglePart::plain(text.to_string()))
            .map_err(|e| fail(&e.to_string()))?;
        Ok(m.formatted())
    }
}
