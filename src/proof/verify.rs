//! Re-checking a proof file from scratch, with the rules layer alone.
//!
//! Starting at the root, every position where the winner is to move must have a line with one
//! legal move; every position where the loser is to move must list exactly its legal replies; and
//! every path must end in a position the rules score as a win for the winner. A position that the
//! rules score as a draw or a loss along any path (repetition, fifty moves, dead position,
//! stalemate under the convention) breaks the proof, and so does a cycle.
//!
//! The tree is a DAG, so positions already verified are not verified again: depth-first search
//! with the classic in-progress / done marks. A position is done for a given halfmove clock and
//! every smaller one (a smaller clock can only make the fifty-move rule further away).

use std::collections::{HashMap, HashSet};

use shakmaty::{variant::Antichess, Color, Move, Position};
use thiserror::Error;

use shakmaty_syzygy::Wdl;

use super::tree::{position_id, position_of_id, ProofTree, FORMAT_HEADER, TABLEBASE_LEAF};
use crate::{
    rules::{game, hash, notation, StalemateRule},
    tablebase::Tablebases,
};

#[derive(Debug, Error, PartialEq, Eq)]
pub enum VerifyError {
    #[error("line {line}: {reason}")]
    Format { line: usize, reason: String },
    #[error("broken proof after {path}: {reason}")]
    Broken { path: String, reason: String },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerifyReport {
    pub winner: Color,
    pub rule: StalemateRule,
    pub root: String,
    /// Positions listed in the file.
    pub entries: usize,
    /// Distinct positions checked (leaves included).
    pub checked: usize,
}

struct Proof {
    rule: StalemateRule,
    winner: Color,
    root: Antichess,
    root_fen: String,
    moves: HashMap<String, Vec<String>>,
}

fn parse(text: &str) -> Result<Proof, VerifyError> {
    let mut rule = None;
    let mut winner = None;
    let mut root = None;
    let mut moves = HashMap::new();
    let mut saw_header = false;
    for (index, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let number = index + 1;
        let format = |reason: String| VerifyError::Format {
            line: number,
            reason,
        };
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if !saw_header {
            if line != FORMAT_HEADER {
                return Err(format(format!("expected '{FORMAT_HEADER}'")));
            }
            saw_header = true;
        } else if let Some(value) = line.strip_prefix("stalemate ") {
            rule = Some(value.parse().map_err(|e| format(format!("{e}")))?);
        } else if let Some(value) = line.strip_prefix("winner ") {
            winner = Some(match value.trim() {
                "white" => Color::White,
                "black" => Color::Black,
                other => return Err(format(format!("unknown winner '{other}'"))),
            });
        } else if let Some(value) = line.strip_prefix("root ") {
            let pos = notation::parse_fen(value).map_err(|e| format(e.to_string()))?;
            root = Some((pos, value.trim().to_string()));
        } else if let Some((id, list)) = line.split_once(" : ") {
            let list: Vec<String> = list.split_whitespace().map(str::to_string).collect();
            if list.is_empty() {
                return Err(format("a position without moves".into()));
            }
            if moves.insert(id.trim().to_string(), list).is_some() {
                return Err(format(format!("position listed twice: {id}")));
            }
        } else {
            return Err(format(format!("cannot read '{line}'")));
        }
    }
    let missing = |what: &str| VerifyError::Format {
        line: 0,
        reason: format!("no '{what}' line"),
    };
    let (root, root_fen) = root.ok_or_else(|| missing("root"))?;
    Ok(Proof {
        rule: rule.ok_or_else(|| missing("stalemate"))?,
        winner: winner.ok_or_else(|| missing("winner"))?,
        root,
        root_fen,
        moves,
    })
}

struct Checker<'a> {
    proof: &'a Proof,
    /// Keys of the positions on the current path, the current one last.
    keys: Vec<u64>,
    /// UCI moves from the root to the current position.
    line: Vec<String>,
    in_progress: HashSet<u64>,
    /// Verified positions with the largest halfmove clock they were verified at.
    done: HashMap<u64, u32>,
    tables: Option<&'a Tablebases>,
}

