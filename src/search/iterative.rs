//! Iterative deepening at the root: one full-width search per depth, MultiPV lines, `searchmoves`,
//! the time checks between iterations, and the reports.
//!
//! Root moves keep their score from the last completed iteration and are searched best first.
//! MultiPV line k searches the root moves not already chosen for lines 1..k, as Stockfish does.
//! From depth 5 each line is searched in an aspiration window around its last score, widened on
//! the failing side until the score falls inside.
//! An iteration cut short by `stop` or the clock is thrown away, except that a root move which
//! completed with a better score than the previous best is kept as the best move.

use std::time::Duration;

use shakmaty::{variant::Antichess, Move, Position};

use super::{
    context::{Heuristics, SearchContext},
    ordering::{score_moves, Offers},
    time,
    tt::TranspositionTable,
    Bound, Reporter, Score, SearchControl, SearchInfo, SearchLimits, SearchResult, EVAL_LIMIT,
    INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN,
};
use shakmaty_syzygy::Wdl;

use std::sync::{Arc, Mutex};

use super::nnue::{self, Network};
use crate::{
    rules::{hash, StalemateRule},
    tablebase::{RankedMove, Tablebases},
};

/// After this long, the root move being searched is reported.
const CURRMOVE_AFTER: Duration = Duration::from_secs(3);

/// What the search needs to know about the game besides the position and the limits.
#[derive(Clone, Debug)]
pub struct SearchParams<'a> {
    pub rule: StalemateRule,
    /// Keys of the positions of the game, the root position last (for repetitions).
    pub history: &'a [u64],
    pub multipv: usize,
    pub move_overhead: Duration,
    /// A Lazy SMP helper: shares the table with the main search and does not age it.
    pub helper: bool,
    /// Which helper (1, 2, ...; 0 for the main search): helpers skip some depths, each in its own
    /// pattern (`skips_depth`), so that they run ahead of the main search instead of beside it.
    pub helper_index: usize,
    pub tablebases: Option<&'a Tablebases>,
    /// Probe positions with at most this many pieces.
    pub probe_limit: usize,
    /// Cursed wins and blessed losses count as draws.
    pub rule50: bool,
    /// Centipawns a draw costs the side to move at the root (0: a draw is worth 0).
    pub contempt: Score,
    /// The evaluation network; `None` evaluates with the hand-made linear evaluation.
    pub network: Option<Arc<Network>>,
    /// The game's move-ordering statistics: the search starts from a copy and (unless it is a
    /// helper) leaves what it learnt there. `None`: fresh ones, forgotten afterwards.
    pub heuristics: Option<&'a Mutex<Heuristics>>,
}

