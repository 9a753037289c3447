//! Outcome rules under each stalemate convention, and the Törngren study.

use syotti::rules::{
    game::repetitions, parse_fen, Color, Game, GameError, Outcome, Position, StalemateRule,
    Termination,
};

const ALL_RULES: [StalemateRule; 3] = StalemateRule::ALL;

fn outcome(fen: &str, rule: StalemateRule) -> Option<Outcome> {
    Game::from_fen(fen, rule).expect("valid test FEN").outcome()
}

#[test]
fn a_side_without_pieces_has_won_under_every_convention() {
    for rule in ALL_RULES {
        // White to move has no pieces.
        assert_eq!(
            outcome("8/8/8/8/8/8/8/r7 w - - 0 1", rule),
            Some(Outcome::win(Color::White, Termination::NoPieces))
        );
        // Black has no pieces (e.g. after Black's last piece was taken).
        assert_eq!(
            outcome("8/8/8/8/8/8/8/R7 w - - 0 1", rule),
            Some(Outcome::win(Color::Black, Termination::NoPieces))
        );
    }
}

// White pawn on a4 blocked by a black pawn on a5: White to move is stalemated.
const STALEMATE_EQUAL: &str = "8/8/8/p7/P7/8/8/8 w - - 0 1";
// White to move is stalemated with 1 piece against Black's 2.
const STALEMATE_FEWER: &str = "8/8/7p/p7/P7/8/8/8 w - - 0 1";
// White to move is stalemated with 2 pieces against Black's 1.
const STALEMATE_MORE: &str = "8/8/8/p7/P7/P7/8/8 w - - 0 1";

#[test]
fn stalemate_under_stalemated_side_wins() {
    let rule = StalemateRule::StalematedSideWins;
    for fen in [STALEMATE_EQUAL, STALEMATE_FEWER, STALEMATE_MORE] {
        assert_eq!(
            outcome(fen, rule),
            Some(Outcome::win(Color::White, Termination::Stalemate)),
            "{fen}"
        );
    }
}

#[test]
fn stalemate_under_draw() {
    for fen in [STALEMATE_EQUAL, STALEMATE_FEWER, STALEMATE_MORE] {
        assert_eq!(
            outcome(fen, StalemateRule::Draw),
            Some(Outcome::draw(Termination::Stalemate)),
            "{fen}"
        );
    }
}

#[test]
fn stalemate_under_fewer_pieces_wins() {
    let rule = StalemateRule::FewerPiecesWins;
    assert_eq!(
        outcome(STALEMATE_FEWER, rule),
        Some(Outcome::win(Color::White, Termination::Stalemate))
    );
    assert_eq!(
        outcome(STALEMATE_MORE, rule),
        Some(Outcome::win(Color::Black, Termination::Stalemate))
    );
    assert_eq!(
        outcome(STALEMATE_EQUAL, rule),
        Some(Outcome::draw(Termination::Stalemate))
    );
    // Piece values do not matter: a pawn blocked by a queen is one piece each, a draw.
    assert_eq!(
        outcome("8/8/8/q7/P7/8/8/8 w - - 0 1", rule),
        Some(Outcome::draw(Termination::Stalemate))
    );
}

#[test]
fn fifty_move_rule() {
    for rule in ALL_RULES {
        // Rooks far apart, halfmove clock at 99: one quiet move draws.
        let mut game = Game::from_fen("7r/8/8/8/8/8/8/R7 w - - 99 80", rule).expect("valid");
        assert_eq!(game.outcome(), None);
        game.play_text("a1a2").expect("legal quiet move");
        assert_eq!(game.outcome(), Some(Outcome::draw(Termination::FiftyMoves)));
        // A pawn move resets the clock.
        let mut game = Game::from_fen("7r/p7/8/8/8/8/8/R7 b - - 99 80", rule).expect("valid");
        game.play_text("a7a6").expect("legal pawn move");
        assert_eq!(game.outcome(), None);
    }
}

#[test]
fn threefold_repetition() {
    for rule in ALL_RULES {
        let mut game = Game::from_fen("7r/8/8/8/8/8/8/R7 w - - 0 1", rule).expect("valid");
        let cycle = ["a1a2", "h8h7", "a2a1", "h7h8"];
        for m in cycle {
            game.play_text(m).expect("legal");
            assert_eq!(game.outcome(), None);
        }
        // The start position has now occurred twice; once more is a draw.
        for (i, m) in cycle.iter().enumerate() {
            game.play_text(m).expect("legal");
            let expected = (i == cycle.len() - 1).then_some(Outcome::draw(Termination::Repetition));
            assert_eq!(game.outcome(), expected, "after {m}");
        }
        assert_eq!(repetitions(game.keys(), game.position().halfmoves()), 3);
        assert!(matches!(
            game.play_text("a1a2"),
            Err(GameError::GameOver(_))
        ));
    }
}

