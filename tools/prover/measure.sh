#!/bin/bash
# Measures the prover: nodes and seconds to prove (a) 16 positions of 1.b4's proved sub-lines
# (positions.txt: proofs of 3,000 to 22,000 positions, taken from book/progress.book's roots)
# and (b) the seven refuted first moves, all from scratch (--no-book) with the 2-4 piece tables.
# Node counts are deterministic (one thread); times are not. Runs two proofs at a time.
#
#   tools/prover/measure.sh SYOTTI_BINARY TABLES [positions|moves|all]
set -euo pipefail
bin=${1:?syotti binary}
tables=${2:?tablebase folder}
what=${3:-all}
here=$(cd "$(dirname "$0")" && pwd)

prove() { # label, then prove's arguments
  local label=$1; shift
  local out
  out=$("$bin" prove "$@" --no-book --syzygy "$tables" --json 2>/dev/null || true)
  local nodes result ms
  nodes=$(grep -oE '"nodes": ?[0-9]+' <<<"$out" | grep -oE '[0-9]+$' || echo 0)
  ms=$(grep -oE '"time_ms": ?[0-9]+' <<<"$out" | grep -oE '[0-9]+$' || echo 0)
  result=$(grep -oE '"result": ?"[a-z ]+"' <<<"$out" | head -1 | sed 's/.*"\([a-z ]*\)"$/\1/' || true)
  printf '%s\t%s\t%s\t%s\n' "$label" "${result:-none}" "$nodes" "$ms"
}

if [[ $what == positions || $what == all ]]; then
  i=0
  while read -r fen; do
    i=$((i + 1))
    prove "position-$i" --fen "$fen" --memory 512 --nodes 50000000 &
    if (( i % 2 == 0 )); then wait; fi
  done < "$here/positions.txt"
  wait
fi
if [[ $what == moves || $what == all ]]; then
  # The largest first, beside the others.
  prove h2h4 --moves h2h4 --memory 6000 --time 3000 &
  for m in b1c3 g1f3 f2f4 e2e4 d2d4 d2d3; do prove "$m" --moves "$m" --memory 6000 --time 3000; done
  wait
fi
