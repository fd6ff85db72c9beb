"""`damas moves`, `damas perft`, `damas show` and `damas bench rules`."""

from __future__ import annotations

import json
import time

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

def bench_rules(args) -> int:
    from damas.progress import Progress
    from damas.rules import bench

    with Progress("bench rules", total=bench.STEPS, unit="count", every=0) as progress:
        figures = bench.run(progress.update)
    if args.json:
        print(json.dumps(figures))
        return 0
    ours, theirs = figures["international_perft7"], figures["pydraughts"]
    print(f"international perft(7) from the start: {ours['nodes']:,} leaves in "
          f"{ours['seconds']:.3f} s = {ours['nodes_per_second']:,.0f} leaves/s")
    print(f"pydraughts 0.6.7 perft({theirs['depth']}), same run: {theirs['nodes']:,} leaves "
          f"in {theirs['seconds']:.3f} s = {theirs['nodes_per_second']:,.0f} leaves/s")
    print(f"ratio: {figures['ratio']:,.0f}x")
    for d in figures["deeper"]:
        print(f"{d['variant']:>13} {d['fen'][:12]:<12} perft({d['depth']:>2}) = "
              f"{d['nodes']:>13,} in {d['seconds']:7.3f} s ({d['nodes_per_second']:,}/s)")
    return 0


BENCHES = {"rules": bench_rules}
