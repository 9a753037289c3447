//! Snapshots: a store's progress in one small file, to commit and to resume from on any machine.
//!
//! A store lives on one machine (a SQLite file) or one server, and neither outlives the day. A
//! snapshot carries what the store learned to the next run: the open part of its tree (every
//! node reachable from the root without passing through a solved one, with its numbers and its
//! edges), the solved positions at the border of that part, and the most costly of the entries
//! the workers' tables learned ("knowledge"). Proofs are not in the snapshot: `export` hands the
//! proof of each proved border position to the caller, who verifies it and adds it to a book
//! (`book/progress.book`); `import` takes each proved position's proof back from the book, and a
//! position the book does not prove is open again (its next job proves it anew). So the snapshot
//! is small, every proof that lands is verified, and nothing is trusted that was not.
//!
//! Format: gzip-compressed text, one record a line:
//!
//! ```text
//! syotti-snapshot 1
//! start FEN | moves UCI... | stalemate RULE
//! n PLY PN DN STATE FEN            a node (numbered from 0 in order; node 0 is the root)
//! l PARENT MOVE CHILD|- PN DN      an edge (child "-": fixed by the rules or the tables)
//! k KEY PHI DELTA WORK DEPTH       a table entry (KEY in hex)
//! ```
//!
//! STATE is 0 open, 2 proved, 3 disproved (an inner node is written as open: its numbers come
//! back from its edges when it is next updated).

use std::{
    collections::{HashMap, VecDeque},
    io::{BufRead, BufReader, Read, Write},
};

use flate2::{read::GzDecoder, write::GzEncoder, Compression};
use shakmaty::Color;

use super::{
    extract::proof_below,
    search::{propagate, solved_key, StoreProblem},
    NodeId, NodeState, ProofStore, Result, Solved, StoreError, StoreMeta, TxKind,
};
use crate::{
    proof::{known::KnownWins, table::Entry, tree::ProofTree, Pn},
    rules::notation,
    tablebase::Tablebases,
};

const HEADER: &str = "syotti-snapshot 1";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapNode {
    pub ply: u32,
    pub fen: String,
    pub pn: Pn,
    pub dn: Pn,
    pub state: NodeState,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapLink {
    pub parent: usize,
    pub mv: String,
    pub child: Option<usize>,
    pub pn: Pn,
    pub dn: Pn,
}

/// A store's progress, as `export` reads it and `import` writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Snapshot {
    pub meta: StoreMeta,
    pub nodes: Vec<SnapNode>,
    pub links: Vec<SnapLink>,
    pub knowledge: Vec<Entry>,
}

/// What `import` did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportReport {
    pub nodes: usize,
    /// Proved positions whose proofs came from the book.
    pub proved_from_book: usize,
    /// Proved positions the book does not prove: open again.
    pub reopened: usize,
    pub knowledge: usize,
}

fn corrupt(line: usize, what: &str) -> StoreError {
    StoreError::Corrupt(format!("snapshot line {line}: {what}"))
}

impl Snapshot {
    /// The snapshot as gzip-compressed text.
    pub fn write_to(&self, out: impl Write) -> std::io::Result<()> {
        let mut z = GzEncoder::new(out, Compression::best());
        writeln!(z, "{HEADER}")?;
        writeln!(z, "start {}", self.meta.start_fen)?;
        writeln!(z, "moves {}", self.meta.moves)?;
        writeln!(z, "stalemate {}", self.meta.rule)?;
        for n in &self.nodes {
            let state = match n.state {
                NodeState::Inner => NodeState::Open,
                s => s,
            } as u8;
            writeln!(z, "n {} {} {} {state} {}", n.ply, n.pn, n.dn, n.fen)?;
        }
        for l in &self.links {
            let child = l.child.map_or("-".to_string(), |c| c.to_string());
            writeln!(z, "l {} {} {child} {} {}", l.parent, l.mv, l.pn, l.dn)?;
        }
        for e in &self.knowledge {
            writeln!(
                z,
                "k {:x} {} {} {} {}",
                e.key, e.phi, e.delta, e.work, e.depth
            )?;
        }
        z.finish()?.flush()
    }

