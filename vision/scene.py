"""What the renderer draws: a physical board scene as plain data, and a random one from a
seed. Lengths in millimetres, angles in degrees, colours RGB 0..255."""

from __future__ import annotations

import colorsys
import random
from dataclasses import dataclass, field, replace

import numpy as np

SCHEMES = ("wood", "green", "bw")

# board light, board dark, frame, "white" pieces, "black" pieces (the lighter set is White)
SCHEME_COLOURS = {
    "wood": ((222, 186, 140), (124, 76, 42), (92, 56, 32), (236, 228, 206), (38, 32, 30)),
    "green": ((232, 218, 178), (46, 112, 64), (58, 44, 36), (242, 240, 232), (30, 30, 32)),
    "bw": ((236, 236, 230), (28, 28, 28), (48, 44, 42), (234, 222, 196), (178, 30, 34)),
}


@dataclass(frozen=True)
class Hand:
    """A hand held flat at `height` mm above the board, its arm coming from `from_deg`
    (0 = White's right, 90 = Black's side, 270 = White's side)."""

    x: float  # board coordinates of the palm centre, mm
    y: float
    height: float = 60.0
    from_deg: float = 270.0
    skin: tuple[int, int, int] = (224, 172, 140)
    sleeve: tuple[int, int, int] = (60, 70, 110)


@dataclass(frozen=True)
class Scene:
    size: int = 10
    scheme: str = "wood"
    square_mm: float = 40.0
    frame_mm: float = 36.0
    board_thickness_mm: float = 14.0
    piece_diameter: float = 0.86  # of a square
    piece_height: float = 0.2  # of a square
    piece_jitter: float = 0.05  # largest off-centre shift, of a square
    # how a king shows: "crown" (a gilt medallion), "sticker" (a flat disc on its top),
    # "none" (plain); `king_men` men high: 2 a stack, 1 a single piece marked on top
    king_mark: str = "crown"
    king_men: int = 2
    mark_rgb: tuple[int, int, int] = (214, 172, 60)  # the crown's or sticker's colour
    # (white, black) piece colours instead of the scheme's: any hue, dark on dark
    pieces_rgb: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None
    opacity: float = 1.0  # under 1: translucent pieces, the square showing through
    gloss: float = 0.0  # a glossy top's highlight, 0..1
    # how much darker the rings engraved in every piece's top are (0: a plain top); deep
    # engravings (over 0.25) carve the top's centre too, as many wooden sets are
    engraving: float = 0.1
    markers: bool = False
    # (light, dark) square colours instead of the scheme's (e.g. `equal_grey` squares)
    squares_rgb: tuple[tuple[int, int, int], tuple[int, int, int]] | None = None
    colour_jitter: float = 0.0  # relative change of the scheme colours
    table_rgb: tuple[int, int, int] = (150, 150, 155)
    # camera
    width: int = 1280
    height: int = 720
    hfov_deg: float = 62.0
    tilt_deg: float = 0.0
    rotation_deg: float = 0.0  # azimuth of the camera about the vertical
    roll_deg: float = 0.0
    fill: float = 0.85  # share of the frame's shorter side the board spans
    offset: tuple[float, float] = (0.0, 0.0)  # aim point shift, of the board width
    dist: tuple[float, float, float, float, float] = (0.0, 0.0, 0.0, 0.0, 0.0)
    # light
    light_azimuth_deg: float = 135.0
    light_elevation_deg: float = 60.0
    ambient: float = 0.45
    shadow_softness: float = 0.08  # penumbra, of a square
    gradient: float = 0.0  # strength of uneven illumination, 0..0.5
    vignette: float = 0.0
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)  # white balance gains, RGB
    exposure: float = 1.0
    # a lamp's glow or a flash: (x, y) centre in the frame (0..1), radius (of the frame's
    # width) and strength (light added at its centre, of the frame's own)
    glow: tuple[float, float, float, float] = (0.5, 0.5, 0.2, 0.0)
    # sensor
    noise: float = 0.0  # standard deviation, grey levels
    blur: float = 0.0  # Gaussian sigma, pixels
    motion: tuple[float, float] = (0.0, 0.0)  # motion blur: length in pixels, direction deg
    jpeg_quality: int = 0  # 0: no JPEG round trip
    hands: tuple[Hand, ...] = ()
    seed: int = 0  # the physical set: colours, grain, where each piece sits
    noise_seed: int = 0  # this frame's sensor noise

    def with_(self, **changes) -> Scene:
        return replace(self, **changes)

    @property
    def board_mm(self) -> float:
        """Outer width of the board including its frame."""
        return self.size * self.square_mm + 2 * self.frame_mm


