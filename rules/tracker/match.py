"""What the board may show next, and which legal move a board shows.

For the expected position the tracker builds one `Shape` per legal move once: the colour
masks after it, and the squares it touches. A board is then `Same` (nothing moved),
`Complete` (exactly one legal move done), `Partial` (one or more legal moves under way:
the piece lifted or standing on a square of its way, captured pieces still on the board or
already removed, in any order) or `None` (no legal move explains it: the tracker then
looks for the irregularity). With every square known the first two are one dict look-up.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..move import Move
from ..position import Position
from .board import Board
from .chains import capture_nodes


@dataclass(frozen=True)
class Shape:
    """One legal move as changes of occupancy. Masks are in the bitboard layout."""

    move: Move
    notation: str
    frm: int
    to: int
    captured: int
    way: int  # squares the moving piece may stand on while moving, start and end included
    own_after: int  # the mover's pieces after the move
    opp_after: int
    white_after: int
    black_after: int

    @property
    def span(self) -> int:
        return self.way | self.captured


@dataclass(frozen=True)
class Same:
    pass


@dataclass(frozen=True)
class Complete:
    shape: Shape


@dataclass(frozen=True)
class Progress:
    """How far the board is along one legal move."""

    shape: Shape
    piece: int  # bit where the moving piece stands now, 0 when it is off the board
    removed: int  # captured pieces already taken off
    remaining: int  # squares that still have to change to complete the move

    @property
    def landed(self) -> bool:
        return self.piece == self.shape.to


@dataclass(frozen=True)
class Partial:
    progress: tuple[Progress, ...]  # one per legal move the board may still become
    squares: tuple[int, ...]  # squares that still have to change, over all of them
    moves: tuple[str, ...]  # their notations

    def closest(self) -> Progress:
        return min(self.progress, key=lambda p: p.remaining.bit_count())


Verdict = Same | Complete | Partial | None


class Expectation:
    """The legal moves of one position, prepared for matching boards against them."""

    def __init__(self, position: Position):
        self.position = position
        self.side = int(position.turn)
        lay = position.layout
        self.square_of = lay.square_of
        self.own = position.black if self.side else position.white
        self.opp = position.white if self.side else position.black
        self.shapes: list[Shape] = []
        self.by_occupancy: dict[tuple[int, int], Shape] = {}
        moves = position.legal_moves()
        ways = self._capture_ways() if moves and moves[0].captured else {}
        ends: dict[tuple[int, int], int] = {}
        for m in moves:
            ends[(m.start, m.end)] = ends.get((m.start, m.end), 0) + 1
        bit = lay.bit_of
        for m in moves:
            frm, to = bit[m.start], bit[m.end]
            captured = lay.mask(m.captured)
            own_after = (self.own & ~frm) | to
            opp_after = self.opp & ~captured
            way = ways.get((frm, to, captured), lay.mask(m.path)) | frm | to
            white, black = (opp_after, own_after) if self.side else (own_after, opp_after)
            notation = m.long if ends[(m.start, m.end)] > 1 else m.short
            shape = Shape(m, notation, frm, to, captured, way, own_after, opp_after, white,
                          black)
            self.shapes.append(shape)
            self.by_occupancy[(white, black)] = shape

    def _capture_ways(self) -> dict[tuple[int, int, int], int]:
        """Union of the squares of every route of each capture (two routes may reach the
        same end over the same pieces)."""
        p = self.position
        nodes = capture_nodes(p.rules, self.own, self.opp, p.kings, self.side)
        return {key: node.way for key, node in nodes.items() if node.complete}

    @property
    def white(self) -> int:
        return self.position.white

    @property
    def black(self) -> int:
        return self.position.black

    def shape_of(self, move: Move) -> Shape:
        return next(s for s in self.shapes if s.move == move)

    # --- matching ---------------------------------------------------------------------

    def classify(self, board: Board) -> Verdict:
        valid = self.position.layout.valid
        if board.known == valid:
            key = (board.white, board.black)
            if key == (self.white, self.black):
                return Same()
            shape = self.by_occupancy.get(key)
            if shape is not None:
                return Complete(shape)
            return self._partial(board, valid)
        known = board.known
        if not ((board.white ^ self.white) | (board.black ^ self.black)) & known:
            return Same()
        # a move is seen done only when every square it changes was read
        agreeing = [s for s in self.shapes
                     if not ((board.white ^ s.white_after) | (board.black ^ s.black_after))
                     & known]
        if len(agreeing) == 1 and not (agreeing[0].frm | agreeing[0].to
                                       | agreeing[0].captured) & ~known:
            return Complete(agreeing[0])
        return self._partial(board, known)

    def _partial(self, board: Board, known: int) -> Partial | None:
        own_seen = board.colour(self.side) & known
        opp_seen = board.colour(1 - self.side) & known
        changed = ((own_seen ^ self.own) | (opp_seen ^ self.opp)) & known
        found = []
        for s in self.shapes:
            if changed & ~s.span:
                continue  # something moved that this move does not touch
            if opp_seen & s.way or own_seen & s.captured:
                continue
            on_way = own_seen & s.way
            if on_way & (on_way - 1):
                continue  # two of the mover's pieces on its way: not one piece moving
            remaining = (((own_seen ^ s.own_after) | (opp_seen ^ s.opp_after)) & known
                         | s.to & ~known)
            found.append(Progress(s, on_way, s.captured & ~opp_seen & known, remaining))
        if not found:
            return None
        squares = 0
        for p in found:
            squares |= p.remaining
        lay_squares = self.square_of
        ordered = sorted(lay_squares[b] for b in _bits(squares))
        return Partial(tuple(found), tuple(ordered), tuple(p.shape.notation for p in found))


def _bits(mask: int):
    while mask:
        b = mask & -mask
        yield b
        mask ^= b
