//! Depth-first proof-number search.
//!
//! Values are kept in the "phi/delta" form, from the point of view of the side to move at each
//! node: `phi` is the proof number of "the mover succeeds", `delta` its disproof number. The
//! attacker succeeds by winning; the defender succeeds by not losing (a draw is the defender's).
//! Then for every inner node `phi = min(delta(child))` and `delta = sum(phi(child))`, and one
//! recursive procedure (MID) serves both kinds of node.
//!
//! A new node starts at `phi = 1`, `delta = number of legal moves` (cheap: moves are counted with
//! bitboard popcounts, not generated). MID searches the child with the smallest `delta` until its
//! values pass the thresholds `phi_c = th_delta - delta + phi(c)` and
//! `delta_c = min(th_phi, delta_2 * (1 + ε) + 1)`, `delta_2` being the second smallest `delta`;
//! the ε keeps the search from switching back and forth between two close siblings. It is 1/4
//! where the attacker moves and 1/2 where the defender moves, chosen by measurement: the seven
//! refuted first moves take 18% fewer nodes than with 1/4 at both (tools/prover/README.md).
//!
//! The root is searched with the side to move as attacker; if that is disproved (no win), it is
//! searched again with the opponent as attacker, which tells a loss from a draw or unknown.

use std::{
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    time::{Duration, Instant},
};

use shakmaty::{variant::Antichess, Color, Move, Position};
use shakmaty_syzygy::Wdl;

use super::{known::KnownWins, table::ProofTable, tree, Pn, ProofLimits, PN_INFINITY};
use crate::memory::AllocError;
use crate::{
    rules::{
        game, hash,
        movegen::{count_legal_moves, legal_moves},
        outcome, StalemateRule,
    },
    tablebase::Tablebases,
};

/// Deepest path the prover follows; deeper counts as a draw (for the defender).
pub const MAX_PROOF_PLIES: usize = 1000;
/// ε = 1 / divisor at the attacker's nodes and at the defender's.
const EPSILON_DIVISOR_ATTACKER: Pn = 4;
const EPSILON_DIVISOR_DEFENDER: Pn = 2;
const CHECK_EVERY: u64 = 1024;
/// A value that rests on no position of the path.
const INDEPENDENT: usize = usize::MAX;

/// The result of a proof search, for the side to move at the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ProofOutcome {
    /// The side to move wins; the proof tree starts with `best`.
    Win { best: Move, proof: tree::ProofTree },
    /// Every move loses; the proof tree is for the opponent.
    Loss { proof: tree::ProofTree },
    /// Neither proved within the limits (or the position is a draw).
    Unknown,
}

#[derive(Clone, Debug)]
pub struct ProofReport {
    pub outcome: ProofOutcome,
    pub nodes: u64,
    pub time: Duration,
    /// Bytes of the proof tables allocated.
    pub table_bytes: usize,
}

/// Called now and then with (root phi, root delta, nodes, elapsed) for a progress display.
pub type Progress<'a> = &'a mut dyn FnMut(Pn, Pn, u64, Duration);

pub(super) struct Child {
    pub m: Move,
    pub pos: Antichess,
    pub key: u64,
    pub phi: Pn,
    pub delta: Pn,
    /// Fixed by the rules (a game end or a draw on the path), the tables or the book: never
    /// searched.
    pub terminal: bool,
    /// Fixed by the book (its proof is the book's, copied when the proof is written).
    pub by_book: bool,
    /// Index of the earliest path position the values rest on, or `INDEPENDENT`.
    depends_on: usize,
    /// Proof depth when solved (0 for positions the rules end).
    depth: u16,
}

pub(super) struct Dfpn<'a> {
    pub rule: StalemateRule,
    pub attacker: Color,
    pub table: Arc<ProofTable>,
    /// Keys of the game before the root and of the current path.
    pub path: Vec<u64>,
    pub nodes: u64,
    limits: ProofLimits,
    start: Instant,
    stop: Option<&'a AtomicBool>,
    pub aborted: bool,
    progress: Option<Progress<'a>>,
    root_values: (Pn, Pn),
    root_path_len: usize,
    /// Endgame tables, and the largest piece count to probe.
    pub tables: Option<(&'a Tablebases, usize)>,
    /// Positions proved before (the book, with the proved sub-lines of open problems): a
    /// position the book wins for the side to move is a solved leaf, its proof copied from the
    /// book when the proof is written (`tree::extract`).
    pub book: Option<&'a KnownWins>,
}

