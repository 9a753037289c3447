//! The evaluation network end to end: `syotti datagen` and `syotti train` make a network that
//! the engine loads with `EvalFile`; the embedded network judges simple positions sensibly.

mod common;

use std::{path::PathBuf, process::Command, time::Duration};

use common::Engine;
use syotti::{
    rules::{parse_fen, Position, StalemateRule},
    search::nnue,
};

fn syotti(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_syotti"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs `syotti` with `args` and checks that it succeeded (its stderr on failure).
fn syotti_ok(args: &[&str]) -> std::process::Output {
    let run = syotti(args);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    run
}

/// A scratch folder of this test process, one per test (`name`): the tests run in parallel.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("syotti-nnue-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn path(dir: &std::path::Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

/// Six games at 400 nodes a move from seed 9 on `threads` threads, into `out`.
fn datagen(threads: &str, out: &str) {
    syotti_ok(&[
        "datagen",
        "--games",
        "6",
        "--nodes",
        "400",
        "--threads",
        threads,
        "--seed",
        "9",
        "--out",
        out,
    ]);
}

#[test]
fn datagen_and_train_make_a_network_the_engine_loads() {
    let dir = temp_dir("train");
    let data = path(&dir, "data.txt");
    let again = path(&dir, "again.txt");
    for out in [&data, &again] {
        datagen("1", out);
    }
    let text = std::fs::read_to_string(&data).expect("data written");
    // Same seed, same games.
    assert_eq!(text, std::fs::read_to_string(&again).expect("data written"));
    // On two threads too, in the order the games finish.
    let two = path(&dir, "two.txt");
    datagen("2", &two);
    let sorted = |t: &str| {
        let mut lines: Vec<String> = t.lines().map(str::to_string).collect();
        lines.sort();
        lines
    };
    assert_eq!(
        sorted(&text),
        sorted(&std::fs::read_to_string(&two).expect("data written"))
    );
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 20, "{} positions", lines.len());
    for (i, line) in lines.iter().enumerate() {
        let sample = syotti::train::data::parse_line(line, i + 1).expect("datagen's own format");
        // Only quiet positions: the evaluation never sees a position with a capture to make.
        assert!(sample.pos.capture_moves().is_empty(), "{line}");
    }

    let net = path(&dir, "net.nnue");
    let twin = path(&dir, "twin.nnue");
    for out in [&net, &twin] {
        let run = syotti_ok(&[
            "train",
            "--data",
            &data,
            "--epochs",
            "2",
            "--batch",
            "64",
            "--threads",
            "2",
            "--out",
            out,
        ]);
        let log = String::from_utf8_lossy(&run.stderr).into_owned();
        assert!(log.contains("epoch   2"), "{log}");
    }
    // Training is deterministic for a seed, whatever the order of the lines and the threads.
    let bytes = std::fs::read(&net).expect("network written");
    assert_eq!(bytes, std::fs::read(&twin).expect("network written"));
    assert!(nnue::Network::from_bytes(&bytes).is_ok());

    let mut engine = Engine::start();
    engine.send("uci");
    let options = engine.until("uciok");
    assert!(options
        .iter()
        .any(|l| l == "option name EvalFile type string default <embedded>"));
    engine.send(&format!("setoption name EvalFile value {net}"));
    engine.send("isready");
    let said = engine.until("readyok");
    assert!(
        said.iter()
            .any(|l| l.starts_with("info string evaluation: network")),
        "{said:?}"
    );
    engine.send("position startpos moves e2e3");
    engine.send("go depth 6");
    engine.until("bestmove");
    // A file that is not a network is refused and the engine keeps the one it had.
    for bad in [data.as_str(), "/no/such/file.nnue"] {
        engine.send(&format!("setoption name EvalFile value {bad}"));
        let said = engine.until("info string error:");
        assert!(said
            .last()
            .is_some_and(|l| l.contains("keeping the evaluation in use")));
    }
    engine.send("setoption name EvalFile value <linear>");
    engine.send("go depth 5");
    engine.until("bestmove");
    engine.send("quit");
    assert!(engine.wait_exit(Duration::from_secs(10)).is_some());
    let _ = std::fs::remove_dir_all(&dir);
}

/// With tables, games end where the tables decide them: no written position has four pieces or
/// fewer. With `--table-plies` they play on, and the covered positions are written with the
/// tables' result, which agrees with their score: drawn at 0, decided with the winner's sign.
#[test]
fn table_plies_write_the_endings_with_the_tables_result() {
    let dir = temp_dir("tables");
    let tables = common::tables_path();
    let run = |plies: &str, out: &str| {
        syotti_ok(&[
            "datagen",
            // Enough games that some reach the tables whichever network plays them: 12 games
            // gave one covered position with round 20's network, 40 give 15.
            "--games",
            "40",
            "--nodes",
            "300",
            "--threads",
            "2",
            "--seed",
            "5",
            "--suicide-share",
            "0",
            "--syzygy",
            &tables,
            "--table-plies",
            plies,
            "--out",
            out,
        ]);
        std::fs::read_to_string(out).expect("data written")
    };
    let small = |text: &str| -> Vec<syotti::train::data::Sample> {
        text.lines()
            .enumerate()
            .map(|(i, l)| syotti::train::data::parse_line(l, i + 1).expect("datagen's format"))
            .filter(|s| s.pos.board().occupied().count() <= 4)
            .collect()
    };
    let ended = run("0", &path(&dir, "ended.txt"));
    assert!(ended.lines().count() > 20);
    assert!(
        small(&ended).is_empty(),
        "covered positions written at 0 plies"
    );
    let played_on = run("12", &path(&dir, "on.txt"));
    let covered = small(&played_on);
    assert!(covered.len() >= 3, "{} covered positions", covered.len());
    for s in &covered {
        if s.result == 0.5 {
            assert_eq!(s.score, 0, "{s:?}");
        } else {
            assert_eq!(s.score > 0, s.result == 1.0, "{s:?}");
            assert!(s.score.abs() > 10_000, "a table score, {s:?}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_refused() {
    let run = syotti(&[
        "train",
        "--data",
        "/no/such/data.txt",
        "--out",
        "/tmp/x.nnue",
    ]);
    assert_eq!(run.status.code(), Some(2));
    let run = syotti(&["datagen", "--suicide-share", "2", "--out", "/tmp/x.txt"]);
    assert_eq!(run.status.code(), Some(2));
    let run = syotti(&["datagen", "--threads", "0", "--out", "/tmp/x.txt"]);
    assert_eq!(run.status.code(), Some(2));
}

#[test]
fn the_embedded_network_prefers_fewer_pieces_under_both_heads() {
    let net = nnue::embedded().expect("the embedded network loads");
    // White to move with one king against a whole army, and the reverse.
    let light = parse_fen("rnbqkbnr/pppppppp/8/8/8/8/8/4K3 w - - 0 1").expect("valid");
    let heavy = parse_fen("4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1").expect("valid");
    for rule in [
        StalemateRule::StalematedSideWins,
        StalemateRule::FewerPiecesWins,
    ] {
        let good = net.evaluate_position(&light, rule);
        let bad = net.evaluate_position(&heavy, rule);
        assert!(good > 200 && bad < -200, "{rule}: {good} {bad}");
    }
}
