//! The XBoard/CECP protocol (version 2): `parser` reads commands, `session` keeps the game and
//! drives the engine. A sibling of `uci`, over the same engine.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod parser;
pub mod session;

pub use session::Session;
