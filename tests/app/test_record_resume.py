"""`damas record --resume`: a game recorded in two runs (the recorder stopped halfway),
each run a real `python -m damas record` on a rendered video of its half."""

import random
import shutil
import subprocess
import sys
from types import SimpleNamespace

import cv2
import pytest

from damas.journal import last_game, read_journal
from damas.rules import Game
from damas.rules.pdn import read_pdn
from damas.sim.handmove import move_by_hand
from damas.vision.render import render
from damas.vision.scene import SceneRanges, random_scene

STILL = 8  # frames of a board at rest


def write_video(path, scene, states) -> None:
    """One frame per (pieces, hands) state; a state seen before is not drawn again."""
    drawn: dict = {}
    writer = None
    for pieces, hands in states:
        key = (tuple(sorted(pieces.items())), tuple(hands))
        if key not in drawn:
            drawn[key] = render(scene.with_(hands=tuple(hands)), pieces).image
        image = drawn[key]
        if writer is None:
            h, w = image.shape[:2]
            writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), 2, (w, h))
        writer.write(image)
    writer.release()


def at_rest(pieces) -> list:
    return [(dict(pieces), ())] * STILL


def by_hand(scene, game, moves, rng) -> list:
    """States of `moves` played by hand from the game's position (pushed onto it)."""
    states = []
    for move in moves:
        states += [(s.pieces, s.hands) for s in move_by_hand(scene, game.position, move, rng)]
        game.push(move)
    return states


