//! Tuning the evaluation from self-play results (Texel's method).
//!
//! `cargo run --release --example tune -- generate OPENINGS.epd GAMES NODES OUT [RULE [SEED]]` plays
//! Syotti against itself from the openings (plus a few random plies, from SEED or a fixed default,
//! so that runs side by side can make different games), each move a
//! search of NODES nodes, and writes every quiet position (no capture for the side to move) with
//! the game's result from White's side: `FEN;1` / `FEN;0.5` / `FEN;0`.
//!
//! RULE is a stalemate convention (default `stalemated-side-wins`; `fewer-pieces-wins` for
//! suicide); `tune DATA [RULE]` starts from that convention's weights.
//!
//! `cargo run --release --example tune -- tune DATA` fits the weights of `EvalParams` so that
//! `sigmoid(K * eval)` predicts the results: first the scale K for the current weights, then
//! coordinate descent on each weight (steps 8, 4, 2, 1) while the mean squared error falls (the
//! error is summed on all cores).
//! It prints the error before and after and the weights to paste into `EvalParams::DEFAULT`.
//!
//! A tuned set is kept only if it also wins in self-play against the previous build.

use std::{fs, io::Write};

use syotti::{
    rules::{parse_fen, Antichess, Color, Game, Position, StalemateRule},
    search::{
        eval::{evaluate_with, EvalParams},
        search,
        tt::TranspositionTable,
        SearchControl, SearchLimits, SearchParams, SilentReporter,
    },
};

/// The random plies' seed when none is given.
const DEFAULT_SEED: u64 = 0x9e37_79b9_7f4a_7c15;

/// A small deterministic generator (xorshift64*), enough to vary openings.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
}