impl Checker<'_> {
    /// A leaf the proof says the tables win for the winner: probe them again.
    fn check_table_leaf(&self, pos: &Antichess) -> Result<(), VerifyError> {
        let Some(tables) = self.tables else {
            return Err(self.broken("a tablebase leaf, but no tables were given (--syzygy)"));
        };
        if pos.halfmoves() != 0 {
            return Err(self.broken("a tablebase leaf not reached by a capture or pawn move"));
        }
        let wdl = tables
            .wdl_after_zeroing(pos, self.proof.rule, usize::MAX)
            .ok_or_else(|| self.broken("the tables have no answer for this leaf"))?;
        let winner_to_move = pos.turn() == self.proof.winner;
        let won = (winner_to_move && wdl == Wdl::Win) || (!winner_to_move && wdl == Wdl::Loss);
        if won {
            Ok(())
        } else {
            Err(self.broken(format!("the tables say {wdl:?} for the side to move here")))
        }
    }

    fn broken(&self, reason: impl Into<String>) -> VerifyError {
        let path = if self.line.is_empty() {
            "the root".to_string()
        } else {
            self.line.join(" ")
        };
        VerifyError::Broken {
            path,
            reason: reason.into(),
        }
    }

    fn check(&mut self, pos: &Antichess) -> Result<(), VerifyError> {
        let key = self.keys.last().copied().unwrap_or_else(|| hash::key(pos));
        let legal = pos.legal_moves();
        if let Some(o) = game::outcome(pos, &self.keys, self.proof.rule, !legal.is_empty()) {
            return if o.winner == Some(self.proof.winner) {
                Ok(())
            } else {
                Err(self.broken(format!("the game ends there: {o}")))
            };
        }
        if self
            .done
            .get(&key)
            .is_some_and(|&clock| pos.halfmoves() <= clock)
        {
            return Ok(());
        }
        let id = position_id(pos);
        if self
            .proof
            .moves
            .get(&id)
            .is_some_and(|m| m.len() == 1 && m[0] == TABLEBASE_LEAF)
        {
            return self.check_table_leaf(pos);
        }
        if !self.in_progress.insert(key) {
            return Err(self.broken("the proof runs in a cycle"));
        }
        let Some(listed) = self.proof.moves.get(&id) else {
            return Err(self.broken(format!("position not in the proof: {id}")));
        };
        let to_play: Vec<Move> = if pos.turn() == self.proof.winner {
            if listed.len() != 1 {
                return Err(self.broken(format!(
                    "the winner is to move and {} moves are listed, not one",
                    listed.len()
                )));
            }
            let m = notation::parse_uci_move(pos, &listed[0])
                .map_err(|e| self.broken(format!("bad winner move: {e}")))?;
            vec![m]
        } else {
            let mut expected: Vec<String> = legal.iter().map(|&m| notation::uci(m)).collect();
            let mut given = listed.clone();
            expected.sort();
            given.sort();
            if let Some(missing) = expected.iter().find(|m| !given.contains(m)) {
                return Err(self.broken(format!("the loser's reply {missing} is missing")));
            }
            if let Some(extra) = given.iter().find(|m| !expected.contains(m)) {
                return Err(self.broken(format!("{extra} is not a legal reply")));
            }
            legal.to_vec()
        };
        for m in to_play {
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.keys.push(hash::key_after(pos, key, m, &child));
            self.line.push(notation::uci(m));
            let result = self.check(&child);
            self.keys.pop();
            self.line.pop();
            result?;
        }
        self.in_progress.remove(&key);
        let clock = self.done.entry(key).or_insert(0);
        *clock = (*clock).max(pos.halfmoves());
        Ok(())
    }
}

/// Reads a proof file into a proof tree (its moves checked as legal where they stand; the tree
/// itself is checked by `verify`).
pub fn read_proof(text: &str) -> Result<ProofTree, VerifyError> {
    let proof = parse(text)?;
    let mut entries = Vec::with_capacity(proof.moves.len());
    for (id, listed) in proof.moves {
        let bad = |reason: String| VerifyError::Format { line: 0, reason };
        let pos = position_of_id(&id).map_err(|e| bad(format!("position {id}: {e}")))?;
        let moves = if listed.len() == 1 && listed[0] == TABLEBASE_LEAF {
            Vec::new()
        } else {
            listed
                .iter()
                .map(|m| notation::parse_uci_move(&pos, m))
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| bad(format!("position {id}: {e}")))?
        };
        entries.push((id, moves));
    }
    Ok(ProofTree {
        rule: proof.rule,
        winner: proof.winner,
        root: proof.root,
        entries,
    })
}

/// Verifies a proof file's text.
pub fn verify(text: &str) -> Result<VerifyReport, VerifyError> {
    verify_with_tables(text, None)
}

/// Verifies a proof file's text, probing the tables for its tablebase leaves.
pub fn verify_with_tables(
    text: &str,
    tables: Option<&Tablebases>,
) -> Result<VerifyReport, VerifyError> {
    let proof = parse(text)?;
    let mut checker = Checker {
        proof: &proof,
        keys: vec![hash::key(&proof.root)],
        line: Vec::new(),
        in_progress: HashSet::new(),
        done: HashMap::new(),
        tables,
    };
    checker.check(&proof.root)?;
    Ok(VerifyReport {
        winner: proof.winner,
        rule: proof.rule,
        root: proof.root_fen.clone(),
        entries: proof.moves.len(),
        checked: checker.done.len(),
    })
}
