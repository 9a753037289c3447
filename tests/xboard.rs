//! End-to-end: drives the real `syotti` binary through scripted XBoard/CECP sessions.

use std::time::{Duration, Instant};

use syotti::rules::{Game, StalemateRule};

mod common;
use common::Engine;

/// The XBoard side of the harness.
trait Xboard {
    /// An engine after the handshake XBoard does: `xboard`, `protover 2`, the features.
    fn xboard() -> Engine;
    /// `ping N`, waiting for `pong N`.
    fn sync(&mut self, n: u32);
    /// The engine's next move.
    fn next_move(&self) -> String;
}

impl Xboard for Engine {
    fn xboard() -> Engine {
        let mut e = Engine::start();
        e.send("xboard");
        e.send("protover 2");
        let features = e.until("feature done=1");
        assert!(features
            .iter()
            .any(|l| l.contains("variants=\"giveaway,suicide\"")));
        e
    }

    fn sync(&mut self, n: u32) {
        self.send(&format!("ping {n}"));
        self.until(&format!("pong {n}"));
    }

    fn next_move(&self) -> String {
        let lines = self.until("move ");
        lines
            .last()
            .and_then(|l| l.strip_prefix("move "))
            .expect("a move")
            .to_string()
    }
}

#[test]
fn the_first_command_picks_the_protocol() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok");
    assert!(lines.iter().any(|l| l.starts_with("id name Syotti")));
    let mut e = Engine::start_with(&["--xboard"]);
    e.send("protover 2");
    let lines = e.until("feature done=1");
    assert_eq!(lines.first().map(String::as_str), Some("feature done=0"));
    for feature in [
        "setboard=1",
        "usermove=1",
        "ping=1",
        "analyze=1",
        "memory=1",
        "smp=1",
        "egt=\"syzygy\"",
        "option=\"Stalemate -combo",
        "option=\"Contempt -spin",
    ] {
        assert!(
            lines.iter().any(|l| l.contains(feature)),
            "{feature}: {lines:?}"
        );
    }
}

/// A stall guard, not a rule: the fifty-move rule alone would allow games of thousands of plies
/// (every capture and pawn move restarts it). Self-play games here took 44 to 93 plies, and one
/// CI run went past 400 (two engines that both score a draw at minus the contempt keep pushing
/// pawns rather than accept one); 1,500 plies at a few tens of milliseconds each still ends the
/// test in about a minute when something is wrong.
const MAX_PLIES: usize = 1500;

#[test]
fn plays_a_whole_game_against_itself_under_a_clock() {
    // Two engines, one per side, as an interface pairs them; every move is checked legal and
    // the game ends with a result claimed by the rules.
    let mut white = Engine::xboard();
    let mut black = Engine::xboard();
    for e in [&mut white, &mut black] {
        e.send("new");
        e.send("variant giveaway");
        e.send("level 0 0:02 0.05");
        e.send("post");
        e.send("hard");
    }
    black.send("force");
    white.send("time 200");
    white.send("otim 200");
    white.send("go");
    let mut game = Game::new(StalemateRule::default());
    let (mut mover, mut other) = (&mut white, &mut black);
    for _ in 0..MAX_PLIES {
        let m = mover.next_move();
        game.play_text(&m).expect("the engine's move is legal");
        if let Some(outcome) = game.outcome() {
            eprintln!(
                "game over after {} plies: {}",
                game.moves().len(),
                outcome.pgn()
            );
            let claim = mover.until(outcome.pgn());
            assert!(claim.last().is_some_and(|l| l.contains('{')), "{claim:?}");
            return;
        }
        if game.moves().len() == 1 {
            other.send("time 200");
            other.send("otim 200");
            other.send(&format!("usermove {m}"));
            other.send("go");
        } else {
            other.send("time 200");
            other.send(&format!("usermove {m}"));
        }
        std::mem::swap(&mut mover, &mut other);
    }
    panic!("no result after {MAX_PLIES} plies");
}

