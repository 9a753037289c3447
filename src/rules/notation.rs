//! Reading and writing positions and moves: FEN in, UCI and SAN moves in and out.
//!
//! Every error names what is wrong, so that the UCI loop and the command line can pass it on.

use shakmaty::{
    fen::Fen,
    san::{San, SanPlus},
    uci::UciMove,
    variant::Antichess,
    CastlingMode, EnPassantMode, Move, Position, PositionErrorKinds,
};
use thiserror::Error;

/// The antichess start position (no castling rights).
pub const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";

/// A FEN that could not be read or that describes no antichess position.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum FenError {
    #[error("cannot parse FEN '{fen}': {reason}")]
    Syntax { fen: String, reason: String },
    #[error("illegal antichess position '{fen}': {reasons}")]
    Illegal { fen: String, reasons: String },
}

/// A move that could not be read or is not legal in the position.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MoveError {
    #[error("cannot parse move '{0}'")]
    Syntax(String),
    #[error("illegal move '{text}' in {fen}{hint}")]
    Illegal {
        text: String,
        fen: String,
        hint: String,
    },
}

/// Parses a FEN (with or without the move counters) into an antichess position.
pub fn parse_fen(fen: &str) -> Result<Antichess, FenError> {
    let text = fen.trim();
    let parsed: Fen = text
        .parse()
        .map_err(|e: shakmaty::fen::ParseFenError| FenError::Syntax {
            fen: text.to_string(),
            reason: e.to_string(),
        })?;
    // Positions with more promoted material than the standard set allows are still antichess
    // positions (studies use them), so that one check is waived.
    let illegal = |kinds| FenError::Illegal {
        fen: text.to_string(),
        reasons: describe_position_errors(kinds),
    };
    match parsed.into_position::<Antichess>(CastlingMode::Standard) {
        Ok(pos) => Ok(pos),
        Err(e) => {
            let kinds = e.kinds() - PositionErrorKinds::TOO_MUCH_MATERIAL;
            e.ignore_too_much_material().map_err(|_| illegal(kinds))
        }
    }
}

fn describe_position_errors(kinds: PositionErrorKinds) -> String {
    let table = [
        (PositionErrorKinds::EMPTY_BOARD, "the board is empty"),
        (
            PositionErrorKinds::PAWNS_ON_BACKRANK,
            "pawns on the first or last rank",
        ),
        (
            PositionErrorKinds::INVALID_CASTLING_RIGHTS,
            "castling rights given, but antichess has no castling (use '-')",
        ),
        (
            PositionErrorKinds::INVALID_EP_SQUARE,
            "the en-passant square does not follow a double pawn push",
        ),
        (PositionErrorKinds::TOO_MUCH_MATERIAL, "too much material"),
        (
            PositionErrorKinds::VARIANT,
            "not a valid antichess position",
        ),
    ];
    let mut reasons: Vec<&str> = table
        .iter()
        .filter(|(kind, _)| kinds.contains(*kind))
        .map(|(_, text)| *text)
        .collect();
    if reasons.is_empty() {
        reasons.push("inconsistent position");
    }
    reasons.join("; ")
}

