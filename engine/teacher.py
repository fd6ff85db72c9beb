"""`damas train engine --teacher SPEC`: the evaluation learned from a stronger engine.

Results of shallow self-play confound a term with who was already winning
(docs/engine-notes.md, "Tuning the weights"), so here the label of a position is what a
stronger engine says of it: its score after a search of a fixed depth.

1. **Positions**: quiet positions (no capture for the side to move) of the engine's own
   self-play at depths 2 to 5, with root noise in the opening, now and then elsewhere, and
   one move in 25 at random, so the positions are varied and include the lopsided ones a
   search meets. One position in two of each game is kept.
2. **Labels**: the teacher's score of each (a Hub engine such as Scan 2.0 at depth 12,
   or the built-in engine searching deeper than it will in play). A position the
   teacher answers without a score (a book move, a forced move) is dropped.
3. **Fit**: the evaluation's linear terms and its window tables (engine/native/search.h)
   together, by Adam on the squared difference of the win probabilities
   sigmoid(score / K) of ours and the teacher's, with a ridge on the tables (a window
   seen in few positions stays near 0). It starts from the terms of the weights file in
   place and empty tables: "before" is those terms alone.

Every tenth position is held out; the command reports the error there before and after.
The same seed, count, teacher, depth and starting file give the same weights.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from damas.rules import DamasError, Game, Position, Variant
from damas.rules import variant as get_variant

from . import native
from .evaluation import Weights, load_weights
from .limits import Limit
from .search import Search, new_searcher

K = 150.0  # hundredths of a man: a score of K is a win probability of 0.73
SCORE_CLIP = 3000  # a won score is a won score, however far the win
WINDOW = 6561  # 3^8 entries a window (search.h)
STEPS = 600
LEARNING_RATE = 3.0  # hundredths of a man a step at first, a tenth of it at the end
PRIOR = 5  # the ridge pulls an entry seen in this many positions halfway to 0
HELD_OUT_EVERY = 10
MAX_PLIES = 250
# kept as they are: they set the score's scale, and the positions with kings are mostly
# lopsided ones the teacher scores as won, which say little of what a king is worth
FIXED = ("man", "king")
RANDOM_MOVE = 0.04


@dataclass(frozen=True)
class TeacherReport:
    weights: Weights
    positions: int
    held_out: int
    error_before: float  # held-out mean squared difference of win probabilities
    error_after: float


def quiet_positions(variant: Variant | str, count: int, seed: int,
                    progress: Callable[[int], None] | None = None) -> list[Position]:
    """`count` distinct quiet positions of noisy self-play (the same for a seed)."""
    variant = get_variant(variant)
    search = Search(variant)
    found: dict[tuple, Position] = {}
    game_number = 0
    while len(found) < count:
        rng = random.Random(seed * 1_000_003 + game_number)
        game_number += 1
        search.clear()
        game = Game(variant)
        depth = rng.choice((2, 3, 4, 5))
        while game.outcome() is None and game.ply < MAX_PLIES and len(found) < count:
            position = game.position
            legal = game.legal_moves()
            if game.ply >= 4 and not legal[0].captured and rng.random() < 0.5:
                key = (position.white, position.black, position.kings, int(position.turn))
                if key not in found:
                    found[key] = position
                    if progress:
                        progress(len(found))
            if rng.random() < RANDOM_MOVE:
                game.push(rng.choice(legal))
                continue
            noise = 80 if game.ply < 10 else (30 if rng.random() < 0.3 else 0)
            result = search.run(position, history=game.positions[:-1], max_depth=depth,
                                noise=noise, rng=rng, ending_run=game.plies_in_ending())
            assert result.move is not None  # the game is not over
            game.push(result.move)
    return list(found.values())


def teacher_scores(positions: list[Position], spec: str, depth: int, jobs: int = 1,
                   progress: Callable[[int], None] | None = None) -> np.ndarray:
    """The teacher's score of each position (hundredths of a man for the side to move),
    NaN where it gave none. Each of `jobs` teachers takes every jobs-th position, in
    order, so the scores do not depend on timing."""
    from .spec import open_engine

    if not positions:
        return np.zeros(0)
    variant = positions[0].variant
    scores = np.full(len(positions), np.nan)
    failures: list[BaseException] = []
    lock = threading.Lock()

    def work(first: int) -> None:
        try:
            with open_engine(spec, variant) as engine:
                for i in range(first, len(positions), jobs):
                    if failures:
                        return
                    engine.new_game()
                    result = engine.play(Game(start=positions[i]), Limit(depth=depth))
                    info = result.info
                    if info is not None and info.depth > 0 and info.score is not None:
                        scores[i] = max(-SCORE_CLIP, min(SCORE_CLIP, info.score))
                    if progress:
                        with lock:
                            progress(1)
        except BaseException as e:  # noqa: BLE001 - raised again in the caller's thread
            failures.append(e)

    threads = [threading.Thread(target=work, args=(j,), daemon=True) for j in range(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if failures:
        raise failures[0]
    return scores


@dataclass(frozen=True)
class Inputs:
    """What the fit sees of each position: its linear terms, window indices and men."""
    terms: np.ndarray  # (n, features)
    windows: np.ndarray  # (n, 2 * windows): indices seen by the side to move, then the other
    men_share: np.ndarray  # (n,) men on the board / a full board's: blends the two tables

    def take(self, rows: np.ndarray) -> Inputs:
        return Inputs(self.terms[rows], self.windows[rows], self.men_share[rows])


def inputs(variant: Variant | str, positions: list[Position]) -> Inputs:
    variant = get_variant(variant)
    core = new_searcher(variant)
    keys = [(p.white, p.black, p.kings, int(p.turn)) for p in positions]
    terms = np.array([core.features(*k) for k in keys], dtype=np.float64)
    windows = np.array([core.pattern_indices(*k) for k in keys], dtype=np.int64)
    full = variant.size * (variant.size // 2 - 1)  # men on the board at the start
    men = np.array([((p.white | p.black) & ~p.kings).bit_count() for p in positions],
                   dtype=np.float64)
    return Inputs(terms.reshape(len(keys), -1), windows.reshape(len(keys), -1), men / full)


class PatternModel:
    """Our evaluation as the fit sees it: terms (hundredths of a man) and two tables a
    window, blended by the men on the board; the side to move's view of the windows
    counts for it, the opponent's against it (search.h)."""

    def __init__(self, terms: np.ndarray, n_windows: int):
        self.terms = terms.astype(np.float64)
        self.n_windows = n_windows
        self.tables = np.zeros((2, n_windows * WINDOW))

    def _flat(self, x: Inputs) -> np.ndarray:
        offsets = np.tile(np.arange(self.n_windows) * WINDOW, 2)
        return x.windows + offsets[None, :]

    def _signs(self) -> np.ndarray:
        return np.repeat([1.0, -1.0], self.n_windows)

    def score(self, x: Inputs) -> np.ndarray:
        flat, signs = self._flat(x), self._signs()
        return (x.terms @ self.terms + x.men_share * (self.tables[0][flat] @ signs)
                + (1 - x.men_share) * (self.tables[1][flat] @ signs))

    def fit(self, x: Inputs, target: np.ndarray, steps: int = STEPS,
            fixed: tuple[int, ...] = ()) -> None:
        """Adam on mean (sigmoid(ours / K) - sigmoid(theirs / K))^2."""
        flat = self._flat(x).ravel()
        signs = np.tile(self._signs(), len(target))
        n, per = len(target), x.windows.shape[1]
        want = _probability(target)
        # the loss's curvature in one position's score, at p = 1/2, times PRIOR positions
        ridge = PRIOR * 2 * 0.25 ** 2 / K ** 2 / n
        free = np.ones_like(self.terms)
        free[list(fixed)] = 0
        params = (self.terms, self.tables)
        first = [np.zeros_like(p) for p in params]
        second = [np.zeros_like(p) for p in params]
        for step in range(1, steps + 1):
            p = _probability(self.score(x))
            g = 2 * (p - want) * p * (1 - p) / K / n
            grads = (
                x.terms.T @ g * free,
                np.stack([np.bincount(flat, np.repeat(g * share, per) * signs,
                                      self.tables.shape[1])
                          for share in (x.men_share, 1 - x.men_share)]) + ridge * self.tables,
            )
            rate = LEARNING_RATE * (1 - 0.9 * step / steps)
            for k, (param, grad) in enumerate(zip(params, grads, strict=True)):
                first[k] = 0.9 * first[k] + 0.1 * grad
                second[k] = 0.999 * second[k] + 0.001 * grad * grad
                m = first[k] / (1 - 0.9 ** step)
                v = second[k] / (1 - 0.999 ** step)
                param -= rate * m / (np.sqrt(v) + 1e-12)

    def error(self, x: Inputs, target: np.ndarray) -> float:
        return float(np.mean((_probability(self.score(x)) - _probability(target)) ** 2))


