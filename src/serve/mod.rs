//! `syotti serve`: the proofs on the web, for people and for other tools.
//!
//! A face of the engine beside `uci/` and `xboard/`: an HTTP server (tiny_http) on 127.0.0.1 by
//! default, serving a page (`web/`, embedded: a chessground board that asks the API for
//! everything, so the browser knows no rules) and a JSON API. `GET /api/probe?fen=FEN` answers, for the
//! position and for every legal move, what is proved (the embedded book: the refutations and the
//! proved sub-lines of open problems; a position over by the rules), with the proof's main line.
//! Answers come from `proof::book`'s game entry (`ProofBook::answer`), the one the engine plays
//! from, so the page and the engine never disagree. Requests are served one after another: a
//! probe costs a book lookup a move and at most one history walk, well under a millisecond.
//!
//! `GET /api/analyse` streams the engine's live analysis (`analysis`), each on a thread of its
//! own, capped. Partial (issue 47): PGN import, the evaluation graph and play against the engine
//! are not built yet.

mod analysis;
mod assets;
mod probe;

use std::{io::Write, sync::Arc};

use shakmaty::Position;

use analysis::{Analysis, AnalysisLimits};

use tiny_http::{Header, Method, Request, Response, Server};

pub use probe::{probe, ProbeError};

use crate::rules::StalemateRule;

/// Longest query string read (a FEN and a few parameters fit many times).
const MAX_QUERY: usize = 4096;

/// A request's answer: status and JSON body.
fn json(status: u16, body: &serde_json::Value) -> Response<std::io::Cursor<Vec<u8>>> {
    let mut response = Response::from_data(body.to_string().into_bytes()).with_status_code(status);
    if let Ok(h) = Header::from_bytes("Content-Type", "application/json; charset=utf-8") {
        response.add_header(h);
    }
    response
}

fn error(status: u16, message: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    json(status, &serde_json::json!({ "error": message }))
}

/// A request's parameters: the position and rules, and the analysis's length and lines.
struct Params {
    fen: String,
    rule: StalemateRule,
    seconds: f64,
    multipv: usize,
}

fn params(query: &str) -> Result<Params, Response<std::io::Cursor<Vec<u8>>>> {
    if query.len() > MAX_QUERY {
        return Err(error(414, "query too long"));
    }
    let mut fen = None;
    let mut p = Params {
        fen: String::new(),
        rule: StalemateRule::default(),
        seconds: 10.0,
        multipv: 1,
    };
    for (key, value) in form_urlencoded::parse(query.as_bytes()) {
        match key.as_ref() {
            "fen" => fen = Some(value.into_owned()),
            "variant" => match value.parse::<crate::rules::Variant>() {
                Ok(v) => p.rule = v.stalemate_rule(),
                Err(e) => return Err(error(400, &e.to_string())),
            },
            "stalemate" => match value.parse::<StalemateRule>() {
                Ok(r) => p.rule = r,
                Err(e) => return Err(error(400, &e.to_string())),
            },
            "seconds" => match value.parse::<f64>() {
                Ok(s) if s > 0.0 && s <= analysis::MAX_SECONDS => p.seconds = s,
                _ => return Err(error(400, "seconds: a number above 0 and at most 600")),
            },
            "multipv" => match value.parse::<usize>() {
                Ok(n) if (1..=5).contains(&n) => p.multipv = n,
                _ => return Err(error(400, "multipv: 1 to 5")),
            },
            other => return Err(error(400, &format!("unknown parameter '{other}'"))),
        }
    }
    p.fen = fen.ok_or_else(|| error(400, "missing parameter 'fen'"))?;
    Ok(p)
}

/// Answers one request (all but analyses, which stream).
pub fn respond(method: &Method, url: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if *method != Method::Get && *method != Method::Head {
        return error(405, "only GET is served");
    }
    match path {
        "/api/probe" => match params(query) {
            Ok(p) => match probe(&p.fen, p.rule) {
                Ok(answer) => json(200, &answer),
                Err(e) => error(400, &e.to_string()),
            },
            Err(response) => response,
        },
        _ => match assets::asset(path) {
            Some((kind, body)) => {
                let mut response = Response::from_data(body.as_bytes().to_vec());
                if let Ok(h) = Header::from_bytes("Content-Type", kind) {
                    response.add_header(h);
                }
                response
            }
            None => error(404, "no such page"),
        },
    }
}

fn serve_one(request: Request) {
    let response = respond(request.method(), request.url());
    if let Err(e) = request.respond(response) {
        log::debug!("a client went away: {e}");
    }
}

/// An analysis: checked, then streamed on a thread of its own (or refused at the cap).
fn serve_analysis(request: Request, limits: &Arc<AnalysisLimits>) {
    let query = request.url().split_once('?').map_or("", |(_, q)| q);
    let checked = params(query).and_then(|p| {
        let position = crate::rules::notation::parse_fen(&p.fen)
            .map_err(|e| error(400, &format!("bad FEN: {e}")))?;
        if position.legal_moves().is_empty() {
            return Err(error(400, "the game is over: nothing to analyse"));
        }
        Ok(Analysis {
            position,
            rule: p.rule,
            seconds: p.seconds,
            multipv: p.multipv,
        })
    });
    let analysis = match checked {
        Ok(a) => a,
        Err(response) => {
            let _ = request.respond(response);
            return;
        }
    };
    let Some(slot) = limits.claim() else {
        let _ = request.respond(error(503, "too many analyses at once: try again later"));
        return;
    };
    let hash_mb = limits.hash_mb;
    let spawned = std::thread::Builder::new()
        .name("analysis".into())
        .spawn(move || {
            let _slot = slot;
            let mut out = request.into_writer();
            let head = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n";
            if out.write_all(head.as_bytes()).and_then(|()| out.flush()).is_ok() {
                analysis::stream(&analysis, hash_mb, &mut out);
            }
        });
    if let Err(e) = spawned {
        log::warn!("cannot start an analysis thread: {e}");
    }
}

/// Serves on `addr` until the process ends, at most `max_analyses` analyses at once, each with
/// a hash table of `hash_mb` MiB. The first line on stdout says where.
pub fn run(addr: &str, max_analyses: usize, hash_mb: usize) -> Result<(), String> {
    let limits = Arc::new(AnalysisLimits::new(max_analyses, hash_mb));
    let server = Server::http(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = server
        .server_addr()
        .to_ip()
        .map_or_else(|| addr.to_string(), |a| a.to_string());
    println!("listening on http://{local}/");
    let _ = std::io::stdout().flush();
    for request in server.incoming_requests() {
        if request.url().starts_with("/api/analyse") && *request.method() == Method::Get {
            serve_analysis(request, &limits);
        } else {
            serve_one(request);
        }
    }
    Ok(())
}
