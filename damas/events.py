"""The journal's events, typed: one frozen dataclass per kind (two for `move`, `paused`
and `continued`: the play session's and the tournament record's differ), so a misspelt
or missing field is a type error where the event is made.

On disk (damas.journal) an event is one JSON object, `{"kind", "seq", "wall", ...}` and
its fields as `fields()` gives them: the format journals always had, so journals written
before these types read back the same. A field marked `absent()` is left out while it is
None (older events never had it); any other None is written as null.

`read(data)` gives an event of a fixed-field kind back from what a journal holds, or
None when the fields are not there (a damaged line, an old event of the other shape)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any, ClassVar, Self

from damas.rules.tracker.events import Event as TrackerEvent
from damas.rules.tracker.events import MoveSeen


def absent() -> Any:
    """A field left out of the JSON while it is None."""
    return field(default=None, metadata={"absent": True})


@dataclass(frozen=True)
class Event:
    kind: ClassVar[str] = ""

    def name(self) -> str:
        """The event's `kind` in the journal."""
        return self.kind

    def fields(self) -> dict[str, Any]:
        """The event's fields as the journal line holds them (after kind, seq, wall)."""
        out = {}
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if value is None and f.metadata.get("absent"):
                continue
            out[f.name] = value
        return out

    @classmethod
    def read(cls, data: dict) -> Self | None:
        """The event a journal's object holds, when it is of this kind with every field
        this class has no default for."""
        if data.get("kind") != cls.kind:
            return None
        names = {f.name for f in dataclasses.fields(cls)}
        try:
            return cls(**{k: v for k, v in data.items() if k in names})
        except TypeError:  # a field missing
            return None


# --- a game's beginning and end -------------------------------------------------------------

