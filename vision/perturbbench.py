"""`damas bench vision --photos DIR --perturbed`: every labelled photo of a set played on
the dark squares read again as other cameras, hands and web pages would have given it:
cut down to the board, turned, smaller, further off, bigger, out of focus, recompressed,
darker, under a warm light, washed out. The dev photos are few; the conditions a photo
of someone else's board comes in are many, and a reader tuned to the few shows it here.

The truth is the photo's own label grid, lined up with the board found in the changed
photo as for the original (`photos.playing_truth`: its first row the one nearest the top
of the picture, so turns stay under 45° with the photos' own up to 15°, and a quarter
turn turns the grid with the picture: each change gives the changed photo and its
labels). Only the crop needs the original read: where the board is, to cut round it.
Each photo is read by the model that never saw its source, as `--photos` reads it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace

import cv2
import numpy as np

from .board import BoardPose
from .errors import VisionError
from .photobench import reader_for
from .photos import LabelledPhoto, load_labels, playing_truth, score


def _surround(image: np.ndarray) -> tuple[float, ...]:
    """The colour round the picture's edge: what a turned or shrunk photo is padded with
    (a table, not black bars)."""
    edge = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
    return tuple(float(v) for v in np.median(edge, axis=0))


def _turned(degrees: float) -> Callable[[np.ndarray], np.ndarray]:
    def turn(image: np.ndarray) -> np.ndarray:
        h, w = image.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0)
        cos, sin = abs(m[0, 0]), abs(m[0, 1])
        width, height = int(h * sin + w * cos), int(h * cos + w * sin)
        m[0, 2] += width / 2 - w / 2
        m[1, 2] += height / 2 - h / 2
        return cv2.warpAffine(image, m, (width, height), borderValue=_surround(image))
    return turn


def _further_off(image: np.ndarray) -> np.ndarray:
    h, w = image.shape[:2]
    small = cv2.resize(image, None, fx=0.4, fy=0.4, interpolation=cv2.INTER_AREA)
    out = np.empty_like(image)
    out[:] = _surround(image)
    y, x = (h - small.shape[0]) // 3, (w - small.shape[1]) // 2
    out[y:y + small.shape[0], x:x + small.shape[1]] = small
    return out


def _washed_out(image: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)[..., None].astype(np.float32)
    return np.clip(grey + 0.35 * (image - grey), 0, 255).astype(np.uint8)


def _scaled(image: np.ndarray, gains) -> np.ndarray:
    return np.clip(image.astype(np.float32) * np.asarray(gains, np.float32), 0,
                   255).astype(np.uint8)


def _jpeg(image: np.ndarray) -> np.ndarray:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 25])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
    assert decoded is not None  # the JPEG just encoded
    return decoded


Change = Callable[[np.ndarray, LabelledPhoto], tuple[np.ndarray, LabelledPhoto]]


def _picture(change: Callable[[np.ndarray], np.ndarray]) -> Change:
    """A change of the picture alone: the labels stay as they are."""
    return lambda image, photo: (change(image), photo)


def board_crop(image: np.ndarray, pose: BoardPose, margin: float = 0.12) -> np.ndarray:
    """The picture cut down to the board's playing area and `margin` of it each side."""
    board = pose.corners()
    pad = margin * np.ptp(board, axis=0)
    x0, y0 = np.floor(board.min(axis=0) - pad).astype(int).clip(0)
    x1, y1 = np.ceil(board.max(axis=0) + pad).astype(int)
    return image[y0:y1, x0:x1]


def _cut_round_the_board(image: np.ndarray, photo: LabelledPhoto):
    reader = reader_for(photo)
    reader.read(image)
    assert reader.pose is not None  # read above
    return board_crop(image, reader.pose), photo


def _quarter_turn(image: np.ndarray, photo: LabelledPhoto):
    # the grid is as seen: it turns with the picture
    grid = np.rot90(np.array([list(row) for row in photo.grid]), -1)
    return (cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE),
            replace(photo, grid=tuple("".join(row) for row in grid)))


