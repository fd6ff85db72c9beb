"""`damas train engine`: the evaluation's weights fitted to the results of self-play games.

The engine plays itself at a fixed depth from varied openings (the first plies chosen with
root noise, each game with its own seed); every quiet position of a finished game (no
capture for the side to move) becomes a sample: the evaluation's terms from the side to
move (`Searcher.features`), and the game's result for that side (1, 1/2, 0).

The evaluation is linear in its terms, so predicting the result is a logistic regression:
P(win) = sigmoid(sum(beta_i * term_i)). Its weights are fitted by Newton's method with a
ridge towards the current weights (so a term the games rarely show keeps its value), then
scaled so that a man weighs what it did: the scale of the score stays hundredths of a man.
Each sample is also taken mirrored (terms negated, result flipped), which makes the fit
symmetric and needs no intercept.

A fifth of the games are held out: the log-loss on them, before and after, is what the
command reports. The same seed, games and depth give the same weights on any machine
(the search is deterministic at a fixed depth).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

import numpy as np

from damas.rules import DamasError, Game, Variant
from damas.rules import variant as get_variant

from . import native
from .evaluation import Weights, load_weights
from .search import Search

OPENING_NOISE = 60  # hundredths of a man: root noise over the first plies of each game
OPENING_PLIES = 8
MAX_PLIES = 300  # a longer game is scored a draw
RIDGE = 2.0  # pull towards the current weights, per term (in the fit's own units)
# kept as they are: they set the score's scale, and self-play results confound a king's
# worth with the lead that made it (a side with kings has usually won already)
FIXED = ("man", "king")
HELD_OUT_EVERY = 5  # every fifth game is held out
NEWTON_STEPS = 30  # at most; the fit stops when a step changes no weight by 1e-7


@dataclass(frozen=True)
class Samples:
    terms: np.ndarray  # (n, features)
    results: np.ndarray  # (n,) for the side to move: 1, 0.5, 0
    games: int


@dataclass(frozen=True)
class TuneReport:
    weights: Weights
    train: Samples
    held_out: Samples
    loss_before: float
    loss_after: float


def play_games(variant: Variant, games: int, depth: int, seed: int,
               progress=None) -> tuple[Samples, Samples]:
    """Self-play samples: (training, held out)."""
    search = Search(variant)
    core = search.core
    rows: list[list[tuple[tuple[int, ...], float]]] = [[], []]
    for g in range(games):
        rng = random.Random(seed * 1_000_003 + g)
        search.clear()
        game = Game(variant)
        seen = []
        while game.outcome() is None and game.ply < MAX_PLIES:
            pos = game.position
            noise = OPENING_NOISE if game.ply < OPENING_PLIES else 0
            result = search.run(pos, history=game.positions[:-1], max_depth=depth, noise=noise,
                                rng=rng, ending_run=game.plies_in_ending())
            assert result.move is not None  # the game is not over
            # captures are compulsory: the move is one exactly when one was on the board
            if game.ply >= OPENING_PLIES and not result.move.captured:
                seen.append((core.features(pos.white, pos.black, pos.kings, int(pos.turn)),
                             int(pos.turn)))
            game.push(result.move)
        outcome = game.outcome()
        white = 0.5 if outcome is None or outcome.winner is None else (
            1.0 if outcome.winner.value == 0 else 0.0)
        held = g % HELD_OUT_EVERY == HELD_OUT_EVERY - 1
        rows[held].extend((terms, white if turn == 0 else 1.0 - white) for terms, turn in seen)
        if progress:
            progress(g + 1)
    train, test = (_samples(r, games) for r in rows)
    return train, test


def _samples(rows, games: int) -> Samples:
    n = len(native.module().FEATURES)
    terms = np.array([r[0] for r in rows], dtype=np.float64).reshape(-1, n)
    results = np.array([r[1] for r in rows], dtype=np.float64)
    return Samples(terms, results, games)


def _loss(beta: np.ndarray, s: Samples) -> float:
    z = s.terms @ beta
    p = 1.0 / (1.0 + np.exp(-z))
    eps = 1e-9
    return float(-np.mean(s.results * np.log(p + eps) + (1 - s.results) * np.log(1 - p + eps)))


def _fit_scale(beta0: np.ndarray, s: Samples) -> float:
    """The factor that turns the current weights into the best-fitting probabilities."""
    best, best_loss = 1.0, float("inf")
    for k in np.geomspace(0.05, 20, 80):
        loss = _loss(beta0 * k, s)
        if loss < best_loss:
            best, best_loss = k, loss
    return float(best)


def _start(weights: Weights, train: Samples) -> np.ndarray:
    """The current weights as the logistic model's, at the scale that fits best."""
    scale = 1.0 / (100 * weights.scale)  # weights -> logits of a score in men
    beta0 = np.array(weights.vector(native.module().FEATURES), dtype=np.float64) * scale
    return beta0 * _fit_scale(beta0, train)


def fit(weights: Weights, train: Samples, iterations: int = NEWTON_STEPS) -> np.ndarray:
    """beta (the logistic model's weights) by Newton's method, ridge towards `weights`;
    the FIXED terms keep their weights."""
    return _newton(_start(weights, train), train, iterations)


def _newton(beta0: np.ndarray, train: Samples, iterations: int) -> np.ndarray:
    free = np.array([name not in FIXED for name in native.module().FEATURES])
    x = np.vstack([train.terms, -train.terms])
    y = np.concatenate([train.results, 1 - train.results])
    offset = x[:, ~free] @ beta0[~free]
    xf = x[:, free]
    beta = beta0.copy()
    lam = RIDGE * np.eye(int(free.sum()))
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(offset + xf @ beta[free])))
        grad = xf.T @ (p - y) + lam @ (beta[free] - beta0[free])
        hess = (xf * (p * (1 - p))[:, None]).T @ xf + lam
        step = np.linalg.solve(hess, grad)
        beta[free] -= step
        if np.max(np.abs(step)) < 1e-7:
            break
    return beta


def tune(variant: Variant | str, games: int, depth: int, seed: int,
         progress=None) -> TuneReport:
    variant = get_variant(variant)
    weights = load_weights(variant)
    train, held_out = play_games(variant, games, depth, seed, progress)
    if len(train.results) < 100 or len(held_out.results) < 10:
        raise DamasError(f"{games} games gave too few positions to fit "
                         f"({len(train.results)} to train on); play more games")
    names = native.module().FEATURES
    man = names.index("man")
    beta_before = _start(weights, train)
    beta = _newton(beta_before, train, NEWTON_STEPS)
    # back to weights: a man weighs what it did
    to_weights = weights.terms["man"] / beta[man]
    terms = {name: int(round(b * to_weights)) for name, b in zip(names, beta, strict=True)}
    provenance = {"games": games, "depth": depth, "seed": seed,
                  "positions": int(len(train.results)),
                  "held_out_positions": int(len(held_out.results)),
                  "held_out_loss_before": round(_loss(beta_before, held_out), 5),
                  "held_out_loss_after": round(_loss(beta, held_out), 5)}
    tuned = replace(weights, terms=terms, provenance=provenance,
                    note=f"damas train engine --games {games} --depth {depth} --seed {seed}")
    return TuneReport(tuned, train, held_out, provenance["held_out_loss_before"],
                      provenance["held_out_loss_after"])
