//! Move counting and perft.
//!
//! shakmaty generates the legal moves (its antichess generator already makes captures compulsory
//! and allows king promotions). For perft the last ply is the expensive one, and there we do not
//! need the moves, only how many there are: `count_legal_moves` computes that with bitboard
//! population counts, without building a move list. Antichess has no check and no pins, so every
//! pseudo-legal move of the right class (captures if any exist, otherwise quiet moves) is legal.

use shakmaty::{attacks, variant::Antichess, Bitboard, Color, Move, Position, Rank, Role};

/// Promotion choices in antichess: knight, bishop, rook, queen and king.
const PROMOTION_ROLES: u32 = 5;

/// The number of legal moves, without generating them.
pub fn count_legal_moves(pos: &Antichess) -> u32 {
    let board = pos.board();
    let us = pos.turn();
    let ours = board.by_color(us);
    let theirs = board.by_color(!us);
    let occupied = board.occupied();
    let pawns = board.pawns() & ours;
    let last_rank = Bitboard::from_rank(us.fold_wb(Rank::Eighth, Rank::First));

    let mut captures = 0;
    let mut quiets = 0;

    for from in ours & !board.pawns() {
        let reach = match board.role_at(from) {
            Some(Role::Knight) => attacks::knight_attacks(from),
            Some(Role::Bishop) => attacks::bishop_attacks(from, occupied),
            Some(Role::Rook) => attacks::rook_attacks(from, occupied),
            Some(Role::Queen) => attacks::queen_attacks(from, occupied),
            Some(Role::King) => attacks::king_attacks(from),
            Some(Role::Pawn) | None => Bitboard::EMPTY,
        };
        captures += (reach & theirs).count() as u32;
        quiets += (reach & !occupied).count() as u32;
    }

    // Pawn captures, by shifting all pawns at once.
    let (left, right) = match us {
        Color::White => (
            (pawns & !Bitboard::from_file(shakmaty::File::A)).shift(7),
            (pawns & !Bitboard::from_file(shakmaty::File::H)).shift(9),
        ),
        Color::Black => (
            (pawns & !Bitboard::from_file(shakmaty::File::H)).shift(-7),
            (pawns & !Bitboard::from_file(shakmaty::File::A)).shift(-9),
        ),
    };
    for targets in [left & theirs, right & theirs] {
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
        _ => pos
            .legal_moves()
            .iter()
            .map(|&m| {
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

    /// The counter must agree with shakmaty's generator on every node of a few trees.
    fn check_tree(pos: &Antichess, depth: u32, checked: &mut u64) {
        let moves = pos.legal_moves();
        assert_eq!(
            count_legal_moves(pos) as usize,
            moves.len(),
            "count differs at {}",
            crate::rules::to_fen(pos)
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
        ];
        let mut checked = 0;
        for fen in fens {
            let pos = parse_fen(fen).expect("valid test FEN");
            check_tree(&pos, 3, &mut checked);
        }
        assert!(checked > 8000);
    }
}
