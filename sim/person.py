"""The boards a person shows while making a move: the piece lifted, put down on each
landing square of a capture, then the captured pieces taken off one by one. Used to
simulate a player (bench, tests, a simulated camera); pieces are {square: 'w'|'b'|'W'|'B'}.
"""

from __future__ import annotations

from collections.abc import Iterable

from damas.rules.move import Move
from damas.rules.position import Position


def move_steps(position: Position, move: Move, removal: Iterable[int] | None = None,
               remove_first: bool = False, stops: bool = True) -> list[dict[int, str]]:
    """Boards from just after the piece is lifted to the position after the move.

    `removal` orders the captured pieces (jump order by default); `remove_first` takes
    them off before the piece lands (a common habit); `stops` puts the piece down on every
    landing square of a chain on its way."""
    pieces = dict(position.pieces())
    piece = pieces.pop(move.start)
    boards = [dict(pieces)]
    order = list(move.captured if removal is None else removal)
    if remove_first:
        for sq in order:
            pieces.pop(sq)
            boards.append(dict(pieces))
    if stops:
        for sq in move.path[1:-1]:
            boards.append({**pieces, sq: piece})
    final = piece.upper() if move.promotion else piece
    pieces[move.end] = final
    boards.append(dict(pieces))
    if not remove_first:
        for sq in order:
            pieces.pop(sq)
            boards.append(dict(pieces))
    return boards
