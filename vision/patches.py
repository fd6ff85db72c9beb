"""Square patches in a canonical view, for the occupancy model.

Each square is resampled from the frame onto the board's plane, seen from straight
above, turned so that the camera is below the patch: a piece's top, which lies further
from the camera the taller the piece, is always displaced upwards. One cv2.remap per
frame fetches every patch (the map is built once per pose).

Patches are normalised by the board itself: the median colour of the playing squares'
corners (beyond any piece's reach from above: the empty playing colour under this light)
is subtracted, and the result divided by the contrast between it and the plain squares.
So an empty playing square is about zero whatever its colour, and the plain squares are
about unit length."""

from __future__ import annotations

import cv2
import numpy as np

from .board import BoardPose, light_centres, square_centres

SIDE = 32  # pixels of a patch side
SPAN = 1.6  # squares a patch covers
CORNER = 0.43  # corners of a square sampled for the empty colour (squares from the centre)


def camera_foot(pose: BoardPose) -> np.ndarray:
    """(x, y) of the point of the board plane straight below the camera, and its height."""
    c = pose.camera.centre
    return np.array([c[0], c[1], max(c[2], 1e-6)])


def up_directions(pose: BoardPose, centres: np.ndarray) -> np.ndarray:
    """Per square, the unit direction on the board away from the camera (a tall piece's
    top is displaced that way)."""
    foot = camera_foot(pose)
    d = centres - foot[:2]
    norm = np.linalg.norm(d, axis=1, keepdims=True)
    up = np.where(norm > 0.3, d / np.maximum(norm, 1e-9), np.array([0.0, 1.0]))
    return up


def lean(pose: BoardPose, centres: np.ndarray) -> np.ndarray:
    """Per square, how far (squares) a point one square high is displaced on the image
    of the board plane: zero straight below the camera."""
    foot = camera_foot(pose)
    return np.linalg.norm(centres - foot[:2], axis=1) / foot[2]


class PatchSampler:
    """Patches of the given squares' centres for one pose."""

    def __init__(self, pose: BoardPose, centres: np.ndarray, side: int = SIDE,
                 span: float = SPAN):
        self.side, self.count = side, len(centres)
        up = up_directions(pose, centres)
        right = np.column_stack([up[:, 1], -up[:, 0]])
        t = ((np.arange(side) + 0.5) / side - 0.5) * span
        # pixel (row i, col j) -> centre + t_j * right - t_i * up
        pts = (centres[:, None, None, :] + t[None, None, :, None] * right[:, None, None, :]
               - t[None, :, None, None] * up[:, None, None, :])
        n = pose.size
        col, row = np.floor(pts[..., 0] + n / 2), np.floor(n / 2 - pts[..., 1])
        # per patch pixel: on the board, and on a square of the colour not played on
        self.on_board = (col >= 0) & (col < n) & (row >= 0) & (row < n)
        self.on_plain = self.on_board & ((row + col) % 2 == 0)
        flat = pts.reshape(-1, 2)
        pix = pose.project(np.column_stack([flat, np.zeros(len(flat))])).astype(np.float32)
        self.map_x = pix[:, 0].reshape(self.count * side, side)
        self.map_y = pix[:, 1].reshape(self.count * side, side)
        self.lean = lean(pose, centres)

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        """(count, side, side, 3) float32 BGR."""
        out = cv2.remap(frame, self.map_x, self.map_y, cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_REPLICATE)
        return out.reshape(self.count, self.side, self.side, -1).astype(np.float32)


