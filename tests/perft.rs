//! Runs every perft suite in `perft/` (`id`, `epd`, `perft DEPTH NODES` lines).
//!
//! Release builds run every depth; debug builds skip the entries above a node cap, so that a plain
//! `cargo test` stays quick. CI runs the release suite.

use std::{fs, path::Path};

use syotti::rules::{movegen::perft, parse_fen};

const DEBUG_NODE_CAP: u64 = 200_000;

struct Case {
    id: String,
    fen: String,
    depth: u32,
    nodes: u64,
}

fn parse_suite(path: &Path) -> Vec<Case> {
    let text = fs::read_to_string(path).expect("perft suite is readable");
    let mut cases = Vec::new();
    let (mut id, mut fen) = (String::new(), String::new());
    for (number, line) in text.lines().enumerate() {
        let line = line.trim();
        let at = || format!("{}:{}", path.display(), number + 1);
        if let Some(rest) = line.strip_prefix("id ") {
            id = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("epd ") {
            fen = rest.trim().to_string();
        } else if let Some(rest) = line.strip_prefix("perft ") {
            let mut fields = rest.split_whitespace();
            let depth = fields.next().and_then(|d| d.parse().ok());
            let nodes = fields.next().and_then(|n| n.parse().ok());
            let (Some(depth), Some(nodes)) = (depth, nodes) else {
                panic!("bad perft line at {}", at());
            };
            assert!(!fen.is_empty(), "perft line before any epd at {}", at());
            cases.push(Case {
                id: id.clone(),
                fen: fen.clone(),
                depth,
                nodes,
            });
        } else {
            assert!(
                line.is_empty() || line.starts_with('#'),
                "unexpected line at {}",
                at()
            );
        }
    }
    cases
}

#[test]
fn every_perft_suite_passes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("perft");
    let mut suites: Vec<_> = fs::read_dir(&dir)
        .expect("perft/ exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "perft"))
        .collect();
    suites.sort();
    let names: Vec<_> = suites
        .iter()
        .filter_map(|p| p.file_name()?.to_str().map(str::to_string))
        .collect();
    for required in ["antichess.perft", "giveaway.perft", "syotti.perft"] {
        assert!(names.iter().any(|n| n == required), "missing {required}");
    }
    let (mut run, mut skipped) = (0, 0);
    for suite in &suites {
        for case in parse_suite(suite) {
            if cfg!(debug_assertions) && case.nodes > DEBUG_NODE_CAP {
                skipped += 1;
                continue;
            }
            let pos = parse_fen(&case.fen).expect("suite FEN is valid");
            assert_eq!(
                perft(&pos, case.depth),
                case.nodes,
                "{} ({}) depth {} in {}",
                case.id,
                case.fen,
                case.depth,
                suite.display()
            );
            run += 1;
        }
    }
    eprintln!("perft: {run} entries checked, {skipped} skipped (debug node cap)");
    assert!(run > 50);
}
