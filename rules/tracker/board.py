"""What one observation of the board says, as bit masks the tracker can compare.

An observation gives one reading per dark square in Manoury order: `e` empty, `w`/`b` a
man seen, `W`/`B` a king seen (a crown on top), `?` unknown (occluded or unreadable).
Vision may also report pieces standing on light squares, named like a1 squares in the
Brazilian style (`b1` is the light square right of White's corner square 46 on 10x10).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from ..bitboard import layout
from ..errors import DamasError
from ..geometry import FILES, clip, geometry
from ..variant import Variant

READINGS = "ewbWB?"
CLASSES = "ewbWB"  # the classes of a square's probabilities, in this order
LETTER_SURE = 0.99  # a one-letter reading is taken as right this often
PIECE_READINGS = "wbWB"


class ObservationError(DamasError):
    """An observation that cannot be read (wrong length, unknown reading, bad light square)."""


@dataclass(frozen=True)
class Observation:
    """One settled snapshot of the board."""

    squares: str  # one reading per dark square, square 1 first
    time: float | None = None  # seconds; None: one settle time after the previous one
    light: tuple[tuple[str, str], ...] = ()  # (light square such as "b1", reading w b W B)
    # per dark square, P(e, w, b, W, B) (None: not read, `?`); () when only the letters
    # were given, each then right with probability LETTER_SURE
    probabilities: tuple[tuple[float, ...] | None, ...] = ()

    def class_probabilities(self) -> tuple[tuple[float, ...] | None, ...]:
        """What the decoder scores: the probabilities given, or the letters'."""
        if self.probabilities:
            return self.probabilities
        return tuple(letter_probabilities(c) for c in self.squares)

    @classmethod
    def from_pieces(cls, variant: Variant, pieces: dict[int, str], time: float | None = None,
                    unknown: tuple[int, ...] = (), light: tuple[tuple[str, str], ...] = ()
                    ) -> Observation:
        """The observation of a board holding `pieces` ({square: 'w'|'b'|'W'|'B'})."""
        chars = []
        for sq in range(1, variant.squares + 1):
            chars.append("?" if sq in unknown else pieces.get(sq, "e"))
        return cls("".join(chars), time, tuple(light))


def letter_probabilities(letter: str) -> tuple[float, ...] | None:
    """A one-letter reading as class probabilities (None for `?`: nothing is known)."""
    if letter == "?":
        return None
    rest = (1.0 - LETTER_SURE) / (len(CLASSES) - 1)
    return tuple(LETTER_SURE if c == letter else rest for c in CLASSES)


@dataclass(frozen=True)
class Board:
    """An observation as masks in the bitboard layout. `known` excludes `?` squares; the
    colour masks only hold known squares; `kings` holds the squares where a crown was seen."""

    white: int
    black: int
    kings: int
    known: int
    light: tuple[tuple[str, str], ...] = ()

    @property
    def occupied(self) -> int:
        return self.white | self.black

    def colour(self, side: int) -> int:
        return self.black if side else self.white

    def replace(self, **changes: Any) -> Board:
        return dataclasses.replace(self, **changes)


def read_board(variant: Variant, observation: Observation) -> Board:
    """The masks of an observation, checked against the variant's board."""
    lay = layout(variant.size)
    text = observation.squares
    if len(text) != variant.squares:
        raise ObservationError(f"expected {variant.squares} square readings for "
                               f"{variant.name}, found {len(text)}")
    white = black = kings = known = 0
    for index, reading in enumerate(text):
        bit = lay.bit_of[index + 1]
        if reading == "e":
            known |= bit
        elif reading in "wW":
            white |= bit
            known |= bit
        elif reading in "bB":
            black |= bit
            known |= bit
        elif reading != "?":
            raise ObservationError(f"square {index + 1}: unknown reading {reading!r} "
                                   f"(use one of {READINGS})")
        if reading in "WB":
            kings |= bit
    for name, reading in observation.light:
        light_square(variant.size, name)
        if reading not in PIECE_READINGS:
            raise ObservationError(f"light square {name}: unknown reading {reading!r} "
                                   f"(use one of {PIECE_READINGS})")
    light = tuple(sorted(observation.light))
    return Board(white, black, kings, known, light)


def board_of(position) -> Board:
    """The board a position shows, every square known and kings crowned."""
    return Board(position.white, position.black, position.kings, position.layout.valid)


# --- light squares ---------------------------------------------------------------------

def light_square(size: int, name: str) -> tuple[int, int]:
    """(row, column) of a light square named like `b1`; row 0 is Black's side."""
    text = name.strip().lower()
    m = re.fullmatch(r"([a-j])([0-9]{1,2})", text)
    if m and m.group(1) in FILES[:size]:
        row, col = size - int(m.group(2)), FILES.index(m.group(1))
        if 0 <= row < size and (row + col) % 2 == 0:
            return row, col
    raise ObservationError(f"{clip(name)!r} is not a light square of the {size}x{size} "
                           "board (light squares are named like b1, a2)")


@cache
def dark_neighbours(size: int, name: str) -> tuple[int, ...]:
    """The dark squares sharing an edge with a light square: where a piece found on it
    most likely slid from."""
    row, col = light_square(size, name)
    g = geometry(size)
    found = (g.square_at(row + dr, col + dc) for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)))
    return tuple(sorted(sq for sq in found if sq is not None))
