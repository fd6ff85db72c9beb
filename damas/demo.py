"""The closed-loop demo: a whole game in simulation, end to end.

The play session of `damas play` (damas.play) runs unchanged against a simulated table
(damas.simulation): the renderer is the camera and the real vision pipeline reads its
frames; a simulated person plays one side by hand (arm in view, captured pieces taken off
one at a time in random order, now and then an irregular move that is put right once
flagged); the tracker turns settled boards into moves; the built-in engine answers; the
planner and the G-code driver carry the answer out on a machine simulator (our firmware
in simavr when the toolchain is there, the Python simulator otherwise); and the camera
confirms the robot's result before the person plays on.

What the demo adds is the check: every move vision and the tracker report is compared
with the move actually made (the engine's answer, or the person's), and the summary says
how many differed (`misrecognised`, which must be 0) and where the time went.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from damas.rules import BLACK, WHITE, Position
from damas.rules import variant as get_variant

from .events import EngineMove, Misrecognised, PlayedMove
from .journal import Journal, Replay, read_journal, replay_last_game
from .paths import data_dir
from .pdnfile import earlier_games, games_in


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
    calibration: str | None = None  # read the simulated camera through this folder
    board_every: int = 1  # print the board every this many plies (0: never)


@dataclass
class GameSummary:
    result: str
    reason: str
    plies: int  # half-moves; PDN numbers moves, a move being a ply and its answer
    misrecognised: int
    irregular_made: int
    irregular_flagged: int
    pdn: str
    round: int = 1  # the game's number in the PDN file, which keeps every demo game
    pdn_text: str = ""  # this game's own PDN


@dataclass
class DemoReport:
    games: list[GameSummary] = field(default_factory=list)
    seconds: float = 0.0  # wall time, all games
    robot: str = ""
    variant: str = ""
    journal: str = ""
    time_split: dict[str, float] = field(default_factory=dict)

    def summary(self) -> dict:
        plies = sum(g.plies for g in self.games)
        moves = sum((g.plies + 1) // 2 for g in self.games)
        return {
            "games": len(self.games),
            "variant": self.variant,
            "plies": plies,
            "moves": moves,
            "misrecognised": sum(g.misrecognised for g in self.games),
            "irregular_made": sum(g.irregular_made for g in self.games),
            "irregular_flagged": sum(g.irregular_flagged for g in self.games),
            "results": [g.result for g in self.games],
            "pdn": self.games[-1].pdn if self.games else None,
            "rounds": [g.round for g in self.games],
            "journal": self.journal,
            "seconds": round(self.seconds, 1),
            "seconds_per_ply": round(self.seconds / max(plies, 1), 3),
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
    """Where the demo's wall time goes, by part."""

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

    def report(self) -> dict[str, float]:
        """Rendering the simulated camera is the world's cost, not vision's."""
        split = dict(self.split)
        if "render" in split and "vision" in split:
            split["vision"] -= split["render"]
        return split


