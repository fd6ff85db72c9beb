"""Markers at the board corners: finding ArUco and AprilTag markers of any of OpenCV's
predefined dictionaries, which id sits where on damas' own sheet, and that sheet.

damas' sheet uses DICT_4X4_50 ids 0..3 on the corners of the board (on the frame or the
table just outside), in this order seen from White's chair: 0 near-left, 1 near-right,
2 far-right, 3 far-left; those also say where White sits. Markers of any other
dictionary still give the board's outline. Their exact distance from the playing area
does not matter: the locator fits the squares themselves.

OpenCV's detector finds the candidate quadrilaterals once; each with a dark rim is then
read as a grid of bits (4x4 to 7x7 inside a black border) and looked up in a table of
every predefined dictionary (all four turns), so trying all 22 dictionaries costs one
detection.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

DICTIONARY = "DICT_4X4_50"
CORNER_IDS = (0, 1, 2, 3)
# unit direction of each corner from the board centre, world axes (x right, y to Black)
CORNER_DIRECTIONS = {0: (-1, -1), 1: (1, -1), 2: (1, 1), 3: (-1, 1)}


# every predefined dictionary, by name (the lower-case aliases left out)
def _dictionary_names() -> list[str]:
    import cv2

    return sorted({n for n in dir(cv2.aruco) if n.startswith("DICT_") and n == n.upper()})


@dataclass(frozen=True)
class Marker:
    dictionary: str
    id: int
    corners: np.ndarray  # (4, 2) pixels, in the marker's own order (top-left first)

    @property
    def centre(self) -> np.ndarray:
        return self.corners.mean(axis=0)

    @property
    def ours(self) -> bool:
        """One of damas' own corner markers (which say where White sits)."""
        return self.dictionary == DICTIONARY and self.id in CORNER_IDS


@cache
def _codebook(bits: int) -> dict[bytes, tuple[str, int, int]]:
    """Bit pattern (one turn) -> (dictionary, id, quarter turns) for every predefined
    dictionary whose markers have bits x bits cells."""
    import cv2

    book: dict[bytes, tuple[str, int, int]] = {}
    for name in _dictionary_names():
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name))
        if d.markerSize != bits:
            continue
        for marker_id in range(d.bytesList.shape[0]):
            grid = cv2.aruco.Dictionary.getBitsFromByteList(
                d.bytesList[marker_id:marker_id + 1], bits).astype(np.uint8)
            for turn in range(4):
                key = np.rot90(grid, turn).tobytes()
                # a smaller dictionary's markers are also in its bigger siblings: keep
                # the smallest (the one people print)
                if key not in book or _rank(name) < _rank(book[key][0]):
                    book[key] = (name, marker_id, turn)
    return book


def _rank(name: str) -> tuple[int, str]:
    digits = name.rsplit("_", 1)[-1]
    return (int(digits) if digits.isdigit() else 10 ** 6, name)


def _read_bits(gray: np.ndarray, quads: list[np.ndarray], bits: int):
    """(inner bits (Q, bits, bits), crispness (Q,), black border all round (Q,)) of
    candidate quadrilaterals read as markers of bits x bits cells. Crispness is how even
    the cells are against the contrast between them: high only when the grid read has the
    marker's own cell size."""
    import cv2

    cells = bits + 2
    px = 6
    side = cells * px
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    warped = np.stack([cv2.warpPerspective(gray, cv2.getPerspectiveTransform(
        quad.astype(np.float32), dst), (side, side), flags=cv2.INTER_LINEAR)
        for quad in quads])
    cut = px // 3
    levels = np.array([cv2.threshold(w[cut:side - cut, cut:side - cut], 0, 255,
                                     cv2.THRESH_BINARY | cv2.THRESH_OTSU)[0] for w in warped])
    blocks = warped.reshape(len(quads), cells, px, cells, px)[:, :, 1:-1, :, 1:-1]
    blocks = blocks.astype(np.float32)
    means = blocks.mean(axis=(2, 4))
    grid = (means > levels[:, None, None]).astype(np.uint8)
    border = np.concatenate([grid[:, 0], grid[:, -1], grid[:, :, 0], grid[:, :, -1]], axis=1)
    contrast = means.max(axis=(1, 2)) - means.min(axis=(1, 2)) + 1e-6
    spread = blocks.std(axis=(2, 4)).mean(axis=(1, 2))
    return grid[:, 1:-1, 1:-1], 1 - spread / contrast, border.mean(axis=1) <= 0.1


