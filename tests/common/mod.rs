//! The real `syotti` binary driven through its standard input and output, for the protocol
//! tests (UCI, XBoard, the fuzz).

#![allow(dead_code, reason = "each test file uses a part of the harness")]

use std::{
    io::{BufRead, BufReader, Write},
    process::{Child, ChildStdin, Command, Stdio},
    sync::mpsc::{channel, Receiver, RecvTimeoutError},
    thread,
    time::{Duration, Instant},
};

/// The antichess tables' folder: `$SYOTTI_SYZYGY`, else `../shared/tablebases` beside the
/// checkout; the tests that need them fail saying where they looked.
pub fn tables_path() -> String {
    let candidates: Vec<std::path::PathBuf> = std::env::var_os("SYOTTI_SYZYGY")
        .map(std::path::PathBuf::from)
        .into_iter()
        .chain([std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/tablebases")])
        .collect();
    let found = candidates.iter().find(|p| p.is_dir()).unwrap_or_else(|| {
        panic!("antichess tablebases not found; looked in {candidates:?} (set SYOTTI_SYZYGY)")
    });
    found.to_string_lossy().into_owned()
}

/// The value after `key` in a line of words (`info ... time 12 ...`), if there is one.
pub fn word_after<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let mut words = line.split_whitespace();
    words.find(|w| *w == key)?;
    words.next()
}

/// The `score ...` of an info line: ("mate", N) or ("cp", N).
pub fn score_of(line: &str) -> (String, i32) {
    let mut words = line.split_whitespace();
    words
        .find(|w| *w == "score")
        .unwrap_or_else(|| panic!("no score in {line}"));
    let kind = words.next().expect("a score kind").to_string();
    let value = words.next().and_then(|v| v.parse().ok()).expect("a number");
    (kind, value)
}

/// The score of the last `info ... score` line among `lines`.
pub fn last_score(lines: &[String]) -> (String, i32) {
    let line = lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info") && l.contains(" score "))
        .unwrap_or_else(|| panic!("no score in {lines:?}"));
    score_of(line)
}

/// Generous bound for answers that should come at once; never a performance claim.
pub const PATIENCE: Duration = Duration::from_secs(20);

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    /// Starts `syotti ARGS` with piped input and output (its logs on stderr are dropped).
    pub fn start_with(args: &[&str]) -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_syotti"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary starts");
        let stdin = child.stdin.take().expect("stdin piped");
        let stdout = child.stdout.take().expect("stdout piped");
        let (tx, lines) = channel();
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            child,
            stdin: Some(stdin),
            lines,
        }
    }

    pub fn start() -> Engine {
        Engine::start_with(&[])
    }

    /// Sends one line of bytes (not necessarily text).
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("input still open");
        stdin.write_all(bytes).expect("the engine reads input");
        stdin.write_all(b"\n").expect("the engine reads input");
        stdin.flush().expect("flush");
    }

    pub fn send(&mut self, text: &str) {
        self.send_bytes(text.as_bytes());
    }

    /// Closes the engine's standard input (end of input).
    pub fn close_input(&mut self) {
        self.stdin = None;
    }

    /// Lines up to and including the first one starting with `prefix`; `context` names what
    /// was being waited for in the failure message.
    pub fn until_or(&self, prefix: &str, context: &str, patience: Duration) -> Vec<String> {
        let deadline = Instant::now() + patience;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    let done = line.starts_with(prefix);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                Err(e) => panic!("no '{prefix}' {context}({e:?}); got {seen:?}"),
            }
        }
    }

    /// Lines up to and including the first one starting with `prefix`.
    pub fn until(&self, prefix: &str) -> Vec<String> {
        self.until_or(prefix, "", PATIENCE)
    }

    /// Lines that arrive within `wait`, expecting none to start with `prefix`.
    pub fn quiet_for(&self, wait: Duration, prefix: &str) -> Vec<String> {
        let deadline = Instant::now() + wait;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    assert!(!line.starts_with(prefix), "unexpected '{line}'");
                    seen.push(line);
                }
                Err(RecvTimeoutError::Timeout) => return seen,
                Err(RecvTimeoutError::Disconnected) => panic!("engine went away"),
            }
        }
    }

    /// Waits for the process to end by itself.
    pub fn wait_exit(&mut self, patience: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + patience;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            thread::sleep(Duration::from_millis(10));
        }
        None
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `syotti serve --port 0` with `extra` arguments: the process, and the address it listens on
/// (`host:port`) from its first line.
pub fn serve(extra: &[&str]) -> (Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_syotti"))
        .args(["serve", "--port", "0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut line = String::new();
    BufReader::new(child.stdout.take().expect("stdout"))
        .read_line(&mut line)
        .expect("a first line");
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .and_then(|rest| rest.strip_suffix('/'))
        .unwrap_or_else(|| panic!("unexpected first line: {line}"))
        .to_string();
    (child, addr)
}
