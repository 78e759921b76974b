//! The store between the daemon and the others: lent to the tournament pages while the loop holds
//! it open ([`publish`], [`close_published`]), let go when another fernzug command asks for it
//! (`store.wanted`, [`requested`], [`watch_requests`]), opened again once that command is done
//! ([`open_store`]).

use std::time::Duration;

use tokio::sync::watch;
use tracing::info;

use crate::app::{App, AppError};
use crate::config::Config;

/// Lends the open store to the tournament pages, when `[http]` serves them.
pub(super) fn publish(pages: &crate::pages::StoreSlot, config: &Config, app: &App) {
    if config.http.is_some() {
        pages.set(Some(app.store.clone()));
    }
}

/// Takes the store out of the pages' slot, then closes it: another fernzug command may open it.
pub(super) fn close_published(app: App, pages: &crate::pages::StoreSlot) -> crate::app::Held {
    pages.set(None);
    app.close()
}

/// How often the waiting daemon looks whether a command asks for the store.
const REQUEST_POLL: Duration = Duration::from_millis(200);
/// A request older than this is left over from a command that died: ignored.
const REQUEST_STALE: Duration = Duration::from_secs(60);

/// Whether a fresh request for the store is there (`crate::app::store_request`).
pub(super) fn requested(data_dir: &std::path::Path) -> bool {
    std::fs::metadata(crate::app::store_request(data_dir))
        .and_then(|m| m.modified())
        .is_ok_and(|at| at.elapsed().unwrap_or(Duration::ZERO) < REQUEST_STALE)
}

/// A signal that turns `true` on shutdown or when a command asks for the store, and the task
/// that watches for the request (abort it after the wait).
pub(super) fn watch_requests(
    shutdown: &watch::Receiver<bool>,
    data_dir: &std::path::Path,
    xfcc: Option<std::sync::Arc<tokio::sync::Notify>>,
) -> (watch::Receiver<bool>, tokio::task::JoinHandle<()>) {
    let (tx, rx) = watch::channel(*shutdown.borrow());
    let mut shutdown = shutdown.clone();
    let dir = data_dir.to_path_buf();
    let task = tokio::spawn(async move {
        let called = async {
            match &xfcc {
                Some(n) => n.notified().await,
                None => std::future::pending().await,
            }
        };
        tokio::pin!(called);
        loop {
            if *shutdown.borrow() || requested(&dir) || crate::app::backup::requested(&dir) {
                let _ = tx.send(true);
                return;
            }
            tokio::select! {
                _ = tokio::time::sleep(REQUEST_POLL) => {}
                // An XFCC call waits for the loop: end the wait (docs/xfcc.md).
                _ = &mut called => {
                    let _ = tx.send(true);
                    return;
                }
                r = shutdown.changed() => {
                    if r.is_err() {
                        return;
                    }
                }
            }
        }
    });
    (rx, task)
}

/// Opens the store for a pass. While another fernzug command holds it or asks for it (an export
/// to a slow pipe, say), the daemon waits and tries again instead of giving up; `None` on
/// shutdown.
pub(super) async fn open_store(
    config: &Config,
    mut held: Option<crate::app::Held>,
    shutdown: &mut watch::Receiver<bool>,
) -> Result<Option<App>, AppError> {
    let mut warned = false;
    loop {
        let why = if requested(&config.relay.data_dir) {
            "another fernzug command asks for the store; waiting for it".to_string()
        } else {
            match App::reopen(config.clone(), held.take()) {
                Ok(app) => return Ok(Some(app)),
                Err(AppError::Store(e)) if e.is_locked() => {
                    format!("{e}; the store is held by another fernzug command, trying again")
                }
                Err(e) => return Err(e),
            }
        };
        if !warned {
            info!("{why}");
            warned = true;
        }
        tokio::select! {
            _ = tokio::time::sleep(REQUEST_POLL) => {}
            _ = shutdown.changed() => {}
        }
        if *shutdown.borrow() {
            return Ok(None);
        }
    }
}
