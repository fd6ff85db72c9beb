"""The physical board as a simulator sees it: pieces that only move when the magnet or
gripper carries them.

Fed with what a machine simulator observes (the carriage position from step pulses, the
tool pin), it answers where every piece ended, independently of what the planner meant
to do, and how close a carried piece ever came to another one. The carriage is reported
at the points where its straight moves begin and end (or more often), so it moved in a
straight line between two reports.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from .machine import Machine, Point
from .state import PhysicalState

GRAB_RADIUS = 0.3  # of a pitch: how far off centre the magnet or gripper still catches


@dataclass
class Stack:
    x: float
    y: float
    pieces: list[str] = field(default_factory=list)  # bottom first; 'w' 'b' 'W' 'B'


class World:
    def __init__(self, machine: Machine, stacks: list[Stack]):
        self.machine = machine
        self.stacks = stacks
        self.carried: Stack | None = None
        self.position = (0.0, 0.0, 0.0)
        self._placed = False  # the first report says where the carriage starts
        self.min_clearance = math.inf  # smallest centre distance while carrying
        self.travel_mm = 0.0

    @classmethod
    def from_state(cls, machine: Machine, state: PhysicalState) -> World:
        stacks = []
        spots = [(machine.square_centre(sq), obj) for sq, obj in state.board.items()]
        for slots, points in ((state.trays, machine.trays), (state.reserve, machine.reserve)):
            for colour, objs in slots.items():
                spots += [(points[colour][i], o) for i, o in enumerate(objs) if o is not None]
        for point, obj in spots:
            x, y = machine.to_machine(point)
            pieces = [obj.lower()] * 2 if obj.isupper() and machine.kings == "stack" else [obj]
            stacks.append(Stack(x, y, pieces))
        return cls(machine, stacks)

    # --- what the simulator observes -----------------------------------------------

    def carriage(self, x: float, y: float, z: float = 0.0) -> None:
        """The carriage went straight from where it was to (x, y); a carried piece went
        with it, and the clearance is checked along the whole segment."""
        px, py, _ = self.position if self._placed else (x, y, z)
        self._placed = True
        self.travel_mm += math.hypot(x - px, y - py)
        self.position = (x, y, z)
        if self.carried is not None:
            self.carried.x, self.carried.y = x, y
            if self.machine.slides:
                for s in self.stacks:
                    if s is not self.carried:
                        self.min_clearance = min(self.min_clearance,
                                                 _to_segment((s.x, s.y), (px, py), (x, y)))

    def tool(self, on: bool) -> None:
        if on and self.carried is None:
            self._grab()
        elif not on and self.carried is not None:
            self._release(self.carried)

    def _nearest(self) -> Stack | None:
        x, y, _ = self.position
        reach = GRAB_RADIUS * self.machine.pitch
        near = [s for s in self.stacks if math.hypot(s.x - x, s.y - y) <= reach]
        return min(near, key=lambda s: math.hypot(s.x - x, s.y - y)) if near else None

    def _level(self) -> int:
        h = self.machine.heights
        z = self.position[2]
        return max(0, round((z - h.get("board", 0.0)) / max(h.get("piece", 5.0), 1e-6)))

    def _grab(self) -> None:
        stack = self._nearest()
        if stack is None:
            return  # the magnet or gripper closes on nothing
        level = 0 if self.machine.slides else self._level()
        if level >= len(stack.pieces):
            return
        taken = stack.pieces[level:]
        del stack.pieces[level:]
        if not stack.pieces:
            self.stacks.remove(stack)
        self.carried = Stack(stack.x, stack.y, taken)
        self.stacks.append(self.carried)

    def _release(self, carried: Stack) -> None:
        self.carried = None
        if self.machine.slides:
            return
        below = [s for s in self.stacks if s is not carried and
                 math.hypot(s.x - carried.x, s.y - carried.y) <= GRAB_RADIUS * self.machine.pitch]
        if below:  # set down on another piece: they stack
            below[0].pieces += carried.pieces
            self.stacks.remove(carried)

    def by_hand(self, source: tuple[float, float], target: tuple[float, float],
                stack_on: bool = False) -> None:
        """A person carries the piece (or stack) at board point `source` to `target`;
        with `stack_on` it is set down on the piece there (crowning by hand)."""
        sx, sy = self.machine.to_machine(source)
        tx, ty = self.machine.to_machine(target)
        reach = GRAB_RADIUS * self.machine.pitch
        near = [s for s in self.stacks if math.hypot(s.x - sx, s.y - sy) <= reach]
        if not near:
            raise ValueError(f"no piece near {source} to carry")
        stack = min(near, key=lambda s: math.hypot(s.x - sx, s.y - sy))
        below = [s for s in self.stacks if s is not stack and
                 math.hypot(s.x - tx, s.y - ty) <= reach]
        if stack_on and below:
            if self.machine.kings == "stack":
                below[0].pieces += stack.pieces
            else:
                below[0].pieces = [below[0].pieces[0].upper()]
            self.stacks.remove(stack)
        else:
            stack.x, stack.y = tx, ty

    # --- what ended where ---------------------------------------------------------------

    def objects(self) -> list[tuple[tuple[float, float], str]]:
        """(board-frame point, object) for every stack; two men stacked are a king."""
        out = []
        for s in self.stacks:
            obj = s.pieces[0] if len(s.pieces) == 1 else (
                s.pieces[0].upper() if len(s.pieces) == 2 and s.pieces[0] == s.pieces[1]
                else "?")
            out.append((self.to_board(s.x, s.y), obj))
        return out

    def to_board(self, x: float, y: float) -> tuple[float, float]:
        (a, b, c), (d, e, f) = self.machine.board_to_machine
        det = a * e - b * d
        dx, dy = x - c, y - f
        return ((e * dx - b * dy) / det, (-d * dx + a * dy) / det)

    def layout(self) -> dict:
        """{"squares": {n: 'e'|'w'|...}, "trays": {...}, "reserve": {...}, "stray": [...]}
        from where the pieces physically are."""
        m = self.machine
        tolerance = GRAB_RADIUS * m.pitch
        squares = {str(n): "e" for n in range(1, m.board_size ** 2 // 2 + 1)}
        trays = {c: ["e"] * len(p) for c, p in m.trays.items()}
        reserve = {c: ["e"] * len(p) for c, p in m.reserve.items()}
        # each spot: where it is, and the table and key of what stands there
        spots: list[tuple[Point, dict[str, str] | list[str], Any]] = [
            (m.square_centre(n), squares, str(n)) for n in range(1, len(squares) + 1)]
        for table, points in ((trays, m.trays), (reserve, m.reserve)):
            for colour, pts in points.items():
                spots += [(p, table[colour], i) for i, p in enumerate(pts)]
        stray = []
        for point, obj in self.objects():
            spot = min(spots, key=lambda s: math.dist(s[0], point))
            if math.dist(spot[0], point) > tolerance:
                stray.append({"at": [round(point[0], 1), round(point[1], 1)], "piece": obj})
                continue
            _, holder, key = spot
            holder[key] = obj if holder[key] == "e" else "?"
        return {"squares": squares, "trays": trays, "reserve": reserve, "stray": stray}


def _to_segment(p, a, b) -> float:
    """Distance from point p to the segment a-b."""
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    length2 = dx * dx + dy * dy
    t = 0.0 if length2 == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy)
                                              / length2))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)
