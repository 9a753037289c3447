//! The transposition table.
//!
//! Design: a power-of-two array of buckets indexed by the low bits of the position key; each
//! entry is two `AtomicU64`s, the data word and the key XOR the data word ("lockless hashing",
//! Hyatt and Mann). A reader recomputes key ^ data and accepts the entry only when it equals the
//! probed key, so a torn write from another thread reads as a miss, never as a wrong entry. That
//! lets several search threads share the table without locks.
//!
//! Data word: 16 bits move (shakmaty's `PackedUciMove`, which keeps king promotions), 16 bits
//! score, 16 bits static eval, 8 bits depth, 2 bits bound, 6 bits age. Mate scores are stored
//! relative to the node (distance from the node, not from the root) and re-rooted by ply on probe:
//! `score_to_tt` / `score_from_tt`. The move is only a hint: callers look it up in the node's legal
//! moves before using it.
//!
//! Replacement: each bucket holds `BUCKET` entries; a store goes to the entry with the same key,
//! else to the one with the lowest depth, entries of older searches counting as shallower.

use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::{packed::PackedUciMove, uci::UciMove, CastlingMode, Move};

use super::{Bound, Score, MATE_BOUND};
use crate::memory::{self, AllocError, Zeroable, ZeroedTable};

/// The static-eval field of an entry that has none (a capture node, the root, a table hit).
/// Static evaluations stay within `±EVAL_LIMIT`, far from it.
pub const NO_EVAL: Score = i16::MIN as Score;
const _: () = assert!(NO_EVAL < -super::EVAL_LIMIT);

const BUCKET: usize = 4;
const ENTRY_BYTES: usize = 16;

#[derive(Default)]
struct Entry {
    key_xor_data: AtomicU64,
    data: AtomicU64,
}

const _: () = assert!(std::mem::size_of::<Entry>() == ENTRY_BYTES);

/// A bucket fills one 64-byte cache line and is aligned to it, so a probe touches one line.
#[derive(Default)]
#[repr(align(64))]
struct Bucket([Entry; BUCKET]);
const _: () = assert!(std::mem::size_of::<Bucket>() == 64);

// SAFETY: a bucket is four entries of two `AtomicU64`s each (and alignment padding, of which
// there is none: the size is asserted above); all zeroes is an empty bucket.
unsafe impl Zeroable for Bucket {}

/// What a probe finds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TtHit {
    pub uci_move: Option<UciMove>,
    pub score: Score,
    pub eval: Score,
    pub depth: i32,
    pub bound: Bound,
}

pub struct TranspositionTable {
    buckets: ZeroedTable<Bucket>,
    mask: usize,
    age: AtomicU64,
}

fn pack(m: Option<Move>, score: Score, eval: Score, depth: i32, bound: Bound, age: u64) -> u64 {
    let mv = m.map_or(0u64, |m| {
        u64::from(u16::from_le_bytes(
            PackedUciMove::pack(m.to_uci(CastlingMode::Standard)).to_bytes(),
        ))
    });
    let bound_bits = match bound {
        Bound::Exact => 1u64,
        Bound::Lower => 2,
        Bound::Upper => 3,
    };
    mv | (u64::from(score as i16 as u16) << 16)
        | (u64::from(eval as i16 as u16) << 32)
        | (u64::from(depth.clamp(0, 255) as u8) << 48)
        | (bound_bits << 56)
        | ((age & 0x3f) << 58)
}

fn unpack(data: u64) -> Option<TtHit> {
    let bound = match (data >> 56) & 3 {
        1 => Bound::Exact,
        2 => Bound::Lower,
        3 => Bound::Upper,
        _ => return None,
    };
    let mv = (data & 0xffff) as u16;
    let uci_move = (mv != 0).then(|| PackedUciMove::from_bytes(mv.to_le_bytes()).unpack());
    Some(TtHit {
        uci_move,
        score: Score::from((data >> 16) as u16 as i16),
        eval: Score::from((data >> 32) as u16 as i16),
        depth: i32::from((data >> 48) as u8),
        bound,
    })
}

/// A score as stored: mates counted from this node rather than from the root.
pub fn score_to_tt(score: Score, ply: usize) -> Score {
    if score > MATE_BOUND {
        score + ply as Score
    } else if score < -MATE_BOUND {
        score - ply as Score
    } else {
        score
    }
}

/// A stored score re-rooted at `ply`.
pub fn score_from_tt(score: Score, ply: usize) -> Score {
    if score > MATE_BOUND {
        score - ply as Score
    } else if score < -MATE_BOUND {
        score + ply as Score
    } else {
        score
    }
}

impl TranspositionTable {
    /// A table of at most `megabytes` MiB (at least one bucket), for sizes the program chose
    /// itself; a size from the user goes through [`Self::try_new`].
    pub fn new(megabytes: usize) -> TranspositionTable {
        let count = memory::buckets_for(megabytes, ENTRY_BYTES * BUCKET);
        TranspositionTable::with_buckets(ZeroedTable::new_or_abort(count))
    }

    /// A table of at most `megabytes` MiB, or an error if the machine cannot give it.
    /// `reclaimed` bytes (the table this one replaces) count as available. The memory is zeroed
    /// by the allocator and taken only as the search fills the table.
    pub fn try_new(megabytes: usize, reclaimed: usize) -> Result<TranspositionTable, AllocError> {
        let count = memory::buckets_for(megabytes, ENTRY_BYTES * BUCKET);
        Ok(TranspositionTable::with_buckets(ZeroedTable::new(
            count, reclaimed,
        )?))
    }

