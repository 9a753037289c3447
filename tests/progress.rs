//! The snapshots of open problems that ship (`progress/`): each reads, names its problem, and
//! every position it holds as proved is a root of the embedded book, whose trees `tests/book.rs`
//! verifies; so a fresh clone resumes each snapshot with nothing reopened.

use std::collections::HashSet;

use syotti::proof::{
    book::ProofBook,
    store::{search::StoreProblem, snapshot::Snapshot, NodeState},
};

#[test]
fn every_shipped_snapshot_reads_and_its_proved_positions_are_in_the_book() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("progress");
    let book = ProofBook::embedded().expect("the embedded book");
    let roots: HashSet<&str> = book.roots().iter().map(|r| r.fen.as_str()).collect();
    let mut snapshots = 0;
    for entry in std::fs::read_dir(&dir).expect("progress/") {
        let path = entry.expect("an entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("snapshot") {
            continue;
        }
        let file = std::fs::File::open(&path).expect("opens");
        let snap = Snapshot::read_from(file).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let problem = StoreProblem::from_meta(&snap.meta).expect("a valid problem");
        assert_eq!(snap.nodes[0].fen, problem.root_fen(), "{}", path.display());
        assert!(snap.nodes[0].state == NodeState::Open, "an open problem");
        let proved: Vec<&str> = snap
            .nodes
            .iter()
            .filter(|n| n.state == NodeState::Proved)
            .map(|n| n.fen.as_str())
            .collect();
        assert!(!proved.is_empty());
        for fen in proved {
            assert!(
                roots.contains(fen),
                "{}: {fen} is not in the book",
                path.display()
            );
        }
        // Every edge joins nodes of the snapshot, and only open nodes have edges.
        for l in &snap.links {
            assert!(!snap.nodes[l.parent].state.solved());
        }
        snapshots += 1;
    }
    assert!(snapshots >= 1, "no snapshot in progress/");
}
