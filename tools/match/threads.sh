#!/bin/bash
# Threads 2 against Threads 1: the same build on both sides, as the README's "Strength" section
# measures it (antichess 10+0.1, openings/untuned.epd in random order with both colours, Hash 256
# each, one game at a time so that the two-thread engine has both cores while it thinks, a draw
# adjudicated after move 30 when both say 0.00 for ten moves). Run nothing else beside it.
#
#   tools/match/threads.sh SYOTTI_BINARY CUTECHESS_CLI GAMES PGN_OUT
#
# GAMES is rounded up to an even number (each opening is played with both colours). Use a
# cutechess-cli with the ghost-king fix (README, "cutechess-cli").
set -euo pipefail
bin=${1:?syotti binary}
cutechess=${2:?cutechess-cli}
games=${3:?number of games}
pgn=${4:?PGN output}
here=$(cd "$(dirname "$0")" && pwd)
rounds=$(( (games + 1) / 2 ))
exec "$cutechess" \
  -engine name=t2 cmd="$bin" option.Threads=2 \
  -engine name=t1 cmd="$bin" option.Threads=1 \
  -each proto=uci tc=10+0.1 option.Hash=256 \
  -variant antichess \
  -openings file="$here/../../openings/untuned.epd" format=epd order=random \
  -repeat -games 2 -rounds "$rounds" -concurrency 1 \
  -draw movenumber=30 movecount=10 score=0 \
  -pgnout "$pgn"
