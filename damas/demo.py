"""The closed-loop demo: a whole game in simulation, end to end.

The renderer is the camera; a simulated person plays one side by hand (arm in view,
captured pieces taken off one at a time in random order, now and then an irregular move
that is then put right); the vision pipeline reads the frames and passes on settled
boards; the tracker turns them into moves; the built-in engine answers; the planner and
the G-code driver carry the answer out on a machine simulator (the real firmware in
simavr when the toolchain is there, the Python simulator otherwise); and vision confirms
the robot's result from the pieces as the simulator left them before the person plays on.
Every event goes to the journal, and the PDN is rewritten atomically after every move.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from damas.rules import Game, Move, Position, Tracker
from damas.rules import variant as get_variant
from damas.rules.pdn import PdnGame, write_pdn
from damas.rules.tracker_board import Observation

from .journal import Journal, replay_last_game

FPS = 10.0  # simulated camera frames per second


@dataclass
class DemoOptions:
    variant: str = "international"
    level: int = 3
    seed: int = 1
    games: int = 1
    max_plies: int = 400
    human: str = "white"  # the side the simulated person plays
    robot: str = "auto"  # sim-firmware, sim-python or auto
    irregular_rate: float = 0.12
    journal: str | None = None
    pdn: str | None = None
    video: str | None = None
    resume: bool = False


@dataclass
class GameSummary:
    result: str
    reason: str
    moves: int
    misrecognised: int
    irregular_made: int
    irregular_flagged: int
    pdn: str


@dataclass
class DemoReport:
    games: list[GameSummary] = field(default_factory=list)
    seconds: float = 0.0
    robot: str = ""
    time_split: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict:
        moves = sum(g.moves for g in self.games)
        return {
            "games": len(self.games),
            "moves": moves,
            "misrecognised": sum(g.misrecognised for g in self.games),
            "irregular_made": sum(g.irregular_made for g in self.games),
            "irregular_flagged": sum(g.irregular_flagged for g in self.games),
            "results": [g.result for g in self.games],
            "pdn": self.games[-1].pdn if self.games else None,
            "seconds_per_move": round(self.seconds / max(moves, 1), 3),
            "robot": self.robot,
            "time_split": {k: round(v, 1) for k, v in self.time_split.items()},
        }


def choose_robot(requested: str) -> str:
    if requested != "auto":
        return requested
    from damas.robot.simavr import missing_toolchain

    return "sim-python" if missing_toolchain() else "sim-firmware"


class Timer:
    """Where the demo's wall time goes."""

    def __init__(self):
        self.split: dict[str, float] = {}

    def __call__(self, name: str):
        timer = self

        class _Span:
            def __enter__(self):
                self.start = time.perf_counter()

            def __exit__(self, *exc):
                timer.split[name] = timer.split.get(name, 0.0) + time.perf_counter() - self.start

        return _Span()


