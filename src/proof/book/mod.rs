//! The book of proofs: the winning move of every position of verified proofs where the winner is
//! to move, keyed by position, compact enough to ship inside the binary.
//!
//! A proof tree lists, for each position where the winner is to move, the one move it plays, and
//! for each position of the loser every reply; the replies follow from the rules, so the book
//! keeps only the winner's positions: a 64-bit key (the Polyglot Zobrist key of the position, the
//! one cutechess and lichess-bot use), the move, and the plies from that position to the farthest
//! leaf of its proof, with a flag when a leaf below is a table leaf (then the plies count to the
//! tables, not to the end, and no mate distance is shown). Any move order reaches the same
//! entries.
//!
//! Layout (little-endian), `book/README.md` says the same:
//!
//! ```text
//! "SYOTTIBK"  u32 version (3)  u8 stalemate rule (0 stalemated-side-wins, 1 draw,
//! 2 fewer-pieces-wins)  3 bytes zero  u64 fill nodes (version 3; 0: the book is complete)
//! u32 roots, each: u8 winner (0 white, 1 black)  u16 length  FEN (the proved position)
//! u32 entries, each 12 bytes, sorted by key: u64 key  u16 move (shakmaty's PackedUciMove,
//! which keeps king promotions)  u16 plies (bit 15: a table leaf lies below)
//! ```
//!
//! Version 1 had no flag: its entries are all read as reaching the tables. Version 2 had no fill
//! field: its books are complete.
//!
//! A *thinned* book (`thin`, version 3 with fill nodes above 0) leaves out the winner's positions
//! of small sub-proofs: where the rebuilt tree meets a winner's position without an entry, a
//! df-pn search of at most four times the fill nodes (with the tables, fixed memory) finds the
//! sub-proof again. The engine and the prover simply do not know those positions at once (they
//! find them as they would any small win); the verifier still sees whole trees.
//!
//! Nothing in the book is taken on trust: `proof_text` rebuilds each root's proof tree from the
//! book and the rules (the loser's replies from the move generator, table leaves where the prover
//! used them) in the proof file format, for the verifier. A position is answered from the book
//! only under the book's stalemate rule and only when its halfmove clock plus the plies left stay
//! under the fifty-move limit (proof files identify positions without move counters); `answer`
//! also refuses a position the game's history lets the loser repeat (`super::history`), a
//! position already over, and a loser's position with a reply that draws.

use std::{
    collections::{HashMap, HashSet},
    sync::Arc,
};

use shakmaty::{
    packed::PackedUciMove, uci::UciMove, variant::Antichess, zobrist::Zobrist64, CastlingMode,
    Color, EnPassantMode, Move, Position,
};
use thiserror::Error;

mod thin;

use super::tree::{position_id, position_of_id, ProofTree};
use super::{history, Distance};
use crate::{
    rules::{
        game::{self, FIFTY_MOVE_PLIES},
        notation, outcome, to_fen, StalemateRule,
    },
    tablebase::Tablebases,
};

const MAGIC: &[u8; 8] = b"SYOTTIBK";
const VERSION: u32 = 3;
/// Bit 15 of an entry's plies: a table leaf lies below the position.
const TABLES_BELOW: u16 = 0x8000;
const ENTRY_BYTES: usize = 12;

/// A position's record as the file stores it: key, move, plies.
type Entry = [u8; ENTRY_BYTES];

fn entry_key(e: &Entry) -> u64 {
    u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]])
}

fn entry_move(e: &Entry) -> UciMove {
    unpack(u16::from_le_bytes([e[8], e[9]]))
}

/// The stored form of a distance: its plies (at most 32,767), bit 15 set when inexact.
fn distance_bits(d: Distance) -> u16 {
    let plies = d.plies.min(u32::from(!TABLES_BELOW)) as u16;
    if d.exact {
        plies
    } else {
        plies | TABLES_BELOW
    }
}

