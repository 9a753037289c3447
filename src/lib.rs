//! Syotti: an antichess engine.
//!
//! Layers, each depending only on the ones below it:
//! `uci` / `cli` → `engine` → `search`, `proof` → `rules` → shakmaty.

pub mod cli;
pub mod rules;
pub mod uci;
