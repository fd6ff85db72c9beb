"""Tournament recording: two people, a clock, irregularities flagged for the arbiter, and
a live PDN with clock times rewritten atomically after every move (for broadcast tools).

Frames come from a camera, a video or a stream; vision passes on settled boards; the
tracker (tournament policy: an irregularity the opponent plays on from is accepted, 000
§5.7) turns them into moves; each move presses the clock of the side that made it.

A lost camera (`damas.vision.feed.CameraLost`: unplugged, stopped, frozen) pauses the record:
a `paused` event, a message, then `reopen()` every `retry` seconds until frames come
again (`continued`), and the same game goes on. The clock does not stop: the players'
tournament clock runs on whatever our camera does, so the time of a move seen after a
pause includes the pause. A move made while the camera was away is recognised when it is
back; two or more are flagged as irregular for the arbiter.

On `--resume` the board must show the position the journal ends with before play goes on;
until it does, each settled board that differs is reported (`resume-mismatch`, with the
squares) and nothing is recorded.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

from damas.rules import BLACK, WHITE, DamasError, Game, Occupancy, Position, Tracker
from damas.rules import variant as get_variant
from damas.rules.tracker import Mode
from damas.vision.feed import CameraFeed, CameraLost

from . import events as ev
from .clock import Clock, TimeControl, clock_comment
from .evalbar import EvaluationBar
from .fromboard import ask_on_terminal, board_position
from .journal import Journal, Replay, replay_last_game
from .pause import retry_until

PIECE_NAMES = {"e": "empty", "w": "a white man", "b": "a black man", "W": "a white king",
               "B": "a black king"}


class Recorder:
    def __init__(self, variant: str, control: TimeControl, journal: str | Path,
                 pdn: str | Path, white: str = "?", black: str = "?", event: str = "?",
                 settle: float = 1.0, resume: bool = False, out=print, display=None,
                 calibration: str | None = None, tags: dict[str, str] | None = None,
                 publisher=None, fen: str | None = None, from_board: str | None = None,
                 confirm: Callable[[Position], bool] | None = None):
        self.variant = get_variant(variant)
        self.calibration = calibration  # folder: the lens, pose and set's colours
        self.control = control
        self.journal_path = Path(journal)
        self.pdn_path = Path(pdn)
        self.tags = {"Event": event, "Date": time.strftime("%Y.%m.%d"), "White": white,
                     "Black": black,
                     "TimeControl": f"{control.minutes * 60:g}+{control.increment:g}",
                 **(tags or {})}
        self.publisher = publisher  # damas.hall.publisher.Publisher: the tournament hall
        self.out = out
        self.display = display
        self.clock = Clock(control)
        self.clock_comments: dict[int, list[str]] = {}
        self.resumed_ply: int | None = None  # the journal's last ply, on --resume
        self._mismatch_shown: str | None = None
        self.replay: Replay | None = None  # the journal's game, on --resume
        game = self._resumed() if resume else None
        # from a FEN (an adjourned game, an endgame): the record waits for the board to
        # show it, and the PDN carries it (SetUp, FEN)
        self.tracker = Tracker(self.variant, None if resume else fen, game=game,
                               policy="tournament", settle=settle)
        self.settle = settle
        # --from-board: the side to move in the position the camera will see first
        self.from_board = None if resume else from_board
        self.confirm = confirm or ask_on_terminal
        self.started = False
        self.irregular = 0
        self._clock_asked = threading.Event()  # the page's clock button, from its thread
        self._to_page = None
        self._bar: EvaluationBar | None = None  # the page's evaluation of each position
        self._bar_ply = -1
        if display is not None:
            self.show_on(display)

    def show_on(self, display) -> None:
        """Show the record on a display (the live page): the board, the camera's view,
        and its clock button. Apart from __init__ so that a command can check what the
        user gave it (the journal, the camera) before it serves a page."""
        from .web import camera_view

        self.display = display
        self._to_page = camera_view(display)
        display.actions["clock"] = self._clock_asked.set
        if self._bar is None:
            self._bar = EvaluationBar(self.variant, display)
        self._show(0.0, "recording: set the board up")

    def _resumed(self) -> Game:
        self.replay = replay = replay_last_game(self.journal_path, move_check=_clock_problem)
        if replay.lost:  # the camera then shows the board to put right
            self.out(f"the journal is damaged: {replay.lost}")
        for ply, e in enumerate(replay.moves, start=1):
            self.clock.left = {WHITE: e["clock"]["white"], BLACK: e["clock"]["black"]}
            self.clock_comments[ply] = [clock_comment(e["clock"])]  # from the times: one
            # style in the PDN, whatever the journal's own comment says
        game = replay.game
        self.resumed_ply = game.ply
        self.out(f"resumed after {game.ply} plies: {game.position.fen()}")
        return game

    def run(self, frames: Iterable | CameraFeed, fps: float | None = None, *,
            clock: Callable[[], float] = time.monotonic,
            wait: Callable[[float], object] = time.sleep, retry: float = 2.0) -> Game:
        """Reads frames until they end: any iterable of frames, or a CameraFeed, which
        may be lost and come back (we wait `retry` seconds between tries). Time is the
        frame count over `fps` for a video (plus any pause), else `clock`."""
        from damas.vision.pipeline import BoardReader
        from damas.vision.settle import SettleLoop

        size = self.variant.size
        known = None if self.from_board else self.tracker.position
        reader = (BoardReader.from_calibration(self.calibration, size, known=known)
                  if self.calibration else BoardReader(size, known=known))
        settle = SettleLoop(reader)
        feed = frames if isinstance(frames, CameraFeed) else None
        # a feed may be lost and come back; any other iterable of frames just ends
        read: Callable[[], Any] = (frames.read if isinstance(frames, CameraFeed)
                                   else partial(next, iter(frames), None))
        begun = clock()
        away = 0.0  # seconds the camera was gone: the clock ran on meanwhile
        n, now = 0, 0.0
        first = self._board_position(read, settle) if self.from_board else None
        with self._journal() as journal:
            self._begin(journal)
            if first is not None:
                self._step(first, now, journal)  # the board confirmed is the first seen
            while True:
                try:
                    frame = read()
                except CameraLost as lost:
                    if feed is None:
                        raise
                    at = now if fps else clock() - begun
                    away += self._wait_for_camera(feed, lost, at, journal, clock, wait, retry)
                    continue
                if frame is None:
                    break
                now = n / fps + away if fps else clock() - begun
                n += 1
                if self._clock_asked.is_set():
                    self._clock_asked.clear()
                    self._pause_or_restart_clock(now, journal)
                look = settle.look(frame)
                if self._to_page is not None:
                    self._to_page(frame, look.reading, reader.pose)
                self._step(None if look.new is None else look.new.occupancy(), now, journal)
            self._finish(now, journal)
        return self.tracker.game

    def _board_position(self, read: Callable[[], Any], settle) -> Occupancy:
        """`--from-board`: the record goes on from the board the person confirmed."""
        def look() -> Occupancy | None:
            frame = read()
            if frame is None:
                raise DamasError("the camera's frames ended before the whole board was read")
            new = settle.look(frame).new
            return None if new is None else new.occupancy()

        position, seen = board_position(look, self.variant.name, self.from_board or "white",
                                        self.confirm, self.out)
        self.tracker = Tracker(self.variant, position.fen(), policy="tournament",
                               settle=self.settle)
        return seen

    def record_boards(self, boards: Iterable[tuple[float, str]]) -> Game:
        """The record from settled boards as a perfect vision stage reads them: (time,
        squares in Manoury order, e w b W B ?), for simulated boards in the hall's scale
        test and bench, where rendering and reading frames would only measure vision."""
        now = 0.0
        with self._journal() as journal:
            self._begin(journal)
            for now, squares in boards:
                self._step(Occupancy(squares), now, journal)
            self._finish(now, journal)
        return self.tracker.game

    def _step(self, seen: Occupancy | None, now: float, journal) -> None:
        """One moment of the game: a newly settled board (or none) and the clock's tick."""
        events = []
        if seen is not None:
            self._check_resumed_board(seen.readings, now, journal)
            events += self.tracker.observe(seen.at(now))
        events += self.tracker.tick(now)
        for event in events:
            self._handle(event, now, journal)

    def _finish(self, now: float, journal) -> None:
        for event in self.tracker.flush():
            self._handle(event, now, journal)
        if self._bar is not None:  # the last position's evaluation is shown, then it ends
            self._bar.close(finish=True)
            self._bar = None
        if (under_way := self.tracker.under_way) is not None:  # for the arbiter to see
            squares, moves = under_way
            self.out(f"the recording ended with a move under way ({' or '.join(moves)}; "
                     f"squares {', '.join(map(str, squares))} still to change): it is not "
                     "in the record")

    def _journal(self):
        journal = Journal(self.journal_path)
        return journal if self.publisher is None else _Published(journal, self.publisher)

    def _begin(self, journal) -> None:
        if self.replay is not None:  # the game so far: later resumes start here
            journal.write(self.replay.resumed_event())
        elif not self.tracker.game.moves:
            self._game_start(journal)

    def _game_start(self, journal: Journal) -> None:
        journal.write(ev.GameStart(self.variant.name, self.tracker.game.start_fen,
                                   tags=dict(self.tags), control=str(self.control),
                                   whole_tags=True))

    def _wait_for_camera(self, feed: CameraFeed, lost: CameraLost, now: float,
                         journal: Journal, clock, wait, retry: float) -> float:
        """The record stays as it is until the camera is back; returns how long it was
        away. The game clock is not paused (see the module docstring)."""
        started = clock()
        journal.write(ev.CameraPaused(str(lost), lost.cause, self.clock.state(now)))
        self.out(f"PAUSED: {lost}. The record is kept and the clock runs on; trying the "
                 f"camera again every {retry:g} s")
        if self.display is not None:
            self.display.update(status=f"paused: {lost}", clocks=self._clocks(now))
        tries = retry_until(feed.reopen, wait=wait, retry=retry)
        gone = clock() - started
        journal.write(ev.CameraContinued(round(gone, 1), tries, self.clock.state(now + gone)))
        self.out(f"CONTINUED: {feed.name} is back after {gone:.0f} s; recording goes on")
        if self.display is not None:
            self.display.update(status="recording", clocks=self._clocks(now + gone))
        return gone

    def _pause_or_restart_clock(self, now: float, journal: Journal) -> None:
        """The arbiter stops both clocks, or starts them again (the page's button)."""
        if self.clock.running is None:
            return
        if self.clock.paused:
            self.clock.resume(now)
            journal.write(ev.ClockRestarted(round(now, 3), self.clock.state(now)))
            self._show(now, "the clock runs again")
        else:
            self.clock.pause(now)
            journal.write(ev.ClockStopped(round(now, 3), self.clock.state(now)))
            self._show(now, "the clock is stopped")

    def _clocks(self, now: float) -> dict:
        return {**self.clock.state(now), "counting": "down", "paused": self.clock.paused}

    def _show(self, now: float, status: str | None = None) -> None:
        if self.display is None:
            return
        from .web import game_view

        fields = {**game_view(self.tracker.game), "tags": dict(self.tags),
                  "clocks": self._clocks(now)}
        if status is not None:
            fields["status"] = status
            self.display.log(status)
        self.display.update(**fields)
        if self._bar is not None and self._bar_ply != self.tracker.game.ply:
            self._bar_ply = self.tracker.game.ply
            self._bar.show(self.tracker.game)

    def _check_resumed_board(self, squares: str, now: float, journal: Journal) -> None:
        """On resume, a settled board that is neither the journal's position nor the
        start position (a new game) is reported: the tracker waits, records nothing."""
        if self.resumed_ply is None or self.tracker.mode is not Mode.SETUP:
            return
        expected = self.tracker.position
        start = Position.start(self.variant)

        def differ(position: Position) -> list[tuple[int, str, str]]:
            return [(sq, position.piece(sq) or "e", seen)
                    for sq, seen in enumerate(squares, start=1)
                    if seen != "?" and seen.lower() != (position.piece(sq) or "e").lower()]

        wrong = differ(expected)
        if not wrong or not differ(start) or squares == self._mismatch_shown:
            return
        self._mismatch_shown = squares
        journal.write(ev.ResumeMismatch(round(now, 3), expected.fen(),
                                        squares=[sq for sq, _, _ in wrong],
                                        expected=[e for _, e, _ in wrong],
                                        seen=[s for _, _, s in wrong]))
        where = "; ".join(f"{sq} should be {PIECE_NAMES[e]}, is {PIECE_NAMES[s]}"
                          for sq, e, s in wrong)
        self.out(f"RESUME: the board does not show the position after move "
                 f"{self.resumed_ply} of the journal (squares {[sq for sq, _, _ in wrong]}: "
                 f"{where}). Put it right: recording goes on when it matches.")

    def _handle(self, event, now: float, journal: Journal) -> None:
        if event.kind == "setup" and event.start and self.clock_comments:
            # the start position set up again (or shown on --resume): the tracker began
            # a new game, so the journal, the clock and the PDN begin one too
            self.clock, self.clock_comments, self.started = Clock(self.control), {}, False
            self.resumed_ply = None
            self._game_start(journal)
            self.out("NEW GAME: the board shows the start position")
        if event.kind == "setup" and not self.started:
            self.started = True
            self.clock.start(now, self.tracker.position.turn)
        if event.kind == "move":
            self.clock.press(now)
            state = self.clock.state(now)
            comment = clock_comment(state)
            self.clock_comments[self.tracker.game.ply] = [comment]
            text, simple = self._pdn_text()
            # the hall cannot rebuild a record that goes on from a FEN: it gets the text
            journal.write(ev.RecordedMove(event, state, comment,
                                          record_pdn=None if simple else text))
            self._write_pdn(text)
            self.out(f"{event.notation}  ({comment})")
        else:
            journal.write(ev.Tracked(event))
        if event.kind == "irregular":
            self.irregular += 1
            self.out(f"ARBITER: irregular {event.article}: {event.message_en} "
                     f"(squares {list(event.squares)})")
        if event.kind == "move":
            self._show(now, f"{event.ply}. {event.notation}")
        elif event.kind == "irregular":
            self._show(now, f"irregular {event.article}: {event.message_en}")
        else:
            self._show(now)

    def _pdn_text(self) -> tuple[str, bool]:
        """The live PDN, and whether it is the usual one-segment record."""
        from damas.hall.board import live_pdn

        record = self.tracker.record
        if len(record.segments) == 1:  # the usual case: clock times as move comments
            return live_pdn(self.tags, record.segments[0].game, self.clock_comments), True
        return record.pdn(**self.tags), False  # an accepted irregularity: from a FEN on

    def _write_pdn(self, text: str) -> None:
        from damas.calibration.store import atomic_write_text

        atomic_write_text(self.pdn_path, text)
        if self.display is not None:
            self.display.set_pdn(text)


class _Published:
    """The journal, each event also handed to the hall's publisher once it is on disk."""

    def __init__(self, journal: Journal, publisher):
        self.journal, self.publisher = journal, publisher

    def write(self, event: ev.Event) -> dict:
        line = self.journal.write(event)
        self.publisher.publish(line)
        return line

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.journal.close()


def _clock_problem(move: dict) -> str | None:
    """What a journal's move event lacks for the record's clock, or None."""
    clock = move.get("clock")
    if not isinstance(clock, dict) or not all(
            isinstance(clock.get(side), int | float) and not isinstance(clock.get(side), bool)
            and math.isfinite(clock[side]) and clock[side] >= 0 for side in ("white", "black")):
        return "the clock times"
    if not isinstance(move.get("clock_comment"), str):
        return "the clock comment"
    return None
