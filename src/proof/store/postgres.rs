//! The PostgreSQL backend: one proof, workers on any number of machines.
//!
//! Claims lock the one row they take with `SELECT ... FOR UPDATE SKIP LOCKED`, so workers
//! claiming at the same moment never wait for each other nor take the same node. Updates (a job's
//! result and the numbers carried up to the root) hold one transaction-scoped advisory lock, so
//! they are applied one after the other and always see every child written before. Leases are
//! timed by the server's clock, so the workers' clocks need not agree.

use std::time::Duration;

use postgres::{Client, NoTls};

use super::{
    count_states, count_to_db, entry_from_db, link_from_db, node_from_db, schema, ClaimRecord,
    JobRecord, Link, Node, NodeId, NodeState, ProofStore, Result, Solved, StoreCounts, StoreError,
    StoreMeta, StoreTx, TxKind, SCHEMA_VERSION,
};
use crate::proof::{table::Entry, Pn};

/// The server's clock, in seconds since the epoch.
const NOW: &str = "EXTRACT(EPOCH FROM clock_timestamp())::DOUBLE PRECISION";
/// The advisory lock that serialises updates (and the creation of the schema).
const UPDATE_LOCK: i64 = 0x5359_4f54_5449;
const SCHEMA_LOCK: i64 = 0x5359_4f54_5450;

pub struct PostgresStore {
    client: Client,
}

impl PostgresStore {
    pub fn open(url: &str) -> Result<PostgresStore> {
        let mut client = Client::connect(url, NoTls)?;
        // Two first runs at once must not both create the tables.
        client.execute("SELECT pg_advisory_lock($1)", &[&SCHEMA_LOCK])?;
        let created = client.batch_execute(&schema("BIGSERIAL PRIMARY KEY", "DOUBLE PRECISION"));
        client.execute("SELECT pg_advisory_unlock($1)", &[&SCHEMA_LOCK])?;
        created?;
        Ok(PostgresStore { client })
    }
}

impl ProofStore for PostgresStore {
    fn transaction<T>(
        &mut self,
        kind: TxKind,
        f: impl FnOnce(&mut dyn StoreTx) -> Result<T>,
    ) -> Result<T> {
        let mut tx = self.client.transaction()?;
        if kind == TxKind::Update {
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&UPDATE_LOCK])?;
        }
        let mut wrapped = PostgresTx { tx };
        let value = f(&mut wrapped)?;
        wrapped.tx.commit()?;
        Ok(value)
    }
}

struct PostgresTx<'a> {
    tx: postgres::Transaction<'a>,
}

fn db(value: Pn) -> i64 {
    i64::from(value)
}

fn ply_to_db(ply: u32) -> Result<i32> {
    i32::try_from(ply).map_err(|_| StoreError::Corrupt(format!("ply {ply}")))
}

fn to_node(r: &postgres::Row) -> Result<Node> {
    node_from_db(
        r.try_get(0)?,
        i64::from(r.try_get::<_, i32>(1)?),
        r.try_get(2)?,
        r.try_get(3)?,
        r.try_get(4)?,
        i64::from(r.try_get::<_, i16>(5)?),
    )
}

