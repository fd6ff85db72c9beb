"""Tournament recording: two people, a clock, irregularities flagged for the arbiter, and
a live PDN with clock times rewritten atomically after every move (for broadcast tools).

Frames come from a camera, a video or a stream; vision passes on settled boards; the
tracker (tournament policy: an irregularity the opponent plays on from is accepted, 000
§5.7) turns them into moves; each move presses the clock of the side that made it.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from pathlib import Path

from damas.rules import BLACK, WHITE, Game, Tracker
from damas.rules import variant as get_variant
from damas.rules.pdn import PdnGame, write_pdn
from damas.rules.tracker_board import Observation

from .clock import Clock, TimeControl, format_clock
from .journal import Journal, replay_last_game


class Recorder:
    def __init__(self, variant: str, control: TimeControl, journal: str | Path,
                 pdn: str | Path, white: str = "?", black: str = "?", event: str = "?",
                 settle: float = 1.0, resume: bool = False, out=print, display=None):
        self.variant = get_variant(variant)
        self.control = control
        self.journal_path = Path(journal)
        self.pdn_path = Path(pdn)
        self.tags = {"Event": event, "Date": time.strftime("%Y.%m.%d"), "White": white,
                     "Black": black,
                     "TimeControl": f"{control.minutes * 60:g}+{control.increment:g}"}
        self.out = out
        self.display = display
        self.clock = Clock(control)
        self.clock_comments: dict[int, list[str]] = {}
        game = self._resumed() if resume else None
        self.tracker = Tracker(self.variant, game=game, policy="tournament", settle=settle)
        self.started = False
        self.irregular = 0

    def _resumed(self) -> Game:
        game, events = replay_last_game(self.journal_path)
        for ply, e in enumerate((e for e in events if e["kind"] == "move"), start=1):
            self.clock.left = {WHITE: e["clock"]["white"], BLACK: e["clock"]["black"]}
            self.clock_comments[ply] = [e["clock_comment"]]
        self.out(f"resumed after {game.ply} moves: {game.position.fen()}")
        return game

    def run(self, frames: Iterable, fps: float | None = None) -> Game:
        """Reads frames until they end; time is the frame count over `fps` for a video,
        else the wall clock."""
        from damas.vision.pipeline import BoardReader
        from damas.vision.settle import SettleDetector

        reader = BoardReader(self.variant.size, known=self.tracker.position)
        detector = SettleDetector()
        begun = time.monotonic()
        with Journal(self.journal_path) as journal:
            if not self.tracker.game.moves:
                journal.write("game-start", variant=self.variant.name,
                              fen=self.tracker.position.fen(), control=str(self.control),
                              **{k.lower(): v for k, v in self.tags.items()})
            for n, frame in enumerate(frames):
                now = n / fps if fps else time.monotonic() - begun
                reading = reader.read(frame)
                settled = detector.update(reader.last_samples.motion_vector(), reading)
                events = []
                if settled is not None:
                    reader.settled(settled)
                    squares = "".join(settled.squares[s]
                                      for s in range(1, self.variant.squares + 1))
                    events += self.tracker.observe(Observation(squares, now))
                events += self.tracker.tick(now)
                for event in events:
                    self._handle(event, now, journal)
            for event in self.tracker.flush():
                self._handle(event, now if frames else 0.0, journal)
        return self.tracker.game

    def _handle(self, event, now: float, journal: Journal) -> None:
        data = event.to_dict()
        data.pop("event", None)
        if event.kind == "setup" and not self.started:
            self.started = True
            self.clock.start(now, self.tracker.position.turn)
        if event.kind == "move":
            mover = self.clock.running
            self.clock.press(now)
            left = self.clock.remaining(mover, now) if mover is not None else 0.0
            comment = f"[%clock {'wb'[int(mover or 0)]}{format_clock(left)}]"
            self.clock_comments[self.tracker.game.ply] = [comment]
            data.update(clock=self.clock.state(now), clock_comment=comment)
            journal.write("move", **data)
            self._write_pdn()
            self.out(f"{event.notation}  ({comment})")
        else:
            journal.write(f"tracker-{event.kind}", **data)
        if event.kind == "irregular":
            self.irregular += 1
            self.out(f"ARBITER: irregular {event.article}: {event.message_en} "
                     f"(squares {list(event.squares)})")
        if self.display is not None:
            self.display.update(moves=self.tracker.game.notations(),
                                clocks=self.clock.state(now), size=self.variant.size,
                                squares={str(k): v for k, v in
                                         self.tracker.position.pieces().items()})

    def _write_pdn(self) -> None:
        from damas.calibration.store import atomic_write_text

        record = self.tracker.record
        if len(record.segments) == 1:  # the usual case: clock times as move comments
            text = write_pdn(PdnGame(dict(self.tags), record.segments[0].game,
                                     dict(self.clock_comments)))
        else:  # an accepted irregularity: the record goes on from a FEN comment
            text = record.pdn(**self.tags)
        atomic_write_text(self.pdn_path, text)
