//! The inner nodes: principal variation search (negamax alpha-beta with null windows after the
//! first move) over the transposition table.
//!
//! A node first asks the rules whether the game is over (no pieces, stalemate under the active
//! convention, dead position) or drawn by history (fifty moves, repetition); those scores are
//! exact. Forced replies (a single legal move) are extended by one ply: in antichess they are
//! common and cost almost nothing to follow.
//!
//! Late quiet moves are searched one or two plies shallower first (late-move reductions, less for a
//! move with a good history, more for a bad one, and a ply more at a node expected to fail high)
//! and again at full depth if they beat alpha. Late captures at a node with several are reduced the
//! same way by their capture history. A deep node the table has no move for is searched a ply
//! shallower (internal iterative reduction). A table move that alone holds its node (singular: the
//! other moves fail well below its score in a shallower search without it) is searched a ply
//! deeper; in suicide, two plies deeper off the principal variation when the others fail far
//! below (at most three times along one path). There is no null-move pruning: in antichess the
//! side to move is very often in zugzwang (any move it makes helps the opponent), which is
//! exactly where a null move lies. (Tried once with Fairy-Stockfish's conditions, no pass
//! without a piece besides pawns on both sides, reduction 3 + depth / 3, verified from depth 12:
//! 44.6% in self-play, 240 games at 2+0.02.)
//!
//! Expected node types follow Stockfish: the children of a node expected to fail high (a cut
//! node) searched first are expected to fail low, and the later moves' null-window searches are
//! expected to fail high.
//!
//! At quiet nodes the static evaluation is compared with the one two plies up (the same side to
//! move): when it has not improved, late quiet moves are pruned sooner (two thirds of the usual
//! count), reduced a ply more, and reverse futility needs its full margin; when it has, the
//! margin is a ply smaller.
//!
//! Tried and not kept (self-play against the build without them, suicide, 2+0.02, 200 games
//! each): futility pruning of ordinary quiet moves after the first at quiet non-PV nodes of
//! depth 5 or less whose static evaluation is 100 + 100 × depth below alpha, 51.5% (+85 =36 −79);
//! late-move pruning up to depth 5 instead of 3, 51.2% (+86 =33 −81); the two together, 49.2%
//! (+80 =37 −83). No sign of a gain. Reducing late moves that offer a piece like other quiet
//! moves (their offer bonus in the ordering score taking about a ply off; still never pruned):
//! 38% fewer nodes in bench, 52.8% (+89 =33 −78) in that self-play and 54.0% (+85 =46 −69) at
//! 5+0.05, but 59.0% (+105 =26 −69) against Fairy-Stockfish in suicide at 10+0.1 (200 games),
//! where the build without it scored 61.3%: not kept. A correction history (the static
//! evaluation moved by a running average of quiet nodes' search-minus-static errors, kept by
//! side and by pawns and by material; branch `correction`): 48.5% (+78 =38 −84) in antichess
//! self-play at 2+0.02, 200 games: not kept. The static evaluation moved towards a draw as the
//! fifty-move count runs (times (200 − halfmoves) / 200, for leads that make no progress; bench
//! 127012): 49.9% (+158 =83 −159), −1 ± 30 Elo in antichess self-play at 2+0.02, 400 games: not
//! kept.

use shakmaty::{variant::Antichess, Move, Position};

use super::{
    context::{Scratch, SearchContext},
    ordering::{pick, reward_capture, reward_quiet, score_moves, Offers, KILLER_MIN},
    tt::{score_from_tt, score_to_tt, TtHit, NO_EVAL},
    Bound, Score, INFINITY, MATE, MATE_BOUND, MAX_PLY, TB_WIN,
};
use crate::rules::{hash, StalemateRule};

/// Base reductions by depth and move index: `0.75 + ln(depth) ln(index) / 2.25`, the shape
/// Stockfish-family engines use.
struct LmrTable([[i32; 64]; 64]);

impl LmrTable {
    fn new() -> LmrTable {
        let mut t = [[0; 64]; 64];
        for (d, row) in t.iter_mut().enumerate().skip(1) {
            for (i, r) in row.iter_mut().enumerate().skip(1) {
                *r = (0.75 + (d as f64).ln() * (i as f64).ln() / 2.25) as i32;
            }
        }
        LmrTable(t)
    }

    fn get(&self, depth: usize, index: usize) -> i32 {
        self.0[depth.min(63)][index.min(63)]
    }
}

static LMR_TABLE: once_cell::sync::Lazy<LmrTable> = once_cell::sync::Lazy::new(LmrTable::new);

