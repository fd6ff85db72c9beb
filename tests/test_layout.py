"""The layout: the stage folders at the top level are the packages damas.<stage> (through
the symlinks in damas/), and nothing imports them under a second name."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
STAGES = ["rules", "engine", "vision", "calibration", "robot", "sim"]


@pytest.mark.parametrize("stage", STAGES)
def test_a_stage_folder_is_not_importable_under_its_bare_name(stage):
    run = subprocess.run([sys.executable, "-c", f"import {stage}"], cwd=ROOT,
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert f"import damas.{stage}, not {stage}" in run.stderr


@pytest.mark.parametrize("stage", STAGES)
def test_damas_holds_each_stage_folder_itself(stage):
    link = ROOT / "damas" / stage
    assert link.is_symlink() and link.resolve() == ROOT / stage
