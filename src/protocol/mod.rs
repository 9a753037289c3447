//! The engine's protocol faces, and the choice between them.
//!
//! Run bare, `syotti` reads standard input on one reader thread and looks at the first command:
//! `xboard` starts an XBoard/CECP session, anything else (`uci` above all) a UCI session, which
//! then handles that first line itself, as Fairy-Stockfish does. `syotti --xboard` skips the
//! choice. Both sessions drive the same `engine`; neither knows of the other.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod output;

use crossbeam_channel::{unbounded, Receiver};

pub use output::Output;

/// Which protocol to speak.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    Uci,
    Xboard,
}

/// The protocol a session that starts with `first` speaks.
pub fn detect(first: &str) -> Protocol {
    if first.split_whitespace().next() == Some("xboard") {
        Protocol::Xboard
    } else {
        Protocol::Uci
    }
}

/// Starts the thread that reads standard input line by line into a channel. A line that is not
/// UTF-8 arrives as U+FFFD, which the sessions answer as bad input; the channel closes at the end
/// of input.
pub fn spawn_stdin_reader() -> std::io::Result<Receiver<String>> {
    let (tx, rx) = unbounded();
    std::thread::Builder::new()
        .name("stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            let mut line = String::new();
            loop {
                line.clear();
                match stdin.read_line(&mut line) {
                    Ok(0) => break,
                    Ok(_) => {
                        if tx
                            .send(line.trim_end_matches(['\n', '\r']).to_string())
                            .is_err()
                        {
                            break;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                        if tx.send(String::from("\u{fffd}")).is_err() {
                            break;
                        }
                    }
                    Err(_) => break,
                }
            }
        })?;
    Ok(rx)
}

/// Runs the protocol loop on stdin/stdout; returns the exit status. `force_xboard` skips the
/// choice (`syotti --xboard`).
pub fn run_stdio(force_xboard: bool) -> u8 {
    let lines = match spawn_stdin_reader() {
        Ok(lines) => lines,
        Err(e) => {
            eprintln!("error: cannot start the input reader: {e}");
            return 1;
        }
    };
    if force_xboard {
        crate::xboard::Session::new(std::io::stdout()).run(None, lines);
        return 0;
    }
    // The first command that is not blank decides; end of input before one: nothing to do.
    let first = loop {
        match lines.recv() {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => break line,
            Err(_) => return 0,
        }
    };
    match detect(&first) {
        Protocol::Xboard => crate::xboard::Session::new(std::io::stdout()).run(Some(first), lines),
        Protocol::Uci => {
            crate::uci::session::Session::new(std::io::stdout()).run_from(Some(first), lines)
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_command_picks_the_protocol() {
        assert_eq!(detect("xboard"), Protocol::Xboard);
        assert_eq!(detect("  xboard  "), Protocol::Xboard);
        assert_eq!(detect("uci"), Protocol::Uci);
        assert_eq!(detect("isready"), Protocol::Uci);
        assert_eq!(detect("xboardish"), Protocol::Uci);
    }
}
