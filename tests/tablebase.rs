//! Tablebase probing against the reference values shipped with the tables, and the tables'
//! use by the search.

use syotti::{
    rules::{parse_fen, StalemateRule},
    search::{
        tt::TranspositionTable, SearchControl, SearchLimits, SearchParams, SearchResult,
        SilentReporter,
    },
    tablebase::Tablebases,
};

mod common;

/// The antichess tables (see `common::tables_path`).
fn tables() -> Tablebases {
    Tablebases::open(&common::tables_path()).expect("tables open")
}

#[test]
fn reference_positions_probe_to_known_values() {
    let tb = tables();
    assert!(tb.files() > 1000, "{} files", tb.files());
    assert_eq!(tb.max_pieces(), 4);
    let reference = [
        ("8/8/8/3K4/8/8/8/5r2 b - - 0 1", 2, 31),
        ("8/2K3p1/8/8/8/8/8/8 b - - 0 1", -2, -1),
        ("R7/8/8/8/8/8/2p5/8 b - - 0 1", -2, -1),
        ("8/4P3/8/8/8/8/8/7b w - - 0 1", 0, 0),
        ("5k1K/8/8/8/8/8/p1k5/8 b - - 0 1", 2, 12),
        ("8/5Q2/8/k7/8/8/8/8 b - - 0 1", -2, -3),
    ];
    for (fen, wdl, dtz) in reference {
        let pos = parse_fen(fen).expect("valid");
        let rule = StalemateRule::StalematedSideWins;
        let probed = tb.wdl_after_zeroing(&pos, rule, 7).expect("in the tables");
        assert_eq!(probed as i32, wdl, "WDL of {fen}");
        assert_eq!(tb.dtz(&pos, rule, 7), Some(dtz), "DTZ of {fen}");
    }
}

#[test]
fn pawn_tables_are_not_used_under_other_conventions() {
    let tb = tables();
    let pawns = parse_fen("8/2K3p1/8/8/8/8/8/8 b - - 0 1").expect("valid");
    let pawnless = parse_fen("8/8/8/3K4/8/8/8/5r2 b - - 0 1").expect("valid");
    for rule in [StalemateRule::Draw, StalemateRule::FewerPiecesWins] {
        assert_eq!(tb.wdl_after_zeroing(&pawns, rule, 7), None, "{rule}");
        assert!(tb.wdl_after_zeroing(&pawnless, rule, 7).is_some(), "{rule}");
    }
    // The probe limit is respected.
    assert_eq!(
        tb.wdl_after_zeroing(&pawnless, StalemateRule::default(), 1),
        None
    );
}

#[test]
fn root_ranking_prefers_wins_then_fast_zeroing() {
    let tb = tables();
    let pos = parse_fen("8/8/8/3K4/8/8/8/5r2 b - - 0 1").expect("valid");
    let ranked = tb
        .rank_root(&pos, StalemateRule::default(), 7)
        .expect("all moves known");
    assert_eq!(ranked.len(), pos_moves(&pos));
    assert_eq!(ranked[0].wdl as i32, 2);
    assert!(ranked
        .windows(2)
        .all(|w| w[0].wdl as i32 >= w[1].wdl as i32));
}

#[test]
fn taking_the_last_piece_is_ranked_and_searched_as_a_loss() {
    let tb = tables();
    let rule = StalemateRule::default();
    // Black must take White's last piece (fxe4), after which White has nothing left and wins.
    let pos = parse_fen("8/2b5/8/5p2/4B3/8/8/8 b - - 1 30").expect("valid");
    let ranked = tb.rank_root(&pos, rule, 7).expect("all moves known");
    assert_eq!(ranked.len(), 1);
    assert_eq!(ranked[0].wdl as i32, -2, "taking the last piece loses");
    let history = [syotti::rules::hash::key(&pos)];
    let result = search_with_tables(&pos, rule, &history, &tb, &TranspositionTable::new(8));
    assert!(result.score < 0, "score {}", result.score);
}

fn pos_moves(pos: &syotti::rules::Antichess) -> usize {
    use syotti::rules::Position;
    pos.legal_moves().len()
}

