"""A game against the machine on a real board: the camera watches, the tracker turns what
it sees into moves, the engine answers, the robot (or a person guided by the LED grid)
carries the answer out, and the camera confirms it before play goes on.

Nothing is taken on trust: after a machine move the board must show the position the
move leads to. Anything else is put right by the robot, or lit and shown for a person to
put right, never ignored. A device that goes away (camera, serial port, engine) pauses
the session with a message saying which; play goes on when it is back, the game as it
was. Every event goes to the journal; the PDN is rewritten atomically after every move,
after the `earlier` games the file held (see `damas.pdnfile`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from damas.rules import BLACK, WHITE, Color, Game, Move, Occupancy, Position, Tracker
from damas.rules import variant as get_variant
from damas.rules.pdn import PdnGame, write_pdn
from damas.rules.tracker.confirm import MoveCheck
from damas.vision.feed import CameraLost

from . import events as ev
from .interfaces import Display, Mover, Timer, Watch
from .journal import Journal, Replay
from .pause import Stopped, wait_for_device
from .pdnfile import after

SIDE_NAMES = {WHITE: "white", BLACK: "black"}
ENGINE_MAX_RETRY = 60.0  # seconds: the longest wait between tries of a failing engine


@dataclass
class PlayOptions:
    variant: str = "international"
    engine: str = "builtin:level=5"  # any engine spec of `damas match`
    movetime: float | None = None  # seconds a move for engines without a level
    machine_sides: tuple[Color, ...] = (BLACK,)  # the sides the engine plays
    settle: float = 1.0  # seconds the board must stay before a move counts
    retry: float = 2.0  # seconds between attempts to get a lost device back
    corrections: int = 2  # the robot's attempts to put a board right before a person must
    max_plies: int | None = None
    idle_limit: float | None = None  # seconds a person may leave the game (kiosk)
    tags: dict = field(default_factory=dict)
    fen: str | None = None  # the position play starts from (default: the start)


class PlaySession:
    def __init__(self, options: PlayOptions, watch: Watch, mover: Mover, journal: Journal,
                 pdn: str | Path, *, replay: Replay | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 wait: Callable[[float], object] = time.sleep,
                 out: Callable[[str], object] = print, display: Display | None = None,
                 stop: Callable[[], bool] = lambda: False, timer: Timer | None = None,
                 on_move: Callable[[int, str, str], object] | None = None,
                 earlier: str = "", board_every: int = 1):
        self.o = options
        self.variant = get_variant(options.variant)
        self.watch = watch
        self.mover = mover
        self.journal = journal
        self.pdn_path = Path(pdn)
        self.earlier = earlier  # the games the PDN file held before this one
        self.clock = clock
        self.wait = wait
        self.out = out
        self.display = display
        self.stop = stop
        self.timer: Timer = timer or (lambda part: nullcontext())  # where the time goes
        self.on_move = on_move  # (ply, notation, "machine" or "person") once it is recorded
        # the board is printed every this many plies, with the moves since (0: never)
        self.board_every = board_every
        self.unprinted: list[tuple[int, str]] = []  # (ply, notation) since the last board
        self.pdn_text = ""  # this game's PDN as last written (the file holds earlier ones)
        self.engine = None
        self.replay = replay  # the journal's game this session resumes
        game = replay.game if replay is not None else None
        fen = options.fen if game is None else None
        self.tracker = Tracker(self.variant, fen, game=game if game and game.moves else None,
                               policy="robot", settle=options.settle)
        self.start = (game.start if game is not None else
                      Position.from_fen(fen, self.variant) if fen else
                      Position.start(self.variant))
        self.ready = False
        self.now = clock()
        self.last_progress = self.now
        self.expecting: Move | None = None
        self.ended: str | None = None  # why the game ended early: "abandoned", "stopped"
        self.arrow: dict | None = None  # the engine's move while it is carried out
        self.used = {WHITE: 0.0, BLACK: 0.0}  # each side's time on its moves, for the page
        self.turn_since: float | None = None  # when the side to move began thinking

    @property
    def game(self) -> Game:
        return self.tracker.game

    @property
    def flagged(self) -> bool:
        """A person's irregular move is flagged (shown, lit) until the board is put back."""
        return self.tracker.irregular is not None

    # --- the whole game -----------------------------------------------------------------

    def run(self) -> Game:
        if self.display is not None:  # a kiosk's next game: the last one's result goes
            self.display.update(result=None, reason=None)
        if self.replay is not None:  # the game so far, whole: later resumes start here
            self.journal.write(self.replay.resumed_event())
        else:
            self.journal.write(ev.GameStart(self.variant.name, self.game.start_fen,
                                            tags=dict(self.o.tags), engine=self.o.engine,
                                            machine=[SIDE_NAMES[s]
                                                     for s in self.o.machine_sides]))
        try:
            self._await_setup()
            while not self._finished():
                if self.tracker.position.turn in self.o.machine_sides and \
                        self.tracker.irregular is None:
                    self._machine_move()
                else:
                    self._feed(self._look())
        except Stopped:
            self.ended = self.ended or "stopped"
        finally:
            if self.engine is not None:
                self.engine.close()
        self._end()
        return self.game

    def _finished(self) -> bool:
        if self.game.outcome() is not None:
            return True
        if self.o.max_plies is not None and self.game.ply >= self.o.max_plies:
            self.ended = "move limit"
            return True
        if self.o.idle_limit is not None and self.now - self.last_progress > self.o.idle_limit:
            self.ended = "abandoned"
            return True
        if self.stop():
            self.ended = "stopped"
            return True
        return False

    def _end(self) -> None:
        outcome = self.game.outcome()
        result = outcome.result if outcome else "*"
        reason = outcome.reason if outcome else self.ended
        self.journal.write(ev.GameEnd(result, reason, self.game.ply))
        self._write_pdn(result)
        self._print_board(final=True)
        if self.display is not None:
            self.display.update(result=result, reason=reason)
        self._status(f"game over: {result} ({reason})")

    # --- seeing ---------------------------------------------------------------------------

    def _look(self) -> Occupancy | None:
        while True:
            try:
                with self.timer("vision"):
                    squares = self.watch.look()
            except CameraLost as e:
                self._pause("camera", str(e), self.watch.reopen)
                self.watch.refresh()
                continue
            self.now = self.clock()
            return squares

    def _feed(self, squares: Occupancy | None) -> None:
        with self.timer("tracker"):
            events = []
            if squares is not None:
                events += self.tracker.observe(squares.at(self.now))
            events += self.tracker.tick(self.now)
        for event in events:
            self._handle(event)

    def _handle(self, event) -> None:
        self.last_progress = self.now
        if event.kind == "setup":
            self.ready = True
            self.turn_since = self.now
            self.journal.write(ev.Setup(self.tracker.position.fen()))
            self._status("the board is set up")
        elif event.kind == "move":
            by_machine = self.expecting is not None and event.move == self.expecting
            if not by_machine:
                self.mover.moved_by_hand(event.move)
            self._clock_moved()
            self.arrow = None
            self.journal.write(ev.PlayedMove(event.notation, event.fen, event.ply,
                                             by="machine" if by_machine else "person"))
            self._write_pdn()
            by = "machine" if by_machine else "person"
            line = f"{numbered(event.ply, event.notation)}  ({by})"
            self._status(line, echo=self.board_every == 1)
            self.unprinted.append((event.ply, event.notation))
            self._print_board()
            if self.on_move is not None:
                self.on_move(event.ply, event.notation, by)
        else:
            self.journal.write(ev.Tracked(event, keep_move=False))
            if event.kind == "irregular":
                self.mover.show(event.squares, event.message_en)
                self._status(irregular_line(event))
            elif event.kind == "restored":
                self.mover.clear()
                self._status("the board is right again")

    def _await_setup(self) -> None:
        """The board must show the game's position (the start, or where a resumed game
        stands) before anyone moves; a difference is shown until it is put right."""
        want = Occupancy.of_position(self.tracker.position)
        shown: list[int] = []
        while not self.ready:
            if self.stop():
                raise Stopped
            squares = self._look()
            self._feed(squares)
            if squares is None or self.ready:
                continue
            diff = squares.differing(want)
            if diff and diff != shown:
                shown = diff
                self.journal.write(ev.BoardDiffers(diff))
                self.mover.show(diff, "set the board up as shown")
                self._status(f"set the board up: squares {diff} differ from "
                             f"{self.tracker.position.fen()}")
        if shown:
            self.mover.clear()

    # --- the machine's move -------------------------------------------------------------

    def _machine_move(self) -> None:
        position = self.tracker.position
        move = self._think()
        notation = position.notation(move)
        self.journal.write(ev.EngineMove(notation))
        self.arrow = {"path": list(move.path)}  # on the page until the move is seen made
        # the page's status while the robot moves; the move is printed and logged once,
        # when the camera has seen it played
        self._status(f"{numbered(self.game.ply + 1, notation)}: the machine plays",
                     echo=False, log=False)
        self._robot(lambda: self.mover.play(move))
        self._confirm(move, position)

    def _think(self) -> Move:
        """The engine's move. An engine that fails (crashed, silent, unreachable) pauses
        the session: it is tried again after 2, 4, 8 … up to 60 seconds, with one
        `paused` line in the journal and one `continued` when it answers. A spec that can
        never work was refused before the game (`damas.engine.check_spec`)."""
        from damas.engine import EngineEndedGame, EngineError, EngineSpecError, Limit
        from damas.engine.limits import NO_LIMIT

        limit = Limit(movetime=self.o.movetime) if self.o.movetime else NO_LIMIT
        answer = []

        def attempt() -> None:
            try:
                answer.append(self._engine_move(limit))
            except EngineEndedGame as e:  # an answer too, not a failure to retry
                answer.append(e)

        try:
            attempt()
        except EngineSpecError:
            raise
        except EngineError as e:
            self._pause("engine", str(e), attempt, max_retry=ENGINE_MAX_RETRY)
        result = answer[-1]
        if isinstance(result, EngineEndedGame):  # a DXP engine ended the game: it ends here
            self.ended = str(result)
            raise Stopped
        if result.info is not None and self.display is not None:
            from .web import white_men

            self.display.update(evaluation=white_men(result.info.score,
                                                     self.game.position.turn))
        return result.move

    def _engine_move(self, limit):
        from damas.engine import EngineError, open_engine

        try:
            if self.engine is None:
                self.engine = open_engine(self.o.engine, self.variant)
            with self.timer("engine"):
                return self.engine.play(self.game, limit)
        except EngineError:
            if self.engine is not None:
                self.engine.close()
                self.engine = None
            raise

    def _robot(self, action: Callable[[], object]) -> object:
        """Run a robot action and answer what it answered; False when it cannot be done
        (a person must), None when it failed midway (the board must be looked at). A
        machine that stays unreachable pauses the session until it answers again."""
        from damas.robot.errors import PlanError, RobotError
        from damas.robot.session import ExecutionFailed

        try:
            with self.timer("robot"):
                return action()
        except PlanError as e:
            self.journal.write(ev.RobotCannot(str(e)))
            self._status(f"the robot cannot do it ({e}): please do it by hand")
            return False
        except RobotError as e:
            self.journal.write(ev.RobotFault(str(e)))
            recovered = isinstance(e, ExecutionFailed) and e.run.recovered
            if not recovered:
                self._pause("robot", str(e), self.mover.reconnect)
            return None
        finally:
            self.watch.refresh()

    def _confirm(self, move: Move, before: Position) -> None:
        """Look until the board shows the position after `move`. A robot that did not
        move is asked again and a board that differs is put right by it; otherwise (LED
        grid, or the robot cannot) what differs is shown for a person to put right. Then
        the tracker sees the move made."""
        expected = before.after(move)
        want, unmoved = Occupancy.of_position(expected), Occupancy.of_position(before)
        attempts = 0
        shown: list[int] = []
        shown_at = last = None
        unsure = 0
        check = MoveCheck(before, expected)  # a square misread now and then is outvoted
        while True:
            if self.stop():
                raise Stopped
            squares = self._look()
            if squares is None:
                continue
            judged = check.judge(squares.at(None))
            if judged == "done":
                break
            if squares.readings != last:  # a person at work: judge the board once it stays
                last, since = squares.readings, self.now
            if (squares.unread or judged is None) and unsure < 10:
                unsure += 1  # a square not read yet, or in doubt: another frame
                continue
            robot = self.mover.acts and attempts < self.o.corrections and not shown
            if squares.colours == unmoved.colours and not robot and not shown:
                continue  # the person has not begun the move the LEDs show
            if not self.mover.acts and self.now - since < self.o.settle:
                continue
            diff = squares.differing(want)
            if robot:
                attempts += 1
                self.journal.write(ev.Mismatch(diff, str(squares), attempts))
                if squares.colours == unmoved.colours:  # nothing moved: the move again
                    self._status(f"the board still shows the position before {move.short}: "
                                 "playing it again")
                    action: Callable[[], object] = partial(self.mover.play, move)
                else:
                    self._status(f"the board differs from {move.short} on squares {diff}: "
                                 "putting it right")
                    action = partial(self.mover.correct, squares.colours_seen(), expected)
                if self._robot(action) is not False:  # it acted, or failed midway: look
                    continue
            if diff != shown:
                shown, shown_at = diff, self.now
                self.journal.write(ev.Shown(diff))
                self.mover.show(diff, f"make the board show {move.short}")
                self._status(f"please put the board right: squares {diff} "
                             f"(the machine played {move.short})")
            elif self.o.idle_limit is not None and shown_at is not None and \
                    self.now - shown_at > self.o.idle_limit:
                self.ended = "board not put right"
                raise Stopped
        self.mover.clear()
        self.expecting = move
        try:
            ply = self.game.ply
            while self.game.ply == ply and not self.game.outcome():
                self._feed(squares)
                if self.game.ply == ply:
                    squares = self._look()
        finally:
            self.expecting = None

    # --- devices that go away -------------------------------------------------------------

    def _pause(self, device: str, reason: str, attempt: Callable[[], object],
               max_retry: float | None = None) -> None:
        wait_for_device(self.journal, device, reason, attempt, wait=self.wait,
                        retry=self.o.retry, stop=self.stop, status=self._status,
                        max_retry=max_retry)

    # --- output -----------------------------------------------------------------------------

    def _tags(self) -> dict:
        tags = {"Event": "damas", "Date": time.strftime("%Y.%m.%d"), **self.o.tags}
        for side in (WHITE, BLACK):
            key = "White" if side == WHITE else "Black"
            tags.setdefault(key, "damas" if side in self.o.machine_sides else "?")
        return tags

    def _write_pdn(self, result: str | None = None) -> None:
        from damas.calibration.store import atomic_write_text

        pg = PdnGame.from_game(self.game, **self._tags())
        if result:
            pg.result = result
        text = self.pdn_text = write_pdn(pg)
        atomic_write_text(self.pdn_path, after(self.earlier, text))
        if self.display is not None:
            self.display.set_pdn(text)

    def _clock_moved(self) -> None:
        """The side that just moved used the time since its turn began."""
        if self.turn_since is not None:
            mover = self.game.position.turn.opponent  # the tracker has played the move
            self.used[mover] += max(0.0, self.now - self.turn_since)
        self.turn_since = self.now

    def _clocks(self) -> dict | None:
        """Each side's time so far, counting up (a casual game has no time control)."""
        if self.turn_since is None:
            return None
        turn = self.game.position.turn
        used = dict(self.used)
        over = self.game.outcome() is not None or self.ended is not None  # a limit, a stop
        if not over:
            used[turn] += max(0.0, self.now - self.turn_since)
        return {"white": round(used[WHITE], 1), "black": round(used[BLACK], 1),
                "running": None if over else SIDE_NAMES[turn],
                "counting": "up"}

    def _print_board(self, final: bool = False) -> None:
        """The moves since the last board, then the board, every `board_every` plies (at
        1: each move's line and the board, as `damas play` shows a game)."""
        if not self.unprinted or self.board_every <= 0:
            return
        if not final and self.game.ply % self.board_every:
            return
        if self.board_every > 1:
            self.out(move_list(self.unprinted))
        self.unprinted = []
        self.out(self.tracker.position.diagram())

    def _status(self, line: str, echo: bool = True, log: bool = True) -> None:
        """The session's state in a line: printed (`echo`), the page's status and, with
        `log`, a line of the page's event log."""
        if echo:
            self.out(line)
        if self.display is not None:
            from .web import game_view

            self.display.update(**game_view(self.game), status=line, arrow=self.arrow,
                                tags=self._tags(), clocks=self._clocks())
            if log:
                self.display.log(line)


def irregular_line(event) -> str:
    """An irregular move in a line: the article and the message, which names the squares
    itself when they matter (then they are not said twice)."""
    line = f"irregular ({event.article}): {event.message_en}"
    if event.squares and "(squares" not in event.message_en:
        line += f" Squares {', '.join(map(str, event.squares))}."
    return line


def move_list(plies: list[tuple[int, str]]) -> str:
    """Plies numbered as a PDN move text: `1. 32-28 19-23 2. 37-32`, `5... 19-23 6. ...`
    when the list begins with the second mover."""
    words = []
    for k, (ply, notation) in enumerate(plies):
        words.append(numbered(ply, notation) if ply % 2 or k == 0 else notation)
    return " ".join(words)


def numbered(ply: int, notation: str) -> str:
    """A ply numbered as PDN numbers moves: `1. 32-28` for the first ply, `1... 19-23` for
    the answer."""
    number = (ply + 1) // 2
    return f"{number}. {notation}" if ply % 2 else f"{number}... {notation}"
