//! Per-search state: counters, the path's keys, killers, history, the PV table, and the checks
//! that end a search (stop flag, node limit, hard time limit).
//!
//! Persistent state lives outside: the transposition table is borrowed, and the move-ordering
//! statistics ([`Heuristics`]) are copied in from the game's previous search and handed back at
//! the end (see `SearchParams::heuristics`). Everything else is made fresh for each search, and
//! `ucinewgame` clears both, so a `go nodes N` after it is deterministic.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use shakmaty::{variant::Antichess, Color, Move, Position, Role, Square};

use super::{
    alphabeta::SingularSettings,
    eval::{evaluate_with, EvalParams},
    nnue::{AccumulatorStack, Network},
    tt::TranspositionTable,
    Score, SearchControl, EVAL_LIMIT, MATE, MAX_PLY, TB_WIN,
};
use crate::{
    rules::{game, movegen, outcome, StalemateRule},
    tablebase::Tablebases,
};

/// How often (in nodes) the clock and the stop flag are looked at.
const CHECK_EVERY: u64 = 1024;

/// Entries of the continuation history: side × previous role × previous destination × role ×
/// destination.
const CONT_HISTORY_SIZE: usize = 2 * 6 * 64 * 6 * 64;

/// Entries of the capture history: side × capturing role × destination × captured role.
const CAPTURE_HISTORY_SIZE: usize = 2 * 6 * 64 * 6;

/// The continuation-history slot of a move by `role` to `to` for `side`, answering a move by
/// `previous.0` to `previous.1`.
fn cont_index(side: usize, previous: (Role, Square), role: Role, to: Square) -> usize {
    let prev = (previous.0 as usize - 1) * 64 + previous.1 as usize;
    let this = (role as usize - 1) * 64 + to as usize;
    (side * 384 + prev) * 384 + this
}

/// What the searches of a game learn about move order: the quiet, continuation and capture
/// histories. Unlike killers (which belong to plies of one search), they describe moves, so a
/// game's next search starts from them instead of from zero, as in Stockfish.
#[derive(Clone)]
pub struct Heuristics {
    /// Quiet-move history by side, from-square and to-square.
    pub(super) history: Box<[[[Score; 64]; 64]; 2]>,
    /// Continuation history: how well a quiet move has answered the opponent's move just
    /// before it, by side, that move's role and destination, and this move's role and
    /// destination (see [`cont_index`]).
    pub(super) cont_history: Vec<Score>,
    /// Capture history: how often a capture, by side, capturing role, destination and captured
    /// role, has caused a cutoff at a node with a choice of captures.
    pub(super) capture_history: Vec<Score>,
}

impl std::fmt::Debug for Heuristics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Heuristics").finish_non_exhaustive()
    }
}

impl Default for Heuristics {
    fn default() -> Heuristics {
        Heuristics {
            history: Box::new([[[0; 64]; 64]; 2]),
            cont_history: vec![0; CONT_HISTORY_SIZE],
            capture_history: vec![0; CAPTURE_HISTORY_SIZE],
        }
    }
}

pub(super) struct SearchContext<'a> {
    pub tt: &'a TranspositionTable,
    pub control: &'a SearchControl,
    pub rule: StalemateRule,
    /// The evaluation weights for `rule`.
    pub eval: &'static EvalParams,
    /// How singular extensions are set for `rule`.
    pub singular: &'static SingularSettings,
    /// Keys of the game so far and of the current path, the current node last.
    pub keys: Vec<u64>,
    pub nodes: u64,
    pub seldepth: usize,
    pub killers: [[Option<Move>; 2]; MAX_PLY + 1],
    /// The histories, carried over from the game's previous search or fresh.
    pub heuristics: Heuristics,
    /// The move made at each ply of the current path, as its role and destination.
    pub played: Vec<Option<(Role, Square)>>,
    /// The move a singular-extension search at each ply leaves out.
    pub excluded: Vec<Option<Move>>,
    /// Double singular extensions on the path down to each ply.
    pub double_extensions: Vec<u8>,
    /// Triangular PV table: `pv[ply]` is the best line found from that ply.
    pub pv: Vec<Vec<Move>>,
    pub stopped: bool,
    pub start: Instant,
    pub hard_limit: Option<Duration>,
    pub node_limit: Option<u64>,
    pub root_depth: i32,
    pub tablebases: Option<&'a Tablebases>,
    pub probe_limit: usize,
    /// Cursed wins and blessed losses are draws (the fifty-move rule applies).
    pub rule50: bool,
    /// The tables' hit count when this search started.
    pub tb_hits_before: u64,
    /// What a draw is worth to the side that is to move at the root (the side the search plays
    /// for): `-contempt`. A positive contempt makes it prefer playing on to a draw unless it
    /// stands worse than that.
    pub contempt: Score,
    /// The side to move at the root, for whom a draw is worth `-contempt`.
    pub root_turn: Color,
    /// The static evaluation of each quiet node on the current path (`None` at capture nodes,
    /// where a static score means little), for the "improving" test two plies up.
    pub static_evals: Vec<Option<Score>>,
    /// Move buffers for each ply, lent to the node at that ply and given back, so that nodes
    /// do not allocate.
    pub scratch: Vec<Scratch>,
    /// The evaluation network's accumulators along the path, when a network evaluates.
    pub nnue: Option<AccumulatorStack>,
}