def record(folder, video, *extra):
    # 2 frames a second, no increment: each move costs its mover seconds of the clock
    return subprocess.run(
        [sys.executable, "-m", "damas", "record", "--camera", str(video),
         "--variant", "english", "--time-control", "3+0", "--fps", "2", "--settle", "0.3",
         "--pdn", str(folder / "live.pdn"), "--journal", str(folder / "j.jsonl"), *extra],
        capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def first_half(tmp_path_factory):
    """The first three moves recorded; the game's other three moves to play on."""
    folder = tmp_path_factory.mktemp("first")
    rng = random.Random(5)
    scene = random_scene(rng, SceneRanges(sizes=(8,), tilt=(0, 20), noise=(0, 2),
                                          blur=(0, 0.5)), width=640, height=360)
    game = Game("english")
    for _ in range(6):
        game.push(rng.choice(game.legal_moves()))
    played = Game("english")
    states = at_rest(played.position.pieces())
    states += by_hand(scene, played, game.moves[:3], rng)
    states += at_rest(played.position.pieces())
    write_video(folder / "first.avi", scene, states)
    proc = record(folder, folder / "first.avi")
    assert proc.returncode == 0, proc.stderr
    moves = [e for e in read_journal(folder / "j.jsonl") if e["kind"] == "move"]
    assert [m["notation"] for m in moves] == game.notations()[:3]
    return SimpleNamespace(folder=folder, scene=scene, game=game, moves=moves,
                           position=played.position)


def carry_on(first_half, tmp_path):
    """A fresh folder holding the first run's journal and PDN."""
    for name in ("j.jsonl", "live.pdn"):
        shutil.copy(first_half.folder / name, tmp_path / name)
    return Game("english", start=first_half.position)


def test_resume_records_the_whole_game_and_carries_the_clocks_over(first_half, tmp_path):
    played = carry_on(first_half, tmp_path)
    rng = random.Random(11)
    states = at_rest(played.position.pieces())
    states += by_hand(first_half.scene, played, first_half.game.moves[3:], rng)
    states += at_rest(played.position.pieces())
    write_video(tmp_path / "second.avi", first_half.scene, states)

    proc = record(tmp_path, tmp_path / "second.avi", "--resume")

    assert proc.returncode == 0, proc.stderr
    assert "resumed after 3 plies" in proc.stdout
    (recorded,) = read_pdn((tmp_path / "live.pdn").read_text())
    assert recorded.game.notations() == first_half.game.notations()
    clocks = [c for cs in recorded.comments.values() for c in cs]
    assert len(clocks) == 6 and all(c.startswith("[%clock ") for c in clocks)
    moves = [e for e in read_journal(tmp_path / "j.jsonl") if e["kind"] == "move"]
    assert [m["notation"] for m in moves] == first_half.game.notations()
    third, fourth = moves[2], moves[3]
    # both sides spent time in the first run...
    assert third["clock"]["white"] < 175 and third["clock"]["black"] < 175
    # ...and the second run went on from those times, not from 3:00
    mover = fourth["side"]
    waiting = "white" if mover == "black" else "black"
    assert fourth["clock"][waiting] == third["clock"][waiting]
    assert fourth["clock"][mover] < third["clock"][mover]


def test_resume_on_a_wrong_board_says_which_squares_and_records_no_move(first_half,
                                                                         tmp_path):
    played = carry_on(first_half, tmp_path)
    later = first_half.game.moves[3:]
    touched = {sq for m in later for sq in (*m.path, *m.captured)}
    missing = min(sq for sq in played.position.pieces() if sq not in touched)
    wrong = dict(played.position.pieces())
    del wrong[missing]
    rng = random.Random(12)
    # a piece is missing, and the next move is played on that wrong board...
    states = at_rest(wrong)
    aside = Game("english", start=first_half.position)
    states += [({k: v for k, v in p.items() if k != missing}, h)
               for p, h in by_hand(first_half.scene, aside, later[:1], rng)]
    states += at_rest(states[-1][0])
    # ...then the arbiter has the board put right, and the game goes on
    states += at_rest(played.position.pieces())
    states += by_hand(first_half.scene, played, later, rng)
    states += at_rest(played.position.pieces())
    write_video(tmp_path / "second.avi", first_half.scene, states)

    proc = record(tmp_path, tmp_path / "second.avi", "--resume")

    assert proc.returncode == 0, proc.stderr
    assert "RESUME: the board does not show the position after move 3" in proc.stdout
    assert f"squares [{missing}]" in proc.stdout
    events = read_journal(tmp_path / "j.jsonl")
    mismatches = [e for e in events if e["kind"] == "resume-mismatch"]
    assert mismatches[0]["squares"] == [missing]
    assert len(mismatches) == 2 and missing in mismatches[1]["squares"]
    # the move made on the wrong board was not recorded; the game after it was
    moves = [e["notation"] for e in events if e["kind"] == "move"]
    assert moves == first_half.game.notations()
    (recorded,) = read_pdn((tmp_path / "live.pdn").read_text())
    assert recorded.game.notations() == first_half.game.notations()


def test_resume_seeing_the_start_position_begins_a_new_game(first_half, tmp_path):
    carry_on(first_half, tmp_path)
    fresh = Game("english")
    rng = random.Random(13)
    states = at_rest(fresh.position.pieces())
    states += by_hand(first_half.scene, fresh, [rng.choice(fresh.legal_moves())], rng)
    states += at_rest(fresh.position.pieces())
    write_video(tmp_path / "second.avi", first_half.scene, states)

    proc = record(tmp_path, tmp_path / "second.avi", "--resume")

    assert proc.returncode == 0, proc.stderr
    assert "NEW GAME" in proc.stdout
    events = read_journal(tmp_path / "j.jsonl")
    assert [e["notation"] for e in events if e["kind"] == "move"][:3] == \
        first_half.game.notations()[:3]
    game = last_game(events)
    assert game[0]["fen"] == fresh.positions[0].fen()
    (move,) = [e for e in game if e["kind"] == "move"]
    assert move["notation"] == fresh.notations()[0]
    # the new game's clock began at 3:00, not where the old game stopped
    assert move["clock"][move["side"]] > first_half.moves[-1]["clock"][move["side"]]
    (recorded,) = read_pdn((tmp_path / "live.pdn").read_text())
    assert recorded.game.notations() == fresh.notations()


def test_resume_without_a_journal_is_a_one_line_error(tmp_path):
    proc = record(tmp_path, tmp_path / "none.avi", "--resume")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr
    assert "no journal at" in proc.stderr and "nothing to resume" in proc.stderr


def test_a_full_disk_is_one_line_the_record_kept_and_resume_says_how_far(first_half,
                                                                        tmp_path):
    """Issue 45, case 7: with its files on a full filesystem `damas record` ended with
    `OSError: [Errno 28]` and two chained tracebacks, status 1."""
    disk = tmp_path / "disk"
    disk.mkdir()
    try:  # one page of 4 kB: the journal and the PDN cannot both grow
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", str(disk)],
                       check=True, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as e:
        pytest.skip(f"cannot mount a small tmpfs here (root only): {e}")
    try:
        proc = record(disk, first_half.folder / "first.avi")
        assert proc.returncode == 2, proc.stderr
        assert "Traceback" not in proc.stderr
        (line,) = proc.stderr.strip().splitlines()
        assert line.startswith("damas: the disk failed") and "No space left" in line
        assert "--resume" in line
        moves = [e["notation"] for e in read_journal(disk / "j.jsonl") if e["kind"] == "move"]
        assert moves == first_half.game.notations()[:len(moves)]
        if (disk / "live.pdn").exists():  # written whole or not at all
            (live,) = read_pdn((disk / "live.pdn").read_text())
            assert live.game.notations() == moves[:live.game.ply]
        subprocess.run(["mount", "-o", "remount,size=1m", str(disk)], check=True)
        again = record(disk, "none", "--resume")  # says how far, then: no camera there
        assert f"resumed after {len(moves)} plies" in again.stdout, again.stdout
    finally:
        subprocess.run(["umount", str(disk)], capture_output=True)
