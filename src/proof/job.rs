//! One job of a job-level proof search: df-pn on one position within a budget.
//!
//! The proof store (`store`) keeps the top of the proof as a best-first tree and hands its most
//! proving frontier position to a worker; the worker runs a `JobSearch` on it. The search either
//! solves the position (with the proof tree when the attacker wins) or reports the position's
//! children with the proof and disproof numbers it found for them, and the store grows by one
//! level there.
//!
//! A worker keeps one table for all its jobs, shared with the other workers of its process: the
//! attacker and the rules are the same for every job of a store, so what one job learned (solved
//! positions, numbers of shared subtrees) is valid in the next, and the memory a process uses is
//! that table whatever the size of the proof.

use std::{
    sync::{atomic::AtomicBool, Arc},
    time::{Duration, Instant},
};

use shakmaty::{variant::Antichess, Color, Move, Position};

use super::{
    dfpn::{Dfpn, Known},
    table::ProofTable,
    tree,
    tree::ProofTree,
    Pn, ProofLimits,
};
use crate::{rules::hash, rules::StalemateRule};

/// A job runs at least this share of its node budget before its thresholds may end it.
const MIN_SHARE: u64 = 100;

/// What a job found, from the attacker's point of view.
#[derive(Clone, Debug)]
pub enum JobOutcome {
    /// The attacker wins; the proof starts at the job's position.
    Proved(ProofTree),
    /// The attacker has no win (a loss or a draw for it, the path's repetitions counting as
    /// draws).
    Disproved,
    /// Not solved within the budget: the position's children with their numbers.
    Open(Vec<JobChild>),
    /// The numbers passed the thresholds before the budget ended: a sibling is now more
    /// promising. The attacker's proof and disproof numbers.
    Updated { pn: Pn, dn: Pn },
    /// Stopped from outside before the budget ended: nothing to write back.
    Interrupted,
}

/// A child of a job's position.
#[derive(Clone, Debug)]
pub struct JobChild {
    pub m: Move,
    pub pos: Antichess,
    /// Proof and disproof numbers of the attacker's win.
    pub pn: Pn,
    pub dn: Pn,
    /// Fixed by the rules, the tables or a repetition of the path: never a job of its own.
    pub fixed: bool,
}

#[derive(Clone, Debug)]
pub struct JobResult {
    pub outcome: JobOutcome,
    pub nodes: u64,
    pub time: Duration,
}

/// A worker's proof search: its table lives from job to job; the tables and the book are its
/// solved leaves.
pub struct JobSearch<'a> {
    rule: StalemateRule,
    attacker: Color,
    table: Arc<ProofTable>,
    known: Known<'a>,
    stop: Option<&'a AtomicBool>,
}

/// (phi, delta) for the side to move turned into the attacker's (pn, dn).
pub fn attacker_numbers(mover: Color, attacker: Color, phi: Pn, delta: Pn) -> (Pn, Pn) {
    if mover == attacker {
        (phi, delta)
    } else {
        (delta, phi)
    }
}

impl<'a> JobSearch<'a> {
    /// A worker over `table` (its own, or one its process's workers share).
    pub fn new(
        rule: StalemateRule,
        attacker: Color,
        table: Arc<ProofTable>,
        known: Known<'a>,
        stop: Option<&'a AtomicBool>,
    ) -> JobSearch<'a> {
        JobSearch {
            rule,
            attacker,
            table,
            known,
            stop,
        }
    }

    /// Searches `pos` (reached after the positions whose keys are `history`) for at most
    /// `nodes` nodes and `time`, or until the attacker's proof or disproof number reaches its
    /// threshold (`th_pn`, `th_dn`: the point where a sibling becomes the better bet).
    pub fn run(
        &mut self,
        pos: &Antichess,
        history: &[u64],
        budget: (u64, Duration),
        (th_pn, th_dn): (Pn, Pn),
    ) -> JobResult {
        let (nodes, time) = budget;
        let start = Instant::now();
        let limits = ProofLimits {
            nodes: Some(nodes.max(1)),
            time: Some(time),
            memory_mb: 0,
        };
        let key = hash::key(pos);
        let mut search = Dfpn::with_table(
            self.rule,
            self.attacker,
            Arc::clone(&self.table),
            history,
            limits,
            start,
            self.stop,
        );
        (search.tables, search.book) = self.known;
        let (th_phi, th_delta) = attacker_numbers(pos.turn(), self.attacker, th_pn, th_dn);
        let (phi, delta) = search.search_within(pos, key, (th_phi, th_delta), nodes / MIN_SHARE);
        let stopped = self
            .stop
            .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed));
        let (pn, dn) = attacker_numbers(pos.turn(), self.attacker, phi, delta);
        let outcome = if pn == 0 {
            match tree::extract(&mut search, pos, key) {
                Some(proof) => JobOutcome::Proved(proof),
                // The table's win did not survive extraction on this path: grow the tree here
                // instead, so that the store's search goes on below.
                None if !stopped => JobOutcome::Open(self.children(&search, pos, key)),
                None => JobOutcome::Interrupted,
            }
        } else if dn == 0 {
            JobOutcome::Disproved
        } else if stopped {
            JobOutcome::Interrupted
        } else if search.aborted {
            JobOutcome::Open(self.children(&search, pos, key))
        } else {
            JobOutcome::Updated { pn, dn }
        };
        JobResult {
            outcome,
            nodes: search.nodes,
            time: start.elapsed(),
        }
    }

    fn children(&self, search: &Dfpn, pos: &Antichess, key: u64) -> Vec<JobChild> {
        search
            .expand(pos, key)
            .into_iter()
            .map(|c| {
                let (pn, dn) = attacker_numbers(c.pos.turn(), self.attacker, c.phi, c.delta);
                JobChild {
                    m: c.m,
                    pos: c.pos,
                    pn,
                    dn,
                    // A book position becomes a job of its own (solved at once) so that the
                    // store keeps its proof.
                    fixed: c.terminal && !c.by_book,
                }
            })
            .collect()
    }
}
