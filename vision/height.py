"""Kings by the height of their stack, for sets whose kings wear no crown.

Seen at a slant, a piece shows along each line of sight across its square (the square's
profile lines, `Sampler`), from near to far: the board, the piece's wall (from its
base's near edge, height x slant long), its top (a chord of the disc), then the board
again. A king of two men stacked has the same base and twice the wall, and its top lies
a man's height x slant further away. Each piece's lines are explained both ways, as a man
and as a king (the board where the board is, the wall and the top each of one colour, the
piece's place free within its jitter along and across the view, the band just before
its base scored against how the men of the set showed it: their contact shade and the
blur of their wall), and it is a king when the king's explanation
wins by twice what any man's did at calibration, and never by less than MARGIN. So a
white piece on a light square, whose far edge hardly shows there, is told by its far
edge over the dark squares beside, or by its wall, and a black one, whose wall and top
look alike, by its far edge over the light squares. Where a man's height x slant is
under MIN_RISE (a camera nearly overhead) nothing is told: the crown must.

The men's radius and height are fitted jointly on the men of a known position, as is the
noise; the points a neighbouring piece may hide are left out of the fit.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .sampler import LINES, MAN_HEIGHT, PROFILE

STEP = float(PROFILE[1] - PROFILE[0]) / 2  # the profile is resampled at half steps
FINE = np.arange(PROFILE[0], PROFILE[-1] + 1e-9, STEP)
# the least fitted height x slant a stack is judged at: the set's height is fitted low
# (0.87 of the truth at the median on rendered sets, 0.5 at worst), so a cut at the rise a
# stack shows (0.075, as the bench scores) left plainly visible stacks unjudged; MARGIN,
# not this cut, keeps men from being read as kings
MIN_RISE = 2.0 * float(PROFILE[1] - PROFILE[0])
SHADOW = 0.075  # the band before a piece's base: a contact shadow, the wall's blur
BAND = int(round(SHADOW / STEP))  # its fine points
# the band is scored against what it showed before the men of the calibration (each colour
# its own: a white wall blurs into it lighter, a black one darker), at this weight: a man
# set back and a low stack show the same far edge, and only the band tells them apart
BAND_WEIGHT = 0.5
JITTER = 0.08  # how far a base may lie from its square's centre along the view (squares)
SHIFTS = np.linspace(-JITTER, JITTER, 7)
SIDEWAYS = np.array([-0.05, 0.0, 0.05])  # and across it
# a piece set down well off its square's centre costs its explanation PLACE_COST noises at
# PLACED squares off (growing as the square): without it a man pushed back lets a low
# stack's far edge be explained as his, and kings read as men at shallow slants
PLACED = 0.04
PLACE_COST = 15.0
# calibration, done once, looks closer
FIT_SHIFTS = np.linspace(-JITTER, JITTER, 13)
FIT_SIDEWAYS = np.linspace(-0.06, 0.06, 5)
RADII = np.arange(0.34, 0.4801, STEP)
HEIGHTS = np.arange(0.08, 0.3601, STEP)
# the rise a man or a king may show, in men's heights x slant: the set's height is fitted
# only so well, and the upper man of a stack sits askew
MAN_RISES = np.array([0.85, 1.0, 1.15])
KING_RISES = np.array([1.75, 2.0, 2.25])
ACROSS = np.array(LINES)
# the least the king's explanation must win by (units of the noise): a man's wins by up to
# about 45 where calibration saw none (a bad frame, an odd neighbour, a pose followed after
# a bump), a stack seen from the side mostly by 80 and more (measured on rendered sets)
MARGIN = 60.0


def _resampled(values: np.ndarray) -> np.ndarray:
    """(..., len(PROFILE), C) -> (..., len(FINE), C), linearly."""
    pos = (FINE - PROFILE[0]) / (PROFILE[1] - PROFILE[0])
    lo = np.clip(np.floor(pos).astype(int), 0, len(PROFILE) - 2)
    frac = (pos - lo)[:, None]
    return values[..., lo, :] * (1 - frac) + values[..., lo + 1, :] * frac


class StackGeometry:
    """What the profile lines of one pose show of the bare board, worked out once per
    pose: at each fine point of each dark square's lines, whether it lies on a dark
    square and on the board, and which neighbouring squares' pieces may hide it (a piece
    covers its base and everything up to where a king's top would appear, at most a
    piece's radius off the line between them)."""

    def __init__(self, profile_xy: np.ndarray, dark_xy: np.ndarray, slant: np.ndarray,
                 size: int):
        xy = _resampled(profile_xy)  # (squares, lines, F, 2)
        cell = np.floor(xy + size / 2).astype(int)
        self.on_board = np.asarray(((cell >= 0) & (cell < size)).all(axis=-1))
        ref = np.floor(dark_xy[0] + size / 2).astype(int)
        self.dark = np.asarray((cell.sum(axis=-1) % 2) == (ref.sum() % 2))
        away = profile_xy[:, 2, -1] - profile_xy[:, 2, 0]
        away /= np.linalg.norm(away, axis=1, keepdims=True)
        along = away * (2.4 * MAN_HEIGHT * slant)[:, None]  # to a king's top, and a bit
        dist = np.linalg.norm(dark_xy[:, None] - dark_xy[None], axis=2)
        near = (dist > 1e-6) & (dist < 2.1)
        k = int(near.sum(axis=1).max())
        self.neighbours = np.argsort(~near, axis=1, kind="stable")[:, :k]  # (squares, k)
        valid = np.take_along_axis(near, self.neighbours, axis=1)
        start = dark_xy[self.neighbours]  # (squares, k, 2)
        step = along[self.neighbours]
        rel = xy[:, :, :, None, :] - start[:, None, None]  # (squares, lines, F, k, 2)
        t = np.clip((rel * step[:, None, None]).sum(axis=-1)
                    / np.maximum((step ** 2).sum(axis=-1), 1e-9)[:, None, None], 0, 1)
        gap = np.linalg.norm(rel - t[..., None] * step[:, None, None], axis=-1)
        self.covers = (gap < 0.5) & valid[:, None, None]  # (squares, lines, F, k)

    def board_along(self, pieces: np.ndarray, occupied: np.ndarray, dark_colour: np.ndarray):
        """For the squares `pieces` (indices), with the squares `occupied` (bool, every
        dark square) holding pieces: the colour the bare board shows at each fine point
        of their lines (pieces, lines, len(FINE), 3); `free`, 0 where another piece may
        stand in the way, else 1; and `free` but 0 off the board too, for the board's
        own part."""
        taken = occupied[self.neighbours[pieces]]  # (pieces, k)
        covered = (self.covers[pieces] & taken[:, None, None, :]).any(axis=-1)
        colour = np.where(self.dark[pieces][..., None], dark_colour, 0.0)
        free = (~covered).astype(float)
        return colour, free, free * self.on_board[pieces]


