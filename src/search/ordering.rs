//! Move ordering: the transposition-table move, then captures, killers and quiet moves.
//!
//! In antichess a capture is compulsory whenever one exists, so a node's moves are either all
//! captures or all quiet. Among captures we prefer those after which our capturing piece can be
//! taken back (we want to lose pieces), and among those by capture history (how often the same
//! capture caused a cutoff), then capturing with a heavier burden. Among quiet moves, killers
//! come first, then history (by squares, plus a continuation history of how well the move
//! answered the opponent's last move), and a move that offers a piece (to a square the opponent
//! attacks) gets a bonus: it forces the opponent to capture.

use shakmaty::{attacks, variant::Antichess, Bitboard, Move, Position, Role};

use super::{context::SearchContext, eval::attacked_squares, Score};

const TT_MOVE: Score = 1_000_000;
const RECAPTURABLE: Score = 100_000;
const CAPTURE: Score = 50_000;
const KILLER: [Score; 2] = [48_000, 47_000];
/// Ordering scores from here up are the table move, captures and killers (a quiet move's
/// history, continuation history and offer bonus stay below).
pub(super) const KILLER_MIN: Score = 47_000;
const OFFER: Score = 8_000;
/// History scores are kept below this.
pub(super) const HISTORY_MAX: Score = 16_000;

fn burden(role: Role) -> Score {
    match role {
        Role::Pawn => 1,
        Role::Knight => 3,
        Role::Bishop => 4,
        Role::Rook => 5,
        Role::Queen => 6,
        Role::King => 2,
    }
}

/// Whether the opponent attacks `m`'s destination once the move is made.
pub(super) fn lands_attacked(pos: &Antichess, m: Move) -> bool {
    let board = pos.board();
    let occupied = board.occupied().without(m.from().unwrap_or(m.to()));
    let occupied = match m {
        Move::EnPassant { from, to } => {
            occupied.without(shakmaty::Square::from_coords(to.file(), from.rank()))
        }
        _ => occupied,
    };
    let attackers = board.attacks_to(m.to(), !pos.turn(), occupied) & board.by_color(!pos.turn());
    let captured = if m.is_capture() && !m.is_en_passant() {
        shakmaty::Bitboard::from_square(m.to())
    } else {
        shakmaty::Bitboard::EMPTY
    };
    (attackers & !captured).any()
}

/// Quiet nodes with at least this many moves work out the opponent's attacks once for all of
/// them; below it (and at capture nodes, which rarely have more than two or three moves) each
/// move asks the board on its own.
const OFFER_MAP_MOVES: usize = 4;

/// Which of a node's moves offer a piece ([`lands_attacked`]), answered from every square the
/// opponent attacks when the node has many quiet moves.
///
/// The map is exact for a quiet move: the moving piece is not an attacker, and leaving its
/// square only opens lines. A square the map holds stays attacked; one it does not can become
/// attacked only by a slider that reached the moving piece's square before and now sees through
/// it, so a move from an attacked square along a line is asked of the board itself.
#[derive(Clone, Copy, Debug)]
pub(super) struct Offers {
    danger: Option<Bitboard>,
}

impl Offers {
    pub(super) fn new(pos: &Antichess, moves: &[Move]) -> Offers {
        let quiet = moves.first().is_some_and(|m| !m.is_capture());
        let danger = (quiet && moves.len() >= OFFER_MAP_MOVES)
            .then(|| attacked_squares(pos.board(), !pos.turn()));
        Offers { danger }
    }

    /// Whether the opponent attacks `m`'s destination once `m` is played in `pos`.
    #[inline]
    pub(super) fn offered(&self, pos: &Antichess, m: Move) -> bool {
        match (self.danger, m) {
            (Some(danger), Move::Normal { from, to, .. }) if !m.is_capture() => {
                danger.contains(to)
                    || (danger.contains(from)
                        && attacks::ray(from, to).any()
                        && lands_attacked(pos, m))
            }
            _ => lands_attacked(pos, m),
        }
    }
}

/// Moves with their ordering scores, into `out` (emptied first).
pub(super) fn score_moves(
    ctx: &SearchContext,
    pos: &Antichess,
    moves: &[Move],
    tt_move: Option<Move>,
    offers: &Offers,
    ply: usize,
    out: &mut Vec<(Move, Score)>,
) {
    let side = SearchContext::side_index(pos.turn());
    out.clear();
    out.extend(moves.iter().map(|&m| {
        let score = if Some(m) == tt_move {
            TT_MOVE
        } else if m.is_capture() {
            let victim = m.capture().map_or(1, burden);
            let attacker = m.promotion().unwrap_or(m.role());
            let back = if offers.offered(pos, m) {
                RECAPTURABLE
            } else {
                CAPTURE
            };
            back + 16 * burden(attacker) - victim
                + ctx.heuristics.capture_history[SearchContext::capture_slot(side, m)]
        } else if ctx.killers[ply][0] == Some(m) {
            KILLER[0]
        } else if ctx.killers[ply][1] == Some(m) {
            KILLER[1]
        } else {
            let offer = if offers.offered(pos, m) { OFFER } else { 0 };
            quiet_history(ctx, side, m, ply) + offer
        };
        (m, score)
    }));
}

/// A quiet move's history: by its squares, plus how well it has answered the move before it.
fn quiet_history(ctx: &SearchContext, side: usize, m: Move, ply: usize) -> Score {
    let from = m.from().map_or(0, |s| s as usize);
    let cont = ctx
        .cont_slot(side, m, ply)
        .map_or(0, |slot| ctx.heuristics.cont_history[slot]);
    ctx.heuristics.history[side][from][m.to() as usize] + cont
}

