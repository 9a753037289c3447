//! The XBoard/CECP session: the game, the clocks, the modes, and the engine under them.
//!
//! CECP puts the game in the engine's hands: the engine keeps the board, plays the side it was
//! told to (`go`, `playother`, none in `force` mode), and answers with `move ...` when it has
//! thought. Commands arrive at any time and act at once: a search that a command makes pointless
//! (`new`, `force`, `undo`, `setboard`, a move while pondering on another one) is stopped and its
//! result thrown away. Each search carries an id; a result whose id is not the current search's
//! is stale and ignored.
//!
//! Pondering (`hard`): after its move the engine searches the position after the reply it
//! expects. If that reply comes, the search goes on as the real one (a UCI `ponderhit`); if
//! another comes, it is dropped. Analysis (`analyze`) is an infinite search restarted after every
//! change of position; its thinking lines are always shown.
//!
//! Bad input of any kind is answered `Error (REASON): COMMAND` and changes nothing; an illegal
//! move `Illegal move (REASON): MOVE`.

use std::{
    io::Write,
    sync::{
        atomic::{AtomicBool, Ordering},
        Arc, Mutex,
    },
    time::{Duration, Instant},
};

use crossbeam_channel::{select, unbounded, Receiver, Sender};
use shakmaty::{Color, Move, Position};

use super::parser::{parse, XboardCommand, XboardParseError};
use crate::{
    engine::{
        settings::{
            CONTEMPT_DEFAULT, CONTEMPT_MAX, HASH_DEFAULT, MOVE_OVERHEAD_DEFAULT, MOVE_OVERHEAD_MAX,
            STALEMATE_FROM_VARIANT, SYZYGY_PROBE_LIMIT_MAX, THREADS_MAX,
        },
        skill::{Skill, MAX_LEVEL},
        Engine, SearchRequest,
    },
    proof::book::ProofBook,
    protocol::Output,
    rules::{notation, Game, Outcome, StalemateRule, Termination, Variant},
    search::{mate_moves, Clock, Reporter, Score, SearchInfo, SearchLimits},
    tablebase::Tablebases,
};

/// Mate scores in thinking output: 100000 + N for a win in N moves, negative for a loss.
const XBOARD_MATE: i64 = 100_000;

/// The variants Syotti plays, by their XBoard names. `giveaway` is lichess antichess without
/// castling (as Nakshatra and python-chess use the name); `suicide` is FICS suicide.
fn variant_named(name: &str) -> Option<Variant> {
    match name {
        "giveaway" => Some(Variant::Antichess),
        "suicide" => Some(Variant::Suicide),
        _ => None,
    }
}

/// The `feature` lines answered to `protover 2`.
pub fn features() -> Vec<String> {
    let rules: String = StalemateRule::ALL
        .iter()
        .map(|r| format!(" /// {}", r.name()))
        .collect();
    vec![
        "feature done=0".to_string(),
        format!("feature myname=\"Syotti {}\"", env!("CARGO_PKG_VERSION")),
        "feature setboard=1 usermove=1 ping=1 time=1 colors=0 sigint=0 sigterm=0 analyze=1 \
         memory=1 smp=1 egt=\"syzygy\" reuse=1 pause=0 debug=1 draw=1 playother=1 san=0 \
         name=0 ics=0 exclude=0 nps=0"
            .to_string(),
        "feature variants=\"giveaway,suicide\"".to_string(),
        format!("feature option=\"Stalemate -combo *{STALEMATE_FROM_VARIANT}{rules}\""),
        format!("feature option=\"Contempt -spin {CONTEMPT_DEFAULT} 0 {CONTEMPT_MAX}\""),
        "feature option=\"Proof -check 1\"".to_string(),
        "feature option=\"Book -check 1\"".to_string(),
        format!("feature option=\"Skill Level -spin {MAX_LEVEL} 0 {MAX_LEVEL}\""),
        format!(
            "feature option=\"Move Overhead -spin {MOVE_OVERHEAD_DEFAULT} 0 {MOVE_OVERHEAD_MAX}\""
        ),
        "feature done=1".to_string(),
    ]
}

