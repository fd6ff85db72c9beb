"""Board geometry: Manoury numbering, rows and columns, algebraic names.

Seen from White's side, row 0 is the far (Black) row and column 0 is on the left. Dark
squares are those with row + column odd, numbered left to right, top row first
(seed 000 §2.6): on 10x10, 1..5 on row 0 and 46..50 on the bottom row.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .errors import SquareError

FILES = "abcdefghij"


@dataclass(frozen=True)
class Geometry:
    size: int

    @property
    def squares(self) -> int:
        return self.size * self.size // 2

    @property
    def per_row(self) -> int:
        return self.size // 2

    def check(self, square: int) -> int:
        if not isinstance(square, int) or not 1 <= square <= self.squares:
            raise SquareError(f"square {square!r} is not on the {self.size}x{self.size} board "
                              f"(valid: 1..{self.squares})")
        return square

    def row_col(self, square: int) -> tuple[int, int]:
        """(row, column) of a Manoury square, row 0 at Black's side."""
        self.check(square)
        row, index = divmod(square - 1, self.per_row)
        return row, 2 * index + (1 - row % 2)

    def square_at(self, row: int, col: int) -> int | None:
        """The Manoury number at (row, column), or None for a light or off-board square."""
        if not (0 <= row < self.size and 0 <= col < self.size) or (row + col) % 2 == 0:
            return None
        return row * self.per_row + col // 2 + 1

    def algebraic(self, square: int) -> str:
        """Chess-style name, a1 at White's bottom-left dark square (Brazilian usage)."""
        row, col = self.row_col(square)
        return f"{FILES[col]}{self.size - row}"

    def parse(self, text: str) -> int:
        """A square given as a Manoury number ("32") or an algebraic name ("c3"), in ASCII
        digits (`str.isdigit` also takes "²", which `int` refuses)."""
        text = text.strip()
        if _NUMBER.fullmatch(text):
            return self.check(int(text))
        m = _ALGEBRAIC.fullmatch(text)
        if m and m.group(1).lower() in FILES[: self.size]:
            square = self.square_at(self.size - int(m.group(2)), FILES.index(m.group(1).lower()))
            if square is not None:
                return square
        raise SquareError(f"{clip(text)!r} is not a dark square of the {self.size}x{self.size} "
                          "board")

    @property
    def all_squares(self) -> range:
        return range(1, self.squares + 1)


_NUMBER = re.compile(r"[0-9]{1,3}")  # no board has a square number of four digits
_ALGEBRAIC = re.compile(r"([a-zA-Z])([0-9]{1,2})")


def clip(text: str, width: int = 24) -> str:
    """A piece of user input short enough to quote in a one-line message."""
    return text if len(text) <= width else text[:width] + "…"


@cache
def geometry(size: int) -> Geometry:
    if size not in (8, 10):
        raise SquareError(f"board size {size} is not supported (8 or 10)")
    return Geometry(size)
