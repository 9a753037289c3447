//! A game: a start position, the moves played, and the outcome by the rules.

use shakmaty::{variant::Antichess, Move, MoveList, Position};
use thiserror::Error;

use super::{
    hash, notation,
    outcome::{position_outcome_with, Outcome, Termination},
    FenError, MoveError, StalemateRule,
};

/// Plies without capture or pawn move after which the game is drawn.
pub const FIFTY_MOVE_PLIES: u32 = 100;

/// How often a position must occur for a repetition draw.
pub const REPETITION_COUNT: usize = 3;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum GameError {
    #[error(transparent)]
    Fen(#[from] FenError),
    #[error(transparent)]
    Move(#[from] MoveError),
    #[error("the game is over ({0})")]
    GameOver(Outcome),
}

/// How many times the last key occurs among the positions since the last irreversible move.
///
/// `keys` holds the keys of the game so far, the current position last; `halfmoves` is the
/// current halfmove clock, which bounds how far back an equal position can be. Only positions with
/// the same side to move can be equal, so we step back two plies at a time.
pub fn repetitions(keys: &[u64], halfmoves: u32) -> usize {
    let Some((&current, earlier)) = keys.split_last() else {
        return 0;
    };
    let window = (halfmoves as usize).min(earlier.len());
    1 + earlier[earlier.len() - window..]
        .iter()
        .rev()
        .skip(1)
        .step_by(2)
        .filter(|&&k| k == current)
        .count()
}

/// The draw an ongoing game has reached through its history, if any.
pub fn history_draw(keys: &[u64], halfmoves: u32) -> Option<Outcome> {
    if halfmoves >= FIFTY_MOVE_PLIES {
        Some(Outcome::draw(Termination::FiftyMoves))
    } else if repetitions(keys, halfmoves) >= REPETITION_COUNT {
        Some(Outcome::draw(Termination::Repetition))
    } else {
        None
    }
}

/// The full outcome of a position reached with the given key history, or `None` if play goes on.
///
/// Order of precedence: a side without pieces, stalemate, then the fifty-move rule, repetition and
/// dead positions (a position that ends the game by itself is decided before history is looked at).
pub fn outcome(
    pos: &Antichess,
    keys: &[u64],
    rule: StalemateRule,
    has_moves: bool,
) -> Option<Outcome> {
    match position_outcome_with(pos, rule, has_moves) {
        Some(o) if o.termination != Termination::DeadPosition => Some(o),
        dead => history_draw(keys, pos.halfmoves()).or(dead),
    }
}

/// A game of antichess under a stalemate convention, with its history.
#[derive(Clone, Debug)]
pub struct Game {
    rule: StalemateRule,
    start: Antichess,
    positions: Vec<Antichess>,
    keys: Vec<u64>,
    moves: Vec<Move>,
}

impl Game {
    /// A game from the antichess start position.
    pub fn new(rule: StalemateRule) -> Game {
        Game::from_position(Antichess::default(), rule)
    }

    pub fn from_position(start: Antichess, rule: StalemateRule) -> Game {
        let key = hash::key(&start);
        Game {
            rule,
            positions: vec![start.clone()],
            start,
            keys: vec![key],
            moves: Vec::new(),
        }
    }

    pub fn from_fen(fen: &str, rule: StalemateRule) -> Result<Game, GameError> {
        Ok(Game::from_position(notation::parse_fen(fen)?, rule))
    }

    pub fn rule(&self) -> StalemateRule {
        self.rule
    }

    pub fn set_rule(&mut self, rule: StalemateRule) {
        self.rule = rule;
    }

    pub fn start(&self) -> &Antichess {
        &self.start
    }

    pub fn position(&self) -> &Antichess {
        self.positions.last().unwrap_or(&self.start)
    }

    /// Keys of every position of the game, the current one last.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    pub fn legal_moves(&self) -> MoveList {
        self.position().legal_moves()
    }

    /// The outcome, or `None` while the game goes on.
    pub fn outcome(&self) -> Option<Outcome> {
        let pos = self.position();
        outcome(pos, &self.keys, self.rule, !pos.legal_moves().is_empty())
    }

    /// Plays a legal move. Refused when the game is over or the move is not legal.
    pub fn play(&mut self, m: Move) -> Result<(), GameError> {
        if let Some(o) = self.outcome() {
            return Err(GameError::GameOver(o));
        }
        let pos = self.position();
        if !pos.legal_moves().contains(&m) {
            return Err(MoveError::Illegal {
                text: notation::uci(m),
                fen: notation::to_fen(pos),
                hint: String::new(),
            }
            .into());
        }
        self.push(m);
        Ok(())
    }

    /// Plays a move given in UCI or SAN notation.
    pub fn play_text(&mut self, text: &str) -> Result<Move, GameError> {
        let m = notation::parse_move(self.position(), text)?;
        self.play(m)?;
        Ok(m)
    }

    /// Plays a move known to be legal (e.g. from `legal_moves`), even after the game ended.
    pub fn push(&mut self, m: Move) {
        let before = self.position();
        let before_key = self
            .keys
            .last()
            .copied()
            .unwrap_or_else(|| hash::key(before));
        let mut after = before.clone();
        after.play_unchecked(m);
        let key = hash::key_after(before, before_key, m, &after);
        self.positions.push(after);
        self.keys.push(key);
        self.moves.push(m);
    }

    /// Takes back the last move.
    pub fn undo(&mut self) -> Option<Move> {
        let m = self.moves.pop()?;
        self.positions.pop();
        self.keys.pop();
        Some(m)
    }
}

impl Default for Game {
    fn default() -> Game {
        Game::new(StalemateRule::default())
    }
}
