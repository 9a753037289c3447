//! The engine: runs searches on their own threads so that the protocol loop stays responsive.
//!
//! The controller (a UCI or XBoard session) starts a search with `start`, may `stop` it or signal
//! `ponderhit` at any time, and learns that it ended through the `done` channel it handed in.
//! The search thread reports `bestmove` itself, and only when it may: a `go infinite` or a ponder
//! search that finishes early (a proven result, the depth cap) waits for `stop` or `ponderhit`
//! before it does.
//!
//! What is already proven comes first and costs no search: a position of a book of proofs
//! (`proof::book`), then a position of a proof found earlier in the game (`proof::memory`, the same
//! book form, answered the same way), is answered at once with its mate score (a table win's score where the proof ends in table leaves). A game
//! already over by the rules gets no proven answer, and neither does a position whose proof the
//! game's history could spoil (`proof::history`). Unless turned off, a root proof scan
//! (`proof_scan`) then gets a third of the time (at most two seconds without a game clock): a
//! proven win is played at once, proven-losing root moves are not searched, and every verified
//! proof it finds is remembered. Under a game clock the scan runs only where the
//! game's previous search did not find the root near even (`worth_scanning`). A forced move gets
//! a short search (a tenth of the time) so that its score is worth showing.
//!
//! Besides the transposition table and the proofs, a game keeps its move-ordering statistics
//! (`search::Heuristics`): each search starts from what the one before it learnt. `clear`
//! (`ucinewgame`) forgets all three.
//!
//! `Threads` > 1 runs Lazy SMP: helper threads search the same root with their own move ordering
//! state (a copy of the game's statistics, not handed back) and share only the transposition
//! table; helpers skip depths, each in its own pattern, so that they fill the table ahead of the
//! main thread instead of beside it (`search::iterative`); the main thread alone reports and
//! decides. Only a single-threaded search is
//! deterministic.

pub mod analyser;
pub mod proof_scan;
pub mod settings;
pub mod skill;

use std::{
    sync::{Arc, Mutex},
    thread::{self, JoinHandle},
    time::{Duration, Instant},
};

use crossbeam_channel::Sender;
use shakmaty::{variant::Antichess, Move, Position};
use skill::Skill;

use crate::{
    memory::AllocError,
    proof::{
        book::{BookAnswer, ProofBook},
        memory::ProofMemory,
        Distance, ProofLimits,
    },
    rules::{game, hash, Game, StalemateRule},
    search::{
        self,
        nnue::Network,
        time,
        tt::{score_from_tt, score_to_tt, TranspositionTable},
        Bound, Heuristics, Reporter, Score, SearchControl, SearchInfo, SearchLimits, SearchParams,
        SearchResult, SilentReporter, MATE, MAX_PLY, TB_WIN,
    },
    tablebase::Tablebases,
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
    /// Run the root proof scan first.
    pub prove: bool,
    /// Memory for the proof table, MiB.
    pub proof_memory_mb: usize,
    pub tablebases: Option<Arc<Tablebases>>,
    pub probe_limit: usize,
    pub rule50: bool,
    /// Centipawns a draw costs the side to move (see `SearchParams::contempt`).
    pub contempt: Score,
    /// Books of proofs to answer from first (the embedded one, a user's).
    pub books: Vec<Arc<ProofBook>>,
    /// The evaluation network (`None`: the linear evaluation).
    pub network: Option<Arc<Network>>,
    /// Play below full strength (`skill`); `None`: full strength.
    pub skill: Option<Skill>,
}

impl SearchRequest {
    /// An analysis of `game`'s position within `limits`, as the engine's faces other than the
    /// game protocols ask for it: one line, one thread, proof scan and embedded book and network
    /// on, no tables, the objective score of a draw (no contempt), full strength.
    pub fn analysis(game: &Game, limits: SearchLimits) -> SearchRequest {
        SearchRequest {
            position: game.position().clone(),
            history: game.keys().to_vec(),
            rule: game.rule(),
            limits,
            multipv: 1,
            threads: 1,
            move_overhead: Duration::ZERO,
            prove: true,
            proof_memory_mb: 64,
            tablebases: None,
            probe_limit: 0,
            rule50: true,
            contempt: 0,
            books: ProofBook::embedded().into_iter().collect(),
            network: search::nnue::embedded(),
            skill: None,
        }
    }
}

