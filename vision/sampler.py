"""Where to look: for a located board, the pixels of every region the reader needs,
projected once per pose so each frame costs one cv2.remap of a few thousand points.

Regions, in square units (world frame of `board`):
- `body`: the half of a ring (radius 0.28..0.33) that faces the camera, at half a man's
  height over each dark square. An empty square shows its own colour there from any
  angle; a piece hides it with its wall or the rim of its top, never a king's medallion.
- `wall`: the same, low and near the rim: a piece's wall when seen from the side, its
  top when seen from above. Learned along with `body`, so a class knows both faces of
  its pieces (a king's body ring may meet its wall where a man's meets his top).
- `crown`, `crown_high`, `crown_top`: a small disk (radius 0.05) on the axis at 1.75,
  2 and 2.3 men high (sets differ in height): on a man it lands on
  his top from any angle; on a king, in the medallion on top of the stack.
- `light`: a disk at the centre of every light square: always empty, so it tells the
  light falling on the board, and a hand over it.
- `ring`: cells on the frame just outside the playing area: an arm reaching in crosses
  them.
- `cells`: a 5x5 grid over every dark square at board level, to tell empty squares by
  their evenness when no colour model is known.
- `profile`: five parallel lines at board level across each dark square, pointing away
  from the camera: a piece covers each from its base's near edge to its top's far edge,
  which lies further out the taller the stack (see `height`).
- `corners`: the four corners of every dark square, beyond any piece's reach from above:
  when something covers the board, a square none of whose corners shows the dark
  square's own colour may be under it.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .board import BoardPose, light_centres, square_centres

MAN_HEIGHT = 0.2  # squares; real sets are 0.17..0.25
PROFILE = np.arange(-0.6, 1.1501, 0.025)  # along the view, from each square's centre
LINES = (-0.28, -0.14, 0.0, 0.14, 0.28)  # the profile lines, across the view
CORNERS = ((0.34, 0.34), (-0.34, 0.34), (-0.34, -0.34), (0.34, -0.34))


def _disk(radius: float, rings: int) -> np.ndarray:
    pts = [(0.0, 0.0)]
    for k in range(1, rings + 1):
        r = radius * k / rings
        count = 6 * k
        a = np.linspace(0, 2 * np.pi, count, endpoint=False) + k * 0.3
        pts += list(zip(r * np.cos(a), r * np.sin(a), strict=True))
    return np.array(pts)


def _annulus(inner: float, outer: float) -> np.ndarray:
    pts = []
    for k, r in enumerate((inner, outer)):
        a = np.linspace(-np.pi, np.pi, 18, endpoint=False) + k * np.pi / 18
        pts += list(zip(r * np.cos(a), r * np.sin(a), strict=True))
    return np.array(pts)


def ring_centres(size: int, out: float = 0.35) -> np.ndarray:
    """Cells along the four frame sides, skipping the corners (markers may sit there)."""
    h = size / 2
    along = np.arange(1, size - 1) - h + 0.5
    cells = [(x, h + out) for x in along] + [(x, -h - out) for x in along]
    cells += [(h + out, y) for y in along] + [(-h - out, y) for y in along]
    return np.array(cells)


@dataclass
class Samples:
    body: np.ndarray  # (dark squares, 3) median BGR
    wall: np.ndarray  # (dark squares, 3) median BGR
    crown: np.ndarray  # (dark squares, 3)
    crown_high: np.ndarray  # (dark squares, 3)
    crown_top: np.ndarray  # (dark squares, 3)
    light: np.ndarray  # (light squares, 3)
    ring: np.ndarray  # (ring cells, 3)
    cells: np.ndarray  # (dark squares, 25) grey
    corners: np.ndarray  # (dark squares, 4, 3) BGR
    profile: np.ndarray  # (dark squares, len(LINES), len(PROFILE), 3) BGR

    def motion_vector(self) -> np.ndarray:
        return np.concatenate([self.body.ravel(), self.light.ravel(), self.ring.ravel()])


class Sampler:
    def __init__(self, board: BoardPose, man_height: float = MAN_HEIGHT):
        self.board = board
        n = board.size
        self.dark_xy = square_centres(n)
        self.light_xy = light_centres(n)
        self.ring_xy = ring_centres(n)
        groups = [
            ("body", self.dark_xy, _annulus(0.28, 0.33), man_height * 0.5),
            ("wall", self.dark_xy, _annulus(0.37, 0.4), 0.05),
            ("crown", self.dark_xy, _disk(0.05, 1), man_height * 1.75),
            ("crown_high", self.dark_xy, _disk(0.05, 1), man_height * 2.0),
            ("crown_top", self.dark_xy, _disk(0.05, 1), man_height * 2.3),
            ("light", self.light_xy, _disk(0.14, 2), 0.0),
            ("ring", self.ring_xy, _disk(0.12, 1), 0.0),
            ("cells", self.dark_xy,
             np.array([(dx, dy) for dx in np.linspace(-0.38, 0.38, 5)
                       for dy in np.linspace(-0.38, 0.38, 5)]), 0.0),
            ("corners", self.dark_xy,
             np.vstack([(cx, cy) + _disk(0.03, 1) for cx, cy in CORNERS]), 0.0),
            ("profile", self.dark_xy, np.array([(t, w) for w in LINES for t in PROFILE]), 0.0),
        ]
        world, self.layout = [], {}
        start = 0
        for name, centres, offsets, z in groups:
            if name == "profile":
                offsets = self._away_from_camera(centres, offsets)
                pts = (centres[:, None, :] + offsets).reshape(-1, 2)
                self.profile_xy = pts.reshape(len(centres), len(LINES), len(PROFILE), 2)
                offsets = offsets[0]
            elif name in ("body", "wall"):
                offsets = self._facing_camera(centres, offsets)
                pts = (centres[:, None, :] + offsets).reshape(-1, 2)
                offsets = offsets[0]
            else:
                pts = (centres[:, None, :] + offsets[None]).reshape(-1, 2)
            world.append(np.column_stack([pts, np.full(len(pts), z)]))
            self.layout[name] = (start, len(centres), len(offsets))
            start += len(pts)
        pix = board.project(np.vstack(world)).astype(np.float32)
        self.map_x = pix[:, 0].reshape(1, -1).copy()
        self.map_y = pix[:, 1].reshape(1, -1).copy()
        self.pixels = pix

    def _facing_camera(self, centres: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """The ring turned so its points lie on each square's side towards the camera:
        rays to them meet a piece's wall or the rim of its top, never the medallion in
        the middle of a king."""
        eye = self.board.camera.centre[:2]
        towards = np.arctan2(eye[1] - centres[:, 1], eye[0] - centres[:, 0])
        keep = np.abs(np.arctan2(offsets[:, 1], offsets[:, 0])) <= np.radians(100)
        half = offsets[keep]
        c, s = np.cos(towards)[:, None], np.sin(towards)[:, None]
        return np.stack([c * half[:, 0] - s * half[:, 1], s * half[:, 0] + c * half[:, 1]],
                        axis=2)

    def _away_from_camera(self, centres: np.ndarray, offsets: np.ndarray) -> np.ndarray:
        """(along, across) offsets turned so `along` points away from the camera."""
        eye = self.board.camera.centre[:2]
        away = centres - eye
        away /= np.linalg.norm(away, axis=1, keepdims=True) + 1e-9
        side = np.stack([-away[:, 1], away[:, 0]], axis=1)
        return (offsets[None, :, :1] * away[:, None, :] + offsets[None, :, 1:] * side[:, None, :])

    def slant(self) -> np.ndarray:
        """Per dark square, tan of the angle between the vertical and the camera's ray:
        how far a point 1 square up appears to slide away on the board."""
        eye = self.board.camera.centre
        return np.linalg.norm(self.dark_xy - eye[:2], axis=1) / max(eye[2], 1e-6)

    def inside(self, shape) -> bool:
        """True when every sample falls inside an image of this shape."""
        h, w = shape[:2]
        p = self.pixels
        return bool((p[:, 0] >= 0).all() and (p[:, 0] <= w - 1).all()
                    and (p[:, 1] >= 0).all() and (p[:, 1] <= h - 1).all())

    def sample(self, image: np.ndarray) -> Samples:
        vals = cv2.remap(image, self.map_x, self.map_y, cv2.INTER_LINEAR,
                         borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(np.float32)
        out = {}
        for name, (start, count, per) in self.layout.items():
            block = vals[start:start + count * per].reshape(count, per, 3)
            if name == "cells":
                out[name] = block.mean(axis=2)
            elif name == "profile":
                out[name] = block.reshape(count, len(LINES), len(PROFILE), 3)
            elif name == "corners":
                out[name] = block.reshape(count, len(CORNERS), -1, 3).mean(axis=2)
            elif name in ("body", "wall"):  # the median ignores the odd point on a king's medallion
                out[name] = np.median(block, axis=1)
            else:
                out[name] = block.mean(axis=1)
        return Samples(**out)
