//! Search behaviour: forced wins found and scored as mates, determinism, limits, MultiPV,
//! searchmoves, and the rules' results respected inside the tree.

use std::sync::Mutex;

use syotti::{
    rules::{hash, parse_fen, parse_uci_move, uci, Antichess, StalemateRule},
    search::{
        mate_moves, search, tt::TranspositionTable, Reporter, SearchControl, SearchInfo,
        SearchLimits, SearchParams, SearchResult,
    },
};

#[derive(Default)]
struct Capture {
    infos: Mutex<Vec<SearchInfo>>,
}

impl Reporter for Capture {
    fn info(&self, info: &SearchInfo) {
        self.infos.lock().expect("not poisoned").push(info.clone());
    }
    fn current_move(&self, _: u32, _: shakmaty::Move, _: usize) {}
    fn message(&self, _: &str) {}
    fn best_move(&self, _: Option<shakmaty::Move>, _: Option<shakmaty::Move>) {}
}

fn run(
    fen: &str,
    rule: StalemateRule,
    limits: SearchLimits,
    multipv: usize,
) -> (SearchResult, Vec<SearchInfo>) {
    let pos: Antichess = parse_fen(fen).expect("valid FEN");
    let history = [hash::key(&pos)];
    let params = SearchParams {
        multipv,
        ..SearchParams::new(rule, &history)
    };
    let tt = TranspositionTable::new(8);
    let control = SearchControl::default();
    let capture = Capture::default();
    let result = search(&pos, &params, &limits, &tt, &control, &capture);
    let infos = capture.infos.into_inner().expect("not poisoned");
    (result, infos)
}

fn depth(d: u32) -> SearchLimits {
    SearchLimits {
        depth: Some(d),
        ..SearchLimits::default()
    }
}

#[test]
fn finds_a_win_by_giving_away_the_last_piece() {
    // Either rook move along the edge offers White's last piece to the black rook.
    let fen = "7r/8/8/8/8/8/8/R7 w - - 0 1";
    let (result, _) = run(fen, StalemateRule::default(), depth(4), 1);
    assert_eq!(mate_moves(result.score), Some(1));
    let best = result.best.expect("a move");
    let mut game = syotti::rules::Game::from_fen(fen, StalemateRule::default()).expect("valid");
    game.play(best).expect("legal");
    let reply = game.legal_moves();
    assert_eq!(reply.len(), 1, "Black must take");
    game.play(reply[0]).expect("legal");
    assert_eq!(
        game.outcome().and_then(|o| o.winner),
        Some(syotti::rules::Color::White)
    );
}

/// Scores of the only move a3-a4, after which Black is stalemated.
fn stalemate_score(fen: &str, rule: StalemateRule) -> Option<i32> {
    let (result, _) = run(fen, rule, depth(2), 1);
    assert_eq!(result.best.map(uci).as_deref(), Some("a3a4"));
    match mate_moves(result.score) {
        Some(moves) => Some(moves),
        None => {
            assert_eq!(result.score, 0, "{rule}");
            None
        }
    }
}

#[test]
fn the_stalemate_convention_decides_the_score() {
    use StalemateRule::*;
    // After 1.a4 Black is stalemated: White 2 pieces (a2 blocked) against 1.
    let more = "8/8/8/p7/8/P7/P7/8 w - - 0 1";
    assert_eq!(stalemate_score(more, StalematedSideWins), Some(-1));
    assert_eq!(stalemate_score(more, Draw), None);
    assert_eq!(stalemate_score(more, FewerPiecesWins), Some(-1));
    // White 1 piece against Black's 2 (a6 blocked).
    let fewer = "8/8/p7/p7/8/P7/8/8 w - - 0 1";
    assert_eq!(stalemate_score(fewer, StalematedSideWins), Some(-1));
    assert_eq!(stalemate_score(fewer, Draw), None);
    assert_eq!(stalemate_score(fewer, FewerPiecesWins), Some(1));
    // One piece each.
    let equal = "8/8/8/p7/8/P7/8/8 w - - 0 1";
    assert_eq!(stalemate_score(equal, StalematedSideWins), Some(-1));
    assert_eq!(stalemate_score(equal, Draw), None);
    assert_eq!(stalemate_score(equal, FewerPiecesWins), None);
}

