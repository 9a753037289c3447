//! The UCI protocol.

/// Runs the UCI loop on stdin/stdout until `quit` or end of input.
pub fn run_stdio() -> u8 {
    0
}
