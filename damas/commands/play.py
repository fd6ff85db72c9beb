"""`damas play` (a person against the machine on a real board) and `damas kiosk` (the
robot unattended: attract play, visitors' games, board resets).

`--camera sim` / `--camera sim-board` put the whole outside world in simulation (a
rendered camera read by the real vision pipeline, or a perfect reading; a simulated
visitor plays the person's side) so both commands can be tried on any machine; the
robot port is then `sim-python` or `sim-firmware`."""

from __future__ import annotations

import json
import sys

from damas.argtypes import count, level, port, seconds

SIM_CAMERAS = {"sim": "rendered", "sim-board": "board"}


def _common(p) -> None:
    p.add_argument("--camera", default="0",
                   help="camera index or stream URL; sim or sim-board: a simulated table")
    p.add_argument("--robot", metavar="PORT",
                   help="the robot's serial port (sim-python, sim-firmware: a simulator)")
    p.add_argument("--variant", default="international")
    p.add_argument("--level", type=level, default=5, help="built-in engine level 1-10")
    p.add_argument("--engine", help="another engine: hub:/path/to/scan, dxp:host:port, ...")
    p.add_argument("--movetime", type=seconds, help="seconds a move for an external engine")
    p.add_argument("--machine", help="machine description file (default: the example for "
                                     "the board size)")
    p.add_argument("--settle", type=seconds, default=1.0, help="seconds a board must stay")
    p.add_argument("--calibration", metavar="DIR",
                   help="folder from `damas calibrate board`: lens, pose, the set's colours")
    p.add_argument("--web", type=port, metavar="PORT",
                   help="serve the live page on http://HOST:PORT/ (0: any port)")
    p.add_argument("--host", default="127.0.0.1",
                   help="the address the page is served on (0.0.0.0: every network)")
    p.add_argument("--seed", type=int, default=1, help="of the simulated table")
    p.add_argument("--data-dir", metavar="DIR", help="where the journal and PDNs go "
                                                      "(default: the platform's data folder)")
    p.add_argument("--config", help="TOML file with defaults for these options")


def register(sub) -> None:
    p = sub.add_parser("play", help="play against the machine on a real board")
    _common(p)
    p.add_argument("--leds", metavar="PORT", help="an LED grid shows the machine's moves "
                                                  "and a person makes them (instead of a robot)")
    p.add_argument("--human", choices=("white", "black"), default="white")
    p.add_argument("--max-plies", type=count, help="stop after this many plies (half-moves)")
    p.add_argument("--journal", help="the event journal (default: play.jsonl in the data "
                                     "folder)")
    p.add_argument("--pdn", help="the live PDN (default: play.pdn in the data folder)")
    p.add_argument("--resume", action="store_true", help="continue the journal's last game")
    p.add_argument("--fen", help="play from this position (an endgame to practise, an "
                                 "adjourned game): the board is set up to it first")
    p.add_argument("--from-board", choices=("white", "black"), metavar="SIDE",
                   help="play from the position the camera sees, with SIDE (white or "
                        "black) to move; it is shown for you to confirm")
    p.set_defaults(run=run_play)

    p = sub.add_parser("kiosk", help="run unattended: attract play, visitors' games, "
                                     "board resets by the robot")
    _common(p)
    p.add_argument("--games", type=count, help="stop after this many games (default: never)")
    p.add_argument("--attract-plies", type=count, default=120,
                   help="an attract game is reset after this many plies (half-moves)")
    p.add_argument("--idle", type=seconds, default=180.0,
                   help="seconds a visitor may leave a game before it is given up")
    p.add_argument("--journal", help="the event journal (default: kiosk.jsonl in the data "
                                     "folder)")
    p.add_argument("--archive", help="every game, as it ends (default: kiosk.pdn in the data "
                                     "folder; the game under way: kiosk-current.pdn)")
    p.add_argument("--json", action="store_true", help="print a JSON summary at the end")
    p.set_defaults(run=run_kiosk)


