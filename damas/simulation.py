"""The outside world in simulation, for the demo, the kiosk's soak test and `--camera
sim`: the machine simulator and the pieces it moves (robot.physics.World) or an LED
controller, a camera over them, a visitor who plays now and then (slips included), and
faults at random or at set frames. Time is simulated: each camera frame is a tenth of a
second, and waiting for a device to come back only moves the simulated clock.

Two cameras. `RenderedCamera` renders frames for the real vision pipeline (the board
drawn once, then only what changed: about 20 ms of CPU a frame). `BoardCamera` hands
over the squares a perfect vision stage would read (kings as men: a camera may not see
a crown), for runs of hundreds of games.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from damas.rules import Game, Move, Occupancy
from damas.vision.feed import CameraLost

if TYPE_CHECKING:
    from damas.robot.session import RobotSession

    from .movers import LedMover, RobotMover
    from .watch import VisionWatch

FPS = 10.0
HOLD = "hold"  # in a visitor's steps: wait (the board as it is) until told, at most
HOLD_FRAMES = 300


@dataclass(frozen=True)
class ByHand:
    """In a visitor's steps, right after the last frame of a move made by hand: the move,
    so the pieces the person moved are moved in the machine's world too."""

    move: Move


class Sight(Protocol):
    """What a person at the table sees of the session (its screen, the LEDs): the game as
    it records it, and whether it flags an irregular move. A PlaySession is one."""

    @property
    def game(self) -> Game: ...

    @property
    def flagged(self) -> bool: ...


class SimClock:
    def __init__(self):
        self.t = 0.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@dataclass
class Faults:
    """How often each fault strikes, per camera frame."""

    camera_dropout: float = 0.0  # the camera gives nothing for a few seconds
    serial_drop: float = 0.0  # the USB cable is pulled, plugged back a few seconds later
    firmware_reset: float = 0.0  # the controller restarts by itself
    seconds_down: tuple[float, float] = (1.0, 8.0)
    at_frames: dict[int, str] | None = None  # frame number -> fault (or the first chance)


class Table:
    """What physically stands on the board: the machine's world (when a robot moves the
    pieces) or the pieces as people left them (LED grid), and what a visitor's hands are
    doing right now. Every camera frame passes through `frame()`."""

    def __init__(self, controller, driver, rng: random.Random, clock: SimClock,
                 faults: Faults, visitor: Visitor | None = None, robot=None,
                 pieces: dict[int, str] | None = None):
        self.controller = controller  # the machine simulator behind the serial line
        self.driver = driver  # its GrblDriver, told the new port after a replug
        self.robot = robot  # RobotSession on a simulator: its World is the truth
        self.pieces = dict(pieces or {})  # without a robot: what people left on the board
        self.rng = rng
        self.clock = clock
        self.faults = faults
        self.visitor = visitor
        self.leds: dict[int, tuple] = {}  # the LED grid as lit now: square -> RGB
        self.steps: list = []  # a visitor's move under way: (pieces, hands) per frame
        self.override: dict[int, str] | None = None
        self.world_seen = self._world()
        self.camera_back_at = 0.0
        self.port_back_at: float | None = None
        self.injected = {"camera_dropout": 0, "serial_drop": 0, "firmware_reset": 0}
        self.frames = 0
        self.pending: list[str] = []  # scheduled faults waiting for their chance
        self.held = 0  # frames a person has waited to be told

    def _world(self) -> dict[int, str]:
        if self.robot is None:
            return dict(self.pieces)
        squares = self.robot.report()["squares"]
        return {int(k): v for k, v in squares.items() if v != "e"}

    def on_leds(self, frame: list) -> None:
        self.leds = {i + 1: tuple(rgb) for i, rgb in enumerate(frame) if any(rgb)}

    def frame(self) -> tuple[dict[int, str], tuple]:
        """Time passes one frame; faults strike; the visitor acts. Returns the pieces on
        the board and the hands over it, or raises CameraLost while the camera is down."""
        self.clock.advance(1.0 / FPS)
        self._strike()
        self._replug()
        world = self._world()
        if world != self.world_seen:  # the machine moved, or took note of a person's move
            self.world_seen, self.override = world, None
        if not self.steps and self.visitor is not None:
            self.steps = self.visitor.act(self.override or world, self.leds)
        hands: tuple = ()
        if self.steps and self.steps[0] is HOLD:  # a person waiting to be told
            self.held += 1
            assert self.visitor is not None  # only a visitor's steps hold
            if self.visitor.told() or self.held > HOLD_FRAMES:
                self.steps.pop(0)
                self.held = 0
        if self.steps and self.steps[0] is not HOLD:
            pieces, hands = self.steps.pop(0)
            if self.robot is None:
                self.pieces = self.world_seen = dict(pieces)
            else:
                self.override = dict(pieces)
            if self.steps and isinstance(self.steps[0], ByHand):
                self._carry(self.steps.pop(0).move)
        if self.clock.t < self.camera_back_at:
            raise CameraLost("the camera gives no frames (a simulated dropout)", "sim", "stopped")
        # a visitor's hands change `pieces` (no robot) or `override`, never the machine's world
        current = self.override or (self.pieces if self.robot is None else world)
        return dict(current), hands

    def _carry(self, move: Move) -> None:
        """A visitor's move, made on the machine's board: the person puts each captured
        piece in the tray and crowns from the reserve where the robot would (its planner,
        from its record before the move), so the pieces agree with the robot's record
        once the session has seen the move. Without a robot `pieces` already holds it."""
        robot = self.robot
        if robot is None or robot.world is None:
            return
        for step in robot.planner.plan_move(robot.state, move):
            robot.world.by_hand(step.path[0], step.path[-1], stack_on=step.reason == "crown")

    def camera_back(self) -> bool:
        return self.clock.t >= self.camera_back_at

    def _down(self) -> float:
        return self.rng.uniform(*self.faults.seconds_down)

    def _strike(self) -> None:
        f = self.faults
        self.frames += 1
        if f.at_frames and self.frames in f.at_frames:
            self.pending.append(f.at_frames[self.frames])
        due = set(self.pending)
        for name, rate in (("camera_dropout", f.camera_dropout),
                           ("serial_drop", f.serial_drop),
                           ("firmware_reset", f.firmware_reset)):
            if self.rng.random() < rate:
                due.add(name)
        for name in sorted(due):
            if self._inject(name):
                self.injected[name] += 1
                if name in self.pending:
                    self.pending.remove(name)

    def _inject(self, name: str) -> bool:
        """False when the fault cannot strike now (a scheduled one waits for its chance):
        the camera is already down, or the cable is out."""
        t = self.clock.t
        if name == "camera_dropout":
            if t < self.camera_back_at:
                return False
            self.camera_back_at = t + self._down()
        elif self.port_back_at is not None:
            return False
        elif name == "serial_drop":
            self.controller.drop_line()
            self.port_back_at = t + self._down()
        else:
            self.controller.power_cycle()
        return True

    def _replug(self) -> None:
        if self.port_back_at is not None and self.clock.t >= self.port_back_at:
            # a real port comes back under its name; a pty gets a new one
            self.driver.url = self.controller.replug()
            self.port_back_at = None

    def wait(self, seconds: float) -> None:
        """The session waits for a device: simulated time passes, the world goes on."""
        self.clock.advance(seconds)
        self._replug()


