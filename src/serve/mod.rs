//! `syotti serve`: the proofs on the web, for people and for other tools.
//!
//! A face of the engine beside `uci/` and `xboard/`: an HTTP server (axum over hyper, on a small
//! tokio runtime: every connection is its own task, so idle connections a browser opens ahead of
//! time cost nothing and never hold up a request) on 127.0.0.1 by default, serving a page
//! (`web/`, embedded: a chessground board that asks the API for everything, so the browser knows
//! no rules) and a JSON API:
//!
//! - `GET /api/probe?fen=FEN`: what is proved of the position and of every legal move (`probe`),
//!   from `proof::book`'s game entry, the one the engine plays from, so the page and the engine
//!   never disagree.
//! - `GET /api/analyse?fen=FEN`: the engine's live analysis as server-sent events (`analysis`).
//! - `POST /api/pgn`: a PGN game checked move by move into the positions the page steps through
//!   (`game`); `GET /api/play`: the engine's move at a chosen strength (`GET /api/levels` lists
//!   them); `GET /api/graph`: a game's evaluation, a search a position, as server-sent events.
//!
//! Every search (analysis, play, graph) runs on a thread of its own with its own hash table and
//! holds one of `--analyses` places while it runs: one more is refused with 503. Blocking work
//! never runs on the runtime's threads.

mod analysis;
mod assets;
mod game;
mod probe;

use std::{io::Write, sync::Arc};

use axum::{
    body::Bytes,
    extract::{RawQuery, State},
    http::{header, StatusCode},
    response::{IntoResponse, Response},
    routing::{get, post},
    Json, Router,
};
use serde_json::json;

pub use analysis::Limits;
pub use probe::probe;

use crate::rules::{notation, Game, StalemateRule};

/// Longest query string read (a game of a few hundred moves fits).
const MAX_QUERY: usize = 16 * 1024;
/// Largest PGN accepted, bytes.
const MAX_PGN: usize = 256 * 1024;
/// Longest game accepted, plies (a game's moves in a query or a PGN).
const MAX_PLIES: usize = 1000;

/// An answer the API refused: status and message, sent as `{"error": message}`.
#[derive(Debug)]
pub struct ApiError(StatusCode, String);

impl ApiError {
    fn bad(message: impl Into<String>) -> ApiError {
        ApiError(StatusCode::BAD_REQUEST, message.into())
    }
    fn busy() -> ApiError {
        ApiError(
            StatusCode::SERVICE_UNAVAILABLE,
            "too many searches at once: try again later".into(),
        )
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.0, Json(json!({ "error": self.1 }))).into_response()
    }
}

/// A request's parameters, checked: the game (a start position and the moves from it), the
/// rules, the search's length and lines, the strength asked of the engine.
#[derive(Debug)]
struct Params {
    game: Game,
    seconds: f64,
    multipv: usize,
    level: Option<u8>,
}

/// Reads a query. `fen` is required; `moves` (UCI moves from it, space-separated) optional.
fn params(query: Option<&str>, default_seconds: f64) -> Result<Params, ApiError> {
    let query = query.unwrap_or("");
    if query.len() > MAX_QUERY {
        return Err(ApiError(StatusCode::URI_TOO_LONG, "query too long".into()));
    }
    let mut fen = None;
    let mut moves = String::new();
    let mut rule = StalemateRule::default();
    let mut p = Params {
        game: Game::default(),
        seconds: default_seconds,
        multipv: 1,
        level: None,
    };
    for (key, value) in form_urlencoded::parse(query.as_bytes()) {
        match key.as_ref() {
            "fen" => fen = Some(value.into_owned()),
            "moves" => moves = value.into_owned(),
            "variant" => match value.parse::<crate::rules::Variant>() {
                Ok(v) => rule = v.stalemate_rule(),
                Err(e) => return Err(ApiError::bad(e.to_string())),
            },
            "stalemate" => match value.parse::<StalemateRule>() {
                Ok(r) => rule = r,
                Err(e) => return Err(ApiError::bad(e.to_string())),
            },
            "seconds" => match value.parse::<f64>() {
                Ok(s) if s > 0.0 && s <= analysis::MAX_SECONDS => p.seconds = s,
                _ => {
                    return Err(ApiError::bad(format!(
                        "seconds: a number above 0 and at most {}",
                        analysis::MAX_SECONDS
                    )))
                }
            },
            "multipv" => match value.parse::<usize>() {
                Ok(n) if (1..=5).contains(&n) => p.multipv = n,
                _ => return Err(ApiError::bad("multipv: 1 to 5")),
            },
            "level" => match value.parse::<u8>() {
                Ok(n) if n <= crate::engine::skill::MAX_LEVEL => p.level = Some(n),
                _ => {
                    return Err(ApiError::bad(format!(
                        "level: 0 to {}",
                        crate::engine::skill::MAX_LEVEL
                    )))
                }
            },
            other => return Err(ApiError::bad(format!("unknown parameter '{other}'"))),
        }
    }
    let fen = fen.ok_or_else(|| ApiError::bad("missing parameter 'fen'"))?;
    p.game = Game::from_fen(&fen, rule).map_err(|e| ApiError::bad(format!("bad FEN: {e}")))?;
    for (i, text) in moves.split_whitespace().enumerate() {
        if i >= MAX_PLIES {
            return Err(ApiError::bad(format!("at most {MAX_PLIES} moves")));
        }
        let m = notation::parse_move(p.game.position(), text)
            .map_err(|e| ApiError::bad(format!("move {} ({text}): {e}", i + 1)))?;
        p.game.push(m);
    }
    Ok(p)
}

