"""The board as a camera sees it: one reading per dark square, with how sure it is.

The value that crosses from vision to the play session: the tracker observes it (with a
time), the robot's corrections start from its colours, the journal and the page show its
text form, which is also a line of `damas track`'s observation file (without `t=`).

>>> from damas.rules import Position
>>> seen = Occupancy.of_position(Position.start("english"))
>>> str(seen)
'bbbbbbbbbbbbeeeeeeeewwwwwwwwwwww'
>>> seen.reading(1), seen.colours_seen()[32]
('b', 'w')
>>> Occupancy("e?" + str(seen)[2:]).differing(seen)
[1, 2]
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .errors import DamasError
from .position import Position
from .tracker.board import CLASSES, READINGS, Observation


@dataclass(frozen=True)
class Occupancy:
    readings: str  # e w b W B (king seen) ? (unread) per dark square, square 1 first
    # how sure vision is of each square, 0..1, square 1 first; () when nobody measured it
    # (a simulated camera that sees perfectly, a typed board)
    confidence: tuple[float, ...] = ()
    light: tuple[tuple[str, str], ...] = ()  # pieces on light squares: ("b1", "w"), ...
    # per dark square, P(e, w, b, W, B) (None where unread); () when only the readings
    # are known: the tracker then takes each as right with probability LETTER_SURE
    probabilities: tuple[tuple[float, ...] | None, ...] = ()

    def __post_init__(self) -> None:
        if not set(self.readings) <= set(READINGS):
            raise DamasError(f"readings are one of {READINGS} per square, not {self.readings!r}")
        if self.confidence and len(self.confidence) != len(self.readings):
            raise DamasError(f"{len(self.confidence)} confidences for "
                             f"{len(self.readings)} squares")
        if self.probabilities and len(self.probabilities) != len(self.readings):
            raise DamasError(f"{len(self.probabilities)} probabilities for "
                             f"{len(self.readings)} squares")

    @classmethod
    def of_position(cls, position: Position) -> Occupancy:
        """What a perfect camera shows of `position`."""
        return cls.of_pieces(position.variant.squares, position.pieces())

    @classmethod
    def of_pieces(cls, squares: int, pieces: Mapping[int, str],
                  confidence: Mapping[int, float] | None = None) -> Occupancy:
        """From {square: reading} (squares left out are empty) and {square: confidence}."""
        readings = "".join(pieces.get(s) or "e" for s in range(1, squares + 1))
        sure = tuple(confidence[s] for s in range(1, squares + 1)) if confidence else ()
        return cls(readings, sure, probabilities=_spread(readings, sure))

    def __str__(self) -> str:
        return self.readings

    def reading(self, square: int) -> str:
        return self.readings[square - 1]

    @property
    def colours(self) -> str:
        """The readings with kings as men: a camera may not tell them apart."""
        return self.readings.lower()

    @property
    def unread(self) -> bool:
        return "?" in self.readings

    def colours_seen(self) -> dict[int, str]:
        """Square -> 'w' or 'b' for every piece seen: what a correction starts from."""
        return {s: c for s, c in enumerate(self.colours, 1) if c in "wb"}

    def differing(self, want: Occupancy) -> list[int]:
        """Squares (1-based) whose colour differs from `want`'s, unread ones included."""
        pairs = zip(self.colours, want.colours, strict=True)
        return [i for i, (a, b) in enumerate(pairs, 1) if a != b]

    def at(self, time: float | None) -> Observation:
        """The tracker's observation of this board at `time`."""
        return Observation(self.readings, time, self.light, self.probabilities)


LEAST_SURE = 0.5  # a reading shown is at least this likely (else it would be `?`)
# and never more than this: the readers' confidences are not calibrated against real
# photos (a square read wrong at 0.999 happens), and the game must outvote one square
MOST_SURE = 0.99


def _spread(readings: str, sure: tuple[float, ...]) -> tuple[tuple[float, ...] | None, ...]:
    """Class probabilities from a reading and its confidence: the rest spread evenly."""
    if not sure:
        return ()
    out: list[tuple[float, ...] | None] = []
    for letter, c in zip(readings, sure, strict=True):
        if letter == "?":
            out.append(None)
            continue
        top = min(max(c, LEAST_SURE), MOST_SURE)
        rest = (1.0 - top) / (len(CLASSES) - 1)
        out.append(tuple(top if k == letter else rest for k in CLASSES))
    return tuple(out)
