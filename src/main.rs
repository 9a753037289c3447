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
    // Two faces: a subcommand for people and scripts, or the engine's protocol loop.
    match cli.command {
        Some(command) => {
            // Subcommands are filters; the protocol loop keeps Rust's default.
            #[cfg(unix)]
            restore_default_sigpipe();
            ExitCode::from(syotti::cli::run(command))
        }
        None => ExitCode::from(syotti::protocol::run_stdio(cli.xboard)),
    }
}
