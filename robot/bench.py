"""`damas bench robot` and `damas bench robot-firmware`: planning time, travel against
the straight-line lower bound, lines streamed and machine time per move, over seeded
random games played through `RobotSession` on a simulator (`sim-python`, `sim-firmware`
or `sim-grbl`)."""

from __future__ import annotations

import math
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from damas.rules import Game

from .machine import example_machine
from .planner import Transfer
from .session import RobotSession

VARIANTS = ("international", "english")
PLIES = {"international": 120, "english": 100}  # a random game rarely ends sooner


def bench_game(variant: str, port: str, firmware: str) -> dict[str, Any]:
    """One seeded random game of `variant` on the example machine of `firmware` (`damas`
    or `grbl`) behind `port`: the figures per move."""
    machine = example_machine(10 if variant == "international" else 8, firmware=firmware)
    rng = random.Random(1)
    game = Game(variant)
    planning: list[float] = []
    lower = 0.0
    wall = time.perf_counter()
    with RobotSession.open(machine, port, game.start, speedup=2000) as session:
        before = session.driver.lines_sent
        start_seconds = session.report()["sim_seconds"]
        while game.outcome() is None and game.ply < PLIES[variant]:
            move = rng.choice(game.legal_moves())
            start = time.perf_counter()
            steps = session.planner.plan_move(session.state, move)
            planning.append(time.perf_counter() - start)
            lower += lower_bound(session.carriage_board_point(), steps)
            session.run(steps)
            game.push(move)
        report = session.report()
        lines = session.driver.lines_sent - before
    wall = time.perf_counter() - wall
    moves = game.ply
    seconds = report["sim_seconds"] - start_seconds  # the game's, not power-up and homing
    return {
        "moves": moves,
        "planning_ms_median": round(statistics.median(planning) * 1000, 2),
        "planning_ms_max": round(max(planning) * 1000, 1),
        "travel_mm_per_move": round(report["travel_mm"] / moves, 1),
        "lower_bound_mm_per_move": round(lower / moves, 1),
        "travel_ratio": round(report["travel_mm"] / lower, 3),
        "lines_streamed": lines,
        "sim_seconds_per_move": round(seconds / moves, 2),
        "wall_seconds": round(wall, 1),
        "sim_speedup": round(report["sim_seconds"] / wall, 1),
    }


def run(port: str = "sim-python", firmware: str = "damas") -> dict[str, dict[str, Any]]:
    """Per variant, `bench_game` on `port`."""
    return {variant: bench_game(variant, port, firmware) for variant in VARIANTS}


def lower_bound(here: tuple[float, float], steps: Sequence[Transfer]) -> float:
    """The carriage, from `here`, must at least go straight to each piece and straight
    to its target."""
    total = 0.0
    for step in steps:
        total += math.dist(here, step.path[0]) + math.dist(step.path[0], step.path[-1])
        here = step.path[-1]
    return total
