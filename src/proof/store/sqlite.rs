//! The embedded backend: one SQLite file (the library is bundled into the binary).
//!
//! Write-ahead logging with full synchronisation: a committed job survives `kill -9` and power
//! loss. Every transaction that writes starts `IMMEDIATE`, so writers queue on the file's lock
//! (threads and processes alike) and a claim can never be taken twice.

use std::time::Duration;

use rusqlite::{params, Connection, OptionalExtension, TransactionBehavior};

use super::{
    count_states, count_to_db, entry_from_db, link_from_db, node_from_db, schema, ClaimRecord,
    JobRecord, Link, Node, NodeId, NodeState, ProofStore, Result, Solved, StoreCounts, StoreMeta,
    StoreTx, TxKind, SCHEMA_VERSION,
};
use crate::proof::{table::Entry, Pn};

/// The database's clock, in seconds since the epoch.
const NOW: &str = "((julianday('now') - 2440587.5) * 86400.0)";

pub struct SqliteStore {
    conn: Connection,
}

impl SqliteStore {
    pub fn open(path: &str) -> Result<SqliteStore> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(600))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.execute_batch(&schema(
            "INTEGER PRIMARY KEY AUTOINCREMENT",
            "DOUBLE PRECISION",
        ))?;
        Ok(SqliteStore { conn })
    }
}

impl ProofStore for SqliteStore {
    fn transaction<T>(
        &mut self,
        kind: TxKind,
        f: impl FnOnce(&mut dyn StoreTx) -> Result<T>,
    ) -> Result<T> {
        let behavior = match kind {
            TxKind::Read => TransactionBehavior::Deferred,
            TxKind::Claim | TxKind::Update => TransactionBehavior::Immediate,
        };
        let tx = self.conn.transaction_with_behavior(behavior)?;
        let mut wrapped = SqliteTx { tx };
        let value = f(&mut wrapped)?;
        wrapped.tx.commit()?;
        Ok(value)
    }
}

struct SqliteTx<'a> {
    tx: rusqlite::Transaction<'a>,
}

fn node_from_row(r: &rusqlite::Row) -> rusqlite::Result<(NodeId, i64, String, i64, i64, i64)> {
    Ok((
        r.get(0)?,
        r.get(1)?,
        r.get(2)?,
        r.get(3)?,
        r.get(4)?,
        r.get(5)?,
    ))
}

