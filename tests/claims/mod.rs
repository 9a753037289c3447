//! The judge of the claims audit, sharing no code with the engine: shakmaty's move generator
//! and Zobrist keys, the rules written out again (no pieces, stalemate under the convention,
//! opposite-coloured bishops, fifty moves, threefold repetition with the game's history), the
//! Syzygy tables through shakmaty-syzygy, and bounded AND/OR searches.

#![allow(dead_code, reason = "shared by the audit's files")]

pub mod positions;

use std::collections::HashMap;

use shakmaty::{
    variant::Antichess, zobrist::Zobrist64, Bitboard, Color, EnPassantMode, Move, MoveList,
    Position,
};
use shakmaty_syzygy::{Tablebase, Wdl};

// ---------------------------------------------------------------------------------------------
// Seeded randomness (SplitMix64).

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

// ---------------------------------------------------------------------------------------------
// The judge.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    StalematedSideWins,
    Draw,
    FewerPiecesWins,
}

impl Rule {
    pub const ALL: [Rule; 3] = [Rule::StalematedSideWins, Rule::Draw, Rule::FewerPiecesWins];

    pub fn uci(self) -> &'static str {
        match self {
            Rule::StalematedSideWins => "stalemated-side-wins",
            Rule::Draw => "draw",
            Rule::FewerPiecesWins => "fewer-pieces-wins",
        }
    }
}

