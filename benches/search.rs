//! Search and prover speed on fixed positions; each bench asserts its result.

use criterion::{criterion_group, criterion_main, Criterion};
use syotti::{
    proof::{prove, ProofLimits, ProofOutcome},
    rules::{hash, parse_fen, uci, StalemateRule},
    search::{
        search, tt::TranspositionTable, SearchControl, SearchLimits, SearchParams, SilentReporter,
    },
};

fn fixed_depth(c: &mut Criterion) {
    let pos =
        parse_fen("rnbqkbnr/p1pppppp/8/1p6/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2").expect("valid");
    let history = [hash::key(&pos)];
    let params = SearchParams::new(StalemateRule::default(), &history);
    let limits = SearchLimits {
        depth: Some(8),
        ..SearchLimits::default()
    };
    let tt = TranspositionTable::new(16);
    let mut group = c.benchmark_group("search");
    group.sample_size(10);
    group.bench_function("1.e3 b5, depth 8", |b| {
        b.iter(|| {
            tt.clear();
            let result = search(
                &pos,
                &params,
                &limits,
                &tt,
                &SearchControl::default(),
                &SilentReporter,
            );
            // Bxb5 is the only legal move.
            assert_eq!(result.best.map(uci).as_deref(), Some("f1b5"));
            assert_eq!(result.depth, 8);
        })
    });
    group.finish();
}

fn prover(c: &mut Criterion) {
    let cases = [
        (
            "1.e4: Black wins with b5",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1",
            "b7b5",
        ),
        (
            "Torngren: White wins with h3",
            "8/8/p7/8/8/8/7P/8 w - - 0 1",
            "h2h3",
        ),
    ];
    let limits = ProofLimits {
        nodes: Some(1_000_000),
        time: None,
        memory_mb: 32,
    };
    let mut group = c.benchmark_group("prove");
    group.sample_size(10);
    for (name, fen, expected) in cases {
        let pos = parse_fen(fen).expect("valid");
        group.bench_function(name, |b| {
            b.iter(|| {
                let report = prove(&pos, StalemateRule::default(), &[], &limits, None, None)
                    .expect("the proof table");
                match report.outcome {
                    ProofOutcome::Win { best, .. } => assert_eq!(uci(best), expected),
                    other => panic!("{name}: {other:?}"),
                }
            })
        });
    }
    group.finish();
}

criterion_group!(benches, fixed_depth, prover);
criterion_main!(benches);
