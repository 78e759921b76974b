//! The tournament pages (docs/contract.md "Tournament pages"): on `[http] listen`, read-only,
//! `/` (the tournaments), `/t/TOURNAMENT` (the crosstable and every game), `/t/TOURNAMENT.pgn`
//! (exactly `export pgn`) and `/g/TOURNAMENT/N` (the board as in the mails, the moves, both
//! clocks as `status` counts them, the result and how the game ended).
//!
//! * **The store's read side.** A page is built from a read transaction of the store the daemon
//!   holds open ([`StoreSlot`]: it puts its handle there when it opens the store and takes it
//!   back before it closes it), on a blocking thread, while the daemon goes on processing mail
//!   (redb reads beside a write). While another fernzug command holds the store the pages answer
//!   `503` with `Retry-After`.
//! * **Caching.** Every page carries an `ETag` made of the store's generation (which every commit
//!   moves on), the language and the delay; a browser that sends it back gets `304` and nothing is
//!   read or rendered. A page is built once per change of the store: its body is kept by
//!   (generation, language, path) — a game page also by the day, its clocks count days — in a
//!   cache of bounded size, and at most [`BUILDS`] pages are built at once (others wait for a
//!   place, up to [`BUILD_WAIT`], then `503`), so that no client makes the relay build a page
//!   over and over.
//! * **Privacy.** No page shows an e-mail address, a reply key or anything of XFCC: players by
//!   name, the director by name. With `[http] delay_moves = N` a running game is shown N plies
//!   behind (its board, moves and move count; its clocks, which would tell when the last move
//!   came, are not shown); a finished game whole.
//! * **Words.** Templates under `templates/web/` (de, en) rendered with minijinja (HTML escaped),
//!   the language by `?lang=` or `Accept-Language`; an operator overrides them as the mail
//!   templates (`templates_dir/web/…`).

mod facts;
mod page;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use tokio::sync::Semaphore;

use crate::http::{Request, Response, Service};
use crate::lang::Lang;
use crate::store::Store;
pub use page::PagesConfig;
use page::{Page, page_of};

/// The web templates built in: (language, name, text).
const BUILTIN: &[(&str, &str, &str)] = &[
    (
        "de",
        "index.html",
        include_str!("../../templates/web/de/index.html"),
    ),
    (
        "de",
        "tournament.html",
        include_str!("../../templates/web/de/tournament.html"),
    ),
    (
        "de",
        "game.html",
        include_str!("../../templates/web/de/game.html"),
    ),
    (
        "en",
        "index.html",
        include_str!("../../templates/web/en/index.html"),
    ),
    (
        "en",
        "tournament.html",
        include_str!("../../templates/web/en/tournament.html"),
    ),
    (
        "en",
        "game.html",
        include_str!("../../templates/web/en/game.html"),
    ),
    (
        "",
        "layout.html",
        include_str!("../../templates/web/layout.html"),
    ),
];

/// The style sheet, one small file.
const STYLE: &str = include_str!("../../templates/web/style.css");

/// The store as the daemon holds it open, for the pages to read beside it; empty while it is
/// closed (another fernzug command has it).
#[derive(Clone, Default)]
pub struct StoreSlot(Arc<Mutex<Option<Store>>>);

impl StoreSlot {
    /// Puts the daemon's store in (`Some`) or takes it out (`None`, before the daemon closes it).
    pub fn set(&self, store: Option<Store>) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = store;
        }
    }

    fn get(&self) -> Option<Store> {
        self.0.lock().ok().and_then(|s| s.clone())
    }

    /// A guard that empties the slot when dropped: the daemon's loop ends (the listener's
    /// tasks may outlive it for a moment) and no page keeps its store open.
    pub fn taken_back_on_drop(&self) -> TakenBack {
        TakenBack(self.clone())
    }
}

/// See [`StoreSlot::taken_back_on_drop`].
pub struct TakenBack(StoreSlot);

impl Drop for TakenBack {
    fn drop(&mut self) {
        self.0.set(None);
    }
}

/// At most this many pages are built at once.
pub const BUILDS: usize = 2;
/// A request waits this long at most for a place to build its page; then `503`.
pub const BUILD_WAIT: Duration = Duration::from_secs(10);
/// The bodies kept: at most this many bytes in all...
pub const CACHE_BYTES: usize = 32 * 1024 * 1024;
/// ...and this many pages.
pub const CACHE_PAGES: usize = 4096;

