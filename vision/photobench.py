"""`damas bench vision --photos DIR`: reads every labelled photo of a folder (the
`labels.json` format of `photos`) as a single photo with no calibration, and scores it
up to a half turn and a swap of the colours.

Photos of sets played on the light squares are read twice: as they are, where the one
right answer is the report that the pieces stand on the light squares, and with the
light squares as the playing ones (`--playing-squares light`), scored like the others.

No photo is scored by a model that saw it: the occupancy model damas ships lists the
sources of the real photos it was trained on (`models/occupancy.json`); a photo from one
of them is read with the model trained without that source (`models/loso/SOURCE.onnx`,
made by the same training), so the figure is a leave-one-source-out one. A photo from
anywhere else is read with the shipped model."""

from __future__ import annotations

import time
from collections import defaultdict
from pathlib import Path

import cv2

from .errors import VisionError
from .occupancy import load, never_trained_on
from .photos import LabelledPhoto, load_labels, playing_truth, score
from .pipeline import BoardReader, PiecesOnLightSquares


def model_for(photo: LabelledPhoto):
    """(the occupancy model that never saw this photo's source, how it was chosen)."""
    path, how = never_trained_on(photo.source)
    return load(path), how


def conditions(photo: LabelledPhoto) -> list[tuple[str, str]]:
    angle = str(photo.conditions.get("angle") or "").lower()
    view = "oblique" if "oblique" in angle else "top-down"
    markers = photo.conditions.get("markers")
    return [("view", view), ("markers", "with" if markers else "without"),
            ("source", photo.source), ("pieces on", "light" if photo.pieces_on_light
                                       else "dark")]


def reader_for(photo: LabelledPhoto, playing: str = "dark") -> BoardReader:
    """A fresh reader of one photo, as `damas read` reads it, with the model that never
    saw its source."""
    return BoardReader(photo.size, playing=playing, adapt=False,
                       occupancy=model_for(photo)[0])


def read_photo(photo: LabelledPhoto, playing: str):
    """(reading, pose, seconds) for one photo, or raises what the reader raises."""
    image = cv2.imread(str(photo.path))
    if image is None:
        raise VisionError(f"{photo.path}: not an image")
    reader = reader_for(photo, playing)
    t0 = time.perf_counter()
    reading = reader.read(image)
    return reading, reader.pose, time.perf_counter() - t0, image


