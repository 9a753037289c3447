//! `syotti prove` and `syotti verify`: forced wins proved, written, and re-checked.

use std::{io::IsTerminal, path::PathBuf, time::Duration};

use super::{json_string, RulesArgs, EXIT_BAD_INPUT};
use crate::{
    proof::{known::KnownWins, verify, ProofLimits, ProofOutcome},
    rules::{notation, to_fen, Position, START_FEN},
    tablebase::Tablebases,
};

/// Stack for the prover's recursion (one frame per ply of the deepest line).
pub const PROVER_STACK: usize = 512 << 20;

#[derive(Debug, clap::Args)]
pub struct ProveArgs {
    /// Position to prove (default: the start position).
    #[arg(long, default_value = START_FEN)]
    pub fen: String,
    /// Moves (UCI or SAN) played from the position first.
    #[arg(long, num_args = 1.., value_delimiter = ' ')]
    pub moves: Vec<String>,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// Stop after this many nodes.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Stop after this many seconds.
    #[arg(long)]
    pub time: Option<f64>,
    /// Memory for the proof table, MiB.
    #[arg(long, default_value_t = 1024)]
    pub memory: usize,
    /// Write the proof tree to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Endgame tablebase folders (':'-separated): table positions are solved leaves.
    #[arg(long)]
    pub syzygy: Option<String>,
    /// Keep the proof in a store: a SQLite file, or a postgres:// URL shared by workers on many
    /// machines. Interrupt it any way; the same command resumes. `--memory` is then per worker.
    #[arg(long, value_name = "FILE|URL")]
    pub store: Option<String>,
    /// Join the proof a store holds (the position comes from the store).
    #[arg(long, requires = "store")]
    pub worker: bool,
    /// Show the store's progress and exit.
    #[arg(long, requires = "store")]
    pub status: bool,
    /// Workers in this process, one core each (with --store).
    #[arg(long, default_value_t = 1, requires = "store")]
    pub threads: usize,
    /// Nodes of one job (with --store).
    #[arg(long, default_value_t = super::store::JOB_NODES, requires = "store")]
    pub job_nodes: u64,
    /// Seconds one job may take at most (with --store); a claim lasts this and a minute more.
    #[arg(long, default_value_t = super::store::JOB_SECONDS, requires = "store")]
    pub job_time: f64,
    /// Seconds between progress lines (with --store).
    #[arg(long, default_value_t = 10.0, requires = "store")]
    pub progress: f64,
    /// Seconds between saves of what the table learned, for a warm resume (with --store).
    #[arg(long, default_value_t = 10.0, requires = "store")]
    pub checkpoint: f64,
    /// Prove from scratch: do not take the positions the embedded book proves (the refuted first
    /// moves and the proved sub-lines of open problems) as solved leaves.
    #[arg(long)]
    pub no_book: bool,
    /// Write the store's progress to a snapshot file and exit (with --store): the open tree,
    /// its solved positions and the table's most costly knowledge, gzip-compressed.
    #[arg(long, value_name = "FILE", requires = "store")]
    pub snapshot_out: Option<PathBuf>,
    /// With --snapshot-out: write the proof of every proved position at the open tree's border
    /// to this folder (verified, one file each), for `syotti book build`.
    #[arg(long, value_name = "DIR", requires = "snapshot_out")]
    pub proofs_out: Option<PathBuf>,
    /// Start a new store from a snapshot (with --store), then go on proving; proved positions
    /// of the snapshot take their proofs from the book.
    #[arg(long, value_name = "FILE", requires = "store")]
    pub resume_from: Option<PathBuf>,
}

#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// The proof file to check.
    pub file: PathBuf,
    /// Endgame tablebase folders, for proofs with tablebase leaves.
    #[arg(long)]
    pub syzygy: Option<String>,
}

/// Opens `--syzygy` tables, or says why not.
pub fn open_tables(path: Option<&str>) -> Result<Option<Tablebases>, u8> {
    match path {
        None => Ok(None),
        Some(path) => match Tablebases::open(path) {
            Ok(tb) => {
                eprintln!("{}", tb.summary());
                Ok(Some(tb))
            }
            Err(e) => {
                eprintln!("error: {e}");
                Err(EXIT_BAD_INPUT)
            }
        },
    }
}

/// Peak resident memory of this process in MiB (Linux), if known.
pub fn peak_memory_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

