//! The UCI protocol: `parser` reads commands, `options` holds the settings, `responses` formats
//! what the engine says, and `session` ties them to the engine.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod options;
pub mod parser;
pub mod responses;
pub mod session;

pub use session::Session;
