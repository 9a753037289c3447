//! Time management: how long to think about one move.
//!
//! From the clock we derive two limits. The soft limit is checked between iterations: a new
//! iteration is started only while the soft limit has not been reached, since it would probably not
//! finish. The hard limit is checked inside the search every few thousand nodes and aborts it.
//! Both leave `Move Overhead` unused for the GUI and the pipe. A fixed `movetime` uses the same
//! limit for both. Without a clock or movetime there is no time limit.

use std::time::Duration;

use super::{Score, SearchLimits};

/// Moves left in the game when the GUI does not say (antichess games are short). With 25, Syotti
/// ended its games against Fairy-Stockfish at 10+0.1 with about half of its clock left (mean of 20
/// games per variant). 15 spends that time: against Fairy-Stockfish 11.1 (10+0.1, 200 antichess
/// games, Contempt 200) it scored 87.5% against 83.0% with 25, and the milestone run with 15
/// (build fc7ccd2) scored 88.0% in antichess and 87.5% in suicide. In self-play against 25 it is
/// about even: 50.0% and 53.0% (two runs of 200 games at 5+0.05); 18 scored 49.0% (200 games,
/// 2+0.02). A GUI-given movestogo is capped at this value too; that was not measured separately.
/// 11 was tried again at 10+0.1 with the round-9 network (self-play, dev openings, 200 games):
/// 53.2% (+84 =45 -71), +23 +/- 43 Elo, LOS 85%, but it spent only 5% more time (0.222 s a move
/// against 0.212 s: almost two moves in five, forced captures and moves from proofs, take under
/// 0.1 s whatever this share is), so it was not kept. A default falling with the material (15 down
/// to 8, a move for every 16/7 pieces below 28, to spend more in the middlegame, where Syotti
/// spends a third less than Fairy-Stockfish) scored 47.5% (+157 =66 -177), -17 +/- 31 Elo in
/// antichess self-play at 2+0.02 (dev openings, 400 games): not kept.
const DEFAULT_MOVES_TO_GO: u32 = 15;
/// Never plan on less than this for a move.
const MIN_THINK: Duration = Duration::from_millis(1);

/// A forced move (one legal move) gets this fraction of the usual soft limit: enough for a
/// search deepened quickly through the table the previous search filled, so that the score
/// shown for it is worth showing (a depth-1 score shown after a deep one misleads a GUI user),
/// and little enough to keep the clock for real choices.
const FORCED_MOVE_DIVISOR: u32 = 10;

