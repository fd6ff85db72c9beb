"""The incremental renderer draws exactly what the renderer draws from scratch."""

import random

import numpy as np
import pytest

from damas.rules import Game
from damas.sim.handmove import move_by_hand
from damas.vision.render import Renderer, render
from damas.vision.scene import SceneRanges, random_scene


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow),
                                  pytest.param(2, marks=pytest.mark.slow)])
def test_every_frame_of_moves_made_by_hand_equals_a_fresh_render(seed):
    rng = random.Random(seed)
    size = (10, 8, 10)[seed]
    # the demo's spread of cameras, lenses, blur and noise; JPEG or not
    ranges = SceneRanges(sizes=(size,), tilt=(0.0, 30.0), noise=(0.5, 3.0), blur=(0.0, 0.8))
    scene = random_scene(rng, ranges, jpeg_quality=(90, 0, 70)[seed])
    game = Game("international" if size == 10 else "brazilian")
    renderer = Renderer()
    redrawn = []
    for _ in range(3):
        move = rng.choice([m for m in game.legal_moves() if m.captured] or game.legal_moves())
        for step in move_by_hand(scene, game.position, move, rng):
            frame = scene.with_(hands=step.hands, noise_seed=rng.randrange(1 << 30))
            fresh = render(frame, step.pieces).image
            assert np.array_equal(renderer.render(frame, step.pieces).image, fresh)
            redrawn.append(renderer.redrawn)
        game.push(move)
    # it is incremental: after the first frame, only part of the view is redrawn
    assert redrawn[0] == 1.0 and max(redrawn[1:]) < 0.8 and np.mean(redrawn[1:]) < 0.3


def test_a_new_pose_is_drawn_from_scratch():
    rng = random.Random(4)
    scene = random_scene(rng, SceneRanges(sizes=(10,)))
    pieces = Game("international").position.pieces()
    renderer = Renderer()
    renderer.render(scene, pieces)
    moved = scene.with_(rotation_deg=scene.rotation_deg + 5)
    assert np.array_equal(renderer.render(moved, pieces).image, render(moved, pieces).image)
    assert renderer.redrawn == 1.0


def test_a_varied_scene_with_motion_blur_and_a_lamp_renders_incrementally_the_same():
    from damas.vision.scene import varied_scene

    scene = varied_scene(random.Random(7), SceneRanges(sizes=(8,)), motion=(6.0, 30.0),
                         glow=(0.4, 0.4, 0.2, 1.0), gloss=0.5, noise=2.0)
    game = Game("brazilian")
    renderer = Renderer()
    for move in game.legal_moves()[:2]:
        after = game.position.after(move).pieces()
        for pieces in (game.position.pieces(), after):
            assert np.array_equal(renderer.render(scene, pieces).image,
                                  render(scene, pieces).image)
