//! Game results as the rules decide them.
//!
//! A position can end the game by itself (a side without pieces, a side to move without a legal
//! move, a dead position) or through its history (fifty-move rule, threefold repetition). This
//! module answers the first kind from the position alone; `Game` adds the second.
//!
//! Dead positions: shakmaty's `has_insufficient_material(color)` says that `color` can never lose
//! all its pieces. Both sides are flagged together only when every white piece is a bishop on one
//! square colour and every black piece a bishop on the other: then no capture can ever happen, and
//! no side can be stalemated either (a set of same-coloured bishops that blocks itself completely
//! would have to fill all 32 squares of that colour). Such a position is therefore a draw under all
//! three stalemate conventions, and that is the only dead-position rule we apply.

use std::fmt;

use shakmaty::{variant::Antichess, Color, Position};

use super::StalemateRule;

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The winner has no pieces left.
    NoPieces,
    /// The side to move has no legal move.
    Stalemate,
    /// 100 plies without capture or pawn move.
    FiftyMoves,
    /// The same position, side to move and en-passant possibility for the third time.
    Repetition,
    /// Neither side can ever lose all its pieces or be stalemated.
    DeadPosition,
}

impl Termination {
    pub const fn description(self) -> &'static str {
        match self {
            Termination::NoPieces => "no pieces left",
            Termination::Stalemate => "stalemate",
            Termination::FiftyMoves => "fifty-move rule",
            Termination::Repetition => "threefold repetition",
            Termination::DeadPosition => "dead position",
        }
    }
}

/// A finished game: the winner (`None` for a draw) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Outcome {
    pub winner: Option<Color>,
    pub termination: Termination,
}

impl Outcome {
    pub const fn win(winner: Color, termination: Termination) -> Outcome {
        Outcome {
            winner: Some(winner),
            termination,
        }
    }

    pub const fn draw(termination: Termination) -> Outcome {
        Outcome {
            winner: None,
            termination,
        }
    }

    /// PGN result string: `1-0`, `0-1` or `1/2-1/2`.
    pub const fn pgn(self) -> &'static str {
        match self.winner {
            Some(Color::White) => "1-0",
            Some(Color::Black) => "0-1",
            None => "1/2-1/2",
        }
    }

    /// The result from the point of view of `color`: +1 win, 0 draw, -1 loss.
    pub fn score_for(self, color: Color) -> i32 {
        match self.winner {
            Some(w) if w == color => 1,
            Some(_) => -1,
            None => 0,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.winner {
            Some(color) => write!(
                f,
                "{} {} wins ({})",
                self.pgn(),
                if color.is_white() { "White" } else { "Black" },
                self.termination.description()
            ),
            None => write!(
                f,
                "{} draw ({})",
                self.pgn(),
                self.termination.description()
            ),
        }
    }
}

/// The result of a stalemate of the side to move under `rule`.
pub fn stalemate_outcome(pos: &Antichess, rule: StalemateRule) -> Outcome {
    let us = pos.turn();
    match rule {
        StalemateRule::StalematedSideWins => Outcome::win(us, Termination::Stalemate),
        StalemateRule::Draw => Outcome::draw(Termination::Stalemate),
        StalemateRule::FewerPiecesWins => {
            let ours = pos.board().by_color(us).count();
            let theirs = pos.board().by_color(!us).count();
            match ours.cmp(&theirs) {
                std::cmp::Ordering::Less => Outcome::win(us, Termination::Stalemate),
                std::cmp::Ordering::Greater => Outcome::win(!us, Termination::Stalemate),
                std::cmp::Ordering::Equal => Outcome::draw(Termination::Stalemate),
            }
        }
    }
}

/// The outcome a position has by itself, without looking at history.
///
/// `has_moves` is whether the side to move has a legal move; callers that already generated the
/// moves pass it in to avoid generating them again.
pub fn position_outcome_with(
    pos: &Antichess,
    rule: StalemateRule,
    has_moves: bool,
) -> Option<Outcome> {
    let board = pos.board();
    if board.white().is_empty() {
        return Some(Outcome::win(Color::White, Termination::NoPieces));
    }
    if board.black().is_empty() {
        return Some(Outcome::win(Color::Black, Termination::NoPieces));
    }
    if !has_moves {
        return Some(stalemate_outcome(pos, rule));
    }
    if is_dead_position(pos) {
        return Some(Outcome::draw(Termination::DeadPosition));
    }
    None
}

/// The outcome a position has by itself (no pieces, stalemate, dead position), or `None`.
pub fn position_outcome(pos: &Antichess, rule: StalemateRule) -> Option<Outcome> {
    let has_moves = !pos.legal_moves().is_empty();
    position_outcome_with(pos, rule, has_moves)
}

/// Neither side can ever lose all its pieces or be stalemated (see the module notes).
pub fn is_dead_position(pos: &Antichess) -> bool {
    pos.has_insufficient_material(Color::White) && pos.has_insufficient_material(Color::Black)
}

/// `color` can never win, whatever happens (it can never lose all its pieces, and no stalemate
/// can arise). Valid under every convention: shakmaty flags only pure bishop positions and the
/// lone knight against lone knight, where stalemate is impossible and the piece counts are even.
pub fn cannot_win(pos: &Antichess, color: Color) -> bool {
    pos.board().by_color(color).any() && pos.has_insufficient_material(color)
}
