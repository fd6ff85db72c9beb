"""`damas bench vision`: the evaluation set, generated, read and scored.

Each scene (board size, colours, camera pose, lens, light, sensor) is calibrated once on
a frame of the start position, as a user would (`damas calibrate board`: pose, White's
side from the start position, colours), then four frames of positions from random legal
games (kings included) are rendered in it with fresh noise and a slightly changed light,
and read with the pose known. Scored square by square against the truth (king or man
counts; an unknown square counts as wrong), except that a king of two plain men seen
from so nearly overhead that its second man cannot show (`stack_visible`) is right when
read as a man, as the documentation promises no more; those are counted apart. Timings
are on one core at the frame size rendered (1280x720): the known-pose read, a fresh
locate, and a fresh locate plus read.
"""

from __future__ import annotations

import math
import random
import time
from collections import defaultdict

import numpy as np

from damas.rules import Position

from .board import square_centres
from .locate import locate
from .pipeline import BoardReader
from .render import board_camera, render
from .scene import Scene, random_scene

FRAMES_PER_SCENE = 4
# a plain stack shows as a king when its upper man stands out this far (squares) beyond
# where a man's top would be, seen from the camera (a man's height x the slant of the
# view): about 4 pixels at the bench's sizes. From nearer overhead it reads as a man, as
# the documentation says, and is scored so.
VISIBLE_RISE = 0.075


def stack_visible(scene: Scene) -> np.ndarray:
    """Per dark square, whether a king of two plain men stacked there can be seen to
    be two men high from the scene's true camera."""
    eye = board_camera(scene).centre / scene.square_mm
    slant = np.linalg.norm(square_centres(scene.size) - eye[:2], axis=1) / eye[2]
    return scene.piece_height * slant >= VISIBLE_RISE


def random_position(variant_name: str, rng: random.Random, max_plies: int = 180) -> Position:
    """A position from a random legal game, long enough, often, to have kings."""
    pos = Position.start(variant_name)
    for _ in range(rng.randrange(0, max_plies)):
        moves = pos.legal_moves()
        if not moves:
            break
        pos = pos.play(rng.choice(moves))
    return pos


def _conditions(scene, pieces) -> list[tuple[str, str]]:
    def bucket(value, edges, names):
        return names[sum(value >= e for e in edges)]

    return [
        ("board", f"{scene.size}x{scene.size}"),
        ("scheme", scene.scheme),
        ("tilt", bucket(scene.tilt_deg, (15, 30), ("0-15", "15-30", "30-45"))),
        ("markers", "with" if scene.markers else "without"),
        ("noise", bucket(scene.noise, (2, 4), ("<2", "2-4", ">=4"))),
        ("blur", bucket(scene.blur, (0.5, 1.0), ("<0.5", "0.5-1", ">=1"))),
        ("jpeg", "none" if not scene.jpeg_quality else
         bucket(scene.jpeg_quality, (85,), ("q<85", "q>=85"))),
        ("light", bucket(scene.gradient, (0.15, 0.3), ("even", "uneven", "very uneven"))),
        ("kings", "with" if any(v.isupper() for v in pieces.values()) else "without"),
    ]


