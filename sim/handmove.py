"""Rendered sequences of a move made by hand: the arm comes in, lifts the piece, carries
it along its path, puts it down (crowned if it promotes), takes the captured pieces off
one by one, and leaves. The boards are the person's of `person.move_steps` (the piece not
put down on the way); each step adds the hands, so tests know the truth of every frame.
`hover` repeats a step with the hand held still, the hardest case for a settle detector
that only looks for motion."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from damas.rules import Position, geometry
from damas.rules.move import Move
from damas.vision.scene import Hand, Scene, hand_over

from .person import move_steps


@dataclass(frozen=True)
class Step:
    pieces: dict[int, str]
    hands: tuple[Hand, ...]

    @property
    def hand_in_view(self) -> bool:
        return bool(self.hands)


def square_mm(scene: Scene, square: int) -> tuple[float, float]:
    row, col = geometry(scene.size).row_col(square)
    n, s = scene.size, scene.square_mm
    return (col - n / 2 + 0.5) * s, (n / 2 - row - 0.5) * s


def move_by_hand(scene: Scene, position: Position, move: Move, rng: random.Random,
                 still_before: int = 3, still_after: int = 4, hover: int = 0) -> list[Step]:
    base = hand_over(scene, 0, 0, rng)
    pieces = dict(position.pieces())
    lifted, landed, *removals = move_steps(position, move, stops=False)

    def at(square: int, height: float, dx: float = 0.0, dy: float = 0.0) -> Hand:
        x, y = square_mm(scene, square)
        # the palm sits a little behind the fingertips that grip the piece
        return Hand(x + dx, y + dy, height, base.from_deg, base.skin, base.sleeve)

    steps = [Step(dict(pieces), ())] * still_before
    far = scene.board_mm * 0.45
    a = math.radians(base.from_deg)
    ex, ey = math.cos(a) * far, math.sin(a) * far
    sx, sy = square_mm(scene, move.start)
    steps.append(Step(dict(pieces), (Hand(sx + ex, sy + ey, 120, base.from_deg, base.skin,
                                          base.sleeve),)))
    steps.append(Step(dict(pieces), (at(move.start, 70, ex * 0.3, ey * 0.3),)))
    steps.append(Step(dict(pieces), (at(move.start, 25),)))
    steps.append(Step(dict(lifted), (at(move.start, 45),)))
    steps += [Step(dict(lifted), (at(move.start, 45),))] * hover
    for square in move.path[1:]:
        steps.append(Step(dict(lifted), (at(square, 50),)))
    pieces = landed
    steps.append(Step(dict(pieces), (at(move.end, 25),)))
    for square, removed in zip(move.captured, removals, strict=True):
        steps.append(Step(dict(pieces), (at(square, 30),)))
        pieces = removed
        steps.append(Step(dict(pieces), (at(square, 45),)))
    assert pieces == position.play(move).pieces(), "the steps must end after the move"
    last = move.captured[-1] if move.captured else move.end
    lx, ly = square_mm(scene, last)
    steps.append(Step(dict(pieces), (Hand(lx + ex * 0.5, ly + ey * 0.5, 90, base.from_deg,
                                          base.skin, base.sleeve),)))
    steps.append(Step(dict(pieces), (Hand(lx + ex * 1.5, ly + ey * 1.5, 140, base.from_deg,
                                          base.skin, base.sleeve),)))
    steps += [Step(dict(pieces), ())] * still_after
    return steps
