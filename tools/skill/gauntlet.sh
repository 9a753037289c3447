#!/bin/bash
# One level of Syotti against Fairy-Stockfish at fixed UCI_Elo settings (its limited strength),
# antichess, 3+0.03, dev openings with both colours, two games at a time.
#
#   tools/skill/gauntlet.sh LEVEL GAMES_PER_OPPONENT ELO...
#
# Environment: SYOTTI (default target/release/syotti), FSF (Fairy-Stockfish), CUTECHESS
# (cutechess-cli), OPENINGS (default ../shared/openings/dev.epd), OUT (default skill-games).
# Games are appended to $OUT/S<LEVEL>.pgn; tools/skill/fit.py reads them.
set -euo pipefail
level=$1 games=$2
shift 2
syotti=${SYOTTI:-target/release/syotti}
fsf=${FSF:?set FSF to a Fairy-Stockfish binary (../shared/PEERS.md)}
cutechess=${CUTECHESS:?set CUTECHESS to cutechess-cli}
openings=${OPENINGS:-../shared/openings/dev.epd}
out=${OUT:-skill-games}
mkdir -p "$out"
opponents=()
for elo in "$@"; do
    opponents+=(-engine "name=FSF$elo" "cmd=$fsf" proto=uci option.UCI_LimitStrength=true "option.UCI_Elo=$elo")
done
"$cutechess" -variant antichess -tournament gauntlet \
    -engine "name=S$level" "cmd=$syotti" proto=uci "option.Skill Level=$level" \
    "${opponents[@]}" -each tc=3+0.03 option.Hash=16 \
    -openings "file=$openings" format=epd order=random -repeat -games 2 -rounds $((games / 2)) \
    -concurrency 2 -recover -pgnout "$out/S$level.pgn"
