"""Synthetic square patches for training the occupancy model, with their truth.

A patch is what `patches.PatchSampler` gives for one playing square: the board's plane
seen from straight above, the camera below the patch, so a piece's top is displaced
upwards by its height times the lean of the view. Drawing patches directly (rather than
whole rendered scenes) lets every sample come from a different set: any two square
colours and grains, printed or wooden or vinyl boards with or without lines, any piece
colour (the square's own colour included), discs, tall cylinders, pegs, putty lumps,
rims, grooves, highlights, crowns of several kinds, kings as stacks, shadows,
neighbours leaning in, the board's edge, printed numbers, uneven light, over-exposure,
blur, low resolution, noise and JPEG.

Labels: 0 empty, 1 a man (a piece with no mark on top), 2 a crowned piece, 3 two men
stacked (a king) where the view shows them as two, with the seam between them; a
stack seen from so steeply above that its two tops coincide is labelled a man: nothing
in the picture says otherwise. The model also gives the top's displacement from the
base (squares, in the patch's "up" direction).
"""

from __future__ import annotations

import colorsys

import cv2
import numpy as np

from .patches import SIDE, SPAN, normalise

SCALE = 2  # drawn at twice the patch resolution, then reduced (antialiasing)
EMPTY, MAN, CROWNED, STACK = 0, 1, 2, 3
SEAM_SHOWS = 0.06  # squares between a stack's two tops for the stack to show

# typical set colours (RGB) to draw from half the time; the rest are random
BOARD_PAIRS = [
    ((235, 225, 200), (60, 40, 30)),  # cream / dark wood
    ((220, 180, 120), (120, 60, 30)),  # light / dark wood
    ((240, 240, 240), (20, 20, 20)),  # printed black and white
    ((240, 240, 235), (40, 110, 70)),  # vinyl green and white
    ((235, 220, 190), (150, 50, 50)),  # cream / burgundy
    ((230, 230, 230), (90, 90, 100)),  # grey
    ((225, 200, 150), (40, 40, 40)),  # buff / black
    ((240, 230, 200), (200, 40, 40)),  # cream / red
    ((250, 250, 250), (60, 60, 150)),  # white / navy
    ((240, 240, 230), (100, 60, 140)),  # white / purple
]
PIECE_COLOURS = [
    (240, 235, 220), (250, 250, 250), (20, 20, 20), (200, 30, 30), (150, 20, 20),
    (230, 200, 140), (120, 70, 40), (70, 40, 25), (230, 200, 60), (40, 70, 200),
    (120, 50, 170), (20, 90, 90), (30, 120, 50), (210, 210, 200), (90, 90, 90),
]


def _random_colour(rng: np.random.Generator) -> np.ndarray:
    h, s, v = rng.random(), rng.random() ** 1.5, 0.05 + 0.95 * rng.random()
    return np.array(colorsys.hsv_to_rgb(h, s, v)) * 255


def _jitter(rgb, rng: np.random.Generator, amount: float = 0.12) -> np.ndarray:
    c = np.asarray(rgb, np.float64) * (1 + rng.uniform(-amount, amount, 3))
    return np.clip(c + rng.uniform(-12, 12, 3), 0, 255)


def _smooth(shape, cells: int, rng: np.random.Generator) -> np.ndarray:
    small = rng.standard_normal((cells, cells)).astype(np.float32)
    return cv2.resize(small, shape[::-1], interpolation=cv2.INTER_CUBIC)


class Canvas:
    """Coordinates of the drawing: u to the right, w up (away from the camera), in
    squares from the patch's square centre."""

    def __init__(self):
        n = SIDE * SCALE
        t = ((np.arange(n) + 0.5) / n - 0.5) * SPAN
        self.u, self.w = np.meshgrid(t, -t)
        self.n = n


