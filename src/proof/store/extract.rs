//! The whole proof put together again: the store's tree where it was grown, the jobs' proofs
//! below it. The result is verified (`verified_text`) before anything trusts it.

use std::collections::HashSet;

use shakmaty::{variant::Antichess, Position};

use super::{
    search::{attacker_moves, root_id, solved_key, StoreProblem},
    Link, NodeId, NodeState, ProofStore, Result, StoreError, StoreTx, TxKind,
};
use crate::{
    proof::{
        tree::{position_id, ProofTree},
        verify,
    },
    rules::{notation, outcome, StalemateRule},
    tablebase::Tablebases,
};

/// Puts the whole proof together from the store's tree and its jobs' proofs, when the root is
/// proved. The caller verifies it before trusting it.
pub fn extract(store: &mut impl ProofStore, problem: &StoreProblem) -> Result<Option<ProofTree>> {
    store.transaction(TxKind::Read, |tx| {
        let root = root_id(tx, problem)?;
        let node = tx
            .node(root)?
            .ok_or_else(|| StoreError::Corrupt("root".into()))?;
        if node.state != NodeState::Proved {
            return Ok(None);
        }
        proof_below(tx, problem, root, problem.root()).map(Some)
    })
}

/// The proof of a proved node of the store's tree, `pos` being its position (its subtree in the
/// tree, the jobs' proofs below).
pub fn proof_below(
    tx: &mut dyn StoreTx,
    problem: &StoreProblem,
    id: NodeId,
    pos: &Antichess,
) -> Result<ProofTree> {
    let mut merge = Merge {
        rule: problem.rule,
        entries: Vec::new(),
        seen: HashSet::new(),
    };
    merge.visit(tx, id, pos)?;
    Ok(ProofTree {
        rule: problem.rule,
        winner: problem.attacker(),
        root: pos.clone(),
        entries: merge.entries,
    })
}

struct Merge {
    rule: StalemateRule,
    entries: Vec<(String, Vec<shakmaty::Move>)>,
    seen: HashSet<String>,
}

impl Merge {
    fn visit(&mut self, tx: &mut dyn StoreTx, id: NodeId, pos: &Antichess) -> Result<()> {
        let position = position_id(pos);
        if self.seen.contains(&position) {
            return Ok(());
        }
        let node = tx
            .node(id)?
            .ok_or_else(|| StoreError::Corrupt(format!("node {id}")))?;
        if node.state != NodeState::Proved {
            return Err(StoreError::Corrupt(format!(
                "node {id} is on the proof but not proved"
            )));
        }
        let links = tx.links(id)?;
        if links.is_empty() {
            // Proved by a job, or known solved when it was added.
            let solved = tx
                .solved(&solved_key(&node.fen))?
                .filter(|s| s.attacker_wins)
                .ok_or_else(|| StoreError::Corrupt(format!("no proof for node {id}")))?;
            if let Some(text) = solved.proof {
                let proof = verify::read_proof(&text)
                    .map_err(|e| StoreError::Corrupt(format!("the proof of node {id}: {e}")))?;
                for (position, moves) in proof.entries {
                    if self.seen.insert(position.clone()) {
                        self.entries.push((position, moves));
                    }
                }
                return Ok(());
            }
            return match solved.node {
                Some(other) if other != id => self.visit(tx, other, pos),
                _ => Err(StoreError::Corrupt(format!("no proof for node {id}"))),
            };
        }
        self.seen.insert(position.clone());
        let chosen: Vec<&Link> = if attacker_moves(node.ply) {
            // One won move; an edge the rules decide first, else the cheapest child.
            let best = links
                .iter()
                .filter(|l| l.state == NodeState::Proved)
                .min_by_key(|l| l.child.is_some())
                .ok_or_else(|| StoreError::Corrupt(format!("node {id}: no proved move")))?;
            vec![best]
        } else {
            if let Some(l) = links.iter().find(|l| l.state != NodeState::Proved) {
                return Err(StoreError::Corrupt(format!(
                    "node {id}: reply {} not proved",
                    l.mv
                )));
            }
            links.iter().collect()
        };
        let mut moves = Vec::with_capacity(chosen.len());
        for link in &chosen {
            moves.push(
                notation::parse_uci_move(pos, &link.mv)
                    .map_err(|e| StoreError::Corrupt(format!("node {id}: {}: {e}", link.mv)))?,
            );
        }
        self.entries.push((position, moves.clone()));
        for (link, m) in chosen.into_iter().zip(moves) {
            let mut child = pos.clone();
            child.play_unchecked(m);
            match link.child {
                Some(c) => self.visit(tx, c, &child)?,
                None => {
                    // A leaf: the rules end the game here, or the tables decide it.
                    if outcome::position_outcome(&child, self.rule).is_none() {
                        let leaf = position_id(&child);
                        if self.seen.insert(leaf.clone()) {
                            self.entries.push((leaf, Vec::new()));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Verifies an extracted proof: its text when it checks out.
pub fn verified_text(
    proof: &ProofTree,
    tables: Option<&Tablebases>,
) -> std::result::Result<String, verify::VerifyError> {
    let text = proof.to_text();
    verify::verify_with_tables(&text, tables)?;
    Ok(text)
}
