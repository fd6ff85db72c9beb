"""The calibrated reader: the occupancy nets adapted to a set by a calibration, read in
another light than the calibration's, and the head kept in the calibration folder."""

import json
import random

import numpy as np
import pytest
from vision_helpers import VARIANT, calibrated_reader, game_position, scene_for

from damas.calibration.errors import CalibrationError
from damas.calibration.store import load_any
from damas.cli import main
from damas.vision.calibrated import HEAD_FILE, SetHead, load_head
from damas.vision.pipeline import NO_HEAD, BoardReader
from damas.vision.read import Observation
from damas.vision.render import render

# other lights than the calibration's, each of which made the colour-model reader misread
# a third to half of the squares of these scenes (2026-12-06: 19, 18 and 10 of 32 right)
OTHER_LIGHTS = [(7, {"exposure": 0.4}), (5, {"tint": (1.3, 1.0, 0.7)}),
                (3, {"exposure": 1.6})]


def _right(reading, truth: dict[int, str]) -> int:
    return sum(reading.squares[s] == truth.get(s, "e") for s in reading.squares)


@pytest.mark.parametrize(("seed", "light"), OTHER_LIGHTS)
def test_a_calibration_made_in_one_light_holds_in_another(seed, light):
    scene = scene_for(seed, size=8)
    reader = calibrated_reader(scene, adapt=False)
    pos = game_position(VARIANT[8], random.Random(seed), 20)
    frame = render(scene.with_(noise_seed=seed + 7, **light), pos.pieces()).image
    calibrated = _right(reader.read(frame), pos.pieces())
    pose = reader.pose
    assert pose is not None
    unseen = BoardReader(8, adapt=False, white_at=pose.white_side_in_image())
    assert calibrated >= _right(unseen.read(frame), pos.pieces())
    assert calibrated == 32


def test_the_calibration_folder_keeps_the_head_and_reads_with_it(tmp_path, capsys):
    common = ["--variant", "brazilian", "--seed", "4", "--tilt", "25", "--scheme", "wood",
              "--no-markers"]
    fen = "W:W18,21-23,30:B1-3,9,14"
    assert main(["render", "--out", str(tmp_path / "start.png")] + common) == 0
    assert main(["render", "--fen", fen, "--out", str(tmp_path / "game.png")] + common) == 0
    cal = tmp_path / "cal"
    assert main(["calibrate", "board", str(tmp_path / "start.png"), "--variant",
                 "brazilian", "--out", str(cal)]) == 0
    head = load_head(cal)
    assert head is not None and load_any(cal / HEAD_FILE) == "damas.head version 1"
    again = SetHead.from_dict(json.loads((cal / HEAD_FILE).read_text())
                              | {"format": None})
    assert np.allclose(again.white, head.white) and again.empty.shape == head.empty.shape
    reader = BoardReader.from_calibration(cal, 8)
    assert reader.head is not None and np.allclose(reader.head.inv, head.inv)
    capsys.readouterr()
    assert main(["read", str(tmp_path / "game.png"), "--variant", "brazilian",
                 "--calibration", str(cal)]) == 0
    assert fen in capsys.readouterr().out

    # a folder made before heads were: read as a set never seen, with a note
    (cal / HEAD_FILE).unlink()
    old = BoardReader.from_calibration(cal, 8)
    from damas.vision.sources import read_image

    reading = old.read(read_image(tmp_path / "game.png"))
    assert NO_HEAD in reading.notes and reading.fen() == fen

    (cal / HEAD_FILE).write_text('{"format": "damas.head", "version": 1, "white": [1]}')
    with pytest.raises(CalibrationError, match="calibrate again"):
        BoardReader.from_calibration(cal, 8)