def find(gray: np.ndarray) -> list[Marker]:
    """Every marker of any predefined dictionary in a grey image. A marker's code is
    reported in the smallest dictionary that holds it (DICT_6X6_50 holds the first 50
    codes of DICT_6X6_250, and so on)."""
    # the candidate search works best at a moderate size (its threshold windows are
    # pixels); the bits are then read at full size
    scale = min(1.0, 1000 / max(gray.shape))
    found = _read_candidates(gray, _candidates(gray, scale))
    counts: dict[str, int] = {}
    for m in found:
        counts[m.dictionary] = counts.get(m.dictionary, 0) + 1
    if scale < 1.0 and any(c < 4 for c in counts.values()):
        # some of a set seen, not all: small markers (a board far off or turned 45
        # degrees) can vanish at the reduced size, so look again at full size
        found = _read_candidates(gray, _candidates(gray, 1.0), found)
    return found


def _candidates(gray: np.ndarray, scale: float) -> list[np.ndarray]:
    """Quadrilaterals OpenCV's detector takes for markers or rejects, in full-size
    pixels."""
    import cv2

    small = gray if scale == 1.0 else cv2.resize(gray, None, fx=scale, fy=scale,
                                                 interpolation=cv2.INTER_AREA)
    det = cv2.aruco.ArucoDetector(dictionary(), cv2.aruco.DetectorParameters())
    corners, _, rejected = det.detectMarkers(small)
    return [c.reshape(4, 2) / scale for c in (*corners, *rejected)]


def _dark_rimmed(gray: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
    """Which quads are darker all round their outer ninth than inside: a marker's black
    border is at least that wide whatever its grid (7x7 bits and the border make 9
    cells), so only these need reading at every grid size. Most of OpenCV's rejected
    candidates (plain squares, piece tops, glare) fail here."""
    import cv2

    px, cells = 3, 9
    side = px * cells
    dst = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32)
    warped = np.stack([cv2.warpPerspective(gray, cv2.getPerspectiveTransform(
        quad.astype(np.float32), dst), (side, side), flags=cv2.INTER_LINEAR)
        for quad in quads]).astype(np.float32)
    middle = warped[:, px:-px, px:-px].reshape(len(quads), -1)
    rim = np.concatenate([warped[:, :px].reshape(len(quads), -1),
                          warped[:, -px:].reshape(len(quads), -1),
                          warped[:, px:-px, :px].reshape(len(quads), -1),
                          warped[:, px:-px, -px:].reshape(len(quads), -1)], axis=1)
    # halfway between the middle's dark and light: the bits hold both (no marker is all
    # black or all white inside), the rim lies below it bar a few blurred pixels
    lo, hi = np.percentile(middle, [5, 95], axis=1)
    level = (lo + hi) / 2
    return ((rim > level[:, None]).mean(axis=1) <= 0.25) & (hi - lo > 0)


def _read_candidates(gray: np.ndarray, quads: list[np.ndarray],
                     found: list[Marker] | None = None) -> list[Marker]:
    found = list(found or [])
    if quads:
        quads = [q for q, ok in zip(quads, _dark_rimmed(gray, quads), strict=True) if ok]
    if not quads:
        return found
    hits: list[list] = [[] for _ in quads]
    for bits in (4, 5, 6, 7):
        codes, crisp, bordered = _read_bits(gray, quads, bits)
        book = _codebook(bits)
        for k in np.nonzero(bordered)[0]:
            if hit := book.get(codes[k].tobytes()):
                hits[k].append((crisp[k], hit))
    for quad, quad_hits in zip(quads, hits, strict=True):
        if not quad_hits:
            continue
        # a code read on the wrong grid size may match by chance: the crispest wins
        name, marker_id, turn = max(quad_hits, key=lambda h: h[0])[1]
        ordered = np.roll(quad, -turn, axis=0).astype(np.float64)
        if all(np.linalg.norm(m.centre - ordered.mean(axis=0)) > 2 for m in found):
            found.append(Marker(name, marker_id, ordered))
    return found


