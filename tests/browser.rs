//! The explorer page in a real browser: Debian's Chromium driven by chromedriver over WebDriver
//! (plain HTTP and JSON, as the W3C protocol is). `.ci/run` installs `chromium` and
//! `chromium-driver` when missing; by hand: `apt-get install chromium chromium-driver`.

use std::{
    io::{BufRead, BufReader, Read, Write},
    net::TcpStream,
    process::{Child, Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::{json, Value};

mod common;

struct Process(Child);

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// One HTTP/1.1 request, the connection closed after it (chromedriver answers with a length,
/// not in chunks); the JSON body of the answer.
fn http(addr: &str, method: &str, path: &str, body: Option<&Value>) -> Value {
    let mut stream = TcpStream::connect(addr).expect("connects");
    let body = body.map(Value::to_string).unwrap_or_default();
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .expect("sends");
    // The head, then exactly the length it announces (the driver may keep the connection).
    let mut reader = BufReader::new(stream);
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).expect("the body");
    let body = String::from_utf8_lossy(&body);
    serde_json::from_str(&body).unwrap_or(Value::Null)
}

struct Browser {
    driver: String,
    session: String,
    _process: Process,
}

impl Browser {
    fn start() -> Browser {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let process = Command::new("chromedriver")
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("chromedriver runs (apt-get install chromium chromium-driver; .ci/run does)");
        let driver = format!("127.0.0.1:{port}");
        let start = Instant::now();
        while TcpStream::connect(&driver).is_err()
            || http(&driver, "GET", "/status", None)["value"]["ready"] != json!(true)
        {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "timeouts": {"pageLoad": 60000, "script": 30000},
            "goog:chromeOptions": {
                "binary": "/usr/bin/chromium",
                "args": ["--headless", "--no-sandbox", "--disable-gpu", "--window-size=1200,900"]
            }
        }}});
        let reply = http(&driver, "POST", "/session", Some(&caps));
        let session = reply["value"]["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {reply}"))
            .to_string();
        Browser {
            driver,
            session,
            _process: Process(process),
        }
    }

    fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let path = format!("/session/{}{path}", self.session);
        http(&self.driver, method, &path, body.as_ref())["value"].clone()
    }

    /// Runs a script in the page and returns its value.
    fn run(&self, script: &str) -> Value {
        self.command(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": []})),
        )
    }

    /// Waits until `script` returns something truthy; returns it.
    fn wait_for(&self, script: &str, what: &str) -> Value {
        let start = Instant::now();
        loop {
            let v = self.run(script);
            if !(v.is_null() || v == json!(false) || v == json!("") || v == json!(0)) {
                return v;
            }
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "waited for {what}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Clicks a square of the board (white at the bottom), as a player would.
    fn click_square(&self, square: &str) {
        let file = f64::from(square.as_bytes()[0] - b'a');
        let rank = f64::from(square.as_bytes()[1] - b'1');
        let rect = self.run(
            "const r = document.querySelector('cg-board').getBoundingClientRect(); return [r.left, r.top, r.width];",
        );
        let (left, top, size) = (
            rect[0].as_f64().expect("left"),
            rect[1].as_f64().expect("top"),
            rect[2].as_f64().expect("width"),
        );
        let x = (left + (file + 0.5) * size / 8.0).round() as i64;
        let y = (top + (7.0 - rank + 0.5) * size / 8.0).round() as i64;
        let actions = json!({"actions": [{
            "type": "pointer", "id": "mouse", "parameters": {"pointerType": "mouse"},
            "actions": [
                {"type": "pointerMove", "duration": 0, "x": x, "y": y, "origin": "viewport"},
                {"type": "pointerDown", "button": 0},
                {"type": "pointerUp", "button": 0}
            ]
        }]});
        self.command("POST", "/actions", Some(actions));
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let path = format!("/session/{}", self.session);
        http(&self.driver, "DELETE", &path, None);
    }
}

fn serve() -> (Process, String) {
    let (child, addr) = common::serve(&[]);
    (Process(child), format!("http://{addr}/"))
}

#[test]
fn the_explorer_shows_proofs_on_a_board_steps_the_main_line_and_survives_bad_input() {
    let (_server, url) = serve();
    let browser = Browser::start();
    browser.command("POST", "/url", Some(json!({ "url": url })));
    browser.wait_for(
        "return document.querySelectorAll('#moves tr').length === 20;",
        "the start position's twenty moves",
    );
    // 1.e4 played on the board, square by square: Black's proved win and its distance.
    browser.click_square("e2");
    browser.click_square("e4");
    let verdict = browser.wait_for(
        "const t = document.getElementById('verdict').textContent; return t.startsWith('black') && t;",
        "the position after 1.e4",
    );
    assert_eq!(verdict, "black to move: black wins in 16 moves");
    let best = browser.run("return document.querySelector('#moves tr.win td').textContent;");
    assert_eq!(best, "b5");
    // The proof's main line, a move at a time: the distance falls by one ply each time.
    browser.run("document.getElementById('line-step').click();");
    browser.wait_for(
        "return document.querySelectorAll('#history li').length === 2 && document.getElementById('verdict').textContent.startsWith('white');",
        "the main line's first move",
    );
    let verdict = browser.run("return document.getElementById('verdict').textContent;");
    assert_eq!(verdict, "white to move: black wins in 16 moves");
    // Back one move: the position after 1.e4 again.
    browser.run("document.getElementById('back').click();");
    browser.wait_for(
        "return document.getElementById('verdict').textContent.startsWith('black');",
        "one move back",
    );
    // Live analysis of the position on the board: depth lines arrive, and stop stops them.
    browser.run("document.getElementById('analyse').click();");
    let line = browser.wait_for(
        "const l = document.querySelector('#analysis li.info'); return l && l.textContent;",
        "a line of live analysis",
    );
    assert!(
        line.as_str().is_some_and(|l| l.starts_with("depth ")),
        "{line}"
    );
    browser.run("document.getElementById('analyse').click();");
    let status = browser.run("return document.getElementById('engine-status').textContent;");
    assert!(
        status.as_str().is_some_and(|s| s.contains("stopped")),
        "{status}"
    );
    // A bad FEN: an error on the page, and the page goes on working.
    browser.run(
        "document.getElementById('fen').value = 'not a position'; document.getElementById('fen-form').requestSubmit();",
    );
    let error = browser.wait_for(
        "const e = document.getElementById('error'); return !e.hidden && e.textContent;",
        "the error message",
    );
    assert!(
        error.as_str().is_some_and(|e| e.contains("bad FEN")),
        "{error}"
    );
    browser.run("document.getElementById('start').click();");
    browser.wait_for(
        "return document.getElementById('error').hidden && document.querySelectorAll('#moves tr').length === 20;",
        "the start position again",
    );
    // A PGN with an illegal move (captures are compulsory: 2.Qh5 where Bxb5 must be played):
    // the error names the move, the page keeps its game.
    browser.run(
        "document.getElementById('pgn').value = '[Variant \"Antichess\"]\\n\\n1. e3 b5 2. Qh5 *'; document.getElementById('pgn-load').click();",
    );
    let error = browser.wait_for(
        "const e = document.getElementById('error'); return !e.hidden && e.textContent.includes('PGN') && e.textContent;",
        "the PGN's error",
    );
    assert!(
        error.as_str().is_some_and(|e| e.contains("move 2. Qh5")),
        "{error}"
    );
    assert_eq!(
        browser.run("return document.querySelectorAll('#moves tr').length;"),
        json!(20)
    );
    // A good one: its moves in the game list, the board at its end, and its evaluation graph.
    browser.run(
        "document.getElementById('pgn').value = '1. e3 b5 2. Bxb5 c6 *'; document.getElementById('pgn-load').click();",
    );
    let moves = browser.wait_for(
        "const l = [...document.querySelectorAll('#history li')].map(x => x.textContent); return l.length === 4 && l.join(' ');",
        "the imported game",
    );
    assert_eq!(moves, "e3 b5 Bxb5 c6");
    browser.run("document.getElementById('graph-run').click();");
    browser.wait_for(
        "return document.getElementById('graph-status').textContent === '5 positions evaluated';",
        "the evaluation graph",
    );
    let points = browser.run(
        "return document.querySelector('#graph polyline').getAttribute('points').split(' ').length;",
    );
    assert_eq!(points, json!(5));
    // Three moves against the engine at its lowest level, from the start, played on the board.
    browser.run("document.getElementById('start').click();");
    browser.wait_for(
        "return document.querySelectorAll('#moves tr').length === 20 && document.getElementById('history').children.length === 4;",
        "the start of the imported game",
    );
    browser.run(
        "document.getElementById('level').value = '0'; document.getElementById('play-side').value = 'white'; document.getElementById('play-start').click();",
    );
    for played in 1..=3 {
        browser.wait_for(
            "return document.getElementById('play-status').textContent.startsWith('your move');",
            "the player's turn",
        );
        let uci = browser.run("return document.querySelector('#moves tr').dataset.uci;");
        let uci = uci.as_str().expect("a legal move").to_string();
        browser.click_square(&uci[0..2]);
        browser.click_square(&uci[2..4]);
        browser.wait_for(
            &format!(
                "return document.getElementById('history').children.length === {} && document.getElementById('play-status').textContent.startsWith('your move');",
                2 * played
            ),
            "the engine's answer",
        );
    }
    let status = browser.run("return document.getElementById('play-status').textContent;");
    assert_eq!(status, "your move (engine level 0)");
}