class Demo:
    def __init__(self, options: DemoOptions, out=print, display=None):
        self.o = options
        self.out = out
        self.display = display
        self.variant = get_variant(options.variant)
        self.rng = random.Random(options.seed)
        self.timer = Timer()
        self.journal_path = Path(options.journal or "damas-demo.jsonl")
        self.pdn_path = Path(options.pdn or self.journal_path.with_suffix(".pdn"))
        self.video = None
        self.t = 0.0  # simulated time, seconds

    # --- the world: camera, person, robot -------------------------------------------

    def _setup_world(self, start: Position):
        from damas.engine import BuiltinEngine
        from damas.robot.machine import example_machine
        from damas.robot.session import RobotSession
        from damas.vision.pipeline import BoardReader
        from damas.vision.scene import SceneRanges, random_scene
        from damas.vision.settle import SettleDetector

        ranges = SceneRanges(sizes=(self.variant.size,), tilt=(0.0, 30.0), noise=(0.0, 3.0),
                             blur=(0.0, 0.8), markers_share=0.5)
        self.scene = random_scene(self.rng, ranges, jpeg_quality=90)
        self.pieces = dict(start.pieces())  # what physically stands on the board
        self.reader = BoardReader(self.variant.size, known=start)
        self.settle = SettleDetector(still_frames=2)
        self.engine = BuiltinEngine(self.variant, level=self.o.level,
                                    seed=self.rng.randrange(1 << 30))
        self.person_engine = BuiltinEngine(self.variant, level=1,
                                           seed=self.rng.randrange(1 << 30))
        self.robot_kind = choose_robot(self.o.robot)
        machine = example_machine(self.variant.size)
        self.robot = RobotSession.open(machine, self.robot_kind, start, speedup=2000)

    def close(self) -> None:
        for name in ("robot", "engine", "person_engine"):
            part = getattr(self, name, None)
            if part is not None:
                part.close()
        if self.video is not None:
            self.video.release()

    # --- frames -------------------------------------------------------------------------

    def _frame(self, hands=()) -> list:
        """Render one frame of the table, read it, and feed the tracker; returns the
        tracker's events."""
        from damas.vision.render import render

        with self.timer("render"):
            self.scene = self.scene.with_(hands=tuple(hands),
                                          noise_seed=self.rng.randrange(1 << 30))
            image = render(self.scene, self.pieces).image
        with self.timer("vision"):
            reading = self.reader.read(image)
            settled = self.settle.update(self.reader.last_samples.motion_vector(), reading)
            if settled is not None:
                self.reader.settled(settled)
        self._record_video(image, reading)
        self.t += 1.0 / FPS
        events = []
        with self.timer("tracker"):
            if settled is not None:
                squares = "".join(settled.squares[s] for s in range(1, self.variant.squares + 1))
                events += self.tracker.observe(Observation(squares, self.t))
            events += self.tracker.tick(self.t)
        return events

    def _record_video(self, image, reading) -> None:
        if not self.o.video and self.display is None:
            return
        import cv2

        from damas.vision.annotate import annotate

        frame = annotate(image, self.reader.pose, reading) if self.reader.pose else image
        if self.o.video and self.video is None:
            h, w = frame.shape[:2]
            self.video = cv2.VideoWriter(self.o.video, cv2.VideoWriter_fourcc(*"mp4v"), FPS,
                                         (w, h))
        if self.video is not None:
            self.video.write(frame)
        if self.display is not None:
            ok, jpeg = cv2.imencode(".jpg", frame)
            if ok:
                self.display.set_frame(jpeg.tobytes())

    def _until(self, wanted, frames: int = 40, hands=()) -> list:
        """Still frames until an event satisfies `wanted` (or `frames` pass)."""
        seen = []
        for _ in range(frames):
            events = self._frame(hands)
            seen += events
            if any(wanted(e) for e in events):
                break
        return seen

    # --- one game -----------------------------------------------------------------------

    def play_game(self, number: int, game: Game, journal: Journal) -> GameSummary:
        from damas.engine import Limit
        from damas.vision.handmove import move_by_hand

        misrecognised = irregular_made = irregular_flagged = 0
        human = 0 if self.o.human == "white" else 1
        self.tracker = Tracker(self.variant, game=game if game.moves else None, settle=0.3)
        self._flag_count = 0
        events = self._until(lambda e: e.kind == "setup")
        self._log_events(events, journal)
        while game.outcome() is None and game.ply < self.o.max_plies:
            pos = game.position
            if pos.turn == human:
                with self.timer("person"):
                    move = self._person_move(game)
                if self.rng.random() < self.o.irregular_rate:
                    made, flagged = self._irregular_then_fix(pos, journal)
                    irregular_made += made
                    irregular_flagged += flagged
                shuffled = Move(move.path, tuple(self.rng.sample(move.captured,
                                                                  len(move.captured))),
                                move.promotion)
                steps = move_by_hand(self.scene, pos, shuffled, self.rng)
                events = []
                for step in steps:
                    events += self._frame(step.hands)
                    self.pieces = dict(step.pieces)
                events += self._until(lambda e: e.kind == "move")
                self.robot.moved_by_hand(move)
            else:
                with self.timer("engine"):
                    move = self.engine.play(game, Limit(level=self.o.level)).move
                with self.timer("robot"):
                    self.robot.play(move)
                    layout = self.robot.report()["squares"]
                self.pieces = {int(k): v for k, v in layout.items() if v != "e"}
                events = self._until(lambda e: e.kind == "move")
            self._log_events(events, journal)
            seen = [e for e in events if e.kind == "move"]
            if len(seen) != 1 or seen[0].notation != pos.notation(move):
                misrecognised += 1
                journal.write("misrecognised", expected=pos.notation(move),
                              seen=[e.notation for e in seen])
                self.out(f"vision/tracker disagree: played {pos.notation(move)}, "
                         f"seen {[e.notation for e in seen]}")
            game.push(move)
            journal.write("move", notation=game.notations()[-1], fen=game.position.fen(),
                          ply=game.ply, by="person" if pos.turn == human else "robot")
            self._write_pdn(game, number)
            self._show(game, f"{game.ply}. {'person' if pos.turn == human else 'robot'} "
                             f"{game.notations()[-1]}")
        outcome = game.outcome()
        result = outcome.result if outcome else "*"
        reason = outcome.reason if outcome else "move limit"
        journal.write("game-end", result=result, reason=reason)
        self._write_pdn(game, number, result)
        return GameSummary(result, reason, game.ply, misrecognised, irregular_made,
                           irregular_flagged, str(self.pdn_path))

    def _person_move(self, game: Game) -> Move:
        from damas.engine import Limit

        if self.rng.random() < 0.5:
            return self.rng.choice(game.legal_moves())
        return self.person_engine.play(game, Limit(level=1)).move

    def _irregular_then_fix(self, pos: Position, journal: Journal) -> tuple[int, int]:
        """The person slides a man where no rule allows (or plays quietly past a
        compulsory capture), waits to be told, and puts it back."""
        wrong = self._wrong_step(pos)
        if wrong is None:
            return 0, 0
        start, end = wrong
        from damas.vision.handmove import square_mm
        from damas.vision.scene import Hand

        piece = self.pieces.pop(start)
        x, y = square_mm(self.scene, end)
        self._frame((Hand(x, y, 40.0),))
        self.pieces[end] = piece
        events = self._until(lambda e: e.kind == "irregular", frames=30)
        flagged = any(e.kind == "irregular" for e in events)
        journal.write("irregular-made", squares=[start, end])
        self._log_events(events, journal)
        del self.pieces[end]
        self._frame((Hand(x, y, 40.0),))
        self.pieces[start] = piece
        events = self._until(lambda e: e.kind == "restored", frames=30)
        self._log_events(events, journal)
        return 1, int(flagged)

    def _wrong_step(self, pos: Position):
        """A man of the side to move stepped to an empty neighbour that no legal move
        reaches (backwards, or quietly while a capture is compulsory)."""
        from damas.rules import geometry

        g = geometry(self.variant.size)
        legal = {(m.start, m.end) for m in pos.legal_moves()}
        own = "w" if pos.turn == 0 else "b"
        options = []
        for sq, piece in pos.pieces().items():
            if piece != own:
                continue
            r, c = g.row_col(sq)
            for dr in (-1, 1):
                for dc in (-1, 1):
                    to = g.square_at(r + dr, c + dc)
                    if to and pos.piece(to) is None and (sq, to) not in legal:
                        options.append((sq, to))
        return self.rng.choice(options) if options else None

    # --- output ---------------------------------------------------------------------------

    def _log_events(self, events, journal: Journal) -> None:
        for e in events:
            data = e.to_dict()
            data.pop("event", None)
            journal.write(f"tracker-{e.kind}", **data)
            if e.kind == "irregular":
                self.out(f"  irregular {e.article}: {e.message_en}")
            if self.display is not None:
                self.display.log(f"{e.kind} {getattr(e, 'notation', '') or ''}".strip())

    def _write_pdn(self, game: Game, number: int, result: str | None = None) -> None:
        from damas.calibration.store import atomic_write_text

        pg = PdnGame.from_game(game, Event="damas demo", Date=time.strftime("%Y.%m.%d"),
                               Round=str(number),
                               White="person" if self.o.human == "white" else "damas",
                               Black="damas" if self.o.human == "white" else "person")
        if result:
            pg.result = result
        atomic_write_text(self.pdn_path, write_pdn(pg))

    def _show(self, game: Game, line: str) -> None:
        self.out(line)
        self.out(game.position.diagram())
        if self.display is not None:
            history = [{str(k): v for k, v in p.pieces().items()} for p in game.positions]
            self.display.update(size=self.variant.size, moves=game.notations(),
                                squares=history[-1], history=history, status=line)

    # --- the whole run --------------------------------------------------------------------

    def run(self) -> DemoReport:
        report = DemoReport()
        started = time.perf_counter()
        games = []
        if self.o.resume:
            games.append(self._resumed_game())
        try:
            with Journal(self.journal_path) as journal:
                for number in range(1, self.o.games + 1):
                    game = games.pop() if games else Game(self.variant)
                    if not game.moves:
                        journal.write("game-start", variant=self.variant.name,
                                      fen=game.start.fen(), seed=self.o.seed, number=number,
                                      human=self.o.human)
                    else:
                        journal.write("resumed", ply=game.ply, fen=game.position.fen())
                    self._setup_world(game.position)
                    report.robot = self.robot_kind
                    try:
                        report.games.append(self.play_game(number, game, journal))
                    finally:
                        self.close()
        finally:
            report.seconds = time.perf_counter() - started
            report.time_split = dict(self.timer.split)
        return report

    def _resumed_game(self) -> Game:
        """The last game of the journal, exactly as recorded: its start and its moves."""
        game, events = replay_last_game(self.journal_path)
        self.o.human = events[0].get("human", self.o.human)
        self.variant = game.variant
        return game

