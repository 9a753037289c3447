//! Proof-number search: known forced wins proved, proofs written, verified, and broken proofs
//! caught by the verifier.

use syotti::{
    proof::{prove, tree::ProofTree, verify::verify, ProofLimits, ProofOutcome},
    rules::{hash, uci, Antichess, Game, Position, StalemateRule},
};

const TORNGREN: &str = "8/8/p7/8/8/8/7P/8 w - - 0 1";
const TORNGREN_TO_A1R: &str = "h2h3 a6a5 h3h4 a5a4 h4h5 a4a3 h5h6 a3a2 h6h7 a2a1r";

fn limits() -> ProofLimits {
    ProofLimits {
        nodes: Some(20_000_000),
        time: None,
        memory_mb: 64,
    }
}

fn game_after(fen: &str, moves: &str, rule: StalemateRule) -> Game {
    let mut game = Game::from_fen(fen, rule).expect("valid FEN");
    for m in moves.split_whitespace() {
        game.play_text(m).expect("legal move");
    }
    game
}

fn prove_game(game: &Game) -> ProofOutcome {
    prove(
        game.position(),
        game.rule(),
        game.keys(),
        &limits(),
        None,
        None,
    )
    .expect("the proof table")
    .outcome
}

/// Proves the position and checks the written proof with the verifier.
fn proved_win(game: &Game) -> (String, ProofTree) {
    match prove_game(game) {
        ProofOutcome::Win { best, proof } => {
            let text = proof.to_text();
            let report = verify(&text).unwrap_or_else(|e| panic!("proof does not verify: {e}"));
            assert_eq!(report.winner, game.position().turn());
            (uci(best), proof)
        }
        other => panic!("expected a win, got {other:?}"),
    }
}

/// The root moves that win, each checked by proving the position after it.
fn winning_moves(game: &Game) -> Vec<String> {
    let mut winners = Vec::new();
    for m in game.legal_moves() {
        let mut after = game.clone();
        after.play(m).expect("legal");
        if let ProofOutcome::Loss { proof } = prove_game(&after) {
            verify(&proof.to_text()).expect("the refutation verifies");
            winners.push(uci(m));
        }
    }
    winners.sort();
    winners
}

#[test]
fn torngren_only_h3_wins() {
    for rule in [
        StalemateRule::FewerPiecesWins,
        StalemateRule::StalematedSideWins,
    ] {
        let game = game_after(TORNGREN, "", rule);
        let (best, _) = proved_win(&game);
        assert_eq!(best, "h2h3", "{rule}");
        assert_eq!(winning_moves(&game), ["h2h3"], "{rule}");
    }
}

#[test]
fn torngren_only_h8_bishop_wins_after_a1_rook() {
    for rule in [
        StalemateRule::FewerPiecesWins,
        StalemateRule::StalematedSideWins,
    ] {
        let game = game_after(TORNGREN, TORNGREN_TO_A1R, rule);
        let (best, _) = proved_win(&game);
        assert_eq!(best, "h7h8b", "{rule}");
        assert_eq!(winning_moves(&game), ["h7h8b"], "{rule}");
    }
}

#[test]
fn black_refutes_e4_d4_d3() {
    for (first, refutation) in [("e2e4", "b7b5"), ("d2d4", "e7e5"), ("d2d3", "g7g5")] {
        let game = game_after(syotti::rules::START_FEN, first, StalemateRule::default());
        let (best, proof) = proved_win(&game);
        assert_eq!(best, refutation, "after {first}");
        assert!(proof.entries.len() > 10);
        // The winning line ends in a position the rules give to Black.
        // The line follows the loser's longest resistance: as long as the proof is deep.
        let mut line_game = game.clone();
        let line = proof.main_line(200);
        assert_eq!(line.len() as u32, proof.depth().plies, "after {first}");
        for m in line {
            line_game.play(m).expect("main line is legal");
        }
        assert_eq!(
            line_game.outcome().and_then(|o| o.winner),
            Some(syotti::rules::Color::Black)
        );
    }
}

#[test]
fn a_lost_position_is_a_loss_and_a_draw_is_unknown() {
    // Black's king on a1 against a rook on h1: Kb1 forces Rxb1 and Black has no pieces.
    let game = game_after("8/8/8/8/8/8/8/k6R b - - 0 6", "", StalemateRule::default());
    assert!(matches!(prove_game(&game), ProofOutcome::Win { .. }));
    // Here the rook forces the black king to take it: every black move loses.
    let after = game_after(
        "8/8/8/8/4R3/8/2k5/8 b - - 0 8",
        "",
        StalemateRule::default(),
    );
    assert!(matches!(prove_game(&after), ProofOutcome::Loss { .. }));
    // Opposite-coloured bishops: a dead draw is never proved.
    let draw = game_after(
        "8/8/8/8/8/8/8/1B4b1 w - - 0 1",
        "",
        StalemateRule::default(),
    );
    assert_eq!(prove_game(&draw), ProofOutcome::Unknown);
}

