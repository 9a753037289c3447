//! Alpha-beta search for antichess.
//!
//! One algorithm per file: `iterative` (iterative deepening, root moves, MultiPV, reporting),
//! `alphabeta` (the PVS negamax of the inner nodes), `quiescence` (capture chains), `ordering`
//! (move ordering), `eval` (the hand-made static evaluation), `nnue` (the learned evaluation, on
//! top of `eval`), `tt` (the transposition table), `time` (the clock).
//!
//! The searcher never prints: it reports typed events through a [`Reporter`], which the UCI loop,
//! the command line and the tests implement in their own way.
//!
//! Scores are centipawns from the side to move's point of view. A won game is `MATE - plies` (the
//! winner's pieces all gone, or a stalemate that wins under the active convention), a lost one
//! `-(MATE - plies)`; static evaluations stay within `±EVAL_LIMIT`.

mod alphabeta;
mod context;
pub mod eval;
mod iterative;
pub mod nnue;
mod ordering;
mod quiescence;
pub mod time;
pub mod tt;

use std::{
    sync::atomic::{AtomicBool, AtomicU64, Ordering},
    time::{Duration, Instant},
};

pub use context::Heuristics;
pub use iterative::{search, SearchParams};
use shakmaty::Move;

pub type Score = i32;

/// Deepest ply the search reaches (extensions included).
pub const MAX_PLY: usize = 128;
pub const INFINITY: Score = 32_001;
/// The score of a game won on the spot; a win in `n` plies scores `MATE - n`.
pub const MATE: Score = 32_000;
/// Scores beyond this are forced wins or losses.
pub const MATE_BOUND: Score = MATE - MAX_PLY as Score;
/// Static evaluations are clamped to this.
pub const EVAL_LIMIT: Score = 20_000;
/// A tablebase win without a known distance to the end: `TB_WIN - plies`, beyond any
/// evaluation (Stockfish's convention of scores past ±20000 for tablebase results).
pub const TB_WIN: Score = 25_000;

/// A forced win (positive) or loss (negative) in full moves, if the score is one.
///
/// A game decided `p` plies from now is `(p + 1) / 2` moves away, for wins and losses alike: in
/// antichess a loss can come right after our own move (we capture the opponent's last piece, or
/// leave them stalemated), so unlike chess it can fall on an odd ply.
pub fn mate_moves(score: Score) -> Option<i32> {
    if score > MATE_BOUND {
        Some((MATE - score + 1) / 2)
    } else if score < -MATE_BOUND {
        Some(-((MATE + score + 1) / 2))
    } else {
        None
    }
}

/// How a reported score relates to the true value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    /// The true score is at least this (fail high).
    Lower,
    /// The true score is at most this (fail low).
    Upper,
}

/// A clock as UCI gives it, in the side to move's terms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Clock {
    pub time: Duration,
    pub increment: Duration,
    pub moves_to_go: Option<u32>,
}

/// What bounds a search. Every field left empty is no bound; all empty is an infinite search.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SearchLimits {
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<Duration>,
    /// Look for a forced win in at most this many moves.
    pub mate: Option<u32>,
    pub clock: Option<Clock>,
    /// Search until stopped (`go infinite`); no `bestmove` before `stop`.
    pub infinite: bool,
    /// Ponder: search without time bounds until `ponderhit` or `stop`.
    pub ponder: bool,
    /// Restrict the root to these moves (empty: all legal moves).
    pub searchmoves: Vec<Move>,
    /// Time this move already took off the clock before this search (the root proof scan):
    /// the clock's budget for the move is cut by it.
    pub spent: Duration,
}

impl SearchLimits {
    /// Whether `searchmoves` lets the root play `m`.
    pub fn allows(&self, m: &Move) -> bool {
        self.searchmoves.is_empty() || self.searchmoves.contains(m)
    }
}