#[test]
fn a_drawn_position_scores_zero() {
    // Opposite-coloured bishops: dead draw whatever the search does.
    let (result, _) = run(
        "8/8/8/8/8/8/8/1B4b1 w - - 0 1",
        StalemateRule::default(),
        depth(6),
        1,
    );
    assert_eq!(result.score, 0);
}

#[test]
fn a_draw_is_shown_as_a_draw_whatever_the_contempt() {
    // The only move, Bxd5, leaves opposite-coloured bishops: a dead draw. With contempt C the
    // search scores it -C for the side to move at the root, whichever colour it is, and shows
    // it as the draw it is: 0.
    let white = "5b2/8/8/3p4/2B5/8/8/8 w - - 0 1";
    let black = "8/8/8/2b5/3P4/8/8/5B2 b - - 0 1";
    for fen in [white, black] {
        for contempt in [0, 40] {
            let pos: Antichess = parse_fen(fen).expect("valid FEN");
            let history = [hash::key(&pos)];
            let params = SearchParams {
                contempt,
                ..SearchParams::new(StalemateRule::default(), &history)
            };
            let tt = TranspositionTable::new(8);
            let result = search(
                &pos,
                &params,
                &depth(4),
                &tt,
                &SearchControl::default(),
                &Capture::default(),
            );
            assert_eq!(result.score, 0, "{fen}, contempt {contempt}");
        }
    }
}

#[test]
fn same_node_limit_gives_same_result() {
    let limits = SearchLimits {
        nodes: Some(30_000),
        ..SearchLimits::default()
    };
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1";
    let (a, _) = run(fen, StalemateRule::default(), limits.clone(), 1);
    let (b, _) = run(fen, StalemateRule::default(), limits, 1);
    assert_eq!(a, b);
    assert!(a.nodes <= 30_000);
    assert!(a.best.is_some());
}

#[test]
fn depth_limit_is_respected_and_reported() {
    let (result, infos) = run(
        syotti::rules::START_FEN,
        StalemateRule::default(),
        depth(5),
        1,
    );
    assert_eq!(result.depth, 5);
    let depths: Vec<u32> = infos.iter().map(|i| i.depth).collect();
    assert_eq!(depths, [1, 2, 3, 4, 5]);
    assert!(infos.iter().all(|i| !i.pv.is_empty()));
}

#[test]
fn multipv_gives_distinct_lines_in_order() {
    let (_, infos) = run(
        syotti::rules::START_FEN,
        StalemateRule::default(),
        depth(4),
        3,
    );
    let last: Vec<&SearchInfo> = infos.iter().filter(|i| i.depth == 4).collect();
    assert_eq!(last.len(), 3);
    assert_eq!(
        last.iter().map(|i| i.multipv).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let firsts: Vec<_> = last.iter().map(|i| i.pv[0]).collect();
    assert!(firsts[0] != firsts[1] && firsts[1] != firsts[2] && firsts[0] != firsts[2]);
    assert!(last[0].score >= last[1].score && last[1].score >= last[2].score);
}

#[test]
fn searchmoves_restricts_the_root() {
    let pos = parse_fen(syotti::rules::START_FEN).expect("valid");
    let only = parse_uci_move(&pos, "a2a3").expect("legal");
    let limits = SearchLimits {
        depth: Some(3),
        searchmoves: vec![only],
        ..SearchLimits::default()
    };
    let (result, _) = run(
        syotti::rules::START_FEN,
        StalemateRule::default(),
        limits,
        1,
    );
    assert_eq!(result.best, Some(only));
}

#[test]
fn no_legal_move_gives_no_best_move() {
    let (result, _) = run(
        "8/8/8/p7/P7/8/8/8 w - - 0 1",
        StalemateRule::default(),
        depth(3),
        1,
    );
    assert_eq!(result.best, None);
}

#[test]
fn forced_capture_is_the_only_move() {
    let (result, _) = run(
        "rnbqkbnr/p1pppppp/8/1p6/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2",
        StalemateRule::default(),
        depth(3),
        1,
    );
    assert_eq!(result.best.map(uci).as_deref(), Some("f1b5"));
}
