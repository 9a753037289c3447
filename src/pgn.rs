//! Reading PGN games (tags and main-line moves) and writing annotated ones.
//!
//! The reader keeps what analysis needs: the tags and the main line as SAN text. Comments,
//! variations, NAGs and move numbers are skipped. Moves are only checked later, against the
//! rules, so that an illegal move is reported with its game and move number.

use std::fmt::Write as _;

use thiserror::Error;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// Tags in file order.
    pub tags: Vec<(String, String)>,
    /// Main-line moves as written (SAN).
    pub moves: Vec<String>,
    /// The result token, if any (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub result: Option<String>,
    /// 1-based number of the game in its file.
    pub number: usize,
}

impl PgnGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Error, PartialEq, Eq)]
#[error("game {game}: {reason}")]
pub struct PgnError {
    pub game: usize,
    pub reason: String,
}

/// Splits a PGN text into games. A game that cannot be read is an error in its slot; the
/// others are still returned.
pub fn read_games(text: &str) -> Vec<Result<PgnGame, PgnError>> {
    let mut games = Vec::new();
    let mut current = PgnGame {
        number: 1,
        ..PgnGame::default()
    };
    let mut in_moves = false;
    let mut error: Option<String> = None;
    let finish = |current: &mut PgnGame, error: &mut Option<String>, games: &mut Vec<_>| {
        let number = current.number;
        let done = std::mem::replace(
            current,
            PgnGame {
                number: number + 1,
                ..PgnGame::default()
            },
        );
        games.push(match error.take() {
            Some(reason) => Err(PgnError {
                game: number,
                reason,
            }),
            None => Ok(done),
        });
    };
    let mut depth = 0usize; // variation nesting
    let mut chars = text.char_indices().peekable();
    let mut token = String::new();
    let flush = |token: &mut String, current: &mut PgnGame, depth: usize| -> bool {
        // Returns true when the token ended the game (a result).
        let t = std::mem::take(token);
        if t.is_empty() || depth > 0 {
            return false;
        }
        if ["1-0", "0-1", "1/2-1/2", "*"].contains(&t.as_str()) {
            current.result = Some(t);
            return true;
        }
        if t.starts_with('$') {
            return false;
        }
        // Move numbers: "12." or "12..." or "12...e5".
        let rest = t.trim_start_matches(|c: char| c.is_ascii_digit());
        let rest = rest.trim_start_matches('.').trim_end_matches(['!', '?']);
        if !rest.is_empty() {
            current.moves.push(rest.to_string());
        }
        false
    };
    while let Some((_, c)) = chars.next() {
        match c {
            '[' if depth == 0 && token.is_empty() => {
                if in_moves {
                    // A new game begins without a result token.
                    finish(&mut current, &mut error, &mut games);
                    in_moves = false;
                }
                let mut tag = String::new();
                for (_, c) in chars.by_ref() {
                    if c == ']' {
                        break;
                    }
                    tag.push(c);
                }
                match parse_tag(&tag) {
                    Some(kv) => current.tags.push(kv),
                    None => {
                        error.get_or_insert_with(|| format!("cannot read tag [{tag}]"));
                    }
                }
            }
            '{' => {
                let _ = flush(&mut token, &mut current, depth);
                for (_, c) in chars.by_ref() {
                    if c == '}' {
                        break;
                    }
                }
            }
            ';' => {
                let _ = flush(&mut token, &mut current, depth);
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' => {
                let _ = flush(&mut token, &mut current, depth);
                depth += 1;
            }
            ')' => {
                let _ = flush(&mut token, &mut current, depth);
                depth = depth.saturating_sub(1);
            }
            c if c.is_whitespace() => {
                if flush(&mut token, &mut current, depth) {
                    finish(&mut current, &mut error, &mut games);
                    in_moves = false;
                }
            }
            c => {
                in_moves = true;
                token.push(c);
            }
        }
    }
    if flush(&mut token, &mut current, depth) || in_moves || !current.tags.is_empty() {
        finish(&mut current, &mut error, &mut games);
    }
    games
}

fn parse_tag(text: &str) -> Option<(String, String)> {
    let text = text.trim();
    let (name, rest) = text.split_once(char::is_whitespace)?;
    let value = rest.trim().strip_prefix('"')?.strip_suffix('"')?;
    Some((
        name.to_string(),
        value.replace("\\\"", "\"").replace("\\\\", "\\"),
    ))
}

