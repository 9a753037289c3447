//! `syotti prove --store ... --snapshot-out` and `--resume-from`: a store's progress written to
//! a file small enough to commit, and a new store started from one.

use std::{fs::File, path::Path};

use super::EXIT_BAD_INPUT;
use crate::{
    proof::{
        known::KnownWins,
        store::{
            search::StoreProblem,
            snapshot::{self, Snapshot},
            verified_text, Store,
        },
    },
    tablebase::Tablebases,
};

/// Table entries a snapshot keeps at most (the most costly first): about 2 MB compressed.
pub const SNAPSHOT_KNOWLEDGE: usize = 100_000;

/// Writes the snapshot, and the verified proofs of its proved positions to `proofs_out`.
pub fn save(
    store: &mut Store,
    problem: &StoreProblem,
    out: &Path,
    proofs_out: Option<&Path>,
    tables: Option<&Tablebases>,
) -> u8 {
    let (snap, proofs) = match snapshot::export(store, problem, SNAPSHOT_KNOWLEDGE) {
        Ok(read) => read,
        Err(e) => {
            eprintln!("error: cannot read the store: {e}");
            return 1;
        }
    };
    let written = File::create(out).and_then(|f| snap.write_to(f));
    if let Err(e) = written {
        eprintln!("error: cannot write {}: {e}", out.display());
        return 1;
    }
    let bytes = std::fs::metadata(out).map_or(0, |m| m.len());
    println!(
        "snapshot: {} nodes, {} edges, {} table entries, {} bytes in {}",
        snap.nodes.len(),
        snap.links.len(),
        snap.knowledge.len(),
        bytes,
        out.display()
    );
    let Some(dir) = proofs_out else {
        println!(
            "{} proved positions at the border (give --proofs-out DIR to keep their proofs)",
            proofs.len()
        );
        return 0;
    };
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("error: cannot create {}: {e}", dir.display());
        return 1;
    }
    let (mut kept, mut refused, mut positions) = (0, 0, 0);
    for (i, proof) in proofs.iter().enumerate() {
        // Only what verifies goes to a book; a proof that does not is proved again on resume.
        match verified_text(proof, tables) {
            Ok(text) => {
                let path = dir.join(format!("{i:05}.proof"));
                if let Err(e) = std::fs::write(&path, text) {
                    eprintln!("error: cannot write {}: {e}", path.display());
                    return 1;
                }
                kept += 1;
                positions += proof.entries.len();
            }
            Err(e) => {
                refused += 1;
                eprintln!("warning: a proved position's proof does not verify: {e}");
            }
        }
    }
    println!(
        "proofs: {kept} verified ({positions} positions) in {}; {refused} refused",
        dir.display()
    );
    0
}

/// Starts the new store at `location` from the snapshot at `path`; `wanted` (the command line's
/// position, if given) must be the snapshot's.
pub fn resume(
    store: &mut Store,
    path: &Path,
    wanted: Option<&StoreProblem>,
    known: Option<&KnownWins>,
    tables: Option<&Tablebases>,
) -> Result<(), u8> {
    let snap = File::open(path)
        .map_err(|e| e.to_string())
        .and_then(|f| Snapshot::read_from(f).map_err(|e| e.to_string()))
        .map_err(|e| {
            eprintln!("error: cannot read the snapshot {}: {e}", path.display());
            EXIT_BAD_INPUT
        })?;
    if let Some(wanted) = wanted {
        if wanted.meta != snap.meta {
            eprintln!(
                "error: the snapshot proves moves '{}' from {} (stalemate {}), not the position given",
                snap.meta.moves, snap.meta.start_fen, snap.meta.rule
            );
            return Err(EXIT_BAD_INPUT);
        }
    }
    match snapshot::import(store, &snap, known, tables) {
        Ok(r) => {
            eprintln!(
                "resumed from {}: {} nodes, {} proved positions from the book, {} open again, {} table entries",
                path.display(),
                r.nodes,
                r.proved_from_book,
                r.reopened,
                r.knowledge
            );
            Ok(())
        }
        Err(e) => {
            eprintln!("error: cannot resume from {}: {e}", path.display());
            Err(EXIT_BAD_INPUT)
        }
    }
}
