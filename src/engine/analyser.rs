//! Analysis of one position after another on the calling thread (a game's moves, a list of
//! positions): the searches share one transposition table, the proofs found so far and the
//! move-ordering statistics, as the searches of one game do in `Engine`. Used by `syotti analyse`
//! and by the server's evaluation graph.

use std::{sync::Mutex, time::Duration};

use shakmaty::Move;

use super::{run_search, SearchRequest};
use crate::proof::memory::ProofMemory;
use crate::{
    memory::AllocError,
    search::{tt::TranspositionTable, Heuristics, Reporter, Score, SearchControl, SearchInfo},
};

/// What one search found.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub best: Option<Move>,
    /// The side to move's view.
    pub score: Score,
    /// The last iteration's lines, by MultiPV rank.
    pub lines: Vec<SearchInfo>,
    pub depth: u32,
    pub nodes: u64,
    pub time: Duration,
    /// The answer is a proof's (a book, a proof scan, a proof found earlier).
    pub proved: bool,
}

/// Keeps what a search reports.
#[derive(Default)]
struct Collect {
    infos: Mutex<Vec<SearchInfo>>,
    proved: Mutex<bool>,
}

impl Reporter for Collect {
    fn info(&self, info: &SearchInfo) {
        if let Ok(mut infos) = self.infos.lock() {
            infos.push(info.clone());
        }
    }
    fn current_move(&self, _: u32, _: Move, _: usize) {}
    fn message(&self, text: &str) {
        if text.contains("forced win") || text.contains("proven win") {
            if let Ok(mut proved) = self.proved.lock() {
                *proved = true;
            }
        }
    }
    fn best_move(&self, _: Option<Move>, _: Option<Move>) {}
}

pub struct Analyser {
    tt: TranspositionTable,
    proven: Mutex<ProofMemory>,
    heuristics: Mutex<Heuristics>,
}

impl Analyser {
    /// An analyser with a table of `hash_mb` MiB, or why the machine cannot give it.
    pub fn new(hash_mb: usize) -> Result<Analyser, AllocError> {
        Ok(Analyser {
            tt: TranspositionTable::try_new(hash_mb, 0)?,
            proven: Mutex::default(),
            heuristics: Mutex::default(),
        })
    }

    /// Searches `request` to its limits (or until `control` stops it).
    pub fn search(&self, request: &SearchRequest, control: &SearchControl) -> Analysis {
        let collect = Collect::default();
        let result = run_search(
            request,
            &self.tt,
            &self.proven,
            &self.heuristics,
            control,
            &collect,
        );
        let infos = collect.infos.into_inner().unwrap_or_default();
        let last_depth = infos.last().map_or(0, |i| i.depth);
        let mut lines: Vec<SearchInfo> = infos
            .into_iter()
            .filter(|i| i.depth == last_depth)
            .collect();
        lines.sort_by_key(|i| i.multipv);
        lines.dedup_by_key(|i| i.multipv);
        Analysis {
            best: result.best,
            score: result.score,
            depth: result.depth,
            nodes: result.nodes,
            time: lines.first().map_or(Duration::ZERO, |i| i.time),
            lines,
            proved: collect.proved.into_inner().unwrap_or(false),
        }
    }
}
