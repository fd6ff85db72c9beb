"""`damas track` (observations in, one JSON event per line out) and `damas bench tracker`."""

from __future__ import annotations

import json
import random
import statistics
import sys
import time

from damas.pdnfile import read_pdn_file
from damas.rules import DamasError, Game, variant
from damas.rules.tracker import Tracker
from damas.rules.tracker.board import Observation, ObservationError
from damas.rules.tracker.format import Commit, read_lines
from damas.sim.person import move_steps


def register(sub) -> None:
    p = sub.add_parser("track", help="turn board observations into moves and irregularities",
                       description="Reads observations (one per line: optional t=SECONDS, "
                       "then one of e w b W B ? per square in Manoury order; 'commit' is a "
                       "clock press; # starts a comment) and prints one JSON event per line.")
    p.add_argument("--variant", default="international",
                   help="international (default), brazilian or english")
    p.add_argument("--fen", help="the position play starts from (default: the start)")
    p.add_argument("--resume", metavar="PDN", help="resume the last game of this PDN file")
    p.add_argument("--policy", choices=("robot", "tournament"), default="robot",
                   help="robot: demand correction and wait (default); tournament: flag "
                        "for the arbiter, accept when the opponent plays on")
    p.add_argument("--settle", type=float, default=1.0, metavar="SECONDS",
                   help="how long a board must stay unchanged before it counts (default 1)")
    p.add_argument("file", nargs="?", default="-", help="observation file (default: stdin)")
    p.set_defaults(run=run_track)


def _read_observations(path: str) -> list[str]:
    """The lines of the observation file (ASCII; UTF-8 is accepted)."""
    try:
        if path == "-":
            return sys.stdin.read().splitlines()
        with open(path, encoding="utf-8") as f:
            return f.read().splitlines()
    except OSError as e:
        raise DamasError(f"cannot read the observation file {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise DamasError(f"the observation file {path} is not text (byte {e.start + 1}: "
                         f"{e.object[e.start:e.start + 1]!r})") from None


def _tracker_from(args) -> Tracker:
    v = variant(args.variant)
    game = None
    if args.resume:
        if args.fen:
            raise DamasError("give --fen or --resume, not both")
        games = read_pdn_file(args.resume, v.name)
        if not games:
            raise DamasError(f"{args.resume} holds no game to resume")
        game = games[-1].game
    return Tracker(v, args.fen, game=game, policy=args.policy, settle=args.settle)


def run_track(args) -> int:
    tracker = _tracker_from(args)
    lines = _read_observations(args.file)
    for number, item in read_lines(lines, tracker.variant):
        try:
            if isinstance(item, Commit):
                events = tracker.commit(item.time)
            else:
                events = tracker.observe(item)
        except ObservationError as e:
            raise ObservationError(f"line {number}: {e}") from None
        _print(events)
    _print(tracker.flush())  # the last board stays as it is
    return 0


def _print(events) -> None:
    for e in events:
        print(json.dumps(e.to_dict(), ensure_ascii=False), flush=True)


# --- benchmark ------------------------------------------------------------------------

def _middle_games(rng: random.Random, count: int) -> list[Game]:
    """Random international games stopped between ply 20 and 50, still going."""
    games: list[Game] = []
    while len(games) < count:
        g = Game("international")
        for _ in range(rng.randrange(20, 50)):
            if g.outcome() is not None:
                break
            g.push(rng.choice(g.legal_moves()))
        if g.outcome() is None and len(g.position.pieces()) >= 20:
            games.append(g)
    return games


def _timed(tracker: Tracker, obs: Observation, out: list[float],
           cpu: list[float] | None = None) -> list:
    """Observe, adding the wall time (ms) to `out` and the CPU time to `cpu`: on a shared
    machine a wall time now and then includes another process's time slice."""
    start, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
    events = tracker.observe(obs)
    out.append((time.perf_counter_ns() - start) / 1e6)
    if cpu is not None:
        cpu.append((time.thread_time_ns() - start_cpu) / 1e6)
    return events


def bench_tracker(args) -> int:
    rng = random.Random(2024)
    v = variant("international")
    games = _middle_games(rng, 30)
    settle = 0.5
    ordinary: list[float] = []  # every observation of legal moves being made
    ordinary_cpu: list[float] = []
    irregular: list[float] = []  # observations whose settling names an irregularity
    moves_seen = 0
    for g in games:
        tracker = Tracker(game=g, settle=settle)
        t = 0.0
        tracker.observe(Observation.from_pieces(v, g.position.pieces(), t))
        t += settle
        tracker.tick(t)  # the resumed position is recognised
        for _ply in range(8):
            pos = tracker.position
            legal = pos.legal_moves()
            if not legal:
                break
            move = rng.choice(legal)
            order = list(move.captured)
            rng.shuffle(order)
            for board in move_steps(pos, move, order, remove_first=rng.random() < 0.3):
                t += 0.1
                _timed(tracker, Observation.from_pieces(v, board, t), ordinary, ordinary_cpu)
            t += settle
            events = _timed(tracker, Observation.from_pieces(v, board, t), ordinary,
                            ordinary_cpu)
            moves_seen += sum(e.kind == "move" for e in events)
        # one irregular board: a piece of the side to move stepped backwards or removed
        pieces = dict(tracker.position.pieces())
        pieces.pop(rng.choice(list(pieces)))
        t += 0.1
        tracker.observe(Observation.from_pieces(v, pieces, t))
        t += settle
        _timed(tracker, Observation.from_pieces(v, pieces, t), irregular)
    if moves_seen == 0:
        raise DamasError("the bench saw no move: the tracker is broken")
    figures = {
        "positions": len(games),
        "observations": len(ordinary),
        "moves_seen": moves_seen,
        "median_ms": round(statistics.median(ordinary), 4),
        "p90_ms": round(statistics.quantiles(ordinary, n=10)[-1], 4),
        "max_ms": round(max(ordinary), 3),
        "max_cpu_ms": round(max(ordinary_cpu), 3),
        "irregular_median_ms": round(statistics.median(irregular), 3),
        "target_ms": 1.0,
    }
    if getattr(args, "json", False):
        print(json.dumps(figures))
        return 0
    print(f"tracker, international middle games: {figures['observations']} observations "
          f"({moves_seen} moves) in {len(games)} positions")
    print(f"  median {figures['median_ms']:.4f} ms per observation (target <= 1 ms), "
          f"p90 {figures['p90_ms']:.4f} ms")
    print(f"  slowest {figures['max_ms']:.3f} ms wall, {figures['max_cpu_ms']:.3f} ms CPU "
          "(a larger wall time is another process's turn on the CPU)")
    print(f"  naming an irregularity: median {figures['irregular_median_ms']:.3f} ms")
    return 0


BENCHES = {"tracker": bench_tracker}
