//! Parsing UCI input lines into typed commands.
//!
//! `parse` is pure: one line in, a command or an error out. Following the UCI specification, a
//! line whose first word is unknown is searched for a known command further on ("joho debug on"
//! reads as "debug on"); a line with none is an error. Numbers that make no sense (a depth of
//! "x") are errors, never silent defaults. Negative clock times, which some GUIs send after a
//! flag, read as zero.

use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum UciCommand {
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Register,
    UciNewGame,
    Position {
        start: StartPosition,
        moves: Vec<String>,
    },
    Go(Go),
    Stop,
    PonderHit,
    Quit,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StartPosition {
    StartPos,
    Fen(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Go {
    Search(GoParams),
    Perft(u32),
}

/// The limits of a `go` command, as given (milliseconds, moves, plies).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub movetime: Option<u64>,
    pub mate: Option<u32>,
    pub infinite: bool,
    pub ponder: bool,
    pub searchmoves: Vec<String>,
}

#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum ParseError {
    #[error("empty line")]
    Empty,
    #[error("unknown command '{0}'")]
    Unknown(String),
    #[error("malformed {command}: {reason}")]
    Malformed {
        command: &'static str,
        reason: String,
    },
}

fn malformed(command: &'static str, reason: impl Into<String>) -> ParseError {
    ParseError::Malformed {
        command,
        reason: reason.into(),
    }
}

const COMMANDS: [&str; 11] = [
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
];

/// Parses one line of UCI input.
pub fn parse(line: &str) -> Result<UciCommand, ParseError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some(&first) = words.first() else {
        return Err(ParseError::Empty);
    };
    let Some(start) = words.iter().position(|w| COMMANDS.contains(w)) else {
        return Err(ParseError::Unknown(first.to_string()));
    };
    let args = &words[start + 1..];
    match words[start] {
        "uci" => Ok(UciCommand::Uci),
        "debug" => match args.first() {
            Some(&"on") => Ok(UciCommand::Debug(true)),
            Some(&"off") | None => Ok(UciCommand::Debug(false)),
            Some(other) => Err(malformed(
                "debug",
                format!("expected on or off, got '{other}'"),
            )),
        },
        "isready" => Ok(UciCommand::IsReady),
        "setoption" => parse_setoption(args),
        "register" => Ok(UciCommand::Register),
        "ucinewgame" => Ok(UciCommand::UciNewGame),
        "position" => parse_position(args),
        "go" => parse_go(args).map(UciCommand::Go),
        "stop" => Ok(UciCommand::Stop),
        "ponderhit" => Ok(UciCommand::PonderHit),
        "quit" => Ok(UciCommand::Quit),
        _ => Err(ParseError::Unknown(first.to_string())),
    }
}

fn parse_setoption(args: &[&str]) -> Result<UciCommand, ParseError> {
    if args.first() != Some(&"name") {
        return Err(malformed("setoption", "expected 'name'"));
    }
    let rest = &args[1..];
    let value_at = rest.iter().position(|&w| w == "value");
    let (name_words, value) = match value_at {
        Some(i) => (&rest[..i], Some(rest[i + 1..].join(" "))),
        None => (rest, None),
    };
    if name_words.is_empty() {
        return Err(malformed("setoption", "missing option name"));
    }
    Ok(UciCommand::SetOption {
        name: name_words.join(" "),
        value,
    })
}

fn parse_position(args: &[&str]) -> Result<UciCommand, ParseError> {
    let moves_at = args.iter().position(|&w| w == "moves");
    let (setup, moves) = match moves_at {
        Some(i) => (
            &args[..i],
            args[i + 1..].iter().map(|s| s.to_string()).collect(),
        ),
        None => (args, Vec::new()),
    };
    let start = match setup.first() {
        Some(&"startpos") if setup.len() == 1 => StartPosition::StartPos,
        Some(&"startpos") => {
            return Err(malformed("position", "unexpected words after 'startpos'"));
        }
        Some(&"fen") if setup.len() > 1 => StartPosition::Fen(setup[1..].join(" ")),
        Some(&"fen") => return Err(malformed("position", "missing FEN after 'fen'")),
        Some(other) => {
            return Err(malformed(
                "position",
                format!("expected 'startpos' or 'fen', got '{other}'"),
            ))
        }
        None => return Err(malformed("position", "expected 'startpos' or 'fen'")),
    };
    Ok(UciCommand::Position { start, moves })
}

fn number<T: std::str::FromStr>(name: &str, word: Option<&&str>) -> Result<T, ParseError> {
    let word = word.ok_or_else(|| malformed("go", format!("'{name}' needs a value")))?;
    word.parse()
        .map_err(|_| malformed("go", format!("bad value '{word}' for '{name}'")))
}

/// A clock value in milliseconds; negative values (sent by some GUIs) read as zero.
fn millis(name: &str, word: Option<&&str>) -> Result<u64, ParseError> {
    let value: i64 = number(name, word)?;
    Ok(value.max(0) as u64)
}

const GO_KEYWORDS: [&str; 13] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "movetime",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

