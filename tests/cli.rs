//! End-to-end tests of the command line: analyse, bench, perft, prove, verify, errors.

use std::{
    io::Write,
    process::{Command, Output, Stdio},
};

fn syotti(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_syotti"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn syotti_stdin(args: &[&str], input: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_syotti"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    child.wait_with_output().expect("finishes")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp_file(name: &str, contents: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("syotti-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join(name);
    std::fs::write(&path, contents).expect("write temp file");
    path
}

const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1";

#[test]
fn analyse_a_fen_for_people() {
    // A node budget, not a time: the result must not depend on how loaded the machine is.
    let out = syotti(&["analyse", "--fen", AFTER_E4, "--nodes", "300000"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("best: b5 (b7b5)"), "{stdout}");
    assert!(stdout.contains("Black wins in"), "{stdout}");
    assert!(stdout.contains("line: 1... b5 2. Bxb5"), "{stdout}");
}

#[test]
fn analyse_epd_as_json() {
    let epd = temp_file(
        "positions.epd",
        "rnbqkb1r/pp1ppppR/2p5/8/6P1/8/PPPPPP2/RNBQKBN1 b - - bm Rxh7;\n8/8/p7/8/8/8/7P/8 w - -\n",
    );
    let out = syotti(&[
        "analyse",
        "--epd",
        &epd.to_string_lossy(),
        "--depth",
        "4",
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    for line in &lines {
        for field in [
            "\"fen\":",
            "\"bestmove\":",
            "\"san\":",
            "\"score\":{",
            "\"pv\":[",
            "\"depth\":",
            "\"nodes\":",
        ] {
            assert!(line.contains(field), "{field} missing in {line}");
        }
    }
    assert!(lines[0].contains("\"bestmove\":\"h8h7\""), "{}", lines[0]);
    assert!(
        lines[1].contains("\"bestmove\":\"h2h3\"") && lines[1].contains("\"mate\":"),
        "{}",
        lines[1]
    );
}

const GAMES: &str = r#"[Event "good one"]
[Variant "Antichess"]

1. e3 b5 2. Bxb5 c6 3. Bxc6 Nxc6 *

[Event "illegal move"]
[Variant "Antichess"]

1. e4 d5 2. e5 *

[Event "wrong variant"]
[Variant "Atomic"]

1. e4 *

[Event "suicide game"]
[Variant "Suicide"]

1. g3 g6 2. Bh3 Bh6 *
"#;

#[test]
fn analyse_pgn_annotates_good_games_and_reports_bad_ones() {
    let pgn = temp_file("games.pgn", GAMES);
    let annotated = pgn.with_extension("annotated.pgn");
    let out = syotti(&[
        "analyse",
        "--pgn",
        &pgn.to_string_lossy(),
        "--depth",
        "3",
        "--out",
        &annotated.to_string_lossy(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "bad games make the exit status 2"
    );
    let stderr = text(&out.stderr);
    assert!(stderr.contains("game 2, move 2. e5"), "{stderr}");
    assert!(stderr.contains("compulsory"), "{stderr}");
    assert!(stderr.contains("game 3: variant 'Atomic'"), "{stderr}");
    let written = std::fs::read_to_string(&annotated).expect("annotated PGN written");
    assert!(written.contains("[Event \"good one\"]"));
    assert!(written.contains("[Event \"suicide game\"]"));
    assert!(!written.contains("illegal move"));
    assert!(written.contains("[%eval "), "{written}");
    // The annotated file reads back as the same games.
    let again = syotti::pgn::read_games(&written);
    assert_eq!(again.len(), 2);
    assert_eq!(
        again[0].as_ref().map(|g| g.moves.clone()),
        Ok(vec!["e3", "b5", "Bxb5", "c6", "Bxc6", "Nxc6"]
            .into_iter()
            .map(String::from)
            .collect())
    );
}

#[test]
fn analyse_pgn_from_stdin_as_json_per_move() {
    let out = syotti_stdin(
        &["analyse", "--pgn", "-", "--depth", "3", "--json"],
        "[Variant \"Antichess\"]\n\n1. e3 b5 2. Bxb5 *\n",
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[2].contains("\"move\":\"f1b5\"") && lines[2].contains("\"ply\":3"));
}

#[test]
fn analyse_errors() {
    let out = syotti(&["analyse"]);
    assert_eq!(out.status.code(), Some(2));
    let out = syotti(&[
        "analyse", "--fen", "garbage", "--fen", AFTER_E4, "--depth", "2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot parse FEN"));
    assert!(
        text(&out.stdout).contains("best: "),
        "the good position is still analysed"
    );
    let out = syotti(&["analyse", "--pgn", "/no/such/file.pgn"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read /no/such/file.pgn"));
}

#[test]
fn bench_is_deterministic() {
    let first = syotti(&["bench", "5"]);
    let second = syotti(&["bench", "5"]);
    assert!(first.status.success());
    let nodes = |o: &Output| {
        text(&o.stdout)
            .split_whitespace()
            .next()
            .and_then(|n| n.parse::<u64>().ok())
            .expect("N nodes M nps")
    };
    assert_eq!(nodes(&first), nodes(&second));
    assert!(text(&first.stdout).trim_end().ends_with(" nps"));
}

#[test]
fn perft_prove_verify_and_bad_input() {
    let out = syotti(&["perft", "3"]);
    assert!(text(&out.stdout).contains("nodes 8067"));
    let out = syotti(&[
        "perft",
        "2",
        "--fen",
        "8/8/p7/8/8/8/7P/8 w - - 0 1",
        "--divide",
    ]);
    assert!(text(&out.stdout).contains("h2h3: 1"));
    let out = syotti(&[
        "perft",
        "2",
        "--fen",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("castling"));

    let proof = std::env::temp_dir().join(format!("syotti-{}-e4.proof", std::process::id()));
    let out = syotti(&[
        "prove",
        "--moves",
        "e2e4",
        "--no-book",
        "--out",
        &proof.to_string_lossy(),
        "--json",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let json = text(&out.stdout);
    assert!(
        json.contains("\"result\":\"win\"") && json.contains("\"move\":\"b7b5\""),
        "{json}"
    );
    let out = syotti(&["verify", &proof.to_string_lossy()]);
    assert!(out.status.success());
    assert!(text(&out.stdout).starts_with("valid: Black wins"));
    let broken = std::fs::read_to_string(&proof)
        .expect("written")
        .replace(" : b7b5", " : g7g5");
    std::fs::write(&proof, broken).expect("rewrite");
    let out = syotti(&["verify", &proof.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stdout).starts_with("invalid: broken proof"));
    let out = syotti(&["prove", "--moves", "e2e9"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn tables_the_machine_cannot_give_are_refused_with_a_message() {
    // Far more than any machine this runs on: a message and status 2, not an abort.
    let out = syotti(&["prove", "--moves", "e2e4", "--memory", "99999999"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("cannot allocate 99999999 MiB for the proof table"),
        "{}",
        text(&out.stderr)
    );
    let too_big = syotti::memory::available_bytes().is_some_and(|b| b < 60 << 30);
    if too_big {
        let out = syotti(&[
            "analyse", "--fen", AFTER_E4, "--hash", "65536", "--depth", "1",
        ]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("cannot allocate 65536 MiB for the hash table"),
            "{}",
            text(&out.stderr)
        );
    }
}

/// `openings` writes the positions asked for, each legal, near even and new: the same seed gives
/// the same file, an excluded position is never chosen, and bad limits are refused.
#[test]
fn openings_are_balanced_new_and_reproducible() {
    let args = [
        "openings", "--count", "4", "--nodes", "20000", "--seed", "11",
    ];
    let first = syotti(&args);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let lines: Vec<String> = text(&first.stdout).lines().map(str::to_string).collect();
    assert_eq!(lines.len(), 4, "{lines:?}");
    for line in &lines {
        let out = syotti(&[
            "analyse",
            "--fen",
            &format!("{line} 0 1"),
            "--nodes",
            "20000",
            "--json",
        ]);
        let json = text(&out.stdout);
        assert!(json.contains("\"cp\":"), "{line}: {json}");
    }
    let again = syotti(&args);
    assert_eq!(text(&again.stdout), text(&first.stdout));
    let exclude = temp_file("exclude.epd", &format!("{}\n", lines[0]));
    let exclude = exclude.to_string_lossy().into_owned();
    let mut with_exclude = args.to_vec();
    with_exclude.extend(["--exclude", exclude.as_str()]);
    let other = syotti(&with_exclude);
    assert!(other.status.success(), "{}", text(&other.stderr));
    assert!(!text(&other.stdout).lines().any(|l| l == lines[0]));
    let bad = syotti(&["openings", "--min-plies", "5", "--max-plies", "3"]);
    assert_eq!(bad.status.code(), Some(2), "{}", text(&bad.stderr));
}
