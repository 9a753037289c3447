//! `syotti analyse`: positions and games analysed for people and for scripts.
//!
//! Each position is searched like a UCI `go` (proof scan first, then alpha-beta) within the
//! limits given. Games are analysed move by move: the best move and score before each move, the
//! score after it, and a judgement of the move from the drop in winning chances, written as an
//! annotated PGN with `[%eval]` comments.

use std::{
    io::{IsTerminal, Read, Write},
    path::PathBuf,
    sync::Arc,
    time::Duration,
};

use shakmaty::Color;

use super::{create_output, json_string, prove::open_tables, RulesArgs, EXIT_BAD_INPUT};
use crate::{
    engine::{self, analyser::Analysis, SearchRequest},
    pgn::{self, AnnotatedMove},
    proof::book::ProofBook,
    rules::{notation, Antichess, Game, Position, StalemateRule, Variant},
    search::{mate_moves, SearchControl, SearchLimits, MATE_BOUND, MAX_PLY, TB_WIN},
    tablebase::Tablebases,
};

#[derive(Debug, clap::Args)]
pub struct AnalyseArgs {
    /// A position to analyse (repeatable); '-' reads FENs from standard input, one a line.
    #[arg(long = "fen")]
    pub fens: Vec<String>,
    /// An EPD file of positions (repeatable); '-' for standard input.
    #[arg(long = "epd")]
    pub epds: Vec<String>,
    /// A PGN file of games to annotate (repeatable); '-' for standard input.
    #[arg(long = "pgn")]
    pub pgns: Vec<String>,
    /// Search depth per position.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Nodes per position.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Seconds per position (default 0.5 when no limit is given).
    #[arg(long)]
    pub time: Option<f64>,
    /// Lines to show per position.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub multipv: u16,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: u16,
    /// Transposition table size, MiB.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub hash: u32,
    #[command(flatten)]
    pub rules: RulesArgs,
    /// One JSON object a line (per position, or per move of a game) instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write the annotated games here (default: standard output, in text mode).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Endgame tablebase folders.
    #[arg(long)]
    pub syzygy: Option<String>,
    /// Do not run the proof search before alpha-beta.
    #[arg(long)]
    pub no_proof: bool,
    /// Do not answer from the embedded book of proofs.
    #[arg(long)]
    pub no_book: bool,
}

struct Analyser<'a> {
    args: &'a AnalyseArgs,
    /// The searches, one after another, sharing their table, proofs and statistics.
    engine: engine::analyser::Analyser,
    tables: Option<Arc<Tablebases>>,
    failed: bool,
    done: usize,
    total: usize,
    progress: bool,
}

/// A score as a person reads it, from White's point of view.
fn human_score(score: i32, turn: Color) -> String {
    let white = if turn.is_white() { score } else { -score };
    let side = |positive: bool| if positive { "White" } else { "Black" };
    if let Some(moves) = mate_moves(white) {
        format!("{} wins in {}", side(moves > 0), moves.abs())
    } else if white.abs() >= TB_WIN - MAX_PLY as i32 {
        format!("{} wins (tablebase)", side(white > 0))
    } else {
        format!("{:+.2}", f64::from(white) / 100.0)
    }
}

/// `[%eval]` value from White's point of view.
fn eval_text(score: i32, turn: Color) -> String {
    let white = if turn.is_white() { score } else { -score };
    match mate_moves(white) {
        Some(moves) => format!("#{moves}"),
        None => format!("{:.2}", f64::from(white) / 100.0),
    }
}

fn score_json(score: i32) -> String {
    match mate_moves(score) {
        Some(moves) => format!("{{\"mate\":{moves}}}"),
        None => format!("{{\"cp\":{score}}}"),
    }
}

/// Winning chances in [0, 1] for the side whose score this is.
fn winning_chances(score: i32) -> f64 {
    if score > MATE_BOUND {
        return 1.0;
    }
    if score < -MATE_BOUND {
        return 0.0;
    }
    1.0 / (1.0 + (-f64::from(score) / 250.0).exp())
}