    /// Reads a snapshot written by `write_to`; any damage is an error.
    pub fn read_from(input: impl Read) -> Result<Snapshot> {
        let reader = BufReader::new(GzDecoder::new(input));
        let mut meta = (None, None, None);
        let mut snapshot = Snapshot {
            meta: StoreMeta {
                start_fen: String::new(),
                moves: String::new(),
                rule: String::new(),
            },
            nodes: Vec::new(),
            links: Vec::new(),
            knowledge: Vec::new(),
        };
        for (index, line) in reader.lines().enumerate() {
            let number = index + 1;
            let line = line.map_err(|e| corrupt(number, &e.to_string()))?;
            if number == 1 {
                if line != HEADER {
                    return Err(corrupt(number, "not a Syotti snapshot"));
                }
                continue;
            }
            let (tag, rest) = line.split_once(' ').unwrap_or((line.as_str(), ""));
            let fields: Vec<&str> = rest.split(' ').collect();
            let pn = |i: usize| -> Result<Pn> {
                fields
                    .get(i)
                    .and_then(|f| f.parse::<Pn>().ok())
                    .filter(|&v| v <= crate::proof::PN_INFINITY)
                    .ok_or_else(|| corrupt(number, "a number"))
            };
            let index_at = |i: usize, len: usize| -> Result<usize> {
                fields
                    .get(i)
                    .and_then(|f| f.parse::<usize>().ok())
                    .filter(|&v| v < len)
                    .ok_or_else(|| corrupt(number, "a node number"))
            };
            match tag {
                "start" => meta.0 = Some(rest.to_string()),
                "moves" => meta.1 = Some(rest.to_string()),
                "stalemate" => meta.2 = Some(rest.to_string()),
                "n" => {
                    let state = match fields.get(3).copied() {
                        Some("0") => NodeState::Open,
                        Some("2") => NodeState::Proved,
                        Some("3") => NodeState::Disproved,
                        _ => return Err(corrupt(number, "a node state")),
                    };
                    let fen = fields.get(4..).map(|f| f.join(" ")).unwrap_or_default();
                    notation::parse_fen(&fen).map_err(|e| corrupt(number, &e.to_string()))?;
                    snapshot.nodes.push(SnapNode {
                        ply: fields
                            .first()
                            .and_then(|f| f.parse().ok())
                            .ok_or_else(|| corrupt(number, "a ply"))?,
                        fen,
                        pn: pn(1)?,
                        dn: pn(2)?,
                        state,
                    });
                }
                "l" => {
                    let len = snapshot.nodes.len();
                    snapshot.links.push(SnapLink {
                        parent: index_at(0, len)?,
                        mv: fields
                            .get(1)
                            .ok_or_else(|| corrupt(number, "a move"))?
                            .to_string(),
                        child: match fields.get(2) {
                            Some(&"-") => None,
                            _ => Some(index_at(2, len)?),
                        },
                        pn: pn(3)?,
                        dn: pn(4)?,
                    });
                }
                "k" => {
                    let number_at = |i: usize| -> Result<u64> {
                        fields
                            .get(i)
                            .and_then(|f| f.parse().ok())
                            .ok_or_else(|| corrupt(number, "a number"))
                    };
                    snapshot.knowledge.push(Entry {
                        key: fields
                            .first()
                            .and_then(|f| u64::from_str_radix(f, 16).ok())
                            .ok_or_else(|| corrupt(number, "a key"))?,
                        phi: pn(1)?,
                        delta: pn(2)?,
                        work: number_at(3)?,
                        depth: u16::try_from(number_at(4)?)
                            .map_err(|_| corrupt(number, "a depth"))?,
                    });
                }
                _ => return Err(corrupt(number, "an unknown record")),
            }
        }
        match meta {
            (Some(start_fen), Some(moves), Some(rule)) => {
                snapshot.meta = StoreMeta {
                    start_fen,
                    moves,
                    rule,
                }
            }
            _ => return Err(corrupt(0, "no start, moves or stalemate line")),
        }
        if snapshot.nodes.first().is_none_or(|root| root.ply != 0) {
            return Err(corrupt(0, "no root node"));
        }
        Ok(snapshot)
    }
}

