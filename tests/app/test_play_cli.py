"""`damas play` and `damas kiosk` as a user runs them: real processes, a simulated table
(`--camera sim-board`) behind a real pty to the machine simulator."""

import json
import subprocess
import sys

from damas.journal import read_journal
from damas.rules.pdn import read_pdn


def damas(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "damas", *args], capture_output=True,
                          text=True, timeout=timeout)


def test_play_then_resume_goes_on_with_the_same_game(tmp_path):
    journal, pdn = tmp_path / "j.jsonl", tmp_path / "g.pdn"
    common = ["play", "--camera", "sim-board", "--robot", "sim-python", "--variant",
              "english", "--level", "1", "--settle", "0.3", "--journal", str(journal),
              "--pdn", str(pdn)]
    first = damas(*common, "--max-plies", "6")
    assert first.returncode == 0, first.stderr
    (before,) = read_pdn(pdn.read_text(encoding="utf-8"))
    assert len(before.game.notations()) == 6
    second = damas(*common, "--max-plies", "12", "--resume")
    assert second.returncode == 0, second.stderr
    (after,) = read_pdn(pdn.read_text(encoding="utf-8"))
    assert after.game.notations()[:6] == before.game.notations()
    assert len(after.game.notations()) == 12
    kinds = [e["kind"] for e in read_journal(journal)]
    assert kinds.count("game-start") == 1 and kinds.count("resumed") == 1


def test_a_kiosk_plays_games_and_archives_them(tmp_path):
    archive = tmp_path / "kiosk.pdn"
    proc = damas("kiosk", "--camera", "sim-board", "--robot", "sim-python", "--variant",
                 "english", "--level", "1", "--settle", "0.3", "--games", "2",
                 "--attract-plies", "20", "--journal", str(tmp_path / "k.jsonl"),
                 "--archive", str(archive), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["games"] == 2 and summary["errors"] == 0
    assert len(read_pdn(archive.read_text(encoding="utf-8"))) == 2


def test_a_wrong_port_is_one_clear_line(tmp_path):
    proc = damas("play", "--camera", "0", "--robot", str(tmp_path / "ttyUSB9"),
                 "--variant", "english", "--journal", str(tmp_path / "j.jsonl"))
    assert proc.returncode == 2
    assert "ttyUSB9" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "j.jsonl").exists()  # nothing half-started


def test_the_machine_is_a_robot_or_an_led_grid(tmp_path):
    both = damas("play", "--camera", "0", "--robot", "a", "--leds", "b")
    neither = damas("play", "--camera", "0")
    for proc in (both, neither):
        assert proc.returncode == 2 and "--robot PORT or --leds PORT" in proc.stderr
    mixed = damas("play", "--camera", "sim", "--robot", "/dev/ttyACM0")
    assert mixed.returncode == 2 and "simulated machine" in mixed.stderr


def test_play_from_a_fen_an_endgame_to_practise(tmp_path):
    """`play --fen`: the simulated table is set up to the position, the game goes on
    from it, and the PDN says where it began."""
    pdn = tmp_path / "g.pdn"
    fen = "B:W21,22,25,30,31:B5,9,10,14"
    proc = damas("play", "--camera", "sim-board", "--robot", "sim-python", "--variant",
                 "english", "--level", "1", "--settle", "0.3", "--fen", fen,
                 "--max-plies", "4", "--journal", str(tmp_path / "j.jsonl"), "--pdn", str(pdn))
    assert proc.returncode == 0, proc.stderr
    (game,) = read_pdn(pdn.read_text(encoding="utf-8"))
    assert game.tags["SetUp"] == "1" and game.tags["FEN"] == fen
    assert len(game.game.notations()) == 4
    both = damas("play", "--camera", "sim-board", "--robot", "sim-python", "--fen", fen,
                 "--resume", "--journal", str(tmp_path / "j.jsonl"))
    assert both.returncode == 2 and "one of --fen, --from-board and --resume" in both.stderr


def test_play_from_the_board_reads_the_table_first(tmp_path):
    """`play --from-board white` on the simulated table (which stands at the start): the
    position read is printed, and play goes on from it; one start option only."""
    pdn = tmp_path / "g.pdn"
    proc = damas("play", "--camera", "sim-board", "--robot", "sim-python", "--variant",
                 "english", "--level", "1", "--settle", "0.3", "--from-board", "white",
                 "--max-plies", "2", "--journal", str(tmp_path / "j.jsonl"), "--pdn", str(pdn))
    assert proc.returncode == 0, proc.stderr
    assert "reading the board: white to move" in proc.stdout
    white_first = "W:W21-32:B1-12"  # the start layout with White to move: set up
    assert f"FEN {white_first}" in proc.stdout
    (game,) = read_pdn(pdn.read_text(encoding="utf-8"))
    assert game.tags["FEN"] == white_first and len(game.game.notations()) == 2
    both = damas("play", "--camera", "sim-board", "--robot", "sim-python", "--from-board",
                 "white", "--fen", "W:W21:B5")
    assert both.returncode == 2 and "one of --fen, --from-board and --resume" in both.stderr
