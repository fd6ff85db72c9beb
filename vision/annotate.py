"""An annotated copy of a frame: the fitted grid, each dark square's Manoury number and
what was read there, so a user sees at a glance that calibration or reading worked."""

from __future__ import annotations

import cv2
import numpy as np

from .board import BoardPose, square_centres
from .read import Reading

# each label's fill (BGR): an empty square's number in amber, a piece's in its colour,
# an unsure square's in red
COLOURS = {"e": (0, 220, 255), "w": (255, 255, 255), "b": (40, 40, 40),
           "W": (255, 255, 255), "B": (40, 40, 40), "?": (0, 0, 255)}


def outline(fill: tuple[int, int, int]) -> tuple[int, int, int]:
    """The stroke around a label: black around a light fill, white around a dark one, so
    one of the two stands out on any piece or square (a black man's label was black on
    black)."""
    b, g, r = fill
    return (0, 0, 0) if 0.114 * b + 0.587 * g + 0.299 * r > 110 else (255, 255, 255)


def annotate(image: np.ndarray, pose: BoardPose, reading: Reading | None = None) -> np.ndarray:
    out = image.copy()
    n = pose.size
    steps = np.linspace(-n / 2, n / 2, 8 * n + 1)
    for k in range(n + 1):
        v = k - n / 2
        for line in (np.column_stack([steps, np.full_like(steps, v)]),
                     np.column_stack([np.full_like(steps, v), steps])):
            pts = pose.project(np.column_stack([line, np.zeros(len(line))]))
            cv2.polylines(out, [np.round(pts).astype(np.int32)], False, (0, 200, 255), 1,
                          cv2.LINE_AA)
    # White's side: a thick line along White's edge
    edge = np.column_stack([np.linspace(-n / 2, n / 2, 20), np.full(20, -n / 2), np.zeros(20)])
    cv2.polylines(out, [np.round(pose.project(edge)).astype(np.int32)], False, (255, 255, 255),
                  3, cv2.LINE_AA)
    centres = pose.project(np.column_stack([square_centres(n), np.zeros(n * n // 2)]))
    step = np.linalg.norm(centres[0] - centres[1])
    scale = max(0.3, float(step) / 110)
    for i, (x, y) in enumerate(centres):
        sq = i + 1
        text = str(sq)
        value = reading.squares.get(sq, "e") if reading else "e"
        if reading and value != "e":
            text += value
        colour = COLOURS[value]
        org = (int(x - step * 0.25), int(y + step * 0.1))
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, outline(colour), 3,
                    cv2.LINE_AA)
        cv2.putText(out, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)
    return out
