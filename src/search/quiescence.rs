//! Quiescence search: follow compulsory capture chains to their end.
//!
//! In antichess a side that can capture must capture, so there is no standing pat while a capture
//! exists: every capture is searched (that is the whole move list). Only a quiet position (no
//! capture for the side to move) is scored statically.
//!
//! Capture chains branch: in the opening both sides often have several captures every ply, and
//! following all of them to the end explodes. A forced capture (the only legal move) costs
//! nothing to follow, but each node with a choice of captures uses up one unit of a small budget;
//! when it is spent, the position is scored statically. A plain ply cap guards the rest.
//!
//! The transposition table is not used here. Probing it (a bound settling a null window ends
//! the node, its move first) and storing each capture node's result at depth 0 (never over a
//! main-search entry) lost: 46.0% (+72 =40 −88) in antichess self-play at 2+0.02, 200 games
//! (branch `qstt`). A capture chain's score here depends on the budget left when it was reached,
//! which the table cannot tell apart.

use shakmaty::{variant::Antichess, Move, Position};

use super::{
    context::SearchContext,
    ordering::{pick, score_moves, Offers},
    Score, INFINITY, MAX_PLY,
};
use crate::rules::hash;

/// Nodes with a choice of captures followed at most below the main search. Two won in self-play
/// against three (54.5% over 400 games), three against four, and six lost against four.
/// Following only the best-ordered capture once the budget is spent, instead of scoring the
/// position statically, lost too (45.75% over 200 games).
const MAX_CHOICES: usize = 2;
/// Capture plies followed at most below the main search.
pub(super) const MAX_CAPTURE_PLIES: usize = 32;

impl SearchContext<'_> {
    /// Quiescence for a node whose moves are not generated yet.
    pub(super) fn quiescence(
        &mut self,
        pos: &Antichess,
        alpha: Score,
        beta: Score,
        ply: usize,
        choices: usize,
    ) -> Score {
        let mut scratch = self.take_scratch(ply);
        let score = match self.enter_node(pos, ply, &mut scratch.moves) {
            Ok(()) => self.quiescence_moves(
                pos,
                &scratch.moves,
                &mut scratch.scored,
                alpha,
                beta,
                ply,
                choices,
            ),
            Err(score) => score,
        };
        self.return_scratch(ply, scratch);
        score
    }

    /// Quiescence for a node whose moves and terminal state are known; `scored` is the node's
    /// buffer for its ordered moves.
    #[expect(
        clippy::too_many_arguments,
        reason = "the node's window and buffers, passed once"
    )]
    pub(super) fn quiescence_moves(
        &mut self,
        pos: &Antichess,
        moves: &[Move],
        scored: &mut Vec<(Move, Score)>,
        mut alpha: Score,
        beta: Score,
        ply: usize,
        choices: usize,
    ) -> Score {
        self.pv[ply].clear();
        let capturing = moves.first().is_some_and(|m| m.is_capture());
        let choices = choices + usize::from(moves.len() > 1);
        if !capturing || choices > MAX_CHOICES || ply >= MAX_PLY.min(self.root_ply_cap()) {
            return self.static_eval(pos, ply);
        }
        let key = self.keys.last().copied().unwrap_or_else(|| hash::key(pos));
        score_moves(
            self,
            pos,
            moves,
            None,
            &Offers::new(pos, moves),
            ply,
            scored,
        );
        let mut best = -INFINITY;
        for index in 0..scored.len() {
            let m = pick(scored, index);
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.keys.push(hash::key_after(pos, key, m, &child));
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1, choices);
            self.keys.pop();
            if self.stopped {
                break;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        if self.stopped {
            return 0;
        }
        best
    }
}