class Demo:
    def __init__(self, options: DemoOptions, out=print, display=None, on_move=None,
                 on_game=None):
        self.o = options
        self.out = out
        self.on_move = on_move  # (game number, ply, notation, by) for a progress display
        self.on_game = on_game  # (game number, GameSummary) as each game ends
        self.display = display
        self.variant = get_variant(options.variant)
        self.rng = random.Random(options.seed)
        self.timer = Timer()
        self.journal_path = Path(options.journal or data_dir() / "demo.jsonl")
        self.pdn_path = Path(options.pdn or self.journal_path.with_suffix(".pdn"))
        self.robot_kind = choose_robot(options.robot)
        self.video = None
        if options.video:
            from .video import H264Writer

            self.video = H264Writer(options.video)

    def run(self) -> DemoReport:
        started = time.perf_counter()
        replay = self._resumed_game() if self.o.resume else None
        report = DemoReport(robot=self.robot_kind, variant=self.variant.name,
                            journal=str(self.journal_path))
        try:
            with Journal(self.journal_path) as journal:
                for number in range(1, self.o.games + 1):
                    report.games.append(self._play(number, replay, journal))
                    replay = None
                    if self.on_game is not None:
                        self.on_game(number, report.games[-1])
        finally:
            if self.video is not None:  # what was filmed, complete, even if cut short
                self.video.close()
            report.seconds = time.perf_counter() - started
            report.time_split = self.timer.report()
        return report

    def _play(self, number: int, replay: Replay | None, journal: Journal) -> GameSummary:
        from .play import PlayOptions, PlaySession
        from .simulation import simulated_world
        from .watch import VisionWatch

        human = WHITE if self.o.human == "white" else BLACK
        position = replay.game.position if replay is not None else Position.start(self.variant)
        world = simulated_world(self.variant.name, robot=self.robot_kind, camera="rendered",
                                calibration=self.o.calibration,
                                seed=self.rng.randrange(1 << 30), position=position,
                                slip_rate=self.o.irregular_rate)
        assert isinstance(world.watch, VisionWatch)  # camera="rendered"
        camera = world.watch.camera
        camera.read = self._timed(camera.read, "render")
        world.watch.on_frame = self._show_frame
        if self.display is not None:
            from .web import camera_view

            self._to_page = camera_view(self.display)
        # the file keeps every demo game: this one's round is its number there
        earlier = earlier_games(self.pdn_path, replay.game if replay else None)
        round_ = games_in(earlier) + 1
        options = PlayOptions(
            variant=self.variant.name,
            engine=f"builtin:level={self.o.level},seed={self.rng.randrange(1 << 30)}",
            machine_sides=(human.opponent,), settle=0.3, max_plies=self.o.max_plies,
            tags={"Event": "damas demo", "Round": str(round_),
                  "White" if human == WHITE else "Black": "person"})
        first_event = len(read_journal(self.journal_path)) if self.journal_path.exists() else 0
        try:
            session = PlaySession(options, world.watch, world.mover, journal, self.pdn_path,
                                  replay=replay, clock=world.clock, wait=world.wait, out=self.out,
                                  display=self.display, stop=lambda: False, timer=self.timer,
                                  on_move=None if self.on_move is None else
                                  lambda *ply: self.on_move(number, *ply),
                                  earlier=earlier, board_every=self.o.board_every)
            world.visitor.join((human,), session)
            session.run()
        finally:
            world.close()
        events = read_journal(self.journal_path)[first_event:]
        outcome = session.game.outcome()
        return GameSummary(
            result=outcome.result if outcome else "*",
            reason=outcome.reason if outcome else session.ended or "",
            plies=session.game.ply,
            misrecognised=self._misrecognised(events, world.visitor.made, journal),
            irregular_made=world.visitor.slips,
            irregular_flagged=sum(1 for e in events if e["kind"] == "tracker-irregular"),
            pdn=str(self.pdn_path), round=round_, pdn_text=session.pdn_text)

    def _misrecognised(self, events: list[dict], made: list[str], journal: Journal) -> int:
        """Moves recorded otherwise than made: the engine's answers in order, and the
        person's moves in order."""
        answered = [a.notation for a in map(EngineMove.read, events) if a is not None]
        moves = [m for m in map(PlayedMove.read, events) if m is not None]
        seen = {by: [m.notation for m in moves if m.by == by] for by in ("machine", "person")}
        wrong = 0
        for by, truth in (("machine", answered), ("person", made)):
            for k in range(max(len(truth), len(seen[by]))):
                played = truth[k] if k < len(truth) else None
                recorded = seen[by][k] if k < len(seen[by]) else None
                if played != recorded and played is not None and recorded is not None:
                    wrong += 1
                    journal.write(Misrecognised(played, recorded))
                    self.out(f"vision/tracker disagree: played {played}, seen {recorded}")
        return wrong

    def _timed(self, function, part: str):
        def timed(*args, **kwargs):
            with self.timer(part):
                return function(*args, **kwargs)

        return timed

    def _show_frame(self, image, reading, pose) -> None:
        if self.video is not None:
            from .web import annotated

            self.video.write(annotated(image, reading, pose))
        if self.display is not None:
            self._to_page(image, reading, pose)

    def _resumed_game(self) -> Replay:
        """The last game of the journal, exactly as recorded: its start and its moves (up
        to a damaged line, if any: what is dropped is said)."""
        replay = replay_last_game(self.journal_path)
        if replay.lost:
            print(f"damas: the journal is damaged: {replay.lost}", file=sys.stderr)
        # how far the record went (after a full disk, say): on stderr, as --json's
        # stdout is the summary only
        print(f"damas: resumed after {replay.game.ply} plies: {replay.game.position.fen()}",
              file=sys.stderr)
        machine = replay.start.get("machine")
        self.o.human = "black" if isinstance(machine, list) and "white" in machine else "white"
        self.variant = replay.game.variant
        return replay
