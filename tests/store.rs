//! End-to-end tests of the proof store: `syotti prove --store` on SQLite and on a real
//! PostgreSQL server, killed and resumed, and shared by worker processes.
//!
//! The PostgreSQL tests use the server `SYOTTI_TEST_POSTGRES` names (`.ci/run` starts one);
//! without it, each starts a scratch server of its own with `.ci/postgres.sh`, which needs
//! Debian's `postgresql` package.

use std::{
    path::{Path, PathBuf},
    process::{Child, Command, Output, Stdio},
    time::{Duration, Instant},
};

const NC3: &str = "b1c3";

/// `prove` on 1.Nc3 in `store`, with small tables and jobs (the tests' usual run).
fn nc3_args(store: &str) -> Vec<&str> {
    vec![
        "prove",
        "--store",
        store,
        "--moves",
        NC3,
        "--memory",
        "256",
        "--job-nodes",
        "200000",
        // The embedded book proves 1.Nc3 at once: these tests are about the store's own search.
        "--no-book",
    ]
}

fn syotti(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_syotti"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_syotti"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("syotti-store-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// The number after `key` in `--status` output.
fn status_number(status: &str, key: &str) -> u64 {
    status
        .split(key)
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no '{key}' in {status}"))
}

fn status(store: &str) -> String {
    let out = syotti(&["prove", "--store", store, "--status"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    text(&out.stdout)
}

fn assert_verifies(proof: &Path) {
    let out = syotti(&["verify", proof.to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(text(&out.stdout).starts_with("valid: Black wins"));
}

#[test]
fn a_store_proof_is_put_together_and_verified() {
    let dir = scratch("small");
    let store = dir.join("t.db");
    let proof = dir.join("t.proof");
    let (store, proof) = (store.to_str().unwrap(), proof.to_str().unwrap());
    // Jobs of the smallest size, so that the store's own tree takes part in the proof.
    let fen = "8/8/p7/8/8/8/7P/8 w - - 0 1";
    let args = [
        "prove",
        "--store",
        store,
        "--fen",
        fen,
        "--job-nodes",
        "1",
        "--out",
        proof,
    ];
    let out = syotti(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("result: win for White"), "{stdout}");
    assert!(stdout.contains("verified"), "{stdout}");
    let out = syotti(&["verify", proof]);
    assert!(text(&out.stdout).starts_with("valid: White wins"));
    let s = status(store);
    assert!(s.contains("(proved)"), "{s}");
    assert!(status_number(&s, "jobs:") >= 1, "{s}");
    // Run again: the store is solved, so nothing is searched and the proof comes out again.
    let out = syotti(&args);
    assert!(text(&out.stdout).contains("this run: 0 jobs"));
    assert!(text(&out.stdout).contains("verified"));
}

#[test]
fn a_store_holds_one_problem_and_bad_arguments_are_errors() {
    let dir = scratch("args");
    let store = dir.join("t.db");
    let store = store.to_str().unwrap();
    let out = syotti(&["prove", "--store", store, "--worker"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("holds no proof yet"));
    let fen = "8/8/p7/8/8/8/7P/8 w - - 0 1";
    assert!(syotti(&["prove", "--store", store, "--fen", fen])
        .status
        .success());
    let out = syotti(&["prove", "--store", store, "--moves", NC3]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("the store proves"));
    for bad in [
        vec!["--threads", "0"],
        vec!["--nodes", "100"],
        vec!["--job-time", "-1"],
        vec!["--job-nodes", "0"],
    ] {
        let mut args = vec!["prove", "--store", store, "--fen", fen];
        args.extend(bad.iter());
        let out = syotti(&args);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(text(&out.stderr).starts_with("error: "), "{bad:?}");
    }
    let out = syotti(&["prove", "--store", "/nonexistent/dir/t.db", "--fen", fen]);
    assert_eq!(out.status.code(), Some(2));
    let out = syotti(&["prove", "--status"]);
    assert_eq!(out.status.code(), Some(2), "--status needs --store");
}

/// Waits until the store has recorded at least `jobs` jobs.
fn wait_for_jobs(store: &str, jobs: u64) -> u64 {
    let start = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let out = syotti(&["prove", "--store", store, "--status"]);
        if out.status.success() {
            let done = status_number(&text(&out.stdout), "jobs:");
            if done >= jobs {
                return done;
            }
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no progress");
    }
}

#[test]
fn a_proof_killed_mid_run_resumes_to_the_same_verified_result() {
    let dir = scratch("resume");
    let store = dir.join("nc3.db");
    let proof = dir.join("nc3.proof");
    let (store, proof_path) = (store.to_str().unwrap(), proof.to_str().unwrap());
    let mut args = nc3_args(store);
    args.extend(["--out", proof_path]);
    let mut first = spawn(&args);
    let before = wait_for_jobs(store, 3);
    first.kill().expect("kill -9");
    let _ = first.wait();
    let s = status(store);
    assert!(s.contains("(open)"), "killed before the end: {s}");
    // The same command resumes (the dead process's claim is taken back at once).
    let out = syotti(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("result: win for Black"), "{stdout}");
    assert!(stdout.contains("verified"), "{stdout}");
    assert_verifies(&proof);
    let s = status(store);
    assert!(status_number(&s, "jobs:") > before, "{s}");
}

#[test]
fn a_snapshot_carries_a_store_to_a_new_one_that_resumes_to_a_verified_proof() {
    let dir = scratch("snapshot");
    let (old, new) = (dir.join("old.db"), dir.join("new.db"));
    let (snap, proofs) = (dir.join("nc3.snapshot"), dir.join("proofs"));
    let proof = dir.join("nc3.proof");
    let (old, new, snap_path, proof_path) = (
        old.to_str().unwrap(),
        new.to_str().unwrap(),
        snap.to_str().unwrap(),
        proof.to_str().unwrap(),
    );
    let mut first = spawn(&nc3_args(old));
    wait_for_jobs(old, 6);
    first.kill().expect("kill -9");
    let _ = first.wait();
    let before = status(old);
    assert!(before.contains("(open)"), "{before}");
    // The position comes from the store.
    let out = syotti(&[
        "prove",
        "--store",
        old,
        "--snapshot-out",
        snap_path,
        "--proofs-out",
        proofs.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        stdout.contains("snapshot: ") && stdout.contains("0 refused"),
        "{stdout}"
    );
    // The open tree and its solved border: at most the store's tree, at least its root's edges.
    let kept = status_number(&stdout, "snapshot:");
    assert!(
        kept > 1 && kept <= status_number(&before, "tree:"),
        "{stdout}"
    );
    // Every exported proof verifies on its own.
    for entry in std::fs::read_dir(&proofs).expect("the proofs folder") {
        assert_verifies(&entry.expect("an entry").path());
    }
    // A damaged snapshot is refused with a clear error, and the new store stays empty.
    let damaged = dir.join("damaged.snapshot");
    std::fs::write(&damaged, b"not gzip").expect("write");
    let mut args = nc3_args(new);
    args.extend(["--resume-from", damaged.to_str().unwrap()]);
    let out = syotti(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("cannot read the snapshot"));
    // Another position than the snapshot's: refused.
    let out = syotti(&[
        "prove",
        "--store",
        new,
        "--moves",
        "g1f3",
        "--resume-from",
        snap_path,
    ]);
    assert_eq!(out.status.code(), Some(2));
    // The new store starts from the snapshot (without the book, proved positions are open
    // again) and resumes to a proof that verifies.
    let mut args = nc3_args(new);
    args.extend(["--resume-from", snap_path, "--out", proof_path]);
    let out = syotti(&args);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("resumed from"), "{stderr}");
    assert!(text(&out.stdout).contains("result: win for Black"));
    assert_verifies(&proof);
    // The store is no longer new: a second resume is refused.
    let mut args = nc3_args(new);
    args.extend(["--resume-from", snap_path]);
    let out = syotti(&args);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("new store"),
        "{}",
        text(&out.stderr)
    );
}

/// A PostgreSQL server for one test: the one `SYOTTI_TEST_POSTGRES` names, or a scratch server
/// of the test's own, stopped when the test ends.
struct Postgres {
    base: String,
    scratch: Option<PathBuf>,
}

impl Postgres {
    fn start(name: &str, port_offset: u16) -> Postgres {
        if let Ok(url) = std::env::var("SYOTTI_TEST_POSTGRES") {
            return Postgres {
                base: url,
                scratch: None,
            };
        }
        let dir = scratch(&format!("pg-{name}"));
        let port = 20000 + (std::process::id() % 20000) as u16 + port_offset;
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/postgres.sh");
        let out = Command::new(&script)
            .arg("start")
            .arg(&dir)
            .arg(port.to_string())
            .output()
            .expect("runs .ci/postgres.sh");
        assert!(
            out.status.success(),
            "cannot start a scratch PostgreSQL server (install Debian's postgresql, or set \
             SYOTTI_TEST_POSTGRES to a server's URL): {}",
            text(&out.stderr)
        );
        Postgres {
            base: text(&out.stdout).trim().to_string(),
            scratch: Some(dir),
        }
    }

    /// A fresh database on the server, by URL.
    fn database(&self, name: &str) -> String {
        let mut client =
            postgres::Client::connect(&self.base, postgres::NoTls).expect("connects to the server");
        let db = format!("syotti_{name}_{}", std::process::id());
        for statement in [
            format!("DROP DATABASE IF EXISTS {db}"),
            format!("CREATE DATABASE {db}"),
        ] {
            client
                .batch_execute(&statement)
                .expect("creates a database");
        }
        let (prefix, _) = self.base.rsplit_once('/').expect("a URL with a database");
        format!("{prefix}/{db}")
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        if let Some(dir) = &self.scratch {
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join(".ci/postgres.sh");
            let _ = Command::new(script).arg("stop").arg(dir).output();
        }
    }
}

#[test]
fn two_worker_processes_on_postgresql_prove_nc3() {
    let server = Postgres::start("two", 0);
    let url = server.database("two");
    let dir = scratch("pg-two-out");
    let proof = dir.join("nc3.proof");
    let mut first = nc3_args(&url);
    first.extend(["--out", proof.to_str().unwrap()]);
    let a = spawn(&first);
    let mut second = nc3_args(&url);
    second.push("--worker");
    let b = spawn(&second);
    for child in [a, b] {
        let out = child.wait_with_output().expect("the worker ends");
        assert!(out.status.success());
        let stdout = text(&out.stdout);
        assert!(stdout.contains("result: win for Black"), "{stdout}");
        assert!(stdout.contains("verified"), "{stdout}");
    }
    assert_verifies(&proof);
    let s = status(&url);
    assert!(s.contains("store: PostgreSQL"), "{s}");
    assert!(s.contains("(proved)"), "{s}");
    assert_eq!(status_number(&s, "done by"), 2, "{s}");
}

#[test]
fn a_worker_on_postgresql_killed_mid_job_loses_only_that_job() {
    let server = Postgres::start("kill", 1);
    let url = server.database("kill");
    let args = nc3_args(&url);
    let mut victim = spawn(&args);
    wait_for_jobs(&url, 2);
    victim.kill().expect("kill -9");
    let _ = victim.wait();
    // Another process of this machine takes the dead worker's claim back and finishes.
    let out = syotti(&args);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(stdout.contains("verified"), "{stdout}");
    let s = status(&url);
    assert!(s.contains("(proved)"), "{s}");
    assert!(s.contains("(0 claimed)"), "{s}");
}