/// The proof depth of a node solved with these children: the shallowest won child at a node the
/// mover wins (phi = 0), the deepest child at a node the mover loses (delta = 0); 0 if unsolved.
fn proof_depth(children: &[Child], phi: Pn, delta: Pn) -> u16 {
    let depth = if phi == 0 {
        children
            .iter()
            .filter(|c| c.delta == 0)
            .map(|c| c.depth)
            .min()
    } else if delta == 0 {
        children.iter().map(|c| c.depth).max()
    } else {
        None
    };
    depth.map_or(0, |d| d.saturating_add(1))
}

/// Saturating sum of proof numbers.
pub(crate) fn add(a: Pn, b: Pn) -> Pn {
    a.saturating_add(b).min(PN_INFINITY)
}

/// A threshold a little above the second-best sibling's number (the 1 + ε trick), so that two
/// close siblings do not take turns at every step; `attacker_moves` says whose node it is.
pub(crate) fn widened(second: Pn, attacker_moves: bool) -> Pn {
    let divisor = if attacker_moves {
        EPSILON_DIVISOR_ATTACKER
    } else {
        EPSILON_DIVISOR_DEFENDER
    };
    add(add(second, second / divisor), 1)
}

impl<'a> Dfpn<'a> {
    pub fn new(
        rule: StalemateRule,
        attacker: Color,
        history: &[u64],
        limits: ProofLimits,
        start: Instant,
        stop: Option<&'a AtomicBool>,
    ) -> Result<Dfpn<'a>, AllocError> {
        let table = Arc::new(ProofTable::new(limits.memory_mb)?);
        Ok(Dfpn::with_table(
            rule, attacker, table, history, limits, start, stop,
        ))
    }

    /// A search over a table that already holds values (for the same attacker and rules).
    pub fn with_table(
        rule: StalemateRule,
        attacker: Color,
        table: Arc<ProofTable>,
        history: &[u64],
        limits: ProofLimits,
        start: Instant,
        stop: Option<&'a AtomicBool>,
    ) -> Dfpn<'a> {
        Dfpn {
            rule,
            attacker,
            table,
            path: history.to_vec(),
            nodes: 0,
            limits,
            start,
            stop,
            aborted: false,
            progress: None,
            root_values: (1, 1),
            root_path_len: history.len(),
            tables: None,
            book: None,
        }
    }

    /// (phi, delta) of a position fixed by the rules, for its side to move, if it is one.
    pub fn rules_values(&self, pos: &Antichess, key: u64, moves: u32) -> Option<(Pn, Pn)> {
        self.fixed_values(pos, key, moves)
            .map(|(phi, delta, _, _)| (phi, delta))
    }

    /// Like `rules_values`, also saying on which part of the path the value depends: the index
    /// of the earliest path position it rests on (a repetition of that position), 0 for the
    /// fifty-move count or the depth cap, `INDEPENDENT` for a value of the position alone; and
    /// whether the book decided it.
    fn fixed_values(&self, pos: &Antichess, key: u64, moves: u32) -> Option<(Pn, Pn, usize, bool)> {
        let mut by_book = false;
        let (attacker_wins, depends_on) = if let Some(o) =
            outcome::position_outcome_with(pos, self.rule, moves > 0)
        {
            (o.winner == Some(self.attacker), INDEPENDENT)
        } else if let Some(wdl) = self.table_wdl(pos) {
            // Only clean wins count: a cursed win is a draw under the fifty-move rule.
            let mover_wins = wdl == Wdl::Win;
            let mover_loses = wdl == Wdl::Loss;
            let attacker_moves = pos.turn() == self.attacker;
            (
                (attacker_moves && mover_wins) || (!attacker_moves && mover_loses),
                INDEPENDENT,
            )
        } else if let Some(index) = self.repetition_index(key, pos.halfmoves()) {
            // Any repetition on the path is a draw for the prover: stricter than threefold,
            // and never in the attacker's favour.
            (false, index)
        } else if pos.halfmoves() >= game::FIFTY_MOVE_PLIES || self.path.len() >= MAX_PROOF_PLIES {
            (false, 0)
        } else if self.book_win(pos, key).is_some() {
            // After the repetition test: a book line is sound from a position that does not
            // repeat the path (each of its positions then occurs at most twice in the game).
            by_book = true;
            (pos.turn() == self.attacker, INDEPENDENT)
        } else {
            return None;
        };
        let mover_succeeds = attacker_wins == (pos.turn() == self.attacker);
        Some(if mover_succeeds {
            (0, PN_INFINITY, depends_on, by_book)
        } else {
            (PN_INFINITY, 0, depends_on, by_book)
        })
    }

    /// The book's proof that the side to move wins `pos`: its distance.
    pub fn book_win(&self, pos: &Antichess, key: u64) -> Option<super::Distance> {
        self.book?.mover_wins(pos, key, self.rule)
    }

    /// What the tables say of a position just reached by a capture or pawn move.
    pub fn table_wdl(&self, pos: &Antichess) -> Option<Wdl> {
        let (tables, limit) = self.tables?;
        if pos.halfmoves() != 0 {
            return None;
        }
        tables.wdl_after_zeroing(pos, self.rule, limit)
    }

    /// Where `key` occurs on the path, looking back only as far as the halfmove clock allows
    /// (a capture or pawn move in between makes a repetition impossible).
    fn repetition_index(&self, key: u64, halfmoves: u32) -> Option<usize> {
        let window = (halfmoves as usize).min(self.path.len());
        let start = self.path.len() - window;
        self.path[start..]
            .iter()
            .rposition(|&k| k == key)
            .map(|i| start + i)
    }

    /// The children of `pos`, with their values from the rules or the table (unsearched ones at
    /// phi = 1, delta = their number of moves).
    pub(super) fn expand(&self, pos: &Antichess, key: u64) -> Vec<Child> {
        legal_moves(pos)
            .into_iter()
            .map(|m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                let ckey = hash::key_after(pos, key, m, &child);
                let count = count_legal_moves(&child);
                let (phi, delta, terminal, depends_on, depth, by_book) =
                    match self.fixed_values(&child, ckey, count) {
                        Some((phi, delta, depends_on, by_book)) => {
                            (phi, delta, true, depends_on, 0, by_book)
                        }
                        None => match self.table.get(ckey) {
                            Some(e) => (e.phi, e.delta, false, INDEPENDENT, e.depth, false),
                            None => (1, count.max(1), false, INDEPENDENT, 0, false),
                        },
                    };
                Child {
                    m,
                    pos: child,
                    key: ckey,
                    phi,
                    delta,
                    terminal,
                    by_book,
                    depends_on,
                    depth,
                }
            })
            .collect()
    }

    /// Counts a node and, every `CHECK_EVERY` nodes, looks at the limits and the stop flag.
    /// Called on entry to every node, so no run of nodes escapes the check.
    fn count_node(&mut self) {
        self.nodes += 1;
        // Also on the first node: a proof started with no time left ends at once.
        if self.nodes.is_multiple_of(CHECK_EVERY) || self.nodes == 1 {
            let elapsed = self.start.elapsed();
            if self.limits.nodes.is_some_and(|n| self.nodes >= n)
                || self.limits.time.is_some_and(|t| elapsed >= t)
                || self.stop.is_some_and(|s| s.load(Ordering::Relaxed))
            {
                self.aborted = true;
            }
            if let Some(progress) = self.progress.as_mut() {
                if self.nodes.is_multiple_of(CHECK_EVERY * 1024) {
                    progress(self.root_values.0, self.root_values.1, self.nodes, elapsed);
                }
            }
        }
    }

    /// The multiple-iterative-deepening procedure: searches `pos` until its values reach the
    /// thresholds (or the budget ends) and returns them.
    ///
    /// Graph-history interaction: a value that rests on a repetition of an earlier position of
    /// this path could be wrong on another path. Each result carries the index of the earliest
    /// path position it rests on; a cycle back to the node itself is a repetition on every path
    /// through the node, so it no longer counts once the search is back at that node. A disproof
    /// of the attacker's win that still rests on an ancestor is returned to the caller (which is
    /// on this path) but not stored in the table.
    pub fn mid(&mut self, pos: &Antichess, key: u64, th_phi: Pn, th_delta: Pn) -> (Pn, Pn) {
        let (phi, delta, _, _) = self.mid_dependent(pos, key, th_phi, th_delta);
        (phi, delta)
    }

    fn mid_dependent(
        &mut self,
        pos: &Antichess,
        key: u64,
        th_phi: Pn,
        th_delta: Pn,
    ) -> (Pn, Pn, usize, u16) {
        self.count_node();
        let work_start = self.nodes;
        let mut children = self.expand(pos, key);
        if children.is_empty() {
            // Not reached for positions the rules end, which callers classify first.
            return (PN_INFINITY, 0, INDEPENDENT, 0);
        }
        let own_index = self.path.len();
        self.path.push(key);
        let values = loop {
            let mut phi = PN_INFINITY;
            let mut delta: Pn = 0;
            let mut best = 0;
            let mut delta_2 = PN_INFINITY;
            for (i, c) in children.iter().enumerate() {
                if c.delta < phi {
                    delta_2 = phi;
                    phi = c.delta;
                    best = i;
                } else if c.delta < delta_2 {
                    delta_2 = c.delta;
                }
                delta = add(delta, c.phi);
            }
            if own_index == self.root_path_len {
                self.root_values = (phi, delta);
            }
            if phi >= th_phi || delta >= th_delta || self.aborted {
                let depends_on = children
                    .iter()
                    .map(|c| c.depends_on)
                    .filter(|&index| index < own_index)
                    .min()
                    .unwrap_or(INDEPENDENT);
                break (phi, delta, depends_on, proof_depth(&children, phi, delta));
            }
            let child = &children[best];
            let child_th_phi = add(th_delta - delta, child.phi);
            let child_th_delta = th_phi
                .min(widened(delta_2, pos.turn() == self.attacker))
                .max(child.delta.saturating_add(1));
            let (cpos, ckey) = (child.pos.clone(), child.key);
            let (cphi, cdelta, depends_on, depth) =
                self.mid_dependent(&cpos, ckey, child_th_phi, child_th_delta);
            children[best].phi = cphi;
            children[best].delta = cdelta;
            children[best].depends_on = depends_on;
            children[best].depth = depth;
        };
        self.path.pop();
        let (phi, delta, depends_on, depth) = values;
        if self.path.len() == self.root_path_len {
            self.root_values = (phi, delta);
        }
        let attacker_disproved = if pos.turn() == self.attacker {
            phi >= PN_INFINITY
        } else {
            delta >= PN_INFINITY
        };
        if depends_on == INDEPENDENT || !attacker_disproved {
            self.table
                .put(key, phi, delta, self.nodes - work_start + 1, depth);
        }
        values
    }

    /// Solves a position whose side to move is the attacker or the defender; returns its
    /// (phi, delta) for the side to move.
    pub fn solve(&mut self, pos: &Antichess, key: u64) -> (Pn, Pn) {
        let count = count_legal_moves(pos);
        if let Some(values) = self.rules_values(pos, key, count) {
            return values;
        }
        self.mid_until_solved(pos, key)
    }

    /// Searches `pos` until it is solved, its numbers reach the thresholds, or the budget ends;
    /// returns its (phi, delta).
    /// Thresholds are doubled until at least `min_nodes` nodes were searched, so that a job
    /// is never too small to be worth its round trip to the store.
    pub fn search_within(
        &mut self,
        pos: &Antichess,
        key: u64,
        (mut th_phi, mut th_delta): (Pn, Pn),
        min_nodes: u64,
    ) -> (Pn, Pn) {
        let count = count_legal_moves(pos);
        if let Some(values) = self.rules_values(pos, key, count) {
            return values;
        }
        let mut values = (1, 1);
        while values.0 != 0 && values.1 != 0 && !self.aborted {
            values = self.mid(pos, key, th_phi, th_delta);
            if values.0 >= th_phi || values.1 >= th_delta {
                if self.nodes >= min_nodes {
                    break;
                }
                th_phi = add(th_phi, th_phi.max(values.0));
                th_delta = add(th_delta, th_delta.max(values.1));
            }
        }
        values
    }

    /// Searches `pos` with infinite thresholds until it is solved or the budget ends.
    fn mid_until_solved(&mut self, pos: &Antichess, key: u64) -> (Pn, Pn) {
        let mut values = (1, 1);
        while values.0 != 0 && values.1 != 0 && !self.aborted {
            values = self.mid(pos, key, PN_INFINITY, PN_INFINITY);
        }
        values
    }

    /// The children of an attacker node that the table holds as won, shallowest proof first
    /// (then cheapest). Always taking the shallowest makes the proof depth fall strictly along
    /// every path, so the strategy extracted cannot run in a cycle.
    /// The node's own key must be on the path.
    pub fn proved_children(&self, pos: &Antichess, key: u64) -> Vec<(Move, Antichess, u64)> {
        let mut proved: Vec<((u16, u64), Move, Antichess, u64)> = self
            .expand(pos, key)
            .into_iter()
            .filter(|c| c.delta == 0)
            .map(|c| {
                let work = if c.terminal {
                    0
                } else {
                    self.table.get(c.key).map_or(u64::MAX, |e| e.work)
                };
                ((c.depth, work), c.m, c.pos, c.key)
            })
            .collect();
        proved.sort_by_key(|&(order, ..)| order);
        proved.into_iter().map(|(_, m, p, k)| (m, p, k)).collect()
    }

    /// Proves an attacker node again on the current path (its key already on the path), so that
    /// the table's values below it respect this path's repetitions. True if it is proved.
    pub fn reprove_on_path(&mut self, pos: &Antichess, key: u64) -> bool {
        self.path.pop();
        let values = self.mid_until_solved(pos, key);
        self.path.push(key);
        values.0 == 0
    }
}

