//! Parsing XBoard/CECP commands into a typed `XboardCommand`: pure, no engine state.
//!
//! Times arrive in three units: `time`/`otim` in centiseconds, `level` with a base in minutes
//! (`5`, or `0:30` for minutes and seconds) and an increment in seconds, `st` in seconds. All
//! become `Duration`s here.

use std::time::Duration;

use thiserror::Error;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum XboardCommand {
    Xboard,
    Protover(u32),
    Accepted(String),
    Rejected(String),
    New,
    Variant(String),
    Quit,
    Force,
    Go,
    PlayOther,
    /// `level MPS BASE INC`: moves per period (0: the whole game), base time, increment.
    Level {
        moves_per_period: u32,
        base: Duration,
        increment: Duration,
    },
    /// `st SECONDS`: exactly this long per move.
    St(Duration),
    /// `sd DEPTH`: search at most this deep.
    Sd(u32),
    /// `time CS`: the engine's clock.
    Time(Duration),
    /// `otim CS`: the opponent's clock.
    Otim(Duration),
    /// A move of the opponent (with or without `usermove`).
    UserMove(String),
    /// `?`: move now.
    MoveNow,
    Ping(String),
    Draw,
    Result {
        result: String,
        comment: String,
    },
    SetBoard(String),
    Undo,
    Remove,
    Hard,
    Easy,
    Post,
    NoPost,
    Analyze,
    Exit,
    /// `.`: a status request during analysis.
    Status,
    Memory(usize),
    Cores(usize),
    EgtPath {
        kind: String,
        path: String,
    },
    /// `option NAME=VALUE`, or `option NAME` for a button.
    Option {
        name: String,
        value: Option<String>,
    },
    /// Commands that need no answer here: `random`, `computer`, `name`, `rating`, `ics`,
    /// `hint`, `bk`, `easy`-style toggles the engine does not use.
    Ignored(String),
}

#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum XboardParseError {
    #[error("empty line")]
    Empty,
    #[error("unknown command")]
    Unknown(String),
    #[error("{reason}")]
    Malformed { command: String, reason: String },
}

impl XboardParseError {
    /// The `Error (REASON): COMMAND` line the protocol asks for.
    pub fn reply(&self, line: &str) -> String {
        format!("Error ({self}): {}", line.trim())
    }
}

fn malformed(command: &str, reason: impl Into<String>) -> XboardParseError {
    XboardParseError::Malformed {
        command: command.to_string(),
        reason: reason.into(),
    }
}

/// A move in coordinate notation as XBoard sends it: `e2e4`, `e7e8q`, `b7b8k`.
pub fn looks_like_move(word: &str) -> bool {
    let b = word.as_bytes();
    let square = |f: u8, r: u8| (b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r);
    (b.len() == 4 || b.len() == 5)
        && square(b[0], b[1])
        && square(b[2], b[3])
        && (b.len() == 4 || b"nbrqk".contains(&b[4]))
}

fn number<T: std::str::FromStr>(
    command: &str,
    value: Option<&&str>,
) -> Result<T, XboardParseError> {
    let text = value.ok_or_else(|| malformed(command, "missing number"))?;
    text.parse()
        .map_err(|_| malformed(command, format!("bad number '{text}'")))
}

fn seconds(command: &str, text: &str) -> Result<Duration, XboardParseError> {
    let secs: f64 = text
        .parse()
        .map_err(|_| malformed(command, format!("bad number of seconds '{text}'")))?;
    Duration::try_from_secs_f64(secs)
        .map_err(|_| malformed(command, format!("bad number of seconds '{text}'")))
}

fn centiseconds(command: &str, value: Option<&&str>) -> Result<Duration, XboardParseError> {
    // Some interfaces send a negative clock when the engine has overstepped: treat it as zero.
    let text = value.ok_or_else(|| malformed(command, "missing time"))?;
    let cs: i64 = text
        .parse()
        .map_err(|_| malformed(command, format!("bad time '{text}'")))?;
    Ok(Duration::from_millis(cs.max(0) as u64 * 10))
}

/// `5` (minutes) or `0:30` (minutes and seconds).
fn base_time(text: &str) -> Result<Duration, XboardParseError> {
    let bad = || malformed("level", format!("bad base time '{text}'"));
    let (minutes, secs) = match text.split_once(':') {
        Some((m, s)) => (m, s),
        None => (text, "0"),
    };
    let minutes: f64 = minutes.parse().map_err(|_| bad())?;
    let secs: f64 = secs.parse().map_err(|_| bad())?;
    Duration::try_from_secs_f64(minutes * 60.0 + secs).map_err(|_| bad())
}

