"""Perft: count the leaf positions of the legal-move tree, the standard test of a move
generator. Moves are counted once per distinct result (rules.md, "counting convention")."""

from __future__ import annotations

from .movegen import perft as _perft
from .position import Position


def perft(position: Position, depth: int) -> int:
    own, opp = position._sides()
    return _perft(position.rules, own, opp, position.kings, int(position.turn), depth)


def divide(position: Position, depth: int) -> dict[str, int]:
    """Leaf count below each legal move, keyed by its notation."""
    out = {}
    for move in position.legal_moves():
        out[position.notation(move)] = perft(position.after(move), depth - 1)
    return out
