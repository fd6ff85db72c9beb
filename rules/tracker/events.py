"""The events the tracker emits: plain frozen values, each able to say itself as JSON.

`kind` names the event in JSON (`{"event": "move", ...}`); `time` is the time stamp of the
observation (or commit) that decided it, None when observations carry none.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..move import Move

DOUBT = ("runner_up", "margin", "disagree")  # how sure the board was: left out when unset


@dataclass(frozen=True)
class Event:
    time: float | None

    kind = "event"

    def to_dict(self) -> dict:
        out: dict = {"event": self.kind}
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name == "time":
                if value is not None:
                    out["t"] = round(value, 6)
                continue
            if f.name in DOUBT and not value and value != 0:
                continue  # said only where a decoder weighed the board
            if isinstance(value, Move):
                value = {"path": list(value.path), "captured": list(value.captured)}
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


@dataclass(frozen=True)
class MoveSeen(Event):
    """A legal move was completed on the board (and stayed so for the settle time)."""

    notation: str
    fen: str  # the position after it
    ply: int  # 1 for the first move of the game (or of the position play started from)
    side: str  # "white" or "black": who moved
    move: Move
    result: str | None = None  # the game ended with this move: "2-0 no-legal-moves", ...
    runner_up: str | None = None  # the board that came second, and by how many nats
    margin: float | None = None
    disagree: tuple[int, ...] = ()  # squares read otherwise than the board chosen

    kind = "move"


@dataclass(frozen=True)
class Pending(Event):
    """A legal move is under way: the squares that still have to change, over every legal
    move the board may still become (one move: exactly what is missing)."""

    squares: tuple[int, ...]
    moves: tuple[str, ...]
    runner_up: str | None = None
    margin: float | None = None
    disagree: tuple[int, ...] = ()

    kind = "pending"


@dataclass(frozen=True)
class Irregular(Event):
    """An irregularity of seed 000 §5.4 (or §5.3). `squares` must change to put things
    right: back to the last legal position (`fix == "undo"`) or on to the legal move that
    was begun (`fix == "complete"`). `light` lists light squares to clear."""

    article: str  # "5.4.06", "5.3", ...
    message_pt: str
    message_en: str
    squares: tuple[int, ...]
    fix: str  # "undo" or "complete"
    offender: str  # "white" or "black": who broke the rule, as far as occupancy tells
    light: tuple[str, ...] = ()
    runner_up: str | None = None
    margin: float | None = None
    disagree: tuple[int, ...] = ()

    kind = "irregular"


@dataclass(frozen=True)
class Restored(Event):
    """The board is back to the last legal position."""

    fen: str

    kind = "restored"


@dataclass(frozen=True)
class Accepted(Event):
    """The opponent played on after an irregularity: it stands (000 §5.7) and play goes on
    from the position the board shows."""

    article: str  # the irregularity accepted
    fen: str  # the position play continues from

    kind = "accepted"


@dataclass(frozen=True)
class Displaced(Event):
    """Pieces knocked off their squares (000 §5.5): not an irregularity; put them back."""

    squares: tuple[int, ...]  # dark squares the pieces belong on
    light: tuple[str, ...]  # light squares they were seen on

    kind = "displaced"


@dataclass(frozen=True)
class Setup(Event):
    """The board shows a position to play from: the start position, or the position the
    tracker was given (a FEN, a game being resumed)."""

    fen: str
    start: bool  # True: the variant's start position, a new game

    kind = "setup"


def side_name(side: int) -> str:
    return "black" if side else "white"
