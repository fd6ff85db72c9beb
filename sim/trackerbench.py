"""`damas bench tracker`: the tracker's time per observation while a simulated person
(`person.move_steps`) plays random moves in international middle games, and the time it
takes to name an irregularity. Here, not in rules/, because the rules core never imports
the simulated world."""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from damas.rules import DamasError, Game, variant
from damas.rules.tracker import Tracker
from damas.rules.tracker.board import Observation
from damas.rules.tracker.events import Event

from .person import move_steps

TARGET_MS = 1.0  # per observation: a camera's frame rate leaves far more


def middle_games(rng: random.Random, count: int) -> list[Game]:
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
           cpu: list[float] | None = None) -> list[Event]:
    """Observe, adding the wall time (ms) to `out` and the CPU time to `cpu`: on a shared
    machine a wall time now and then includes another process's time slice."""
    start, start_cpu = time.perf_counter_ns(), time.thread_time_ns()
    events = tracker.observe(obs)
    out.append((time.perf_counter_ns() - start) / 1e6)
    if cpu is not None:
        cpu.append((time.thread_time_ns() - start_cpu) / 1e6)
    return events


def run(seed: int = 2024, positions: int = 30) -> dict[str, Any]:
    """The figures `damas bench tracker --json` prints."""
    rng = random.Random(seed)
    v = variant("international")
    games = middle_games(rng, positions)
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
    return {
        "positions": len(games),
        "observations": len(ordinary),
        "moves_seen": moves_seen,
        "median_ms": round(statistics.median(ordinary), 4),
        "p90_ms": round(statistics.quantiles(ordinary, n=10)[-1], 4),
        "max_ms": round(max(ordinary), 3),
        "max_cpu_ms": round(max(ordinary_cpu), 3),
        "irregular_median_ms": round(statistics.median(irregular), 3),
        "target_ms": TARGET_MS,
    }
