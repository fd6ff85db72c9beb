"""`damas moves`, `damas perft`, `damas show` and `damas bench rules`."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

from damas.rules import DamasError, Position, perft, variant


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
    p.add_argument("--python", action="store_true",
                   help="count with the pure-Python rules (the reference) even when the "
                        "native core is built")
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


def perft_counter(python: bool = False) -> tuple[str, Callable[[Position, int], int]]:
    """The native core's perft when it is built (and not refused), else damas.rules'."""
    if not python:
        from damas.engine import native

        if native.available():
            return "native", native.perft
    return "python", perft


def run_perft(args) -> int:
    if args.depth < 0:
        raise DamasError("perft depth must be 0 or more")
    if args.depth > 64:
        raise DamasError("perft depth must be 64 or less")
    pos = position_from(args)
    core, count = perft_counter(args.python)
    start = time.perf_counter()
    counts = None
    if args.divide and args.depth > 0:
        counts = {pos.notation(m): count(pos.after(m), args.depth - 1)
                  for m in pos.legal_moves()}
    nodes = sum(counts.values()) if counts is not None else count(pos, args.depth)
    seconds = time.perf_counter() - start
    if args.json:
        out = {"depth": args.depth, "nodes": nodes, "seconds": round(seconds, 4), "core": core}
        if counts is not None:
            out["divide"] = counts
        print(json.dumps(out))
    else:
        for notation, n in (counts or {}).items():
            print(f"{notation:>12} {n}")
        print(f"perft({args.depth}) = {nodes} in {seconds:.3f} s ({core})")
    return 0


def run_show(args) -> int:
    pos = position_from(args)
    print(pos.diagram())
    print(pos.fen())
    return 0


# --- benchmark ------------------------------------------------------------------------

def bench_rules(args) -> int:
    from damas.engine import nativebench
    from damas.progress import Progress
    from damas.rules import bench

    with Progress("bench rules", total=bench.STEPS + nativebench.STEPS, unit="count",
                  every=0) as progress:
        figures = bench.run(progress.update)
        figures["native"] = nativebench.run(progress.update)
    if args.json:
        print(json.dumps(figures))
        return 0
    ours, theirs = figures["international_perft7"], figures["pydraughts"]
    native, dame = figures["native"]["native"], figures["native"]["dame_rs"]
    print(f"international perft(7) from the start: {ours['nodes']:,} leaves")
    print(f"  {'damas.rules (Python)':<22} {ours['seconds']:8.3f} s "
          f"{ours['nodes_per_second']:>13,} leaves/s")
    print(f"  {'native core (C)':<22} {native[0]['seconds']:8.4f} s "
          f"{native[0]['nodes_per_second']:>13,} leaves/s (best of repeated runs)")
    if dame is None:
        print("  dame-rs is not installed: pip install dame-rs==0.2.0 (the test extra has it)")
    else:
        print(f"  {'dame-rs ' + dame['version'] + ' (Rust)':<22} {dame['seconds']:8.4f} s "
              f"{dame['nodes_per_second']:>13,} leaves/s (best of repeated runs); native "
              f"{native[0]['nodes_per_second'] / dame['nodes_per_second']:.1f}x")
    print(f"pydraughts 0.6.7 perft({theirs['depth']}), same run: {theirs['nodes']:,} leaves "
          f"in {theirs['seconds']:.3f} s = {theirs['nodes_per_second']:,.0f} leaves/s")
    print(f"ratio (damas.rules / pydraughts): {figures['ratio']:,.0f}x")
    print("damas.rules (Python):")
    for d in figures["deeper"]:
        print(f"{d['variant']:>13} {d['fen'][:12]:<12} perft({d['depth']:>2}) = "
              f"{d['nodes']:>13,} in {d['seconds']:7.3f} s ({d['nodes_per_second']:,}/s)")
    print("native core (C):")
    for d in native:
        print(f"{d['variant']:>13} {d['fen'][:12]:<12} perft({d['depth']:>2}) = "
              f"{d['nodes']:>13,} in {d['seconds']:7.3f} s ({d['nodes_per_second']:,}/s)")
    return 0


BENCHES = {"rules": bench_rules}