struct Running {
    control: Arc<SearchControl>,
    handle: JoinHandle<()>,
}

pub struct Engine {
    tt: Arc<TranspositionTable>,
    /// Positions proved by earlier searches of this game.
    proven: Arc<Mutex<ProofMemory>>,
    /// The move-ordering statistics of this game's searches.
    heuristics: Arc<Mutex<Heuristics>>,
    running: Option<Running>,
}

impl Engine {
    pub fn new(hash_mb: usize) -> Engine {
        Engine {
            tt: Arc::new(TranspositionTable::new(hash_mb)),
            proven: Arc::default(),
            heuristics: Arc::default(),
            running: None,
        }
    }

    pub fn is_searching(&self) -> bool {
        self.running.is_some()
    }

    /// Replaces the transposition table (only between searches). If the machine cannot give the
    /// new size, the old table stays and the error says why.
    pub fn resize(&mut self, hash_mb: usize) -> Result<(), AllocError> {
        self.wait();
        self.tt = Arc::new(TranspositionTable::try_new(hash_mb, self.tt.bytes())?);
        Ok(())
    }

    /// The transposition table's size in bytes.
    pub fn hash_bytes(&self) -> usize {
        self.tt.bytes()
    }

    /// Forgets everything learnt (only between searches).
    pub fn clear(&mut self) {
        self.wait();
        self.proven = Arc::default();
        self.heuristics = Arc::default();
        // A fresh zeroed table costs nothing until the search fills it; writing zeros over a
        // large one would take seconds and commit all of its memory at once.
        let megabytes = self.tt.bytes() >> 20;
        match TranspositionTable::try_new(megabytes, self.tt.bytes()) {
            Ok(fresh) => self.tt = Arc::new(fresh),
            Err(_) => self.tt.clear(),
        }
    }

