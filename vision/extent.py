"""Where the playing area lies on a lattice of squares.

The corners give the squares' geometry but not where the board ends: a piece or a hand
hides corners at the edge, and tape, printed margins or a bigger board carry the pattern
on past the playing area. So the extent is read from the squares themselves. One parity
of squares is plain (nobody plays on it), and its colour is the board's own; a line of
squares on the board alternates that colour with something else, while a line on the
frame, the tape or the table shows the same stuff on both parities. The n x n window with
the most board-like lines is the board.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .corners import Lattice, _apply
from .errors import BoardNotFound, BoardOfAnotherSize

REACH = 3  # cells looked at beyond the corners found, on each side
GRID = np.linspace(-0.3, 0.3, 4)
OFFSETS = np.array([(dx, dy) for dx in GRID for dy in GRID])


@dataclass(frozen=True)
class Extent:
    a0: int  # lattice coordinate of the playing area's first line of corners (its edge)
    b0: int
    line_scores: tuple[np.ndarray, np.ndarray]  # per line of cells along each axis


def _nanmedian(values: np.ndarray, axis: int) -> np.ndarray:
    """np.nanmedian along one axis, by sorting (NaN sorts last): numpy's own takes about
    a millisecond a call on arrays this small, through masked arrays."""
    values = np.moveaxis(values, axis, -1)
    ordered = np.sort(values, axis=-1)
    count = np.isfinite(values).sum(axis=-1, keepdims=True)
    lo = np.take_along_axis(ordered, np.maximum(count - 1, 0) // 2, axis=-1)
    hi = np.take_along_axis(ordered, count // 2, axis=-1)
    # no finite value: both are NaN, and so is the median
    return ((lo + hi) / 2)[..., 0]


def cell_colours(image_bgr: np.ndarray, H: np.ndarray, a_range: np.ndarray,
                 b_range: np.ndarray) -> np.ndarray:
    """(len(b_range), len(a_range), 3) median Lab of each cell's middle (NaN off the
    image)."""
    A, B = np.meshgrid(a_range + 0.5, b_range + 0.5)
    centres = np.column_stack([A.ravel(), B.ravel()])
    pts = (centres[:, None, :] + OFFSETS[None]).reshape(-1, 2)
    pix = _apply(H, pts)
    h, w = image_bgr.shape[:2]
    off = ~((pix[:, 0] >= 0) & (pix[:, 0] <= w - 1) & (pix[:, 1] >= 0) & (pix[:, 1] <= h - 1))
    pix = np.nan_to_num(pix, nan=-1.0).astype(np.float32)
    bgr = cv2.remap(image_bgr, pix[:, 0].reshape(1, -1), pix[:, 1].reshape(1, -1),
                    cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    vals: np.ndarray = cv2.cvtColor(bgr, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    vals[off] = np.nan
    vals = vals.reshape(len(centres), len(OFFSETS), 3)
    # a cell off the image altogether stays NaN (without numpy's all-NaN warning)
    means = np.full((len(centres), 3), np.nan, np.float32)
    seen = np.isfinite(vals[:, :, 0]).any(axis=1)
    means[seen] = _nanmedian(vals[seen], axis=1)
    return means.reshape(len(b_range), len(a_range), 3)


def _line_scores(likeness: np.ndarray, plain: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per line (row of the arrays): how much the other parity differs from the plain
    colour beyond how much the plain parity does (~1 on the board, ~0 off it), and how
    much the plain parity itself does (~0 on the board)."""
    lp = np.where(plain, likeness, np.nan)
    lq = np.where(plain, np.nan, likeness)
    # a line with under two cells of either parity in view is off the image
    seen = (np.isfinite(lp).sum(axis=1) >= 2) & (np.isfinite(lq).sum(axis=1) >= 2)
    scores = np.full(likeness.shape[0], -1.0)
    plain_off = np.ones(likeness.shape[0])
    if seen.any():
        mp, mq = _nanmedian(lp[seen], axis=1), _nanmedian(lq[seen], axis=1)
        scores[seen] = mq - mp
        plain_off[seen] = mp
    return scores, plain_off


def _window(cells: np.ndarray, support: np.ndarray, n: int) -> int:
    """The first cell line of the playing area along one axis. Its n - 1 inner corner
    lines should hold the corners found (a stray corner on tape or a marker adds a
    line with one or two), and its n cell lines should look like the board.

    cells: per cell line, starting REACH lines before corner line 0; support: corners
    found per corner line 0..span."""
    span = len(support) - 1
    best, start = -np.inf, 0
    # the window's inner corner lines are c0 .. c0 + n - 2, its cells c0 - 1 .. c0 + n - 2
    for c0 in range(min(0, span - (n - 2)), max(0, span - (n - 2)) + 1):
        lines = np.arange(c0, c0 + n - 1)
        inside = lines[(lines >= 0) & (lines <= span)]
        first_cell = c0 - 1 + REACH
        if first_cell < 0 or first_cell + n > len(cells):
            continue
        total = float(support[inside].sum()) + 2.0 * float(cells[first_cell:first_cell + n].sum())
        if total > best + 1e-9:
            best, start = total, c0 - 1
    if best == -np.inf:
        # the lines found and those looked at beyond them are fewer than the board's
        raise BoardNotFound(f"only {span + 1} lines of square corners found, too few to "
                            f"tell where a {n}x{n} board lies: is the whole board in view?")
    return start