class BoardCamera:
    """A watch (see damas.watch) that reads the table perfectly: squares while no hand
    is over the board, None while one is."""

    def __init__(self, table: Table, squares: int):
        self.table = table
        self.squares = squares

    def look(self) -> Occupancy | None:
        pieces, hands = self.table.frame()
        if hands:
            return None
        # colours only: like a camera, it cannot tell a king from a man
        return Occupancy("".join((pieces.get(s) or "e").lower()
                                 for s in range(1, self.squares + 1)))

    def refresh(self) -> None:
        pass  # frames are made on demand: none is ever stale

    def reopen(self) -> bool:
        return self.table.camera_back()


class RenderedCamera:
    """A camera (read/reopen, as damas.vision.feed.CameraFeed) that renders the table."""

    def __init__(self, table: Table, scene):
        from damas.vision.render import Renderer

        self.table = table
        self.scene = scene
        self.renderer = Renderer()  # the board drawn once; a frame redraws what changed

    def read(self):
        pieces, hands = self.table.frame()
        self.scene = self.scene.with_(hands=tuple(hands),
                                      noise_seed=self.table.rng.randrange(1 << 30))
        return self.renderer.render(self.scene, pieces).image

    def reopen(self) -> bool:
        return self.table.camera_back()


class Visitor:
    """A person playing `sides` against the machine: looks at the board, thinks a
    moment, moves by hand (captured pieces taken off one at a time, in random order), now
    and then slips (a move no rule allows, put back once flagged), may walk away, and
    makes the machine's moves when an LED grid lights them."""

    def __init__(self, rng: random.Random, scene, sides=(), slip_rate: float = 0.1,
                 leave_rate: float = 0.0, arrive_rate: float = 0.0, on_arrival=None):
        self.rng = rng
        self.scene = scene  # where hands go (damas.vision.scene.Scene)
        self.sight: Sight | None = None  # the session whose game this person watches
        self.sides = tuple(sides)
        self.slip_rate = slip_rate
        self.leave_rate = leave_rate  # per move: the visitor walks away from the game
        self.arrive_rate = arrive_rate  # per frame of attract play: someone asks for a game
        self.on_arrival = on_arrival  # e.g. Kiosk.new_game (the web page's button)
        self.gone = False
        self.made: list[str] = []  # the moves this visitor made, for checking the record
        self.slips = 0
        self._slipped_at: int | None = None
        self.following: dict[int, str] | None = None  # the board an LED move leaves
        self.forgotten = 0  # captured pieces left on the board after an LED move

    def join(self, sides, sight: Sight) -> None:
        """Sit down at the game `sight` shows (a new session: the kiosk's next game),
        playing `sides` (none: only watching, or asking for a game)."""
        self.sides, self.sight, self.gone = tuple(sides), sight, False

    def told(self) -> bool:
        """The session flags an irregular move: the person who made it sees it is wrong."""
        return self.sight is not None and self.sight.flagged

    def act(self, board: dict[int, str], leds: dict[int, tuple]) -> list:
        game = self.sight.game if self.sight is not None else None
        if not self.sides and self.on_arrival and self.rng.random() < self.arrive_rate:
            self.on_arrival()
        if game is None or self.gone or game.outcome() is not None:
            return []
        position = game.position
        if leds and position.turn not in self.sides:
            return self._follow(position, board, leds)
        if position.turn not in self.sides or board != position.pieces():
            return []  # not my turn, or the machine is not done yet
        if self.rng.random() < self.leave_rate:
            self.gone = True
            return []
        wait = [(dict(board), ())] * self.rng.randrange(0, 6)
        if self._slipped_at != game.ply and self.rng.random() < self.slip_rate:
            self._slipped_at = game.ply
            slip = self._slip(game, board)
            if slip:
                self.slips += 1
                return wait + slip
        move = self._choose(game)
        shuffled = Move(move.path, tuple(self.rng.sample(move.captured, len(move.captured))),
                        move.promotion)
        from damas.sim.handmove import move_by_hand

        self.made.append(position.notation(move))
        return wait + [(s.pieces, s.hands) for s in
                       move_by_hand(self.scene, position, shuffled, self.rng)] + [ByHand(move)]

    def _follow(self, position, board: dict[int, str], leds: dict[int, tuple]) -> list:
        """Make the move the LED grid lights for the machine (blue: from, green: to, red:
        take off). Now and then a captured piece is forgotten; when the grid then lights
        the squares to put right (orange), the board is put as the move leaves it."""
        from damas.robot.leds import COLOURS
        from damas.sim.handmove import move_by_hand

        lit = {colour: {sq for sq, rgb in leds.items() if rgb == COLOURS[colour]}
               for colour in ("from", "to", "remove", "irregular")}
        if lit["irregular"] and self.following is not None:
            return [(self.following, ())] * 3
        if board != position.pieces() or len(lit["from"] | lit["to"]) == 0:
            return []
        start = lit["from"] or lit["to"]  # a capture that ends where it began: green only
        for move in position.legal_moves():
            if {move.start} == start and {move.end} == lit["to"] \
                    and set(move.captured) == lit["remove"]:
                break
        else:
            return []
        steps = [(s.pieces, s.hands) for s in move_by_hand(self.scene, position, move, self.rng)]
        self.following = steps[-1][0]
        if move.captured and self.rng.random() < self.slip_rate:  # one piece left on
            self.forgotten += 1
            forgotten = move.captured[-1]
            steps = [({**p, forgotten: board[forgotten]}, h) for p, h in steps]
        return steps

    def _choose(self, game: Game) -> Move:
        moves = game.legal_moves()
        captures = [m for m in moves if m.captured]
        return self.rng.choice(captures or moves)

    def _slip(self, game: Game, board: dict[int, str]) -> list:
        """A man stepped backwards (or quietly past a compulsory capture), left until the
        person is told (`told()`: the session flags it; at most HOLD_FRAMES), then put
        back."""
        from damas.rules import geometry

        position = game.position
        g = geometry(position.variant.size)
        legal = {(m.start, m.end) for m in position.legal_moves()}
        own = "w" if position.turn == 0 else "b"
        options = []
        for sq, piece in board.items():
            if piece != own:
                continue
            r, c = g.row_col(sq)
            for to in (g.square_at(r + dr, c + dc) for dr in (-1, 1) for dc in (-1, 1)):
                if to and to not in board and (sq, to) not in legal:
                    options.append((sq, to))
        if not options:
            return []
        start, end = self.rng.choice(options)
        wrong = dict(board)
        wrong[end] = wrong.pop(start)
        return [(wrong, ()), HOLD, (dict(board), ())]


