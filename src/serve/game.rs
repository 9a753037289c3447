//! Games on the page: a PGN imported (`POST /api/pgn`), the engine's move at a chosen strength
//! (`GET /api/play`), and a game's evaluation graph (`GET /api/graph`).
//!
//! A PGN is read with the project's PGN reader (`crate::pgn`) and checked move by move against
//! the rules: the first move that is not legal is named with its number, and nothing of the game
//! is taken. Play and the graph search with `engine::analyser` on a thread of their own: play
//! one search of the game's position (the game's moves count for repetitions), at the level
//! asked (`engine::skill`); the graph one short search a position of the game, one after
//! another in one table, as `syotti analyse` does, each sent as it ends.

use std::{convert::Infallible, time::Duration};

use axum::response::sse::{Event, Sse};
use serde_json::{json, Value};
use shakmaty::{Color, Position};
use tokio_stream::Stream;

use super::{
    analysis::{score_json, spawn_stream, Slot},
    probe::color,
    ApiError, MAX_PLIES,
};
use crate::{
    engine::{analyser::Analyser, skill::Skill, SearchRequest},
    pgn,
    rules::{notation, Game, StalemateRule, Variant},
    search::{SearchControl, SearchLimits},
};

/// Longest search a position of a graph may ask for, seconds.
pub const MAX_GRAPH_SECONDS: f64 = 5.0;

/// The first game of a PGN text, checked: its start, its moves (each with the position it leads
/// to) and its tags, or the first thing wrong with it.
pub fn import(text: &str) -> Result<Value, ApiError> {
    let game = pgn::read_games(text)
        .into_iter()
        .next()
        .ok_or_else(|| ApiError::bad("no game in the PGN"))?
        .map_err(|e| ApiError::bad(e.reason))?;
    let variant = match game.tag("Variant") {
        None => Variant::Antichess,
        Some(name) => name
            .parse::<Variant>()
            .map_err(|_| ApiError::bad(format!("variant '{name}' is not antichess or suicide")))?,
    };
    let rule = variant.stalemate_rule();
    let start = game.tag("FEN").unwrap_or(notation::START_FEN);
    let mut replay =
        Game::from_fen(start, rule).map_err(|e| ApiError::bad(format!("bad FEN tag: {e}")))?;
    if game.moves.len() > MAX_PLIES {
        return Err(ApiError::bad(format!("at most {MAX_PLIES} moves")));
    }
    let mut moves = Vec::new();
    for (i, text) in game.moves.iter().enumerate() {
        let pos = replay.position().clone();
        let number = pos.fullmoves().get();
        let dots = if pos.turn().is_white() { "." } else { "..." };
        let m = notation::parse_move(&pos, text)
            .map_err(|e| ApiError::bad(format!("move {number}{dots} {text}: {e}")))?;
        if replay.outcome().is_some() {
            return Err(ApiError::bad(format!(
                "move {number}{dots} {text}: the game was over before it (ply {})",
                i + 1
            )));
        }
        replay.push(m);
        moves.push(json!({
            "uci": notation::uci(m),
            "san": notation::san(&pos, m),
            "fen_after": notation::to_fen(replay.position()),
        }));
    }
    let tags: serde_json::Map<String, Value> = game
        .tags
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    Ok(json!({
        "fen": notation::to_fen(replay.start()),
        "variant": variant.name(),
        "moves": moves,
        "result": game.result,
        "tags": tags,
    }))
}

/// The request a search of the server makes of `game`'s position: `seconds` long, below full
/// strength at `level`.
fn request(game: &Game, seconds: f64, level: Option<u8>) -> SearchRequest {
    SearchRequest {
        skill: level.and_then(Skill::new),
        ..SearchRequest::analysis(
            game,
            SearchLimits {
                movetime: Some(Duration::from_secs_f64(seconds)),
                ..SearchLimits::default()
            },
        )
    }
}

/// The engine's move in `game` at `level` (`None`: full strength), searched for at most
/// `seconds`.
pub fn play(
    game: &Game,
    level: Option<u8>,
    seconds: f64,
    hash_mb: usize,
    slot: Slot,
) -> Result<Value, ApiError> {
    if let Some(outcome) = game.outcome() {
        return Err(ApiError::bad(format!("the game is over: {outcome}")));
    }
    let analyser = Analyser::new(hash_mb).map_err(|e| {
        ApiError(
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            format!("no memory for the search: {}", e.reason),
        )
    })?;
    let found = analyser.search(&request(game, seconds, level), &SearchControl::default());
    drop(slot);
    let pos = game.position();
    let best = found.best.ok_or_else(|| ApiError::bad("no legal move"))?;
    let mut after = pos.clone();
    after.play_unchecked(best);
    Ok(json!({
        "uci": notation::uci(best),
        "san": notation::san(pos, best),
        "fen_after": notation::to_fen(&after),
        "score": score_json(found.score),
        "depth": found.depth,
        "level": level.unwrap_or(crate::engine::skill::MAX_LEVEL),
    }))
}

/// White's view of a score given from `turn`'s.
fn white_view(score: i32, turn: Color) -> i32 {
    if turn.is_white() {
        score
    } else {
        -score
    }
}

/// The evaluation of every position of `game`, from its start, as `ply` events (the score from
/// White's view, the best move, or the result of a position over by the rules), then `done`.
pub fn graph(
    game: Game,
    seconds: f64,
    hash_mb: usize,
    slot: Slot,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    spawn_stream(slot, move |events| {
        let analyser = match Analyser::new(hash_mb) {
            Ok(a) => a,
            Err(e) => {
                let text = format!("error: no memory for the search: {}", e.reason);
                events.send(("message", json!({ "text": text })));
                return;
            }
        };
        let rule: StalemateRule = game.rule();
        let mut replay = Game::from_position(game.start().clone(), rule);
        for ply in 0..=game.moves().len() {
            if !events.open() {
                return;
            }
            let pos = replay.position().clone();
            let data = match replay.outcome() {
                Some(outcome) => json!({
                    "ply": ply,
                    "result": outcome.winner.map_or("draw", color),
                    "termination": outcome.to_string(),
                }),
                None => {
                    let found = analyser
                        .search(&request(&replay, seconds, None), &SearchControl::default());
                    json!({
                        "ply": ply,
                        "score": score_json(white_view(found.score, pos.turn())),
                        "best": found.best.map(notation::uci),
                        "san": found.best.map(|m| notation::san(&pos, m)),
                        "proved": found.proved,
                    })
                }
            };
            if !events.send(("ply", data)) {
                return;
            }
            if let Some(&m) = game.moves().get(ply) {
                replay.push(m);
            }
        }
        events.send(("done", json!({ "plies": game.moves().len() })));
    })
}
