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


@pytest.mark.parametrize("variant, seed", [("international", 5),
                                           pytest.param("brazilian", 6, marks=pytest.mark.slow),
                                           pytest.param("english", 7, marks=pytest.mark.slow)])
def test_a_short_demo_game_is_seen_exactly(tmp_path, variant, seed, progress):
    video = str(tmp_path / "demo.mp4") if variant == "english" else None
    options = DemoOptions(variant=variant, seed=seed, max_plies=8, irregular_rate=1.0,
                          journal=str(tmp_path / "j.jsonl"), level=2, video=video)
    report = Demo(options, out=lambda *a: None, on_move=lambda game, ply, notation, by:
                  progress(f"demo test, {variant}: ply {ply} of 8, {notation} ({by})")).run()
    if video:  # the camera's view as H.264, which browsers play
        import av

        with av.open(video) as film:
            assert film.streams.video[0].codec_context.name == "h264"
            assert film.streams.video[0].frames > 20
    summary = report.summary()
    assert summary["plies"] == 8 and summary["moves"] == 4 and summary["misrecognised"] == 0
    assert summary["irregular_flagged"] == summary["irregular_made"] > 0
    (pdn,) = read_pdn((tmp_path / "j.pdn").read_text())
    moves = [e["notation"] for e in read_journal(tmp_path / "j.jsonl") if e["kind"] == "move"]
    assert pdn.game.notations() == moves and len(moves) == 8
    assert pdn.game.variant.name == variant


def _moves_in(journal):
    return [e["notation"] for e in read_journal(journal) if e["kind"] == "move"]


@pytest.mark.slow
def test_resume_after_a_kill_restores_the_identical_record(tmp_path, progress):
    journal = tmp_path / "j.jsonl"
    kill_after = random.Random(os.getpid()).randint(2, 5)  # a random moment of the game
    proc = subprocess.Popen([sys.executable, "-m", "damas", "demo", "--variant", "english",
                             "--seed", "11", "--max-plies", "40", "--robot", "sim-python",
                             "--journal", str(journal), "--json"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 300
    seen = 0
    while time.monotonic() < deadline and proc.poll() is None:
        plies = len(_moves_in(journal)) if journal.exists() else 0
        if plies != seen:
            seen = plies
            progress(f"demo kill test: plies recorded {plies}, the kill comes at {kill_after}")
        if plies >= kill_after:
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
    assert summary["plies"] == len(recorded) + 2 and summary["misrecognised"] == 0
    replay = Game("english")
    for text in recorded:
        replay.push(text)
    assert after.game.positions[len(recorded)] == replay.position


def test_the_summary_says_plies_and_moves_seconds_and_shares_and_where_the_pdn_is():
    from damas.commands.demo import describe

    text = describe({"games": 1, "variant": "international", "plies": 72, "moves": 36,
                     "results": ["2-0"], "misrecognised": 0, "irregular_made": 2,
                     "irregular_flagged": 2, "seconds": 150.0, "seconds_per_ply": 2.08,
                     "seconds_per_move": 4.17, "robot": "sim-firmware",
                     "time_split": {"render": 124.5, "vision": 8.25, "robot": 14.0,
                                    "engine": 0.25, "tracker": 0.0},
                     "pdn": "/data/damas/demo.pdn", "journal": "/data/damas/demo.jsonl",
                     "rounds": [4]})
    lines = text.splitlines()
    assert lines[0] == ("1 international game: 72 plies (36 moves in PDN numbering); "
                        "result 2-0")
    assert "2.08 s per ply, 4.17 s per move" in lines[2]
    assert lines[3].split() == ["rendering", "the", "simulated", "camera", "124.5", "s",
                                "83.0", "%"]
    assert ["other", "3.0", "s", "2.0", "%"] in [line.split() for line in lines]
    assert lines[-2:] == ["PDN: /data/damas/demo.pdn (round 4; the file keeps every demo "
                          "game, each run's rounds counting on)",
                          "journal: /data/damas/demo.jsonl"]


@pytest.mark.slow
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
    assert [g.tags["Round"] for g in games] == ["1", "2", "3"]  # rounds count on
    moves = [e["notation"] for e in read_journal(journal) if e["kind"] == "move"]
    assert [m for g in games for m in g.game.notations()] == moves
    assert (tmp_path / "j.pdn").stat().st_mode & 0o777 == 0o644