    /// Starts a search; `done` receives `()` after `bestmove` has been reported.
    pub fn start(&mut self, request: SearchRequest, reporter: Arc<dyn Reporter>, done: Sender<()>) {
        self.wait();
        let control = Arc::new(SearchControl::new(request.limits.ponder));
        let tt = Arc::clone(&self.tt);
        let proven = Arc::clone(&self.proven);
        let heuristics = Arc::clone(&self.heuristics);
        let thread_control = Arc::clone(&control);
        let handle = thread::spawn(move || {
            // A bug in the search must not leave the GUI without a move: report it and answer
            // with a legal move all the same.
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_search(
                    &request,
                    &tt,
                    &proven,
                    &heuristics,
                    &thread_control,
                    reporter.as_ref(),
                )
            }))
            .unwrap_or_else(|_| {
                reporter.message("error: the search failed; playing the first legal move");
                let best = request.position.legal_moves().first().copied();
                SearchResult {
                    best,
                    ponder: None,
                    score: 0,
                    depth: 0,
                    nodes: 0,
                    pv: best.into_iter().collect(),
                }
            });
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

/// Nodes for the proof scan when only a depth bounds the search.
const PROOF_NODES_FOR_DEPTH: u64 = 100_000;
/// The proof scan's table is at most this many MiB, whatever `Hash` is: a scan gets a share of
/// one move's time and fills a small part of even this much.
const PROOF_SCAN_MEMORY_MAX_MB: usize = 1024;
/// Time for the proof scan of an infinite or ponder search, and at most that of a search
/// with a fixed move time.
const PROOF_TIME_UNBOUNDED: Duration = Duration::from_secs(2);

/// The proof scan's share of the limits: a third of the time or nodes.
fn proof_limits(request: &SearchRequest) -> ProofLimits {
    let limits = &request.limits;
    let (nodes, time) = if let Some(n) = limits.nodes {
        (Some(n / 3), None)
    } else if limits.infinite || limits.ponder {
        (None, Some(PROOF_TIME_UNBOUNDED))
    } else if let Some(b) = time::budget(limits, request.move_overhead) {
        // A forced move's whole search is short (see `TimeBudget::forced`).
        let b = if request.position.legal_moves().len() == 1 {
            b.forced()
        } else {
            b
        };
        // Without a clock (a fixed move time: analysis, the web page) the scan gets no more
        // than an infinite search's, so that lines start to stream within seconds.
        let share = b.soft / 3;
        let share = if limits.clock.is_none() {
            share.min(PROOF_TIME_UNBOUNDED)
        } else {
            share
        };
        (None, Some(share))
    } else {
        (Some(PROOF_NODES_FOR_DEPTH), None)
    };
    ProofLimits {
        nodes,
        time,
        memory_mb: request.proof_memory_mb.min(PROOF_SCAN_MEMORY_MAX_MB),
    }
}

/// The limits left to alpha-beta after the proof scan used `nodes` and `elapsed`.
fn remaining_limits(limits: &SearchLimits, nodes: u64, elapsed: Duration) -> SearchLimits {
    let mut left = limits.clone();
    left.nodes = limits.nodes.map(|n| n.saturating_sub(nodes).max(1));
    left.movetime = limits.movetime.map(|t| t.saturating_sub(elapsed));
    if let Some(clock) = &mut left.clock {
        clock.time = clock.time.saturating_sub(elapsed);
        // The scan was part of this move's budget, not a move of its own.
        left.spent += elapsed;
    }
    left
}

/// The score of a proven win for the side to move: a mate score for an exact distance; a proof
/// that ends in table leaves proves the result but not its distance, and scores as the search
/// scores a table win (`TB_WIN` less the plies to the tables).
fn proven_score(distance: Distance) -> Score {
    let win = if distance.exact { MATE } else { TB_WIN };
    win - distance.plies as Score
}

/// Reports a result that a proof decides, without searching: a win (or, with `wins` false, a
/// loss) for the side to move, along `line`, scored by `proven_score`.
fn proven_result(
    wins: bool,
    distance: Distance,
    line: Vec<Move>,
    nodes: u64,
    started: Instant,
    tt: &TranspositionTable,
    reporter: &dyn Reporter,
) -> SearchResult {
    let plies = distance.plies;
    let win = proven_score(distance);
    let score = if wins { win } else { -win };
    let elapsed = started.elapsed();
    reporter.info(&SearchInfo {
        depth: plies,
        seldepth: plies,
        multipv: 1,
        score,
        bound: Bound::Exact,
        nodes,
        nps: (nodes as u128 * 1000 / elapsed.as_millis().max(1)) as u64,
        hashfull: tt.hashfull(),
        time: elapsed,
        pv: line.clone(),
        tbhits: 0,
    });
    SearchResult {
        best: line.first().copied(),
        ponder: line.get(1).copied(),
        score,
        depth: plies,
        nodes,
        pv: line,
    }
}

/// Answers from the positions proved earlier in the game, if the root is one, as a book
/// position is answered (`answer_from_book`).
fn remembered(
    request: &SearchRequest,
    proven: &Mutex<ProofMemory>,
    started: Instant,
    tt: &TranspositionTable,
    reporter: &dyn Reporter,
) -> Option<SearchResult> {
    let memory = proven.lock().ok()?;
    answer_from_book(memory.book()?, request, started, tt, reporter, |answer| {
        format!(
            "proof: forced {}, {} (proved earlier)",
            if answer.wins { "win" } else { "loss" },
            plies_text(answer.hit.distance)
        )
    })
}

/// Answers from the books of proofs, if the root is in one (`answer_from_book`).
fn from_books(
    request: &SearchRequest,
    started: Instant,
    tt: &TranspositionTable,
    reporter: &dyn Reporter,
) -> Option<SearchResult> {
    request.books.iter().find_map(|book| {
        answer_from_book(book, request, started, tt, reporter, |answer| {
            if answer.wins {
                "book: proven win".to_string()
            } else {
                "book: proven loss; the longest resistance".to_string()
            }
        })
    })
}

/// Answers from one book of proofs, if the root is in it: as the winner with the book's move and
/// mate count, as the loser (every reply leads into the book) with the longest resistance; says
/// `message` of the answer first. Not with several lines asked for.
fn answer_from_book(
    book: &ProofBook,
    request: &SearchRequest,
    started: Instant,
    tt: &TranspositionTable,
    reporter: &dyn Reporter,
    message: impl Fn(&BookAnswer) -> String,
) -> Option<SearchResult> {
    if request.multipv > 1 {
        return None;
    }
    let pos = &request.position;
    let answer = book
        .answer(pos, request.rule, &request.history)
        .filter(|a| request.limits.allows(&a.hit.best))?;
    reporter.message(&message(&answer));
    let line = book.line(pos, answer.hit.distance.plies as usize);
    Some(proven_result(
        answer.wins,
        answer.hit.distance,
        line,
        0,
        started,
        tt,
        reporter,
    ))
}

/// "N plies", or "N plies to the tables" for a proof that ends in table leaves.
fn plies_text(distance: Distance) -> String {
    if distance.exact {
        format!("{} plies", distance.plies)
    } else {
        format!("{} plies to the tables", distance.plies)
    }
}

/// A search under a game clock skips the proof scan of a root that the game's previous search
/// scored closer to even than this.
const SCAN_MARGIN: Score = 500;

/// Whether the root proof scan is worth its share of this search. Without a game clock (analysis,
/// `go movetime`, `go nodes`, `go depth`, `go infinite`, pondering) it always is. Under a clock it
/// is where the game may be decided: there a proof is within reach, and it plays the win at once
/// or keeps the search off the losing moves. In a position that the previous search of this game
/// scored near even (the score it left in the table, whatever its bound) the scan seldom proves
/// anything and only takes a third of the time from alpha-beta. A root the table does not know is
/// scanned. Self-play at 5+0.05, antichess, 200 games each against the engine that always
/// scanned: no scan at all 55.5%, this gate 57.0%.
fn worth_scanning(request: &SearchRequest, tt: &TranspositionTable) -> bool {
    let limits = &request.limits;
    if limits.clock.is_none() || limits.movetime.is_some() || limits.infinite || limits.ponder {
        return true;
    }
    tt.probe(hash::key(&request.position))
        .is_none_or(|hit| score_from_tt(hit.score, 0).abs() >= SCAN_MARGIN)
}

/// Runs the proof scan, then (unless it proved a win) the alpha-beta search. Proofs found are
/// remembered in `proven`, and a root proved earlier is answered from there; the search starts
/// from the game's move-ordering statistics and leaves its own in `heuristics`.
pub fn run_search(
    request: &SearchRequest,
    tt: &TranspositionTable,
    proven: &Mutex<ProofMemory>,
    heuristics: &Mutex<Heuristics>,
    control: &SearchControl,
    reporter: &dyn Reporter,
) -> SearchResult {
    let legal = request.position.legal_moves();
    let started = Instant::now();
    // A game already over by the rules has its result: no proof speaks for it.
    let over = game::outcome(
        &request.position,
        &request.history,
        request.rule,
        !legal.is_empty(),
    )
    .is_some();
    if over {
        return run_alpha_beta(request, &request.limits, tt, heuristics, control, reporter);
    }
    if let Some(skill) = request.skill {
        return run_limited(skill, request, tt, heuristics, control, reporter);
    }
    if let Some(result) = from_books(request, started, tt, reporter) {
        return result;
    }
    if !request.prove || legal.is_empty() {
        return run_alpha_beta(request, &request.limits, tt, heuristics, control, reporter);
    }
    if let Some(result) = remembered(request, proven, started, tt, reporter) {
        return result;
    }
    if !worth_scanning(request, tt) {
        return run_alpha_beta(request, &request.limits, tt, heuristics, control, reporter);
    }
    let scan = match proof_scan::scan(
        &request.position,
        request.rule,
        &request.history,
        &proof_limits(request),
        request
            .tablebases
            .as_deref()
            .map(|tb| (tb, request.probe_limit)),
        control.scan_stop_flag(),
    ) {
        Ok(scan) => scan,
        Err(e) => {
            reporter.message(&format!("error: proof scan skipped: {e}"));
            proof_scan::ScanResult::default()
        }
    };
    if let Ok(mut memory) = proven.lock() {
        for proof in &scan.proofs {
            memory.learn(proof);
        }
        if let Some(win) = &scan.win {
            memory.remember_win(&request.position, request.rule, win.best, win.distance);
        }
    }
    if let Some(win) = scan.win {
        let score = proven_score(win.distance);
        let key = hash::key(&request.position);
        tt.store(
            key,
            Some(win.best),
            score_to_tt(score, 0),
            0,
            MAX_PLY as i32 - 1,
            Bound::Exact,
        );
        reporter.message(&format!("proof: forced win, {}", plies_text(win.distance)));
        return proven_result(
            true,
            win.distance,
            win.line,
            scan.nodes,
            started,
            tt,
            reporter,
        );
    }
    // A forced move into a proven loss: say so (the score of the longest resistance) and play.
    if let (Some(loss), [only]) = (scan.loss, legal.as_slice()) {
        reporter.message(&format!(
            "proof: forced move into a proven loss, {}",
            plies_text(loss)
        ));
        let mut after = request.position.clone();
        after.play_unchecked(*only);
        let mut line = vec![*only];
        if let Ok(memory) = proven.lock() {
            if let Some(book) = memory.book() {
                line.extend(book.line(&after, (loss.plies as usize).saturating_sub(1)));
            }
        }
        return proven_result(false, loss, line, scan.nodes, started, tt, reporter);
    }
    // Time the scan took from the engine's own clock: none while it pondered.
    let on_clock = if control.is_pondering() {
        Duration::ZERO
    } else {
        control.clock_start(started).elapsed()
    };
    let mut limits = remaining_limits(&request.limits, scan.nodes, on_clock);
    if !scan.losing.is_empty() && scan.losing.len() < legal.len() {
        reporter.message(&format!("proof: {} root moves lose", scan.losing.len()));
        let allowed: Vec<_> = if limits.searchmoves.is_empty() {
            legal.to_vec()
        } else {
            limits.searchmoves.clone()
        };
        let kept: Vec<_> = allowed
            .into_iter()
            .filter(|m| !scan.losing.contains(m))
            .collect();
        if !kept.is_empty() {
            limits.searchmoves = kept;
        }
    }
    let mut result = run_alpha_beta(request, &limits, tt, heuristics, control, reporter);
    result.nodes += scan.nodes;
    result
}

/// Keeps the lines of the search's last complete iteration (one a root move) and passes
/// everything on.
struct LineCollector<'a> {
    inner: &'a dyn Reporter,
    lines: Mutex<(u32, Vec<SearchInfo>)>,
}

