"""A move: start, landing squares, end, captured squares in jump order, promotion.

Two capture sequences with the same start, end and set of captured pieces reach the same
position, so they are one move: equality and hashing ignore the route and jump order.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, eq=False)
class Move:
    path: tuple[int, ...]  # start, every landing square, end (a quiet move: start, end)
    captured: tuple[int, ...] = ()  # in jump order
    promotion: bool = False

    @property
    def start(self) -> int:
        return self.path[0]

    @property
    def end(self) -> int:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.captured)

    def _key(self) -> tuple:
        return (self.path[0], self.path[-1], frozenset(self.captured))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    @property
    def short(self) -> str:
        """PDN short form: `32-28` or `28x19`."""
        return f"{self.start}{'x' if self.captured else '-'}{self.end}"

    @property
    def long(self) -> str:
        """PDN long form: every landing square, `28x19x8`."""
        if not self.captured:
            return self.short
        return "x".join(str(s) for s in self.path)

    @property
    def hub(self) -> str:
        """Hub protocol form: `from x to x captured x captured ...`."""
        if not self.captured:
            return self.short
        return "x".join(str(s) for s in (self.start, self.end, *self.captured))

    def __str__(self) -> str:
        return self.short

    def __repr__(self) -> str:
        extra = f", captured={list(self.captured)}" if self.captured else ""
        return f"Move({self.long!r}{extra}{', promotion' if self.promotion else ''})"
