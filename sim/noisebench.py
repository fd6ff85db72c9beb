"""`damas bench tracker --noise`: random games, each board read by a camera that misreads.

A simulated person plays random legal games in the three variants, every step of a move
shown (the piece lifted with a hand over the squares round it, captured pieces taken off
in any order, before or after the piece lands); each settled board is read several times
(one read per `FRAME` seconds for `HOLD` seconds), and every read is noisy on its own:
- a share of squares read as a wrong class with high confidence (0.9 to 0.99);
- the others right with confidence 0.9 to 0.999;
- now and then a square unread (`?`).
Some games end in an irregular move made on purpose (000 §5.4.02, .06, .08, .10, .11,
.12); its article is what the rules' diagnosis names for the true board, and the noisy
tracker must name the same.

Noise is drawn afresh for every read: a settled board is one piece of evidence among
several (a real camera's misreads persist longer; see the rules README).
"""

from __future__ import annotations

import random
import statistics
import time
from dataclasses import dataclass, field
from typing import Any

from damas.rules import Game, Position, variant
from damas.rules.geometry import geometry
from damas.rules.tracker import Tracker
from damas.rules.tracker.board import CLASSES, Observation
from damas.rules.tracker.chains import capture_nodes
from damas.rules.tracker.events import Event, Irregular

from .person import move_steps

FRAME = 0.2  # seconds between reads of a settled board
SETTLE = 0.6  # the tracker's settle time
HOLD = 2.0  # how long a finished move stays before the next one begins
UNREAD = 0.005  # share of squares read as `?`
MAX_PLIES = 80
ARTICLES = ("5.4.02", "5.4.06", "5.4.08", "5.4.10", "5.4.11", "5.4.12")


@dataclass
class Tally:
    moves: int = 0
    right: int = 0
    missed: int = 0
    invented: int = 0
    false_irregular: int = 0
    irregular_made: int = 0
    irregular_flagged: int = 0
    irregular_wrong_article: int = 0
    irregular_missed: int = 0
    observations: int = 0
    ms: list[float] = field(default_factory=list)  # middle-game observations
    missed_examples: list[str] = field(default_factory=list)


class Camera:
    """Reads a board ({square: 'w'|'b'|'W'|'B'}) with the bench's noise."""

    def __init__(self, rng: random.Random, rate: float, squares: int):
        self.rng, self.rate, self.squares = rng, rate, squares

    def read(self, pieces: dict[int, str], t: float, hidden: frozenset[int] = frozenset()
             ) -> Observation:
        rng = self.rng
        letters: list[str] = []
        probabilities: list[tuple[float, ...] | None] = []
        for sq in range(1, self.squares + 1):
            truth = pieces.get(sq, "e")
            if sq in hidden or rng.random() < UNREAD:
                letters.append("?")
                probabilities.append(None)
                continue
            if rng.random() < self.rate:
                shown = rng.choice([c for c in CLASSES if c != truth])
                sure = rng.uniform(0.9, 0.99)
            else:
                shown, sure = truth, rng.uniform(0.9, 0.999)
            rest = (1.0 - sure) / (len(CLASSES) - 1)
            letters.append(shown)
            probabilities.append(tuple(sure if c == shown else rest for c in CLASSES))
        return Observation("".join(letters), t, (), tuple(probabilities))


