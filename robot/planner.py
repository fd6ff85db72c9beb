"""A legal move, or a board reset, as physical steps.

Each step is a Transfer of one object from one spot to another along a path in the board
frame. For a magnet gantry every path keeps a piece's diameter from every other piece's
centre; when no such path exists a blocking piece is moved aside and put back after.
For an arm, pieces are lifted, so a path is just the two end points.

Order within a move: captured pieces go to the trays first (a sliding piece cannot pass
over them), then the moving piece follows its landing squares, then a promotion swaps the
man for a king piece from the reserve (flat kings) or stacks a reserve man on it (arm).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from damas.rules import Move, Position

from .errors import PlanError
from .machine import Machine, Point
from .paths import Lanes, find_path, path_is_clear, segment_clearance
from .state import COLOUR, PhysicalState, Spot

BLOCKERS_TRIED = 6


@dataclass(frozen=True)
class Transfer:
    what: str  # the object moved: 'w' 'b' 'W' 'B'
    source: Spot
    target: Spot
    path: tuple[Point, ...]  # board frame, source point first, target point last
    reason: str  # capture, move, promote, crown, uncrown, aside, back, reset

    def __str__(self) -> str:
        return f"{self.reason}: {self.what} {self.source} -> {self.target}"


class Planner:
    def __init__(self, machine: Machine):
        self.machine = machine
        self.lanes = Lanes(machine.workspace, machine.pitch / 2)
        self.clearance = machine.piece_diameter

    # --- moves ----------------------------------------------------------------------

    def plan_move(self, state: PhysicalState, move: Move) -> list[Transfer]:
        """Steps for a legal move; `state` is not changed (apply the steps as they run)."""
        work = state.copy()
        mover = work.board.get(move.start)
        if mover is None:
            raise PlanError(f"no piece on {move.start} to play {move.long}")
        steps: list[Transfer] = []
        for square in move.captured:
            obj = work.board.get(square)
            if obj is None:
                raise PlanError(f"no piece on {square} to capture")
            kind = "reserve" if obj.isupper() and self.machine.kings == "flat" else "tray"
            target = work.free_slot(kind, COLOUR[obj])
            steps += self._transfer(work, Spot("square", index=square), target, "capture")
        via = [self.machine.square_centre(s) for s in move.path]
        steps += self._transfer(work, Spot("square", index=move.start),
                                Spot("square", index=move.end), "move", via=via)
        if move.promotion:
            steps += self._crown(work, move.end, COLOUR[mover])
        return steps

    def _crown(self, work: PhysicalState, square: int, colour: str) -> list[Transfer]:
        here = Spot("square", index=square)
        if self.machine.kings == "flat":
            king = work.filled_slot("reserve", colour)  # check before moving the man
            steps = self._transfer(work, here, work.free_slot("tray", colour), "promote")
            return steps + self._transfer(work, king, here, "promote")
        return self._transfer(work, work.filled_slot("reserve", colour), here, "crown")

    # --- board reset ------------------------------------------------------------------

    def plan_reset(self, state: PhysicalState, start: Position) -> list[Transfer]:
        """Steps that set up `start` from whatever is on the board and in the trays."""
        work = state.copy()
        want = start.pieces()
        need = {c: sum(1 for p in want.values() if p == c) for c in "wb"}
        have = work.census()
        for c in "wb":
            if have[c] < need[c]:
                raise PlanError(f"{need[c]} {COLOUR[c]} men are needed and only {have[c]} "
                                "are on the board and in the trays")
        steps: list[Transfer] = []
        for square, obj in sorted(work.board.items()):
            if obj.isupper():
                steps += self._unking(work, Spot("square", index=square), obj)
        for colour, slots in work.trays.items():
            for i, held in enumerate(slots):
                if held is not None and held.isupper():
                    steps += self._unking(work, Spot("tray", colour, i), held)
        return steps + self._arrange(work, want, "reset")

    def plan_correction(self, state: PhysicalState, position: Position) -> list[Transfer]:
        """Steps that make the board show `position` again after a slip or an interrupted
        move: misplaced pieces go where they are missing or to the trays, missing men come
        from the trays (and flat kings from the reserve, as a promotion would). Unlike a
        reset, kings stay kings; a missing stacked king is refused (PlanError) and a
        person puts it back."""
        work = state.copy()
        want = position.pieces()
        for king in "WB":
            have = list(work.board.values()) + work.trays[COLOUR[king]]
            if self.machine.kings == "flat":
                have += work.reserve[COLOUR[king]]
            wanted = [sq for sq, obj in want.items() if obj == king]
            if len(wanted) > have.count(king):
                gone = [sq for sq in wanted if work.board.get(sq) != king]
                raise PlanError(f"the {COLOUR[king]} king for square "
                                f"{', '.join(map(str, gone))} is missing: put it back by hand")
        return self._arrange(work, want, "correct")

    def _arrange(self, work: PhysicalState, want: dict[int, str], reason: str):
        steps: list[Transfer] = []
        while (task := self._next_reset_task(work, want)) is not None:
            steps += self._transfer(work, *task, reason)
        return steps

    def _unking(self, work: PhysicalState, spot: Spot, obj: str) -> list[Transfer]:
        colour = COLOUR[obj]
        if self.machine.kings == "flat":
            return self._transfer(work, spot, work.free_slot("reserve", colour), "reset")
        return self._transfer(work, spot, work.free_slot("reserve", colour), "uncrown")

    def _next_reset_task(self, work: PhysicalState,
                         want: dict[int, str]) -> tuple[Spot, Spot] | None:
        """The next (source, target): first clear squares holding the wrong thing, then
        fill the empty ones, farthest from the trays first so nearer ones never block."""
        for square, obj in sorted(work.board.items()):
            if want.get(square) != obj:
                free = [t for t, p in want.items() if p == obj and t not in work.board]
                if free:
                    here = self.machine.square_centre(square)
                    t = min(free, key=lambda t: math.dist(here, self.machine.square_centre(t)))
                    return Spot("square", index=square), Spot("square", index=t)
                return Spot("square", index=square), work.free_slot(self._home(obj),
                                                                    COLOUR[obj])
        empty = [t for t in want if t not in work.board]
        if not empty:
            return None
        square = max(empty, key=lambda t: self._distance_from_tray(t, COLOUR[want[t]]))
        obj = want[square]
        return work.filled_slot(self._home(obj), COLOUR[obj], obj), Spot("square", index=square)

    def _home(self, obj: str) -> str:
        """Where a piece off the board lives: flat kings in the reserve, men in trays."""
        return "reserve" if obj.isupper() and self.machine.kings == "flat" else "tray"

    def _distance_from_tray(self, square: int, colour: str) -> float:
        tray = self.machine.trays[colour]
        centre = self.machine.square_centre(square)
        return min(math.dist(centre, p) for p in tray)

    # --- one transfer -------------------------------------------------------------------

    def _transfer(self, work: PhysicalState, source: Spot, target: Spot, reason: str,
                  via: list[Point] | None = None) -> list[Transfer]:
        obj = work.get(source)
        a, b = work.point(source), work.point(target)
        if not self.machine.slides:
            return [self._done(work, obj, source, target, (a, b), reason)]
        obstacles = work.occupied_points(source, target)
        if via and path_is_clear(via, obstacles, self.clearance):
            return [self._done(work, obj, source, target, tuple(via), reason)]
        path = find_path(self.lanes, a, b, obstacles, self.clearance)
        if path is not None:
            return [self._done(work, obj, source, target, tuple(path), reason)]
        return self._around_a_blocker(work, source, target, reason)

    def _done(self, work, obj, source, target, path, reason) -> Transfer:
        step = Transfer(obj, source, target, path, reason)
        work.apply(step)
        return step

    def _around_a_blocker(self, work: PhysicalState, source: Spot, target: Spot,
                          reason: str) -> list[Transfer]:
        a, b = np.array(work.point(source)), np.array(work.point(target))
        blockers = sorted((sq for sq in work.board if Spot("square", index=sq) != source),
                          key=lambda sq: segment_clearance(
                              a, np.array([b]), np.array([self.machine.square_centre(sq)]))[0])
        for square in blockers[:BLOCKERS_TRIED]:
            spot = Spot("square", index=square)
            without = [p for p in work.occupied_points(source, target)
                       if p != self.machine.square_centre(square)]
            main = find_path(self.lanes, tuple(a), tuple(b), without, self.clearance)
            if main is None:
                continue
            aside = self._aside_point(work, spot, main)
            if aside is None:
                continue
            trial = work.copy()
            try:
                steps = self._transfer(trial, spot, Spot("aside", point=aside), "aside")
                steps += self._transfer(trial, source, target, reason)
                steps += self._transfer(trial, Spot("aside", point=aside), spot, "back")
            except PlanError:
                continue
            for step in steps:
                work.apply(step)
            return steps
        raise PlanError(f"no clear path from {source} to {target}, even with a piece moved "
                        "aside")

    def _aside_point(self, work: PhysicalState, blocker: Spot, main: list[Point]):
        """A free point near the blocker, clear of everything and of the main path."""
        pts = self.lanes.points
        obstacles = np.array(work.occupied_points(blocker), dtype=float).reshape(-1, 2)
        if len(obstacles):
            dist = np.linalg.norm(pts[:, None] - obstacles[None], axis=2).min(axis=1)
            pts = pts[dist >= self.clearance]
        for p, q in zip(main, main[1:], strict=False):
            pts = pts[_point_to_segment(pts, np.array(p), np.array(q)) >= self.clearance]
        if not len(pts):
            return None
        here = np.array(work.point(blocker))
        best = pts[np.argmin(np.linalg.norm(pts - here, axis=1))]
        return (float(best[0]), float(best[1]))


def _point_to_segment(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ab = b - a
    t = np.clip(((points - a) @ ab) / max(float(ab @ ab), 1e-12), 0.0, 1.0)
    return np.linalg.norm(points - (a + t[:, None] * ab), axis=1)
