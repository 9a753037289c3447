//! What the engine proves during a session, kept in the book's own form.
//!
//! The root proof scan finds verified proofs move after move. They are learnt into a `ProofBook`
//! (`book::ProofBook::from_proofs`, merged where two proofs meet, the shorter win kept), so that
//! a position proved earlier is answered exactly as a position of the shipped book is: the same
//! probe, the same longest resistance for the loser, the same main-line walk and the same test
//! that the game's history cannot spoil the proof (`ProofBook::answer`). One format and one walk
//! serve the shipped proofs and the session's; the prover's own table (`dfpn`) and the store keep
//! only numbers of unsolved positions and export their wins as proofs, which become books.
//!
//! The memory holds one stalemate rule at a time: proofs under another rule start it afresh, as
//! does a memory grown past `MAX_POSITIONS` (12 bytes a position).

use shakmaty::{variant::Antichess, Move};

use super::{book::ProofBook, tree::ProofTree, Distance};
use crate::rules::StalemateRule;

/// Above this many remembered positions the memory starts afresh (12 MB).
const MAX_POSITIONS: usize = 1_000_000;

/// The session's proofs, as a book.
#[derive(Debug, Default)]
pub struct ProofMemory {
    book: Option<ProofBook>,
}

impl ProofMemory {
    /// Remembers every winner's position of a verified proof.
    pub fn learn(&mut self, proof: &ProofTree) {
        match ProofBook::from_proofs(std::slice::from_ref(proof)) {
            Ok(book) => self.add(book),
            Err(e) => log::warn!("a proof not remembered: {e}"),
        }
    }

    /// Remembers that the side to move wins `pos` with `best` (a root whose win was proved
    /// through the proof of the position after `best`).
    pub fn remember_win(
        &mut self,
        pos: &Antichess,
        rule: StalemateRule,
        best: Move,
        distance: Distance,
    ) {
        self.add(ProofBook::from_win(pos, rule, best, distance));
    }

    fn add(&mut self, book: ProofBook) {
        self.book = match self.book.take() {
            Some(old) if old.rule() == book.rule() && old.len() + book.len() <= MAX_POSITIONS => {
                match old.merged(&book) {
                    Ok(merged) => Some(merged),
                    Err(e) => {
                        log::warn!("proofs not merged: {e}");
                        Some(old)
                    }
                }
            }
            _ => Some(book),
        };
    }

    /// Positions remembered.
    pub fn len(&self) -> usize {
        self.book.as_ref().map_or(0, ProofBook::len)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The session's proofs as a book, answered and walked as any book of proofs is
    /// (`ProofBook::answer`, `ProofBook::line`); none before the first proof.
    pub fn book(&self) -> Option<&ProofBook> {
        self.book.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        proof::book::tests::{study_proof, STUDY},
        rules::{hash, notation::parse_fen},
    };
    use shakmaty::Position;

    fn uci(m: Move) -> String {
        m.to_uci(shakmaty::CastlingMode::Standard).to_string()
    }

    #[test]
    fn a_learnt_proof_answers_its_positions_like_a_book() {
        let proof = study_proof();
        let mut memory = ProofMemory::default();
        assert!(memory.is_empty());
        assert!(memory.book().is_none());
        memory.learn(&proof);
        assert!(!memory.is_empty());
        let book = memory.book().expect("a proof learnt");
        let pos = parse_fen(STUDY).expect("a legal FEN");
        let rule = StalemateRule::default();
        let answer = book
            .answer(&pos, rule, &[hash::key(&pos)])
            .expect("the root is remembered");
        assert!(answer.wins);
        assert_eq!(uci(answer.hit.best), "h2h3");
        // The loser's side of the same proof: after 1.h3 Black is answered with a loss.
        let mut after = pos.clone();
        after.play_unchecked(answer.hit.best);
        let loss = book
            .answer(&after, rule, &[])
            .expect("the reply is remembered");
        assert!(!loss.wins);
        // The line walks the proof to its end.
        let line = book.line(&pos, 100);
        assert_eq!(line.first(), Some(&answer.hit.best));
        assert!(line.len() > 4);
        // Not under another rule.
        assert!(book
            .answer(&pos, StalemateRule::FewerPiecesWins, &[])
            .is_none());
    }

    #[test]
    fn a_proof_under_another_rule_starts_afresh() {
        let pos = parse_fen(STUDY).expect("a legal FEN");
        let mut memory = ProofMemory::default();
        memory.learn(&study_proof());
        let before = memory.len();
        assert!(before > 1);
        let best = pos
            .legal_moves()
            .iter()
            .copied()
            .find(|&m| uci(m) == "h2h3")
            .expect("a legal move");
        let distance = Distance {
            plies: 9,
            exact: true,
        };
        memory.remember_win(&pos, StalemateRule::Draw, best, distance);
        assert_eq!(memory.len(), 1);
        let book = memory.book().expect("a win remembered");
        assert!(book.answer(&pos, StalemateRule::Draw, &[]).is_some());
        assert!(book.answer(&pos, StalemateRule::default(), &[]).is_none());
    }
}
