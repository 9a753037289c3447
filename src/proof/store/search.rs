//! The job-level search over a store: what a worker claims, how a job's result is written back
//! and carried up to the root, and the worker loop (`extract` puts the whole proof together).
//!
//! Everything here is written against `ProofStore`/`StoreTx`, so both backends share it.

use std::{
    path::Path,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc,
    },
    thread,
    time::{Duration, Instant},
};

use shakmaty::{variant::Antichess, Color, Position};

use super::{
    Link, Node, NodeId, NodeState, ProofStore, Result, Solved, Store, StoreCounts, StoreError,
    StoreMeta, StoreTx, TxKind,
};
use crate::{
    memory::AllocError,
    proof::{
        dfpn::{add, widened, Known},
        job::{JobOutcome, JobResult, JobSearch},
        known::KnownWins,
        table::ProofTable,
        Pn, PN_INFINITY,
    },
    rules::{notation, to_fen, Game, StalemateRule},
    tablebase::Tablebases,
};

/// What a store proves, ready to use: the root position and how it was reached.
#[derive(Clone, Debug)]
pub struct StoreProblem {
    pub meta: StoreMeta,
    pub rule: StalemateRule,
    /// The game from the start position to the root.
    game: Game,
}

impl StoreProblem {
    /// Checks a start position, moves and rules, and describes them for the store.
    pub fn new(
        start_fen: &str,
        moves: &[String],
        rule: StalemateRule,
    ) -> std::result::Result<StoreProblem, String> {
        let mut game = Game::from_fen(start_fen, rule).map_err(|e| e.to_string())?;
        let mut played = Vec::new();
        for (i, text) in moves.iter().enumerate() {
            let m = game
                .play_text(text)
                .map_err(|e| format!("move {} ({text}): {e}", i + 1))?;
            played.push(notation::uci(m));
        }
        if let Some(o) = game.outcome() {
            return Err(format!("the game is over: {o}"));
        }
        let meta = StoreMeta {
            start_fen: start_fen.trim().to_string(),
            moves: played.join(" "),
            rule: rule.name().to_string(),
        };
        Ok(StoreProblem { meta, rule, game })
    }

    /// The problem a store holds.
    pub fn from_meta(meta: &StoreMeta) -> Result<StoreProblem> {
        let rule: StalemateRule = meta
            .rule
            .parse()
            .map_err(|e| StoreError::Corrupt(format!("rule {}: {e}", meta.rule)))?;
        let moves: Vec<String> = meta.moves.split_whitespace().map(String::from).collect();
        StoreProblem::new(&meta.start_fen, &moves, rule).map_err(StoreError::Corrupt)
    }

    pub fn root(&self) -> &Antichess {
        self.game.position()
    }

    pub fn root_fen(&self) -> String {
        to_fen(self.root())
    }

    /// The side whose win the store proves: the side to move at the root.
    pub fn attacker(&self) -> Color {
        self.root().turn()
    }

    /// The position after `path` (UCI moves from the root) and the keys of every position
    /// before it, from the start of the game.
    pub fn replay(&self, path: &[String]) -> Result<(Antichess, Vec<u64>)> {
        let mut game = self.game.clone();
        for text in path {
            game.play_text(text)
                .map_err(|e| StoreError::Corrupt(format!("path move {text}: {e}")))?;
        }
        let mut keys = game.keys().to_vec();
        keys.pop();
        Ok((game.position().clone(), keys))
    }
}

/// A solved position's key: the FEN's first five fields (the halfmove clock counts, for the
/// fifty-move rule; the move number does not).
pub fn solved_key(fen: &str) -> String {
    fen.split_whitespace().take(5).collect::<Vec<_>>().join(" ")
}

/// The attacker moves at even plies from the root.
pub(super) fn attacker_moves(ply: u32) -> bool {
    ply.is_multiple_of(2)
}

pub(super) fn root_id(tx: &mut dyn StoreTx, problem: &StoreProblem) -> Result<NodeId> {
    tx.find_node(0, &problem.root_fen())?
        .ok_or_else(|| StoreError::Corrupt("the root node is missing".into()))
}

