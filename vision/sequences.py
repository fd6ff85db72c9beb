"""Labelled photo sequences of games (`sequences.json`, the format of
`../shared/data/real-sequences/README.md`): loading them, and their labels in a board's
squares.

Per game: its variant, its frames in order, a label grid per frame (as `photos` grids:
one string per image row), the move or irregularity between two frames in words
(`light man row6col2 -> row5col3`, `dark man row4col4 x row6col2 capturing light at
row5col3`, `irregular: ...`), `irregular_steps`, whether it starts at the start position,
and a photo of the start position (`calibration.full`, with its grid).

Grid cells become Manoury squares as `photos` maps them, on a view of the board with
White on the side where the light men stand in the start position's grid: the light men
are White, as the readers take them and as the games' first moves say."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from damas.calibration.camera import Camera, Intrinsics
from damas.rules import DamasError, Position, variant

from .board import BoardPose
from .errors import VisionError
from .photos import LabelledPhoto, label_squares, playing_truth
from .pipeline import SIDES

_CELL = re.compile(r"row(\d+)col(\d+)")
_CELLS = re.compile(r"row\d+col\d+")
_MOVE = re.compile(r"\s*(light|dark) (?:man|king) (row\d+col\d+(?:\s*(?:->|x)\s*row\d+col\d+)+)"
                   r"(?: capturing (?:light|dark) at (row\d+col\d+(?:,\s*row\d+col\d+)*))?")


@dataclass(frozen=True)
class LabelMove:
    """A move of the labels, in a board's squares: who, from, to, what it takes."""

    side: str  # "white" (the light men) or "black"
    path: tuple[int, ...]
    captured: frozenset[int]

    @property
    def key(self) -> tuple:
        return (self.side, self.path[0], self.path[-1], self.captured)


@dataclass(frozen=True)
class Sequence:
    name: str
    variant: str
    size: int
    frames: tuple[Path, ...]
    grids: tuple[tuple[str, ...], ...]
    steps: tuple[str, ...]  # moves_between
    irregular: frozenset[int]
    at_start: bool
    full: Path | None  # the start position's photo
    full_grid: tuple[str, ...] | None
    kings: tuple[tuple[str, ...], ...]  # per frame, cells of kings by the rules
    source: str = ""  # the repository the games come from (`repo`)
    photos: tuple[LabelledPhoto, ...] = ()  # every labelled photo of the game, calibration's too


def _bad(path: Path, what: str) -> VisionError:
    return VisionError(f"{path}: {what}")


def _grid(path: Path, where: str, grid, size: int) -> tuple[str, ...]:
    if not isinstance(grid, list) or len(grid) != size or any(
            not isinstance(r, str) or len(r) != size for r in grid):
        raise _bad(path, f"{where}: a grid must be {size} strings of {size} characters")
    if not set("".join(grid)) <= set("._ldLD?"):
        raise _bad(path, f"{where}: unknown grid characters")
    return tuple(grid)


def _image(path: Path, folder: Path, name, where: str) -> Path:
    if not isinstance(name, str) or not name:
        raise _bad(path, f"{where}: a file name is needed")
    file = folder / name
    if not file.is_file():
        raise _bad(file, f"no such frame file ({where})")
    return file