#[test]
fn verifier_catches_broken_proofs() {
    let game = game_after(syotti::rules::START_FEN, "e2e4", StalemateRule::default());
    let (_, proof) = proved_win(&game);
    let text = proof.to_text();

    // A missing reply of the loser.
    let mut lines: Vec<&str> = text.lines().collect();
    let loser_line = lines
        .iter()
        .position(|l| {
            l.contains(" w - ")
                && l.split(" : ")
                    .nth(1)
                    .is_some_and(|m| m.split_whitespace().count() > 1)
        })
        .expect("a White position with several replies");
    let trimmed = {
        let (pos, moves) = lines[loser_line].split_once(" : ").expect("entry");
        let kept: Vec<&str> = moves.split_whitespace().skip(1).collect();
        format!("{pos} : {}", kept.join(" "))
    };
    lines[loser_line] = &trimmed;
    let err = verify(&lines.join("\n")).expect_err("a reply is missing");
    assert!(err.to_string().contains("missing"), "{err}");

    // A winner move that is illegal.
    let root_line = text
        .lines()
        .position(|l| l.ends_with(" : b7b5"))
        .expect("root entry");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines[root_line] = lines[root_line].replace("b7b5", "b7b4");
    let err = verify(&lines.join("\n")).expect_err("illegal move");
    assert!(err.to_string().contains("bad winner move"), "{err}");

    // The wrong winner: the first leaf reached is not a win for White.
    let flipped = text.replace("winner black", "winner white");
    assert!(verify(&flipped).is_err());

    // Garbage.
    assert!(verify("hello").is_err());
    assert!(verify("").is_err());
}

#[test]
fn history_repetitions_are_respected() {
    // The rook ending from the study: proved from scratch...
    let pos: Antichess = syotti::rules::parse_fen("8/8/8/8/7R/8/1k6/8 b - - 0 7").expect("valid");
    let plain = prove(&pos, StalemateRule::default(), &[], &limits(), None, None).expect("table");
    assert!(matches!(plain.outcome, ProofOutcome::Loss { .. }));
    // ...and with a history that already holds the root: still decided on its own merits.
    let history = [hash::key(&pos)];
    let again = prove(
        &pos,
        StalemateRule::default(),
        &history,
        &limits(),
        None,
        None,
    )
    .expect("the proof table");
    assert!(matches!(again.outcome, ProofOutcome::Loss { .. }));
}

/// `tests/data/suicide-dtm.epd` (copied from the shared positions): 37 positions under FICS
/// suicide rules with a best move and its distance (positive: win, negative: loss, 0: draw).
#[test]
fn suicide_dtm_positions() {
    let text = include_str!("data/suicide-dtm.epd");
    let (mut wins, mut losses, mut draws) = (0, 0, 0);
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (fen, rest) = line.split_once(" bm ").expect("bm field");
        let dtm: i32 = rest
            .split("max_dtm ")
            .nth(1)
            .and_then(|s| {
                s.trim_end_matches(';')
                    .trim()
                    .trim_end_matches(';')
                    .parse()
                    .ok()
            })
            .expect("max_dtm field");
        let game = game_after(fen, "", StalemateRule::FewerPiecesWins);
        match (dtm.signum(), prove_game(&game)) {
            (1, ProofOutcome::Win { proof, best }) => {
                verify(&proof.to_text()).unwrap_or_else(|e| panic!("{fen}: {e}"));
                assert!(game.legal_moves().contains(&best));
                wins += 1;
            }
            (-1, ProofOutcome::Loss { proof }) => {
                verify(&proof.to_text()).unwrap_or_else(|e| panic!("{fen}: {e}"));
                losses += 1;
            }
            (0, ProofOutcome::Unknown) => draws += 1,
            (sign, other) => panic!("{fen}: expected sign {sign}, got {other:?}"),
        }
    }
    assert_eq!((wins, losses, draws), (34, 1, 2));
}

#[test]
fn time_and_node_limits_end_the_search() {
    // The start position is far beyond any budget here: the limits must end the search.
    let game = game_after(syotti::rules::START_FEN, "", StalemateRule::default());
    for limits in [
        ProofLimits {
            nodes: None,
            time: Some(std::time::Duration::from_millis(300)),
            memory_mb: 16,
        },
        ProofLimits {
            nodes: Some(50_000),
            time: None,
            memory_mb: 16,
        },
    ] {
        let started = std::time::Instant::now();
        let report = prove(
            game.position(),
            game.rule(),
            game.keys(),
            &limits,
            None,
            None,
        )
        .expect("the proof table");
        assert_eq!(report.outcome, ProofOutcome::Unknown);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(5),
            "{limits:?} took {:?}",
            started.elapsed()
        );
        if let Some(n) = limits.nodes {
            assert!(report.nodes <= n + 2 * 1024, "{} nodes", report.nodes);
        }
    }
}

#[test]
fn positions_the_book_proves_are_solved_leaves_and_their_proofs_are_copied_in() {
    let known = syotti::proof::known::KnownWins::embedded().expect("the embedded book");
    assert!(known.len() > 100_000, "{}", known.len());
    // After 1.e4 b5 every White move leads into the book's refutation of 1.e4.
    let game = game_after(
        syotti::rules::START_FEN,
        "e2e4 b7b5",
        StalemateRule::default(),
    );
    let prove_with = |book| {
        syotti::proof::dfpn::prove_with_tables(
            game.position(),
            game.rule(),
            game.keys(),
            &limits(),
            (None, book),
            None,
            None,
        )
        .expect("the proof table")
    };
    let with_book = prove_with(Some(known.as_ref()));
    let without = prove_with(None);
    let (ProofOutcome::Loss { proof: from_book }, ProofOutcome::Loss { proof: searched }) =
        (&with_book.outcome, &without.outcome)
    else {
        panic!("White loses after 1.e4 b5, with the book and without");
    };
    // The book's positions cost no search, and the proof stands without the book.
    assert!(
        with_book.nodes < without.nodes,
        "{} {}",
        with_book.nodes,
        without.nodes
    );
    let report = verify(&from_book.to_text()).expect("the copied proof verifies alone");
    assert!(report.checked > from_book.root.legal_moves().len());
    verify(&searched.to_text()).expect("the searched proof verifies");
}
