"""Where every physical piece is: on the board, in a tray slot, in the crowning reserve,
or set aside for a moment. Objects are 'w' 'b' (men) and 'W' 'B' (kings: a flat king
piece, or a stack of two men)."""

from __future__ import annotations

import copy
from dataclasses import dataclass

from damas.rules import Position

from .errors import PlanError
from .machine import Machine, Point

COLOUR = {"w": "white", "W": "white", "b": "black", "B": "black"}


@dataclass(frozen=True)
class Spot:
    kind: str  # "square", "tray", "reserve", "aside"
    colour: str = ""  # tray and reserve: "white" or "black"
    index: int = 0  # square number or slot index
    point: Point | None = None  # aside: where

    @property
    def aside_point(self) -> Point:
        """Where an aside spot is (every aside spot is made with its point)."""
        assert self.point is not None, f"an aside spot without a point: {self!r}"
        return self.point

    def __str__(self) -> str:
        if self.kind == "square":
            return f"square {self.index}"
        if self.kind == "aside":
            return f"aside at ({self.aside_point[0]:.0f}, {self.aside_point[1]:.0f})"
        return f"{self.colour} {self.kind} slot {self.index}"


class PhysicalState:
    def __init__(self, machine: Machine, board: dict[int, str],
                 trays: dict[str, list[str | None]] | None = None,
                 reserve: dict[str, list[str | None]] | None = None):
        self.machine = machine
        self.board = dict(board)
        self.trays = trays or {c: [None] * len(s) for c, s in machine.trays.items()}
        crown = ({"white": "W", "black": "B"} if machine.kings == "flat"
                 else {"white": "w", "black": "b"})
        self.reserve = reserve or {c: [crown[c]] * len(s) for c, s in machine.reserve.items()}
        self.aside: dict[Point, str] = {}

    @classmethod
    def at_start(cls, machine: Machine, position: Position) -> PhysicalState:
        """The board set up as `position`; each king on it took its crowning piece from
        the reserve (a game resumed with kings must still have room to take them back)."""
        state = cls(machine, position.pieces())
        for obj in state.board.values():
            if obj.isupper():
                try:
                    state._set(state.filled_slot("reserve", COLOUR[obj]), None)
                except PlanError:  # more kings set up than the reserve holds
                    pass
        return state

    def copy(self) -> PhysicalState:
        return copy.deepcopy(self)

    # --- where things are -----------------------------------------------------------

    def point(self, spot: Spot) -> Point:
        m = self.machine
        if spot.kind == "square":
            return m.square_centre(spot.index)
        if spot.kind == "tray":
            return m.trays[spot.colour][spot.index]
        if spot.kind == "reserve":
            return m.reserve[spot.colour][spot.index]
        return spot.aside_point

    def get(self, spot: Spot) -> str | None:
        if spot.kind == "square":
            return self.board.get(spot.index)
        if spot.kind == "tray":
            return self.trays[spot.colour][spot.index]
        if spot.kind == "reserve":
            return self.reserve[spot.colour][spot.index]
        return self.aside.get(spot.aside_point)

    def _set(self, spot: Spot, obj: str | None) -> None:
        if spot.kind == "square":
            if obj is None:
                self.board.pop(spot.index, None)
            else:
                self.board[spot.index] = obj
        elif spot.kind == "tray":
            self.trays[spot.colour][spot.index] = obj
        elif spot.kind == "reserve":
            self.reserve[spot.colour][spot.index] = obj
        elif obj is None:
            self.aside.pop(spot.aside_point, None)
        else:
            self.aside[spot.aside_point] = obj

    def occupied_points(self, *excluding: Spot) -> list[Point]:
        skip = {self.point(s) for s in excluding}
        pts = [self.machine.square_centre(sq) for sq in self.board]
        for slots, points in ((self.trays, self.machine.trays),
                              (self.reserve, self.machine.reserve)):
            for colour, objs in slots.items():
                pts += [points[colour][i] for i, o in enumerate(objs) if o is not None]
        pts += list(self.aside)
        return [p for p in pts if p not in skip]

    # --- inventory --------------------------------------------------------------------

    def free_slot(self, kind: str, colour: str) -> Spot:
        slots = self.trays[colour] if kind == "tray" else self.reserve[colour]
        for i, obj in enumerate(slots):
            if obj is None:
                return Spot(kind, colour, i)
        raise PlanError(f"the {colour} {kind} is full ({len(slots)} slots): empty it")

    def filled_slot(self, kind: str, colour: str, want: str | None = None) -> Spot:
        """The most recently filled slot (trays fill outer column first, so they empty
        inner first and never block themselves)."""
        slots = self.trays[colour] if kind == "tray" else self.reserve[colour]
        for i in range(len(slots) - 1, -1, -1):
            if slots[i] is not None and (want is None or slots[i] == want):
                return Spot(kind, colour, i)
        what = "crowning piece" if kind == "reserve" else f"{colour} piece"
        raise PlanError(f"no {what} left in the {colour} {kind}: refill it")

    # --- changes ----------------------------------------------------------------------

    def apply(self, step) -> None:
        """Carry out a Transfer on this record of the board."""
        obj = self.get(step.source)
        if obj is None:
            raise PlanError(f"nothing to pick up at {step.source}")
        if step.source == step.target:  # a capture that ends where it began
            return
        there = self.get(step.target)
        if step.reason == "crown":  # a man put on a man makes a king
            if there is None or there.upper() != obj.upper():
                raise PlanError(f"cannot crown at {step.target}: no man of that colour there")
            self._set(step.source, None)
            self._set(step.target, there.upper())
            return
        if step.reason == "uncrown":  # the top man of a stack comes off
            self._set(step.source, obj.lower())
            self._set(step.target, obj.lower())
            return
        if there is not None:
            raise PlanError(f"{step.target} is not free")
        self._set(step.source, None)
        self._set(step.target, obj)

    def census(self) -> dict[str, int]:
        """Men counted singly, stacked kings as two men: what a reset has to work with."""
        count = {"w": 0, "b": 0, "W": 0, "B": 0}
        everything = list(self.board.values()) + list(self.aside.values())
        for slots in (*self.trays.values(), *self.reserve.values()):
            everything += [o for o in slots if o is not None]
        for obj in everything:
            if obj.isupper() and self.machine.kings == "stack":
                count[obj.lower()] += 2
            else:
                count[obj] += 1
        return count