def _chord(radius: float, sideways: np.ndarray) -> np.ndarray:
    """Half the chord each profile line cuts from a base of `radius` set off each of
    `sideways` across the view: (sides, lines)."""
    return np.sqrt(np.maximum(radius ** 2 - (ACROSS[None, :] - sideways[:, None]) ** 2, 0.0))


def _fine_index(t: np.ndarray) -> np.ndarray:
    """The fine point at (or the end nearest to) `t` squares along the view."""
    return np.clip(np.rint((t - FINE[0]) / STEP).astype(int), 0, len(FINE))


def _costs(fine: np.ndarray, board: np.ndarray, free: np.ndarray, board_weight: np.ndarray,
           cap: float, near: np.ndarray, rise: np.ndarray, radius: float,
           sideways: np.ndarray, band: np.ndarray | None = None) -> np.ndarray:
    """Squared misfit of pieces' lines (pieces, lines, len(FINE), 3) for every base
    position `near` (the centre's offset along the view) and wall length `rise` (both
    (pieces, hypotheses)) and each offset across the view: on each line the board before
    and after, the wall and the top each of their own mean colour; points another piece
    may hide count for nothing. The band just before the base is left out, or with `band`
    ((pieces, BAND, 3), far to near) scored as the board plus `band`, at BAND_WEIGHT.
    (pieces, sideways, hypotheses)."""
    n, lines, P = free.shape
    fine = fine.astype(np.float32)
    free = free.astype(np.float32)
    misfit = fine - board.astype(np.float32)
    # running sums along the view of: the board's misfit, the weight, the squared
    # colour and the colour (3), gathered at once at each segment's ends
    sums = np.zeros((n, lines, P + 1, 6), np.float32)
    np.cumsum(np.minimum(np.einsum("...c,...c->...", misfit, misfit), cap) * board_weight,
              axis=2, out=sums[:, :, 1:, 0])
    np.cumsum(free, axis=2, out=sums[:, :, 1:, 1])
    np.cumsum(np.einsum("...c,...c->...", fine, fine) * free, axis=2, out=sums[:, :, 1:, 2])
    np.cumsum(fine * free[..., None], axis=2, out=sums[:, :, 1:, 3:])
    sums = sums.reshape(-1, 6)
    chord = _chord(radius, sideways)[None, :, :, None]
    near = near[:, None, None, :]
    rise = rise[:, None, None, :]
    row = ((np.arange(n)[:, None, None, None] * lines
            + np.arange(lines)[None, None, :, None]) * (P + 1))  # (n, 1, lines, 1)

    def at(t):  # the running sums where a segment starts or ends
        return np.take(sums, row + _fine_index(t), axis=0)

    a = at(near - chord)
    shade = at(near - chord - SHADOW)
    b = at(near - chord + rise)
    f = at(near + chord + rise)
    end = sums[row + P][..., 0]

    def spread(i, j):  # weighted sum of squares about the segment's mean
        s = j[..., 3:] - i[..., 3:]
        count = np.maximum(j[..., 1] - i[..., 1], 1e-6)
        return (j[..., 2] - i[..., 2]) - (s ** 2).sum(axis=-1) / count

    total = shade[..., 0] + spread(a, b) + spread(b, f) + (end - f[..., 0])
    if band is not None:
        total += BAND_WEIGHT * _band_costs(misfit, board_weight, cap, band,
                                           _fine_index(near - chord) - BAND)
    return total.sum(axis=2)


