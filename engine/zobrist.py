"""Zobrist keys: one random 64-bit number per (colour, man/king, square) and one for
Black to move; a position's key is the XOR of the numbers of what is on the board, so a
move updates it with a few XORs. The search uses the key for its transposition table and
for repetitions.

The rules core has no hashing of its own beyond `Position.__hash__`; the tables live here
and are keyed by the single-bit masks of `damas.rules.bitboard` so the search can index
them with the bits it already has in hand.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache

from damas.rules import Position
from damas.rules.bitboard import layout


@dataclass(frozen=True)
class ZobristKeys:
    men: tuple[dict[int, int], dict[int, int]]  # per colour: bit -> key
    kings: tuple[dict[int, int], dict[int, int]]
    black_to_move: int

    def key(self, white: int, black: int, kings: int, turn: int) -> int:
        k = self.black_to_move if turn else 0
        for colour, pieces in ((0, white), (1, black)):
            men, crowned = self.men[colour], self.kings[colour]
            while pieces:
                b = pieces & -pieces
                pieces ^= b
                k ^= crowned[b] if kings & b else men[b]
        return k

    def of(self, position: Position) -> int:
        return self.key(position.white, position.black, position.kings, int(position.turn))


@cache
def zobrist(size: int) -> ZobristKeys:
    rng = random.Random(0x5EED_0000 + size)  # fixed: keys are the same in every run
    bits = layout(size).bit_of[1:]

    def table() -> dict[int, int]:
        return {b: rng.getrandbits(64) for b in bits}

    return ZobristKeys((table(), table()), (table(), table()), rng.getrandbits(64))
