"""Which board the camera most likely saw, given what the game allows.

A camera misreads a square now and then. Rather than matching the board it reports
exactly, every hypothesis the game allows is scored against the per-square class
probabilities: nothing moved, each legal move done or under way, the start position set
up again, and irregular boards (`hypotheses.py`: captures gone wrong, a move taken back;
here: one extra action on the best legal boards, a piece moved, taken off, put on or
crowned; and the board exactly as read, dearest of all). The score of a board is
the sum over squares of -log P(reading | board) plus what it costs to enter it (its
prior: irregular boards are rarer than legal ones). Scores add up over the settled boards
while the hypothesis stays the same (a sticky Viterbi: changing hypothesis costs
`SWITCH`), so a move one board leaves in doubt becomes certain when the next boards
agree, and a second best that loses on later boards is dropped.

The decoder commits to a board only when it beats every other by `MARGIN`; otherwise the
tracker waits. A man and a king of one colour are one reading where the board holds a
king or a piece just landed (a camera often cannot tell them), and two readings where it
holds a man (a crown on a man is an irregularity, 000 §5.4.02).

Costs are in nats. A reading given as a letter is taken as right with probability
`board.LETTER_SURE`; one wrong letter then costs about 6 nats, so one misread is outvoted by the
game and two that make a plausible irregular board are not.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..bitboard import Layout
from .board import Board

FLOOR = 1e-4  # no reading rules a class out: a classifier is sometimes sure and wrong

# what it costs to enter a hypothesis, in nats (a change of hypothesis costs SWITCH more)
SWITCH = 1.0
PARTIAL = 1.0  # a move seen under way: legal, but a settled board rarely shows one
START = 3.0  # the start position set up again
IRREGULAR = 8.0  # one action no rule allows, on top of a legal board
AS_READ = 25.0  # the board exactly as read: anything else no rule allows
# the opponent already answering a move not yet settled: rarer, the more so under way
ANSWER = 2.0
ANSWER_UNDER_WAY = 4.0
# an answer to a move left unfinished makes that move an irregularity: as rare as one
PRIORS = {"same": 0.0, "move": 0.0, "standing": 0.0, "partial": PARTIAL, "start": START,
          "answer": ANSWER, "answer-under-way": ANSWER_UNDER_WAY,
          "answer-unfinished": IRREGULAR}
MARGIN = 2.0  # a board is committed to only when it beats every other by this much
BEAM = 40.0  # hypotheses further behind the best are forgotten
BEAM_SIZE = 48
STRUCTURED_BASES = 3  # the legal boards that irregular actions are tried on

# square classes of a hypothesis: empty, a man, a piece of that colour (man or king: a
# king the rules know of, a piece just landed), a king (a crown where a man should be)
EMPTY, WMAN, BMAN, WANY, BANY, WKING, BKING = range(7)
N = 7
BLACK_CLASSES = (BMAN, BANY, BKING)
READ_CLASS = (EMPTY, WMAN, BMAN, WKING, BKING)  # of each reading class e w b W B


def square_costs(p: Sequence[float] | None) -> tuple[float, ...]:
    """-log P(reading | class) for the hypothesis classes, the best at 0."""
    if p is None:
        return UNREAD_COSTS
    e, w, b, wk, bk = p
    log = math.log
    ce, cw, cb = -log(e + FLOOR), -log(w + FLOOR), -log(b + FLOOR)
    cwa, cba = -log(w + wk + FLOOR), -log(b + bk + FLOOR)
    low = min(ce, cwa, cba)  # a piece of either kind never costs more than one kind
    return (ce - low, cw - low, cb - low, cwa - low, cba - low, -log(wk + FLOOR) - low,
            -log(bk + FLOOR) - low)


UNREAD_COSTS = (0.0,) * N


LEGAL = frozenset(("same", "move", "partial", "start", "answer", "answer-under-way",
                   "answer-unfinished"))
# the legal boards an irregular action is tried on: one step from the position (a story of
# an answer and an action more is too free: it explains a misread square as well)
ONE_STEP = frozenset(("move", "partial"))


@dataclass(frozen=True)
class Hypothesis:
    """One board the game allows, as class masks, and what the tracker is fed for it."""

    masks: tuple[int, ...]  # one per class: EMPTY, WMAN, BMAN, WANY, BANY, WKING, BKING
    # legal: "same", "move", "partial", "start", "answer" and "answer-under-way" (the
    # opponent's move from a board not settled yet); "standing" (an irregular board
    # already reported), "irregular", "as-read"
    kind: str
    label: str  # for people: "32-28", "32-28 under way", "as read", ...
    board: Board  # what the exact tracker is fed when this wins

    @property
    def legal(self) -> bool:
        return self.kind in LEGAL


def hypothesis(lay: Layout, white: int, black: int, kings: int, any_: int, kind: str,
               label: str) -> Hypothesis:
    """A board from its masks; `any_`: squares where a man or a king fits alike."""
    kingish = kings | any_
    masks = (lay.valid & ~(white | black), white & ~kingish, black & ~kingish,
             white & kingish, black & kingish, 0, 0)
    return Hypothesis(masks, kind, label, Board(white, black, kings & (white | black),
                                                lay.valid))


@dataclass(frozen=True)
class Choice:
    """What the decoder made of the boards so far."""

    hypothesis: Hypothesis | None  # None: no board beats the others by the margin: wait
    best: Hypothesis
    runner_up: Hypothesis | None
    margin: float  # the runner-up's score minus the best's (inf when alone)
    disagree: tuple[int, ...]  # squares where the latest readings differ from the best


class Frame:
    """One observation's costs per square (keyed by bit) and its board as read."""

    def __init__(self, lay: Layout, probabilities: Sequence[Sequence[float] | None]):
        self.lay = lay
        bits = lay.bit_of
        self.cost = {bits[i + 1]: square_costs(p) for i, p in enumerate(probabilities)}
        unknown = 0
        read = [0] * N
        for i, p in enumerate(probabilities):
            b = bits[i + 1]
            if p is None:
                unknown |= b
                continue
            top = max(range(len(p)), key=p.__getitem__)
            read[READ_CLASS[top]] |= b
        self.unknown = unknown
        self.read = tuple(read)  # class masks as read; unknown squares in none

    def score(self, masks: tuple[int, ...], base: tuple[int, ...] | None = None,
              base_cost: float = 0.0, base_class: dict[int, int] | None = None) -> float:
        """The cost of a board; with `base`, only the squares where it differs count."""
        cost = self.cost
        if base is None or base_class is None:
            total = 0.0
            for k, m in enumerate(masks):
                while m:
                    b = m & -m
                    m ^= b
                    total += cost[b][k]
            return total
        total = base_cost
        for k in range(N):
            m = masks[k] & ~base[k]
            while m:
                b = m & -m
                m ^= b
                c = cost[b]
                total += c[k] - c[base_class[b]]
        return total