def _board(c: Canvas, rng: np.random.Generator):
    """RGB image of the squares (rotated at random), with the plain and playing colours
    and a mask of the centre square's corners (for the empty reference)."""
    theta = rng.uniform(0, 2 * np.pi)
    ct, st = np.cos(theta), np.sin(theta)
    bx, by = ct * c.u + st * c.w, -st * c.u + ct * c.w
    ci, cj = np.floor(bx + 0.5).astype(int), np.floor(by + 0.5).astype(int)
    playing_cell = (ci + cj) % 2 == 0
    if rng.random() < 0.5:
        plain, play = (_jitter(x, rng) for x in BOARD_PAIRS[rng.integers(len(BOARD_PAIRS))])
        if rng.random() < 0.08:  # sets played on the light squares
            plain, play = play, plain
    else:
        plain, play = _random_colour(rng), _random_colour(rng)
        while np.linalg.norm(plain - play) < 40:
            play = _random_colour(rng)
    img = np.where(playing_cell[..., None], play, plain).astype(np.float32)
    kind = rng.random()
    if kind < 0.45:  # wood grain, its own direction per cell
        phase = rng.uniform(0, 2 * np.pi, (4, 4))
        angle = rng.uniform(0, np.pi, (4, 4)) if rng.random() < 0.5 else np.full((4, 4), theta)
        a = angle[ci % 4, cj % 4]
        freq = rng.uniform(6, 25)
        warp = _smooth(bx.shape, 4, rng) * rng.uniform(0.5, 3)
        grain = np.sin(freq * (bx * np.cos(a) + by * np.sin(a)) + phase[ci % 4, cj % 4] + warp)
        img *= (1 + rng.uniform(0.02, 0.15) * grain)[..., None]
    elif kind < 0.6:  # vinyl or paper: a soft sheen
        img *= (1 + 0.08 * _smooth(bx.shape, 3, rng))[..., None]
    if rng.random() < 0.25:  # lines printed between the squares
        fx, fy = np.abs(bx + 0.5 - np.round(bx + 0.5)), np.abs(by + 0.5 - np.round(by + 0.5))
        width = rng.uniform(0.01, 0.03)
        line = (fx < width) | (fy < width)
        img[line] = _jitter((30, 30, 30), rng) if rng.random() < 0.7 else play
    if rng.random() < 0.2:  # the board's edge: beyond it frame, tape or table
        side = rng.integers(4)
        beyond = [bx > 0.5 + rng.integers(0, 1), bx < -0.5, by > 0.5, by < -0.5][side]
        img[beyond] = _jitter(_random_colour(rng), rng)
    if rng.random() < 0.12:  # a number or letter printed on the square
        pos = (int(c.n * rng.uniform(0.3, 0.6)), int(c.n * rng.uniform(0.4, 0.7)))
        ink = np.zeros(img.shape[:2], np.uint8)
        cv2.putText(ink, str(rng.integers(1, 51)), pos, cv2.FONT_HERSHEY_SIMPLEX,
                    rng.uniform(0.4, 0.9), 255, 1, cv2.LINE_AA)
        a = (ink.astype(np.float32) / 255)[..., None]
        img[:] = img * (1 - a) + _jitter(plain, rng) * a
    if rng.random() < 0.1:  # a stain or scratch
        r = rng.uniform(0.03, 0.12)
        ox, oy = rng.uniform(-0.3, 0.3, 2)
        spot = (c.u - ox) ** 2 + (c.w - oy) ** 2 < r * r
        img[spot] *= rng.uniform(0.6, 1.4)
    if kind < 0.45 and rng.random() < 0.15:  # a knot in the wood: rings, but flat
        ox, oy = rng.uniform(-0.4, 0.4, 2)
        rr = np.hypot((c.u - ox) * rng.uniform(1, 2.5), c.w - oy)
        knot = np.exp(-rr / rng.uniform(0.05, 0.2)) * np.sin(rr * rng.uniform(40, 90))
        img *= (1 + rng.uniform(0.05, 0.2) * knot)[..., None]
    if rng.random() < 0.15:  # varnish or vinyl catching the light
        ox, oy = rng.uniform(-0.6, 0.6, 2)
        glare = np.exp(-((c.u - ox) ** 2 + (c.w - oy) ** 2) / (2 * rng.uniform(0.1, 0.5) ** 2))
        img += (rng.uniform(20, 90) * glare)[..., None]
    return img, play, plain, theta


def _piece_colour(rng, play, plain) -> np.ndarray:
    r = rng.random()
    if r < 0.15:
        return _jitter(play, rng, 0.15)  # the square's own colour: only shape tells
    if r < 0.22:
        return _jitter(plain, rng, 0.15)
    if r < 0.65:
        return _jitter(PIECE_COLOURS[rng.integers(len(PIECE_COLOURS))], rng)
    return _random_colour(rng)