/// Opens the problem of a store: creates it when the store is new and `wanted` is given, checks
/// that it is the same problem otherwise.
pub fn init(store: &mut impl ProofStore, wanted: Option<&StoreProblem>) -> Result<StoreProblem> {
    let meta = store.transaction(TxKind::Update, |tx| match (tx.meta()?, wanted) {
        (Some(held), Some(wanted)) if held != wanted.meta => Err(StoreError::Mismatch(format!(
            "the store proves {} (moves '{}', stalemate {}), not {} (moves '{}', stalemate {})",
            held.start_fen,
            held.moves,
            held.rule,
            wanted.meta.start_fen,
            wanted.meta.moves,
            wanted.meta.rule
        ))),
        (Some(held), _) => Ok(held),
        (None, Some(wanted)) => {
            tx.put_meta(&wanted.meta)?;
            tx.insert_node(0, &wanted.root_fen(), 1, 1, NodeState::Open)?;
            Ok(wanted.meta.clone())
        }
        (None, None) => Err(StoreError::Mismatch(
            "the store holds no proof yet: start it with a position (--fen, --moves)".into(),
        )),
    })?;
    StoreProblem::from_meta(&meta)
}

/// What a worker gets when it asks for work.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Claim {
    /// A frontier node, the moves from the root that led the selection to it, and the
    /// attacker's (pn, dn) thresholds at which a sibling becomes the better bet.
    Job {
        node: NodeId,
        path: Vec<String>,
        thresholds: (Pn, Pn),
    },
    /// Every frontier node is claimed by another worker.
    Busy,
    /// The root is solved.
    Done(NodeState),
}

/// Claims the most-proving frontier node no other worker holds.
pub fn claim(
    store: &mut impl ProofStore,
    problem: &StoreProblem,
    worker: &str,
    lease: Duration,
) -> Result<Claim> {
    store.transaction(TxKind::Claim, |tx| {
        let root = root_id(tx, problem)?;
        let node = tx
            .node(root)?
            .ok_or_else(|| StoreError::Corrupt("root".into()))?;
        if node.state.solved() {
            return Ok(Claim::Done(node.state));
        }
        // First only work the proof needs if the attacker's best moves hold; then, when all of
        // that is claimed, the next best alternatives rather than an idle core.
        for speculate in [false, true] {
            let mut path = Vec::new();
            let mut descent = Descent {
                worker,
                lease,
                speculate,
            };
            let infinite = (PN_INFINITY, PN_INFINITY);
            if let Some((found, thresholds)) =
                descent.select(tx, node.clone(), &mut path, infinite)?
            {
                return Ok(Claim::Job {
                    node: found,
                    path,
                    thresholds,
                });
            }
        }
        Ok(Claim::Busy)
    })
}

struct Descent<'a> {
    worker: &'a str,
    lease: Duration,
    speculate: bool,
}

/// What is left of a threshold once the other children's share is taken out.
fn share(threshold: Pn, total: Pn, child: Pn) -> Pn {
    if threshold >= PN_INFINITY {
        PN_INFINITY
    } else {
        add(threshold.saturating_sub(total), child)
    }
}

