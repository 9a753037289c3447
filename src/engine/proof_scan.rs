//! The root proof scan: before alpha-beta, spend part of the time proving.
//!
//! Like the classic antichess programs, the engine gives a share of its thinking time to
//! proof-number search at the root. First the root itself is proved; if that is not decided, each
//! root move is proved in turn with a smaller budget. A proven win is played at once (and reported
//! as a mate score with its line); root moves proven to lose are left out of the alpha-beta
//! search, unless every move loses. Proofs are verified before they are believed, and believed
//! only where the game's history cannot spoil them (the loser steering into a position played
//! twice before).

use std::{
    sync::atomic::AtomicBool,
    time::{Duration, Instant},
};

use shakmaty::{variant::Antichess, Move, Position};

use crate::{
    memory::AllocError,
    proof::{
        dfpn::prove_with_tables,
        history,
        tree::{position_id, ProofTree},
        verify::verify_with_tables,
        Distance, ProofLimits, ProofOutcome,
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
    /// How far the proof tree reaches.
    pub distance: Distance,
    pub line: Vec<Move>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScanResult {
    pub win: Option<ProvenWin>,
    /// Root moves proven to lose.
    pub losing: Vec<Move>,
    /// When every root move is proven to lose: the longest resistance.
    pub loss: Option<Distance>,
    /// The verified proofs found (of the root, or of positions after a root move).
    pub proofs: Vec<ProofTree>,
    pub nodes: u64,
}

/// Whether a proof is believed: it passes the verifier (with the tables for its table leaves),
/// and in this game, whose keys up to the proof's root are `history`, the loser cannot steer into
/// a position played before (`proof::history`).
fn trusted(proof: &ProofTree, tables: Option<(&Tablebases, usize)>, history: &[u64]) -> bool {
    if verify_with_tables(&proof.to_text(), tables.map(|(tb, _)| tb)).is_err() {
        return false;
    }
    // The index of the winner's moves is built only if the history makes a walk necessary.
    let moves = std::cell::OnceCell::new();
    !history::may_repeat(&proof.root, proof.rule, proof.winner, history, |p| {
        moves
            .get_or_init(|| proof.winner_moves())
            .get(&position_id(p))
            .copied()
    })
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
    let report = prove_with_tables(pos, rule, history, &half, (tables, None), Some(stop), None)?;
    result.nodes += report.nodes;
    match report.outcome {
        ProofOutcome::Win { best, proof } if trusted(&proof, tables, history) => {
            result.win = Some(ProvenWin {
                best,
                distance: proof.depth(),
                line: proof.main_line(crate::search::MAX_PLY),
            });
            result.proofs.push(proof);
            return Ok(result);
        }
        ProofOutcome::Loss { proof } if trusted(&proof, tables, history) => {
            result.losing = moves.to_vec();
            result.loss = Some(proof.depth());
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
    let mut longest_loss: Option<Distance> = None;
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
        let report = prove_with_tables(
            &child,
            rule,
            &path,
            &per_move,
            (tables, None),
            Some(stop),
            None,
        )?;
        let mut child_history = path.clone();
        child_history.push(hash::key(&child));
        result.nodes += report.nodes;
        move_nodes += report.nodes;
        match report.outcome {
            // The opponent, to move after `m`, loses whatever it does: `m` wins.
            ProofOutcome::Loss { proof } if trusted(&proof, tables, &child_history) => {
                let mut line = vec![m];
                line.extend(proof.main_line(crate::search::MAX_PLY));
                result.win = Some(ProvenWin {
                    best: m,
                    distance: proof.depth().up(),
                    line,
                });
                result.proofs.push(proof);
                return Ok(result);
            }
            ProofOutcome::Win { proof, .. } if trusted(&proof, tables, &child_history) => {
                result.losing.push(m);
                let d = proof.depth().up();
                longest_loss = Some(longest_loss.map_or(d, |l| l.farthest(d)));
                result.proofs.push(proof);
            }
            _ => {}
        }
    }
    if result.losing.len() == moves.len() {
        result.loss = longest_loss;
    }
    Ok(result)
}
