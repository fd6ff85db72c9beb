"""From corners on the image to a camera: sub-pixel corners at every node of the board's
lattice, and the pinhole camera with lens distortion that explains them.

Without known intrinsics the lens is fitted from the one view (OpenCV's calibrateCamera
on the board's own corners): principal point at the centre, square pixels, one radial term
where the corners found spread far enough over the board to tie it down
(`lens_supported`), and the focal length when the view is oblique enough to tell it (a
view from straight above cannot: the focal length and the distance trade off exactly)."""

from __future__ import annotations

import cv2
import numpy as np

from damas.calibration.camera import Camera, Intrinsics, focal_from_homography

# offsets (in squares) on the diagonals around a corner, close enough that no piece
# standing on the squares reaches them from above
DIAGONALS = np.array([(0.14, 0.14), (-0.14, -0.14), (0.14, -0.14), (-0.14, 0.14)])


def checker_corners(quads: np.ndarray) -> np.ndarray:
    """Given grey levels (4, N) sampled diagonally around N points (a and b on one
    diagonal, c and d on the other): True where the diagonals are each alike and unlike
    each other, as where four squares of a checker meet."""
    a, b, c, d = quads
    across = np.abs((a + b) - (c + d)) / 2
    within = np.maximum(np.abs(a - b), np.abs(c - d))
    return across > 2 * within + 4


