"""The colour model of a set learned from one frame of a known position (the start
position, or `damas calibrate board`), and what the calibrated reader (`calibrated`)
takes from it: the light, a crown that is neither a piece's colour nor the board's,
the profiles the height of a stack is read from (`height`), and hands (a light square or
frame cell that no longer looks like itself). Which squares are empty, white or black
the occupancy nets and the calibration's head say, not this model: learned in one light,
it read a lamp's glow or a darker room as pieces.

Colours are compared after dividing out the light: the light squares are always empty,
so a smooth field fitted to their log colour says how much light falls where; every
sample is taken relative to it. Without a known position the squares are clustered
(`guess_labels`), to recognise the start position and orient the board.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from damas.calibration.colour import CLASSES, ColourModel

from .board import BoardPose
from .errors import VisionError
from .height import StackGeometry
from .sampler import MAN_HEIGHT, Sampler, Samples

# squared distances in units of the class spread (chi-square, 3 degrees of freedom)
OUTLIER_D2 = 25.9  # p = 1e-5: a square no class explains
KING_D2 = 30.7  # p = 1e-6: the least a crown must stand out (see ColourModel.crown_limit)
# a change smaller than this (log units) is never taken for a hand: sensor noise and
# JPEG blocks move single cells by a few per cent
MIN_ANOMALY = 0.22


# --- light -------------------------------------------------------------------------------

def _design(xy: np.ndarray, size: int) -> np.ndarray:
    x, y = xy[:, 0] / size, xy[:, 1] / size
    return np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y])


@dataclass
class LightField:
    coef: np.ndarray  # (6, 3)
    size: int
    spread: float  # robust spread of the light squares around the field
    residual: np.ndarray  # (light squares, 3)

    def at(self, xy: np.ndarray) -> np.ndarray:
        return _design(xy, self.size) @ self.coef


def log_colour(bgr: np.ndarray) -> np.ndarray:
    return np.log(bgr[:, ::-1] + 4.0)  # RGB order, +4 keeps black finite under noise


def fit_light(light_bgr: np.ndarray, light_xy: np.ndarray, size: int) -> LightField:
    """A quadratic log-light field through the light squares. Robust: it starts from the
    median light and reweights (Cauchy) so that squares under a hand or its shadow, even
    a third of them, pull it little."""
    y = log_colour(light_bgr)
    A = _design(light_xy, size)
    coef = np.zeros((A.shape[1], 3))
    coef[0] = np.median(y, axis=0)
    spread = 0.01
    for _ in range(6):
        norm = np.linalg.norm(y - A @ coef, axis=1)
        spread = max(1.4826 * float(np.median(norm)), 0.01)
        scale = max(spread, 0.03)
        w = 1.0 / (1.0 + (norm / (2 * scale)) ** 2)
        sw = np.sqrt(w)[:, None]
        coef, *_ = np.linalg.lstsq(A * sw, y * sw, rcond=None)
    return LightField(coef, size, spread, y - A @ coef)


# --- occlusion ------------------------------------------------------------------------------

def _covering(board: BoardPose, sampler: Sampler, targets: np.ndarray, radius: float,
              height: float = 2.5 * MAN_HEIGHT) -> list[list[int]]:
    """For each target point on the board, the dark squares whose piece (a king, a little
    wide) could hide it from this camera."""
    cam = board.camera.centre
    out = []
    zs = np.linspace(0, height, 5)
    for q in targets:
        near = np.nonzero(np.abs(sampler.dark_xy - q).max(axis=1) < 2.6)[0]
        hits = []
        for j in near:
            c = sampler.dark_xy[j]
            scale = cam[2] / np.maximum(cam[2] - zs, 1e-6)
            centres = c + np.outer(zs / np.maximum(cam[2] - zs, 1e-6), c - cam[:2])
            reach = 0.5 * scale + radius
            if (np.linalg.norm(centres - q, axis=1) < reach).any():
                hits.append(int(j))
        out.append(hits)
    return out


class Occlusion:
    """Which light squares and frame cells each piece may hide, for one pose."""

    def __init__(self, board: BoardPose, sampler: Sampler):
        self.light_cover = _covering(board, sampler, sampler.light_xy, 0.14)
        self.ring_cover = _covering(board, sampler, sampler.ring_xy, 0.12)
        self.sampler = sampler
        # which side of the frame each ring cell lies on (0-3)
        x, y = sampler.ring_xy[:, 0], sampler.ring_xy[:, 1]
        self.ring_side = np.where(np.abs(x) > np.abs(y), np.where(x > 0, 0, 1),
                                  np.where(y > 0, 2, 3))

    @staticmethod
    def _free(cover: list[list[int]], occupied: np.ndarray) -> np.ndarray:
        return np.array([not occupied[c].any() if c else True for c in cover])

    def anomalies(self, samples: Samples, light: LightField, occupied: np.ndarray,
                  light_spread: float):
        """(light squares, ring cells) that don't look like themselves and that no
        piece can be hiding."""
        res = light.residual
        # a shadow darkens all channels alike, and the field cannot follow a sharp one:
        # only a change of hue says something lies on the square
        chroma = res - res.mean(axis=1, keepdims=True)
        limit = max(6 * light_spread, MIN_ANOMALY)
        light_bad = np.linalg.norm(chroma, axis=1) > limit / 2
        light_bad &= self._free(self.light_cover, occupied)

        ring = log_colour(samples.ring) - light.at(self.sampler.ring_xy)
        # each cell against its own side of the frame: one side may look unlike the
        # others (printed coordinates, its face turned to the light, pieces spilling
        # over it), and an arm changes a few cells of a side, not all of them
        ring_res = ring.copy()
        for side in range(4):
            cells = self.ring_side == side
            if cells.any():
                ring_res[cells] -= np.median(ring[cells], axis=0)
        # again a piece's shadow only darkens; an arm changes the hue or is brighter
        hue = np.linalg.norm(ring_res - ring_res.mean(axis=1, keepdims=True), axis=1)
        brighter = np.clip(ring_res.mean(axis=1), 0, None)
        spread = max(1.4826 * float(np.median(hue)), light_spread)
        limit = max(6 * spread, MIN_ANOMALY * 1.5)
        ring_bad = (hue > limit / 2) | (brighter > limit)
        ring_bad &= self._free(self.ring_cover, occupied)
        return light_bad, ring_bad


# --- reading -----------------------------------------------------------------------------

def body_features(samples: Samples, light: LightField, sampler: Sampler) -> np.ndarray:
    return log_colour(samples.body) - light.at(sampler.dark_xy)


def wall_features(samples: Samples, light: LightField, sampler: Sampler) -> np.ndarray:
    return log_colour(samples.wall) - light.at(sampler.dark_xy)


def crown_features(samples: Samples, light: LightField, sampler: Sampler) -> np.ndarray:
    """(dark squares, 3 heights, 3): the samples where a king's top may be."""
    field = light.at(sampler.dark_xy)
    return np.stack([log_colour(c) - field for c in
                     (samples.crown, samples.crown_high, samples.crown_top)], axis=1)