fn generate(
    openings: &str,
    games: usize,
    nodes: u64,
    out: &str,
    rule: StalemateRule,
    seed: u64,
) -> Result<(), String> {
    let text = fs::read_to_string(openings).map_err(|e| format!("{openings}: {e}"))?;
    let starts: Vec<Antichess> = text
        .lines()
        .filter_map(|l| {
            let fen: Vec<&str> = l.split_whitespace().take(4).collect();
            parse_fen(&fen.join(" ")).ok()
        })
        .collect();
    if starts.is_empty() {
        return Err("no openings".into());
    }
    let mut file = fs::File::create(out).map_err(|e| format!("{out}: {e}"))?;
    // xorshift must not start from zero.
    let mut rng = Rng(seed.max(1));
    let tt = TranspositionTable::new(16);
    let limits = SearchLimits {
        nodes: Some(nodes),
        ..SearchLimits::default()
    };
    let mut positions = 0;
    for g in 0..games {
        let mut game = Game::from_position(starts[g % starts.len()].clone(), rule);
        for _ in 0..(rng.next() % 4) {
            let moves = game.legal_moves();
            if moves.is_empty() || game.outcome().is_some() {
                break;
            }
            game.push(moves[(rng.next() % moves.len() as u64) as usize]);
        }
        tt.clear();
        let mut quiet = Vec::new();
        while game.outcome().is_none() && game.moves().len() < 400 {
            let pos = game.position().clone();
            if pos.capture_moves().is_empty() && game.moves().len() >= 4 {
                quiet.push(syotti::rules::to_fen(&pos));
            }
            let params = SearchParams::new(rule, game.keys());
            let result = search(
                &pos,
                &params,
                &limits,
                &tt,
                &SearchControl::default(),
                &SilentReporter,
            );
            match result.best {
                Some(m) => game.push(m),
                None => break,
            }
        }
        let result = match game.outcome().and_then(|o| o.winner) {
            Some(Color::White) => "1",
            Some(Color::Black) => "0",
            None => "0.5",
        };
        for fen in &quiet {
            writeln!(file, "{fen};{result}").map_err(|e| e.to_string())?;
        }
        positions += quiet.len();
        if (g + 1) % 100 == 0 {
            eprintln!("{} games, {positions} positions", g + 1);
        }
    }
    eprintln!("{games} games, {positions} positions written to {out}");
    Ok(())
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn error(data: &[(Antichess, f64)], params: &EvalParams, k: f64) -> f64 {
    let part = |chunk: &[(Antichess, f64)]| -> f64 {
        chunk
            .iter()
            .map(|(pos, result)| {
                let e = f64::from(evaluate_with(pos, params));
                let white = if pos.turn().is_white() { e } else { -e };
                (result - sigmoid(k * white / 100.0)).powi(2)
            })
            .sum::<f64>()
    };
    // One chunk per available core.
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let size = data.len().div_ceil(threads).max(1);
    let total: f64 = std::thread::scope(|scope| {
        let handles: Vec<_> = data
            .chunks(size)
            .map(|chunk| scope.spawn(move || part(chunk)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a tuning thread panicked"))
            .sum()
    });
    total / data.len() as f64
}

fn tune(path: &str, rule: StalemateRule) -> Result<(), String> {
    let text = fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let data: Vec<(Antichess, f64)> = text
        .lines()
        .filter_map(|l| {
            let (fen, result) = l.rsplit_once(';')?;
            Some((parse_fen(fen).ok()?, result.parse().ok()?))
        })
        .collect();
    if data.is_empty() {
        return Err("no data".into());
    }
    eprintln!("{} positions", data.len());
    let mut params = *EvalParams::for_rule(rule);
    // The scale: the K that fits the current weights best.
    let mut k = 1.0;
    for step in [0.5, 0.1, 0.02] {
        loop {
            let here = error(&data, &params, k);
            if error(&data, &params, k + step) < here {
                k += step;
            } else if k > step && error(&data, &params, k - step) < here {
                k -= step;
            } else {
                break;
            }
        }
    }
    let start = error(&data, &params, k);
    eprintln!("K = {k:.2}, error {start:.6}");
    let mut weights = params.to_vec();
    let mut current = start;
    for step in [8, 4, 2, 1] {
        let mut improved = true;
        while improved {
            improved = false;
            for i in 0..weights.len() {
                for delta in [step, -step] {
                    let mut trial = weights.clone();
                    trial[i] += delta;
                    let Some(candidate) = EvalParams::from_slice(&trial) else {
                        continue;
                    };
                    let e = error(&data, &candidate, k);
                    if e < current {
                        weights = trial;
                        params = candidate;
                        current = e;
                        improved = true;
                    }
                }
            }
        }
        eprintln!("step {step}: error {:.6}", error(&data, &params, k));
    }
    println!("error {start:.6} -> {:.6}", error(&data, &params, k));
    println!("{params:#?}");
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let rule_of = |text: Option<&&str>| -> Result<StalemateRule, String> {
        text.map_or(Ok(StalemateRule::StalematedSideWins), |t| {
            t.parse()
                .map_err(|e: syotti::rules::convention::ParseStalemateRuleError| e.to_string())
        })
    };
    let result = match words.as_slice() {
        ["generate", openings, games, nodes, out, rest @ ..] if rest.len() <= 2 => {
            let seed = rest.get(1).map_or(Ok(DEFAULT_SEED), |s| s.parse());
            match (games.parse(), nodes.parse(), rule_of(rest.first()), seed) {
                (Ok(g), Ok(n), Ok(rule), Ok(seed)) => generate(openings, g, n, out, rule, seed),
                (_, _, Err(e), _) => Err(e),
                _ => Err("GAMES, NODES and SEED are numbers".into()),
            }
        }
        ["tune", data, rest @ ..] if rest.len() <= 1 => {
            rule_of(rest.first()).and_then(|rule| tune(data, rule))
        }
        _ => Err(
            "usage: tune generate OPENINGS GAMES NODES OUT [RULE [SEED]] | tune tune DATA [RULE]"
                .into(),
        ),
    };
    if let Err(e) = result {
        eprintln!("error: {e}");
        std::process::exit(2);
    }
}