    fn with_buckets(buckets: ZeroedTable<Bucket>) -> TranspositionTable {
        TranspositionTable {
            mask: buckets.len().max(1) - 1,
            buckets,
            age: AtomicU64::new(0),
        }
    }

    /// The table's size in bytes.
    pub fn bytes(&self) -> usize {
        self.buckets.len() * std::mem::size_of::<Bucket>()
    }

    pub fn clear(&self) {
        for bucket in self.buckets.iter() {
            for e in &bucket.0 {
                e.data.store(0, Ordering::Relaxed);
                e.key_xor_data.store(0, Ordering::Relaxed);
            }
        }
        self.age.store(0, Ordering::Relaxed);
    }

    /// Marks the start of a new search (older entries become easier to replace).
    pub fn new_search(&self) {
        self.age.fetch_add(1, Ordering::Relaxed);
    }

    fn bucket(&self, key: u64) -> &[Entry; BUCKET] {
        &self.buckets[key as usize & self.mask].0
    }

    /// Asks the CPU to bring `key`'s bucket into the cache, so that a probe a little later
    /// (after the child's move generation) does not wait for memory. Only a hint: it reads
    /// nothing and changes nothing.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let bucket: *const [Entry; BUCKET] = self.bucket(key);
            // SAFETY: a prefetch never faults and the pointer is to a live bucket; SSE is part
            // of every x86-64.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(bucket.cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    pub fn probe(&self, key: u64) -> Option<TtHit> {
        self.bucket(key).iter().find_map(|e| {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.key_xor_data.load(Ordering::Relaxed);
            (check ^ data == key && data != 0)
                .then(|| unpack(data))
                .flatten()
        })
    }

    pub fn store(
        &self,
        key: u64,
        m: Option<Move>,
        score: Score,
        eval: Score,
        depth: i32,
        bound: Bound,
    ) {
        let age = self.age.load(Ordering::Relaxed) & 0x3f;
        let bucket = self.bucket(key);
        let mut victim = &bucket[0];
        let mut victim_worth = i32::MAX;
        for e in bucket {
            let data = e.data.load(Ordering::Relaxed);
            let check = e.key_xor_data.load(Ordering::Relaxed);
            if data == 0 || check ^ data == key {
                victim = e;
                // Keep the old move when the new store has none.
                if check ^ data == key && m.is_none() {
                    let old_move = data & 0xffff;
                    let new = pack(None, score, eval, depth, bound, age) | old_move;
                    e.data.store(new, Ordering::Relaxed);
                    e.key_xor_data.store(key ^ new, Ordering::Relaxed);
                    return;
                }
                break;
            }
            let entry_depth = ((data >> 48) & 0xff) as i32;
            let entry_age = (data >> 58) & 0x3f;
            let worth = entry_depth - if entry_age == age { 0 } else { 64 };
            if worth < victim_worth {
                victim = e;
                victim_worth = worth;
            }
        }
        let data = pack(m, score, eval, depth, bound, age);
        victim.data.store(data, Ordering::Relaxed);
        victim.key_xor_data.store(key ^ data, Ordering::Relaxed);
    }

    /// Per mille of entries used by the current search, sampled from the first thousand.
    pub fn hashfull(&self) -> u32 {
        let age = self.age.load(Ordering::Relaxed) & 0x3f;
        let sample = (self.buckets.len() * BUCKET).min(1000);
        let used = self
            .buckets
            .iter()
            .flat_map(|b| &b.0)
            .take(sample)
            .filter(|e| {
                let data = e.data.load(Ordering::Relaxed);
                data != 0 && (data >> 58) & 0x3f == age
            })
            .count();
        (used * 1000 / sample.max(1)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        rules::{parse_uci_move, START_FEN},
        search::MATE,
    };

    #[test]
    fn store_and_probe_round_trip() {
        let tt = TranspositionTable::new(1);
        let pos = crate::rules::parse_fen("8/8/8/8/8/8/p7/7K b - - 0 1").expect("valid");
        let m = parse_uci_move(&pos, "a2a1k").expect("legal");
        tt.store(0xdead_beef, Some(m), -MATE_BOUND - 5, -123, 7, Bound::Lower);
        let hit = tt.probe(0xdead_beef).expect("stored");
        assert_eq!(hit.uci_move, Some(m.to_uci(CastlingMode::Standard)));
        assert_eq!(hit.score, -MATE_BOUND - 5);
        assert_eq!(hit.eval, -123);
        assert_eq!(hit.depth, 7);
        assert_eq!(hit.bound, Bound::Lower);
        assert_eq!(tt.probe(0xdead_bef0), None);
        tt.clear();
        assert_eq!(tt.probe(0xdead_beef), None);
        let _ = START_FEN;
    }

    #[test]
    fn missing_and_extreme_evaluations_survive_packing() {
        use crate::search::EVAL_LIMIT;
        let tt = TranspositionTable::new(1);
        for (key, eval) in [(1u64, NO_EVAL), (2, EVAL_LIMIT), (3, -EVAL_LIMIT)] {
            tt.store(key, None, 0, eval, 3, Bound::Exact);
            assert_eq!(tt.probe(key).expect("stored").eval, eval);
        }
    }

    #[test]
    fn mate_scores_are_rerooted() {
        let stored = score_to_tt(MATE - 10, 4);
        assert_eq!(score_from_tt(stored, 6), MATE - 12);
        let stored = score_to_tt(-(MATE - 10), 4);
        assert_eq!(score_from_tt(stored, 2), -(MATE - 8));
        assert_eq!(score_from_tt(score_to_tt(150, 9), 3), 150);
    }
}
