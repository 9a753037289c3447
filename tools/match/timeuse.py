#!/usr/bin/env python3
"""Time use of one engine in a cutechess-cli PGN (move times from its `{score/depth time}` comments).

    tools/match/timeuse.py GAMES.pgn ENGINE BASE_SECONDS INCREMENT_SECONDS

Prints the games, the moves, the mean and longest time a move, the mean time a game, and the
clock left at the end of each game (base + increment a move - time used), mean and least; then
the clock left when the engine's own score first said the game was decided (a mate score or at
least 5.00 either way; the end for games never decided): a proven game is played out at once, so
the clock left at the end overstates what was left while the game was still open.
Standard library only: a fresh machine has python3 but not python-chess.
"""
import re
import sys

import pgn


def main():
    if len(sys.argv) != 5:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    path, who = sys.argv[1], sys.argv[2]
    try:
        base, inc = float(sys.argv[3]), float(sys.argv[4])
        played = pgn.games(path)
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    times, longest, left, per_game, at_decision = [], 0.0, [], [], []
    for tags, game in played:
        if who not in (tags.get("White"), tags.get("Black")) or "\n\n" not in game:
            continue
        fen = tags.get("FEN")
        first = "w" if not fen or len(fen.split()) < 2 else fen.split()[1]
        mover = tags["White"] if first == "w" else tags["Black"]
        body = game.split("\n\n", 1)[1]
        comments = re.findall(r"\{([^}]*?)([0-9.]+)s[,}]", body)
        ours = [c for i, c in enumerate(comments) if (i % 2 == 0) == (mover == who)]
        mine = [float(t) for _, t in ours]
        if not mine:
            continue
        used = 0.0
        for k, (head, t) in enumerate(ours):
            used += float(t)
            if decided(head):
                break
        at_decision.append(base + inc * (k + 1) - used)
        times += mine
        longest = max(longest, max(mine))
        per_game.append(sum(mine))
        left.append(base + inc * len(mine) - sum(mine))
    if not times:
        print(f"error: no timed moves of {who} in {path}", file=sys.stderr)
        sys.exit(2)
    print(
        f"{who}: {len(per_game)} games, {len(times)} moves, "
        f"mean {sum(times) / len(times):.3f} s a move, longest {longest:.2f} s, "
        f"mean {sum(per_game) / len(per_game):.1f} s a game, clock left at the end: "
        f"mean {sum(left) / len(left):.2f} s, least {min(left):.2f} s; "
        f"when decided: mean {sum(at_decision) / len(at_decision):.2f} s, "
        f"least {min(at_decision):.2f} s"
    )


def decided(head):
    """Whether a move's comment (`+1.17/13 `, `-M36/25 `) gives a mate or at least 5.00."""
    score = re.match(r"\s*([+-]?)(M?)([0-9.]+)/", head)
    if not score:
        return False
    return score.group(2) == "M" or float(score.group(3)) >= 5.0


if __name__ == "__main__":
    main()
