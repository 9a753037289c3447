//! The root proof scan: before alpha-beta, spend part of the time proving.
//!
//! Like the classic antichess programs, the engine gives a share of its thinking time to
//! proof-number search at the root. First the root itself is proved; if that is not decided, each
//! root move is proved in turn with a smaller budget. A proven win is played at once (and reported
//! as a mate score with its line); root moves proven to lose are left out of the alpha-beta
//! search, unless every move loses. Proofs are verified before they are believed.

use std::{
    sync::atomic::AtomicBool,
    time::{Duration, Instant},
};

use shakmaty::{variant::Antichess, Move, Position};

use crate::{
    memory::AllocError,
    proof::{
        dfpn::prove_with_tables, tree::ProofTree, verify::verify_with_tables, ProofLimits,
        ProofOutcome,
    },
    rules::{hash, StalemateRule},
    tablebase::Tablebases,
};

/// Below this much time or these many nodes a proof of one root move is not worth starting
/// (the prover looks at its limits every 1024 nodes).
const MIN_PROOF_TIME: Duration = Duration::from_millis(5);
const MIN_PROOF_NODES: u64 = 4096;

/// A win proved at the root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProvenWin {
    pub best: Move,
    /// Plies to the farthest end of the proof tree.
    pub plies: u32,
    pub line: Vec<Move>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanResult {
    pub win: Option<ProvenWin>,
    /// Root moves proven to lose.
    pub losing: Vec<Move>,
    /// When every root move is proven to lose: the plies of the longest resistance.
    pub loss_plies: Option<u32>,
    /// The verified proofs found (of the root, or of positions after a root move).
    pub proofs: Vec<ProofTree>,
    pub nodes: u64,
}

/// Whether a proof passes the verifier (with the tables for its table leaves): only such proofs
/// are believed.
fn verified(proof: &ProofTree, tables: Option<(&Tablebases, usize)>) -> bool {
    verify_with_tables(&proof.to_text(), tables.map(|(tb, _)| tb)).is_ok()
}

/// Proves what it can within `limits` (nodes and time are shared by all the proofs).
pub fn scan(
    pos: &Antichess,
    rule: StalemateRule,
    history: &[u64],
    limits: &ProofLimits,
    tables: Option<(&Tablebases, usize)>,
    stop: &AtomicBool,
) -> Result<ScanResult, AllocError> {
    let mut result = ScanResult::default();
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return Ok(result);
    }
    let half = ProofLimits {
        nodes: limits.nodes.map(|n| n / 2),
        time: limits.time.map(|t| t / 2),
        ..limits.clone()
    };
    let report = prove_with_tables(pos, rule, history, &half, tables, Some(stop), None)?;
    result.nodes += report.nodes;
    match report.outcome {
        ProofOutcome::Win { best, proof } if verified(&proof, tables) => {
            result.win = Some(ProvenWin {
                best,
                plies: proof.depth(),
                line: proof.main_line(crate::search::MAX_PLY),
            });
            result.proofs.push(proof);
            return Ok(result);
        }
        ProofOutcome::Loss { proof } if verified(&proof, tables) => {
            result.losing = moves.to_vec();
            result.loss_plies = Some(proof.depth());
            result.proofs.push(proof);
            return Ok(result);
        }
        _ => {}
    }
    let per_move = ProofLimits {
        nodes: limits.nodes.map(|n| n / 2 / moves.len() as u64),
        time: limits.time.map(|t| t / 2 / moves.len() as u32),
        ..limits.clone()
    };
    // One deadline and one node budget for all the per-move proofs: each proof checks its own
    // limits only every so many nodes, so many small proofs must not each be allowed to run on.
    let started = Instant::now();
    let deadline = limits.time.map(|t| t / 2);
    let node_budget = limits.nodes.map(|n| n / 2);
    if per_move.time.is_some_and(|t| t < MIN_PROOF_TIME)
        || per_move.nodes.is_some_and(|n| n < MIN_PROOF_NODES)
    {
        return Ok(result);
    }
    let mut move_nodes = 0;
    let mut longest_loss = 0;
    let root_key = hash::key(pos);
    let mut path = history.to_vec();
    if path.last() != Some(&root_key) {
        path.push(root_key);
    }
    for &m in &moves {
        if stop.load(std::sync::atomic::Ordering::Relaxed)
            || deadline.is_some_and(|d| started.elapsed() + MIN_PROOF_TIME > d)
            || node_budget.is_some_and(|n| move_nodes + MIN_PROOF_NODES > n)
        {
            break;
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        let report = prove_with_tables(&child, rule, &path, &per_move, tables, Some(stop), None)?;
        result.nodes += report.nodes;
        move_nodes += report.nodes;
        match report.outcome {
            // The opponent, to move after `m`, loses whatever it does: `m` wins.
            ProofOutcome::Loss { proof } if verified(&proof, tables) => {
                let mut line = vec![m];
                line.extend(proof.main_line(crate::search::MAX_PLY));
                result.win = Some(ProvenWin {
                    best: m,
                    plies: proof.depth() + 1,
                    line,
                });
                result.proofs.push(proof);
                return Ok(result);
            }
            ProofOutcome::Win { proof, .. } if verified(&proof, tables) => {
                result.losing.push(m);
                longest_loss = longest_loss.max(proof.depth() + 1);
                result.proofs.push(proof);
            }
            _ => {}
        }
    }
    if result.losing.len() == moves.len() {
        result.loss_plies = Some(longest_loss);
    }
    Ok(result)
}
