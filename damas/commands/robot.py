"""`damas robot play-pdn`, `damas calibrate robot`, `damas bench robot` and
`damas bench robot-firmware`."""

from __future__ import annotations

import json
import math
import statistics
import time

from damas.cli import command_group
from damas.rules import DamasError, Game, Position


def register(sub) -> None:
    robot = command_group(sub, "robot", "drive the robot or its simulators")
    p = robot.add_parser("play-pdn", help="play every move of a game on the machine")
    p.add_argument("pdn", help="the game (PDN file)")
    p.add_argument("--game", type=int, default=1, help="which game of the file (from 1)")
    p.add_argument("--machine", help="machine description (default: the example for the "
                                     "game's board)")
    p.add_argument("--port", required=True,
                   help="serial port or pyserial URL, or sim-firmware / sim-python")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run_play_pdn)

    calibrate = command_group(sub, "calibrate", "calibrate the camera, board or robot")
    p = calibrate.add_parser("robot", help="fit the board to the machine from jogged squares")
    p.add_argument("--port", required=True, help="serial port, pyserial URL or sim-python")
    p.add_argument("--machine", required=True, help="machine file to update")
    p.add_argument("--squares", default=None,
                   help="reference squares, comma separated (default: three corners)")
    p.set_defaults(run=run_calibrate_robot)


def _load_game(path: str, index: int) -> Game:
    from damas.pdnfile import read_pdn_file

    games = read_pdn_file(path)
    if not 1 <= index <= len(games):
        raise DamasError(f"{path} holds {len(games)} game(s); there is no game {index}")
    return games[index - 1].game


def run_play_pdn(args) -> int:
    from damas.robot.machine import example_machine, load_machine
    from damas.robot.session import RobotSession

    game = _load_game(args.pdn, args.game)
    machine = load_machine(args.machine) if args.machine else \
        example_machine(game.variant.size)
    if machine.board_size != game.variant.size:
        raise DamasError(f"the machine is for {machine.board_size}x{machine.board_size}, the "
                         f"game for {game.variant.size}x{game.variant.size}")
    replay = Game(game.variant, start=game.start)
    with RobotSession.open(machine, args.port, game.start) as session:
        for move in game.moves:
            session.play(move)
            replay.push(move)
        result = session.report()
    expected = {str(n): replay.position.pieces().get(n, "e")
                for n in range(1, machine.board_size ** 2 // 2 + 1)}
    result["matches_game"] = result["squares"] == expected and not result["stray"]
    if args.json:
        print(json.dumps(result))
        return 0
    print(_diagram(result["squares"], machine.board_size))
    for colour, slots in result["trays"].items():
        print(f"{colour} tray: {sum(1 for s in slots if s != 'e')} pieces")
    print(f"carriage travel {result['travel_mm']:.0f} mm, {result['sim_seconds']:.1f} s "
          f"of machine time, {len(game.moves)} moves")
    print("the board matches the game's final position" if result["matches_game"] else
          "the board does NOT match the game's final position")
    return 0 if result["matches_game"] else 1


def _diagram(squares: dict[str, str], size: int) -> str:
    placed = {int(k): v for k, v in squares.items() if v != "e"}
    return Position.from_pieces(
        "international" if size == 10 else "brazilian",
        {k: v for k, v in placed.items() if v in "wbWB"}, 0).diagram().rsplit("\n", 1)[0]


def run_calibrate_robot(args) -> int:
    from damas.robot.calibrate import calibrate_interactively

    return calibrate_interactively(args)


def bench_robot(args, port: str = "sim-python") -> int:
    """Planning time, travel against the straight-line lower bound and machine time per
    move, over random games on a simulator (the Python one, or the firmware in simavr with
    `damas bench robot-firmware`, which also prints how much faster than real time the
    simulation ran)."""
    import random

    from damas.robot.machine import example_machine
    from damas.robot.session import RobotSession

    figures = {}
    for variant, plies in (("international", 120), ("english", 100)):
        machine = example_machine(10 if variant == "international" else 8)
        rng = random.Random(1)
        game = Game(variant)
        planning, lower = [], 0.0
        wall = time.perf_counter()
        with RobotSession.open(machine, port, game.start, speedup=2000) as session:
            while game.outcome() is None and game.ply < plies:
                move = rng.choice(game.legal_moves())
                start = time.perf_counter()
                steps = session.planner.plan_move(session.state, move)
                planning.append(time.perf_counter() - start)
                lower += _lower_bound(session, steps)
                session.run(steps)
                game.push(move)
            report = session.report()
        wall = time.perf_counter() - wall
        moves = game.ply
        figures[variant] = {
            "moves": moves,
            "planning_ms_median": round(statistics.median(planning) * 1000, 2),
            "planning_ms_max": round(max(planning) * 1000, 1),
            "travel_mm_per_move": round(report["travel_mm"] / moves, 1),
            "lower_bound_mm_per_move": round(lower / moves, 1),
            "travel_ratio": round(report["travel_mm"] / lower, 3),
            "sim_seconds_per_move": round(report["sim_seconds"] / moves, 2),
            "wall_seconds": round(wall, 1),
            "sim_speedup": round(report["sim_seconds"] / wall, 1),
        }
    if args.json:
        print(json.dumps(figures))
        return 0
    for variant, f in figures.items():
        print(f"{variant}: {f['moves']} moves; planning median {f['planning_ms_median']} ms, "
              f"max {f['planning_ms_max']} ms; travel {f['travel_mm_per_move']} mm/move "
              f"vs straight-line bound {f['lower_bound_mm_per_move']} "
              f"(x{f['travel_ratio']}); {f['sim_seconds_per_move']} s of machine time/move; "
              f"{f['wall_seconds']} s wall ({f['sim_speedup']}x real time)")
    return 0


def bench_robot_firmware(args) -> int:
    return bench_robot(args, "sim-firmware")


def _lower_bound(session, steps) -> float:
    """The carriage must at least go straight to each piece and straight to its target."""
    total = 0.0
    here = session.carriage_board_point()
    for step in steps:
        total += math.dist(here, step.path[0]) + math.dist(step.path[0], step.path[-1])
        here = step.path[-1]
    return total


BENCHES = {"robot": bench_robot, "robot-firmware": bench_robot_firmware}
