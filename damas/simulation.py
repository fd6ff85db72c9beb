"""The outside world in simulation, for the kiosk, its soak test and `damas kiosk
--simulate`: the machine simulator and the pieces it moves (robot.physics.World), a
camera over them, a visitor who plays now and then (slips included), and faults
injected on a schedule. Time is simulated: each camera frame is a tenth of a second, and
waiting for a device to come back only moves the simulated clock.

Two cameras. `RenderedCamera` renders frames for the real vision pipeline (about 0.1 s
of CPU a frame). `BoardCamera` hands over the squares a perfect vision stage would read
(kings as men: a camera may not see a crown), for runs of hundreds of games.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from damas.rules import Game, Move

from .camera import CameraLost

FPS = 10.0


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


class Table:
    """What physically stands on the board: the machine's world, and what a visitor's
    hands are doing right now. Every camera frame passes through `frame()`."""

    def __init__(self, robot, rng: random.Random, clock: SimClock, faults: Faults,
                 visitor: Visitor | None = None):
        self.robot = robot  # RobotSession on a simulator: its World is the truth
        self.rng = rng
        self.clock = clock
        self.faults = faults
        self.visitor = visitor
        self.steps: list = []  # a visitor's move under way: (pieces, hands) per frame
        self.override: dict[int, str] | None = None
        self.world_seen = self._world()
        self.camera_back_at = 0.0
        self.port_back_at: float | None = None
        self.injected = {"camera_dropout": 0, "serial_drop": 0, "firmware_reset": 0}

    def _world(self) -> dict[int, str]:
        squares = self.robot.report()["squares"]
        return {int(k): v for k, v in squares.items() if v != "e"}

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
            self.steps = self.visitor.act(self.override or world)
        hands: tuple = ()
        if self.steps:
            pieces, hands = self.steps.pop(0)
            self.override = dict(pieces)
        if self.clock.t < self.camera_back_at:
            raise CameraLost("the camera gives no frames (a simulated dropout)", "sim", "stopped")
        return dict(self.override or world), hands

    def camera_back(self) -> bool:
        return self.clock.t >= self.camera_back_at

    def _down(self) -> float:
        return self.rng.uniform(*self.faults.seconds_down)

    def _strike(self) -> None:
        f, t = self.faults, self.clock.t
        if t >= self.camera_back_at and self.rng.random() < f.camera_dropout:
            self.camera_back_at = t + self._down()
            self.injected["camera_dropout"] += 1
        if self.port_back_at is None and self.rng.random() < f.serial_drop:
            self.robot.simulator.drop_line()
            self.port_back_at = t + self._down()
            self.injected["serial_drop"] += 1
        if self.port_back_at is None and self.rng.random() < f.firmware_reset:
            self.robot.simulator.power_cycle()
            self.injected["firmware_reset"] += 1

    def _replug(self) -> None:
        if self.port_back_at is not None and self.clock.t >= self.port_back_at:
            # a real port comes back under its name; a pty gets a new one
            self.robot.driver.url = self.robot.simulator.replug()
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

    def look(self) -> str | None:
        pieces, hands = self.table.frame()
        if hands:
            return None
        return "".join((pieces.get(s) or "e").lower() for s in range(1, self.squares + 1))

    def refresh(self) -> None:
        pass  # frames are made on demand: none is ever stale

    def reopen(self) -> bool:
        return self.table.camera_back()


class RenderedCamera:
    """A camera (read/reopen, as damas.camera.CameraFeed) that renders the table."""

    def __init__(self, table: Table, scene):
        self.table = table
        self.scene = scene

    def read(self):
        from damas.vision.render import render

        pieces, hands = self.table.frame()
        self.scene = self.scene.with_(hands=tuple(hands),
                                      noise_seed=self.table.rng.randrange(1 << 30))
        return render(self.scene, pieces).image

    def reopen(self) -> bool:
        return self.table.camera_back()


class Visitor:
    """A person playing `sides` against the machine: looks at the board, thinks a
    moment, moves by hand (captured pieces taken off one at a time, in random order), now
    and then slips (a move no rule allows, put back once flagged), and may walk away."""

    def __init__(self, rng: random.Random, scene, game_of, sides=(), slip_rate: float = 0.1,
                 leave_rate: float = 0.0, arrive_rate: float = 0.0, on_arrival=None):
        self.rng = rng
        self.scene = scene  # where hands go (damas.vision.scene.Scene)
        self.game_of = game_of  # the game as the session records it: what a person sees
        self.sides = tuple(sides)
        self.slip_rate = slip_rate
        self.leave_rate = leave_rate  # per move: the visitor walks away from the game
        self.arrive_rate = arrive_rate  # per frame of attract play: someone asks for a game
        self.on_arrival = on_arrival  # e.g. Kiosk.new_game (the web page's button)
        self.gone = False
        self.made: list[str] = []  # the moves this visitor made, for checking the record
        self.slips = 0
        self._slipped_at: int | None = None

    def join(self, sides) -> None:
        self.sides, self.gone = tuple(sides), False

    def act(self, board: dict[int, str]) -> list:
        game: Game | None = self.game_of()
        if not self.sides and self.on_arrival and self.rng.random() < self.arrive_rate:
            self.on_arrival()
        if game is None or self.gone or game.outcome() is not None:
            return []
        position = game.position
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
        from damas.vision.handmove import move_by_hand

        self.made.append(position.notation(move))
        return wait + [(s.pieces, s.hands) for s in
                       move_by_hand(self.scene, position, shuffled, self.rng)]

    def _choose(self, game: Game) -> Move:
        moves = game.legal_moves()
        captures = [m for m in moves if m.captured]
        return self.rng.choice(captures or moves)

    def _slip(self, game: Game, board: dict[int, str]) -> list:
        """A man stepped backwards (or quietly past a compulsory capture), left long
        enough to be flagged, then put back."""
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
        return [(wrong, ())] * 25 + [(dict(board), ())]


@dataclass
class SimWorld:
    """Everything outside the app, simulated and wired: see `simulated_world`."""

    robot: object  # robot.session.RobotSession on a simulator
    table: Table
    visitor: Visitor
    watch: object  # BoardCamera, or a VisionWatch over a RenderedCamera
    clock: SimClock

    def wait(self, seconds: float) -> None:
        self.table.wait(seconds)

    def close(self) -> None:
        self.robot.close()


def simulated_world(variant: str, *, robot: str = "sim-python", camera: str = "board",
                    seed: int = 1, faults: Faults | None = None, game_of=lambda: None,
                    slip_rate: float = 0.1, leave_rate: float = 0.0,
                    arrive_rate: float = 0.0) -> SimWorld:
    """A machine simulator (`robot`: sim-python or sim-firmware) with the start position
    on its board, a visitor and a camera (`camera`: "board" reads perfectly, "rendered"
    goes through the real vision pipeline). `game_of` gives the game being played, which
    the visitor looks at."""
    from damas.robot.machine import example_machine
    from damas.robot.session import RobotSession
    from damas.rules import Position
    from damas.vision.scene import SceneRanges, random_scene

    from .watch import VisionWatch

    rng = random.Random(seed)
    start = Position.start(variant)
    size = start.variant.size
    session = RobotSession.open(example_machine(size), robot, start, speedup=5000)
    clock = SimClock()
    ranges = SceneRanges(sizes=(size,), tilt=(0.0, 25.0), noise=(0.0, 2.0), blur=(0.0, 0.6),
                         markers_share=0.5)
    scene = random_scene(rng, ranges, jpeg_quality=90)
    visitor = Visitor(rng, scene, game_of, slip_rate=slip_rate, leave_rate=leave_rate,
                      arrive_rate=arrive_rate)
    table = Table(session, rng, clock, faults or Faults(), visitor)
    if camera == "board":
        watch = BoardCamera(table, start.variant.squares)
    elif camera == "rendered":
        watch = VisionWatch(RenderedCamera(table, scene), size, known=start, still_frames=2)
    else:
        session.close()
        raise ValueError(f"camera is 'board' or 'rendered', not {camera!r}")
    return SimWorld(session, table, visitor, watch, clock)