/// The factor on the soft limit after an iteration: a best move that several iterations in a
/// row chose needs less time (down to half), a new best move or a falling score more (up to
/// 1.5 times). A further factor from the share of the nodes spent below the best root move
/// (`(1.6 - share) × 1.2` within 0.7–1.5: more time when the choice shared the search with rivals,
/// the median share 0.68 on 30 untuned openings) scored 50.6% (+165 =75 −160), +4 ± 31 Elo in
/// antichess self-play at 2+0.02 (dev openings, 400 games), with the same time a move: not kept.
pub fn scale(stable_iterations: u32, score_drop: Score) -> f64 {
    let stability: f64 = match stable_iterations {
        0 => 1.3,
        1 => 1.1,
        2 => 0.9,
        3 => 0.75,
        _ => 0.6,
    };
    let falling = if score_drop > 50 {
        1.25
    } else if score_drop > 20 {
        1.1
    } else {
        1.0
    };
    (stability * falling).clamp(0.5, 1.5)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeBudget {
    pub soft: Duration,
    pub hard: Duration,
}

impl TimeBudget {
    /// The budget of a forced move: a tenth of the soft limit, at most twice that in all.
    pub fn forced(self) -> TimeBudget {
        let soft = (self.soft / FORCED_MOVE_DIVISOR).max(MIN_THINK);
        TimeBudget {
            soft,
            hard: (soft * 2).min(self.hard),
        }
    }
}

/// The time budget for a search, or `None` when time does not bound it.
pub fn budget(limits: &SearchLimits, overhead: Duration) -> Option<TimeBudget> {
    if let Some(movetime) = limits.movetime {
        let t = movetime.saturating_sub(overhead).max(MIN_THINK);
        return Some(TimeBudget { soft: t, hard: t });
    }
    let clock = limits.clock?;
    let available = clock.time.saturating_sub(overhead);
    let moves_to_go = clock
        .moves_to_go
        .unwrap_or(DEFAULT_MOVES_TO_GO)
        .clamp(1, DEFAULT_MOVES_TO_GO);
    // Spend an even share of the remaining time plus most of the increment...
    let share = available / moves_to_go + clock.increment * 3 / 4;
    // ...but never more than a fraction of what is left (the last moves before a time control
    // included), so that one long think cannot flag.
    let cap = if moves_to_go == 1 {
        available * 3 / 4
    } else {
        available / 3
    };
    let soft = share.min(cap).max(MIN_THINK);
    // The hard limit ends an iteration started just before the soft limit: at most twice the
    // soft limit, and at most a sixth of the clock (a lichess 60+1 game showed 10–15 s moves, a
    // quarter of the clock, from the old limit of three soft limits and a third of the clock).
    let hard_cap = if moves_to_go == 1 { cap } else { available / 6 };
    let hard = (soft * 2).min(hard_cap).max(soft);
    // What the move spent before this search (the proof scan) comes off both limits.
    let soft = soft.saturating_sub(limits.spent).max(MIN_THINK);
    let hard = hard.saturating_sub(limits.spent).max(soft);
    Some(TimeBudget { soft, hard })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Clock;

    #[test]
    fn a_forced_move_gets_a_small_share() {
        let full = budget(&clock(60_000, 1_000, None), Duration::ZERO).expect("a clock");
        let forced = full.forced();
        assert_eq!(forced.soft, full.soft / FORCED_MOVE_DIVISOR);
        assert_eq!(forced.hard, forced.soft * 2);
        assert!(forced.hard <= full.hard);
    }

    fn clock(ms: u64, inc: u64, mtg: Option<u32>) -> SearchLimits {
        SearchLimits {
            clock: Some(Clock {
                time: Duration::from_millis(ms),
                increment: Duration::from_millis(inc),
                moves_to_go: mtg,
            }),
            ..SearchLimits::default()
        }
    }

    const OVERHEAD: Duration = Duration::from_millis(30);

    #[test]
    fn stable_moves_save_time_and_trouble_spends_it() {
        assert!(scale(5, 0) < 1.0);
        assert!(scale(0, 0) > 1.0);
        assert!(scale(0, 100) > scale(0, 0));
        assert!((0.5..=1.5).contains(&scale(0, 1000)));
        // At 60+1 no move may take a quarter of the clock.
        let b = budget(&clock(60_000, 1_000, None), OVERHEAD).expect("budget");
        assert!(b.hard <= Duration::from_millis(10_000), "{:?}", b.hard);
        assert!(b.soft.mul_f64(scale(0, 1000)) <= b.hard);
    }

    #[test]
    fn time_spent_before_the_search_comes_off_the_budget() {
        let full = budget(&clock(60_000, 0, None), OVERHEAD).expect("budget");
        let mut limits = clock(60_000, 0, None);
        limits.spent = Duration::from_millis(1000);
        let left = budget(&limits, OVERHEAD).expect("budget");
        assert_eq!(left.soft, full.soft - Duration::from_millis(1000));
        assert_eq!(left.hard, full.hard - Duration::from_millis(1000));
    }

    #[test]
    fn no_clock_no_budget() {
        assert_eq!(budget(&SearchLimits::default(), OVERHEAD), None);
    }

    #[test]
    fn movetime_is_both_limits_minus_overhead() {
        let limits = SearchLimits {
            movetime: Some(Duration::from_millis(1000)),
            ..SearchLimits::default()
        };
        let b = budget(&limits, OVERHEAD).expect("budget");
        assert_eq!(b.soft, Duration::from_millis(970));
        assert_eq!(b.hard, b.soft);
    }

    #[test]
    fn sudden_death_spends_a_share() {
        let b = budget(&clock(60_000, 0, None), OVERHEAD).expect("budget");
        let available = Duration::from_millis(59_970);
        assert_eq!(b.soft, available / DEFAULT_MOVES_TO_GO);
        assert!(b.hard >= b.soft && b.hard <= available / 3);
    }

    #[test]
    fn increment_adds_time() {
        let without = budget(&clock(10_000, 0, None), OVERHEAD).expect("budget");
        let with = budget(&clock(10_000, 1000, None), OVERHEAD).expect("budget");
        assert!(with.soft > without.soft);
    }

    #[test]
    fn moves_to_go_one_can_use_most_of_the_time() {
        let b = budget(&clock(3000, 0, Some(1)), OVERHEAD).expect("budget");
        assert!(b.hard <= Duration::from_millis(2970) * 3 / 4);
        assert!(b.soft >= Duration::from_millis(2000));
    }

    #[test]
    fn never_exceeds_the_clock_when_nearly_flagging() {
        for ms in [0, 1, 10, 29, 30, 31, 50, 100, 500] {
            let b = budget(&clock(ms, 10, None), OVERHEAD).expect("budget");
            let left = Duration::from_millis(ms);
            // The hard limit stays within the clock minus overhead (or the minimum think time).
            assert!(
                b.hard <= left.saturating_sub(OVERHEAD).max(MIN_THINK) + Duration::from_millis(10)
            );
        }
    }
}
