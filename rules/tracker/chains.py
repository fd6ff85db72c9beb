"""Every capture chain of one side, its prefixes included, as the tracker needs them.

Move generation keeps only the legal captures; the tracker also needs what a person may do
on the way to one (the squares a king flies over, every route to the same end) and the
chains that are not legal (a shorter chain than the maximum, a chain stopped early) to
name the irregularity (000 §5.4.08, §5.4.09). A node of the capture tree is keyed by
(start, landing, captured set): from there the chain can go on or not, whatever the route.

`relaxed=True` enumerates what a person might wrongly do to take more than the rules
allow: captured pieces lifted at once, so they no longer block and the way behind them
opens (the "Turkish strike" 000 §4.11 forbids), and a man crowned during a capture going
on as a king where crowning ends the move (003 §5).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..movegen import Rules


@dataclass
class Node:
    start: int  # bit of the capturing piece's square
    landing: int  # bit where it stands after the last jump
    captured: int  # mask of the pieces jumped so far
    order: tuple[int, ...]  # captured bits in jump order (of the first route found)
    way: int  # every square it passed over or landed on, on any route, start included
    complete: bool = True  # no further jump is possible from here

    @property
    def count(self) -> int:
        return self.captured.bit_count()

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.start, self.landing, self.captured)


def _shift(x: int, d: int) -> int:
    return x << d if d > 0 else x >> -d


class _Walker:
    def __init__(self, r: Rules, opp: int, empty: int, side: int, relaxed: bool):
        self.r, self.opp, self.empty, self.side, self.relaxed = r, opp, empty, side, relaxed
        self.crown = r.crown[side]
        self.nodes: dict[tuple[int, int, int], Node] = {}

    def record(self, start, landing, captured, order, way) -> Node:
        key = (start, landing, captured)
        node = self.nodes.get(key)
        if node is None:
            node = self.nodes[key] = Node(start, landing, captured, order, way)
        else:
            node.way |= way
        return node

    def free(self, captured: int) -> int:
        # strict: captured pieces stay until the move ends (000 §4.11) and block the way
        return self.empty | captured if self.relaxed else self.empty

    def short(self, start, sq, captured, order, way, dirs, king: bool) -> bool:
        """Jumps of a man or a one-square king from `sq`; True if any jump was possible."""
        extended = False
        empty = self.free(captured)
        for d in dirs:
            over = _shift(sq, d)
            if not (over & self.opp and not over & captured):
                continue
            land = _shift(over, d)
            if not land & empty:
                continue
            extended = True
            c, o, w = captured | over, order + (over,), way | land
            node = self.record(start, land, c, o, w)
            if not king and land & self.crown and self.r.crown_stops:
                if self.relaxed:  # wrongly going on as a crowned king
                    self._as_king(start, land, c, o, w, node)
                continue  # crowning ends the move (003 §5)
            node.complete &= not self.short(start, land, c, o, w, dirs, king)
        return extended

    def _as_king(self, start, land, captured, order, way, node) -> None:
        if self.r.flying:
            went_on = self.flying(start, land, captured, order, way)
        else:
            went_on = self.short(start, land, captured, order, way, self.r.all_dirs, True)
        node.complete &= not went_on

    def flying(self, start, sq, captured, order, way) -> bool:
        """Jumps of a flying king from `sq`."""
        extended = False
        empty = self.free(captured)
        for d in self.r.all_dirs:
            x, passed = _shift(sq, d), 0
            while x & empty:
                passed |= x
                x = _shift(x, d)
            if not (x & self.opp and not x & captured):
                continue
            land = _shift(x, d)
            flown = passed
            while land & empty:
                extended = True
                flown |= land
                c, o = captured | x, order + (x,)
                node = self.record(start, land, c, o, way | flown)
                node.complete &= not self.flying(start, land, c, o, way | flown)
                land = _shift(land, d)
        return extended


def capture_nodes(r: Rules, own: int, opp: int, kings: int, side: int,
                  relaxed: bool = False) -> dict[tuple[int, int, int], Node]:
    """Every node of every capture chain of the side to move, keyed by
    (start bit, landing bit, captured mask). Keys hold the start, so the walks of
    different pieces never share a node."""
    empty = r.valid & ~(own | opp)
    nodes: dict[tuple[int, int, int], Node] = {}
    pieces = own
    while pieces:
        b = pieces & -pieces
        pieces ^= b
        w = _Walker(r, opp, empty | b, side, relaxed)  # the piece has left its square
        w.nodes = nodes
        if kings & b and r.flying:
            w.flying(b, b, 0, (), b)
        else:
            dirs = r.all_dirs if kings & b else r.man_capture_dirs[side]
            w.short(b, b, 0, (), b, dirs, bool(kings & b))
    return nodes