def profile_features(samples: Samples, light: LightField, sampler: Sampler) -> np.ndarray:
    flat = log_colour(samples.profile.reshape(-1, 3)).reshape(samples.profile.shape)
    return flat - light.at(sampler.dark_xy)[:, None, None, :]


@lru_cache(maxsize=4)
def _stack_geometry(sampler: Sampler) -> StackGeometry:
    return StackGeometry(sampler.profile_xy, sampler.dark_xy, sampler.slant(),
                         sampler.board.size)


def stack_view(samples: Samples, light: LightField, sampler: Sampler, labels: list[str],
               model: ColourModel, pieces: np.ndarray):
    """What `StackModel` needs of the squares `pieces` (indices): their profiles,
    slants, the bare board along each, which of its points the other pieces labelled
    may hide, and their colours (True: white)."""
    occupied = np.array([lab != "e" for lab in labels])
    board, free, weight = _stack_geometry(sampler).board_along(pieces, occupied,
                                                               model.mean("e"))
    profiles = profile_features(samples, light, sampler)[pieces]
    white = np.array([labels[i] == "w" for i in pieces], bool)
    return profiles, sampler.slant()[pieces], board, free, weight, white


def crown_scores(samples: np.ndarray, own: list[int], model: ColourModel) -> np.ndarray:
    """Per piece, how far its samples on top (pieces, heights tried, 3) stand from
    everything a man's top, or what lies beyond it, can show: any piece colour, the
    board (light or dark), or a blend of his colour (`own`, class indices) with the
    board (the rim of his top, blurred). The largest over the heights: large on a king's
    medallion, whatever the set's height. All pieces at once: this runs every frame."""
    pieces, heights = samples.shape[:2]
    x = samples.reshape(-1, 3)
    light_var = model.light_spread ** 2 + 0.04 ** 2
    best = np.minimum(model.distances(x).min(axis=1), np.einsum("ij,ij->i", x, x) / light_var)
    tops = [model.components[model.index(label)] for label in CLASSES]
    rows = np.repeat(np.asarray(own, int), heights)
    a = np.array([t.mean for t in tops])[rows]
    inv = np.array([t.inv for t in tops])[rows]
    for b in (model.mean("e"), np.zeros(3)):
        ab = b - a
        t = np.clip(np.einsum("ij,ij->i", x - a, ab)
                    / (np.einsum("ij,ij->i", ab, ab) + 1e-12), 0, 1)
        d = x - (a + t[:, None] * ab)
        best = np.minimum(best, np.einsum("ij,ijk,ik->i", d, inv, d))
    return best.reshape(pieces, heights).max(axis=1)


