//! `syotti openings`: balanced opening positions for matches, made with the engine itself.
//!
//! Each candidate is the start position after a few random legal plies (seeded); it is kept when
//! the game is not over, no book or proof decides it, a search of `--nodes` scores it within
//! `--margin` centipawns of even, and it is in none of the `--exclude` files (compared by the four
//! fields of an EPD position: placement, side to move, castling, en passant). The output is EPD,
//! one position a line, written as found (a progress line goes to standard error every
//! ten); the same arguments give the same file.

use std::{collections::HashSet, io::Write, path::PathBuf, sync::Mutex};

use super::{create_output, RulesArgs, EXIT_BAD_INPUT};
use crate::{
    engine::{run_search, SearchRequest},
    proof::{book::ProofBook, memory::ProofMemory},
    rules::{hash, notation, Game},
    search::{
        mate_moves, tt::TranspositionTable, Heuristics, SearchControl, SearchLimits, SilentReporter,
    },
    train::Rng,
};

#[derive(Debug, clap::Args)]
pub struct OpeningsArgs {
    /// How many positions to write.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub count: u32,
    /// Fewest random plies from the start position.
    #[arg(long, default_value_t = 2)]
    pub min_plies: u32,
    /// Most random plies from the start position.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(1..=40))]
    pub max_plies: u32,
    /// Nodes of the balance search.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: u64,
    /// Keep a position only when the search scores it within this many centipawns of even.
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(i32).range(0..=10_000))]
    pub margin: i32,
    /// EPD files whose positions must not be chosen (repeatable).
    #[arg(long)]
    pub exclude: Vec<PathBuf>,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Where to write the positions (default: standard output).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// A progress line on standard error after this many positions (a deep filter takes about a
/// second a try at 4,000,000 nodes, and about one try in nine is kept).
const PROGRESS_EVERY: u32 = 10;

/// The four fields that identify an EPD position.
fn epd_key(line: &str) -> Option<String> {
    let fields: Vec<&str> = line.split_whitespace().take(4).collect();
    (fields.len() == 4 && !line.trim_start().starts_with('#')).then(|| fields.join(" "))
}

pub fn run(args: &OpeningsArgs) -> u8 {
    if args.min_plies > args.max_plies {
        eprintln!("error: --min-plies must not exceed --max-plies");
        return EXIT_BAD_INPUT;
    }
    let mut seen = HashSet::new();
    for path in &args.exclude {
        match std::fs::read_to_string(path) {
            Ok(text) => seen.extend(text.lines().filter_map(epd_key)),
            Err(e) => {
                eprintln!("error: cannot read {}: {e}", path.display());
                return EXIT_BAD_INPUT;
            }
        }
    }
    let tt = match TranspositionTable::try_new(64, 0) {
        Ok(tt) => tt,
        Err(e) => {
            eprintln!("error: cannot allocate the hash table: {}", e.reason);
            return EXIT_BAD_INPUT;
        }
    };
    let mut out: Box<dyn Write> = match &args.out {
        Some(path) => match create_output(path) {
            Ok(out) => out,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_BAD_INPUT;
            }
        },
        None => Box::new(std::io::stdout()),
    };
    let rule = args.rules.rule();
    let network = crate::search::nnue::embedded();
    let books: Vec<_> = ProofBook::embedded().into_iter().collect();
    let mut rng = Rng::new(args.seed);
    let (mut written, mut tried) = (0, 0u64);
    // Many more tries than positions asked for would mean the margin cannot be met.
    let max_tries = u64::from(args.count) * 200;
    while written < args.count && tried < max_tries {
        tried += 1;
        let span = (args.max_plies - args.min_plies + 1) as usize;
        let plies = args.min_plies as usize + rng.below(span);
        let mut game = Game::new(rule);
        for _ in 0..plies {
            let moves = game.legal_moves();
            if moves.is_empty() || game.outcome().is_some() {
                break;
            }
            game.push(moves[rng.below(moves.len())]);
        }
        if game.outcome().is_some() {
            continue;
        }
        let fen = notation::to_fen(game.position());
        let Some(key) = epd_key(&fen) else { continue };
        if !seen.insert(key.clone()) {
            continue;
        }
        tt.clear();
        let request = SearchRequest {
            history: vec![hash::key(game.position())],
            books: books.clone(),
            network: network.clone(),
            ..SearchRequest::analysis(
                &game,
                SearchLimits {
                    nodes: Some(args.nodes),
                    ..SearchLimits::default()
                },
            )
        };
        let result = run_search(
            &request,
            &tt,
            &Mutex::new(ProofMemory::default()),
            &Mutex::new(Heuristics::default()),
            &SearchControl::default(),
            &SilentReporter,
        );
        if mate_moves(result.score).is_some() || result.score.abs() > args.margin {
            continue;
        }
        // Each position is flushed as it is found, so that a long run's file grows as it goes
        // and an interrupted run keeps what it found.
        if let Err(e) = writeln!(out, "{key}").and_then(|()| out.flush()) {
            eprintln!("error: cannot write: {e}");
            return 1;
        }
        written += 1;
        if written % PROGRESS_EVERY == 0 && written < args.count {
            eprintln!("{written} of {} positions from {tried} tries", args.count);
        }
    }
    eprintln!("{written} positions from {tried} tries");
    if written < args.count {
        eprintln!("error: only {written} of {} positions found", args.count);
        return 1;
    }
    0
}
