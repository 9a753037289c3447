//! Reading PGN games (tags and main-line moves) and writing annotated ones.
//!
//! Games are read with `pgn-reader` (streaming: one game in memory at a time, whatever the size
//! of the file), which handles comments, variations, NAGs, escapes and move numbers as the PGN
//! standard says. The reader keeps what analysis needs: the tags and the main line as SAN text.
//! Moves are only checked later, against the rules, so that an illegal move is reported with its
//! game and move number.

use std::{fmt::Write as _, io::Read, ops::ControlFlow};

use pgn_reader::{RawTag, Reader, SanPlus, Skip, Visitor};
use thiserror::Error;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PgnGame {
    /// Tags in file order.
    pub tags: Vec<(String, String)>,
    /// Main-line moves as written (SAN, without check marks or annotations).
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

/// Collects one game: its tags, its main line, its result, and the first thing wrong with it.
struct Collector {
    number: usize,
}

/// A game being read, with the first problem found in it.
struct Partial {
    game: PgnGame,
    error: Option<String>,
}

impl Visitor for Collector {
    type Tags = Partial;
    type Movetext = Partial;
    type Output = Result<PgnGame, PgnError>;

    fn begin_tags(&mut self) -> ControlFlow<Self::Output, Self::Tags> {
        self.number += 1;
        ControlFlow::Continue(Partial {
            game: PgnGame {
                number: self.number,
                ..PgnGame::default()
            },
            error: None,
        })
    }

    fn tag(
        &mut self,
        tags: &mut Partial,
        name: &[u8],
        value: RawTag<'_>,
    ) -> ControlFlow<Self::Output> {
        let name = String::from_utf8_lossy(name).into_owned();
        match value.decode_utf8() {
            Ok(value) => tags.game.tags.push((name, value.into_owned())),
            Err(_) => {
                tags.error
                    .get_or_insert_with(|| format!("tag {name} is not UTF-8 text"));
            }
        }
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, tags: Partial) -> ControlFlow<Self::Output, Self::Movetext> {
        ControlFlow::Continue(tags)
    }

    fn san(&mut self, movetext: &mut Partial, san_plus: SanPlus) -> ControlFlow<Self::Output> {
        movetext.game.moves.push(san_plus.san.to_string());
        ControlFlow::Continue(())
    }

    /// Only the main line matters here.
    fn begin_variation(&mut self, _: &mut Partial) -> ControlFlow<Self::Output, Skip> {
        ControlFlow::Continue(Skip(true))
    }

    fn outcome(
        &mut self,
        movetext: &mut Partial,
        outcome: pgn_reader::Outcome,
    ) -> ControlFlow<Self::Output> {
        movetext.game.result = Some(outcome.to_string());
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, movetext: Partial) -> Self::Output {
        match movetext.error {
            Some(reason) => Err(PgnError {
                game: movetext.game.number,
                reason,
            }),
            None => Ok(movetext.game),
        }
    }
}

/// The games of a PGN stream, read one at a time. A game that cannot be read is an error in
/// its place; the others are still read. A read error of the stream itself ends it.
pub struct PgnGames<R: Read> {
    reader: Reader<R>,
    collector: Collector,
    failed: bool,
}

impl<R: Read> Iterator for PgnGames<R> {
    type Item = Result<PgnGame, PgnError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.reader.read_game(&mut self.collector) {
            Ok(game) => game,
            Err(e) => {
                self.failed = true;
                Some(Err(PgnError {
                    game: self.collector.number + 1,
                    reason: format!("cannot read the input: {e}"),
                }))
            }
        }
    }
}

/// Streams the games of a PGN source.
pub fn games<R: Read>(source: R) -> PgnGames<R> {
    PgnGames {
        reader: Reader::new(source),
        collector: Collector { number: 0 },
        failed: false,
    }
}

/// The games of a PGN text.
pub fn read_games(text: &str) -> Vec<Result<PgnGame, PgnError>> {
    games(text.as_bytes()).collect()
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
    fn a_tag_that_is_not_text_is_an_error_for_that_game_only() {
        let mut bytes = b"[Event \"".to_vec();
        bytes.extend_from_slice(&[0xff, 0xfe]);
        bytes.extend_from_slice(b"\"]\n1. e3 *\n\n[Event \"B\"]\n1. e4 *\n");
        let games: Vec<_> = games(bytes.as_slice()).collect();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].as_ref().map_err(|e| e.game), Err(1));
        assert!(games[1].is_ok());
    }

    #[test]
    fn escapes_nags_nested_variations_and_suffixes() {
        let text = r#"[White "A \"quoted\" name \\ here"]

1. e3 $1 b5!? (1... a6 (1... a5 2. Bb5) 2. Bxa6) 2. Bxb5+ {a {comment} Nf6 ; rest of line
1/2-1/2"#;
        let games = read_games(text);
        let game = games[0].as_ref().expect("readable");
        assert_eq!(game.tag("White"), Some(r#"A "quoted" name \ here"#));
        assert_eq!(game.moves, ["e3", "b5", "Bxb5", "Nf6"]);
        assert_eq!(game.result.as_deref(), Some("1/2-1/2"));
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
