"""`damas track` (observations in, one JSON event per line out) and `damas bench tracker`."""

from __future__ import annotations

import json
import sys

from damas.pdnfile import read_pdn_file
from damas.rules import DamasError, variant
from damas.rules.tracker import Tracker
from damas.rules.tracker.board import ObservationError
from damas.rules.tracker.format import Commit, read_lines


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

def bench_tracker(args) -> int:
    from damas.sim import trackerbench

    if getattr(args, "noise", None):
        return bench_noise(args)
    figures = trackerbench.run()
    if getattr(args, "json", False):
        print(json.dumps(figures))
        return 0
    print(f"tracker, international middle games: {figures['observations']} observations "
          f"({figures['moves_seen']} moves) in {figures['positions']} positions")
    print(f"  median {figures['median_ms']:.4f} ms per observation (target <= 1 ms), "
          f"p90 {figures['p90_ms']:.4f} ms")
    print(f"  slowest {figures['max_ms']:.3f} ms wall, {figures['max_cpu_ms']:.3f} ms CPU "
          "(a larger wall time is another process's turn on the CPU)")
    print(f"  naming an irregularity: median {figures['irregular_median_ms']:.3f} ms")
    return 0


def bench_noise(args) -> int:
    from tqdm import tqdm

    from damas.sim import noisebench

    try:
        rates = tuple(float(r) for r in args.noise.split(","))
    except ValueError:
        raise DamasError(f"--noise takes shares such as 0.01,0.03 (not {args.noise!r})") from None
    if not all(0 <= r < 1 for r in rates):
        raise DamasError("--noise shares are from 0 to 1 (0.03 is 3 %)")
    names = (variant(args.variant).name,) if getattr(args, "variant", None) else (
        "international", "brazilian", "english")
    games = getattr(args, "games", None) or 300
    seed = getattr(args, "seed", None) or 1
    bar = tqdm(total=games * len(names) * len(rates), unit="game", file=sys.stderr,
               disable=None)
    figures = noisebench.run(games, seed, rates, names, progress=lambda *_: bar.update())
    bar.close()
    if getattr(args, "json", False):
        print(json.dumps(figures))
        return 0
    print(f"tracker under noise: {games} random games per variant, each settled board read "
          f"every {figures['frame_s']} s for {figures['hold_s']} s (settle "
          f"{figures['settle_s']} s), seed {seed}")
    for rate, per in figures["rates"].items():
        print(f"  {float(rate):.0%} of squares misread with confidence 0.9-0.99:")
        for name, f in per.items():
            speed = (f" median {f['middle_game_median_ms']} ms, p90 "
                     f"{f['middle_game_p90_ms']} ms CPU per observation (middle games)"
                     if f["middle_game_median_ms"] is not None else "")
            print(f"    {name}: {f['right']} of {f['moves']} moves right, "
                  f"{f['missed']} missed, {f['invented']} invented, "
                  f"{f['false_irregular']} false irregularities; irregular moves made "
                  f"{f['irregular_made']}: {f['irregular_flagged']} flagged with their "
                  f"article, {f['irregular_wrong_article']} another, "
                  f"{f['irregular_missed']} missed;{speed}")
    return 0


BENCHES = {"tracker": bench_tracker}
