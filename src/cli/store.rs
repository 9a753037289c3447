//! `syotti prove --store`: a proof kept in a store, resumed, shared by threads and machines.

use std::{
    sync::atomic::{AtomicBool, Ordering},
    time::{Duration, Instant},
};

use super::{
    json_string,
    prove::{open_tables, peak_memory_mb, ProveArgs, PROVER_STACK},
    EXIT_BAD_INPUT,
};
use crate::{
    proof::known::KnownWins,
    proof::store::{
        search::{self, StoreProblem, WorkerConfig},
        NodeState, Store, StoreError, StoreStatus,
    },
    rules::{notation, START_FEN},
};

/// Nodes of one job by default: a few seconds of one core, so that two workers share even a
/// small proof and a lost job costs little.
pub const JOB_NODES: u64 = 1_000_000;
/// Seconds one job may take at most by default.
pub const JOB_SECONDS: f64 = 120.0;

fn open(location: &str) -> Result<Store, u8> {
    Store::open(location).map_err(|e| {
        eprintln!("error: cannot open the store {location}: {e}");
        EXIT_BAD_INPUT
    })
}

fn side(problem: &StoreProblem) -> &'static str {
    if problem.attacker().is_white() {
        "White"
    } else {
        "Black"
    }
}

fn state_name(state: NodeState) -> &'static str {
    match state {
        NodeState::Open | NodeState::Inner => "open",
        NodeState::Proved => "proved",
        NodeState::Disproved => "disproved",
    }
}

/// One line of progress.
fn progress_line(s: &StoreStatus) -> String {
    let c = &s.counts;
    let recent = c.recent_nodes as f64 / c.span_seconds.clamp(1.0, 600.0);
    format!(
        "root pn/dn {}/{} ({})  tree {} nodes, {} open, {} claimed  jobs {}  nodes {}  {:.0} nodes/s  solved {}",
        s.root_pn,
        s.root_dn,
        state_name(s.root_state),
        c.by_state.iter().sum::<u64>(),
        c.by_state[NodeState::Open as usize],
        c.claimed,
        c.jobs,
        c.job_nodes,
        recent,
        c.solved
    )
}

fn print_status(location: &str, store: &Store, problem: &StoreProblem, s: &StoreStatus) {
    let c = &s.counts;
    println!("store: {} {location}", store.backend());
    println!(
        "proving: a win for {} (to move) at {}{} (stalemate {})",
        side(problem),
        problem.meta.start_fen,
        if problem.meta.moves.is_empty() {
            String::new()
        } else {
            format!(" after {}", problem.meta.moves)
        },
        problem.meta.rule
    );
    println!(
        "root: pn {} dn {} ({})",
        s.root_pn,
        s.root_dn,
        state_name(s.root_state)
    );
    println!(
        "tree: {} nodes: {} open ({} claimed), {} inner, {} proved, {} disproved",
        c.by_state.iter().sum::<u64>(),
        c.by_state[0],
        c.claimed,
        c.by_state[1],
        c.by_state[2],
        c.by_state[3]
    );
    println!("solved positions: {}", c.solved);
    println!("knowledge: {} table entries kept for resuming", c.knowledge);
    println!(
        "jobs: {} done by {} workers, {} nodes in {:.0} worker-seconds",
        c.jobs, c.workers, c.job_nodes, c.job_seconds
    );
    let overall = c.job_nodes as f64 / c.span_seconds.max(1.0);
    let recent = c.recent_nodes as f64 / c.span_seconds.clamp(1.0, 600.0);
    println!(
        "rate: {recent:.0} nodes/s over the last {:.0} s, {overall:.0} nodes/s since the first job",
        c.span_seconds.min(600.0)
    );
}

