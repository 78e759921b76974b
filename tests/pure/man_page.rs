//! The command line and its man page (`examples/man.rs`, installed by the .deb): clap's own
//! consistency checks, and a page that names every command, what the exit statuses mean and no
//! file a user of the package does not have.

use clap::CommandFactory;
use fernzug::cli::Cli;

fn page(cmd: clap::Command) -> String {
    let mut out = Vec::new();
    clap_mangen::Man::new(cmd).render(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// The pages as `examples/man.rs` writes them (clap_mangen::generate_to), by file name.
fn pages() -> Vec<(String, String)> {
    let dir = std::env::temp_dir().join(format!("fernzug-man-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    clap_mangen::generate_to(Cli::command(), &dir).unwrap();
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let text = std::fs::read_to_string(e.path()).unwrap();
            (e.file_name().to_string_lossy().into_owned(), text)
        })
        .collect();
    std::fs::remove_dir_all(&dir).unwrap();
    out.sort();
    out
}

#[test]
fn the_command_line_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn the_man_page_names_every_command_and_the_exit_statuses() {
    let cmd = Cli::command();
    let man = page(cmd.clone());
    for sub in [
        "run",
        "check",
        "once",
        "tournament",
        "status",
        "export",
        "verify",
    ] {
        assert!(
            man.contains(&format!("fernzug\\-{sub}")) || man.contains(&format!("\\fB{sub}\\fR")),
            "`{sub}` is missing from fernzug.1:\n{man}"
        );
    }
    assert!(man.contains("EXIT STATUS"), "{man}");
    assert!(man.contains("/etc/fernzug/fernzug.toml"), "{man}");
    // A page for every command, down to `tournament add`, under the name man(1) looks up; none
    // names a file a user of the package does not have.
    let pages = pages();
    let names: Vec<&str> = pages.iter().map(|(n, _)| n.as_str()).collect();
    for name in [
        "fernzug.1",
        "fernzug-run.1",
        "fernzug-check.1",
        "fernzug-once.1",
        "fernzug-tournament-add.1",
        "fernzug-status.1",
        "fernzug-export-pgn.1",
        "fernzug-export-mbox.1",
        "fernzug-verify.1",
    ] {
        assert!(names.contains(&name), "no {name} among {names:?}");
    }
    for (name, text) in &pages {
        for unknown in ["CONTRACT.md", "RULES.md", "design-review"] {
            assert!(!text.contains(unknown), "{name} names {unknown}");
        }
    }
    let add = &pages
        .iter()
        .find(|(n, _)| n == "fernzug-tournament-add.1")
        .unwrap()
        .1;
    assert!(add.contains("tournament file"), "{add}");
}
