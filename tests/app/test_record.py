"""`damas record` on a video of a game played by hand (the renderer as the camera)."""

import random
import re
import subprocess
import sys

import cv2

from damas.clock import clock_comment
from damas.journal import read_journal
from damas.rules import Game
from damas.rules.pdn import read_pdn
from damas.sim.handmove import move_by_hand
from damas.vision.render import render
from damas.vision.scene import SceneRanges, random_scene


def test_a_recorded_video_gives_the_moves_and_the_clock(tmp_path):
    rng = random.Random(3)
    scene = random_scene(rng, SceneRanges(sizes=(8,), tilt=(0, 20), noise=(0, 2),
                                          blur=(0, 0.5)))
    game = Game("english")
    frames = [game.position.pieces()] * 12  # the board at rest before play
    hands = [()] * 12
    for _ in range(5):
        move = rng.choice(game.legal_moves())
        for step in move_by_hand(scene, game.position, move, rng):
            frames.append(step.pieces)
            hands.append(step.hands)
        game.push(move)
    frames += [game.position.pieces()] * 12
    hands += [()] * 12
    video = tmp_path / "game.avi"
    writer = None
    for pieces, hand in zip(frames, hands, strict=True):
        image = render(scene.with_(hands=tuple(hand)), pieces).image
        if writer is None:
            h, w = image.shape[:2]
            writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 10, (w, h))
        writer.write(image)
    writer.release()
    pdn, journal = tmp_path / "live.pdn", tmp_path / "j.jsonl"
    proc = subprocess.run([sys.executable, "-m", "damas", "record", "--camera", str(video),
                           "--variant", "english", "--time-control", "3+2", "--fps", "10",
                           "--settle", "0.3", "--pdn", str(pdn), "--journal", str(journal),
                           "--white", "Ana", "--black", "Bia"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    (recorded,) = read_pdn(pdn.read_text())
    assert recorded.game.notations() == game.notations()
    assert recorded.tags["White"] == "Ana" and recorded.tags["TimeControl"] == "180+2"
    clocks = [c for cs in recorded.comments.values() for c in cs]
    moves = [e for e in read_journal(journal) if e["kind"] == "move"]
    assert len(moves) == 5 and len(clocks) == 5
    # the lidraughts style: both clocks, h:mm:ss, the one now running in capitals (in
    # English Black moves first, so after Black's move White's clock runs)
    for ply, (comment, move) in enumerate(zip(clocks, moves, strict=True), start=1):
        white, black = re.fullmatch(r"\[%clock ([wW])(\d:\d\d:\d\d) ([bB])(\d:\d\d:\d\d)\]",
                                    comment).group(1, 3)
        assert (white, black) == (("W", "b") if ply % 2 else ("w", "B"))
        assert comment == clock_comment(move["clock"])
    # each side's clock only ran on its own moves and gained the increment
    assert all(0 < m["clock"]["white"] <= 182 and 0 < m["clock"]["black"] <= 182
               for m in moves)