#[test]
fn en_passant_possibility_distinguishes_positions() {
    // After 1...b5 with a white pawn on a5 (a5xb6 possible), the position differs from the same
    // placement without the en-passant right.
    let with_ep = parse_fen("8/8/8/Pp6/8/8/8/7k w - b6 0 1").expect("valid");
    let without = parse_fen("8/8/8/Pp6/8/8/8/7k w - - 0 1").expect("valid");
    assert_ne!(
        syotti::rules::hash::key(&with_ep),
        syotti::rules::hash::key(&without)
    );
    // An en-passant square nobody can use does not count.
    let useless = parse_fen("8/8/8/1p6/8/8/8/7K w - b6 0 1").expect("valid");
    let plain = parse_fen("8/8/8/1p6/8/8/8/7K w - - 0 1").expect("valid");
    assert_eq!(
        syotti::rules::hash::key(&useless),
        syotti::rules::hash::key(&plain)
    );
}

#[test]
fn opposite_coloured_bishops_are_a_dead_draw() {
    for rule in ALL_RULES {
        // White bishop on a light square, black bishop on a dark square.
        assert_eq!(
            outcome("8/8/8/8/8/8/8/1B4b1 w - - 0 1", rule),
            Some(Outcome::draw(Termination::DeadPosition))
        );
        // Same-coloured bishops can meet: play goes on.
        assert_eq!(outcome("8/8/8/8/8/8/8/1B5b w - - 0 1", rule), None);
    }
}

#[test]
fn lone_knights_are_not_a_dead_draw() {
    for rule in ALL_RULES {
        assert_eq!(outcome("8/8/8/8/8/8/8/N6n w - - 0 1", rule), None);
        assert_eq!(outcome("8/8/8/8/8/8/8/N5n1 w - - 0 1", rule), None);
        let pos = parse_fen("8/8/8/8/8/8/8/N6n w - - 0 1").expect("valid");
        // Exactly one side can never win.
        let white = syotti::rules::outcome::cannot_win(&pos, Color::White);
        let black = syotti::rules::outcome::cannot_win(&pos, Color::Black);
        assert!(white ^ black);
    }
}

#[test]
fn capture_is_compulsory_and_en_passant_too() {
    let game =
        Game::from_fen("8/8/8/Pp6/8/8/8/7k w - b6 0 1", StalemateRule::default()).expect("valid");
    let moves = game.legal_moves();
    assert_eq!(moves.len(), 1);
    assert!(moves[0].is_en_passant());
}

#[test]
fn torngren_study() {
    for rule in ALL_RULES {
        let mut game = Game::from_fen("8/8/p7/8/8/8/7P/8 w - - 0 1", rule).expect("valid");
        let mut first: Vec<String> = game
            .legal_moves()
            .iter()
            .map(|&m| syotti::rules::uci(m))
            .collect();
        first.sort();
        assert_eq!(first, ["h2h3", "h2h4"]);
        let line = "h2h3 a6a5 h3h4 a5a4 h4h5 a4a3 h5h6 a3a2 h6h7 a2a1r h7h8b a1b1 h8a1 b1a1";
        for m in line.split_whitespace() {
            assert_eq!(game.outcome(), None);
            game.play_text(m).expect("the study's moves are legal");
        }
        assert!(game.position().board().white().is_empty());
        assert_eq!(
            game.outcome(),
            Some(Outcome::win(Color::White, Termination::NoPieces))
        );
    }
}

#[test]
fn undo_restores_the_position() {
    let mut game = Game::default();
    let start_key = *game.keys().last().expect("one key");
    game.play_text("e2e3").expect("legal");
    game.play_text("b7b5").expect("legal");
    assert_eq!(game.moves().len(), 2);
    game.undo();
    game.undo();
    assert_eq!(game.undo(), None);
    assert_eq!(*game.keys().last().expect("one key"), start_key);
    assert_eq!(game.position(), game.start());
}

/// The opening files the milestone matches use (`openings/`) hold positions a match can start
/// from: each parses, the game is not over in it under the default convention (so the side to
/// move has a move), and no position is written twice, in one file or across the two (they are
/// separate samples).
#[test]
fn the_shipped_opening_files_are_playable_and_disjoint() {
    let mut seen = std::collections::HashMap::new();
    for file in ["openings/untuned.epd", "openings/untuned-deep.epd"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(&path).expect("the opening file is in the repository");
        let mut count = 0;
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let game = Game::from_fen(&format!("{line} 0 1"), StalemateRule::StalematedSideWins)
                .unwrap_or_else(|e| panic!("{file}: {line}: {e}"));
            assert_eq!(game.outcome(), None, "{file}: {line}");
            if let Some(first) = seen.insert(line.to_string(), file) {
                panic!("{line} is in {first} and again in {file}");
            }
            count += 1;
        }
        assert!(count >= 280, "{file}: {count} positions");
    }
}