fn entry_distance(e: &Entry, version: u32) -> Distance {
    let bits = u16::from_le_bytes([e[10], e[11]]);
    Distance {
        plies: u32::from(bits & !TABLES_BELOW),
        exact: version >= 2 && bits & TABLES_BELOW == 0,
    }
}
/// The shipped book (`book/syotti.book`, made by `syotti book build`).
static EMBEDDED: &[u8] = include_bytes!("../../../book/syotti.book");
/// The proved sub-lines of open problems (`book/progress.book`, made by `syotti book build` from
/// the proofs a store's snapshot exports), shipped beside it and merged with it.
static EMBEDDED_PROGRESS: &[u8] = include_bytes!("../../../book/progress.book");

#[derive(Debug, Error, PartialEq, Eq)]
pub enum BookError {
    #[error("not a Syotti book: {0}")]
    Format(String),
    #[error("the proofs are for different stalemate rules ({0} and {1})")]
    MixedRules(StalemateRule, StalemateRule),
    #[error("the book's tree breaks after {path}: {reason}")]
    Hole { path: String, reason: String },
}

/// A proved position's move: the winner's proven move, or the loser's longest resistance.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookMove {
    pub best: Move,
    /// How far the proof reaches below the position.
    pub distance: Distance,
}

/// What the book proves of a position in a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BookAnswer {
    /// The side to move wins (else it loses).
    pub wins: bool,
    pub hit: BookMove,
}

/// A proved root: the position and who wins it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BookRoot {
    pub fen: String,
    pub winner: Color,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofBook {
    rule: StalemateRule,
    /// The file's format version (1 has no table-leaf flags).
    version: u32,
    /// Nodes within which each left-out sub-proof of a thinned book is found again (0: the
    /// book is complete).
    fill_nodes: u64,
    roots: Vec<BookRoot>,
    /// One record a position, as stored, sorted by key.
    entries: Vec<Entry>,
}

/// The Polyglot key of a position.
pub fn polyglot_key(pos: &Antichess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

fn rule_code(rule: StalemateRule) -> u8 {
    match rule {
        StalemateRule::StalematedSideWins => 0,
        StalemateRule::Draw => 1,
        StalemateRule::FewerPiecesWins => 2,
    }
}

fn pack(m: Move) -> u16 {
    u16::from_le_bytes(PackedUciMove::pack(m.to_uci(CastlingMode::Standard)).to_bytes())
}

fn unpack(bits: u16) -> UciMove {
    PackedUciMove::from_bytes(bits.to_le_bytes()).unpack()
}

/// Reads little-endian fields from a byte slice.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], BookError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| BookError::Format("truncated".to_string()))?;
        let slice = &self.bytes[self.at..end];
        self.at = end;
        Ok(slice)
    }

    fn u8(&mut self) -> Result<u8, BookError> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, BookError> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, BookError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
}

impl ProofBook {
    /// The book compiled into the binary, if it reads (it is checked in CI).
    pub fn embedded() -> Option<Arc<ProofBook>> {
        static BOOK: once_cell::sync::Lazy<Option<Arc<ProofBook>>> =
            once_cell::sync::Lazy::new(|| {
                let read = ProofBook::from_bytes(EMBEDDED).and_then(|book| {
                    let progress = ProofBook::from_bytes(EMBEDDED_PROGRESS)?;
                    if progress.is_empty() {
                        Ok(book)
                    } else {
                        book.merged(&progress)
                    }
                });
                match read {
                    Ok(book) => Some(Arc::new(book)),
                    Err(e) => {
                        log::error!("the embedded book: {e}");
                        None
                    }
                }
            });
        BOOK.clone()
    }