def _disc_mask(c: Canvas, cx, cy, r, wobble=None) -> np.ndarray:
    du, dw = c.u - cx, c.w - cy
    if wobble is None:
        return du * du + dw * dw < r * r
    ang = np.arctan2(dw, du)
    rr = r * (1 + sum(a * np.sin(k * ang + p) for k, a, p in wobble))
    return du * du + dw * dw < rr * rr


def _stadium(c: Canvas, cx, cy0, cy1, r) -> np.ndarray:
    """Points within r of the vertical segment (cx, cy0)-(cx, cy1): a cylinder's side."""
    wc = np.clip(c.w, min(cy0, cy1), max(cy0, cy1))
    return (c.u - cx) ** 2 + (c.w - wc) ** 2 < r * r


def _top(c: Canvas, img, cx, cy, r, colour, style, rng, wobble):
    mask = _disc_mask(c, cx, cy, r, wobble)
    du, dw = c.u - cx, c.w - cy
    rad = np.sqrt(du * du + dw * dw) / r
    shade = 1 + style["dome"] * (1 - rad ** 2) + style["tex"] * style["noise"]
    top = colour[None, None, :] * shade[..., None]
    for g_r, g_w, g_d in style["grooves"]:
        ring = np.abs(rad - g_r) < g_w
        top = np.where(ring[..., None], top * g_d, top)
    rim = rad > style["rim_at"]
    top = np.where(rim[..., None], top * style["rim"], top)
    if style["highlight"] > 0:
        hx, hy = style["hl_pos"]
        hl = np.exp(-((du / r - hx) ** 2 + (dw / r - hy) ** 2) / (2 * style["hl_size"] ** 2))
        top = top + style["highlight"] * hl[..., None] * 255
    img[mask] = top[mask]
    return mask


def _crown(c: Canvas, img, cx, cy, r, colour, rng):
    kind = rng.integers(3)
    if kind == 0:  # a medallion or sticker: gilt, silver, white or any light colour
        face = _jitter(rng.choice([(215, 175, 70), (200, 200, 205), (245, 245, 240)])
                       if rng.random() < 0.7 else _random_colour(rng) * 0.5 + 127, rng)
        if np.linalg.norm(face - colour) < 60:
            face = 255 - colour
        m = _disc_mask(c, cx, cy, r * rng.uniform(0.45, 0.75))
        img[m] = face
        emblem = face * rng.uniform(0.3, 0.8) if rng.random() < 0.5 else \
            _jitter(_random_colour(rng), rng)
        _emblem(c, img, cx, cy, r * rng.uniform(0.25, 0.45), emblem, rng)
        return
    # a star or crown drawn or stuck on the top, in a contrasting colour
    ink = _jitter(_random_colour(rng), rng)
    if np.linalg.norm(ink - colour) < 80:
        ink = 255 - colour
    _emblem(c, img, cx, cy, r * rng.uniform(0.45, 0.8), ink, rng, outline=kind == 2)


def _emblem(c: Canvas, img, cx, cy, size, ink, rng, outline: bool = False):
    """A star or crown shape (a polygon of spikes), filled or outlined."""
    pts = []
    spikes = rng.integers(3, 7)
    rot = rng.uniform(0, 2 * np.pi)
    for k in range(2 * spikes):
        rr = size if k % 2 == 0 else size * rng.uniform(0.4, 0.6)
        a = rot + np.pi * k / spikes
        pts.append((cx + rr * np.cos(a), cy + rr * np.sin(a)))
    n = c.n
    poly = np.array([(((x / SPAN) + 0.5) * n, (0.5 - (y / SPAN)) * n) for x, y in pts])
    layer = np.zeros((n, n), np.uint8)
    cv2.fillPoly(layer, [np.round(poly * 16).astype(np.int32)], 1, cv2.LINE_AA, shift=4)
    if outline:
        inner = np.zeros_like(layer)
        cv2.polylines(inner, [np.round(poly * 16).astype(np.int32)], True, 1,
                      max(1, int(n * 0.02)), cv2.LINE_AA, shift=4)
        layer = inner
    img[layer > 0] = ink


