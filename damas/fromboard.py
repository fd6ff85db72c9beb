"""`--from-board`: a game goes on from the position the camera sees. An adjourned game, a
recorder replaced mid-game without its journal, or an endgame set up to practise starts
where the board stands, once the person has confirmed what was read."""

from __future__ import annotations

import sys
from collections.abc import Callable

from damas.rules import BLACK, WHITE, DamasError, Occupancy, Position
from damas.rules import variant as get_variant

SIDES = {"white": WHITE, "black": BLACK}


def ask_on_terminal(position: Position) -> bool:
    """On a terminal, the person says whether the board was read right; without one the
    position is taken as read (it was printed)."""
    if not sys.stdin.isatty():
        return True
    answer = input("start from this position? [Y/n] ").strip().lower()
    return answer in ("", "y", "yes", "s", "sim")


def board_position(look: Callable[[], Occupancy | None], variant: str, to_move: str,
                   confirm: Callable[[Position], bool] = ask_on_terminal,
                   out: Callable[[str], object] = print) -> tuple[Position, Occupancy]:
    """The first board `look` gives whole (every square read), shown and confirmed, with
    `to_move` ("white" or "black") to move; read again after a person puts it right. `look`
    answers a settled board or None, and raises when the camera's frames end."""
    v = get_variant(variant)
    out(f"reading the board: {to_move} to move")
    while True:
        seen = look()
        if seen is None or seen.unread:
            continue
        pieces = {s: r for s, r in enumerate(seen.readings, 1) if r in "wbWB"}
        try:
            position = Position.from_pieces(v, pieces, SIDES[to_move])
        except DamasError as e:
            out(f"the board cannot be played from: {e}")
            continue
        out(f"{position.diagram()}\nFEN {position.fen()}")
        if confirm(position):
            return position, seen
        out("put the board right; reading it again")
