//! End-to-end: drives the real `syotti` binary through scripted UCI sessions.

use std::time::{Duration, Instant};

use syotti::rules::{Game, StalemateRule};

mod common;
use common::{last_score, Engine, PATIENCE};

/// UCI's two waits: `readyok`, and the move of `bestmove`.
trait Uci {
    fn ready(&mut self);
    fn bestmove(&self) -> String;
}

impl Uci for Engine {
    fn ready(&mut self) {
        self.send("isready");
        self.until("readyok");
    }

    fn bestmove(&self) -> String {
        let lines = self.until("bestmove");
        let last = lines.last().expect("a line");
        last.split_whitespace()
            .nth(1)
            .expect("bestmove has a move")
            .to_string()
    }
}

#[test]
fn handshake_lists_options() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until("uciok");
    assert!(lines.iter().any(|l| l.starts_with("id name Syotti")));
    assert!(lines.iter().any(|l| l.starts_with("id author")));
    assert!(lines.contains(
        &"option name UCI_Variant type combo default antichess var antichess var suicide"
            .to_string()
    ));
    for name in [
        "Hash",
        "Threads",
        "MultiPV",
        "Ponder",
        "Move Overhead",
        "Clear Hash",
    ] {
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with(&format!("option name {name} type"))),
            "{name}"
        );
    }
    e.ready();
}

#[test]
fn isready_and_stop_during_infinite_search() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    e.quiet_for(Duration::from_millis(200), "bestmove");
    let asked = Instant::now();
    e.send("isready");
    let lines = e.until("readyok");
    assert!(lines.iter().all(|l| !l.starts_with("bestmove")));
    eprintln!("readyok mid-search after {:?}", asked.elapsed());
    let stopped = Instant::now();
    e.send("stop");
    let best = e.bestmove();
    eprintln!("bestmove after stop in {:?}", stopped.elapsed());
    let mut game = Game::default();
    game.play_text(&best).expect("bestmove is legal");
}

#[test]
fn infinite_search_waits_for_stop_even_when_done() {
    let mut e = Engine::start();
    // A win in one: the search is over at once, but `go infinite` must wait for `stop`.
    e.send("position fen 7r/8/8/8/8/8/8/R7 w - - 0 1");
    e.send("go infinite");
    // Wait for the result however long a loaded machine takes, then make sure no bestmove follows.
    let lines = e.until("info depth");
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    assert!(
        lines.last().is_some_and(|l| l.contains("score mate 1")),
        "{lines:?}"
    );
    e.quiet_for(Duration::from_millis(500), "bestmove");
    e.send("stop");
    let best = e.bestmove();
    assert!(best == "a1a8" || best == "a1h1", "{best}");
}

#[test]
fn ponder_waits_for_ponderhit() {
    let mut e = Engine::start();
    e.send("position fen 7r/8/8/8/8/8/8/R7 w - - 0 1");
    e.send("go ponder wtime 1000 btime 1000");
    e.quiet_for(Duration::from_millis(400), "bestmove");
    e.send("ponderhit");
    let best = e.bestmove();
    assert!(best == "a1a8" || best == "a1h1", "{best}");
}

#[test]
fn bad_input_is_answered_and_survived() {
    let mut e = Engine::start();
    e.send("position fen 8/8/p7/8/8/8/7P/8 w - - 0 1");
    for bad in [
        "xyzzy",
        "position fen not/a/fen w - - 0 1",
        "position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        "position startpos moves e2e4 e7e5 e4e5",
        "position startpos moves e2e9",
        "go depth banana",
        "go sideways",
        "setoption name Hash value 0",
        "setoption name Hash value lots",
        "setoption name NoSuchOption value 1",
        "setoption name UCI_Variant value chess",
        "\u{1b}[A\u{0}",
    ] {
        e.send(bad);
        let lines = e.until("info string error");
        assert!(
            lines
                .last()
                .is_some_and(|l| l.len() > "info string error: ".len()),
            "{bad}"
        );
    }
    e.ready();
    // The previous valid position (the Törngren study) is still set: only h3 and h4 exist.
    e.send("go perft 1");
    let lines = e.until("Nodes searched");
    assert_eq!(lines.last().map(String::as_str), Some("Nodes searched: 2"));
    assert!(lines.iter().any(|l| l == "h2h3: 1"));
}

