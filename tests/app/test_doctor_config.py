"""`damas doctor` against real files and a simulated machine, and the TOML config."""

import json
import os
import subprocess
import sys

import cv2
import numpy as np
import pytest

from damas.cli import main, parse
from damas.config import ConfigError, load_config
from damas.doctor import check_calibration, check_camera, check_machine, check_port
from damas.robot.machine import example_machine, save_machine
from damas.robot.simulator import MachineSimulator


def test_camera_checks(tmp_path):
    video = tmp_path / "cam.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 5, (64, 48))
    for _ in range(3):
        writer.write(np.full((48, 64, 3), 128, np.uint8))
    writer.release()
    good = check_camera(str(video))
    assert good.ok and good.detail == "64x48 frames"
    bad = check_camera(str(tmp_path / "none.avi"))
    assert not bad.ok and "cannot be opened" in bad.detail and bad.fix


def test_port_checks_on_a_simulated_machine():
    with MachineSimulator() as sim:
        [good] = check_port(sim.port)
    assert good.ok and "the damas firmware 1.1h" in good.detail and "$22" in good.detail
    [bad] = check_port("/dev/ttyNOPE")
    assert not bad.ok and "cannot open /dev/ttyNOPE" in bad.detail and "serial ports" in bad.fix


def test_machine_and_calibration_file_checks(tmp_path):
    path = tmp_path / "m.json"
    save_machine(example_machine(8), path)
    assert check_machine(str(path)).ok
    path.write_text('{"format": "damas-machine", "version": 7}')
    bad = check_machine(str(path))
    assert not bad.ok and "version" in bad.detail and "calibrate robot" in bad.fix
    folder = tmp_path / "cal"
    assert not check_calibration(str(folder))[0].ok
    folder.mkdir()
    (folder / "board.json").write_text(json.dumps({"format": "damas.board", "version": 99}))
    (bad_cal,) = check_calibration(str(folder))
    assert not bad_cal.ok and "version 99" in bad_cal.detail


def test_doctor_command_exit_status(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "damas", "doctor", "--camera",
                           str(tmp_path / "none.avi"), "--port", "/dev/ttyNOPE"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1
    assert "[FAIL] camera" in proc.stdout and "fix:" in proc.stdout
    assert proc.stdout.count("[FAIL]") == 2 and "[ok] machine file" in proc.stdout


def test_doctor_without_hardware_says_what_is_missing_and_suggests_the_demo():
    """Nothing plugged in is not a failure: status 0, each missing device named, and the
    way to try damas without any."""
    proc = subprocess.run([sys.executable, "-m", "damas", "doctor"], capture_output=True,
                          text=True, timeout=120)
    if "[missing]" not in proc.stdout:
        pytest.skip("this machine has a camera and a USB serial port")
    assert proc.returncode == 0, proc.stdout
    assert "[FAIL]" not in proc.stdout
    summary = [line for line in proc.stdout.splitlines() if "checks passed" in line]
    assert summary and "missing (" in summary[0]
    assert "damas demo" in proc.stdout.splitlines()[-1]


def test_doctor_by_default_checks_the_config_folder_quietly(tmp_path):
    """No option: camera 0, the USB ports only, the config folder's machine files and
    calibration besides the shipped examples; no OpenCV warnings on the way."""
    (tmp_path / "damas" / "machines").mkdir(parents=True)
    (tmp_path / "damas" / "machines" / "mine.json").write_text('{"format": "x"}')
    (tmp_path / "damas" / "calibration").mkdir()
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "damas", "doctor"], capture_output=True,
                          text=True, timeout=120, env=env)
    assert "[ WARN" not in proc.stderr and proc.stderr == ""
    assert "camera 0" in proc.stdout and "/dev/ttyS" not in proc.stdout.split("fix:")[0]
    assert "[FAIL] machine file " + str(tmp_path / "damas" / "machines" / "mine.json") \
        in proc.stdout
    assert "[ok] machine file" in proc.stdout  # the shipped examples
    assert "[FAIL] calibration " + str(tmp_path / "damas" / "calibration") + ": no " \
           "calibration files in it" in proc.stdout
    assert proc.returncode == 1


def test_config_file_sets_defaults_and_flags_win(tmp_path, capsys):
    cfg = tmp_path / "damas.toml"
    cfg.write_text('variant = "english"\nlevel = 4\nrobot = "sim-python"\n'
                   '[demo]\nseed = 9\n[record]\ntime_control = "5+3"\n')
    out = parse(["demo", "--config", str(cfg), "--lev", "3"])  # abbreviated: still a flag
    assert (out.variant, out.level, out.seed) == ("english", 3, 9)
    # top-level keys go to the commands that have them: doctor has no --robot
    assert parse(["doctor", "--config", str(cfg)]).camera is None  # camera 0, not named
    assert parse(["record", "--config", str(cfg)]).time_control.increment == 3
    cfg.write_text('colour = "red"\n')
    with pytest.raises(ConfigError, match="unknown option 'colour'"):
        parse(["demo", "--config", str(cfg)])
    cfg.write_text('[demo]\nrobot = "/dev/ttyACM0"\n')  # a choice demo does not offer
    with pytest.raises(ConfigError, match="robot = '/dev/ttyACM0': choose from"):
        parse(["demo", "--config", str(cfg)])
    cfg.write_text("variant = \n")
    with pytest.raises(ConfigError):
        load_config(cfg)
    assert main(["doctor", "--config", str(tmp_path / "missing.toml")]) == 2
    assert "no config file" in capsys.readouterr().err


def test_the_default_config_file_is_read_from_the_config_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert parse(["demo"]).level == 3
    (tmp_path / "damas").mkdir()
    (tmp_path / "damas" / "damas.toml").write_text("[demo]\nlevel = 7\n")
    assert parse(["demo"]).level == 7
    assert parse(["demo", "--level", "2"]).level == 2
