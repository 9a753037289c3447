//! Self-play games for training data.
//!
//! Each game starts from the start position with a few random plies (so that games differ), under
//! the antichess convention or, for a share of the games, the suicide one. Syotti then plays both
//! sides at a fixed number of nodes a move, each thread with its own table. A quiet position is
//! written with the score of the search made from it; when the game ends every line gets its
//! result. Positions the tablebases cover (after a capture or a pawn move) end the game with the
//! tables' result, at once or after `table_plies` more plies: the search answers those from the
//! tables, so the positions written then carry the tables' exact scores and result. Without them
//! the network never sees the endings of two to four pieces, which the engine without tables must
//! still judge (it judged a drawn king and two bishops of one colour against a king at +6 for fifty
//! moves of a game against Fairy-Stockfish).

use std::{
    io::Write,
    sync::{
        atomic::{AtomicUsize, Ordering},
        Arc, Mutex,
    },
    time::Instant,
};

use shakmaty::{Color, Position};
use shakmaty_syzygy::Wdl;

use super::{data::format_line, Rng};
use crate::{
    rules::{Game, StalemateRule},
    search::{
        nnue::Network, search, tt::TranspositionTable, SearchControl, SearchLimits, SearchParams,
        SilentReporter,
    },
    tablebase::Tablebases,
};

/// What to generate.
#[derive(Clone, Debug)]
pub struct DatagenConfig {
    pub games: usize,
    /// Nodes searched for each move.
    pub nodes: u64,
    pub threads: usize,
    pub seed: u64,
    /// Share of games played under the suicide convention (fewer pieces wins a stalemate).
    pub suicide_share: f64,
    /// Random plies at the start of a game: at least `random_plies.0`, at most `.1`.
    pub random_plies: (usize, usize),
    /// Plies after which an unfinished game is scored a draw.
    pub max_plies: usize,
    /// Plies played on after the tables decide a game (0: the game ends there).
    pub table_plies: usize,
    /// The evaluation the games are played with (`None`: the linear evaluation).
    pub network: Option<Arc<Network>>,
}

/// What was generated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DatagenStats {
    pub games: usize,
    pub positions: usize,
    pub white_wins: usize,
    pub black_wins: usize,
    pub draws: usize,
}

/// Plays `config.games` games on `config.threads` threads and writes their positions to `out`.
/// Progress goes to stderr every `report_every` games (0: never).
pub fn generate<W: Write + Send>(
    config: &DatagenConfig,
    tablebases: Option<&Tablebases>,
    out: W,
    report_every: usize,
) -> std::io::Result<DatagenStats> {
    let out = Mutex::new(out);
    let next_game = AtomicUsize::new(0);
    let stats = Mutex::new(DatagenStats::default());
    let start = Instant::now();
    let failure: Mutex<Option<std::io::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..config.threads.max(1) {
            scope.spawn(|| {
                let tt = TranspositionTable::new(16);
                loop {
                    let index = next_game.fetch_add(1, Ordering::Relaxed);
                    if index >= config.games {
                        break;
                    }
                    if failure.lock().map(|f| f.is_some()).unwrap_or(true) {
                        break;
                    }
                    let mut rng = Rng::new(config.seed ^ (index as u64).wrapping_mul(0x1000_0001));
                    let (lines, winner) = play_game(config, tablebases, &tt, &mut rng);
                    let written = out
                        .lock()
                        .map_err(|_| std::io::Error::other("poisoned"))
                        .and_then(|mut w| {
                            for line in &lines {
                                writeln!(w, "{line}")?;
                            }
                            Ok(())
                        });
                    if let Err(e) = written {
                        if let Ok(mut f) = failure.lock() {
                            *f = Some(e);
                        }
                        break;
                    }
                    if let Ok(mut s) = stats.lock() {
                        s.games += 1;
                        s.positions += lines.len();
                        match winner {
                            Some(Color::White) => s.white_wins += 1,
                            Some(Color::Black) => s.black_wins += 1,
                            None => s.draws += 1,
                        }
                        if report_every > 0 && s.games % report_every == 0 {
                            eprintln!(
                                "{} games, {} positions ({:.0} s; White {} Black {} draws {})",
                                s.games,
                                s.positions,
                                start.elapsed().as_secs_f64(),
                                s.white_wins,
                                s.black_wins,
                                s.draws
                            );
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = failure.into_inner().ok().flatten() {
        return Err(e);
    }
    out.into_inner()
        .map_err(|_| std::io::Error::other("poisoned"))?
        .flush()?;
    stats
        .into_inner()
        .map_err(|_| std::io::Error::other("poisoned"))
}

/// One game: its lines and its winner.
fn play_game(
    config: &DatagenConfig,
    tablebases: Option<&Tablebases>,
    tt: &TranspositionTable,
    rng: &mut Rng,
) -> (Vec<String>, Option<Color>) {
    let rule = if rng.unit() < config.suicide_share {
        StalemateRule::FewerPiecesWins
    } else {
        StalemateRule::StalematedSideWins
    };
    let (low, high) = config.random_plies;
    let random = low + rng.below(high.saturating_sub(low) + 1);
    let mut game;
    // Random openings that end the game at once are played again.
    loop {
        game = Game::new(rule);
        for _ in 0..random {
            let moves = game.legal_moves();
            if moves.is_empty() || game.outcome().is_some() {
                break;
            }
            game.push(moves[rng.below(moves.len())]);
        }
        if game.outcome().is_none() {
            break;
        }
    }
    tt.clear();
    let limits = SearchLimits {
        nodes: Some(config.nodes),
        ..SearchLimits::default()
    };
    let probe_limit = tablebases.map_or(0, Tablebases::max_pieces);
    let mut positions = Vec::new();
    let mut winner = None;
    // The tables' result once they decide the game, and the ply at which the game then ends.
    let mut decided: Option<(Option<Color>, usize)> = None;
    loop {
        if let Some(outcome) = game.outcome() {
            winner = outcome.winner;
            break;
        }
        if game.moves().len() >= config.max_plies {
            winner = decided.and_then(|(result, _)| result);
            break;
        }
        let pos = game.position().clone();
        if let (None, Some(tb)) = (decided, tablebases) {
            if pos.halfmoves() == 0 {
                let result = match tb.wdl_after_zeroing(&pos, rule, probe_limit) {
                    Some(Wdl::Win) => Some(Some(pos.turn())),
                    Some(Wdl::Loss) => Some(Some(!pos.turn())),
                    Some(_) => Some(None),
                    None => None,
                };
                decided = result.map(|r| (r, game.moves().len() + config.table_plies));
            }
        }
        if let Some((result, end)) = decided {
            if game.moves().len() >= end {
                winner = result;
                break;
            }
        }
        let moves = game.legal_moves();
        if moves.len() == 1 {
            game.push(moves[0]);
            continue;
        }
        let mut params = SearchParams::new(rule, game.keys());
        params.tablebases = tablebases;
        params.probe_limit = probe_limit;
        params.network = config.network.clone();
        let result = search(
            &pos,
            &params,
            &limits,
            tt,
            &SearchControl::default(),
            &SilentReporter,
        );
        let Some(best) = result.best else { break };
        if pos.capture_moves().is_empty() {
            positions.push((pos, result.score));
        }
        game.push(best);
    }
    let white = match winner {
        Some(Color::White) => 1.0,
        Some(Color::Black) => 0.0,
        None => 0.5,
    };
    let lines = positions
        .iter()
        .map(|(pos, score)| format_line(pos, *score, white, rule))
        .collect();
    (lines, winner)
}
