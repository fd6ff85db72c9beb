"""The board locator: from a frame to a BoardPose whose dark squares are the dark ones.

Two ways to a first guess of the board outline, then one way to the squares:
1. ArUco markers 0..3 at the board corners (see `markers`), which also fix which side
   is White's; or the largest convex quadrilaterals among the image's edges (the board's
   outline or its playing area).
2. Inside the outline, warped to a square, the playing area is where every line across
   it alternates light and dark; a comb of n+1 equally spaced edge lines is fitted to it.
3. The (n-1)^2 inner corners where four squares meet are refined to sub-pixel and a
   homography is fitted to them with RANSAC (pieces hide some corners).
4. Which cell parity is dark is read from the cells themselves: among the most uniform
   cells of each parity (empty squares) the dark ones are darker.
With known intrinsics the corners are undistorted first; without them a webcam lens is
assumed (centred, square pixels) and the focal length estimated from the homography.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from damas.calibration.camera import Camera, Intrinsics, focal_from_homography

from . import markers as marker_defs
from .board import BoardPose
from .errors import BoardNotFound

CANONICAL = 360  # side of the square the outline is warped to for the grid search
WORK_WIDTH = 640  # width the quadrilateral search runs at


@dataclass(frozen=True)
class Location:
    pose: BoardPose
    oriented: bool  # True when the markers fixed where White sits
    corners_used: int  # inner corners that agree with the fitted grid


def grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


# --- first guesses of the outline ----------------------------------------------------

def _order_clockwise(quad: np.ndarray) -> np.ndarray:
    c = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - c[1], quad[:, 0] - c[0])
    q = quad[np.argsort(angles)]
    start = np.argmin(q.sum(axis=1))  # top-left-most first, for repeatability
    return np.roll(q, -start, axis=0)


def outline_candidates(gray: np.ndarray, limit: int = 4) -> list[np.ndarray]:
    """Large convex quadrilaterals among the edges, biggest first (full-size pixels)."""
    scale = min(1.0, WORK_WIDTH / gray.shape[1])
    small = cv2.resize(gray, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (5, 5), 0)
    med = float(np.median(small))
    edges = cv2.Canny(small, max(10.0, 0.4 * med), max(30.0, 0.9 * med))
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    min_area = 0.04 * small.shape[0] * small.shape[1]
    quads = []
    for contour in contours:
        hull = cv2.convexHull(contour)
        area = cv2.contourArea(hull)
        if area < min_area:
            continue
        perimeter = cv2.arcLength(hull, True)
        for eps in (0.02, 0.035, 0.05):
            approx = cv2.approxPolyDP(hull, eps * perimeter, True)
            if len(approx) == 4:
                quads.append((area, approx.reshape(4, 2).astype(np.float64) / scale))
                break
    quads.sort(key=lambda q: -q[0])
    distinct: list[np.ndarray] = []
    for _, q in quads:
        q = _order_clockwise(q)
        if all(np.abs(q - d).max() > 0.02 * gray.shape[1] for d in distinct):
            distinct.append(q)
        if len(distinct) == limit:
            break
    return distinct


def marker_centres(gray: np.ndarray) -> dict[int, np.ndarray]:
    """Image centre of each corner marker seen, by id."""
    corners, ids, _ = marker_defs.detector().detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(4, 2).mean(axis=0) for c, i in zip(corners, ids.ravel(),
                                                                   strict=True)
            if int(i) in marker_defs.CORNER_IDS}


def marker_outline(centres: dict[int, np.ndarray]) -> np.ndarray | None:
    """The outline far-left, far-right, near-right, near-left through the four markers
    (with three, the fourth is guessed as the parallelogram's: rough under perspective,
    but the grid fit that follows only needs a start)."""
    if len(centres) < 3:
        return None
    centres = dict(centres)
    if len(centres) == 3:
        missing = next(i for i in marker_defs.CORNER_IDS if i not in centres)
        a, b = centres[(missing + 1) % 4], centres[(missing + 3) % 4]
        centres[missing] = a + b - centres[(missing + 2) % 4]
    return np.array([centres[3], centres[2], centres[1], centres[0]], np.float64)


# --- the grid inside an outline --------------------------------------------------------

def _edge_profile(g: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """Along `axis` (0: rows, 1: columns): spread of grey across the line, and edge
    strength across the line, both over the central band only."""
    side = g.shape[0]
    lo, hi = int(0.2 * side), int(0.8 * side)
    band = g[:, lo:hi] if axis == 0 else g[lo:hi, :].T
    spread = band.std(axis=1)
    grad = np.zeros_like(spread)
    grad[1:-1] = np.abs(band[2:] - band[:-2]).mean(axis=1)
    return cv2.blur(spread.reshape(-1, 1), (1, 5)).ravel(), grad


def _extent(spread: np.ndarray) -> tuple[float, float]:
    """First and last position where the line crosses alternating squares."""
    side = len(spread)
    ends = np.concatenate([spread[: side // 25 + 1], spread[-(side // 25 + 1):]])
    inner = spread[int(0.3 * side): int(0.7 * side)]
    if np.median(ends) > 0.5 * np.median(inner):
        return 0.0, float(side - 1)  # the outline is the playing area itself
    level = np.median(ends) + 0.2 * (np.median(inner) - np.median(ends))
    # the longest run above the level (thin blips at the outline's own edge don't count)
    above = np.concatenate([[0], (spread > level).astype(np.int8), [0]])
    starts = np.nonzero(np.diff(above) == 1)[0]
    ends = np.nonzero(np.diff(above) == -1)[0]
    if len(starts) == 0:
        return 0.0, float(side - 1)
    longest = int(np.argmax(ends - starts))
    return float(starts[longest]), float(ends[longest] - 1)


def _comb(grad: np.ndarray, a0: float, b0: float, n: int) -> tuple[float, float]:
    """The n+1 equally spaced lines (first at a, last at b) with the most edge."""
    pitch = (b0 - a0) / n
    reach = max(2.0, 0.45 * pitch)
    a = np.arange(a0 - reach, a0 + reach + 0.5, 0.5)
    b = np.arange(b0 - reach, b0 + reach + 0.5, 0.5)
    A, B = np.meshgrid(a, b, indexing="ij")
    k = np.arange(n + 1)
    pos = A[..., None] + (B - A)[..., None] * k / n
    pos = np.clip(pos, 0, len(grad) - 1.001)
    i = pos.astype(int)
    f = pos - i
    score = (grad[i] * (1 - f) + grad[i + 1] * f).mean(axis=-1)
    best = np.unravel_index(np.argmax(score), score.shape)
    return float(A[best]), float(B[best])


def grid_in_outline(image: np.ndarray, outline: np.ndarray, n: int) -> np.ndarray:
    """Homography world (squares) -> pixels from an outline around the playing area;
    outline corners: the canonical view's top-left, top-right, bottom-right, bottom-left."""
    S = CANONICAL
    target = np.array([[0, 0], [S - 1, 0], [S - 1, S - 1], [0, S - 1]], np.float64)
    M = cv2.getPerspectiveTransform(outline.astype(np.float32), target.astype(np.float32))
    g = cv2.warpPerspective(grey(image), M, (S, S), flags=cv2.INTER_LINEAR).astype(np.float32)
    spread_r, grad_r = _edge_profile(g, 0)
    spread_c, grad_c = _edge_profile(g, 1)
    top, bottom = _comb(grad_r, *_extent(spread_r), n)
    left, right = _comb(grad_c, *_extent(spread_c), n)
    px, py = (right - left) / n, (bottom - top) / n
    if px < 4 or py < 4:
        raise BoardNotFound("the outline found holds no visible grid of squares")
    A = np.array([[px, 0, left + n / 2 * px], [0, -py, top + n / 2 * py], [0, 0, 1]])
    H = np.linalg.inv(M) @ A
    return H / H[2, 2]


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.column_stack([pts, np.ones(len(pts))]) @ H.T
    return p[:, :2] / p[:, 2:3]