pub fn run(args: &ProveArgs) -> u8 {
    let Some(location) = args.store.as_deref() else {
        return EXIT_BAD_INPUT;
    };
    if args.nodes.is_some() {
        eprintln!("error: --nodes does not apply to a store; bound the run with --time, or each job with --job-nodes");
        return EXIT_BAD_INPUT;
    }
    if args.threads == 0 || args.threads > 256 {
        eprintln!("error: --threads must be between 1 and 256");
        return EXIT_BAD_INPUT;
    }
    if args.job_nodes == 0 {
        eprintln!("error: --job-nodes must be positive");
        return EXIT_BAD_INPUT;
    }
    for (name, value) in [
        ("--job-time", Some(args.job_time)),
        ("--progress", Some(args.progress)),
        ("--checkpoint", Some(args.checkpoint)),
        ("--time", args.time),
    ] {
        if let Some(v) = value {
            if !(v.is_finite() && v > 0.0 && v < 1e9) {
                eprintln!("error: {name} must be a positive number of seconds");
                return EXIT_BAD_INPUT;
            }
        }
    }
    // A worker or a status query takes the position from the store, unless one is given.
    let given = !args.moves.is_empty() || args.fen.trim() != START_FEN;
    let wanted = if (args.worker || args.status || args.snapshot_out.is_some()) && !given {
        None
    } else {
        match StoreProblem::new(&args.fen, &args.moves, args.rules.rule()) {
            Ok(p) => Some(p),
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_BAD_INPUT;
            }
        }
    };
    let mut store = match open(location) {
        Ok(store) => store,
        Err(code) => return code,
    };
    let tables = if args.status {
        None
    } else {
        match open_tables(args.syzygy.as_deref()) {
            Ok(tables) => tables,
            Err(code) => return code,
        }
    };
    // The book's knowledge (a walk of a few seconds, once) only where it is used: a resume and
    // a run, not a status or a snapshot.
    let known = || {
        if args.no_book {
            None
        } else {
            KnownWins::embedded()
        }
    };
    if let Some(path) = &args.resume_from {
        if let Err(code) = super::snapshot::resume(
            &mut store,
            path,
            wanted.as_ref(),
            known().as_deref(),
            tables.as_ref(),
        ) {
            return code;
        }
    }
    let problem = match search::init(&mut store, wanted.as_ref()) {
        Ok(problem) => problem,
        Err(e @ StoreError::Mismatch(_)) => {
            eprintln!("error: {e}");
            return EXIT_BAD_INPUT;
        }
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    if args.status {
        return match search::status(&mut store, &problem) {
            Ok(s) => {
                print_status(location, &store, &problem, &s);
                0
            }
            Err(e) => {
                eprintln!("error: {e}");
                1
            }
        };
    }
    if let Some(out) = &args.snapshot_out {
        return super::snapshot::save(
            &mut store,
            &problem,
            out,
            args.proofs_out.as_deref(),
            tables.as_ref(),
        );
    }
    let config = WorkerConfig {
        memory_mb: args.memory.max(1),
        job_nodes: args.job_nodes,
        job_time: Duration::from_secs_f64(args.job_time),
        stack_bytes: PROVER_STACK,
    };
    if let Err(e) = search::reclaim_dead(&mut store) {
        eprintln!("error: {e}");
        return 1;
    }
    let before = match search::status(&mut store, &problem) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    if !before.root_state.solved() {
        eprintln!(
            "{} store {location}: {} jobs done before; {} worker(s), {} MiB each",
            store.backend(),
            before.counts.jobs,
            args.threads,
            config.memory_mb
        );
    }
    let (table, mut saver) = match search::open_table(&mut store, &config, args.threads) {
        Ok(opened) => opened,
        Err(e) => {
            eprintln!("error: {e}");
            return if matches!(e, search::WorkerError::Alloc { .. }) {
                EXIT_BAD_INPUT
            } else {
                1
            };
        }
    };
    if !saver.is_empty() {
        eprintln!(
            "knowledge: {} table entries loaded from the store",
            saver.len()
        );
    }
    let start = Instant::now();
    let stop = AtomicBool::new(false);
    let finished = AtomicBool::new(false);
    let run = std::thread::scope(|scope| {
        let book = known();
        let (problem, config, tables, stop_ref, finished_ref, table_ref) =
            (&problem, &config, tables.as_ref(), &stop, &finished, &table);
        let workers = scope.spawn(move || {
            let result = search::run_workers(
                location,
                problem,
                config,
                args.threads,
                (tables, book.as_deref()),
                stop_ref,
                table_ref,
            );
            finished_ref.store(true, Ordering::Relaxed);
            result
        });
        // The main thread keeps time, shows progress and saves the table's knowledge.
        let every = Duration::from_secs_f64(args.progress);
        let mut next = start + every;
        let save_every = Duration::from_secs_f64(args.checkpoint);
        let mut next_save = start + save_every;
        while !finished.load(Ordering::Relaxed) {
            std::thread::sleep(Duration::from_millis(20));
            if args
                .time
                .is_some_and(|t| start.elapsed().as_secs_f64() >= t)
            {
                stop.store(true, Ordering::Relaxed);
            }
            if Instant::now() >= next_save {
                match saver.save(&mut store, &table) {
                    Ok(n) => log::debug!("knowledge: {n} entries saved"),
                    Err(e) => eprintln!("warning: cannot save the table's knowledge: {e}"),
                }
                next_save = Instant::now() + save_every;
            }
            if Instant::now() >= next {
                next += every;
                if let Ok(s) = search::status(&mut store, problem) {
                    eprintln!(
                        "{}  {:.0} s",
                        progress_line(&s),
                        start.elapsed().as_secs_f64()
                    );
                }
            }
        }
        workers.join()
    });
    let summaries = match run {
        Ok(Ok(summaries)) => summaries,
        Ok(Err(e)) => {
            eprintln!("error: {e}");
            return if matches!(e, search::WorkerError::Alloc { .. }) {
                EXIT_BAD_INPUT
            } else {
                1
            };
        }
        Err(_) => {
            eprintln!("error: the workers failed");
            return 1;
        }
    };
    let elapsed = start.elapsed();
    let nodes: u64 = summaries.iter().map(|s| s.nodes).sum();
    let jobs: u64 = summaries.iter().map(|s| s.jobs).sum();
    let status = match search::status(&mut store, &problem) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            return 1;
        }
    };
    // What the table knows is worth keeping while the root is open.
    if !status.root_state.solved() {
        if let Err(e) = saver.save(&mut store, &table) {
            eprintln!("warning: cannot save the table's knowledge: {e}");
        }
    }
    let mut positions = 0;
    let mut line = String::new();
    if status.root_state == NodeState::Proved {
        let proof = match crate::proof::store::extract(&mut store, &problem) {
            Ok(Some(proof)) => proof,
            Ok(None) => {
                eprintln!("error: the root is proved but no proof came out of the store");
                return 1;
            }
            Err(e) => {
                eprintln!("error: cannot put the proof together: {e}");
                return 1;
            }
        };
        // Never report a proof that does not check out.
        let text = match crate::proof::store::verified_text(&proof, tables.as_ref()) {
            Ok(text) => text,
            Err(e) => {
                eprintln!("error: the proof put together from the store does not verify: {e}");
                return 1;
            }
        };
        positions = proof.entries.len();
        line = notation::san_line(problem.root(), &proof.main_line(60));
        if let Some(path) = &args.out {
            if let Err(e) = std::fs::write(path, &text) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return 1;
            }
        }
    }
    let result = match status.root_state {
        NodeState::Proved => "win",
        NodeState::Disproved => "no-win",
        NodeState::Open | NodeState::Inner => "unknown",
    };
    let peak = peak_memory_mb().unwrap_or(0.0);
    if args.json {
        println!(
            "{{\"result\":{},\"root_pn\":{},\"root_dn\":{},\"line_san\":{},\"nodes\":{nodes},\"jobs\":{jobs},\"store_jobs\":{},\"store_nodes\":{},\"time_ms\":{},\"peak_memory_mb\":{peak:.1},\"proof_positions\":{positions}}}",
            json_string(result),
            status.root_pn,
            status.root_dn,
            json_string(&line),
            status.counts.jobs,
            status.counts.job_nodes,
            elapsed.as_millis()
        );
    } else {
        match status.root_state {
            NodeState::Proved => println!("result: win for {} (to move)", side(&problem)),
            NodeState::Disproved => println!(
                "result: no win for {} (to move): a loss or a draw",
                side(&problem)
            ),
            _ => println!(
                "result: unknown so far (root pn {} dn {}); the same command resumes",
                status.root_pn, status.root_dn
            ),
        }
        if !line.is_empty() {
            println!("line: {line}");
        }
        if positions > 0 {
            println!("proof: {positions} positions, verified");
        }
        println!(
            "this run: {jobs} jobs, {nodes} nodes, {:.3} s",
            elapsed.as_secs_f64()
        );
        println!(
            "store: {} jobs, {} nodes",
            status.counts.jobs, status.counts.job_nodes
        );
        println!("peak memory {peak:.1} MiB");
    }
    0
}