impl Descent<'_> {
    /// Best-first descent, with df-pn's thresholds: at the attacker's nodes the child with the
    /// smallest proof number, at the defender's the smallest disproof number; a subtree whose
    /// frontier is all claimed is passed over for the next best. Without `speculate`, only the
    /// best child of an attacker's node is tried (a claimed one counts as about to be proved,
    /// the "virtual win" policy of job-level proof-number search), so that workers share the
    /// replies a proof must answer. Returns the node claimed and its thresholds.
    fn select(
        &mut self,
        tx: &mut dyn StoreTx,
        node: Node,
        path: &mut Vec<String>,
        (th_pn, th_dn): (Pn, Pn),
    ) -> Result<Option<(NodeId, (Pn, Pn))>> {
        match node.state {
            NodeState::Open => Ok(tx
                .try_claim(node.id, self.worker, self.lease)?
                .then_some((node.id, (th_pn, th_dn)))),
            NodeState::Inner => {
                let all = tx.links(node.id)?;
                let (pn, dn, _) = from_links(node.ply, &all);
                let mut links: Vec<&Link> = all
                    .iter()
                    .filter(|l| l.child.is_some() && !l.state.solved())
                    .collect();
                let attacker = attacker_moves(node.ply);
                if attacker {
                    links.sort_by_key(|l| (l.pn, l.dn));
                    if !self.speculate {
                        links.truncate(1);
                    }
                } else {
                    links.sort_by_key(|l| (l.dn, l.pn));
                }
                // Siblings found all claimed count as settled (virtually proved at the
                // defender's nodes): they do not cut the next child's job short.
                let mut busy: Vec<&str> = Vec::new();
                for link in links {
                    let Some(child) = link.child.and_then(|c| tx.node(c).transpose()) else {
                        continue;
                    };
                    let second = all
                        .iter()
                        .filter(|l| l.mv != link.mv && !busy.contains(&l.mv.as_str()))
                        .map(|l| if attacker { l.pn } else { l.dn })
                        .min()
                        .unwrap_or(PN_INFINITY);
                    let thresholds = if attacker {
                        (
                            th_pn.min(widened(second, true)).max(add(link.pn, 1)),
                            share(th_dn, dn, link.dn),
                        )
                    } else {
                        (
                            share(th_pn, pn, link.pn),
                            th_dn.min(widened(second, false)).max(add(link.dn, 1)),
                        )
                    };
                    path.push(link.mv.clone());
                    if let Some(found) = self.select(tx, child?, path, thresholds)? {
                        return Ok(Some(found));
                    }
                    path.pop();
                    busy.push(&link.mv);
                }
                Ok(None)
            }
            NodeState::Proved | NodeState::Disproved => Ok(None),
        }
    }
}

/// A node's numbers and state from its edges.
fn from_links(ply: u32, links: &[Link]) -> (Pn, Pn, NodeState) {
    let (pn, dn) = if attacker_moves(ply) {
        (
            links.iter().map(|l| l.pn).min().unwrap_or(PN_INFINITY),
            links.iter().fold(0, |s, l| add(s, l.dn)),
        )
    } else {
        (
            links.iter().fold(0, |s, l| add(s, l.pn)),
            links.iter().map(|l| l.dn).min().unwrap_or(PN_INFINITY),
        )
    };
    let state = if pn == 0 {
        NodeState::Proved
    } else if dn == 0 {
        NodeState::Disproved
    } else {
        NodeState::Inner
    };
    (pn, dn, state)
}

/// Marks a node solved, and remembers the position as solved.
fn mark_solved(tx: &mut dyn StoreTx, node: &Node, wins: bool, solved: Solved) -> Result<()> {
    let (pn, dn, state) = if wins {
        (0, PN_INFINITY, NodeState::Proved)
    } else {
        (PN_INFINITY, 0, NodeState::Disproved)
    };
    tx.set_node(node.id, pn, dn, state)?;
    tx.put_solved(&solved_key(&node.fen), &solved)
}

/// Recomputes an expanded node from its edges; true if anything changed.
fn recompute(tx: &mut dyn StoreTx, node: &Node) -> Result<bool> {
    let links = tx.links(node.id)?;
    let (pn, dn, state) = from_links(node.ply, &links);
    if (pn, dn, state) == (node.pn, node.dn, node.state) {
        return Ok(false);
    }
    if state.solved() {
        let solved = Solved {
            attacker_wins: state == NodeState::Proved,
            proof: None,
            node: Some(node.id),
        };
        mark_solved(tx, node, state == NodeState::Proved, solved)?;
    } else {
        tx.set_node(node.id, pn, dn, state)?;
    }
    Ok(true)
}

/// Carries a node's change up every path to the root (the graph has no cycles: every edge goes
/// one ply deeper).
pub(super) fn propagate(tx: &mut dyn StoreTx, from: NodeId) -> Result<()> {
    let mut queue = tx.parents(from)?;
    while let Some(id) = queue.pop() {
        let Some(node) = tx.node(id)? else { continue };
        if node.state != NodeState::Inner {
            continue;
        }
        if recompute(tx, &node)? {
            queue.extend(tx.parents(id)?);
        }
    }
    Ok(())
}

