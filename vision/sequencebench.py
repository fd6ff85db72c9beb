"""`damas bench vision --sequences DIR`: labelled photo sequences of whole games played
through `damas record`, the command a tournament board runs, with and without a
calibration.

DIR holds a `sequences.json` (the format of `../shared/data/real-sequences/README.md`):
per game its variant, its frames in order, a label grid per frame, the move (or the
irregularity) between two frames, and a photo of the start position (`calibration.full`).
Each photo becomes `COPIES` frames of a temporary frame folder read at `FPS` frames a
second, with a settle time of `SETTLE` seconds, so the record settles on every photo
once. A game that does not start at the start position is recorded with `--fen`, the
first frame's position from its labels (the side to move the one of its first move).

Each game is recorded twice: with a calibration (`damas calibrate board` on the start
position's photo, then `record --calibration`) and without one. Then:
- squares: the reading the record settled on for each photo (the same reader, settle
  loop and frames again, which read what the record read) against the label grid. Grid
  cells are Manoury squares as `photos` maps them, on a view of the board with White on
  the side where the light men stand in the start position's grid (the light men are
  White, as the readers take them); with a calibration that is the only way round
  scored, without one a reading is also scored up to a half turn and a swap of the
  colours (the labels' convention for single photos);
- moves: the record's moves (the journal's) against the labelled regular steps, in
  order: right, missed, invented;
- irregularities: the steps labelled irregular against the tracker's flags (with their
  article); a flag on the photo of an irregular step or the next one counts for it.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import json
import math
import os
import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from damas.calibration.camera import Camera, Intrinsics
from damas.rules import DamasError, Position, variant

from .board import BoardPose
from .errors import VisionError
from .photos import LabelledPhoto, label_squares, playing_truth, score

COPIES = 6  # frames per photo: three to settle, then the record's settle time
FPS = 1.0
SETTLE = 1.5  # seconds a board must stay: a photo's frames after the settle loop passes it
MODES = ("with calibration", "without calibration")
SIDES = {"bottom": (0.0, 1.0), "top": (0.0, -1.0), "left": (-1.0, 0.0), "right": (1.0, 0.0)}

_CELL = re.compile(r"row(\d+)col(\d+)")
_MOVE = re.compile(r"\s*(light|dark) (?:man|king) (row\d+col\d+(?:\s*(?:->|x)\s*row\d+col\d+)+)"
                   r"(?: capturing (?:light|dark) at (row\d+col\d+(?:,\s*row\d+col\d+)*))?")


# --- the labels -----------------------------------------------------------------------

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
        seq = Sequence(
            f"{entry.get('log') or 'game'} #{k} ({how}, {len(frames)} frames)",
            v.name, size,
            tuple(_image(path, folder, f, f"{where} frame {i}") for i, f in enumerate(frames)),
            tuple(_grid(path, f"{where} frame {i}", g, size) for i, g in enumerate(grids)),
            tuple(steps), frozenset(irregular), at_start, full, full_grid,
            tuple(tuple(str(c) for c in ks) for ks in kings))
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
        path = tuple(self.cell(c) for c in re.findall(r"row\d+col\d+", m[2]))
        taken = frozenset(self.cell(c) for c in re.findall(r"row\d+col\d+", m[3] or ""))
        return LabelMove("white" if m[1] == "light" else "black", path, taken)

    def irregular_text(self, step: int) -> str:
        """An irregular step in a board's squares where its text names a move ("irregular:
        white 19x12"), else its text, cut short."""
        text = self.seq.steps[step].removeprefix("irregular:").strip()
        m = _MOVE.match(text)
        try:
            if m is not None:
                side = "white" if m[1] == "light" else "black"
                path = [self.cell(c) for c in re.findall(r"row\d+col\d+", m[2])]
                taken = re.findall(r"row\d+col\d+", m[3] or "")
                return f"irregular: {_text((side, path[0], path[-1], taken))}"
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


# --- one game through `damas record` ---------------------------------------------------

def _frame_folder(seq: Sequence, out: Path) -> None:
    """Every photo as COPIES frames, in order (links where the system allows)."""
    out.mkdir(parents=True)
    for i, photo in enumerate(seq.frames):
        for c in range(COPIES):
            target = out / f"{i:04d}-{c}{photo.suffix.lower()}"
            try:
                os.symlink(photo.resolve(), target)
            except OSError:
                shutil.copyfile(photo, target)


