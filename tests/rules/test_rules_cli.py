"""The command line: output shapes, and bad input as one clear line with status 2."""

import json
import subprocess
import sys

import pytest

from damas.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_moves_json_shape(capsys):
    code, out, _ = run(capsys, "moves", "--fen", "W:W48:B42,32,23", "--json")
    assert code == 0
    assert json.loads(out) == [{"notation": "48x19", "from": 48, "to": 19,
                                "path": [48, 37, 28, 19], "captured": [42, 32, 23]}]


def test_moves_plain(capsys):
    code, out, _ = run(capsys, "moves", "--variant", "english")
    assert code == 0 and out.split() == ["9-13", "10-14", "11-15", "12-16", "9-14",
                                         "10-15", "11-16"]


def test_perft_json_and_divide(capsys):
    code, out, _ = run(capsys, "perft", "--variant", "brazilian", "4", "--json")
    result = json.loads(out)
    assert code == 0 and result["depth"] == 4 and result["nodes"] == 1469
    assert isinstance(result["seconds"], float)
    code, out, _ = run(capsys, "perft", "3", "--divide")
    assert "32-28" in out and "perft(3) = 658" in out


def test_show_prints_a_numbered_diagram(capsys):
    code, out, _ = run(capsys, "show", "--fen", "W:W28:B19")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == [".", "1", ".", "2", ".", "3", ".", "4", ".", "5"]
    assert "w" in lines[5] and "b" in lines[3]
    assert lines[-1] == "W:W28:B19"


@pytest.mark.parametrize("argv, words", [
    (["moves", "--fen", "W:W31,31:B1"], "listed twice"),
    (["moves", "--variant", "chess"], "unknown variant"),
    (["perft", "--fen", "garbage", "2"], "side to move"),
    (["moves", "--variant", "english", "--fen", "W:W40:B1"], "outside 1..32"),
    (["perft", "-1"], "depth"),
    (["perft"], "required"),
    (["nonsense"], "invalid choice"),
])
def test_bad_input_is_one_line_and_status_2(capsys, argv, words):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("damas: ") and words in err
    assert "Traceback" not in err


def test_the_installed_command_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "damas", "moves", "--fen", "W:Wx:B1"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.startswith("damas: FEN") and "Traceback" not in proc.stderr
