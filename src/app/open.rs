//! Opening the store for work ([`App::open`] and its kin): waiting for a store another
//! fernzug process holds (asking the daemon to let go), the relay's settings from its
//! configuration, and the working set as the command needs it (`working/`).

use super::*;

/// `ask`: while the store is held by another process, ask it to let go ([`store_request`]).
pub(super) fn open_with(
    config: Config,
    held: Option<Held>,
    load: Load,
    ask: bool,
) -> Result<App, AppError> {
    let path = config.relay.data_dir.join("store");
    // The data directory is the players' (the store, the shelf): 0700 whatever the umask.
    crate::store::private::dir_all(&config.relay.data_dir).map_err(|source| {
        crate::store::StoreError::Files {
            path: config.relay.data_dir.clone(),
            what: "create the data directory",
            source,
        }
    })?;
    let request = store_request(&config.relay.data_dir);
    let started = std::time::Instant::now();
    let mut asked = false;
    let opened = loop {
        match Store::open(&path) {
            Ok(s) => break Ok(s),
            Err(e) if e.is_locked() && started.elapsed() < LOCK_WAIT => {
                if ask && !request.exists() {
                    // Best effort: a daemon that cannot be asked keeps the store.
                    asked |= crate::store::private::create(&request)
                        .and_then(|mut f| {
                            std::io::Write::write_all(
                                &mut f,
                                std::process::id().to_string().as_bytes(),
                            )
                        })
                        .is_ok();
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => break Err(e),
        }
    };
    if asked {
        let _ = std::fs::remove_file(&request);
    }
    let store = opened?;
    for id in store.abandon_registrations()? {
        tracing::warn!(
            "the registration of tournament {id} stopped before its end and does not count: \
             its parts were removed; add it again"
        );
    }
    let (kept, templates) = match held {
        Some(h) => (Some((h.generation, h.state, h.working)), h.templates),
        None => (
            None,
            Templates::load(config.relay.templates_dir.as_deref())?,
        ),
    };
    let instance = match store.instance()? {
        Some(i) => i,
        None => {
            let id: [u8; 6] = rand::rngs::OsRng.r#gen();
            let id: String = id.iter().map(|b| format!("{b:02x}")).collect();
            let mut b = Batch::default();
            b.put_instance(&id);
            store.commit(b)?;
            id
        }
    };
    let settings = Settings {
        relay_address: config.relay.address.clone(),
        relay_name: config.relay.name.clone(),
        tz: config.relay.time_zone,
        default_lang: config.relay.language,
        instance,
        digest_day: config.relay.digest_day,
        warn_days: config.relay.warn_days,
        public_url: config.http.as_ref().and_then(|h| h.public_url.clone()),
        guard: crate::core::model::Guard {
            answers_per_day: config.limits.auto_answers_per_day,
            max_mail_bytes: config.limits.max_mail_bytes,
            dmarc_authserv_id: config
                .security
                .require_dmarc_pass
                .then(|| config.security.trusted_authserv_id.clone())
                .flatten(),
            trusted_authserv_id: config.security.trusted_authserv_id.clone(),
            require_reply_key: config.security.require_reply_key,
            directors: config.relay.directors.clone(),
        },
    };
    let (state, working) = match (kept, load) {
        (Some((generation, state, working)), Load::Working) if generation == store.generation() => {
            (state, working)
        }
        _ => Working::open(&store, &settings, load)?,
    };
    Ok(App {
        config,
        settings,
        store,
        state,
        templates,
        grouped: false,
        working,
        xfcc_issued: Default::default(),
    })
}
