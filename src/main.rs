use std::process::ExitCode;

use clap::Parser;

#[cfg(unix)]
fn restore_default_sigpipe() {
    extern "C" {
        fn signal(signum: i32, handler: usize) -> usize;
    }
    const SIGPIPE: i32 = 13;
    const SIG_DFL: usize = 0;
    // SAFETY: resetting a signal's disposition to the default has no preconditions; it only
    // makes `syotti perft ... | head` end quietly instead of panicking on a closed pipe.
    unsafe {
        signal(SIGPIPE, SIG_DFL);
    }
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let cli = syotti::cli::Cli::parse();
    // Subcommands are filters for people and scripts; the UCI loop keeps Rust's default.
    #[cfg(unix)]
    if cli.command.is_some() {
        restore_default_sigpipe();
    }
    ExitCode::from(syotti::cli::run(cli))
}