/// Adds a node's children from a job's findings.
fn expand(
    tx: &mut dyn StoreTx,
    node: &Node,
    children: &[crate::proof::job::JobChild],
) -> Result<()> {
    for c in children {
        let mv = notation::uci(c.m);
        if c.fixed {
            tx.insert_link(node.id, &mv, None, c.pn, c.dn)?;
            continue;
        }
        let fen = to_fen(&c.pos);
        let ply = node.ply + 1;
        let child = match tx.find_node(ply, &fen)? {
            Some(id) => id,
            None => {
                // A position solved elsewhere is not searched again. Otherwise the job's numbers,
                // kept at 1 or more: a child the worker's table holds as solved is solved for the
                // store only by a job of its own (which finds it at once), so that every solved
                // node has its proof.
                let (pn, dn, state) = match tx.solved(&solved_key(&fen))? {
                    Some(s) if s.attacker_wins => (0, PN_INFINITY, NodeState::Proved),
                    Some(_) => (PN_INFINITY, 0, NodeState::Disproved),
                    None => (c.pn.max(1), c.dn.max(1), NodeState::Open),
                };
                tx.insert_node(ply, &fen, pn, dn, state)?
            }
        };
        tx.insert_link(node.id, &mv, Some(child), 0, 0)?;
    }
    recompute(tx, node)?;
    Ok(())
}

/// What a worker brings back for a claimed node.
pub enum Finding<'a> {
    /// The position is solved in the store already.
    Known,
    Job(&'a JobResult),
}

/// Writes a job's result back in one transaction and carries it up to the root. A node that
/// another worker finished meanwhile (after this worker's lease ran out) is left as it is.
pub fn write_back(
    store: &mut impl ProofStore,
    node_id: NodeId,
    finding: Finding,
    worker: &str,
) -> Result<()> {
    store.transaction(TxKind::Update, |tx| {
        let node = tx
            .node(node_id)?
            .ok_or_else(|| StoreError::Corrupt(format!("node {node_id}")))?;
        let (nodes, millis) = match finding {
            Finding::Job(r) => (r.nodes, r.time.as_millis() as u64),
            Finding::Known => (0, 0),
        };
        let outcome = if node.state != NodeState::Open {
            "late"
        } else if let Some(known) = tx.solved(&solved_key(&node.fen))? {
            let wins = known.attacker_wins;
            let (pn, dn, state) = if wins {
                (0, PN_INFINITY, NodeState::Proved)
            } else {
                (PN_INFINITY, 0, NodeState::Disproved)
            };
            tx.set_node(node.id, pn, dn, state)?;
            propagate(tx, node.id)?;
            "known"
        } else {
            match finding {
                Finding::Known => {
                    tx.release(node.id)?;
                    "released"
                }
                Finding::Job(result) => match &result.outcome {
                    JobOutcome::Proved(proof) => {
                        let solved = Solved {
                            attacker_wins: true,
                            proof: Some(proof.to_text()),
                            node: None,
                        };
                        mark_solved(tx, &node, true, solved)?;
                        propagate(tx, node.id)?;
                        "proved"
                    }
                    JobOutcome::Disproved => {
                        let solved = Solved {
                            attacker_wins: false,
                            proof: None,
                            node: None,
                        };
                        mark_solved(tx, &node, false, solved)?;
                        propagate(tx, node.id)?;
                        "disproved"
                    }
                    JobOutcome::Open(children) => {
                        expand(tx, &node, children)?;
                        propagate(tx, node.id)?;
                        "expanded"
                    }
                    JobOutcome::Updated { pn, dn } => {
                        tx.set_node(node.id, (*pn).max(1), (*dn).max(1), NodeState::Open)?;
                        propagate(tx, node.id)?;
                        "updated"
                    }
                    JobOutcome::Interrupted => {
                        tx.release(node.id)?;
                        "interrupted"
                    }
                },
            }
        };
        tx.record_job(&super::JobRecord {
            node: node_id,
            worker: worker.to_string(),
            nodes,
            millis,
            outcome: outcome.to_string(),
        })
    })
}

/// The root's numbers and the store's counts.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreStatus {
    pub root_pn: Pn,
    pub root_dn: Pn,
    pub root_state: NodeState,
    pub counts: StoreCounts,
}