/// One line of search output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchInfo {
    pub depth: u32,
    pub seldepth: u32,
    pub multipv: usize,
    pub score: Score,
    pub bound: Bound,
    pub nodes: u64,
    pub nps: u64,
    /// Per mille of the transposition table in use.
    pub hashfull: u32,
    pub time: Duration,
    pub pv: Vec<Move>,
    /// Tablebase probes that found an answer.
    pub tbhits: u64,
}

/// Where the search sends what it finds.
pub trait Reporter: Send + Sync {
    /// A finished (or interrupted, then with a bound) line of the iteration.
    fn info(&self, info: &SearchInfo);
    /// The root move being searched, on long searches.
    fn current_move(&self, depth: u32, m: Move, number: usize);
    /// A free-form message (`info string` in UCI).
    fn message(&self, text: &str);
    /// The final choice; `None` when the position has no legal move.
    fn best_move(&self, best: Option<Move>, ponder: Option<Move>);
}

/// A reporter that keeps nothing, for benches and internal searches.
pub struct SilentReporter;

impl Reporter for SilentReporter {
    fn info(&self, _: &SearchInfo) {}
    fn current_move(&self, _: u32, _: Move, _: usize) {}
    fn message(&self, _: &str) {}
    fn best_move(&self, _: Option<Move>, _: Option<Move>) {}
}

/// Flags shared between a running search and whoever controls it (the UCI loop).
#[derive(Debug)]
pub struct SearchControl {
    stop: AtomicBool,
    /// Set by `stop` and by `ponderhit`: the root proof scan, which runs during a ponder search
    /// on a time of its own, must end when the engine's clock starts running.
    scan_stop: AtomicBool,
    pondering: AtomicBool,
    /// Milliseconds after `epoch` at which `ponderhit` arrived (0: not yet).
    ponderhit_at: AtomicU64,
    epoch: Instant,
}

impl Default for SearchControl {
    fn default() -> Self {
        SearchControl::new(false)
    }
}

impl SearchControl {
    pub fn new(pondering: bool) -> SearchControl {
        SearchControl {
            stop: AtomicBool::new(false),
            scan_stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            ponderhit_at: AtomicU64::new(0),
            epoch: Instant::now(),
        }
    }

    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
        self.scan_stop.store(true, Ordering::Release);
    }

    /// The flag the root proof scan polls: raised by `stop` and by `ponderhit`.
    pub fn scan_stop_flag(&self) -> &AtomicBool {
        &self.scan_stop
    }

    pub fn is_stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }

    /// The opponent played the move we pondered on: from now on the clock counts.
    pub fn ponderhit(&self) {
        let ms = self.epoch.elapsed().as_millis() as u64;
        self.ponderhit_at.store(ms.max(1), Ordering::Release);
        self.pondering.store(false, Ordering::Release);
        self.scan_stop.store(true, Ordering::Release);
    }

    pub fn is_pondering(&self) -> bool {
        self.pondering.load(Ordering::Acquire)
    }

    /// When our own clock started running: the search start, or `ponderhit`.
    pub fn clock_start(&self, search_start: Instant) -> Instant {
        match self.ponderhit_at.load(Ordering::Acquire) {
            0 => search_start,
            ms => (self.epoch + Duration::from_millis(ms)).max(search_start),
        }
    }
}

/// What a finished search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchResult {
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    pub score: Score,
    pub depth: u32,
    pub nodes: u64,
    pub pv: Vec<Move>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mate_scores_convert_to_moves() {
        assert_eq!(mate_moves(MATE - 1), Some(1));
        assert_eq!(mate_moves(MATE - 2), Some(1));
        assert_eq!(mate_moves(MATE - 14), Some(7));
        assert_eq!(mate_moves(-(MATE - 2)), Some(-1));
        assert_eq!(mate_moves(-(MATE - 13)), Some(-7));
        assert_eq!(mate_moves(-(MATE - 1)), Some(-1));
        assert_eq!(mate_moves(EVAL_LIMIT), None);
        assert_eq!(mate_moves(0), None);
    }
}