def _piece(c: Canvas, img, cx, cy, lean, rng, play, plain, king: bool) -> tuple[int, float]:
    """Draws one piece standing at (cx, cy); (its label, displacement of its top)."""
    shape = rng.random()
    # a man 0.6-0.96 of his square wide, or one in four much smaller (0.4-0.6: travel
    # and magnetic sets, some printed boards' ringed men)
    r = rng.uniform(0.2, 0.3) if rng.random() < 0.25 else rng.uniform(0.3, 0.48)
    h = rng.uniform(0.08, 0.3) if shape < 0.65 else rng.uniform(0.3, 0.75)
    colour = _piece_colour(rng, play, plain)
    alike = np.linalg.norm(colour - play) < 45  # only its shape, rim or shadow shows it
    wobble = None
    if rng.random() < 0.12:  # putty or hand-made: an uneven outline
        wobble = [(k, rng.uniform(0, 0.06), rng.uniform(0, 6.3)) for k in (2, 3, 5)]
    style = {
        "dome": rng.uniform(-0.25, 0.25),
        "tex": rng.uniform(0, 0.12),
        "noise": _smooth(c.u.shape, int(rng.integers(3, 12)), rng),
        "grooves": [(rng.uniform(0.2, 0.85), rng.uniform(0.02, 0.05), rng.uniform(0.5, 0.9))
                    for _ in range(int(rng.integers(0, 6)) if rng.random() < 0.5 else 0)],
        "rim_at": rng.uniform(0.8, 0.95),
        "rim": (rng.choice([rng.uniform(0.5, 0.8), rng.uniform(1.2, 1.4)]) if alike
                else rng.uniform(0.55, 1.3)),
        "highlight": rng.uniform(0, 0.35) if rng.random() < 0.5 else 0,
        "hl_pos": rng.uniform(-0.5, 0.5, 2),
        "hl_size": rng.uniform(0.1, 0.4),
    }
    wall = colour * rng.uniform(0.45, 0.95)
    peg = rng.random() < 0.1
    stack = 2 if king and rng.random() < 0.5 else 1
    top_y = cy
    for level in range(stack):
        y0, y1 = cy + level * h * lean, cy + (level + 1) * h * lean
        body_r = r * (rng.uniform(0.4, 0.6) if peg else 1.0)
        side = _stadium(c, cx, y0, y1, body_r)
        grad = 1 - 0.35 * np.abs(c.u - cx) / body_r
        img[side] = (wall[None, None, :] * grad[..., None])[side]
        if level == 1:  # the seam between the two men
            seam = side & (np.abs(np.hypot(c.u - cx, c.w - y0) - r) < 0.025) & (c.w < y0)
            img[seam] *= 0.5
        top_y = y1
    _top(c, img, cx, top_y, r * (0.7 if peg else 1.0) * (1 + 0.05 * h * lean), colour, style,
         rng, wobble)
    displacement = top_y - cy
    if not king:
        return MAN, displacement
    if stack == 2:
        return (STACK if h * lean >= SEAM_SHOWS else MAN), displacement
    _crown(c, img, cx, top_y, r, colour, rng)
    return CROWNED, displacement


def _shadows(c: Canvas, img, pieces, rng):
    direction = rng.uniform(0, 2 * np.pi)
    length = rng.uniform(0, 0.35)
    strength = rng.uniform(0, 0.55)
    dark = np.zeros(c.u.shape, np.float32)
    for cx, cy, r in pieces:
        sx, sy = cx + length * np.cos(direction), cy + length * np.sin(direction)
        dark = np.maximum(dark, _stadium(c, sx, sy, cy, r * 1.05).astype(np.float32))
    if dark.any():
        k = int(c.n * 0.08) | 1
        dark = cv2.GaussianBlur(dark, (k, k), 0)
        img *= (1 - strength * dark)[..., None]


def _light(rng: np.random.Generator) -> dict:
    return {"gain": rng.uniform(0.45, 1.5), "slope": rng.uniform(-0.25, 0.25, 2),
            "cast": rng.uniform(0.8, 1.2, 3), "gamma": rng.uniform(0.7, 1.4)}


def _expose(rgb: np.ndarray, light: dict, gain_field=1.0) -> np.ndarray:
    img = rgb * (light["gain"] * gain_field) * light["cast"]
    img = 255 * (np.clip(img, 0, None) / 255) ** light["gamma"]
    return np.clip(img, 0, 255)


