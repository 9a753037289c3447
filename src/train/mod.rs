//! Training the evaluation network: self-play data and the trainer.
//!
//! This is the workshop, apart from the engine's hot path: `search::nnue` only reads the network
//! this module writes.
//!
//! - `datagen` plays Syotti against itself from the start position, after a few random plies, at
//!   a fixed number of nodes a move, on several threads. Every quiet position (no capture for the
//!   side to move: the only kind the evaluation ever sees) is written with the search's score, the
//!   game's result and the stalemate convention. Games whose remaining pieces the tablebases cover
//!   end there with the tables' result, an exact label.
//! - `trainer` fits the network (`search::nnue` describes its shape) to those positions with
//!   mini-batch Adam in `f32` on all cores, and writes it quantised, in the format the engine
//!   embeds.
//!
//! `syotti datagen` and `syotti train` are the commands; the README says how the shipped network
//! was made.

pub mod data;
pub mod datagen;
pub mod trainer;

/// A small deterministic generator (xorshift64*), enough to vary openings and shuffle data.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // xorshift must not start from zero.
        Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15).max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
