"""The located board: where its squares are in the image (a camera pose in square units)
and which way round it lies. World units here are squares: x to White's right, y towards
Black, z up, origin at the centre of the playing area."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from damas.calibration.camera import Camera
from damas.rules import geometry

# a 90-degree turn of the world about the vertical: (x, y) -> (-y, x)
QUARTER = np.array([[0, -1, 0], [1, 0, 0], [0, 0, 1.0]])


@dataclass(frozen=True)
class BoardPose:
    size: int
    camera: Camera  # world in squares
    method: str = "grid"  # how it was found: "markers", "grid", "calibration", "tracked"

    def project(self, points: np.ndarray) -> np.ndarray:
        return self.camera.project(points)

    def project_flat(self, xy: np.ndarray) -> np.ndarray:
        """Pixels of points (x, y) on the board's surface."""
        return self.camera.project(np.column_stack([xy, np.zeros(len(xy))]))

    def corners(self) -> np.ndarray:
        """Pixels of the playing area's four corners."""
        h = self.size / 2
        return self.project_flat(np.array([[-h, -h], [-h, h], [h, -h], [h, h]]))

    def square_centre(self, square: int) -> tuple[float, float]:
        row, col = geometry(self.size).row_col(square)
        return col - self.size / 2 + 0.5, self.size / 2 - row - 0.5

    def turned(self, quarters: int) -> BoardPose:
        """The same physical board with its labels turned by quarter turns (the world
        frame rotates about the vertical)."""
        T = np.linalg.matrix_power(QUARTER, quarters % 4)
        cam = self.camera
        return BoardPose(self.size, Camera(cam.intrinsics, cam.R @ T, cam.t), self.method)

    def white_side_in_image(self) -> np.ndarray:
        """Unit image vector from the board centre towards White's edge."""
        p = self.camera.project(np.array([[0, 0, 0], [0, -self.size / 2, 0.0]]))
        d = p[1] - p[0]
        return d / (np.linalg.norm(d) + 1e-12)

    def homography(self) -> np.ndarray:
        return self.camera.plane_homography(0.0)


def square_centres(size: int) -> np.ndarray:
    """World (x, y) of every dark square, index = Manoury number - 1."""
    g = geometry(size)
    out = np.empty((g.squares, 2))
    for sq in g.all_squares:
        row, col = g.row_col(sq)
        out[sq - 1] = (col - size / 2 + 0.5, size / 2 - row - 0.5)
    return out


def light_centres(size: int) -> np.ndarray:
    return np.array([(col - size / 2 + 0.5, size / 2 - row - 0.5)
                     for row in range(size) for col in range(size) if (row + col) % 2 == 0],
                    dtype=np.float64)


def cell_centres(size: int) -> np.ndarray:
    """All cells, row-major from the far-left corner; parity (row+col)%2==1 is dark."""
    return np.array([(col - size / 2 + 0.5, size / 2 - row - 0.5)
                     for row in range(size) for col in range(size)], dtype=np.float64)