def _moves(plies: int) -> str:
    """Plies as PDN counts moves: a move is White's ply and Black's answer."""
    moves = (plies + 1) // 2
    return f"{moves} move{'s' if moves != 1 else ''}"


def _engine_spec(args) -> str:
    """The engine spec, refused at once when it can never work (a usage error, status 2)
    rather than paused on and retried as a lost engine would be."""
    from damas.engine import check_spec

    spec = args.engine or f"builtin:level={args.level}"
    check_spec(spec)
    return spec


def _display(args, watch):
    """The live page, with the camera's view when there is a camera."""
    from damas.web import camera_view, serve_page

    display, server = serve_page(args.web, args.host)
    if display is not None and hasattr(watch, "on_frame"):
        watch.on_frame = camera_view(display)
    return display, server


def _simulated(args, position, **rates):
    from damas.rules import DamasError
    from damas.simulation import simulated_world

    if args.robot not in (None, "sim-python", "sim-firmware") or \
            getattr(args, "leds", None) not in (None, "sim-python"):
        raise DamasError("a simulated camera goes with a simulated machine: --robot "
                         "sim-python or sim-firmware, or --leds sim-python")
    robot = None if getattr(args, "leds", None) else (args.robot or "sim-python")
    return simulated_world(args.variant, robot=robot, camera=SIM_CAMERAS[args.camera],
                           seed=args.seed, position=position,
                           calibration=args.calibration if args.camera == "sim" else None,
                           **rates)


def _real(args, position, from_board=None):
    """The camera, and the robot or LED grid, on real ports, and the position play starts
    from: `position`, or with `from_board` (a function of the camera's watch) the one the
    camera sees, read before the machine is told where its pieces stand."""
    from damas.movers import LedMover, RobotMover
    from damas.robot.grbl import GrblDriver
    from damas.robot.leds import LedGrid
    from damas.robot.machine import example_machine, load_machine
    from damas.robot.session import RobotSession
    from damas.rules import DamasError
    from damas.vision.feed import CameraFeed
    from damas.watch import VisionWatch

    leds = getattr(args, "leds", None)
    if bool(args.robot) == bool(leds):
        raise DamasError("say what makes the machine's moves: --robot PORT or --leds PORT")
    size = position.variant.size
    watch = VisionWatch(CameraFeed(str(args.camera)), size,
                        known=None if from_board else position, calibration=args.calibration)
    if from_board:
        position = from_board(watch)
    if args.robot:
        machine = load_machine(args.machine) if args.machine else example_machine(size)
        mover = RobotMover(RobotSession.open(machine, args.robot, position))
    else:
        driver = GrblDriver(leds, home=False, send_and_wait=True)
        driver.connect()
        mover = LedMover(LedGrid(driver, position.variant.squares), driver)
    return watch, mover, position


