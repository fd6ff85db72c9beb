"""The physical-board renderer: a simulated camera whose truth is known.

`render(scene, pieces)` draws the board (frame, squares, grain, optional corner markers)
as a texture warped onto the table plane, then soft shadows, the pieces as shaded
cylinders (kings as stacks of two) far to near, hands and arms above them, uneven light,
lens distortion, blur, sensor noise and JPEG artefacts. Everything is projected polygons
and a few whole-image numpy/OpenCV passes: a 1280x720 frame from scratch takes about
0.1 s. The same scene and pieces always give the same pixels.

A simulated camera renders frame after frame of one pose: `Renderer` draws the table,
the board, the light and the lens once per pose and then redraws only the tiles that
what changed (a piece, a hand, their shadows) can reach, about 20 ms a frame with sensor
noise and JPEG. Its frames are exactly those `render` draws from scratch.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from damas.calibration.camera import Camera, Intrinsics
from damas.rules import geometry

from .markers import CORNER_DIRECTIONS, marker_image
from .scene import SCHEME_COLOURS, Hand, Scene

SHIFT = 4  # fixed-point bits for sub-pixel polygon drawing
ONE = 1 << SHIFT
CIRCLE_POINTS = 40
MARGIN = 0.08  # extra ideal-image border so barrel distortion has pixels to pull in
TILE = 32  # output pixels a side of the tiles a frame redraws when little changed
DIRTY_CELL = 8  # ideal-image pixels a side of the cells that mark what changed
DISTORTION_STEP = 8  # pixels between the points the lens maps are interpolated from
NOISE_WINDOWS = 1 << 20  # distinct sensor-noise draws


@dataclass(frozen=True)
class Rendered:
    image: np.ndarray  # BGR uint8
    camera: Camera  # the true camera, world in millimetres
    scene: Scene


def board_camera(scene: Scene) -> Camera:
    """The camera of a scene: aimed at the board, moved back until the board spans
    `scene.fill` of the frame."""
    intr = Intrinsics.guess(scene.width, scene.height, scene.hfov_deg)
    intr = Intrinsics(intr.width, intr.height, intr.fx, intr.fy, intr.cx, intr.cy,
                      tuple(scene.dist))
    half = scene.board_mm / 2
    target = np.array([scene.offset[0] * scene.board_mm, scene.offset[1] * scene.board_mm, 0])
    corners = np.array([[sx * half, sy * half, z] for sx in (-1, 1) for sy in (-1, 1)
                        for z in (0.0, 2 * scene.piece_height * scene.square_mm)])
    distance = scene.board_mm / scene.fill / (2 * np.tan(np.radians(scene.hfov_deg) / 2)) * 1.6
    want = scene.fill * min(scene.width, scene.height)
    for _ in range(6):
        cam = Camera.looking_at(intr, target, distance, scene.tilt_deg, scene.rotation_deg,
                                scene.roll_deg)
        p = cam.project(corners, distort=False)
        # the board must fit the shorter side and stay inside the frame
        span = max(np.ptp(p[:, 1]) * 1.0, np.ptp(p[:, 0]) * scene.height / scene.width)
        reach = max(np.abs(p[:, 0] - intr.cx).max() / (scene.width / 2),
                    np.abs(p[:, 1] - intr.cy).max() / (scene.height / 2))
        ratio = max(span / want, reach / 0.96)
        distance *= ratio ** 0.9
    return cam


# --- the board texture ------------------------------------------------------------------

def _jitter(rgb, amount: float, rng: random.Random) -> np.ndarray:
    return np.clip(np.array(rgb, np.float32) * (1 + rng.uniform(-amount, amount)), 0, 255)


def scene_colours(scene: Scene) -> dict[str, np.ndarray]:
    rng = random.Random(scene.seed ^ 0x5EED)
    light, dark, frame, white, black = SCHEME_COLOURS[scene.scheme]
    if scene.squares_rgb is not None:
        light, dark = scene.squares_rgb
    if scene.pieces_rgb is not None:
        white, black = scene.pieces_rgb
    j = scene.colour_jitter
    return {"light": _jitter(light, j, rng), "dark": _jitter(dark, j, rng),
            "frame": _jitter(frame, j, rng), "white": _jitter(white, j, rng),
            "black": _jitter(black, j, rng), "table": np.array(scene.table_rgb, np.float32)}


def _smooth_noise(shape, cells, rng: np.random.Generator) -> np.ndarray:
    small = rng.standard_normal((cells, cells)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


# One entry a scene (8 MB for an 8x8 board at 1280x720, more for 10x10): a demo game or a
# bench scene renders one scene at a time, so two are kept; more only held memory, game
# after game (bench demo-memory).
@lru_cache(maxsize=2)
def _grain(texture_px: int, seed: int) -> np.ndarray:
    """Wood-like streaks: stretched noise along one axis, a second copy turned 90 deg."""
    rng = np.random.default_rng(seed)
    streaks: np.ndarray = rng.standard_normal((texture_px, 48)).astype(np.float32)
    streaks = cv2.resize(streaks, (texture_px, texture_px), interpolation=cv2.INTER_LINEAR)
    wobble = _smooth_noise((texture_px, texture_px), 6, rng)
    along = cv2.GaussianBlur(streaks, (0, 0), 1.0) * 0.6 + wobble * 0.4
    return np.stack([along, along.T], axis=0)


def board_texture(scene: Scene, colours, px_per_mm: float) -> np.ndarray:
    """RGB float32 image of the board's top face, x right, y up (row 0 = far edge)."""
    n, s, fw = scene.size, scene.square_mm, scene.frame_mm
    side = int(round(scene.board_mm * px_per_mm))
    # cell index along each axis: -1 or n on the frame
    idx = np.clip(((np.arange(side) + 0.5) / px_per_mm - fw) // s, -1, n).astype(np.int16)
    on_board = (idx >= 0) & (idx < n)
    inside = on_board[:, None] & on_board[None, :]
    dark = inside & ((idx[:, None] + idx[None, :]) % 2 == 1)
    kind = np.where(dark, 2, np.where(inside, 1, 0)).astype(np.uint8)  # frame, light, dark
    palette = np.stack([colours["frame"], colours["light"], colours["dark"]]).astype(np.float32)
    grain = _grain(side, scene.seed % 997)
    # grain runs across alternate squares and along the frame
    streak = np.where(dark, grain[1], grain[0])
    strength = 0.05 if scene.scheme == "wood" else 0.015
    tex = palette[kind] * (1 + strength * streak)[..., None]
    if scene.markers:
        _draw_markers(tex, scene, px_per_mm)
    return tex


def marker_layout(scene: Scene) -> dict[int, tuple[float, float, float]]:
    """id -> (x, y, side) in mm of each marker, centred in the frame corner."""
    half = scene.size * scene.square_mm / 2 + scene.frame_mm / 2
    side = scene.frame_mm * 0.72
    return {i: (dx * half, dy * half, side) for i, (dx, dy) in CORNER_DIRECTIONS.items()}


def _draw_markers(tex, scene: Scene, px_per_mm: float) -> None:
    centre = scene.board_mm / 2
    for marker_id, (x, y, side) in marker_layout(scene).items():
        paper = int(round(scene.frame_mm * 0.94 * px_per_mm))
        code = int(round(side * px_per_mm))
        u, v = (centre + x) * px_per_mm, (centre - y) * px_per_mm
        u0, v0 = int(round(u - paper / 2)), int(round(v - paper / 2))
        tex[v0:v0 + paper, u0:u0 + paper] = 242
        img = marker_image(marker_id, code).astype(np.float32)
        img = img * (230 / 255) + 12
        u1, v1 = int(round(u - code / 2)), int(round(v - code / 2))
        tex[v1:v1 + code, u1:u1 + code] = img[..., None]


# --- drawing helpers ----------------------------------------------------------------------

def _poly(img, pts, colour) -> None:
    cv2.fillPoly(img, [np.round(pts * ONE).astype(np.int32)], tuple(float(c) for c in colour),
                 cv2.LINE_AA, SHIFT)


def _project_clipped(cam: Camera, pts: np.ndarray, near: float = 50.0) -> np.ndarray | None:
    """Project a convex 3D polygon, cut where it passes behind the camera's near plane
    (an arm reaching towards a camera held low)."""
    pc = cam.to_camera(pts)
    if (pc[:, 2] >= near).all():
        return cam.project(pts, distort=False)
    out = []
    for a, b in zip(pc, np.roll(pc, -1, axis=0), strict=True):
        if a[2] >= near:
            out.append(a)
        if (a[2] >= near) != (b[2] >= near):
            t = (near - a[2]) / (b[2] - a[2])
            out.append(a + t * (b - a))
    if len(out) < 3:
        return None
    q = np.array(out)
    k = cam.intrinsics
    return np.stack([q[:, 0] / q[:, 2] * k.fx + k.cx, q[:, 1] / q[:, 2] * k.fy + k.cy], axis=1)


def _circle(centre, radius, z, n=CIRCLE_POINTS, phase=0.0) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False) + phase
    return np.stack([centre[0] + radius * np.cos(a), centre[1] + radius * np.sin(a),
                     np.full(n, z)], axis=1)