pub fn status(store: &mut impl ProofStore, problem: &StoreProblem) -> Result<StoreStatus> {
    store.transaction(TxKind::Read, |tx| {
        let root = root_id(tx, problem)?;
        let node = tx
            .node(root)?
            .ok_or_else(|| StoreError::Corrupt("root".into()))?;
        Ok(StoreStatus {
            root_pn: node.pn,
            root_dn: node.dn,
            root_state: node.state,
            counts: tx.counts()?,
        })
    })
}

/// How each worker works.
#[derive(Clone, Debug)]
pub struct WorkerConfig {
    /// The worker's table, MiB.
    pub memory_mb: usize,
    /// Budget of one job.
    pub job_nodes: u64,
    pub job_time: Duration,
    /// Stack of each worker thread (one frame per ply of the deepest line).
    pub stack_bytes: usize,
}

/// Plies from the root over which jobs grow to their full size.
const SMALL_JOB_PLIES: usize = 6;
/// The smallest job.
const MIN_JOB_NODES: u64 = 16_384;

impl WorkerConfig {
    /// The budget of a job `ply` plies from the root: jobs near the root are small, halving
    /// ply by ply, so that the first jobs split the top of the proof into the replies a proof
    /// must answer, which workers then share (the shared table keeps what the small jobs
    /// found, so going over the same ground again is cheap).
    pub fn job_nodes_at(&self, ply: usize) -> u64 {
        let shift = SMALL_JOB_PLIES.saturating_sub(ply) as u32;
        (self.job_nodes >> shift).max(MIN_JOB_NODES.min(self.job_nodes))
    }

    /// A claim lasts the longest a job can take, and a minute more.
    pub fn lease(&self) -> Duration {
        self.job_time + Duration::from_secs(60)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot allocate {mb} MiB for the workers' proof table (--memory): {reason}")]
    Alloc { mb: usize, reason: String },
}

impl WorkerError {
    fn alloc(mb: usize, e: AllocError) -> WorkerError {
        WorkerError::Alloc {
            mb,
            reason: e.reason,
        }
    }
}

/// This machine's name, for worker names.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "localhost".into())
}

/// `host:pid:index`: unique while the process lives.
pub fn worker_name(index: usize) -> String {
    format!("{}:{}:{index}", host_name(), std::process::id())
}

/// True for a worker of this machine whose process is gone.
fn is_dead_here(worker: &str) -> bool {
    let mut parts = worker.rsplitn(3, ':');
    let (_, Some(pid), Some(host)) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    host == host_name()
        && pid != std::process::id().to_string()
        && pid.parse::<u32>().is_ok()
        && !Path::new(&format!("/proc/{pid}")).exists()
}

/// Ends the claims of this machine's dead processes (their jobs are lost, not their leases'
/// time); returns how many.
pub fn reclaim_dead(store: &mut impl ProofStore) -> Result<usize> {
    store.transaction(TxKind::Update, |tx| {
        let mut released = 0;
        for c in tx.claims()? {
            if is_dead_here(&c.worker) {
                tx.release(c.node)?;
                released += 1;
            }
        }
        Ok(released)
    })
}

/// What one worker did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WorkerSummary {
    pub jobs: u64,
    pub nodes: u64,
}

/// One worker: claims, searches and writes back until the root is solved, `stop` is set, or
/// (with `until_idle`) there is nothing left to claim.
pub fn run_worker(
    store: &mut impl ProofStore,
    problem: &StoreProblem,
    config: &WorkerConfig,
    name: &str,
    table: Arc<ProofTable>,
    known: Known<'_>,
    stop: &AtomicBool,
) -> std::result::Result<WorkerSummary, WorkerError> {
    let mut search = JobSearch::new(problem.rule, problem.attacker(), table, known, Some(stop));
    let mut summary = WorkerSummary::default();
    let mut idle_since: Option<Instant> = None;
    while !stop.load(Ordering::Relaxed) {
        match claim(store, problem, name, config.lease())? {
            Claim::Done(_) => break,
            Claim::Busy => {
                // Another worker holds every frontier node: wait for its result, and take over
                // the claims of workers of this machine that died.
                if idle_since.is_none_or(|t| t.elapsed() >= Duration::from_secs(1)) {
                    reclaim_dead(store)?;
                    idle_since = Some(Instant::now());
                }
                thread::sleep(Duration::from_millis(50));
            }
            Claim::Job {
                node,
                path,
                thresholds,
            } => {
                idle_since = None;
                let (pos, history) = problem.replay(&path)?;
                let known =
                    store.transaction(TxKind::Read, |tx| tx.solved(&solved_key(&to_fen(&pos))))?;
                if known.is_some() {
                    write_back(store, node, Finding::Known, name)?;
                    continue;
                }
                let budget = (config.job_nodes_at(path.len()), config.job_time);
                let result = search.run(&pos, &history, budget, thresholds);
                summary.jobs += 1;
                summary.nodes += result.nodes;
                log::debug!(
                    "{name}: job on node {node} ({} plies): {} nodes, {}",
                    path.len(),
                    result.nodes,
                    match &result.outcome {
                        JobOutcome::Proved(_) => "proved",
                        JobOutcome::Disproved => "disproved",
                        JobOutcome::Open(_) => "open",
                        JobOutcome::Updated { .. } => "updated",
                        JobOutcome::Interrupted => "interrupted",
                    }
                );
                write_back(store, node, Finding::Job(&result), name)?;
            }
        }
    }
    Ok(summary)
}