@dataclass(frozen=True)
class Lens:
    """One radial term about the image centre, fitted when no intrinsics are known:
    raw = c + (ideal - c) * (1 + k * |ideal - c|^2 / half_width^2)."""

    cx: float
    cy: float
    half_width: float
    k: float = 0.0

    def distort(self, pts: np.ndarray) -> np.ndarray:
        d = pts - (self.cx, self.cy)
        r2 = (d ** 2).sum(axis=1, keepdims=True) / self.half_width ** 2
        return (self.cx, self.cy) + d * (1 + self.k * r2)

    def undistort(self, pts: np.ndarray) -> np.ndarray:
        d = pts - (self.cx, self.cy)
        u = d.copy()
        for _ in range(6):
            r2 = (u ** 2).sum(axis=1, keepdims=True) / self.half_width ** 2
            u = d / (1 + self.k * r2)
        return (self.cx, self.cy) + u

    def with_k(self, k: float) -> Lens:
        return Lens(self.cx, self.cy, self.half_width, k)


def _fit_lens(lens: Lens, world: np.ndarray, raw: np.ndarray) -> Lens:
    """The radial term that lets one homography explain the corners best."""

    def cost(k: float) -> float:
        trial = lens.with_k(k)
        H, _ = cv2.findHomography(world, trial.undistort(raw), 0)
        if H is None:
            return np.inf
        return float(np.square(trial.distort(_apply(H, world)) - raw).sum())

    lo, hi = -0.12, 0.12
    ratio = (np.sqrt(5) - 1) / 2
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = cost(x1), cost(x2)
    for _ in range(14):  # the bracket shrinks to 1e-4: finer than pixels need
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = cost(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = cost(x2)
    return lens.with_k((lo + hi) / 2)


def _is_checker_corner(gray, H, to_raw, world: np.ndarray, found: np.ndarray) -> np.ndarray:
    """True where the point found looks like four squares meeting: the two diagonal
    neighbours on one side alike, on the other alike, and the pairs unlike. Sampled
    close to the corner, where no piece reaches."""
    offsets = np.array([(0.14, 0.14), (-0.14, -0.14), (0.14, -0.14), (-0.14, 0.14)])
    shift = found - to_raw(_apply(H, world))  # carry the sub-pixel correction along
    pts = [to_raw(_apply(H, world + o)) + shift for o in offsets]
    pix = np.vstack(pts).astype(np.float32)
    vals = cv2.remap(gray, pix[:, 0].reshape(1, -1), pix[:, 1].reshape(1, -1),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return checker_corners(vals.astype(np.float32).reshape(4, -1))


def checker_corners(quads: np.ndarray) -> np.ndarray:
    """Given grey levels (4, N) sampled diagonally around N points (a and b on one
    diagonal, c and d on the other): True where the diagonals are each alike and unlike
    each other, as where four squares of a checker meet."""
    a, b, c, d = quads
    across = np.abs((a + b) - (c + d)) / 2
    within = np.maximum(np.abs(a - b), np.abs(c - d))
    return across > 2 * within + 4


def refine_with_corners(gray: np.ndarray, H: np.ndarray, n: int,
                        intrinsics: Intrinsics | None, rounds: int = 3):
    """Sub-pixel inner corners and a RANSAC homography through them.

    Returns (H world -> ideal pixels, corners that agree, Lens or None). With intrinsics
    the corners are undistorted by them; without, a one-term Lens is fitted."""
    world = np.array([(i - n / 2, j - n / 2) for j in range(1, n) for i in range(1, n)],
                     np.float64)
    h, w = gray.shape
    lens = None if intrinsics is not None else Lens((w - 1) / 2, (h - 1) / 2, w / 2)

    def to_raw(p):
        if lens is not None:
            return lens.distort(p)
        return intrinsics.distort_pixels(p) if intrinsics.distorted else p

    def to_ideal(p):
        if lens is not None:
            return lens.undistort(p)
        return intrinsics.undistort_pixels(p) if intrinsics.distorted else p

    inliers = 0
    for round_ in range(rounds):
        ideal_guess = _apply(H, world)
        guess = to_raw(ideal_guess)
        step = np.linalg.norm(_apply(H, world + [1, 0]) - ideal_guess, axis=1)
        win = int(np.clip(0.2 * np.median(step), 2, 12))
        inside = ((guess[:, 0] > win + 1) & (guess[:, 0] < w - win - 2)
                  & (guess[:, 1] > win + 1) & (guess[:, 1] < h - win - 2))
        if inside.sum() < 8:
            break
        pts = guess[inside].astype(np.float32).reshape(-1, 1, 2).copy()
        criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.03)
        cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), criteria)
        raw = pts.reshape(-1, 2).astype(np.float64)
        keep = np.linalg.norm(raw - guess[inside], axis=1) < 0.25 * step[inside]
        keep &= _is_checker_corner(gray, H, to_raw, world[inside], raw)
        if keep.sum() < 8:
            break
        src, raw = world[inside][keep], raw[keep]
        H2, mask = cv2.findHomography(src, to_ideal(raw), cv2.RANSAC,
                                      max(1.0, 0.06 * np.median(step)))
        if H2 is None or mask.sum() < 8:
            break
        H, inliers = H2 / H2[2, 2], int(mask.sum())
        good = mask.ravel().astype(bool)
        if lens is not None and round_ == 0 and good.sum() >= 12:
            lens = _fit_lens(lens, src[good], raw[good])
            H2, _ = cv2.findHomography(src[good], lens.undistort(raw[good]), 0)
            if H2 is not None:
                H = H2 / H2[2, 2]
    return H, inliers, lens


