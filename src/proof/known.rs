//! What the prover knows before it starts: positions proved before, taken as solved leaves.
//!
//! The book (`book`) holds the proofs that shipped: the refuted first moves and the proved
//! sub-lines of open problems (`book/progress.book`, exported from stores' snapshots). The
//! prover asks about every child it generates, so the question must cost less than the move
//! counting beside it: the book is keyed by Polyglot keys, computed from scratch, but the prover
//! has its own incremental key at hand. `KnownWins` therefore walks the book's trees once and
//! keeps the prover's keys of its positions; only a position whose key is among them is looked
//! up in the book. A proof that uses a book position copies the book's proof below it
//! (`tree::extract`), so the proof file stands alone and is verified without the book.

use std::{collections::HashSet, sync::Arc};

use shakmaty::variant::Antichess;

use super::{book::ProofBook, Distance};
use crate::rules::{hash, StalemateRule};

/// A book with the prover's keys of its positions.
#[derive(Debug)]
pub struct KnownWins {
    book: Arc<ProofBook>,
    keys: HashSet<u64>,
}

impl KnownWins {
    /// Walks the book's trees (about a second for the shipped book).
    pub fn new(book: Arc<ProofBook>) -> KnownWins {
        let mut keys = HashSet::new();
        book.for_each_winner_position(|pos| {
            keys.insert(hash::key(pos));
        });
        KnownWins { book, keys }
    }

    /// The embedded book's knowledge, built once per process.
    pub fn embedded() -> Option<Arc<KnownWins>> {
        static KNOWN: once_cell::sync::Lazy<Option<Arc<KnownWins>>> =
            once_cell::sync::Lazy::new(|| {
                ProofBook::embedded().map(|book| Arc::new(KnownWins::new(book)))
            });
        KNOWN.clone()
    }

    pub fn book(&self) -> &ProofBook {
        &self.book
    }

    /// Positions known.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The distance of the book's proof that the side to move wins `pos` (whose prover key is
    /// `key`), when the book has one that the fifty-move rule cannot spoil.
    pub fn mover_wins(&self, pos: &Antichess, key: u64, rule: StalemateRule) -> Option<Distance> {
        if !self.keys.contains(&key) {
            return None;
        }
        self.book.proves_mover_wins(pos, rule)
    }
}