def load_sequences(folder: str | Path) -> list[Sequence]:
    """The games of DIR/sequences.json, every file there; VisionError saying what is
    wrong otherwise."""
    folder = Path(folder)
    path = folder / "sequences.json"
    if not folder.is_dir():
        raise VisionError(f"{folder}: no such folder (a folder with a sequences.json)")
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _bad(path, "no sequences file there (a sequences.json is needed)") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise _bad(path, f"not a readable sequences file ({e})") from None
    if not isinstance(entries, list) or not entries:
        raise _bad(path, "expected a list of games")
    out: list[Sequence] = []
    for k, entry in enumerate(entries):
        where = f"game {k}"
        if not isinstance(entry, dict):
            raise _bad(path, f"{where}: not an object")
        try:
            size = int(entry["size"])
            v = variant(str(entry["variant"]))
            frames, grids, steps = entry["frames"], entry["grids"], entry["moves_between"]
        except (KeyError, TypeError, ValueError):
            raise _bad(path, f"{where} lacks size, variant, frames, grids or "
                             "moves_between") from None
        except DamasError as err:  # an unknown variant: the rules' own message
            raise _bad(path, f"{where}: {err}") from None
        if v.size != size:
            raise _bad(path, f"{where}: {v.name} is played on {v.size}x{v.size}, not {size}")
        if not isinstance(frames, list) or len(frames) < 2 or not isinstance(grids, list) \
                or len(grids) != len(frames) or not isinstance(steps, list) \
                or len(steps) != len(frames) - 1 or not all(isinstance(s, str) for s in steps):
            raise _bad(path, f"{where}: needs two frames or more, a grid per frame and a "
                             "move between each two")
        irregular = entry.get("irregular_steps", [])
        if not isinstance(irregular, list) or not all(
                isinstance(i, int) and 0 <= i < len(steps) for i in irregular):
            raise _bad(path, f"{where}: irregular_steps must be step indices")
        said = {i for i, text in enumerate(steps) if text.startswith("irregular:")}
        if said != set(irregular):
            raise _bad(path, f"{where}: the steps whose text starts with 'irregular:' "
                             f"({sorted(said)}) are not irregular_steps ({sorted(irregular)})")
        cal = entry.get("calibration") or {}
        cal_grids = entry.get("calibration_grids") or {}
        full = _image(path, folder, cal["full"], f"{where} calibration") \
            if isinstance(cal, dict) and cal.get("full") else None
        full_grid = (_grid(path, f"{where} calibration grid", cal_grids["full"], size)
                     if isinstance(cal_grids, dict) and "full" in cal_grids else None)
        kings = entry.get("kings_by_rules") or [[] for _ in frames]
        if not isinstance(kings, list) or len(kings) != len(frames) or not all(
                isinstance(ks, list) for ks in kings):
            raise _bad(path, f"{where}: kings_by_rules needs one list per frame")
        at_start = bool(entry.get("starts_at_start_position", False))
        how = "from the start" if at_start else "mid-game"
        source = str(entry.get("repo") or "")
        files = tuple(_image(path, folder, f, f"{where} frame {i}") for i, f in enumerate(frames))
        labels = tuple(_grid(path, f"{where} frame {i}", g, size) for i, g in enumerate(grids))
        photos = [LabelledPhoto(f, size, g, source=source)
                  for f, g in zip(files, labels, strict=True)]
        if isinstance(cal, dict) and isinstance(cal_grids, dict):  # the start, the empty board
            photos += [LabelledPhoto(_image(path, folder, cal[w], f"{where} calibration"), size,
                                     _grid(path, f"{where} calibration grid", cal_grids[w], size),
                                     source=source)
                       for w in ("full", "empty") if cal.get(w) and w in cal_grids]
        seq = Sequence(
            f"{entry.get('log') or 'game'} #{k} ({how}, {len(frames)} frames)",
            v.name, size, files, labels, tuple(steps), frozenset(irregular), at_start, full,
            full_grid, tuple(tuple(str(c) for c in ks) for ks in kings), source, tuple(photos))
        if seq.full_grid is None and not at_start:
            raise _bad(path, f"{where}: needs calibration_grids.full or to start at the "
                             "start position (White's side is read from it)")
        out.append(seq)
    return out


def white_side(grid: tuple[str, ...]) -> str:
    """The image side of a start position's grid where the light men stand."""
    n = len(grid)
    cells = [(r, c) for r in range(n) for c in range(n) if grid[r][c] in "lL"]
    if not cells:
        raise VisionError("the start position's grid shows no light men")
    dr, dc = np.mean(cells, axis=0) - (n - 1) / 2
    if abs(dc) > abs(dr):
        return "left" if dc < 0 else "right"
    return "top" if dr < 0 else "bottom"