# --- learning without a model ---------------------------------------------------------------

def _kmeans(x: np.ndarray, k: int, iterations: int = 20) -> np.ndarray:
    """Deterministic k-means (farthest-point start)."""
    centres = [x[np.argmin(np.linalg.norm(x - np.median(x, axis=0), axis=1))]]
    while len(centres) < k:
        d = np.min([np.linalg.norm(x - c, axis=1) for c in centres], axis=0)
        centres.append(x[np.argmax(d)])
    c = np.array(centres)
    for _ in range(iterations):
        assign = np.argmin(np.linalg.norm(x[:, None] - c[None], axis=2), axis=1)
        new = np.array([x[assign == j].mean(axis=0) if (assign == j).any() else c[j]
                        for j in range(k)])
        if np.allclose(new, c):
            break
        c = new
    return assign


def guess_labels(samples: Samples, sampler: Sampler) -> tuple[list[str], np.ndarray]:
    """Labels e/w/b for a frame with no colour model: three clusters of colour; the
    empty squares are the cluster that is most even across the square, White the
    lighter of the other two. Returns (labels, body features)."""
    n = sampler.board.size
    light = fit_light(samples.light, sampler.light_xy, n)
    feats = body_features(samples, light, sampler)
    unevenness = samples.cells.std(axis=1)
    scale = feats.std(axis=0) + 1e-6
    assign = _kmeans(feats / scale, 3)
    groups = [np.nonzero(assign == j)[0] for j in range(3)]
    if any(len(g) == 0 for g in groups):
        raise VisionError("cannot tell empty squares and the two colours of pieces apart "
                          "in this image: calibrate on the start position first")
    empty = int(np.argmin([np.median(unevenness[g]) for g in groups]))
    others = [j for j in range(3) if j != empty]
    brightness = [feats[groups[j]].mean() for j in others]
    white = others[int(np.argmax(brightness))]
    names = {empty: "e", white: "w"}
    labels = [names.get(int(a), "b") for a in assign]
    return labels, feats


def start_labels(size: int) -> list[str]:
    per_side = (size // 2 - 1) * size // 2
    total = size * size // 2
    return ["b"] * per_side + ["e"] * (total - 2 * per_side) + ["w"] * per_side