#[test]
fn a_hash_the_machine_cannot_give_keeps_the_old_table() {
    // Only meaningful where 64 GiB cannot be had (this project's machines have 24).
    if syotti::memory::available_bytes().is_none_or(|b| b >= 60 << 30) {
        return;
    }
    let mut e = Engine::start();
    e.send("setoption name Hash value 65536");
    let lines = e.until("info string error");
    assert!(
        lines.last().is_some_and(|l| l
            .starts_with("info string error: cannot allocate 65536 MiB for Hash")
            && l.ends_with("keeping 16 MiB")),
        "{lines:?}"
    );
    e.ready();
    // A table the machine can give replaces the old one; the engine searches on.
    e.send("setoption name Hash value 32");
    e.ready();
    e.send("position startpos moves e2e3");
    e.send("go depth 4");
    let best = e.bestmove();
    let mut game = Game::default();
    game.play_text("e2e3").expect("legal");
    game.play_text(&best).expect("bestmove is legal");
}

#[test]
fn forced_moves_report_what_the_search_knows() {
    let mut e = Engine::start();
    // 1. b4? axb4 is lost for White: proved, mate for the side to move.
    let fen = "rnbqkbnr/1p1ppppp/2p5/p7/8/P6P/1PPPPPP1/RNBQKBNR w - - 0 1";
    e.send(&format!("position fen {fen}"));
    e.send("go wtime 10000 btime 10000 winc 100 binc 100");
    let lines = e.until("bestmove");
    let (kind, first) = last_score(&lines);
    assert_eq!(kind, "mate", "{lines:?}");
    assert!(first > 0, "{lines:?}");
    let best = lines
        .last()
        .expect("bestmove")
        .split_whitespace()
        .nth(1)
        .expect("move");
    let reply = lines
        .last()
        .and_then(|l| l.split_whitespace().nth(3))
        .expect("a ponder move")
        .to_string();
    // The opponent answers as predicted; the winner's next move is forced (a capture).
    e.send(&format!("position fen {fen} moves {best} {reply}"));
    e.send("go perft 1");
    let perft = e.until("Nodes searched");
    assert_eq!(perft.last().map(String::as_str), Some("Nodes searched: 1"));
    e.send("go wtime 10000 btime 10000 winc 100 binc 100");
    let lines = e.until("bestmove");
    assert_eq!(
        last_score(&lines),
        ("mate".to_string(), first - 1),
        "{lines:?}"
    );

    // The loser's forced move: 1. e4 b5, and only Bxb5 is legal. After the engine proved the
    // win as Black, it shows White's forced move as the loss it is, not a shallow score.
    e.send("ucinewgame");
    e.send("position startpos moves e2e4");
    e.send("go wtime 10000 btime 10000");
    let lines = e.until("bestmove");
    let (kind, black) = last_score(&lines);
    assert_eq!(
        (kind.as_str(), lines.last().map(|l| l.contains("b7b5"))),
        ("mate", Some(true))
    );
    e.send("position startpos moves e2e4 b7b5");
    e.send("go wtime 10000 btime 10000");
    let lines = e.until("bestmove");
    // Black wins in `black` moves; White, to move one ply later, has as many moves left.
    assert_eq!(
        last_score(&lines),
        ("mate".to_string(), -black),
        "{lines:?}"
    );
}

#[test]
fn a_drawn_root_shows_zero_with_the_default_contempt() {
    let mut e = Engine::start();
    // King against king: every white move repeats a position of the game (a draw in the
    // search), which costs the engine its contempt inside the search but is shown as 0.
    e.send(
        "position fen 7k/8/8/8/8/8/8/2K5 w - - 0 1 moves c1b1 h8g8 b1c1 g8h8 c1b2 h8g8 b2b3 \
         g8h8 b3a2 h8g8 a2a1 g8h8",
    );
    e.send("go wtime 1000 btime 1000");
    let lines = e.until("bestmove");
    assert_eq!(last_score(&lines), ("cp".to_string(), 0), "{lines:?}");
    // The fifty-move rule: any move ends the game drawn.
    e.send("position fen 8/8/8/3k4/8/8/3K4/8 w - - 99 80");
    e.send("go wtime 1000 btime 1000");
    let lines = e.until("bestmove");
    assert_eq!(last_score(&lines), ("cp".to_string(), 0), "{lines:?}");
}

