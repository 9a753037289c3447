//! Proof-number search: prove forced wins and write proofs anyone can re-check.
//!
//! `dfpn` is a depth-first proof-number search (Nagai's df-pn with the 1+ε threshold trick of
//! Pawlewicz and Lew) over a memory-bounded `table`. `tree` extracts a proof tree from a solved
//! search and writes it in the proof file format; `verify` re-checks such a file from scratch with
//! the rules layer alone. `store` keeps a proof too big for one run in a database (SQLite or
//! PostgreSQL) as a job-level search whose jobs (`job`) are df-pn runs within a budget; `book`
//! compiles verified proofs into the engine, and `memory` keeps the proofs a game finds in the
//! same form, answered by the same walks; `history` tells whether a proof still holds in a game
//! whose history the loser could repeat.
//!
//! Soundness does not rest on the search. Draws (repetition on the path, fifty moves, dead
//! positions, a drawn stalemate) always count for the defender, so a proof never relies on one;
//! but the table forgets the path a value was found on (the graph-history interaction), so every
//! win is extracted and verified by `verify` before it is reported. A proof that does not verify
//! is reported as unknown, never as a win. A proof that ends in table leaves proves the result
//! but not its distance (`Distance::exact`), and is never shown as a mate distance.

pub mod book;
pub mod dfpn;
pub mod history;
pub mod job;
pub mod known;
pub mod memory;
pub mod store;
pub mod table;
pub mod tree;
pub mod verify;

use std::time::Duration;

pub use dfpn::{prove, ProofOutcome, ProofReport};

/// Proof and disproof numbers.
pub type Pn = u32;
/// An infinite proof number (the node is disproved) or disproof number (proved).
pub const PN_INFINITY: Pn = u32::MAX / 4;

/// How far a proof reaches below a position: the plies to its farthest end, and whether every end
/// is the end of the game. A proof that hands positions to the endgame tables (`exact` false)
/// proves the result, but its plies count only to the table leaves: the tables know how the game
/// is won, not in how many moves, so such a distance is never shown as a mate distance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Distance {
    pub plies: u32,
    pub exact: bool,
}

impl Distance {
    /// One ply further up: the distance of a position whose move leads here.
    pub fn up(self) -> Distance {
        Distance {
            plies: self.plies + 1,
            exact: self.exact,
        }
    }

    /// The farther of two ends a loser can choose between (inexact if either is).
    pub fn farthest(self, other: Distance) -> Distance {
        Distance {
            plies: self.plies.max(other.plies),
            exact: self.exact && other.exact,
        }
    }
}

/// What bounds a proof search.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProofLimits {
    pub nodes: Option<u64>,
    pub time: Option<Duration>,
    /// Memory for the proof table, in MiB.
    pub memory_mb: usize,
}

impl Default for ProofLimits {
    fn default() -> Self {
        ProofLimits {
            nodes: None,
            time: None,
            memory_mb: 256,
        }
    }
}
