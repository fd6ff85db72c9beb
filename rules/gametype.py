"""The PDN 3.0 GameType tag, and how the file it heads names the squares.

`GameType "Type[,Start colour,Board width,Board height,Notation[,Invert flag]]"`
(pdn.fmjd.org, "GameType tag"). Notation is `A` (algebraic, a1 like chess) or `N`
(numeric), followed by the corner of the first square (a1 or 1) as seen by the player who
starts: 0 bottom left, 1 bottom right, 2 top left, 3 top right; numbers run along the
rows. The short forms stand for: 20 → `20,W,10,10,N2,0` (Manoury), 21 → `21,B,8,8,N1,0`
(the English numbering, which is Manoury seen from White), 26 → `26,W,8,8,A0,0`.

>>> read_gametype("26").algebraic
True
>>> read_gametype("26,W,8,8,N0,0").numbers[1]  # numbered from White's bottom-left: a1
29
>>> read_gametype("20").numbers is None  # Manoury: nothing to translate
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .errors import DamasError
from .geometry import clip, geometry
from .variant import Variant, by_gametype

_FULL = re.compile(r"\s*([0-9]{1,3})\s*(?:,\s*([WB])\s*,\s*([0-9]{1,2})\s*,\s*([0-9]{1,2})\s*,"
                   r"\s*([ANS])([0-3])\s*(?:,\s*([01])\s*)?)?")
DEFAULT_NOTATION = {20: ("W", "N", 2), 21: ("B", "N", 1), 26: ("W", "A", 0)}


class GameTypeError(DamasError):
    """A GameType tag that is not PDN 3.0, or names a game damas does not play."""


@dataclass(frozen=True)
class GameType:
    variant: Variant
    algebraic: bool  # the file's notation is A: numbers in it are read as Manoury
    numbers: dict[int, int] | None  # the file's square numbers → Manoury; None: the same


def read_gametype(text: str) -> GameType:
    m = _FULL.fullmatch(text)
    if not m:
        raise GameTypeError(f"GameType {clip(text)!r} is not PDN 3.0 (e.g. 20, 21, 26 or "
                            "26,W,8,8,A0,0)")
    number = int(m.group(1))
    v = by_gametype(number)
    if v is None:
        raise GameTypeError(f"GameType {clip(text)!r} is not a variant damas knows "
                            "(20 international, 21 english, 26 brazilian)")
    start, kind, corner = DEFAULT_NOTATION[number]
    if m.group(2):
        width, height = int(m.group(3)), int(m.group(4))
        if (width, height) != (v.size, v.size):
            raise GameTypeError(f"GameType {clip(text)!r}: {v.name} is played on "
                                f"{v.size}x{v.size}, not {width}x{height}")
        if m.group(7) == "1":
            raise GameTypeError(f"GameType {clip(text)!r}: damas plays with a dark square "
                                "in the bottom left corner (invert flag 0)")
        start, kind, corner = m.group(2), m.group(5), int(m.group(6))
    if kind == "S":
        raise GameTypeError(f"GameType {clip(text)!r}: SAN notation is for chess")
    white_corner = corner if start == "W" else 3 - corner  # the board turned round
    if kind == "A":
        if white_corner != 0:
            raise GameTypeError(f"GameType {clip(text)!r}: damas reads algebraic squares "
                                "with a1 at White's bottom left (A0)")
        return GameType(v, True, None)
    return GameType(v, False, _numbers(v.size, white_corner))


@cache
def _numbers(size: int, corner: int) -> dict[int, int] | None:
    """File number → Manoury square for a numbering that starts in `corner` as White
    sees it and runs along the rows; None when that is Manoury itself."""
    g = geometry(size)
    rows = range(size - 1, -1, -1) if corner in (0, 1) else range(size)
    columns = range(size) if corner in (0, 2) else range(size - 1, -1, -1)
    order = [g.square_at(r, c) for r in rows for c in columns]
    squares = [sq for sq in order if sq is not None]
    mapping = {n: sq for n, sq in enumerate(squares, start=1)}
    return None if all(n == sq for n, sq in mapping.items()) else mapping
