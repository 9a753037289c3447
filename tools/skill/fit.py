#!/usr/bin/env python3
"""Each level's rating on Fairy-Stockfish's UCI_Elo scale, from tools/skill/gauntlet.sh's games.

    tools/skill/fit.py [DIR]     (default skill-games)

For every S<LEVEL>.pgn: the rating R that makes the level's results against FSF at its fixed
UCI_Elo settings most likely (logistic Elo model, a draw half a win), with one standard error
from the likelihood's curvature. Then the ratings made non-decreasing in the level (pooled
where a level measured below the one before it, weighted by games), rounded to tens and made
strictly increasing (10 apart within a pool): the table `ELO_OF_LEVEL` in src/engine/skill.rs.
"""
import glob
import math
import os
import re
import sys

directory = sys.argv[1] if len(sys.argv) > 1 else "skill-games"
GAME = re.compile(r'\[White "([^"]+)"\]\s*\[Black "([^"]+)"\]\s*\[Result "([^"]+)"\]')
SCORE = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def results(path):
    out = []
    for white, black, result in GAME.findall(open(path).read()):
        if result not in SCORE:
            continue
        mine = white.startswith("S")
        opponent = black if mine else white
        score = SCORE[result] if mine else 1 - SCORE[result]
        out.append((int(opponent[3:]), score))
    return out


def log_likelihood(rating, games):
    total = 0.0
    for elo, score in games:
        p = 1 / (1 + 10 ** ((elo - rating) / 400))
        p = min(max(p, 1e-9), 1 - 1e-9)
        total += score * math.log(p) + (1 - score) * math.log(1 - p)
    return total


rows = []
for path in glob.glob(os.path.join(directory, "S*.pgn")):
    level = int(re.findall(r"S(\d+)\.pgn$", path)[0])
    games = results(path)
    if not games:
        continue
    best = max(range(-500, 4000, 5), key=lambda r: log_likelihood(r, games))
    h = 5
    curve = (log_likelihood(best + h, games) - 2 * log_likelihood(best, games)
             + log_likelihood(best - h, games)) / h / h
    error = math.sqrt(-1 / curve) if curve < 0 else float("nan")
    per = {}
    for elo, score in games:
        per.setdefault(elo, []).append(score)
    detail = ", ".join(f"{e}: {sum(s):g}/{len(s)}" for e, s in sorted(per.items()))
    rows.append([level, best, error, len(games), detail])
rows.sort()

# Pool adjacent violators: a non-decreasing fit weighted by games.
blocks = [[r[1] * r[3], r[3], [r[0]]] for r in rows]
i = 0
while i < len(blocks) - 1:
    if blocks[i][0] / blocks[i][1] > blocks[i + 1][0] / blocks[i + 1][1]:
        a, b = blocks[i], blocks.pop(i + 1)
        blocks[i] = [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
        i = max(i - 1, 0)
    else:
        i += 1
monotone = {lvl: round(b[0] / b[1]) for b in blocks for lvl in b[2]}
# Rounded to tens, and strictly increasing (a pooled level 10 above the one before it), so that
# UCI_Elo names one level.
table = {}
previous = None
for level in sorted(monotone):
    value = round(monotone[level], -1)
    if previous is not None and value <= previous:
        value = previous + 10
    table[level] = previous = value

print("| level | games | results (FSF UCI_Elo: points/games) | measured | table |")
print("|---|---|---|---|---|")
for level, best, error, n, detail in rows:
    print(f"| {level} | {n} | {detail} | {best} ± {error:.0f} | {table[level]:.0f} |")