/// Runs blocking work off the runtime's threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        log::error!("a request's work failed: {e}");
        Err(ApiError(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal error".into(),
        ))
    })
}

async fn probe_route(RawQuery(query): RawQuery) -> Result<Json<serde_json::Value>, ApiError> {
    blocking(move || {
        let p = params(query.as_deref(), 0.0)?;
        if !p.game.moves().is_empty() {
            return Err(ApiError::bad("the probe takes a position: no 'moves'"));
        }
        Ok(Json(probe(p.game.position(), p.game.rule())))
    })
    .await
}

async fn pgn_route(body: Bytes) -> Result<Json<serde_json::Value>, ApiError> {
    if body.len() > MAX_PGN {
        return Err(ApiError(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("a PGN of at most {MAX_PGN} bytes"),
        ));
    }
    blocking(move || game::import(&String::from_utf8_lossy(&body)).map(Json)).await
}

async fn play_route(
    State(limits): State<Arc<Limits>>,
    RawQuery(query): RawQuery,
) -> Result<Json<serde_json::Value>, ApiError> {
    blocking(move || {
        let p = params(query.as_deref(), 1.0)?;
        let slot = limits.claim().ok_or_else(ApiError::busy)?;
        game::play(&p.game, p.level, p.seconds, limits.hash_mb, slot).map(Json)
    })
    .await
}

async fn analyse_route(
    State(limits): State<Arc<Limits>>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let p = params(query.as_deref(), 10.0)?;
    if p.game.outcome().is_some() {
        return Err(ApiError::bad("the game is over: nothing to analyse"));
    }
    let slot = limits.claim().ok_or_else(ApiError::busy)?;
    let request = analysis::Analysis {
        game: p.game,
        seconds: p.seconds,
        multipv: p.multipv,
    };
    Ok(analysis::stream(request, limits.hash_mb, slot).into_response())
}

async fn graph_route(
    State(limits): State<Arc<Limits>>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    let p = params(query.as_deref(), 0.2)?;
    if p.seconds > game::MAX_GRAPH_SECONDS {
        return Err(ApiError::bad(format!(
            "seconds: at most {} a position for a graph",
            game::MAX_GRAPH_SECONDS
        )));
    }
    let slot = limits.claim().ok_or_else(ApiError::busy)?;
    Ok(game::graph(p.game, p.seconds, limits.hash_mb, slot).into_response())
}

/// The engine's levels for play, each with its measured Elo (`engine::skill`; the last level
/// is full strength, with no Elo).
async fn levels_route() -> Json<serde_json::Value> {
    use crate::engine::skill::{ELO_OF_LEVEL, MAX_LEVEL};
    let levels: Vec<_> = (0..=MAX_LEVEL)
        .map(|level| json!({ "level": level, "elo": ELO_OF_LEVEL.get(usize::from(level)) }))
        .collect();
    Json(json!(levels))
}

async fn asset_route(uri: axum::http::Uri) -> Response {
    match assets::asset(uri.path()) {
        Some((kind, body)) => ([(header::CONTENT_TYPE, kind)], body).into_response(),
        None => ApiError(StatusCode::NOT_FOUND, "no such page".into()).into_response(),
    }
}

async fn not_allowed() -> ApiError {
    ApiError(
        StatusCode::METHOD_NOT_ALLOWED,
        "method not allowed: the API's reads are GET, a PGN is POSTed".into(),
    )
}

/// The routes, over the server's limits.
pub fn router(limits: Arc<Limits>) -> Router {
    Router::new()
        .route("/api/probe", get(probe_route))
        .route("/api/analyse", get(analyse_route))
        .route("/api/play", get(play_route))
        .route("/api/graph", get(graph_route))
        .route("/api/pgn", post(pgn_route))
        .route("/api/levels", get(levels_route))
        .fallback(get(asset_route))
        .method_not_allowed_fallback(not_allowed)
        .layer(axum::extract::DefaultBodyLimit::max(MAX_PGN + 1))
        .with_state(limits)
}

/// Why the server could not start or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("cannot start the server's threads: {0}")]
    Threads(std::io::Error),
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    #[error("the server stopped: {0}")]
    Stopped(std::io::Error),
}

/// Serves on `addr` until the process ends, at most `max_searches` searches at once, each with
/// a hash table of `hash_mb` MiB. The first line on stdout says where; with `open_page` the page
/// is then opened in the desktop's browser (a failure to open it is reported, not fatal).
pub fn run(
    addr: &str,
    max_searches: usize,
    hash_mb: usize,
    open_page: bool,
) -> Result<(), ServeError> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .enable_time()
        .build()
        .map_err(ServeError::Threads)?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Listen {
                addr: addr.to_string(),
                source,
            })?;
        let local = listener
            .local_addr()
            .map_or_else(|_| addr.to_string(), |a| a.to_string());
        let url = format!("http://{local}/");
        println!("listening on {url}");
        let _ = std::io::stdout().flush();
        if open_page {
            if let Err(e) = open::that_detached(&url) {
                eprintln!("cannot open a browser ({e}); open {url} by hand");
            }
        }
        let app = router(Arc::new(Limits::new(max_searches, hash_mb)));
        axum::serve(listener, app)
            .await
            .map_err(ServeError::Stopped)
    })
}
