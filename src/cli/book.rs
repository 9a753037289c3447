//! `syotti book`: build the book of proofs, look positions up in it, export it, verify it.

use std::{path::PathBuf, sync::Arc};

use super::{json_string, prove::open_tables, EXIT_BAD_INPUT};
use crate::{
    proof::{
        book::{BookMove, BookRoot, ProofBook},
        verify::{read_proof, verify_with_tables},
    },
    rules::{notation, Game, Position, StalemateRule, START_FEN},
    tablebase::Tablebases,
};

/// Stack for the verifier's recursion (one frame per ply of the deepest line).
const VERIFY_STACK: usize = 512 << 20;

#[derive(Debug, clap::Args)]
pub struct BookArgs {
    #[command(subcommand)]
    pub command: BookCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum BookCommand {
    /// Verify proof files (with --syzygy for table leaves) and merge them into a book.
    #[command(
        after_help = "Example:\n  syotti book build e2e4.proof h2h4.proof --syzygy ../shared/tablebases --out book/syotti.book"
    )]
    Build {
        /// Proof files written by `syotti prove --out`.
        #[arg(required = true)]
        proofs: Vec<PathBuf>,
        /// Where to write the book.
        #[arg(long)]
        out: PathBuf,
        /// Endgame tablebase folders, for proofs with table leaves.
        #[arg(long)]
        syzygy: Option<String>,
        /// Thin the book: leave out the winner's positions whose proofs hold at most this many
        /// winner's positions; a rebuild finds them again by search (see book/README.md).
        #[arg(long, value_name = "POSITIONS")]
        thin: Option<u64>,
        /// With --thin: nodes within which every left-out sub-proof must be found again (a
        /// rebuild allows four times as many).
        #[arg(long, default_value_t = 20_000, value_name = "NODES")]
        fill_nodes: u64,
    },
    /// The proven move of a position, with its distance.
    #[command(
        after_help = "Examples:\n  syotti book probe --moves e2e4\n  syotti book probe --moves h2h4 --json"
    )]
    Probe {
        /// Position (default: the start position).
        #[arg(long, default_value = START_FEN)]
        fen: String,
        /// Moves (UCI or SAN) played from the position first.
        #[arg(long, num_args = 1.., value_delimiter = ' ')]
        moves: Vec<String>,
        /// A book file instead of the embedded book.
        #[arg(long)]
        book: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write the book as a Polyglot book or as PGN (each refutation's main line and its
    /// critical alternatives).
    #[command(
        after_help = "Examples:\n  syotti book export --polyglot syotti.bin\n  syotti book export --pgn refutations.pgn"
    )]
    Export {
        #[arg(long)]
        polyglot: Option<PathBuf>,
        #[arg(long)]
        pgn: Option<PathBuf>,
        /// A folder to write each root's proof tree into, rebuilt from the book and the rules
        /// (`root-N.proof`, the proof file format; `book build` makes a book of them again).
        #[arg(long)]
        proofs: Option<PathBuf>,
        /// Endgame tablebase folders, to mark the table leaves of `--proofs` trees.
        #[arg(long)]
        syzygy: Option<String>,
        /// A book file instead of the embedded book.
        #[arg(long)]
        book: Option<PathBuf>,
    },
    /// Rebuild every root's proof tree from the book and check it with the verifier.
    #[command(after_help = "Example:\n  syotti book verify --syzygy ../shared/tablebases")]
    Verify {
        /// A book file instead of the embedded book.
        #[arg(long)]
        book: Option<PathBuf>,
        /// Endgame tablebase folders, for trees with table leaves.
        #[arg(long)]
        syzygy: Option<String>,
    },
}

/// The book a command works on: a file, or the embedded one.
fn load(path: Option<&PathBuf>) -> Result<Arc<ProofBook>, String> {
    match path {
        Some(path) => {
            let bytes =
                std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            ProofBook::from_bytes(&bytes)
                .map(Arc::new)
                .map_err(|e| format!("{}: {e}", path.display()))
        }
        None => ProofBook::embedded().ok_or_else(|| "the embedded book does not read".to_string()),
    }
}

pub fn run(args: &BookArgs) -> u8 {
    let result = match &args.command {
        BookCommand::Build {
            proofs,
            out,
            syzygy,
            thin,
            fill_nodes,
        } => build(
            proofs,
            out,
            syzygy.as_deref(),
            thin.map(|t| (t, *fill_nodes)),
        ),
        BookCommand::Probe {
            fen,
            moves,
            book,
            json,
        } => probe(fen, moves, book.as_ref(), *json),
        BookCommand::Export {
            polyglot,
            pgn,
            proofs,
            syzygy,
            book,
        } => export(
            polyglot.as_ref(),
            pgn.as_ref(),
            proofs.as_ref(),
            syzygy.as_deref(),
            book.as_ref(),
        ),
        BookCommand::Verify { book, syzygy } => {
            verify_book(book.as_ref(), syzygy.as_deref()).map(|lines| {
                for line in lines {
                    println!("{line}");
                }
            })
        }
    };
    match result {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("error: {e}");
            EXIT_BAD_INPUT
        }
    }
}

