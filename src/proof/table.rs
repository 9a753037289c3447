//! The prover's transposition table: proof and disproof numbers per position, bounded in memory.
//!
//! A fixed array of buckets (no allocation during the search, so the memory budget holds).
//! Each entry keeps the position key, its (phi, delta) from the point of view of the side to move,
//! and the work spent below it. Replacement keeps solved entries and those that cost the most to
//! compute; an evicted entry is simply recomputed when needed again.
//!
//! The table may be shared by the workers of one process (the store's job-level search): words
//! are atomics, and the key word is stored XOR the two data words, so an entry torn by two
//! writers at once reads as a miss, never as another position's numbers.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::{Pn, PN_INFINITY};
use crate::memory::{self, AllocError, ZeroedTable};

const BUCKET: usize = 4;
const WORDS: usize = 3;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Entry {
    pub key: u64,
    pub phi: Pn,
    pub delta: Pn,
    /// Nodes searched below this entry (48 bits kept).
    pub work: u64,
    /// For a solved entry, the depth of its proof tree (plies to the farthest leaf).
    pub depth: u16,
}

pub const ENTRY_BYTES: usize = WORDS * 8;

/// Entries are stored as three words each (key, phi | delta << 32, work): the words come from
/// the allocator as zeroed pages, so a large table costs nothing until it is used.
pub struct ProofTable {
    words: ZeroedTable<AtomicU64>,
    mask: usize,
}

impl ProofTable {
    /// A table of at most `megabytes` MiB, or an error if the machine cannot give it.
    pub fn new(megabytes: usize) -> Result<ProofTable, AllocError> {
        let buckets = memory::buckets_for(megabytes, ENTRY_BYTES * BUCKET);
        Ok(ProofTable {
            words: ZeroedTable::new(buckets * BUCKET * WORDS, 0)?,
            mask: buckets - 1,
        })
    }

    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    fn entry(&self, slot: usize) -> Entry {
        let w = &self.words[slot * WORDS..slot * WORDS + WORDS];
        let (w1, w2) = (w[1].load(Relaxed), w[2].load(Relaxed));
        let w0 = w[0].load(Relaxed);
        Entry {
            // An empty slot is all zeros and reads as key 0.
            key: w0 ^ w1 ^ w2,
            phi: w1 as Pn,
            delta: (w1 >> 32) as Pn,
            work: w2 >> 16,
            depth: w2 as u16,
        }
    }

    fn set(&self, slot: usize, e: Entry) {
        let w = &self.words[slot * WORDS..slot * WORDS + WORDS];
        let w1 = u64::from(e.phi) | (u64::from(e.delta) << 32);
        let w2 = (e.work.min((1 << 48) - 1) << 16) | u64::from(e.depth);
        w[1].store(w1, Relaxed);
        w[2].store(w2, Relaxed);
        w[0].store(e.key ^ w1 ^ w2, Relaxed);
    }

    /// Entries in use, counted (a scan of the whole table: for tests and reports, not the
    /// search; a shared counter would be written by every worker at every new entry).
    pub fn len(&self) -> usize {
        (0..self.words.len() / WORDS)
            .filter(|&slot| self.entry(slot).key != 0)
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn bucket_range(&self, key: u64) -> std::ops::Range<usize> {
        let start = ((key >> 7) as usize & self.mask) * BUCKET;
        start..start + BUCKET
    }

    pub fn get(&self, key: u64) -> Option<Entry> {
        // Key 0 marks an empty slot; a real key of 0 is simply never cached.
        if key == 0 {
            return None;
        }
        self.bucket_range(key)
            .map(|slot| self.entry(slot))
            .find(|e| e.key == key)
    }

    /// Entries that cost at least `min_work` nodes, solved or not.
    pub fn costly_entries(&self, min_work: u64) -> Vec<Entry> {
        (0..self.words.len() / WORDS)
            .map(|slot| self.entry(slot))
            .filter(|e| e.key != 0 && e.work >= min_work)
            .collect()
    }

    pub fn put(&self, key: u64, phi: Pn, delta: Pn, work: u64, depth: u16) {
        if key == 0 {
            return;
        }
        let range = self.bucket_range(key);
        let bucket: Vec<Entry> = range.clone().map(|slot| self.entry(slot)).collect();
        let index = match bucket.iter().position(|e| e.key == key) {
            Some(i) => i,
            None => match bucket.iter().position(|e| e.key == 0) {
                Some(i) => i,
                None => {
                    // Evict the cheapest unsolved entry, else the cheapest.
                    let solved = |e: &Entry| e.phi == 0 || e.delta == 0 || e.phi >= PN_INFINITY;
                    bucket
                        .iter()
                        .enumerate()
                        .min_by_key(|(_, e)| (solved(e), e.work))
                        .map_or(0, |(i, _)| i)
                }
            },
        };
        self.set(
            range.start + index,
            Entry {
                key,
                phi,
                delta,
                work,
                depth,
            },
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_get_and_bounded_size() {
        let t = ProofTable::new(1).expect("1 MiB");
        assert!(t.bytes() <= 1 << 20);
        t.put(42 << 7, 3, 4, 10, 0);
        assert_eq!(t.get(42 << 7).map(|e| (e.phi, e.delta)), Some((3, 4)));
        t.put(42 << 7, 0, PN_INFINITY, 11, 7);
        assert_eq!(t.get(42 << 7).map(|e| (e.work, e.depth)), Some((11, 7)));
        assert_eq!(
            t.get(42 << 7).map(|e| (e.phi, e.delta)),
            Some((0, PN_INFINITY))
        );
        assert_eq!(t.len(), 1);
        assert_eq!(t.get(7), None);
        // Many keys in one bucket: the table never grows.
        for i in 0..100u64 {
            t.put((i << 40) | (1 << 7), 1, 1, i, 0);
        }
        assert!(t.len() <= 5);
    }
}
