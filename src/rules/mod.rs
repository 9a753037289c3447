//! The rules of antichess: the single source of truth for legal moves and results.
//!
//! Built on shakmaty's `Antichess` position (compulsory capture, en passant, promotion to king,
//! several kings, no castling). This layer adds what shakmaty leaves open: the three stalemate
//! conventions, the draws by history (fifty moves, threefold repetition), dead positions, fast move
//! counting for perft, incremental position keys, and notation with clear errors.

pub mod convention;
pub mod game;
pub mod hash;
pub mod movegen;
pub mod notation;
pub mod outcome;

pub use convention::{StalemateRule, Variant};
pub use game::{Game, GameError};
pub use notation::{
    parse_fen, parse_move, parse_uci_move, san, to_fen, uci, FenError, MoveError, START_FEN,
};
pub use outcome::{Outcome, Termination};
pub use shakmaty::{variant::Antichess, Color, Move, MoveList, Position, Role};