def _same_board(a: Board, b: Board) -> bool:
    """Two stories of one board: the same pieces where the same squares were read (which
    of them are kings is the better story's to say, not a reason to wait)."""
    return (a.white, a.black, a.known) == (b.white, b.black, b.known)


def white_of(masks: Sequence[int]) -> int:
    return masks[WMAN] | masks[WANY] | masks[WKING]


def black_of(masks: Sequence[int]) -> int:
    return masks[BMAN] | masks[BANY] | masks[BKING]


def class_of(masks: tuple[int, ...]) -> dict[int, int]:
    out = {}
    for k, m in enumerate(masks):
        while m:
            b = m & -m
            m ^= b
            out[b] = k
    return out


class Decoder:
    """Scores the hypotheses a tracker offers against the boards it sees, over time."""

    def __init__(self, lay: Layout):
        self.lay = lay
        self.scores: dict[tuple[int, ...], float] = {}
        self.known: dict[tuple[int, ...], Hypothesis] = {}

    def frame(self, probabilities: Sequence[Sequence[float] | None]) -> Frame:
        return Frame(self.lay, probabilities)

    def decide(self, frame: Frame, base: Hypothesis, candidates: Iterable[Hypothesis],
               extra_bases: Iterable[Hypothesis] = ()) -> Choice:
        """Add one settled board's evidence; choose among `base` (the expected position),
        `candidates` (legal and irregular boards), one action more on the best of them
        and on `extra_bases`, and the board as read."""
        base_class = class_of(base.masks)
        base_cost = frame.score(base.masks)
        offered: dict[tuple[int, ...], tuple[Hypothesis, float, float]] = {}

        def offer(h: Hypothesis, prior: float, cost: float | None = None) -> None:
            if cost is None:
                cost = frame.score(h.masks, base.masks, base_cost, base_class)
            old = offered.get(h.masks)
            if old is None or (old[0].legal, -old[1]) < (h.legal, -prior):
                offered[h.masks] = (h, prior, cost)

        offer(base, 0.0, base_cost)
        legal: list[tuple[float, Hypothesis]] = []
        irregular: list[tuple[float, Hypothesis]] = []
        for h in candidates:
            prior = PRIORS.get(h.kind, IRREGULAR)
            cost = frame.score(h.masks, base.masks, base_cost, base_class)
            offer(h, prior, cost)
            if h.kind in ONE_STEP:
                legal.append((cost, h))
            elif not h.legal:
                irregular.append((cost, h))
        legal.sort(key=lambda item: item[0])
        irregular.sort(key=lambda item: item[0])
        bases = [(0.0, base_cost, base)] + [(0.0, c, h) for c, h in legal[:STRUCTURED_BASES]]
        bases += [(IRREGULAR, c, h) for c, h in irregular[:STRUCTURED_BASES // 2]]
        bases += [(0.0, frame.score(h.masks, base.masks, base_cost, base_class), h)
                  for h in extra_bases]
        cheapest = min(cost for _, cost, _ in bases)
        for prior, cost, h in bases:
            if cost + prior > cheapest + BEAM:
                continue  # an action on it can only make it worse than forgotten
            for worse, extra in self._one_action(frame, h):
                offer(worse, prior + IRREGULAR, cost + extra)
        offer(self._as_read(frame, base), AS_READ)
        return self._update(frame, offered, base, base_class, base_cost)

    # --- irregular boards ---------------------------------------------------------------

    def _one_action(self, frame: Frame, h: Hypothesis):
        """The best boards one action away from `h`: a piece moved to an empty square, a
        piece removed, put on the board or crowned. Each is a sum of independent square
        terms, so the best of each is found in one pass over the squares, not pair by
        pair."""
        cost = frame.cost
        unknown = frame.unknown
        inf = math.inf
        # the best gain, and where, of: a white / black man / king leaving, a white /
        # black man / piece of either kind arriving, a man crowned
        leave = [[inf, inf], [inf, inf]]
        leave_at = [[0, 0], [0, 0]]
        arrive = [[inf, inf], [inf, inf]]
        arrive_at = [[0, 0], [0, 0]]
        crown, crown_at = inf, 0
        kings = h.board.kings
        arrivals = ((0, 0, WMAN), (0, 1, WANY), (1, 0, BMAN), (1, 1, BANY))
        for k, m in enumerate(h.masks):
            m &= ~unknown
            side = 1 if k in BLACK_CLASSES else 0
            while m:
                b = m & -m
                m ^= b
                c = cost[b]
                if k == EMPTY:
                    for colour, king, arriving in arrivals:
                        v = c[arriving] - c[EMPTY]
                        if v < arrive[colour][king]:
                            arrive[colour][king], arrive_at[colour][king] = v, b
                    continue
                v = c[EMPTY] - c[k]
                king = 1 if kings & b else 0
                if v < leave[side][king]:
                    leave[side][king], leave_at[side][king] = v, b
                if k == WMAN or k == BMAN:
                    v = c[k + 4] - c[k]
                    if v < crown:
                        crown, crown_at = v, b
        lay = self.lay
        square = lay.square_of
        white, black = white_of(h.masks), black_of(h.masks)
        out = []
        for colour in (0, 1):
            man_to, man_at = arrive[colour][0], arrive_at[colour][0]
            if man_at:
                w, b = (white | man_at, black) if colour == 0 else (white, black | man_at)
                label = f"{h.label}, then a piece put on {square[man_at]}"
                out.append((hypothesis(lay, w, b, kings, 0, "irregular", label), man_to))
            for king in (0, 1):
                gain_from, frm = leave[colour][king], leave_at[colour][king]
                if not frm:
                    continue
                label = f"{h.label}, then {square[frm]} taken off"
                out.append((hypothesis(lay, white & ~frm, black & ~frm, kings & ~frm, 0,
                                       "irregular", label), gain_from))
                gain_to, to = arrive[colour][king], arrive_at[colour][king]
                if not to:
                    continue
                w = (white & ~frm) | (0 if colour else to)
                b = (black & ~frm) | (to if colour else 0)
                k = (kings & ~frm) | (to if king else 0)
                label = f"{h.label}, then {square[frm]}-{square[to]}"
                out.append((hypothesis(lay, w, b, k, to if king else 0, "irregular", label),
                            gain_from + gain_to))
        gain, where = crown, crown_at
        if where:
            masks = list(h.masks)
            man = WMAN if masks[WMAN] & where else BMAN
            masks[man] &= ~where
            masks[man + 4] |= where
            board = h.board.replace(kings=h.board.kings | where)
            label = f"{h.label}, then a crown on {square[where]}"
            out.append((Hypothesis(tuple(masks), "irregular", label, board), gain))
        return out

    def _as_read(self, frame: Frame, base: Hypothesis) -> Hypothesis:
        """The board exactly as this frame reads it, unknown squares as the expected
        position has them."""
        masks = tuple(r | (m & frame.unknown)
                      for r, m in zip(frame.read, base.masks, strict=True))
        kings = masks[WANY] | masks[BANY] | masks[WKING] | masks[BKING]
        board = Board(white_of(masks), black_of(masks), kings,
                      self.lay.valid & ~frame.unknown)
        return Hypothesis(masks, "as-read", "as read", board)

    # --- over time ----------------------------------------------------------------------

    def _update(self, frame: Frame, offered, base: Hypothesis, base_class, base_cost
                ) -> Choice:
        previous = self.scores
        floor = min(previous.values()) if previous else 0.0
        scores: dict[tuple[int, ...], float] = {}
        known = self.known
        for masks, (h, prior, cost) in offered.items():
            before = previous.get(masks, math.inf)
            old = known.get(masks)
            if old is not None and old.legal and not h.legal:
                before = math.inf  # a board once legal is irregular now: it enters afresh
            scores[masks] = cost + min(before, floor + SWITCH + prior)
            known[masks] = h
        for masks, before in previous.items():
            if masks in scores:
                continue
            h = known[masks]
            if h.legal:
                continue  # legal boards of an earlier position: offered again if still so
            cost = frame.score(masks, base.masks, base_cost, base_class)
            scores[masks] = before + cost
        low = min(scores.values())
        ranked = sorted(scores.items(), key=lambda item: item[1])
        kept = {m: s - low for m, s in ranked[:BEAM_SIZE] if s - low <= BEAM}
        self.scores = kept
        for masks in list(known):
            if masks not in kept:
                del known[masks]
        best_masks, best_score = ranked[0]
        best = known[best_masks]
        runner_up, margin = None, math.inf
        for masks, score in ranked[1:]:
            other = known.get(masks) or offered[masks][0]
            if _same_board(other.board, best.board):
                continue  # two stories of one board: the tracker is fed the same
            runner_up, margin = other, score - best_score
            break
        disagree = self._disagree(frame, best.masks)
        chosen = best if margin >= MARGIN else None
        return Choice(chosen, best, runner_up, margin, disagree)

    def _disagree(self, frame: Frame, masks: tuple[int, ...]) -> tuple[int, ...]:
        """Squares read (not unknown) whose top reading the board contradicts."""
        read = frame.read
        wrong = ((white_of(masks) ^ white_of(read)) | (black_of(masks) ^ black_of(read))
                 ) & ~frame.unknown
        wrong |= (read[WKING] & masks[WMAN] | read[BKING] & masks[BMAN]
                  | read[WMAN] & masks[WKING] | read[BMAN] & masks[BKING])
        return tuple(sorted(self.lay.squares(wrong)))
