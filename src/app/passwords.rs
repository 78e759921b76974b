//! The XFCC passwords this process issued into start mails and status mails ([`Issuer`]): one
//! registration, one password; a renewal a new one. Only in memory: the store keeps their
//! salted hashes (`crate::xfcc::login`).

use crate::config::Config;
use crate::core::State;
use crate::core::model::{Facts, Mail};
use crate::mail_kind::MailKind;
use crate::render::XfccLogin;
use crate::store::{Batch, Store};
use crate::xfcc::login::{Credential, new_password};

/// A password this process issued: in memory only.
#[derive(Debug, Clone)]
pub(crate) struct Issued {
    password: String,
    credential: Credential,
    /// The store's generation when it was issued: while no transaction was applied since, its
    /// hash waits in the batch being staged.
    generation: u64,
}

/// The XFCC passwords this process issued, by address, so that all start mails of one
/// registration carry the same one. Only in memory: the store keeps their hashes.
#[derive(Debug, Default)]
pub(crate) struct Issuer {
    issued: std::collections::HashMap<String, Issued>,
}

/// The address whose XFCC login `mail` shows, when `[xfcc]` is set: every `start` mail's, and
/// the `status` mail's that answers `XFCC-Passwort`. Its tournaments must be at hand before
/// [`Issuer::login`] (the login is given to the address he is known by).
pub(crate) fn login_recipient<'m>(mail: &'m Mail, config: &Config) -> Option<&'m str> {
    config.xfcc.as_ref()?;
    match (&mail.kind, &mail.facts) {
        (MailKind::Start, _) => {}
        (MailKind::Status, Facts::Status(f)) if f.xfcc_password => {}
        _ => return None,
    }
    Some(mail.to.first()?.email.as_str())
}

impl Issuer {
    /// Forgets every password issued (after a step that was not written: they hold nowhere).
    pub(crate) fn clear(&mut self) {
        self.issued.clear();
    }

    /// Forgets the password this process issued to `user` unless it still holds ([`still_holds`]:
    /// issued for the batch being staged, or its hash the one in the store — another fernzug
    /// command, or a renewal, may have replaced it since). Read before staging, so that
    /// [`Issuer::login`] reads no store.
    pub(crate) fn keep_if_held(&mut self, user: &str, store: &Store) {
        if let Some(issued) = self.issued.get(user)
            && !still_holds(store, user, issued)
        {
            self.issued.remove(user);
        }
    }

    /// The login `mail` shows ([`login_recipient`]). A start mail carries the password this
    /// process issued to its recipient already (one registration, one password), else a new
    /// one; the status mail always a new one. The hash of a new one goes into `batch`,
    /// replacing the earlier; `generation` is the store's, which the batch will follow.
    pub(crate) fn login(
        &mut self,
        mail: &Mail,
        batch: &mut Batch,
        (config, state, generation): (&Config, &State, u64),
    ) -> Option<XfccLogin> {
        let to = login_recipient(mail, config)?;
        let renew = mail.kind != MailKind::Start;
        let x = config.xfcc.as_ref()?;
        let user = state.registered_as(to).unwrap_or(to).to_lowercase();
        let known = match self.issued.get(&user) {
            Some(issued) if !renew => Some(issued.password.clone()),
            _ => None,
        };
        let password = match known {
            Some(p) => p,
            None => {
                // From the operating system's random source, as every reply key.
                let mut rng = rand::rngs::OsRng;
                let p = new_password(&mut rng);
                let c = Credential::of(&p, &mut rng);
                batch.put_xfcc_credential(&user, &c);
                self.issued.insert(
                    user.clone(),
                    Issued {
                        password: p.clone(),
                        credential: c,
                        generation,
                    },
                );
                p
            }
        };
        Some(XfccLogin {
            url: x.url.clone(),
            user,
            password,
        })
    }
}

/// Whether a password this process issued is still the one the relay keeps: issued for the
/// batch being staged (its hash not yet written), or its hash the one in the store (another
/// fernzug command, or a renewal, may have replaced it since).
fn still_holds(store: &Store, user: &str, issued: &Issued) -> bool {
    issued.generation == store.generation()
        || store
            .xfcc_credential::<Credential>(user)
            .ok()
            .flatten()
            .is_some_and(|c| c == issued.credential)
}
