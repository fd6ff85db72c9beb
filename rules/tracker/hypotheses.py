"""The boards the game allows next, as hypotheses for the decoder.

From a position: nothing moved, each legal move done, and each legal move under way (the
piece lifted or standing on a square of its way, any of the captured pieces already taken
off). Built once per position: a tracker meets the same position again and again while a
move is made.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations

from ..position import Position
from ..variant import Variant
from .chains import capture_nodes
from .decode import Hypothesis, hypothesis
from .match import Expectation, Shape

MAX_SUBSETS_OF = 5  # more captured pieces: only none, all, one off and one left


@lru_cache(maxsize=64)
def expected(position: Position) -> Hypothesis:
    lay = position.layout
    return hypothesis(lay, position.white, position.black, position.kings, 0, "same",
                      "nothing moved")


@lru_cache(maxsize=4)
def start_of(variant: Variant) -> Hypothesis:
    s = Position.start(variant)
    return hypothesis(s.layout, s.white, s.black, s.kings, 0, "start", "the start position")


@lru_cache(maxsize=64)
def moves_of(position: Position) -> tuple[Hypothesis, ...]:
    """Each legal move done and under way, distinct boards only."""
    return tuple(_moves(Expectation(position)))


def _subsets(captured: list[int]) -> list[int]:
    if len(captured) <= MAX_SUBSETS_OF:
        return [sum(c) for n in range(len(captured) + 1) for c in combinations(captured, n)]
    every = sum(captured)
    return [0, every] + captured + [every & ~b for b in captured]


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        b = mask & -mask
        out.append(b)
        mask ^= b
    return out


def _moves(x: Expectation):
    p = x.position
    lay = p.layout
    seen: set[tuple[int, int]] = {(p.white, p.black)}
    complete = []
    partial = []
    for s in x.shapes:
        king = bool(p.kings & s.frm)
        kings_after = (p.kings & ~s.frm & ~s.captured) | (s.to if king else 0)
        key = (s.white_after, s.black_after)
        if key not in seen:
            seen.add(key)
            complete.append(hypothesis(lay, s.white_after, s.black_after, kings_after,
                                       s.to, "move", s.notation))
        for h in _under_way(x, s, king):
            k = (h.board.white, h.board.black)
            if k not in seen:
                seen.add(k)
                partial.append(h)
    return complete + partial


def _under_way(x: Expectation, s: Shape, king: bool):
    p = x.position
    lay = p.layout
    # the piece may stand anywhere on its way before any piece is taken off; once one is,
    # it is in the hand, where it started, on a landing square of its route or at the end
    everywhere = [0] + _bits(s.way)
    settled = [0] + _bits(lay.mask(s.move.path) | s.frm | s.to)
    for removed in _subsets(_bits(s.captured)):
        for piece in (settled if removed else everywhere):
            if piece == s.frm and not removed:
                continue  # nothing moved yet
            if piece == s.to and removed == s.captured:
                continue  # done
            own = (x.own & ~s.frm) | piece
            opp = x.opp & ~removed
            white, black = (opp, own) if x.side else (own, opp)
            kings = (p.kings & ~s.frm & ~removed) | (piece if king else 0)
            label = f"{s.notation} under way"
            yield hypothesis(lay, white, black, kings, 0 if piece == s.frm else piece,
                             "partial", label)


@lru_cache(maxsize=64)
def irregular_of(position: Position) -> tuple[Hypothesis, ...]:
    """Captures gone wrong, as a person makes them: a chain shorter than the rule demands
    or stopped early, pieces lifted at once to take more (`capture_nodes`' relaxed
    chains), with the jumped pieces taken off or not yet. Legal boards left out."""
    x = Expectation(position)
    p = position
    lay = p.layout
    legal = {(h.board.white, h.board.black) for h in moves_of(p)} | {(p.white, p.black)}
    out = []
    seen: set[tuple[int, int]] = set()
    for relaxed in (False, True):
        nodes = capture_nodes(p.rules, x.own, x.opp, p.kings, x.side, relaxed=relaxed)
        for node in nodes.values():
            if node.landing == node.start:
                continue
            king = bool(p.kings & node.start)
            own = (x.own & ~node.start) | node.landing
            for removed in (node.captured, 0):
                opp = x.opp & ~removed
                white, black = (opp, own) if x.side else (own, opp)
                if (white, black) in legal or (white, black) in seen:
                    continue
                seen.add((white, black))
                kings = (p.kings & ~node.start & ~removed) | (node.landing if king else 0)
                frm, to = lay.square_of[node.start], lay.square_of[node.landing]
                label = f"{frm}x{to} taking {node.count}" + ("" if removed else ", on board")
                out.append(hypothesis(lay, white, black, kings, node.landing, "irregular",
                                      label))
    return tuple(out)


def taken_back(previous: Position) -> list[Hypothesis]:
    """The last move taken back, and replaced by another (000 §5.4.04)."""
    back = expected(previous)
    out = [Hypothesis(back.masks, "irregular", "the last move taken back", back.board)]
    out += [Hypothesis(h.masks, "irregular", f"taken back, then {h.label}", h.board)
            for h in moves_of(previous) if h.kind == "move"]
    return out