@dataclass(frozen=True)
class GameStart(Event):
    """A new game: its start, what plays it, and its PDN tags (each also under its
    lower-case name; with `whole_tags` under `tags` too, as given: the hall reads them)."""

    variant: str
    fen: str
    tags: dict[str, str] = field(default_factory=dict)
    engine: str | None = absent()
    machine: list[str] | None = absent()  # the sides the engine plays
    control: str | None = absent()  # a tournament's time control
    whole_tags: bool = False

    kind = "game-start"

    def fields(self) -> dict[str, Any]:
        out: dict[str, Any] = {"variant": self.variant, "fen": self.fen}
        for key in ("engine", "machine", "control"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        out.update({k.lower(): v for k, v in self.tags.items()})
        if self.whole_tags:
            out["tags"] = dict(self.tags)
        return out


@dataclass(frozen=True)
class Resumed(Event):
    """A game resumed from the journal, whole (its start and its moves, without their
    numbers), so a later resume never reads the lines before it."""

    ply: int
    fen: str
    start: dict
    moves: list[dict]
    lost: str | None = absent()  # what a damaged journal left out

    kind = "resumed"


@dataclass(frozen=True)
class Setup(Event):
    fen: str  # the board shows it: play may begin

    kind = "setup"


@dataclass(frozen=True)
class GameEnd(Event):
    result: str  # "2-0", "1-1", "0-2", "*"
    reason: str | None
    ply: int

    kind = "game-end"


@dataclass(frozen=True)
class Interrupted(Event):
    kind = "interrupted"  # Ctrl-C: `--resume` goes on from here


# --- moves ------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlayedMove(Event):
    """A move of a game against the machine, as the camera saw it made."""

    notation: str
    fen: str  # the position after it
    ply: int
    by: str  # "machine" or "person"

    kind = "move"


@dataclass(frozen=True)
class RecordedMove(Event):
    """A move of a tournament record: the tracker's event and both clocks after it."""

    seen: MoveSeen
    clock: dict
    clock_comment: str
    record_pdn: str | None = None  # the record's text once it goes on from a FEN

    kind = "move"

    def fields(self) -> dict[str, Any]:
        out = _tracker_fields(self.seen, keep_move=True)
        out.update(clock=self.clock, clock_comment=self.clock_comment)
        if self.record_pdn is not None:
            out["record_pdn"] = self.record_pdn
        return out


@dataclass(frozen=True)
class EngineMove(Event):
    notation: str  # the engine's answer, before the robot or a person makes it

    kind = "engine-move"


@dataclass(frozen=True)
class Tracked(Event):
    """Any other tracker event (irregular, restored, pending, accepted...), as
    `tracker-<its kind>` with its own fields."""

    seen: TrackerEvent
    keep_move: bool = True  # the play session leaves a move field out

    def name(self) -> str:
        return f"tracker-{self.seen.kind}"

    def fields(self) -> dict[str, Any]:
        return _tracker_fields(self.seen, self.keep_move)


def _tracker_fields(seen: TrackerEvent, keep_move: bool) -> dict[str, Any]:
    data = seen.to_dict()
    data.pop("event", None)
    if not keep_move:
        data.pop("move", None)
    return data


# --- the board against the game ---------------------------------------------------------

@dataclass(frozen=True)
class BoardDiffers(Event):
    squares: list[int]  # before play: they differ from the game's position

    kind = "board-differs"


@dataclass(frozen=True)
class Mismatch(Event):
    """After a machine move the board shows otherwise: the robot's attempt to fix it."""

    squares: list[int]
    seen: str
    attempt: int

    kind = "mismatch"


@dataclass(frozen=True)
class Shown(Event):
    squares: list[int]  # shown (lit) for a person to put right

    kind = "shown"


@dataclass(frozen=True)
class ResumeMismatch(Event):
    """On a record's resume, a settled board that is not the journal's position."""

    t: float
    fen: str
    squares: list[int]
    expected: list[str]
    seen: list[str]

    kind = "resume-mismatch"


@dataclass(frozen=True)
class Misrecognised(Event):
    expected: str  # the demo's move as made
    seen: str  # as recorded

    kind = "misrecognised"


# --- devices ------------------------------------------------------------------------------

@dataclass(frozen=True)
class RobotCannot(Event):
    reason: str  # the planner's: a person must make the move

    kind = "robot-cannot"


@dataclass(frozen=True)
class RobotFault(Event):
    reason: str

    kind = "robot-fault"


@dataclass(frozen=True)
class Paused(Event):
    """A game waits for a device (camera, robot, engine)."""

    device: str
    reason: str

    kind = "paused"


@dataclass(frozen=True)
class Continued(Event):
    device: str
    tries: int

    kind = "continued"


@dataclass(frozen=True)
class CameraPaused(Event):
    """A tournament record waits for its camera; the clock runs on."""

    reason: str
    cause: str
    clock: dict

    kind = "paused"


@dataclass(frozen=True)
class CameraContinued(Event):
    away: float  # seconds
    tries: int
    clock: dict

    kind = "continued"


@dataclass(frozen=True)
class ClockStopped(Event):
    t: float
    clock: dict

    kind = "clock-stopped"


@dataclass(frozen=True)
class ClockRestarted(Event):
    t: float
    clock: dict

    kind = "clock-restarted"


# --- the kiosk and the hall -----------------------------------------------------------------

@dataclass(frozen=True)
class KioskReset(Event):
    kind = "kiosk-reset"


@dataclass(frozen=True)
class KioskResetFailed(Event):
    reason: str

    kind = "kiosk-reset-failed"


@dataclass(frozen=True)
class KioskResetDiffers(Event):
    squares: list[int]

    kind = "kiosk-reset-differs"


@dataclass(frozen=True)
class KioskError(Event):
    reason: str

    kind = "kiosk-error"


@dataclass(frozen=True)
class JournalDamaged(Event):
    reason: str

    kind = "journal-damaged"


@dataclass(frozen=True)
class HallEntry(Event):
    """In a hall board's spool: an event of its journal, as published."""

    event: dict

    kind = "hall"
