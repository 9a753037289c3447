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
}

pub fn run(args: &ServeArgs) -> u8 {
    let addr = if args.bind.contains(':') {
        format!("[{}]:{}", args.bind, args.port)
    } else {
        format!("{}:{}", args.bind, args.port)
    };
    match crate::serve::run(&addr) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_BAD_INPUT
        }
    }
}
