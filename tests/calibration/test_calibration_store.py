"""Calibration files: versioned, atomic, clear errors."""

import json
import os

import numpy as np
import pytest

from damas.calibration.board import (
    BoardCalibration,
    CameraCalibration,
    load_board,
    load_camera,
    save_board,
    save_camera,
)
from damas.calibration.camera import Camera, Intrinsics
from damas.calibration.colour import PieceColours
from damas.calibration.errors import CalibrationError, CalibrationVersionError
from damas.calibration.store import load_json, save_json


def _model() -> PieceColours:
    rng = np.random.default_rng(0)
    feats = np.vstack([rng.normal(m, 0.05, (10, 3)) for m in (0.8, -0.6)])
    labels = ["w"] * 10 + ["B"] * 5 + ["b"] * 5
    return PieceColours.learn(feats, labels)


def _board() -> BoardCalibration:
    intr = Intrinsics(1280, 720, 1000.0, 1000.0, 640.0, 360.0, (-0.1, 0.01, 0.0, 0.0, 0.0))
    cam = Camera.looking_at(intr, (0, 0, 0), 16.0, 30.0, 200.0)
    return BoardCalibration("international", 10, cam, (0.0, 1.0), _model(), "W:W31-50:B1-20")


def test_board_round_trip(tmp_path):
    original = _board()
    save_board(tmp_path, original)
    back = load_board(tmp_path)
    assert back.variant == "international" and back.size == 10
    assert back.camera.intrinsics == original.camera.intrinsics
    assert np.allclose(back.camera.R, original.camera.R) and np.allclose(back.camera.t,
                                                                          original.camera.t)
    x = np.array([[0.8, 0.8, 0.8], [-0.6, -0.6, -0.6]])
    assert np.allclose(back.colours.posterior_white(x), original.colours.posterior_white(x))
    assert list(back.colours.posterior_white(x) > 0.5) == [True, False]
    assert back.playing == "dark"
    assert json.loads((tmp_path / "board.json").read_text())["version"] == 2


def test_camera_round_trip_and_absent(tmp_path):
    assert load_camera(tmp_path) is None
    intr = Intrinsics(640, 480, 500.0, 501.0, 320.0, 240.0, (0.1, 0.0, 0.0, 0.0, 0.0))
    save_camera(tmp_path, CameraCalibration(intr, 0.21, 12))
    assert load_camera(tmp_path).intrinsics == intr


def test_save_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "board.json"
    save_json(path, "k", 1, {"a": 1})
    # a crash between writing the new file and renaming it leaves the old file whole
    def crash(src, dst):
        raise OSError("power cut")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError):
        save_json(path, "k", 1, {"a": 2})
    monkeypatch.undo()
    assert load_json(path, "k", 1)["a"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.json"]  # no temp left
    save_json(path, "k", 1, {"a": 3})
    assert load_json(path, "k", 1)["a"] == 3


def test_errors_say_what_to_do(tmp_path):
    path = tmp_path / "board.json"
    save_json(path, "damas.board", 7, {})
    with pytest.raises(CalibrationVersionError, match="version 7.*calibrate again"):
        load_board(tmp_path)
    path.write_text("{broken")
    with pytest.raises(CalibrationError, match="not a readable"):
        load_board(tmp_path)
    save_json(path, "damas.camera", 1, {})
    with pytest.raises(CalibrationError, match="not a damas.board"):
        load_board(tmp_path)
    save_json(path, "damas.board", 1, {"variant": "international"})
    with pytest.raises(CalibrationVersionError, match="version 1.*calibrate again"):
        load_board(tmp_path)
    save_json(path, "damas.board", 2, {"variant": "international"})
    with pytest.raises(CalibrationError, match="damaged or incomplete"):
        load_board(tmp_path)
    with pytest.raises(CalibrationError, match="no such"):
        load_board(tmp_path / "missing")


def test_colours_need_both_sides():
    feats = np.zeros((4, 3))
    with pytest.raises(CalibrationError, match="black pieces"):
        PieceColours.learn(feats, ["w", "w", "W", "w"])


def test_colours_adapt_slowly_to_light():
    model = _model()
    brighter = np.full((10, 3), 1.0)  # white pieces seen under more light
    before = model.white.mean.copy()
    model.adapt(brighter, ["w"] * 10, rate=0.1)
    moved = model.white.mean - before
    assert np.all(moved > 0) and np.all(moved < 0.05)
    x = np.array([[0.8, 0.8, 0.8], [-0.6, -0.6, -0.6], [5.0, -5.0, 5.0]])
    assert list(model.outlying(x)) == [False, False, True]


def test_load_any_names_the_kind_or_says_what_is_wrong(tmp_path):
    from damas.calibration.store import load_any

    save_board(tmp_path, _board())
    assert load_any(tmp_path / "board.json") == "damas.board version 2"
    save_json(tmp_path / "old.json", "damas.camera", 0, {})
    with pytest.raises(CalibrationVersionError):
        load_any(tmp_path / "old.json")
    (tmp_path / "x.json").write_text("[1, 2]")
    with pytest.raises(CalibrationError):
        load_any(tmp_path / "x.json")
