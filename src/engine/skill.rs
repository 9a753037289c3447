//! Playing at a strength people can beat: `Skill Level`, `UCI_LimitStrength` and `UCI_Elo`.
//!
//! A level below `MAX_LEVEL` plays a short search (depth and nodes capped by the level) that
//! looks at several root moves at once (MultiPV), then picks among them with noise: each
//! candidate's score gets a random bonus of up to `noise` centipawns, and the highest sum is
//! played. The lower the level, the shallower the search, the more candidates and the louder the
//! noise, so the engine misses more and more of what a capture sequence gives away. A weak level
//! answers from no book and runs no proof scan: the proofs would play perfectly what the level
//! is meant to miss. `MAX_LEVEL` is the engine's full strength (no limiter at all).
//!
//! `UCI_Elo` chooses the level from `ELO_OF_LEVEL`, measured by matches against Fairy-Stockfish's
//! own limited strength (`tools/skill/`; README, "Playing strength"): its scale is Fairy-Stockfish's
//! `UCI_Elo`, not a human rating list.

use shakmaty::Move;

use crate::search::{Score, SearchInfo, MATE_BOUND};

/// Full strength: no limiter.
pub const MAX_LEVEL: u8 = 20;

/// The rating of each level below `MAX_LEVEL` (index = level) on Fairy-Stockfish's `UCI_Elo`
/// scale: 48-84 games a level against Fairy-Stockfish at fixed `UCI_Elo` settings, antichess
/// 3+0.03, fitted by `tools/skill/fit.py` (made non-decreasing, rounded, 10 apart where levels
/// could not be told apart). README, "Playing strength", has the games and the errors (about
/// ±50-65 a level).
pub const ELO_OF_LEVEL: [u32; MAX_LEVEL as usize] = [
    980, 1140, 1350, 1360, 1590, 1600, 1770, 1810, 1930, 2040, 2050, 2080, 2110, 2280, 2290, 2300,
    2380, 2390, 2670, 2680,
];
/// `UCI_Elo`'s range: the weakest level's and a step below full strength.
pub const ELO_MIN: u32 = ELO_OF_LEVEL[0];
pub const ELO_MAX: u32 = ELO_OF_LEVEL[MAX_LEVEL as usize - 1];

/// A strength below full.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Skill {
    level: u8,
}

impl Skill {
    /// The limiter for `level`; `None` at `MAX_LEVEL` and above (full strength).
    pub fn new(level: u8) -> Option<Skill> {
        (level < MAX_LEVEL).then_some(Skill { level })
    }

    /// The highest level whose measured Elo is at most `elo` (the weakest below the range).
    pub fn from_elo(elo: u32) -> Skill {
        let level = ELO_OF_LEVEL.iter().rposition(|&e| e <= elo).unwrap_or(0);
        Skill { level: level as u8 }
    }

    pub fn level(self) -> u8 {
        self.level
    }

    /// The search's depth cap.
    pub fn depth(self) -> u32 {
        1 + u32::from(self.level) / 2
    }

    /// The search's node cap (so that a weak level answers at once at any time control).
    pub fn nodes(self) -> u64 {
        2_000 << (self.level / 2)
    }

    /// How many root moves are searched side by side.
    pub fn lines(self) -> usize {
        4 + usize::from(MAX_LEVEL - self.level) / 2
    }

    /// The largest random bonus a candidate's score gets, centipawns: 1,000 at level 0, a sixth
    /// less each level up (about 500 at 4, 120 at 12, 36 at 19).
    pub fn noise(self) -> Score {
        (1000.0 * 0.84f64.powi(i32::from(self.level))).round() as Score
    }

    /// The move played among `lines` (the last complete iteration's, one a root move, scores
    /// from the side to move's view): the highest score plus a random bonus. A proven win is
    /// never traded for noise, a proven loss is played only when every move loses.
    pub fn pick(self, lines: &[SearchInfo], rng: &mut fastrand::Rng) -> Option<Move> {
        let noise = self.noise();
        lines
            .iter()
            .filter_map(|l| Some((*l.pv.first()?, l.score)))
            .map(|(m, score)| {
                let bonus = if score.abs() > MATE_BOUND {
                    0
                } else {
                    rng.i32(0..=noise)
                };
                (m, score.saturating_add(bonus))
            })
            .max_by_key(|&(_, value)| value)
            .map(|(m, _)| m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Bound, MATE};
    use shakmaty::{Role, Square};
    use std::time::Duration;

    fn line(to: Square, score: Score) -> SearchInfo {
        SearchInfo {
            depth: 1,
            seldepth: 1,
            multipv: 1,
            score,
            bound: Bound::Exact,
            nodes: 0,
            nps: 0,
            hashfull: 0,
            time: Duration::ZERO,
            pv: vec![Move::Normal {
                role: Role::Pawn,
                from: Square::E2,
                capture: None,
                to,
                promotion: None,
            }],
            tbhits: 0,
        }
    }

    #[test]
    fn levels_grow_stronger_and_elo_chooses_the_level_it_measured() {
        assert_eq!(Skill::new(MAX_LEVEL), None);
        let weakest = Skill::new(0).expect("a limiter");
        let strongest = Skill::new(MAX_LEVEL - 1).expect("a limiter");
        assert!(weakest.depth() < strongest.depth());
        assert!(weakest.nodes() < strongest.nodes());
        assert!(weakest.noise() > strongest.noise() && strongest.noise() > 0);
        assert!(ELO_OF_LEVEL.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(Skill::from_elo(0).level(), 0);
        assert_eq!(Skill::from_elo(ELO_MAX).level(), MAX_LEVEL - 1);
        assert_eq!(Skill::from_elo(ELO_OF_LEVEL[7] + 1).level(), 7);
    }

    #[test]
    fn a_weak_level_varies_its_moves_but_never_drops_a_proven_win_for_noise() {
        let weakest = Skill::new(0).expect("a limiter");
        let mut rng = fastrand::Rng::with_seed(7);
        let close = [line(Square::E3, 20), line(Square::E4, 0)];
        let picks: std::collections::HashSet<_> = (0..200)
            .filter_map(|_| weakest.pick(&close, &mut rng))
            .collect();
        assert_eq!(picks.len(), 2, "both close moves get played");
        let won = [line(Square::E3, 100), line(Square::E4, MATE - 9)];
        for _ in 0..200 {
            assert_eq!(weakest.pick(&won, &mut rng), won[1].pv.first().copied());
        }
        let lost = [line(Square::E3, -MATE + 4), line(Square::E4, -400)];
        for _ in 0..200 {
            assert_eq!(weakest.pick(&lost, &mut rng), lost[1].pv.first().copied());
        }
    }
}
