//! A seeded fuzz of the UCI loop on the real binary: random and mutated command lines — known
//! tokens in odd places, bad FENs and move lists, bytes that are not text, option values out of
//! range (a `Hash` the machine cannot give among them) — interleaved with searches.
//!
//! After every fuzz line the test sends `stop` and a `go perft 1` barrier (queued behind any
//! search, so everything the line caused is printed before the perft). It checks that the
//! process lives, that every `bestmove` is legal in the position last set, and that the perft's
//! move list is the legal moves of the position the test believes is set (so that belief, and
//! the engine's "bad input changes nothing", are checked line by line). The seed and the number
//! of lines can be changed with `SYOTTI_FUZZ_SEED` and `SYOTTI_FUZZ_LINES` for longer runs.

use std::time::Duration;

use syotti::{
    rules::{notation, Game, StalemateRule},
    uci::parser::{parse, Go, StartPosition, UciCommand},
};

mod common;
use common::Engine;

/// Generous bound for one fuzz step; never a performance claim.
const PATIENCE: Duration = Duration::from_secs(60);
const DEFAULT_LINES: usize = 3000;

/// xorshift64*: a small deterministic generator, enough to pick tokens.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }
}

const FENS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
    "8/8/p7/8/8/8/7P/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1",
    "8/1P6/8/8/8/8/6p1/K6k w - - 0 1",
    "7r/8/8/8/8/8/8/R7 w - - 0 1",
    "8/8/8/p7/P7/8/8/8 w - - 0 1",
    "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w - e6 0 3",
];

const TOKENS: &[&str] = &[
    "uci",
    "isready",
    "setoption",
    "name",
    "value",
    "position",
    "startpos",
    "fen",
    "moves",
    "go",
    "depth",
    "nodes",
    "movetime",
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "ucinewgame",
    "stop",
    "ponderhit",
    "debug",
    "on",
    "register",
    "Hash",
    "Threads",
    "MultiPV",
    "e2e4",
    "e7e5",
    "a7a8k",
    "-1",
    "0",
    "1",
    "18446744073709551616",
    "w",
    "b",
    "KQkq",
    "-",
    "",
    "\t",
];

const OPTIONS: &[(&str, &[&str])] = &[
    (
        "Hash",
        &["1", "8", "64", "0", "-5", "65536", "99999999", "lots"],
    ),
    ("Threads", &["1", "2", "3", "0", "257", "two"]),
    ("MultiPV", &["1", "3", "256", "0", "1000"]),
    ("Ponder", &["true", "false", "maybe"]),
    ("Move Overhead", &["0", "30", "5000", "5001", "-1"]),
    (
        "UCI_Variant",
        &["antichess", "suicide", "chess", "giveaway"],
    ),
    (
        "Stalemate",
        &[
            "variant",
            "draw",
            "fewer-pieces-wins",
            "stalemated-side-wins",
            "x",
        ],
    ),
    ("UCI_AnalyseMode", &["true", "false"]),
    ("Proof", &["true", "false"]),
    ("Contempt", &["0", "200", "1000", "1001"]),
    ("SyzygyPath", &["<empty>", "/no/such/folder", ""]),
    ("SyzygyProbeLimit", &["0", "7", "8"]),
    ("Clear Hash", &[""]),
    ("No Such Option", &["1"]),
];

/// A FEN with a few characters replaced, dropped or doubled.
fn mutate_fen(rng: &mut Rng, fen: &str) -> String {
    let mut chars: Vec<char> = fen.chars().collect();
    for _ in 0..1 + rng.below(3) {
        if chars.is_empty() {
            break;
        }
        let at = rng.below(chars.len());
        let junk = ['K', 'q', 'p', '9', '/', ' ', 'x', '-', 'w', '0'];
        match rng.below(3) {
            0 => chars[at] = junk[rng.below(junk.len())],
            1 => {
                chars.remove(at);
            }
            _ => chars.insert(at, chars[at]),
        }
    }
    chars.into_iter().collect()
}