# name -> what it stands for, the change
PERTURBATIONS: dict[str, tuple[str, Change]] = {
    "crop": ("cut down to the board and a margin", _cut_round_the_board),
    "turn +20": ("turned 20° anticlockwise", _picture(_turned(20))),
    "turn -20": ("turned 20° clockwise", _picture(_turned(-20))),
    "quarter turn": ("turned 90° clockwise", _quarter_turn),
    "half size": ("half the pixels each way",
                  _picture(lambda im: cv2.resize(im, None, fx=0.5, fy=0.5,
                                                 interpolation=cv2.INTER_AREA))),
    "further off": ("the board 0.4 times as big, on a table", _picture(_further_off)),
    "phone size": ("2.5 times the pixels each way",
                   _picture(lambda im: cv2.resize(im, None, fx=2.5, fy=2.5,
                                                  interpolation=cv2.INTER_CUBIC))),
    "out of focus": ("Gaussian blur of 2 pixels",
                     _picture(lambda im: cv2.GaussianBlur(im, (0, 0), 2.0))),
    "jpeg 25": ("recompressed at JPEG quality 25", _picture(_jpeg)),
    "dark": ("0.45 times the light", _picture(lambda im: _scaled(im, (0.45, 0.45, 0.45)))),
    "warm light": ("blue 0.7, green 0.95, red 1.2 times",
                   _picture(lambda im: _scaled(im, (0.7, 0.95, 1.2)))),
    "washed out": ("a third of the colour", _picture(_washed_out)),
}


def _read(photo: LabelledPhoto, image: np.ndarray):
    reader = reader_for(photo)
    reading = reader.read(image)
    assert reader.pose is not None  # read above
    return score(reading.squares, playing_truth(photo, reader.pose))


@dataclass
class _Tally:
    what: str
    squares: int = 0
    right: int = 0
    exact: int = 0
    misses: list[str] = field(default_factory=list)


def run(folder, progress=None) -> dict:
    photos = [p for p in load_labels(folder) if not p.pieces_on_light]
    rows = {name: _Tally(what) for name, (what, _) in PERTURBATIONS.items()}
    for photo in photos:
        original = cv2.imread(str(photo.path))
        if original is None:
            raise VisionError(f"{photo.path}: not an image")
        n = photo.size * photo.size // 2
        for name, (_, change) in PERTURBATIONS.items():
            row = rows[name]
            try:
                image, labelled = change(original, photo)
                s = _read(labelled, image)
                row.squares += s.total
                row.right += s.right
                row.exact += s.right == s.total
                if s.misses:
                    row.misses.append(f"{photo.name}: " + " ".join(
                        f"{q}:{t}>{g}" for q, t, g in s.misses))
            except VisionError as e:
                row.squares += n
                row.misses.append(f"{photo.name}: {e}")
        if progress is not None:
            print(f"  {photo.name}: read {len(PERTURBATIONS)} ways", file=progress)
    squares = sum(r.squares for r in rows.values())
    right = sum(r.right for r in rows.values())
    return {"photos": len(photos), "perturbations": {k: asdict(r) for k, r in rows.items()},
            "squares": squares,
            "squares_right": right, "square_accuracy": right / squares if squares else None}


def print_report(report: dict) -> None:
    print(f"the {report['photos']} photos of sets played on the dark squares, each changed "
          "as another camera or page would give it:")
    for name, r in report["perturbations"].items():
        acc = 100 * r["right"] / r["squares"] if r["squares"] else 0.0
        print(f"  {name:13s} {r['right']:4d}/{r['squares']:<4d} {acc:6.2f} %   boards exact "
              f"{r['exact']}/{report['photos']}   ({r['what']})")
    if report["square_accuracy"] is not None:
        print(f"  {'all':13s} {report['squares_right']}/{report['squares']} "
              f"{100 * report['square_accuracy']:.2f} %")
    print("\nmisses (square:true>read):")
    for name, r in report["perturbations"].items():
        for line in r["misses"]:
            print(f"  {name}: {line}")
