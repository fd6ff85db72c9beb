"""`damas robot play-pdn` and `damas calibrate robot` from the command line."""

import json
import math
import random
import subprocess
import sys

import pytest

from damas.cli import main
from damas.robot.calibrate import default_squares, fit_transform
from damas.robot.errors import RobotError
from damas.robot.machine import example_machine, load_machine, save_machine
from damas.rules import Game
from damas.rules.pdn import PdnGame, write_pdn


def test_play_pdn_on_the_python_simulator(tmp_path, capsys):
    game = Game("english")
    rng = random.Random(8)
    while game.ply < 40:
        game.push(rng.choice(game.legal_moves()))
    pdn = tmp_path / "g.pdn"
    pdn.write_text(write_pdn(PdnGame.from_game(game)))
    assert main(["robot", "play-pdn", str(pdn), "--port", "sim-python", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches_game"] is True
    assert out["squares"] == {str(n): game.position.pieces().get(n, "e") for n in range(1, 33)}
    # a tray holds the men captured and, with flat kings, the men that were crowned
    off = {"w": 0, "b": 0, "W": 0, "B": 0}
    for pos, move in zip(game.positions, game.moves, strict=False):
        off[pos.piece(move.start)] += move.promotion
        for square in move.captured:
            off[pos.piece(square)] += 1
    assert out["trays"]["black"].count("b") == off["b"] > 0
    assert out["trays"]["white"].count("w") == off["w"] > 0
    assert out["travel_mm"] > 0 and out["sim_seconds"] > 0


def test_play_pdn_on_the_firmware(firmware, tmp_path, capsys):
    game = Game("english")
    rng = random.Random(8)
    while game.ply < 12:
        game.push(rng.choice(game.legal_moves()))
    assert any(m.captured for m in game.moves)
    pdn = tmp_path / "g.pdn"
    pdn.write_text(write_pdn(PdnGame.from_game(game)))
    assert main(["robot", "play-pdn", str(pdn), "--port", "sim-firmware", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["matches_game"] is True and out["stray"] == []
    assert out["squares"] == {str(n): game.position.pieces().get(n, "e") for n in range(1, 33)}
    captured = {"w": 0, "b": 0}
    for pos, move in zip(game.positions, game.moves, strict=False):
        for square in move.captured:
            captured[pos.piece(square)] += 1
    assert out["trays"]["black"].count("b") == captured["b"]
    assert out["trays"]["white"].count("w") == captured["w"]
    assert out["travel_mm"] > 0 and out["sim_seconds"] > len(game.moves)


def test_sim_firmware_without_the_toolchain_says_what_to_do(tmp_path, capsys, monkeypatch):
    import damas.robot.simavr as simavr

    monkeypatch.setattr(simavr, "missing_toolchain", lambda: ["avr-gcc"])
    pdn = tmp_path / "g.pdn"
    pdn.write_text("1. 32-28 *")
    assert main(["robot", "play-pdn", str(pdn), "--port", "sim-firmware"]) == 2
    err = capsys.readouterr().err
    assert "missing: avr-gcc" in err and "install-deps.sh" in err and "sim-python" in err


def test_play_pdn_bad_input(tmp_path, capsys):
    bad = tmp_path / "bad.pdn"
    bad.write_text("1. 32-28 99-98 *")
    assert main(["robot", "play-pdn", str(bad), "--port", "sim-python"]) == 2
    assert "line 1, column 10" in capsys.readouterr().err
    assert main(["robot", "play-pdn", str(tmp_path / "none.pdn"), "--port", "sim-python"]) == 2
    good = tmp_path / "g.pdn"
    good.write_text("1. 32-28 *")
    assert main(["robot", "play-pdn", str(good), "--port", "/dev/ttyNOPE"]) == 2
    assert "cannot open /dev/ttyNOPE" in capsys.readouterr().err
    machine = tmp_path / "m.json"
    save_machine(example_machine(8), machine)
    assert main(["robot", "play-pdn", str(good), "--port", "sim-python",
                 "--machine", str(machine)]) == 2
    assert "the machine is for 8x8" in capsys.readouterr().err


def test_calibrate_robot_recovers_a_rotated_shifted_board(tmp_path):
    machine_file = tmp_path / "m.json"
    machine = example_machine(10)
    save_machine(machine, machine_file)
    angle = math.radians(0.8)
    true = ((math.cos(angle), -math.sin(angle), 131.5), (math.sin(angle), math.cos(angle), 90.25))
    answers = []
    for square in default_squares(10):
        u, v = machine.square_centre(square)
        x = true[0][0] * u + true[0][1] * v + true[0][2]
        y = true[1][0] * u + true[1][1] * v + true[1][2]
        answers += ["x+5", f"x={x:.3f}", f"y={y:.3f}", "ok"]
    proc = subprocess.run([sys.executable, "-m", "damas", "calibrate", "robot", "--port",
                           "sim-python", "--machine", str(machine_file)],
                          input="\n".join(answers) + "\n", capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "residual" in proc.stdout
    fitted = load_machine(machine_file).board_to_machine
    for row_fit, row_true in zip(fitted, true, strict=True):
        assert row_fit == pytest.approx(row_true, abs=2e-3)


def test_calibrate_robot_stops_cleanly_without_input(tmp_path):
    machine_file = tmp_path / "m.json"
    save_machine(example_machine(8), machine_file)
    before = machine_file.read_text()
    proc = subprocess.run([sys.executable, "-m", "damas", "calibrate", "robot", "--port",
                           "sim-python", "--machine", str(machine_file)],
                          input="x+1\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no more input" in proc.stderr
    assert machine_file.read_text() == before  # nothing half-written


def test_fit_needs_three_points_off_a_line():
    with pytest.raises(RobotError, match="three"):
        fit_transform([(0, 0), (1, 1)], [(0, 0), (1, 1)])
    with pytest.raises(RobotError, match="one line"):
        fit_transform([(0, 0), (1, 1), (2, 2)], [(0, 0), (1, 1), (2, 2)])
    transform, residuals = fit_transform([(0, 0), (10, 0), (0, 10), (10, 10)],
                                         [(5, 5), (15, 5), (5, 15), (15.4, 15)])
    assert max(residuals) == pytest.approx(0.1, abs=1e-9) and residuals.index(
        max(residuals)) in (0, 1, 2, 3)
