"""`damas robot play-pdn`, `damas robot configure`, `damas calibrate robot`, `damas bench
robot` and `damas bench robot-firmware`."""

from __future__ import annotations

import json

from damas.cli import command_group
from damas.rules import DamasError, Game, Position


def register(sub) -> None:
    robot = command_group(sub, "robot", "drive the robot or its simulators")
    p = robot.add_parser("play-pdn", help="play every move of a game on the machine")
    p.add_argument("pdn", help="the game (PDN file)")
    p.add_argument("--game", type=int, default=1, help="which game of the file (from 1)")
    p.add_argument("--machine", help="machine description (default: the example for the "
                                     "game's board, on GRBL for sim-grbl)")
    p.add_argument("--port", required=True,
                   help="serial port or pyserial URL, or sim-firmware / sim-grbl / sim-python")
    p.add_argument("--json", action="store_true")
    p.set_defaults(run=run_play_pdn)

    p = robot.add_parser("configure", help="send a stock GRBL the $ settings of the machine "
                                           "file (what damas doctor lists)")
    p.add_argument("--port", required=True, help="the GRBL controller's serial port")
    p.add_argument("--machine", required=True, help="machine description with GRBL settings")
    p.set_defaults(run=run_configure)

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
    machine = load_machine(args.machine) if args.machine else example_machine(
        game.variant.size, firmware="grbl" if args.port == "sim-grbl" else "damas")
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
    matches = result["squares"] == expected and not result["stray"]
    # only a simulator sees the board; on a real port the squares are the planner's record
    result["matches_game" if result["seen"] else "record_matches_game"] = matches
    if args.json:
        print(json.dumps(result))
        return 0
    print(_diagram(result["squares"], machine.board_size))
    for colour, slots in result["trays"].items():
        print(f"{colour} tray: {sum(1 for s in slots if s != 'e')} pieces")
    print(f"carriage travel {result['travel_mm']:.0f} mm, {result['sim_seconds']:.1f} s "
          f"of machine time, {len(game.moves)} moves" if result["seen"] else
          f"{len(game.moves)} moves played")
    if result["seen"]:
        print("the board, as the simulator's pins moved it, "
              + ("matches" if matches else "does NOT match") + " the game's final position")
    else:
        print("the planner's record " + ("matches" if matches else "does NOT match")
              + " the game's final position; nothing watched the board itself: look at it")
    return 0 if matches else 1


def run_configure(args) -> int:
    from damas.robot.grbl import GrblDriver, configure
    from damas.robot.machine import load_machine

    machine = load_machine(args.machine)
    driver = GrblDriver(args.port, timeout=5.0, home=False)
    try:
        sent = configure(driver, machine)
    finally:
        driver.close()
    for line in sent:
        print(f"sent {line}")
    print(("GRBL's settings now fit " if sent else "GRBL's settings already fit ")
          + args.machine)
    return 0


def _diagram(squares: dict[str, str], size: int) -> str:
    placed = {int(k): v for k, v in squares.items() if v != "e"}
    return Position.from_pieces(
        "international" if size == 10 else "brazilian",
        {k: v for k, v in placed.items() if v in "wbWB"}, 0).diagram().rsplit("\n", 1)[0]


def run_calibrate_robot(args) -> int:
    from damas.robot.calibrate import calibrate_interactively

    return calibrate_interactively(args)


def bench_robot(args, port: str = "sim-python") -> int:
    """Planning time, travel against the straight-line lower bound, lines streamed and
    machine time per move, over random games on a simulator (the Python one, or the
    firmware in simavr with `damas bench robot-firmware`, which also prints how much faster
    than real time the simulation ran; `--firmware grbl` plays the same games on stock GRBL
    1.1h in simavr too, on the example GRBL machines - built like ours: 80 steps/mm,
    6000 mm/min, 800 mm/s^2 - and prints the two side by side)."""
    from damas.robot import bench

    figures = bench.run(port)
    if port == "sim-firmware" and getattr(args, "firmware", "damas") == "grbl":
        figures = {"damas": figures, "grbl": bench.run("sim-grbl", "grbl")}
        if args.json:
            print(json.dumps(figures))
            return 0
        print(f"{'':28}{'lines':>7}{'machine s/move':>16}{'travel mm/move':>16}"
              f"{'bound':>8}{'ratio':>8}{'wall s':>8}{'x real':>8}")
        for variant in bench.VARIANTS:
            for name, f in (("damas firmware", figures["damas"][variant]),
                            ("GRBL 1.1h", figures["grbl"][variant])):
                print(f"{variant + ', ' + name:28}{f['lines_streamed']:>7}"
                      f"{f['sim_seconds_per_move']:>16}{f['travel_mm_per_move']:>16}"
                      f"{f['lower_bound_mm_per_move']:>8}{f['travel_ratio']:>8}"
                      f"{f['wall_seconds']:>8}{f['sim_speedup']:>8}")
            print(f"{'':28}({figures['damas'][variant]['moves']} moves)")
        return 0
    if args.json:
        print(json.dumps(figures))
        return 0
    for variant, f in figures.items():
        print(f"{variant}: {f['moves']} moves; planning median {f['planning_ms_median']} ms, "
              f"max {f['planning_ms_max']} ms; travel {f['travel_mm_per_move']} mm/move "
              f"vs straight-line bound {f['lower_bound_mm_per_move']} "
              f"(x{f['travel_ratio']}); {f['lines_streamed']} lines streamed; "
              f"{f['sim_seconds_per_move']} s of machine time/move; "
              f"{f['wall_seconds']} s wall ({f['sim_speedup']}x real time)")
    return 0


def bench_robot_firmware(args) -> int:
    return bench_robot(args, "sim-firmware")


BENCHES = {"robot": bench_robot, "robot-firmware": bench_robot_firmware}
