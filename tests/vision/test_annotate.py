"""`read --annotate`: every square's label stays readable on any piece or square."""

import random

import numpy as np
import pytest
from vision_helpers import truth_pose

from damas.vision.annotate import COLOURS, annotate, outline
from damas.vision.read import Reading
from damas.vision.render import render
from damas.vision.scene import SceneRanges, random_scene


def luminance(bgr) -> float:
    b, g, r = bgr
    return 0.114 * b + 0.587 * g + 0.299 * r


@pytest.mark.parametrize("value", sorted(COLOURS))
def test_each_label_has_a_stroke_that_contrasts_with_its_fill(value):
    assert abs(luminance(COLOURS[value]) - luminance(outline(COLOURS[value]))) > 150


@pytest.mark.parametrize("background", [(30, 30, 30), (240, 240, 240)])
def test_a_black_mans_label_shows_light_and_dark_on_any_background(background):
    """On a black piece's colour or a white one's, each label has pixels far from the
    background: the fill or its outline."""
    scene = random_scene(random.Random(2), SceneRanges(sizes=(8,)))
    pose = truth_pose(render(scene, {}))
    reading = Reading(8, {sq: "b" for sq in range(1, 33)}, {sq: 1.0 for sq in range(1, 33)})
    image = np.full((scene.height, scene.width, 3), background, np.uint8)
    drawn = annotate(image, pose, reading)
    far = np.abs(drawn.astype(int) - background).max(axis=2) > 150
    centres = pose.project_flat(np.array([pose.square_centre(sq) for sq in range(1, 33)]))
    step = float(np.linalg.norm(centres[0] - centres[1]))
    for x, y in centres:
        box = far[int(y - step * 0.3):int(y + step * 0.3),
                  int(x - step * 0.3):int(x + step * 0.3)]
        assert box.sum() > 10, (x, y)
