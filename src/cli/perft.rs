//! `syotti perft`: leaf counts, per root move with `--divide`, with time and speed.

use std::time::Instant;

use crate::rules::{movegen, notation, START_FEN};

#[derive(Debug, clap::Args)]
pub struct PerftArgs {
    /// Depth in plies.
    pub depth: u32,
    /// Position to start from (default: the antichess start position).
    #[arg(long, default_value = START_FEN)]
    pub fen: String,
    /// Print the count below each legal move first.
    #[arg(long)]
    pub divide: bool,
}

pub fn run(args: &PerftArgs) -> u8 {
    let pos = match notation::parse_fen(&args.fen) {
        Ok(pos) => pos,
        Err(e) => {
            eprintln!("error: {e}");
            return super::EXIT_BAD_INPUT;
        }
    };
    let start = Instant::now();
    let nodes = if args.divide {
        let mut divided = movegen::perft_divide(&pos, args.depth);
        divided.sort_by_key(|(m, _)| notation::uci(*m));
        for (m, count) in &divided {
            println!("{}: {count}", notation::uci(*m));
        }
        println!();
        divided.iter().map(|(_, n)| n).sum()
    } else {
        movegen::perft(&pos, args.depth)
    };
    let elapsed = start.elapsed();
    let nps = nodes as f64 / elapsed.as_secs_f64().max(1e-9);
    println!("nodes {nodes}");
    println!("time {} ms", elapsed.as_millis());
    println!("nps {}", nps.round() as u64);
    0
}
