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
from damas.calibration.colour import ColourModel
from damas.calibration.errors import CalibrationError, CalibrationVersionError
from damas.calibration.store import load_json, save_json


def _model() -> ColourModel:
    rng = np.random.default_rng(0)
    feats = np.vstack([rng.normal(m, 0.05, (10, 3)) for m in (-1.0, 0.2, -2.0)])
    labels = ["e"] * 10 + ["w"] * 10 + ["b"] * 10
    return ColourModel.learn([(feats, labels)], 0.03)


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
    x = np.array([[-1.0, -1.0, -1.0], [0.2, 0.2, 0.2], [-2, -2, -2.0]])
    assert back.colour.classify(x)[0] == original.colour.classify(x)[0] == ["e", "w", "b"]
    assert json.loads((tmp_path / "board.json").read_text())["version"] == 1


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
    with pytest.raises(CalibrationError, match="damaged or incomplete"):
        load_board(tmp_path)
    with pytest.raises(CalibrationError, match="no such"):
        load_board(tmp_path / "missing")


def test_colour_model_needs_all_classes():
    feats = np.zeros((4, 3))
    with pytest.raises(CalibrationError, match="black pieces"):
        ColourModel.learn([(feats, ["e", "e", "w", "w"])])


def test_colour_model_adapts_slowly_to_light():
    model = _model()
    brighter = np.full((10, 3), 0.5)  # white pieces seen under more light
    before = model.mean("w").copy()
    model.adapt(brighter, ["w"] * 10, rate=0.1)
    moved = model.mean("w") - before
    assert np.all(moved > 0) and np.all(moved < 0.05)


def test_load_any_names_the_kind_or_says_what_is_wrong(tmp_path):
    from damas.calibration.store import load_any

    save_board(tmp_path, _board())
    assert load_any(tmp_path / "board.json") == "damas.board version 1"
    save_json(tmp_path / "old.json", "damas.camera", 0, {})
    with pytest.raises(CalibrationVersionError):
        load_any(tmp_path / "old.json")
    (tmp_path / "x.json").write_text("[1, 2]")
    with pytest.raises(CalibrationError):
        load_any(tmp_path / "x.json")


def test_files_written_atomically_honour_the_umask(tmp_path):
    """Live PDNs are read by broadcast uploaders running as other users: the mode is
    the umask's, not mkstemp's 0600."""
    from damas.calibration.store import atomic_write_text

    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "live.pdn", "1. 32-28 *\n")
        os.umask(0o077)
        atomic_write_text(tmp_path / "private.pdn", "1. 32-28 *\n")
    finally:
        os.umask(old)
    assert (tmp_path / "live.pdn").stat().st_mode & 0o777 == 0o644
    assert (tmp_path / "private.pdn").stat().st_mode & 0o777 == 0o600


def test_a_write_is_flushed_to_disk_before_the_rename_and_the_folder_after(tmp_path,
                                                                          monkeypatch):
    """What reaches the disk, in order: the new file's data, the rename, the folder."""
    from damas.calibration.store import atomic_write_text

    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def replace(src, dst):
        events.append(("rename", str(dst)))
        real_replace(src, dst)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    atomic_write_text(tmp_path / "games.pdn", "1. 32-28 *\n")
    (kind, first), rename, folder = events
    assert kind == "fsync" and first.startswith(str(tmp_path / ".games.pdn."))
    assert rename == ("rename", str(tmp_path / "games.pdn"))
    assert folder == ("fsync", str(tmp_path))