#[test]
fn ping_is_answered_during_a_search_and_question_mark_moves_now() {
    let mut e = Engine::xboard();
    e.send("new");
    e.send("variant giveaway");
    e.send("level 0 60 0");
    e.send("time 360000");
    e.send("otim 360000");
    e.send("st 120");
    e.send("usermove e2e3");
    // Black thinks for up to two minutes: a ping is answered at once...
    e.quiet_for(Duration::from_millis(300), "move");
    let asked = Instant::now();
    e.sync(7);
    eprintln!("pong during search after {:?}", asked.elapsed());
    // ...and `?` makes it move now.
    e.send("?");
    let m = e.next_move();
    let mut game = Game::default();
    game.play_text("e2e3").expect("legal");
    game.play_text(&m).expect("the move is legal");
}

#[test]
fn bad_input_is_answered_and_changes_nothing() {
    let mut e = Engine::xboard();
    e.send("new");
    e.send("force");
    e.send("setboard 8/8/p7/8/8/8/7P/8 w - - 0 1");
    for (bad, answer) in [
        ("frobnicate", "Error (unknown command): frobnicate"),
        ("level 40 five 0", "Error ("),
        ("variant normal", "Error (Syotti plays only giveaway"),
        ("variant crazyhouse", "Error ("),
        (
            "setboard rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "Error (",
        ),
        ("setboard not a fen", "Error ("),
        ("memory 99999999", "Error (cannot allocate"),
        ("cores 0", "Error ("),
        ("option NoSuchOption=1", "Error (unknown option"),
        ("option Contempt=5000", "Error ("),
        ("egtpath gaviota /tmp", "Error (only syzygy"),
        ("usermove h2h5", "Illegal move"),
        ("usermove e2e4", "Illegal move"),
        ("undo", "Error (no move to take back)"),
    ] {
        e.send(bad);
        let lines = e.until(answer.split(' ').next().unwrap_or(answer));
        assert!(
            lines.last().is_some_and(|l| l.starts_with(answer)),
            "{bad}: {lines:?}"
        );
    }
    // The study is still set: White to move, h3 and h4 only; h3 is the winning move.
    e.send("usermove h2h3");
    e.sync(1);
    e.send("remove");
    e.send("usermove h2h4");
    e.sync(2);
    e.send("undo");
    e.send("go");
    e.send("st 1");
    let m = e.next_move();
    assert!(m == "h2h3" || m == "h2h4", "{m}");
}

#[test]
fn analyze_shows_thinking_until_exit() {
    let mut e = Engine::xboard();
    e.send("new");
    e.send("force");
    e.send("setboard rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1");
    e.send("analyze");
    // Thinking lines: ply score time nodes pv; the proved win shows as 100000 + moves.
    let mut proved = false;
    for _ in 0..100 {
        let line = e.until("")[0].clone();
        assert!(!line.starts_with("move"), "{line}");
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.len() >= 5 && words[1].parse::<i64>().is_ok_and(|s| s > 100_000) {
            proved = true;
            break;
        }
    }
    assert!(proved, "no mate score in the analysis");
    // A move during analysis: analysis goes on from the new position.
    e.send("usermove b7b5");
    e.quiet_for(Duration::from_millis(200), "move");
    e.send("exit");
    e.sync(3);
    e.quiet_for(Duration::from_millis(300), "move");
}

#[test]
fn the_engine_claims_the_result_and_accepts_only_fair_draws() {
    let mut e = Engine::xboard();
    e.send("new");
    e.send("variant suicide");
    e.send("force");
    // White takes Black's last piece: Black has no pieces left and wins.
    e.send("setboard 8/8/8/8/8/1p6/P7/8 w - - 0 1");
    e.send("usermove a2b3");
    let lines = e.until("0-1");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("0-1 {Black wins by losing all pieces}")
    );
    // The study: White wins with h3; the engine, playing White, declines a draw offer after
    // searching, and accepts one in a position it knows is lost.
    e.send("new");
    e.send("variant giveaway");
    e.send("force");
    e.send("setboard 8/8/p7/8/8/8/7P/8 w - - 0 1");
    e.send("st 1");
    e.send("go");
    let m = e.next_move();
    assert_eq!(m, "h2h3");
    e.send("draw");
    e.quiet_for(Duration::from_millis(300), "offer draw");
    e.send("new");
    e.send("force");
    e.send("setboard 8/8/p7/8/8/8/7P/8 w - - 0 1");
    e.send("usermove h2h3");
    e.send("go");
    e.next_move();
    e.send("draw");
    e.until("offer draw");
}
