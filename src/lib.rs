//! Syotti: an antichess engine.
//!
//! Layers, each depending only on the ones below it:
//! `protocol` (which picks `uci` or `xboard`) / `cli` → `engine` → `search`, `proof` → `rules`
//! → shakmaty.

pub mod bench;
pub mod cli;
pub mod engine;
pub mod memory;
pub mod pgn;
pub mod proof;
pub mod protocol;
pub mod rules;
pub mod search;
pub mod serve;
pub mod tablebase;
pub mod train;
pub mod uci;
pub mod xboard;
