//! Proof trees: extraction from a solved search, and the proof file format.
//!
//! Format (text, one record a line, `#` starts a comment):
//!
//! ```text
//! syotti-proof 1
//! stalemate stalemated-side-wins
//! winner black
//! root rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1
//! rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - : b7b5
//! rnbqkbnr/p1pppppp/8/1p6/4P3/8/PPPP1PPP/RNBQKBNR w - - : f1b5
//! ...
//! ```
//!
//! The header names the stalemate convention, the winner and the root position (full FEN, its
//! halfmove clock matters for the fifty-move rule). Then every position of the tree appears once,
//! as a FEN without move counters (en-passant square only when a capture there is possible), a
//! colon, and the moves in UCI notation: where the winner is to move, the one move played; where
//! the loser is to move, every legal reply. Positions that end the game (a win for the winner)
//! are leaves and have no line. A leaf decided by the endgame tables (reached by a capture or
//! pawn move) has the word `tablebase` instead of moves; the verifier probes it again. The tree is
//! a DAG: a position reached twice is written once.

use std::{
    collections::{HashMap, HashSet},
    fmt::Write as _,
};

use shakmaty::{fen::Fen, variant::Antichess, Color, EnPassantMode, Move, Position};

use super::{dfpn::Dfpn, Distance};
use crate::rules::{hash, movegen::count_legal_moves, to_fen, uci, StalemateRule};

pub const FORMAT_HEADER: &str = "syotti-proof 1";
/// Marks a leaf that the endgame tables decide (right after a capture or pawn move).
pub const TABLEBASE_LEAF: &str = "tablebase";

/// The side to move of a position identified by `position_id`.
pub fn id_turn(id: &str) -> Color {
    if id.split_whitespace().nth(1) == Some("b") {
        Color::Black
    } else {
        Color::White
    }
}

/// A position's identity in a proof file: FEN without move counters.
pub fn position_id(pos: &Antichess) -> String {
    let fen = Fen::from_position(pos, EnPassantMode::Legal).to_string();
    fen.split_whitespace().take(4).collect::<Vec<_>>().join(" ")
}