@dataclass(frozen=True)
class _Light:
    direction: np.ndarray  # unit vector towards the light
    ambient: float
    diffuse: float

    def shade(self, normal) -> float:
        return self.ambient + self.diffuse * max(0.0, float(np.dot(normal, self.direction)))

    @property
    def horizontal(self) -> float:
        return self.shade(np.array([0, 0, 1.0]))


def _light(scene: Scene) -> _Light:
    az, el = np.radians([scene.light_azimuth_deg, scene.light_elevation_deg])
    d = np.array([np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)])
    return _Light(d, scene.ambient, 1.0 - scene.ambient)


# --- pieces ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Piece:
    x: float
    y: float
    colour: np.ndarray
    king: bool
    mark: np.ndarray  # crown colour
    top_shift: tuple[float, float]  # the upper man of a king is never exactly aligned


def _piece(scene: Scene, square: int, kind: str, colours) -> _Piece:
    # each square's own draw: a piece stays put while others come and go
    rng = random.Random(scene.seed * 7919 + square)
    s, n = scene.square_mm, scene.size
    row, col = geometry(n).row_col(square)
    jx, jy = (rng.uniform(-1, 1) * scene.piece_jitter * s for _ in range(2))
    colour = colours["white"] if kind in "wW" else colours["black"]
    if scene.opacity < 1:  # a translucent piece: the dark square shows through
        colour = scene.opacity * colour + (1 - scene.opacity) * colours["dark"]
    mark = np.array(scene.mark_rgb, np.float32)
    shift = (rng.uniform(-0.03, 0.03) * s, rng.uniform(-0.03, 0.03) * s)
    return _Piece((col - n / 2 + 0.5) * s + jx, (n / 2 - row - 0.5) * s + jy,
                  colour * rng.uniform(0.96, 1.04), kind.isupper(), mark, shift)


def _cylinders(scene: Scene, piece: _Piece):
    """(centre_xy, z_bottom, z_top) of each man in the piece, bottom first."""
    h = scene.piece_height * scene.square_mm
    parts = [((piece.x, piece.y), 0.0, h)]
    if piece.king and scene.king_men == 2:
        parts.append(((piece.x + piece.top_shift[0], piece.y + piece.top_shift[1]), h, 2 * h))
    return parts


