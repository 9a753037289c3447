//! Thinned books: a proof book that keeps only the winner's positions of large sub-proofs.
//!
//! A proof tree is mostly small sub-proofs: of the 2.6 million winner's positions the first
//! 1.b4 store proved, most sit under a position whose whole proof holds a few dozen more. The
//! progress book (`book/progress.book`) only needs to be fast to look up at the positions a game
//! or a prover run is likely to meet, and complete enough that the verifier can see every tree
//! again. So `thinned` drops each winner's position whose proof holds at most `small` winner's
//! positions (weights counted along the tree, a shared position once per way to it), keeps the
//! roots, and records `fill_nodes`: where the rebuilt tree (`ProofBook::tree_below`) meets a
//! winner's position without an entry, `fill` finds a proof of it again with df-pn (the tables as
//! leaves, a fixed table size, the position's clock reset, so the same search runs on any
//! machine) within `FILL_SLACK` times those nodes.
//!
//! Before a thinned book is returned, every root's tree is rebuilt exactly as the verifier's
//! caller will rebuild it, with the fill nodes themselves (a quarter of what a rebuild allows, so
//! a later, slightly different prover still finds them): a position whose search fails is put
//! back, and the rebuild runs again until none fails. The result is still checked by the
//! verifier like any book (`syotti book verify`, and CI).

use std::collections::{HashMap, HashSet};

use shakmaty::{variant::Antichess, Color, Move, Position};

use super::{polyglot_key, position_id, position_of_id, BookError, ProofBook, VERSION};
use crate::{
    proof::{dfpn::prove_with_tables, ProofLimits, ProofOutcome},
    rules::{notation, outcome, StalemateRule},
    tablebase::Tablebases,
};

/// A rebuild gives each left-out sub-proof this many times the book's fill nodes.
pub const FILL_SLACK: u64 = 4;
/// The proof table of a fill search, MiB: fixed, so that the search is the same everywhere.
const FILL_MEMORY_MB: usize = 1;

/// What thinning did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Thinning {
    pub book: ProofBook,
    /// Winner's positions before and after.
    pub before: usize,
    pub kept: usize,
    /// Positions put back because their search failed within the fill nodes.
    pub put_back: usize,
    /// Rebuilds run (the last found nothing to put back).
    pub rounds: usize,
}

/// What a rebuild for thinning saw besides the tree.
#[derive(Debug, Default)]
pub(super) struct Audit {
    /// The winner's positions without a move, left as leaves.
    pub unfilled: Vec<Antichess>,
    /// The winner's positions whose sub-proofs were found again.
    pub filled: Vec<Antichess>,
}

/// Finds a proof that the side to move wins `pos` within `nodes`, records its winner's moves in
/// `found`, and returns the move at `pos`.
pub(super) fn fill(
    pos: &Antichess,
    rule: StalemateRule,
    tables: Option<&Tablebases>,
    nodes: u64,
    found: &mut HashMap<String, Move>,
) -> Option<Move> {
    // Proof files know no move counters: search the position with a fresh clock.
    let fresh = position_of_id(&position_id(pos)).ok()?;
    let limits = ProofLimits {
        nodes: Some(nodes),
        time: None,
        memory_mb: FILL_MEMORY_MB,
    };
    let known = (tables.map(|t| (t, usize::MAX)), None);
    let report = prove_with_tables(&fresh, rule, &[], &limits, known, None, None).ok()?;
    let ProofOutcome::Win { best, proof } = report.outcome else {
        return None;
    };
    // A position already known keeps its move: the walk may have played it already.
    for (id, m) in proof.winner_moves() {
        found.entry(id).or_insert(m);
    }
    Some(best)
}

