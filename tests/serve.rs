//! `syotti serve`: the JSON API over a real socket.

mod common;

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::{Child, Command},
};

struct Server {
    child: Child,
    addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start() -> Server {
    start_with(&[])
}

fn start_with(extra: &[&str]) -> Server {
    let (child, addr) = common::serve(extra);
    Server { child, addr }
}

/// Status code and body of one request.
fn request(server: &Server, method: &str, target: &str) -> (u16, String) {
    request_with(server, method, target, "")
}

/// Status code and body of one request with a body (the body as it comes, chunks and all).
fn request_with(server: &Server, method: &str, target: &str, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(&server.addr).expect("connects");
    write!(
        stream,
        "{method} {target} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        server.addr,
        body.len()
    )
    .expect("sends");
    let mut raw = String::new();
    stream.read_to_string(&mut raw).expect("reads");
    let (head, body) = raw.split_once("\r\n\r\n").expect("a response");
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("a status");
    (status, body.to_string())
}

fn probe(server: &Server, query: &str) -> serde_json::Value {
    let (status, body) = request(server, "GET", &format!("/api/probe?{query}"));
    assert_eq!(status, 200, "{body}");
    serde_json::from_str(&body).expect("JSON")
}

#[test]
fn the_probe_shows_proved_verdicts_and_bad_requests_get_clear_errors() {
    let server = start();
    // After 1.e4: Black to move wins, by the book, with the proof's main line; 1...b5 keeps the
    // win and its distance falls by one.
    let after_e4 = probe(
        &server,
        "fen=rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR+b+-+-+0+1",
    );
    let result = &after_e4["result"];
    assert_eq!(result["winner"], "black");
    assert_eq!(result["source"], "book");
    let plies = result["plies"].as_u64().expect("plies");
    assert_eq!(result["line"][0], "b7b5");
    let moves = after_e4["moves"].as_array().expect("moves");
    assert_eq!(moves.len(), 20);
    let b5 = moves.iter().find(|m| m["uci"] == "b7b5").expect("b5");
    assert_eq!(b5["san"], "b5");
    assert_eq!(
        b5["fen_after"],
        "rnbqkbnr/p1pppppp/8/1p6/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2"
    );
    assert_eq!(b5["after"]["winner"], "black");
    assert_eq!(b5["after"]["plies"].as_u64(), Some(plies - 1));
    // From the start: each refuted first move leads to Black's proved win; 1.e3 is not proved.
    let start = probe(
        &server,
        "fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR%20w%20-%20-%200%201",
    );
    assert!(start["result"].is_null());
    let after = |uci: &str| {
        start["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .find(|m| m["uci"] == uci)
            .expect("a legal move")["after"]
            .clone()
    };
    for refuted in ["e2e4", "d2d4", "d2d3", "b1c3", "g1f3", "f2f4", "h2h4"] {
        assert_eq!(after(refuted)["winner"], "black", "{refuted}");
    }
    assert!(after("e2e3")["winner"].is_null());
    // Under another convention the book (made under lichess rules) says nothing.
    let suicide = probe(
        &server,
        "fen=rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR+b+-+-+0+1&variant=suicide",
    );
    assert!(suicide["result"].is_null());
    // A position over by the rules.
    let over = probe(&server, "fen=8/8/8/8/8/8/8/k7+w+-+-+0+1");
    assert_eq!(over["result"]["winner"], "white");
    assert_eq!(over["result"]["source"], "rules");
    // Bad requests: 4xx with a message, and the server keeps serving.
    for (method, target, status) in [
        ("GET", "/api/probe?fen=garbage", 400),
        ("GET", "/api/probe", 400),
        (
            "GET",
            "/api/probe?fen=8/8/8/8/8/8/8/k7+w+-+-+0+1&colour=red",
            400,
        ),
        (
            "GET",
            "/api/probe?fen=8/8/8/8/8/8/8/k7+w+-+-+0+1&variant=chess",
            400,
        ),
        ("GET", "/nowhere", 404),
        ("POST", "/api/probe", 405),
    ] {
        let (code, body) = request(&server, method, target);
        assert_eq!(code, status, "{method} {target}: {body}");
        let error: serde_json::Value = serde_json::from_str(&body).expect("JSON");
        assert!(error["error"].as_str().is_some_and(|e| !e.is_empty()));
    }
    // The page and its files, embedded.
    let (code, body) = request(&server, "GET", "/");
    assert_eq!(code, 200);
    assert!(body.contains("/app.js"));
    for file in [
        "/app.js",
        "/style.css",
        "/vendor/chessground.min.js",
        "/vendor/chessground.base.css",
    ] {
        let (code, body) = request(&server, "GET", file);
        assert_eq!(code, 200, "{file}");
        assert!(!body.is_empty(), "{file}");
    }
    assert_eq!(
        probe(&server, "fen=8/8/8/8/8/8/8/k7+w+-+-+0+1")["turn"],
        "white"
    );
}

#[test]
fn a_port_in_use_is_a_clear_error() {
    let server = start();
    let port = server.addr.rsplit(':').next().expect("a port").to_string();
    let out = Command::new(env!("CARGO_BIN_EXE_syotti"))
        .args(["serve", "--port", &port])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: cannot listen"));
}

/// Opens an analysis stream; its status line and the connection.
fn open_analysis(server: &Server, seconds: u32) -> (String, BufReader<TcpStream>) {
    let stream = TcpStream::connect(&server.addr).expect("connects");
    let mut writer = stream.try_clone().expect("clone");
    write!(
        writer,
        "GET /api/analyse?fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR+w+-+-+0+1&seconds={seconds} HTTP/1.1\r\nHost: x\r\n\r\n"
    )
    .expect("sends");
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).expect("a status line");
    (status, reader)
}

#[test]
fn live_analysis_streams_lines_stops_when_the_client_goes_and_is_capped() {
    let server = start_with(&["--analyses", "1", "--hash", "16"]);
    let (status, mut reader) = open_analysis(&server, 600);
    assert!(status.contains(" 200 "), "{status}");
    // Server-sent events: an info line with a depth and a principal variation.
    let mut line = String::new();
    let info = loop {
        line.clear();
        assert!(
            reader.read_line(&mut line).expect("reads") > 0,
            "the stream ended"
        );
        if let Some(data) = line.strip_prefix("data: ") {
            let v: serde_json::Value = serde_json::from_str(data).expect("JSON");
            if v.get("depth").is_some() {
                break v;
            }
        }
    };
    assert!(info["depth"].as_u64().is_some_and(|d| d >= 1));
    assert!(info["pv"].as_array().is_some_and(|pv| !pv.is_empty()));
    // The cap: one analysis at a time, so a second is refused while the first runs.
    let (second, _) = open_analysis(&server, 1);
    assert!(second.contains(" 503 "), "{second}");
    // The first client goes: its search stops, and the place is free again.
    drop(reader);
    let start = std::time::Instant::now();
    loop {
        let (status, mut reader) = open_analysis(&server, 1);
        if status.contains(" 200 ") {
            // A short analysis ends with its best move (the client then closes).
            let mut line = String::new();
            loop {
                line.clear();
                assert!(
                    reader.read_line(&mut line).expect("reads") > 0,
                    "no best move"
                );
                if line.starts_with("event: bestmove") {
                    break;
                }
            }
            break;
        }
        assert!(
            start.elapsed().as_secs() < 20,
            "the first search never stopped"
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    // Bad analysis requests: 400, and the server goes on.
    for target in [
        "/api/analyse?fen=garbage",
        "/api/analyse?fen=8/8/8/8/8/8/8/k7+w+-+-+0+1",
        "/api/analyse?fen=8/8/8/8/8/8/8/k7+b+-+-+0+1&seconds=0",
        "/api/analyse?fen=8/8/8/8/8/8/8/k7+b+-+-+0+1&multipv=9",
    ] {
        let (code, body) = request(&server, "GET", target);
        assert_eq!(code, 400, "{target}: {body}");
    }
}

fn json_of(status_and_body: (u16, String), expected: u16) -> serde_json::Value {
    let (status, body) = status_and_body;
    assert_eq!(status, expected, "{body}");
    serde_json::from_str(&body).expect("JSON")
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR+w+-+-+0+1";

#[test]
fn games_are_imported_played_against_and_graphed() {
    let server = start_with(&["--analyses", "1", "--hash", "16"]);
    // A PGN: its moves checked into positions; the first illegal move named, nothing taken.
    let game = json_of(
        request_with(
            &server,
            "POST",
            "/api/pgn",
            "[Variant \"Suicide\"]\n\n1. e3 b5 2. Bxb5 c6 *",
        ),
        200,
    );
    assert_eq!(game["variant"], "suicide");
    assert_eq!(game["moves"].as_array().map(Vec::len), Some(4));
    assert_eq!(game["moves"][2]["san"], "Bxb5");
    assert_eq!(game["moves"][2]["uci"], "f1b5");
    let bad = json_of(
        request_with(&server, "POST", "/api/pgn", "1. e3 b5 2. Qh5 *"),
        400,
    );
    assert!(
        bad["error"]
            .as_str()
            .is_some_and(|e| e.starts_with("move 2. Qh5")),
        "{bad}"
    );
    for (body, status) in [
        ("", 400),
        ("[FEN \"garbage\"]\n\n1. e4 *", 400),
        ("[Variant \"Chess\"] 1. e4 *", 400),
    ] {
        let answer = json_of(request_with(&server, "POST", "/api/pgn", body), status);
        assert!(answer["error"].is_string(), "{body}: {answer}");
    }
    // The engine's move at the lowest level: legal, and the game's moves are taken into account.
    let levels = json_of(request(&server, "GET", "/api/levels"), 200);
    assert_eq!(levels.as_array().map(Vec::len), Some(21));
    assert!(levels[20]["elo"].is_null());
    let mut seen = std::collections::HashSet::new();
    for _ in 0..12 {
        let reply = json_of(
            request(
                &server,
                "GET",
                &format!("/api/play?fen={START}&moves=e2e3+b7b5&level=0&seconds=1"),
            ),
            200,
        );
        assert_eq!(reply["uci"], "f1b5", "the capture is compulsory");
        let reply = json_of(
            request(&server, "GET", &format!("/api/play?fen={START}&level=0")),
            200,
        );
        seen.insert(reply["uci"].as_str().expect("a move").to_string());
    }
    assert!(
        seen.len() > 1,
        "the lowest level varies its first move: {seen:?}"
    );
    for target in [
        format!("/api/play?fen={START}&level=21"),
        format!("/api/play?fen={START}&moves=e2e5"),
        "/api/play?fen=8/8/8/8/8/8/8/k7+w+-+-+0+1".to_string(),
    ] {
        let answer = json_of(request(&server, "GET", &target), 400);
        assert!(answer["error"].is_string(), "{target}");
    }
    // The graph: one point a position, White's view, then the end.
    let (status, body) = request(
        &server,
        "GET",
        &format!("/api/graph?fen={START}&moves=e2e3+b7b5+f1b5&seconds=0.1"),
    );
    assert_eq!(status, 200, "{body}");
    let plies: Vec<serde_json::Value> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<serde_json::Value>(d).ok())
        .filter(|v| v.get("ply").is_some())
        .collect();
    assert_eq!(plies.len(), 4, "{body}");
    assert!(plies.iter().all(|p| p["score"].is_object()));
    assert_eq!(plies[2]["best"], "f1b5", "the capture is compulsory");
    assert_eq!(plies[2]["san"], "Bxb5", "the best move, in SAN");
    assert!(body.contains("event: done"), "{body}");
}
