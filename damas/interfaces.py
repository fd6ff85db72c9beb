"""What the play session asks of the world around it: the camera (`Watch`), what moves
the pieces (`Mover`), a screen or page (`Display`) and a stopwatch (`Timer`). Real
devices and the simulated world (damas/simulation.py) both come in through these."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import Protocol

from damas.rules import Move, Occupancy, Position


class Watch(Protocol):
    def look(self) -> Occupancy | None:
        """The board while it is settled, None while something moves or covers it;
        raises CameraLost when the camera goes away."""
        ...

    def refresh(self) -> None:
        """Only frames from now on count (the machine just moved)."""
        ...

    def reopen(self) -> bool: ...


class Mover(Protocol):
    name: str  # "robot" or "leds"
    acts: bool  # True: it moves the pieces itself; False: a person does, as shown

    def play(self, move: Move) -> None: ...

    def moved_by_hand(self, move: Move) -> None: ...

    def correct(self, seen: dict[int, str], wanted: Position) -> bool: ...

    def reset(self, position: Position) -> None: ...

    def show(self, squares: Iterable[int], message: str) -> None: ...

    def clear(self) -> None: ...

    def reconnect(self) -> None: ...

    def close(self) -> None: ...


class Display(Protocol):
    def update(self, **fields: object) -> None: ...

    def log(self, text: str, keep: int = 12) -> None: ...

    def set_pdn(self, text: str) -> None: ...


class Timer(Protocol):
    def __call__(self, part: str, /) -> AbstractContextManager[object]:
        """A context that counts its time towards `part` ("vision", "engine", ...)."""
        ...