impl Analyser<'_> {
    fn limits(&self) -> SearchLimits {
        let a = self.args;
        let time = match (a.depth, a.nodes, a.time) {
            (None, None, None) => Some(0.5),
            (_, _, t) => t,
        };
        SearchLimits {
            depth: a.depth,
            nodes: a.nodes,
            movetime: time.map(Duration::from_secs_f64),
            ..SearchLimits::default()
        }
    }

    fn search(&mut self, game: &Game) -> Analysis {
        let request = SearchRequest {
            multipv: usize::from(self.args.multipv),
            threads: usize::from(self.args.threads),
            prove: !self.args.no_proof,
            tablebases: self.tables.clone(),
            probe_limit: 7,
            books: if self.args.no_book {
                Vec::new()
            } else {
                ProofBook::embedded().into_iter().collect()
            },
            ..SearchRequest::analysis(game, self.limits())
        };
        let a = self.engine.search(&request, &SearchControl::default());
        self.done += 1;
        if self.progress {
            eprint!("\ranalysing {}/{}", self.done, self.total.max(self.done));
            let _ = std::io::stderr().flush();
        }
        a
    }

    fn report_error(&mut self, text: &str) {
        self.failed = true;
        if self.progress {
            eprintln!();
        }
        eprintln!("error: {text}");
    }

    fn position(&mut self, label: &str, game: &Game) {
        let pos = game.position().clone();
        let fen = notation::to_fen(&pos);
        if let Some(outcome) = game.outcome() {
            if self.args.json {
                println!(
                    "{{\"fen\":{},\"bestmove\":null,\"san\":null,\"score\":null,\"pv\":[],\"depth\":0,\"nodes\":0,\"result\":{}}}",
                    json_string(&fen),
                    json_string(&outcome.to_string())
                );
            } else {
                println!("{label}: {fen}\n  game over: {outcome}\n");
            }
            return;
        }
        let a = self.search(game);
        let tb_note = self.tablebase_note(&pos, game.rule());
        if self.args.json {
            let lines: Vec<String> = a
                .lines
                .iter()
                .map(|l| {
                    let pv: Vec<String> =
                        l.pv.iter()
                            .map(|&m| json_string(&notation::uci(m)))
                            .collect();
                    format!(
                        "{{\"multipv\":{},\"score\":{},\"pv\":[{}]}}",
                        l.multipv,
                        score_json(l.score),
                        pv.join(",")
                    )
                })
                .collect();
            let pv: Vec<String> = a
                .lines
                .first()
                .map(|l| {
                    l.pv.iter()
                        .map(|&m| json_string(&notation::uci(m)))
                        .collect()
                })
                .unwrap_or_default();
            println!(
                "{{\"fen\":{},\"bestmove\":{},\"san\":{},\"score\":{},\"pv\":[{}],\"depth\":{},\"nodes\":{},\"time_ms\":{},\"proved\":{},\"tablebase\":{},\"lines\":[{}]}}",
                json_string(&fen),
                a.best.map_or("null".into(), |m| json_string(&notation::uci(m))),
                a.best.map_or("null".into(), |m| json_string(&notation::san(&pos, m))),
                score_json(a.score),
                pv.join(","),
                a.depth,
                a.nodes,
                a.time.as_millis(),
                a.proved,
                tb_note.as_deref().map_or("null".into(), json_string),
                lines.join(",")
            );
            return;
        }
        if self.progress {
            eprint!("\r");
        }
        println!("{label}: {fen}");
        if let Some(best) = a.best {
            println!(
                "  best: {} ({})  score: {}{}",
                notation::san(&pos, best),
                notation::uci(best),
                human_score(a.score, pos.turn()),
                if a.proved { " (proved)" } else { "" }
            );
        }
        if let Some(note) = tb_note {
            println!("  {note}");
        }
        for line in &a.lines {
            println!(
                "  {}{}  {}",
                if a.lines.len() > 1 {
                    format!("{}. ", line.multipv)
                } else {
                    "line: ".to_string()
                },
                notation::san_line(&pos, &line.pv),
                if a.lines.len() > 1 {
                    human_score(line.score, pos.turn())
                } else {
                    String::new()
                }
            );
        }
        println!(
            "  depth {}  nodes {}  time {:.2} s\n",
            a.depth,
            a.nodes,
            a.time.as_secs_f64()
        );
    }

    fn tablebase_note(&self, pos: &Antichess, rule: StalemateRule) -> Option<String> {
        let tb = self.tables.as_ref()?;
        let wdl = tb.wdl_after_zeroing(pos, rule, 7)?;
        let dtz = tb.dtz(pos, rule, 7);
        let side = |c: Color| if c.is_white() { "White" } else { "Black" };
        let plies = dtz.map_or(String::new(), |d| format!(", {} plies to zeroing", d.abs()));
        Some(match wdl as i32 {
            2 => format!("tablebase win for {}{plies}", side(pos.turn())),
            -2 => format!("tablebase win for {}{plies}", side(!pos.turn())),
            1 | -1 => "tablebase: drawn by the fifty-move rule".to_string(),
            _ => "tablebase draw".to_string(),
        })
    }

    fn game(&mut self, game_pgn: &pgn::PgnGame, out: &mut dyn Write) {
        let number = game_pgn.number;
        let mut rule = self.args.rules.rule();
        if let Some(variant) = game_pgn.tag("Variant") {
            match variant.parse::<Variant>() {
                Ok(v) => {
                    if self.args.rules.stalemate.is_none() {
                        rule = v.stalemate_rule();
                    }
                }
                Err(_) => {
                    self.report_error(&format!(
                        "game {number}: variant '{variant}' is not antichess or suicide; skipped"
                    ));
                    return;
                }
            }
        }
        let start = game_pgn.tag("FEN").unwrap_or(notation::START_FEN);
        let mut game = match Game::from_fen(start, rule) {
            Ok(g) => g,
            Err(e) => {
                self.report_error(&format!("game {number}: {e}; skipped"));
                return;
            }
        };
        // Check every move before spending time on the analysis.
        let mut moves = Vec::new();
        let mut check = game.clone();
        for (i, text) in game_pgn.moves.iter().enumerate() {
            let move_number = check.position().fullmoves().get();
            match notation::parse_move(check.position(), text) {
                Ok(m) => {
                    check.push(m);
                    moves.push(m);
                }
                Err(e) => {
                    let dots = if i % 2 == 0 { "." } else { "..." };
                    self.report_error(&format!(
                        "game {number}, move {move_number}{dots} {text}: {e}; game skipped"
                    ));
                    return;
                }
            }
        }
        let first_number = game.position().fullmoves().get();
        let white_first = game.position().turn().is_white();
        let mut before = self.search(&game);
        let mut annotated = Vec::new();
        for (ply, &m) in moves.iter().enumerate() {
            let pos = game.position().clone();
            let san = notation::san(&pos, m);
            game.push(m);
            let after_pos = game.position().clone();
            let (after_score, after) = match game.outcome() {
                Some(o) => {
                    // The mover's result, seen from the side now to move.
                    let s = o.score_for(after_pos.turn()) * (crate::search::MATE);
                    (s, None)
                }
                None => {
                    let a = self.search(&game);
                    (a.score, Some(a))
                }
            };
            let played = -after_score;
            let best_score = before.score;
            let drop = winning_chances(best_score) - winning_chances(played);
            let is_best = before.best == Some(m);
            let (nag, label) = if is_best {
                (None, None)
            } else if drop >= 0.3 {
                (Some("??"), Some("Blunder"))
            } else if drop >= 0.2 {
                (Some("?"), Some("Mistake"))
            } else if drop >= 0.1 {
                (Some("?!"), Some("Inaccuracy"))
            } else {
                (None, None)
            };
            let missed_win = !is_best
                && mate_moves(best_score).is_some_and(|n| n > 0)
                && mate_moves(played).is_none_or(|n| n <= 0);
            let best_san = before.best.map(|b| notation::san(&pos, b));
            let comment = match (label, missed_win, &best_san) {
                (_, true, Some(b)) => Some(format!(
                    "{}. Missed a forced win: {b} wins in {}.",
                    label.unwrap_or("Mistake"),
                    mate_moves(best_score).unwrap_or(0)
                )),
                (Some(l), false, Some(b)) => Some(format!("{l}. Best was {b}.")),
                _ => None,
            };
            let nag = if missed_win { nag.or(Some("?")) } else { nag };
            if self.args.json {
                println!(
                    "{{\"game\":{number},\"ply\":{},\"fen\":{},\"move\":{},\"move_san\":{},\"bestmove\":{},\"san\":{},\"score\":{},\"played_score\":{},\"pv\":[{}],\"depth\":{},\"nodes\":{},\"judgement\":{}}}",
                    ply + 1,
                    json_string(&notation::to_fen(&pos)),
                    json_string(&notation::uci(m)),
                    json_string(&san),
                    before.best.map_or("null".into(), |b| json_string(&notation::uci(b))),
                    best_san.as_deref().map_or("null".into(), json_string),
                    score_json(best_score),
                    score_json(played),
                    before
                        .lines
                        .first()
                        .map(|l| l
                            .pv
                            .iter()
                            .map(|&x| json_string(&notation::uci(x)))
                            .collect::<Vec<_>>()
                            .join(","))
                        .unwrap_or_default(),
                    before.depth,
                    before.nodes,
                    label.map_or("null".into(), |l| json_string(&l.to_ascii_lowercase())),
                );
            }
            annotated.push(AnnotatedMove {
                san,
                eval: Some(eval_text(after_score, after_pos.turn())),
                nag,
                comment,
            });
            match after {
                Some(a) => before = a,
                None => break,
            }
        }
        let result = game
            .outcome()
            .map(|o| o.pgn().to_string())
            .or_else(|| game_pgn.result.clone())
            .unwrap_or_else(|| "*".to_string());
        let mut tags = game_pgn.tags.clone();
        if !tags.iter().any(|(k, _)| k == "Annotator") {
            tags.push((
                "Annotator".into(),
                format!("Syotti {}", env!("CARGO_PKG_VERSION")),
            ));
        }
        let text = pgn::write_annotated(&tags, first_number, white_first, &annotated, &result);
        if self.progress {
            eprint!("\r");
        }
        if let Err(e) = out.write_all(text.as_bytes()) {
            self.report_error(&format!("cannot write the annotated game: {e}"));
        }
    }
}

