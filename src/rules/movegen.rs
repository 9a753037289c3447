//! Move generation for the search and for perft.
//!
//! shakmaty's `legal_moves` returns an inline `MoveList` sized for the worst case (a few KiB);
//! every move of that value is a copy of the whole buffer, and in the search those copies cost a
//! third of the time. `legal_moves` here builds the same moves into a `Vec` (moving it costs
//! nothing), straight from the attack tables: antichess has no check, no pins and no castling, so
//! every pseudo-legal move of the right class (captures if any exist, otherwise quiet moves) is
//! legal. The perft suites and a comparison with shakmaty's generator (tests below) keep the two
//! in agreement.
//!
//! For perft the last ply is the expensive one, and there we do not need the moves, only how many
//! there are: `count_legal_moves` computes that with bitboard population counts.

use shakmaty::{
    attacks, variant::Antichess, Bitboard, Board, Color, File, Move, Position, Rank, Role, Square,
};

/// Promotion choices in antichess: knight, bishop, rook, queen and king.
const PROMOTIONS: [Role; 5] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::King,
];
const PROMOTION_ROLES: u32 = PROMOTIONS.len() as u32;

/// Room for the moves of almost every position without growing.
const TYPICAL_MOVES: usize = 48;

/// What both the generator and the counter start from: the side to move's and the opponent's
/// pieces, its pawns and its promotion rank.
struct Sides<'a> {
    board: &'a Board,
    us: Color,
    ours: Bitboard,
    theirs: Bitboard,
    occupied: Bitboard,
    pawns: Bitboard,
    last_rank: Bitboard,
}

impl Sides<'_> {
    fn of(pos: &Antichess) -> Sides<'_> {
        let board = pos.board();
        let us = pos.turn();
        let ours = board.by_color(us);
        Sides {
            board,
            us,
            ours,
            theirs: board.by_color(!us),
            occupied: board.occupied(),
            pawns: board.pawns() & ours,
            last_rank: Bitboard::from_rank(us.fold_wb(Rank::Eighth, Rank::First)),
        }
    }
}

/// The legal moves: the captures if there are any, otherwise every move.
pub fn legal_moves(pos: &Antichess) -> Vec<Move> {
    let mut moves = Vec::with_capacity(TYPICAL_MOVES);
    legal_moves_into(pos, &mut moves);
    moves
}

/// [`legal_moves`] into a buffer the caller keeps (emptied first), so that a search need not
/// allocate at every node.
pub fn legal_moves_into(pos: &Antichess, moves: &mut Vec<Move>) {
    moves.clear();
    let Sides {
        board,
        us,
        ours,
        theirs,
        occupied,
        pawns,
        last_rank,
    } = Sides::of(pos);

    piece_moves(board, ours & !board.pawns(), theirs, moves);
    for from in pawns {
        for to in attacks::pawn_attacks(us, from) & theirs {
            push_pawn_move(moves, from, to, board.role_at(to), last_rank);
        }
    }
    if let Some(ep) = pos.maybe_ep_square() {
        for from in attacks::pawn_attacks(!us, ep) & pawns {
            moves.push(Move::EnPassant { from, to: ep });
        }
    }
    if !moves.is_empty() {
        return;
    }

    piece_moves(board, ours & !board.pawns(), !occupied, moves);
    let step = us.fold_wb(8, -8);
    let double_rank = Bitboard::from_rank(us.fold_wb(Rank::Fourth, Rank::Fifth));
    for from in pawns {
        let Some(to) = from.offset(step).filter(|&to| !occupied.contains(to)) else {
            continue;
        };
        push_pawn_move(moves, from, to, None, last_rank);
        if let Some(two) = to.offset(step) {
            if double_rank.contains(two) && !occupied.contains(two) {
                moves.push(Move::Normal {
                    role: Role::Pawn,
                    from,
                    capture: None,
                    to: two,
                    promotion: None,
                });
            }
        }
    }
}

