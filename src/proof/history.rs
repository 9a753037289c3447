//! Proven answers against the game's history: could the proof's line repeat a position played?
//!
//! Proofs identify positions without their past, and verify them as if the game started at the
//! proved position. In a game, a position that already occurred twice since the last capture or
//! pawn move is drawn on its third occurrence, so a proof whose loser can steer into such a
//! position does not hold there. This module walks the part of a proof that can meet the game's
//! history: from the proved position, through the reversible moves only (no capture, no pawn
//! move: one of those makes every earlier position unreachable), the winner's proven move and
//! every legal reply of the loser. The proof holds in this game if no position of that walk
//! occurred twice already and the walk has no cycle.
//!
//! The sources (the book, a verified proof tree, the engine's memory of proofs) are acyclic: along
//! the winner's moves the distance to the end strictly falls. So without an earlier position in
//! the window nothing can repeat and there is no walk at all. A walk that would pass `MAX_WALK`
//! positions, or that meets a winner's position the source does not know, answers "may repeat":
//! the caller then gives no proven answer and lets the search play.

use std::collections::{HashMap, HashSet};

use shakmaty::{variant::Antichess, Color, Move, Position, Role};

use crate::rules::{hash, outcome, StalemateRule};

/// The most positions one check visits before it gives up (and the answer is not given): a
/// few milliseconds at most, so that a game's clock never pays for it; the search plays instead.
pub const MAX_WALK: usize = 5_000;

/// The game's positions since the last irreversible move before `root`, with how often each
/// occurred (the root itself not counted). `history` holds the game's keys, `root` last.
fn earlier_counts(root: &Antichess, history: &[u64]) -> HashMap<u64, usize> {
    let earlier = match history.split_last() {
        Some((&last, rest)) if last == hash::key(root) => rest,
        _ => history,
    };
    let window = (root.halfmoves() as usize).min(earlier.len());
    let mut counts = HashMap::new();
    for &key in &earlier[earlier.len() - window..] {
        *counts.entry(key).or_insert(0) += 1;
    }
    counts
}

fn reversible(m: Move) -> bool {
    !m.is_capture() && m.role() != Role::Pawn
}

struct Walk<'a, F> {
    rule: StalemateRule,
    winner: Color,
    winner_move: F,
    counts: &'a HashMap<u64, usize>,
    on_path: HashSet<u64>,
    done: HashSet<u64>,
    visited: usize,
}

impl<F: Fn(&Antichess) -> Option<Move>> Walk<'_, F> {
    /// Whether the line cannot repeat below `pos` (depth-first; a back edge is a cycle).
    fn holds(&mut self, pos: &Antichess, key: u64) -> bool {
        if self.done.contains(&key) {
            return true;
        }
        self.visited += 1;
        if self.visited > MAX_WALK {
            return false;
        }
        let moves: Vec<Move> = if pos.turn() == self.winner {
            match (self.winner_move)(pos) {
                Some(m) => vec![m],
                None => return false,
            }
        } else {
            pos.legal_moves().to_vec()
        };
        self.on_path.insert(key);
        for m in moves.into_iter().filter(|&m| reversible(m)) {
            let mut child = pos.clone();
            child.play_unchecked(m);
            // A position that ends the game by itself (no pieces, stalemate) ends it before any
            // repetition is counted.
            if outcome::position_outcome(&child, self.rule)
                .is_some_and(|o| o.termination != outcome::Termination::DeadPosition)
            {
                continue;
            }
            let child_key = hash::key(&child);
            let third = self.counts.get(&child_key).is_some_and(|&c| c >= 2);
            if third || self.on_path.contains(&child_key) || !self.holds(&child, child_key) {
                return false;
            }
        }
        self.on_path.remove(&key);
        self.done.insert(key);
        true
    }
}

/// Whether the loser could draw by repetition against the proof of `winner` from `root` in this
/// game (`history`: the game's keys, `root` last), given the winner's proven move in each of its
/// positions (`winner_move`). True also when the check cannot be completed.
pub fn may_repeat(
    root: &Antichess,
    rule: StalemateRule,
    winner: Color,
    history: &[u64],
    winner_move: impl Fn(&Antichess) -> Option<Move>,
) -> bool {
    let counts = earlier_counts(root, history);
    if counts.is_empty() {
        return false;
    }
    let mut walk = Walk {
        rule,
        winner,
        winner_move,
        counts: &counts,
        on_path: HashSet::new(),
        done: HashSet::new(),
        visited: 0,
    };
    !walk.holds(root, hash::key(root))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{notation, Game};

    /// White's knight and Black's knight shuffle: with the position after Black's reply played
    /// twice already, a proof in which Black can play that reply may repeat; without that history
    /// it cannot.
    #[test]
    fn a_position_played_twice_before_breaks_the_line() {
        let mut game =
            Game::from_fen("n7/8/8/8/8/8/8/7N w - - 0 1", StalemateRule::default()).expect("valid");
        for m in ["h1g3", "a8b6", "g3h1", "b6a8", "h1g3", "a8b6", "g3h1"] {
            game.play_text(m).expect("legal");
        }
        // Black to move; b6a8 leads to the position after White's h1g3... played twice.
        let pos = game.position().clone();
        let white_back = |p: &Antichess| {
            notation::parse_uci_move(p, "h1g3")
                .ok()
                .or_else(|| p.legal_moves().first().copied())
        };
        assert!(may_repeat(
            &pos,
            StalemateRule::default(),
            Color::White,
            game.keys(),
            white_back
        ));
        let fresh = [hash::key(&pos)];
        assert!(!may_repeat(
            &pos,
            StalemateRule::default(),
            Color::White,
            &fresh,
            white_back
        ));
    }
}
