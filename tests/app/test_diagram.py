"""`damas diagram`: the PNG shows the position square by square, the SVG says it."""

import subprocess
import sys
import xml.etree.ElementTree as ET

import cv2
import numpy as np
import pytest

from damas.diagram import COLOURS
from damas.rules import Position, geometry

FEN = "W:WK46,31,32,33:BK5,20,19"


def damas(*args):
    return subprocess.run([sys.executable, "-m", "damas", *args], capture_output=True,
                          text=True, timeout=120)


def rgb(name):
    h = COLOURS[name]
    return np.array([int(h[i:i + 2], 16) for i in (1, 3, 5)])


def nearest(pixel) -> str:
    names = ("light", "dark", "last", "w", "b", "crown")
    return min(names, key=lambda k: ((rgb(k) - pixel) ** 2).sum())


@pytest.mark.parametrize("variant,fen,size", [("international", FEN, 10),
                                              ("brazilian", None, 8)])
def test_the_png_shows_every_square_as_the_position_has_it(tmp_path, variant, fen, size):
    out = tmp_path / "d.png"
    args = ["diagram", "--variant", variant, "--png", str(out), "--pixels", "540"]
    result = damas(*args, *(["--fen", fen] if fen else []), "--arrow",
                   "31-27" if size == 10 else "9-13")
    assert result.returncode == 0, result.stderr
    image = cv2.cvtColor(cv2.imread(str(out)), cv2.COLOR_BGR2RGB).astype(float)
    assert image.shape == (540, 540, 3)
    position = Position.from_fen(fen, variant) if fen else Position.start(variant)
    scale = 540 / (size * 10 + 8)
    g = geometry(size)
    arrow = {31, 27} if size == 10 else {9, 13}
    for sq in range(1, g.squares + 1):
        row, col = g.row_col(sq)
        cx, cy = (4 + col * 10 + 5) * scale, (4 + row * 10 + 5) * scale

        def at(dx, cx=cx, cy=cy):
            x, y = int(round(cx + dx * scale)), int(round(cy))
            return nearest(image[y - 1:y + 2, x - 1:x + 2].reshape(-1, 3).mean(axis=0))

        piece = position.piece(sq)
        if sq in arrow and piece is None:
            continue  # the arrow's line crosses the centre
        if piece is None:
            assert at(0) == "dark", sq
        elif piece.isupper():
            assert (at(0), at(2.9)) == ("crown", piece.lower()), sq
        else:
            assert at(2.9) == piece, sq


def test_the_svg_has_the_pieces_the_numbers_and_the_arrow(tmp_path):
    out = tmp_path / "d.svg"
    assert damas("diagram", "--fen", FEN, "--svg", str(out), "--arrow", "31x22x13")\
        .returncode == 0
    svg = ET.parse(out).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    circles = svg.findall(f"{ns}circle")
    assert len(circles) == 7 + 2  # seven pieces, two of them crowned
    numbers = {t.text for t in svg.findall(f"{ns}text")}
    assert "1" in numbers and "46" not in numbers  # empty squares only
    assert len(svg.findall(f"{ns}polyline")) == 1
    assert damas("diagram", "--fen", FEN, "--svg", str(out), "--no-numbers").returncode == 0
    numbers = [t.text for t in ET.parse(out).getroot().findall(f"{ns}text")]
    assert numbers == [c for i in range(10) for c in (chr(97 + i), str(i + 1))]  # the edge


@pytest.mark.parametrize("args", [["--arrow", "99-1"], ["--arrow", "x"], ["--fen", "W:Wx:B1"],
                                  ["--pixels", "5"], ["--variant", "chess"]])
def test_bad_input_is_one_line_and_status_2(tmp_path, args):
    result = damas("diagram", "--png", str(tmp_path / "d.png"), *args)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("damas: ")
    assert not (tmp_path / "d.png").exists()
