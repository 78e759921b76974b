//! What a path asks for ([`Page`]), and what the pages need of the relay's configuration
//! ([`PagesConfig`]).

use std::path::PathBuf;

use crate::lang::Lang;

/// What the pages need of the relay's configuration.
#[derive(Clone)]
pub struct PagesConfig {
    pub relay_name: String,
    pub tz: chrono_tz::Tz,
    pub default_lang: Lang,
    /// `[http] delay_moves`.
    pub delay_moves: u32,
    /// `[relay] templates_dir`: an operator's `web/de/…`, `web/en/…` override the built-in.
    pub templates_dir: Option<PathBuf>,
}

/// What a path asks for.
pub(super) enum Page {
    Index,
    Style,
    Tournament(String),
    Pgn(String),
    Game(crate::game_ref::GameRef),
}

/// The page `path` asks for, if any.
pub(super) fn page_of(path: &str) -> Option<Page> {
    match path {
        "/" => return Some(Page::Index),
        "/style.css" => return Some(Page::Style),
        _ => {}
    }
    if let Some(id) = path.strip_prefix("/t/") {
        return match id.strip_suffix(".pgn") {
            Some(id) if crate::game_ref::valid_tournament_id(id) => Some(Page::Pgn(id.into())),
            None if crate::game_ref::valid_tournament_id(id) => Some(Page::Tournament(id.into())),
            _ => None,
        };
    }
    path.strip_prefix("/g/")
        .and_then(|g| g.parse().ok())
        .map(Page::Game)
}