/// A quiet move's history (its ordering score) changes its reduction by a ply per this much.
const LMR_HISTORY_DIVISOR: Score = 8_192;

/// Reverse futility pruning: at a quiet node this shallow, a static evaluation this far above
/// beta is taken as a fail high without searching.
const RFP_DEPTH: i32 = 5;
const RFP_MARGIN: Score = 100;

/// The other moves must fail this many centipawns per ply below the table's score for the
/// table move to be singular.
const SE_MARGIN: Score = 2;
/// A non-PV table move whose rivals fail this much further below is extended two plies, at
/// most `DOUBLE_EXTENSIONS_MAX` times along one path.
const DOUBLE_MARGIN: Score = 90;
const DOUBLE_EXTENSIONS_MAX: u8 = 3;

/// How singular extensions are set under one stalemate convention: from which depth, and
/// whether a table move far above the others is extended two plies.
///
/// In suicide they start at depth 7 with double extensions: 53.0% (+175 =74 −151) in self-play
/// against depth 8 without them (2+0.02, 400 games) and 67.0% (+125 =18 −57) against
/// Fairy-Stockfish at 10+0.1 (200 games), where depth 8 without them had scored 63.7%. In
/// antichess the same settings scored 52.7% (+180 =62 −158) in self-play (400 games) but
/// 60.3% (+218 =46 −136, 400 games) against Fairy-Stockfish at 10+0.1, where depth 8 without
/// them had scored 66.8% (+124 =19 −57, 200 games): the peer is the one to beat, so antichess
/// (and the draw convention) keep depth 8 without them until a longer run says otherwise.
pub(super) struct SingularSettings {
    depth: i32,
    doubles: bool,
}

impl SingularSettings {
    const SUICIDE: SingularSettings = SingularSettings {
        depth: 7,
        doubles: true,
    };
    const DEFAULT: SingularSettings = SingularSettings {
        depth: 8,
        doubles: false,
    };

    /// The settings a search under `rule` uses, chosen once per search (the context holds
    /// them beside the evaluation weights).
    pub(super) const fn for_rule(rule: StalemateRule) -> &'static SingularSettings {
        match rule {
            StalemateRule::FewerPiecesWins => &SingularSettings::SUICIDE,
            StalemateRule::StalematedSideWins | StalemateRule::Draw => &SingularSettings::DEFAULT,
        }
    }
}

/// Internal iterative reduction applies from this depth.
const IIR_DEPTH: i32 = 4;

/// Late-move pruning: at a quiet non-PV node of depth `d`, quiet moves after the first
/// `LMP_BASE + d * d` that neither offer a piece nor promote are not searched.
const LMP_DEPTH: i32 = 3;
const LMP_BASE: usize = 4;

/// Whether `m` is an ordinary quiet move, the only kind late-move reductions and pruning touch:
/// not a capture (when a capture exists it is compulsory and every move is one), not a
/// promotion, not the table move or a killer (ordering score at least `KILLER_MIN`), and not a
/// move that offers a piece, which forces the opponent to capture.
fn is_ordinary_quiet(pos: &Antichess, m: Move, ordering_score: Score, offers: &Offers) -> bool {
    !m.is_capture() && !m.is_promotion() && ordering_score < KILLER_MIN && !offers.offered(pos, m)
}

/// Plies to cut from the search of a late ordinary quiet move, or of a late capture at a node
/// with several (verified at full depth if it beats alpha): `history` is the move's ordering
/// score or capture history. The first three moves are never reduced; at an expected cut node
/// the reduction is a ply more.
fn late_move_reduction(
    reducible: bool,
    index: usize,
    depth: i32,
    pv_node: bool,
    improving: bool,
    cut_node: bool,
    history: Score,
) -> i32 {
    if depth < 3 || index < 3 || !reducible {
        return 0;
    }
    let mut r = LMR_TABLE.get(depth as usize, index) - history / LMR_HISTORY_DIVISOR;
    if pv_node {
        r -= 1;
    }
    if !improving {
        r += 1;
    }
    r.clamp(0, depth - 2) + i32::from(cut_node)
}

/// The legal move matching the hint of a transposition-table entry, if it has one.
fn hinted_move(moves: &[Move], hit: Option<&TtHit>) -> Option<Move> {
    let hint = hit?.uci_move.as_ref()?;
    moves
        .iter()
        .copied()
        .find(|m| m.to_uci(shakmaty::CastlingMode::Standard) == *hint)
}

