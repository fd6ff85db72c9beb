"""X-corners: the points where four squares of a checker meet.

A checker corner is a saddle of the grey level: the Hessian's determinant is strongly
negative there, while edges (zero) and blobs such as a piece's top (positive) are not.
Each candidate is then checked on a small circle around it: the grey level along the
circle must change sign exactly four times about its mean, in two opposite pairs (two
straight lines crossing), which also gives the two line directions at the corner.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

CIRCLE = 32  # samples around a candidate


@dataclass(frozen=True)
class Corners:
    points: np.ndarray  # (N, 2) pixels of the image given
    strength: np.ndarray  # (N,) contrast of the checker pattern around the point
    directions: np.ndarray  # (N, 2) angles (radians, 0..pi) of the two lines crossing
    scale: np.ndarray  # (N,) the circle radius the corner was verified on (pixels)
    profile: np.ndarray  # (N, CIRCLE) grey level around the circle, mean removed


def saddle_response(gray: np.ndarray, sigma: float) -> np.ndarray:
    """-det(Hessian), scale-normalised, clipped at zero (only saddles)."""
    g = cv2.GaussianBlur(gray, (0, 0), sigma)
    gxx = cv2.Sobel(g, cv2.CV_32F, 2, 0, ksize=3)
    gyy = cv2.Sobel(g, cv2.CV_32F, 0, 2, ksize=3)
    gxy = cv2.Sobel(g, cv2.CV_32F, 1, 1, ksize=3)
    # in place: a fresh array a step costs as much as the step on a frame this size
    r = np.multiply(gxy, gxy, out=gxy)
    r -= np.multiply(gxx, gyy, out=gxx)
    r *= sigma ** 4
    return np.maximum(r, 0, out=r)


def _peaks(response: np.ndarray, radius: int, limit: int) -> np.ndarray:
    """Local maxima (x, y) of `response`, strongest first."""
    k = 2 * radius + 1
    dil = cv2.dilate(response, np.ones((k, k), np.uint8))
    top = float(response.max())
    if top <= 0:
        return np.empty((0, 2), np.float32)
    ys, xs = np.nonzero(response > 0.01 * top)  # few: the peak test only there
    strong = response[ys, xs]
    peak = strong >= dil[ys, xs]
    ys, xs = ys[peak], xs[peak]
    order = np.argsort(-strong[peak])[:limit]
    return np.column_stack([xs[order], ys[order]]).astype(np.float32)


def _circle_profiles(gray: np.ndarray, pts: np.ndarray, radius: np.ndarray) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, CIRCLE, endpoint=False)
    xs = pts[:, 0:1] + radius[:, None] * np.cos(a)[None]
    ys = pts[:, 1:2] + radius[:, None] * np.sin(a)[None]
    return cv2.remap(gray, xs.astype(np.float32), ys.astype(np.float32), cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)


def verify(gray: np.ndarray, pts: np.ndarray, radius: np.ndarray):
    """(ok, strength, line angles) for candidate points: the circle around a checker
    corner shows two dark and two light arcs, facing each other."""
    prof = _circle_profiles(gray, pts, radius).astype(np.float32)
    centred = prof - prof.mean(axis=1, keepdims=True)
    spec = np.fft.rfft(centred, axis=1)
    mag = np.abs(spec)
    # two lines crossing: the second harmonic carries the pattern, the odd ones little
    second = mag[:, 2]
    other = mag[:, 1] + mag[:, 3] + 0.5 * mag[:, 4:8].sum(axis=1)
    signs = np.sign(centred)
    signs[signs == 0] = 1
    crossings = (signs != np.roll(signs, 1, axis=1)).sum(axis=1)
    # opposite arcs alike: the profile half a turn on is the same
    half = centred - np.roll(centred, CIRCLE // 2, axis=1)
    opposite = np.abs(half).mean(axis=1) / (np.abs(centred).mean(axis=1) + 1e-6)
    ok = (crossings == 4) & (second > 1.2 * other) & (opposite < 0.6)
    strength = 2 * second / CIRCLE
    # the lines lie where the profile crosses its mean: for a checker, at the phase of
    # the second harmonic's zeros; between perspective-skewed arcs, at the crossings
    angles = np.zeros((len(pts), 2), np.float32)
    rows = np.nonzero(ok)[0]
    if len(rows):
        changes = (signs[rows] != np.roll(signs[rows], 1, axis=1))
        r, j = np.nonzero(changes)  # exactly four per row, in order
        c = centred[rows]
        a0, a1 = c[r, j - 1], c[r, j]
        denom = np.where(a0 != a1, a0 - a1, 1.0)
        f = np.where(a0 != a1, a0 / denom, 0.5)
        cross = np.mod(((j - 1) + f) * (2 * np.pi / CIRCLE), 2 * np.pi).reshape(-1, 4)
        angles[rows] = np.mod(np.sort(cross, axis=1)[:, :2], np.pi)
    return ok, strength, angles, centred


SIGMA = 1.5  # the saddle scale at each level of the pyramid (pixels of that level)


def find_corners(gray: np.ndarray, max_points: int = 400) -> Corners:
    """X-corners of a grey image at three scales (a pyramid of halvings, the same small
    filter on each: checkers of about 12 to 300 pixels a square), refined to sub-pixel."""
    g = gray.astype(np.float32)
    found = []
    level: np.ndarray = g
    factor = 1.0
    for _ in range(3):
        if min(level.shape) < 64:
            break
        resp = saddle_response(level, SIGMA)
        pts = _peaks(resp, 3, max_points)
        if len(pts):
            radius = np.full(len(pts), 2.5 * SIGMA + 1.0, np.float32)
            ok, strength, angles, prof = verify(level, pts, radius)
            # back in the image's pixels (pyrDown's pixel centres: 2x + 0.5)
            at = (pts[ok] + 0.5) * factor - 0.5
            found.append((at, strength[ok], angles[ok], radius[ok] * factor, prof[ok]))
        level, factor = cv2.pyrDown(level), factor * 2
    if not found:
        return Corners(np.empty((0, 2)), np.empty(0), np.empty((0, 2)), np.empty(0),
                       np.empty((0, CIRCLE)))
    pts = np.vstack([f[0] for f in found])
    strength = np.concatenate([f[1] for f in found])
    angles = np.vstack([f[2] for f in found])
    scale = np.concatenate([f[3] for f in found])
    profile = np.vstack([f[4] for f in found])
    # the same corner found at several scales: keep its strongest
    order = np.argsort(-strength)
    pts, strength, angles, scale, profile = (a[order] for a in
                                             (pts, strength, angles, scale, profile))
    dist = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    close = np.triu(dist <= 0.8 * np.minimum(scale[:, None], scale[None]), 1)
    keep_mask = np.ones(len(pts), bool)
    for i in np.nonzero(close.any(axis=1))[0]:  # the few with a weaker twin
        if keep_mask[i]:
            keep_mask[close[i]] = False
    keep_arr = np.nonzero(keep_mask)[0][:max_points]
    pts = pts[keep_arr].reshape(-1, 1, 2).astype(np.float32).copy()
    if len(pts):
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 15, 0.05)
        win = int(np.clip(np.median(scale[keep_arr]), 2, 10))
        cv2.cornerSubPix(gray if gray.dtype == np.uint8 else g, pts, (win, win), (-1, -1),
                         criteria)
    return Corners(pts.reshape(-1, 2).astype(np.float64), strength[keep_arr],
                   angles[keep_arr], scale[keep_arr], profile[keep_arr])


# --- the lattice through the corners -----------------------------------------------------

@dataclass(frozen=True)
class Lattice:
    """Corners given integer lattice coordinates, and the homography lattice -> pixels
    that best explains them (pixels of the image the corners were found in)."""

    points: np.ndarray  # (M, 2) pixels
    ij: np.ndarray  # (M, 2) int lattice coordinates, both starting at 0
    H: np.ndarray  # 3x3, (i, j, 1) -> pixels


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    # a lattice still growing may send a point to infinity: inf (or nan), which no
    # distance test passes, rather than a warning on the user's terminal
    with np.errstate(divide="ignore", invalid="ignore"):
        return p[:, :2] / p[:, 2:3]


def _neighbour(points: np.ndarray, i: int, angle: float, sign: int) -> int | None:
    """The nearest corner from corner i along a line direction (either way)."""
    d = points - points[i]
    dist = np.hypot(d[:, 0], d[:, 1])
    direction = sign * np.array([np.cos(angle), np.sin(angle)])
    cos = (d @ direction) / (dist + 1e-9)
    ok = (cos > np.cos(np.radians(14))) & (dist > 1e-6)
    if not ok.any():
        return None
    return int(np.nonzero(ok)[0][np.argmin(dist[ok])])


def _lattice_coords(H: np.ndarray, points: np.ndarray):
    try:
        q = _apply(np.linalg.inv(H), points)
    except np.linalg.LinAlgError:
        return None
    if not np.isfinite(q).all():
        return None
    return q


def _polarity(corners: Corners, H: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Per corner, +1 or -1 as its pair of opposite quadrants on the lattice's (+1, +1)
    diagonal is the light or the dark pair, 0 where its lines do not follow the lattice.
    On a checker the sign alternates from node to node."""
    pts = corners.points
    f = nodes.astype(np.float64)
    prof = corners.profile
    out = np.zeros(len(pts))
    vals = []
    for d in ((0.3, 0.3), (-0.3, -0.3), (0.3, -0.3), (-0.3, 0.3)):
        q = _apply(H, f + d) - pts
        ang = np.mod(np.arctan2(q[:, 1], q[:, 0]), 2 * np.pi)
        k = np.round(ang / (2 * np.pi) * CIRCLE).astype(int) % CIRCLE
        vals.append(prof[np.arange(len(pts)), k])
    a, b, c, d = vals
    diff = (a + b) - (c + d)
    amp = np.abs(prof).max(axis=1) + 1e-6
    clear = (np.abs(diff) > 1.5 * amp) & (np.sign(a) == np.sign(b)) & (np.sign(c) == np.sign(d))
    out[clear] = np.sign(diff[clear])
    return out


