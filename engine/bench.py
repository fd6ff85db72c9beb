"""`damas bench engine`: the search's speed in nodes per second and the depth it reaches in
one second, from ten middle-game positions of each variant, each searched by a fresh
engine (an empty table).

The positions were reached by the engine itself (seeded noisy play, 12-40 plies in, no
capture pending, no kings, material level within a man) and are kept here as FENs, so the
figures are comparable between versions.
"""

from __future__ import annotations

import statistics
import time

from damas.rules import Position

from .builtin import BuiltinEngine
from .limits import Limit

MIDDLE_GAMES = {
    "international": (
        "W:W30,32,33,35,38-41,43,45-50:B2-10,12,14,15,18,20,23",
        "B:W24,27,30,37-39,41-43,45-50:B1-3,5,7-9,11-16,18,23",
        "B:W30,33-38,41,43,44,46-49:B1-5,8,10-12,14,15,19,22,23",
        "W:W27-29,33,36,38,41,42,45-50:B1,3-7,9,12,14-17,19,30",
        "W:W24,27,29,31,32,34,35,37,39,42-48,50:B1-3,5,6,8-16,18,25,26",
        "W:W27,31,32,35,38-40,45-50:B1-3,5-8,11,12,14,17,20,24",
        "B:W23,26,27,31,33,35,40-46,49,50:B1-3,5,6,8,10-13,15-17,20",
        "W:W27,28,30-33,35,36,38-40,45-47,49,50:B1,3-5,9-13,15-17,19,20,23,24",
        "B:W22,25,27,31,32,35,37-39,41-44,46-49:B1,3-8,10-16,18,21,23",
        "W:W28,31-33,35-39,43,45-47,49,50:B1,3-6,8,10-12,14,16,17,22,24,26",
    ),
    "brazilian": (
        "W:Wc1,e1,g1,d2,f2,h2,a3,c3,h4,c5:Bf4,e5,d6,f6,a7,e7,g7,b8,f8,h8",
        "W:Wa1,c1,e1,g1,b2,h2,a3,g3,b4,d6:Bc5,g5,b6,e7,g7,b8,d8,f8,h8",
        "B:Wc1,e1,g1,b2,f2,h2,a3,f4,a5:Bd4,f6,h6,a7,c7,e7,d8,f8,h8",
        "B:Wa1,e1,b2,d2,f2,a3,c3,g3:Bh4,b6,f6,h6,c7,b8,f8,h8",
        "B:We1,g1,b2,h2,a3,c3,g3,a5:Bc5,d6,h6,a7,c7,g7,b8,d8,h8",
        "W:We1,g1,b2,d2,f2,h2,c5:Ba5,g5,f6,h6,c7,e7,b8",
        "B:Wa1,e1,g1,h2,a3,e3,g3:Bc5,g5,c7,e7,d8,f8,h8",
        "B:Wc1,e1,b2,d2,h2,a3,c3,e3,g3,f4,h4:Ba5,c5,g5,d6,f6,h6,a7,c7,g7,d8,h8",
        "B:Wc1,g1,d2,f2,h2,a3,c3,e3,f4:Bh4,a5,c5,g5,f6,h6,b8,d8,h8",
        "B:Wa1,c1,g1,d2,a3,c3,e3,b4,f4:Ba5,b6,f6,h6,c7,g7,b8,f8,h8",
    ),
    "english": (
        "B:W14,17,21,22,24,26-29,31,32:B1,3-5,7,10-13,15,19",
        "B:W14,20,22,25-29,31,32:B2-8,11,15,19",
        "W:W5,25,28-32:B1-4,8,11,21",
        "W:W18,19,21,28-32:B1,3,4,6,7,9,11,12,23",
        "W:W12,21,23-29:B1-4,11,13-15,17",
        "W:W18,19,21,23,26,28-30,32:B1-4,7,9,11,14,20",
        "W:W20-23,25,29,31,32:B1-3,8,9,12,14,15",
        "W:W18,19,21-23,25,30,32:B2,4-6,9,12-14",
        "W:W17,20-22,24,25,30-32:B1-3,5,10-12,14,23",
        "W:W21,25-29,31,32:B1-6,12,18,20",
    ),
}


def run_bench(movetime: float = 1.0, variants=tuple(MIDDLE_GAMES)) -> dict:
    """Per variant: each position searched `movetime` seconds by a fresh engine (depth,
    nodes, nodes/s), and the totals."""
    out = {}
    for variant in variants:
        rows = []
        for fen in MIDDLE_GAMES[variant]:
            pos = Position.from_fen(fen, variant)
            started = time.perf_counter()
            result = BuiltinEngine(variant).play(pos, Limit(movetime=movetime))
            seconds = time.perf_counter() - started
            assert result.info is not None  # the built-in engine always reports its search
            rows.append({"fen": fen, "depth": result.info.depth, "nodes": result.extra["nodes"],
                         "seconds": round(seconds, 3),
                         "nps": round(result.extra["nodes"] / max(seconds, 1e-9))})
        nodes = sum(r["nodes"] for r in rows)
        seconds = sum(r["seconds"] for r in rows)
        depths = [r["depth"] for r in rows]
        out[variant] = {"positions": rows, "movetime": movetime, "nps": round(nodes / seconds),
                        "depths": depths, "median_depth": statistics.median(depths)}
    return out