/// What a search is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The engine's move: played when the search ends.
    Think,
    /// On the position after the reply the engine expects, during the opponent's time.
    Ponder { expected: Move },
    /// Analysis: shown, never played.
    Analyse,
}

#[derive(Clone, Copy, Debug)]
struct Current {
    id: u64,
    kind: Kind,
    /// When the engine's clock started for this search (its start, or the ponder hit).
    clock_started: Instant,
}

/// A search's answer, sent by its reporter.
struct Finished {
    id: u64,
    best: Option<Move>,
    ponder: Option<Move>,
}

/// The clock settings of `level`, `st` and `sd`, and the clocks of `time` and `otim`.
#[derive(Clone, Debug, Default)]
struct TimeControl {
    moves_per_period: u32,
    increment: Duration,
    per_move: Option<Duration>,
    depth: Option<u32>,
    engine_time: Option<Duration>,
}

/// Reports a search in CECP: thinking lines (when posting) and the answer to the session.
struct XboardReporter<W: Write + Send> {
    out: Arc<Output<W>>,
    post: bool,
    id: u64,
    finished: Sender<Finished>,
    last_score: Arc<Mutex<Option<Score>>>,
}

/// `ply score time nodes pv`: score in centipawns for the side to move (mates as 100000 + N
/// moves), time in centiseconds.
pub fn thinking_line(info: &SearchInfo) -> String {
    let score = match mate_moves(info.score) {
        Some(n) if n > 0 => XBOARD_MATE + i64::from(n),
        Some(n) => -XBOARD_MATE + i64::from(n),
        None => i64::from(info.score),
    };
    let pv: Vec<String> = info.pv.iter().map(|&m| notation::uci(m)).collect();
    format!(
        "{} {} {} {} {}",
        info.depth,
        score,
        info.time.as_millis() / 10,
        info.nodes,
        pv.join(" ")
    )
}

impl<W: Write + Send> Reporter for XboardReporter<W> {
    fn info(&self, info: &SearchInfo) {
        if info.multipv == 1 {
            if let Ok(mut last) = self.last_score.lock() {
                *last = Some(info.score);
            }
        }
        if self.post {
            self.out.line(&thinking_line(info));
        }
    }

    fn current_move(&self, _: u32, _: Move, _: usize) {}

    fn message(&self, text: &str) {
        self.out.line(&format!("# {text}"));
    }

    fn best_move(&self, best: Option<Move>, ponder: Option<Move>) {
        // The session may be gone (end of input): nobody left to tell.
        let _ = self.finished.send(Finished {
            id: self.id,
            best,
            ponder,
        });
    }
}

/// The `RESULT {COMMENT}` claim for a finished game.
pub fn result_line(outcome: Outcome) -> String {
    let side = |c: Color| if c.is_white() { "White" } else { "Black" };
    let comment = match (outcome.winner, outcome.termination) {
        (Some(c), Termination::NoPieces) => format!("{} wins by losing all pieces", side(c)),
        (Some(c), Termination::Stalemate) => format!("{} wins by stalemate", side(c)),
        (Some(c), t) => format!("{} wins ({})", side(c), t.description()),
        (None, Termination::Repetition) => "Draw by repetition".to_string(),
        (None, Termination::FiftyMoves) => "Draw by fifty-move rule".to_string(),
        (None, t) => format!("Draw ({})", t.description()),
    };
    format!("{} {{{comment}}}", outcome.pgn())
}

