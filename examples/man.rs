//! Writes fernzug's man pages, generated from the same clap definitions the binary parses (so
//! they cannot drift from `--help`): `fernzug.1` and one page per subcommand
//! (`fernzug-tournament-add.1`, …), into DIR (default `target/man`).
//!
//! `cargo run --example man -- DIR`; `scripts/package` runs it, and the .deb installs
//! the pages in /usr/share/man/man1 (`man fernzug`).

use std::path::PathBuf;

use clap::CommandFactory;

fn main() -> std::io::Result<()> {
    let dir = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/man"));
    std::fs::create_dir_all(&dir)?;
    clap_mangen::generate_to(fernzug::cli::Cli::command(), &dir)?;
    let pages = std::fs::read_dir(&dir)?
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "1"))
        .count();
    println!("{pages} man pages in {}", dir.display());
    Ok(())
}
