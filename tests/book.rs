//! The shipped book of proofs: it verifies, it answers the seven refuted first moves at once, and
//! its exports read back.

use std::process::Command;

use syotti::{
    proof::{
        book::{polyglot_key, ProofBook},
        verify::verify_with_tables,
    },
    rules::{notation, Game, StalemateRule},
};

mod common;
use common::{last_score, tables_path, word_after, Engine};

/// The seven first moves the shipped book refutes.
const REFUTED: [&str; 7] = ["e2e4", "d2d4", "d2d3", "b1c3", "g1f3", "f2f4", "h2h4"];

fn after(first: &str) -> Game {
    let mut game = Game::default();
    game.play_text(first).expect("legal");
    game
}

#[test]
fn the_embedded_book_holds_the_seven_refutations_and_every_tree_verifies() {
    // The refutations (`book/syotti.book`) and the proved sub-lines of open problems
    // (`book/progress.book`), merged.
    let book = ProofBook::embedded().expect("the embedded book reads");
    assert_eq!(book.rule(), StalemateRule::StalematedSideWins);
    let size = book.to_bytes().len();
    eprintln!("{} positions, {size} bytes", book.len());
    assert!(size <= 24 << 20, "{size} bytes");
    for first in REFUTED {
        let game = after(first);
        let hit = book
            .probe(game.position(), book.rule())
            .unwrap_or_else(|| panic!("1. {first} is not refuted by the book"));
        assert!(hit.distance.plies > 0);
    }
    // Every tree, rebuilt from the book and the rules, passes the verifier (the recursion wants
    // a large stack).
    let path = tables_path();
    let checked = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(move || {
            let tables = syotti::tablebase::Tablebases::open(&path).expect("tables open");
            let book = ProofBook::embedded().expect("the embedded book reads");
            let mut roots = 0;
            for root in book.roots() {
                let text = book
                    .proof_text(root, Some(&tables))
                    .unwrap_or_else(|e| panic!("{}: {e}", root.fen));
                verify_with_tables(&text, Some(&tables))
                    .unwrap_or_else(|e| panic!("{}: {e}", root.fen));
                roots += 1;
            }
            roots
        })
        .expect("thread")
        .join()
        .expect("the book verifies");
    assert_eq!(checked, book.roots().len());
    assert!(checked >= REFUTED.len());
}

#[test]
fn the_engine_answers_the_refuted_moves_from_the_book_at_once() {
    let book = ProofBook::embedded().expect("the embedded book reads");
    let mut e = Engine::start();
    for first in REFUTED {
        let game = after(first);
        let expected = book
            .probe(game.position(), book.rule())
            .expect("in the book");
        e.send(&format!("position startpos moves {first}"));
        e.send("go wtime 1000 btime 1000");
        let lines = e.until("bestmove");
        assert!(
            lines.iter().any(|l| l == "info string book: proven win"),
            "{first}: {lines:?}"
        );
        // An exact distance is a mate score; one that counts only to the tables' leaves is
        // shown as the search shows a table win.
        let shown = if expected.distance.exact {
            (
                "mate".to_string(),
                expected.distance.plies.div_ceil(2) as i32,
            )
        } else {
            (
                "cp".to_string(),
                syotti::search::TB_WIN - expected.distance.plies as i32,
            )
        };
        assert_eq!(last_score(&lines), shown, "{first}: {lines:?}");
        // The engine's own clock for the answer (not the pipe's): under 50 ms.
        let info = lines
            .iter()
            .rev()
            .find(|l| l.contains(" score "))
            .expect("a score");
        let ms: u64 = word_after(info, "time")
            .and_then(|t| t.parse().ok())
            .expect("a time");
        assert!(ms < 50, "{first}: {ms} ms");
        let best = lines
            .last()
            .and_then(|l| l.split_whitespace().nth(1))
            .expect("a move");
        assert_eq!(best, notation::uci(expected.best), "{first}");
    }
    // As the loser, after 1. e4 b5: the book knows White is lost and says so.
    e.send("position startpos moves e2e4 b7b5");
    e.send("go wtime 1000 btime 1000");
    let lines = e.until("bestmove");
    assert!(
        lines.iter().any(|l| l.contains("score mate -")),
        "{lines:?}"
    );
    // With the book off, the engine thinks for itself.
    e.send("setoption name Book value false");
    e.send("position startpos moves h2h4");
    e.send("go nodes 2000");
    let lines = e.until("bestmove");
    assert!(lines.iter().all(|l| !l.contains("book:")), "{lines:?}");
}

