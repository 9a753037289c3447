//! The proof store: proofs that outlive a process, use every core and span machines.
//!
//! A job-level proof-number search (after Wu et al.'s job-level proof-number search): the store
//! keeps the top of the proof as a best-first proof-number tree, and workers take turns growing
//! it. A worker claims the most-proving frontier position, runs df-pn on it within a budget
//! (`job::JobSearch`), and writes back in one transaction either the result (with the proof
//! when the attacker wins) or the position's children with the numbers its search found; the
//! numbers are then brought up to date on every path to the root. Everything a worker learned is
//! committed job by job, so a run killed in any way loses at most the jobs under way, and the
//! same command resumes it.
//!
//! The tree is keyed by (ply, position): the same position at the same distance from the root
//! is one node (transpositions merge), and since every edge goes one ply deeper the graph has no
//! cycles, so updates always end. Repetitions are a property of paths: a child that repeats a
//! position of the path it was found on is a fixed draw on that edge. Solved positions are also
//! kept by position (with the halfmove clock), so a position solved anywhere is never searched
//! again, by any worker.
//!
//! The store proves that the side to move at its root wins ("the attacker"). Numbers are the
//! attacker's proof and disproof numbers: at a node where the attacker moves, pn = min, dn = sum
//! over the children; where the defender moves, pn = sum, dn = min.
//!
//! Two backends behind one trait (`ProofStore`): SQLite in one file (bundled: nothing to
//! install), for one machine with any number of worker threads or processes; and PostgreSQL,
//! for workers on many machines. Claims are leases: a worker that dies loses only its current
//! job, which is claimed again when the lease ends (at once, when the dead worker was a process
//! of the same machine). What the workers' table learned beyond the tree (proof and disproof
//! numbers of positions that cost much work) is saved now and then as "knowledge" and loaded
//! again by every process that starts, so a resumed run, or a new machine, starts warm.
//! Soundness does not rest on the store: the whole proof is put together
//! from the tree and the jobs' proofs and verified by `verify` before it is reported.

pub mod extract;
mod postgres;
pub mod search;
pub mod snapshot;
mod sqlite;

use std::time::Duration;

use thiserror::Error;

use super::Pn;

pub use extract::{extract, verified_text};
pub use search::{status, StoreStatus};

/// Version of the schema: a store of another version is refused, never misread.
pub const SCHEMA_VERSION: i64 = 1;

#[derive(Debug, Error)]
pub enum StoreError {
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("PostgreSQL: {0}")]
    Postgres(#[from] ::postgres::Error),
    #[error("{0}")]
    Mismatch(String),
    #[error("the store is damaged: {0}")]
    Corrupt(String),
}

pub type Result<T> = std::result::Result<T, StoreError>;

pub type NodeId = i64;

/// Where a node of the store's tree stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NodeState {
    /// A frontier position: the next job on it grows or solves it.
    Open = 0,
    /// Expanded: its numbers come from its children.
    Inner = 1,
    /// The attacker wins here.
    Proved = 2,
    /// The attacker does not win here.
    Disproved = 3,
}

impl NodeState {
    pub fn from_code(code: i64) -> Result<NodeState> {
        Ok(match code {
            0 => NodeState::Open,
            1 => NodeState::Inner,
            2 => NodeState::Proved,
            3 => NodeState::Disproved,
            other => return Err(StoreError::Corrupt(format!("node state {other}"))),
        })
    }

    pub fn solved(self) -> bool {
        matches!(self, NodeState::Proved | NodeState::Disproved)
    }
}

/// What the store proves: the position (a start FEN and moves played from it) and the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoreMeta {
    pub start_fen: String,
    /// Moves from the start, UCI, space-separated.
    pub moves: String,
    /// Stalemate convention, by name.
    pub rule: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Node {
    pub id: NodeId,
    pub ply: u32,
    /// Full FEN.
    pub fen: String,
    pub pn: Pn,
    pub dn: Pn,
    pub state: NodeState,
}

/// An edge of the tree: a move to a child node, or to a position whose value is fixed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Link {
    pub mv: String,
    pub child: Option<NodeId>,
    /// The child's numbers (the fixed ones when there is no child node).
    pub pn: Pn,
    pub dn: Pn,
    /// The child's state (`Proved`/`Disproved` for a fixed value).
    pub state: NodeState,
}

/// A solved position, by its `solved_key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Solved {
    pub attacker_wins: bool,
    /// The job's proof file (wins found by a job).
    pub proof: Option<String>,
    /// The store node whose subtree proves it (wins found by the tree itself).
    pub node: Option<NodeId>,
}

/// A job done, for the record and the status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JobRecord {
    pub node: NodeId,
    pub worker: String,
    pub nodes: u64,
    pub millis: u64,
    pub outcome: String,
}