/// The winner's positions of a cycle in a rebuilt tree (`ProofBook::walk`'s entries), if the
/// moves listed run in one.
fn cycle_in(tree: &[(Antichess, String, Vec<Move>)], winner: Color) -> Option<Vec<Antichess>> {
    let index: HashMap<&str, usize> = tree
        .iter()
        .enumerate()
        .map(|(i, (_, id, _))| (id.as_str(), i))
        .collect();
    let children = |i: usize| -> Vec<usize> {
        let (pos, _, moves) = &tree[i];
        moves
            .iter()
            .filter_map(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                index.get(position_id(&child).as_str()).copied()
            })
            .collect()
    };
    // Iterative depth-first search: 0 unseen, 1 on the stack, 2 done.
    let mut state = vec![0u8; tree.len()];
    for start in 0..tree.len() {
        if state[start] != 0 {
            continue;
        }
        let mut stack = vec![(start, children(start), 0usize)];
        state[start] = 1;
        while let Some((node, kids, next)) = stack.last_mut() {
            let Some(&kid) = kids.get(*next) else {
                state[*node] = 2;
                stack.pop();
                continue;
            };
            *next += 1;
            match state[kid] {
                0 => {
                    state[kid] = 1;
                    let grandkids = children(kid);
                    stack.push((kid, grandkids, 0));
                }
                1 => {
                    let from = stack.iter().position(|&(n, _, _)| n == kid).unwrap_or(0);
                    return Some(
                        stack[from..]
                            .iter()
                            .map(|&(n, _, _)| &tree[n].0)
                            .filter(|pos| pos.turn() == winner)
                            .cloned()
                            .collect(),
                    );
                }
                _ => {}
            }
        }
    }
    None
}

impl ProofBook {
    /// The book without the winner's positions whose proofs hold at most `small` winner's
    /// positions, each of them found again within `fill_nodes` (see the module note).
    pub fn thinned(
        &self,
        small: u64,
        fill_nodes: u64,
        tables: Option<&Tablebases>,
    ) -> Result<Thinning, BookError> {
        let weights = self.weights(tables);
        let mut keep: HashSet<u64> = weights
            .iter()
            .filter(|&(_, &w)| w > small)
            .map(|(&key, _)| key)
            .collect();
        for root in &self.roots {
            if let Ok(pos) = notation::parse_fen(&root.fen) {
                keep.insert(polyglot_key(&pos));
            }
        }
        let mut put_back = 0;
        let mut rounds = 0;
        // A root's tree is rebuilt again only when a position it met was put back.
        let mut dirty = vec![true; self.roots.len()];
        let mut met: Vec<Vec<u64>> = vec![Vec::new(); self.roots.len()];
        loop {
            rounds += 1;
            let book = self.keeping(&keep, fill_nodes);
            let mut back: HashSet<u64> = HashSet::new();
            for (i, root) in self.roots.iter().enumerate() {
                if !dirty[i] {
                    continue;
                }
                let pos = notation::parse_fen(&root.fen).map_err(|e| BookError::Hole {
                    path: "the root".to_string(),
                    reason: e.to_string(),
                })?;
                let mut audit = Audit::default();
                let tree = book.walk(&pos, root.winner, tables, fill_nodes, Some(&mut audit))?;
                met[i] = tree
                    .iter()
                    .map(|(p, ..)| p)
                    .chain(&audit.unfilled)
                    .filter(|p| p.turn() == root.winner)
                    .map(polyglot_key)
                    .collect();
                for pos in &audit.unfilled {
                    // Only positions the full book has a move for can go back.
                    if self.lookup(pos).is_none() {
                        return Err(BookError::Hole {
                            path: position_id(pos),
                            reason: "the full book has no move there either".to_string(),
                        });
                    }
                    back.insert(polyglot_key(pos));
                }
                if !audit.unfilled.is_empty() {
                    continue;
                }
                // Moves of different proofs can meet in a cycle. Put back the cycle's positions
                // the full book has, else the positions whose sub-proofs were searched for this
                // tree (the full book's moves, which never cycle, then lead one level further).
                if let Some(cycle) = cycle_in(&tree, root.winner) {
                    let missing = |p: &&Antichess| {
                        self.lookup(p).is_some() && !keep.contains(&polyglot_key(p))
                    };
                    let mut again: Vec<u64> =
                        cycle.iter().filter(missing).map(polyglot_key).collect();
                    if again.is_empty() {
                        again = audit
                            .filled
                            .iter()
                            .filter(missing)
                            .map(polyglot_key)
                            .collect();
                    }
                    if again.is_empty() {
                        return Err(BookError::Hole {
                            path: root.fen.clone(),
                            reason: "a cycle of moves the full book cannot break".to_string(),
                        });
                    }
                    back.extend(again);
                }
            }
            back.retain(|key| !keep.contains(key));
            if back.is_empty() {
                return Ok(Thinning {
                    before: self.len(),
                    kept: book.len(),
                    book,
                    put_back,
                    rounds,
                });
            }
            put_back += back.len();
            keep.extend(&back);
            for (d, keys) in dirty.iter_mut().zip(&met) {
                *d = keys.iter().any(|k| back.contains(k));
            }
        }
    }