/// Entries that cost at least this many nodes are kept as knowledge.
pub const KNOWLEDGE_MIN_WORK: u64 = 256;

/// The table a process's `threads` workers share (`memory_mb` MiB for each), warmed with the
/// knowledge the store keeps, and the checkpointer that knows what is already kept.
pub fn open_table(
    store: &mut impl ProofStore,
    config: &WorkerConfig,
    threads: usize,
) -> std::result::Result<(Arc<ProofTable>, Checkpointer), WorkerError> {
    let mb = config.memory_mb.saturating_mul(threads.max(1));
    let table = ProofTable::new(mb).map_err(|e| WorkerError::alloc(mb, e))?;
    let mut kept = Checkpointer::default();
    store.transaction(TxKind::Read, |tx| {
        tx.load_knowledge(&mut |e| {
            table.put(e.key, e.phi, e.delta, e.work, e.depth);
            kept.kept.insert(e.key, (e.phi, e.delta, e.work));
        })
    })?;
    Ok((Arc::new(table), kept))
}

/// Saves what the table learned at great cost (entries of `KNOWLEDGE_MIN_WORK` nodes or more),
/// so that a process that starts later starts warm. Only entries new or changed since the last
/// save are written, so a save costs what changed, not the size of the table.
#[derive(Debug, Default)]
pub struct Checkpointer {
    kept: std::collections::HashMap<u64, (Pn, Pn, u64)>,
}

impl Checkpointer {
    /// Table entries the store holds as knowledge (as far as this process knows).
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// Writes the new and changed entries; returns how many.
    pub fn save(&mut self, store: &mut impl ProofStore, table: &ProofTable) -> Result<usize> {
        let entries: Vec<_> = table
            .costly_entries(KNOWLEDGE_MIN_WORK)
            .into_iter()
            .filter(|e| {
                self.kept.get(&e.key).is_none_or(|&(phi, delta, work)| {
                    e.work > work || (e.work == work && (e.phi, e.delta) != (phi, delta))
                })
            })
            .collect();
        if entries.is_empty() {
            return Ok(0);
        }
        store.transaction(TxKind::Claim, |tx| tx.save_knowledge(&entries))?;
        for e in &entries {
            self.kept.insert(e.key, (e.phi, e.delta, e.work));
        }
        Ok(entries.len())
    }
}

