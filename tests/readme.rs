//! The README's example command lines (`$ syotti ...`) run as written.

use std::process::Command;

/// Splits a command line the way a shell would for these examples (single quotes only).
fn words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quoted = false;
    let mut any = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                any = true;
            }
            c if c.is_whitespace() && !quoted => {
                if any {
                    words.push(std::mem::take(&mut current));
                    any = false;
                }
            }
            c => {
                current.push(c);
                any = true;
            }
        }
    }
    if any {
        words.push(current);
    }
    words
}

#[test]
fn readme_examples_run() {
    let readme = include_str!("../README.md");
    let examples: Vec<&str> = readme
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("$ syotti "))
        .collect();
    assert!(examples.len() >= 6, "found {} examples", examples.len());
    for example in examples {
        let out = Command::new(env!("CARGO_BIN_EXE_syotti"))
            .args(words(example))
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("runs");
        assert!(
            out.status.success(),
            "`syotti {example}` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let args = words(example);
        match args.iter().position(|a| a == "--out") {
            // Output to a file: the file must be there and not empty.
            Some(i) => {
                let path = &args[i + 1];
                let written = std::fs::read_to_string(path).unwrap_or_default();
                assert!(
                    !written.is_empty(),
                    "`syotti {example}` wrote nothing to {path}"
                );
            }
            None => assert!(!out.stdout.is_empty(), "`syotti {example}` printed nothing"),
        }
    }
}

#[test]
fn readme_gives_the_two_set_up_commands() {
    let readme = include_str!("../README.md");
    assert!(readme.contains("\n    cargo run --release\n"));
    assert!(readme.contains("\n    cargo test --release\n"));
    let ci = include_str!("../.ci/run");
    assert!(ci.contains("cargo test --release"));
}
