//! The UCI session: one reader of input lines, the game state, the options, the engine.
//!
//! Input arrives on a channel fed by a reader thread, so the loop can wait for a line and for the
//! end of a search at the same time. While a search runs, `isready`, `stop`, `ponderhit`, `uci`
//! and `quit` are handled at once; every other command waits in a queue until the search has
//! reported its `bestmove` (no unrelated line ever stops a search). Bad input of any kind gets an
//! `info string error: ...` and leaves the previous state as it was.

use std::{collections::VecDeque, io::Write, sync::Arc, time::Duration};

use crossbeam_channel::{select, unbounded, Receiver, Sender};
use shakmaty::{Color, Position};

use super::{
    options::{EngineOptions, OptionEffect, EVAL_FILE_EMBEDDED, EVAL_FILE_LINEAR},
    parser::{parse, Go, GoParams, ParseError, StartPosition, UciCommand},
    responses::{Output, UciReporter},
};
use crate::{
    engine::{Engine, SearchRequest},
    proof::book::ProofBook,
    rules::{movegen, notation, Game},
    search::{
        nnue::{self, Network},
        Clock, SearchLimits,
    },
    tablebase::Tablebases,
};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Quit,
}

pub struct Session<W: Write + Send + 'static> {
    out: Arc<Output<W>>,
    options: EngineOptions,
    game: Game,
    engine: Engine,
    pending: VecDeque<UciCommand>,
    tablebases: Option<Arc<Tablebases>>,
    /// The book of `BookFile`, besides the embedded one.
    extra_book: Option<Arc<ProofBook>>,
    /// The evaluation network (`None`: the linear evaluation).
    network: Option<Arc<Network>>,
    done_tx: Sender<()>,
    done_rx: Receiver<()>,
    /// The GUI has set `UCI_Variant`; a GUI that never does may think Syotti plays chess.
    variant_set: bool,
    /// A `ucinewgame` has come: a game is being played, not a single analysis.
    new_game_seen: bool,
    warned_no_variant: bool,
}

