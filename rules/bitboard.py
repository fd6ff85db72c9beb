"""Bitboard layout shared by move generation and positions.

Squares are packed row by row, `size // 2` bits per row, with one unused "ghost" bit after
every two rows. With that gap every diagonal step is a constant shift: `half` or
`half + 1` bits, down (towards White) by shifting left, up by shifting right, and a step
off the left or right edge lands on a ghost bit, which is never part of the board.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from .geometry import geometry


@dataclass(frozen=True)
class Layout:
    size: int
    half: int  # dark squares per row; steps are half and half + 1 bits
    valid: int  # every bit that is a square
    bit_of: tuple[int, ...]  # square -> single-bit mask (index 0 unused)
    square_of: dict[int, int]  # single-bit mask -> square
    crown: tuple[int, int]  # promotion row of WHITE (row 0) and of BLACK (last row)

    def mask(self, squares) -> int:
        m = 0
        for s in squares:
            m |= self.bit_of[s]
        return m

    def squares(self, mask: int) -> list[int]:
        out = []
        while mask:
            b = mask & -mask
            out.append(self.square_of[b])
            mask ^= b
        return out


@cache
def layout(size: int) -> Layout:
    g = geometry(size)
    half = size // 2
    bit_of = [0]
    for sq in g.all_squares:
        index = (sq - 1) + (sq - 1) // size
        bit_of.append(1 << index)
    valid = 0
    for b in bit_of:
        valid |= b
    square_of = {b: sq for sq, b in enumerate(bit_of) if sq}
    top = sum(bit_of[1 : half + 1])
    bottom = sum(bit_of[g.squares - half + 1 :])
    return Layout(size, half, valid, tuple(bit_of), square_of, (top, bottom))