/// Moves of the non-pawn pieces on `from` to the squares of `targets` they reach.
fn piece_moves(board: &Board, from: Bitboard, targets: Bitboard, moves: &mut Vec<Move>) {
    let occupied = board.occupied();
    for from in from {
        let Some(piece) = board.piece_at(from) else {
            continue;
        };
        for to in attacks::attacks(from, piece, occupied) & targets {
            moves.push(Move::Normal {
                role: piece.role,
                from,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
}

/// A pawn move, as its five promotions when it reaches the last rank.
fn push_pawn_move(
    moves: &mut Vec<Move>,
    from: Square,
    to: Square,
    capture: Option<Role>,
    last_rank: Bitboard,
) {
    if last_rank.contains(to) {
        moves.extend(PROMOTIONS.iter().map(|&role| Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion: Some(role),
        }));
    } else {
        moves.push(Move::Normal {
            role: Role::Pawn,
            from,
            capture,
            to,
            promotion: None,
        });
    }
}

/// Where a non-pawn piece of `role` on `sq` moves or captures, `occupied` blocking its slides
/// (empty for a pawn, whose moves depend on its colour). The evaluation counts mobility with it.
#[inline]
pub fn piece_reach(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen => attacks::queen_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// The squares `pawns` of `color` attack, shifted as one set per direction (towards the a-file,
/// towards the h-file): a square in both is attacked by two pawns. Their union is what the pawns
/// attack square by square (`attacks::pawn_attacks`).
pub fn pawn_attack_sets(pawns: Bitboard, color: Color) -> [Bitboard; 2] {
    let west = pawns & !Bitboard::from_file(File::A);
    let east = pawns & !Bitboard::from_file(File::H);
    match color {
        Color::White => [west.shift(7), east.shift(9)],
        Color::Black => [west.shift(-9), east.shift(-7)],
    }
}

/// The number of legal moves, without generating them.
pub fn count_legal_moves(pos: &Antichess) -> u32 {
    let Sides {
        board,
        us,
        ours,
        theirs,
        occupied,
        pawns,
        last_rank,
    } = Sides::of(pos);

    let mut captures = 0;
    let mut quiets = 0;

    for from in ours & !board.pawns() {
        let reach = board
            .role_at(from)
            .map_or(Bitboard::EMPTY, |role| piece_reach(role, from, occupied));
        captures += (reach & theirs).count() as u32;
        quiets += (reach & !occupied).count() as u32;
    }

    // Pawn captures, by shifting all pawns at once.
    for targets in pawn_attack_sets(pawns, us).map(|set| set & theirs) {
        captures += (targets & !last_rank).count() as u32
            + (targets & last_rank).count() as u32 * PROMOTION_ROLES;
    }
    if let Some(ep) = pos.maybe_ep_square() {
        captures += (attacks::pawn_attacks(!us, ep) & pawns).count() as u32;
    }
    if captures > 0 {
        return captures;
    }

    // Pawn pushes.
    let step = us.fold_wb(8, -8);
    let single = pawns.shift(step) & !occupied;
    let double_rank = Bitboard::from_rank(us.fold_wb(Rank::Fourth, Rank::Fifth));
    let double = single.shift(step) & !occupied & double_rank;
    quiets += (single & !last_rank).count() as u32
        + (single & last_rank).count() as u32 * PROMOTION_ROLES
        + double.count() as u32;
    quiets
}

/// The number of leaf nodes of the legal move tree of the given depth.
pub fn perft(pos: &Antichess, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => u64::from(count_legal_moves(pos)),
        _ => legal_moves(pos)
            .into_iter()
            .map(|m| {
                let mut child = pos.clone();
                child.play_unchecked(m);
                perft(&child, depth - 1)
            })
            .sum(),
    }
}

/// Perft split by root move: each legal move with the leaf count below it.
pub fn perft_divide(pos: &Antichess, depth: u32) -> Vec<(Move, u64)> {
    pos.legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            (m, perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::parse_fen;

    /// The shifted sets are the squares each pawn attacks, for a pawn on every square (edge files
    /// and back ranks included); shifts and masks act on each bit alone, so every set of pawns
    /// follows, and a full board checks it.
    #[test]
    fn pawn_attack_sets_match_the_tables() {
        for color in Color::ALL {
            for sq in Square::ALL {
                let [west, east] = pawn_attack_sets(Bitboard::from_square(sq), color);
                assert!((west & east).is_empty(), "{sq} {color:?}");
                assert_eq!(
                    west | east,
                    attacks::pawn_attacks(color, sq),
                    "{sq} {color:?}"
                );
            }
            let [west, east] = pawn_attack_sets(Bitboard::FULL, color);
            let one_by_one = Square::ALL.into_iter().fold(Bitboard::EMPTY, |all, sq| {
                all | attacks::pawn_attacks(color, sq)
            });
            assert_eq!(west | east, one_by_one, "{color:?}");
        }
    }

    fn sorted(moves: impl IntoIterator<Item = Move>) -> Vec<String> {
        let mut v: Vec<String> = moves.into_iter().map(|m| format!("{m:?}")).collect();
        v.sort();
        v
    }

    /// The counter and the generator must agree with shakmaty's generator on every node of a few
    /// trees.
    fn check_tree(pos: &Antichess, depth: u32, checked: &mut u64) {
        let moves = pos.legal_moves();
        let fen = crate::rules::to_fen(pos);
        assert_eq!(
            count_legal_moves(pos) as usize,
            moves.len(),
            "count differs at {fen}"
        );
        assert_eq!(
            sorted(legal_moves(pos)),
            sorted(moves.iter().copied()),
            "moves differ at {fen}"
        );
        *checked += 1;
        if depth == 0 {
            return;
        }
        for m in moves {
            let mut child = pos.clone();
            child.play_unchecked(m);
            check_tree(&child, depth - 1, checked);
        }
    }

    #[test]
    fn counter_agrees_with_generator() {
        let fens = [
            crate::rules::START_FEN,
            "8/1p6/8/P1P5/8/8/6p1/K3K3 b - - 0 1",
            "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
            "rnbqkbnr/pp1ppppp/8/8/2pPP3/8/PPP2PPP/RNBQKBNR b - d3 0 3",
            // Several kings, promotions with and without capture, a double push next to an
            // enemy pawn.
            "1n2k3/P1P5/8/8/5p2/8/4P1K1/K6B w - - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            let pos = parse_fen(fen).expect("valid test FEN");
            check_tree(&pos, 3, &mut checked);
        }
        assert!(checked > 8000);
    }
}
