"""The reading of a board, and the reader of a set never seen: from a frame of a located
board to a Reading of every playing square (empty, white, black, a king of either, or
unknown) with a confidence, with nothing learned of the set beforehand. (A set learned
from a frame of a known position is read by `colour_read`.)

1. Every square's patch (`patches`) goes through the occupancy model (`occupancy`):
   empty, a man, a crowned piece, two men stacked, and how far the piece's top stands.
   The squares it is sure of then teach the photo's unsure ones (`learn_from_the_photo`).
2. The pieces' colours are the colour of their tops, split into two groups only if
   two groups explain them better than one (Bayesian information criterion), the
   lighter group being White.
3. A king is a crowned piece, or two men stacked (the model sees the seam and the two
   rims where the camera sees the pieces from the side enough); or a piece whose top's
   middle stands out from the top round it (a crown, a sticker) as no man's does.
4. A square nobody plays on that looks occupied has something over it (a hand, an arm):
   the playing squares near it are unknown. So is any square the model is unsure of:
   a `?` rather than a confident wrong reading.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field, replace

import numpy as np

from damas.rules import Occupancy, geometry
from damas.rules.fen import write_fen

from .board import BoardPose
from .occupancy import OccupancyModel
from .patches import SIDE, SPAN, BoardPatches, normalise, plain_colour

SURE = 0.8  # the least probability a reading is given for (else `?`)
# the most log odds a square's likeness within its photo adds to or takes from the
# model's: a few dozen sure squares along one line are no ground for more. Unbounded, a
# square the model was unsure of could leave the photo step 99.9 % sure; on the dev
# photos (models that never saw them) such squares were right 49 % of the time. Bounded
# so, a square under 90 % leaves it under 99.5 % (measured: docs/vision-notes.md)
PHOTO_EVIDENCE = 3.0
# a king's odds of a crown or a stack against its photo's men's (the dev photos' men
# stand out by up to e^2.7, the renderer's crowned kings by e^3 and more)
KING_LOG_ODDS = 3.0
KING_FLOOR = 0.3  # and never a king below this probability
KING_PEERS = 6  # pieces for their median to tell what the set's men look like
KING_PRIOR = 0.05  # else a man's probability of a crown or a stack
# how far a king's mark (its top's middle against the top round it, in units of that
# ring's own spread) must stand out: the renderer's men reach 1.7, the dev photos' men
# 3.2, and 4.9 read again darker, recompressed or further off (a glossy top's light
# middle); the renderer's crowned kings mostly 6 and more. Between, a square is unsure
MARK_KING = 5.5
MARK_UNSURE = 3.5
MARK_OVER_MEN = 3.0  # both times the median piece's: a set whose men all bear an emblem
# has no king by it


@dataclass(frozen=True)
class Reading:
    size: int
    squares: dict[int, str]  # square -> e w b W B ?
    confidence: dict[int, float]
    hand: bool = False  # something that is not board or piece covers part of the view
    board_found: bool = True
    white_at: str = ""  # image side White sits on, when known
    notes: tuple[str, ...] = field(default=())

    @property
    def unknown(self) -> list[int]:
        return [s for s, v in self.squares.items() if v == "?"]

    @property
    def complete(self) -> bool:
        return not self.unknown

    def pieces(self) -> dict[int, str]:
        return {s: v for s, v in self.squares.items() if v in "wbWB"}

    def occupancy(self) -> Occupancy:
        """The board value the rest of the pipeline takes, confidence kept."""
        n = len(self.squares)
        sure = {s: self.confidence.get(s, 0.0) for s in range(1, n + 1)}
        return Occupancy.of_pieces(n, self.squares, sure)

    def fen(self, turn: str = "W") -> str:
        """FEN of the pieces seen (unknown squares left out)."""
        return write_fen("WB".index(turn.upper()), self.pieces())

    def diagram(self) -> str:
        g = geometry(self.size)
        lines = []
        for row in range(self.size):
            cells = []
            for col in range(self.size):
                sq = g.square_at(row, col)
                if sq is None:
                    cells.append("  .")
                else:
                    v = self.squares[sq]
                    cells.append(f"{sq:>3}" if v == "e" else f"  {v}")
            lines.append("".join(cells))
        return "\n".join(lines)

    def to_json(self, turn: str = "W") -> str:
        return json.dumps({
            "fen": self.fen(turn),
            "squares": {str(s): v for s, v in sorted(self.squares.items())},
            "confidence": {str(s): round(c, 4) for s, c in sorted(self.confidence.items())},
            "board_found": self.board_found,
            "unknown": self.unknown,
            "hand": self.hand,
            "white_at": self.white_at,
            "notes": list(self.notes),
        })


@dataclass(frozen=True)
class Observation:
    """What the model saw on one frame, before any decision: per playing square, then per
    plain square."""

    probs: np.ndarray  # (playing, 4) empty / man / crowned / two men stacked
    shift: np.ndarray  # (playing,) the top's displacement, squares
    tops: np.ndarray  # (playing, 3) normalised colour of each top
    rims: np.ndarray  # (playing, 3) normalised colour round each top's rim
    marks: np.ndarray  # (playing,) how much each top's middle stands out (`top_marks`)
    plain_probs: np.ndarray  # (plain, 4)
    lean: np.ndarray  # (playing,) displacement of a point one square high
    motion: np.ndarray  # a coarse copy of the patches, for the settle detector
    features: np.ndarray | None = None  # (playing, F) the model's features


MAYBE_EMPTY = 0.95  # the model's P(empty) under which a square's top is looked at


class SquareReader:
    """Reads the squares of one pose. plain: the model looks at the plain squares too
    (something over the board), mirror: at every patch mirrored too (see `occupancy`);
    a calibrated reader, which learned the set, does without either."""

    def __init__(self, pose: BoardPose, model: OccupancyModel, plain: bool = True,
                 mirror: bool = True):
        self.pose = pose
        self.model = model
        self.mirror = mirror
        self._playing = np.zeros((0, SIDE, SIDE, 3), np.float32)  # the last look's patches
        self.patches = BoardPatches(pose, plain)
        n = pose.size
        self.playing = n * n // 2
        self.lean = self.patches.squares.lean[: self.playing]
        dark, light = self.patches.dark, self.patches.light
        dist = np.linalg.norm(dark[:, None] - light[None], axis=2)
        self.near_plain = dist < 1.6  # (playing, plain): plain squares within reach

    def observe(self, frame: np.ndarray) -> Observation:
        raw, dark_ref, light_ref = self.patches.corrected(frame)
        k = self.playing
        playing = normalise(raw[:k], dark_ref, light_ref)
        # a plain square is read as an empty square of its own colour would be
        plain = normalise(raw[k:], light_ref, dark_ref)
        probs, shift, features = self.model(np.concatenate([playing, plain]), self.mirror)
        self._playing = playing
        tops, rims = top_colours(playing, shift[:k])
        squares = self.patches.squares
        # only where a piece may stand: the search for a top is the costliest part here
        maybe = np.nonzero(probs[:k, 0] < MAYBE_EMPTY)[0]
        marks = np.zeros(k, np.float32)
        marks[maybe] = top_marks(playing[maybe], shift[maybe], self.lean[maybe],
                                 squares.on_board[maybe], squares.on_plain[maybe],
                                 plain_colour(dark_ref, light_ref))
        motion = raw.reshape(len(raw), 4, SIDE // 4, 4, SIDE // 4, 3).mean(axis=(2, 4))
        return Observation(probs[:k], shift[:k], tops, rims, marks,
                           probs[k:], self.lean, motion.reshape(-1), features[:k])

    def look_again(self, obs: Observation, squares: list[int]) -> Observation:
        """`obs` (this reader's last look, each patch once) with the playing squares at
        `squares` (0-based) seen mirrored too and the two looks averaged, as a reader
        that looks at every patch twice sees them: for the few squares a single look
        left in doubt."""
        if self.mirror or not squares or obs.features is None or not len(self._playing):
            return obs
        idx = np.asarray(squares)
        probs, shift, features = self.model(
            np.ascontiguousarray(self._playing[idx][:, :, ::-1]), mirror=False)
        p, s, f = obs.probs.copy(), obs.shift.copy(), obs.features.copy()
        p[idx], s[idx] = (p[idx] + probs) / 2, (s[idx] + shift) / 2
        both = f[idx] + features
        f[idx] = both / (np.linalg.norm(both, axis=1, keepdims=True) + 1e-9)
        return replace(obs, probs=p, shift=s, features=f)


_PX = SIDE / SPAN  # patch pixels a square
_DISC = np.array([(dy, dx) for dy in range(-2, 3) for dx in range(-2, 3)
                  if dy * dy + dx * dx <= 4.5])
_ALONG = np.linspace(0, 1, 5)


_RIM = np.linspace(0, 2 * np.pi, 16, endpoint=False)
_RIM_RADIUS = 0.27 * _PX  # inside a man's top, outside most crowns and stickers


def top_colours(patches: np.ndarray, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Median normalised colour of each piece, from its base up to its top (the top,
    and the wall of a tall piece seen from the side, are the piece's own colour); and
    round its top's rim, for a king (a crown or a sticker on the top's middle is not)."""
    centre = SIDE // 2
    up = np.clip(shift, 0, 0.8) * _PX
    rows = np.round(centre - up[:, None] * _ALONG[None]).astype(int)  # (N, along)
    r = np.clip(rows[:, :, None] + _DISC[None, None, :, 0], 0, SIDE - 1).reshape(len(rows), -1)
    c = np.clip(centre + _DISC[:, 1], 0, SIDE - 1)
    c = np.broadcast_to(np.tile(c, len(_ALONG)), r.shape)
    rim_r = np.clip(np.round((centre - up)[:, None] + _RIM_RADIUS * np.sin(_RIM)[None]),
                    0, SIDE - 1).astype(int)
    rim_c = np.broadcast_to(np.clip(np.round(centre + _RIM_RADIUS * np.cos(_RIM)),
                                    0, SIDE - 1).astype(int), rim_r.shape)
    each = np.arange(len(patches))[:, None]
    return (np.median(patches[each, r, c], axis=1).astype(np.float32),
            np.median(patches[each, rim_r, rim_c], axis=1).astype(np.float32))


def _offsets(inner: float, outer: float) -> tuple[np.ndarray, np.ndarray]:
    """(rows, cols) of the pixels between two radii (patch pixels) of a pixel corner."""
    o = np.arange(-SIDE // 2, SIDE // 2)
    rows, cols = np.meshgrid(o, o, indexing="ij")
    d = np.hypot(rows + 0.5, cols + 0.5)
    keep = (d >= inner) & (d <= outer)
    return rows[keep], cols[keep]


_MARK_MIDDLE = _offsets(0.0, 0.12 * _PX)  # a crown or a sticker's middle
_TOP_RING = _offsets(0.22 * _PX, 0.30 * _PX)  # round it, still on a man's top

# The model's displacement of a top is learnt on the renderer's men and falls short on
# tall real pieces (a crowned king's top 0.1-0.2 squares further off, measured on the dev
# photos), so the top is looked for near it: from TOP_BEFORE pixels before it to
# TOP_BEYOND beyond, never higher than the tallest piece shows (TALLEST squares high),
# and where the ring round its middle lies on the piece (ON_PIECE of the ring's points
# UNLIKE_BOARD from the bare board beneath them: else a ring on the board round a
# piece's edge makes any man "marked"), the place whose ring is most of one colour.
# Where the ring lies on the piece at no place (men much smaller than their square: the
# ring is on the board round them), the top shows no mark: nought.
TOP_BEFORE, TOP_BEYOND = 2, 5  # patch pixels: 0.1 and 0.25 squares
TALLEST = 0.7
ON_PIECE = 0.75
UNLIKE_BOARD = 0.25  # normalised colour, summed over its three parts


def top_marks(patches: np.ndarray, shift: np.ndarray, lean: np.ndarray,
              on_board: np.ndarray, on_plain: np.ndarray,
              plain_colour: np.ndarray) -> np.ndarray:
    """Per patch, how unlike the middle of its top is from the ring of top round it, in
    units of that ring's own spread (a plain top is one colour; a crown or a sticker is
    another in its middle). The model's crowned class is learnt from marks drawn on the
    renderer's men and calls few real ones; this contrast reads both. on_board and
    on_plain say, per patch pixel, where the bare board is and where it is of the plain
    squares' (normalised) colour, the playing squares' being zero."""
    n = len(patches)
    model_up = np.round(np.clip(shift, 0, 0.8) * _PX).astype(int)
    highest = np.maximum(model_up, np.floor(np.minimum(0.8, TALLEST * lean) * _PX))
    steps = np.arange(-TOP_BEFORE, TOP_BEYOND + 1)
    up = model_up[:, None] + steps[None]  # (n, places)
    within = (up >= 0) & (up <= highest[:, None])
    top_row = SIDE // 2 - np.clip(up, 0, SIDE // 2)
    each = np.arange(n)[:, None, None]

    def at(offsets):
        rows = np.clip(top_row[:, :, None] + offsets[0][None, None], 0, SIDE - 1)
        return rows, np.broadcast_to(SIDE // 2 + offsets[1], rows.shape)

    rows, cols = at(_TOP_RING)
    ring = patches[each, rows, cols]  # (n, places, points, 3)
    top = np.median(ring, axis=2)
    # the spread floored: a flat rendered top would make any small mark infinite
    spread = np.median(np.abs(ring - top[:, :, None]), axis=2).sum(axis=2) + 0.02
    bare = on_plain[each, rows, cols][..., None] * plain_colour
    board = on_board[each, rows, cols]
    unlike = (np.abs(ring - bare).sum(axis=3) > UNLIKE_BOARD) & board
    on_piece = unlike.sum(axis=2) >= ON_PIECE * board.sum(axis=2)
    usable = within & on_piece
    best = np.argmin(np.where(usable, spread, np.inf), axis=1)
    pick = np.arange(n), best
    rows, cols = at(_MARK_MIDDLE)
    middle = np.median(patches[np.arange(n)[:, None], rows[pick], cols[pick]], axis=1)
    marks = np.abs(middle - top[pick]).sum(axis=1) / spread[pick]
    return np.where(usable.any(axis=1), marks, 0.0)


# --- decisions ---------------------------------------------------------------------------

COLOUR_WEIGHTS = np.array([1.0, 1.5, 1.5])  # lightness varies with shading more than hue
# the least variance of a colour in a group: the tops are medians of a few pixels, so
# quantised, and a lower floor lets a split of one colour into two "explain" its steps
FLOOR_VAR = 0.05 ** 2


def _bic(x: np.ndarray, groups: list[np.ndarray]) -> float:
    """BIC of a mixture of diagonal Gaussians, one per group (lower is better)."""
    n, d = x.shape
    ll = 0.0
    for g in groups:
        var = np.maximum(g.var(axis=0), FLOOR_VAR) if len(g) > 1 else np.full(d, 1e-2)
        ll += -0.5 * float(((g - g.mean(axis=0)) ** 2 / var).sum()
                           + len(g) * (np.log(2 * np.pi * var).sum()))
        ll += len(g) * np.log(len(g) / n)
    params = len(groups) * 2 * d + len(groups) - 1
    return -2 * ll + params * np.log(n)


def split_colours(tops: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Without a calibration: (P(white) per top, certainty of the split). Two groups only
    when two explain the tops better than one; a lone group is White when lighter than
    the playing squares' colour halfway to the plain squares'."""
    if len(tops) == 0:
        return np.zeros(0), np.zeros(0)
    x = tops * COLOUR_WEIGHTS
    labels = None
    if len(x) >= 4:
        # split by the whole colour, or by hue alone: a crown or a shaded side spreads
        # lightness within one colour, never its hue
        best = _bic(x, [x])
        for candidate in (_two_means(x), _two_means(x[:, 1:])):
            groups = [x[candidate == 0], x[candidate == 1]]
            if min(len(g) for g in groups) > 0 and (score := _bic(x, groups)) < best:
                labels, best = candidate, score
    if labels is None:  # one colour
        white = float(np.median(tops[:, 0])) > 0.5
        p = np.full(len(tops), 1.0 if white else 0.0)
        return p, np.ones(len(tops))
    g = [_Gaussian(tops[labels == k]) for k in (0, 1)]
    light = 0 if g[0].mean[0] > g[1].mean[0] else 1
    lw, lb = g[light].log_density(tops), g[1 - light].log_density(tops)
    p = 1 / (1 + np.exp(np.clip(lb - lw, -50, 50)))
    return p, np.maximum(p, 1 - p)


class _Gaussian:
    FLOOR = 0.05  # the least spread of a colour (normalised units): noise, JPEG, light

    def __init__(self, x: np.ndarray):
        x = np.asarray(x, np.float64)
        cov = np.cov(x.T) if len(x) > 3 else np.zeros((3, 3))
        self.mean = x.mean(axis=0)
        cov = cov + np.eye(3) * self.FLOOR ** 2
        self.inv = np.linalg.inv(cov)
        self.logdet = float(np.linalg.slogdet(cov)[1])

    def log_density(self, x: np.ndarray) -> np.ndarray:
        d = np.asarray(x, np.float64) - self.mean
        return -0.5 * (np.einsum("ij,jk,ik->i", d, self.inv, d) + self.logdet)


def _two_means(x: np.ndarray, iterations: int = 25) -> np.ndarray:
    """Deterministic 2-means, started from the two tops furthest apart along the
    direction of most spread."""
    centred = x - x.mean(axis=0)
    axis = np.linalg.svd(centred, full_matrices=False)[2][0]
    proj = centred @ axis
    c = np.array([x[np.argmin(proj)], x[np.argmax(proj)]])
    labels = np.zeros(len(x), int)
    for _ in range(iterations):
        new = np.argmin(np.linalg.norm(x[:, None] - c[None], axis=2), axis=1)
        if (new == labels).all() and _ > 0:
            break
        labels = new
        c = np.array([x[labels == k].mean(axis=0) if (labels == k).any() else c[k]
                      for k in (0, 1)])
    return labels


def learn_from_the_photo(p_empty: np.ndarray, features: np.ndarray | None,
                         sure: float = 0.9,
                         references: tuple[np.ndarray, np.ndarray] | None = None
                         ) -> np.ndarray:
    """P(empty) per square, sharpened by the photo itself: the squares the model is sure
    of show what this set's empty and occupied squares look like (in the model's
    features), and the unsure ones are told by which they resemble. A set the model
    never saw is mostly read sure enough for this, the rest by likeness within the
    photo. With eight sure empty squares or more and under three sure pieces the empty
    ones alone tell (`_only_empties`); with eight sure pieces or more and under three
    sure empty squares, the unsure squares unlike every sure piece stand in for the
    empty ones (`_unlike_every_piece`); otherwise, with fewer than three sure squares of
    either kind, nothing changes. `references`: (empty, occupied) features of squares
    whose class is known (a calibration's), which then tell every square instead of
    the ones the model is sure of: one sure and wrong look of a frame (a mark on an
    empty square) would widen what a piece looks like to take in every square."""
    if features is None:
        return p_empty
    f = features / (np.linalg.norm(features, axis=1, keepdims=True) + 1e-9)
    if references is not None:
        n, (ref_empty, ref_occupied) = len(f), references
        f = np.vstack([f, ref_empty, ref_occupied])
        p_empty = np.concatenate([p_empty, np.ones(len(ref_empty)),
                                  np.zeros(len(ref_occupied))])
        kind = np.repeat([0, 1, 2], [n, len(ref_empty), len(ref_occupied)])
        return _told_apart(p_empty, f, kind == 1, kind == 2)[:n]
    confident = np.maximum(p_empty, 1 - p_empty) >= sure
    empty, occupied = confident & (p_empty >= 0.5), confident & (p_empty < 0.5)
    if empty.sum() >= 8 and occupied.sum() < 3:
        return _only_empties(p_empty, f, empty)
    if empty.sum() < 3 and occupied.sum() >= 8:
        empty = _unlike_every_piece(f, confident, occupied)
    return _told_apart(p_empty, f, empty, occupied)


def _told_apart(p_empty: np.ndarray, f: np.ndarray, empty: np.ndarray,
                occupied: np.ndarray) -> np.ndarray:
    """P(empty) of every square by its likeness to the `empty` and `occupied` ones;
    unchanged with fewer than three of either."""
    if empty.sum() < 3 or occupied.sum() < 3:
        return p_empty
    x = f @ (f[empty].mean(axis=0) - f[occupied].mean(axis=0))  # along empty - occupied
    spread = max(float(x[empty].std()), float(x[occupied].std()), 1e-3)
    likeness = (((x - x[occupied].mean()) / spread) ** 2
                - ((x - x[empty].mean()) / spread) ** 2) / 2  # log-odds of empty, photo
    p = np.clip(p_empty, 1e-6, 1 - 1e-6)
    likeness = np.clip(likeness, -PHOTO_EVIDENCE, PHOTO_EVIDENCE)
    sharpened = 1 / (1 + np.exp(-np.clip(np.log(p / (1 - p)) + likeness, -50, 50)))
    # One line from the empty squares to the pieces cannot hold pieces of two colours
    # when the model is sure of one colour only: the other falls on the empty side of
    # it (dark men on dark squares). So a square within the spread of one kind and not
    # of the other is that kind; only the rest are told by the line.
    like_empty = _alike_the_empties(f, empty)
    like_piece = _alike_a_piece(f, occupied)
    return np.where(like_empty & ~like_piece, np.maximum(p_empty, 0.95),
                    np.where(like_piece & ~like_empty, np.minimum(p_empty, 0.05), sharpened))


def _unlike_every_piece(f: np.ndarray, confident: np.ndarray,
                        occupied: np.ndarray) -> np.ndarray:
    """A photo with many pieces the model is sure of and no empty square it is sure of
    (dark men on dark squares in a flat light): the unsure squares that look like no
    sure piece at all, by far more than the sure pieces differ among themselves, stand
    in for the empty squares."""
    nearest = _likeness_to_nearest_piece(f, occupied)
    typical, spread = _robust(nearest[occupied])
    return ~confident & (nearest < typical - 4 * spread)


def _likeness_to_nearest_piece(f: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """Each square's likeness to the most alike sure piece other than itself."""
    likeness = f @ f[occupied].T
    likeness[np.nonzero(occupied)[0], np.arange(int(occupied.sum()))] = -1  # not itself
    return likeness.max(axis=1)


def _robust(values: np.ndarray) -> tuple[float, float]:
    """(median, spread from the median absolute deviation, never zero)."""
    typical = float(np.median(values))
    return typical, 1.4826 * float(np.median(np.abs(values - typical))) + 1e-3


def _only_empties(p_empty: np.ndarray, f: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """A photo with empty squares the model is sure of and next to no piece it is sure
    of (a board before the pieces are set out): an unsure square is empty when it looks
    like those empty squares as closely as they look like each other; anything else
    stays as the model said."""
    return np.where(_alike_the_empties(f, empty), np.maximum(p_empty, 0.95), p_empty)


def _within_reach(likeness: np.ndarray, members: np.ndarray) -> np.ndarray:
    """The squares whose likeness is as high as the members' own: within four of their
    robust spreads of the typical member, or half as far again as the least alike."""
    typical, spread = _robust(likeness[members])
    reach = max(4 * spread, 1.5 * (typical - float(likeness[members].min())))
    return likeness >= typical - reach


def _alike_the_empties(f: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Squares as like the sure empty squares (their mean) as those are (one cluster:
    a board's empty squares look alike)."""
    centre = f[empty].mean(axis=0)
    return _within_reach(f @ (centre / np.linalg.norm(centre)), empty)


def _alike_a_piece(f: np.ndarray, occupied: np.ndarray) -> np.ndarray:
    """Squares as like their nearest sure piece as the sure pieces are like theirs (by
    the nearest, not the mean: men of two colours and kings are several clusters)."""
    return _within_reach(_likeness_to_nearest_piece(f, occupied), occupied)


def decide(obs: Observation, size: int) -> Reading:
    """The reading of one observation."""
    p_empty = learn_from_the_photo(obs.probs[:, 0], obs.features)
    occupied = p_empty < 0.5
    sure_occ = np.maximum(p_empty, 1 - p_empty)
    # a plain square that looks occupied: something over the board there
    covered = obs.plain_probs[:, 0] < 0.5
    hand = bool(covered.any())
    near_cover = np.zeros(len(p_empty), bool)
    if hand:
        dark = _centres(size)
        plain = _plain_centres(size)
        bad = plain[covered]
        near_cover = (np.linalg.norm(dark[:, None] - bad[None], axis=2) < 1.6).any(axis=1)
    idx = np.nonzero(occupied)[0]
    crowned, mark_unsure = _marked(obs.marks[idx])
    kings = _kings(obs.probs[idx, 2:].sum(axis=1)) | crowned
    p_white, sure_colour = _piece_colours(obs.tops[idx], obs.rims[idx], kings)
    squares: dict[int, str] = {}
    confidence: dict[int, float] = {}
    for sq in range(1, len(p_empty) + 1):
        squares[sq], confidence[sq] = "e", float(sure_occ[sq - 1])
    for k, i in enumerate(idx.tolist()):
        letter = "w" if p_white[k] >= 0.5 else "b"
        squares[i + 1] = letter.upper() if kings[k] else letter
        # a mark as strong as a glossy man's, short of a crown's: neither man nor king
        unsure_king = mark_unsure[k] and not kings[k]
        confidence[i + 1] = 0.0 if unsure_king else float(sure_occ[i] * sure_colour[k])
    for sq in range(1, len(p_empty) + 1):
        # next to something over the board, only a reading beyond doubt stands
        if confidence[sq] < (0.99 if near_cover[sq - 1] else SURE):
            squares[sq], confidence[sq] = "?", 0.0
    return Reading(size, squares, confidence, hand=hand)


def _piece_colours(tops: np.ndarray, rims: np.ndarray,
                   kings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P(white), certainty) per piece. The men split into colours by their tops; a
    crowned king's top is mostly crown, so it takes the colour of the men whose rims
    its rim is nearest (or, far from the men of a lone colour, the other one)."""
    if not kings.any():
        return split_colours(tops)
    if kings.all():
        return split_colours(rims)
    p_white, certainty = np.empty(len(tops)), np.empty(len(tops))
    men = ~kings
    p_white[men], certainty[men] = split_colours(tops[men])
    white = p_white[men] >= 0.5
    groups = {colour: rims[men][white == colour] * COLOUR_WEIGHTS for colour in (True, False)}
    for i in np.nonzero(kings)[0]:
        p_white[i], certainty[i] = _king_colour(rims[i] * COLOUR_WEIGHTS, groups)
    return p_white, certainty


def _king_colour(rim: np.ndarray, groups: dict[bool, np.ndarray]) -> tuple[float, float]:
    """(P(white), certainty) of a king by its rim against the men's rims of each colour."""
    near = {white: float(np.linalg.norm(g - rim, axis=1).min())
            for white, g in groups.items() if len(g)}
    if len(near) == 2:
        clear = abs(near[True] - near[False]) > 0.1
        return float(near[True] < near[False]), 1.0 if clear else 0.5
    (white, distance), = near.items()
    men = groups[white]
    spread = float(np.linalg.norm(men - np.median(men, axis=0), axis=1).max()) \
        if len(men) > 1 else 0.0
    same = distance <= max(2 * spread, 0.3)
    return float(white if same else not white), 1.0 if same else 0.9


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return np.log(p / (1 - p))


def _kings(king_p: np.ndarray) -> np.ndarray:
    """Which pieces are kings, from P(crowned or stacked) per piece. The rare class is
    the one a model over-calls on a set it never saw, and how much a set's men look
    crowned varies (carved rings, a glossy top): a king must stand out from the men of
    its own photo, its log odds KING_LOG_ODDS above theirs (the median piece's, most
    pieces being men; a fixed low prior with under KING_PEERS pieces), and never under
    KING_FLOOR."""
    if len(king_p) == 0:
        return np.zeros(0, bool)
    odds = _logit(king_p)
    typical = (float(np.median(odds)) if len(odds) >= KING_PEERS
               else math.log(KING_PRIOR / (1 - KING_PRIOR)))
    return (odds >= typical + KING_LOG_ODDS) & (king_p >= KING_FLOOR)


def _marked(marks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(kings, unsure) by the mark on each piece's top (`top_marks`): a king stands out
    MARK_KING, a piece unsure of being one MARK_UNSURE, and either MARK_OVER_MEN times
    the median piece's."""
    typical = float(np.median(marks)) if len(marks) >= KING_PEERS else 0.0
    floor = MARK_OVER_MEN * typical
    return marks >= max(MARK_KING, floor), marks >= max(MARK_UNSURE, floor)


def _centres(size: int) -> np.ndarray:
    from .board import square_centres

    return square_centres(size)


def _plain_centres(size: int) -> np.ndarray:
    from .board import light_centres

    return light_centres(size)
