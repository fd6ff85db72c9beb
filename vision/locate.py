"""The board locator: from a frame to a BoardPose whose dark squares are the dark ones.

1. X-corners (where four squares meet) are found at several scales (`corners`), in
   grey, and where grey gives no board in the frame's chroma (`chroma_channels`: two
   square colours of one grey level, a printed red/green board).
2. The largest set of them on one lattice of squares is grown from the strongest
   (`corners.fit_lattice`); their quadrants must alternate as a checker's do.
3. Where the playing area lies on that lattice is read from the squares (`extent`): the
   corners found may stop short of the edge (pieces, a hand) or run past it (tape,
   marker bits).
4. Every inner corner of the playing area is refined to sub-pixel at full resolution and
   a camera (pose, and without calibration the lens too) is fitted to them (`fit`).
5. Square corners along the playing area's own edge on two sides or more: a bigger
   board than asked for (`_check_edges`).
6. Which parity is dark: the darker of the two parities' most even cells; where grey
   cannot tell them apart, the one the pieces stand on.
Markers (`markers`) are looked for only when the squares alone do not give the board,
and to tell White's side when their ids say it.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import cv2
import numpy as np

from damas.calibration.camera import Intrinsics

from . import markers as marker_defs
from .board import BoardPose
from .corners import Lattice, _apply, find_corners, fit_lattice
from .errors import BoardNotFound, BoardOfAnotherSize
from .extent import find_extent
from .fit import checker_corners, fit_camera, refine_nodes

WORK_SIDE = 800  # longest image side the corner search runs at

__all__ = ["Location", "locate", "track", "checker_corners", "grey"]


@dataclass(frozen=True)
class Location:
    pose: BoardPose
    oriented: bool  # True when markers fixed where White sits
    corners_used: int  # inner corners that agree with the fitted camera


def grey(image: np.ndarray) -> np.ndarray:
    return image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)


def _work_image(gray: np.ndarray) -> tuple[np.ndarray, float]:
    h, w = gray.shape[:2]
    s = min(1.0, WORK_SIDE / max(h, w))
    if s == 1.0:
        return gray, 1.0
    return cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_AREA), s


def _lattice_to_world(lattice_H: np.ndarray, a0: int, b0: int, n: int):
    """Affine map lattice (a, b) -> world (x, y) in squares, chosen so that the board is
    seen from above (a proper rotation, not a mirror image)."""
    # world x = a - a0 - n/2, y = n/2 - (b - b0); seen from above, image axes (x right,
    # y down) against world (x right, y away) flip orientation once
    centre = np.array([[a0 + n / 2, b0 + n / 2]])
    p0 = _apply(lattice_H, centre)[0]
    pa = _apply(lattice_H, centre + [1.0, 0.0])[0] - p0
    pb = _apply(lattice_H, centre + [0.0, 1.0])[0] - p0
    mirrored = (pa[0] * pb[1] - pa[1] * pb[0]) < 0
    if not mirrored:  # a right, b down in the image: y = -b is towards Black
        return np.array([[1, 0, -(a0 + n / 2)], [0, -1, b0 + n / 2], [0, 0, 1.0]])
    # swap the axes to look at the board from above
    return np.array([[0, 1, -(b0 + n / 2)], [-1, 0, a0 + n / 2], [0, 0, 1.0]])


def _inner_nodes(n: int) -> np.ndarray:
    """World (x, y) of the (n-1)^2 inner corners."""
    return np.array([(i - n / 2, j - n / 2) for j in range(1, n) for i in range(1, n)],
                    np.float64)


def _pose_from_nodes(image: np.ndarray, gray: np.ndarray,
                     world_to_pixels: np.ndarray | Callable[[np.ndarray], np.ndarray],
                     n: int, intrinsics: Intrinsics | None, method: str):
    """Refine every inner corner near where `world_to_pixels` puts it, then fit the
    camera; (pose, corners used)."""
    world = _inner_nodes(n)
    need = max(8, (n - 1) ** 2 // 6)
    project = (lambda xy: _apply(world_to_pixels, xy)) if isinstance(
        world_to_pixels, np.ndarray) else world_to_pixels
    for _ in range(2):  # the second round predicts through the fitted lens
        pts, found = refine_nodes(gray, project, world)
        if found.sum() < need:
            raise BoardNotFound(f"no {n}x{n} grid of squares found ({int(found.sum())} "
                                f"square corners matched, {need} needed): is the whole "
                                "board in view, the light and focus good?")
        camera, res = fit_camera(world[found], pts[found], image.shape, intrinsics, n / 2)

        def project(xy, cam=camera):
            return cam.project(np.column_stack([xy, np.zeros(len(xy))]))
    used = int((res < max(1.5, 3 * np.median(res))).sum())
    return BoardPose(n, camera, method), used


def dark_parity_is_odd(image: np.ndarray, pose: BoardPose) -> bool:
    """True when the cells with (row + col) odd in the pose's labelling are the dark
    ones: among each parity's most even cells (empty squares), the darker. Where the two
    levels differ by no more than one parity's own squares do among themselves (two
    square colours of one grey), grey cannot tell: the playing squares are then the
    parity the pieces stand on, the one whose cells are less even."""
    n = pose.size
    g = grey(image).astype(np.float32)
    offsets = np.array([(dx, dy) for dx in np.linspace(-0.38, 0.38, 5)
                        for dy in np.linspace(-0.38, 0.38, 5)])
    cells = [(r, c) for r in range(n) for c in range(n)]
    centres = np.array([(c - n / 2 + 0.5, n / 2 - r - 0.5) for r, c in cells])
    pts = (centres[:, None, :] + offsets[None]).reshape(-1, 2)
    pix = pose.project(np.column_stack([pts, np.zeros(len(pts))])).astype(np.float32)
    vals = cv2.remap(g, pix[:, 0].reshape(1, -1), pix[:, 1].reshape(1, -1),
                     cv2.INTER_LINEAR).reshape(len(cells), -1)
    mean, spread = vals.mean(axis=1), vals.std(axis=1)
    odd = np.array([(r + c) % 2 == 1 for r, c in cells])
    level, scatter, busy = {}, [], {}
    for parity in (True, False):
        m, s = mean[odd == parity], spread[odd == parity]
        calm = np.argsort(s)[: max(3, len(s) // 7)]
        level[parity] = float(np.median(m[calm]))
        scatter.append(float(np.median(np.abs(m[calm] - level[parity]))))
        busy[parity] = float(np.mean(s))
    if abs(level[True] - level[False]) <= 1.4826 * 3 * max(scatter) and busy[True] != busy[False]:
        # three standard deviations (1.4826 median deviations each) of the squares of one
        # parity: no difference grey shows
        return busy[True] > busy[False]
    return level[True] < level[False]


def _finish(gray, pose: BoardPose, used: int, seen: dict | None) -> Location:
    if not dark_parity_is_odd(gray, pose):
        pose = pose.turned(1)
    oriented = False
    if seen:
        pose, oriented = orient_by_markers(pose, seen)
        if oriented:
            pose = BoardPose(pose.size, pose.camera, "markers")
    return Location(pose, oriented, used)


def chroma_channels(image: np.ndarray) -> Iterator[np.ndarray]:
    """Two grey-like images of a colour frame's hue alone, for squares whose two colours
    have the same grey level (a printed red/green board): the frame's (a*, b*) chroma
    projected on its main direction of change and on the one across it, each stretched
    to the full 0..255 (the checker tests compare contrasts, not levels). Where the
    board fills much of the frame its two colours are most of that change."""
    lab = cv2.cvtColor(image, cv2.COLOR_BGR2LAB)
    step = max(1, int(np.sqrt(lab.shape[0] * lab.shape[1] / 20000)))
    sample = lab[::step, ::step, 1:].reshape(-1, 2).astype(np.float32)  # ~20000 pixels
    _, vectors = np.linalg.eigh(np.cov(sample.T))  # ascending: the main direction last
    for v in (vectors[:, 1], vectors[:, 0]):  # made when asked for: the second seldom is
        lo, hi = np.percentile(sample @ v, [0.5, 99.5])
        gain = 255 / max(float(hi - lo), 1e-3)
        # one pass: (L, a, b) -> gain * (v . (a, b) - lo), saturated to 0..255
        yield cv2.transform(lab, np.array([[0, gain * v[0], gain * v[1], -gain * lo]],
                                          np.float32))


def locate(image: np.ndarray, size: int, intrinsics: Intrinsics | None = None,
           use_markers: bool = True) -> Location:
    """Find the board of `size` x `size` squares in a BGR frame."""
    if image is None or image.ndim < 2 or min(image.shape[:2]) < 32:
        raise BoardNotFound("the image is empty or too small")
    gray = grey(image)
    if intrinsics is not None and (intrinsics.width, intrinsics.height) != gray.shape[::-1]:
        intrinsics = intrinsics.scaled_to(gray.shape[1], gray.shape[0])
    problem = "no checker of squares in view"
    other_size = False
    most = 0  # corners on the largest lattice found so far
    # the squares are looked for in grey first; where grey gives no board, in the
    # frame's chroma (two square colours of one grey level differ only there). That
    # costs nothing on a board grey finds, and a chroma channel is only tried further
    # when it sees more of the checker than grey did (what a board grey already said
    # is of another size must not be read again as one of the size asked)
    channels = itertools.chain([gray], chroma_channels(image) if image.ndim == 3 else [])
    for k, channel in enumerate(channels):
        small, s = _work_image(channel)
        corners = find_corners(small)
        if k and len(corners.points) <= most:
            continue  # no lattice through these can hold more (and growing one costs)
        lattice = fit_lattice(corners, int(0.8 * (size - 1) ** 2))
        count = 0 if lattice is None else len(lattice.points)
        if k and count <= most:
            continue
        most = max(most, count)
        if lattice is not None and count >= max(6, (size - 1) ** 2 // 8):
            try:
                return _from_lattice(image, channel, s, lattice, size, intrinsics,
                                     use_markers, gray)
            except BoardNotFound as e:
                problem = str(e)
                other_size = isinstance(e, BoardOfAnotherSize)
        elif lattice is not None:
            problem = (f"only {count} square corners found in a row: is the "
                       "whole board in view, the light and focus good?")
    if use_markers:
        found = marker_defs.find(gray)
        outline = marker_defs.outline(found)
        if outline is not None:
            found_in = _from_outline(image, gray, outline, size, intrinsics,
                                     marker_defs.ours(found))
            # where the squares said another size (pieces may hide corners, markers may
            # frame a board of any size) the markers' grid must explain most corners: the
            # right one finds nearly all on an empty board and three quarters on a start
            # position turned 45 degrees, one of the wrong size inside them under two thirds
            if not other_size or found_in.corners_used >= 0.7 * (size - 1) ** 2:
                return found_in
    error = BoardOfAnotherSize if other_size else BoardNotFound
    raise error(f"no {size}x{size} board found: {problem}")


def _from_lattice(image, channel, s, lattice: Lattice, n: int,
                  intrinsics: Intrinsics | None, use_markers: bool,
                  gray: np.ndarray) -> Location:
    """The board on a lattice found in `channel` (the grey image, or a chroma one): its
    corners are refined there; markers and which squares are dark come from `gray`."""
    scale = np.diag([1 / s, 1 / s, 1.0])
    extent = find_extent(image, Lattice(lattice.points / s, lattice.ij, scale @ lattice.H), n)
    L = _lattice_to_world(lattice.H, extent.a0, extent.b0, n)
    world_to_pixels = scale @ lattice.H @ np.linalg.inv(L)
    pose, used = _pose_from_nodes(image, channel, world_to_pixels, n, intrinsics, "grid")
    found = marker_defs.find(gray) if use_markers else []
    shift = _off_the_markers_centre(pose, found)
    if shift is not None:
        moved = world_to_pixels @ np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1.0]])
        pose, used = _pose_from_nodes(image, channel, moved, n, intrinsics, "grid")
    _check_edges(channel, pose)
    return _finish(gray, pose, used, marker_defs.ours(found))


def _off_the_markers_centre(pose: BoardPose,
                            found: list[marker_defs.Marker]) -> np.ndarray | None:
    """Four corner markers frame the board evenly, so their centre is the playing
    area's: the whole line (x, y squares) the area must move by to be centred on them,
    or None. A dark frame beside the dark squares can pass for one more line of them,
    and a column of light men on the far edge for a line off the board (a rendered board
    seen at 40 degrees); markers placed unevenly, or round something else, say nothing,
    and nor do three (the fourth, completed as a parallelogram, is squares off in a
    view at a slant)."""
    four = marker_defs.four_of_one_dictionary(found)
    if four is None:
        return None
    ideal = pose.camera.intrinsics.undistort_pixels(np.array([m.centre for m in four]))
    centre = _apply(np.linalg.inv(pose.camera.plane_homography()), ideal).mean(axis=0)
    shift = np.rint(centre)
    if np.abs(shift).max() != 1 or np.abs(centre - shift).max() > 0.3:
        return None
    return shift


def _check_edges(gray: np.ndarray, pose: BoardPose) -> None:
    """Square corners along the playing area's own edge mean the checker goes on past
    it. On two sides or more, the board is bigger than asked for (a 10x10 board far off
    at a slant may show too few corners for the extent to tell); one side may carry an
    extra row of the pattern (a printed margin)."""
    n = pose.size
    inner = np.arange(1, n) - n / 2
    edge = n / 2
    sides = [np.column_stack([inner, np.full(n - 1, y)]) for y in (-edge, edge)]
    sides += [np.column_stack([np.full(n - 1, x), inner]) for x in (-edge, edge)]
    # each side on its own: refine_nodes sizes its search window by the squares there
    crossed = sum(refine_nodes(gray, pose.project_flat, side)[1].sum() >= (n - 1) / 2
                  for side in sides)
    if crossed >= 2:
        raise BoardOfAnotherSize(f"the squares go on past the {n}x{n} area on {crossed} "
                                 "sides: the board is bigger, check --variant")



def _from_outline(image, gray, outline: np.ndarray, n: int,
                  intrinsics: Intrinsics | None, seen: dict) -> Location:
    """The board inside four markers: the playing area is found on a comb of lines in
    the warped view, then every corner refined as usual."""
    world = np.array([[-n / 2, n / 2], [n / 2, n / 2], [n / 2, -n / 2], [-n / 2, -n / 2]],
                     np.float64)
    H = cv2.getPerspectiveTransform(world.astype(np.float32), outline.astype(np.float32))
    pose, used = _pose_from_nodes(image, gray, H.astype(np.float64), n, intrinsics, "markers")
    return _finish(gray, pose, used, seen)


def track(image: np.ndarray, previous: BoardPose,
          intrinsics: Intrinsics | None = None) -> Location:
    """The board found again near where it was (a bumped board or camera, a hand over
    an edge): every corner refined from the previous pose's prediction."""
    gray = grey(image)
    pose, used = _pose_from_nodes(image, gray, previous.project_flat, previous.size,
                                  intrinsics or previous.camera.intrinsics, "tracked")
    return Location(pose, False, used)


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
                    for mid, c in seen.items() if mid in corners)
        votes.append(agree)
    if votes[0] == votes[1]:
        return pose, False
    return (pose if votes[0] > votes[1] else pose.turned(2)), True
