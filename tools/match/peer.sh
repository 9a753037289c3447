#!/bin/bash
# Syotti against a peer engine, as the README's "Strength" section measures it: colours swapped
# per opening, openings in random order, Hash 256 each, one thread each, two games at a time (one
# core each), a draw adjudicated after move 30 when both say 0.00 for ten moves, `-recover` (a
# crashed engine is restarted and the game counted as its loss). Run nothing else beside it.
#
#   tools/match/peer.sh SYOTTI_BINARY PEER_BINARY CUTECHESS_CLI VARIANT OPENINGS TC GAMES PGN_OUT
#
# VARIANT is cutechess-cli's (antichess or suicide); TC as cutechess-cli takes it (10+0.1,
# 60+0.6); GAMES is rounded up to an even number. The peer speaks UCI (Fairy-Stockfish; for
# Nakshatra, which speaks xboard only, see the README's "cutechess-cli"). Use a cutechess-cli with
# the ghost-king fix (README, "cutechess-cli"). `tools/match/timeuse.py` reads the PGN's times.
set -euo pipefail
bin=${1:?syotti binary}
peer=${2:?peer binary}
cutechess=${3:?cutechess-cli}
variant=${4:?variant}
openings=${5:?opening file (EPD)}
tc=${6:?time control}
games=${7:?number of games}
pgn=${8:?PGN output}
rounds=$(( (games + 1) / 2 ))
exec "$cutechess" -variant "$variant" \
  -engine name=syotti cmd="$bin" \
  -engine name=peer cmd="$peer" \
  -each proto=uci tc="$tc" option.Hash=256 \
  -openings file="$openings" format=epd order=random \
  -repeat -games 2 -rounds "$rounds" -concurrency 2 -recover \
  -draw movenumber=30 movecount=10 score=0 \
  -pgnout "$pgn"