def run(frames: int = 2000, seed: int = 1, progress=None) -> dict:
    """`progress`: a damas.progress.Progress (or None), told of every frame and of every
    frame read wrong."""
    import cv2

    cv2.setNumThreads(1)
    rng = random.Random(seed)
    totals = {"frames": 0, "squares": 0, "right": 0, "unknown": 0, "misread": 0, "boards": 0,
              "boards_right": 0, "fresh_boards_right": 0, "calibration_failures": 0,
              "kings": 0, "kings_right": 0, "kings_visible": 0, "kings_visible_right": 0,
              "hidden_kings": 0, "strict_right": 0}
    # squares, right, boards, boards right
    per: defaultdict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    times: defaultdict[str, list[float]] = defaultdict(list)
    failures: list[str] = []
    scenes = math.ceil(frames / FRAMES_PER_SCENE)
    done = 0
    for _ in range(scenes):
        scene = random_scene(rng)
        if rng.random() < 0.3:  # kings as two plain men stacked, no crown
            scene = scene.with_(king_mark="none")
        name = "international" if scene.size == 10 else rng.choice(["brazilian", "english"])
        t0 = time.perf_counter()
        start_frame = render(scene, Position.start(name).pieces()).image
        times["render"].append(time.perf_counter() - t0)
        # where a king shows: by its crown, or as a stack seen from the side
        visible = (np.ones(scene.size ** 2 // 2, bool) if scene.king_mark == "crown"
                   else stack_visible(scene))
        reader: BoardReader | None = None
        try:
            reader = BoardReader(scene.size, adapt=False)
            reader.locate(start_frame)
        except Exception as e:  # a scene we cannot calibrate: all its frames count wrong
            reader = None
            totals["calibration_failures"] += 1
            failures.append(f"calibration: {type(e).__name__}: {e}")
        for _ in range(min(FRAMES_PER_SCENE, frames - done)):
            pos = random_position(name, rng)
            shot = scene.with_(noise_seed=rng.randrange(1 << 30),
                               exposure=scene.exposure * rng.uniform(0.93, 1.07),
                               light_azimuth_deg=scene.light_azimuth_deg + rng.uniform(-15, 15))
            frame = render(shot, pos.pieces()).image
            truth = pos.pieces()
            n = scene.size * scene.size // 2
            right = unknown = misread = 0
            fresh_ok = False
            if reader is not None:
                t0 = time.perf_counter()
                reading = reader.read(frame)
                times["known"].append(time.perf_counter() - t0)
                expected = {}
                for sq in range(1, n + 1):
                    got, want = reading.squares[sq], truth.get(sq, "e")
                    totals["strict_right"] += got == want
                    if want.isupper():
                        seen = bool(visible[sq - 1])
                        totals["kings"] += 1
                        totals["kings_right"] += got == want
                        totals["kings_visible"] += seen
                        totals["kings_visible_right"] += seen and got == want
                        if not seen:  # a stack from nearly overhead: a man, as documented
                            totals["hidden_kings"] += 1
                            want = want.lower() if got == want.lower() else want
                    expected[sq] = want
                    right += got == want
                    unknown += got == "?"
                    misread += got not in ("?", want)
                if right < n:
                    wrong = {s: (reading.squares[s], expected[s]) for s in range(1, n + 1)
                             if reading.squares[s] != expected[s]}
                    line = (f"{scene.scheme} {scene.size} tilt {scene.tilt_deg:.0f} markers "
                            f"{scene.markers} seed {scene.seed}: (read, true) {wrong}")
                    if len(failures) < 30:
                        failures.append(line)
                    if progress is not None:
                        progress.write(f"  frame {done + 1}: {line}")
                try:
                    t0 = time.perf_counter()
                    locate(frame, scene.size)
                    times["fresh_locate"].append(time.perf_counter() - t0)
                    pose = reader.pose
                    assert pose is not None  # located above, and kept by every read
                    fresh = BoardReader(scene.size, model=reader.model, stack=reader.stack,
                                        head=reader.head,
                                        white_at=pose.white_side_in_image(), adapt=False)
                    t0 = time.perf_counter()
                    again = fresh.read(frame)
                    times["fresh_read"].append(time.perf_counter() - t0)
                    fresh_ok = again.squares == reading.squares and right == n
                except Exception:
                    fresh_ok = False
            totals["frames"] += 1
            totals["squares"] += n
            totals["right"] += right
            totals["unknown"] += unknown
            totals["misread"] += misread
            totals["boards"] += 1
            totals["boards_right"] += right == n
            totals["fresh_boards_right"] += fresh_ok
            for cond in _conditions(scene, truth):
                row = per[cond]
                row[0] += n
                row[1] += right
                row[2] += 1
                row[3] += right == n
            done += 1
            if progress is not None:
                progress.update(1, f"squares {totals['right'] / totals['squares']:.5%}, "
                                   f"boards {totals['boards_right'] / totals['boards']:.3%}")
    ms = {k: {"median": round(1000 * float(np.median(v)), 2),
              "p90": round(1000 * float(np.percentile(v, 90)), 2), "count": len(v)}
          for k, v in times.items() if v}
    return {
        "frames": totals["frames"], "seed": seed, "frame_size": "1280x720",
        "square_accuracy": totals["right"] / max(1, totals["squares"]),
        "board_accuracy": totals["boards_right"] / max(1, totals["boards"]),
        "fresh_locate_board_accuracy": totals["fresh_boards_right"] / max(1, totals["boards"]),
        "squares": totals["squares"], "unknown_squares": totals["unknown"],
        "misread_squares": totals["misread"],
        "calibration_failures": totals["calibration_failures"],
        "kings": totals["kings"], "kings_right": totals["kings_right"],
        "kings_visible": totals["kings_visible"],
        "kings_visible_right": totals["kings_visible_right"],
        "hidden_kings": totals["hidden_kings"],
        "strict_square_accuracy": totals["strict_right"] / max(1, totals["squares"]),
        "per_condition": {f"{k}={v}": {"frames": r[2], "squares": r[1] / r[0],
                                       "boards": r[3] / r[2]}
                          for (k, v), r in sorted(per.items())},
        "ms": ms,
        "examples_of_errors": failures[:12],
    }


def print_report(report: dict) -> None:
    print(f"vision bench: {report['frames']} rendered frames at {report['frame_size']} "
          f"(seed {report['seed']})")
    print(f"  squares right     {report['square_accuracy']:.4%}   (target 99.95 %)  "
          f"unknown {report['unknown_squares']}, misread {report['misread_squares']} "
          f"of {report['squares']}")
    print(f"  boards right      {report['board_accuracy']:.3%}   (target 99.5 %)")
    if report["kings_visible"]:
        print(f"  kings right where a crown or a side view shows them "
              f"{report['kings_visible_right']}/{report['kings_visible']} "
              f"({report['kings_visible_right'] / report['kings_visible']:.2%}, target 95 %); "
              f"all kings {report['kings_right']}/{report['kings']}")
    if report["hidden_kings"]:
        print(f"  plain stacks seen from nearly overhead (a man's height x slant under "
              f"{VISIBLE_RISE} of a square), scored right when read as men: "
              f"{report['hidden_kings']}; every king counted as a king, squares right "
              f"{report['strict_square_accuracy']:.4%}")
    print(f"  boards right from a fresh locate each frame "
          f"{report['fresh_locate_board_accuracy']:.3%}")
    if report["calibration_failures"]:
        print(f"  scenes that could not be calibrated: {report['calibration_failures']}")
    print("  per condition:            frames   squares    boards")
    for key, row in report["per_condition"].items():
        print(f"    {key:<24}{row['frames']:>6}  {row['squares']:>9.4%} {row['boards']:>9.3%}")
    ms = report["ms"]
    print("  timings on one core (ms):  median     p90")
    for key, label in (("known", "locate+read, pose known"), ("fresh_locate", "fresh locate"),
                       ("fresh_read", "fresh locate+read"), ("render", "render a frame")):
        if key in ms:
            print(f"    {label:<24}{ms[key]['median']:>8.2f} {ms[key]['p90']:>8.2f}")
    for line in report["examples_of_errors"]:
        print(f"  error: {line}")
