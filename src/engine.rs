//! The engine: runs searches on their own threads so that the protocol loop stays responsive.
//!
//! The controller (the UCI session) starts a search with `start`, may `stop` it or signal
//! `ponderhit` at any time, and learns that it ended through the `done` channel it handed in.
//! The search thread reports `bestmove` itself, and only when it may: a `go infinite` or a ponder
//! search that finishes early (a proven result, the depth cap) waits for `stop` or `ponderhit`
//! before it does.
//!
//! `Threads` > 1 runs Lazy SMP: helper threads search the same root with their own move ordering
//! state and share only the transposition table; the main thread alone reports and decides. Only a
//! single-threaded search is deterministic.

use std::{
    sync::Arc,
    thread::{self, JoinHandle},
    time::Duration,
};

use crossbeam_channel::Sender;
use shakmaty::{variant::Antichess, Position};

use crate::{
    rules::StalemateRule,
    search::{
        self, tt::TranspositionTable, Reporter, SearchControl, SearchLimits, SearchParams,
        SearchResult, SilentReporter,
    },
};

/// Everything a search needs, owned, so it can move to the search thread.
#[derive(Clone, Debug)]
pub struct SearchRequest {
    pub position: Antichess,
    /// Keys of the game's positions, `position` last.
    pub history: Vec<u64>,
    pub rule: StalemateRule,
    pub limits: SearchLimits,
    pub multipv: usize,
    pub threads: usize,
    pub move_overhead: Duration,
}

struct Running {
    control: Arc<SearchControl>,
    handle: JoinHandle<()>,
}

pub struct Engine {
    tt: Arc<TranspositionTable>,
    running: Option<Running>,
}

impl Engine {
    pub fn new(hash_mb: usize) -> Engine {
        Engine {
            tt: Arc::new(TranspositionTable::new(hash_mb)),
            running: None,
        }
    }

    pub fn is_searching(&self) -> bool {
        self.running.is_some()
    }

    /// Replaces the transposition table (only between searches).
    pub fn resize(&mut self, hash_mb: usize) {
        self.wait();
        self.tt = Arc::new(TranspositionTable::new(hash_mb));
    }

    /// Forgets everything learnt (only between searches).
    pub fn clear(&mut self) {
        self.wait();
        self.tt.clear();
    }

    /// Starts a search; `done` receives `()` after `bestmove` has been reported.
    pub fn start(&mut self, request: SearchRequest, reporter: Arc<dyn Reporter>, done: Sender<()>) {
        self.wait();
        let control = Arc::new(SearchControl::new(request.limits.ponder));
        let tt = Arc::clone(&self.tt);
        let thread_control = Arc::clone(&control);
        let handle = thread::spawn(move || {
            let result = run_search(&request, &tt, &thread_control, reporter.as_ref());
            // Never answer `go infinite` or an unfinished ponder before we are told to.
            while (request.limits.infinite || thread_control.is_pondering())
                && !thread_control.is_stopped()
            {
                thread::sleep(Duration::from_millis(1));
            }
            reporter.best_move(result.best, result.ponder);
            // The session may be gone already (end of input): nothing left to tell.
            let _ = done.send(());
        });
        self.running = Some(Running { control, handle });
    }

    pub fn stop(&self) {
        if let Some(running) = &self.running {
            running.control.stop();
        }
    }

    pub fn ponderhit(&self) {
        if let Some(running) = &self.running {
            running.control.ponderhit();
        }
    }

    /// Waits for the running search, if any, to finish (after its `bestmove`).
    pub fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            if running.handle.join().is_err() {
                log::error!("the search thread panicked");
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.stop();
        self.wait();
    }
}

/// Runs the main search, with Lazy SMP helpers when more than one thread is asked for.
pub fn run_search(
    request: &SearchRequest,
    tt: &TranspositionTable,
    control: &SearchControl,
    reporter: &dyn Reporter,
) -> SearchResult {
    let params = SearchParams {
        rule: request.rule,
        history: &request.history,
        multipv: request.multipv,
        move_overhead: request.move_overhead,
        helper: false,
    };
    let helpers = request.threads.saturating_sub(1);
    if helpers == 0 || request.position.legal_moves().len() <= 1 {
        return search::search(
            &request.position,
            &params,
            &request.limits,
            tt,
            control,
            reporter,
        );
    }
    let helper_control = SearchControl::new(false);
    let helper_limits = SearchLimits {
        searchmoves: request.limits.searchmoves.clone(),
        ..SearchLimits::default()
    };
    let helper_params = SearchParams {
        multipv: 1,
        helper: true,
        ..params.clone()
    };
    thread::scope(|scope| {
        for _ in 0..helpers {
            scope.spawn(|| {
                search::search(
                    &request.position,
                    &helper_params,
                    &helper_limits,
                    tt,
                    &helper_control,
                    &SilentReporter,
                )
            });
        }
        let result = search::search(
            &request.position,
            &params,
            &request.limits,
            tt,
            control,
            reporter,
        );
        helper_control.stop();
        result
    })
}