    /// Merges verified proofs (all under one stalemate rule) into a book. Where two proofs
    /// reach one position, the shorter win is kept.
    pub fn from_proofs(proofs: &[ProofTree]) -> Result<ProofBook, BookError> {
        let rule = proofs.first().map_or(StalemateRule::default(), |p| p.rule);
        let mut best: HashMap<u64, (u16, Distance)> = HashMap::new();
        let mut roots = Vec::new();
        for proof in proofs {
            if proof.rule != rule {
                return Err(BookError::MixedRules(rule, proof.rule));
            }
            roots.push(BookRoot {
                fen: to_fen(&proof.root),
                winner: proof.winner,
            });
            for (id, (moves, distance)) in proof.depths() {
                let Some(&m) = moves.first() else { continue };
                let Ok(pos) = position_of_id(&id) else {
                    continue;
                };
                if pos.turn() != proof.winner {
                    continue;
                }
                let entry = best
                    .entry(polyglot_key(&pos))
                    .or_insert((pack(m), distance));
                if distance.plies < entry.1.plies {
                    *entry = (pack(m), distance);
                }
            }
        }
        let mut sorted: Vec<_> = best.into_iter().collect();
        sorted.sort_unstable_by_key(|&(key, _)| key);
        let entries = sorted
            .into_iter()
            .map(|(key, (m, distance))| {
                let mut e = [0; ENTRY_BYTES];
                e[..8].copy_from_slice(&key.to_le_bytes());
                e[8..10].copy_from_slice(&m.to_le_bytes());
                e[10..].copy_from_slice(&distance_bits(distance).to_le_bytes());
                e
            })
            .collect();
        Ok(ProofBook {
            rule,
            version: VERSION,
            fill_nodes: 0,
            roots,
            entries,
        })
    }