/// A depth-6 search of `pos` (game keys `history`, `pos` last) that probes the tables.
fn search_with_tables(
    pos: &syotti::rules::Antichess,
    rule: StalemateRule,
    history: &[u64],
    tb: &Tablebases,
    tt: &TranspositionTable,
) -> SearchResult {
    let params = SearchParams {
        tablebases: Some(tb),
        probe_limit: 7,
        ..SearchParams::new(rule, history)
    };
    let limits = SearchLimits {
        depth: Some(6),
        ..SearchLimits::default()
    };
    syotti::search::search(
        pos,
        &params,
        &limits,
        tt,
        &SearchControl::default(),
        &SilentReporter,
    )
}

#[test]
fn search_converts_a_table_win_without_a_fifty_move_draw() {
    use syotti::rules::{Game, Position};
    let tb = tables();
    let rule = StalemateRule::default();
    // Rook against king, the rook's side to move loses... here Black (rook) wins, DTZ 31.
    let mut game = Game::from_fen("8/8/8/3K4/8/8/8/5r2 b - - 0 1", rule).expect("valid");
    let winner = game.position().turn();
    let tt = TranspositionTable::new(8);
    while game.outcome().is_none() {
        assert!(game.moves().len() < 200, "no conversion in 200 plies");
        let pos = game.position().clone();
        let result = search_with_tables(&pos, rule, game.keys(), &tb, &tt);
        game.play(result.best.expect("a move")).expect("legal");
    }
    let outcome = game.outcome().expect("over");
    assert_eq!(outcome.winner, Some(winner), "{outcome}");
}

#[test]
fn a_drawn_root_is_reported_as_a_draw() {
    use syotti::rules::Position;
    let tb = tables();
    let rule = StalemateRule::default();
    // Queen and pawn against a king: the tables say draw, and only some moves keep it.
    let pos = parse_fen("2Q5/8/4P3/8/6k1/8/8/8 w - - 7 32").expect("valid");
    let ranked = tb.rank_root(&pos, rule, 7).expect("in the tables");
    assert_eq!(ranked[0].wdl as i32, 0, "the best result is a draw");
    let drawing: Vec<_> = ranked
        .iter()
        .filter(|r| r.wdl as i32 == 0)
        .map(|r| r.m)
        .collect();
    assert!(drawing.len() < pos.legal_moves().len(), "some moves lose");
    let history = [syotti::rules::hash::key(&pos)];
    let result = search_with_tables(&pos, rule, &history, &tb, &TranspositionTable::new(8));
    assert_eq!(result.score, 0);
    assert!(drawing.contains(&result.best.expect("a move")));
}

#[test]
fn prover_uses_tables_as_solved_leaves() {
    use syotti::proof::{
        dfpn::prove_with_tables,
        verify::{verify, verify_with_tables},
        ProofLimits, ProofOutcome,
    };
    let tb = tables();
    let pos = parse_fen("rn6/8/8/3p4/8/4P3/2P5/4R3 w - - 0 1").expect("valid");
    let rule = StalemateRule::default();
    let limits = ProofLimits {
        nodes: Some(5_000_000),
        time: None,
        memory_mb: 64,
    };
    let without =
        prove_with_tables(&pos, rule, &[], &limits, (None, None), None, None).expect("table");
    let with = prove_with_tables(&pos, rule, &[], &limits, (Some((&tb, 7)), None), None, None)
        .expect("table");
    eprintln!(
        "6-piece loss: {} nodes without tables, {} with",
        without.nodes, with.nodes
    );
    assert!(matches!(without.outcome, ProofOutcome::Loss { .. }));
    let ProofOutcome::Loss { proof } = with.outcome else {
        panic!("expected a loss with tables too");
    };
    assert!(with.nodes < without.nodes);
    let text = proof.to_text();
    assert!(
        text.contains(" : tablebase"),
        "the proof ends in the tables"
    );
    verify_with_tables(&text, Some(&tb)).expect("verifies with the tables");
    let err = verify(&text).expect_err("needs the tables");
    assert!(err.to_string().contains("--syzygy"), "{err}");
}
