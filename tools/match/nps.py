#!/usr/bin/env python3
"""Nodes a second of UCI engines side by side, as the README's "Strength" section reports them.

    tools/match/nps.py VARIANT MILLISECONDS EPD_FILE COUNT ENGINE [ENGINE ...]

For the start position and the first COUNT positions of EPD_FILE, each engine in turn (one at a
time, so each has the machine to itself) gets `Threads 1`, `Hash 256`, `UCI_Variant VARIANT`, then
`go movetime MILLISECONDS`; its last `info` line with nodes gives the depth and nodes a second.
Prints one line per position and engine. Standard library only.
"""
import subprocess
import sys

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"


def last_info(engine, variant, fen, millis):
    """Runs one search and returns (depth, nodes, nps) from its last info line with nodes."""
    proc = subprocess.Popen(
        [engine],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    commands = [
        "uci",
        "setoption name Threads value 1",
        "setoption name Hash value 256",
        f"setoption name UCI_Variant value {variant}",
        "isready",
        "ucinewgame",
        f"position fen {fen}",
        f"go movetime {millis}",
    ]
    proc.stdin.write("\n".join(commands) + "\n")
    proc.stdin.flush()
    found = None
    for line in proc.stdout:
        words = line.split()
        if words[:1] == ["info"] and "nodes" in words and "nps" in words:
            def after(key):
                return int(words[words.index(key) + 1])

            found = (after("depth") if "depth" in words else 0, after("nodes"), after("nps"))
        if words[:1] == ["bestmove"]:
            break
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait(timeout=10)
    return found


def main():
    if len(sys.argv) < 6:
        print(__doc__.strip(), file=sys.stderr)
        sys.exit(2)
    variant, millis, epd, count, *engines = sys.argv[1:]
    try:
        millis, count = int(millis), int(count)
        lines = [l.split() for l in open(epd, encoding="utf-8") if l.strip()]
    except (OSError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        sys.exit(2)
    fens = [START] + [" ".join(l[:4]) + " 0 1" for l in lines[:count]]
    for fen in fens:
        for engine in engines:
            found = last_info(engine, variant, fen, millis)
            if found is None:
                print(f"{engine}: no info line with nodes for {fen}", file=sys.stderr)
                continue
            depth, nodes, nps = found
            print(f"{fen} | {engine} | depth {depth} | {nodes} nodes | {nps} nps")


if __name__ == "__main__":
    main()