def refine_nodes(gray: np.ndarray, to_pixels, nodes: np.ndarray) -> tuple[np.ndarray,
                                                                          np.ndarray]:
    """Sub-pixel corners near where `to_pixels` (board xy -> pixels) puts each node;
    (points, found) where found says a checker corner is really there."""
    H = to_pixels
    m = len(nodes)
    # one call for every point wanted: a projection's cost is mostly per call
    nodes = nodes.astype(np.float64)
    guess, right, up = np.split(H(np.vstack([nodes, nodes + [1.0, 0.0], nodes + [0.0, 1.0]])),
                                [m, 2 * m])
    step = np.minimum(np.linalg.norm(right - guess, axis=1),
                      np.linalg.norm(up - guess, axis=1))
    h, w = gray.shape
    win = int(np.clip(0.22 * np.median(step), 2, 15))
    inside = ((guess[:, 0] > win + 1) & (guess[:, 0] < w - win - 2)
              & (guess[:, 1] > win + 1) & (guess[:, 1] < h - win - 2))
    pts = guess.copy()
    found = np.zeros(m, bool)
    if inside.sum() == 0:
        return pts, found
    p = guess[inside].astype(np.float32).reshape(-1, 1, 2).copy()
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.03)
    cv2.cornerSubPix(gray, p, (win, win), (-1, -1), criteria)
    p = p.reshape(-1, 2).astype(np.float64)
    moved = np.linalg.norm(p - guess[inside], axis=1)
    # the same small diagonals around the refined point, in the lattice's own directions
    shift = p - guess[inside]
    around = H(np.vstack([nodes[inside] + d for d in DIAGONALS])) + np.tile(shift, (4, 1))
    pix = around.astype(np.float32)
    vals = cv2.remap(gray, pix[:, 0].reshape(1, -1), pix[:, 1].reshape(1, -1),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ok = checker_corners(vals.astype(np.float32).reshape(4, -1))
    ok &= moved < 0.3 * step[inside]
    pts[inside] = p
    found[np.nonzero(inside)[0][ok]] = True
    return pts, found


def _calibrate(world: np.ndarray, pixels: np.ndarray, size: tuple[int, int], f: float,
               flags: int) -> tuple[float, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    w, h = size
    K = np.array([[f, 0, (w - 1) / 2], [0, f, (h - 1) / 2], [0, 0, 1.0]])
    obj = [np.column_stack([world, np.zeros(len(world))]).astype(np.float32)]
    img = [pixels.astype(np.float32).reshape(-1, 1, 2)]
    rms, K, dist, rvecs, tvecs = cv2.calibrateCamera(
        obj, img, (w, h), K, np.zeros(5), flags=flags,
        criteria=(cv2.TERM_CRITERIA_COUNT + cv2.TERM_CRITERIA_EPS, 40, 1e-7))
    return rms, K, dist.ravel(), (rvecs[0], tvecs[0])


def lens_supported(world: np.ndarray, half: float) -> bool:
    """Whether the corners found at board points `world` (N, 2) tie a radial term down
    over the board, which spans -half .. half on both axes.
    Such a term shows as the corners bending away from a plane's perspective, a cubic in
    the distance: over corners spread rho squares either side of their middle, with an
    error s each, it is known to about s / (rho^3 sqrt(N)), and carried out to the
    board's edge, R squares from their middle, it bends the squares there by that times
    R^3: s (R / rho)^3 / sqrt(N). It is fitted only where that is no more than a
    corner's own error, N >= (R / rho)^6 along both board axes (how big the board is in
    the frame cancels out: a small one bends little and tells little alike). Every
    corner of a board, or all but an edge line, pass easily (10x10: 3.8 needed; 8x8:
    5.6); corners bunched in part of it (pieces, a hand, the far rows of a small photo
    too small to find) do not, and a term fitted to their noise bends the squares beyond
    them (a 480x270 photo of a 10x10 board early in a game, 37 corners on 6 of 8 rows: k1
    -0.33, the grid 0.11 of a square off at the far side, 0.04 without it)."""
    if len(world) < 2:
        return False
    lo, hi = world.min(axis=0), world.max(axis=0)
    rho = (hi - lo) / 2
    if (rho <= 0).any():
        return False
    reach = half + np.abs((hi + lo) / 2)  # to the far edge from the corners' middle
    return bool(len(world) >= float(np.max(reach / rho)) ** 6)


# one radial term: the board covers too little of the view to tell k2 from k1, and a
# wrong k2 bends the squares beyond the outermost corners found
FIXED = (cv2.CALIB_USE_INTRINSIC_GUESS | cv2.CALIB_FIX_PRINCIPAL_POINT
         | cv2.CALIB_FIX_ASPECT_RATIO | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_FIX_K2
         | cv2.CALIB_FIX_K3)


def fit_camera(world: np.ndarray, pixels: np.ndarray, shape: tuple[int, ...],
               intrinsics: Intrinsics | None = None,
               half: float | None = None) -> tuple[Camera, np.ndarray]:
    """(camera, residual per point in pixels) for board points `world` (N, 2), z = 0, seen
    at `pixels` (N, 2), on a board spanning -half .. half (by default one square past the
    farthest point). Points that fit badly (a corner caught on a piece's edge) are
    dropped and the fit repeated."""
    h, w = shape[:2]
    if half is None:
        half = float(np.abs(world).max()) + 1
    keep = np.ones(len(world), bool)
    for _ in range(3):
        camera = _fit_once(world[keep], pixels[keep], (w, h), intrinsics, half)
        proj = camera.project(np.column_stack([world, np.zeros(len(world))]))
        res = np.linalg.norm(proj - pixels, axis=1)
        limit = max(1.0, 4 * float(np.median(res[keep])))
        new = res < limit
        if (new == keep).all() or new.sum() < 8:
            break
        keep = new
    return camera, res


def _fit_once(world, pixels, size, intrinsics: Intrinsics | None, half: float) -> Camera:
    w, h = size
    if intrinsics is not None:
        ok, rvec, tvec = cv2.solvePnP(
            np.column_stack([world, np.zeros(len(world))]).astype(np.float64),
            pixels.astype(np.float64), intrinsics.K, np.array(intrinsics.dist, np.float64))
        R, _ = cv2.Rodrigues(rvec)
        return Camera(intrinsics, R, tvec.ravel())
    guess = Intrinsics.guess(w, h)
    H, _ = cv2.findHomography(world, pixels, 0)
    f = focal_from_homography(H / np.linalg.norm(H[:2, :2]), w, h) if H is not None else None
    tilted = f is not None and Camera.from_plane_homography(guess, H).tilt_deg() > 15
    flags = FIXED
    if f is None or not tilted:  # (f is None: too frontal to tell, so not tilted)
        flags |= cv2.CALIB_FIX_FOCAL_LENGTH
        f = guess.fx

    def lens_like(K: np.ndarray) -> bool:  # not a focal length no lens has
        return 0.3 * w < K[0, 0] < 6 * w

    if not lens_supported(world, half):
        flags |= cv2.CALIB_FIX_K1
    rms, K, dist, (rvec, tvec) = _calibrate(world, pixels, (w, h), f, flags)
    if not lens_like(K):  # keep the guess
        flags |= cv2.CALIB_FIX_FOCAL_LENGTH
        rms, K, dist, (rvec, tvec) = _calibrate(world, pixels, (w, h), guess.fx, flags)
    if rms > 0.3:
        # a cropped photo: its principal point is not the middle of what is left, and
        # its lens's centre not either, so no radial term (one about the wrong centre
        # bends the squares beyond the corners found)
        free = _calibrate(world, pixels, (w, h), float(K[0, 0]),
                          (flags & ~cv2.CALIB_FIX_PRINCIPAL_POINT) | cv2.CALIB_FIX_K1)
        free_rms, free_K = free[0], free[1]
        inside = 0 <= free_K[0, 2] < w and 0 <= free_K[1, 2] < h
        if inside and free_rms < 0.8 * rms and lens_like(free_K):
            rms, K, dist, (rvec, tvec) = free
    R, _ = cv2.Rodrigues(rvec)
    intr = Intrinsics(w, h, float(K[0, 0]), float(K[1, 1]), float(K[0, 2]), float(K[1, 2]),
                      tuple(float(v) for v in dist[:5]))
    return Camera(intr, R, tvec.ravel())