def run_play(args) -> int:
    from damas.files import check_outputs
    from damas.fromboard import board_position
    from damas.journal import Journal, replay_last_game
    from damas.paths import session_file
    from damas.pdnfile import earlier_games
    from damas.play import PlayOptions, PlaySession
    from damas.rules import BLACK, WHITE, DamasError, Position

    journal_path = session_file(args.journal, args.data_dir, "play.jsonl")
    pdn = session_file(args.pdn, args.data_dir, "play.pdn")
    check_outputs({"journal": journal_path, "PDN": pdn})  # before any move
    print(f"journal: {journal_path}; PDN: {pdn}")
    replay = game = None
    if args.resume:
        replay = replay_last_game(journal_path)
        if replay.lost:  # the board then shows what to put right
            print(f"damas: the journal is damaged: {replay.lost}", file=sys.stderr)
        game = replay.game
        args.variant = game.variant.name
    if sum(bool(x) for x in (args.fen, args.from_board, args.resume)) > 1:
        raise DamasError("give one of --fen, --from-board and --resume")
    start = (Position.from_fen(args.fen, args.variant) if args.fen
             else Position.start(args.variant))
    position = game.position if game is not None else start
    human = WHITE if args.human == "white" else BLACK
    engine = _engine_spec(args)

    def from_board(watch) -> Position:
        return board_position(watch.look, args.variant, args.from_board)[0]

    timing = {}
    world = None
    if args.camera in SIM_CAMERAS:  # the simulated table stands at the start position
        world = _simulated(args, position)
        watch, close = world.watch, world.close
        mover, timing = world.mover, {"clock": world.clock, "wait": world.wait}
        if args.from_board:
            position = from_board(watch)
    else:
        watch, mover, position = _real(args, position, from_board if args.from_board else None)
        close = mover.close
    fen = args.fen or (position.fen() if args.from_board else None)
    options = PlayOptions(variant=args.variant, engine=engine,
                          movetime=args.movetime, machine_sides=(human.opponent,),
                          settle=args.settle, max_plies=args.max_plies,
                          tags={"White" if human == WHITE else "Black": "person"},
                          fen=None if game is not None else fen)
    display, server = _display(args, watch)
    try:
        with Journal(journal_path) as journal:
            session = PlaySession(options, watch, mover, journal, pdn, replay=replay,
                                  display=display, earlier=earlier_games(pdn, game),
                                  **timing)
            if world is not None:  # the simulated person plays the person's side
                world.visitor.join((human,), session)
            try:
                session.run()
            except KeyboardInterrupt:
                from damas.events import Interrupted

                journal.write(Interrupted())
                print("\ninterrupted: `damas play --resume` goes on from here",
                      file=sys.stderr)
                return 130
    finally:
        close()
        if server is not None:
            server.stop()
    print(f"{session.game.ply} plies ({_moves(session.game.ply)}); PDN: {pdn}")
    return 0


def run_kiosk(args) -> int:
    from damas.files import check_outputs
    from damas.kiosk import Kiosk, KioskOptions
    from damas.paths import session_file
    from damas.play import PlayOptions
    from damas.rules import WHITE, Position

    journal = session_file(args.journal, args.data_dir, "kiosk.jsonl")
    archive = session_file(args.archive, args.data_dir, "kiosk.pdn")
    current = archive.with_name(archive.name.removesuffix(".pdn") + "-current.pdn")
    check_outputs({"journal": journal, "archive": archive,
                   "current game's PDN": current})  # before any move
    if not args.json:
        print(f"journal: {journal}; archive: {archive}")
    play = PlayOptions(variant=args.variant, engine=_engine_spec(args), movetime=args.movetime,
                       settle=args.settle)
    options = KioskOptions(play, attract_plies=args.attract_plies, idle_limit=args.idle,
                           journal=str(journal), archive=str(archive), current=str(current))
    extra = {}
    world = None
    close = None
    if args.camera in SIM_CAMERAS:
        world = _simulated(args, Position.start(args.variant), arrive_rate=0.01,
                           leave_rate=0.005)
        watch, mover = world.watch, world.mover
        extra = {"clock": world.clock, "wait": world.wait, "on_game_start":
                 lambda visitor, session: world.visitor.join((WHITE,) if visitor else (),
                                                             session)}
        close = world.close
    else:
        watch, mover, _ = _real(args, Position.start(args.variant))
        close = mover.close
    display, server = _display(args, watch)
    out = (lambda *a: None) if args.json else print
    kiosk = Kiosk(options, watch, mover, out=out, display=display, **extra)
    if world is not None:
        world.visitor.on_arrival = kiosk.new_game
    try:
        kiosk.run(games=args.games)
    except KeyboardInterrupt:
        print("\nkiosk stopped", file=sys.stderr)
    finally:
        close()
        if server is not None:
            server.stop()
    if args.json:
        print(json.dumps({"games": kiosk.games, "errors": kiosk.errors,
                          "archive": str(archive), "journal": str(journal)}))
    return 0