def find_extent(image_bgr: np.ndarray, lattice: Lattice, n: int) -> Extent:
    """The n x n playing area on the lattice (coordinates as the lattice's corners)."""
    span = lattice.ij.max(axis=0)  # corners found run 0..span along each axis
    a_range = np.arange(-REACH, span[0] + REACH)
    b_range = np.arange(-REACH, span[1] + REACH)
    cells = cell_colours(image_bgr, lattice.H, a_range, b_range)
    A, B = np.meshgrid(a_range, b_range)
    parity = (A + B) % 2
    # the core: cells with found corners all round; their plain parity is the more even
    core = ((A >= 0) & (A < span[0]) & (B >= 0) & (B < span[1])
            & np.isfinite(cells).all(axis=2))
    if core.sum() < 4:
        raise BoardNotFound("too few squares of the board are visible")
    spreads = []
    for p in (0, 1):
        c = cells[core & (parity == p)]
        spreads.append(float(np.median(np.linalg.norm(c - np.median(c, axis=0), axis=1)))
                       if len(c) else np.inf)
    plain_parity = int(np.argmin(spreads))
    m_plain = np.median(cells[core & (parity == plain_parity)], axis=0)
    m_other = np.median(cells[core & (parity != plain_parity)], axis=0)
    contrast = float(np.linalg.norm(m_other - m_plain))
    if contrast < 8:
        raise BoardNotFound("the squares found do not alternate light and dark")
    likeness = np.linalg.norm(cells - m_plain, axis=2) / contrast
    plain = parity == plain_parity
    rows, rows_plain = _line_scores(likeness, plain)  # lines of constant b
    cols, cols_plain = _line_scores(likeness.T, plain.T)  # lines of constant a
    support_a = np.bincount(lattice.ij[:, 0], minlength=span[0] + 1)
    support_b = np.bincount(lattice.ij[:, 1], minlength=span[1] + 1)
    a0 = _window(cols, support_a, n)
    b0 = _window(rows, support_b, n)
    cols_like, rows_like = _board_like(cols, support_a), _board_like(rows, support_b)
    # a row of light men on the dark squares looks like a plain line off the board;
    # where the other axis shows exactly n lines of board, that row is still board
    _check_size(cols_like, a0, support_a, n,
                cols_plain if _exactly(rows, rows_like, b0, n) else None)
    _check_size(rows_like, b0, support_b, n,
                rows_plain if _exactly(cols, cols_like, a0, n) else None)
    return Extent(a0, b0, (cols, rows))


def _board_like(scores: np.ndarray, support: np.ndarray) -> np.ndarray:
    """Per cell line: does it look like the board, against the lines holding corners."""
    core = np.median(scores[REACH: REACH + len(support) - 1])
    return scores >= 0.35 * core


def _exactly(scores: np.ndarray, like: np.ndarray, first: int, n: int) -> bool:
    """True when the window's n lines all look like the board and the lines either side
    of it, in view, do not: the board's size shown along this axis."""
    inside = like[first + REACH: first + REACH + n]
    before, after = first + REACH - 1, first + REACH + n
    ends = [k for k in (before, after) if 0 <= k < len(scores) and scores[k] > -1]
    return bool(len(inside) == n and inside.all() and len(ends) == 2
                and not any(like[k] for k in ends))


def _check_size(like: np.ndarray, first: int, support: np.ndarray, n: int,
                plain_off: np.ndarray | None = None) -> None:
    """A board of another size than asked for (a wrong --variant) shows as lines of
    the window with no corner found and squares unlike the board's (too small a board),
    or as many corner lines beyond the window (too big a board). With `plain_off`, a
    line whose plain squares are the board's plain colour is not counted as off."""
    few = max(2.0, 0.25 * float(np.median(support)))  # a stray corner or two
    off = 0
    for k in range(n):  # cell line first + k, between corner lines first + k and + k + 1
        lines = [first + k + d for d in (0, 1) if 1 <= k + d <= n - 1]
        bare = all(not (0 <= c < len(support)) or support[c] <= few for c in lines)
        line = first + k + REACH
        plain_there = plain_off is not None and plain_off[line] < 0.35
        off += bare and not like[line] and not plain_there
    span = len(support)  # corner lines found
    if off >= 2:
        size = n - off
        raise BoardOfAnotherSize(f"the squares in view make a board of about {size}x{size}, "
                            f"not {n}x{n}: check --variant")
    if span - (n - 1) >= 2:
        strong = support >= max(2, 0.5 * np.median(support))
        if strong.sum() - (n - 1) >= 2:
            size = int(strong.sum()) + 1
            raise BoardOfAnotherSize(f"the squares in view make a board of about {size}x{size}, "
                                f"not {n}x{n}: check --variant")