def _cli(argv: list[str]) -> tuple[int, str, str]:
    """`damas ARGV` in this process: (status, stdout, stderr)."""
    from damas.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    return status, out.getvalue(), err.getvalue()


def _photo_of(t: float | None) -> int | None:
    """The photo shown at time t of the record (frame k is at k / FPS)."""
    return None if t is None else math.floor(t * FPS + 1e-9) // COPIES


def _replay(seq: Sequence, calibration: Path | None, known: Position) -> list[dict]:
    """What the record's reader settled on for each photo: the same reader, settle loop
    and frames again (reading is deterministic)."""
    from .pipeline import BoardReader
    from .settle import SettleLoop
    from .sources import read_image

    out: list[dict] = []
    try:
        reader = (BoardReader.from_calibration(calibration, seq.size, known=known)
                  if calibration is not None else BoardReader(seq.size, known=known))
    except VisionError as e:
        return [{"reading": None, "settled": False, "error": str(e)} for _ in seq.frames]
    loop = SettleLoop(reader)
    for photo in seq.frames:
        image = read_image(photo)
        look, error = None, None
        for _ in range(COPIES):
            try:
                look = loop.look(image)
            except VisionError as e:
                look, error = None, str(e)
        if look is None:
            out.append({"reading": None, "settled": False, "error": error})
        else:
            reading = look.settled or look.reading
            out.append({"reading": reading.squares, "settled": look.settled is not None,
                        "white_at": reading.white_at})
    return out


def _journal(path: Path) -> list[dict]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()]


def _text(key: tuple) -> str:
    """A labelled move as the record writes moves (Manoury numbers), with its side."""
    side, a, b, taken = key
    return f"{side} {a}{'x' if taken else '-'}{b}"


def record_game(seq: Sequence, labels: Labels, work: Path, calibration: Path | None) -> dict:
    """One game through `damas record` (calibrated when `calibration` is a folder)."""
    tag = "cal" if calibration is not None else "plain"
    frames = work / f"frames-{tag}"
    _frame_folder(seq, frames)
    journal, pdn = work / f"{tag}.jsonl", work / f"{tag}.pdn"
    config = work / "empty.toml"  # never the user's own damas.toml
    config.write_text("", encoding="utf-8")
    fen = None if seq.at_start else labels.fen()
    argv = ["record", "--camera", str(frames), "--variant", seq.variant, "--settle",
            f"{SETTLE:g}", "--fps", f"{FPS:g}", "--journal", str(journal), "--pdn", str(pdn),
            "--config", str(config)]
    if fen is not None:
        argv += ["--fen", fen]
    if calibration is not None:
        argv += ["--calibration", str(calibration)]
    status, _, err = _cli(argv)
    shutil.rmtree(frames, ignore_errors=True)
    events = _journal(journal)
    known = Position.from_fen(fen, seq.variant) if fen else Position.start(seq.variant)
    readings = _replay(seq, calibration, known)

    # squares
    frame_rows = []
    for i, r in enumerate(readings):
        truth = labels.truth(i)
        if r["reading"] is None:
            total = sum(ch != "?" for ch in truth.values())
            frame_rows.append({"frame": i, "right": 0, "right_any_way": 0, "total": total,
                               "settled": False, "error": r["error"]})
            continue
        strict = score(r["reading"], truth, turns=False)
        loose = score(r["reading"], truth)
        frame_rows.append({"frame": i, "right": strict.right, "right_any_way": loose.right,
                           "total": strict.total, "settled": r["settled"],
                           "misses": [list(m) for m in strict.misses]})

    # moves
    expected = [(k, mv) for k, mv in ((k, labels.move(k)) for k in range(len(seq.steps)))
                if mv is not None]
    recorded = []
    for e in events:
        if e.get("kind") == "move" and isinstance(e.get("move"), dict):
            path = tuple(e["move"]["path"])
            key = (e["side"], path[0], path[-1], frozenset(e["move"].get("captured", ())))
            recorded.append({"key": key, "notation": e.get("notation"),
                             "photo": _photo_of(e.get("t"))})
    exp_keys = [mv.key for _, mv in expected]
    rec_keys = [r["key"] for r in recorded]
    matched_exp: set[int] = set()
    matched_rec: set[int] = set()
    for block in difflib.SequenceMatcher(None, exp_keys, rec_keys,
                                         autojunk=False).get_matching_blocks():
        matched_exp.update(range(block.a, block.a + block.size))
        matched_rec.update(range(block.b, block.b + block.size))

    # irregularities
    flags = [{"article": e.get("article"), "photo": _photo_of(e.get("t")),
              "offender": e.get("offender"), "message": e.get("message_en")}
             for e in events if e.get("kind") == "tracker-irregular"]
    used: set[int] = set()
    irregular_rows = []
    for step in sorted(seq.irregular):
        hit = next((j for j, f in enumerate(flags) if j not in used and f["photo"] is not None
                    and step + 1 <= f["photo"] <= step + 2), None)
        if hit is not None:
            used.add(hit)
        irregular_rows.append({"step": step, "flagged": hit is not None,
                               "article": flags[hit]["article"] if hit is not None else None})

    steps = []
    for k in range(len(seq.steps)):
        mv = labels.move(k)
        steps.append({
            "step": k, "label": _text(mv.key) if mv else labels.irregular_text(k),
            "irregular": mv is None,
            "recorded": [r["notation"] for r in recorded if r["photo"] == k + 1],
            "flagged": [f["article"] for f in flags if f["photo"] == k + 1]})
    kinds: dict[str, int] = {}
    for e in events:
        kinds[e.get("kind", "?")] = kinds.get(e.get("kind", "?"), 0) + 1
    return {
        "record_status": status, "record_error": err.strip().splitlines()[-1:] if status else [],
        "fen": fen, "frames": frame_rows, "steps": steps,
        "moves": {"labelled": len(expected), "recorded": len(recorded),
                  "right": len(matched_exp), "missed": len(expected) - len(matched_exp),
                  "invented": len(recorded) - len(matched_rec),
                  "missed_moves": [_text(exp_keys[i]) for i in range(len(expected))
                                   if i not in matched_exp],
                  "invented_moves": [r["notation"] for j, r in enumerate(recorded)
                                     if j not in matched_rec]},
        "irregular": {"labelled": len(seq.irregular),
                      "flagged": sum(r["flagged"] for r in irregular_rows),
                      "steps": irregular_rows,
                      "extra": [f for j, f in enumerate(flags) if j not in used]},
        "events": kinds,
        "white_at": sorted({r.get("white_at") for r in readings if r.get("white_at")}),
    }