/// Legal-looking moves for a position line: mostly real moves, sometimes nonsense.
fn random_moves(rng: &mut Rng, fen: Option<&str>) -> Vec<String> {
    let mut game = match fen {
        Some(f) => match Game::from_fen(f, StalemateRule::default()) {
            Ok(g) => g,
            Err(_) => return vec!["e2e4".to_string()],
        },
        None => Game::default(),
    };
    let mut moves = Vec::new();
    for _ in 0..rng.below(8) {
        let legal = game.legal_moves();
        if legal.is_empty() || rng.chance(5) {
            moves.push(
                rng.pick(&["e2e9", "a1a1", "zz", "e7e5", "O-O", "0000"])
                    .to_string(),
            );
            break;
        }
        let m = legal[rng.below(legal.len())];
        moves.push(notation::uci(m));
        game.push(m);
    }
    moves
}

fn well_formed(rng: &mut Rng) -> String {
    match rng.below(10) {
        0..=3 => {
            let start = if rng.chance(50) {
                "startpos".to_string()
            } else {
                let fen = FENS[rng.below(FENS.len())];
                let fen = if rng.chance(30) {
                    mutate_fen(rng, fen)
                } else {
                    fen.to_string()
                };
                format!("fen {fen}")
            };
            let fen = start.strip_prefix("fen ");
            let moves = random_moves(rng, fen);
            if moves.is_empty() && rng.chance(50) {
                format!("position {start}")
            } else {
                format!("position {start} moves {}", moves.join(" "))
            }
        }
        4..=6 => {
            let mut words = vec!["go".to_string()];
            match rng.below(7) {
                0 => words.push(format!("depth {}", 1 + rng.below(4))),
                1 => words.push(format!("nodes {}", 1 + rng.below(3000))),
                2 => words.push(format!("movetime {}", rng.below(30))),
                3 => words.push(format!(
                    "wtime {} btime {} winc {} binc {}",
                    rng.below(2000),
                    rng.below(2000),
                    rng.below(50),
                    rng.below(50)
                )),
                4 => words.push("infinite".to_string()),
                5 => words.push(format!("ponder wtime {} btime 500", rng.below(1000))),
                _ => words.push(format!("mate {}", rng.below(5))),
            }
            if rng.chance(15) {
                words.push(format!("searchmoves {}", random_moves(rng, None).join(" ")));
            }
            words.join(" ")
        }
        7 | 8 => {
            let (name, values) = OPTIONS[rng.below(OPTIONS.len())];
            let value = values[rng.below(values.len())];
            if value.is_empty() {
                format!("setoption name {name}")
            } else {
                format!("setoption name {name} value {value}")
            }
        }
        _ => rng
            .pick(&[
                "ucinewgame",
                "isready",
                "uci",
                "debug on",
                "register",
                "ponderhit",
            ])
            .to_string(),
    }
}

/// A line as the fuzz sends it: well formed, mutated at the token level, or noise.
fn fuzz_line(rng: &mut Rng) -> Vec<u8> {
    let line = well_formed(rng);
    let text = match rng.below(10) {
        0..=4 => line,
        5..=7 => {
            let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
            for _ in 0..1 + rng.below(2) {
                let at = rng.below(words.len() + 1);
                match rng.below(3) {
                    0 => words.insert(at, rng.pick(TOKENS).to_string()),
                    1 if words.len() > 1 => {
                        words.remove(at.min(words.len() - 1));
                    }
                    _ => {
                        let a = rng.below(words.len());
                        let b = rng.below(words.len());
                        words.swap(a, b);
                    }
                }
            }
            words.join(if rng.chance(20) { "  " } else { " " })
        }
        8 => (0..1 + rng.below(6))
            .map(|_| rng.pick(TOKENS))
            .collect::<Vec<_>>()
            .join(" "),
        _ => {
            // Raw bytes, some of them not UTF-8; never a newline (one line is one line).
            let bytes: Vec<u8> = (0..rng.below(40))
                .map(|_| (rng.next() % 256) as u8)
                .filter(|&b| b != b'\n' && b != b'\r')
                .collect();
            return bytes;
        }
    };
    text.into_bytes()
}

