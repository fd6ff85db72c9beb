"""The renderer: deterministic, geometrically true to its camera, markers detectable."""

import random
import warnings

import cv2
import numpy as np
import pytest
from vision_helpers import truth_pose

from damas.rules import Position
from damas.vision.markers import detector
from damas.vision.render import Renderer, render
from damas.vision.scene import Scene, equal_grey, hand_over, luma, random_scene


def test_same_scene_same_pixels_other_noise_other_pixels():
    scene = random_scene(random.Random(3), noise=3.0)
    pieces = Position.start("international").pieces()
    a = render(scene, pieces).image
    b = render(scene, pieces).image
    c = render(scene.with_(noise_seed=scene.noise_seed + 1), pieces).image
    assert a.shape == (720, 1280, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("tilt,rotation", [(0, 0), (30, 120), (45, 250)])
def test_pieces_are_drawn_where_the_camera_says(tilt, rotation):
    scene = Scene(tilt_deg=tilt, rotation_deg=rotation, scheme="wood")
    pieces = {1: "b", 2: "w", 47: "w"}
    image = render(scene, pieces).image.astype(float)
    pose = truth_pose(render(scene, {}))
    grey = image.mean(axis=2)
    # the top of a man, 0.2 squares up; an empty dark square at board level
    top = {sq: pose.project(np.array([[*pose.square_centre(sq), scene.piece_height]]))[0]
           for sq in (1, 2, 47)}
    empty = pose.project(np.array([[*pose.square_centre(3), 0.0]]))[0]

    def at(p):
        x, y = np.round(p).astype(int)
        return grey[y - 1:y + 2, x - 1:x + 2].mean()

    assert at(top[2]) > 170 and at(top[47]) > 170  # ivory
    assert at(top[1]) < 60  # black
    assert 50 < at(empty) < 140  # dark wood


def test_markers_are_found_by_opencv():
    scene = Scene(tilt_deg=20, rotation_deg=30, markers=True)
    image = render(scene, Position.start("international").pieces()).image
    _, ids, _ = detector().detectMarkers(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    assert ids is not None and sorted(ids.ravel().tolist()) == [0, 1, 2, 3]


def test_hands_render_from_every_side_without_numeric_trouble():
    rng = random.Random(1)
    base = Scene(tilt_deg=45)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for side in (0, 90, 180, 270):
            hand = hand_over(base, 0, 0, rng).__class__(0, 0, 40, side)
            image = render(base.with_(hands=(hand,), rotation_deg=side), {}).image
            plain = render(base.with_(rotation_deg=side), {}).image
            changed = np.abs(image.astype(int) - plain.astype(int)).sum(axis=2) > 40
            assert changed.mean() > 0.03  # the arm and hand cover part of the view


@pytest.mark.parametrize("seed", [2, 27, 30])
def test_a_hand_at_the_folded_corners_of_a_wide_angle_lens(seed):
    """A strong wide-angle lens folds over at the frame's corners (no point of the scene
    maps there): a hand redrawn there used to find no source pixels at all."""
    rng = random.Random(seed)
    scene = random_scene(rng).with_(dist=(-0.35, 0.08, 0.0, 0.0, 0.0), hfov_deg=100.0,
                                    width=640, height=360)
    pieces = Position.start("international" if scene.size == 10 else "brazilian").pieces()
    renderer = Renderer()
    renderer.render(scene, pieces)
    half = scene.size * scene.square_mm / 2
    for _ in range(4):
        hand = hand_over(scene, rng.uniform(-half, half) * 1.3,
                         rng.uniform(-half, half) * 1.3, rng)
        frame = renderer.render(scene.with_(hands=(hand,)), pieces).image
        fresh = render(scene.with_(hands=(hand,)), pieces).image
        assert np.array_equal(frame, fresh)


def test_engraved_tops_darken_rings_of_every_piece():
    scene = Scene(size=8, tilt_deg=0.0, light_elevation_deg=90.0, scheme="bw",
                  pieces_rgb=((240, 240, 240), (30, 30, 30)))
    plain = render(scene.with_(engraving=0.0), {14: "w"}).image.astype(int)
    carved = render(scene.with_(engraving=0.5), {14: "w"}).image.astype(int)
    darker = (plain - carved).sum(axis=2) > 60
    assert 50 < darker.sum() < 2000  # thin rings and a carved centre, not the whole top
    assert (carved <= plain + 3).all()  # engraving only darkens


def test_kings_are_stacks_with_a_crown():
    scene = Scene(tilt_deg=35, rotation_deg=270)
    man = render(scene, {28: "w"}).image.astype(int)
    king = render(scene, {28: "W"}).image.astype(int)
    diff = np.abs(man - king).sum(axis=2) > 60
    assert diff.sum() > 200  # the second man and the gilt medallion


@pytest.mark.parametrize("hues", [(0, 120), (60, 240), (30, 200)])
def test_squares_of_two_hues_at_one_grey_level(hues):
    level = 120.0
    light, dark = (equal_grey(h, level) for h in hues)
    assert abs(luma(light) - level) < 1.5 and abs(luma(dark) - level) < 1.5
    assert max(abs(a - b) for a, b in zip(light, dark, strict=True)) > 100  # unlike hues
    scene = Scene(size=8, scheme="green", squares_rgb=(light, dark), tilt_deg=0.0)
    shot = render(scene, {})
    pose = truth_pose(shot)
    grey = cv2.cvtColor(shot.image, cv2.COLOR_BGR2GRAY).astype(float)
    hsv = cv2.cvtColor(shot.image, cv2.COLOR_BGR2HSV_FULL).astype(float)
    # a cell's middle, by parity of (row + column) in the pose's labelling
    levels, tones = {0: [], 1: []}, {0: [], 1: []}
    for r in range(8):
        for c in range(8):
            x, y = pose.project(np.array([[c - 3.5, 3.5 - r, 0.0]]))[0].round().astype(int)
            levels[(r + c) % 2].append(grey[y, x])
            tones[(r + c) % 2].append(hsv[y, x, 0])
    assert abs(np.median(levels[0]) - np.median(levels[1])) < 3
    assert abs(np.median(tones[0]) - np.median(tones[1])) > 30


def _top_colour(scene, pieces, square, men=1):
    """The mean RGB of a small disc at the middle of the top of the piece on `square`."""
    shot = render(scene, pieces)
    pose = truth_pose(shot)
    x, y = pose.project(np.array([[*pose.square_centre(square),
                                   men * scene.piece_height]]))[0].round().astype(int)
    return shot.image[y - 2:y + 3, x - 2:x + 3].reshape(-1, 3)[:, ::-1].mean(axis=0)


def test_a_set_of_any_colours_dark_men_on_dark_squares():
    dark = (70, 40, 20)
    scene = Scene(size=8, tilt_deg=0.0, squares_rgb=((230, 200, 150), dark),
                  pieces_rgb=((250, 240, 120), (72, 42, 22)), light_elevation_deg=90.0)
    black, white = _top_colour(scene, {14: "b"}, 14), _top_colour(scene, {14: "w"}, 14)
    empty = _top_colour(scene, {}, 14, men=0)
    assert np.abs(black - empty).max() < 25  # the black man is the square's own colour
    assert white[2] < white[0] - 60  # a yellow man


def test_kings_marked_with_a_sticker_on_a_single_piece():
    base = Scene(size=8, tilt_deg=0.0, king_mark="sticker", king_men=1, mark_rgb=(200, 20, 20),
                 light_elevation_deg=90.0)
    man, king = _top_colour(base, {14: "w"}, 14), _top_colour(base, {14: "W"}, 14)
    assert man.min() > 150 and king[0] > king[1] + 80  # ivory man, red sticker
    tall = render(base.with_(king_men=2, tilt_deg=40.0), {14: "W"}).image.astype(int)
    low = render(base.with_(tilt_deg=40.0), {14: "W"}).image.astype(int)
    assert (np.abs(tall - low).sum(axis=2) > 60).sum() > 100  # a stack stands higher


def test_translucent_and_glossy_pieces():
    scene = Scene(size=8, tilt_deg=0.0, light_elevation_deg=90.0, scheme="bw",
                  pieces_rgb=((250, 250, 250), (30, 30, 220)))
    solid = _top_colour(scene, {14: "b"}, 14)
    seen_through = _top_colour(scene.with_(opacity=0.5), {14: "b"}, 14)
    assert seen_through[2] < solid[2] - 40  # half the blue, half the black square
    shiny = render(scene.with_(gloss=0.8, light_elevation_deg=50.0), {14: "b"}).image
    matt = render(scene.with_(light_elevation_deg=50.0), {14: "b"}).image
    assert shiny.max() > 240 and (shiny.astype(int) - matt).max() > 100


def test_a_lamps_glow_brightens_round_its_centre_only():
    scene = Scene(size=8, tilt_deg=0.0)
    plain = render(scene, {}).image.astype(float).mean(axis=2)
    glow = render(scene.with_(glow=(0.25, 0.5, 0.1, 1.0)), {}).image.astype(float).mean(axis=2)
    h, w = plain.shape
    near, far = (slice(h // 2 - 10, h // 2 + 10), slice(w // 4 - 10, w // 4 + 10)), \
        (slice(h // 2 - 10, h // 2 + 10), slice(3 * w // 4 - 10, 3 * w // 4 + 10))
    assert glow[near].mean() > plain[near].mean() + 30
    assert abs(glow[far].mean() - plain[far].mean()) < 3


def test_varied_scenes_draw_every_failure_class_of_a_reader():
    """`varied_scene`: over a few hundred draws, each kind of set and light appears."""
    from damas.vision.scene import varied_scene

    rng = random.Random(0)
    scenes = [varied_scene(rng) for _ in range(400)]
    seen = {
        "equal grey squares": sum(s.squares_rgb is not None and abs(
            luma(s.squares_rgb[0]) - luma(s.squares_rgb[1])) < 3 for s in scenes),
        "pieces of any colour": sum(s.pieces_rgb is not None for s in scenes),
        "stickers": sum(s.king_mark == "sticker" for s in scenes),
        "single-height kings": sum(s.king_men == 1 for s in scenes),
        "plain stacks": sum(s.king_mark == "none" for s in scenes),
        "translucent": sum(s.opacity < 1 for s in scenes),
        "glossy": sum(s.gloss > 0 for s in scenes),
        "lamps and flash": sum(s.glow[3] > 0 for s in scenes),
        "wide angle": sum(s.dist[0] < -0.1 for s in scenes),
        "low resolution": sum(s.width < 1000 for s in scenes),
        "motion blur": sum(s.motion[0] > 0 for s in scenes),
        "engraved tops": sum(s.engraving > 0.1 for s in scenes),
        "plain tops": sum(s.engraving == 0 for s in scenes),
    }
    assert min(seen.values()) >= 20, seen