/// A claim held by a worker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClaimRecord {
    pub node: NodeId,
    pub worker: String,
}

/// Counts for the status display.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StoreCounts {
    /// Tree nodes by state: open, inner, proved, disproved.
    pub by_state: [u64; 4],
    pub claimed: u64,
    pub jobs: u64,
    /// Distinct workers that recorded jobs.
    pub workers: u64,
    pub job_nodes: u64,
    pub job_seconds: f64,
    pub solved: u64,
    /// Table entries kept for resuming.
    pub knowledge: u64,
    /// Seconds since the first job was recorded, by the store's clock.
    pub span_seconds: f64,
    /// Nodes of the jobs recorded in the last ten minutes.
    pub recent_nodes: u64,
}

/// What a transaction is for: claims may run beside each other; updates are serialised, so that
/// the numbers brought up to the root always see every child written before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxKind {
    Read,
    Claim,
    Update,
}

/// The operations of one transaction on a store.
pub trait StoreTx {
    fn meta(&mut self) -> Result<Option<StoreMeta>>;
    fn put_meta(&mut self, meta: &StoreMeta) -> Result<()>;
    fn node(&mut self, id: NodeId) -> Result<Option<Node>>;
    fn find_node(&mut self, ply: u32, fen: &str) -> Result<Option<NodeId>>;
    fn insert_node(
        &mut self,
        ply: u32,
        fen: &str,
        pn: Pn,
        dn: Pn,
        state: NodeState,
    ) -> Result<NodeId>;
    /// Sets a node's numbers and state, and ends any claim on it.
    fn set_node(&mut self, id: NodeId, pn: Pn, dn: Pn, state: NodeState) -> Result<()>;
    /// The node's edges, with the children's current numbers.
    fn links(&mut self, parent: NodeId) -> Result<Vec<Link>>;
    fn insert_link(
        &mut self,
        parent: NodeId,
        mv: &str,
        child: Option<NodeId>,
        pn: Pn,
        dn: Pn,
    ) -> Result<()>;
    fn parents(&mut self, child: NodeId) -> Result<Vec<NodeId>>;
    /// Claims an open node for `lease` unless another live claim holds it (or another
    /// transaction is claiming it right now); true when claimed.
    fn try_claim(&mut self, id: NodeId, worker: &str, lease: Duration) -> Result<bool>;
    /// Ends a claim (the node stays open).
    fn release(&mut self, id: NodeId) -> Result<()>;
    fn claims(&mut self) -> Result<Vec<ClaimRecord>>;
    fn solved(&mut self, key: &str) -> Result<Option<Solved>>;
    fn put_solved(&mut self, key: &str, solved: &Solved) -> Result<()>;
    /// Keeps table entries (the larger `work` wins for a key already kept).
    fn save_knowledge(&mut self, entries: &[super::table::Entry]) -> Result<()>;
    /// Hands every kept table entry to `put`.
    fn load_knowledge(&mut self, put: &mut dyn FnMut(super::table::Entry)) -> Result<()>;
    fn record_job(&mut self, job: &JobRecord) -> Result<()>;
    fn counts(&mut self) -> Result<StoreCounts>;
}

/// A proof store: runs closures in transactions.
pub trait ProofStore {
    /// Runs `f` in one transaction, committed when it returns `Ok`, rolled back otherwise.
    fn transaction<T>(
        &mut self,
        kind: TxKind,
        f: impl FnOnce(&mut dyn StoreTx) -> Result<T>,
    ) -> Result<T>;
}

/// A store opened from a location: a PostgreSQL URL or a file path.
pub enum Store {
    Sqlite(sqlite::SqliteStore),
    Postgres(postgres::PostgresStore),
}

impl Store {
    /// `postgres://...` or `postgresql://...` opens PostgreSQL; anything else is a SQLite file
    /// (created if missing). The schema is created on first use.
    pub fn open(location: &str) -> Result<Store> {
        if is_postgres(location) {
            Ok(Store::Postgres(postgres::PostgresStore::open(location)?))
        } else {
            Ok(Store::Sqlite(sqlite::SqliteStore::open(location)?))
        }
    }

    pub fn backend(&self) -> &'static str {
        match self {
            Store::Sqlite(_) => "SQLite",
            Store::Postgres(_) => "PostgreSQL",
        }
    }
}

pub fn is_postgres(location: &str) -> bool {
    location.starts_with("postgres://") || location.starts_with("postgresql://")
}

impl ProofStore for Store {
    fn transaction<T>(
        &mut self,
        kind: TxKind,
        f: impl FnOnce(&mut dyn StoreTx) -> Result<T>,
    ) -> Result<T> {
        match self {
            Store::Sqlite(s) => s.transaction(kind, f),
            Store::Postgres(s) => s.transaction(kind, f),
        }
    }
}