pub fn key(pos: &Antichess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The result a position has by itself: `Some(Some(c))` a win for `c`, `Some(None)` a draw.
pub fn rules_result(pos: &Antichess, rule: Rule, moves: usize) -> Option<Option<Color>> {
    let board = pos.board();
    if board.white().is_empty() {
        return Some(Some(Color::White));
    }
    if board.black().is_empty() {
        return Some(Some(Color::Black));
    }
    let us = pos.turn();
    if moves == 0 {
        return Some(match rule {
            Rule::StalematedSideWins => Some(us),
            Rule::Draw => None,
            Rule::FewerPiecesWins => {
                let ours = board.by_color(us).count();
                let theirs = board.by_color(!us).count();
                match ours.cmp(&theirs) {
                    std::cmp::Ordering::Less => Some(us),
                    std::cmp::Ordering::Greater => Some(!us),
                    std::cmp::Ordering::Equal => None,
                }
            }
        });
    }
    // Dead: only bishops, each side's all on one square colour, the two colours different.
    let only_bishops = board.bishops() == board.occupied();
    if only_bishops {
        let colour_of = |bb: Bitboard| {
            let light = (bb & Bitboard::LIGHT_SQUARES).any();
            let dark = (bb & Bitboard::DARK_SQUARES).any();
            match (light, dark) {
                (true, false) => Some(true),
                (false, true) => Some(false),
                _ => None,
            }
        };
        if let (Some(w), Some(b)) = (colour_of(board.white()), colour_of(board.black())) {
            if w != b {
                return Some(None);
            }
        }
    }
    None
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    True,
    False,
    Unjudged,
}

pub struct Judge {
    pub rule: Rule,
    tables: Tablebase<Antichess>,
    /// Per (key, clock class, winner): largest depth known to fail, smallest known to succeed.
    memo: HashMap<(u64, u32, bool), (u32, u32)>,
    nodes: u64,
}

const JUDGE_NODES: u64 = 400_000;
/// How deep the judge of a result without distance searches for the tables' positions.
const RESULT_PLIES: u32 = 7;

impl Judge {
    pub fn new(rule: Rule, tables_dir: &str) -> Judge {
        let mut tables = Tablebase::new();
        tables
            .add_directory(tables_dir)
            .expect("the antichess tables open");
        Judge {
            rule,
            tables,
            memo: HashMap::new(),
            nodes: 0,
        }
    }

    /// Counts a node of a search and settles what the position decides by itself: `Err` with
    /// the answer when the budget is spent (`None`) or the rules end the game, else its moves.
    fn visit(&mut self, pos: &Antichess, winner: Color) -> Result<MoveList, Option<bool>> {
        self.nodes += 1;
        if self.nodes > JUDGE_NODES {
            return Err(None);
        }
        let moves = pos.legal_moves();
        match rules_result(pos, self.rule, moves.len()) {
            Some(result) => Err(Some(result == Some(winner))),
            None => Ok(moves),
        }
    }

    /// Whether `winner` forces a win from `pos` within `plies`, the positions of `counts`
    /// (occurrences in the game so far) drawing on their third occurrence. `None`: too big.
    fn forced(
        &mut self,
        pos: &Antichess,
        winner: Color,
        plies: u32,
        counts: &HashMap<u64, u32>,
    ) -> Option<bool> {
        let moves = match self.visit(pos, winner) {
            Ok(moves) => moves,
            Err(answer) => return answer,
        };
        if pos.halfmoves() >= 100 || plies == 0 {
            return Some(false);
        }
        // Memo only without a history (a repetition makes values depend on the path).
        let clock = if pos.halfmoves() + plies >= 100 {
            pos.halfmoves()
        } else {
            u32::MAX
        };
        let memo_key = (key(pos), clock, winner == Color::White);
        if counts.is_empty() {
            if let Some(&(fail, win)) = self.memo.get(&memo_key) {
                if plies <= fail {
                    return Some(false);
                }
                if plies >= win {
                    return Some(true);
                }
            }
        }
        let attacker = pos.turn() == winner;
        let mut result = !attacker;
        for m in &moves {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            let repeats = !counts.is_empty() && counts.get(&key(&child)).is_some_and(|&c| c >= 2);
            let child_wins = if repeats && rules_result(&child, self.rule, 1).is_none() {
                false
            } else {
                self.forced(&child, winner, plies - 1, counts)?
            };
            if child_wins == attacker {
                result = attacker;
                break;
            }
        }
        if counts.is_empty() {
            let entry = self.memo.entry(memo_key).or_insert((0, u32::MAX));
            if result {
                entry.1 = entry.1.min(plies);
            } else {
                entry.0 = entry.0.max(plies);
            }
        }
        Some(result)
    }

    /// The tables' result for the side to move (wins only when clean: the fifty-move rule).
    pub fn table_result(&self, pos: &Antichess) -> Option<Option<Color>> {
        let pieces = pos.board().occupied().count();
        let pawns = pos.board().pawns().any();
        if pieces > 4 || pos.halfmoves() != 0 || (pawns && self.rule != Rule::StalematedSideWins) {
            return None;
        }
        let moves = pos.legal_moves();
        if let Some(r) = rules_result(pos, self.rule, moves.len()) {
            return Some(r);
        }
        let wdl = self.tables.probe_wdl_after_zeroing(pos).ok()?;
        Some(match wdl {
            Wdl::Win => Some(pos.turn()),
            Wdl::Loss => Some(!pos.turn()),
            _ => None,
        })
    }

    /// Judges the claim that `winner` wins `pos` within `plies` (the game's `counts` before
    /// and at `pos`; `best` the claimed first move, when the claimant gave one).
    pub fn judge(
        &mut self,
        pos: &Antichess,
        winner: Color,
        plies: u32,
        counts: &HashMap<u64, u32>,
        best: Option<Move>,
    ) -> Verdict {
        self.nodes = 0;
        if !counts.is_empty() {
            return self.judge_history(pos, winner, counts, best);
        }
        match self.forced(pos, winner, plies, counts) {
            Some(true) => Verdict::True,
            Some(false) => Verdict::False,
            None => match self.table_result(pos) {
                Some(r) if r == Some(winner) => Verdict::True,
                Some(_) => Verdict::False,
                None => Verdict::Unjudged,
            },
        }
    }

    /// With a history: the loser must not be able to reach a third occurrence in the claimed
    /// line's first two plies; a short claim is searched whole.
    fn judge_history(
        &mut self,
        pos: &Antichess,
        winner: Color,
        counts: &HashMap<u64, u32>,
        best: Option<Move>,
    ) -> Verdict {
        let third = |p: &Antichess| counts.get(&key(p)).is_some_and(|&c| c >= 2);
        let loser_repeats = |p: &Antichess| {
            p.legal_moves().iter().any(|m| {
                let mut c = p.clone();
                c.play_unchecked(*m);
                third(&c) && rules_result(&c, self.rule, c.legal_moves().len()).is_none()
            })
        };
        if pos.turn() != winner {
            return if loser_repeats(pos) {
                Verdict::False
            } else {
                Verdict::True
            };
        }
        let Some(best) = best else {
            return Verdict::Unjudged;
        };
        let mut after = pos.clone();
        after.play_unchecked(best);
        if third(&after) && rules_result(&after, self.rule, after.legal_moves().len()).is_none() {
            return Verdict::False;
        }
        if loser_repeats(&after) {
            Verdict::False
        } else {
            Verdict::True
        }
    }

    /// Judges the claim that `winner` wins `pos`, at no stated distance (a table win): the
    /// tables at the root; with a clock near fifty moves, a search to the next capture or pawn
    /// move, whose position the tables judge (clean wins only).
    pub fn judge_result(
        &mut self,
        pos: &Antichess,
        winner: Color,
        counts: &HashMap<u64, u32>,
    ) -> Verdict {
        self.nodes = 0;
        if !counts.is_empty() {
            return Verdict::Unjudged;
        }
        if let Some(r) = self.table_result(pos) {
            return if r == Some(winner) {
                Verdict::True
            } else {
                Verdict::False
            };
        }
        // Within the fifty-move window the winner must zero (or win); a search as deep as the
        // window decides both ways, a shallower one only proves.
        let window = 101u32.saturating_sub(pos.halfmoves());
        let plies = window.min(RESULT_PLIES);
        match self.forced_to_tables(pos, winner, plies, true) {
            Some(true) => Verdict::True,
            Some(false) if plies == window => Verdict::False,
            _ => Verdict::Unjudged,
        }
    }

    /// Whether `winner` forces, within `plies`, the end of the game in its favour or a capture or
    /// pawn move into a position the tables win for it. `None`: the tables cannot say.
    fn forced_to_tables(
        &mut self,
        pos: &Antichess,
        winner: Color,
        plies: u32,
        root: bool,
    ) -> Option<bool> {
        let moves = match self.visit(pos, winner) {
            Ok(moves) => moves,
            Err(answer) => return answer,
        };
        if !root && pos.halfmoves() == 0 {
            return self.table_result(pos).map(|r| r == Some(winner));
        }
        if pos.halfmoves() >= 100 || plies == 0 {
            return Some(false);
        }
        let attacker = pos.turn() == winner;
        let mut unknown = false;
        for m in &moves {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            match self.forced_to_tables(&child, winner, plies - 1, false) {
                Some(w) if w == attacker => return Some(attacker),
                Some(_) => {}
                None => unknown = true,
            }
        }
        if unknown {
            None
        } else {
            Some(!attacker)
        }
    }
}
