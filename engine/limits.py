"""The values that cross the engine interface: what to search (`Limit`), what the search
says while thinking (`Info`) and what it answers (`PlayResult`).

>>> Limit(depth=6)
Limit(depth=6)
>>> Limit(time=60, inc=1).is_clock
True
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields

from damas.rules import Move


@dataclass(frozen=True)
class Limit:
    """How long to think. Fields left as None are not limits; several may be combined
    (the first one reached stops the search).

    - `depth`, `nodes`: fixed search depth (plies) or node count.
    - `movetime`: seconds for this move.
    - `time`, `inc`, `moves_to_go`: the clock of the side to move (seconds remaining,
      increment added after each move, moves until the next time control).
    - `level`: 1 (weak, human-looking) to 10 (full strength, uses all its time).
    """

    depth: int | None = None
    nodes: int | None = None
    movetime: float | None = None
    time: float | None = None
    inc: float = 0.0
    moves_to_go: int | None = None
    level: int | None = None

    @property
    def is_clock(self) -> bool:
        return self.time is not None

    @property
    def is_timed(self) -> bool:
        return self.time is not None or self.movetime is not None

    def __repr__(self) -> str:
        parts = [f"{f.name}={getattr(self, f.name)!r}" for f in fields(self)
                 if getattr(self, f.name) != f.default]
        return f"Limit({', '.join(parts)})"


NO_LIMIT = Limit()  # the engine's own settings decide


@dataclass(frozen=True)
class Info:
    """One report of a search in progress. `score` is in hundredths of a man from the
    side to move; a win in n plies is `WIN - n` (see `damas.engine.search.WIN`)."""

    depth: int
    score: int
    nodes: int
    seconds: float
    pv: tuple[Move, ...] = ()
    pv_text: tuple[str, ...] = ()

    @property
    def nps(self) -> int:
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0

    def as_dict(self) -> dict:
        return {"depth": self.depth, "score": self.score, "nodes": self.nodes,
                "seconds": round(self.seconds, 3), "nps": self.nps, "pv": list(self.pv_text)}


@dataclass(frozen=True)
class PlayResult:
    """The engine's answer: a legal move of the position it was given."""

    move: Move
    info: Info | None = None
    ponder: Move | None = None
    extra: dict = field(default_factory=dict, compare=False)