def _grow(corners: Corners, seed: int, u: int, v: int, tol: float = 0.25):
    """Lattice nodes for the corners, grown outwards from one seed cell: a corner joins
    when it sits within `tol` of a node next to (or one gap from) a node already taken;
    the homography is refitted as the lattice grows, so perspective is followed. The
    corner's quadrants must alternate as a checker's do."""
    points = corners.points
    p0, pu, pv = points[seed], points[u], points[v]
    src = np.array([[0, 0], [1, 0], [0, 1], [1, 1]], np.float32)
    dst = np.array([p0, pu, pv, pu + pv - p0], np.float32)
    H: np.ndarray = cv2.getPerspectiveTransform(src, dst).astype(np.float64)
    taken = {(0, 0): seed}
    member = np.full(len(points), False)
    member[seed] = True
    for _ in range(40):
        q = _lattice_coords(H, points)
        if q is None:
            break
        node = np.round(q).astype(int)
        err = np.abs(q - node).max(axis=1)
        polarity = _polarity(corners, H, node) * np.where(node.sum(axis=1) % 2 == 0, 1, -1)
        if polarity[seed] == 0:
            break
        err[polarity != polarity[seed]] = np.inf
        added = False
        for k in np.argsort(err):
            if err[k] >= tol:
                break
            key = (int(node[k, 0]), int(node[k, 1]))
            if member[k] or key in taken:
                continue
            near = any((key[0] + di, key[1] + dj) in taken
                       for di in (-2, -1, 0, 1, 2) for dj in (-2, -1, 0, 1, 2))
            if not near:
                continue
            taken[key] = int(k)
            member[k] = True
            added = True
        if not added:
            break
        if len(taken) >= 4:
            found_ij = np.array(list(taken.keys()), np.float64)
            idx = np.array(list(taken.values()))
            H2, _ = cv2.findHomography(found_ij, points[idx], 0)
            if H2 is not None and np.isfinite(H2).all():
                H = H2
    lattice_ij = np.array(list(taken.keys()), int)
    idx = np.array(list(taken.values()), int)
    return idx, lattice_ij, H


def fit_lattice(corners: Corners, enough: int, seeds: int = 24) -> Lattice | None:
    """The largest set of corners that sit on one lattice of squares (grown from the
    strongest corners in turn, stopping once one holds `enough`), or None."""
    pts = corners.points
    if len(pts) < 5:
        return None
    best = None
    for seed in np.argsort(-corners.strength)[:seeds]:
        a, b = corners.directions[seed]
        u = _neighbour(pts, seed, a, 1)
        v = _neighbour(pts, seed, b, 1)
        if u is None or v is None:
            continue
        idx, ij, H = _grow(corners, int(seed), u, v)
        if best is None or len(idx) > len(best[0]):
            best = (idx, ij, H)
        if len(idx) >= enough:
            break
    if best is None or len(best[0]) < 5:
        return None
    idx, ij, H = best
    lo = ij.min(axis=0)
    shift = np.array([[1, 0, lo[0]], [0, 1, lo[1]], [0, 0, 1.0]])
    return Lattice(pts[idx], ij - lo, H @ shift)