def _cylinder_ops(ops: list, cam: Camera, centre, z0, z1, radius, colour, light: _Light,
                  engraving: float) -> None:
    bottom = _circle(centre, radius, z0)
    top = _circle(centre, radius, z1)
    pb, pt = cam.project(bottom, distort=False), cam.project(top, distort=False)
    eye = cam.centre
    a = np.linspace(0, 2 * np.pi, CIRCLE_POINTS, endpoint=False) + np.pi / CIRCLE_POINTS
    normals = np.stack([np.cos(a), np.sin(a), np.zeros_like(a)], axis=1)
    mids = np.stack([centre[0] + radius * normals[:, 0], centre[1] + radius * normals[:, 1],
                     np.full(len(a), (z0 + z1) / 2)], axis=1)
    facing = np.einsum("ij,ij->i", normals, eye - mids) > 0
    lam = light.ambient + light.diffuse * np.clip(normals @ light.direction, 0, None)
    # a dark bevel line at the bottom edge of each man
    for i in np.nonzero(facing)[0]:
        j = (i + 1) % CIRCLE_POINTS
        ops.append((np.array([pb[i], pb[j], pt[j], pt[i]]), colour * lam[i] * 0.92))
    ops.append((pt, colour * light.horizontal))
    if engraving > 0:  # the engraved rings of a draughts piece, deep ones a carved centre
        rings = [(0.78, 1 - engraving), (0.7, 1.0), (0.42, 1 - 0.7 * engraving), (0.36, 1.0)]
        if engraving > 0.25:
            rings.append((0.16, 1 - 0.5 * engraving))
        for frac, dim in rings:
            ring = cam.project(_circle(centre, radius * frac, z1), distort=False)
            ops.append((ring, colour * light.horizontal * dim))


def _crown(centre, radius, z) -> np.ndarray:
    """A five-pointed crown outline on top of a king."""
    r = radius * 0.29
    pts = [(-1.0, -0.55), (1.0, -0.55), (1.0, 0.1), (1.15, 0.75), (0.55, 0.3), (0.3, 0.85),
           (0.0, 0.35), (-0.3, 0.85), (-0.55, 0.3), (-1.15, 0.75), (-1.0, 0.1)]
    return np.array([[centre[0] + r * px, centre[1] + r * py, z] for px, py in pts])


def _piece_ops(cam, scene: Scene, piece: _Piece, light: _Light) -> list:
    """The polygons (image points, colour) that draw a piece, back to front."""
    radius = scene.piece_diameter * scene.square_mm / 2
    parts = _cylinders(scene, piece)
    ops: list = []
    for k, (centre, z0, z1) in enumerate(parts):
        _cylinder_ops(ops, cam, centre, z0, z1, radius, piece.colour, light,
                      scene.engraving if k == len(parts) - 1 else 0.0)
    centre, _, z1 = parts[-1]
    if piece.king and scene.king_mark == "crown":
        # a gilt medallion with a crown stamped in it, as on many sets' king side
        ops.append((cam.project(_circle(centre, radius * 0.42, z1), distort=False),
                    piece.mark * light.horizontal))
        ops.append((cam.project(_crown(centre, radius, z1), distort=False),
                    piece.mark * light.horizontal * 0.72))
    elif piece.king and scene.king_mark == "sticker":  # a flat disc stuck on its top
        ops.append((cam.project(_circle(centre, radius * 0.55, z1), distort=False),
                    piece.mark * light.horizontal))
    if scene.gloss > 0:  # the light's reflection on a glossy top, off-centre towards it
        towards = light.direction[:2] * radius * 0.35
        spot = (centre[0] + towards[0], centre[1] + towards[1])
        shine = piece.colour * light.horizontal * (1 - scene.gloss) + 255.0 * scene.gloss
        ops.append((cam.project(_circle(spot, radius * 0.2, z1), distort=False), shine))
    return ops


def _shadow_polygon(cam, centre, z_top, radius, light: _Light) -> np.ndarray:
    base = _circle(centre, radius, 0.0, 24)
    top = _circle(centre, radius, z_top, 24)
    d = light.direction
    cast = top - np.outer(top[:, 2] / d[2], d)
    pts = cam.project(np.vstack([base, cast]), distort=False).astype(np.float32)
    return cv2.convexHull(pts).reshape(-1, 2)


# --- hands ------------------------------------------------------------------------------

def _hand_parts(hand: Hand, scene: Scene):
    """3D outlines (N, 3) of the arm, sleeve and hand, with their colours, back to front."""
    a = np.radians(hand.from_deg)
    back = np.array([np.cos(a), np.sin(a)])  # towards the shoulder
    side = np.array([-back[1], back[0]])
    palm = np.array([hand.x, hand.y])
    z = hand.height + scene.piece_height * scene.square_mm

    def strip(p0, p1, w0, w1, z0, z1):
        return np.array([[*(p0 + side * w0 / 2), z0], [*(p1 + side * w1 / 2), z1],
                         [*(p1 - side * w1 / 2), z1], [*(p0 - side * w0 / 2), z0]])

    wrist = palm + back * 55
    elbow = palm + back * 330
    shoulder = palm + back * 900
    parts = [
        (strip(shoulder, elbow, 130, 100, z + 320, z + 120), np.array(hand.sleeve, np.float32)),
        (strip(elbow, wrist + back * 60, 100, 66, z + 120, z + 25), np.array(hand.skin) * 0.97),
        (strip(wrist + back * 60, wrist, 66, 62, z + 25, z + 10), np.array(hand.skin) * 0.95),
    ]
    ang = np.linspace(0, 2 * np.pi, 28, endpoint=False)
    ellipse = np.stack([np.cos(ang) * 52, np.sin(ang) * 44], axis=1)
    palm_pts = palm + ellipse[:, :1] * back + ellipse[:, 1:] * side
    parts.append((np.column_stack([palm_pts, np.full(len(ang), z)]), np.array(hand.skin)))
    for k, spread in enumerate((-0.32, -0.1, 0.1, 0.3)):
        direction = -back * np.cos(spread) + side * np.sin(spread)
        root = palm - back * 35 + side * (k - 1.5) * 20
        tip = root + direction * (62 + 8 * (k in (1, 2)))
        finger = strip(root, tip, 19, 16, z - 2, z - 12)
        parts.append((finger, np.array(hand.skin) * 0.93))
    thumb_root = palm + side * 42 + back * 10
    thumb = strip(thumb_root, thumb_root - back * 35 + side * 30, 22, 18, z - 2, z - 8)
    parts.append((thumb, np.array(hand.skin) * 0.9))
    return parts