#[test]
fn probe_and_exports_from_the_command_line() {
    let exe = env!("CARGO_BIN_EXE_syotti");
    let out = Command::new(exe)
        .args(["book", "probe", "--moves", "e2e4", "--json"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("\"result\":\"win\"") && text.contains("\"move\":\"b7b5\""),
        "{text}"
    );

    let dir = std::env::temp_dir().join(format!("syotti-book-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let bin = dir.join("book.bin");
    let pgn = dir.join("book.pgn");
    let out = Command::new(exe)
        .args(["book", "export", "--polyglot"])
        .arg(&bin)
        .arg("--pgn")
        .arg(&pgn)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Polyglot: 16-byte big-endian entries sorted by key; the entry of each refuted position
    // decodes to the book's move.
    let bytes = std::fs::read(&bin).expect("written");
    assert_eq!(bytes.len() % 16, 0);
    let keys: Vec<u64> = bytes
        .chunks(16)
        .map(|c| u64::from_be_bytes(c[..8].try_into().expect("8 bytes")))
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    let book = ProofBook::embedded().expect("reads");
    for first in REFUTED {
        let game = after(first);
        let key = polyglot_key(game.position());
        let index = keys.binary_search(&key).expect("the position is exported");
        let raw = u16::from_be_bytes([bytes[index * 16 + 8], bytes[index * 16 + 9]]);
        let square = |bits: u16| {
            let file = (b'a' + (bits & 7) as u8) as char;
            let rank = (b'1' + ((bits >> 3) & 7) as u8) as char;
            format!("{file}{rank}")
        };
        let uci = format!("{}{}", square(raw >> 6), square(raw));
        let expected = book
            .probe(game.position(), book.rule())
            .expect("in the book");
        assert_eq!(
            uci,
            notation::uci(expected.best)[..4].to_string(),
            "{first}"
        );
    }
    // PGN: one game a refutation, each readable again.
    let text = std::fs::read_to_string(&pgn).expect("written");
    let games = syotti::pgn::read_games(&text);
    // The refutations first, then the proved sub-lines of `book/progress.book`.
    assert_eq!(games.len(), book.roots().len());
    assert!(games.len() >= REFUTED.len());
    for (index, game) in games.into_iter().enumerate() {
        let game = game.expect("readable");
        assert_eq!(game.result.as_deref(), Some("0-1"));
        let mut replay =
            Game::from_fen(game.tag("FEN").expect("FEN"), StalemateRule::default()).expect("valid");
        for m in &game.moves {
            replay.play_text(m).expect("legal");
        }
        // The line ends in Black's win, or where the prover handed over to the tables.
        match replay.outcome() {
            Some(o) => assert_eq!(o.winner, Some(shakmaty::Color::Black)),
            None => {
                use shakmaty::Position;
                let pos = replay.position();
                let into_tables = |p: &shakmaty::variant::Antichess| {
                    p.board().occupied().count() <= 4 && p.halfmoves() == 0
                };
                let hands_over = into_tables(pos)
                    || pos.legal_moves().iter().any(|&m| {
                        let mut child = pos.clone();
                        child.play_unchecked(m);
                        into_tables(&child)
                    });
                // Or where a thinned book (the proved sub-lines) leaves the rest to a search:
                // the winner's move there, or one the loser's replies lead to, is left out.
                let left_out = index >= REFUTED.len()
                    && book.fill_nodes() > 0
                    && (book.probe(pos, book.rule()).is_none()
                        || pos.legal_moves().iter().any(|&m| {
                            let mut child = pos.clone();
                            child.play_unchecked(m);
                            book.probe(&child, book.rule()).is_none()
                        }));
                assert!(hands_over || left_out, "{}", notation::to_fen(pos));
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