class BoardPatches:
    """Everything the occupancy model needs from a frame of one pose: patches of the
    playing squares and of the plain ones, with the light evened out, and the colours
    that normalise them.

    The plain squares are always empty, so the light falling on the board is what they
    show: a smooth field (quadratic in log colour over the board, fitted robustly, so a
    hand over a few of them pulls it little) divides every patch, as a light meter
    would; then the empty playing colour and the plain colour are the medians over the
    board. plain: patches of the plain squares as well (else the playing ones alone)."""

    def __init__(self, pose: BoardPose, plain: bool = True):
        n = pose.size
        self.pose = pose
        self.size = n
        self.dark = square_centres(n)
        self.light = light_centres(n)
        self.centres = np.vstack([self.dark, self.light])
        self.squares = PatchSampler(pose, self.centres if plain else self.dark)
        offsets = np.array([(1, 1), (1, -1), (-1, 1), (-1, -1)], np.float64)
        corners = (self.dark[:, None, :] + CORNER * offsets[None]).reshape(-1, 2)
        spots = np.array([(0, 0), (0.2, 0.2), (-0.2, 0.2), (0.2, -0.2), (-0.2, -0.2)])
        plain = (self.light[:, None, :] + spots[None]).reshape(-1, 2)
        pts = np.vstack([corners, plain])
        pix = pose.project(np.column_stack([pts, np.zeros(len(pts))])).astype(np.float32)
        self._ref_map = (pix[:, 0].reshape(1, -1).copy(), pix[:, 1].reshape(1, -1).copy())
        self._corners, self._spots = len(corners), len(spots)
        self._design = _design(self.centres, n)

    def corrected(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(patches of every square, playing ones first (or of the playing ones alone),
        with the light evened out, BGR float32; empty playing colour; plain colour), the
        colours as Lab."""
        vals = cv2.remap(frame, *self._ref_map, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(np.float32)
        k = len(self.dark)
        plain = np.median(vals[self._corners:].reshape(len(self.light), self._spots, 3), axis=1)
        gain = light_gain(plain, self._design, k)  # (squares, 3), playing ones first
        corners = vals[:self._corners].reshape(k, 4, 3) / gain[:k, None, :]
        patches = self.squares(frame) / gain[:self.squares.count, None, None, :]
        dark_ref = _lab(corners.reshape(-1, 3))
        light_ref = _lab(plain / gain[k:])
        return patches, np.median(dark_ref, axis=0), np.median(light_ref, axis=0)

    def references(self, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        _, dark_ref, light_ref = self.corrected(frame)
        return dark_ref, light_ref


def _design(xy: np.ndarray, size: int) -> np.ndarray:
    x, y = xy[:, 0] / size, xy[:, 1] / size
    return np.column_stack([np.ones_like(x), x, y, x * x, x * y, y * y])


def light_gain(plain_bgr: np.ndarray, design: np.ndarray, playing: int) -> np.ndarray:
    """Per square (rows of `design`: the playing squares, then the plain ones, whose
    colours `plain_bgr` are), how much more light than the board's median falls there:
    exp of a quadratic field through the plain squares' log colour. Robust (Cauchy
    weights), so squares under a hand or a shadow pull it little."""
    y = np.log(plain_bgr.astype(np.float64) + 4.0)
    A = design[playing:]
    coef = np.zeros((A.shape[1], 3))
    coef[0] = np.median(y, axis=0)
    for _ in range(5):
        res = np.linalg.norm(y - A @ coef, axis=1)
        scale = max(1.4826 * float(np.median(res)), 0.03)
        w = np.sqrt(1.0 / (1.0 + (res / (2 * scale)) ** 2))[:, None]
        coef, *_ = np.linalg.lstsq(A * w, y * w, rcond=None)
    field = design @ coef
    return np.exp(field - np.median(field[playing:], axis=0)).astype(np.float32)


def _lab(bgr: np.ndarray) -> np.ndarray:
    px = np.clip(bgr, 0, 255).astype(np.uint8).reshape(1, -1, 3)
    return cv2.cvtColor(px, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)


def to_lab(patches_bgr: np.ndarray) -> np.ndarray:
    shape = patches_bgr.shape
    flat = np.clip(patches_bgr, 0, 255).astype(np.uint8).reshape(1, -1, 3)
    return cv2.cvtColor(flat, cv2.COLOR_BGR2LAB).reshape(shape).astype(np.float32)


def _contrast(dark_ref: np.ndarray, light_ref: np.ndarray) -> float:
    return max(float(np.linalg.norm(light_ref - dark_ref)), 8.0)


def normalise(patches_bgr: np.ndarray, dark_ref: np.ndarray,
              light_ref: np.ndarray) -> np.ndarray:
    if not len(patches_bgr):
        return np.zeros(patches_bgr.shape, np.float32)
    return (to_lab(patches_bgr) - dark_ref) / _contrast(dark_ref, light_ref)


def plain_colour(dark_ref: np.ndarray, light_ref: np.ndarray) -> np.ndarray:
    """The plain squares' colour as `normalise` gives it (the playing squares' is zero)."""
    return (light_ref - dark_ref) / _contrast(dark_ref, light_ref)