def four_of_one_dictionary(markers: list[Marker]) -> list[Marker] | None:
    """Four markers of one dictionary, seen (a board's four corners), or None."""
    by_dict: dict[str, list[Marker]] = {}
    for m in markers:
        by_dict.setdefault(m.dictionary, []).append(m)
    return next((ms for ms in by_dict.values() if len(ms) == 4), None)


def outline(markers: list[Marker]) -> np.ndarray | None:
    """The four corners of a board framed by four markers (their centres, in turn round
    the board): four markers of one dictionary, or three of damas' own; else None."""
    four = four_of_one_dictionary(markers)
    if four is not None:
        centres = np.array([m.centre for m in four])
    else:
        # three of damas' own: their ids say which corner is missing (a hand over it,
        # a glare); it completes the parallelogram, close enough for the corners to refine
        ours_seen = ours(markers)
        if len(ours_seen) != 3:
            return None
        (missing,) = set(CORNER_IDS) - set(ours_seen)
        opposite = (missing + 2) % 4
        ours_seen[missing] = (ours_seen[(missing + 1) % 4] + ours_seen[(missing + 3) % 4]
                              - ours_seen[opposite])
        centres = np.array(list(ours_seen.values()))
    c = centres.mean(axis=0)
    order = np.argsort(np.arctan2(centres[:, 1] - c[1], centres[:, 0] - c[0]))
    return centres[order]


def ours(markers: list[Marker]) -> dict[int, np.ndarray]:
    """Centres of damas' own corner markers, by id."""
    return {m.id: m.centre for m in markers if m.ours}


def dictionary():
    import cv2

    return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, DICTIONARY))


def marker_image(marker_id: int, pixels: int) -> np.ndarray:
    """The marker as a grey image, black border included, no quiet zone."""
    import cv2

    return cv2.aruco.generateImageMarker(dictionary(), marker_id, pixels)


def detector():
    import cv2

    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    return cv2.aruco.ArucoDetector(dictionary(), params)


def sheet(marker_mm: float = 30.0, dpi: int = 300) -> np.ndarray:
    """An A4 page (grey image) with the four markers at `marker_mm` and what to do with
    them, for printing at `dpi`."""
    import cv2

    px_per_mm = dpi / 25.4
    width, height = int(round(210 * px_per_mm)), int(round(297 * px_per_mm))
    page = np.full((height, width), 255, np.uint8)
    side = int(round(marker_mm * px_per_mm))
    names = {0: "White's left", 1: "White's right", 2: "Black's left", 3: "Black's right"}
    cells = [(0, 1), (1, 1), (1, 0), (0, 0)]  # (column, row) on the page per id
    margin = int(25 * px_per_mm)
    pitch_x = (width - 2 * margin) // 2
    pitch_y = int(90 * px_per_mm)
    scale = px_per_mm / 6
    for marker_id, (cx, cy) in zip(CORNER_IDS, cells, strict=True):
        x = margin + cx * pitch_x + (pitch_x - side) // 2
        y = margin + int(20 * px_per_mm) + cy * pitch_y
        page[y:y + side, x:x + side] = marker_image(marker_id, side)
        label = f"id {marker_id}: {names[marker_id]} corner"
        cv2.putText(page, label, (x, y + side + int(8 * px_per_mm)), cv2.FONT_HERSHEY_SIMPLEX,
                    scale, 0, max(1, int(scale * 2)), cv2.LINE_AA)
    lines = [
        f"damas board markers - print at 100% ({dpi} dpi): each marker is {marker_mm:g} mm wide",
        "Cut them out with a white margin and put one at each corner of the board,",
        "on the frame or on the table just outside it, as seen from White's chair.",
    ]
    for i, text in enumerate(lines):
        cv2.putText(page, text, (margin, margin + int(i * 7 * px_per_mm)),
                    cv2.FONT_HERSHEY_SIMPLEX, scale * 0.8, 0, max(1, int(scale * 1.6)),
                    cv2.LINE_AA)
    return page


def png_with_dpi(image: np.ndarray, dpi: int) -> bytes:
    """PNG bytes carrying a pHYs chunk, so printers keep the markers to scale."""
    import struct
    import zlib

    import cv2

    ok, data = cv2.imencode(".png", image)
    if not ok:
        raise ValueError("could not encode the PNG")
    png = data.tobytes()
    per_metre = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return png[:ihdr_end] + chunk + png[ihdr_end:]
