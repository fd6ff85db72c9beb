"""ArUco markers at the board corners: which dictionary, which id sits where, and the
printable sheet.

Ids 0..3 go on the corners of the board (on the frame or the table just outside), in
this order seen from White's chair: 0 near-left, 1 near-right, 2 far-right, 3 far-left.
Their exact distance from the playing area does not matter: the locator uses them for a
first guess of the board and for its orientation, then fits the squares themselves.
"""

from __future__ import annotations

import numpy as np

DICTIONARY = "DICT_4X4_50"
CORNER_IDS = (0, 1, 2, 3)
# unit direction of each corner from the board centre, world axes (x right, y to Black)
CORNER_DIRECTIONS = {0: (-1, -1), 1: (1, -1), 2: (1, 1), 3: (-1, 1)}


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
    data = data.tobytes()
    per_metre = int(round(dpi / 0.0254))
    body = b"pHYs" + struct.pack(">IIB", per_metre, per_metre, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    ihdr_end = 8 + 8 + 13 + 4  # signature, IHDR length+type, IHDR data, CRC
    return data[:ihdr_end] + chunk + data[ihdr_end:]
