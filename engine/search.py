"""The built-in search: iterative deepening alpha-beta (negamax) with principal variation
search, a transposition table on Zobrist keys, quiescence over captures, and move ordering
by table move, killer moves and history.

It works on the side-relative bitboards of `damas.rules.movegen` (plain ints) for speed;
only the root and the reported lines are turned into `Move`s. Draughts makes some things
simpler than chess: captures are compulsory, so quiescence has no "stand pat" when a
capture is on the board (every capture is searched until the position is quiet), and a
position with a single legal move (often a forced capture) is searched one ply deeper.

`Search.run` may be stopped from another thread with `Search.stop()`: the search checks
the flag, the deadline and the node budget every 1,024 nodes and answers the best move of
the deepest finished iteration (or the better move found so far in the unfinished one).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from damas.rules import Move, Position, Variant
from damas.rules.movegen import captures, quiet_moves, rules_for

from .evaluation import make_evaluator
from .limits import Info
from .zobrist import zobrist

WIN = 10000  # a side to move with no legal move scores -WIN + plies from the root
INF = 32000
MAX_PLY = 100  # deeper lines (long forced sequences) are scored by the evaluation
WIN_THRESHOLD = WIN - MAX_PLY
EXACT, LOWER, UPPER = 0, 1, 2
POLL_EVERY = 1024  # nodes between looks at the clock and the stop flag
KILLER_1, KILLER_2 = 1 << 40, 1 << 39  # ordering scores above any history score
LATE_MOVE = 3  # quiet moves from this index on are first searched with a reduced depth

RootMove = tuple[int, int, int]  # (from bit, to bit, captured bits) of a root move


class SearchStopped(Exception):
    """Raised inside the tree when time, nodes or a stop request end the search."""


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


class Search:
    """A search for one variant. Keeps its transposition table and history between moves
    of a game; `clear()` forgets them."""

    def __init__(self, variant: Variant, evaluation: str = "full", tt_entries: int = 200_000,
                 reductions: bool = True):
        self.variant = variant
        self.reductions = reductions
        self.rules = rules_for(variant)
        self.zobrist = zobrist(variant.size)
        self.evaluate = make_evaluator(variant, evaluation)
        self.tt_entries = tt_entries
        self.tt: dict[int, tuple] = {}
        self.history: dict[int, int] = {}
        self._stop = False
        self._soft_deadline: float | None = None
        self._tree: _Tree | None = None

    def clear(self) -> None:
        self.tt.clear()
        self.history.clear()

    def stop(self) -> None:
        """Ask a running search (in another thread) to finish now."""
        self._stop = True

    def set_deadlines(self, soft: float | None, hard: float | None) -> None:
        """Change the deadlines of a running search (a ponder hit)."""
        self._soft_deadline = soft
        tree = self._tree
        if tree is not None:
            tree.hard_deadline = hard

    # --- the public entry point -------------------------------------------------------

    def run(self, position: Position, *, history: Sequence[Position] = (),
            max_depth: int = MAX_PLY - 1, max_nodes: int | None = None,
            soft_deadline: float | None = None, hard_deadline: float | None = None,
            on_info: Callable[[Info], None] | None = None, noise: int = 0,
            rng: random.Random | None = None) -> SearchResult:
        """Search `position` (the game's earlier positions in `history`, for
        repetitions). Deadlines are `time.perf_counter()` values: no new iteration starts
        after the soft one, the search is cut at the hard one. `noise` adds a random
        offset of that spread (hundredths of a man) to each root move's score: the
        weaker levels use it to play human-looking but imperfect moves."""
        self._stop = False
        started = time.perf_counter()
        root_moves = position.legal_moves()
        if not root_moves:
            return SearchResult(None, -WIN, 0, 0, 0.0, (), ())
        if len(self.tt) > self.tt_entries:
            self.tt.clear()
        for k in list(self.history):  # age the history so old games matter less
            self.history[k] >>= 2
        tree = _Tree(self, position, history, max_nodes, hard_deadline, started)
        self._tree, self._soft_deadline = tree, soft_deadline
        rng = rng or random.Random()
        tree.set_noise(noise, rng)
        infos: list[Info] = []
        pv: Sequence[Move]
        best_move, best_score, done_depth, pv = tree.root_moves[0], 0, 0, ()
        for depth in range(1, max_depth + 1):
            try:
                score = tree.iterate(depth)
            except SearchStopped:
                if tree.improved_in_unfinished is not None:
                    best_move, pv = tree.improved_in_unfinished, ()
                break
            best_move, best_score, done_depth = tree.best, score, depth
            pv = tree.principal_variation(depth)
            info = Info(depth, score, tree.nodes, time.perf_counter() - started,
                        tuple(pv), tuple(_notations(position, pv)))
            infos.append(info)
            if on_info is not None:
                on_info(info)
            if abs(score) >= WIN_THRESHOLD and WIN - abs(score) <= depth:
                break  # the game's end is in sight; deeper search can't change it
            soft = self._soft_deadline
            if soft is not None and time.perf_counter() >= soft:
                break
            if tree.stopped_early():
                break
        self._tree = None
        move = tree.to_move(best_move)
        pv_moves = pv if pv and pv[0] == move else (move,)
        return SearchResult(move, best_score, done_depth, tree.nodes,
                            time.perf_counter() - started, tuple(pv_moves), tuple(infos))


def _notations(position: Position, line: Sequence[Move]) -> list[str]:
    out, pos = [], position
    for m in line:
        out.append(pos.notation(m))
        pos = pos.play(m)
    return out


class _Tree:
    """The state of one `Search.run`: the node function and what it shares."""

    def __init__(self, search: Search, position: Position, history: Sequence[Position],
                 max_nodes: int | None, hard_deadline: float | None, started: float):
        self.search = search
        self.position = position
        self.nodes = 0
        self.max_nodes = max_nodes
        self.hard_deadline = hard_deadline
        self.started = started
        self.lay = position.layout
        z = search.zobrist
        self.root_key = z.of(position)
        # Repetitions: keys of the earlier positions since the last man move or capture.
        keys, rev = [], 0
        positions = list(history) + [position]
        for before, after in zip(positions, positions[1:], strict=False):
            if _reversible(before, after):
                rev += 1
            else:
                rev = 0
        for p in positions[len(positions) - 1 - rev: -1]:
            keys.append(z.of(p))
        self.root_rev = rev
        self.keys = keys + [0] * (MAX_PLY + 2)
        self.base = len(keys)  # index of the root's key in self.keys
        self.killers = [[0, 0] for _ in range(MAX_PLY + 2)]
        self.pv: list[list[RootMove]] = [[] for _ in range(MAX_PLY + 2)]
        bit = self.lay.bit_of
        self.root_moves: list[RootMove] = []  # each legal root move
        for m in position.legal_moves():
            captured = 0
            for s in m.captured:
                captured |= bit[s]
            self.root_moves.append((bit[m.start], bit[m.end], captured))
        self.bias = {m: 0 for m in self.root_moves}
        self.best = self.root_moves[0]
        self.improved_in_unfinished: RootMove | None = None
        self.node = self._make_node()

    def set_noise(self, spread: int, rng: random.Random) -> None:
        if spread:
            self.bias = {m: int(rng.gauss(0, spread)) for m in self.root_moves}

    def stopped_early(self) -> bool:
        return self.search._stop

    def to_move(self, m: tuple) -> Move:
        return _to_move(self.position, m, self.lay)

    # --- iterations -------------------------------------------------------------------

    def iterate(self, depth: int) -> int:
        """One iteration at the root; returns the score of the best move."""
        pos = self.position
        own, opp = (pos.white, pos.black) if pos.turn == 0 else (pos.black, pos.white)
        kings, side = pos.kings, int(pos.turn)
        z = self.search.zobrist
        crown = self.search.rules.crown[side]
        node = self.node
        alpha, beta = -INF, INF
        self.improved_in_unfinished = None
        best, best_score = self.best, -INF
        ordered = [self.best] + [m for m in self.root_moves if m != self.best]
        forced = len(ordered) == 1
        scores = {}
        for i, m in enumerate(ordered):
            frm, to, cap = m
            child_key, k, rev = _child_key(z, self.root_key, own, kings, side, frm, to, cap,
                                           crown, self.root_rev)
            self.keys[self.base] = self.root_key
            bias = self.bias[m]
            child = (opp & ~cap, own ^ frm ^ to, k, 1 - side, child_key)
            d = depth if forced else depth - 1
            if i == 0:
                score = -node(*child, d, -(beta - bias), -(alpha - bias), 1, rev) + bias
            else:
                score = -node(*child, d, -(alpha - bias) - 1, -(alpha - bias), 1, rev) + bias
                if score > alpha:
                    score = -node(*child, d, -(beta - bias), -(alpha - bias), 1, rev) + bias
            scores[m] = score
            if score > best_score:
                best_score, best = score, m
                if score > alpha:
                    alpha = score
                    self.pv[0] = [m] + self.pv[1]
                    if i > 0:
                        self.improved_in_unfinished = m
        self.best = best
        # Next iteration: best first, then by this iteration's scores.
        self.root_moves.sort(key=lambda m: scores.get(m, -INF), reverse=True)
        return best_score - self.bias[best]  # the noise chose the move; report the truth

    def principal_variation(self, depth: int) -> list[Move]:
        """The line the last iteration expects, as legal moves."""
        out, pos = [], self.position
        for m in self.pv[0][: max(depth, 1) + 8]:
            try:
                move = _to_move(pos, m, self.lay)
            except KeyError:
                break
            out.append(move)
            pos = pos.play(move)
        return out

    # --- the node function ------------------------------------------------------------

    def _make_node(self):
        """Build the negamax node function as a closure: locals are faster than
        attributes on the hot path."""
        search = self.search
        r = search.rules
        evaluate = search.evaluate
        tt, history = search.tt, search.history
        men_keys, king_keys = search.zobrist.men, search.zobrist.kings
        black_key = search.zobrist.black_to_move
        crown_rows = r.crown
        keys, base = self.keys, self.base
        killers, pv = self.killers, self.pv
        tree = self
        clock = time.perf_counter
        reduce = search.reductions

        def poll():
            if search._stop:
                raise SearchStopped
            if tree.max_nodes is not None and tree.nodes >= tree.max_nodes:
                raise SearchStopped
            if tree.hard_deadline is not None and clock() >= tree.hard_deadline:
                raise SearchStopped

        def node(own, opp, kings, side, key, depth, alpha, beta, ply, rev):
            tree.nodes += 1
            if not tree.nodes & (POLL_EVERY - 1):
                poll()
            pv_node = beta - alpha > 1
            if pv_node:
                pv[ply] = []
            keys[base + ply] = key
            if rev >= 4:  # the same position can only come back after king moves
                i = base + ply - 4
                stop = base + ply - rev
                while i >= stop and i >= 0:
                    if keys[i] == key:
                        return 0
                    i -= 2
            if ply >= MAX_PLY:  # a line this long is scored as it stands
                return evaluate(own, opp, kings, side)
            caps = captures(r, own, opp, kings, side)
            if caps:
                moves = caps
            elif depth <= 0:
                return evaluate(own, opp, kings, side)
            else:
                moves = quiet_moves(r, own, opp, kings, side)
                if not moves:
                    return ply - WIN

            tt_move = None
            if depth > 0:
                entry = tt.get(key)
                if entry is not None:
                    e_depth, flag, s, tt_move = entry
                    if e_depth >= depth and not pv_node:
                        if s >= WIN_THRESHOLD:
                            s -= ply
                        elif s <= -WIN_THRESHOLD:
                            s += ply
                        if flag == EXACT or (flag == LOWER and s >= beta) or (
                                flag == UPPER and s <= alpha):
                            return s

            n = len(moves)
            if n > 1:
                if not caps:
                    k1, k2 = killers[ply]
                    hist_get = history.get

                    def order(m):
                        h = m[0] | m[1] << 64
                        return KILLER_1 if h == k1 else KILLER_2 if h == k2 else hist_get(h, 0)

                    moves.sort(key=order, reverse=True)
                if tt_move is not None:
                    for i in range(n):
                        m = moves[i]
                        if m[0] == tt_move[0] and m[1] == tt_move[1] and (
                                not caps or m[2] == tt_move[2]):
                            if i:
                                del moves[i]
                                moves.insert(0, m)
                            break
                new_depth = depth - 1
            else:
                new_depth = depth  # a forced move costs no depth

            own_men, own_kings = men_keys[side], king_keys[side]
            opp_men, opp_kings = men_keys[1 - side], king_keys[1 - side]
            crown = crown_rows[side]
            next_side = 1 - side
            alpha0 = alpha
            best, best_move = -INF, None
            for i in range(n):
                m = moves[i]
                frm, to = m[0], m[1]
                ck = key ^ black_key
                if caps:
                    cap = m[2]
                    nopp = opp & ~cap
                    k = kings & ~cap
                    c = cap
                    while c:
                        b = c & -c
                        c ^= b
                        ck ^= opp_kings[b] if kings & b else opp_men[b]
                    nrev = 0
                else:
                    nopp, k = opp, kings
                    nrev = rev + 1 if kings & frm else 0
                if kings & frm:
                    k = (k ^ frm) | to
                    ck ^= own_kings[frm] ^ own_kings[to]
                elif to & crown:
                    k |= to
                    ck ^= own_men[frm] ^ own_kings[to]
                    nrev = 0
                else:
                    ck ^= own_men[frm] ^ own_men[to]
                nown = own ^ frm ^ to
                if i == 0:
                    score = -node(nopp, nown, k, next_side, ck, new_depth, -beta, -alpha,
                                  ply + 1, nrev)
                else:
                    # Late quiet moves, after the table move and killers, are searched
                    # a ply shallower first; only one that beats alpha is searched fully.
                    if reduce and i >= LATE_MOVE and not caps and new_depth >= 2:
                        score = -node(nopp, nown, k, next_side, ck, new_depth - 1, -alpha - 1,
                                      -alpha, ply + 1, nrev)
                        if score <= alpha:
                            continue
                    score = -node(nopp, nown, k, next_side, ck, new_depth, -alpha - 1, -alpha,
                                  ply + 1, nrev)
                    if alpha < score < beta:
                        score = -node(nopp, nown, k, next_side, ck, new_depth, -beta, -alpha,
                                      ply + 1, nrev)
                if score > best:
                    best, best_move = score, m
                    if score > alpha:
                        alpha = score
                        if score >= beta:
                            if not caps:
                                h = frm | to << 64
                                history[h] = history.get(h, 0) + depth * depth
                                km = killers[ply]
                                if km[0] != h:
                                    km[1], km[0] = km[0], h
                            break
                        if pv_node:
                            pv[ply] = [m[:3] if caps else (frm, to, 0)] + pv[ply + 1]

            if depth > 0:
                flag = LOWER if best >= beta else EXACT if best > alpha0 else UPPER
                s = best
                if s >= WIN_THRESHOLD:
                    s += ply
                elif s <= -WIN_THRESHOLD:
                    s -= ply
                tt[key] = (depth, flag, s, (best_move[0], best_move[1],
                                            best_move[2] if caps else 0))
            return best

        return node


def _reversible(before: Position, after: Position) -> bool:
    """True when the move between two positions was a king move without capture: only
    then can an earlier position come back."""
    pieces_before = (before.white | before.black).bit_count()
    pieces_after = (after.white | after.black).bit_count()
    moved = (before.white ^ after.white) | (before.black ^ after.black)
    return (pieces_before == pieces_after and bool(moved & before.kings)
            and before.kings.bit_count() == after.kings.bit_count())


def _child_key(z, key, own, kings, side, frm, to, cap, crown, rev):
    """Zobrist key, kings and reversible-ply count after a root move."""
    ck = key ^ z.black_to_move
    k = kings & ~cap
    c = cap
    while c:
        b = c & -c
        c ^= b
        ck ^= z.kings[1 - side][b] if kings & b else z.men[1 - side][b]
    if kings & frm:
        k = (k ^ frm) | to
        ck ^= z.kings[side][frm] ^ z.kings[side][to]
        rev = 0 if cap else rev + 1
    elif to & crown:
        k |= to
        ck ^= z.men[side][frm] ^ z.kings[side][to]
        rev = 0
    else:
        ck ^= z.men[side][frm] ^ z.men[side][to]
        rev = 0
    return ck, k, rev


def _to_move(position: Position, m: tuple, lay) -> Move:
    """The legal Move of `position` with these (start bit, end bit, captured mask)."""
    sq = lay.square_of
    start, end, captured = sq[m[0]], sq[m[1]], m[2]
    for move in position.legal_moves():
        if move.start == start and move.end == end:
            mask = 0
            for s in move.captured:
                mask |= lay.bit_of[s]
            if mask == captured:
                return move
    raise KeyError(m)
