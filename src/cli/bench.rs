//! `syotti bench [DEPTH]`: the fixed search benchmark; prints `N nodes M nps`.

use crate::bench;

#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Search depth for every position.
    #[arg(default_value_t = bench::DEFAULT_DEPTH, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub depth: u32,
    /// Probe these antichess tablebase folders (changes the node count).
    #[arg(long)]
    pub syzygy: Option<String>,
}

pub fn run(args: &BenchArgs) -> u8 {
    let tables = match super::prove::open_tables(args.syzygy.as_deref()) {
        Ok(tables) => tables,
        Err(code) => return code,
    };
    match bench::run(args.depth, tables.as_ref()) {
        Ok(result) => {
            eprintln!(
                "{} positions ({} of them also under suicide rules), depth {}, {} ms",
                bench::POSITIONS.len(),
                bench::SUICIDE_POSITIONS,
                args.depth,
                result.time.as_millis()
            );
            println!("{} nodes {} nps", result.nodes, result.nps());
            0
        }
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}