pub fn run_prove(args: &ProveArgs) -> u8 {
    if args.store.is_some() {
        return super::store::run(args);
    }
    let rule = args.rules.rule();
    let mut game = match crate::rules::Game::from_fen(&args.fen, rule) {
        Ok(game) => game,
        Err(e) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    for (i, text) in args.moves.iter().enumerate() {
        if let Err(e) = game.play_text(text) {
            eprintln!("error: move {} ({text}): {e}", i + 1);
            return EXIT_BAD_INPUT;
        }
    }
    if let Some(t) = args.time {
        if !(t.is_finite() && t > 0.0) {
            eprintln!("error: --time must be a positive number of seconds");
            return EXIT_BAD_INPUT;
        }
    }
    let pos = game.position().clone();
    if let Some(o) = game.outcome() {
        eprintln!("error: the game is over: {o}");
        return EXIT_BAD_INPUT;
    }
    let limits = ProofLimits {
        nodes: args.nodes,
        time: args.time.map(Duration::from_secs_f64),
        memory_mb: args.memory.max(1),
    };
    let history = game.keys().to_vec();
    let tables = match open_tables(args.syzygy.as_deref()) {
        Ok(tables) => tables,
        Err(code) => return code,
    };
    let show_progress = std::io::stderr().is_terminal();
    let book = if args.no_book {
        None
    } else {
        KnownWins::embedded()
    };
    let worker = std::thread::Builder::new()
        .stack_size(PROVER_STACK)
        .spawn(move || {
            let mut last = Duration::ZERO;
            let mut progress = |phi, delta, nodes: u64, elapsed: Duration| {
                if elapsed >= last + Duration::from_secs(1) {
                    last = elapsed;
                    let nps = nodes as f64 / elapsed.as_secs_f64().max(1e-9);
                    let end = if show_progress { '\r' } else { '\n' };
                    eprint!(
                        "root pn/dn {phi}/{delta}  nodes {nodes}  {:.0} nodes/s  {:.0} s{end}",
                        nps,
                        elapsed.as_secs_f64()
                    );
                }
            };
            let report = crate::proof::dfpn::prove_with_tables(
                &pos,
                rule,
                &history,
                &limits,
                (tables.as_ref().map(|tb| (tb, usize::MAX)), book.as_deref()),
                None,
                Some(&mut progress),
            );
            if show_progress {
                eprintln!();
            }
            (pos, report, tables)
        });
    let (pos, report, tables) = match worker.map(|h| h.join()) {
        Ok(Ok((pos, Ok(report), tables))) => (pos, report, tables),
        Ok(Ok((_, Err(e), _))) => {
            eprintln!(
                "error: cannot allocate {} MiB for the proof table (--memory): {}",
                args.memory, e.reason
            );
            return EXIT_BAD_INPUT;
        }
        _ => {
            eprintln!("error: the prover failed");
            return 1;
        }
    };

    let (result, best, proof_tree) = match &report.outcome {
        ProofOutcome::Win { best, proof } => ("win", Some(*best), Some(proof)),
        ProofOutcome::Loss { proof } => ("loss", None, Some(proof)),
        ProofOutcome::Unknown => ("unknown", None, None),
    };
    let line = proof_tree.map(|t| t.main_line(60)).unwrap_or_default();
    if let (Some(path), Some(tree)) = (&args.out, proof_tree) {
        if let Err(e) = std::fs::write(path, tree.to_text()) {
            eprintln!("error: cannot write {}: {e}", path.display());
            return 1;
        }
    }
    // Never report a proof that does not check out.
    let verified = proof_tree.map(|t| verify::verify_with_tables(&t.to_text(), tables.as_ref()));
    if let Some(Err(e)) = &verified {
        eprintln!("error: the proof found does not verify: {e}");
        return 1;
    }
    let secs = report.time.as_secs_f64();
    let nps = (report.nodes as f64 / secs.max(1e-9)).round() as u64;
    let peak = peak_memory_mb().unwrap_or(report.table_bytes as f64 / (1 << 20) as f64);
    let positions = proof_tree.map_or(0, |t| t.entries.len());
    if args.json {
        let line_uci: Vec<String> = line
            .iter()
            .map(|&m| json_string(&notation::uci(m)))
            .collect();
        println!(
            "{{\"fen\":{},\"result\":{},\"move\":{},\"line\":[{}],\"line_san\":{},\"nodes\":{},\"time_ms\":{},\"nps\":{},\"peak_memory_mb\":{:.1},\"proof_positions\":{}}}",
            json_string(&to_fen(&pos)),
            json_string(result),
            best.map_or("null".to_string(), |m| json_string(&notation::uci(m))),
            line_uci.join(","),
            json_string(&notation::san_line(&pos, &line)),
            report.nodes,
            report.time.as_millis(),
            nps,
            peak,
            positions
        );
    } else {
        let side = if pos.turn().is_white() {
            "White"
        } else {
            "Black"
        };
        match &report.outcome {
            ProofOutcome::Win { best, .. } => println!(
                "result: win for {side} (to move), winning move {} ({})",
                notation::san(&pos, *best),
                notation::uci(*best)
            ),
            ProofOutcome::Loss { .. } => {
                println!("result: loss for {side} (to move): every move loses")
            }
            ProofOutcome::Unknown => println!("result: unknown within the limits (or a draw)"),
        }
        if !line.is_empty() {
            println!("line: {}", notation::san_line(&pos, &line));
        }
        if positions > 0 {
            println!("proof: {positions} positions, verified");
        }
        println!("nodes {}", report.nodes);
        println!("time {:.3} s", secs);
        println!("nps {nps}");
        println!("peak memory {peak:.1} MiB");
    }
    0
}

pub fn run_verify(args: &VerifyArgs) -> u8 {
    let text = match std::fs::read_to_string(&args.file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", args.file.display());
            return EXIT_BAD_INPUT;
        }
    };
    let tables = match open_tables(args.syzygy.as_deref()) {
        Ok(tables) => tables,
        Err(code) => return code,
    };
    match verify::verify_with_tables(&text, tables.as_ref()) {
        Ok(report) => {
            let winner = if report.winner.is_white() {
                "White"
            } else {
                "Black"
            };
            println!(
                "valid: {winner} wins from {} under {} ({} positions listed, {} checked)",
                report.root, report.rule, report.entries, report.checked
            );
            0
        }
        Err(e) => {
            println!("invalid: {e}");
            1
        }
    }
}