/// Numbers are kept as 64-bit integers in the databases.
fn pn_from_db(value: i64) -> Result<Pn> {
    Pn::try_from(value)
        .ok()
        .filter(|&v| v <= super::PN_INFINITY)
        .ok_or_else(|| StoreError::Corrupt(format!("proof number {value}")))
}

/// A count for a 64-bit column (saturating).
fn count_to_db(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn ply_from_db(ply: i64) -> Result<u32> {
    u32::try_from(ply).map_err(|_| StoreError::Corrupt(format!("ply {ply}")))
}

/// A node from its columns (`id, ply, fen, pn, dn, state`), as both backends read them.
fn node_from_db(id: NodeId, ply: i64, fen: String, pn: i64, dn: i64, state: i64) -> Result<Node> {
    Ok(Node {
        id,
        ply: ply_from_db(ply)?,
        fen,
        pn: pn_from_db(pn)?,
        dn: pn_from_db(dn)?,
        state: NodeState::from_code(state)?,
    })
}

/// An edge from its columns: the child's numbers and state when there is a child node, the
/// edge's fixed numbers (and the state they say) otherwise.
fn link_from_db(
    mv: String,
    child: Option<NodeId>,
    pn: i64,
    dn: i64,
    child_state: Option<i64>,
) -> Result<Link> {
    let (pn, dn) = (pn_from_db(pn)?, pn_from_db(dn)?);
    let state = match child_state {
        Some(code) => NodeState::from_code(code)?,
        None => state_of_link(pn, dn),
    };
    Ok(Link {
        mv,
        child,
        pn,
        dn,
        state,
    })
}

/// A table entry kept as knowledge, from its columns.
fn entry_from_db(
    key: i64,
    phi: i64,
    delta: i64,
    work: i64,
    depth: i64,
) -> Result<super::table::Entry> {
    Ok(super::table::Entry {
        key: key as u64,
        phi: pn_from_db(phi)?,
        delta: pn_from_db(delta)?,
        work: work.max(0) as u64,
        depth: depth.clamp(0, i64::from(u16::MAX)) as u16,
    })
}

/// Adds `(state, count)` rows to the counts of nodes by state.
fn count_states(counts: &mut StoreCounts, state: i64, n: i64) {
    if let Some(slot) = usize::try_from(state)
        .ok()
        .and_then(|s| counts.by_state.get_mut(s))
    {
        *slot = n.max(0) as u64;
    }
}

fn state_of_link(pn: Pn, dn: Pn) -> NodeState {
    if pn == 0 {
        NodeState::Proved
    } else if dn == 0 {
        NodeState::Disproved
    } else {
        NodeState::Open
    }
}

/// The schema, the same for both backends but for the types of keys and times (documented in
/// the README). Times are seconds since the epoch by the database's own clock.
fn schema(serial: &str, real: &str) -> String {
    format!(
        "CREATE TABLE IF NOT EXISTS meta (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            schema_version BIGINT NOT NULL,
            start_fen TEXT NOT NULL,
            moves TEXT NOT NULL,
            rule TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS nodes (
            id {serial},
            ply INTEGER NOT NULL,
            fen TEXT NOT NULL,
            pn BIGINT NOT NULL,
            dn BIGINT NOT NULL,
            state SMALLINT NOT NULL,
            claimed_by TEXT,
            lease_until {real},
            UNIQUE (ply, fen)
        );
        CREATE INDEX IF NOT EXISTS nodes_claimed ON nodes (claimed_by) WHERE claimed_by IS NOT NULL;
        CREATE TABLE IF NOT EXISTS links (
            parent BIGINT NOT NULL REFERENCES nodes (id),
            mv TEXT NOT NULL,
            child BIGINT REFERENCES nodes (id),
            pn BIGINT NOT NULL,
            dn BIGINT NOT NULL,
            PRIMARY KEY (parent, mv)
        );
        CREATE INDEX IF NOT EXISTS links_child ON links (child);
        CREATE TABLE IF NOT EXISTS solved (
            key TEXT PRIMARY KEY,
            attacker_wins BOOLEAN NOT NULL,
            proof TEXT,
            node BIGINT
        );
        CREATE TABLE IF NOT EXISTS knowledge (
            key BIGINT PRIMARY KEY,
            phi BIGINT NOT NULL,
            delta BIGINT NOT NULL,
            work BIGINT NOT NULL,
            depth INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS jobs (
            id {serial},
            node BIGINT NOT NULL,
            worker TEXT NOT NULL,
            nodes BIGINT NOT NULL,
            millis BIGINT NOT NULL,
            outcome TEXT NOT NULL,
            finished_at {real} NOT NULL
        );"
    )
}