@dataclass
class SimWorld:
    """Everything outside the app, simulated and wired: see `simulated_world`."""

    mover: RobotMover | LedMover  # on a simulated controller
    table: Table
    visitor: Visitor
    watch: BoardCamera | VisionWatch  # VisionWatch over a RenderedCamera
    clock: SimClock
    robot: RobotSession | None = None  # when a robot moves the pieces

    def wait(self, seconds: float) -> None:
        self.table.wait(seconds)

    def close(self) -> None:
        self.mover.close()
        if self.robot is None:
            self.table.controller.stop()


def simulated_world(variant: str, *, robot: str | None = "sim-python", camera: str = "board",
                    seed: int = 1, faults: Faults | None = None,
                    slip_rate: float = 0.1, leave_rate: float = 0.0,
                    arrive_rate: float = 0.0, position=None,
                    calibration: str | None = None) -> SimWorld:
    """A machine simulator with the start position on its board: a robot (`robot`:
    sim-python or sim-firmware) or, with `robot=None`, an LED grid on the Python simulator
    that the visitor follows for the machine's moves; a visitor; and a camera
    (`camera`: "board" reads perfectly, "rendered" goes through the real vision
    pipeline). The visitor acts once it has joined a session's game
    (`world.visitor.join(sides, session)`), so the world is built first and the session
    over it; `position` is what stands on the board at first (default: the start). With a
    `calibration` folder the rendered camera is read through it; a folder with no
    calibration yet gets one of this table first, made from a frame of the start
    position as `damas calibrate board` makes it."""
    from damas.robot.grbl import GrblDriver
    from damas.robot.leds import LedGrid
    from damas.robot.machine import example_machine
    from damas.robot.session import RobotSession
    from damas.robot.simulator import Config, MachineSimulator
    from damas.rules import Position
    from damas.vision.scene import SceneRanges, random_scene

    from .movers import LedMover, RobotMover
    from .watch import VisionWatch

    if camera not in ("board", "rendered"):
        raise ValueError(f"camera is 'board' or 'rendered', not {camera!r}")
    rng = random.Random(seed)
    start = position or Position.start(variant)
    size, squares = start.variant.size, start.variant.squares
    clock = SimClock()
    ranges = SceneRanges(sizes=(size,), tilt=(0.0, 25.0), noise=(0.0, 2.0), blur=(0.0, 0.6),
                         markers_share=0.5)
    scene = random_scene(rng, ranges, jpeg_quality=90)
    visitor = Visitor(rng, scene, slip_rate=slip_rate, leave_rate=leave_rate,
                      arrive_rate=arrive_rate)
    if robot is not None:
        session = RobotSession.open(example_machine(size), robot, start, speedup=5000)
        table = Table(session.simulator, session.driver, rng, clock, faults or Faults(),
                      visitor, robot=session)
        mover: RobotMover | LedMover = RobotMover(session)
    else:
        forward: list[Callable[[list], None]] = []
        controller = MachineSimulator(Config(leds=squares, speedup=5000),
                                      on_leds=lambda frame: forward[0](frame))
        driver = GrblDriver(controller.start(), home=False, send_and_wait=True, timeout=5.0)
        table = Table(controller, driver, rng, clock, faults or Faults(), visitor,
                      pieces=start.pieces())
        forward.append(table.on_leds)
        driver.connect()
        mover = LedMover(LedGrid(driver, squares), driver)
        session = None
    watch: BoardCamera | VisionWatch
    if camera == "board":
        watch = BoardCamera(table, squares)
    else:
        camera_feed = RenderedCamera(table, scene)
        if calibration:
            calibrate_table(scene, start.variant.name, calibration)
        watch = VisionWatch(camera_feed, size, known=start, still_frames=2,
                            calibration=calibration)
    return SimWorld(mover, table, visitor, watch, clock, session)


def calibrate_table(scene, variant: str, folder: str) -> None:
    """Writes a board calibration of the simulated table's camera into `folder`, unless
    one is there, from a rendered frame of the start position."""
    from pathlib import Path

    from damas.calibration.board import BOARD_FILE, BoardCalibration, save_board
    from damas.rules import Position
    from damas.vision.calibrated import save_head
    from damas.vision.pipeline import BoardReader
    from damas.vision.render import render

    if (Path(folder) / BOARD_FILE).exists():
        return
    start = Position.start(variant)
    reader = BoardReader(scene.size, known=start)
    reader.read(render(scene, start.pieces()).image)
    pose, model = reader.pose, reader.model
    assert pose is not None and model is not None  # the start, rendered, is always found
    side = pose.white_side_in_image()
    save_board(folder, BoardCalibration(start.variant.name, scene.size, pose.camera,
                                        (float(side[0]), float(side[1])), model,
                                        start.fen()))
    if reader.head is not None:
        save_head(folder, reader.head)