/// The tournament pages as a [`Service`] of the HTTP listener.
pub struct Pages {
    slot: StoreSlot,
    config: PagesConfig,
    env: Arc<minijinja::Environment<'static>>,
    cache: Mutex<Cache>,
    builds: Arc<Semaphore>,
}

impl Pages {
    /// The pages over `slot`; an operator's template that does not parse is an error.
    pub fn new(slot: StoreSlot, config: PagesConfig) -> Result<Pages, String> {
        let env = environment(config.templates_dir.as_deref())?;
        Ok(Pages {
            slot,
            config,
            env: Arc::new(env),
            cache: Mutex::new(Cache::new(CACHE_BYTES, CACHE_PAGES)),
            builds: Arc::new(Semaphore::new(BUILDS)),
        })
    }

    /// The same pages keeping no body: every request builds its page (to measure what the cache
    /// saves, `tests/stack/load/pages.rs`).
    pub fn uncached(self) -> Pages {
        Pages {
            cache: Mutex::new(Cache::new(0, 0)),
            ..self
        }
    }

    /// How many pages were built since the start (a page served from the cache is not).
    pub fn built(&self) -> u64 {
        self.cache.lock().map_or(0, |c| c.built)
    }

    fn cached(&self, key: &Key) -> Option<Arc<Response>> {
        self.cache.lock().ok()?.get(key)
    }
}

/// What a page's body is kept by: the store's generation, the language, the path, and for a
/// game page the day its clocks were counted on.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Key {
    generation: u64,
    lang: Lang,
    path: String,
    day: Option<chrono::NaiveDate>,
}

/// The pages built, by [`Key`]: only those of the newest generation seen, at most `bytes` of
/// bodies and `pages` of them; when full, the one used longest ago goes.
struct Cache {
    entries: HashMap<Key, (Arc<Response>, u64)>,
    bytes: usize,
    max_bytes: usize,
    max_pages: usize,
    generation: u64,
    used: u64,
    built: u64,
}

impl Cache {
    fn new(max_bytes: usize, max_pages: usize) -> Cache {
        Cache {
            entries: HashMap::new(),
            bytes: 0,
            max_bytes,
            max_pages,
            generation: 0,
            used: 0,
            built: 0,
        }
    }

    fn get(&mut self, key: &Key) -> Option<Arc<Response>> {
        self.used += 1;
        let used = self.used;
        self.entries.get_mut(key).map(|(r, u)| {
            *u = used;
            r.clone()
        })
    }

    fn put(&mut self, key: Key, page: Arc<Response>) {
        self.built += 1;
        if key.generation > self.generation {
            // The store changed: every page kept is of the past.
            self.entries.clear();
            self.bytes = 0;
            self.generation = key.generation;
        }
        let size = page.body.len() + key.path.len();
        if key.generation < self.generation || size > self.max_bytes / 4 || self.max_pages == 0 {
            return;
        }
        while !self.entries.is_empty()
            && (self.entries.len() >= self.max_pages || self.bytes + size > self.max_bytes)
        {
            let oldest = self
                .entries
                .iter()
                .min_by_key(|(_, (_, u))| *u)
                .map(|(k, _)| k.clone());
            if let Some(k) = oldest
                && let Some((r, _)) = self.entries.remove(&k)
            {
                self.bytes -= r.body.len() + k.path.len();
            }
        }
        self.used += 1;
        self.bytes += size;
        if let Some((old, _)) = self.entries.insert(key.clone(), (page, self.used)) {
            self.bytes -= old.body.len() + key.path.len();
        }
    }
}

/// The environment of the web templates: the built-in ones, each replaced by the operator's file
/// of the same name under `dir/web/` when there is one.
fn environment(dir: Option<&Path>) -> Result<minijinja::Environment<'static>, String> {
    let mut env = minijinja::Environment::new();
    env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
    for (lang, name, text) in BUILTIN {
        let key = if lang.is_empty() {
            (*name).to_string()
        } else {
            format!("{lang}/{name}")
        };
        let own = dir
            .map(|d| d.join("web").join(&key))
            .filter(|p| p.is_file());
        let text = match own {
            Some(p) => std::fs::read_to_string(&p).map_err(|e| format!("{}: {e}", p.display()))?,
            None => (*text).to_string(),
        };
        env.add_template_owned(key.clone(), text)
            .map_err(|e| format!("web template {key}: {e}"))?;
    }
    Ok(env)
}

