//! Perft speed: depth 6 from the antichess start position, one thread, no hashing.
//! The node count is asserted, so the bench is also a correctness check.

use criterion::{criterion_group, criterion_main, Criterion};
use syotti::rules::{movegen::perft, Antichess};

fn perft_start(c: &mut Criterion) {
    let pos = Antichess::default();
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    group.bench_function("start depth 6", |b| {
        b.iter(|| assert_eq!(perft(&pos, 6), 46_264_162))
    });
    group.finish();
}

criterion_group!(benches, perft_start);
criterion_main!(benches);