def _calibrate(seq: Sequence, out: Path) -> tuple[Path | None, str | None]:
    """`damas calibrate board` on the start position's photo: (folder, None), or (None,
    why not)."""
    if seq.full is None:
        return None, "no calibration photo"
    status, _, err = _cli(["calibrate", "board", str(seq.full), "--variant", seq.variant,
                           "--out", str(out)])
    if status != 0:
        return None, err.strip().splitlines()[-1] if err.strip() else f"status {status}"
    return out, None


def run(folder: str | Path, progress=None, modes: tuple[str, ...] = MODES,
        games: tuple[int, ...] | None = None) -> dict:
    """Every game of the folder (or the `games` given by index), in each of `modes`."""
    sequences = load_sequences(folder)
    labelled = [(seq, Labels(seq)) for seq in sequences]  # every label checked first
    if games is not None:
        labelled = [labelled[k] for k in games]
    rows: list[dict] = []
    with tempfile.TemporaryDirectory(prefix="damas-sequences-") as tmp:
        calibrations: dict[Path, tuple[Path | None, str | None]] = {}
        for k, (seq, labels) in enumerate(labelled):
            game: dict = {"name": seq.name, "variant": seq.variant,
                          "frames": len(seq.frames), "modes": {}}
            for mode in modes:
                work = Path(tmp) / f"game{k}-{mode.split()[0]}"
                work.mkdir()
                cal = None
                if mode == MODES[0]:
                    if seq.full is not None and seq.full not in calibrations:
                        calibrations[seq.full] = _calibrate(
                            seq, Path(tmp) / f"cal{len(calibrations)}")
                    cal, why = (calibrations[seq.full] if seq.full is not None
                                else (None, "no calibration photo"))
                    if cal is None:
                        game["modes"][mode] = {"skipped": why}
                        continue
                game["modes"][mode] = record_game(seq, labels, work, cal)
                if progress is not None:
                    m = game["modes"][mode]["moves"]
                    print(f"  {seq.name}, {mode}: {m['right']}/{m['labelled']} moves",
                          file=progress)
            rows.append(game)
    return {"games": rows, "summary": {mode: summarise(rows, mode) for mode in modes},
            "copies": COPIES, "fps": FPS, "settle": SETTLE}


