//! Live analysis as server-sent events: one engine a stream, stopped when the client goes.
//!
//! `GET /api/analyse?fen=FEN[&variant|&stalemate][&seconds=S][&multipv=N]` answers with
//! `text/event-stream`: an `info` event (JSON) for every line the search reports, as it reports
//! it, then a `bestmove` event, then the end. The search is the engine's own (`engine::Engine`,
//! book, proof scan and network included), with its own hash table. Closing the stream (the
//! page's stop button, a closed tab) stops the search within a second (a comment line goes out
//! every second between events): the write fails and the engine is stopped and joined. The
//! connection stays open after the last event until the client closes it. The server runs at
//! most `max` analyses at once; one more gets 503.

use std::{
    io::Write,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use crossbeam_channel::{unbounded, Sender};
use serde_json::json;
use shakmaty::{variant::Antichess, Move};

use crate::{
    engine::{Engine, SearchRequest},
    proof::book::ProofBook,
    rules::{hash, notation, StalemateRule},
    search::{mate_moves, Bound, Reporter, SearchInfo, SearchLimits},
};

/// Longest analysis a request may ask for, seconds.
pub const MAX_SECONDS: f64 = 600.0;

/// What an analysis request asks for, checked.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub position: Antichess,
    pub rule: StalemateRule,
    pub seconds: f64,
    pub multipv: usize,
}

/// The server's limits on analyses.
#[derive(Debug)]
pub struct AnalysisLimits {
    pub max: usize,
    pub hash_mb: usize,
    running: AtomicUsize,
}

impl AnalysisLimits {
    pub fn new(max: usize, hash_mb: usize) -> AnalysisLimits {
        AnalysisLimits {
            max,
            hash_mb,
            running: AtomicUsize::new(0),
        }
    }

    /// A place for one more analysis, if the cap allows.
    pub fn claim(self: &Arc<Self>) -> Option<Slot> {
        let mut now = self.running.load(Ordering::Relaxed);
        loop {
            if now >= self.max {
                return None;
            }
            match self
                .running
                .compare_exchange(now, now + 1, Ordering::AcqRel, Ordering::Relaxed)
            {
                Ok(_) => return Some(Slot(Arc::clone(self))),
                Err(actual) => now = actual,
            }
        }
    }
}

/// A running analysis's place; given back when dropped.
pub struct Slot(Arc<AnalysisLimits>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Sends what the search reports down a channel, as server-sent events.
struct EventReporter {
    position: Antichess,
    events: Sender<String>,
}

fn uci_line(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|&m| notation::uci(m)).collect()
}

impl Reporter for EventReporter {
    fn info(&self, info: &SearchInfo) {
        let score = match mate_moves(info.score) {
            Some(moves) => json!({ "mate": moves }),
            None => json!({ "cp": info.score }),
        };
        let bound = match info.bound {
            Bound::Exact => "exact",
            Bound::Lower => "lower",
            Bound::Upper => "upper",
        };
        let data = json!({
            "depth": info.depth,
            "seldepth": info.seldepth,
            "multipv": info.multipv,
            "score": score,
            "bound": bound,
            "nodes": info.nodes,
            "nps": info.nps,
            "time_ms": info.time.as_millis() as u64,
            "pv": uci_line(&info.pv),
            "san": notation::san_line(&self.position, &info.pv),
        });
        let _ = self.events.send(format!("event: info\ndata: {data}\n\n"));
    }

    fn current_move(&self, _: u32, _: Move, _: usize) {}

    fn message(&self, text: &str) {
        let data = json!({ "text": text });
        let _ = self
            .events
            .send(format!("event: message\ndata: {data}\n\n"));
    }

    fn best_move(&self, best: Option<Move>, _: Option<Move>) {
        let data = json!({ "move": best.map(notation::uci) });
        let _ = self
            .events
            .send(format!("event: bestmove\ndata: {data}\n\n"));
    }
}

/// Runs `analysis` and writes its events to `out` (the client's connection, the response's head
/// already written) until the search ends or the client goes.
pub fn stream(analysis: &Analysis, hash_mb: usize, out: &mut dyn Write) {
    let (events, received) = unbounded();
    let reporter = Arc::new(EventReporter {
        position: analysis.position.clone(),
        events,
    });
    let mut engine = Engine::new(hash_mb);
    let request = SearchRequest {
        position: analysis.position.clone(),
        history: vec![hash::key(&analysis.position)],
        rule: analysis.rule,
        limits: SearchLimits {
            movetime: Some(Duration::from_secs_f64(analysis.seconds)),
            ..SearchLimits::default()
        },
        multipv: analysis.multipv,
        threads: 1,
        move_overhead: Duration::ZERO,
        prove: true,
        proof_memory_mb: 64,
        tablebases: None,
        probe_limit: 0,
        rule50: true,
        contempt: 0,
        books: ProofBook::embedded().into_iter().collect(),
        network: crate::search::nnue::embedded(),
    };
    let (done, _finished) = unbounded();
    engine.start(request, reporter, done);
    // A comment line every second between events: a client that went away is noticed within a
    // second even while a deep iteration reports nothing.
    loop {
        let event = match received.recv_timeout(Duration::from_secs(1)) {
            Ok(event) => event,
            Err(crossbeam_channel::RecvTimeoutError::Timeout) => ":\n\n".to_string(),
            Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
        };
        if out
            .write_all(event.as_bytes())
            .and_then(|()| out.flush())
            .is_err()
        {
            log::debug!("an analysis client went away: stopping its search");
            break;
        }
    }
    // Dropping the engine stops the search and waits for it.
    engine.stop();
}
