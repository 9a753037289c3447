//! Live analysis as server-sent events: one engine a stream, stopped when the client goes.
//!
//! `GET /api/analyse?fen=FEN[&moves=UCI...][&variant|&stalemate][&seconds=S][&multipv=N]`
//! answers with `text/event-stream`: an `info` event (JSON) for every line the search reports,
//! as it reports it, a `message` event for what it says in words, then a `bestmove` event, then
//! the end of the stream. The search is the engine's own (`engine::Engine`: book, proof scan and
//! network included, the game's moves for repetitions), on a thread of its own with its own hash
//! table. A comment line goes out every second between events, so a client that went away (the
//! page's stop button, a closed tab) is noticed within a second: its stream is dropped, the
//! thread sees the channel closed and stops and joins the engine.

use std::{
    convert::Infallible,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc,
    },
    time::Duration,
};

use axum::response::sse::{Event, KeepAlive, Sse};
use crossbeam_channel::{unbounded, RecvTimeoutError, Sender};
use serde_json::{json, Value};
use shakmaty::{variant::Antichess, Move};
use tokio_stream::{wrappers::ReceiverStream, Stream, StreamExt};

use crate::{
    engine::{Engine, SearchRequest},
    rules::{notation, Game},
    search::{mate_moves, Bound, Reporter, SearchInfo, SearchLimits},
};

/// Longest analysis a request may ask for, seconds.
pub const MAX_SECONDS: f64 = 600.0;

/// What an analysis request asks for, checked.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub game: Game,
    pub seconds: f64,
    pub multipv: usize,
}

/// The server's limits on searches: how many at once, and each one's hash table.
#[derive(Debug)]
pub struct Limits {
    pub max: usize,
    pub hash_mb: usize,
    running: AtomicUsize,
}

impl Limits {
    pub fn new(max: usize, hash_mb: usize) -> Limits {
        Limits {
            max,
            hash_mb,
            running: AtomicUsize::new(0),
        }
    }

    /// A place for one more search, if the cap allows.
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

/// A running search's place; given back when dropped.
pub struct Slot(Arc<Limits>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.running.fetch_sub(1, Ordering::AcqRel);
    }
}

/// A score as JSON, the side to move's view: `{"cp": N}` or `{"mate": N}` (moves, negative
/// when the side to move is mated).
pub fn score_json(score: i32) -> Value {
    match mate_moves(score) {
        Some(moves) => json!({ "mate": moves }),
        None => json!({ "cp": score }),
    }
}

/// An event of the stream: its name and JSON data.
pub type Named = (&'static str, Value);

/// Sends what the search reports down a channel.
struct EventReporter {
    position: Antichess,
    events: Sender<Named>,
}

fn uci_line(moves: &[Move]) -> Vec<String> {
    moves.iter().map(|&m| notation::uci(m)).collect()
}

impl Reporter for EventReporter {
    fn info(&self, info: &SearchInfo) {
        let bound = match info.bound {
            Bound::Exact => "exact",
            Bound::Lower => "lower",
            Bound::Upper => "upper",
        };
        let data = json!({
            "depth": info.depth,
            "seldepth": info.seldepth,
            "multipv": info.multipv,
            "score": score_json(info.score),
            "bound": bound,
            "nodes": info.nodes,
            "nps": info.nps,
            "time_ms": info.time.as_millis() as u64,
            "pv": uci_line(&info.pv),
            "san": notation::san_line(&self.position, &info.pv),
        });
        let _ = self.events.send(("info", data));
    }

    fn current_move(&self, _: u32, _: Move, _: usize) {}

    fn message(&self, text: &str) {
        let _ = self.events.send(("message", json!({ "text": text })));
    }

    fn best_move(&self, best: Option<Move>, _: Option<Move>) {
        let data = json!({ "move": best.map(notation::uci) });
        let _ = self.events.send(("bestmove", data));
    }
}

/// Where a search thread sends its events: the client's stream.
pub struct Events(tokio::sync::mpsc::Sender<Named>);

impl Events {
    /// Sends an event; false once the client has gone.
    pub fn send(&self, event: Named) -> bool {
        self.0.blocking_send(event).is_ok()
    }

    /// Whether the client is still there.
    pub fn open(&self) -> bool {
        !self.0.is_closed()
    }
}

/// Runs `work` on a thread of its own, which sends its events to the stream returned. The
/// client's going is noticed by the keep-alive comment sent every second, and `Events` says so.
pub fn spawn_stream(
    slot: Slot,
    work: impl FnOnce(&Events) + Send + 'static,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let (tx, rx) = tokio::sync::mpsc::channel::<Named>(256);
    let spawned = std::thread::Builder::new()
        .name("serve-search".into())
        .spawn(move || {
            let _slot = slot;
            work(&Events(tx));
        });
    if let Err(e) = spawned {
        log::warn!("cannot start a search thread: {e}");
    }
    let stream = ReceiverStream::new(rx).map(|(name, data)| {
        Ok::<_, Infallible>(Event::default().event(name).data(data.to_string()))
    });
    Sse::new(stream).keep_alive(KeepAlive::new().interval(Duration::from_secs(1)))
}

/// The analysis's stream: the engine's events until its `bestmove`, or until the client goes.
pub fn stream(
    analysis: Analysis,
    hash_mb: usize,
    slot: Slot,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    spawn_stream(slot, move |events_out| {
        let (events, received) = unbounded();
        let reporter = Arc::new(EventReporter {
            position: analysis.game.position().clone(),
            events,
        });
        let mut engine = Engine::new(hash_mb);
        let request = SearchRequest {
            multipv: analysis.multipv,
            ..SearchRequest::analysis(
                &analysis.game,
                SearchLimits {
                    movetime: Some(Duration::from_secs_f64(analysis.seconds)),
                    ..SearchLimits::default()
                },
            )
        };
        let (done, _finished) = unbounded();
        engine.start(request, reporter, done);
        loop {
            match received.recv_timeout(Duration::from_millis(250)) {
                Ok(event) => {
                    if !events_out.send(event) {
                        break;
                    }
                }
                // Between events: is anyone still listening?
                Err(RecvTimeoutError::Timeout) => {
                    if !events_out.open() {
                        break;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        // Stops the search if it still runs, and waits for it.
        engine.stop();
    })
}