def _line_spread(image: np.ndarray, H: np.ndarray, to_raw, n: int, side: str,
                 depth: float) -> float:
    """Colour spread along a line parallel to one side of the grid, `depth` squares
    inside it (negative: outside), over the middle of the side."""
    t = np.linspace(-0.4 * n, 0.4 * n, 16 * n)
    edge = n / 2 - depth
    pts = {"top": (t, np.full_like(t, edge)), "bottom": (t, np.full_like(t, -edge)),
           "right": (np.full_like(t, edge), t), "left": (np.full_like(t, -edge), t)}[side]
    pix = to_raw(_apply(H, np.column_stack(pts))).astype(np.float32)
    vals = cv2.remap(image, pix[:, 0].reshape(1, -1), pix[:, 1].reshape(1, -1),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return float(vals.reshape(-1, vals.shape[-1] if vals.ndim == 3 else 1)
                 .astype(np.float32).std(axis=0).sum())


SHIFTS = {"top": (0, 1), "bottom": (0, -1), "right": (1, 0), "left": (-1, 0)}
OPPOSITE = {"top": "bottom", "bottom": "top", "right": "left", "left": "right"}


def grid_shift(image: np.ndarray, H: np.ndarray, to_raw, n: int) -> tuple[int, int]:
    """Which way (in squares) the fitted grid must move to sit on the playing area: along
    a row of squares the colour changes, along the frame beyond the last row it does not.
    If one side's outside looks like squares and the opposite side's like frame, the
    grid is a square short on that side. (0, 0) when it already sits right."""
    inner = np.median([_line_spread(image, H, to_raw, n, side, d)
                       for side in ("top", "left") for d in (2.5, 3.5)])
    outside = {side: _line_spread(image, H, to_raw, n, side, -0.55) for side in SHIFTS}
    frame = min(outside.values())  # some side, at least, is frame: its noise and grain

    def board_like(spread: float) -> bool:
        return spread > 0.1 * inner and spread > 4 * frame + 3

    dx = dy = 0
    for side, (sx, sy) in SHIFTS.items():
        if board_like(outside[side]) and not board_like(outside[OPPOSITE[side]]):
            dx, dy = dx + sx, dy + sy
    return int(np.sign(dx)), int(np.sign(dy))


def dark_parity_is_odd(image: np.ndarray, H: np.ndarray, n: int) -> bool:
    """True when the cells with (row + col) odd in H's labelling are the dark ones."""
    g = grey(image).astype(np.float32)
    offsets = np.array([(dx, dy) for dx in np.linspace(-0.38, 0.38, 5)
                        for dy in np.linspace(-0.38, 0.38, 5)])
    cells = [(r, c) for r in range(n) for c in range(n)]
    centres = np.array([(c - n / 2 + 0.5, n / 2 - r - 0.5) for r, c in cells])
    pts = (centres[:, None, :] + offsets[None]).reshape(-1, 2)
    pix = _apply(H, pts).astype(np.float32)
    vals = cv2.remap(g, pix[:, 0].reshape(1, -1), pix[:, 1].reshape(1, -1),
                     cv2.INTER_LINEAR).reshape(len(cells), -1)
    mean, spread = vals.mean(axis=1), vals.std(axis=1)
    odd = np.array([(r + c) % 2 == 1 for r, c in cells])
    level = {}
    for parity in (True, False):
        m, s = mean[odd == parity], spread[odd == parity]
        calm = np.argsort(s)[: max(3, len(s) // 7)]  # the most uniform: empty squares
        level[parity] = float(np.median(m[calm]))
    return level[True] < level[False]


# --- the whole locate ------------------------------------------------------------------

def _raw_mapper(intrinsics: Intrinsics | None, lens: Lens | None):
    if lens is not None:
        return lens.distort
    if intrinsics is not None and intrinsics.distorted:
        return intrinsics.distort_pixels
    return lambda p: p


def _camera_from(H: np.ndarray, shape, intrinsics: Intrinsics | None,
                 lens: Lens | None) -> Camera:
    h, w = shape[:2]
    if intrinsics is not None:
        return Camera.from_plane_homography(intrinsics, H)
    guess = Intrinsics.guess(w, h)
    f = focal_from_homography(H / np.linalg.norm(H[:2, :2]), w, h)
    cam = Camera.from_plane_homography(guess, H)
    if f is None or cam.tilt_deg() < 12:
        f = guess.fx
    k1 = lens.k * (f / lens.half_width) ** 2 if lens is not None else 0.0
    intr = Intrinsics(w, h, f, f, guess.cx, guess.cy, (k1, 0.0, 0.0, 0.0, 0.0))
    return Camera.from_plane_homography(intr, H)


def locate(image: np.ndarray, size: int, intrinsics: Intrinsics | None = None,
           use_markers: bool = True) -> Location:
    """Find the board of `size` x `size` squares in a BGR frame."""
    if image is None or image.ndim < 2 or min(image.shape[:2]) < 32:
        raise BoardNotFound("the image is empty or too small")
    gray = grey(image)
    if intrinsics is not None and (intrinsics.width, intrinsics.height) != gray.shape[::-1]:
        intrinsics = intrinsics.scaled_to(gray.shape[1], gray.shape[0])
    seen = marker_centres(gray) if use_markers else {}
    tries: list[np.ndarray] = []
    outline = marker_outline(seen)
    if outline is not None and len(seen) == 4:
        tries.append(outline)
    tries += outline_candidates(gray)
    if outline is not None and len(seen) == 3:  # a rough guess: the last resort
        tries.append(outline)
    if not tries:
        raise BoardNotFound("no board outline in the image (no markers, no large "
                            "four-sided shape): is the whole board in view?")
    need = max(10, (size - 1) ** 2 // 6)
    best = None
    for outline in tries:
        try:
            H0 = grid_in_outline(image, outline, size)
        except BoardNotFound:
            continue
        if intrinsics is not None and intrinsics.distorted:
            # the outline was found in raw pixels; the refinement works in ideal ones
            world = np.array([[-size / 2, size / 2], [size / 2, size / 2],
                              [size / 2, -size / 2], [-size / 2, -size / 2]])
            ideal = intrinsics.undistort_pixels(_apply(H0, world))
            H0 = cv2.getPerspectiveTransform(world.astype(np.float32), ideal.astype(np.float32))
        H, used, lens = refine_with_corners(gray, H0, size, intrinsics)
        for _ in range(2):  # the lattice repeats: make sure it is not a square off
            to_raw = _raw_mapper(intrinsics, lens)
            dx, dy = grid_shift(image, H, to_raw, size)
            if (dx, dy) == (0, 0):
                break
            moved = H @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1.0]])
            H, used, lens = refine_with_corners(gray, moved, size, intrinsics)
        if best is None or used > best[1]:
            best = (H, used, lens)
        if used >= 2 * need:  # clearly the board; else another outline may do better
            break
    if best is None or best[1] < need:
        matched = 0 if best is None else best[1]
        raise BoardNotFound(f"no {size}x{size} grid of squares found ({matched} square "
                            f"corners matched, {need} needed): is the whole board in view, "
                            "its edge uncovered, the light and focus good?")
    H, used, lens = best
    pose = BoardPose(size, _camera_from(H, image.shape, intrinsics, lens), "grid")
    if not _dark_parity_ok(image, pose):
        pose = pose.turned(1)
    oriented = False
    if len(seen) >= 2:
        pose, oriented = orient_by_markers(pose, seen)
        if oriented:
            pose = BoardPose(size, pose.camera, "markers")
    return Location(pose, oriented, used)


def orient_by_markers(pose: BoardPose, seen: dict[int, np.ndarray]):
    """Of the two ways round the dark squares allow, the one that puts each marker seen
    nearest its own corner; (pose, True) when the markers agree on it."""
    n = pose.size
    votes = []
    for quarters in (0, 2):
        cand = pose.turned(quarters)
        corners = {i: cand.project(np.array([[dx * n / 2, dy * n / 2, 0.0]]))[0]
                   for i, (dx, dy) in marker_defs.CORNER_DIRECTIONS.items()}
        agree = sum(min(corners, key=lambda i: np.linalg.norm(corners[i] - c)) == mid
                    for mid, c in seen.items())
        votes.append(agree)
    if votes[0] == votes[1]:
        return pose, False
    return (pose if votes[0] > votes[1] else pose.turned(2)), True


def _dark_parity_ok(image: np.ndarray, pose: BoardPose) -> bool:
    H = pose.camera.plane_homography(0.0)
    if pose.camera.intrinsics.distorted:
        # sample through the lens: build a raw-pixel homography from the corners
        n = pose.size
        world = np.array([[-n / 2, n / 2, 0], [n / 2, n / 2, 0], [n / 2, -n / 2, 0],
                          [-n / 2, -n / 2, 0]])
        raw = pose.project(world)
        H = cv2.getPerspectiveTransform(world[:, :2].astype(np.float32), raw.astype(np.float32))
    return dark_parity_is_odd(image, H, pose.size)
