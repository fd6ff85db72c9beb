"""Board diagrams for broadcasts and books: `damas diagram --fen F --svg|--png OUT`.

A diagram is a short list of shapes (squares, pieces, crowns, square numbers, the
coordinates, a move's arrow) in board units (10 a square, a 4-unit border), drawn as
SVG text or rasterised with OpenCV into a PNG: both come from the same shapes, so they
show the same thing. The colours are those of the live page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from damas.rules import DamasError, Position, geometry

CELL, BORDER = 10.0, 4.0
COLOURS = {"border": "#4a3018", "light": "#ecd9b0", "dark": "#8b5a2b", "last": "#b07c3c",
           "w": "#f6f1e4", "w-edge": "#6b6b6b", "b": "#2a2a2a", "b-edge": "#8a8a8a",
           "crown": "#d4a017", "num": "#f3dfb4", "coord": "#d8c39a", "arrow": "#1e88e5"}


@dataclass(frozen=True)
class Shape:
    kind: str  # rect, circle, text, line, polygon
    points: tuple[tuple[float, float], ...]  # rect: corner and size; circle: centre
    fill: str | None = None
    stroke: str | None = None
    width: float = 0.0  # stroke width, or a circle's radius, or a text's size
    text: str = ""


def parse_path(text: str, size: int) -> list[int]:
    """A move written as its squares: `32-28`, `28x19`, `28x19x10`."""
    squares = [int(s) for s in re.split(r"[-x:]", text.strip())] \
        if re.fullmatch(r"\s*[0-9]{1,3}([-x:][0-9]{1,3})+\s*", text or "") else None
    squares_on_board = geometry(size).squares
    if not squares or any(not 1 <= s <= squares_on_board for s in squares):
        raise DamasError(f"move {text!r}: give its squares, e.g. 32-28 or 28x19x10, each "
                         f"from 1 to {squares_on_board}")
    return squares


def shapes(position: Position, numbers: bool = True, arrow: list[int] | None = None
           ) -> tuple[float, list[Shape]]:
    """(side in units, the shapes) of a diagram, White at the bottom."""
    n = position.variant.size
    g = geometry(n)
    side = n * CELL + 2 * BORDER
    out = [Shape("rect", ((0, 0), (side, side)), COLOURS["border"])]
    highlit = set(arrow or ())
    for row in range(n):
        for col in range(n):
            sq = g.square_at(row, col)
            colour = "light" if sq is None else ("last" if sq in highlit else "dark")
            out.append(Shape("rect", ((BORDER + col * CELL, BORDER + row * CELL),
                                      (CELL, CELL)), COLOURS[colour]))
    pieces = position.pieces()
    for sq in range(1, g.squares + 1):
        row, col = g.row_col(sq)
        x, y = BORDER + col * CELL, BORDER + row * CELL
        piece = pieces.get(sq)
        if piece is None:
            if numbers:
                out.append(Shape("text", ((x + 0.6, y + 2.6),), COLOURS["num"], width=2.4,
                                 text=str(sq)))
            continue
        kind = piece.lower()
        out.append(Shape("circle", ((x + CELL / 2, y + CELL / 2),), COLOURS[kind],
                         COLOURS[kind + "-edge"], 4.0))
        if piece.isupper():
            out.append(Shape("circle", ((x + CELL / 2, y + CELL / 2),), COLOURS["crown"],
                             None, 1.9))
    for i in range(n):
        out.append(Shape("text", ((BORDER + i * CELL + CELL / 2, side - 1),), COLOURS["coord"],
                         width=2.6, text=chr(ord("a") + i)))
        out.append(Shape("text", ((BORDER / 2, BORDER + (n - 1 - i) * CELL + CELL / 2 + 1),),
                         COLOURS["coord"], width=2.2, text=str(i + 1)))
    if arrow and len(arrow) > 1:
        out += _arrow(g, arrow)
    return side, out


def _arrow(g, path: list[int]) -> list[Shape]:
    centres = [(BORDER + c * CELL + CELL / 2, BORDER + r * CELL + CELL / 2)
               for r, c in map(g.row_col, path)]
    (px, py), (ex, ey) = centres[-2], centres[-1]
    length = ((ex - px) ** 2 + (ey - py) ** 2) ** 0.5
    ux, uy = (ex - px) / length, (ey - py) / length
    tip = (ex - ux * 1.2, ey - uy * 1.2)
    base = (tip[0] - ux * 3.2, tip[1] - uy * 3.2)
    head = (tip, (base[0] - uy * 2, base[1] + ux * 2), (base[0] + uy * 2, base[1] - ux * 2))
    return [Shape("line", tuple(centres[:-1]) + (base,), None, COLOURS["arrow"], 1.6),
            Shape("polygon", head, COLOURS["arrow"])]


def to_svg(side: float, drawn: list[Shape], px: int) -> str:
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{px}" height="{px}" '
             f'viewBox="0 0 {side:g} {side:g}" font-family="sans-serif">']
    for s in drawn:
        if s.kind == "rect":
            (x, y), (w, h) = s.points
            parts.append(f'<rect x="{x:g}" y="{y:g}" width="{w:g}" height="{h:g}" '
                         f'fill="{s.fill}"/>')
        elif s.kind == "circle":
            (x, y), = s.points
            edge = f' stroke="{s.stroke}" stroke-width="0.35"' if s.stroke else ""
            parts.append(f'<circle cx="{x:g}" cy="{y:g}" r="{s.width:g}" fill="{s.fill}"'
                         f'{edge}/>')
        elif s.kind == "text":
            (x, y), = s.points
            anchor = "" if s.fill == COLOURS["num"] else ' text-anchor="middle"'
            parts.append(f'<text x="{x:g}" y="{y:g}" font-size="{s.width:g}" '
                         f'fill="{s.fill}"{anchor}>{s.text}</text>')
        elif s.kind == "line":
            points = " ".join(f"{x:.2f},{y:.2f}" for x, y in s.points)
            parts.append(f'<polyline points="{points}" fill="none" stroke="{s.stroke}" '
                         f'stroke-width="{s.width:g}" stroke-linecap="round" '
                         'stroke-linejoin="round"/>')
        else:
            points = " ".join(f"{x:.2f},{y:.2f}" for x, y in s.points)
            parts.append(f'<polygon points="{points}" fill="{s.fill}"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def to_png(side: float, drawn: list[Shape], px: int) -> bytes:
    import cv2
    import numpy as np

    scale = px / side
    img = np.zeros((px, px, 3), np.uint8)

    def bgr(hex_colour: str | None) -> tuple[int, int, int]:
        assert hex_colour is not None  # the part of a shape that is drawn has its colour
        r, g, b = (int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))
        return b, g, r

    def at(x: float, y: float) -> tuple[int, int]:
        return int(round(x * scale * 16)), int(round(y * scale * 16))  # 4 fraction bits

    for s in drawn:
        if s.kind == "rect":
            (x, y), (w, h) = s.points
            x0, y0 = int(round(x * scale)), int(round(y * scale))
            x1, y1 = int(round((x + w) * scale)), int(round((y + h) * scale))
            img[y0:y1, x0:x1] = bgr(s.fill)
        elif s.kind == "circle":
            (x, y), = s.points
            radius = int(round(s.width * scale * 16))
            cv2.circle(img, at(x, y), radius, bgr(s.fill), -1, cv2.LINE_AA, 4)
            if s.stroke:
                cv2.circle(img, at(x, y), radius, bgr(s.stroke),
                           max(1, int(round(0.35 * scale))), cv2.LINE_AA, 4)
        elif s.kind == "text":
            (x, y), = s.points
            font, size = cv2.FONT_HERSHEY_SIMPLEX, s.width * scale / 22
            thick = max(1, int(round(size * 1.6)))
            (tw, _), _ = cv2.getTextSize(s.text, font, size, thick)
            left = x * scale if s.fill == COLOURS["num"] else x * scale - tw / 2
            cv2.putText(img, s.text, (int(round(left)), int(round(y * scale))), font, size,
                        bgr(s.fill), thick, cv2.LINE_AA)
        elif s.kind == "line":
            pts = np.array([at(x, y) for x, y in s.points], np.int32)
            cv2.polylines(img, [pts], False, bgr(s.stroke), max(1, int(round(s.width * scale))),
                          cv2.LINE_AA, 4)
        else:
            pts = np.array([at(x, y) for x, y in s.points], np.int32)
            cv2.fillPoly(img, [pts], bgr(s.fill), cv2.LINE_AA, 4)
    ok, data = cv2.imencode(".png", img)
    if not ok:
        raise DamasError("the PNG could not be encoded")
    return data.tobytes()