def run(folder: str | Path, annotate_dir: str | Path | None = None, progress=None) -> dict:
    from .annotate import annotate

    photos = load_labels(folder)
    rows = []
    for photo in photos:
        row = {"photo": photo.name, "size": photo.size, "conditions": dict(conditions(photo)),
               "pieces_on_light": photo.pieces_on_light, "model": model_for(photo)[1]}
        if photo.pieces_on_light:
            try:
                read_photo(photo, "dark")
                row["reported_on_light"] = False
            except PiecesOnLightSquares:
                row["reported_on_light"] = True
            except VisionError as e:
                row["reported_on_light"] = False
                row["error_as_is"] = str(e)
        try:
            reading, pose, seconds, image = read_photo(
                photo, "light" if photo.pieces_on_light else "dark")
            truth = playing_truth(photo, pose)
            s = score(reading.squares, truth)
            said = [(reading.confidence[sq], right)
                    for sq, right in s.read_right(reading.squares, truth).items()]
            row.update(right=s.right, total=s.total, misses=[list(m) for m in s.misses],
                       seconds=seconds, said=said)
            if annotate_dir is not None and not s.exact:
                out = Path(annotate_dir)
                out.mkdir(parents=True, exist_ok=True)
                cv2.imwrite(str(out / (photo.path.stem + ".png")),
                            annotate(image, pose, reading))
        except VisionError as e:
            total = sum(ch != "?" for r in photo.grid for ch in r
                        ) - photo.size * photo.size // 2  # the playing squares labelled
            row.update(right=0, total=max(total, photo.size * photo.size // 2), misses=[],
                       error=str(e), seconds=None)
        rows.append(row)
        if progress is not None:
            print(f"  {photo.name}: {row['right']}/{row['total']}"
                  + (f" ({row['error']})" if "error" in row else ""), file=progress)
    return summarise(rows)


def summarise(rows: list[dict]) -> dict:
    def tally(subset):
        right = sum(r["right"] for r in subset)
        total = sum(r["total"] for r in subset)
        exact = sum(r["right"] == r["total"] for r in subset)
        return {"photos": len(subset), "squares_right": right, "squares": total,
                "square_accuracy": right / total if total else None,
                "boards_exact": exact}

    dark = [r for r in rows if not r["pieces_on_light"]]
    light = [r for r in rows if r["pieces_on_light"]]
    per = defaultdict(list)
    for r in rows:
        for key, value in r["conditions"].items():
            per[f"{key}: {value}"].append(r)
    times = sorted(r["seconds"] for r in rows if r.get("seconds") is not None)
    return {
        "reliability": reliability([c for r in dark for c in r.get("said", [])]),
        "dark": tally(dark), "light": tally(light),
        "light_reported_as_is": sum(bool(r.get("reported_on_light")) for r in light),
        "conditions": {k: tally(v) for k, v in sorted(per.items())},
        "median_seconds": times[len(times) // 2] if times else None,
        "photos": rows,
        "leave_one_source_out": any(r["model"].startswith("trained without") for r in rows),
    }


CERTAINTY_BINS = (0.8, 0.9, 0.95, 0.99, 0.999, 1.0)  # a square under 0.8 is `?`


def reliability(said: list[tuple[float, bool]]) -> dict:
    """How honest the reader's certainties are, over the squares it read (not `?`):
    per bin of stated certainty, the squares, their mean certainty and the share right;
    and the expected calibration error, the squares' weighted mean gap between the two
    (0: a reading given 0.99 is right 99 % of the time)."""
    bins, gap = [], 0.0
    for low, high in zip(CERTAINTY_BINS, CERTAINTY_BINS[1:], strict=False):
        inside = [(c, ok) for c, ok in said if low <= c < high or (high == 1.0 and c == 1.0)]
        if not inside:
            continue
        stated = sum(c for c, _ in inside) / len(inside)
        right = sum(ok for _, ok in inside) / len(inside)
        bins.append({"from": low, "to": high, "squares": len(inside), "stated": stated,
                     "right": right})
        gap += len(inside) * abs(stated - right)
    return {"squares": len(said), "bins": bins,
            "expected_calibration_error": gap / len(said) if said else None}


def print_report(report: dict) -> None:
    def line(name, t):
        acc = "-" if t["square_accuracy"] is None else f"{100 * t['square_accuracy']:.2f} %"
        return (f"{name:34s} {t['squares_right']:5d}/{t['squares']:<5d} {acc:>9s}   "
                f"boards exact {t['boards_exact']}/{t['photos']}")

    print(line("photos of sets played on dark", report["dark"]))
    light = report["light"]
    if light["photos"]:
        print(line("light-square sets, read as such", light))
        print(f"{'light-square sets, read as they are':34s} reported as pieces on the light "
              f"squares: {report['light_reported_as_is']}/{light['photos']}")
    print("\nby condition:")
    for name, t in report["conditions"].items():
        print("  " + line(name, t))
    misses = [r for r in report["photos"] if r["right"] != r["total"]]
    if misses:
        print("\nmisses (square, true, read):")
        for r in misses:
            what = r.get("error") or " ".join(f"{s}:{t}>{g}" for s, t, g in r["misses"])
            print(f"  {r['photo']}: {r['right']}/{r['total']}  {what}")
    rel = report["reliability"]
    if rel["squares"]:
        print(f"\nhow honest the certainties are ({rel['squares']} squares read on the "
              "dark-square photos, `?` left out):")
        for b in rel["bins"]:
            print(f"  certainty {b['from']:.3f}-{b['to']:.3f}: {b['squares']:5d} squares, "
                  f"stated {100 * b['stated']:6.2f} %, right {100 * b['right']:6.2f} %")
        print(f"  expected calibration error {100 * rel['expected_calibration_error']:.2f} "
              "points")
    if report["median_seconds"] is not None:
        print(f"\nmedian read of a photo (locate + read, one frame): "
              f"{1000 * report['median_seconds']:.0f} ms")
    if report["leave_one_source_out"]:
        print("leave-one-source-out: each photo read by the model trained without its "
              "source (the shipped model learned from these photos too)")
    else:
        print("the shipped model never saw these photos' sources")