impl StoreTx for PostgresTx<'_> {
    fn meta(&mut self) -> Result<Option<StoreMeta>> {
        let row = self.tx.query_opt(
            "SELECT schema_version, start_fen, moves, rule FROM meta WHERE id = 1",
            &[],
        )?;
        let Some(row) = row else { return Ok(None) };
        let version: i64 = row.try_get(0)?;
        if version != SCHEMA_VERSION {
            return Err(StoreError::Mismatch(format!(
                "the store has schema version {version}; this build reads {SCHEMA_VERSION}"
            )));
        }
        Ok(Some(StoreMeta {
            start_fen: row.try_get(1)?,
            moves: row.try_get(2)?,
            rule: row.try_get(3)?,
        }))
    }

    fn put_meta(&mut self, meta: &StoreMeta) -> Result<()> {
        self.tx.execute(
            "INSERT INTO meta (id, schema_version, start_fen, moves, rule) VALUES (1, $1, $2, $3, $4)",
            &[&SCHEMA_VERSION, &meta.start_fen, &meta.moves, &meta.rule],
        )?;
        Ok(())
    }

    fn node(&mut self, id: NodeId) -> Result<Option<Node>> {
        let row = self.tx.query_opt(
            "SELECT id, ply, fen, pn, dn, state FROM nodes WHERE id = $1",
            &[&id],
        )?;
        row.as_ref().map(to_node).transpose()
    }

    fn find_node(&mut self, ply: u32, fen: &str) -> Result<Option<NodeId>> {
        let row = self.tx.query_opt(
            "SELECT id FROM nodes WHERE ply = $1 AND fen = $2",
            &[&ply_to_db(ply)?, &fen],
        )?;
        Ok(row.map(|r| r.try_get(0)).transpose()?)
    }

    fn insert_node(
        &mut self,
        ply: u32,
        fen: &str,
        pn: Pn,
        dn: Pn,
        state: NodeState,
    ) -> Result<NodeId> {
        let row = self.tx.query_one(
            "INSERT INTO nodes (ply, fen, pn, dn, state) VALUES ($1, $2, $3, $4, $5) RETURNING id",
            &[&ply_to_db(ply)?, &fen, &db(pn), &db(dn), &(state as i16)],
        )?;
        Ok(row.try_get(0)?)
    }

    fn set_node(&mut self, id: NodeId, pn: Pn, dn: Pn, state: NodeState) -> Result<()> {
        self.tx.execute(
            "UPDATE nodes SET pn = $2, dn = $3, state = $4, claimed_by = NULL, lease_until = NULL \
             WHERE id = $1",
            &[&id, &db(pn), &db(dn), &(state as i16)],
        )?;
        Ok(())
    }

    fn links(&mut self, parent: NodeId) -> Result<Vec<Link>> {
        let rows = self.tx.query(
            "SELECT l.mv, l.child, COALESCE(n.pn, l.pn), COALESCE(n.dn, l.dn), n.state \
             FROM links l LEFT JOIN nodes n ON n.id = l.child WHERE l.parent = $1 ORDER BY l.mv",
            &[&parent],
        )?;
        rows.iter()
            .map(|r| {
                link_from_db(
                    r.try_get(0)?,
                    r.try_get(1)?,
                    r.try_get(2)?,
                    r.try_get(3)?,
                    r.try_get::<_, Option<i16>>(4)?.map(i64::from),
                )
            })
            .collect()
    }

    fn insert_link(
        &mut self,
        parent: NodeId,
        mv: &str,
        child: Option<NodeId>,
        pn: Pn,
        dn: Pn,
    ) -> Result<()> {
        self.tx.execute(
            "INSERT INTO links (parent, mv, child, pn, dn) VALUES ($1, $2, $3, $4, $5)",
            &[&parent, &mv, &child, &db(pn), &db(dn)],
        )?;
        Ok(())
    }

    fn parents(&mut self, child: NodeId) -> Result<Vec<NodeId>> {
        let rows = self.tx.query(
            "SELECT DISTINCT parent FROM links WHERE child = $1",
            &[&child],
        )?;
        rows.iter()
            .map(|r| Ok(r.try_get(0)?))
            .collect::<Result<Vec<NodeId>>>()
    }

    fn try_claim(&mut self, id: NodeId, worker: &str, lease: Duration) -> Result<bool> {
        let changed = self.tx.execute(
            &format!(
                "UPDATE nodes SET claimed_by = $2, lease_until = {NOW} + $3 \
                 WHERE id = (SELECT id FROM nodes WHERE id = $1 AND state = 0 \
                 AND (claimed_by IS NULL OR lease_until < {NOW}) FOR UPDATE SKIP LOCKED)"
            ),
            &[&id, &worker, &lease.as_secs_f64()],
        )?;
        Ok(changed == 1)
    }

    fn release(&mut self, id: NodeId) -> Result<()> {
        self.tx.execute(
            "UPDATE nodes SET claimed_by = NULL, lease_until = NULL WHERE id = $1",
            &[&id],
        )?;
        Ok(())
    }

    fn claims(&mut self) -> Result<Vec<ClaimRecord>> {
        let rows = self.tx.query(
            "SELECT id, claimed_by FROM nodes WHERE claimed_by IS NOT NULL",
            &[],
        )?;
        rows.iter()
            .map(|r| {
                Ok(ClaimRecord {
                    node: r.try_get(0)?,
                    worker: r.try_get(1)?,
                })
            })
            .collect()
    }

    fn solved(&mut self, key: &str) -> Result<Option<Solved>> {
        let row = self.tx.query_opt(
            "SELECT attacker_wins, proof, node FROM solved WHERE key = $1",
            &[&key],
        )?;
        row.map(|r| {
            Ok(Solved {
                attacker_wins: r.try_get(0)?,
                proof: r.try_get(1)?,
                node: r.try_get(2)?,
            })
        })
        .transpose()
    }

    fn put_solved(&mut self, key: &str, solved: &Solved) -> Result<()> {
        self.tx.execute(
            "INSERT INTO solved (key, attacker_wins, proof, node) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (key) DO NOTHING",
            &[&key, &solved.attacker_wins, &solved.proof, &solved.node],
        )?;
        Ok(())
    }

    fn save_knowledge(&mut self, entries: &[Entry]) -> Result<()> {
        let statement = self.tx.prepare(
            "INSERT INTO knowledge (key, phi, delta, work, depth) VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (key) DO UPDATE SET phi = excluded.phi, delta = excluded.delta, \
             work = excluded.work, depth = excluded.depth WHERE excluded.work >= knowledge.work",
        )?;
        for e in entries {
            self.tx.execute(
                &statement,
                &[
                    &(e.key as i64),
                    &db(e.phi),
                    &db(e.delta),
                    &count_to_db(e.work),
                    &i32::from(e.depth),
                ],
            )?;
        }
        Ok(())
    }

    fn load_knowledge(&mut self, put: &mut dyn FnMut(Entry)) -> Result<()> {
        for r in self
            .tx
            .query("SELECT key, phi, delta, work, depth FROM knowledge", &[])?
        {
            put(entry_from_db(
                r.try_get(0)?,
                r.try_get(1)?,
                r.try_get(2)?,
                r.try_get(3)?,
                i64::from(r.try_get::<_, i32>(4)?),
            )?);
        }
        Ok(())
    }

    fn record_job(&mut self, job: &JobRecord) -> Result<()> {
        self.tx.execute(
            &format!(
                "INSERT INTO jobs (node, worker, nodes, millis, outcome, finished_at) \
                 VALUES ($1, $2, $3, $4, $5, {NOW})"
            ),
            &[
                &job.node,
                &job.worker,
                &count_to_db(job.nodes),
                &count_to_db(job.millis),
                &job.outcome,
            ],
        )?;
        Ok(())
    }

    fn counts(&mut self) -> Result<StoreCounts> {
        let mut counts = StoreCounts::default();
        for row in self
            .tx
            .query("SELECT state, COUNT(*) FROM nodes GROUP BY state", &[])?
        {
            count_states(
                &mut counts,
                i64::from(row.try_get::<_, i16>(0)?),
                row.try_get(1)?,
            );
        }
        let claimed: i64 = self
            .tx
            .query_one(
                &format!(
                    "SELECT COUNT(*) FROM nodes WHERE claimed_by IS NOT NULL AND lease_until >= {NOW}"
                ),
                &[],
            )?
            .try_get(0)?;
        counts.claimed = claimed as u64;
        let row = self.tx.query_one(
            &format!(
                "SELECT COUNT(*), COALESCE(SUM(nodes), 0)::BIGINT, COALESCE(SUM(millis), 0)::BIGINT, \
                 {NOW} - MIN(finished_at), \
                 COALESCE(SUM(nodes) FILTER (WHERE finished_at >= {NOW} - 600), 0)::BIGINT FROM jobs"
            ),
            &[],
        )?;
        counts.jobs = row.try_get::<_, i64>(0)? as u64;
        counts.job_nodes = row.try_get::<_, i64>(1)? as u64;
        counts.job_seconds = row.try_get::<_, i64>(2)? as f64 / 1000.0;
        counts.span_seconds = row.try_get::<_, Option<f64>>(3)?.unwrap_or(0.0).max(0.0);
        counts.recent_nodes = row.try_get::<_, i64>(4)? as u64;
        let workers: i64 = self
            .tx
            .query_one("SELECT COUNT(DISTINCT worker) FROM jobs", &[])?
            .try_get(0)?;
        counts.workers = workers as u64;
        let knowledge: i64 = self
            .tx
            .query_one("SELECT COUNT(*) FROM knowledge", &[])?
            .try_get(0)?;
        counts.knowledge = knowledge as u64;
        let solved: i64 = self
            .tx
            .query_one("SELECT COUNT(*) FROM solved", &[])?
            .try_get(0)?;
        counts.solved = solved as u64;
        Ok(counts)
    }
}