pub fn parse(line: &str) -> Result<XboardCommand, XboardParseError> {
    let line = line.trim();
    let mut words = line.split_whitespace();
    let Some(first) = words.next() else {
        return Err(XboardParseError::Empty);
    };
    let args: Vec<&str> = words.collect();
    let rest = line[first.len()..].trim();
    use XboardCommand as C;
    Ok(match first {
        "xboard" => C::Xboard,
        "protover" => C::Protover(number("protover", args.first())?),
        "accepted" => C::Accepted(rest.to_string()),
        "rejected" => C::Rejected(rest.to_string()),
        "new" => C::New,
        "variant" => match args.first() {
            Some(v) => C::Variant(v.to_string()),
            None => return Err(malformed("variant", "missing variant name")),
        },
        "quit" => C::Quit,
        "force" => C::Force,
        "go" => C::Go,
        "playother" => C::PlayOther,
        "level" => {
            let [mps, base, inc] = args.as_slice() else {
                return Err(malformed("level", "expected 'level MPS BASE INC'"));
            };
            C::Level {
                moves_per_period: mps
                    .parse()
                    .map_err(|_| malformed("level", format!("bad moves per period '{mps}'")))?,
                base: base_time(base)?,
                increment: seconds("level", inc)?,
            }
        }
        "st" => match args.first() {
            Some(s) => C::St(seconds("st", s)?),
            None => return Err(malformed("st", "missing seconds")),
        },
        "sd" => C::Sd(number("sd", args.first())?),
        "time" => C::Time(centiseconds("time", args.first())?),
        "otim" => C::Otim(centiseconds("otim", args.first())?),
        "usermove" => match args.first() {
            Some(m) => C::UserMove(m.to_string()),
            None => return Err(malformed("usermove", "missing move")),
        },
        "?" => C::MoveNow,
        "ping" => C::Ping(rest.to_string()),
        "draw" => C::Draw,
        "result" => {
            let (result, comment) = match rest.split_once(char::is_whitespace) {
                Some((r, c)) => (r, c.trim()),
                None => (rest, ""),
            };
            if result.is_empty() {
                return Err(malformed("result", "missing result"));
            }
            C::Result {
                result: result.to_string(),
                comment: comment
                    .trim_start_matches('{')
                    .trim_end_matches('}')
                    .trim()
                    .to_string(),
            }
        }
        "setboard" => {
            if rest.is_empty() {
                return Err(malformed("setboard", "missing FEN"));
            }
            C::SetBoard(rest.to_string())
        }
        "undo" => C::Undo,
        "remove" => C::Remove,
        "hard" => C::Hard,
        "easy" => C::Easy,
        "post" => C::Post,
        "nopost" => C::NoPost,
        "analyze" => C::Analyze,
        "exit" => C::Exit,
        "." => C::Status,
        "memory" => C::Memory(number("memory", args.first())?),
        "cores" => C::Cores(number("cores", args.first())?),
        "egtpath" => match args.as_slice() {
            [kind, ..] if args.len() >= 2 => C::EgtPath {
                kind: kind.to_string(),
                path: rest[kind.len()..].trim().to_string(),
            },
            _ => return Err(malformed("egtpath", "expected 'egtpath TYPE PATH'")),
        },
        "option" => {
            if rest.is_empty() {
                return Err(malformed("option", "missing option name"));
            }
            match rest.split_once('=') {
                Some((name, value)) => C::Option {
                    name: name.trim().to_string(),
                    value: Some(value.trim().to_string()),
                },
                None => C::Option {
                    name: rest.to_string(),
                    value: None,
                },
            }
        }
        "random" | "computer" | "name" | "rating" | "ics" | "hint" | "bk" | "nps" => {
            C::Ignored(first.to_string())
        }
        word if looks_like_move(word) && args.is_empty() => C::UserMove(word.to_string()),
        _ => return Err(XboardParseError::Unknown(first.to_string())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_and_times() {
        assert_eq!(parse("  xboard "), Ok(XboardCommand::Xboard));
        assert_eq!(parse("protover 2"), Ok(XboardCommand::Protover(2)));
        assert_eq!(
            parse("level 40 5 0"),
            Ok(XboardCommand::Level {
                moves_per_period: 40,
                base: Duration::from_secs(300),
                increment: Duration::ZERO
            })
        );
        assert_eq!(
            parse("level 0 0:30 0.5"),
            Ok(XboardCommand::Level {
                moves_per_period: 0,
                base: Duration::from_secs(30),
                increment: Duration::from_millis(500)
            })
        );
        assert_eq!(parse("st 2"), Ok(XboardCommand::St(Duration::from_secs(2))));
        assert_eq!(
            parse("time 1234"),
            Ok(XboardCommand::Time(Duration::from_millis(12340)))
        );
        assert_eq!(parse("otim -5"), Ok(XboardCommand::Otim(Duration::ZERO)));
        assert_eq!(
            parse("usermove e7e8k"),
            Ok(XboardCommand::UserMove("e7e8k".into()))
        );
        assert_eq!(parse("e2e4"), Ok(XboardCommand::UserMove("e2e4".into())));
        assert_eq!(parse("ping 17"), Ok(XboardCommand::Ping("17".into())));
        assert_eq!(
            parse("result 1-0 {White wins by losing all pieces}"),
            Ok(XboardCommand::Result {
                result: "1-0".into(),
                comment: "White wins by losing all pieces".into()
            })
        );
        assert_eq!(
            parse("option Stalemate=draw"),
            Ok(XboardCommand::Option {
                name: "Stalemate".into(),
                value: Some("draw".into())
            })
        );
        assert_eq!(
            parse("egtpath syzygy /tb/a:/tb/b"),
            Ok(XboardCommand::EgtPath {
                kind: "syzygy".into(),
                path: "/tb/a:/tb/b".into()
            })
        );
        assert_eq!(
            parse("setboard 8/8/p7/8/8/8/7P/8 w - - 0 1"),
            Ok(XboardCommand::SetBoard(
                "8/8/p7/8/8/8/7P/8 w - - 0 1".into()
            ))
        );
    }

    #[test]
    fn garbage_is_an_error_with_a_reply() {
        assert_eq!(parse("   "), Err(XboardParseError::Empty));
        let e = parse("frobnicate now").expect_err("unknown");
        assert_eq!(
            e.reply("frobnicate now"),
            "Error (unknown command): frobnicate now"
        );
        assert!(parse("level 40 five 0").is_err());
        assert!(parse("level 40").is_err());
        assert!(parse("time soon").is_err());
        assert!(parse("sd -3").is_err());
        assert!(parse("memory 1e99").is_err());
        assert!(parse("st 1e400").is_err());
        assert!(parse("e2e9").is_err());
        assert!(parse("usermove").is_err());
        assert!(parse("egtpath syzygy").is_err());
    }
}
