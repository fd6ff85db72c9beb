"""The older Hub dialect, "Hub-1", spoken by Scan 2.0 (`scan hub`); Scan 3.x calls its
newer one Hub-2 (`hubwire.py`). `HubEngine` tells them apart by the handshake: to `hub` a
Hub-2 engine answers `id name=…` and `param …`, a Hub-1 engine `name Scan 2.0`,
`author …`, `country …`; both end with `wait`, and both answer `init` with `ready`.

Hub-1, as Scan 2.0 reads it (international draughts only, 50 squares):

    new                         a new game
    pos w<50 squares>           the position; side in lower case, squares as Hub-2
    move 28x19x23               a move played there, in the Hub form
    level <moves> <ms> <inc ms> a clock; or `time <ms>` a move time; or `depth <n>`
    go                          think: `info …` lines, then `move <move> [<ponder>]`

`pos` resets the time limit, so the limit comes after the moves. Scan 2.0 leaves its own
move on its board after a book move, so the whole game is sent before every `go`.
Any line sent while it thinks stops the search (it echoes `input "…"`).

>>> limit_line(Limit(movetime=0.25))
'time 250'
>>> limit_line(Limit(time=59.5, inc=1, moves_to_go=20))
'level 20 59500 1000'
>>> info = parse_info("info 12 14.2 -3 215438 0.02 13.6 32-28 19-23",
...                   Position.start("international"))
>>> info.depth, info.score, info.nodes, info.pv_text
(12, -3, 215438, ('32-28', '19-23'))
"""

from __future__ import annotations

from damas.rules import Color, Game, Position

from .errors import EngineProtocolError
from .hubwire import info_with_pv, number
from .limits import Info, Limit


def position_lines(game: Game) -> list[str]:
    start = game.start
    pieces = start.pieces()
    board = "".join(pieces.get(sq, "e") for sq in range(1, start.variant.squares + 1))
    side = "w" if start.turn == Color.WHITE else "b"
    return [f"pos {side}{board}"] + [f"move {m.hub}" for m in game.moves]


def limit_line(limit: Limit) -> str:
    if limit.time is not None:
        return f"level {limit.moves_to_go or 0} {_ms(limit.time)} {_ms(limit.inc)}"
    if limit.movetime is not None:
        return f"time {_ms(limit.movetime)}"
    if limit.depth is not None:
        return f"depth {limit.depth}"
    if limit.nodes is not None:
        raise EngineProtocolError("a Hub-1 engine takes a move time, a clock or a depth, "
                                  "not a number of nodes")
    return "time 1000"


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))


def parse_info(text: str, position: Position) -> Info | None:
    """`info <depth> <mean ply> <score, 1/100 man> <nodes> <seconds> <Mnps> <pv…>`; None
    when the numbers are not numbers (it is only information)."""
    words = text.split()
    if len(words) < 7:
        return None
    try:
        depth = int(number(words[1], "depth", 0, 10 ** 4, integer=True))
        score = round(number(words[3], "score", -10 ** 6, 10 ** 6))
        nodes = int(number(words[4], "nodes", 0, 10 ** 18, integer=True))
        seconds = number(words[5], "time", 0, 10 ** 7)
    except EngineProtocolError:
        return None
    return info_with_pv(depth, score, nodes, seconds, words[7:], position)


def parse_answer(text: str) -> tuple[str, str | None] | None:
    """(move, ponder) of a `move <move> [<ponder>]` line, else None."""
    words = text.split()
    if not words or words[0] != "move" or len(words) not in (2, 3):
        return None
    return words[1], (words[2] if len(words) == 3 else None)
