"""How long to think: a soft deadline (no new iteration starts after it) and a hard one
(the search is cut), in seconds from now, from a `Limit`.

- a fixed move time is used whole (less a small margin for answering);
- a clock gives the remaining time divided by the moves still to play, plus most of the
  increment, and never more than a fraction of what is left, so the flag never falls;
- depth or node limits alone have no deadline.

>>> budget(Limit(movetime=2.0))
(1.95, 1.95)
>>> soft, hard = budget(Limit(time=60, inc=1)); round(soft, 2), round(hard, 2)
(3.2, 9.6)
"""

from __future__ import annotations

from .limits import Limit

DEFAULT_MOVES_TO_GO = 25  # a guess of the moves still to play with a clock and no control
ANSWER_MARGIN = 0.05  # seconds kept to answer and for the protocol round trip
MAX_SHARE_OF_CLOCK = 0.2  # never spend more than this share of the remaining time


def budget(limit: Limit, share: float = 1.0) -> tuple[float | None, float | None]:
    """(soft, hard) seconds for this move, or (None, None) without a time limit."""
    if limit.movetime is not None:
        t = max(0.01, limit.movetime - min(ANSWER_MARGIN, 0.1 * limit.movetime)) * share
        return t, t
    if limit.time is None:
        return None, None
    remaining = max(0.0, limit.time)
    moves = limit.moves_to_go or DEFAULT_MOVES_TO_GO
    target = remaining / moves + 0.8 * limit.inc
    ceiling = max(0.01, min(remaining * MAX_SHARE_OF_CLOCK + 0.5 * limit.inc,
                            remaining - ANSWER_MARGIN))
    soft = min(target, ceiling) * share
    hard = min(target * 3, ceiling) * share
    return max(0.01, soft), max(0.01, hard)