class Player:
    """One game: the true position, the tracker watching it, and the clock."""

    def __init__(self, name: str, rng: random.Random, rate: float, tally: Tally):
        self.variant = variant(name)
        self.rng, self.tally = rng, tally
        self.camera = Camera(rng, rate, self.variant.squares)
        self.game = Game(self.variant)
        self.tracker = Tracker(self.variant, settle=SETTLE)
        self.t = 0.0
        self.late = 0  # the last move not recorded yet
        self.events: list[Event] = []
        self.show(self.game.position.pieces(), HOLD)

    def show(self, pieces: dict[int, str], hold: float = 0.0,
             hidden: frozenset[int] = frozenset()) -> None:
        """One read now, then one every FRAME while the board stays `hold` seconds."""
        reads = 1 + int(round(hold / FRAME))
        middle = 20 <= self.game.ply <= 50
        for _ in range(reads):
            self.t += FRAME
            obs = self.camera.read(pieces, self.t, hidden if _ == 0 else frozenset())
            start = time.thread_time_ns()  # CPU: other processes share the machine
            self.events += self.tracker.observe(obs)
            if middle and self.variant.name == "international":
                self.tally.ms.append((time.thread_time_ns() - start) / 1e6)
            self.tally.observations += 1

    def hand_over(self, square: int) -> frozenset[int]:
        """The squares a hand hides while it holds a piece over `square`."""
        g = geometry(self.variant.size)
        row, col = g.row_col(square)
        near = [g.square_at(row + dr, col + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1)]
        return frozenset(s for s in near if s is not None and self.rng.random() < 0.5)

    def play(self, move) -> None:
        pos = self.game.position
        order = list(move.captured)
        self.rng.shuffle(order)
        steps = move_steps(pos, move, order, remove_first=self.rng.random() < 0.3)
        for board in steps[:-1]:
            self.show(board, 0.0, self.hand_over(move.start))
        self.game.push(move)
        before = len(self.events)
        self.show(steps[-1], HOLD)
        self._check(move, self.events[before:])

    def _check(self, move, events: list[Event]) -> None:
        """The tracker's record against the truth. A move may be recorded late (the
        board left in doubt until the next move begins): it counts as right when the
        record has caught up by the end of the next move."""
        tally = self.tally
        tally.moves += 1
        tally.false_irregular += sum(e.kind == "irregular" for e in events)
        mine, truth = self.tracker.game.moves, self.game.moves
        if mine == truth:
            tally.right += 1 + self.late
            self.late = 0
            return
        if mine == truth[:-1] and not self.late:
            self.late = 1  # one behind: judged after the next move
            return
        wanted = self.game.notations()[len(mine)] if len(mine) < len(truth) else "-"
        if mine != truth[:len(mine)] or len(mine) > len(truth):
            tally.invented += 1
        else:
            tally.missed += 1 + self.late
            if len(tally.missed_examples) < 5:
                tally.missed_examples.append(f"{self.variant.name} ply {len(mine) + 1}: "
                                             f"{wanted}")
        self.late = 0
        # the rest of the game is measured from the truth again
        self.tracker = Tracker(game=self.game, settle=SETTLE)
        self.show(self.game.position.pieces(), HOLD)

    def finish(self) -> None:
        """The last move left on the board: it must be recorded now."""
        if self.late:
            self.t += HOLD
            self.events += self.tracker.tick(self.t)
            caught_up = self.tracker.game.moves == self.game.moves
            self.tally.right += caught_up
            self.tally.missed += not caught_up
            self.late = 0


# --- irregular moves made on purpose ------------------------------------------------------

def irregular_boards(pos: Position, rng: random.Random) -> list[tuple[list, bool]]:
    """Ways to break a rule from `pos`: (the boards shown, commit at the end?)."""
    pieces = pos.pieces()
    g = geometry(pos.variant.size)
    side = int(pos.turn)
    own = "bB" if side else "wW"
    forward = 1 if side else -1  # rows grow towards White
    out: list[tuple[list, bool]] = []
    men = [s for s, p in pieces.items() if p in own and p.islower()]
    rng.shuffle(men)

    def step(sq: int, dr: int) -> int | None:
        row, col = g.row_col(sq)
        for dc in rng.sample((-1, 1), 2):
            to = g.square_at(row + dr, col + dc)
            if to is not None and to not in pieces:
                return to
        return None

    moves = pos.legal_moves()
    capture = bool(moves and moves[0].captured)
    for sq in men:  # 5.4.02 a man steps backwards; 5.4.06 a quiet move while a capture is due
        to = step(sq, -forward) if not capture else step(sq, forward)
        if to is not None:
            board = {k: v for k, v in pieces.items() if k != sq}
            board[to] = pieces[sq]
            out.append(([board], False))
            break
    if capture:
        lay = pos.layout
        mine = pos.black if side else pos.white
        theirs = pos.white if side else pos.black
        most = max(m.captured.__len__() for m in moves)
        nodes = capture_nodes(pos.rules, mine, theirs, pos.kings, side)
        fewer = [n for n in nodes.values() if n.complete and n.count < most]
        if fewer:  # 5.4.08 fewer pieces taken than the rule demands
            n = rng.choice(fewer)
            board = dict(pieces)
            piece = board.pop(lay.square_of[n.start])
            for b in lay.squares(n.captured):
                board.pop(b)
            board[lay.square_of[n.landing]] = piece
            out.append(([board], False))
        m = rng.choice(moves)
        taken = list(m.captured)
        landed = {k: v for k, v in pieces.items() if k != m.start}
        landed[m.end] = pieces[m.start]
        early = {k: v for k, v in pieces.items() if k != taken[0]}
        out.append(([early], True))  # 5.4.10 a captured piece taken off first
        out.append(([landed], True))  # 5.4.11 landed, nothing taken off
        others = [s for s, p in pieces.items() if p not in own and s not in taken]
        if others:  # 5.4.12 a piece not captured taken off instead of a captured one
            wrong = {k: v for k, v in landed.items() if k not in taken[1:]}
            wrong.pop(rng.choice(others))
            out.append(([wrong], False))
    return out