#[test]
fn stop_and_ponderhit_after_a_queued_go_act_on_that_search() {
    // A GUI may send the next `go ponder` and its `ponderhit` (or `stop`) before the engine has
    // finished with the previous search: they belong to the queued search, not the running one.
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go movetime 300");
    e.send("position startpos moves e2e3");
    e.send("go ponder wtime 1000 btime 1000");
    e.send("ponderhit");
    e.bestmove();
    let second = e.bestmove();
    let mut game = Game::default();
    game.play_text("e2e3").expect("legal");
    game.play_text(&second)
        .expect("the pondered search answers");
    e.send("go movetime 300");
    e.send("position startpos moves e2e3");
    e.send("go infinite");
    e.send("stop");
    e.bestmove();
    let second = e.bestmove();
    let mut game = Game::default();
    game.play_text("e2e3").expect("legal");
    game.play_text(&second)
        .expect("the infinite search answers");
}

#[test]
fn forced_capture_is_played() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e3 b7b5");
    e.send("go depth 6");
    assert_eq!(e.bestmove(), "f1b5");
    e.send("position startpos moves e2e4 d7d5");
    e.send("go movetime 200");
    assert_eq!(e.bestmove(), "e4d5");
}

#[test]
fn go_perft_counts_from_the_antichess_start() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go perft 3");
    let lines = e.until("Nodes searched");
    assert_eq!(
        lines.last().map(String::as_str),
        Some("Nodes searched: 8067")
    );
    assert_eq!(lines.iter().filter(|l| l.contains(": ")).count(), 21);
}

#[test]
fn no_legal_move_answers_none() {
    let mut e = Engine::start();
    e.send("position fen 8/8/8/p7/P7/8/8/8 w - - 0 1");
    e.send("go depth 3");
    assert_eq!(e.bestmove(), "(none)");
}

#[test]
fn end_of_input_quits() {
    let mut e = Engine::start();
    e.send("position startpos");
    e.send("go infinite");
    e.quiet_for(Duration::from_millis(100), "bestmove");
    // Closing stdin is `quit`: the engine stops the search, answers, and exits.
    e.close_input();
    let best = e.bestmove();
    assert_ne!(best, "(none)");
    let status = e
        .wait_exit(PATIENCE)
        .expect("engine did not exit at end of input");
    assert!(status.success());
}

/// Plays a game engine against itself; every move must be legal by the rules and the game must
/// end with a result the rules give.
fn self_play(variant: &str, stalemate: &str, opening: &[&str], rule: StalemateRule) {
    let mut e = Engine::start();
    e.send(&format!("setoption name UCI_Variant value {variant}"));
    e.send(&format!("setoption name Stalemate value {stalemate}"));
    e.send("ucinewgame");
    let mut game = Game::new(rule);
    let mut moves: Vec<String> = Vec::new();
    for m in opening {
        game.play_text(m).expect("opening move legal");
        moves.push(m.to_string());
    }
    while game.outcome().is_none() {
        assert!(moves.len() < 1000, "game did not end");
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        e.send("go depth 3");
        let best = e.bestmove();
        assert_ne!(best, "(none)", "engine found no move but the game goes on");
        game.play_text(&best)
            .unwrap_or_else(|err| panic!("illegal move {best} after {moves:?}: {err}"));
        moves.push(best);
    }
    let outcome = game.outcome().expect("game over");
    eprintln!(
        "{variant}/{stalemate}: {outcome} after {} plies",
        moves.len()
    );
    if game.legal_moves().is_empty() {
        e.send(&format!("position startpos moves {}", moves.join(" ")));
        e.send("go depth 1");
        assert_eq!(e.bestmove(), "(none)");
    }
}