/// Proves or disproves a win for the side to move at `pos`.
///
/// `history` holds the keys of the game before `pos` (for repetitions; may be empty).
pub fn prove<'a>(
    pos: &Antichess,
    rule: StalemateRule,
    history: &[u64],
    limits: &ProofLimits,
    stop: Option<&'a AtomicBool>,
    progress: Option<Progress<'a>>,
) -> Result<ProofReport, AllocError> {
    prove_with_tables(pos, rule, history, limits, (None, None), stop, progress)
}

/// What a proof may take as solved leaves: endgame tables (with the largest piece count to
/// probe) and a book of positions proved before.
pub type Known<'a> = (Option<(&'a Tablebases, usize)>, Option<&'a KnownWins>);

/// `prove`, with endgame tables and a book as solved leaves.
pub fn prove_with_tables<'a>(
    pos: &Antichess,
    rule: StalemateRule,
    history: &[u64],
    limits: &ProofLimits,
    (tables, book): Known<'a>,
    stop: Option<&'a AtomicBool>,
    mut progress: Option<Progress<'a>>,
) -> Result<ProofReport, AllocError> {
    let start = Instant::now();
    let key = hash::key(pos);
    // The root is on the path by itself; only earlier positions count as history.
    let history = match history.split_last() {
        Some((&last, before)) if last == key => before,
        _ => history,
    };
    let mut nodes = 0;
    let mut table_bytes = 0;
    let mut outcome = ProofOutcome::Unknown;
    for attacker in [pos.turn(), !pos.turn()] {
        let mut remaining = limits.clone();
        remaining.nodes = limits.nodes.map(|n| n.saturating_sub(nodes));
        let mut search = Dfpn::new(rule, attacker, history, remaining, start, stop)?;
        search.tables = tables;
        search.book = book;
        search.progress = progress.take();
        let (phi, delta) = search.solve(pos, key);
        log::debug!(
            "proof pass, attacker {attacker:?}: phi {phi} delta {delta}, {} nodes, aborted {}",
            search.nodes,
            search.aborted
        );
        table_bytes = table_bytes.max(search.table.bytes());
        // The root's mover is the attacker in the first pass and the defender in the second.
        let attacker_wins = if attacker == pos.turn() {
            phi == 0
        } else {
            delta == 0
        };
        if attacker_wins {
            let proof = tree::extract(&mut search, pos, key);
            nodes += search.nodes;
            outcome = match proof {
                Some(proof) if attacker == pos.turn() => match proof.root_move() {
                    Some(best) => ProofOutcome::Win { best, proof },
                    None => ProofOutcome::Unknown,
                },
                Some(proof) => ProofOutcome::Loss { proof },
                None => ProofOutcome::Unknown,
            };
            break;
        }
        nodes += search.nodes;
        if search.aborted {
            break;
        }
        progress = search.progress.take();
    }
    Ok(ProofReport {
        outcome,
        nodes,
        time: start.elapsed(),
        table_bytes,
    })
}
