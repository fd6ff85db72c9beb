"""Figures of the native core for `damas bench rules` and `damas bench native`.

Perft speed of the native core from fixed positions, and dame-rs 0.2.0 (a Rust draughts
library with Python bindings, international only; a test-only dependency, imported only
inside `dame_rs_perft`) from the international start on the same run, counting the same
leaves. `damas bench native` compares the native core's moves with damas.rules on random
positions (`nativecheck.compare`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from importlib import metadata
from typing import Any

from damas.rules import DamasError, Position
from damas.rules.bench import WOLDOUBY

from . import native

# (variant, FEN or None for the start, depth): each about 0.1 to 1 s on this machine
CASES = (("international", None, 7), ("international", None, 9), ("brazilian", None, 11),
         ("english", None, 11), ("international", WOLDOUBY, 13))
SIDE_BY_SIDE_DEPTH = 7  # the international count the three generators make
MIN_SECONDS = 0.3  # a count is repeated until this much time is spent; the best run counts
STEPS = len(CASES) + 1


def best_time(count: Callable[[], int], min_seconds: float = MIN_SECONDS,
              most: int = 20) -> tuple[int, float]:
    """(leaves, seconds of the fastest run), repeated up to `most` times until
    `min_seconds` have gone: short counts are timed more than once."""
    spent, best, nodes = 0.0, float("inf"), 0
    for _ in range(most):
        start = time.perf_counter()
        nodes = count()
        seconds = time.perf_counter() - start
        spent += seconds
        best = min(best, seconds)
        if spent >= min_seconds:
            break
    return nodes, best


def row(nodes: int, seconds: float, **more: Any) -> dict[str, Any]:
    return {**more, "nodes": nodes, "seconds": round(seconds, 4),
            "nodes_per_second": round(nodes / seconds)}


def dame_rs_perft(depth: int = SIDE_BY_SIDE_DEPTH) -> dict[str, Any] | None:
    """dame-rs's perft from the international start, or None when it is not installed
    (`pip install dame-rs==0.2.0`; the test extra has it)."""
    try:
        import dame
    except ImportError:
        return None
    board = dame.Board()
    nodes, seconds = best_time(lambda: int(dame.perft(board, depth)))
    return row(nodes, seconds, version=metadata.version("dame-rs"), depth=depth)


def run(progress: Callable[[int, str], None] = lambda steps, note: None) -> dict[str, Any]:
    """Native perft over CASES, and dame-rs beside it."""
    if not native.available():
        raise DamasError("the native core is not built: pip install -e . builds it (it needs "
                         "gcc and Python's headers; Debian: apt install gcc python3-dev)")
    rows = []
    for name, fen, depth in CASES:
        progress(0, f"next: native {name} perft({depth})")
        pos = Position.from_fen(fen, name) if fen else Position.start(name)
        native.perft(pos, min(depth, 5))  # warm: tables, caches
        nodes, seconds = best_time(partial(native.perft, pos, depth))
        rows.append(row(nodes, seconds, variant=name, fen=fen or "start", depth=depth))
        progress(1, "")
    progress(0, f"next: dame-rs perft({SIDE_BY_SIDE_DEPTH})")
    dame = dame_rs_perft()
    progress(1, "done")
    if dame is not None and dame["nodes"] != rows[0]["nodes"]:
        raise DamasError(f"dame-rs counts {dame['nodes']} at depth {SIDE_BY_SIDE_DEPTH}, the "
                         f"native core {rows[0]['nodes']}: they disagree")
    return {"native": rows, "dame_rs": dame}