impl<'a> SearchParams<'a> {
    /// One line, no overhead, no tables: the parameters of an analysis or a test search.
    pub fn new(rule: StalemateRule, history: &'a [u64]) -> SearchParams<'a> {
        SearchParams {
            rule,
            history,
            multipv: 1,
            move_overhead: Duration::ZERO,
            helper: false,
            helper_index: 0,
            tablebases: None,
            probe_limit: 0,
            rule50: true,
            contempt: 0,
            network: nnue::embedded(),
            heuristics: None,
        }
    }
}

#[derive(Clone, Debug)]
struct RootMove {
    m: Move,
    score: Score,
    previous_score: Score,
    pv: Vec<Move>,
    seldepth: usize,
}

fn sort_root(moves: &mut [RootMove]) {
    moves.sort_by_key(|rm| std::cmp::Reverse((rm.score, rm.previous_score)));
}

/// Searches `root` within `limits` and returns the best move found.
///
/// Prints nothing: every iteration goes to `reporter.info`; the caller reports the best move.
pub fn search(
    root: &Antichess,
    params: &SearchParams,
    limits: &SearchLimits,
    tt: &TranspositionTable,
    control: &SearchControl,
    reporter: &dyn Reporter,
) -> SearchResult {
    if !params.helper {
        tt.new_search();
    }
    let mut history = params.history.to_vec();
    let root_key = hash::key(root);
    if history.last() != Some(&root_key) {
        history.push(root_key);
    }
    let mut ctx = SearchContext::new(tt, control, params.rule, &history);
    ctx.node_limit = limits.nodes;
    ctx.tablebases = params.tablebases;
    ctx.probe_limit = params.probe_limit;
    ctx.rule50 = params.rule50;
    ctx.contempt = params.contempt;
    ctx.root_turn = root.turn();
    if let Some(net) = &params.network {
        ctx.use_network(net.clone(), root);
    }
    ctx.tb_hits_before = params.tablebases.map_or(0, Tablebases::hits);
    if let Some(shared) = params.heuristics {
        // A poisoned lock (a search that panicked) leaves statistics that are still only
        // ordering hints: use them.
        ctx.heuristics = shared.lock().unwrap_or_else(|e| e.into_inner()).clone();
    }

    let legal = root.legal_moves();
    let allowed: Vec<Move> = legal.iter().copied().filter(|m| limits.allows(m)).collect();
    let allowed = if allowed.is_empty() {
        legal.to_vec()
    } else {
        allowed
    };
    // In the tables: a decided root is answered from them (the DTZ-best move of the best
    // result); a drawn one is searched among its drawing moves only.
    let ranked = params
        .tablebases
        .and_then(|tb| tb.rank_root(root, params.rule, params.probe_limit))
        .map(|ranked| {
            ranked
                .into_iter()
                .filter(|r| allowed.contains(&r.m))
                .collect::<Vec<_>>()
        });
    // A drawn root is reported as the draw it is; the search only chooses among the drawing moves.
    let table_draw =
        matches!(ranked.as_deref(), Some([best, ..]) if table_score(best, params.rule50).is_none());
    let allowed = match ranked.as_deref() {
        Some([best, ..]) => {
            if let Some(score) = table_score(best, params.rule50) {
                let elapsed = ctx.start.elapsed();
                reporter.info(&SearchInfo {
                    depth: 1,
                    seldepth: 1,
                    multipv: 1,
                    score,
                    bound: Bound::Exact,
                    nodes: 1,
                    nps: 0,
                    hashfull: tt.hashfull(),
                    time: elapsed,
                    pv: vec![best.m],
                    tbhits: ctx.tb_hits(),
                });
                return SearchResult {
                    best: Some(best.m),
                    ponder: None,
                    score,
                    depth: 1,
                    nodes: 1,
                    pv: vec![best.m],
                };
            }
            ranked
                .iter()
                .flatten()
                .filter(|r| r.wdl == best.wdl)
                .map(|r| r.m)
                .collect()
        }
        _ => allowed,
    };
    if allowed.is_empty() {
        let score = ctx.terminal_score(root, &legal, 0).unwrap_or(0);
        return SearchResult {
            best: None,
            ponder: None,
            score,
            depth: 0,
            nodes: 0,
            pv: Vec::new(),
        };
    }

    // Initial order: the table's move and the static ordering.
    let tt_move = ctx.tt_move(&allowed, root_key);
    let mut scored = Vec::new();
    let offers = Offers::new(root, &allowed);
    score_moves(&ctx, root, &allowed, tt_move, &offers, 0, &mut scored);
    scored.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
    let mut root_moves: Vec<RootMove> = scored
        .into_iter()
        .map(|(m, _)| RootMove {
            m,
            score: -INFINITY,
            previous_score: -INFINITY,
            pv: vec![m],
            seldepth: 0,
        })
        .collect();

    // A forced move under a clock gets a short search (see `TimeBudget::forced`).
    let budget = time::budget(limits, params.move_overhead).map(|b| {
        if root_moves.len() == 1 {
            b.forced()
        } else {
            b
        }
    });
    ctx.hard_limit = budget.map(|b| b.hard);
    let lines = params.multipv.clamp(1, root_moves.len());
    let max_depth = limits.depth.map_or(MAX_PLY as i32 - 1, |d| {
        d.clamp(1, MAX_PLY as u32 - 1) as i32
    });
    let mate_target = limits.mate.map(|n| MATE - 2 * n as Score);
    let mut completed_depth = 0;
    let mut previous_best = None;
    let mut previous_score = None;
    let mut stable_iterations = 0u32;

    for depth in 1..=max_depth {
        if params.helper && skips_depth(params.helper_index, depth) && depth < max_depth {
            continue;
        }
        ctx.root_depth = depth;
        let snapshot = root_moves.clone();
        for rm in &mut root_moves {
            rm.previous_score = rm.score;
            rm.score = -INFINITY;
        }
        let mut interrupted_line = None;
        for line in 0..lines {
            aspiration_search(&mut ctx, root, &mut root_moves, line, depth, reporter);
            if ctx.stopped {
                interrupted_line = Some(line);
                break;
            }
            root_moves[line..].sort_by_key(|rm| std::cmp::Reverse(rm.score));
        }

        if let Some(line) = interrupted_line {
            // Keep a better first move found before the interruption; else the last iteration.
            let improved = line == 0
                && root_moves.iter().any(|rm| {
                    rm.score > -INFINITY
                        && rm.score > snapshot[0].previous_score.max(snapshot[0].score)
                });
            if improved {
                sort_root(&mut root_moves);
                report(
                    &ctx,
                    &root_moves,
                    1,
                    depth as u32,
                    Bound::Lower,
                    table_draw,
                    reporter,
                );
            } else {
                root_moves = snapshot;
            }
            break;
        }

        sort_root(&mut root_moves[..lines]);
        completed_depth = depth as u32;
        report(
            &ctx,
            &root_moves,
            lines,
            completed_depth,
            Bound::Exact,
            table_draw,
            reporter,
        );

        let best = root_moves[0].score;
        if mate_target.is_some_and(|target| best >= target) {
            break;
        }
        // A proven result cannot change with more depth once the search has seen past it.
        if best.abs() > MATE_BOUND && depth > MATE - best.abs() + 1 && lines == 1 {
            break;
        }
        // How many iterations in a row chose this move, and how the score moved.
        if previous_best == Some(root_moves[0].m) {
            stable_iterations += 1;
        } else {
            stable_iterations = 0;
        }
        previous_best = Some(root_moves[0].m);
        let score_drop = previous_score.map_or(0, |p: Score| p - best);
        previous_score = Some(best);
        if let Some(b) = budget {
            let elapsed = control.clock_start(ctx.start).elapsed();
            if !control.is_pondering()
                && elapsed >= b.soft.mul_f64(time::scale(stable_iterations, score_drop))
            {
                break;
            }
        }
        if control.is_stopped() {
            break;
        }
    }

    if let (Some(shared), false) = (params.heuristics, params.helper) {
        *shared.lock().unwrap_or_else(|e| e.into_inner()) = ctx.heuristics;
    }
    let best = &root_moves[0];
    SearchResult {
        best: Some(best.m),
        ponder: best.pv.get(1).copied(),
        score: shown_score(best, table_draw, ctx.contempt),
        depth: completed_depth,
        nodes: ctx.nodes,
        pv: best.pv.clone(),
    }
}

/// Lazy SMP depth staggering (the pattern Stockfish used before its threads learnt to vote):
/// helper `i` searches depths in runs of `SKIP_SIZE[i]`, offset by `SKIP_PHASE[i]`, skipping
/// every other run. Helper 1 searches the odd depths only, so while the main search completes
/// depth d it fills the table at depth d + 1; more helpers spread over wider patterns.
const SKIP_SIZE: [i32; 20] = [1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4];
const SKIP_PHASE: [i32; 20] = [0, 1, 0, 1, 2, 3, 0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, 6, 7];

/// Whether helper `index` leaves out `depth` (never the main search, index 0).
fn skips_depth(index: usize, depth: i32) -> bool {
    if index == 0 {
        return false;
    }
    let i = index % SKIP_SIZE.len();
    ((depth + SKIP_PHASE[i]) / SKIP_SIZE[i]) % 2 != 0
}

/// Half-width of the first aspiration window, in centipawns.
const ASPIRATION_WINDOW: Score = 30;
/// Depth from which aspiration windows are used.
const ASPIRATION_DEPTH: i32 = 5;

/// Searches MultiPV line `line` in a window around its last score, widening the window on the
/// side that fails until the score falls inside it (or the window is the full range).
fn aspiration_search(
    ctx: &mut SearchContext,
    root: &Antichess,
    root_moves: &mut [RootMove],
    line: usize,
    depth: i32,
    reporter: &dyn Reporter,
) {
    let previous = root_moves[line].previous_score;
    let mut delta = ASPIRATION_WINDOW;
    let (mut alpha, mut beta) =
        if depth >= ASPIRATION_DEPTH && previous > -INFINITY && previous.abs() < EVAL_LIMIT {
            (previous - delta, previous + delta)
        } else {
            (-INFINITY, INFINITY)
        };
    loop {
        ctx.seldepth = 0;
        let best = search_line(ctx, root, root_moves, line, depth, alpha, beta, reporter);
        if ctx.stopped {
            return;
        }
        if best <= alpha && alpha > -INFINITY {
            beta = (alpha + beta) / 2;
            alpha = (best - delta).max(-INFINITY);
        } else if best >= beta && beta < INFINITY {
            beta = (best + delta).min(INFINITY);
        } else {
            return;
        }
        for rm in root_moves[line..].iter_mut() {
            rm.score = -INFINITY;
        }
        delta *= 2;
        if delta > 4 * EVAL_LIMIT / 10 {
            alpha = -INFINITY;
            beta = INFINITY;
        }
    }
}

/// Searches MultiPV line `line` (root moves `line..`) to `depth` within (`alpha`, `beta`),
/// updating the scores and PVs of the moves that beat alpha; returns the best score (at most
/// `alpha` on a fail low, at least `beta` on a fail high).
#[expect(
    clippy::too_many_arguments,
    reason = "the root search's whole state, passed once"
)]
fn search_line(
    ctx: &mut SearchContext,
    root: &Antichess,
    root_moves: &mut [RootMove],
    line: usize,
    depth: i32,
    mut alpha: Score,
    beta: Score,
    reporter: &dyn Reporter,
) -> Score {
    let window_alpha = alpha;
    let root_key = ctx.keys.last().copied().unwrap_or_else(|| hash::key(root));
    let mut best = -INFINITY;
    ctx.nodes += 1;
    for (index, rm) in root_moves.iter_mut().enumerate().skip(line) {
        let m = rm.m;
        if ctx.start.elapsed() >= CURRMOVE_AFTER {
            reporter.current_move(depth as u32, m, index + 1);
        }
        let mut child = root.clone();
        child.play_unchecked(m);
        ctx.keys.push(hash::key_after(root, root_key, m, &child));
        ctx.played[0] = Some((m.role(), m.to()));
        let score = if index == line {
            -ctx.negamax(&child, depth - 1, -beta, -alpha, 1, false)
        } else {
            let probe = -ctx.negamax(&child, depth - 1, -alpha - 1, -alpha, 1, true);
            if probe > alpha && probe < beta && !ctx.stopped {
                -ctx.negamax(&child, depth - 1, -beta, -alpha, 1, false)
            } else {
                probe
            }
        };
        ctx.keys.pop();
        if ctx.stopped {
            return best;
        }
        best = best.max(score);
        if score > alpha {
            alpha = score;
            rm.score = score;
            rm.seldepth = ctx.seldepth;
            rm.pv.clear();
            rm.pv.push(m);
            rm.pv.extend_from_slice(&ctx.pv[1]);
            if score >= beta {
                break;
            }
        }
    }
    if best > window_alpha && best < beta {
        if let Some(top) = root_moves[line..].iter().max_by_key(|rm| rm.score) {
            ctx.tt.store(
                root_key,
                Some(top.m),
                super::tt::score_to_tt(top.score, 0),
                super::tt::NO_EVAL,
                depth,
                Bound::Exact,
            );
        }
    }
    best
}