/// Reads a store's progress: the open tree with its solved border, and at most `max_knowledge`
/// table entries (the most costly first). Also the proofs of the proved border positions, for
/// the caller to verify and keep in a book.
pub fn export(
    store: &mut impl ProofStore,
    problem: &StoreProblem,
    max_knowledge: usize,
) -> Result<(Snapshot, Vec<ProofTree>)> {
    store.transaction(TxKind::Read, |tx| {
        let root = super::search::root_id(tx, problem)?;
        let mut index: HashMap<NodeId, usize> = HashMap::from([(root, 0)]);
        let mut queue = VecDeque::from([root]);
        let mut nodes = Vec::new();
        let mut links = Vec::new();
        let mut proofs = Vec::new();
        while let Some(id) = queue.pop_front() {
            let node = tx
                .node(id)?
                .ok_or_else(|| StoreError::Corrupt(format!("node {id}")))?;
            let own = index[&id];
            if node.state == NodeState::Proved {
                let pos = notation::parse_fen(&node.fen)
                    .map_err(|e| StoreError::Corrupt(format!("node {id}: {e}")))?;
                proofs.push(proof_below(tx, problem, id, &pos)?);
            }
            if !node.state.solved() {
                for l in tx.links(id)? {
                    let child = match l.child {
                        Some(c) => {
                            let next = index.len();
                            Some(*index.entry(c).or_insert_with(|| {
                                queue.push_back(c);
                                next
                            }))
                        }
                        None => None,
                    };
                    links.push(SnapLink {
                        parent: own,
                        mv: l.mv,
                        child,
                        pn: l.pn,
                        dn: l.dn,
                    });
                }
            }
            nodes.push(SnapNode {
                ply: node.ply,
                fen: node.fen,
                pn: node.pn,
                dn: node.dn,
                state: node.state,
            });
        }
        let mut knowledge = Vec::new();
        tx.load_knowledge(&mut |e| knowledge.push(e))?;
        knowledge.sort_unstable_by_key(|e| (std::cmp::Reverse(e.work), e.key));
        knowledge.truncate(max_knowledge);
        Ok((
            Snapshot {
                meta: problem.meta.clone(),
                nodes,
                links,
                knowledge,
            },
            proofs,
        ))
    })
}

/// Writes a snapshot into a new store (one that holds no proof yet). A proved position takes
/// its proof from `known` (the book); without one it is open again.
pub fn import(
    store: &mut impl ProofStore,
    snapshot: &Snapshot,
    known: Option<&KnownWins>,
    tables: Option<&Tablebases>,
) -> Result<ImportReport> {
    let problem = StoreProblem::from_meta(&snapshot.meta)?;
    if snapshot.nodes.first().map(|n| n.fen.as_str()) != Some(problem.root_fen().as_str()) {
        return Err(StoreError::Corrupt(
            "the snapshot's root is not its problem's position".into(),
        ));
    }
    let attacker: Color = problem.attacker();
    store.transaction(TxKind::Update, |tx| {
        if tx.meta()?.is_some() {
            return Err(StoreError::Mismatch(
                "the store already holds a proof: resume a snapshot into a new store".into(),
            ));
        }
        tx.put_meta(&snapshot.meta)?;
        let mut report = ImportReport::default();
        let mut ids = Vec::with_capacity(snapshot.nodes.len());
        let mut reopened = Vec::new();
        for n in &snapshot.nodes {
            let (mut pn, mut dn, mut state) = (n.pn, n.dn, n.state);
            let key = solved_key(&n.fen);
            match state {
                NodeState::Proved => {
                    let proof = known.and_then(|k| {
                        let pos = notation::parse_fen(&n.fen).ok()?;
                        let tree = k.book().proof_tree(&pos, attacker, tables).ok()?;
                        Some(tree.to_text())
                    });
                    match proof {
                        Some(text) => {
                            report.proved_from_book += 1;
                            let solved = Solved {
                                attacker_wins: true,
                                proof: Some(text),
                                node: None,
                            };
                            tx.put_solved(&key, &solved)?;
                        }
                        None => {
                            report.reopened += 1;
                            (pn, dn, state) = (1, 1, NodeState::Open);
                        }
                    }
                }
                NodeState::Disproved => {
                    let solved = Solved {
                        attacker_wins: false,
                        proof: None,
                        node: None,
                    };
                    tx.put_solved(&key, &solved)?;
                }
                NodeState::Open | NodeState::Inner => {}
            }
            let id = tx.insert_node(n.ply, &n.fen, pn, dn, state)?;
            if n.state == NodeState::Proved && state == NodeState::Open {
                reopened.push(id);
            }
            ids.push(id);
        }
        let mut inner = vec![false; ids.len()];
        for l in &snapshot.links {
            let child = l.child.map(|c| ids[c]);
            tx.insert_link(ids[l.parent], &l.mv, child, l.pn, l.dn)?;
            inner[l.parent] = true;
        }
        // A node with edges is expanded: inner (its numbers from its children).
        for (i, &id) in ids.iter().enumerate() {
            let n = &snapshot.nodes[i];
            if inner[i] && !n.state.solved() {
                tx.set_node(id, n.pn, n.dn, NodeState::Inner)?;
            }
        }
        for id in reopened {
            propagate(tx, id)?;
        }
        tx.save_knowledge(&snapshot.knowledge)?;
        report.nodes = ids.len();
        report.knowledge = snapshot.knowledge.len();
        Ok(report)
    })
}