impl<W: Write + Send + 'static> Session<W> {
    pub fn new(writer: W) -> Session<W> {
        let options = EngineOptions::default();
        let (done_tx, done_rx) = unbounded();
        Session {
            out: Output::new(writer),
            game: Game::new(options.rule()),
            engine: Engine::new(options.hash_mb),
            options,
            pending: VecDeque::new(),
            tablebases: None,
            extra_book: None,
            network: nnue::embedded(),
            done_tx,
            done_rx,
            variant_set: false,
            new_game_seen: false,
            warned_no_variant: false,
        }
    }

    /// Runs until `quit` or the end of input (which counts as `quit`).
    pub fn run(&mut self, lines: Receiver<String>) {
        self.run_from(None, lines);
    }

    /// Like `run`, with a first line already read (the one that chose the protocol).
    pub fn run_from(&mut self, first: Option<String>, lines: Receiver<String>) {
        if let Some(line) = first {
            if self.handle_line(&line) == Flow::Quit {
                self.engine.stop();
                self.engine.wait();
                return;
            }
        }
        loop {
            let flow = select! {
                recv(lines) -> line => match line {
                    Ok(line) => self.handle_line(&line),
                    Err(_) => Flow::Quit,
                },
                recv(self.done_rx) -> _ => {
                    self.engine.wait();
                    self.drain_pending()
                },
            };
            if flow == Flow::Quit {
                self.engine.stop();
                self.engine.wait();
                return;
            }
        }
    }

    fn say(&self, text: &str) {
        self.out.line(text);
    }

    fn error(&self, text: &str) {
        log::warn!("{text}");
        self.say(&format!("info string error: {text}"));
    }

    fn handle_line(&mut self, line: &str) -> Flow {
        log::debug!("<< {line}");
        let command = match parse(line) {
            Ok(command) => command,
            Err(ParseError::Empty) => return Flow::Continue,
            Err(e) => {
                self.error(&e.to_string());
                return Flow::Continue;
            }
        };
        match command {
            UciCommand::IsReady => self.say("readyok"),
            UciCommand::Uci => self.identify(),
            UciCommand::Debug(_) | UciCommand::Register => {}
            // A `stop` or `ponderhit` that follows a queued `go` is meant for that search (the
            // previous one has already answered, it only has not been reaped yet): it waits
            // behind it. Otherwise it acts at once.
            UciCommand::Stop | UciCommand::PonderHit if self.go_is_queued() => {
                self.pending.push_back(command)
            }
            UciCommand::Stop => self.engine.stop(),
            UciCommand::PonderHit => self.engine.ponderhit(),
            UciCommand::Quit => return Flow::Quit,
            other if self.engine.is_searching() => self.pending.push_back(other),
            other => return self.execute(other),
        }
        Flow::Continue
    }

    fn go_is_queued(&self) -> bool {
        self.pending
            .iter()
            .any(|c| matches!(c, UciCommand::Go(Go::Search(_))))
    }

    /// Runs the queued commands in order until one must wait for a search to end. A queued
    /// `stop` or `ponderhit` acts on the search a queued `go` has just started.
    fn drain_pending(&mut self) -> Flow {
        while let Some(command) = self.pending.pop_front() {
            match command {
                // Whatever it followed has started by now: it is the search it means.
                UciCommand::Stop => self.engine.stop(),
                UciCommand::PonderHit => self.engine.ponderhit(),
                command if self.engine.is_searching() => {
                    self.pending.push_front(command);
                    break;
                }
                command => {
                    if self.execute(command) == Flow::Quit {
                        return Flow::Quit;
                    }
                }
            }
        }
        Flow::Continue
    }

    fn identify(&self) {
        self.say(&format!("id name Syotti {}", env!("CARGO_PKG_VERSION")));
        self.say("id author the Syotti developers");
        for line in EngineOptions::declarations() {
            self.say(&line);
        }
        self.say("uciok");
    }

    fn execute(&mut self, command: UciCommand) -> Flow {
        match command {
            UciCommand::SetOption { name, value } => self.set_option(&name, value.as_deref()),
            UciCommand::UciNewGame => {
                self.new_game_seen = true;
                self.engine.clear();
                self.game = Game::new(self.options.rule());
            }
            UciCommand::Position { start, moves } => self.set_position(&start, &moves),
            UciCommand::Go(Go::Perft(depth)) => self.perft(depth),
            UciCommand::Go(Go::Search(params)) => self.go(&params),
            UciCommand::Quit => return Flow::Quit,
            UciCommand::IsReady
            | UciCommand::Uci
            | UciCommand::Debug(_)
            | UciCommand::Register
            | UciCommand::Stop
            | UciCommand::PonderHit => {}
        }
        Flow::Continue
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        let previous_hash = self.options.hash_mb;
        match self.options.set(name, value) {
            Ok(OptionEffect::Nothing) => {}
            Ok(OptionEffect::ResizeHash(mb)) => {
                if let Err(e) = self.engine.resize(mb) {
                    self.options.hash_mb = previous_hash;
                    self.error(&format!(
                        "cannot allocate {mb} MiB for Hash ({}); keeping {} MiB",
                        e.reason,
                        self.engine.hash_bytes() >> 20
                    ));
                }
            }
            Ok(OptionEffect::ClearHash) => self.engine.clear(),
            // The table's scores were found under the old rules.
            Ok(OptionEffect::RulesChanged) => {
                if name.trim().eq_ignore_ascii_case("UCI_Variant") {
                    self.variant_set = true;
                }
                self.game.set_rule(self.options.rule());
                self.engine.clear();
            }
            Ok(OptionEffect::OpenTablebases) => self.open_tablebases(),
            Ok(OptionEffect::LoadBook) => self.load_book(),
            Ok(OptionEffect::LoadNetwork) => self.load_network(),
            Err(e) => self.error(&e.to_string()),
        }
    }

    fn load_network(&mut self) {
        let name = self.options.eval_file.clone();
        let loaded = match name.as_str() {
            EVAL_FILE_EMBEDDED => nnue::embedded()
                .ok_or_else(|| "this build has no usable embedded network".to_string())
                .map(Some),
            EVAL_FILE_LINEAR => Ok(None),
            path => Network::load(path)
                .map(|n| Some(Arc::new(n)))
                .map_err(|e| e.to_string()),
        };
        match loaded {
            Ok(network) => {
                self.say(&format!(
                    "info string evaluation: {}",
                    match &network {
                        Some(_) => format!("network {name} ({})", nnue::simd_name()),
                        None => "linear".to_string(),
                    }
                ));
                self.network = network;
            }
            Err(e) => self.error(&format!("{e}; keeping the evaluation in use")),
        }
    }

    fn load_book(&mut self) {
        self.extra_book = None;
        if self.options.book_file.is_empty() {
            return;
        }
        let path = self.options.book_file.clone();
        // The file is read whole: refuse one larger than the memory the machine has left.
        let loaded = std::fs::metadata(&path)
            .map_err(|e| format!("cannot read {path}: {e}"))
            .and_then(|m| {
                crate::memory::check_available(usize::try_from(m.len()).unwrap_or(usize::MAX), 0)
                    .map_err(|e| format!("{path}: {e}"))
            })
            .and_then(|()| std::fs::read(&path).map_err(|e| format!("cannot read {path}: {e}")))
            .and_then(|bytes| ProofBook::from_bytes(&bytes).map_err(|e| format!("{path}: {e}")));
        match loaded {
            Ok(book) => {
                self.say(&format!(
                    "info string book {path}: {} positions, {} proved roots",
                    book.len(),
                    book.roots().len()
                ));
                self.extra_book = Some(Arc::new(book));
            }
            Err(e) => self.error(&format!("{e}; no extra book in use")),
        }
    }

    fn open_tablebases(&mut self) {
        self.tablebases = None;
        if self.options.syzygy_path.is_empty() {
            return;
        }
        match Tablebases::open(&self.options.syzygy_path) {
            Ok(tb) => {
                self.say(&format!("info string {}", tb.summary()));
                self.tablebases = Some(Arc::new(tb));
            }
            Err(e) => self.error(&format!("{e}; no tablebases in use")),
        }
    }

    fn set_position(&mut self, start: &StartPosition, moves: &[String]) {
        let rule = self.options.rule();
        let mut game = match start {
            StartPosition::StartPos => Game::new(rule),
            StartPosition::Fen(fen) => match Game::from_fen(fen, rule) {
                Ok(game) => game,
                Err(e) => {
                    self.error(&format!("{e}; position unchanged"));
                    return;
                }
            },
        };
        for (index, text) in moves.iter().enumerate() {
            // Legal moves are accepted even after a draw by history: a GUI may play on.
            match notation::parse_uci_move(game.position(), text) {
                Ok(m) => game.push(m),
                Err(e) => {
                    self.error(&format!(
                        "move {} of the list: {e}; position unchanged",
                        index + 1
                    ));
                    return;
                }
            }
        }
        self.game = game;
    }

    fn perft(&mut self, depth: u32) {
        let pos = self.game.position();
        let mut divided = movegen::perft_divide(pos, depth);
        divided.sort_by_key(|(m, _)| notation::uci(*m));
        for (m, count) in &divided {
            self.say(&format!("{}: {count}", notation::uci(*m)));
        }
        let total: u64 = if depth == 0 {
            1
        } else {
            divided.iter().map(|(_, n)| n).sum()
        };
        self.say("");
        self.say(&format!("Nodes searched: {total}"));
    }

    fn limits(&self, go: &GoParams) -> SearchLimits {
        let pos = self.game.position();
        let (time, inc) = match pos.turn() {
            Color::White => (go.wtime, go.winc),
            Color::Black => (go.btime, go.binc),
        };
        let clock = time.map(|ms| Clock {
            time: Duration::from_millis(ms),
            increment: Duration::from_millis(inc.unwrap_or(0)),
            moves_to_go: go.movestogo,
        });
        let mut searchmoves = Vec::new();
        for text in &go.searchmoves {
            match notation::parse_uci_move(pos, text) {
                Ok(m) => searchmoves.push(m),
                Err(e) => self.error(&format!("searchmoves: {e}; ignored")),
            }
        }
        SearchLimits {
            depth: go.depth,
            nodes: go.nodes,
            movetime: go.movetime.map(Duration::from_millis),
            mate: go.mate,
            clock,
            infinite: go.infinite,
            ponder: go.ponder,
            searchmoves,
            spent: Duration::ZERO,
        }
    }

    fn go(&mut self, go: &GoParams) {
        // A game (`ucinewgame` came) whose first search starts with no `UCI_Variant` ever set:
        // probably a GUI playing standard chess. Only a hint in its log: the engine cannot know.
        // (Waiting for the search rather than warning at `ucinewgame` spares clients such as
        // python-chess, which set the variant after `ucinewgame`.)
        if self.new_game_seen && !self.variant_set && !self.warned_no_variant {
            log::warn!(
                "a game without UCI_Variant: Syotti plays antichess rules only; choose the \
                 variant antichess or suicide in the GUI"
            );
            self.warned_no_variant = true;
        }
        let request = SearchRequest {
            position: self.game.position().clone(),
            history: self.game.keys().to_vec(),
            rule: self.game.rule(),
            limits: self.limits(go),
            multipv: self.options.multipv,
            threads: self.options.threads,
            move_overhead: Duration::from_millis(self.options.move_overhead_ms),
            prove: self.options.proof,
            proof_memory_mb: self.options.hash_mb,
            tablebases: self.tablebases.clone(),
            probe_limit: self.options.syzygy_probe_limit,
            rule50: self.options.syzygy_50_move_rule,
            // Analysis wants the objective score of a draw.
            contempt: if self.options.analyse_mode {
                0
            } else {
                self.options.contempt
            },
            books: self
                .options
                .book
                .then(ProofBook::embedded)
                .flatten()
                .into_iter()
                .chain(self.extra_book.clone())
                .collect(),
            network: self.network.clone(),
            skill: self.options.skill(),
        };
        let reporter = Arc::new(UciReporter {
            out: Arc::clone(&self.out),
        });
        self.engine.start(request, reporter, self.done_tx.clone());
    }
}