def test_a_head_needs_both_colours_and_empty_squares():
    n = 32
    look = Observation(np.zeros((n, 4)), np.zeros(n), np.zeros((n, 3)), np.zeros((n, 3)),
                       np.zeros(n), np.zeros((n, 4)), np.zeros(n), np.zeros(1),
                       np.ones((n, 8)))
    with pytest.raises(CalibrationError):
        SetHead.fit(look, ["w"] * 12 + ["e"] * 20)
    head = SetHead.fit(look, ["w"] * 12 + ["e"] * 8 + ["B"] * 12)
    assert head.empty.shape == (8, 8) and head.occupied.shape == (24, 8)


def _look(king_p: np.ndarray) -> Observation:
    """An observation whose pieces have these P(crowned) (nothing stacked)."""
    n = len(king_p)
    probs = np.zeros((n, 4))
    probs[:, 2] = king_p
    probs[:, 1] = 1 - king_p
    return Observation(probs, np.zeros(n), np.zeros((n, 3)), np.zeros((n, 3)), np.zeros(n),
                       np.zeros((n, 4)), np.zeros(n), np.zeros(1), np.ones((n, 8)))


def test_a_king_must_look_more_crowned_than_every_man_of_the_calibration():
    # a set whose carved men look crowned to the nets: one man at P 0.6 in the calibration
    men = np.full(12, 0.02)
    men[3] = 0.6
    labels = ["w"] * 6 + ["b"] * 6 + ["e"] * 8
    look = _look(np.concatenate([men, np.zeros(8)]))
    look.rims[:6] = 1.0  # White's men lighter than Black's
    head = SetHead.fit(look, labels, nets="n")
    assert head.men_king_odds == pytest.approx(np.log(0.6 / 0.4))
    frame = np.concatenate([np.full(11, 0.02), [0.7, 0.97]])  # that man, and a crowned king
    assert list(head.kings(frame, nets="n")[-2:]) == [False, True]
    # without the calibration's bar the carved man stands out from the frame's men too
    assert list(head.kings(frame, nets="other nets")[-2:]) == [True, True]
    again = SetHead.from_dict(json.loads(json.dumps(head.to_dict())))
    assert again.men_king_odds == pytest.approx(head.men_king_odds, abs=1e-4)
    # a head saved before the bar was kept has none
    older = {k: v for k, v in head.to_dict().items() if k != "men_king_odds"}
    assert list(SetHead.from_dict(older).kings(frame, nets="n")[-2:]) == [True, True]


def _cluster(centre, n, rng):
    f = np.array(centre, float) + rng.normal(0, 0.03, (n, len(centre)))
    return f / np.linalg.norm(f, axis=1, keepdims=True)


def test_the_calibrations_squares_decide_what_the_frame_cannot():
    """A frame the nets are unsure of everywhere, of a set whose dark men look much like
    its empty squares (their features near the empty squares', far from the light
    men's): each square is what the calibration's squares it is like are. On one line
    from the calibration's pieces to its empty squares (the reader before 2026-12-07),
    the dark men fell on the empty side."""
    rng = np.random.default_rng(5)
    empty, light, dark = [1, 0, 0], [0, 1, 0], [0.8, 0, 0.6]
    head = SetHead(np.zeros(3), np.ones(3), np.eye(3), _cluster(empty, 12, rng),
                   np.vstack([_cluster(light, 12, rng), _cluster(dark, 12, rng)]), "nets")
    truth = np.array([True] * 6 + [False] * 12)  # empty, then light and dark men
    features = np.vstack([_cluster(c, 6, rng) for c in (empty, light, dark)])
    n = len(features)
    probs = np.tile([0.5, 0.5, 0.0, 0.0], (n, 1))
    obs = Observation(probs, np.zeros(n), np.zeros((n, 3)), np.zeros((n, 3)), np.zeros(n),
                      np.zeros((0, 4)), np.zeros(n), np.zeros(0), features)
    assert ((head.p_empty(obs, "nets") >= 0.5) == truth).all()
    # other nets than the calibration's: its features say nothing, the frame alone
    # is sure of nothing, and nothing changes
    np.testing.assert_array_equal(head.p_empty(obs, "other nets"), probs[:, 0])