# OpenCV's grey level (BT.601 luma) of an RGB colour: what the X-corner search sees
LUMA = (0.299, 0.587, 0.114)


def luma(rgb) -> float:
    return float(sum(w * c for w, c in zip(LUMA, rgb, strict=True)))


def equal_grey(hue_deg: float, grey: float, saturation: float = 1.0) -> tuple[int, int, int]:
    """The colour of hue `hue_deg` (0 red, 120 green, 240 blue) whose grey level is
    `grey`: a chroma of zero luma added to that grey, as strong as fits in 0..255 times
    `saturation` (0..1). Two such colours make squares that only their hue tells apart
    (a printed red/green board)."""
    pure = np.array(colorsys.hsv_to_rgb((hue_deg % 360) / 360, 1.0, 1.0)) * 255
    chroma = pure - luma(pure)  # zero luma: adding it keeps the grey level
    room = [(255 - grey) / c if c > 0 else grey / -c for c in chroma if abs(c) > 1e-9]
    rgb = grey + saturation * min(room) * chroma
    return (int(round(rgb[0])), int(round(rgb[1])), int(round(rgb[2])))


@dataclass(frozen=True)
class SceneRanges:
    """The spread of conditions `random_scene` draws from."""

    tilt: tuple[float, float] = (0.0, 45.0)
    schemes: tuple[str, ...] = SCHEMES
    sizes: tuple[int, ...] = (10, 8)
    markers_share: float = 0.5
    noise: tuple[float, float] = (0.0, 6.0)
    blur: tuple[float, float] = (0.0, 1.5)
    distortion: tuple[float, float] = (-0.08, 0.03)
    extra: dict = field(default_factory=dict)


def random_scene(rng: random.Random, ranges: SceneRanges = SceneRanges(), **fixed) -> Scene:
    """A plausible webcam scene; anything in `fixed` overrides the draw."""
    size = rng.choice(ranges.sizes)
    square = rng.uniform(36, 44) if size == 10 else rng.uniform(40, 52)
    grey = rng.uniform(60, 220)
    r, g, b = (int(min(255, max(0, grey * rng.uniform(0.8, 1.15)))) for _ in range(3))
    table = (r, g, b)
    warm = rng.uniform(-0.08, 0.08)
    scene = Scene(
        size=size,
        scheme=rng.choice(ranges.schemes),
        square_mm=square,
        frame_mm=square * rng.uniform(0.75, 1.0),
        piece_diameter=rng.uniform(0.82, 0.9),
        piece_height=rng.uniform(0.17, 0.24),
        markers=rng.random() < ranges.markers_share,
        colour_jitter=0.08,
        table_rgb=table,
        hfov_deg=rng.uniform(55, 70),
        tilt_deg=rng.uniform(*ranges.tilt),
        rotation_deg=rng.uniform(0, 360),
        roll_deg=rng.uniform(-4, 4),
        fill=rng.uniform(0.72, 0.92),
        offset=(rng.uniform(-0.04, 0.04), rng.uniform(-0.04, 0.04)),
        dist=(rng.uniform(*ranges.distortion), rng.uniform(-0.02, 0.02), 0.0, 0.0, 0.0),
        light_azimuth_deg=rng.uniform(0, 360),
        light_elevation_deg=rng.uniform(35, 85),
        ambient=rng.uniform(0.35, 0.6),
        shadow_softness=rng.uniform(0.04, 0.15),
        gradient=rng.uniform(0.0, 0.35),
        vignette=rng.uniform(0.0, 0.3),
        tint=(1 + warm, 1.0, 1 - warm),
        exposure=rng.uniform(0.8, 1.15),
        noise=rng.uniform(*ranges.noise),
        blur=rng.uniform(*ranges.blur),
        jpeg_quality=rng.choice([0, 95, 85, 70, 50]),
        seed=rng.randrange(1 << 30),
        noise_seed=rng.randrange(1 << 30),
    )
    return scene.with_(**fixed) if fixed else scene