def _camera(img: np.ndarray, light: dict, rng: np.random.Generator) -> np.ndarray:
    """Light, lens and sensor: the drawn patch as a camera would give it (BGR uint8)."""
    n = img.shape[0]
    u = np.linspace(-1, 1, n)
    U, W = np.meshgrid(u, u)
    field = (1 + light["slope"][0] * U + light["slope"][1] * W)[..., None]
    img = _expose(img, light, field).astype(np.float32)
    blur = rng.uniform(0, 1.8) if rng.random() < 0.6 else 0.0
    if blur > 0.3:
        img = cv2.GaussianBlur(img, (0, 0), blur)
    img = cv2.resize(img, (SIDE, SIDE), interpolation=cv2.INTER_AREA)
    lowres = rng.uniform(0.4, 0.9) if rng.random() < 0.3 else 1.0
    if lowres < 0.9:
        k = max(6, int(SIDE * lowres))
        img = cv2.resize(cv2.resize(img, (k, k), interpolation=cv2.INTER_AREA), (SIDE, SIDE),
                         interpolation=cv2.INTER_LINEAR)
    img = img + rng.normal(0, rng.uniform(0, 7), img.shape)
    img = np.clip(img, 0, 255).astype(np.uint8)[..., ::-1].copy()  # RGB -> BGR
    if rng.random() < 0.7:
        ok, data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY,
                                              int(rng.integers(35, 96))])
        decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
        assert decoded is not None  # the JPEG just encoded
        img = decoded
    return img


def sample(rng: np.random.Generator):
    """One patch (BGR uint8, SIDE x SIDE), its label, its top's displacement, and the
    references to normalise it with: (patch, label, shift, dark_ref_bgr, light_ref_bgr).

    One patch in five is of a plain square (nobody plays on it): empty, with pieces on
    its four sides leaning over it, normalised by its own colour as the reader does."""
    c = Canvas()
    img, play, plain, theta = _board(c, rng)
    lean = rng.uniform(0, 1.3) ** 1.3
    label = EMPTY
    king = False
    plain_square = rng.random() < 0.2
    if not plain_square and rng.random() < 0.62:
        label = MAN
        king = rng.random() < 0.3
    # the pieces on the four neighbours that can hold one (the diagonal ones, or for a
    # plain square the sides), and the square's own, far to near
    ct, st = np.cos(theta), np.sin(theta)
    standing = []
    around = ((1, 0), (-1, 0), (0, 1), (0, -1)) if plain_square else \
        ((1, 1), (-1, 1), (1, -1), (-1, -1))
    for di, dj in around:
        if rng.random() < (0.7 if plain_square else 0.5):
            bx, by = di + rng.uniform(-0.1, 0.1), dj + rng.uniform(-0.1, 0.1)
            standing.append((ct * bx - st * by, st * bx + ct * by, rng.random() < 0.2, False))
    if label != EMPTY:
        off = rng.uniform(-0.12, 0.12, 2) if rng.random() < 0.8 else rng.uniform(-0.2, 0.2, 2)
        standing.append((off[0], off[1], king, True))
    standing.sort(key=lambda p: -p[1])
    _shadows(c, img, [(x, y, 0.4) for x, y, _, _ in standing], rng)
    displacement = 0.0
    for x, y, crown, own in standing:
        kind, shift = _piece(c, img, x, y, lean, rng, play, plain, crown)
        if own:
            label, displacement = kind, shift
    light = _light(rng)
    patch = _camera(img, light, rng)
    # the references the board gives: its empty playing colour and plain colour, as
    # medians over the whole board (under about the same light as this square)
    jitter = rng.uniform(0.9, 1.1)
    dark_ref = _expose(np.asarray(play, np.float64), light, jitter)[::-1]
    light_ref = _expose(np.asarray(plain, np.float64), light, jitter)[::-1]
    return patch, label, displacement, dark_ref, light_ref


def batch(count: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(count, SIDE, SIDE, 3) normalised patches, their labels and top displacements."""
    rng = np.random.default_rng(seed)
    xs = np.empty((count, SIDE, SIDE, 3), np.float32)
    ys = np.empty(count, np.int64)
    ds = np.empty(count, np.float32)
    for k in range(count):
        patch, label, ds[k], dark_bgr, light_bgr = sample(rng)
        refs = cv2.cvtColor(np.array([[dark_bgr, light_bgr]], np.uint8),
                            cv2.COLOR_BGR2LAB)[0].astype(np.float32)
        xs[k] = normalise(patch[None].astype(np.float32), refs[0], refs[1])[0]
        ys[k] = label
    return xs, ys, ds
