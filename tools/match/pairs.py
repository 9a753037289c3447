#!/usr/bin/env python3
"""Game pairs of one engine in a cutechess-cli PGN: each opening played with both colours.

    tools/match/pairs.py GAMES.pgn [MORE.pgn ...] ENGINE

Groups the games by round and starting FEN (cutechess-cli's `-games 2 -repeat` plays an opening
with each colour in one round: that is a pair, and an opening drawn again in a later round makes
another pair) and prints the pentanomial counts of the engine's pair scores (0, 0.5, 1, 1.5 and 2
points of 2), the score with an interval from the pairs' spread (a pair is one sample, as fishtest
counts: the two games of an opening are not independent), and how many pairs went to the same
colour twice (White won both or Black won both). An opening that one colour wins whoever plays it
gives 1 point of 2 to each engine, so the share of such pairs caps what any engine can score on
the file; the score on the other pairs says how the engines compare where the opening left a choice.
Several files (runs of one match) are counted together, each file's rounds apart. Rounds of
other than two games (an unfinished match) are counted apart and left out.
Standard library only: a fresh machine has python3 but not python-chess.
"""
import math
import sys
from collections import defaultdict

import pgn


def points(result, engine_is_white):
    if result == "1/2-1/2":
        return 0.5
    if result not in ("1-0", "0-1"):
        return None
    return 1.0 if (result == "1-0") == engine_is_white else 0.0


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    paths, who = sys.argv[1:-1], sys.argv[-1]
    by_round = defaultdict(list)
    try:
        for file_index, path in enumerate(paths):
            for tags, _ in pgn.games(path):
                if who not in (tags.get("White"), tags.get("Black")):
                    continue
                result = tags.get("Result", "*")
                p = points(result, tags.get("White") == who)
                if p is None:
                    continue
                key = (file_index, tags.get("Round", "?"), tags.get("FEN", "startpos"))
                by_round[key].append((p, result))
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    pairs = [round_games for round_games in by_round.values() if len(round_games) == 2]
    unpaired = sum(len(round_games) for round_games in by_round.values() if len(round_games) != 2)
    if not pairs:
        print(f"error: no opening of {who} played with both colours", file=sys.stderr)
        sys.exit(2)
    penta = [0] * 5
    colour = 0
    for (p1, r1), (p2, r2) in pairs:
        penta[round((p1 + p2) * 2)] += 1
        if r1 == r2 and r1 != "1/2-1/2":
            colour += 1
    n = len(pairs)
    scores = [(p1 + p2) / 2 for (p1, _), (p2, _) in pairs]
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / max(n - 1, 1)
    half = 1.96 * math.sqrt(var / n)
    lo, hi = max(mean - half, 0.0), min(mean + half, 1.0)
    print(
        f"{who}: {n} pairs ({unpaired} games unpaired), pentanomial 0/0.5/1/1.5/2: "
        f"{' '.join(str(c) for c in penta)}; score {100 * mean:.1f}% "
        f"({100 * lo:.1f}-{100 * hi:.1f}%), {elo(mean):+.0f} Elo "
        f"({elo(lo):+.0f} to {elo(hi):+.0f})"
    )
    rest = n - colour
    cap = 100 * (1 - colour / n / 2)
    line = f"same colour won both games: {colour} of {n} pairs (cap {cap:.1f}%)"
    if rest:
        # Each pair the same colour won gave the engine exactly 1 point of 2.
        other_points = 2 * mean * n - colour
        line += f"; on the other {rest}: {100 * other_points / (2 * rest):.1f}%"
    print(line)


if __name__ == "__main__":
    main()