/// The FEN of a position, with move counters.
pub fn to_fen(pos: &Antichess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Parses a move in UCI notation (`e2e4`, `a7a8q`, `a2a1k`) and checks that it is legal.
pub fn parse_uci_move(pos: &Antichess, text: &str) -> Result<Move, MoveError> {
    let uci: UciMove = text
        .trim()
        .parse()
        .map_err(|_| MoveError::Syntax(text.to_string()))?;
    uci.to_move(pos).map_err(|_| MoveError::Illegal {
        text: text.to_string(),
        fen: to_fen(pos),
        hint: capture_hint(pos),
    })
}

/// Parses a move in SAN (`e4`, `Nxf3`, `a1=K`) and checks that it is legal.
pub fn parse_san_move(pos: &Antichess, text: &str) -> Result<Move, MoveError> {
    let trimmed = text.trim().trim_end_matches(['!', '?', '+', '#']);
    let san: San = trimmed
        .parse()
        .map_err(|_| MoveError::Syntax(text.to_string()))?;
    san.to_move(pos).map_err(|_| MoveError::Illegal {
        text: text.to_string(),
        fen: to_fen(pos),
        hint: capture_hint(pos),
    })
}

/// Parses a move in UCI or, failing that, SAN notation.
pub fn parse_move(pos: &Antichess, text: &str) -> Result<Move, MoveError> {
    match parse_uci_move(pos, text) {
        Err(MoveError::Syntax(_)) => parse_san_move(pos, text),
        result => result,
    }
}

fn capture_hint(pos: &Antichess) -> String {
    if pos.capture_moves().is_empty() {
        String::new()
    } else {
        " (a capture is compulsory)".to_string()
    }
}

/// A move in UCI notation, `k` for a king promotion.
pub fn uci(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// A move in SAN, for people. Antichess has no check, so no `+`.
pub fn san(pos: &Antichess, m: Move) -> String {
    SanPlus::from_move(pos.clone(), m).to_string()
}

/// A line of moves in SAN, numbered from the position's move number.
pub fn san_line(pos: &Antichess, moves: &[Move]) -> String {
    let mut pos = pos.clone();
    let mut out = String::new();
    for (i, &m) in moves.iter().enumerate() {
        if !pos.legal_moves().contains(&m) {
            break;
        }
        let number = pos.fullmoves().get();
        if pos.turn().is_white() {
            out.push_str(&format!("{number}. "));
        } else if i == 0 {
            out.push_str(&format!("{number}... "));
        }
        out.push_str(&san(&pos, m));
        out.push(' ');
        pos.play_unchecked(m);
    }
    out.trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fen_with_and_without_counters() {
        assert!(parse_fen(START_FEN).is_ok());
        assert!(parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - -").is_ok());
        assert!(parse_fen("8/8/p7/8/8/8/7P/8 w - - 0 1").is_ok());
    }

    #[test]
    fn fen_errors_say_what_is_wrong() {
        let castling = parse_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(
            matches!(&castling, Err(FenError::Illegal { reasons, .. }) if reasons.contains("castling"))
        );
        let backrank = parse_fen("P7/8/8/8/8/8/8/7k w - - 0 1");
        assert!(
            matches!(&backrank, Err(FenError::Illegal { reasons, .. }) if reasons.contains("first or last rank"))
        );
        let ep = parse_fen("8/8/8/8/4P3/8/8/k7 b - e6 0 1");
        assert!(
            matches!(&ep, Err(FenError::Illegal { reasons, .. }) if reasons.contains("en-passant"))
        );
        assert!(matches!(
            parse_fen("not a fen"),
            Err(FenError::Syntax { .. })
        ));
        assert!(matches!(parse_fen(""), Err(FenError::Syntax { .. })));
        assert!(parse_fen("8/8/8/8/8/8/8/8 w - - 0 1").is_err());
    }

    #[test]
    fn king_promotion_in_uci_and_san() {
        let pos = parse_fen("8/8/8/8/8/8/p7/7K b - - 0 1").expect("valid");
        let m = parse_uci_move(&pos, "a2a1k").expect("king promotion is legal");
        assert_eq!(uci(m), "a2a1k");
        assert_eq!(san(&pos, m), "a1=K");
        assert_eq!(parse_san_move(&pos, "a1=K"), Ok(m));
    }

    #[test]
    fn illegal_quiet_move_when_capture_is_compulsory() {
        let pos = parse_fen("8/8/8/3p4/4P3/8/8/8 w - - 0 1").expect("valid");
        let err = parse_uci_move(&pos, "e4e5").expect_err("capture is compulsory");
        assert!(err.to_string().contains("compulsory"));
        assert!(parse_uci_move(&pos, "e4d5").is_ok());
        assert!(matches!(
            parse_uci_move(&pos, "zz"),
            Err(MoveError::Syntax(_))
        ));
    }

    #[test]
    fn san_line_numbers_moves() {
        let pos = parse_fen(START_FEN).expect("valid");
        let e3 = parse_uci_move(&pos, "e2e3").expect("legal");
        let mut after = pos.clone();
        after.play_unchecked(e3);
        let b5 = parse_uci_move(&after, "b7b5").expect("legal");
        assert_eq!(san_line(&pos, &[e3, b5]), "1. e3 b5");
        assert_eq!(san_line(&after, &[b5]), "1... b5");
    }
}
