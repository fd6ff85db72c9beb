"""Camera calibration from rendered chessboard photos with a known lens."""

import random

import numpy as np
import pytest

from damas.calibration.camera import Intrinsics
from damas.calibration.errors import CalibrationError
from damas.calibration.intrinsics import calibrate_chessboard
from damas.vision.render import render_chessboard

TRUTH = Intrinsics(1280, 720, 1000.0, 1000.0, 645.0, 355.0, (-0.12, 0.03, 0.0, 0.0, 0.0))


def _photos(count, seed=3):
    rng = random.Random(seed)
    return [render_chessboard(TRUTH, (9, 6), 25.0, rng.uniform(5, 40), rng.uniform(0, 360),
                              rng.uniform(380, 520), (rng.uniform(-40, 40), rng.uniform(-30, 30)),
                              seed=i) for i in range(count)]


def test_recovers_focal_length_centre_and_lens():
    cal = calibrate_chessboard(_photos(10), (9, 6), 25.0)
    k = cal.intrinsics
    assert cal.images == 10 and cal.rms < 0.5
    assert k.fx == pytest.approx(1000, rel=0.01) and k.fy == pytest.approx(1000, rel=0.01)
    assert abs(k.cx - 645) < 5 and abs(k.cy - 355) < 5
    # the lens: the same pixels undistort to the same place (coefficients trade off)
    pts = np.array([[250.0, 150.0], [1050.0, 600.0], [640.0, 60.0], [150.0, 360.0]])
    assert np.abs(k.undistort_pixels(pts) - TRUTH.undistort_pixels(pts)).max() < 1.5


def test_too_few_photos_with_the_pattern():
    blank = [np.full((720, 1280, 3), 128, np.uint8)] * 4
    with pytest.raises(CalibrationError, match="found in 0 of 4"):
        calibrate_chessboard(blank, (9, 6), 25.0)
    with pytest.raises(CalibrationError, match="no images"):
        calibrate_chessboard([], (9, 6), 25.0)


def test_calibrate_camera_command(tmp_path, capsys):
    import cv2

    from damas.calibration.board import load_camera
    from damas.cli import main

    paths = []
    for i, photo in enumerate(_photos(6, seed=8)):
        paths.append(str(tmp_path / f"p{i}.png"))
        cv2.imwrite(paths[-1], photo)
    assert main(["calibrate", "camera", *paths, "--pattern", "9x6", "--square-mm", "25",
                 "--out", str(tmp_path / "cal")]) == 0
    assert "reprojection error" in capsys.readouterr().out
    assert load_camera(tmp_path / "cal").intrinsics.fx == pytest.approx(1000, rel=0.02)
    assert main(["calibrate", "camera", paths[0], "--pattern", "9by6",
                 "--out", str(tmp_path / "x")]) == 2


def test_charuco_board_photos():
    import cv2

    from damas.calibration.intrinsics import calibrate_charuco
    from damas.vision.render import render_target

    board = cv2.aruco.CharucoBoard((7, 5), 30.0, 22.0,
                                   cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    # 120 px per 30 mm square, on paper with a half-square white margin
    texture = cv2.copyMakeBorder(board.generateImage((7 * 120, 5 * 120), marginSize=0),
                                 60, 60, 60, 60, cv2.BORDER_CONSTANT, value=255)
    rng = random.Random(5)
    photos = [render_target(TRUTH, texture, 7 * 30.0 + 30.0, 5 * 30.0 + 30.0,
                            rng.uniform(15, 40), rng.uniform(0, 360), rng.uniform(300, 360),
                            (rng.uniform(-30, 30), rng.uniform(-20, 20)), seed=i)
              for i in range(10)]
    cal = calibrate_charuco(photos, (7, 5), 30.0, 22.0)
    assert cal.images >= 6
    assert cal.intrinsics.fx == pytest.approx(1000, rel=0.02)