fn parse_go(args: &[&str]) -> Result<Go, ParseError> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < args.len() {
        let word = args[i];
        let value = args.get(i + 1);
        let mut takes_value = true;
        match word {
            "wtime" => go.wtime = Some(millis(word, value)?),
            "btime" => go.btime = Some(millis(word, value)?),
            "winc" => go.winc = Some(millis(word, value)?),
            "binc" => go.binc = Some(millis(word, value)?),
            "movestogo" => go.movestogo = Some(number(word, value)?),
            "depth" => go.depth = Some(number(word, value)?),
            "nodes" => go.nodes = Some(number(word, value)?),
            "movetime" => go.movetime = Some(millis(word, value)?),
            "mate" => go.mate = Some(number(word, value)?),
            "perft" => return number(word, value).map(Go::Perft),
            "infinite" => {
                go.infinite = true;
                takes_value = false;
            }
            "ponder" => {
                go.ponder = true;
                takes_value = false;
            }
            "searchmoves" => {
                let moves: Vec<String> = args[i + 1..]
                    .iter()
                    .take_while(|w| !GO_KEYWORDS.contains(w))
                    .map(|s| s.to_string())
                    .collect();
                i += moves.len();
                go.searchmoves = moves;
                takes_value = false;
            }
            other => return Err(malformed("go", format!("unknown parameter '{other}'"))),
        }
        i += if takes_value { 2 } else { 1 };
    }
    Ok(Go::Search(go))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_commands_with_odd_whitespace() {
        assert_eq!(parse("uci"), Ok(UciCommand::Uci));
        assert_eq!(parse("  isready \r"), Ok(UciCommand::IsReady));
        assert_eq!(parse("\tstop"), Ok(UciCommand::Stop));
        assert_eq!(parse("quit\n"), Ok(UciCommand::Quit));
        assert_eq!(parse("ponderhit"), Ok(UciCommand::PonderHit));
        assert_eq!(parse("ucinewgame"), Ok(UciCommand::UciNewGame));
        assert_eq!(parse("debug on"), Ok(UciCommand::Debug(true)));
    }

    #[test]
    fn garbage() {
        assert_eq!(parse(""), Err(ParseError::Empty));
        assert_eq!(parse("   \t "), Err(ParseError::Empty));
        assert_eq!(parse("xyzzy"), Err(ParseError::Unknown("xyzzy".into())));
        assert_eq!(
            parse("\u{0}\u{7f}é"),
            Err(ParseError::Unknown("\u{0}\u{7f}é".into()))
        );
        // The specification's example: unknown leading words are skipped.
        assert_eq!(parse("joho debug on"), Ok(UciCommand::Debug(true)));
        assert!(parse("debug maybe").is_err());
    }

    #[test]
    fn setoption_names_and_values_with_spaces() {
        assert_eq!(
            parse("setoption name Move Overhead value 100"),
            Ok(UciCommand::SetOption {
                name: "Move Overhead".into(),
                value: Some("100".into())
            })
        );
        assert_eq!(
            parse("setoption   name  Clear Hash"),
            Ok(UciCommand::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert!(parse("setoption").is_err());
        assert!(parse("setoption name").is_err());
        assert!(parse("setoption value 3").is_err());
    }

    #[test]
    fn positions() {
        assert_eq!(
            parse("position startpos moves e2e3 b7b5"),
            Ok(UciCommand::Position {
                start: StartPosition::StartPos,
                moves: vec!["e2e3".into(), "b7b5".into()]
            })
        );
        assert_eq!(
            parse("position fen 8/8/p7/8/8/8/7P/8 w - - 0 1"),
            Ok(UciCommand::Position {
                start: StartPosition::Fen("8/8/p7/8/8/8/7P/8 w - - 0 1".into()),
                moves: vec![]
            })
        );
        assert_eq!(
            parse("position startpos moves"),
            Ok(UciCommand::Position {
                start: StartPosition::StartPos,
                moves: vec![]
            })
        );
        assert!(parse("position").is_err());
        assert!(parse("position fen").is_err());
        assert!(parse("position somewhere").is_err());
        assert!(parse("position startpos e2e4").is_err());
    }

    #[test]
    fn go_parameters() {
        let Ok(UciCommand::Go(Go::Search(go))) = parse(
            "go wtime 1000 btime -5 winc 10 binc 10 movestogo 7 searchmoves e2e3 d2d3 depth 5",
        ) else {
            panic!("go should parse");
        };
        assert_eq!(go.wtime, Some(1000));
        assert_eq!(go.btime, Some(0));
        assert_eq!(go.movestogo, Some(7));
        assert_eq!(go.depth, Some(5));
        assert_eq!(go.searchmoves, ["e2e3", "d2d3"]);
        assert_eq!(
            parse("go"),
            Ok(UciCommand::Go(Go::Search(GoParams::default())))
        );
        assert!(matches!(
            parse("go infinite"),
            Ok(UciCommand::Go(Go::Search(GoParams { infinite: true, .. })))
        ));
        assert!(matches!(
            parse("go ponder wtime 5 btime 5"),
            Ok(UciCommand::Go(Go::Search(GoParams { ponder: true, .. })))
        ));
        assert_eq!(parse("go perft 3"), Ok(UciCommand::Go(Go::Perft(3))));
    }

    #[test]
    fn malformed_go() {
        assert!(parse("go depth").is_err());
        assert!(parse("go depth x").is_err());
        assert!(parse("go depth -1").is_err());
        assert!(parse("go nodes 1e6").is_err());
        assert!(parse("go perft").is_err());
        assert!(parse("go sideways").is_err());
        assert!(parse("go wtime 99999999999999999999999").is_err());
    }
}