impl Reporter for LineCollector<'_> {
    fn info(&self, info: &SearchInfo) {
        if let Ok(mut kept) = self.lines.lock() {
            if info.bound == Bound::Exact && !info.pv.is_empty() {
                let (depth, lines) = &mut *kept;
                if info.depth != *depth {
                    *depth = info.depth;
                    lines.clear();
                }
                lines.retain(|l| l.multipv != info.multipv);
                lines.push(info.clone());
            }
        }
        self.inner.info(info);
    }
    fn current_move(&self, depth: u32, m: Move, number: usize) {
        self.inner.current_move(depth, m, number);
    }
    fn message(&self, text: &str) {
        self.inner.message(text);
    }
    fn best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        self.inner.best_move(best, ponder);
    }
}

/// A search below full strength (`skill`): capped in depth and nodes, several lines at once, no
/// book and no proof scan, then a move picked among the lines with the level's noise.
fn run_limited(
    skill: Skill,
    request: &SearchRequest,
    tt: &TranspositionTable,
    heuristics: &Mutex<Heuristics>,
    control: &SearchControl,
    reporter: &dyn Reporter,
) -> SearchResult {
    let mut limits = request.limits.clone();
    limits.depth = Some(limits.depth.map_or(skill.depth(), |d| d.min(skill.depth())));
    limits.nodes = Some(limits.nodes.map_or(skill.nodes(), |n| n.min(skill.nodes())));
    let legal = request.position.legal_moves();
    let limited = SearchRequest {
        multipv: request.multipv.max(skill.lines()).min(legal.len().max(1)),
        threads: 1,
        ..request.clone()
    };
    let collector = LineCollector {
        inner: reporter,
        lines: Mutex::new((0, Vec::new())),
    };
    let mut result = run_alpha_beta(&limited, &limits, tt, heuristics, control, &collector);
    let lines = collector
        .lines
        .into_inner()
        .map(|(_, lines)| lines)
        .unwrap_or_default();
    let mut rng = fastrand::Rng::new();
    if let Some(pick) = skill.pick(&lines, &mut rng) {
        if result.best != Some(pick) {
            result.best = Some(pick);
            result.ponder = None;
            if let Some(line) = lines.iter().find(|l| l.pv.first() == Some(&pick)) {
                result.score = line.score;
                result.pv = line.pv.clone();
                result.ponder = line.pv.get(1).copied();
            }
        }
    }
    result
}

