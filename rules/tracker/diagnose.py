"""Naming an irregularity: the board shows something no legal move explains.

Only occupancy is seen, so each finding is the simplest story that explains the board,
tried in a fixed order (most specific first): a piece on a light square (§5.3), a crown on
a man, a move taken back (.04), a quiet move while a capture was compulsory (.06), one
capture gone wrong (.08 too few or too many, .09 stopped, .12 wrong pieces removed, .14
own pieces removed), two moves in a row (.01), an opponent's piece moved (.05), pieces
removed (.07), and last any other move no rule allows (.02). A single capture chain is
preferred to two moves: a man crowned mid-capture that goes on jumping took too many
(.08), it did not play twice.

Touching one piece and moving another (.03) leaves no trace in occupancy and is never
reported. Each finding carries the squares that must change to put things right and the
position the board shows with the offender's opponent to move: the position play goes
on from if the opponent plays on (000 §5.7).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..move import Move
from ..movegen import quiet_moves
from ..position import Position
from .board import Board
from .chains import Node, capture_nodes
from .match import Complete, Expectation, Partial, Progress, Shape


@dataclass(frozen=True)
class Finding:
    name: str  # a key of messages.TEXTS
    offender: int  # 0 White, 1 Black
    squares: tuple[int, ...]  # squares to change
    fix: str  # "undo": back to the last legal position; "complete": on to the legal move
    situation: Position | None  # what the board shows, the offender's opponent to move
    extra: dict = field(default_factory=dict, compare=False)  # message fields
    light: tuple[str, ...] = ()


@dataclass(frozen=True)
class History:
    """What the tracker knows besides the expected position."""

    expectation: Expectation
    previous: Position | None = None  # the position before the last move
    last_notation: str | None = None  # the last move, as written
    last_move: Move | None = None


# --- the board against a position -----------------------------------------------------

@dataclass(frozen=True)
class Changes:
    """A board against a position, unknown squares taken as unchanged."""

    white: int
    black: int
    own_gone: int
    own_new: int
    opp_gone: int
    opp_new: int

    @classmethod
    def of(cls, p: Position, board: Board) -> Changes:
        white = (board.white & board.known) | (p.white & ~board.known)
        black = (board.black & board.known) | (p.black & ~board.known)
        own, opp = (p.black, p.white) if p.turn else (p.white, p.black)
        own_seen, opp_seen = (black, white) if p.turn else (white, black)
        return cls(white, black, own & ~own_seen, own_seen & ~own, opp & ~opp_seen,
                   opp_seen & ~opp)

    @property
    def any(self) -> int:
        return self.own_gone | self.own_new | self.opp_gone | self.opp_new


def squares(p: Position, mask: int) -> tuple[int, ...]:
    return tuple(sorted(p.layout.squares(mask)))


def differ(white: int, black: int, board_white: int, board_black: int) -> int:
    return (white ^ board_white) | (black ^ board_black)


def situation(p: Position, board: Board, turn: int, moved: tuple[tuple[int, int], ...] = ()
              ) -> Position:
    """The position the board shows: kings known from history, unknown squares as in `p`.
    `moved` pairs (from bit, to bit) carry a king along or crown a man ending on its back
    row (000 §3.5)."""
    c = Changes.of(p, board)
    white, black = c.white, c.black
    kings = (board.kings & (white | black)) | (p.kings & ((white & p.white) | (black & p.black)))
    crown = p.rules.crown
    for frm, to in moved:
        if not to & (white | black):
            continue
        if p.kings & frm:
            kings |= to
        elif to & crown[1 if to & black else 0]:
            kings |= to
    return Position(p.variant, white, black, kings & (white | black), turn)


def _single_moves(c: Changes) -> tuple[tuple[int, int], ...]:
    """A piece that left one square and turned up on one other square, per colour."""
    pairs = []
    for gone, new in ((c.own_gone, c.own_new), (c.opp_gone, c.opp_new)):
        if gone and new and not gone & (gone - 1) and not new & (new - 1):
            pairs.append((gone, new))
    return tuple(pairs)


# --- the findings, in order -------------------------------------------------------------

def diagnose(h: History, board: Board, stray_light: tuple[str, ...] = ()) -> Finding:
    p = h.expectation.position
    c = Changes.of(p, board)
    for finder in (_light_square, _false_crown, _taken_back, _capture_missed,
                   _capture_gone_wrong, _two_moves, _opponent_piece, _removed):
        found = finder(h, p, board, c, stray_light)
        if found is not None:
            return found
    return _illegal(p, board, c)


def _light_square(h, p, board, c, stray):
    if not stray:
        return None
    mover = int(p.turn)
    return Finding("light-square", mover, squares(p, c.any), "undo",
                   situation(p, board, 1 - mover, _single_moves(c)),
                   {"light": ", ".join(stray)}, light=stray)


def _false_crown(h, p, board, c, stray):
    if c.any:
        return None
    crowned_men = board.kings & ~p.kings & (p.white | p.black) & board.known
    if not crowned_men:
        return None
    return Finding("false-crown", int(p.turn), squares(p, crowned_men), "undo", None)


def _taken_back(h, p, board, c, stray):
    before, last = h.previous, h.last_move
    if before is None or last is None or not c.any:
        return None
    offender = int(before.turn)
    undo = squares(p, c.any)
    touched = differ(p.white, p.black, before.white, before.black)
    back_home = last.start == last.end or c.any & p.layout.bit_of[last.start]
    stepped_back = not differ(c.white, c.black, before.white, before.black) & c.any
    if back_home and stepped_back and not c.any & ~touched:
        # the piece is back on its square, and every other change too is a step back
        return Finding("take-back", offender, undo, "undo",
                       Position(p.variant, c.white, c.black,
                                before.kings & (c.white | c.black), p.turn),
                       {"move": h.last_notation})
    for m in before.legal_moves():
        after = before.after(m)
        if (after.white, after.black) == (c.white, c.black):
            return Finding("changed-move", offender, undo, "undo", after,
                           {"move": h.last_notation, "other": before.notation(m)})
    return None


def _two_moves(h, p, board, c, stray):
    if not c.any:
        return None
    mover = int(p.turn)
    # the side that moved last moves again
    if h.previous is not None:
        again = Position(p.variant, p.white, p.black, p.kings, 1 - mover)
        verdict = Expectation(again).classify(board)
        if isinstance(verdict, Complete):
            return Finding("two-moves", 1 - mover, squares(p, c.any), "undo",
                           again.after(verdict.shape.move),
                           {"moves": f"{h.last_notation}, {verdict.shape.notation}"})
    # the side to move plays twice before anyone could notice
    if c.opp_new or not c.own_new:
        return None
    for first in h.expectation.shapes:
        if first.captured & ~c.opp_gone:
            continue  # the pieces the first move took are still on the board
        between = p.after(first.move)
        again = Position(p.variant, between.white, between.black, between.kings, mover)
        for m in again.legal_moves():
            after = again.after(m)
            if (after.white, after.black) == (c.white, c.black):
                return Finding("two-moves", mover, squares(p, c.any), "undo", after,
                               {"moves": f"{first.notation}, {again.notation(m)}"})
    return None


def _capture_missed(h, p, board, c, stray):
    shapes = h.expectation.shapes
    if not shapes or not shapes[0].captured or c.opp_gone or c.opp_new:
        return None
    own_gone, own_new = c.own_gone, c.own_new
    if own_gone.bit_count() != 1 or own_new.bit_count() != 1:
        return None
    own, opp = (p.black, p.white) if p.turn else (p.white, p.black)
    for frm, to in quiet_moves(p.rules, own, opp, p.kings, int(p.turn)):
        if (frm, to) == (own_gone, own_new):
            sq = p.layout.square_of
            legal = ", ".join(s.notation for s in shapes)
            return Finding("capture-missed", int(p.turn), squares(p, c.any), "undo",
                           situation(p, board, 1 - int(p.turn), ((frm, to),)),
                           {"move": f"{sq[frm]}-{sq[to]}", "legal": legal})
    return None


def _capture_gone_wrong(h, p, board, c, stray):
    if c.opp_new or not (c.own_gone or c.own_new):
        return None
    side = int(p.turn)
    own, opp = (p.black, p.white) if side else (p.white, p.black)
    strict = capture_nodes(p.rules, own, opp, p.kings, side)
    best = _best_node(strict.values(), c)
    relaxed_only = False
    if best is None:
        relaxed = capture_nodes(p.rules, own, opp, p.kings, side, relaxed=True)
        best = _best_node((n for k, n in relaxed.items() if k not in strict), c)
        relaxed_only = best is not None
    if best is None:
        return None
    node, own_removed, wrong = best
    sq = p.layout.square_of
    shapes = h.expectation.shapes
    legal_shapes = [s for s in shapes if s.captured]
    legal = ", ".join(s.notation for s in legal_shapes) or "-"
    most = max((s.captured.bit_count() for s in legal_shapes), default=0)
    shown = situation(p, board, 1 - side, ((node.start, node.landing),))
    undo = squares(p, c.any)
    legal_end = next((s for s in legal_shapes if (s.frm, s.to, s.captured) == node.key), None)
    going_on = [s for s in legal_shapes if s.frm == node.start and s.way & node.landing
                and not node.captured & ~s.captured]
    target = legal_end or (going_on[0] if len(going_on) == 1 else None)
    if legal_end is not None and not (own_removed or wrong):
        left = squares(p, legal_end.captured & ~c.opp_gone)
        return Finding("left-on-board", side, left, "complete", shown, {"left": left})
    if target is not None and (own_removed or wrong):
        complete = squares(p, differ(target.white_after, target.black_after,
                                     c.white, c.black))
        if own_removed:
            return Finding("own-removed", side, complete, "complete", shown,
                           {"own": squares(p, own_removed)})
        return Finding("wrong-removed", side, complete, "complete", shown,
                       {"wrong": squares(p, wrong)})
    if relaxed_only:
        return Finding("too-many", side, undo, "undo", shown,
                       {"taken": node.count, "allowed": most or "-"})
    if going_on:
        return Finding("stopped-chain", side, undo if target is None else squares(
            p, differ(target.white_after, target.black_after, c.white, c.black)),
            "undo" if target is None else "complete", shown,
            {"at": sq[node.landing], "legal": ", ".join(s.notation for s in going_on)})
    if not node.complete and not p.rules.maximum:
        return Finding("stopped-chain", side, undo, "undo", shown,
                       {"at": sq[node.landing], "legal": legal})
    return Finding("too-few", side, undo, "undo", shown,
                   {"taken": node.count, "required": most, "legal": legal})


def _best_node(nodes, c: Changes) -> tuple[Node, int, int] | None:
    """The capture node that explains the board with the fewest stray changes:
    (node, own pieces removed besides, opponent's pieces removed that it did not take)."""
    best, best_cost = None, None
    for node in nodes:
        if node.landing == node.start:
            if c.own_new or not node.captured & c.opp_gone:
                continue
        elif c.own_new != node.landing or not c.own_gone & node.start:
            continue
        own_removed = c.own_gone & ~node.start
        wrong = c.opp_gone & ~node.captured
        left = node.captured & ~c.opp_gone
        cost = (own_removed | wrong).bit_count() * 2 + left.bit_count()
        if best_cost is None or cost < best_cost:
            best, best_cost = (node, own_removed, wrong), cost
    return best


def _opponent_piece(h, p, board, c, stray):
    if c.own_gone or c.own_new or not (c.opp_gone and c.opp_new):
        return None
    mover = int(p.turn)
    return Finding("opponent-piece", mover, squares(p, c.any), "undo",
                   situation(p, board, 1 - mover, _single_moves(c)))


def _removed(h, p, board, c, stray):
    if c.own_new or c.opp_new:
        # a legal move done, and pieces taken off besides it
        for s in h.expectation.shapes:
            extra_white = s.white_after & ~c.white
            extra_black = s.black_after & ~c.black
            if c.white & ~s.white_after or c.black & ~s.black_after:
                continue
            gone = extra_white | extra_black
            if gone:
                mover = int(p.turn)
                return Finding("removed", mover, squares(p, gone), "complete",
                               situation(p, board, 1 - mover, ((s.frm, s.to),)),
                               {"move": s.notation})
        return None
    mover = int(p.turn)
    gone = c.own_gone | c.opp_gone
    return Finding("removed", mover, squares(p, gone), "undo",
                   situation(p, board, 1 - mover))


def _illegal(p, board, c) -> Finding:
    mover = int(p.turn)
    return Finding("illegal-move", mover, squares(p, c.any), "undo",
                   situation(p, board, 1 - mover, _single_moves(c)))


# --- a legal move left unfinished --------------------------------------------------------

def judge_unfinished(p: Position, board: Board, partial: Partial) -> Finding:
    """The mover declared the move done (clock press, commit) or the opponent played on
    while the board is still on the way to a legal move."""
    progress: Progress = partial.closest()
    s: Shape = progress.shape
    side = int(p.turn)
    complete = squares(p, progress.remaining)
    moved = ((s.frm, progress.piece),) if progress.piece else ()
    shown = situation(p, board, 1 - side, moved)
    sq = p.layout.square_of
    left = s.captured & ~progress.removed
    if not s.captured:
        return Finding("removed", side, squares(p, s.frm), "undo", shown)
    if progress.landed:
        removal_begun = progress.removed and s.captured.bit_count() > 1
        name = "removal-stopped" if removal_begun else "left-on-board"
        return Finding(name, side, complete, "complete", shown, {"left": squares(p, left)})
    if progress.piece and progress.piece != s.frm and _jumped_to(p, s, progress):
        # put down on the way, only the pieces jumped so far taken off: it stopped there
        return Finding("stopped-chain", side, complete, "complete", shown,
                       {"at": sq[progress.piece], "legal": s.notation})
    if progress.removed:
        return Finding("removed-early", side, complete, "complete", shown,
                       {"removed": squares(p, progress.removed)})
    if progress.piece and progress.piece != s.frm:
        return Finding("stopped-chain", side, complete, "complete", shown,
                       {"at": sq[progress.piece], "legal": s.notation})
    return Finding("removed", side, squares(p, s.frm), "undo", shown)


def _jumped_to(p: Position, s: Shape, progress: Progress) -> bool:
    """Whether some route of the move reaches the piece's square having jumped every
    piece already removed (and only pieces of this move)."""
    own, opp = (p.black, p.white) if p.turn else (p.white, p.black)
    for node in capture_nodes(p.rules, own, opp, p.kings, int(p.turn)).values():
        if (node.start == s.frm and node.landing == progress.piece
                and not node.captured & ~s.captured
                and not progress.removed & ~node.captured):
            return True
    return False