/// Rewards a capture that caused a cutoff and penalises the captures tried before it.
pub(super) fn reward_capture(
    ctx: &mut SearchContext,
    pos: &Antichess,
    m: Move,
    tried: &[Move],
    depth: i32,
) {
    let side = SearchContext::side_index(pos.turn());
    let bonus = history_bonus(depth);
    gravity(
        &mut ctx.heuristics.capture_history[SearchContext::capture_slot(side, m)],
        bonus,
    );
    for &other in tried {
        if other != m {
            gravity(
                &mut ctx.heuristics.capture_history[SearchContext::capture_slot(side, other)],
                -bonus,
            );
        }
    }
}

/// What a cutoff at `depth` adds to a history entry (and takes from the moves tried before).
fn history_bonus(depth: i32) -> Score {
    (depth * depth).min(400)
}

/// Moves a history entry by `delta`, less the larger it already is (gravity), so that entries
/// stay within ±`HISTORY_MAX`.
fn gravity(entry: &mut Score, delta: Score) {
    *entry += delta - *entry * delta.abs() / HISTORY_MAX;
}

/// Takes the best-scored move out of `scored[index..]` into `scored[index]` (selection sort).
pub(super) fn pick(scored: &mut [(Move, Score)], index: usize) -> Move {
    let mut best = index;
    for i in index + 1..scored.len() {
        if scored[i].1 > scored[best].1 {
            best = i;
        }
    }
    scored.swap(index, best);
    scored[index].0
}

/// Rewards a quiet move that caused a cutoff and penalises the quiet moves tried before it.
pub(super) fn reward_quiet(
    ctx: &mut SearchContext,
    pos: &Antichess,
    m: Move,
    tried: &[Move],
    depth: i32,
    ply: usize,
) {
    if ctx.killers[ply][0] != Some(m) {
        ctx.killers[ply][1] = ctx.killers[ply][0];
        ctx.killers[ply][0] = Some(m);
    }
    let side = SearchContext::side_index(pos.turn());
    let bonus = history_bonus(depth);
    let mut adjust = |mv: Move, delta: Score| {
        let from = mv.from().map_or(0, |s| s as usize);
        gravity(
            &mut ctx.heuristics.history[side][from][mv.to() as usize],
            delta,
        );
        if let Some(slot) = ctx.cont_slot(side, mv, ply) {
            gravity(&mut ctx.heuristics.cont_history[slot], delta);
        }
    };
    adjust(m, bonus);
    for &other in tried {
        if other != m && !other.is_capture() {
            adjust(other, -bonus);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        rules::{parse_fen, parse_uci_move, StalemateRule},
        search::{tt::TranspositionTable, SearchControl},
    };

    /// The map of the opponent's attacks answers exactly as the board does, along random games
    /// (quiet nodes with many moves, lines opened by the moving piece, captures, en passant).
    #[test]
    fn offers_from_the_map_match_the_board() {
        let mut rng = crate::train::Rng::new(11);
        let mut mapped = 0;
        for _ in 0..200 {
            let mut pos = Antichess::default();
            for _ in 0..150 {
                let moves: Vec<Move> = pos.legal_moves().into_iter().collect();
                if moves.is_empty() {
                    break;
                }
                let offers = Offers::new(&pos, &moves);
                mapped += usize::from(offers.danger.is_some());
                for &m in &moves {
                    assert_eq!(
                        offers.offered(&pos, m),
                        lands_attacked(&pos, m),
                        "{m} in {}",
                        shakmaty::fen::Epd::from_position(&pos, shakmaty::EnPassantMode::Legal)
                    );
                }
                let m = moves[(rng.next_u64() % moves.len() as u64) as usize];
                pos.play_unchecked(m);
            }
        }
        assert!(mapped > 1_000, "only {mapped} positions used the map");
    }

    /// Two captures of a pawn by a pawn, both recapturable: the static order cannot tell them
    /// apart, so the one that caused cutoffs comes first, and one that was refuted comes last.
    #[test]
    fn capture_history_orders_equal_captures() {
        let pos = parse_fen("4k3/8/8/2p1p3/3P4/8/8/4K3 w - - 0 1").expect("a legal position");
        let tt = TranspositionTable::new(1);
        let control = SearchControl::default();
        let mut ctx = SearchContext::new(&tt, &control, StalemateRule::StalematedSideWins, &[]);
        let left = parse_uci_move(&pos, "d4c5").expect("legal");
        let right = parse_uci_move(&pos, "d4e5").expect("legal");
        let moves = [left, right];
        let order = |ctx: &SearchContext| {
            let mut scored = Vec::new();
            score_moves(
                ctx,
                &pos,
                &moves,
                None,
                &Offers::new(&pos, &moves),
                0,
                &mut scored,
            );
            scored.sort_by_key(|&(_, s)| std::cmp::Reverse(s));
            scored.iter().map(|&(m, _)| m).collect::<Vec<_>>()
        };
        reward_capture(&mut ctx, &pos, right, &[left, right], 6);
        assert_eq!(order(&ctx), vec![right, left]);
        for _ in 0..3 {
            reward_capture(&mut ctx, &pos, left, &[right, left], 8);
        }
        assert_eq!(order(&ctx), vec![left, right]);
    }
}