/// One move of an annotated game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AnnotatedMove {
    pub san: String,
    /// `[%eval ...]` value from White's point of view: `0.35`, `#-3`.
    pub eval: Option<String>,
    /// `?!`, `?` or `??`.
    pub nag: Option<&'static str>,
    pub comment: Option<String>,
}

/// Writes a game with `[%eval]` comments (the form lichess and other tools import).
pub fn write_annotated(
    tags: &[(String, String)],
    first_move_number: u32,
    white_first: bool,
    moves: &[AnnotatedMove],
    result: &str,
) -> String {
    let mut out = String::new();
    for (k, v) in tags {
        let _ = writeln!(
            out,
            "[{k} \"{}\"]",
            v.replace('\\', "\\\\").replace('"', "\\\"")
        );
    }
    out.push('\n');
    let mut line = String::new();
    let mut number = first_move_number;
    let mut white = white_first;
    for (i, m) in moves.iter().enumerate() {
        if white {
            let _ = write!(line, "{number}. ");
        } else if i == 0 {
            let _ = write!(line, "{number}... ");
        }
        line.push_str(&m.san);
        if let Some(nag) = m.nag {
            line.push_str(nag);
        }
        line.push(' ');
        let mut comment = String::new();
        if let Some(eval) = &m.eval {
            let _ = write!(comment, "[%eval {eval}]");
        }
        if let Some(text) = &m.comment {
            if !comment.is_empty() {
                comment.push(' ');
            }
            comment.push_str(text);
        }
        if !comment.is_empty() {
            let _ = write!(line, "{{ {comment} }} ");
            // After a comment a black move needs its number again.
            if white {
                let _ = write!(line, "{number}... ");
            }
        }
        if !white {
            number += 1;
        }
        white = !white;
    }
    line.push_str(result);
    // Wrap at about 80 columns.
    let mut width = 0;
    for word in line.split(' ') {
        if width + word.len() + 1 > 80 && width > 0 {
            out.push('\n');
            width = 0;
        } else if width > 0 {
            out.push(' ');
            width += 1;
        }
        out.push_str(word);
        width += word.len();
    }
    out.push_str("\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_tags_moves_and_skips_the_rest() {
        let text = r#"[Event "Test"]
[Variant "Antichess"]

1. e3 {a comment} b5 2. Bxb5 (2. Ba6 Nxa6) Nf6 $1 3. Bxd7 ; rest of line
Nxd7 1-0

[Event "Second"]
1. d4 e5 *
"#;
        let games = read_games(text);
        assert_eq!(games.len(), 2);
        let first = games[0].as_ref().expect("readable");
        assert_eq!(first.tag("variant"), Some("Antichess"));
        assert_eq!(first.moves, ["e3", "b5", "Bxb5", "Nf6", "Bxd7", "Nxd7"]);
        assert_eq!(first.result.as_deref(), Some("1-0"));
        assert_eq!(first.number, 1);
        let second = games[1].as_ref().expect("readable");
        assert_eq!(second.moves, ["d4", "e5"]);
        assert_eq!(second.number, 2);
    }

    #[test]
    fn bad_tag_is_an_error_for_that_game_only() {
        let games = read_games("[Event Test]\n1. e3 *\n\n[Event \"B\"]\n1. e4 *\n");
        assert_eq!(games.len(), 2);
        assert!(games[0].is_err());
        assert!(games[1].is_ok());
    }

    #[test]
    fn writes_eval_comments() {
        let moves = vec![
            AnnotatedMove {
                san: "e3".into(),
                eval: Some("0.20".into()),
                nag: None,
                comment: None,
            },
            AnnotatedMove {
                san: "b5".into(),
                eval: Some("#3".into()),
                nag: Some("??"),
                comment: Some("Blunder. Best was e6.".into()),
            },
        ];
        let text = write_annotated(
            &[("Variant".into(), "Antichess".into())],
            1,
            true,
            &moves,
            "1-0",
        );
        assert!(text.starts_with("[Variant \"Antichess\"]\n\n1. e3 { [%eval 0.20] } 1... b5?? { [%eval #3] Blunder. Best was e6. } 1-0"), "{text}");
        assert_eq!(
            read_games(&text)[0].as_ref().map(|g| g.moves.clone()),
            Ok(vec!["e3".to_string(), "b5".to_string()])
        );
    }
}
