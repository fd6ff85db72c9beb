"""`damas bench engine`: nodes per second and time to depth on fixed positions of each
variant, and the depth the search reaches in one second.

The positions are the start and two middle games reached by the engine itself (kept here
as FEN so the figures are comparable between versions).
"""

from __future__ import annotations

import time

from damas.rules import Position

from .builtin import BuiltinEngine
from .limits import Info, Limit

POSITIONS = {
    "international": (None, "W:W27,28,30-33,35,37-43,45-50:B1-6,8-11,13-19,21,23,24",
                      "W:W28,30,32-40,42-44,46-49:B2-5,7-10,13,14,16,17,19-21,23,24,26"),
    "brazilian": (None, "W:W18,21-25,29-32:B1-4,6,8,9,12,14,16",
                  "W:W18,21-25,31,32:B1,4,6,10-13,16"),
    "english": (None, "B:W13,24,26-32:B1-5,7,11,12,16", "B:W13,17,18,21,28,30-32:B1,3-6,10,16,20"),
}
FIXED_DEPTH = {"international": 9, "brazilian": 11, "english": 11}


def _position(variant: str, fen: str | None) -> Position:
    return Position.from_fen(fen, variant) if fen else Position.start(variant)


def run_bench(movetime: float = 1.0, variants=tuple(POSITIONS)) -> dict:
    """Per variant: fixed-depth searches (nodes, seconds, nodes/s, seconds to each depth)
    and one-second searches (depth reached), each from a fresh engine."""
    out = {}
    for variant in variants:
        fixed, timed = [], []
        for fen in POSITIONS[variant]:
            pos = _position(variant, fen)
            engine = BuiltinEngine(variant)
            to_depth: dict[int, float] = {}
            started = time.perf_counter()

            def note(info: Info, reached: dict[int, float] = to_depth) -> None:
                reached[info.depth] = info.seconds

            result = engine.play(pos, Limit(depth=FIXED_DEPTH[variant]), on_info=note)
            seconds = time.perf_counter() - started
            nodes = result.extra["nodes"]
            fixed.append({"fen": pos.fen(), "depth": FIXED_DEPTH[variant], "nodes": nodes,
                          "seconds": round(seconds, 3), "nps": round(nodes / seconds),
                          "seconds_to_depth": {d: round(s, 3) for d, s in to_depth.items()}})
            engine = BuiltinEngine(variant)
            result = engine.play(pos, Limit(movetime=movetime))
            assert result.info is not None  # the built-in engine always reports its search
            timed.append({"fen": pos.fen(), "movetime": movetime, "depth": result.info.depth,
                          "nodes": result.extra["nodes"],
                          "nps": round(result.extra["nodes"] / result.extra["seconds"])})
        total_nodes = sum(f["nodes"] for f in fixed)
        total_seconds = sum(f["seconds"] for f in fixed)
        out[variant] = {"fixed_depth": fixed, "one_second": timed,
                        "nps": round(total_nodes / total_seconds),
                        "depth_in_one_second": [t["depth"] for t in timed]}
    return out