#[test]
fn self_play_antichess() {
    self_play(
        "antichess",
        "variant",
        &["e2e3"],
        StalemateRule::StalematedSideWins,
    );
}

#[test]
fn self_play_suicide() {
    self_play(
        "suicide",
        "variant",
        &["g2g3"],
        StalemateRule::FewerPiecesWins,
    );
}

#[test]
fn self_play_stalemate_draw() {
    self_play("antichess", "draw", &["c2c4"], StalemateRule::Draw);
}

#[test]
fn proven_win_is_played_and_reported_as_mate() {
    let mut e = Engine::start();
    e.send("position startpos moves e2e4");
    // Nodes, not a clock: the proof scan gets a third of them whatever the machine's load.
    e.send("go nodes 300000");
    let lines = e.until("bestmove");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("info") && l.contains(" score mate ")),
        "{lines:?}"
    );
    assert_eq!(
        lines.last().map(String::as_str),
        Some("bestmove b7b5 ponder f1b5")
    );
    // With the prover off, the same search runs alpha-beta only.
    e.send("setoption name Proof value false");
    e.send("go depth 3");
    let lines = e.until("bestmove");
    assert!(lines.iter().all(|l| !l.contains("proof")), "{lines:?}");
}

#[test]
fn go_nodes_is_deterministic_after_ucinewgame() {
    let mut e = Engine::start();
    let mut runs = Vec::new();
    for _ in 0..2 {
        e.send("ucinewgame");
        e.send("position startpos moves g2g3");
        e.send("go nodes 20000");
        let lines = e.until("bestmove");
        let infos: Vec<String> = lines
            .iter()
            .filter(|l| l.starts_with("info depth"))
            .map(|l| {
                // Drop the timing fields, which vary.
                l.split_whitespace()
                    .collect::<Vec<_>>()
                    .chunks(2)
                    .filter(|kv| !matches!(kv[0], "nps" | "time" | "hashfull"))
                    .map(|kv| kv.join(" "))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        runs.push((infos, lines.last().cloned()));
    }
    assert!(!runs[0].0.is_empty());
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn syzygy_path_opens_tables_and_search_reports_hits() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tablebases");
    let dir = std::env::var("SYOTTI_SYZYGY")
        .map(std::path::PathBuf::from)
        .unwrap_or(dir);
    assert!(
        dir.is_dir(),
        "antichess tablebases not found at {}",
        dir.display()
    );
    let mut e = Engine::start();
    e.send("setoption name SyzygyPath value /no/such/folder");
    let lines = e.until("info string error");
    assert!(lines.last().is_some_and(|l| l.contains("no/such/folder")));
    e.send(&format!(
        "setoption name SyzygyPath value {}",
        dir.display()
    ));
    let lines = e.until("info string found");
    assert!(
        lines.last().is_some_and(|l| l.contains("up to 4 pieces")),
        "{lines:?}"
    );
    e.send("setoption name Proof value false");
    // Five pieces: every capture leads into the tables.
    e.send("position fen 8/8/8/3K4/8/2p5/8/1R3r2 w - - 0 1");
    e.send("go depth 4");
    let lines = e.until("bestmove");
    let info = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .expect("an info line");
    let hits: u64 = info
        .split_whitespace()
        .skip_while(|w| *w != "tbhits")
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("tbhits field");
    assert!(hits > 0, "{info}");
}

#[test]
fn several_threads_search_and_stop() {
    let mut e = Engine::start();
    e.send("setoption name Threads value 2");
    e.send("setoption name Proof value false");
    e.send("position startpos moves e2e3");
    e.send("go depth 7");
    let best = e.bestmove();
    let mut game = syotti::rules::Game::default();
    game.play_text("e2e3").expect("legal");
    game.play_text(&best)
        .expect("bestmove with two threads is legal");
    e.send("go infinite");
    e.quiet_for(Duration::from_millis(300), "bestmove");
    e.send("stop");
    let best = e.bestmove();
    assert_ne!(best, "(none)");
    e.ready();
}