/// The score of a root move the tables decide, or `None` for a draw (which is searched).
fn table_score(ranked: &RankedMove, rule50: bool) -> Option<Score> {
    let distance = ranked.dtz.unwrap_or(0).abs().min(MAX_PLY as i32);
    match ranked.wdl {
        Wdl::Win => Some(TB_WIN - distance),
        Wdl::Loss => Some(-(TB_WIN - distance)),
        Wdl::CursedWin if !rule50 => Some(TB_WIN - distance),
        Wdl::BlessedLoss if !rule50 => Some(-(TB_WIN - distance)),
        _ => None,
    }
}

/// The score to show for a root move: its last completed one, or 0 at a root the tables draw.
/// A line that ends in a draw (repetition, fifty moves, dead position, a drawn table position or
/// stalemate) scores `-contempt` inside the search, which no evaluation equals
/// (`SearchContext::static_eval`); it is shown as the draw it is, 0.
fn shown_score(rm: &RootMove, table_draw: bool, contempt: Score) -> Score {
    let score = if rm.score > -INFINITY {
        rm.score
    } else {
        rm.previous_score
    };
    if table_draw || (contempt != 0 && score == -contempt) {
        0
    } else {
        score
    }
}

fn report(
    ctx: &SearchContext,
    root_moves: &[RootMove],
    lines: usize,
    depth: u32,
    bound: Bound,
    table_draw: bool,
    reporter: &dyn Reporter,
) {
    let elapsed = ctx.start.elapsed();
    let nps = (ctx.nodes as u128 * 1000 / elapsed.as_millis().max(1)) as u64;
    let hashfull = ctx.tt.hashfull();
    // The tables' draw is exact whatever the search's bound.
    let bound = if table_draw { Bound::Exact } else { bound };
    for (index, rm) in root_moves.iter().take(lines).enumerate() {
        let score = shown_score(rm, table_draw, ctx.contempt);
        reporter.info(&SearchInfo {
            depth,
            seldepth: rm.seldepth.max(depth as usize) as u32,
            multipv: index + 1,
            score,
            bound,
            nodes: ctx.nodes,
            nps,
            hashfull,
            time: elapsed,
            pv: rm.pv.clone(),
            tbhits: ctx.tb_hits(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{rules::parse_fen, search::SilentReporter};

    #[test]
    fn helpers_stagger_their_depths() {
        let searched = |index| {
            (1..=8)
                .filter(|&d| !skips_depth(index, d))
                .collect::<Vec<_>>()
        };
        assert_eq!(searched(0), (1..=8).collect::<Vec<_>>());
        assert_eq!(searched(1), vec![1, 3, 5, 7]);
        assert_eq!(searched(2), vec![1, 4, 5, 8]);
        assert_eq!(searched(3), vec![3, 4, 7, 8]);
    }

    fn search_with(pos: &Antichess, shared: Option<&Mutex<Heuristics>>, helper: bool) -> u64 {
        let history = [hash::key(pos)];
        let params = SearchParams {
            heuristics: shared,
            helper,
            ..SearchParams::new(StalemateRule::default(), &history)
        };
        let limits = SearchLimits {
            depth: Some(6),
            ..SearchLimits::default()
        };
        let tt = TranspositionTable::new(4);
        let control = SearchControl::default();
        search(pos, &params, &limits, &tt, &control, &SilentReporter).nodes
    }

    /// A game's searches hand their move-ordering statistics on: a search leaves what it learnt
    /// in the game's tables, a helper leaves them alone, and a search that starts from them
    /// orders its moves (and so counts its nodes) differently from one that starts from zero.
    #[test]
    fn searches_of_a_game_pass_their_heuristics_on() {
        let pos = parse_fen("rnbqkbnr/pppppppp/8/8/8/4P3/PPPP1PPP/RNBQKBNR b - - 0 1")
            .expect("a legal position");
        let shared = Mutex::new(Heuristics::default());
        let fresh = search_with(&pos, Some(&shared), false);
        let learnt = shared.lock().expect("not poisoned").clone();
        assert!(learnt.history.iter().flatten().flatten().any(|&h| h != 0));
        assert!(learnt.cont_history.iter().any(|&h| h != 0));

        search_with(&pos, Some(&shared), true);
        let after_helper = shared.lock().expect("not poisoned").clone();
        assert_eq!(after_helper.history, learnt.history);
        assert_eq!(after_helper.cont_history, learnt.cont_history);
        assert_eq!(after_helper.capture_history, learnt.capture_history);

        assert_eq!(search_with(&pos, None, false), fresh);
        assert_ne!(search_with(&pos, Some(&shared), false), fresh);
    }
}
