//! `syotti serve`: the HTTP face (`crate::serve`).

use super::EXIT_BAD_INPUT;

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Port to listen on (0: any free port; the first line printed says which).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on: the default serves this machine only.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// Live analyses running at once at most (one more is refused with 503).
    #[arg(long, default_value_t = 2)]
    pub analyses: usize,
    /// Hash table of each analysis, MiB.
    #[arg(long, default_value_t = 64)]
    pub hash: usize,
    /// Open the page in the desktop's browser once the server listens.
    #[arg(long)]
    pub open: bool,
}

pub fn run(args: &ServeArgs) -> u8 {
    let addr = if args.bind.contains(':') {
        format!("[{}]:{}", args.bind, args.port)
    } else {
        format!("{}:{}", args.bind, args.port)
    };
    if args.analyses == 0 || args.analyses > 64 {
        eprintln!("error: --analyses must be between 1 and 64");
        return EXIT_BAD_INPUT;
    }
    if args.hash == 0 || args.hash > 4096 {
        eprintln!("error: --hash must be between 1 and 4096 MiB");
        return EXIT_BAD_INPUT;
    }
    match crate::serve::run(&addr, args.analyses, args.hash, args.open) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_BAD_INPUT
        }
    }
}
