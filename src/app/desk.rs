//! What the director asks of the records by mail (TO §11, §29; `crate::core::director::desk`):
//! the core decides the answer and names what it encloses ([`Enclosure`]); the shell, which
//! holds the archive, the shelf and the event logs, fills it in before the mail is rendered —
//! exactly what `export mbox`, `export pgn` and `verify` give on the command line. The report of
//! a tournament's end (TO §27) encloses the same way: the tournament's PGN and each game's
//! `verify` line.

use std::collections::BTreeMap;

use crate::app::{AppError, Records};
use crate::core::model::{Attachment, Enclosure, Facts, Mail};
use crate::core::pgn;
use crate::game_ref::GameRef;

/// What one step enclosed so far: every mail of a tournament's end encloses the same PGN and the
/// same `verify` lines, which are read from the store once.
#[derive(Default)]
pub(crate) struct Enclosed {
    pgn: BTreeMap<String, String>,
    verified: BTreeMap<GameRef, String>,
}

impl Records<'_> {
    /// `mail` with what it encloses filled in from the store (`memo`: what this step read
    /// already).
    pub(crate) fn enclosed(&self, mail: &Mail, memo: &mut Enclosed) -> Result<Mail, AppError> {
        let mut mail = mail.clone();
        for e in std::mem::take(&mut mail.enclose) {
            match e {
                Enclosure::Mbox(g) => {
                    let entries = self.store.archive().for_game(&g.to_string())?;
                    let mbox = crate::mbox::mbox(&entries, &self.settings.relay_address);
                    mail.attachments.push(Attachment::mbox(&g, mbox));
                }
                Enclosure::Pgn(target) => {
                    let text = match memo.pgn.get(&target) {
                        Some(text) => text.clone(),
                        None => {
                            let text = self.pgn_of(&target)?;
                            memo.pgn.insert(target.clone(), text.clone());
                            text
                        }
                    };
                    mail.attachments.push(Attachment {
                        filename: format!("{}.pgn", target.replace('/', "-")),
                        ..Attachment::pgn(&GameRef::new(target.clone(), 0), text)
                    });
                }
                Enclosure::Verify(g) => {
                    let line = match memo.verified.get(&g) {
                        Some(line) => line.clone(),
                        None => {
                            let line = match self.game_anywhere(&g)? {
                                Some(game) => self.verify_game(&game)?.to_string(),
                                None => format!("no game {g}"),
                            };
                            memo.verified.insert(g.clone(), line.clone());
                            line
                        }
                    };
                    match &mut mail.facts {
                        Facts::Director(f) => f.verified = Some(line),
                        Facts::TournamentEnd(f) => {
                            let id = g.to_string();
                            if let Some(game) = f.games.iter_mut().find(|x| x.game == id) {
                                game.verified = Some(line);
                            }
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(mail)
    }

    /// The PGN of a tournament or a game, as `fernzug export pgn TARGET` prints it.
    fn pgn_of(&self, target: &str) -> Result<String, AppError> {
        let mut text = String::new();
        let tz = self.settings.tz;
        if let Ok(g) = target.parse::<GameRef>()
            && target.contains('/')
        {
            if let (Some(t), Some(game)) = (self.state.tournament_of(&g), self.game_anywhere(&g)?) {
                text.push_str(&pgn::game_pgn(&game, t, tz));
            }
            return Ok(text);
        }
        if let Some(t) = self.state.tournaments.get(target) {
            for game in self.games_of(t)? {
                text.push_str(&pgn::game_pgn(&game, t, tz));
            }
        }
        Ok(text)
    }

    /// A game in memory, or read from the store (or its tournament's shelf).
    fn game_anywhere(&self, g: &GameRef) -> Result<Option<crate::core::model::Game>, AppError> {
        if let Some(game) = self.state.games.get(g) {
            return Ok(Some(game.clone()));
        }
        let Some(t) = self.state.tournament_of(g) else {
            return Ok(None);
        };
        Ok(self.games_of(t)?.into_iter().find(|x| x.id == *g))
    }
}
