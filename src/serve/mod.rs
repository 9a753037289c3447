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
//! Partial (issue 47): the page explores proved lines (board, verdicts beside every move, the
//! proof's main line, back/forward, FEN, variant); live analysis, PGN import, play against the
//! engine and the browser tests are not built yet.

mod assets;
mod probe;

use std::io::Write;

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

/// Answers one request.
pub fn respond(method: &Method, url: &str) -> Response<std::io::Cursor<Vec<u8>>> {
    let (path, query) = url.split_once('?').unwrap_or((url, ""));
    if *method != Method::Get && *method != Method::Head {
        return error(405, "only GET is served");
    }
    match path {
        "/api/probe" => {
            if query.len() > MAX_QUERY {
                return error(414, "query too long");
            }
            let mut fen = None;
            let mut rule = StalemateRule::default();
            for (key, value) in form_urlencoded::parse(query.as_bytes()) {
                match key.as_ref() {
                    "fen" => fen = Some(value.into_owned()),
                    "variant" => match value.parse::<crate::rules::Variant>() {
                        Ok(v) => rule = v.stalemate_rule(),
                        Err(e) => return error(400, &e.to_string()),
                    },
                    "stalemate" => match value.parse::<StalemateRule>() {
                        Ok(r) => rule = r,
                        Err(e) => return error(400, &e.to_string()),
                    },
                    other => return error(400, &format!("unknown parameter '{other}'")),
                }
            }
            let Some(fen) = fen else {
                return error(400, "missing parameter 'fen'");
            };
            match probe(&fen, rule) {
                Ok(answer) => json(200, &answer),
                Err(e) => error(400, &e.to_string()),
            }
        }
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

/// Serves on `addr` until the process ends. The first line on stdout says where.
pub fn run(addr: &str) -> Result<(), String> {
    let server = Server::http(addr).map_err(|e| format!("cannot listen on {addr}: {e}"))?;
    let local = server
        .server_addr()
        .to_ip()
        .map_or_else(|| addr.to_string(), |a| a.to_string());
    println!("listening on http://{local}/");
    let _ = std::io::stdout().flush();
    for request in server.incoming_requests() {
        serve_one(request);
    }
    Ok(())
}