def _band_costs(misfit, board_weight, cap, band, start):
    """Each hypothesis' misfit over the BAND points from `start` (fine indices, (n, sides,
    lines, hypotheses), never under -BAND) against the board plus `band` ((n, BAND, 3),
    far to near); points before the profile's start cost nothing."""
    n, lines, P, _ = misfit.shape
    band = band.astype(np.float32)
    # |misfit - band|^2 expanded: a matrix product, not a (.., P, BAND, 3) difference
    squared = (np.einsum("...c,...c->...", misfit, misfit)[..., None]
               - 2 * np.matmul(misfit.reshape(n, lines * P, 3), band.transpose(0, 2, 1))
               .reshape(n, lines, P, BAND)
               + np.einsum("nkc,nkc->nk", band, band)[:, None, None])
    point = np.zeros((n, lines, P + 2 * BAND, BAND), np.float32)
    point[:, :, BAND:BAND + P] = np.minimum(squared, cap) * board_weight[..., None]
    # the band's cost for every place it may start, summed once along the diagonals
    diagonal = sum(point[:, :, k:k + P + BAND + 1, k] for k in range(BAND))
    row = (np.arange(n)[:, None, None, None] * lines
           + np.arange(lines)[None, None, :, None]) * (P + BAND + 1)
    return np.take(diagonal.reshape(-1), row + start + BAND)