/// A line of `go perft 1`'s list: a move in UCI notation, `: 1`.
fn is_divide_line(line: &str) -> bool {
    line.strip_suffix(": 1").is_some_and(|m| {
        (4..=5).contains(&m.len())
            && m.chars().all(|c| c.is_ascii_alphanumeric())
            && !m.starts_with("info")
    })
}

/// The game the session holds after an accepted `position` command.
fn position_game(start: &StartPosition, moves: &[String]) -> Option<Game> {
    let mut game = match start {
        StartPosition::StartPos => Game::default(),
        StartPosition::Fen(fen) => Game::from_fen(fen, StalemateRule::default()).ok()?,
    };
    for text in moves {
        let m = notation::parse_uci_move(game.position(), text).ok()?;
        game.push(m);
    }
    Some(game)
}

#[test]
fn random_and_mutated_uci_input_never_kills_the_engine() {
    let seed = std::env::var("SYOTTI_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_0f50_7071);
    let count = std::env::var("SYOTTI_FUZZ_LINES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(DEFAULT_LINES);
    let mut rng = Rng(seed);
    let mut engine = Engine::start();
    let mut game = Game::default();
    let (mut searches, mut errors, mut accepted_positions) = (0, 0, 0);
    for index in 0..count {
        let bytes = fuzz_line(&mut rng);
        let text = String::from_utf8_lossy(&bytes).to_string();
        let parsed = parse(text.trim_end_matches(['\n', '\r']));
        match &parsed {
            // The fuzz never quits, and keeps perft (which runs in the input loop) small.
            Ok(UciCommand::Quit) => continue,
            Ok(UciCommand::Go(Go::Perft(depth))) if *depth > 3 => continue,
            _ => {}
        }
        let context = format!("after line {index} {text:?} (seed {seed}) ");
        // Bounded searches are often left to finish by themselves; anything else is stopped.
        let bounded = matches!(&parsed, Ok(UciCommand::Go(Go::Search(p)))
            if !p.infinite && !p.ponder
                && (p.depth.is_some() || p.nodes.is_some() || p.movetime.is_some()
                    || p.wtime.is_some() && p.btime.is_some()));
        engine.send_bytes(&bytes);
        if !(bounded && rng.chance(50)) {
            engine.send("stop");
        }
        engine.send("go perft 1");
        let lines = engine.until_or("Nodes searched", &context, PATIENCE);
        errors += lines
            .iter()
            .filter(|l| l.starts_with("info string error"))
            .count();
        match parsed {
            Ok(UciCommand::UciNewGame) => game = Game::default(),
            Ok(UciCommand::Position { start, moves })
                if !lines.iter().any(|l| l.starts_with("info string error")) =>
            {
                game = position_game(&start, &moves)
                    .unwrap_or_else(|| panic!("{context}: accepted, but not a legal position"));
                accepted_positions += 1;
            }
            _ => {}
        }
        for best in lines.iter().filter(|l| l.starts_with("bestmove")) {
            searches += 1;
            let mv = best.split_whitespace().nth(1).unwrap_or("");
            let legal = game.legal_moves();
            if legal.is_empty() {
                assert_eq!(mv, "(none)", "{context}: {best}");
            } else {
                assert!(
                    notation::parse_uci_move(game.position(), mv).is_ok(),
                    "{context}: illegal {best} in {}",
                    notation::to_fen(game.position())
                );
            }
        }
        let listed: Vec<&String> = lines.iter().filter(|l| is_divide_line(l)).collect();
        assert_eq!(
            listed.len(),
            game.legal_moves().len(),
            "{context}: the engine's position is not {}; got {lines:?}",
            notation::to_fen(game.position())
        );
    }
    // The process is alive and answers.
    engine.send("isready");
    engine.until_or("readyok", "at the end of the fuzz ", PATIENCE);
    eprintln!("{count} lines: {searches} searches, {accepted_positions} positions set, {errors} errors answered");
    assert!(searches > count / 10, "too few searches to mean anything");
    assert!(accepted_positions > count / 20, "too few positions set");
    assert!(errors > count / 20, "too few bad lines");
}
