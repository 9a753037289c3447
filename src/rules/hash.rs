//! Position keys for repetition detection and the transposition table.
//!
//! The key is shakmaty's 64-bit Zobrist hash with the en-passant file included only when an
//! en-passant capture is really possible (`EnPassantMode::Legal`), which is what "the same
//! position" means for threefold repetition. `key_after` updates a key incrementally; shakmaty's
//! own incremental update gives up on king moves (because of castling in chess), which are
//! ordinary moves here, so we do it ourselves and check it against the from-scratch hash in tests.

use shakmaty::{
    attacks,
    variant::Antichess,
    zobrist::{Zobrist64, ZobristValue},
    EnPassantMode, Move, Position, Role, Square,
};

/// The key of a position, computed from scratch.
pub fn key(pos: &Antichess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The en-passant part of the key: the file of a capturable en-passant square, if any.
fn ep_component(pos: &Antichess) -> u64 {
    match pos.maybe_ep_square() {
        Some(ep) if (attacks::pawn_attacks(!pos.turn(), ep) & pos.our(Role::Pawn)).any() => {
            Zobrist64::zobrist_for_en_passant_file(ep.file()).0
        }
        _ => 0,
    }
}

/// The key of `after`, the position reached by playing `m` in `before` whose key is `before_key`.
pub fn key_after(before: &Antichess, before_key: u64, m: Move, after: &Antichess) -> u64 {
    let us = before.turn();
    let mut k = Zobrist64(before_key ^ ep_component(before));
    k ^= Zobrist64::zobrist_for_white_turn();
    match m {
        Move::Normal {
            role,
            from,
            capture,
            to,
            promotion,
        } => {
            k ^= Zobrist64::zobrist_for_piece(from, role.of(us));
            k ^= Zobrist64::zobrist_for_piece(to, promotion.unwrap_or(role).of(us));
            if let Some(captured) = capture {
                k ^= Zobrist64::zobrist_for_piece(to, captured.of(!us));
            }
        }
        Move::EnPassant { from, to } => {
            k ^= Zobrist64::zobrist_for_piece(from, us.pawn());
            k ^= Zobrist64::zobrist_for_piece(to, us.pawn());
            let taken = Square::from_coords(to.file(), from.rank());
            k ^= Zobrist64::zobrist_for_piece(taken, (!us).pawn());
        }
        // Antichess has neither castling nor drops.
        Move::Castle { .. } | Move::Put { .. } => return key(after),
    }
    k.0 ^ ep_component(after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::notation::parse_fen;

    fn walk(pos: &Antichess, k: u64, depth: u32, checked: &mut u64) {
        assert_eq!(
            k,
            key(pos),
            "incremental key diverged at {}",
            crate::rules::to_fen(pos)
        );
        *checked += 1;
        if depth == 0 {
            return;
        }
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            let ck = key_after(pos, k, m, &child);
            walk(&child, ck, depth - 1, checked);
        }
    }

    #[test]
    fn incremental_key_matches_scratch_along_perft_trees() {
        let fens = [
            crate::rules::START_FEN,
            // en passant, promotions (also to king), several kings
            "8/1p6/8/P1P5/8/8/6p1/K3K3 b - - 0 1",
            "4k3/1P6/8/8/8/8/6p1/4K3 w - - 0 1",
        ];
        let mut checked = 0;
        for fen in fens {
            let pos = parse_fen(fen).expect("valid test FEN");
            walk(&pos, key(&pos), 3, &mut checked);
        }
        assert!(checked > 8000);
    }
}
