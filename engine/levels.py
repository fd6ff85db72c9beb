"""Levels 1-10: how much of its strength the built-in engine uses.

The low levels search shallowly and add noise to the score of each root move, so they
play legal, plausible moves (captures are compulsory anyway) but miss combinations and
sometimes leave a man hanging, like a beginner. Each level searches deeper or longer,
with less noise, than the one below; level 10 searches with all the time it is given.

>>> LEVELS[1].max_depth, LEVELS[10].time_share
(1, 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import EngineSpecError


@dataclass(frozen=True)
class Level:
    number: int
    max_depth: int | None  # plies (captures are searched beyond it); None: no cap
    noise: int  # spread of the random offset added to each root move, 1/100 man
    time_share: float  # share of the time budget it may use


LEVELS: dict[int, Level] = {lv.number: lv for lv in (
    Level(1, 1, 150, 1.0),
    Level(2, 2, 90, 1.0),
    Level(3, 2, 40, 1.0),
    Level(4, 3, 25, 1.0),
    Level(5, 4, 12, 1.0),
    Level(6, 5, 5, 1.0),
    Level(7, 6, 0, 0.25),
    Level(8, 8, 0, 0.25),
    Level(9, None, 0, 0.4),
    Level(10, None, 0, 1.0),
)}
# Each level has a depth cap at least as deep, a time share at least as large and less
# noise than the one below. Without a clock or move time, levels 9 and 10 (no depth cap)
# think for one second; the others search to their depth.

DEFAULT_LEVEL = 10


def level(number: int | None) -> Level:
    if number is None:
        return LEVELS[DEFAULT_LEVEL]
    try:
        return LEVELS[int(number)]
    except (KeyError, ValueError):
        raise EngineSpecError(f"level {number!r} does not exist (1 to 10)") from None