/// The position a `position_id` names, with a fresh clock (proof files know no move counters).
pub fn position_of_id(id: &str) -> Result<Antichess, crate::rules::notation::FenError> {
    crate::rules::notation::parse_fen(&format!("{id} 0 1"))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofTree {
    pub rule: StalemateRule,
    pub winner: Color,
    pub root: Antichess,
    /// Positions in the order they were first reached, with their moves.
    pub entries: Vec<(String, Vec<Move>)>,
}

impl ProofTree {
    /// The moves listed for each position of the proof.
    fn moves_by_position(&self) -> HashMap<&str, &Vec<Move>> {
        self.entries
            .iter()
            .map(|(id, moves)| (id.as_str(), moves))
            .collect()
    }

    /// The winner's move in each of its positions, keyed by `position_id`.
    pub fn winner_moves(&self) -> HashMap<String, Move> {
        self.entries
            .iter()
            .filter(|(id, _)| id_turn(id) == self.winner)
            .filter_map(|(id, moves)| Some((id.clone(), *moves.first()?)))
            .collect()
    }

    /// The winner's first move, when the winner is to move at the root.
    pub fn root_move(&self) -> Option<Move> {
        if self.root.turn() != self.winner {
            return None;
        }
        self.moves_by_position()
            .get(position_id(&self.root).as_str())
            .and_then(|moves| moves.first().copied())
    }

    /// The main line: the winner's moves, and for the loser the reply with the longest
    /// resistance within the proof (the deepest subtree), so that the line is as long as the
    /// mate distance the proof reports.
    pub fn main_line(&self, max_plies: usize) -> Vec<Move> {
        let index = self.moves_by_position();
        let mut memo = HashMap::new();
        let mut pos = self.root.clone();
        let mut line = Vec::new();
        while line.len() < max_plies {
            let Some(moves) = index.get(position_id(&pos).as_str()) else {
                break;
            };
            let next = if pos.turn() == self.winner {
                moves.first().copied()
            } else {
                moves.iter().copied().max_by_key(|&m| {
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    depth_below(&child, &index, &mut memo, 0).plies
                })
            };
            let Some(m) = next else { break };
            line.push(m);
            pos.play_unchecked(m);
        }
        line
    }

    /// Plies from the root to the farthest leaf: the winner's moves as written, every reply of
    /// the loser. The win comes in at most `(depth + 1) / 2` moves of the winner when the
    /// distance is exact (no table leaf below).
    pub fn depth(&self) -> Distance {
        let index = self.moves_by_position();
        let mut memo = HashMap::new();
        depth_below(&self.root, &index, &mut memo, 0)
    }

    /// Every listed position with its moves and its distance (as `depth` counts it), keyed by
    /// `position_id`.
    pub fn depths(&self) -> HashMap<String, (Vec<Move>, Distance)> {
        let index = self.moves_by_position();
        let mut memo = HashMap::new();
        depth_below(&self.root, &index, &mut memo, 0);
        memo.into_iter()
            .filter_map(|(id, d)| {
                let moves = index.get(id.as_str())?;
                Some((id, ((*moves).clone(), d)))
            })
            .collect()
    }

    pub fn to_text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "{FORMAT_HEADER}");
        let _ = writeln!(out, "# {} positions", self.entries.len());
        let _ = writeln!(out, "stalemate {}", self.rule.name());
        let winner = if self.winner.is_white() {
            "white"
        } else {
            "black"
        };
        let _ = writeln!(out, "winner {winner}");
        let _ = writeln!(out, "root {}", to_fen(&self.root));
        for (id, moves) in &self.entries {
            if moves.is_empty() {
                let _ = writeln!(out, "{id} : {TABLEBASE_LEAF}");
            } else {
                let moves: Vec<String> = moves.iter().map(|&m| uci(m)).collect();
                let _ = writeln!(out, "{id} : {}", moves.join(" "));
            }
        }
        out
    }
}

fn depth_below(
    pos: &Antichess,
    index: &HashMap<&str, &Vec<Move>>,
    memo: &mut HashMap<String, Distance>,
    guard: usize,
) -> Distance {
    let id = position_id(pos);
    if let Some(&d) = memo.get(&id) {
        return d;
    }
    // A position the proof does not list is an end of the game by the rules.
    let Some(moves) = index.get(id.as_str()) else {
        return Distance {
            plies: 0,
            exact: true,
        };
    };
    // An extracted proof has no cycles; the guard only protects against a hand-made file.
    if guard > super::dfpn::MAX_PROOF_PLIES {
        return Distance {
            plies: 0,
            exact: false,
        };
    }
    // A table leaf lists no moves: the game goes on in the tables.
    let mut deepest = Distance {
        plies: 0,
        exact: !moves.is_empty(),
    };
    for &m in moves.iter() {
        let mut child = pos.clone();
        child.play_unchecked(m);
        deepest = deepest.farthest(depth_below(&child, index, memo, guard + 1));
    }
    let d = deepest.up();
    memo.insert(id, d);
    d
}

/// Extracts the proof tree of a solved search (attacker = winner), re-proving what the table
/// forgot. `None` if no proof valid along its own paths can be put together within the budget.
///
/// The table's values were found on many different paths, so greedily following them can run
/// into a repetition (a draw) on the path actually taken. Extraction therefore backtracks: at a
/// winner's node it tries the proved moves cheapest first, undoing what a failed try wrote, and
/// when none works here it proves the node again on this very path.
pub(super) fn extract(search: &mut Dfpn, root: &Antichess, key: u64) -> Option<ProofTree> {
    let mut tree = ProofTree {
        rule: search.rule,
        winner: search.attacker,
        root: root.clone(),
        entries: Vec::new(),
    };
    let mut extraction = Extraction {
        seen: HashSet::new(),
        seen_log: Vec::new(),
        entries: Vec::new(),
    };
    if extraction.visit(search, root, key) {
        tree.entries = extraction.entries;
        Some(tree)
    } else {
        None
    }
}

