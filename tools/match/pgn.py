"""Reading cutechess-cli's PGN files, shared by the scripts of tools/match (standard library only).

`games(path)` gives each game of the file as (tags, text): its tag pairs as a dict and the game's
text from its `[Event` tag on (tags, then the moves after a blank line). Raises OSError as
`open` does.
"""
import re

TAG = re.compile(r'\[(\w+) "([^"]*)"\]')


def games(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return [(dict(TAG.findall(game)), game) for game in text.split("[Event ")[1:]]