fn tables(path: Option<&str>) -> Result<Option<Tablebases>, String> {
    open_tables(path).map_err(|_| "cannot open the tables given with --syzygy".to_string())
}

fn build(
    proofs: &[PathBuf],
    out: &PathBuf,
    syzygy: Option<&str>,
    thin: Option<(u64, u64)>,
) -> Result<(), String> {
    let tables = tables(syzygy)?;
    let mut trees = Vec::new();
    for path in proofs {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let checked = on_big_stack({
            let text = text.clone();
            let tables = syzygy.map(str::to_string);
            move || {
                let tables = tables.as_deref().map(Tablebases::open).transpose();
                let tables = tables.map_err(|e| e.to_string())?;
                verify_with_tables(&text, tables.as_ref()).map_err(|e| e.to_string())
            }
        })?;
        let report = checked.map_err(|e| format!("{} does not verify: {e}", path.display()))?;
        eprintln!(
            "{}: valid, {} positions, root {}",
            path.display(),
            report.entries,
            report.root
        );
        trees.push(read_proof(&text).map_err(|e| format!("{}: {e}", path.display()))?);
    }
    let mut book = ProofBook::from_proofs(&trees).map_err(|e| e.to_string())?;
    drop(tables);
    if let Some((small, fill_nodes)) = thin {
        if fill_nodes == 0 {
            return Err("--fill-nodes must be at least 1".to_string());
        }
        let tables = syzygy.map(str::to_string);
        let thinning = on_big_stack(move || {
            let tables = tables.as_deref().map(Tablebases::open).transpose();
            let tables = tables.map_err(|e| e.to_string())?;
            book.thinned(small, fill_nodes, tables.as_ref())
                .map_err(|e| e.to_string())
        })??;
        eprintln!(
            "thinned: {} of {} winner's positions kept ({} put back after a failed search, {} rebuilds)",
            thinning.kept, thinning.before, thinning.put_back, thinning.rounds
        );
        book = thinning.book;
    }
    let bytes = book.to_bytes();
    std::fs::write(out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    println!(
        "book: {} positions from {} proofs, {} bytes, written to {}",
        book.len(),
        trees.len(),
        bytes.len(),
        out.display()
    );
    if thin.is_some() {
        // Each tree of a thinned book, rebuilt as any reader rebuilds it, through the verifier.
        let checked = verify_book(Some(out), syzygy)?;
        println!(
            "verified: {} trees rebuilt from the thinned book",
            checked.len()
        );
    }
    Ok(())
}

/// Runs `work` on a thread with a large stack (the verifier recurses once per ply).
fn on_big_stack<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> Result<T, String> {
    std::thread::Builder::new()
        .stack_size(VERIFY_STACK)
        .spawn(work)
        .map_err(|e| format!("cannot start the verifier: {e}"))?
        .join()
        .map_err(|_| "the verifier failed".to_string())
}

fn probe(fen: &str, moves: &[String], path: Option<&PathBuf>, json: bool) -> Result<(), String> {
    let book = load(path)?;
    let mut game = Game::from_fen(fen, book.rule()).map_err(|e| e.to_string())?;
    for (i, text) in moves.iter().enumerate() {
        game.play_text(text)
            .map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
    }
    let pos = game.position();
    // The game's history counts: a line the loser could repeat is no proof here.
    let answer = book.answer(pos, book.rule(), game.keys());
    let kind = match answer {
        Some(a) if a.wins => "win",
        Some(_) => "loss",
        None => "unknown",
    };
    let hit = answer.map(|a| a.hit);
    if json {
        println!(
            "{{\"fen\":{},\"result\":{},\"move\":{},\"plies\":{},\"exact\":{},\"line\":[{}]}}",
            json_string(&notation::to_fen(pos)),
            json_string(kind),
            hit.map_or("null".to_string(), |h| json_string(&notation::uci(h.best))),
            hit.map_or("null".to_string(), |h| h.distance.plies.to_string()),
            hit.map_or("null".to_string(), |h| h.distance.exact.to_string()),
            book.line(pos, 60)
                .iter()
                .map(|&m| json_string(&notation::uci(m)))
                .collect::<Vec<_>>()
                .join(",")
        );
        return Ok(());
    }
    let side = if pos.turn().is_white() {
        "White"
    } else {
        "Black"
    };
    // A proof that ends in table leaves proves the result, not the number of moves.
    let distance = |h: BookMove| {
        if h.distance.exact {
            format!("in {} (book)", h.distance.plies.div_ceil(2))
        } else {
            format!(
                "(book; {} plies to the endgame tables, which win it)",
                h.distance.plies
            )
        }
    };
    match (kind, hit) {
        ("win", Some(h)) => println!(
            "{side} to move wins {}: {} ({})",
            distance(h),
            notation::san(pos, h.best),
            notation::uci(h.best)
        ),
        ("loss", Some(h)) => println!(
            "{side} to move loses {}; longest resistance {} ({})",
            distance(h),
            notation::san(pos, h.best),
            notation::uci(h.best)
        ),
        _ => {
            println!("not in the book");
            return Ok(());
        }
    }
    let line = book.line(pos, 60);
    if !line.is_empty() {
        println!("line: {}", notation::san_line(pos, &line));
    }
    Ok(())
}

fn export(
    polyglot: Option<&PathBuf>,
    pgn: Option<&PathBuf>,
    proofs: Option<&PathBuf>,
    syzygy: Option<&str>,
    path: Option<&PathBuf>,
) -> Result<(), String> {
    if polyglot.is_none() && pgn.is_none() && proofs.is_none() {
        return Err("give --polyglot FILE, --pgn FILE and/or --proofs DIR".to_string());
    }
    let book = load(path)?;
    if let Some(dir) = proofs {
        let tables = tables(syzygy)?;
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        for (index, root) in book.roots().iter().enumerate() {
            let text = book
                .proof_text(root, tables.as_ref())
                .map_err(|e| format!("{}: {e}", root.fen))?;
            let out = dir.join(format!("root-{}.proof", index + 1));
            std::fs::write(&out, text)
                .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
            println!("proof: {} written to {}", root.fen, out.display());
        }
    }
    if let Some(out) = polyglot {
        let bytes = book.to_polyglot();
        std::fs::write(out, &bytes).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        println!(
            "polyglot: {} entries written to {}",
            bytes.len() / 16,
            out.display()
        );
    }
    if let Some(out) = pgn {
        let text = refutations_pgn(&book);
        std::fs::write(out, &text).map_err(|e| format!("cannot write {}: {e}", out.display()))?;
        println!(
            "pgn: {} games written to {}",
            book.roots().len(),
            out.display()
        );
    }
    Ok(())
}

/// Each root's main line (the book's moves, the loser's longest resistance) as a PGN game, with
/// the loser's other replies at its first moves as variations, each answered by the book.
fn refutations_pgn(book: &ProofBook) -> String {
    let mut out = String::new();
    let variant = match book.rule() {
        StalemateRule::FewerPiecesWins => "Suicide",
        _ => "Antichess",
    };
    for (index, root) in book.roots().iter().enumerate() {
        let Ok(pos) = notation::parse_fen(&root.fen) else {
            continue;
        };
        let line = book.line(&pos, 200);
        let winner = if root.winner.is_white() { "1-0" } else { "0-1" };
        out.push_str(&format!(
            "[Event \"Syotti book of proofs\"]\n[Round \"{}\"]\n[Variant \"{variant}\"]\n[SetUp \"1\"]\n[FEN \"{}\"]\n[Result \"{winner}\"]\n\n",
            index + 1,
            root.fen
        ));
        let mut text = String::new();
        let mut board = pos.clone();
        for (ply, &m) in line.iter().enumerate() {
            let number = board.fullmoves();
            if board.turn().is_white() {
                text.push_str(&format!("{number}. "));
            } else if ply == 0 {
                text.push_str(&format!("{number}... "));
            }
            text.push_str(&notation::san(&board, m));
            text.push(' ');
            // The loser's alternatives in the first moves, each with the book's answer.
            if board.turn() != root.winner && ply < 8 {
                for alt in board.legal_moves() {
                    if alt == m {
                        continue;
                    }
                    let mut after = board.clone();
                    after.play_unchecked(alt);
                    let answer = book.probe(&after, book.rule());
                    let prefix = if board.turn().is_white() {
                        format!("{number}. ")
                    } else {
                        format!("{number}... ")
                    };
                    let reply = answer
                        .map(|a| format!(" {}", notation::san(&after, a.best)))
                        .unwrap_or_default();
                    text.push_str(&format!("({prefix}{}{reply}) ", notation::san(&board, alt)));
                }
            }
            board.play_unchecked(m);
        }
        text.push_str(winner);
        out.push_str(&wrap(&text, 79));
        out.push_str("\n\n");
    }
    out
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split(' ') {
        if !line.is_empty() && line.len() + word.len() + 1 > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out
}

/// Verifies every root of a book; one line a root.
pub fn verify_book(path: Option<&PathBuf>, syzygy: Option<&str>) -> Result<Vec<String>, String> {
    let book = load(path)?;
    let syzygy = syzygy.map(str::to_string);
    let roots: Vec<BookRoot> = book.roots().to_vec();
    on_big_stack(move || {
        let tables = match syzygy.as_deref().map(Tablebases::open).transpose() {
            Ok(t) => t,
            Err(e) => return Err(e.to_string()),
        };
        let mut lines = Vec::new();
        for root in &roots {
            let text = book
                .proof_text(root, tables.as_ref())
                .map_err(|e| format!("{}: {e}", root.fen))?;
            let report = verify_with_tables(&text, tables.as_ref())
                .map_err(|e| format!("{}: {e}", root.fen))?;
            lines.push(format!(
                "valid: {} wins from {} ({} positions)",
                if report.winner.is_white() {
                    "White"
                } else {
                    "Black"
                },
                root.fen,
                report.entries
            ));
        }
        Ok(lines)
    })?
}
