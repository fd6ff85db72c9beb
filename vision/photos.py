"""Labelled photos of real boards: loading `labels.json`, lining a label grid up with a
located board, and scoring a reading against it.

The label format (one object per photo): `file`, `size` (8 or 10), `grid` (one string per
board row as seen in the image, top to bottom: `.` light square, `_` empty dark square,
`l`/`d` a light/dark man, `L`/`D` a king, `?` not judged), and optionally
`pieces_on_light` (the pieces stand on the light squares) and free-text conditions
(`angle`, `markers`, `board`, `pieces`, `notes`) and `repo` (where it came from).

Which side White sits on is not labelled, nor which colour is "White" in a set of two
colours: a reading is scored up to a half turn and a swap of the colours."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .board import BoardPose
from .errors import VisionError


@dataclass(frozen=True)
class LabelledPhoto:
    path: Path
    size: int
    grid: tuple[str, ...]
    pieces_on_light: bool = False
    source: str = ""
    conditions: dict = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.name


def load_labels(folder: str | Path, file: str = "labels.json") -> list[LabelledPhoto]:
    """The photos of `folder`/`file` (names in it relative to `folder`)."""
    folder = Path(folder)
    labels = folder / file
    try:
        entries = json.loads(labels.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise VisionError(f"{labels}: no labels file there (a {file} is needed)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise VisionError(f"{labels}: not a readable labels file ({e})") from None
    if not isinstance(entries, list):
        raise VisionError(f"{labels}: expected a list of photos")
    photos = []
    for k, entry in enumerate(entries):
        try:
            size = int(entry["size"])
            grid = tuple(str(row) for row in entry["grid"])
            name = str(entry["file"])
        except (KeyError, TypeError, ValueError):
            raise VisionError(f"{labels}: entry {k} lacks file, size or grid") from None
        if size not in (8, 10) or len(grid) != size or any(len(r) != size for r in grid):
            raise VisionError(f"{labels}: entry {k} ({name}): grid is not {size}x{size}")
        if not set("".join(grid)) <= set("._ldLD?"):
            raise VisionError(f"{labels}: entry {k} ({name}): unknown grid characters")
        source = str(entry.get("repo") or name.split("__")[0])
        conditions = {key: entry.get(key) for key in ("angle", "markers", "board", "pieces")
                      if key in entry}
        photos.append(LabelledPhoto(folder / name, size, grid,
                                    bool(entry.get("pieces_on_light", False)), source,
                                    conditions))
    return photos


def _cells_in_image(pose: BoardPose) -> np.ndarray:
    """(n, n, 2) image position of every cell's centre, indexed [row, col] of the pose's
    own labelling (row 0 on Black's side)."""
    n = pose.size
    xy = np.array([(c - n / 2 + 0.5, n / 2 - r - 0.5) for r in range(n) for c in range(n)])
    return pose.project_flat(xy).reshape(n, n, 2)


def truth_by_cell(photo: LabelledPhoto, pose: BoardPose) -> dict[tuple[int, int], str]:
    """The label of every cell, as (row, col) of the pose's labelling. The label grid is
    as seen in the image: of the four quarter turns, the one that puts its first row at
    the top of the image and its first column at the left."""
    return {cell: photo.grid[r][c] for (r, c), cell in label_cells(pose).items()}


def label_cells(pose: BoardPose) -> dict[tuple[int, int], tuple[int, int]]:
    """Each cell (row, col) of a label grid as seen in the image -> the same cell as
    (row, col) of the pose's labelling (see `truth_by_cell`)."""
    n = pose.size
    img = _cells_in_image(pose)

    def turned(q: int) -> tuple[float, np.ndarray]:
        # (how far the first row lies above the last and the first column left of the
        # last, in pixels; the cells): label cell (r, c) is pose cell rot^q(r, c)
        idx = np.rot90(np.arange(n * n).reshape(n, n), q)
        pos = img.reshape(-1, 2)[idx.ravel()].reshape(n, n, 2)
        return (float(pos[-1, :, 1].mean() - pos[0, :, 1].mean()
                      + pos[:, -1, 0].mean() - pos[:, 0, 0].mean()), idx)

    _, idx = max((turned(q) for q in range(4)), key=lambda t: t[0])
    return {(r, c): (int(idx[r, c]) // n, int(idx[r, c]) % n)
            for r in range(n) for c in range(n)}


def label_squares(pose: BoardPose) -> dict[tuple[int, int], int]:
    """Each playing cell (row, col) of a label grid as seen in the image -> its Manoury
    number in the pose (the cells `playing_truth` scores)."""
    from damas.rules import geometry

    g = geometry(pose.size)
    out = {}
    for cell, (r, c) in label_cells(pose).items():
        sq = g.square_at(r, c)
        if sq is not None:
            out[cell] = sq
    return out


@dataclass(frozen=True)
class Score:
    right: int
    total: int
    misses: tuple[tuple[int, str, str], ...]  # (square, truth, read)
    turned: bool = False  # the truth's square s is the reading's size + 1 - s

    def read_right(self, read: dict[int, str], truth: dict[int, str]) -> dict[int, bool]:
        """Per square of the reading that is labelled and not `?`: whether it is right."""
        count, wrong = len(truth), {sq for sq, _, _ in self.misses}
        return {(count + 1 - sq if self.turned else sq): sq not in wrong
                for sq, ch in truth.items()
                if ch != "?" and read.get(count + 1 - sq if self.turned else sq, "?") != "?"}

    @property
    def exact(self) -> bool:
        return self.right == self.total


# label characters -> reading letters, with light men as White, and swapped
_AS_READ = ({"_": "e", ".": "e", "l": "w", "d": "b", "L": "W", "D": "B"},
            {"_": "e", ".": "e", "l": "b", "d": "w", "L": "B", "D": "W"})


def playing_truth(photo: LabelledPhoto, pose: BoardPose) -> dict[int, str]:
    """Label per playing square (Manoury number of the pose), `?` where not judged. A
    reader of a set played on the light squares reads a pose turned a quarter, whose
    "dark" cells are then the light ones."""
    from damas.rules import geometry

    g = geometry(pose.size)
    cells = truth_by_cell(photo, pose)
    out = {}
    for (r, c), ch in cells.items():
        sq = g.square_at(r, c)
        if sq is not None:
            out[sq] = ch
    return out


def score(read: dict[int, str], truth: dict[int, str], turns: bool = True) -> Score:
    """Squares right, up to a half turn of the board and a swap of the colours (with
    `turns` False: only as labelled, light men White, for a reader told which way round
    the board lies)."""
    count = len(truth)

    def scored(turn: bool, names: dict[str, str]) -> Score:
        misses = []
        right = total = 0
        for sq, ch in truth.items():
            if ch == "?":
                continue
            total += 1
            got = read.get(count + 1 - sq if turn else sq, "?")
            if got == names[ch]:
                right += 1
            else:
                misses.append((sq, names[ch], got))
        return Score(right, total, tuple(misses), turn)

    # the first of the best, as the order below tries them
    if not turns:
        return scored(False, _AS_READ[0])
    return max((scored(turn, names) for turn in (False, True) for names in _AS_READ),
               key=lambda s: s.right)
