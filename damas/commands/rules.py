"""`damas moves`, `damas perft`, `damas show` and `damas bench rules`."""

from __future__ import annotations

import json
import time
from typing import Any

from damas.rules import DamasError, Position, divide, perft, variant


def add_position_args(parser) -> None:
    parser.add_argument("--variant", default="international",
                        help="international (default), brazilian or english")
    parser.add_argument("--fen", help="the position (default: the start position)")


def position_from(args) -> Position:
    v = variant(args.variant)
    return Position.from_fen(args.fen, v) if args.fen else Position.start(v)


def register(sub) -> None:
    p = sub.add_parser("moves", help="list the legal moves of a position")
    add_position_args(p)
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run_moves)

    p = sub.add_parser("perft", help="count the leaves of the legal-move tree")
    add_position_args(p)
    p.add_argument("depth", type=int)
    p.add_argument("--divide", action="store_true", help="count below each move")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run_perft)

    p = sub.add_parser("show", help="print a position as a diagram with square numbers")
    add_position_args(p)
    p.set_defaults(run=run_show)


def run_moves(args) -> int:
    pos = position_from(args)
    moves = pos.legal_moves()
    if args.json:
        print(json.dumps([{"notation": pos.notation(m), "from": m.start, "to": m.end,
                           "path": list(m.path), "captured": list(m.captured)}
                          for m in moves]))
    else:
        for m in moves:
            print(pos.notation(m))
    return 0


def run_perft(args) -> int:
    if args.depth < 0:
        raise DamasError("perft depth must be 0 or more")
    pos = position_from(args)
    start = time.perf_counter()
    counts = divide(pos, args.depth) if args.divide and args.depth > 0 else None
    nodes = sum(counts.values()) if counts is not None else perft(pos, args.depth)
    seconds = time.perf_counter() - start
    if args.json:
        out = {"depth": args.depth, "nodes": nodes, "seconds": round(seconds, 4)}
        if counts is not None:
            out["divide"] = counts
        print(json.dumps(out))
    else:
        for notation, n in (counts or {}).items():
            print(f"{notation:>12} {n}")
        print(f"perft({args.depth}) = {nodes} in {seconds:.3f} s")
    return 0


def run_show(args) -> int:
    pos = position_from(args)
    print(pos.diagram())
    print(pos.fen())
    return 0


# --- benchmark ------------------------------------------------------------------------

WOLDOUBY = "W:B12,13,14,16,18,19,21,23,24,26:W25,27,28,30,32,33,34,35,37,38"
DEEPER = (("international", None, 8), ("brazilian", None, 9), ("english", None, 9),
          ("international", WOLDOUBY, 11))


def _timed_perft(pos: Position, depth: int) -> tuple[int, float]:
    start = time.perf_counter()
    nodes = perft(pos, depth)
    return nodes, time.perf_counter() - start


def _pydraughts_perft(depth: int) -> tuple[int, float]:
    """The same count with pydraughts (duplicate capture paths merged)."""
    try:
        from draughts import Board
    except ImportError:
        raise DamasError("the comparison needs pydraughts 0.6.7: "
                         ".venv/bin/pip install pydraughts==0.6.7 (make test installs it)"
                         ) from None

    def count(board, d):
        moves = {}
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


def bench_rules(args) -> int:
    from damas.progress import Progress

    start = Position.start("international")
    with Progress("bench rules", total=2 + len(DEEPER), unit="count", every=0) as progress:
        progress.update(0, "next: international perft(7)")
        perft(start, 5)  # warm the caches of the layout and rules tables
        nodes, seconds = _timed_perft(start, 7)
        ours = nodes / seconds
        ref_depth = 4
        progress.update(1, f"next: pydraughts perft({ref_depth})")
        ref_nodes, ref_seconds = _pydraughts_perft(ref_depth)
        if ref_nodes != perft(start, ref_depth):
            raise DamasError(f"pydraughts counts {ref_nodes} at depth {ref_depth}: they "
                             "disagree")
        theirs = ref_nodes / ref_seconds
        deeper: list[dict[str, Any]] = []
        for name, fen, depth in DEEPER:
            progress.update(1, f"next: {name} perft({depth})")
            pos = Position.from_fen(fen, name) if fen else Position.start(name)
            n, s = _timed_perft(pos, depth)
            deeper.append({"variant": name, "fen": fen or "start", "depth": depth,
                           "nodes": n, "seconds": round(s, 3),
                           "nodes_per_second": round(n / s)})
        progress.update(1, "done")
    figures = {
        "international_perft7": {"nodes": nodes, "seconds": round(seconds, 3),
                                 "nodes_per_second": round(ours)},
        "pydraughts": {"version": "0.6.7", "depth": ref_depth, "nodes": ref_nodes,
                       "seconds": round(ref_seconds, 3), "nodes_per_second": round(theirs)},
        "ratio": round(ours / theirs),
        "deeper": deeper,
    }
    if args.json:
        print(json.dumps(figures))
        return 0
    print(f"international perft(7) from the start: {nodes:,} leaves in {seconds:.3f} s "
          f"= {ours:,.0f} leaves/s")
    print(f"pydraughts 0.6.7 perft({ref_depth}), same run: {ref_nodes:,} leaves in "
          f"{ref_seconds:.3f} s = {theirs:,.0f} leaves/s")
    print(f"ratio: {ours / theirs:,.0f}x")
    for d in deeper:
        print(f"{d['variant']:>13} {d['fen'][:12]:<12} perft({d['depth']:>2}) = "
              f"{d['nodes']:>13,} in {d['seconds']:7.3f} s ({d['nodes_per_second']:,}/s)")
    return 0


BENCHES = {"rules": bench_rules}