@dataclass(frozen=True)
class StackModel:
    """A man's radius and height (squares), the profile's noise (squared colour misfit
    a point), by how much (in units of the noise) the king's explanation must win for a
    king (more than any man's did at calibration), and what the band before a man's
    base showed over the bare board (log colour, BAND points far to near), for black
    men and for white."""

    radius: float
    height: float
    noise: float
    margin: float
    shade: tuple = (((0.0,) * 3,) * BAND,) * 2  # none learnt: the bare board

    @classmethod
    def fit(cls, profiles: np.ndarray, slant: np.ndarray, board: np.ndarray,
            free: np.ndarray, weight: np.ndarray, white: np.ndarray) -> StackModel | None:
        """From the men of a known position: their profiles (men, lines, len(PROFILE),
        3), their squares' slant, the bare board along each (`board_along`) and their
        colours (True: white)."""
        if len(profiles) < 8:
            return None
        fine = _resampled(profiles)
        cap = 1.0  # until the noise is known: a colour difference of e (log units)
        # one size and height for the whole set, fitted jointly: a man whose wall and
        # top look alike and whose far edge meets a square of its own colour cannot say
        # its height, and then costs the same whatever it is
        rise = np.repeat(HEIGHTS, len(FIT_SHIFTS))[None, :] * slant[:, None]  # (men, H x S)
        near = np.broadcast_to(np.tile(FIT_SHIFTS, len(HEIGHTS)), rise.shape)
        costs = np.stack([_costs(fine, board, free, weight, cap, near, rise, r, FIT_SIDEWAYS)
                          .min(axis=1).reshape(len(fine), len(HEIGHTS), len(FIT_SHIFTS))
                          .min(axis=2) for r in RADII], axis=1)  # (men, radius, height)
        total = costs.sum(axis=0)
        misfits = costs.min(axis=(1, 2)) / (fine.shape[1] * len(FINE))
        r, h = np.unravel_index(int(np.argmin(total)), total.shape)
        steep = slant * MAN_HEIGHT >= MIN_RISE
        height = float(HEIGHTS[h]) if steep.sum() >= 4 else MAN_HEIGHT
        noise = max(float(np.median(misfits)), 1e-4)
        model = cls(float(RADII[r]), height, noise, MARGIN)
        model = replace(model, shade=model._shade(fine, slant, board, free, weight, white))
        better = model.king_evidence(profiles, slant, board, free, weight, white)
        tellable = np.isfinite(better)
        if not tellable.any():
            return model
        # twice the most any man's king explanation won by, and never under MARGIN
        return replace(model, margin=max(MARGIN, 2 * float(better[tellable].max())))

    def _shade(self, fine, slant, board, free, weight, white) -> tuple:
        """The band before the men's bases, each man placed as he is best explained:
        its mean misfit from the bare board, per colour ((BAND, 3) each, black first)."""
        costs = (self._misfits(fine, slant, board, free, weight, None, MAN_RISES)
                 + self._place_cost())
        side, _, shift = np.unravel_index(costs.reshape(len(fine), -1).argmin(axis=1),
                                          costs.shape[1:])
        edge = _fine_index(SHIFTS[shift, None] - _chord(self.radius, SIDEWAYS)[side])
        j = edge[..., None] - BAND + np.arange(BAND)  # (men, lines, BAND)
        seen = (j >= 0) & (j < len(FINE))
        j = np.clip(j, 0, len(FINE) - 1)
        gather = np.take_along_axis
        misfit = (gather(fine, j[..., None], axis=2) - gather(board, j[..., None], axis=2))
        w = gather(weight, j, axis=2) * seen
        out = []
        for colour in (False, True):
            mine = white == colour
            total = np.maximum(w[mine].sum(axis=(0, 1)), 1e-6)[:, None]
            mean = (misfit[mine] * w[mine][..., None]).sum(axis=(0, 1)) / total
            out.append(tuple(tuple(round(float(v), 5) for v in row) for row in mean))
        return tuple(out)

    def king_evidence(self, profiles: np.ndarray, slant: np.ndarray, board: np.ndarray,
                      free: np.ndarray, weight: np.ndarray, white: np.ndarray) -> np.ndarray:
        """Per piece, by how much it is better explained as a king than as a man (units
        of the noise); NaN where a man's height x slant is too small to tell."""
        out = np.full(len(profiles), np.nan)
        tell = self.height * slant >= MIN_RISE
        if not tell.any():
            return out
        fine = _resampled(profiles[tell])
        band = np.array(self.shade, np.float32)[white[tell].astype(int)]
        costs = self._costs(fine, slant[tell], board[tell], free[tell], weight[tell], band,
                            np.concatenate([MAN_RISES, KING_RISES]))
        man, king = costs[:, :len(MAN_RISES)].min(axis=1), costs[:, len(MAN_RISES):].min(axis=1)
        out[tell] = (man - king) / self.noise
        return out

    def _costs(self, fine, slant, board, free, weight, band, rises: np.ndarray) -> np.ndarray:
        """(pieces, rises): each piece's least misfit with each rise (in men's heights),
        over its place along and across the view, the further off its centre the dearer."""
        costs = self._misfits(fine, slant, board, free, weight, band, rises).min(axis=1)
        return (costs + self._place_cost()).min(axis=2)

    def _misfits(self, fine, slant, board, free, weight, band, rises: np.ndarray) -> np.ndarray:
        """(pieces, sideways, rises, shifts): each piece's misfit for every offset across
        the view, rise (in men's heights) and place along the view (SHIFTS)."""
        rise = np.repeat(rises, len(SHIFTS))[None, :] * (self.height * slant)[:, None]
        near = np.broadcast_to(np.tile(SHIFTS, len(rises)), rise.shape)
        costs = _costs(fine, board, free, weight, 16 * self.noise, near, rise, self.radius,
                       SIDEWAYS, band)
        return costs.reshape(len(fine), len(SIDEWAYS), len(rises), len(SHIFTS))

    def _place_cost(self) -> np.ndarray:
        """What each place along the view (SHIFTS) adds: real men stand near the centre."""
        return self.noise * PLACE_COST * (SHIFTS / PLACED) ** 2

    def kings(self, profiles: np.ndarray, slant: np.ndarray, board: np.ndarray,
              free: np.ndarray, weight: np.ndarray, white: np.ndarray) -> np.ndarray:
        """True: a king; False: a man, or too flat a view to tell."""
        better = self.king_evidence(profiles, slant, board, free, weight, white)
        return np.nan_to_num(better, nan=-np.inf) > self.margin

    FIELDS = ("radius", "height", "noise", "margin", "shade")

    def to_dict(self) -> dict:
        d: dict = {name: round(float(getattr(self, name)), 7) for name in self.FIELDS[:-1]}
        d["shade"] = [[list(row) for row in colour] for colour in self.shade]
        return d

    @classmethod
    def from_dict(cls, d: dict | None) -> StackModel | None:
        """None for none, for a calibration made before this model (its fields were
        others) or for a damaged one: such a set reads kings by their crowns until
        calibrated again."""
        if not d or not set(cls.FIELDS) <= set(d):
            return None
        try:
            shade = np.asarray(d["shade"], float)
            radius, height, noise, margin = (float(d[name]) for name in cls.FIELDS[:-1])
        except (TypeError, ValueError):
            return None
        if shade.shape != (2, BAND, 3) or not np.isfinite(shade).all():
            return None
        return cls(radius, height, noise, margin,
                   tuple(tuple(tuple(float(v) for v in row) for row in colour) for colour in shade))
