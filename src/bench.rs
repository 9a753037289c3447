//! The bench: a fixed set of positions searched to a fixed depth with fresh state each time.
//!
//! Its node count is the functional fingerprint of a build: any change to what the search does
//! changes it, so every such commit records `Bench: N`. Same binary, same count, always.
//! The openings are searched under suicide rules too (fewer pieces wins a stalemate), since that
//! convention has its own evaluation head and search settings: a change to either moves the count.

use std::time::{Duration, Instant};

use crate::{
    rules::{hash, parse_fen, FenError, StalemateRule},
    search::{
        search, tt::TranspositionTable, SearchControl, SearchLimits, SearchParams, SilentReporter,
    },
    tablebase::Tablebases,
};

pub const DEFAULT_DEPTH: u32 = 9;
const BENCH_HASH_MB: usize = 16;

/// Openings, capture chains, endgames with few pieces, and stalemate wins.
/// The first `SUICIDE_POSITIONS` (the openings) are searched again under suicide rules.
pub const POSITIONS: [&str; 16] = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    "rnbqkbnr/p1pppppp/8/1p6/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2",
    "rnbqkbnr/pppp1ppp/8/4p3/8/1P6/P1PPPPPP/RNBQKBNR w - - 0 2",
    "rnbqkb1r/pp1ppppR/2p5/8/6P1/8/PPPPPP2/RNBQKBN1 b - - 0 1",
    "rnbqk2r/pppp1p1p/3b3p/4P3/4P3/8/PPP2PPP/RN1QKBNR w - - 0 1",
    "rn1qkb1r/ppp1pppp/3p3n/5b2/8/4PN1P/PPPPBPP1/RNBQK2R b - - 0 1",
    "r1bqkbnr/pppppppp/2n5/8/8/2N5/PPPPPPPP/R1BQKBNR w - - 2 2",
    "rnb1kbnr/ppp1pppp/8/8/8/8/PPP1PPPP/RNB1KBNR w - - 0 4",
    "8/8/p7/8/8/8/7P/8 w - - 0 1",
    "8/5P2/8/2r5/8/8/8/8 w - - 0 1",
    "8/8/8/8/8/8/8/3K2b1 b - - 0 1",
    "2q5/3k4/8/8/8/5K2/8/8 w - - 0 1",
    "3n4/8/1k6/8/8/8/8/1B6 w - - 0 1",
    "8/2p5/8/8/8/8/P7/8 w - - 0 1",
    "8/8/8/p6p/8/P6P/8/8 w - - 0 1",
    "8/1p6/2p5/8/8/5P2/6P1/8 w - - 0 1",
];

/// How many of `POSITIONS`, from the first, are also searched under suicide rules.
pub const SUICIDE_POSITIONS: usize = 8;

/// The searches of a bench: every position under the default rules, then the openings under
/// suicide rules.
pub fn searches() -> impl Iterator<Item = (&'static str, StalemateRule)> {
    let standard = POSITIONS.iter().map(|&fen| (fen, StalemateRule::default()));
    let suicide = POSITIONS[..SUICIDE_POSITIONS]
        .iter()
        .map(|&fen| (fen, StalemateRule::FewerPiecesWins));
    standard.chain(suicide)
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchResult {
    pub nodes: u64,
    pub time: Duration,
}

impl BenchResult {
    pub fn nps(&self) -> u64 {
        (self.nodes as u128 * 1000 / self.time.as_millis().max(1)) as u64
    }
}

/// Runs every bench search (`searches`) to `depth`, one thread, a cleared table for each; with
/// `tables`, probing them (which changes the node count: the fingerprint is without tables).
pub fn run(depth: u32, tables: Option<&Tablebases>) -> Result<BenchResult, FenError> {
    let tt = TranspositionTable::new(BENCH_HASH_MB);
    let limits = SearchLimits {
        depth: Some(depth),
        ..SearchLimits::default()
    };
    let start = Instant::now();
    let mut nodes = 0;
    for (fen, rule) in searches() {
        let pos = parse_fen(fen)?;
        tt.clear();
        let history = [hash::key(&pos)];
        let params = SearchParams {
            tablebases: tables,
            probe_limit: 7,
            ..SearchParams::new(rule, &history)
        };
        let control = SearchControl::default();
        nodes += search(&pos, &params, &limits, &tt, &control, &SilentReporter).nodes;
    }
    Ok(BenchResult {
        nodes,
        time: start.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use shakmaty::Position;

    use super::*;

    #[test]
    fn every_position_once_and_the_openings_again_under_suicide_rules() {
        let all: Vec<_> = searches().collect();
        assert_eq!(all.len(), POSITIONS.len() + SUICIDE_POSITIONS);
        let suicide: Vec<_> = all
            .iter()
            .filter(|(_, rule)| *rule == StalemateRule::FewerPiecesWins)
            .map(|(fen, _)| *fen)
            .collect();
        assert_eq!(suicide, POSITIONS[..SUICIDE_POSITIONS]);
        // They are the openings: at least 28 of the 32 pieces still on the board.
        for fen in suicide {
            let pieces = parse_fen(fen)
                .expect("a bench FEN")
                .board()
                .occupied()
                .count();
            assert!(pieces >= 28, "{fen}: {pieces} pieces");
        }
    }
}