def article_of(pos_game: Game, boards: list, commit: bool) -> str | None:
    """What the rules name for the true boards: a tracker reading them perfectly."""
    tracker = Tracker(game=pos_game, settle=SETTLE)
    v = pos_game.variant
    t = 0.0
    tracker.observe(Observation.from_pieces(v, pos_game.position.pieces(), t))
    t += HOLD
    events = tracker.tick(t)  # the position is recognised
    for board in boards:
        t += FRAME
        events += tracker.observe(Observation.from_pieces(v, board, t))
        t += HOLD
        events += tracker.tick(t)
    if commit:
        events += tracker.commit(t + FRAME)
    found = [e for e in events if isinstance(e, Irregular)]
    return found[0].article if found else None


def irregular_game(player: Player, rng: random.Random) -> None:
    pos = player.game.position
    options = irregular_boards(pos, rng)
    rng.shuffle(options)
    for boards, commit in options:
        article = article_of(player.game, boards, commit)
        if article not in ARTICLES:
            continue
        tally = player.tally
        tally.irregular_made += 1
        before = len(player.events)
        for board in boards:
            player.show(board, HOLD)
        if commit:
            player.t += FRAME
            player.events += player.tracker.commit(player.t)
        flagged = [e.article for e in player.events[before:] if isinstance(e, Irregular)]
        if not flagged:
            tally.irregular_missed += 1
        elif flagged[0] == article:
            tally.irregular_flagged += 1
        else:
            tally.irregular_wrong_article += 1
        return


def run(games: int = 300, seed: int = 1, rates: tuple[float, ...] = (0.01, 0.03, 0.05),
        variants: tuple[str, ...] = ("international", "brazilian", "english"),
        progress=None) -> dict[str, Any]:
    """Figures per noise rate and variant."""
    out: dict[str, Any] = {"games": games, "seed": seed, "frame_s": FRAME, "hold_s": HOLD,
                           "settle_s": SETTLE, "rates": {}}
    for rate in rates:
        per: dict[str, Any] = {}
        for name in variants:
            rng = random.Random(f"{seed}:{rate}:{name}")
            tally = Tally()
            for n in range(games):
                player = Player(name, rng, rate, tally)
                irregular_at = rng.randrange(4, 40) if n % 3 == 0 else None
                while player.game.outcome() is None and player.game.ply < MAX_PLIES:
                    if player.game.ply == irregular_at:
                        player.finish()
                        irregular_game(player, rng)
                        break
                    player.play(rng.choice(player.game.legal_moves()))
                player.finish()
                if progress is not None:
                    progress(rate, name, n + 1)
            per[name] = _figures(tally)
        out["rates"][str(rate)] = per
    return out


def _figures(t: Tally) -> dict[str, Any]:
    return {
        "moves": t.moves, "right": t.right, "missed": t.missed, "invented": t.invented,
        "false_irregular": t.false_irregular, "irregular_made": t.irregular_made,
        "irregular_flagged": t.irregular_flagged,
        "irregular_wrong_article": t.irregular_wrong_article,
        "irregular_missed": t.irregular_missed, "observations": t.observations,
        "middle_game_median_ms": round(statistics.median(t.ms), 3) if t.ms else None,
        "middle_game_p90_ms": (round(statistics.quantiles(t.ms, n=10)[-1], 3)
                               if len(t.ms) > 10 else None),
        "missed_examples": t.missed_examples,
    }
