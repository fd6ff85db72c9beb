"""The physical-board renderer: a simulated camera whose truth is known.

`render(scene, pieces)` draws the board (frame, squares, grain, optional corner markers)
as a texture warped onto the table plane, then soft shadows, the pieces as shaded
cylinders (kings as stacks of two) far to near, hands and arms above them, uneven light,
lens distortion, blur, sensor noise and JPEG artefacts. Everything is projected polygons
and a few whole-image numpy/OpenCV passes, so a 1280x720 frame takes tens of
milliseconds. The same scene and pieces always give the same pixels.
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
    streaks = rng.standard_normal((texture_px, 48)).astype(np.float32)
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


def _pieces(scene: Scene, pieces: dict[int, str], colours) -> list[_Piece]:
    g = geometry(scene.size)
    s, n = scene.square_mm, scene.size
    out = []
    for square in sorted(pieces):
        # each square's own draw: a piece stays put while others come and go
        rng = random.Random(scene.seed * 7919 + square)
        kind = pieces[square]
        row, col = g.row_col(square)
        jx, jy = (rng.uniform(-1, 1) * scene.piece_jitter * s for _ in range(2))
        colour = colours["white"] if kind in "wW" else colours["black"]
        mark = np.array((214, 172, 60), np.float32)
        shift = (rng.uniform(-0.03, 0.03) * s, rng.uniform(-0.03, 0.03) * s)
        out.append(_Piece((col - n / 2 + 0.5) * s + jx, (n / 2 - row - 0.5) * s + jy,
                          colour * rng.uniform(0.96, 1.04), kind.isupper(), mark, shift))
    return out


def _cylinders(scene: Scene, piece: _Piece):
    """(centre_xy, z_bottom, z_top) of each man in the piece, bottom first."""
    h = scene.piece_height * scene.square_mm
    parts = [((piece.x, piece.y), 0.0, h)]
    if piece.king:
        parts.append(((piece.x + piece.top_shift[0], piece.y + piece.top_shift[1]), h, 2 * h))
    return parts


def _draw_cylinder(img, cam: Camera, centre, z0, z1, radius, colour, light: _Light,
                   top_pattern: bool) -> None:
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
        quad = np.array([pb[i], pb[j], pt[j], pt[i]])
        _poly(img, quad, colour * lam[i] * 0.92)
    _poly(img, pt, colour * light.horizontal)
    if top_pattern:  # the engraved rings of a draughts piece
        for frac, dim in ((0.78, 0.9), (0.7, 1.0), (0.42, 0.93), (0.36, 1.0)):
            ring = cam.project(_circle(centre, radius * frac, z1), distort=False)
            _poly(img, ring, colour * light.horizontal * dim)


def _crown(centre, radius, z) -> np.ndarray:
    """A five-pointed crown outline on top of a king."""
    r = radius * 0.29
    pts = [(-1.0, -0.55), (1.0, -0.55), (1.0, 0.1), (1.15, 0.75), (0.55, 0.3), (0.3, 0.85),
           (0.0, 0.35), (-0.3, 0.85), (-0.55, 0.3), (-1.15, 0.75), (-1.0, 0.1)]
    return np.array([[centre[0] + r * px, centre[1] + r * py, z] for px, py in pts])


def _draw_piece(img, cam, scene: Scene, piece: _Piece, light: _Light) -> None:
    radius = scene.piece_diameter * scene.square_mm / 2
    parts = _cylinders(scene, piece)
    for k, (centre, z0, z1) in enumerate(parts):
        _draw_cylinder(img, cam, centre, z0, z1, radius, piece.colour, light,
                       top_pattern=k == len(parts) - 1)
    if piece.king and scene.king_mark == "crown":
        # a gilt medallion with a crown stamped in it, as on many sets' king side
        centre, _, z1 = parts[-1]
        _poly(img, cam.project(_circle(centre, radius * 0.42, z1), distort=False),
              piece.mark * light.horizontal)
        _poly(img, cam.project(_crown(centre, radius, z1), distort=False),
              piece.mark * light.horizontal * 0.72)


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
    """For each output (distorted) pixel, where it lies in the ideal image with margins.
    Computed on a coarse grid and interpolated: the field is smooth."""
    step = 8
    xs = np.arange(0, intr.width + step, step, dtype=np.float64)
    ys = np.arange(0, intr.height + step, step, dtype=np.float64)
    gx, gy = np.meshgrid(xs, ys)
    ideal = intr.undistort_pixels(np.stack([gx.ravel(), gy.ravel()], axis=1))
    mx = (ideal[:, 0] + margin_x).reshape(gx.shape).astype(np.float32)
    my = (ideal[:, 1] + margin_y).reshape(gx.shape).astype(np.float32)
    # bilinear upsampling with grid point j at pixel j * step exactly
    fx, fy = np.meshgrid(np.arange(intr.width, dtype=np.float32) / step,
                         np.arange(intr.height, dtype=np.float32) / step)
    mx = cv2.remap(mx, fx, fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    my = cv2.remap(my, fx, fy, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return cv2.convertMaps(mx, my, cv2.CV_16SC2)


def render(scene: Scene, pieces: dict[int, str]) -> Rendered:
    """Draw `pieces` ({square: 'w'|'b'|'W'|'B'}) in `scene`."""
    cam = board_camera(scene)
    intr = cam.intrinsics
    mx = int(intr.width * MARGIN) if intr.distorted else 0
    my = int(intr.height * MARGIN) if intr.distorted else 0
    ideal = Intrinsics(intr.width + 2 * mx, intr.height + 2 * my, intr.fx, intr.fy,
                       intr.cx + mx, intr.cy + my)
    icam = Camera(ideal, cam.R, cam.t)
    colours = scene_colours(scene)
    light = _light(scene)
    rng = np.random.default_rng(scene.seed)
    h, w = ideal.height, ideal.width

    img = np.empty((h, w, 3), np.float32)
    img[:] = colours["table"] * light.horizontal
    img *= (1 + 0.05 * _smooth_noise((h, w), 5, rng))[..., None]

    # board slab: the sides the camera sees, then the top face as a texture
    half, thick = scene.board_mm / 2, scene.board_thickness_mm
    eye = icam.centre
    for nx, ny in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        if nx * eye[0] + ny * eye[1] <= half:
            continue
        ex, ey = (ny, nx) if nx == 0 else (nx, ny)
        edge = [(nx * half - ny * half, ny * half + nx * half) if nx else
                (-half, ny * half), (nx * half + ny * half, ny * half - nx * half) if nx else
                (half, ny * half)]
        (x0, y0), (x1, y1) = edge
        face = np.array([[x0, y0, 0], [x1, y1, 0], [x1, y1, -thick], [x0, y0, -thick]])
        _poly(img, icam.project(face, distort=False),
              colours["frame"] * 0.8 * light.shade(np.array([nx, ny, 0.0])))
        del ex, ey
    ppm = min(3.0, 1000 / scene.board_mm)
    tex = board_texture(scene, colours, ppm) * light.horizontal
    side = tex.shape[0]
    to_world = np.array([[1 / ppm, 0, -half + 0.5 / ppm], [0, -1 / ppm, half - 0.5 / ppm],
                         [0, 0, 1]])
    H = icam.plane_homography(0.0) @ to_world
    cv2.warpPerspective(tex, H, (w, h), dst=img, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)
    del side

    # soft shadows of pieces and hands on the board
    placed = _pieces(scene, pieces, colours)
    radius = scene.piece_diameter * scene.square_mm / 2
    shadow = np.zeros((h, w), np.float32)
    for p in placed:
        for centre, _, z1 in _cylinders(scene, p):
            _poly(shadow, _shadow_polygon(icam, centre, z1, radius, light), (1.0,))
    hand_parts = [part for hand in scene.hands for part in _hand_parts(hand, scene)]
    for outline, _ in hand_parts:
        d = light.direction
        cast = outline - np.outer(outline[:, 2] / d[2], d)
        pts = _project_clipped(icam, cast)
        if pts is not None:
            _poly(shadow, cv2.convexHull(pts.astype(np.float32)).reshape(-1, 2), (1.0,))
    if placed or hand_parts:
        px_per_mm = intr.fx / np.linalg.norm(cam.centre)
        sigma = max(0.6, scene.shadow_softness * scene.square_mm * px_per_mm)
        shadow = cv2.GaussianBlur(shadow, (0, 0), sigma)
        strength = light.diffuse * light.direction[2] / light.horizontal
        img *= (1 - 0.85 * strength * np.clip(shadow, 0, 1))[..., None]

    # pieces far to near, then the hands above everything
    placed.sort(key=lambda p: -np.linalg.norm(eye - np.array([p.x, p.y, 0.0])))
    for p in placed:
        _draw_piece(img, icam, scene, p, light)
    for outline, colour in hand_parts:
        pts = _project_clipped(icam, outline)
        if pts is not None:
            _poly(img, pts, colour * (light.horizontal + 0.1))

    # uneven light, white balance, lens, blur, noise, JPEG
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    nxx, nyy = (xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)
    ga = rng.uniform(0, 2 * np.pi)
    field = (1 + scene.gradient * (np.cos(ga) * nxx + np.sin(ga) * nyy) / 1.4)
    field *= 1 - scene.vignette * (nxx ** 2 + nyy ** 2) / 2
    field *= 1 + scene.gradient * 0.3 * _smooth_noise(field.shape, 3, rng)
    field = cv2.resize(field, (w, h), interpolation=cv2.INTER_LINEAR) * scene.exposure
    gains = np.array(scene.tint, np.float32)
    img *= field[..., None]
    img *= gains
    if intr.distorted:
        m1, m2 = _distortion_maps(intr, mx, my)
        img = cv2.remap(img, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if scene.blur > 0.05:
        img = cv2.GaussianBlur(img, (0, 0), scene.blur)
    if scene.noise > 0:
        noise = np.empty_like(img)
        cv2.setRNGSeed((scene.seed * 31 + scene.noise_seed) & 0x7FFFFFFF)
        cv2.randn(noise, 0.0, 1.0)
        # shot noise grows with brightness, read noise does not
        img += noise * (scene.noise * np.sqrt(0.3 + 0.7 * np.clip(img, 0, 255) / 255.0))
    out = cv2.cvtColor(np.clip(img + 0.5, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
    if scene.jpeg_quality:
        ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, scene.jpeg_quality])
        out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    return Rendered(out, cam, scene)


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
    img = np.full((ideal.height, ideal.width, 3), 120, np.float32)
    cv2.warpPerspective(tex, icam.plane_homography(0.0) @ to_world, (ideal.width, ideal.height),
                        dst=img, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_TRANSPARENT)
    if intrinsics.distorted:
        m1, m2 = _distortion_maps(intrinsics, mx, my)
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
