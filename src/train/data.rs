//! The training data's line format: `FEN;score;result;rule`.
//!
//! - `score`: the search's score in centipawns from the side to move's view (mate and
//!   tablebase scores as the search gives them);
//! - `result`: the game's result from White's view, `1`, `0.5` or `0`;
//! - `rule`: the stalemate convention's name (`stalemated-side-wins`, `fewer-pieces-wins`, `draw`).

use shakmaty::{variant::Antichess, Color, Position};
use thiserror::Error;

use crate::{
    rules::{parse_fen, to_fen, StalemateRule},
    search::Score,
};

#[derive(Debug, Error, PartialEq, Eq)]
pub enum DataError {
    #[error("line {line}: expected FEN;score;result;rule")]
    Fields { line: usize },
    #[error("line {line}: bad FEN: {reason}")]
    Fen { line: usize, reason: String },
    #[error("line {line}: bad number '{text}'")]
    Number { line: usize, text: String },
    #[error("line {line}: {reason}")]
    Rule { line: usize, reason: String },
}

/// One labelled position.
#[derive(Clone, Debug)]
pub struct Sample {
    pub pos: Antichess,
    /// Search score, side to move's view.
    pub score: Score,
    /// Game result for the side to move: 1 win, 0.5 draw, 0 loss.
    pub result: f32,
    pub rule: StalemateRule,
}

/// Formats one line of training data (`result` from White's view).
pub fn format_line(
    pos: &Antichess,
    score: Score,
    white_result: f32,
    rule: StalemateRule,
) -> String {
    format!("{};{score};{white_result};{}", to_fen(pos), rule.name())
}

/// Parses one line (numbered from 1 in errors).
pub fn parse_line(text: &str, line: usize) -> Result<Sample, DataError> {
    let fields: Vec<&str> = text.trim().split(';').collect();
    let [fen, score, result, rule] = fields[..] else {
        return Err(DataError::Fields { line });
    };
    let pos = parse_fen(fen).map_err(|e| DataError::Fen {
        line,
        reason: e.to_string(),
    })?;
    let number = |t: &str| DataError::Number {
        line,
        text: t.to_string(),
    };
    let score: Score = score.trim().parse().map_err(|_| number(score))?;
    let white: f32 = result.trim().parse().map_err(|_| number(result))?;
    if !(0.0..=1.0).contains(&white) {
        return Err(number(result));
    }
    let rule: StalemateRule =
        rule.parse()
            .map_err(
                |e: crate::rules::convention::ParseStalemateRuleError| DataError::Rule {
                    line,
                    reason: e.to_string(),
                },
            )?;
    let result = match pos.turn() {
        Color::White => white,
        Color::Black => 1.0 - white,
    };
    Ok(Sample {
        pos,
        score,
        result,
        rule,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip_with_the_result_turned_to_the_side_to_move() {
        let pos = parse_fen("8/8/p7/8/8/8/7P/8 b - - 0 1").expect("valid");
        let line = format_line(&pos, -35, 1.0, StalemateRule::FewerPiecesWins);
        let sample = parse_line(&line, 1).expect("parses");
        assert_eq!(sample.score, -35);
        assert_eq!(sample.result, 0.0);
        assert_eq!(sample.rule, StalemateRule::FewerPiecesWins);
        assert_eq!(to_fen(&sample.pos), to_fen(&pos));
    }

    #[test]
    fn bad_lines_are_errors() {
        assert_eq!(
            parse_line("x;1", 3).err(),
            Some(DataError::Fields { line: 3 })
        );
        assert!(matches!(
            parse_line("8/8/8/8/8/8/8/9 w - - 0 1;1;1;draw", 1),
            Err(DataError::Fen { .. })
        ));
        let fen = "8/8/p7/8/8/8/7P/8 w - - 0 1";
        assert!(matches!(
            parse_line(&format!("{fen};x;1;draw"), 1),
            Err(DataError::Number { .. })
        ));
        assert!(matches!(
            parse_line(&format!("{fen};1;2;draw"), 1),
            Err(DataError::Number { .. })
        ));
        assert!(matches!(
            parse_line(&format!("{fen};1;1;chess"), 1),
            Err(DataError::Rule { .. })
        ));
    }
}
