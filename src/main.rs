#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    fernzug::cli::main()
}