pub struct Session<W: Write + Send + 'static> {
    out: Arc<Output<W>>,
    engine: Engine,
    game: Game,
    variant: Variant,
    stalemate: Option<StalemateRule>,
    /// The side the engine plays; `None` in force mode.
    engine_side: Option<Color>,
    time: TimeControl,
    post: bool,
    ponder: bool,
    analysing: bool,
    hash_mb: usize,
    threads: usize,
    contempt: Score,
    /// `Skill Level` (`engine::skill`): `MAX_LEVEL` is full strength.
    skill_level: u8,
    proof: bool,
    /// Answer from the embedded book of proofs.
    book: bool,
    move_overhead_ms: u64,
    tablebases: Option<Arc<Tablebases>>,
    current: Option<Current>,
    next_id: u64,
    finished_tx: Sender<Finished>,
    finished_rx: Receiver<Finished>,
    /// The engine's side's last score, for `draw` offers.
    last_score: Arc<Mutex<Option<Score>>>,
    /// `Engine::start` wants a channel of its own; its messages duplicate `finished`.
    done_tx: Sender<()>,
    quit: Arc<AtomicBool>,
}

impl<W: Write + Send + 'static> Session<W> {
    pub fn new(writer: W) -> Session<W> {
        let (finished_tx, finished_rx) = unbounded();
        let (done_tx, _) = unbounded();
        Session {
            out: Output::new(writer),
            engine: Engine::new(HASH_DEFAULT),
            game: Game::new(Variant::Antichess.stalemate_rule()),
            variant: Variant::Antichess,
            stalemate: None,
            engine_side: Some(Color::Black),
            time: TimeControl::default(),
            post: false,
            ponder: false,
            analysing: false,
            hash_mb: HASH_DEFAULT,
            threads: 1,
            contempt: CONTEMPT_DEFAULT as Score,
            skill_level: MAX_LEVEL,
            proof: true,
            book: true,
            move_overhead_ms: MOVE_OVERHEAD_DEFAULT,
            tablebases: None,
            current: None,
            next_id: 0,
            finished_tx,
            finished_rx,
            last_score: Arc::default(),
            done_tx,
            quit: Arc::default(),
        }
    }

    /// Runs until `quit` or the end of input; `first` is a line already read (`xboard`).
    pub fn run(&mut self, first: Option<String>, lines: Receiver<String>) {
        if let Some(line) = first {
            self.handle_line(&line);
        }
        while !self.quit.load(Ordering::Relaxed) {
            select! {
                recv(lines) -> line => match line {
                    Ok(line) => self.handle_line(&line),
                    Err(_) => break,
                },
                recv(self.finished_rx) -> finished => {
                    if let Ok(finished) = finished {
                        self.search_finished(finished);
                    }
                },
            }
        }
        self.abort();
    }

    fn say(&self, text: &str) {
        self.out.line(text);
    }

    fn error(&self, reason: &str, line: &str) {
        log::warn!("{reason}: {line}");
        self.say(&format!("Error ({reason}): {}", line.trim()));
    }

    fn rule(&self) -> StalemateRule {
        self.stalemate.unwrap_or(self.variant.stalemate_rule())
    }

    fn handle_line(&mut self, line: &str) {
        log::debug!("<< {line}");
        let command = match parse(line) {
            Ok(command) => command,
            Err(XboardParseError::Empty) => return,
            Err(e) => {
                log::warn!("{e}: {line}");
                self.say(&e.reply(line));
                return;
            }
        };
        self.execute(command, line);
    }

    fn execute(&mut self, command: XboardCommand, line: &str) {
        use XboardCommand as C;
        match command {
            C::Xboard | C::Accepted(_) | C::Ignored(_) => {}
            C::Rejected(feature) => log::info!("the interface rejected feature {feature}"),
            C::Protover(_) => {
                for feature in features() {
                    self.say(&feature);
                }
            }
            C::New => {
                self.abort();
                self.variant = Variant::Antichess;
                self.game = Game::new(self.rule());
                self.engine_side = Some(Color::Black);
                self.analysing = false;
                self.time.depth = None;
                self.engine.clear();
            }
            C::Variant(name) => match variant_named(&name) {
                Some(variant) => {
                    self.abort();
                    self.variant = variant;
                    self.game = Game::new(self.rule());
                    self.engine.clear();
                }
                None => self.error(
                    "Syotti plays only giveaway (lichess antichess, no castling) and suicide",
                    line,
                ),
            },
            C::Quit => {
                self.abort();
                self.quit.store(true, Ordering::Relaxed);
            }
            C::Force => {
                self.abort();
                self.engine_side = None;
            }
            C::Go => {
                self.abort();
                self.engine_side = Some(self.game.position().turn());
                self.think();
            }
            C::PlayOther => {
                self.abort();
                self.engine_side = Some(!self.game.position().turn());
            }
            C::Level {
                moves_per_period,
                base,
                increment,
            } => {
                self.time.moves_per_period = moves_per_period;
                self.time.increment = increment;
                self.time.per_move = None;
                self.time.engine_time = Some(base);
            }
            C::St(per_move) => self.time.per_move = Some(per_move),
            C::Sd(depth) => self.time.depth = Some(depth.max(1)),
            C::Time(t) => self.time.engine_time = Some(t),
            C::Otim(_) => {}
            C::UserMove(text) => self.user_move(&text),
            C::MoveNow => {
                if matches!(
                    self.current,
                    Some(Current {
                        kind: Kind::Think,
                        ..
                    })
                ) {
                    self.engine.stop();
                }
            }
            C::Ping(n) => self.say(&format!("pong {n}")),
            C::Draw => {
                // Accept only what the engine judges drawn or lost.
                let drawn = self.game.outcome().is_some_and(|o| o.winner.is_none());
                let score = self.last_score.lock().ok().and_then(|s| *s);
                if drawn || score.is_some_and(|s| s <= 0) {
                    self.say("offer draw");
                }
            }
            C::Result { result, comment } => {
                log::info!("game over: {result} {comment}");
                self.abort();
                self.engine_side = None;
            }
            C::SetBoard(fen) => match Game::from_fen(&fen, self.rule()) {
                Ok(game) => {
                    self.abort();
                    self.game = game;
                    self.restart_analysis();
                }
                Err(e) => self.error(&e.to_string(), line),
            },
            C::Undo => self.take_back(1, line),
            C::Remove => self.take_back(2, line),
            C::Hard => self.ponder = true,
            C::Easy => {
                self.ponder = false;
                if matches!(
                    self.current,
                    Some(Current {
                        kind: Kind::Ponder { .. },
                        ..
                    })
                ) {
                    self.abort();
                }
            }
            C::Post => self.post = true,
            C::NoPost => self.post = false,
            C::Analyze => {
                self.abort();
                self.analysing = true;
                self.engine_side = None;
                self.restart_analysis();
            }
            C::Exit => {
                self.abort();
                self.analysing = false;
            }
            C::Status => {}
            C::Memory(mb) => {
                self.abort();
                match self.engine.resize(mb.max(1)) {
                    Ok(()) => self.hash_mb = mb.max(1),
                    Err(e) => self.error(
                        &format!(
                            "cannot allocate {mb} MiB ({}); keeping {} MiB",
                            e.reason,
                            self.engine.hash_bytes() >> 20
                        ),
                        line,
                    ),
                }
            }
            C::Cores(n) if (1..=THREADS_MAX).contains(&n) => self.threads = n,
            C::Cores(_) => self.error(&format!("cores must be 1 to {THREADS_MAX}"), line),
            C::EgtPath { kind, path } => {
                if kind != "syzygy" {
                    self.error("only syzygy tables are supported", line);
                    return;
                }
                match Tablebases::open(&path) {
                    Ok(tb) => {
                        self.say(&format!("# {}", tb.summary()));
                        self.tablebases = Some(Arc::new(tb));
                    }
                    Err(e) => self.error(&e.to_string(), line),
                }
            }
            C::Option { name, value } => self.set_option(&name, value.as_deref(), line),
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>, line: &str) {
        let Some(value) = value else {
            self.error(&format!("option '{name}' needs a value"), line);
            return;
        };
        let number = |max: i64| -> Result<i64, String> {
            value
                .parse::<i64>()
                .ok()
                .filter(|v| (0..=max).contains(v))
                .ok_or_else(|| format!("expected a number from 0 to {max}"))
        };
        let check = |value: &str| match value {
            "1" | "true" => Ok(true),
            "0" | "false" => Ok(false),
            _ => Err("expected 0 or 1".to_string()),
        };
        let result = match name {
            "Stalemate" => {
                if value == STALEMATE_FROM_VARIANT {
                    self.stalemate = None;
                    Ok(())
                } else {
                    value
                        .parse::<StalemateRule>()
                        .map(|r| self.stalemate = Some(r))
                        .map_err(|e| e.to_string())
                }
            }
            "Contempt" => number(CONTEMPT_MAX as i64).map(|v| self.contempt = v as Score),
            "Proof" => check(value).map(|v| self.proof = v),
            "Skill Level" => number(i64::from(MAX_LEVEL)).map(|v| self.skill_level = v as u8),
            "Book" => check(value).map(|v| self.book = v),
            "Move Overhead" => {
                number(MOVE_OVERHEAD_MAX as i64).map(|v| self.move_overhead_ms = v as u64)
            }
            _ => Err(format!("unknown option '{name}'")),
        };
        match result {
            Ok(()) => {
                if name == "Stalemate" {
                    self.abort();
                    self.game.set_rule(self.rule());
                    self.engine.clear();
                }
            }
            Err(reason) => self.error(&reason, line),
        }
    }

    /// Stops the current search, if any, and forgets it: its answer will be ignored.
    fn abort(&mut self) {
        if self.current.take().is_some() {
            self.engine.stop();
            self.engine.wait();
        }
    }

    fn take_back(&mut self, plies: usize, line: &str) {
        if self.game.moves().len() < plies {
            self.error("no move to take back", line);
            return;
        }
        self.abort();
        for _ in 0..plies {
            self.game.undo();
        }
        self.restart_analysis();
    }

    fn user_move(&mut self, text: &str) {
        let m = match notation::parse_move(self.game.position(), text) {
            Ok(m) => m,
            Err(e) => {
                self.say(&format!("Illegal move ({e}): {text}"));
                return;
            }
        };
        if let Some(o) = self.game.outcome() {
            self.say(&format!("Illegal move (the game is over: {o}): {text}"));
            return;
        }
        // The reply the engine pondered on: its search goes on as the real one.
        if let Some(Current {
            id,
            kind: Kind::Ponder { expected },
            ..
        }) = self.current
        {
            if expected == m {
                self.game.push(m);
                self.current = Some(Current {
                    id,
                    kind: Kind::Think,
                    clock_started: Instant::now(),
                });
                self.engine.ponderhit();
                return;
            }
        }
        self.abort();
        self.game.push(m);
        if self.claim_result() {
            return;
        }
        if self.analysing {
            self.restart_analysis();
        } else if self.engine_side == Some(self.game.position().turn()) {
            self.think();
        }
    }

    /// Says the result if the game is over; true if it is.
    fn claim_result(&mut self) -> bool {
        match self.game.outcome() {
            Some(outcome) => {
                self.say(&result_line(outcome));
                true
            }
            None => false,
        }
    }

    fn restart_analysis(&mut self) {
        if self.analysing && self.game.outcome().is_none() {
            let limits = SearchLimits {
                infinite: true,
                ..SearchLimits::default()
            };
            self.start(Kind::Analyse, limits, self.game.clone());
        }
    }

    /// The engine's search limits from the clocks.
    fn limits(&self, ponder: bool, game: &Game) -> SearchLimits {
        let moves_to_go = (self.time.moves_per_period > 0).then(|| {
            // Moves the engine's side has made in the game, in this period.
            let side = game.position().turn();
            let plies = game.moves().len() as u32;
            let made = if game.start().turn() == side {
                plies.div_ceil(2)
            } else {
                plies / 2
            };
            self.time.moves_per_period - made % self.time.moves_per_period
        });
        SearchLimits {
            depth: self.time.depth,
            movetime: self.time.per_move,
            clock: match (self.time.per_move, self.time.engine_time) {
                (None, Some(time)) => Some(Clock {
                    time,
                    increment: self.time.increment,
                    moves_to_go,
                }),
                _ => None,
            },
            ponder,
            ..SearchLimits::default()
        }
    }

    fn think(&mut self) {
        if self.claim_result() {
            return;
        }
        let limits = self.limits(false, &self.game);
        self.start(Kind::Think, limits, self.game.clone());
    }

    fn start(&mut self, kind: Kind, limits: SearchLimits, game: Game) {
        self.abort();
        self.next_id += 1;
        let id = self.next_id;
        let analysing = kind == Kind::Analyse;
        let request = SearchRequest {
            position: game.position().clone(),
            history: game.keys().to_vec(),
            rule: game.rule(),
            limits,
            multipv: 1,
            threads: self.threads,
            move_overhead: Duration::from_millis(self.move_overhead_ms),
            prove: self.proof,
            proof_memory_mb: self.hash_mb,
            tablebases: self.tablebases.clone(),
            probe_limit: SYZYGY_PROBE_LIMIT_MAX,
            rule50: true,
            contempt: if analysing { 0 } else { self.contempt },
            books: if self.book {
                ProofBook::embedded().into_iter().collect()
            } else {
                Vec::new()
            },
            network: crate::search::nnue::embedded(),
            skill: Skill::new(self.skill_level),
        };
        let reporter = Arc::new(XboardReporter {
            out: Arc::clone(&self.out),
            post: self.post || analysing,
            id,
            finished: self.finished_tx.clone(),
            last_score: if kind == Kind::Think {
                Arc::clone(&self.last_score)
            } else {
                Arc::default()
            },
        });
        self.engine.start(request, reporter, self.done_tx.clone());
        self.current = Some(Current {
            id,
            kind,
            clock_started: Instant::now(),
        });
    }

    fn search_finished(&mut self, finished: Finished) {
        let Some(current) = self.current else {
            return;
        };
        if current.id != finished.id {
            return;
        }
        self.current = None;
        self.engine.wait();
        if current.kind != Kind::Think {
            return;
        }
        // The interface sends the clock before the opponent's moves only: until then, count
        // what this search used, so that a ponder search started now plans on the right time.
        if let Some(time) = &mut self.time.engine_time {
            *time = time.saturating_sub(current.clock_started.elapsed());
        }
        let Some(best) = finished.best else {
            self.claim_result();
            return;
        };
        self.game.push(best);
        self.say(&format!("move {}", notation::uci(best)));
        if self.claim_result() {
            return;
        }
        // Ponder on the reply the search expects.
        if let Some(expected) = finished.ponder.filter(|_| self.ponder) {
            if self.game.legal_moves().contains(&expected) {
                let mut game = self.game.clone();
                game.push(expected);
                if game.outcome().is_none() {
                    let limits = self.limits(true, &game);
                    self.start(Kind::Ponder { expected }, limits, game);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Bound, MATE};

    #[test]
    fn thinking_lines_and_mate_scores() {
        let info = |score| SearchInfo {
            depth: 7,
            seldepth: 9,
            multipv: 1,
            score,
            bound: Bound::Exact,
            nodes: 1234,
            nps: 0,
            hashfull: 0,
            time: Duration::from_millis(1500),
            pv: Vec::new(),
            tbhits: 0,
        };
        assert_eq!(thinking_line(&info(-35)), "7 -35 150 1234 ");
        assert_eq!(thinking_line(&info(MATE - 5)), "7 100003 150 1234 ");
        assert_eq!(thinking_line(&info(-(MATE - 4))), "7 -100002 150 1234 ");
    }

    #[test]
    fn results_are_claimed_in_words() {
        assert_eq!(
            result_line(Outcome::win(Color::Black, Termination::NoPieces)),
            "0-1 {Black wins by losing all pieces}"
        );
        assert_eq!(
            result_line(Outcome::draw(Termination::Repetition)),
            "1/2-1/2 {Draw by repetition}"
        );
    }

    #[test]
    fn features_end_with_done() {
        let f = features();
        assert_eq!(f.first().map(String::as_str), Some("feature done=0"));
        assert_eq!(f.last().map(String::as_str), Some("feature done=1"));
        assert!(f
            .iter()
            .any(|l| l.contains("variants=\"giveaway,suicide\"")));
    }
}
