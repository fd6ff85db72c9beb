"""The built-in search: the native core's (engine/native/search.c) iterative deepening,
driven from here one iteration at a time.

Each iteration runs in C without the GIL: aspiration windows, principal variation search,
a transposition table of a fixed size, killers and history, late-move reductions, and a
quiescence that plays out every capture and looks one ply further at a threatened one.
The draw rules of the variant are part of the tree (repetitions, the king-move rule, the
ending rules with the plies already played in them).

`Search.run` may be stopped from another thread with `Search.stop()`, and its hard
deadline moved with `set_deadlines` (a ponder hit): the tree polls both every 1,024
nodes and answers the best move of the deepest finished iteration (or a better move the
unfinished one proved).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from damas.rules import Move, Position, Variant
from damas.rules.variant import DrawKind

from . import native
from .evaluation import WeightsError, load_weights
from .limits import Info

WIN = 10000  # a side to move with no legal move scores -WIN + plies from the root
MAX_PLY = 128  # the core's deepest line; deeper is scored by the evaluation
WIN_THRESHOLD = WIN - MAX_PLY
POLL_EVERY = 1024  # nodes between the tree's looks at the clock and the stop flag

Triple = tuple[int, int, int]  # a move in the core: (from bit, to bit, captured bits)


@dataclass(frozen=True)
class SearchResult:
    move: Move | None  # None only when the position has no legal move
    score: int
    depth: int  # deepest finished iteration
    nodes: int
    seconds: float
    pv: tuple[Move, ...]
    infos: tuple[Info, ...]


def score_text(score: int) -> str:
    """'+1.25' in men, or 'win in 7' / 'loss in 4' (plies)."""
    if score >= WIN_THRESHOLD:
        return f"win in {WIN - score}"
    if score <= -WIN_THRESHOLD:
        return f"loss in {WIN + score}"
    return f"{score / 100:+.2f}"


def new_searcher(variant: Variant, evaluation: str = "full", tt_mb: int = 32,
                 threads: int = 1, contempt: bool = False):
    """The core's searcher of a variant with its weights and draw rules; with `contempt`,
    a player's: a draw costs the side it searches for the weights' contempt."""
    core = native.module().Searcher(native.rules_flags(variant), tt_mb, threads)
    w = load_weights(variant, evaluation)
    core.set_weights(w.vector(native.module().FEATURES), w.trade, w.chase,
                     w.flying_ending_divisor)
    if w.patterns is not None:
        try:
            core.set_patterns(w.patterns)
        except ValueError as e:
            raise WeightsError(f"{variant.name} weights: {e}") from None
    king_limit, endings = 0, []
    for rule in variant.draw_rules:
        if rule.kind is DrawKind.KING_MOVES:
            king_limit = 2 * rule.moves
        elif rule.kind is DrawKind.ENDGAME:
            endings.append((2 * rule.moves, [(a[0], a[1], b[0], b[1]) for a, b in rule.endings]))
    core.set_draw_rules(king_limit, endings, w.contempt if contempt else 0)
    return core


class Search:
    """A search for one variant. Keeps its transposition table and history between moves
    of a game; `clear()` forgets them."""

    def __init__(self, variant: Variant, evaluation: str = "full", tt_mb: int = 32,
                 threads: int = 1, contempt: bool = False):
        self.variant = variant
        self.core = new_searcher(variant, evaluation, tt_mb, threads, contempt)
        self._soft_deadline: float | None = None
        self._max_nodes = 0

    def clear(self) -> None:
        self.core.clear()

    def stop(self) -> None:
        """Ask a running search (in another thread) to finish now."""
        self.core.stop()

    def set_deadlines(self, soft: float | None, hard: float | None) -> None:
        """Change the deadlines (`time.perf_counter()` values) of a running search."""
        self._soft_deadline = soft
        self.core.limits(None if hard is None else hard - time.perf_counter(), self._max_nodes)

    def run(self, position: Position, *, history: Sequence[Position] = (),
            max_depth: int = MAX_PLY - 1, max_nodes: int | None = None,
            soft_deadline: float | None = None, hard_deadline: float | None = None,
            on_info: Callable[[Info], None] | None = None, noise: int = 0,
            rng: random.Random | None = None, ending_run: int = 0) -> SearchResult:
        """Search `position` (the game's earlier positions in `history`, for repetitions
        and the king-move rule; `ending_run`: plies already played in the drawing ending it
        is in). Deadlines are `time.perf_counter()` values: no new iteration starts after
        the soft one, the search is cut at the hard one. `noise` adds a random offset of
        that spread (hundredths of a man) to each root move's score: the weaker levels
        use it to play human-looking but imperfect moves."""
        started = time.perf_counter()
        reversible = _reversible_tail(list(history) + [position])
        earlier = [(p.white, p.black, p.kings, int(p.turn)) for p in reversible[:-1]]
        seed = (rng or random.Random()).getrandbits(64)
        self._max_nodes = max_nodes or 0
        count = self.core.root(position.white, position.black, position.kings,
                               int(position.turn), earlier, len(earlier), ending_run, noise,
                               seed)
        if not count:
            return SearchResult(None, -WIN, 0, 0, 0.0, (), ())
        self.set_deadlines(soft_deadline, hard_deadline)
        moves = _Moves(position)
        infos: list[Info] = []
        best: Triple | None = None
        score, done_depth, nodes = 0, 0, 0
        pv: Sequence[Triple] = ()
        for depth in range(1, min(max_depth, MAX_PLY - 1) + 1):
            finished = self.core.iterate(depth)
            _, got_score, got_best, improved, got_pv, nodes, _ = self.core.report()
            if not finished:
                if improved or best is None:
                    best, pv = got_best, ()
                break
            best, score, done_depth, pv = got_best, got_score, depth, got_pv
            if on_info is not None:
                line = moves.line(pv)
                info = Info(depth, score, nodes, time.perf_counter() - started, tuple(line),
                            tuple(moves.notations(line)))
                infos.append(info)
                on_info(info)
            if abs(score) >= WIN_THRESHOLD and WIN - abs(score) <= depth:
                break  # the game's end is in sight; deeper search can't change it
            soft = self._soft_deadline
            if soft is not None and time.perf_counter() >= soft:
                break
        assert best is not None  # an iteration at depth 1 always has a move
        move = moves.root(best)
        line = moves.line(pv) if pv else []
        if not line or line[0] != move:
            line = [move]
        if on_info is None and done_depth:
            infos.append(Info(done_depth, score, nodes, time.perf_counter() - started,
                              tuple(line), tuple(moves.notations(line))))
        return SearchResult(move, score, done_depth, nodes, time.perf_counter() - started,
                            tuple(line), tuple(infos))


class _Moves:
    """The core's (from, to, captured) bits as the rules' Moves."""

    def __init__(self, position: Position):
        self.position = position
        self.layout = position.layout

    def _key(self, m: Move) -> Triple:
        bit = self.layout.bit_of
        return bit[m.start], bit[m.end], self.layout.mask(m.captured)

    def root(self, triple: Triple) -> Move:
        """The legal move of the root, with the route damas.rules gives it."""
        for m in self.position.legal_moves():
            if self._key(m) == triple:
                return m
        raise KeyError(triple)

    def line(self, pv: Sequence[Triple]) -> list[Move]:
        """The principal variation as moves (the core's routes below the root: same
        start, end and captured set)."""
        out: list[Move] = []
        pos = self.position
        for triple in pv:
            found = None
            for m in native.legal_moves(pos):
                if self._key(m) == triple:
                    found = m
                    break
            if found is None:
                break
            out.append(self.root(triple) if not out else found)
            pos = pos.play(found)
        return out

    def notations(self, line: Sequence[Move]) -> list[str]:
        out, pos = [], self.position
        for m in line:
            out.append(pos.notation(m))
            pos = pos.play(m)
        return out


def _reversible_tail(positions: list[Position]) -> list[Position]:
    """The positions since the last man move or capture (the last one included): only
    king moves without capture lead from one to the next, so only these can repeat, and
    their count is the king-move rule's."""
    start = len(positions) - 1
    while start > 0 and _king_move(positions[start - 1], positions[start]):
        start -= 1
    return positions[start:]


def _king_move(before: Position, after: Position) -> bool:
    """True when the move between two positions was a king move without capture."""
    pieces_before = (before.white | before.black).bit_count()
    pieces_after = (after.white | after.black).bit_count()
    moved = (before.white ^ after.white) | (before.black ^ after.black)
    return (pieces_before == pieces_after and bool(moved & before.kings)
            and before.kings.bit_count() == after.kings.bit_count())