/// Opens a PGN source for streaming: a file, or standard input for `-`.
fn open_input(source: &str) -> Result<Box<dyn Read>, String> {
    if source == "-" {
        Ok(Box::new(std::io::stdin()))
    } else {
        std::fs::File::open(source)
            .map(|f| Box::new(std::io::BufReader::new(f)) as Box<dyn Read>)
            .map_err(|e| format!("cannot read {source}: {e}"))
    }
}

fn read_input(source: &str) -> Result<String, String> {
    if source == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        Ok(text)
    } else {
        std::fs::read_to_string(source).map_err(|e| format!("cannot read {source}: {e}"))
    }
}

pub fn run(args: &AnalyseArgs) -> u8 {
    if args.fens.is_empty() && args.epds.is_empty() && args.pgns.is_empty() {
        eprintln!(
            "error: nothing to analyse: give --fen, --epd or --pgn (see syotti analyse --help)"
        );
        return EXIT_BAD_INPUT;
    }
    if let Some(t) = args.time {
        if !(t.is_finite() && t > 0.0) {
            eprintln!("error: --time must be a positive number of seconds");
            return EXIT_BAD_INPUT;
        }
    }
    let tables = match open_tables(args.syzygy.as_deref()) {
        Ok(t) => t.map(Arc::new),
        Err(code) => return code,
    };
    let engine = match engine::analyser::Analyser::new(args.hash as usize) {
        Ok(engine) => engine,
        Err(e) => {
            eprintln!(
                "error: cannot allocate {} MiB for the hash table (--hash): {}",
                args.hash, e.reason
            );
            return EXIT_BAD_INPUT;
        }
    };
    let mut analyser = Analyser {
        args,
        engine,
        tables,
        failed: false,
        done: 0,
        total: 0,
        progress: std::io::stderr().is_terminal(),
    };
    let rule = args.rules.rule();

    // Positions: --fen, then --epd.
    let mut positions: Vec<(String, String)> = Vec::new();
    for fen in &args.fens {
        if fen == "-" {
            match read_input("-") {
                Ok(text) => positions.extend(
                    text.lines()
                        .filter(|l| !l.trim().is_empty())
                        .map(|l| ("stdin".to_string(), l.trim().to_string())),
                ),
                Err(e) => analyser.report_error(&e),
            }
        } else {
            positions.push(("fen".to_string(), fen.clone()));
        }
    }
    for source in &args.epds {
        match read_input(source) {
            Ok(text) => {
                for (i, line) in text.lines().enumerate() {
                    let fields: Vec<&str> = line.split_whitespace().take(4).collect();
                    if fields.len() == 4 && !line.trim_start().starts_with('#') {
                        positions.push((format!("{source}:{}", i + 1), fields.join(" ")));
                    }
                }
            }
            Err(e) => analyser.report_error(&e),
        }
    }
    analyser.total = positions.len();
    for (i, (label, fen)) in positions.iter().enumerate() {
        match Game::from_fen(fen, rule) {
            Ok(game) => analyser.position(&format!("position {} ({label})", i + 1), &game),
            Err(e) => analyser.report_error(&format!("position {} ({label}): {e}", i + 1)),
        }
    }

    // Games.
    let mut out: Box<dyn Write> = match &args.out {
        Some(path) => match create_output(path) {
            Ok(out) => out,
            Err(e) => {
                eprintln!("error: {e}");
                return EXIT_BAD_INPUT;
            }
        },
        None if args.json => Box::new(std::io::sink()),
        None => Box::new(std::io::stdout()),
    };
    for source in &args.pgns {
        let input = match open_input(source) {
            Ok(input) => input,
            Err(e) => {
                analyser.report_error(&e);
                continue;
            }
        };
        // One game at a time: a large file is never held whole.
        for game in pgn::games(input) {
            match game {
                Ok(game) => {
                    analyser.total += game.moves.len() + 1;
                    analyser.game(&game, out.as_mut());
                }
                Err(e) => analyser.report_error(&format!("{source}: {e}; skipped")),
            }
        }
    }
    if let Err(e) = out.flush() {
        eprintln!("error: cannot write the annotated games: {e}");
        return 1;
    }
    if analyser.progress {
        eprintln!();
    }
    if analyser.failed {
        EXIT_BAD_INPUT
    } else {
        0
    }
}
