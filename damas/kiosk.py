"""Kiosk mode: a robot that runs unattended all day.

Game after game: the robot sets the board up (from whatever is on it and in the trays),
then either plays itself slowly while nobody is there (attract play) or plays a visitor
who asked for a game (the web page's "new game" button, or `new_game()`). A visitor who
walks away ends the game after `idle_limit`; a visitor's request stops an attract game
at once. Any fault (camera, serial line, firmware reset, engine) pauses and recovers by
itself; an error that no recovery explains is logged, and the kiosk starts over with a
fresh board setup rather than stopping.

Every game goes to one journal and, when it ends, to an archive PDN rewritten
atomically, so the archive always holds every finished game; a game cut short by a
crash is archived from the journal when the kiosk starts again.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

from damas.rules import BLACK, WHITE, Color, DamasError, Occupancy, Position
from damas.rules import variant as get_variant
from damas.rules.pdn import PdnGame, write_pdn

from . import events as ev
from .journal import Journal, JournalError, NoGame, replay_last_game
from .paths import data_dir
from .pause import Stopped, wait_for_device
from .play import PlayOptions, PlaySession


@dataclass
class KioskOptions:
    play: PlayOptions
    visitor_side: int = WHITE
    attract_plies: int = 120  # an attract game ends (and the board is reset) after this
    idle_limit: float = 180.0  # seconds a visitor may leave a game before it is given up
    # the platform's data folder unless given (damas.paths)
    archive: str = field(default_factory=lambda: str(data_dir() / "kiosk.pdn"))
    journal: str = field(default_factory=lambda: str(data_dir() / "kiosk.jsonl"))
    current: str = field(  # the live PDN of the game under way
        default_factory=lambda: str(data_dir() / "kiosk-current.pdn"))


class Kiosk:
    def __init__(self, options: KioskOptions, watch, mover, *, clock=time.monotonic,
                 wait=time.sleep, out=print, display=None, on_game_start=None):
        self.o = options
        self.variant = get_variant(options.play.variant)
        self.watch = watch
        self.mover = mover
        self.clock = clock
        self.wait = wait
        self.out = out
        self.display = display
        self.on_game_start = on_game_start  # (visitor: bool, session) for simulations
        self.requested = threading.Event()
        self.stopping = threading.Event()
        self.session: PlaySession | None = None
        self.games = 0
        self.errors = 0
        if display is not None:
            display.actions["new-game"] = self.new_game

    def new_game(self) -> None:
        """A visitor wants to play: the attract game stops, the board is reset."""
        self.requested.set()

    def stop(self) -> None:
        """End the kiosk (from another thread): the game under way ends and is archived."""
        self.stopping.set()

    def run(self, games: int | None = None) -> int:
        with Journal(self.o.journal) as journal:
            self._archive_unfinished(journal)
            while (games is None or self.games < games) and not self.stopping.is_set():
                try:
                    self._one_game(journal)
                except Stopped:  # asked to stop while setting up
                    break
                except DamasError as e:  # unattended: log it, set up again, go on
                    self.errors += 1
                    journal.write(ev.KioskError(str(e)))
                    self.out(f"kiosk: {e}; starting over")
                    self._archive_unfinished(journal)
                    self.wait(self.o.play.retry)
        return self.games

    def _one_game(self, journal: Journal) -> None:
        start = Position.start(self.variant)
        self._set_up(start, journal)
        visitor = self.requested.is_set()
        self.requested.clear()
        machine = (Color(1 - self.o.visitor_side),) if visitor else (WHITE, BLACK)
        options = replace(self.o.play, machine_sides=machine,
                          idle_limit=self.o.idle_limit if visitor else None,
                          max_plies=None if visitor else self.o.attract_plies,
                          tags={**self.o.play.tags, "Event": "damas kiosk",
                                "Round": str(self.games + 1)})

        def stop() -> bool:
            return self.stopping.is_set() or (not visitor and self.requested.is_set())

        self.session = PlaySession(options, self.watch, self.mover, journal, self.o.current,
                                   clock=self.clock, wait=self.wait, out=self.out,
                                   display=self.display, stop=stop)
        if self.on_game_start is not None:
            self.on_game_start(visitor, self.session)
        self.out(f"kiosk game {self.games + 1}: "
                 + ("a visitor plays" if visitor else "attract play"))
        try:
            self.session.run()
        finally:
            self.session.mover.clear()
        self._archive(Path(self.o.current).read_text(encoding="utf-8"))
        self.games += 1

    def _set_up(self, start: Position, journal: Journal) -> None:
        """The robot sets the start position up and the camera must agree; what differs
        is corrected. A machine that stops answering is waited for."""
        from damas.robot.errors import RobotError

        journal.write(ev.KioskReset())
        want = Occupancy.of_position(start)
        action = partial(self.mover.reset, start)
        for _ in range(4):
            try:
                action()
            except RobotError as e:
                journal.write(ev.KioskResetFailed(str(e)))
                self._wait_for("robot", str(e), self.mover.reconnect, journal)
            self.watch.refresh()
            seen = self._settled(journal)
            diff = seen.differing(want)
            if not diff:
                return
            journal.write(ev.KioskResetDiffers(diff))
            action = partial(self.mover.correct, seen.colours_seen(), start)
        # the game's session shows what still differs until someone puts it right

    def _settled(self, journal: Journal) -> Occupancy:
        from damas.vision.feed import CameraLost

        while True:
            try:
                squares = self.watch.look()
            except CameraLost as e:
                self._wait_for("camera", str(e), self.watch.reopen, journal)
                continue
            if squares is not None and not squares.unread:
                return squares

    def _wait_for(self, device: str, reason: str, attempt, journal: Journal) -> None:
        wait_for_device(journal, device, reason, attempt, wait=self.wait,
                        retry=self.o.play.retry, stop=self.stopping.is_set, status=self.out)

    # --- the record -------------------------------------------------------------------------

    def _archive(self, pdn_text: str) -> None:
        from damas.calibration.store import atomic_write_text

        from .pdnfile import after, earlier_games

        path = Path(self.o.archive)  # earlier_games: the archive may not be UTF-8
        atomic_write_text(path, after(earlier_games(path), pdn_text.strip() + "\n"))

    def _archive_unfinished(self, journal: Journal) -> None:
        """A game left without an end (the last run crashed or lost power, or an error cut
        it short) is archived as unfinished before the kiosk begins again: as much of it
        as the journal holds undamaged. The kiosk starts whatever the journal holds."""
        try:
            replay = replay_last_game(self.o.journal)
        except NoGame:
            return
        except JournalError as e:  # a game no line of which can be read back
            journal.write(ev.JournalDamaged(str(e)))
            self.out(f"kiosk: the journal's last game cannot be archived: {e}")
            return
        if any(e.get("kind") == "game-end" for e in replay.events + replay.dropped):
            return  # it ended, and was archived then
        if replay.lost:
            journal.write(ev.JournalDamaged(replay.lost))
            self.out(f"kiosk: the journal is damaged: {replay.lost}")
        game = replay.game
        journal.write(ev.GameEnd("*", "interrupted", game.ply))
        self._archive(write_pdn(PdnGame.from_game(game, Event="damas kiosk", Result="*")))
        self.out(f"archived the game the last run left unfinished ({game.ply} plies)")

