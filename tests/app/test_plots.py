"""`bench vision --plot` and `match --plot`: real pictures, and a clear error for a wrong
file kind."""

import subprocess
import sys

import cv2
import pytest


def damas(*args):
    return subprocess.run([sys.executable, "-m", "damas", *args], capture_output=True,
                          text=True, timeout=600)


def test_a_match_draws_its_running_score(tmp_path):
    out = tmp_path / "match.png"
    result = damas("match", "--variant", "english", "--engine", "builtin:level=2",
                   "--engine", "random", "--games", "4", "--time-control", "none",
                   "--quiet", "--plot", str(out))
    assert result.returncode == 0, result.stderr
    image = cv2.imread(str(out))
    assert image is not None and image.shape[0] > 200 and image.shape[1] > 400
    assert image.std() > 10  # drawn on, not blank


@pytest.mark.slow
def test_the_vision_bench_draws_its_conditions(tmp_path):
    out = tmp_path / "vision.svg"
    result = damas("bench", "vision", "--frames", "12", "--plot", str(out))
    assert result.returncode == 0, result.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("<?xml") and "board=10x10" in text and "boards exactly" in text


def test_a_plot_file_of_another_kind_is_refused_before_the_work(tmp_path):
    result = damas("match", "--engine", "random", "--engine", "random", "--plot",
                   str(tmp_path / "x.txt"))
    assert result.returncode == 2 and result.stderr.count("\n") == 1
    assert ".png, .svg or .pdf" in result.stderr
