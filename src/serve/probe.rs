//! What is proved of a position and of each of its moves, as the API's JSON.

use serde_json::{json, Value};
use shakmaty::{Color, Position};

use crate::{
    proof::book::ProofBook,
    rules::{notation, outcome, StalemateRule},
};

/// A side's name in the API's JSON.
pub(super) fn color(c: Color) -> &'static str {
    if c.is_white() {
        "white"
    } else {
        "black"
    }
}

/// The book's verdict on a position for its side to move, as JSON (null when nothing is
/// proved): who wins, in how many plies of the proof, whether that distance reaches the end of
/// the game (else it reaches the endgame tables), and the main line.
fn verdict(
    book: Option<&ProofBook>,
    pos: &shakmaty::variant::Antichess,
    rule: StalemateRule,
) -> Value {
    if let Some(o) = outcome::position_outcome(pos, rule) {
        return json!({
            "winner": o.winner.map(color),
            "plies": 0,
            "exact": true,
            "source": "rules",
            "termination": o.to_string(),
        });
    }
    let Some(book) = book else { return Value::Null };
    let Some(answer) = book.answer(pos, rule, &[]) else {
        return Value::Null;
    };
    let winner = if answer.wins { pos.turn() } else { !pos.turn() };
    let line: Vec<String> = book.line(pos, 200).into_iter().map(notation::uci).collect();
    json!({
        "winner": color(winner),
        "plies": answer.hit.distance.plies,
        "exact": answer.hit.distance.exact,
        "source": "book",
        "line": line,
    })
}

/// The position's verdict and each legal move's (the verdict of the position it leads to).
pub fn probe(pos: &shakmaty::variant::Antichess, rule: StalemateRule) -> Value {
    let embedded = ProofBook::embedded();
    let book = embedded.as_deref().filter(|b| b.rule() == rule);
    let moves: Vec<Value> = pos
        .legal_moves()
        .iter()
        .map(|&m| {
            let mut child = pos.clone();
            child.play_unchecked(m);
            json!({
                "uci": notation::uci(m),
                "san": notation::san(pos, m),
                "fen_after": notation::to_fen(&child),
                "after": verdict(book, &child, rule),
            })
        })
        .collect();
    json!({
        "fen": notation::to_fen(pos),
        "turn": color(pos.turn()),
        "stalemate": rule.name(),
        "result": verdict(book, pos, rule),
        "moves": moves,
    })
}
