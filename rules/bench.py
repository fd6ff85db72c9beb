"""`damas bench rules`: perft speed from fixed positions of each variant, against
pydraughts 0.6.7 on the same run (which must count the same leaves).

pydraughts is imported only inside `pydraughts_perft`: the rules core needs nothing but
Python at import.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from .errors import DamasError
from .perft import perft
from .position import Position

WOLDOUBY = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
DEEPER = (("international", None, 8), ("brazilian", None, 9), ("english", None, 9),
          ("international", WOLDOUBY, 11))
REFERENCE_DEPTH = 4  # pydraughts is slow: a depth it counts in seconds
STEPS = 2 + len(DEEPER)  # what `run` reports to `progress`


def timed_perft(pos: Position, depth: int) -> tuple[int, float]:
    start = time.perf_counter()
    nodes = perft(pos, depth)
    return nodes, time.perf_counter() - start


def pydraughts_perft(depth: int) -> tuple[int, float]:
    """The same count from the international start with pydraughts (duplicate capture
    paths merged, as ours counts them)."""
    try:
        from draughts import Board
    except ImportError:
        raise DamasError("the comparison needs pydraughts 0.6.7: "
                         ".venv/bin/pip install pydraughts==0.6.7 (make test installs it)"
                         ) from None

    def count(board: Any, d: int) -> int:
        moves: dict[tuple[Any, ...], Any] = {}
        for m in board.legal_moves():
            moves.setdefault((m.steps_move[0], m.steps_move[-1], frozenset(m.captures)), m)
        if d == 1:
            return len(moves)
        n = 0
        for m in moves.values():
            board.push(m)
            n += count(board, d - 1)
            board.pop()
        return n

    board = Board(variant="standard", fen="startpos")
    start = time.perf_counter()
    nodes = count(board, depth)
    return nodes, time.perf_counter() - start


def run(progress: Callable[[int, str], None] = lambda steps, note: None) -> dict[str, Any]:
    """The figures `damas bench rules --json` prints. `progress(steps, note)` is told of
    each of the `STEPS` counts as it ends, with what comes next."""
    start = Position.start("international")
    progress(0, "next: international perft(7)")
    perft(start, 5)  # warm the caches of the layout and rules tables
    nodes, seconds = timed_perft(start, 7)
    ours = nodes / seconds
    progress(1, f"next: pydraughts perft({REFERENCE_DEPTH})")
    ref_nodes, ref_seconds = pydraughts_perft(REFERENCE_DEPTH)
    if ref_nodes != perft(start, REFERENCE_DEPTH):
        raise DamasError(f"pydraughts counts {ref_nodes} at depth {REFERENCE_DEPTH}: they "
                         "disagree")
    theirs = ref_nodes / ref_seconds
    deeper: list[dict[str, Any]] = []
    for name, fen, depth in DEEPER:
        progress(1, f"next: {name} perft({depth})")
        pos = Position.from_fen(fen, name) if fen else Position.start(name)
        n, s = timed_perft(pos, depth)
        deeper.append({"variant": name, "fen": fen or "start", "depth": depth,
                       "nodes": n, "seconds": round(s, 3),
                       "nodes_per_second": round(n / s)})
    progress(1, "done")
    return {
        "international_perft7": {"nodes": nodes, "seconds": round(seconds, 3),
                                 "nodes_per_second": round(ours)},
        "pydraughts": {"version": "0.6.7", "depth": REFERENCE_DEPTH, "nodes": ref_nodes,
                       "seconds": round(ref_seconds, 3), "nodes_per_second": round(theirs)},
        "ratio": round(ours / theirs),
        "deeper": deeper,
    }
