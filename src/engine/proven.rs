//! Positions the engine has proved, remembered for the rest of the session.
//!
//! Every verified proof the root scan finds is learnt whole: for each position of the proof
//! tree, who wins, the winner's move when the winner is to move, and the plies to the farthest
//! leaf below it. A later search whose root is such a position answers from memory: as the
//! winner it plays the proof's move at once with its mate score; as the loser with a single
//! legal move it shows the proven score instead of a shallow one (with a choice it still
//! searches, to resist as long as it can).
//!
//! Proof files identify positions without move counters, so a remembered position is used only
//! when the fifty-move rule cannot interfere: its halfmove clock plus the plies left in the proof
//! stay under one hundred.

use std::collections::HashMap;

use shakmaty::{variant::Antichess, Color, Move, Position};

use crate::{
    proof::{
        tree::{id_turn, position_id, ProofTree},
        Distance,
    },
    rules::{game::FIFTY_MOVE_PLIES, StalemateRule},
};

/// Above this many remembered positions the memory starts afresh (a few hundred MB at most).
const MAX_POSITIONS: usize = 2_000_000;

/// What is known of a proven position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProvenNode {
    pub winner: Color,
    /// The winner's move, when the winner is to move.
    pub best: Option<Move>,
    /// How far the proof reaches below the position.
    pub distance: Distance,
}

#[derive(Debug, Default)]
pub struct ProvenPositions {
    nodes: HashMap<(StalemateRule, String), ProvenNode>,
}

impl ProvenPositions {
    /// Remembers every position of a verified proof.
    pub fn learn(&mut self, proof: &ProofTree) {
        let depths = proof.depths();
        if self.nodes.len() + depths.len() > MAX_POSITIONS {
            self.nodes.clear();
        }
        for (id, (moves, distance)) in depths {
            let best = (id_turn(&id) == proof.winner)
                .then(|| moves.first().copied())
                .flatten();
            self.keep_shorter(
                (proof.rule, id),
                ProvenNode {
                    winner: proof.winner,
                    best,
                    distance,
                },
            );
        }
    }

    /// Remembers one position (a root whose win was proved through a move).
    pub fn remember(&mut self, pos: &Antichess, rule: StalemateRule, node: ProvenNode) {
        self.keep_shorter((rule, position_id(pos)), node);
    }

    /// Where two proofs meet, the shorter one is kept: along the winner's remembered moves the
    /// distance then always falls, so the memory has no cycle (`proof::history` relies on it).
    fn keep_shorter(&mut self, key: (StalemateRule, String), node: ProvenNode) {
        if self
            .nodes
            .get(&key)
            .is_none_or(|old| node.distance.plies < old.distance.plies)
        {
            self.nodes.insert(key, node);
        }
    }

    /// What is proven of `pos` under `rule`, if the fifty-move rule cannot spoil it.
    pub fn lookup(&self, pos: &Antichess, rule: StalemateRule) -> Option<ProvenNode> {
        let node = self.nodes.get(&(rule, position_id(pos)))?;
        (pos.halfmoves() + node.distance.plies < FIFTY_MOVE_PLIES).then_some(*node)
    }

    /// A line from `pos` starting with `first`: the winner's proven moves, and for the loser the
    /// reply with the longest resistance the memory knows of; at most `plies` long.
    pub fn line(
        &self,
        pos: &Antichess,
        rule: StalemateRule,
        first: Move,
        plies: usize,
    ) -> Vec<Move> {
        let mut line = vec![first];
        let mut pos = pos.clone();
        pos.play_unchecked(first);
        while line.len() < plies.max(1) {
            let Some(node) = self.nodes.get(&(rule, position_id(&pos))) else {
                break;
            };
            let next = if node.winner == pos.turn() {
                node.best
            } else {
                pos.legal_moves().iter().copied().max_by_key(|&m| {
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    self.nodes
                        .get(&(rule, position_id(&child)))
                        .map_or(0, |n| n.distance.plies + 1)
                })
            };
            let Some(m) = next else { break };
            line.push(m);
            pos.play_unchecked(m);
        }
        line
    }
}