def summarise(games: list[dict], mode: str) -> dict:
    runs = [g["modes"][mode] for g in games if "frames" in g["modes"].get(mode, {})]
    frames = [f for r in runs for f in r["frames"]]
    flags = [f["article"] for r in runs for f in r["irregular"]["steps"] if f["flagged"]]
    return {
        "games": len(runs), "skipped": len(games) - len(runs),
        "squares_right": sum(f["right"] for f in frames),
        "squares_right_any_way": sum(f["right_any_way"] for f in frames),
        "squares": sum(f["total"] for f in frames),
        "frames_exact": sum(f["right"] == f["total"] for f in frames),
        "frames": len(frames), "frames_settled": sum(f["settled"] for f in frames),
        **{k: sum(r["moves"][k] for r in runs)
           for k in ("labelled", "recorded", "right", "missed", "invented")},
        "irregular_labelled": sum(r["irregular"]["labelled"] for r in runs),
        "irregular_flagged": len(flags), "irregular_articles": flags,
        "irregular_extra": sum(len(r["irregular"]["extra"]) for r in runs),
    }


def _pct(a: int, b: int) -> str:
    return f"{100 * a / b:.1f} %" if b else "-"


def print_report(report: dict) -> None:
    print(f"each photo {report['copies']} frames at {report['fps']:g} fps, settle "
          f"{report['settle']:g} s; squares scored on the playing squares")
    for game in report["games"]:
        for mode, r in game["modes"].items():
            print(f"\n{game['name']}, {game['variant']}, {mode}:")
            if "skipped" in r:
                print(f"  not run: {r['skipped']}")
                continue
            if r["record_status"]:
                print(f"  record stopped (status {r['record_status']}): "
                      f"{' '.join(r['record_error'])}")
            if r["fen"]:
                print(f"  from --fen {r['fen']}")
            plain = mode != MODES[0]
            for f in r["frames"]:
                line = f"  frame {f['frame']:2d}: squares {f['right']:2d}/{f['total']}"
                if plain and f["right_any_way"] != f["right"]:
                    line += f" ({f['right_any_way']} turned or colours swapped)"
                if f.get("misses"):
                    line += " (" + " ".join(f"{sq}:{t}>{g}" for sq, t, g in f["misses"]) + ")"
                if not f["settled"]:
                    line += f" not settled{': ' + f['error'] if f.get('error') else ''}"
                if f["frame"] > 0:
                    s = r["steps"][f["frame"] - 1]
                    seen = ", ".join(s["recorded"] + [f"flag {a}" for a in s["flagged"]])
                    line += f"   step {s['step']}: {s['label']}  ->  {seen or 'nothing'}"
                print(line)
            m, irr = r["moves"], r["irregular"]
            print(f"  moves: {m['recorded']} recorded, {m['right']} of {m['labelled']} "
                  f"right, {m['missed']} missed, {m['invented']} invented"
                  + (f"; missed {', '.join(m['missed_moves'])}" if m["missed_moves"] else "")
                  + (f"; invented {', '.join(m['invented_moves'])}"
                     if m["invented_moves"] else ""))
            steps = ", ".join(f"step {s['step']} " + (f"flagged {s['article']}" if s["flagged"]
                                                       else "not flagged")
                              for s in irr["steps"])
            print(f"  irregularities: {irr['flagged']} of {irr['labelled']} flagged"
                  + (f" ({steps})" if steps else "")
                  + (f"; {len(irr['extra'])} flagged at regular steps ("
                     + ", ".join(f"{f['article']} at frame {f['photo']}" for f in irr["extra"])
                     + ")" if irr["extra"] else ""))
    print()
    for mode, s in report["summary"].items():
        arts = ", ".join(s["irregular_articles"])
        print(f"{mode:20s}: {s['games']} games, squares {s['squares_right']}/{s['squares']} "
              f"({_pct(s['squares_right'], s['squares'])}"
              + (f"; {s['squares_right_any_way']} up to a turn or swap" if mode != MODES[0]
                 else "")
              + f"), frames exact {s['frames_exact']}/{s['frames']}, "
              f"settled {s['frames_settled']}/{s['frames']}; moves {s['recorded']} recorded, "
              f"{s['right']}/{s['labelled']} right, {s['missed']} missed, "
              f"{s['invented']} invented; irregularities {s['irregular_flagged']}/"
              f"{s['irregular_labelled']} flagged" + (f" ({arts})" if arts else "")
              + f", {s['irregular_extra']} at regular steps"
              + (f"; {s['skipped']} games not run" if s["skipped"] else ""))