impl StoreTx for SqliteTx<'_> {
    fn meta(&mut self) -> Result<Option<StoreMeta>> {
        let row = self
            .tx
            .query_row(
                "SELECT schema_version, start_fen, moves, rule FROM meta WHERE id = 1",
                [],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                    ))
                },
            )
            .optional()?;
        match row {
            None => Ok(None),
            Some((version, ..)) if version != SCHEMA_VERSION => {
                Err(super::StoreError::Mismatch(format!(
                    "the store has schema version {version}; this build reads {SCHEMA_VERSION}"
                )))
            }
            Some((_, start_fen, moves, rule)) => Ok(Some(StoreMeta {
                start_fen,
                moves,
                rule,
            })),
        }
    }

    fn put_meta(&mut self, meta: &StoreMeta) -> Result<()> {
        self.tx.execute(
            "INSERT INTO meta (id, schema_version, start_fen, moves, rule) VALUES (1, ?1, ?2, ?3, ?4)",
            params![SCHEMA_VERSION, meta.start_fen, meta.moves, meta.rule],
        )?;
        Ok(())
    }

    fn node(&mut self, id: NodeId) -> Result<Option<Node>> {
        let raw = self
            .tx
            .prepare_cached("SELECT id, ply, fen, pn, dn, state FROM nodes WHERE id = ?1")?
            .query_row([id], node_from_row)
            .optional()?;
        raw.map(|(id, ply, fen, pn, dn, state)| node_from_db(id, ply, fen, pn, dn, state))
            .transpose()
    }

    fn find_node(&mut self, ply: u32, fen: &str) -> Result<Option<NodeId>> {
        Ok(self
            .tx
            .prepare_cached("SELECT id FROM nodes WHERE ply = ?1 AND fen = ?2")?
            .query_row(params![ply, fen], |r| r.get(0))
            .optional()?)
    }

    fn insert_node(
        &mut self,
        ply: u32,
        fen: &str,
        pn: Pn,
        dn: Pn,
        state: NodeState,
    ) -> Result<NodeId> {
        self.tx
            .prepare_cached(
                "INSERT INTO nodes (ply, fen, pn, dn, state) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![ply, fen, pn, dn, state as i64])?;
        Ok(self.tx.last_insert_rowid())
    }

    fn set_node(&mut self, id: NodeId, pn: Pn, dn: Pn, state: NodeState) -> Result<()> {
        self.tx
            .prepare_cached(
                "UPDATE nodes SET pn = ?2, dn = ?3, state = ?4, claimed_by = NULL, \
                 lease_until = NULL WHERE id = ?1",
            )?
            .execute(params![id, pn, dn, state as i64])?;
        Ok(())
    }

    fn links(&mut self, parent: NodeId) -> Result<Vec<Link>> {
        let mut stmt = self.tx.prepare_cached(
            "SELECT l.mv, l.child, COALESCE(n.pn, l.pn), COALESCE(n.dn, l.dn), n.state \
             FROM links l LEFT JOIN nodes n ON n.id = l.child WHERE l.parent = ?1 ORDER BY l.mv",
        )?;
        let rows = stmt.query_map([parent], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })?;
        let mut links = Vec::new();
        for row in rows {
            let (mv, child, pn, dn, state) = row?;
            links.push(link_from_db(mv, child, pn, dn, state)?);
        }
        Ok(links)
    }

    fn insert_link(
        &mut self,
        parent: NodeId,
        mv: &str,
        child: Option<NodeId>,
        pn: Pn,
        dn: Pn,
    ) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO links (parent, mv, child, pn, dn) VALUES (?1, ?2, ?3, ?4, ?5)",
            )?
            .execute(params![parent, mv, child, pn, dn])?;
        Ok(())
    }

    fn parents(&mut self, child: NodeId) -> Result<Vec<NodeId>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT DISTINCT parent FROM links WHERE child = ?1")?;
        let rows = stmt.query_map([child], |r| r.get(0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<NodeId>>>()?)
    }

    fn try_claim(&mut self, id: NodeId, worker: &str, lease: Duration) -> Result<bool> {
        let changed = self.tx.execute(
            &format!(
                "UPDATE nodes SET claimed_by = ?2, lease_until = {NOW} + ?3 \
                 WHERE id = ?1 AND state = 0 AND (claimed_by IS NULL OR lease_until < {NOW})"
            ),
            params![id, worker, lease.as_secs_f64()],
        )?;
        Ok(changed == 1)
    }

    fn release(&mut self, id: NodeId) -> Result<()> {
        self.tx.execute(
            "UPDATE nodes SET claimed_by = NULL, lease_until = NULL WHERE id = ?1",
            [id],
        )?;
        Ok(())
    }

    fn claims(&mut self) -> Result<Vec<ClaimRecord>> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT id, claimed_by FROM nodes WHERE claimed_by IS NOT NULL")?;
        let rows = stmt.query_map([], |r| {
            Ok(ClaimRecord {
                node: r.get(0)?,
                worker: r.get(1)?,
            })
        })?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    }

    fn solved(&mut self, key: &str) -> Result<Option<Solved>> {
        Ok(self
            .tx
            .prepare_cached("SELECT attacker_wins, proof, node FROM solved WHERE key = ?1")?
            .query_row([key], |r| {
                Ok(Solved {
                    attacker_wins: r.get(0)?,
                    proof: r.get(1)?,
                    node: r.get(2)?,
                })
            })
            .optional()?)
    }

    fn put_solved(&mut self, key: &str, solved: &Solved) -> Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO solved (key, attacker_wins, proof, node) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (key) DO NOTHING",
            )?
            .execute(params![
                key,
                solved.attacker_wins,
                solved.proof,
                solved.node
            ])?;
        Ok(())
    }

    fn save_knowledge(&mut self, entries: &[Entry]) -> Result<()> {
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO knowledge (key, phi, delta, work, depth) VALUES (?1, ?2, ?3, ?4, ?5) \
             ON CONFLICT (key) DO UPDATE SET phi = excluded.phi, delta = excluded.delta, \
             work = excluded.work, depth = excluded.depth WHERE excluded.work >= knowledge.work",
        )?;
        for e in entries {
            stmt.execute(params![
                e.key as i64,
                e.phi,
                e.delta,
                count_to_db(e.work),
                e.depth
            ])?;
        }
        Ok(())
    }

    fn load_knowledge(&mut self, put: &mut dyn FnMut(Entry)) -> Result<()> {
        let mut stmt = self
            .tx
            .prepare_cached("SELECT key, phi, delta, work, depth FROM knowledge")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            put(entry_from_db(
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
            )?);
        }
        Ok(())
    }

    fn record_job(&mut self, job: &JobRecord) -> Result<()> {
        self.tx.execute(
            &format!(
                "INSERT INTO jobs (node, worker, nodes, millis, outcome, finished_at) \
                 VALUES (?1, ?2, ?3, ?4, ?5, {NOW})"
            ),
            params![
                job.node,
                job.worker,
                count_to_db(job.nodes),
                count_to_db(job.millis),
                job.outcome
            ],
        )?;
        Ok(())
    }

    fn counts(&mut self) -> Result<StoreCounts> {
        let mut counts = StoreCounts::default();
        {
            let mut stmt = self
                .tx
                .prepare_cached("SELECT state, COUNT(*) FROM nodes GROUP BY state")?;
            let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
            for row in rows {
                let (state, n) = row?;
                count_states(&mut counts, state, n);
            }
        }
        counts.claimed = self.tx.query_row(
            &format!(
                "SELECT COUNT(*) FROM nodes WHERE claimed_by IS NOT NULL AND lease_until >= {NOW}"
            ),
            [],
            |r| r.get::<_, i64>(0),
        )? as u64;
        let (jobs, nodes, millis, first): (i64, i64, i64, Option<f64>) = self.tx.query_row(
            "SELECT COUNT(*), COALESCE(SUM(nodes), 0), COALESCE(SUM(millis), 0), MIN(finished_at) \
             FROM jobs",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?;
        counts.jobs = jobs as u64;
        counts.job_nodes = nodes as u64;
        counts.job_seconds = millis as f64 / 1000.0;
        let now: f64 = self
            .tx
            .query_row(&format!("SELECT {NOW}"), [], |r| r.get(0))?;
        counts.span_seconds = first.map_or(0.0, |f| (now - f).max(0.0));
        counts.recent_nodes = self.tx.query_row(
            &format!("SELECT COALESCE(SUM(nodes), 0) FROM jobs WHERE finished_at >= {NOW} - 600"),
            [],
            |r| r.get::<_, i64>(0),
        )? as u64;
        counts.workers = self
            .tx
            .query_row("SELECT COUNT(DISTINCT worker) FROM jobs", [], |r| {
                r.get::<_, i64>(0)
            })? as u64;
        counts.knowledge = self
            .tx
            .query_row("SELECT COUNT(*) FROM knowledge", [], |r| r.get::<_, i64>(0))?
            as u64;
        counts.solved = self
            .tx
            .query_row("SELECT COUNT(*) FROM solved", [], |r| r.get::<_, i64>(0))?
            as u64;
        Ok(counts)
    }
}
