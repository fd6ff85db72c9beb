"""Simulated boards for the hall's scale test and `damas bench hall`: each is a real
recorder (damas.record) with a real publisher and spool, fed by a perfect camera (the
board after each move, as damas.simulation's BoardCamera would read it), so what is
measured is the hall, not vision. Game time is simulated (players think 5 to 40 s); wall
time between moves is `pace` seconds, the acceleration."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from damas.clock import parse_time_control
from damas.record import Recorder
from damas.rules import Game, Move
from damas.rules import variant as get_variant

from .publisher import Publisher
from .topics import BoardAddress, Broker

SETTLE = 0.5  # seconds of game time a board stays before it counts


def random_game(variant: str, rng: random.Random, plies: int) -> list[Move]:
    """Up to `plies` random legal moves (fewer when the game ends)."""
    game = Game(variant)
    for _ in range(plies):
        if game.outcome() is not None:
            break
        game.push(rng.choice(game.legal_moves()))
    return list(game.moves)


def squares(variant, pieces: dict[int, str]) -> str:
    return "".join(pieces.get(sq, "e") for sq in range(1, variant.squares + 1))


class SimBoard:
    def __init__(self, broker: Broker, event: str, rnd: str, board: str, folder: Path,
                 variant: str = "english", plies: int = 30, pace: float = 0.0,
                 seed: int = 0, slip_at: int | None = None, out=lambda line: None):
        self.address = BoardAddress(broker, event, rnd, board)
        self.folder = Path(folder)
        self.variant = variant
        self.rng = random.Random(seed)
        self.moves = random_game(variant, self.rng, plies)
        self.pace = pace
        self.slip_at = slip_at  # before this ply a player knocks a piece off (irregular)
        self.out = out
        self.pdn = self.folder / "game.pdn"
        self.journal = self.folder / "record.jsonl"
        self.spool = self.folder / "hall-spool.jsonl"
        self.publisher: Publisher | None = None
        self.played = 0  # plies fed to the recorder so far
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None

    def start(self) -> SimBoard:
        self.thread = threading.Thread(target=self._run, name=f"board {self.address.name}",
                                       daemon=True)
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            self.publisher = Publisher(self.address, self.spool, out=self.out)
            recorder = Recorder(self.variant, parse_time_control("45+0"), self.journal,
                                self.pdn, white=f"White {self.address.board}",
                                black=f"Black {self.address.board}",
                                event=self.address.event, settle=SETTLE, out=self.out,
                                tags={"Round": self.address.round,
                                      "Board": self.address.board},
                                publisher=self.publisher)
            recorder.record_boards(self._boards())
        except BaseException as e:  # the test or bench says which board failed, and how
            self.error = e

    def _boards(self) -> Iterator[tuple[float, str]]:
        v = get_variant(self.variant)
        game = Game(self.variant)
        t = 0.0
        board = squares(v, game.position.pieces())
        yield t, board
        yield t + SETTLE, board
        for ply, move in enumerate(self.moves, start=1):
            if self.stop.is_set():
                return
            if ply == self.slip_at:  # a piece off the board, then put back
                pieces = dict(game.position.pieces())
                pieces.pop(min(pieces))
                t += SETTLE + 2
                yield t, squares(v, pieces)
                yield t + SETTLE, squares(v, pieces)
                t += SETTLE + 2
                yield t, board
                yield t + SETTLE, board
            if self.pace:
                self.stop.wait(self.pace)  # the players' pace, accelerated
            t += SETTLE + self.rng.uniform(5, 40)
            game.push(move)
            board = squares(v, game.position.pieces())
            yield t, board
            yield t + SETTLE, board
            self.played += 1

    def join(self, timeout: float | None = None) -> None:
        if self.thread is not None:
            self.thread.join(timeout)

    def close(self, timeout: float = 10.0) -> None:
        if self.publisher is not None:
            self.publisher.close(timeout)

    @property
    def done(self) -> bool:
        return self.thread is not None and not self.thread.is_alive()


def expected_plies(board: SimBoard) -> int:
    return len(board.moves)


def wait_until(condition, timeout: float, what: str, every: float = 0.05):
    """Waits until `condition()` is true (returns its value), or raises TimeoutError
    saying `what` did not happen."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what} within {timeout:g} s")
        time.sleep(every)
