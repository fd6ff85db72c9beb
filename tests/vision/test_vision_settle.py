"""The settle detector: moves made by hand, rendered frame by frame, never give a wrong
settled reading; the board after the move is passed on once the hand has gone."""

import random

import numpy as np
import pytest
from vision_helpers import VARIANT, calibrated_reader, game_position, scene_for

from damas.sim.handmove import move_by_hand
from damas.vision.read import Reading
from damas.vision.render import render
from damas.vision.settle import SettleDetector


def _full(pieces: dict[int, str], size: int) -> dict[int, str]:
    return {s: pieces.get(s, "e") for s in range(1, size * size // 2 + 1)}


@pytest.mark.parametrize("seed,fixed", [
    (61, {"size": 10, "scheme": "wood", "tilt_deg": 15.0}),
    (62, {"size": 8, "scheme": "green", "tilt_deg": 40.0}),
    (63, {"size": 10, "scheme": "bw", "tilt_deg": 30.0, "markers": True}),
])
def test_moves_by_hand_never_settle_wrong(seed, fixed):
    rng = random.Random(seed)
    scene = scene_for(seed, **fixed)
    reader = calibrated_reader(scene)
    pos = game_position(VARIANT[scene.size], rng, 30)
    captures = [m for m in pos.legal_moves() if m.captured]
    move = (captures or pos.legal_moves())[0]
    # the hand hovers still over the board for four frames: motion alone can't tell
    steps = move_by_hand(scene, pos, move, rng, still_before=3, still_after=4, hover=4)
    detector = SettleDetector()
    passed = []
    for i, step in enumerate(steps):
        frame = render(scene.with_(hands=step.hands, noise_seed=i), step.pieces).image
        reading = reader.read(frame)
        out = detector.update(reader.last_samples.motion_vector(), reading)
        if out is not None:
            truth = _full(step.pieces, scene.size)
            wrong = {s: v for s, v in out.squares.items() if v != "?" and v != truth[s]}
            assert not wrong, f"frame {i} settled with wrong squares {wrong}"
            passed.append((i, out))
            if step.hand_in_view:  # a hand may be in view only off the board
                assert not out.unknown
    assert passed, "the board before the move must settle"
    after = _full(pos.play(move).pieces(), scene.size)
    assert passed[-1][1].squares == after
    assert passed[-1][0] >= len(steps) - 4


def _reading(squares, hand=False):
    return Reading(8, squares, {s: 1.0 for s in squares}, hand=hand)


def test_still_frames_pass_once_motion_and_hands_do_not():
    det = SettleDetector(still_frames=3)
    rng = np.random.default_rng(0)
    base = rng.uniform(0, 255, 500).astype(np.float32)
    a = {s: "e" for s in range(1, 33)}
    b = {**a, 1: "b"}
    results = []
    for _ in range(5):  # the same board, sensor noise only
        results.append(det.update(base + rng.normal(0, 2, 500), _reading(a)))
    assert [r is not None for r in results] == [False, False, False, True, False]
    # something moves: no reading while it does, and the new board settles afterwards
    moved = base.copy()
    moved[:50] += 120
    assert det.update(moved, _reading(b)) is None
    outs = [det.update(moved + rng.normal(0, 2, 500), _reading(b)) for _ in range(4)]
    assert sum(o is not None for o in outs) == 1 and outs[-2].squares == b
    # a hand held perfectly still: never settled
    for _ in range(6):
        assert det.update(moved + rng.normal(0, 2, 500), _reading(a, hand=True)) is None


def test_light_drift_is_followed_and_readings_stay_right():
    from damas.vision.colour_read import body_features, fit_light
    from damas.vision.settle import settled_readings

    scene = scene_for(71, size=8, scheme="wood", tilt_deg=30.0).with_(
        light_elevation_deg=75.0, ambient=0.55)
    reader = calibrated_reader(scene)
    pos = game_position("brazilian", random.Random(2), 20)
    truth = _full(pos.pieces(), 8)
    # the same board while the sun sinks and the room darkens, three frames per step
    frames = [render(scene.with_(noise_seed=k * 3 + j, light_elevation_deg=75.0 - 5 * k,
                                 ambient=0.55 - 0.03 * k), pos.pieces()).image
              for k in range(8) for j in range(3)]

    def gap() -> float:  # how far the model's White is from White in the last frame
        samples = reader.sampler.sample(frames[-1])
        light = fit_light(samples.light, reader.sampler.light_xy, 8)
        feats = body_features(samples, light, reader.sampler)
        white = feats[[s - 1 for s, v in truth.items() if v == "w"]].mean(axis=0)
        return float(np.linalg.norm(white - reader.model.mean("w")))

    before = gap()
    out = list(settled_readings(iter(frames), reader, SettleDetector(still_frames=2)))
    assert out and all(r.squares == truth for r in out)
    assert gap() < before


def test_a_bumped_camera_is_found_again():
    scene = scene_for(72, size=10, scheme="green", tilt_deg=25.0, markers=False)
    reader = calibrated_reader(scene)
    pos = game_position("international", random.Random(3), 30)
    bumped = scene.with_(rotation_deg=scene.rotation_deg + 9, offset=(0.03, -0.03),
                         tilt_deg=scene.tilt_deg + 4)
    reading = reader.read(render(bumped, pos.pieces()).image)
    assert reader.relocations == 1
    assert reading.squares == _full(pos.pieces(), 10)
