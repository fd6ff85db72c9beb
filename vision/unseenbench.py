"""`damas bench vision --unseen`: rendered frames read as `damas read` reads someone's
photo, with nothing learned of the set: a fresh reader per frame, no calibration, no
known position, in any position of a random legal game (kings included, crowned or two
plain men stacked, half the scenes each). Scored square by square up to a half turn
(without markers or a side the board is known only up to one), White being the lighter
pieces as the renderer draws them.

`--varied` draws the scenes from `varied_scene` (sets and light of every kind a reader
must meet) and gives the figures per kind of scene as well."""

from __future__ import annotations

import random
import time
from collections import Counter

import numpy as np

from .bench import random_position, stack_visible
from .errors import VisionError
from .pipeline import BoardReader
from .render import render
from .scene import Scene, luma, random_scene, varied_scene


def kinds(scene: Scene) -> list[str]:
    """What makes a varied scene hard, by name (none: "plain")."""
    named = []
    if scene.squares_rgb is not None:
        a, b = scene.squares_rgb
        named.append("equal grey squares" if abs(luma(a) - luma(b)) < 3 else "squares any hue")
        if scene.pieces_rgb is not None and \
                max(abs(x - y) for x, y in zip(scene.pieces_rgb[1], b, strict=True)) < 40:
            named.append("dark men on dark squares")
    if scene.pieces_rgb is not None:
        named.append("pieces any colour")
    named += [f"kings: {scene.king_mark}" + (" (one high)" if scene.king_men == 1 else "")]
    named += [name for name, on in (
        ("translucent", scene.opacity < 1), ("glossy", scene.gloss > 0),
        ("flash" if scene.glow[:2] == (0.5, 0.5) else "lamp", scene.glow[3] > 0),
        ("wide angle", scene.dist[0] < -0.1), ("low resolution", scene.width < 1000),
        ("motion blur", scene.motion[0] > 0)) if on]
    return named


def run(frames: int, seed: int, progress=None, varied: bool = False) -> dict:
    import cv2

    cv2.setNumThreads(1)
    rng = random.Random(seed)
    t = Counter[str]()
    misses = Counter[str]()
    times: list[float] = []
    known_pose: list[float] = []  # the same frame read again, the pose kept
    per_kind: dict[str, Counter[str]] = {}
    for _ in range(frames):
        scene = (varied_scene(rng) if varied else
                 random_scene(rng).with_(king_mark=rng.choice(["none", "crown"])))
        tally = [per_kind.setdefault(k, Counter()) for k in kinds(scene)] if varied else []
        for c in tally:
            c["frames"] += 1
            c["squares"] += scene.size ** 2 // 2
        name = "international" if scene.size == 10 else rng.choice(["brazilian", "english"])
        pos = random_position(name, rng)
        image = render(scene, pos.pieces()).image
        truth = pos.pieces()
        n = scene.size ** 2 // 2
        t["frames"] += 1
        t["squares"] += n
        t0 = time.perf_counter()
        try:
            reader = BoardReader(scene.size, adapt=False)
            reading = reader.read(image)
            t1 = time.perf_counter()
            reader.read(image)
            known_pose.append(time.perf_counter() - t1)
        except VisionError:
            t["not_read"] += 1
            if progress is not None:
                progress.update(1)
            continue
        times.append(t1 - t0)
        got = min(({q: reading.squares[n + 1 - q if turned else q] for q in range(1, n + 1)}
                   for turned in (False, True)),
                  key=lambda g: sum(g[q] != truth.get(q, "e") for q in g))
        wrong = [q for q in got if got[q] != truth.get(q, "e")]
        for c in tally:
            c["right"] += n - len(wrong)
            c["boards_right"] += not wrong
            c["kings"] += sum(p.isupper() for p in truth.values())
            c["kings_right"] += sum(got[q] == p for q, p in truth.items() if p.isupper())
        t["right"] += n - len(wrong)
        t["boards_right"] += not wrong
        misses.update(f"{truth.get(q, 'e')}>{got[q]}" for q in wrong)
        visible = stack_visible(scene)
        for q, piece in truth.items():
            if piece.isupper():
                kind = "crowned" if scene.king_mark == "crown" else (
                    "stacks" if visible[q - 1] else "stacks_overhead")
                t[kind] += 1
                t[kind + "_right"] += got[q] == piece
            else:
                t["false_kings"] += got[q] == piece.upper()
        if progress is not None:
            progress.update(1)
    times.sort()
    return {"frames": t["frames"], "seed": seed, "not_read": t["not_read"],
            "squares": t["squares"], "squares_right": t["right"],
            "square_accuracy": t["right"] / t["squares"] if t["squares"] else None,
            "boards_right": t["boards_right"],
            "board_accuracy": t["boards_right"] / t["frames"] if t["frames"] else None,
            "kings": {kind: [t[kind + "_right"], t[kind]]
                      for kind in ("crowned", "stacks", "stacks_overhead")},
            "false_kings": t["false_kings"],
            "misses": dict(misses.most_common(10)),
            "kinds": {k: dict(c) for k, c in sorted(per_kind.items())},
            "median_ms": 1000 * float(np.median(times)) if times else None,
            "median_known_pose_ms": 1000 * float(np.median(known_pose)) if known_pose else None}


def print_report(report: dict) -> None:
    print(f"vision bench, sets never seen: {report['frames']} rendered frames read as photos "
          f"(seed {report['seed']}), no calibration, any position")
    print(f"  squares right  {report['squares_right']}/{report['squares']} "
          f"({report['square_accuracy']:.2%})")
    print(f"  boards right   {report['boards_right']}/{report['frames']} "
          f"({report['board_accuracy']:.1%}); boards not found {report['not_read']}")
    kings = report["kings"]
    print(f"  kings read as kings: crowned {kings['crowned'][0]}/{kings['crowned'][1]}, "
          f"two plain men seen at a slant {kings['stacks'][0]}/{kings['stacks'][1]}, "
          f"seen from nearly overhead {kings['stacks_overhead'][0]}/"
          f"{kings['stacks_overhead'][1]}; men read as kings {report['false_kings']}")
    print("  misses (true>read): " + ", ".join(f"{k} {v}" for k, v in report["misses"].items()))
    if report["median_ms"] is not None:
        print(f"  median locate and read of a frame: {report['median_ms']:.0f} ms; read again "
              f"with the pose known: {report['median_known_pose_ms']:.1f} ms (one core)")
    if report["kinds"]:
        print("  per kind of scene (a scene may be of several kinds):")
        print(f"    {'kind':<26}{'frames':>7}{'squares right':>15}{'boards right':>14}"
              f"{'kings right':>13}")
        for name, c in report["kinds"].items():
            squares = c.get("right", 0) / c["squares"]
            kings = (f"{c.get('kings_right', 0)}/{c['kings']}" if c.get("kings") else "-")
            print(f"    {name:<26}{c['frames']:>7}{squares:>15.2%}"
                  f"{c.get('boards_right', 0):>9}/{c['frames']:<4}{kings:>13}")