/// The language of a request: `?lang=de|en`, else the first of `Accept-Language` the relay
/// writes, else its default.
fn lang_of(request: &Request, default: Lang) -> Lang {
    let asked = request
        .query()
        .split('&')
        .find_map(|kv| kv.strip_prefix("lang="))
        .map(str::to_string);
    let accepted = request.accept_language.as_deref().unwrap_or("");
    asked
        .into_iter()
        .chain(
            accepted
                .split(',')
                .map(|l| l.split(';').next().unwrap_or("").trim().to_lowercase()),
        )
        .find_map(|l| match l.get(..2) {
            Some("de") => Some(Lang::De),
            Some("en") => Some(Lang::En),
            _ => None,
        })
        .unwrap_or(default)
}

impl Service for Pages {
    fn serves(&self, path: &str) -> bool {
        path == "/" || path == "/style.css" || path.starts_with("/t/") || path.starts_with("/g/")
    }

    fn paths(&self) -> &'static str {
        "/, /t/TOURNAMENT, /t/TOURNAMENT.pgn, /g/TOURNAMENT/N"
    }

    fn answer(&self, request: Request) -> BoxFuture<'_, Response> {
        Box::pin(async move {
            if request.method != "GET" && request.method != "HEAD" {
                return Response::text(405, "GET only\n");
            }
            let Some(page) = page_of(request.path()) else {
                return Response::text(404, "no such page\n");
            };
            if let Page::Style = page {
                let mut r = Response::with(200, "text/css; charset=utf-8", STYLE);
                r.headers
                    .push(("Cache-Control", "public, max-age=86400".into()));
                return r;
            }
            let Some(store) = self.slot.get() else {
                let mut r = Response::text(
                    503,
                    "the relay's store is in use by another command; try again in a moment\n",
                );
                r.headers.push(("Retry-After", "5".into()));
                return r;
            };
            let lang = lang_of(&request, self.config.default_lang);
            let generation = store.generation();
            let etag = format!(
                "\"{}-{}-{}\"",
                generation,
                lang.code(),
                self.config.delay_moves
            );
            if request.if_none_match.as_deref().is_some_and(|t| {
                t.split(',')
                    .any(|t| t.trim().trim_start_matches("W/") == etag)
            }) {
                let mut r = Response::with(304, "text/html; charset=utf-8", "");
                r.headers.push(("ETag", etag));
                return r;
            }
            let now = chrono::Utc::now();
            let key = Key {
                generation,
                lang,
                path: request.path().to_string(),
                day: matches!(page, Page::Game(_))
                    .then(|| now.with_timezone(&self.config.tz).date_naive()),
            };
            let page_of = |r: &Response| {
                let mut r = r.clone();
                if r.status == 200 {
                    r.headers.push(("ETag", etag.clone()));
                    r.headers.push(("Cache-Control", "no-cache".into()));
                }
                r
            };
            if let Some(r) = self.cached(&key) {
                return page_of(&r);
            }
            // A place to build it; meanwhile another request may have built it.
            let Ok(Ok(_place)) =
                tokio::time::timeout(BUILD_WAIT, self.builds.clone().acquire_owned()).await
            else {
                let mut r = Response::text(503, "busy, try again in a moment\n");
                r.headers.push(("Retry-After", "5".into()));
                return r;
            };
            if let Some(r) = self.cached(&key) {
                return page_of(&r);
            }
            let (env, config) = (self.env.clone(), self.config.clone());
            let built = tokio::task::spawn_blocking(move || {
                facts::build(&store, &env, &config, page, lang, now)
            })
            .await;
            let r = match built {
                Ok(r) => Arc::new(r),
                Err(_) => return Response::text(500, "the page could not be built\n"),
            };
            if let Ok(mut cache) = self.cache.lock() {
                if r.status == 200 {
                    cache.put(key, r.clone());
                } else {
                    cache.built += 1;
                }
            }
            page_of(&r)
        })
    }
}

#[cfg(test)]
mod tests;