/// The alpha-beta search, with Lazy SMP helpers when more than one thread is asked for.
fn run_alpha_beta(
    request: &SearchRequest,
    limits: &SearchLimits,
    tt: &TranspositionTable,
    heuristics: &Mutex<Heuristics>,
    control: &SearchControl,
    reporter: &dyn Reporter,
) -> SearchResult {
    let params = SearchParams {
        rule: request.rule,
        history: &request.history,
        multipv: request.multipv,
        move_overhead: request.move_overhead,
        helper: false,
        helper_index: 0,
        tablebases: request.tablebases.as_deref(),
        probe_limit: request.probe_limit,
        rule50: request.rule50,
        contempt: request.contempt,
        network: request.network.clone(),
        heuristics: Some(heuristics),
    };
    let helpers = request.threads.saturating_sub(1);
    if helpers == 0 || request.position.legal_moves().len() <= 1 {
        return search::search(&request.position, &params, limits, tt, control, reporter);
    }
    let helper_control = SearchControl::new(false);
    let helper_limits = SearchLimits {
        searchmoves: limits.searchmoves.clone(),
        ..SearchLimits::default()
    };
    let helper_params: Vec<SearchParams> = (1..=helpers)
        .map(|index| SearchParams {
            multipv: 1,
            helper: true,
            helper_index: index,
            ..params.clone()
        })
        .collect();
    thread::scope(|scope| {
        for (started, helper_params) in helper_params.iter().enumerate() {
            let spawned = thread::Builder::new().spawn_scoped(scope, || {
                search::search(
                    &request.position,
                    helper_params,
                    &helper_limits,
                    tt,
                    &helper_control,
                    &SilentReporter,
                )
            });
            // The machine may refuse threads (`Threads` is the user's): search with those it gave.
            if let Err(e) = spawned {
                reporter.message(&format!(
                    "error: cannot start search thread {}: {e}; searching with {}",
                    started + 2,
                    started + 1
                ));
                break;
            }
        }
        let result = search::search(&request.position, &params, limits, tt, control, reporter);
        helper_control.stop();
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Clock;

    fn request(limits: SearchLimits) -> SearchRequest {
        let position = Antichess::default();
        SearchRequest {
            history: vec![hash::key(&position)],
            position,
            rule: StalemateRule::default(),
            limits,
            multipv: 1,
            threads: 1,
            move_overhead: Duration::ZERO,
            prove: true,
            proof_memory_mb: 1,
            tablebases: None,
            probe_limit: 0,
            rule50: true,
            contempt: 0,
            books: Vec::new(),
            network: None,
            skill: None,
        }
    }

    /// Under a game clock the scan runs on roots that the table does not know or knows to be
    /// decided, not on ones it scored near even; without a clock, or while pondering, always.
    #[test]
    fn a_timed_search_scans_only_roots_not_known_to_be_even() {
        let clock = SearchLimits {
            clock: Some(Clock {
                time: Duration::from_secs(10),
                increment: Duration::from_millis(100),
                moves_to_go: None,
            }),
            ..SearchLimits::default()
        };
        let timed = request(clock.clone());
        let tt = TranspositionTable::new(1);
        let key = hash::key(&timed.position);
        assert!(worth_scanning(&timed, &tt));

        tt.store(key, None, 30, 0, 10, Bound::Exact);
        assert!(!worth_scanning(&timed, &tt));
        for limits in [
            SearchLimits {
                depth: Some(8),
                ..SearchLimits::default()
            },
            SearchLimits {
                movetime: Some(Duration::from_secs(1)),
                ..SearchLimits::default()
            },
            SearchLimits {
                ponder: true,
                ..clock.clone()
            },
        ] {
            assert!(worth_scanning(&request(limits), &tt));
        }

        tt.store(key, None, -SCAN_MARGIN - 100, 0, 12, Bound::Upper);
        assert!(worth_scanning(&timed, &tt));
    }
}
