"""Learning a set from one photo of a known position (`damas calibrate board`): the
colours of its two sides' tops."""

from __future__ import annotations

import numpy as np

from damas.calibration.colour import PieceColours
from damas.rules import Position

from .pipeline import BoardReader


def learn_set(reader: BoardReader, known: Position) -> tuple[PieceColours, list[int]]:
    """(the set's colours, squares the reader saw otherwise than `known`) from the
    reader's last frame, which shows `known` (its pose already oriented by it)."""
    obs = reader.last
    n = known.variant.squares
    pieces = known.pieces()
    labels = [(pieces.get(s) or "e") for s in range(1, n + 1)]
    occupied = np.array([lab != "e" for lab in labels])
    idx = np.nonzero(occupied)[0]
    seen_occupied = obs.probs[:, 0] < 0.5
    wrong = [int(i + 1) for i in np.nonzero(seen_occupied != occupied)[0]]
    colours = PieceColours.learn(obs.tops[idx], [labels[i] for i in idx])
    return colours, wrong