/// A node's reusable move lists: its legal moves, the same with their ordering scores, and the
/// quiet moves it has tried.
#[derive(Default)]
pub(super) struct Scratch {
    pub moves: Vec<Move>,
    pub scored: Vec<(Move, Score)>,
    pub tried: Vec<Move>,
}

impl<'a> SearchContext<'a> {
    pub fn new(
        tt: &'a TranspositionTable,
        control: &'a SearchControl,
        rule: StalemateRule,
        history_keys: &[u64],
    ) -> SearchContext<'a> {
        SearchContext {
            tt,
            control,
            rule,
            eval: EvalParams::for_rule(rule),
            singular: SingularSettings::for_rule(rule),
            keys: history_keys.to_vec(),
            nodes: 0,
            seldepth: 0,
            killers: [[None; 2]; MAX_PLY + 1],
            heuristics: Heuristics::default(),
            played: vec![None; MAX_PLY + 2],
            excluded: vec![None; MAX_PLY + 2],
            double_extensions: vec![0; MAX_PLY + 2],
            pv: vec![Vec::new(); MAX_PLY + 2],
            stopped: false,
            start: Instant::now(),
            hard_limit: None,
            node_limit: None,
            root_depth: 1,
            tablebases: None,
            probe_limit: 0,
            rule50: true,
            tb_hits_before: 0,
            contempt: 0,
            root_turn: Color::White,
            static_evals: vec![None; MAX_PLY + 2],
            scratch: (0..MAX_PLY + 2).map(|_| Scratch::default()).collect(),
            nnue: None,
        }
    }

    /// Evaluates with `net` from now on; `root` is the position at ply 0.
    pub fn use_network(&mut self, net: Arc<Network>, root: &Antichess) {
        let mut stack = AccumulatorStack::new(net);
        stack.enter(0, root.board());
        self.nnue = Some(stack);
    }

    /// Lends the (emptied) move buffers of `ply`; give them back with `return_scratch`.
    pub fn take_scratch(&mut self, ply: usize) -> Scratch {
        let mut scratch = self
            .scratch
            .get_mut(ply)
            .map(std::mem::take)
            .unwrap_or_default();
        scratch.moves.clear();
        scratch.scored.clear();
        scratch.tried.clear();
        scratch
    }

    pub fn return_scratch(&mut self, ply: usize, scratch: Scratch) {
        if let Some(slot) = self.scratch.get_mut(ply) {
            *slot = scratch;
        }
    }

    /// Counts a node and says whether the search must end now.
    pub fn tick(&mut self) -> bool {
        if self.stopped {
            return true;
        }
        if self.node_limit.is_some_and(|limit| self.nodes >= limit) {
            self.stopped = true;
            return true;
        }
        self.nodes += 1;
        if self.nodes.is_multiple_of(CHECK_EVERY) {
            self.poll();
        }
        self.stopped
    }

    /// Looks at the stop flag and the clock.
    pub fn poll(&mut self) {
        if self.control.is_stopped() {
            self.stopped = true;
        } else if let Some(hard) = self.hard_limit {
            if !self.control.is_pondering()
                && self.control.clock_start(self.start).elapsed() >= hard
            {
                self.stopped = true;
            }
        }
    }

    /// The common start of every node: counts it, then either scores it at once (the search is
    /// stopping, the game is over, or it is drawn by history) or returns its legal moves.
    pub fn enter_node(
        &mut self,
        pos: &Antichess,
        ply: usize,
        moves: &mut Vec<Move>,
    ) -> Result<(), Score> {
        self.pv[ply].clear();
        if self.tick() {
            return Err(0);
        }
        self.seldepth = self.seldepth.max(ply);
        if let Some(stack) = &mut self.nnue {
            stack.enter(ply, pos.board());
        }
        movegen::legal_moves_into(pos, moves);
        match self.terminal_score(pos, moves, ply) {
            Some(score) => Err(score),
            None => Ok(()),
        }
    }

    /// The score of a node that ends the game or is drawn by history, if it is one.
    pub fn terminal_score(&self, pos: &Antichess, moves: &[Move], ply: usize) -> Option<Score> {
        if let Some(o) = outcome::position_outcome_with(pos, self.rule, !moves.is_empty()) {
            return Some(match o.winner {
                Some(c) if c == pos.turn() => MATE - ply as Score,
                Some(_) => -(MATE - ply as Score),
                None if ply == 0 => 0,
                None => self.draw_score(pos),
            });
        }
        // Inside the tree a single repetition is scored as a draw: the side that could avoid it
        // did not, and could repeat again.
        if ply > 0
            && (pos.halfmoves() >= game::FIFTY_MOVE_PLIES
                || game::repetitions(&self.keys, pos.halfmoves()) >= 2)
        {
            return Some(self.draw_score(pos));
        }
        None
    }

    /// The score of a draw inside the tree, from the point of view of the side to move in `pos`:
    /// contempt counts against the root's side and for its opponent.
    pub fn draw_score(&self, pos: &Antichess) -> Score {
        if pos.turn() == self.root_turn {
            -self.contempt
        } else {
            self.contempt
        }
    }

    /// The static evaluation of `pos`, never equal to a draw's score under contempt: a root
    /// score of exactly `-contempt` then always means a draw, which the report shows as 0.
    pub fn static_eval(&mut self, pos: &Antichess, ply: usize) -> Score {
        let eval = match &mut self.nnue {
            Some(stack) => {
                let net = stack.evaluate(ply, pos.turn(), self.rule);
                (net + stack.network().base_eval(pos, self.rule)).clamp(-EVAL_LIMIT, EVAL_LIMIT)
            }
            None => evaluate_with(pos, self.eval),
        };
        self.distinct_from_draw(eval)
    }

    /// `eval` moved one centipawn off `±contempt`, where a draw scores.
    pub fn distinct_from_draw(&self, eval: Score) -> Score {
        if self.contempt != 0 && eval.abs() == self.contempt {
            eval + 1
        } else {
            eval
        }
    }

    /// The deepest ply quiescence may reach in this iteration.
    pub fn root_ply_cap(&self) -> usize {
        self.root_depth.max(0) as usize * 2 + super::quiescence::MAX_CAPTURE_PLIES
    }

    /// The tablebase score of a position just reached by a capture or pawn move, if known.
    pub fn tablebase_score(&self, pos: &Antichess, ply: usize) -> Option<Score> {
        use shakmaty_syzygy::Wdl;
        if pos.halfmoves() != 0 {
            return None;
        }
        let wdl = self
            .tablebases?
            .wdl_after_zeroing(pos, self.rule, self.probe_limit)?;
        let win = TB_WIN - ply as Score;
        Some(match wdl {
            Wdl::Win => win,
            Wdl::Loss => -win,
            Wdl::CursedWin if !self.rule50 => win,
            Wdl::BlessedLoss if !self.rule50 => -win,
            Wdl::CursedWin | Wdl::BlessedLoss | Wdl::Draw => self.draw_score(pos),
        })
    }

    /// Tablebase hits during this search.
    pub fn tb_hits(&self) -> u64 {
        self.tablebases
            .map_or(0, |tb| tb.hits().saturating_sub(self.tb_hits_before))
    }

    pub fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line.clear();
        line.push(m);
        line.extend_from_slice(&tail[0]);
    }

    pub fn side_index(color: Color) -> usize {
        color as usize
    }

    /// The capture-history slot of capture `m` by `side`.
    pub fn capture_slot(side: usize, m: Move) -> usize {
        let victim = m.capture().unwrap_or(Role::Pawn);
        ((side * 6 + m.role() as usize - 1) * 64 + m.to() as usize) * 6 + victim as usize - 1
    }

    /// The continuation-history slot for quiet move `m` at `ply`, if the move before it is known.
    pub fn cont_slot(&self, side: usize, m: Move, ply: usize) -> Option<usize> {
        let previous = self.played.get(ply.checked_sub(1)?).copied().flatten()?;
        Some(cont_index(side, previous, m.role(), m.to()))
    }
}
