"""`damas render`, `damas read`, `damas calibrate markers|board`: outputs and errors."""

import json
import subprocess
import sys

import cv2
import numpy as np
import pytest

from damas.cli import main

FEN8 = "W:W18,21-23,K30:B1-3,9,K14"


@pytest.fixture(scope="module")
def frames(tmp_path_factory):
    d = tmp_path_factory.mktemp("frames")
    common = ["--seed", "5", "--tilt", "20", "--rotation", "270", "--scheme", "green",
              "--no-markers", "--noise", "2", "--blur", "0.5", "--jpeg", "0"]
    assert main(["render", "--variant", "brazilian", "--out", str(d / "start.png")]
                + common) == 0
    assert main(["render", "--variant", "brazilian", "--fen", FEN8,
                 "--out", str(d / "game.png")] + common) == 0
    return d


def test_render_writes_the_frame(frames, capsys):
    image = cv2.imread(str(frames / "game.png"))
    assert image.shape == (720, 1280, 3)


def test_read_start_position_without_calibration(frames, capsys):
    assert main(["read", str(frames / "start.png"), "--variant", "brazilian"]) == 0
    out = capsys.readouterr().out
    assert "W:W21-32:B1-12" in out


def test_read_json_with_white_at(frames, capsys):
    assert main(["read", str(frames / "game.png"), "--variant", "brazilian",
                 "--white-at", "bottom", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {"fen", "squares", "confidence", "board_found"}
    assert data["board_found"] is True
    assert data["fen"] == FEN8
    assert len(data["squares"]) == 32 and data["squares"]["14"] == "B"
    assert data["squares"]["4"] == "e"
    assert all(0 <= c <= 1 for c in data["confidence"].values())


def test_calibrate_board_then_read_with_it(frames, tmp_path, capsys):
    cal = tmp_path / "cal"
    assert main(["calibrate", "board", str(frames / "start.png"), "--variant", "brazilian",
                 "--out", str(cal), "--annotate", str(tmp_path / "cal.png")]) == 0
    assert (cal / "board.json").exists() and cv2.imread(str(tmp_path / "cal.png")) is not None
    capsys.readouterr()
    assert main(["read", str(frames / "game.png"), "--variant", "brazilian",
                 "--calibration", str(cal), "--annotate", str(tmp_path / "read.png")]) == 0
    out = capsys.readouterr().out
    assert FEN8 in out
    assert cv2.imread(str(tmp_path / "read.png")).shape == (720, 1280, 3)


def test_a_calibration_learns_the_men_and_reads_plain_stacks_as_kings(tmp_path, capsys):
    common = ["--variant", "brazilian", "--seed", "3", "--tilt", "40", "--scheme", "bw",
              "--no-markers", "--kings", "plain"]
    assert main(["render", "--out", str(tmp_path / "start.png")] + common) == 0
    assert main(["render", "--fen", FEN8, "--out", str(tmp_path / "game.png")] + common) == 0
    cal = tmp_path / "cal"
    assert main(["calibrate", "board", str(tmp_path / "start.png"), "--variant", "brazilian",
                 "--out", str(cal)]) == 0
    stack = json.loads((cal / "board.json").read_text())["stack"]
    assert 0.3 < stack["radius"] < 0.5 and 0.12 < stack["height"] < 0.3
    capsys.readouterr()
    assert main(["read", str(tmp_path / "game.png"), "--variant", "brazilian",
                 "--calibration", str(cal), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fen"] == FEN8  # K30 and K14 are stacks


def test_calibrate_markers_prints_to_scale(tmp_path, capsys):
    out = tmp_path / "markers.png"
    assert main(["calibrate", "markers", "--out", str(out), "--marker-mm", "40"]) == 0
    data = out.read_bytes()
    assert b"pHYs" in data[:100]  # the print size travels with the file
    page = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert page.shape == (3508, 2480)  # A4 at 300 dpi
    _, ids, _ = cv2.aruco.ArucoDetector(
        cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)).detectMarkers(page)
    assert sorted(ids.ravel().tolist()) == [0, 1, 2, 3]


@pytest.mark.parametrize("make,args,message", [
    (lambda p: p.write_text("not an image"), [], "not an image"),
    (lambda p: None, [], "no such file"),
    (lambda p: cv2.imwrite(str(p), np.full((480, 640, 3), 90, np.uint8)), [], "board"),
    (lambda p: cv2.imwrite(str(p), np.full((480, 640, 3), 90, np.uint8)), ["--json"], "board"),
])
def test_bad_input_is_a_one_line_error(tmp_path, capsys, make, args, message):
    path = tmp_path / "in.png"
    make(path)
    assert main(["read", str(path), "--variant", "international", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize("drawn,asked,markers", [
    ("brazilian", "international", "--no-markers"), ("international", "brazilian", "--no-markers"),
    # markers frame a board of any size: they must not make it the size asked for
    ("brazilian", "international", "--markers"), ("international", "brazilian", "--markers")])
def test_an_empty_board_read_as_another_variant_says_so(tmp_path, capsys, drawn, asked,
                                                        markers):
    # an empty board read as a board of the other size: one line, status 2
    path = tmp_path / "empty.png"
    assert main(["render", "--variant", drawn, "--fen", "W:W:B", "--out", str(path),
                 "--seed", "4", "--tilt", "15", markers]) == 0
    capsys.readouterr()
    assert main(["read", str(path), "--variant", asked]) == 2
    err = capsys.readouterr().err
    assert "check --variant" in err and err.count("\n") == 1


def test_wrong_calibration_version_is_refused(frames, tmp_path, capsys):
    cal = tmp_path / "cal"
    assert main(["calibrate", "board", str(frames / "start.png"), "--variant", "brazilian",
                 "--out", str(cal)]) == 0
    data = json.loads((cal / "board.json").read_text())
    data["version"] = 99
    (cal / "board.json").write_text(json.dumps(data))
    capsys.readouterr()
    assert main(["read", str(frames / "game.png"), "--variant", "brazilian",
                 "--calibration", str(cal)]) == 2
    err = capsys.readouterr().err
    assert "version 99" in err and "calibrate again" in err
    assert main(["read", str(frames / "game.png"), "--variant", "international",
                 "--calibration", str(tmp_path / "nowhere")]) == 2
    assert "no such calibration file" in capsys.readouterr().err


def test_command_line_start_does_not_load_opencv():
    code = ("import sys; from damas.cli import build_parser; build_parser(); "
            "print('cv2' in sys.modules, 'numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == "False"


def test_calibrate_board_from_a_camera_source(frames, tmp_path, capsys):
    # a folder of frames stands for a camera: the first frame is taken
    shots = tmp_path / "shots"
    shots.mkdir()
    (shots / "a.png").write_bytes((frames / "start.png").read_bytes())
    assert main(["calibrate", "board", "--camera", str(shots), "--variant", "brazilian",
                 "--out", str(tmp_path / "cal")]) == 0
    assert "White at the bottom" in capsys.readouterr().out
    assert main(["calibrate", "board", "--variant", "brazilian", "--out", str(tmp_path)]) == 2
    assert "--camera" in capsys.readouterr().err


def test_bench_of_sets_never_seen_reads_rendered_frames_as_photos(capsys):
    assert main(["bench", "vision", "--unseen", "--frames", "4", "--seed", "3",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["frames"] == 4 and report["not_read"] == 0
    assert report["squares"] in range(4 * 32, 4 * 50 + 1)
    assert report["squares_right"] >= 0.9 * report["squares"]
    assert set(report["kings"]) == {"crowned", "stacks", "stacks_overhead"}
    assert report["false_kings"] == 0
