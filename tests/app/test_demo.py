"""The closed-loop demo: camera, person, vision, tracker, engine and robot together."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from damas.demo import Demo, DemoOptions
from damas.journal import read_journal
from damas.rules import Game
from damas.rules.pdn import read_pdn


@pytest.mark.parametrize("variant, seed", [("international", 5), ("brazilian", 6),
                                           ("english", 7)])
def test_a_short_demo_game_is_seen_exactly(tmp_path, variant, seed):
    options = DemoOptions(variant=variant, seed=seed, max_plies=8, irregular_rate=1.0,
                          journal=str(tmp_path / "j.jsonl"), level=2)
    report = Demo(options, out=lambda *a: None).run()
    summary = report.summary()
    assert summary["moves"] == 8 and summary["misrecognised"] == 0
    assert summary["irregular_flagged"] == summary["irregular_made"] > 0
    (pdn,) = read_pdn((tmp_path / "j.pdn").read_text())
    moves = [e["notation"] for e in read_journal(tmp_path / "j.jsonl") if e["kind"] == "move"]
    assert pdn.game.notations() == moves and len(moves) == 8
    assert pdn.game.variant.name == variant


def _moves_in(journal):
    return [e["notation"] for e in read_journal(journal) if e["kind"] == "move"]


def test_resume_after_a_kill_restores_the_identical_record(tmp_path):
    journal = tmp_path / "j.jsonl"
    kill_after = random.Random(os.getpid()).randint(2, 5)  # a random moment of the game
    proc = subprocess.Popen([sys.executable, "-m", "damas", "demo", "--variant", "english",
                             "--seed", "11", "--max-plies", "40", "--robot", "sim-python",
                             "--journal", str(journal), "--json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if journal.exists() and len(_moves_in(journal)) >= kill_after:
            break
        time.sleep(0.2)
    assert proc.poll() is None, proc.stderr.read().decode()
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=30)
    recorded = _moves_in(journal)
    assert len(recorded) >= kill_after
    # the live PDN on disk is whole (written atomically) and at most one move behind
    (live,) = read_pdn((tmp_path / "j.pdn").read_text())
    assert live.game.notations() in (recorded, recorded[:-1])
    done = subprocess.run([sys.executable, "-m", "damas", "demo", "--resume", "--journal",
                           str(journal), "--max-plies", str(len(recorded) + 2),
                           "--robot", "sim-python", "--json"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    (after,) = read_pdn((tmp_path / "j.pdn").read_text())
    assert after.game.notations()[: len(recorded)] == recorded
    assert summary["moves"] == len(recorded) + 2 and summary["misrecognised"] == 0
    replay = Game("english")
    for text in recorded:
        replay.push(text)
    assert after.game.positions[len(recorded)] == replay.position


def test_a_second_demo_adds_its_game_to_the_pdn_as_the_journal_does(tmp_path):
    """Run twice on the same files (once with two games): the PDN holds every game in
    order, as the journal does; nothing of the first run is overwritten. The file is
    readable by others (the umask's mode)."""
    journal = tmp_path / "j.jsonl"
    old = os.umask(0o022)
    try:
        for seed, games in ((3, 1), (4, 2)):
            options = DemoOptions(variant="english", seed=seed, max_plies=4, games=games,
                                  irregular_rate=0.0, journal=str(journal), level=1,
                                  robot="sim-python")
            Demo(options, out=lambda *a: None).run()
    finally:
        os.umask(old)
    games = read_pdn((tmp_path / "j.pdn").read_text())
    starts = [i for i, e in enumerate(read_journal(journal)) if e["kind"] == "game-start"]
    assert len(games) == len(starts) == 3
    assert [g.tags["Round"] for g in games] == ["1", "1", "2"]
    moves = [e["notation"] for e in read_journal(journal) if e["kind"] == "move"]
    assert [m for g in games for m in g.game.notations()] == moves
    assert (tmp_path / "j.pdn").stat().st_mode & 0o777 == 0o644