struct Extraction {
    seen: HashSet<u64>,
    /// Keys in the order they were added to `seen`, for undoing a failed try.
    seen_log: Vec<u64>,
    entries: Vec<(String, Vec<Move>)>,
}

impl Extraction {
    fn undo_to(&mut self, seen_len: usize, entries_len: usize) {
        for key in self.seen_log.drain(seen_len..) {
            self.seen.remove(&key);
        }
        self.entries.truncate(entries_len);
    }

    fn visit(&mut self, search: &mut Dfpn, pos: &Antichess, key: u64) -> bool {
        if search.aborted {
            return false;
        }
        if let Some((phi, _)) = search.rules_values(pos, key, count_legal_moves(pos)) {
            // A leaf: it must be the winner's.
            let won = (phi == 0) == (pos.turn() == search.attacker);
            if !won || crate::rules::outcome::position_outcome(pos, search.rule).is_some() {
                return won;
            }
            // Leaves decided by the tables (not by the rules) are written down for the verifier.
            if search.table_wdl(pos).is_some() {
                if self.seen.insert(key) {
                    self.seen_log.push(key);
                    self.entries.push((position_id(pos), Vec::new()));
                }
                return true;
            }
            // A position the book proves: its proof is copied from the book.
            return search.book_win(pos, key).is_none() || self.book_leaf(search, pos, key);
        }
        if self.seen.contains(&key) {
            return true;
        }
        self.seen.insert(key);
        self.seen_log.push(key);
        let (seen_len, entries_len) = (self.seen_log.len(), self.entries.len());
        search.path.push(key);
        let ok = if pos.turn() == search.attacker {
            self.visit_winner(search, pos, key, seen_len, entries_len)
        } else {
            let moves = pos.legal_moves();
            self.entries.push((position_id(pos), moves.to_vec()));
            moves.iter().all(|&m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                let child_key = hash::key_after(pos, key, m, &child);
                self.visit(search, &child, child_key)
            })
        };
        search.path.pop();
        if !ok {
            self.undo_to(seen_len - 1, entries_len);
        }
        ok
    }

    /// Copies the book's proof below `pos` into the tree. False when the book's tree has a
    /// hole or comes back to a position of the current path (a cycle the verifier would
    /// refuse); positions the tree already holds keep their own proof.
    fn book_leaf(&mut self, search: &Dfpn, pos: &Antichess, key: u64) -> bool {
        if self.seen.contains(&key) {
            return true;
        }
        let Some(book) = search.book else {
            return false;
        };
        let tables = search.tables.map(|(tables, _)| tables);
        let Ok(below) = book.book().tree_below(pos, search.attacker, tables) else {
            log::debug!("the book's proof has a hole below {}", to_fen(pos));
            return false;
        };
        let on_path: HashSet<u64> = search.path.iter().copied().collect();
        let keyed: Vec<_> = below
            .into_iter()
            .map(|(p, id, moves)| (hash::key(&p), id, moves))
            .collect();
        if keyed.iter().any(|(k, ..)| on_path.contains(k)) {
            return false;
        }
        for (k, id, moves) in keyed {
            if self.seen.insert(k) {
                self.seen_log.push(k);
                self.entries.push((id, moves));
            }
        }
        true
    }

    fn visit_winner(
        &mut self,
        search: &mut Dfpn,
        pos: &Antichess,
        key: u64,
        seen_len: usize,
        entries_len: usize,
    ) -> bool {
        for attempt in 0..2 {
            for (m, child, child_key) in search.proved_children(pos, key) {
                self.entries.push((position_id(pos), vec![m]));
                if self.visit(search, &child, child_key) {
                    return true;
                }
                self.undo_to(seen_len, entries_len);
            }
            if attempt == 0 && !search.reprove_on_path(pos, key) {
                break;
            }
        }
        log::debug!("proof extraction found no winning move at {}", to_fen(pos));
        false
    }
}
