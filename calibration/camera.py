"""The pinhole camera with radial/tangential distortion, shared by the renderer (to make
frames) and the pipeline (to sample a located board at any height above its surface).

World (board) coordinates: x to White's right, y towards Black, z up, origin at the board
centre. The renderer works in millimetres; the pipeline in square units (1 = a square).
Image coordinates: pixels, x right, y down. Distortion follows OpenCV's model
(k1, k2, p1, p2, k3) so calibrated intrinsics plug in unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Intrinsics:
    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0)  # k1 k2 p1 p2 k3

    @property
    def K(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1.0]])

    @property
    def distorted(self) -> bool:
        return any(abs(d) > 1e-12 for d in self.dist)

    @classmethod
    def guess(cls, width: int, height: int, hfov_deg: float = 62.0) -> Intrinsics:
        """A typical webcam: square pixels, centred principal point, no distortion."""
        f = width / 2 / np.tan(np.radians(hfov_deg) / 2)
        return cls(width, height, f, f, (width - 1) / 2, (height - 1) / 2)

    def scaled_to(self, width: int, height: int) -> Intrinsics:
        """The same lens for another image size (calibration at one resolution, use at
        another)."""
        sx, sy = width / self.width, height / self.height
        return Intrinsics(width, height, self.fx * sx, self.fy * sy, self.cx * sx,
                          self.cy * sy, self.dist)

    # --- distortion on normalised coordinates ---------------------------------------

    def distort_normalised(self, x: np.ndarray, y: np.ndarray):
        k1, k2, p1, p2, k3 = (tuple(self.dist) + (0.0,) * 5)[:5]
        r2 = x * x + y * y
        radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
        xd = x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
        yd = y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
        return xd, yd

    def undistort_normalised(self, xd: np.ndarray, yd: np.ndarray, iterations: int = 8):
        """Fixed-point inverse of distort_normalised (converges for webcam lenses)."""
        x, y = xd.copy(), yd.copy()
        for _ in range(iterations):
            dx, dy = self.distort_normalised(x, y)
            x = x - (dx - xd)
            y = y - (dy - yd)
        return x, y

    def undistort_pixels(self, points: np.ndarray) -> np.ndarray:
        """Distorted pixel coordinates (N, 2) to ideal (pinhole) pixel coordinates."""
        if not self.distorted:
            return np.asarray(points, dtype=np.float64)
        p = np.asarray(points, dtype=np.float64)
        x, y = self.undistort_normalised((p[:, 0] - self.cx) / self.fx,
                                         (p[:, 1] - self.cy) / self.fy)
        return np.stack([x * self.fx + self.cx, y * self.fy + self.cy], axis=1)

    def distort_pixels(self, points: np.ndarray) -> np.ndarray:
        if not self.distorted:
            return np.asarray(points, dtype=np.float64)
        p = np.asarray(points, dtype=np.float64)
        x, y = self.distort_normalised((p[:, 0] - self.cx) / self.fx,
                                       (p[:, 1] - self.cy) / self.fy)
        return np.stack([x * self.fx + self.cx, y * self.fy + self.cy], axis=1)

    def to_dict(self) -> dict:
        return {"width": self.width, "height": self.height, "fx": self.fx, "fy": self.fy,
                "cx": self.cx, "cy": self.cy, "dist": list(self.dist)}

    @classmethod
    def from_dict(cls, d: dict) -> Intrinsics:
        return cls(int(d["width"]), int(d["height"]), float(d["fx"]), float(d["fy"]),
                   float(d["cx"]), float(d["cy"]), tuple(float(v) for v in d["dist"]))


@dataclass(frozen=True)
class Camera:
    """Intrinsics plus pose: R rotates world to camera axes, t = -R @ centre."""

    intrinsics: Intrinsics
    R: np.ndarray = field(repr=False)
    t: np.ndarray = field(repr=False)

    @property
    def centre(self) -> np.ndarray:
        return -self.R.T @ self.t

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        return np.asarray(points, dtype=np.float64) @ self.R.T + self.t

    def project(self, points: np.ndarray, distort: bool = True) -> np.ndarray:
        """World points (N, 3) to pixels (N, 2)."""
        pc = self.to_camera(points)
        z = np.maximum(pc[:, 2], 1e-9)
        x, y = pc[:, 0] / z, pc[:, 1] / z
        k = self.intrinsics
        if distort and k.distorted:
            x, y = k.distort_normalised(x, y)
        return np.stack([x * k.fx + k.cx, y * k.fy + k.cy], axis=1)

    def plane_homography(self, z: float = 0.0) -> np.ndarray:
        """3x3 map from (x, y, 1) on the horizontal plane at height z to ideal pixels."""
        M = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t])
        H = self.intrinsics.K @ M
        return H / H[2, 2]

    @classmethod
    def looking_at(cls, intrinsics: Intrinsics, target, distance: float, tilt_deg: float,
                   azimuth_deg: float, roll_deg: float = 0.0) -> Camera:
        """A camera `distance` from `target`, tilted `tilt_deg` from straight down, placed
        in the horizontal direction `azimuth_deg` (0 = White's right, 90 = Black's side),
        its image bottom towards itself, then rolled about its axis."""
        tilt, az, roll = np.radians([tilt_deg, azimuth_deg, roll_deg])
        target = np.asarray(target, dtype=np.float64)
        horizontal = np.array([np.cos(az), np.sin(az), 0.0])
        centre = target + distance * (np.sin(tilt) * horizontal + np.array([0, 0, np.cos(tilt)]))
        z_c = (target - centre) / np.linalg.norm(target - centre)
        x_c = np.array([-np.sin(az), np.cos(az), 0.0])
        y_c = np.cross(z_c, x_c)
        c, s = np.cos(roll), np.sin(roll)
        x_r, y_r = c * x_c + s * y_c, -s * x_c + c * y_c
        R = np.stack([x_r, y_r, z_c])
        return cls(intrinsics, R, -R @ centre)

    @classmethod
    def from_plane_homography(cls, intrinsics: Intrinsics, H: np.ndarray) -> Camera:
        """Pose from the homography (plane z=0 -> ideal pixels) and known intrinsics
        (Zhang's decomposition, rotation made orthonormal by SVD)."""
        B = np.linalg.inv(intrinsics.K) @ H
        scale = 2.0 / (np.linalg.norm(B[:, 0]) + np.linalg.norm(B[:, 1]))
        B = B * scale
        if B[2, 2] < 0:  # the board is in front of the camera
            B = -B
        r1, r2, t = B[:, 0], B[:, 1], B[:, 2]
        U, _, Vt = np.linalg.svd(np.column_stack([r1, r2, np.cross(r1, r2)]))
        R = U @ Vt
        if np.linalg.det(R) < 0:
            R = U @ np.diag([1, 1, -1]) @ Vt
        return cls(intrinsics, R, t)

    def tilt_deg(self) -> float:
        """Angle between the optical axis and straight down."""
        return float(np.degrees(np.arccos(np.clip(-self.R[2, 2], -1, 1))))


def focal_from_homography(H: np.ndarray, width: int, height: int) -> float | None:
    """Focal length (pixels) implied by a plane homography, assuming square pixels and a
    centred principal point; None when the view is too frontal to tell."""
    T = np.array([[1, 0, -(width - 1) / 2], [0, 1, -(height - 1) / 2], [0, 0, 1.0]])
    h = T @ H
    h1, h2 = h[:, 0], h[:, 1]
    # r1.r2 = 0 and |r1| = |r2| with omega = diag(1/f^2, 1/f^2, 1): a*x + b = 0, x = 1/f^2
    a = np.array([h1[0] * h2[0] + h1[1] * h2[1],
                  h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2])
    b = np.array([h1[2] * h2[2], h1[2] ** 2 - h2[2] ** 2])
    denom = float(a @ a)
    if denom <= 0:
        return None
    x = -float(a @ b) / denom
    if x <= 0:
        return None
    f = 1 / np.sqrt(x)
    # a frontal view leaves f unconstrained: b is ~0 and the estimate is noise
    if not 0.3 * width < f < 5 * width or float(np.abs(b).max()) < 1e-12:
        return None
    return float(f)