/// Runs `threads` workers on a store, each with its own connection, until the root is solved
/// or `stop` is set; they share `table`. Returns the workers' summaries.
pub fn run_workers(
    location: &str,
    problem: &StoreProblem,
    config: &WorkerConfig,
    threads: usize,
    (tables, book): (Option<&Tablebases>, Option<&KnownWins>),
    stop: &AtomicBool,
    table: &Arc<ProofTable>,
) -> std::result::Result<Vec<WorkerSummary>, WorkerError> {
    let threads = threads.max(1);
    thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|index| {
                let table = Arc::clone(table);
                thread::Builder::new()
                    .name(format!("prover-{index}"))
                    .stack_size(config.stack_bytes)
                    .spawn_scoped(scope, move || {
                        let mut store = Store::open(location)?;
                        let name = worker_name(index);
                        let result = run_worker(
                            &mut store,
                            problem,
                            config,
                            &name,
                            table,
                            (tables.map(|tb| (tb, usize::MAX)), book),
                            stop,
                        );
                        if result.is_err() {
                            // The others stop too: a worker that fails fails the run.
                            stop.store(true, Ordering::Relaxed);
                        }
                        result
                    })
            })
            .collect();
        let mut summaries = Vec::new();
        let mut first_error = None;
        for handle in handles {
            match handle {
                Ok(h) => match h.join() {
                    Ok(Ok(summary)) => summaries.push(summary),
                    Ok(Err(e)) => {
                        first_error.get_or_insert(e);
                    }
                    Err(_) => {
                        first_error.get_or_insert(WorkerError::Store(StoreError::Corrupt(
                            "a worker thread panicked".into(),
                        )));
                    }
                },
                Err(e) => log::warn!("cannot start a worker thread: {e}"),
            }
        }
        match first_error {
            Some(e) => Err(e),
            None => Ok(summaries),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_follow_the_side_to_move() {
        let link = |pn, dn| Link {
            mv: "a2a3".into(),
            child: Some(1),
            pn,
            dn,
            state: NodeState::Open,
        };
        let links = [link(3, 5), link(2, 7)];
        assert_eq!(from_links(0, &links), (2, 12, NodeState::Inner));
        assert_eq!(from_links(1, &links), (5, 5, NodeState::Inner));
        let won = [link(0, PN_INFINITY), link(2, 7)];
        assert_eq!(from_links(0, &won).2, NodeState::Proved);
        assert_eq!(from_links(1, &won).2, NodeState::Inner);
    }

    #[test]
    fn solved_keys_keep_the_halfmove_clock_only() {
        assert_eq!(
            solved_key("8/8/p7/8/8/8/7P/8 w - - 3 41"),
            "8/8/p7/8/8/8/7P/8 w - - 3"
        );
    }

    #[test]
    fn knowledge_saved_from_one_table_warms_the_next() {
        let path = std::env::temp_dir().join(format!("syotti-knowledge-{}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let mut store = Store::open(path.to_str().unwrap()).unwrap();
        let problem =
            StoreProblem::new(crate::rules::START_FEN, &[], StalemateRule::default()).unwrap();
        init(&mut store, Some(&problem)).unwrap();
        let config = WorkerConfig {
            memory_mb: 1,
            job_nodes: 1000,
            job_time: Duration::from_secs(1),
            stack_bytes: 1 << 20,
        };
        let (table, mut saver) = open_table(&mut store, &config, 1).unwrap();
        assert!(saver.is_empty());
        table.put(5 << 7, 0, PN_INFINITY, KNOWLEDGE_MIN_WORK + 10, 9);
        table.put(6 << 7, 3, 4, KNOWLEDGE_MIN_WORK - 1, 0);
        assert_eq!(saver.save(&mut store, &table).unwrap(), 1);
        // Nothing changed: nothing is written again.
        assert_eq!(saver.save(&mut store, &table).unwrap(), 0);
        // A cheaper value found later (by this process or another) does not replace the
        // costlier one kept.
        table.put(5 << 7, 2, 2, KNOWLEDGE_MIN_WORK, 0);
        let (_, mut other) = open_table(&mut store, &config, 1).unwrap();
        other.kept.clear();
        assert_eq!(other.save(&mut store, &table).unwrap(), 1);
        let (warm, loaded) = open_table(&mut store, &config, 1).unwrap();
        assert_eq!(loaded.len(), 1);
        let e = warm.get(5 << 7).unwrap();
        assert_eq!(
            (e.phi, e.delta, e.work, e.depth),
            (0, PN_INFINITY, KNOWLEDGE_MIN_WORK + 10, 9)
        );
        assert!(warm.get(6 << 7).is_none());
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn dead_workers_are_recognised_only_on_this_machine() {
        let here = host_name();
        assert!(!is_dead_here(&worker_name(0)));
        assert!(is_dead_here(&format!("{here}:4000000000:0")));
        assert!(!is_dead_here("elsewhere.example:4000000000:0"));
        assert!(!is_dead_here("garbage"));
    }
}
