#!/bin/bash
# Self-play between two builds or two networks, as nets/README.md's "How it plays" measures a
# candidate: the dev openings in random order with both colours, Hash 64 each, two games at a
# time (one core each), a draw adjudicated after move 30 when both say 0.00 for ten moves.
#
#   tools/match/selfplay.sh CUTECHESS_CLI VARIANT TC GAMES PGN_OUT NEW_BINARY NEW_EVALFILE OLD_BINARY
#
# NEW_EVALFILE is a network for the new side's `EvalFile`, or `-` for the one built in. The
# old side plays with its built-in networks. GAMES is rounded up to an even number.
set -euo pipefail
cutechess=${1:?cutechess-cli}
variant=${2:?variant}
tc=${3:?time control}
games=${4:?number of games}
pgn=${5:?PGN output}
new=${6:?new binary}
evalfile=${7:?network file or -}
old=${8:?old binary}
here=$(cd "$(dirname "$0")" && pwd)
openings="$here/../../../shared/openings/dev.epd"
rounds=$(( (games + 1) / 2 ))
extra=()
if [ "$evalfile" != "-" ]; then
  extra=(option.EvalFile="$evalfile")
fi
exec "$cutechess" -variant "$variant" \
  -engine name=new cmd="$new" "${extra[@]}" \
  -engine name=old cmd="$old" \
  -each proto=uci tc="$tc" option.Hash=64 \
  -openings file="$openings" format=epd order=random \
  -repeat -games 2 -rounds "$rounds" -concurrency 2 \
  -draw movenumber=30 movecount=10 score=0 \
  -pgnout "$pgn"