def hand_over(scene: Scene, x_mm: float, y_mm: float, rng: random.Random,
              height: float | None = None) -> Hand:
    """A hand with a random skin tone and sleeve, its arm from a random player's side."""
    skins = [(236, 192, 160), (224, 172, 140), (198, 140, 100), (150, 100, 70), (100, 68, 48)]
    return Hand(x=x_mm, y=y_mm,
                height=height if height is not None else rng.uniform(30, 110),
                from_deg=rng.choice([270.0, 90.0, 0.0, 180.0]) + rng.uniform(-30, 30),
                skin=rng.choice(skins),
                sleeve=(rng.randrange(20, 230), rng.randrange(20, 230), rng.randrange(20, 230)))


def _hue(rng: random.Random, value: tuple[float, float],
         saturation: tuple[float, float] = (0.0, 1.0)) -> tuple[int, int, int]:
    r, g, b = colorsys.hsv_to_rgb(rng.random(), rng.uniform(*saturation), rng.uniform(*value))
    return (int(r * 255), int(g * 255), int(b * 255))


def varied_scene(rng: random.Random, ranges: SceneRanges = SceneRanges(), **fixed) -> Scene:
    """A scene of any set under any light, for training a reader and for checking one on
    sets it was not made on: squares of any two colours (also two hues of one grey), pieces
    of any colours (also dark men on dark squares) and sizes, translucent or glossy, kings crowned,
    stickered or plain, stacked or not; lamps, flash, fisheye, low resolution, motion blur.
    Each draw keeps most of `random_scene`'s plausible webcam and adds a few of these."""
    scene = random_scene(rng, ranges)
    change: dict = {}
    if rng.random() < 0.5:  # squares: any hue and lightness, or two hues of one grey
        if rng.random() < 0.3:
            grey, hue = rng.uniform(90, 170), rng.uniform(0, 360)
            change["squares_rgb"] = (equal_grey(hue, grey, rng.uniform(0.4, 0.9)),
                                     equal_grey(hue + rng.uniform(90, 270), grey,
                                                rng.uniform(0.4, 0.9)))
        else:
            change["squares_rgb"] = (_hue(rng, (0.65, 1.0), (0.0, 0.5)),
                                     _hue(rng, (0.1, 0.55)))
    if rng.random() < 0.5:  # pieces: any light and dark colours
        dark = _hue(rng, (0.05, 0.4))
        if "squares_rgb" in change and rng.random() < 0.4:  # dark men on dark squares,
            # as dark as the square or darker (black men on dark brown)
            r, g, b = (min(255, int(c * rng.uniform(0.4, 1.2)))
                       for c in change["squares_rgb"][1])
            dark = (r, g, b)
        change["pieces_rgb"] = (_hue(rng, (0.6, 1.0), (0.0, 0.7)), dark)
    if rng.random() < 0.35:  # sets whose men are much smaller than a square, or fill it
        change["piece_diameter"] = rng.uniform(0.4, 0.95)
    change["king_mark"] = rng.choice(["crown", "sticker", "none"])
    change["king_men"] = 1 if change["king_mark"] == "sticker" and rng.random() < 0.5 else 2
    change["mark_rgb"] = rng.choice([(214, 172, 60), (20, 20, 24), (180, 30, 30),
                                     _hue(rng, (0.2, 1.0))])
    if rng.random() < 0.15:
        change["opacity"] = rng.uniform(0.45, 0.8)
    if rng.random() < 0.3:
        change["gloss"] = rng.uniform(0.2, 0.8)
    if rng.random() < 0.5:  # men with engraved or carved tops, which are not kings
        change["engraving"] = rng.choice([0.0, rng.uniform(0.15, 0.6)])
    if rng.random() < 0.3:  # a lamp's glow somewhere, or a flash in the middle
        flash = rng.random() < 0.3
        change["glow"] = ((0.5, 0.5, rng.uniform(0.2, 0.35), rng.uniform(0.5, 1.2)) if flash
                          else (rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.08, 0.3),
                                rng.uniform(0.3, 1.5)))
        if flash:
            change["vignette"] = rng.uniform(0.3, 0.6)
    if rng.random() < 0.15:  # a wide-angle lens
        change["dist"] = (rng.uniform(-0.35, -0.15), rng.uniform(0.0, 0.08), 0.0, 0.0, 0.0)
        change["hfov_deg"] = rng.uniform(80, 100)
    if rng.random() < 0.2:  # a small or old camera
        width = rng.choice([480, 640, 800])
        change["width"], change["height"] = width, width * 9 // 16
    if rng.random() < 0.15:
        change["motion"] = (rng.uniform(2, 8), rng.uniform(0, 180))
    return scene.with_(**{**change, **fixed})
