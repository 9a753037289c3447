//! Formatting what the engine says in UCI, and the reporter that writes it to the GUI.

use std::{io::Write, sync::Arc};

use shakmaty::Move;

pub use crate::protocol::Output;
use crate::{
    rules::uci as uci_move,
    search::{mate_moves, Bound, Reporter, SearchInfo},
};

/// `cp N` or `mate N`, with `lowerbound`/`upperbound` when the score is a bound.
pub fn score_text(score: i32, bound: Bound) -> String {
    let base = match mate_moves(score) {
        Some(moves) => format!("mate {moves}"),
        None => format!("cp {score}"),
    };
    match bound {
        Bound::Exact => base,
        Bound::Lower => format!("{base} lowerbound"),
        Bound::Upper => format!("{base} upperbound"),
    }
}

pub fn info_line(info: &SearchInfo) -> String {
    let pv: Vec<String> = info.pv.iter().map(|&m| uci_move(m)).collect();
    format!(
        "info depth {} seldepth {} multipv {} score {} nodes {} nps {} hashfull {} tbhits {} time {} pv {}",
        info.depth,
        info.seldepth,
        info.multipv,
        score_text(info.score, info.bound),
        info.nodes,
        info.nps,
        info.hashfull,
        info.tbhits,
        info.time.as_millis(),
        pv.join(" ")
    )
}

pub fn bestmove_line(best: Option<Move>, ponder: Option<Move>) -> String {
    match (best, ponder) {
        (None, _) => "bestmove (none)".to_string(),
        (Some(b), None) => format!("bestmove {}", uci_move(b)),
        (Some(b), Some(p)) => format!("bestmove {} ponder {}", uci_move(b), uci_move(p)),
    }
}

/// Reports search events as UCI lines.
pub struct UciReporter<W: Write + Send> {
    pub out: Arc<Output<W>>,
}

impl<W: Write + Send> Reporter for UciReporter<W> {
    fn info(&self, info: &SearchInfo) {
        self.out.line(&info_line(info));
    }

    fn current_move(&self, depth: u32, m: Move, number: usize) {
        self.out.line(&format!(
            "info depth {depth} currmove {} currmovenumber {number}",
            uci_move(m)
        ));
    }

    fn message(&self, text: &str) {
        self.out.line(&format!("info string {text}"));
    }

    fn best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        self.out.line(&bestmove_line(best, ponder));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::MATE;

    #[test]
    fn scores() {
        assert_eq!(score_text(35, Bound::Exact), "cp 35");
        assert_eq!(score_text(-35, Bound::Upper), "cp -35 upperbound");
        assert_eq!(score_text(MATE - 13, Bound::Exact), "mate 7");
        assert_eq!(score_text(-(MATE - 12), Bound::Lower), "mate -6 lowerbound");
        assert_eq!(bestmove_line(None, None), "bestmove (none)");
    }
}