def grid_pose(size: int, side: str) -> BoardPose:
    """A view straight down on the board with White at `side` of the image: what lines a
    label grid up with the board's squares."""
    cam = Camera.looking_at(Intrinsics.guess(800, 800), (0.0, 0.0, 0.0), 4.0 * size, 0.0,
                            -90.0)
    pose = BoardPose(size, cam)
    want = np.array(SIDES[side])
    return max((pose.turned(q) for q in range(4)),
               key=lambda p: float(np.dot(p.white_side_in_image(), want)))


class Labels:
    """A sequence's labels in the squares of the board (White where the light men start)."""

    def __init__(self, seq: Sequence):
        self.seq = seq
        start = seq.full_grid if seq.full_grid is not None else seq.grids[0]
        self.pose = grid_pose(seq.size, white_side(start))
        self.squares = label_squares(self.pose)  # playing cell -> Manoury
        for i, grid in enumerate(seq.grids):
            off = [(r, c) for r, row in enumerate(grid) for c, ch in enumerate(row)
                   if ch in "ldLD" and (r, c) not in self.squares]
            if off:
                raise VisionError(f"{seq.name}: frame {i} has pieces on cells that are not "
                                  f"playing squares ({off[:3]})")

    def cell(self, text: str) -> int:
        m = _CELL.fullmatch(text.strip())
        if m is None or (int(m[1]), int(m[2])) not in self.squares:
            raise VisionError(f"{self.seq.name}: {text!r} is not a playing cell")
        return self.squares[(int(m[1]), int(m[2]))]

    def move(self, step: int) -> LabelMove | None:
        """The labelled move of a step, None for an irregular one (or VisionError for
        text that says no move)."""
        text = self.seq.steps[step]
        if step in self.seq.irregular:
            return None
        m = _MOVE.match(text)
        if m is None:
            raise VisionError(f"{self.seq.name}: step {step}: {text[:60]!r} is not a move "
                              "('light man row6col2 -> row5col3')")
        side, path = self._side_and_path(m)
        taken = frozenset(self.cell(c) for c in _CELLS.findall(m[3] or ""))
        return LabelMove(side, path, taken)

    def _side_and_path(self, m: re.Match) -> tuple[str, tuple[int, ...]]:
        """Who moves ("white": the light men) and the squares of the way, of a move's
        text matched by _MOVE."""
        return ("white" if m[1] == "light" else "black",
                tuple(self.cell(c) for c in _CELLS.findall(m[2])))

    def irregular_text(self, step: int) -> str:
        """An irregular step in a board's squares where its text names a move ("irregular:
        white 19x12"), else its text, cut short."""
        text = self.seq.steps[step].removeprefix("irregular:").strip()
        m = _MOVE.match(text)
        try:
            if m is not None:
                side, path = self._side_and_path(m)
                taken = _CELLS.findall(m[3] or "")
                return f"irregular: {move_text((side, path[0], path[-1], taken))}"
        except VisionError:
            pass
        return "irregular: " + (text if len(text) <= 50 else text[:47] + "...")

    def truth(self, frame: int) -> dict[int, str]:
        photo = LabelledPhoto(self.seq.frames[frame], self.seq.size, self.seq.grids[frame])
        return playing_truth(photo, self.pose)

    def fen(self) -> str:
        """The first frame's position (kings by the rules), the side to move that of the
        first regular move."""
        kings = set(self.seq.kings[0])
        pieces = {}
        for (r, c), sq in self.squares.items():
            ch = self.seq.grids[0][r][c]
            if ch in "lLdD":
                man = "w" if ch in "lL" else "b"
                pieces[sq] = man.upper() if ch.isupper() or f"row{r}col{c}" in kings else man
        first = next((mv for mv in map(self.move, range(len(self.seq.steps))) if mv), None)
        turn = 1 if first is not None and first.side == "black" else 0
        return Position.from_pieces(self.seq.variant, pieces, turn).fen()


def move_text(key: tuple) -> str:
    """A labelled move as the record writes moves (Manoury numbers), with its side."""
    side, a, b, taken = key
    return f"{side} {a}{'x' if taken else '-'}{b}"
