"""`damas record` on a video of a game played by hand (the renderer as the camera)."""

import re
import subprocess
import sys

import pytest

from damas.clock import clock_comment
from damas.journal import read_journal
from damas.rules.pdn import read_pdn
from damas.sim.video import hand_played_video
from damas.vision.scene import SceneRanges


@pytest.mark.slow
def test_a_recorded_video_gives_the_moves_and_the_clock(tmp_path):
    video = tmp_path / "game.avi"
    game = hand_played_video(video, SceneRanges(sizes=(8,), tilt=(0, 20), noise=(0, 2),
                                                blur=(0, 0.5)), plies=5, seed=3)
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


def test_a_game_adjourned_goes_on_from_its_fen_through_a_misread(tmp_path):
    """`record --fen`: the record waits for the board to show the position, a square
    misread with high confidence on the way is outvoted by the game, and the PDN carries
    SetUp and FEN."""
    from damas.clock import parse_time_control
    from damas.record import Recorder
    from damas.rules import Position
    from damas.rules.occupancy import Occupancy

    fen = "B:W21,22,30:B9,10,14"
    start = Position.from_fen(fen, "english")
    after = start.play(start.parse_move("14-18"))
    shown = str(Occupancy.of_position(start))
    moved = str(Occupancy.of_position(after))
    misread = moved[:29] + "b" + moved[30:]  # square 30's white man read as black
    pdn = tmp_path / "adjourned.pdn"
    recorder = Recorder("english", parse_time_control("45+0"), tmp_path / "j.jsonl", pdn,
                        settle=0.5, fen=fen, out=lambda *a: None)
    # the misread stays longer than the settle time: an exact match would call it an
    # irregularity (a man changed colour)
    boards = [(0.0, shown), (1.0, shown), (2.0, misread), (2.3, misread), (2.6, misread),
              (3.0, moved), (4.5, moved)]
    game = recorder.record_boards(boards)
    assert game.notations() == ["14-18"]
    kinds = [e["kind"] for e in read_journal(tmp_path / "j.jsonl")]
    assert "irregular" not in kinds and kinds.count("move") == 1
    (recorded,) = read_pdn(pdn.read_text())
    assert recorded.tags["SetUp"] == "1" and recorded.tags["FEN"] == start.fen()
    assert recorded.game.notations() == ["14-18"]


def test_a_game_goes_on_from_the_board_the_camera_sees(tmp_path):
    """`record --from-board black`: the first board read whole is shown and confirmed (a
    recorder replaced mid-game without its journal), then the moves made from it are
    recorded and the PDN starts from it."""
    from damas.clock import parse_time_control
    from damas.record import Recorder
    from damas.rules import Position
    from damas.vision.render import render_position
    from damas.vision.scene import Scene

    start = Position.from_fen("B:W21,22,25,30,31:B5,9,10,14", "english")
    after = start.play(start.parse_move("14-18"))
    scene = Scene(size=8, tilt_deg=15.0)
    frames = ([render_position(scene, start).image] * 8
              + [render_position(scene, after).image] * 8)
    shown: list[Position] = []
    said: list[str] = []
    recorder = Recorder("english", parse_time_control("45+0"), tmp_path / "j.jsonl",
                        tmp_path / "g.pdn", settle=0.3, from_board="black",
                        confirm=lambda p: shown.append(p) or True, out=said.append)
    game = recorder.run(frames, fps=5)
    assert shown == [start] and any(start.fen() in line for line in said)
    assert game.notations() == ["14-18"]
    (recorded,) = read_pdn((tmp_path / "g.pdn").read_text())
    assert recorded.tags["FEN"] == start.fen() and recorded.game.notations() == ["14-18"]


def test_from_board_fen_and_resume_are_one_choice(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "damas", "record", "--camera", "0",
                           "--variant", "english", "--fen", "B:W21:B5",
                           "--from-board", "white", "--pdn", str(tmp_path / "g.pdn"),
                           "--journal", str(tmp_path / "j.jsonl")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "one of --fen, --from-board and --resume" in proc.stderr


def test_a_recording_that_ends_with_a_move_under_way_says_so(tmp_path):
    """The last board shows a capture whose capturing man is still in the hand: the record
    does not invent its landing, and its last line tells the arbiter what is missing."""
    from damas.clock import parse_time_control
    from damas.record import Recorder
    from damas.rules import Position
    from damas.rules.occupancy import Occupancy

    fen = "B:W18,30:B14,5"
    start = Position.from_fen(fen, "english")
    lifted = dict(start.pieces())
    del lifted[14], lifted[18]  # 14x23: the man lifted, the white man taken off
    said: list[str] = []
    recorder = Recorder("english", parse_time_control("45+0"), tmp_path / "j.jsonl",
                        tmp_path / "g.pdn", settle=0.5, fen=fen, out=said.append)
    shown = str(Occupancy.of_position(start))
    in_hand = str(Occupancy.of_pieces(32, lifted))
    game = recorder.record_boards([(0.0, shown), (1.0, shown), (2.0, in_hand), (3.0, in_hand)])
    assert game.notations() == []
    assert any("ended with a move under way (14x23; squares 23 still to change)" in line
               for line in said), said
