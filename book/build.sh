#!/usr/bin/env bash
# Regenerates book/syotti.book from scratch: proves the seven refuted first moves with the
# project's own prover, then verifies the proofs and merges them with `syotti book build`.
# Needs the antichess tables (SYOTTI_SYZYGY, default ../shared/tablebases) and up to 12 GB of
# memory for 1.h4; about 15 minutes on one core of a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
TABLES="${SYOTTI_SYZYGY:-../shared/tablebases}"
WORK="${1:-$(mktemp -d)}"
cargo build --release
SYOTTI=target/release/syotti
prove() { # MOVE MEMORY_MIB
  "$SYOTTI" prove --no-book --moves "$1" --memory "$2" --syzygy "$TABLES" --out "$WORK/$1.proof"
}
prove e2e4 1024
prove d2d4 1024
prove d2d3 1024
prove b1c3 3000
prove g1f3 3000
prove f2f4 6000
prove h2h4 12000
"$SYOTTI" book build "$WORK"/{e2e4,d2d4,d2d3,b1c3,g1f3,f2f4,h2h4}.proof \
  --syzygy "$TABLES" --out book/syotti.book
"$SYOTTI" book verify --book book/syotti.book --syzygy "$TABLES"