# --- the whole frame ---------------------------------------------------------------------

# 5.5 MB an entry at 1280x720, one a camera (a scene's, or a calibration target's): two
# are kept, as for `_grain`.
@lru_cache(maxsize=2)
def _distortion_maps(intr: Intrinsics, margin_x: int, margin_y: int):
    """For each output (distorted) pixel, where it lies in the ideal image with margins,
    as OpenCV's fixed-point maps, and the coarse grid they are interpolated from (every
    DISTORTION_STEP pixels): the field is smooth."""
    step = DISTORTION_STEP
    xs = np.arange(0, intr.width + step, step, dtype=np.float64)
    ys = np.arange(0, intr.height + step, step, dtype=np.float64)
    gx, gy = np.meshgrid(xs, ys)
    with np.errstate(over="ignore", invalid="ignore"):
        ideal = intr.undistort_pixels(np.stack([gx.ravel(), gy.ravel()], axis=1))
    # a strong wide-angle lens folds over at the frame's corners: no ideal point maps
    # there and the inverse diverges; those pixels show the ideal image's edge
    ideal = np.nan_to_num(ideal, nan=-1e6, posinf=1e6, neginf=-1e6)
    mx = np.clip(ideal[:, 0] + margin_x, 0, intr.width + 2 * margin_x)
    my = np.clip(ideal[:, 1] + margin_y, 0, intr.height + 2 * margin_y)
    mx = mx.reshape(gx.shape).astype(np.float32)
    my = my.reshape(gx.shape).astype(np.float32)
    # bilinear upsampling with grid point j at pixel j * step exactly
    fx, fy = np.meshgrid(np.arange(intr.width, dtype=np.float32) / step,
                         np.arange(intr.height, dtype=np.float32) / step)
    fine_x = cv2.remap(mx, fx, fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    fine_y = cv2.remap(my, fx, fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    m1, m2 = cv2.convertMaps(fine_x, fine_y, cv2.CV_16SC2)
    return m1, m2, mx, my


def _clip_polygon(pts: np.ndarray, x0: float, y0: float, x1: float, y1: float):
    """A convex polygon cut to a box (Sutherland-Hodgman): an arm reaching far out of the
    view must not hand OpenCV coordinates its fixed-point arithmetic overflows on, which
    would draw its edges differently depending on where the canvas starts."""
    out = np.asarray(pts, np.float64)
    for axis, limit, keep in ((0, x0, 1), (0, x1, -1), (1, y0, 1), (1, y1, -1)):
        if len(out) == 0:
            break
        inside = (out[:, axis] - limit) * keep >= 0
        if inside.all():
            continue
        nxt = np.roll(out, -1, axis=0)
        cut = []
        for a, b, ia, ib in zip(out, nxt, inside, np.roll(inside, -1), strict=True):
            if ia:
                cut.append(a)
            if ia != ib:
                t = (limit - a[axis]) / (b[axis] - a[axis])
                cut.append(a + t * (b - a))
        out = np.array(cut).reshape(-1, 2)
    return out if len(out) >= 3 else None


def _fixed(pts: np.ndarray) -> np.ndarray:
    """Image points as OpenCV's fixed-point polygon (SHIFT fraction bits)."""
    return np.round(np.asarray(pts) * ONE).astype(np.int32)


def _box(polygons) -> tuple[int, int, int, int]:
    """Pixel box (x0, y0, x1, y1), ends excluded, around fixed-point polygons."""
    allp = np.vstack(polygons)
    lo, hi = allp.min(axis=0) >> SHIFT, (allp.max(axis=0) >> SHIFT) + 2
    return int(lo[0]), int(lo[1]), int(hi[0]), int(hi[1])


def _meets(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@dataclass
class _Drawn:
    """One thing on the board (a piece, a hand): its polygons (fixed point, colour) in
    drawing order, the polygons of its shadow, and the boxes around both."""

    ops: list
    shadows: list
    depth: float = 0.0  # pieces are drawn far to near

    def __post_init__(self):
        self.box = _box([p for p, _ in self.ops]) if self.ops else (0, 0, 0, 0)
        self.shadow_box = _box(self.shadows) if self.shadows else (0, 0, 0, 0)


class _Pose:
    """Everything that stays while only pieces and hands change: the camera, the light,
    the table and the board drawn once, the light field, the lens, and each piece as
    drawn on each square."""

    def __init__(self, scene: Scene, once: bool = False):
        self.scene = scene
        self.cam = cam = board_camera(scene)
        intr = cam.intrinsics
        self.distorted = intr.distorted
        self.mx = int(intr.width * MARGIN) if intr.distorted else 0
        self.my = int(intr.height * MARGIN) if intr.distorted else 0
        ideal = Intrinsics(intr.width + 2 * self.mx, intr.height + 2 * self.my, intr.fx,
                           intr.fy, intr.cx + self.mx, intr.cy + self.my)
        self.icam = Camera(ideal, cam.R, cam.t)
        self.colours = scene_colours(scene)
        self.light = _light(scene)
        self.h, self.w = ideal.height, ideal.width
        self.out_h, self.out_w = intr.height, intr.width
        rng = np.random.default_rng(scene.seed)
        self.background = self._background(rng)
        # where a part of a frame is drawn; a pose drawn only once draws on its background
        self.scratch = self.background if once else np.empty_like(self.background)
        self.scratch_shadow = np.empty((self.h, self.w), np.float32)
        self.field = self._field(rng)
        px_per_mm = float(intr.fx / np.linalg.norm(cam.centre))
        self.shadow_sigma = max(0.6, scene.shadow_softness * scene.square_mm * px_per_mm)
        self.shadow_pad = int(4 * self.shadow_sigma) + 2  # OpenCV's kernel reaches 4 sigma
        light = self.light
        self.shadow_strength = 0.85 * light.diffuse * light.direction[2] / light.horizontal
        self.blur_pad = int(4 * scene.blur) + 2 if scene.blur > 0.05 else 0
        self.motion_kernel = _motion_kernel(*scene.motion)
        if self.motion_kernel is not None:
            self.blur_pad += self.motion_kernel.shape[0] // 2 + 2
        if self.distorted:
            self.m1, self.m2, self.grid_x, self.grid_y = _distortion_maps(intr, self.mx,
                                                                           self.my)
        self.tile_sources = self._tile_sources()
        self.pieces: dict[tuple[int, str], _Drawn] = {}
        self.hands: dict[Hand, list[_Drawn]] = {}

    def _background(self, rng) -> np.ndarray:
        """The table, the sides of the board slab the camera sees, the board's top face."""
        scene, icam, colours, light = self.scene, self.icam, self.colours, self.light
        h, w = self.h, self.w
        img = np.empty((h, w, 3), np.float32)
        img[:] = colours["table"] * light.horizontal
        img *= (1 + 0.05 * _smooth_noise((h, w), 5, rng))[..., None]
        half, thick = scene.board_mm / 2, scene.board_thickness_mm
        eye = icam.centre
        for nx, ny in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            if nx * eye[0] + ny * eye[1] <= half:
                continue
            if nx:
                (x0, y0), (x1, y1) = (nx * half, -half), (nx * half, half)
            else:
                (x0, y0), (x1, y1) = (-half, ny * half), (half, ny * half)
            face = np.array([[x0, y0, 0], [x1, y1, 0], [x1, y1, -thick], [x0, y0, -thick]])
            _poly(img, icam.project(face, distort=False),
                  colours["frame"] * 0.8 * light.shade(np.array([nx, ny, 0.0])))
        ppm = min(3.0, 1000 / scene.board_mm)
        tex = board_texture(scene, colours, ppm) * light.horizontal
        to_world = np.array([[1 / ppm, 0, -half + 0.5 / ppm], [0, -1 / ppm, half - 0.5 / ppm],
                             [0, 0, 1]])
        H = icam.plane_homography(0.0) @ to_world
        cv2.warpPerspective(tex, H, (w, h), dst=img, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_TRANSPARENT)
        return img

    def _field(self, rng) -> np.ndarray:
        """Uneven light, vignette, exposure and white balance: one gain per pixel."""
        scene, h, w = self.scene, self.h, self.w
        yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
        nxx, nyy = (xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)
        ga = rng.uniform(0, 2 * np.pi)
        field = (1 + scene.gradient * (np.cos(ga) * nxx + np.sin(ga) * nyy) / 1.4)
        field *= 1 - scene.vignette * (nxx ** 2 + nyy ** 2) / 2
        field *= 1 + scene.gradient * 0.3 * _smooth_noise(field.shape, 3, rng)
        gx, gy, radius, strength = scene.glow
        if strength > 0:  # a lamp's glow or a flash: light added round one point
            r2 = ((xx / w - gx) ** 2 + ((yy - h * gy) / w) ** 2) / max(radius, 1e-3) ** 2
            field += strength * np.exp(-r2 / 2)
        field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR) * scene.exposure
        return field[..., None] * np.array(scene.tint, np.float32)

    def _tile_sources(self) -> np.ndarray:
        """(rows, cols, 4): for each output tile (with the blur's reach around it), the
        box of the ideal image (x0, y0, x1, y1) its pixels are made from."""
        rows, cols = -(-self.out_h // TILE), -(-self.out_w // TILE)
        pad = self.blur_pad
        out = np.empty((rows, cols, 4), np.int64)
        if not self.distorted:
            x0 = np.clip(np.arange(cols) * TILE - pad, 0, self.out_w - 1)
            x1 = np.clip((np.arange(cols) + 1) * TILE - 1 + pad, 0, self.out_w - 1)
            y0 = np.clip(np.arange(rows) * TILE - pad, 0, self.out_h - 1)
            y1 = np.clip((np.arange(rows) + 1) * TILE - 1 + pad, 0, self.out_h - 1)
            out[..., 0], out[..., 2] = x0[None, :], x1[None, :] + 1
            out[..., 1], out[..., 3] = y0[:, None], y1[:, None] + 1
            return out
        # bilinear interpolation stays within the grid points around a tile: for tile c,
        # points 4c - k .. 4c + 5 + k (k grid steps for the blur's reach), edge repeated
        per, k = TILE // DISTORTION_STEP, -(-pad // DISTORTION_STEP)
        win = per + 2 * k + 2
        windows = []
        for grid in (self.grid_x, self.grid_y):
            padded = np.pad(grid, ((k, rows * per + win), (k, cols * per + win)), mode="edge")
            view = np.lib.stride_tricks.sliding_window_view(padded, (win, win))
            windows.append(view[::per, ::per][:rows, :cols])
        out[..., 0] = np.floor(windows[0].min(axis=(2, 3))).astype(np.int64) - 1
        out[..., 1] = np.floor(windows[1].min(axis=(2, 3))).astype(np.int64) - 1
        out[..., 2] = np.ceil(windows[0].max(axis=(2, 3))).astype(np.int64) + 3
        out[..., 3] = np.ceil(windows[1].max(axis=(2, 3))).astype(np.int64) + 3
        out[..., [0, 2]] = np.clip(out[..., [0, 2]], 0, self.w)
        out[..., [1, 3]] = np.clip(out[..., [1, 3]], 0, self.h)
        return out

    # --- what stands on the board

    def piece(self, square: int, kind: str) -> _Drawn:
        key = (square, kind)
        if key not in self.pieces:
            scene, icam, light = self.scene, self.icam, self.light
            p = _piece(scene, square, kind, self.colours)
            radius = scene.piece_diameter * scene.square_mm / 2
            shadows = [_fixed(_shadow_polygon(icam, centre, z1, radius, light))
                       for centre, _, z1 in _cylinders(scene, p)]
            ops = [(_fixed(pts), tuple(float(c) for c in colour))
                   for pts, colour in _piece_ops(icam, scene, p, light)]
            depth = -float(np.linalg.norm(icam.centre - np.array([p.x, p.y, 0.0])))
            self.pieces[key] = _Drawn(ops, shadows, depth)
        return self.pieces[key]

    def hand(self, hand: Hand) -> list[_Drawn]:
        """The parts of an arm and hand, back to front, each with its shadow."""
        if hand not in self.hands:
            if len(self.hands) > 64:  # a hand rarely comes back once it has moved on
                self.hands.clear()
            parts = []
            d = self.light.direction
            shade = self.light.horizontal + 0.1
            box = (-64, -64, self.w + 64, self.h + 64)
            for outline, colour in _hand_parts(hand, self.scene):
                cast = _project_clipped(self.icam, outline - np.outer(outline[:, 2] / d[2], d))
                if cast is not None:
                    cast = _clip_polygon(cv2.convexHull(cast.astype(np.float32))
                                         .reshape(-1, 2), *box)
                pts = _project_clipped(self.icam, outline)
                if pts is not None:
                    pts = _clip_polygon(pts, *box)
                shadows = [] if cast is None else [_fixed(cast)]
                ops = [] if pts is None else \
                    [(_fixed(pts), tuple(float(c) for c in colour * shade))]
                parts.append(_Drawn(ops, shadows))
            self.hands[hand] = parts
        return self.hands[hand]

    # --- drawing a part of the frame

    def compose(self, box, pieces: list[_Drawn], hands: list[_Drawn]) -> np.ndarray:
        """The ideal (undistorted) image inside `box`, lit: the background, the shadows,
        the pieces and the hands over them. Polygons are drawn whole on full-size
        scratch images, never cut to the box: OpenCV's anti-aliased fill draws a polygon
        that crosses the canvas edge differently, and a part must match the whole."""
        x0, y0, x1, y1 = box
        img = self.scratch
        if img is not self.background:
            img[y0:y1, x0:x1] = self.background[y0:y1, x0:x1]
        p = self.shadow_pad
        sbox = (max(0, x0 - p), max(0, y0 - p), min(self.w, x1 + p), min(self.h, y1 + p))
        shadow = self.scratch_shadow
        shadow[sbox[1]:sbox[3], sbox[0]:sbox[2]] = 0
        for thing in (*pieces, *hands):
            if _meets(thing.shadow_box, sbox):
                for s in thing.shadows:  # one at a time: overlaps must not cancel
                    cv2.fillPoly(shadow, [s], (1.0,), cv2.LINE_AA, SHIFT)
        blurred = cv2.GaussianBlur(shadow[sbox[1]:sbox[3], sbox[0]:sbox[2]], (0, 0),
                                   self.shadow_sigma)
        blurred = blurred[y0 - sbox[1]:y1 - sbox[1], x0 - sbox[0]:x1 - sbox[0]]
        img[y0:y1, x0:x1] *= (1 - self.shadow_strength * np.clip(blurred, 0, 1))[..., None]
        for thing in (*pieces, *hands):
            if _meets(thing.box, box):
                for pts, colour in thing.ops:
                    cv2.fillPoly(img, [pts], colour, cv2.LINE_AA, SHIFT)
        return img[y0:y1, x0:x1] * self.field[y0:y1, x0:x1]

    def draw(self, out: np.ndarray, tiles, pieces: list[_Drawn], hands: list[_Drawn]) -> None:
        """Redraw the output tiles rows [r0, r1) x cols [c0, c1) of `out`: compose the
        ideal image they come from, through the lens, blurred."""
        r0, r1, c0, c1 = tiles
        src = self.tile_sources[r0:r1, c0:c1].reshape(-1, 4)
        box = (int(src[:, 0].min()), int(src[:, 1].min()), int(src[:, 2].max()),
               int(src[:, 3].max()))
        img = self.compose(box, pieces, hands)
        ox0, oy0 = c0 * TILE, r0 * TILE
        ox1, oy1 = min(c1 * TILE, self.out_w), min(r1 * TILE, self.out_h)
        pad = self.blur_pad
        ex0, ey0 = max(0, ox0 - pad), max(0, oy0 - pad)
        ex1, ey1 = min(self.out_w, ox1 + pad), min(self.out_h, oy1 + pad)
        if self.distorted:
            m1 = self.m1[ey0:ey1, ex0:ex1]
            if box[0] or box[1]:
                m1 = m1 - np.array([box[0], box[1]], np.int16)
            img = cv2.remap(img, m1, self.m2[ey0:ey1, ex0:ex1], cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)
        else:
            img = img[ey0 - box[1]:ey1 - box[1], ex0 - box[0]:ex1 - box[0]]
        if self.scene.blur > 0.05:
            img = cv2.GaussianBlur(img, (0, 0), self.scene.blur)
        if self.motion_kernel is not None:
            img = cv2.filter2D(img, -1, self.motion_kernel, borderType=cv2.BORDER_REPLICATE)
        out[oy0:oy1, ox0:ox1] = img[oy0 - ey0:oy1 - ey0, ox0 - ex0:ox1 - ex0]

    def dirty_tiles(self, things: list[_Drawn]) -> np.ndarray:
        """(rows, cols) bool: the output tiles whose pixels any of `things` (as it is
        now, or as it was) may reach, its shadow and the blur included."""
        cells: np.ndarray = np.zeros((-(-self.h // DIRTY_CELL), -(-self.w // DIRTY_CELL)), np.uint8)
        polygons = [p for t in things for p in (*(q for q, _ in t.ops), *t.shadows)]
        if polygons:
            # fixed point to cells in one shift; thin polygons still mark their cells;
            # one at a time, as overlapping polygons in one call cancel out
            shift = SHIFT + DIRTY_CELL.bit_length() - 1
            for polygon in polygons:
                cv2.fillPoly(cells, [polygon], 1, cv2.LINE_8, shift)
            cv2.polylines(cells, polygons, True, 1, cv2.LINE_8, shift)
            reach = -(-(self.shadow_pad + 2) // DIRTY_CELL)
            cells = cv2.dilate(cells, np.ones((2 * reach + 1, 2 * reach + 1), np.uint8))
        total = cv2.integral(cells)
        s = self.tile_sources
        cx0, cy0 = s[..., 0] // DIRTY_CELL, s[..., 1] // DIRTY_CELL
        cx1, cy1 = -(-s[..., 2] // DIRTY_CELL), -(-s[..., 3] // DIRTY_CELL)
        inside = total[cy1, cx1] - total[cy0, cx1] - total[cy1, cx0] + total[cy0, cx0]
        return inside > 0

    def finish(self, img: np.ndarray, scale: np.ndarray | None, noise_seed: int) -> np.ndarray:
        """Sensor noise (shot noise grows with brightness, read noise does not; `scale`
        holds its size per pixel), 8 bits, BGR, JPEG."""
        scene = self.scene
        if scale is not None:
            noise = _sensor_noise(img.size, (scene.seed * 31 + noise_seed) & 0x7FFFFFFF)
            img = np.multiply(noise.reshape(img.shape), scale) + img
        else:
            img = img.copy()
        img += 0.5
        np.clip(img, 0, 255, out=img)
        out = cv2.cvtColor(img.astype(np.uint8), cv2.COLOR_RGB2BGR)
        if scene.jpeg_quality:
            ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
            decoded = cv2.imdecode(data, cv2.IMREAD_COLOR)
            assert decoded is not None  # the JPEG just encoded
            out = decoded
        return out


def _motion_kernel(length: float, direction_deg: float) -> np.ndarray | None:
    """A line of `length` pixels in `direction_deg`: the smear of a camera or board that
    moved while the shutter was open; None when too short to show."""
    if length < 1:
        return None
    k = 2 * int(np.ceil(length / 2)) + 1
    kernel = np.zeros((k, k), np.float32)
    a = np.radians(direction_deg)
    half = np.array([np.cos(a), np.sin(a)]) * length / 2
    c = (k // 2, k // 2)
    cv2.line(kernel, (int(round(c[0] - half[0])), int(round(c[1] - half[1]))),
             (int(round(c[0] + half[0])), int(round(c[1] + half[1]))), 1.0, 1, cv2.LINE_AA)
    return kernel / kernel.sum()


@lru_cache(maxsize=2)
def _noise_bank(size: int) -> np.ndarray:
    """Unit Gaussian noise for a frame of `size` values and a million more: each frame
    reads its own window of it (drawing 3 million values a frame cost more than all the
    rest of a frame)."""
    bank = np.empty(size + NOISE_WINDOWS, np.float32)
    cv2.setRNGSeed(0x5EED)
    cv2.randn(bank, 0.0, 1.0)  # type: ignore[call-overload]  # the stubs want arrays
    return bank


def _sensor_noise(size: int, seed: int) -> np.ndarray:
    """A frame's noise: independent from pixel to pixel and from one seed to the next
    (another window is another draw for every pixel), the same for the same seed."""
    start = random.Random(seed).randrange(NOISE_WINDOWS)
    return _noise_bank(size)[start:start + size]


def _rectangles(dirty: np.ndarray) -> list[tuple[int, int, int, int]]:
    """Cover the True cells of a grid with few rectangles (rows r0:r1, cols c0:c1): runs
    along each row, stacked where consecutive rows have the same run."""
    done: list[list[int]] = []
    open_runs: dict[tuple[int, int], list[int]] = {}
    for r, row in enumerate(dirty):
        runs, c = [], 0
        cols = len(row)
        while c < cols:
            if row[c]:
                start = c
                while c < cols and row[c]:
                    c += 1
                runs.append((start, c))
            c += 1
        still = {}
        for run in runs:
            rect = open_runs.pop(run, None)
            if rect is not None and rect[1] == r:
                rect[1] = r + 1
            else:
                rect = [r, r + 1, run[0], run[1]]
            still[run] = rect
        done += open_runs.values()
        open_runs = still
    done += open_runs.values()
    return [(x0, y0, x1, y1) for x0, y0, x1, y1 in done]


class Renderer:
    """Renders frame after frame of one camera, redrawing only what changed.

    The board, the table, the light and the lens are drawn once per pose (the scene
    without its hands and noise); a frame then recomposes only the tiles that a piece
    put down or taken away, or a hand as it was or is now, can reach, and adds the
    frame's sensor noise. Each frame is what `render` draws from scratch (a test
    compares them).
    """

    def __init__(self, once: bool = False):
        self.once = once  # one frame only: nothing is kept for the next
        self.pose: _Pose | None = None
        self.pieces: dict[int, str] = {}
        self.hands: tuple[Hand, ...] = ()
        self.image: np.ndarray | None = None  # the frame before noise, float RGB
        self.scale: np.ndarray | None = None  # the sensor noise's size per pixel
        self.redrawn = 0.0  # share of the last frame's tiles redrawn

    def render(self, scene: Scene, pieces: dict[int, str]) -> Rendered:
        pose_scene = scene.with_(hands=(), noise_seed=0)
        pose, image = self.pose, self.image  # (both None before the first frame)
        pieces = dict(pieces)
        if pose is None or image is None or pose.scene != pose_scene:
            pose = self.pose = _Pose(pose_scene, once=self.once)
            image = self.image = np.empty((pose.out_h, pose.out_w, 3), np.float32)
            self.scale = np.empty_like(image) if scene.noise > 0 else None
            dirty = np.ones(pose.tile_sources.shape[:2], bool)
        else:
            changed = [pose.piece(sq, kind) for sq in set(pieces) | set(self.pieces)
                       if pieces.get(sq) != self.pieces.get(sq)
                       for kind in (pieces.get(sq), self.pieces.get(sq)) if kind is not None]
            if scene.hands != self.hands:
                changed += [part for hand in (*self.hands, *scene.hands)
                            for part in pose.hand(hand)]
            dirty = pose.dirty_tiles(changed)
        self.pieces, self.hands = pieces, scene.hands
        self.redrawn = float(dirty.mean())
        scale = self.scale
        if dirty.any():
            drawn = sorted((pose.piece(sq, kind) for sq, kind in pieces.items()),
                           key=lambda d: d.depth)
            hands = [part for hand in scene.hands for part in pose.hand(hand)]
            for tiles in _rectangles(dirty):
                pose.draw(image, tiles, drawn, hands)
                if scale is not None:
                    _noise_scale(image, scale, pose.scene.noise, tiles)
        return Rendered(pose.finish(image, scale, scene.noise_seed), pose.cam, scene)


def _noise_scale(image: np.ndarray, scale: np.ndarray, noise: float, tiles) -> None:
    """The sensor noise's size per pixel of `tiles` of `image`, into `scale`."""
    r0, r1, c0, c1 = tiles
    rows, cols = slice(r0 * TILE, r1 * TILE), slice(c0 * TILE, c1 * TILE)
    bright = np.clip(image[rows, cols], 0, 255)
    scale[rows, cols] = noise * np.sqrt(0.3 + 0.7 * bright / 255.0)


def render(scene: Scene, pieces: dict[int, str]) -> Rendered:
    """Draw `pieces` ({square: 'w'|'b'|'W'|'B'}) in `scene`."""
    return Renderer(once=True).render(scene, pieces)


def render_position(scene: Scene, position) -> Rendered:
    """Render a `damas.rules.Position` (the scene's board size must match)."""
    if position.variant.size != scene.size:
        raise ValueError(f"scene is {scene.size}x{scene.size}, position "
                         f"{position.variant.size}x{position.variant.size}")
    return render(scene, position.pieces())


def chessboard_texture(pattern: tuple[int, int], square_mm: float, px_per_mm: float = 4.0):
    """A printed chessboard with `pattern` inner corners and a one-square white margin:
    (grey texture, width mm, height mm)."""
    cols, rows = pattern[0] + 1, pattern[1] + 1
    side = int(round(square_mm * px_per_mm))
    tex = np.full(((rows + 2) * side, (cols + 2) * side), 235, np.uint8)
    for r in range(rows):
        for c in range(cols):
            if (r + c) % 2 == 0:
                tex[(r + 1) * side:(r + 2) * side, (c + 1) * side:(c + 2) * side] = 25
    return tex, (cols + 2) * square_mm, (rows + 2) * square_mm


def render_target(intrinsics: Intrinsics, texture: np.ndarray, width_mm: float,
                  height_mm: float, tilt_deg: float, rotation_deg: float, distance_mm: float,
                  offset=(0.0, 0.0), noise: float = 1.0, seed: int = 0) -> np.ndarray:
    """A flat printed target (chessboard, ChArUco board: a grey `texture` covering
    width x height mm) on a grey table, seen through `intrinsics`, lens distortion
    included: test data for camera calibration."""
    th, tw = texture.shape[:2]
    tex = cv2.cvtColor(texture, cv2.COLOR_GRAY2BGR).astype(np.float32) if texture.ndim == 2 \
        else texture.astype(np.float32)
    cam = Camera.looking_at(intrinsics, (offset[0], offset[1], 0.0), distance_mm, tilt_deg,
                            rotation_deg)
    mx = int(intrinsics.width * MARGIN) if intrinsics.distorted else 0
    my = int(intrinsics.height * MARGIN) if intrinsics.distorted else 0
    ideal = Intrinsics(intrinsics.width + 2 * mx, intrinsics.height + 2 * my, intrinsics.fx,
                       intrinsics.fy, intrinsics.cx + mx, intrinsics.cy + my)
    icam = Camera(ideal, cam.R, cam.t)
    sx, sy = width_mm / tw, height_mm / th
    to_world = np.array([[sx, 0, -width_mm / 2 + sx / 2], [0, -sy, height_mm / 2 - sy / 2],
                         [0, 0, 1]])
    img: np.ndarray = np.full((ideal.height, ideal.width, 3), 120, np.float32)
    cv2.warpPerspective(tex, icam.plane_homography(0.0) @ to_world, (ideal.width, ideal.height),
                        dst=img, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    if intrinsics.distorted:
        m1, m2, _, _ = _distortion_maps(intrinsics, mx, my)
        img = cv2.remap(img, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if noise > 0:
        img += np.random.default_rng(seed).normal(0, noise, img.shape).astype(np.float32)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def render_chessboard(intrinsics: Intrinsics, pattern: tuple[int, int], square_mm: float,
                      tilt_deg: float, rotation_deg: float, distance_mm: float,
                      offset=(0.0, 0.0), noise: float = 1.0, seed: int = 0) -> np.ndarray:
    """A printed calibration chessboard (`pattern` inner corners) seen by the camera."""
    tex, w, h = chessboard_texture(pattern, square_mm)
    return render_target(intrinsics, tex, w, h, tilt_deg, rotation_deg, distance_mm, offset,
                         noise, seed)