impl SearchContext<'_> {
    /// Finds the legal move matching a transposition-table hint.
    pub(super) fn tt_move(&self, moves: &[Move], key: u64) -> Option<Move> {
        hinted_move(moves, self.tt.probe(key).as_ref())
    }

    /// Searches `pos` at `ply` to `depth` in the window (`alpha`, `beta`); `cut_node` says the
    /// node is expected to fail high.
    pub(super) fn negamax(
        &mut self,
        pos: &Antichess,
        depth: i32,
        alpha: Score,
        beta: Score,
        ply: usize,
        cut_node: bool,
    ) -> Score {
        let mut scratch = self.take_scratch(ply);
        let score = self.negamax_node(pos, depth, alpha, beta, ply, cut_node, &mut scratch);
        self.return_scratch(ply, scratch);
        score
    }

    /// The body of [`Self::negamax`], with the node's move buffers lent to it.
    #[expect(
        clippy::too_many_arguments,
        reason = "the node's window, its expected type and its buffers, passed once"
    )]
    fn negamax_node(
        &mut self,
        pos: &Antichess,
        mut depth: i32,
        mut alpha: Score,
        mut beta: Score,
        ply: usize,
        cut_node: bool,
        scratch: &mut Scratch,
    ) -> Score {
        if let Err(score) = self.enter_node(pos, ply, &mut scratch.moves) {
            return score;
        }
        let moves = &scratch.moves;
        if ply >= MAX_PLY - 1 {
            return self.static_eval(pos, ply);
        }
        // Mate distance pruning: no line from here beats a win found closer to the root.
        alpha = alpha.max(-(MATE - ply as Score));
        beta = beta.min(MATE - ply as Score - 1);
        if alpha >= beta {
            return alpha;
        }
        let key = self.keys.last().copied().unwrap_or_else(|| hash::key(pos));
        let excluded = self.excluded[ply];
        if ply > 0 && excluded.is_none() {
            if let Some(score) = self.tablebase_score(pos, ply) {
                self.tt.store(
                    key,
                    None,
                    score_to_tt(score, ply),
                    NO_EVAL,
                    MAX_PLY as i32,
                    Bound::Exact,
                );
                return score;
            }
        }
        if depth <= 0 {
            return self.quiescence_moves(pos, moves, &mut scratch.scored, alpha, beta, ply, 0);
        }

        let pv_node = beta - alpha > 1;
        let hit = self.tt.probe(key);
        if let Some(hit) = hit {
            if !pv_node && excluded.is_none() && hit.depth >= depth {
                let score = score_from_tt(hit.score, ply);
                let usable = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                };
                if usable {
                    return score;
                }
            }
        }
        let tt_move = hinted_move(moves, hit.as_ref());
        // Internal iterative reduction: a deep node the table knows nothing about is probably
        // not on the principal line; search it a ply shallower (the next iteration fills the
        // table for it).
        if tt_move.is_none() && depth >= IIR_DEPTH && moves.len() > 1 {
            depth -= 1;
        }

        if moves.len() == 1 && (ply as i32) < 2 * self.root_depth {
            depth += 1;
        }

        // A capture is compulsory whenever one exists, so a node is either all captures or all
        // quiet moves. Pruning on the static evaluation only happens at quiet nodes.
        let quiet_node = moves.first().is_some_and(|m| !m.is_capture());
        let decided =
            beta.abs() >= TB_WIN - MAX_PLY as Score || alpha.abs() >= TB_WIN - MAX_PLY as Score;
        // The table keeps the static evaluation of the quiet nodes it has seen.
        let static_eval = quiet_node.then(|| match hit {
            Some(h) if h.eval != NO_EVAL => self.distinct_from_draw(h.eval),
            _ => self.static_eval(pos, ply),
        });
        self.static_evals[ply] = static_eval;
        // Improving: the side to move stands better statically than at its previous turn, so
        // this node is less likely to fail low (prune the rest less) and a high static score
        // is more trustworthy (cut with a smaller margin).
        let improving = match (
            static_eval,
            ply.checked_sub(2).map(|p| self.static_evals[p]),
        ) {
            (Some(now), Some(Some(before))) => now > before,
            _ => false,
        };
        if let Some(eval) = static_eval {
            if !pv_node
                && !decided
                && depth <= RFP_DEPTH
                && eval - RFP_MARGIN * (depth - i32::from(improving)) >= beta
            {
                return eval;
            }
        }
        let lmp_limit = (!pv_node && quiet_node && !decided && depth <= LMP_DEPTH).then(|| {
            let limit = LMP_BASE + (depth * depth) as usize;
            if improving {
                limit
            } else {
                limit * 2 / 3
            }
        });

        // Singular extension: when every move but the table's fails well below the table's
        // score in a shallower search that leaves it out, the table move alone holds the node
        // and is searched a ply deeper. When even the others beat beta there, the node fails
        // high without the full search (multi-cut).
        let mut tt_extension = 0;
        let singular = self.singular;
        if let (Some(ttm), Some(h)) = (tt_move, hit) {
            let tt_score = score_from_tt(h.score, ply);
            if excluded.is_none()
                && ply > 0
                && depth >= singular.depth
                && h.depth >= depth - 3
                && h.bound != Bound::Upper
                && moves.len() > 1
                && !decided
                && tt_score.abs() < MATE_BOUND
                && (ply as i32) < 2 * self.root_depth
            {
                let singular_beta = tt_score - SE_MARGIN * depth;
                self.excluded[ply] = Some(ttm);
                let score = self.negamax(
                    pos,
                    (depth - 1) / 2,
                    singular_beta - 1,
                    singular_beta,
                    ply,
                    cut_node,
                );
                self.excluded[ply] = None;
                if self.stopped {
                    return 0;
                }
                if score < singular_beta {
                    tt_extension = 1;
                    if singular.doubles
                        && !pv_node
                        && score < singular_beta - DOUBLE_MARGIN
                        && self.double_extensions[ply] < DOUBLE_EXTENSIONS_MAX
                    {
                        tt_extension = 2;
                    }
                } else if singular_beta >= beta {
                    return singular_beta;
                }
            }
        }

        let original_alpha = alpha;
        let offers = Offers::new(pos, moves);
        score_moves(self, pos, moves, tt_move, &offers, ply, &mut scratch.scored);
        let (scored, tried) = (&mut scratch.scored, &mut scratch.tried);
        let mut best = -INFINITY;
        let mut best_move = None;
        for index in 0..scored.len() {
            let m = pick(scored, index);
            if Some(m) == excluded {
                continue;
            }
            // Asked once per move, and only where a reduction or pruning could follow (the
            // pruning limit is never below three moves).
            let ordinary = index >= 3
                && (depth >= 3 || lmp_limit.is_some())
                && is_ordinary_quiet(pos, m, scored[index].1, &offers);
            if ordinary && lmp_limit.is_some_and(|limit| index >= limit) && best > -MATE_BOUND {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let child_key = hash::key_after(pos, key, m, &child);
            if depth > 1 {
                // The child will probe the table after generating its moves.
                self.tt.prefetch(child_key);
            }
            self.keys.push(child_key);
            self.played[ply] = Some((m.role(), m.to()));
            let extension = if Some(m) == tt_move { tt_extension } else { 0 };
            self.double_extensions[ply + 1] =
                self.double_extensions[ply] + u8::from(extension == 2);
            let score = if index == 0 {
                -self.negamax(
                    &child,
                    depth - 1 + extension,
                    -beta,
                    -alpha,
                    ply + 1,
                    !pv_node && !cut_node,
                )
            } else {
                // Captures are reduced by their capture history alone, as if improving and
                // not at a cut node.
                let reduction = if m.is_capture() {
                    let side = SearchContext::side_index(pos.turn());
                    let history =
                        self.heuristics.capture_history[SearchContext::capture_slot(side, m)];
                    late_move_reduction(true, index, depth, pv_node, true, false, history)
                } else {
                    let history = scored[index].1;
                    late_move_reduction(
                        ordinary, index, depth, pv_node, improving, cut_node, history,
                    )
                };
                let mut probe = -self.negamax(
                    &child,
                    depth - 1 - reduction,
                    -alpha - 1,
                    -alpha,
                    ply + 1,
                    reduction > 0 || !cut_node,
                );
                if probe > alpha && reduction > 0 && !self.stopped {
                    probe =
                        -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1, !cut_node);
                }
                if probe > alpha && probe < beta && !self.stopped {
                    -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1, false)
                } else {
                    probe
                }
            };
            self.keys.pop();
            if self.stopped {
                break;
            }
            tried.push(m);
            if score > best {
                best = score;
                best_move = Some(m);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, m);
                    if score >= beta {
                        if !m.is_capture() {
                            reward_quiet(self, pos, m, tried, depth, ply);
                        } else if scored.len() > 1 {
                            reward_capture(self, pos, m, tried, depth);
                        }
                        break;
                    }
                }
            }
        }
        if self.stopped {
            return 0;
        }
        if excluded.is_some() {
            // A search without the table move says nothing the table should keep.
            return best;
        }

        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let eval = static_eval.unwrap_or(NO_EVAL);
        // After a fail low every move was refuted: no move is worth remembering.
        let hint = if bound == Bound::Upper {
            None
        } else {
            best_move
        };
        self.tt
            .store(key, hint, score_to_tt(best, ply), eval, depth, bound);
        best
    }
}