    /// This book with only the entries whose keys are in `keep`.
    fn keeping(&self, keep: &HashSet<u64>, fill_nodes: u64) -> ProofBook {
        ProofBook {
            rule: self.rule,
            version: VERSION,
            fill_nodes,
            roots: self.roots.clone(),
            entries: self
                .entries
                .iter()
                .filter(|e| keep.contains(&super::entry_key(e)))
                .copied()
                .collect(),
        }
    }

    /// For every winner's position of the roots' trees, the winner's positions its proof holds
    /// (itself included), counted along the tree: a position reached two ways counts twice.
    fn weights(&self, tables: Option<&Tablebases>) -> HashMap<u64, u64> {
        let mut memo = HashMap::new();
        for root in &self.roots {
            if let Ok(pos) = notation::parse_fen(&root.fen) {
                self.weigh(&pos, root.winner, tables, &mut memo);
            }
        }
        memo.retain(|_, &mut (winner_to_move, _)| winner_to_move);
        memo.into_iter().map(|(key, (_, w))| (key, w)).collect()
    }

    /// The weight of `pos` (memo: key → whether the winner is to move, weight). Recursive, one
    /// frame a ply: callers run it on a large stack.
    fn weigh(
        &self,
        pos: &Antichess,
        winner: Color,
        tables: Option<&Tablebases>,
        memo: &mut HashMap<u64, (bool, u64)>,
    ) -> u64 {
        let key = polyglot_key(pos);
        if let Some(&(_, w)) = memo.get(&key) {
            return w;
        }
        let winner_to_move = pos.turn() == winner;
        // Zero while it is being weighed: a cycle adds nothing.
        memo.insert(key, (winner_to_move, 0));
        if self.table_leaf(pos, tables) || outcome::position_outcome(pos, self.rule).is_some() {
            return 0;
        }
        let moves = if winner_to_move {
            match self.lookup(pos) {
                Some(hit) => vec![hit.best],
                None => return 0,
            }
        } else {
            pos.legal_moves().to_vec()
        };
        let mut weight = u64::from(winner_to_move);
        for m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            weight = weight.saturating_add(self.weigh(&child, winner, tables, memo));
        }
        memo.insert(key, (winner_to_move, weight));
        weight
    }

    /// Nodes within which each left-out sub-proof is found again (0: a complete book).
    pub fn fill_nodes(&self) -> u64 {
        self.fill_nodes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proof::{prove, verify::verify};

    #[test]
    fn a_thinned_book_keeps_less_and_its_tree_still_verifies() {
        // Törngren's study: a proof of a few dozen positions.
        let pos = notation::parse_fen("8/8/p7/8/8/8/7P/8 w - - 0 1").expect("valid");
        let rule = StalemateRule::default();
        let report = prove(&pos, rule, &[], &ProofLimits::default(), None, None).expect("table");
        let ProofOutcome::Win { proof, .. } = report.outcome else {
            panic!("the study is a win");
        };
        let full = ProofBook::from_proofs(&[proof]).expect("one rule");
        let thin = full.thinned(4, 20_000, None).expect("thins");
        assert!(thin.kept < thin.before, "{} of {}", thin.kept, thin.before);
        assert!(thin.kept >= 1, "the root stays");
        let book = thin.book;
        assert_eq!(book.fill_nodes(), 20_000);
        // Written and read back, the tree rebuilt with searches passes the verifier.
        let again = ProofBook::from_bytes(&book.to_bytes()).expect("reads back");
        assert_eq!(again, book);
        let text = again.proof_text(&again.roots()[0], None).expect("no hole");
        assert_eq!(verify(&text).expect("valid").winner, Color::White);
        // Without its fill nodes the same entries leave holes.
        let holed = ProofBook {
            fill_nodes: 0,
            ..again
        };
        assert!(holed.proof_text(&holed.roots()[0], None).is_err());
    }
}