def _probability(score: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-score / K))


def fit_to_teacher(variant: Variant | str, positions: list[Position], scores: np.ndarray,
                   note: str = "", steps: int = STEPS) -> TeacherReport:
    variant = get_variant(variant)
    keep = ~np.isnan(scores)
    positions = [p for p, k in zip(positions, keep, strict=True) if k]
    scores = scores[keep]
    if len(positions) < 10 * HELD_OUT_EVERY:
        raise DamasError(f"the teacher scored {len(positions)} positions: too few to fit")
    weights = load_weights(variant)
    names = native.module().FEATURES
    x = inputs(variant, positions)
    held = np.arange(len(positions)) % HELD_OUT_EVERY == HELD_OUT_EVERY - 1
    model = PatternModel(np.array(weights.vector(names)) / weights.scale,
                         x.windows.shape[1] // 2)
    before = model.error(x.take(held), scores[held])
    model.fit(x.take(~held), scores[~held], steps,
              fixed=tuple(names.index(name) for name in FIXED))
    after = model.error(x.take(held), scores[held])
    terms = {name: int(round(v * weights.scale)) for name, v in zip(names, model.terms,
                                                                     strict=True)}
    tables = np.clip(np.round(model.tables * weights.scale), -32767, 32767).astype("<i2")
    provenance = {"positions": int((~held).sum()), "held_out_positions": int(held.sum()),
                  "held_out_error_before": round(before, 6),
                  "held_out_error_after": round(after, 6)}
    # the trade bonus is the teacher's to teach now: the tables and terms learn it
    tuned = replace(weights, terms=terms, trade=0, patterns=tables.tobytes(), note=note,
                    provenance=provenance)
    return TeacherReport(tuned, int((~held).sum()), int(held.sum()), before, after)