    /// A book of one position: its side to move wins with `best`, proved to reach `distance`
    /// (a root whose win the prover found through a child's proof).
    pub fn from_win(
        pos: &Antichess,
        rule: StalemateRule,
        best: Move,
        distance: Distance,
    ) -> ProofBook {
        let mut e = [0; ENTRY_BYTES];
        e[..8].copy_from_slice(&polyglot_key(pos).to_le_bytes());
        e[8..10].copy_from_slice(&pack(best).to_le_bytes());
        e[10..].copy_from_slice(&distance_bits(distance).to_le_bytes());
        ProofBook {
            rule,
            version: VERSION,
            fill_nodes: 0,
            roots: vec![BookRoot {
                fen: to_fen(pos),
                winner: pos.turn(),
            }],
            entries: vec![e],
        }
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<ProofBook, BookError> {
        let mut c = Cursor { bytes, at: 0 };
        if c.take(8)? != MAGIC {
            return Err(BookError::Format("no SYOTTIBK header".to_string()));
        }
        let version = c.u32()?;
        if !(1..=VERSION).contains(&version) {
            return Err(BookError::Format(format!(
                "version {version}, expected {VERSION}"
            )));
        }
        let rule = match c.u8()? {
            0 => StalemateRule::StalematedSideWins,
            1 => StalemateRule::Draw,
            2 => StalemateRule::FewerPiecesWins,
            other => return Err(BookError::Format(format!("unknown stalemate rule {other}"))),
        };
        c.take(3)?;
        let fill_nodes = if version >= 3 {
            let b = c.take(8)?;
            u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
        } else {
            0
        };
        let root_count = c.u32()?;
        let mut roots = Vec::new();
        for _ in 0..root_count {
            let winner = if c.u8()? == 0 {
                Color::White
            } else {
                Color::Black
            };
            let len = usize::from(c.u16()?);
            let fen = std::str::from_utf8(c.take(len)?)
                .map_err(|_| BookError::Format("a root FEN is not text".to_string()))?;
            notation::parse_fen(fen).map_err(|e| BookError::Format(format!("root {fen}: {e}")))?;
            roots.push(BookRoot {
                fen: fen.to_string(),
                winner,
            });
        }
        let count = c.u32()? as usize;
        let entries: Vec<Entry> = c
            .take(count.saturating_mul(ENTRY_BYTES))?
            .chunks_exact(ENTRY_BYTES)
            .map(|chunk| {
                let mut e = [0; ENTRY_BYTES];
                e.copy_from_slice(chunk);
                e
            })
            .collect();
        if c.at != bytes.len() {
            return Err(BookError::Format("bytes after the last entry".to_string()));
        }
        let book = ProofBook {
            rule,
            version,
            fill_nodes,
            roots,
            entries,
        };
        if book
            .entries
            .windows(2)
            .any(|w| entry_key(&w[0]) >= entry_key(&w[1]))
        {
            return Err(BookError::Format(
                "entries are not sorted by key".to_string(),
            ));
        }
        Ok(book)
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.entries.len() * ENTRY_BYTES + 1024);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&self.version.to_le_bytes());
        out.extend_from_slice(&[rule_code(self.rule), 0, 0, 0]);
        if self.version >= 3 {
            out.extend_from_slice(&self.fill_nodes.to_le_bytes());
        }
        out.extend_from_slice(&(self.roots.len() as u32).to_le_bytes());
        for root in &self.roots {
            out.push(u8::from(root.winner == Color::Black));
            out.extend_from_slice(&(root.fen.len() as u16).to_le_bytes());
            out.extend_from_slice(root.fen.as_bytes());
        }
        out.extend_from_slice(&(self.len() as u32).to_le_bytes());
        out.extend(self.entries.iter().flatten());
        out
    }

    pub fn rule(&self) -> StalemateRule {
        self.rule
    }

    pub fn roots(&self) -> &[BookRoot] {
        &self.roots
    }

    /// Positions in the book.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry: key, move, distance.
    pub fn entries(&self) -> impl Iterator<Item = (u64, UciMove, Distance)> + '_ {
        self.entries
            .iter()
            .map(|e| (entry_key(e), entry_move(e), entry_distance(e, self.version)))
    }

    /// The book's entry for `pos` as it stands (no rule or clock checks): a legal move.
    fn lookup(&self, pos: &Antichess) -> Option<BookMove> {
        let key = polyglot_key(pos);
        let index = self.entries.binary_search_by_key(&key, entry_key).ok()?;
        let e = &self.entries[index];
        let best = entry_move(e).to_move(pos).ok()?;
        pos.legal_moves().contains(&best).then_some(BookMove {
            best,
            distance: entry_distance(e, self.version),
        })
    }

    /// The proven move of the side to move in `pos`, under `rule`, if the book has one that the
    /// fifty-move rule cannot spoil. The position alone: see `answer` for a game.
    pub fn probe(&self, pos: &Antichess, rule: StalemateRule) -> Option<BookMove> {
        if rule != self.rule {
            return None;
        }
        self.lookup(pos)
            .filter(|hit| pos.halfmoves() + hit.distance.plies < FIFTY_MOVE_PLIES)
    }

    /// For the side to move in a lost position: when every reply leads to a book position or
    /// wins for the other side at once, the reply that resists longest and its distance. A
    /// position over by the rules is not lost (it has its result), and neither is one with a
    /// reply that draws (a dead position, a drawn stalemate) or wins.
    pub fn probe_loser(&self, pos: &Antichess, rule: StalemateRule) -> Option<BookMove> {
        if rule != self.rule || outcome::position_outcome(pos, rule).is_some() {
            return None;
        }
        let mut longest: Option<BookMove> = None;
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let distance = if let Some(o) = outcome::position_outcome(&child, rule) {
                if o.winner != Some(!pos.turn()) {
                    return None;
                }
                Distance {
                    plies: 1,
                    exact: true,
                }
            } else {
                self.probe(&child, rule)?.distance.up()
            };
            // The longest reply is the one to play; the distance is inexact if any reply's is.
            longest = Some(match longest {
                Some(l) => BookMove {
                    best: if distance.plies > l.distance.plies {
                        m
                    } else {
                        l.best
                    },
                    distance: l.distance.farthest(distance),
                },
                None => BookMove { best: m, distance },
            });
        }
        longest.filter(|l| pos.halfmoves() + l.distance.plies < FIFTY_MOVE_PLIES)
    }

    /// What the book proves of `pos` in a game whose positions so far are `history` (keys, `pos`
    /// last; may be empty): a win with the book's move, or a loss with the longest resistance.
    /// Nothing for a game already drawn by its history, nor where the loser could repeat a
    /// position of the game (the proof does not hold there).
    pub fn answer(
        &self,
        pos: &Antichess,
        rule: StalemateRule,
        history: &[u64],
    ) -> Option<BookAnswer> {
        if rule != self.rule || game::history_draw(history, pos.halfmoves()).is_some() {
            return None;
        }
        let (wins, hit) = match self.probe(pos, rule) {
            Some(hit) if outcome::position_outcome(pos, rule).is_none() => (true, hit),
            Some(_) => return None,
            None => (false, self.probe_loser(pos, rule)?),
        };
        let winner = if wins { pos.turn() } else { !pos.turn() };
        let repeats = history::may_repeat(pos, rule, winner, history, |p| {
            self.probe(p, rule).map(|h| h.best)
        });
        (!repeats).then_some(BookAnswer { wins, hit })
    }

    /// The main line from `pos`: the book's moves for the winner, the longest resistance for
    /// the loser; at most `max_plies`.
    pub fn line(&self, pos: &Antichess, max_plies: usize) -> Vec<Move> {
        let mut line = Vec::new();
        let mut pos = pos.clone();
        while line.len() < max_plies {
            let next = self
                .probe(&pos, self.rule)
                .or_else(|| self.probe_loser(&pos, self.rule));
            let Some(next) = next else { break };
            line.push(next.best);
            pos.play_unchecked(next.best);
        }
        line
    }

    /// Rebuilds the proof tree of `root` from the book and the rules, in the proof file format
    /// (for `verify`). `tables` mark the positions the prover took from them as table leaves.
    pub fn proof_text(
        &self,
        root: &BookRoot,
        tables: Option<&Tablebases>,
    ) -> Result<String, BookError> {
        let pos = notation::parse_fen(&root.fen).map_err(|e| BookError::Hole {
            path: "the root".to_string(),
            reason: e.to_string(),
        })?;
        Ok(self.proof_tree(&pos, root.winner, tables)?.to_text())
    }

    /// The proof tree of `pos` for `winner`, rebuilt from the book and the rules (`tree_below`).
    pub fn proof_tree(
        &self,
        pos: &Antichess,
        winner: Color,
        tables: Option<&Tablebases>,
    ) -> Result<ProofTree, BookError> {
        Ok(ProofTree {
            rule: self.rule,
            winner,
            entries: self
                .tree_below(pos, winner, tables)?
                .into_iter()
                .map(|(_, id, moves)| (id, moves))
                .collect(),
            root: pos.clone(),
        })
    }

    /// The proof tree below `pos` as the book and the rules give it, for `winner`: each
    /// position once, with the winner's book move or every reply of the loser (no moves: a table
    /// leaf), the position itself first. A thinned book's left-out sub-proofs are found again
    /// by search (`thin`). An error where the winner has no move.
    pub fn tree_below(
        &self,
        pos: &Antichess,
        winner: Color,
        tables: Option<&Tablebases>,
    ) -> Result<Vec<(Antichess, String, Vec<Move>)>, BookError> {
        let fill = self.fill_nodes.saturating_mul(thin::FILL_SLACK);
        self.walk(pos, winner, tables, fill, None)
    }

    /// `tree_below` with `fill` nodes for each left-out sub-proof. With `audit`, a winner's
    /// position without a move is listed in it and left as a leaf instead of an error, and the
    /// positions whose sub-proofs were found again are listed too.
    fn walk(
        &self,
        pos: &Antichess,
        winner: Color,
        tables: Option<&Tablebases>,
        fill: u64,
        mut audit: Option<&mut thin::Audit>,
    ) -> Result<Vec<(Antichess, String, Vec<Move>)>, BookError> {
        let mut entries = Vec::new();
        let mut seen = HashSet::new();
        // The winner's moves of the sub-proofs found again, by position.
        let mut found: HashMap<String, Move> = HashMap::new();
        let mut stack = vec![(pos.clone(), Vec::<String>::new())];
        while let Some((pos, path)) = stack.pop() {
            let id = position_id(&pos);
            if !seen.insert(id.clone()) {
                continue;
            }
            if outcome::position_outcome(&pos, self.rule).is_some() {
                continue;
            }
            if self.table_leaf(&pos, tables) {
                entries.push((pos, id, Vec::new()));
                continue;
            }
            let moves: Vec<Move> = if pos.turn() == winner {
                let mut best = self
                    .lookup(&pos)
                    .map(|hit| hit.best)
                    .or_else(|| found.get(&id).copied());
                if best.is_none() && fill > 0 {
                    best = thin::fill(&pos, self.rule, tables, fill, &mut found);
                    if let (Some(_), Some(audit)) = (best, audit.as_deref_mut()) {
                        audit.filled.push(pos.clone());
                    }
                }
                match (best, audit.as_deref_mut()) {
                    (Some(best), _) => vec![best],
                    (None, Some(audit)) => {
                        audit.unfilled.push(pos);
                        continue;
                    }
                    (None, None) => {
                        return Err(BookError::Hole {
                            path: if path.is_empty() {
                                "the root".to_string()
                            } else {
                                path.join(" ")
                            },
                            reason: format!("no book move for the winner in {}", to_fen(&pos)),
                        })
                    }
                }
            } else {
                pos.legal_moves().to_vec()
            };
            for &m in &moves {
                let mut child = pos.clone();
                child.play_unchecked(m);
                let mut child_path = path.clone();
                child_path.push(notation::uci(m));
                stack.push((child, child_path));
            }
            entries.push((pos, id, moves));
        }
        Ok(entries)
    }

    /// Whether the prover took `pos` from the tables: a position reached by a capture or pawn
    /// move that they cover.
    fn table_leaf(&self, pos: &Antichess, tables: Option<&Tablebases>) -> bool {
        tables.is_some_and(|t| {
            pos.halfmoves() == 0 && t.wdl_after_zeroing(pos, self.rule, usize::MAX).is_some()
        })
    }

    /// Calls `f` with every position of the roots' trees where the winner is to move and the
    /// book has its move (each once; the loser's replies from the rules).
    pub fn for_each_winner_position(&self, mut f: impl FnMut(&Antichess)) {
        let mut seen = HashSet::new();
        for root in &self.roots {
            let Ok(pos) = notation::parse_fen(&root.fen) else {
                continue;
            };
            let mut stack = vec![pos];
            while let Some(pos) = stack.pop() {
                if !seen.insert(polyglot_key(&pos))
                    || outcome::position_outcome(&pos, self.rule).is_some()
                {
                    continue;
                }
                let moves = if pos.turn() == root.winner {
                    let Some(hit) = self.lookup(&pos) else {
                        continue;
                    };
                    f(&pos);
                    vec![hit.best]
                } else {
                    pos.legal_moves().to_vec()
                };
                for m in moves {
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    stack.push(child);
                }
            }
        }
    }

    /// Whether the book proves a win for the side to move in `pos` under `rule` with room
    /// under the fifty-move rule: a key and clock test without move generation, for the prover,
    /// which checks the move when it writes the proof (`tree_below`).
    pub fn proves_mover_wins(&self, pos: &Antichess, rule: StalemateRule) -> Option<Distance> {
        if rule != self.rule {
            return None;
        }
        let key = polyglot_key(pos);
        let index = self.entries.binary_search_by_key(&key, entry_key).ok()?;
        let distance = entry_distance(&self.entries[index], self.version);
        (pos.halfmoves() + distance.plies < FIFTY_MOVE_PLIES).then_some(distance)
    }

    /// Two books in one (the same stalemate rule): every root of both; where both hold a
    /// position, the shorter proof's move.
    pub fn merged(&self, other: &ProofBook) -> Result<ProofBook, BookError> {
        if other.rule != self.rule {
            return Err(BookError::MixedRules(self.rule, other.rule));
        }
        // Both read with their own versions; the merged book is written in the current one.
        let upgraded = |book: &ProofBook| -> Vec<Entry> {
            book.entries
                .iter()
                .map(|e| {
                    let mut e = *e;
                    let bits = distance_bits(entry_distance(&e, book.version));
                    e[10..].copy_from_slice(&bits.to_le_bytes());
                    e
                })
                .collect()
        };
        let (a, b) = (upgraded(self), upgraded(other));
        let mut entries = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            let next = match (a.get(i), b.get(j)) {
                (Some(x), Some(y)) if entry_key(x) == entry_key(y) => {
                    i += 1;
                    j += 1;
                    let plies = |e: &Entry| entry_distance(e, VERSION).plies;
                    if plies(y) < plies(x) {
                        *y
                    } else {
                        *x
                    }
                }
                (Some(x), Some(y)) if entry_key(x) < entry_key(y) => {
                    i += 1;
                    *x
                }
                (Some(x), None) => {
                    i += 1;
                    *x
                }
                (_, Some(y)) => {
                    j += 1;
                    *y
                }
                (None, None) => break,
            };
            entries.push(next);
        }
        let mut roots = self.roots.clone();
        roots.extend(
            other
                .roots
                .iter()
                .filter(|r| !self.roots.contains(r))
                .cloned(),
        );
        Ok(ProofBook {
            rule: self.rule,
            version: VERSION,
            // A complete book merged with a thinned one: the thinned one's holes are still
            // holes (the complete one's trees have none).
            fill_nodes: self.fill_nodes.max(other.fill_nodes),
            roots,
            entries,
        })
    }

    /// The book as a Polyglot book: 16 bytes an entry, big-endian, sorted by key (king
    /// promotions as promotion piece 5, which python-chess reads as a king).
    pub fn to_polyglot(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.len() * 16);
        for (key, m, _) in self.entries() {
            let UciMove::Normal {
                from,
                to,
                promotion,
            } = m
            else {
                continue;
            };
            let promotion = promotion.map_or(0u16, |role| match role {
                shakmaty::Role::Knight => 1,
                shakmaty::Role::Bishop => 2,
                shakmaty::Role::Rook => 3,
                shakmaty::Role::Queen => 4,
                shakmaty::Role::King | shakmaty::Role::Pawn => 5,
            });
            let square = |s: shakmaty::Square| (u16::from(s.rank() as u8) << 3) | s.file() as u16;
            let bits = square(to) | (square(from) << 6) | (promotion << 12);
            out.extend_from_slice(&key.to_be_bytes());
            out.extend_from_slice(&bits.to_be_bytes());
            out.extend_from_slice(&1u16.to_be_bytes());
            out.extend_from_slice(&0u32.to_be_bytes());
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::proof::{prove, verify::verify, ProofLimits, ProofOutcome};

    /// Törngren's study (White to move wins with 1.h3).
    pub(crate) const STUDY: &str = "8/8/p7/8/8/8/7P/8 w - - 0 1";

    /// The proof of Törngren's study.
    pub(crate) fn study_proof() -> ProofTree {
        let pos = notation::parse_fen(STUDY).expect("valid");
        let report = prove(
            &pos,
            StalemateRule::default(),
            &[],
            &ProofLimits::default(),
            None,
            None,
        )
        .expect("the proof table");
        let ProofOutcome::Win { proof, .. } = report.outcome else {
            panic!("the study is a win");
        };
        proof
    }

    fn study_book() -> ProofBook {
        ProofBook::from_proofs(&[study_proof()]).expect("one rule")
    }

    #[test]
    fn a_book_round_trips_answers_and_rebuilds_a_valid_proof() {
        let book = study_book();
        let again = ProofBook::from_bytes(&book.to_bytes()).expect("reads back");
        assert_eq!(again, book);
        let pos = notation::parse_fen("8/8/p7/8/8/8/7P/8 w - - 0 1").expect("valid");
        let hit = book
            .probe(&pos, StalemateRule::default())
            .expect("in the book");
        assert_eq!(notation::uci(hit.best), "h2h3");
        assert!(hit.distance.plies > 0 && hit.distance.exact);
        // Another rule, or a clock near fifty moves: not answered.
        assert_eq!(book.probe(&pos, StalemateRule::Draw), None);
        let late = notation::parse_fen("8/8/p7/8/8/8/7P/8 w - - 99 60").expect("valid");
        assert_eq!(book.probe(&late, StalemateRule::default()), None);
        // The loser after 1. h3 knows its fate.
        let mut after = pos.clone();
        after.play_unchecked(hit.best);
        let loser = book
            .probe_loser(&after, StalemateRule::default())
            .expect("lost");
        assert_eq!(loser.distance.up(), hit.distance);
        // The tree rebuilt from the book verifies.
        let text = book.proof_text(&book.roots()[0], None).expect("no hole");
        let report = verify(&text).expect("valid");
        assert_eq!(report.winner, Color::White);
    }

    #[test]
    fn broken_books_are_refused() {
        let bytes = study_book().to_bytes();
        assert!(ProofBook::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(ProofBook::from_bytes(b"SYOTTIBK").is_err());
        assert!(ProofBook::from_bytes(b"not a book at all").is_err());
        let mut unsorted = study_book();
        let first = unsorted.entries[0];
        unsorted.entries.push(first);
        assert!(ProofBook::from_bytes(&unsorted.to_bytes()).is_err());
    }
}
