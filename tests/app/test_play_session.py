"""Playing against the machine (damas.play): vision confirms every machine move, a
mismatch is corrected or shown, and lost devices pause the game until they are back.
The outside world is simulated (damas.simulation); every part of the app is real: the
vision pipeline on rendered frames, the tracker, engines as processes where the test
says so, the GRBL driver over a pty to the machine simulator or our firmware in simavr."""

import os
import signal
from collections import Counter

import pytest

from damas.journal import Journal, read_journal
from damas.kiosk import Kiosk, KioskOptions
from damas.play import PlayOptions, PlaySession
from damas.rules import BLACK, WHITE
from damas.rules.pdn import read_pdn
from damas.simulation import Faults, simulated_world
from damas.web import Display, camera_view


def play(tmp_path, world_args, options, session_hook=None, progress=None):
    world = simulated_world("english", **world_args)
    try:
        with Journal(tmp_path / "play.jsonl") as journal:
            session = PlaySession(options, world.watch, world.mover, journal,
                                  tmp_path / "play.pdn", clock=world.clock, wait=world.wait,
                                  out=lambda *a: None, on_move=None if progress is None else
                                  lambda ply, notation, by: progress(
                                      f"play test: ply {ply}, {notation} ({by})"))
            world.visitor.join((WHITE,), session)
            if session_hook:
                session_hook(session, world)
            session.run()
    finally:
        world.close()
    return session, world, read_journal(tmp_path / "play.jsonl")


def assert_record_is_true(session, world, events):
    """The journal and the PDN hold exactly what the engine and the visitor played."""
    engine = [e["notation"] for e in events if e["kind"] == "engine-move"]
    machine = [e["notation"] for e in events if e["kind"] == "move" and e["by"] == "machine"]
    person = [e["notation"] for e in events if e["kind"] == "move" and e["by"] == "person"]
    assert machine == engine
    assert person == world.visitor.made
    (recorded,) = read_pdn((session.pdn_path).read_text(encoding="utf-8"))
    assert recorded.game.notations() == session.game.notations()
    assert sorted(recorded.game.notations()) == sorted(machine + person)


@pytest.mark.slow
def test_a_robot_game_seen_by_the_real_vision_pipeline_survives_faults(tmp_path, progress):
    faults = Faults(at_frames={25: "firmware_reset", 70: "camera_dropout",
                               110: "serial_drop"}, seconds_down=(2.0, 3.0))
    options = PlayOptions(variant="english", engine="builtin:level=2", settle=0.3,
                          machine_sides=(BLACK,), max_plies=12, retry=1.0)
    display = Display()

    def to_the_page(session, world):
        session.display = display
        world.watch.on_frame = camera_view(display)

    session, world, events = play(tmp_path, {"camera": "rendered", "faults": faults,
                                             "slip_rate": 0.0, "seed": 3}, options,
                                  to_the_page, progress)
    assert session.game.ply == 12
    assert_record_is_true(session, world, events)
    assert world.table.injected == {"camera_dropout": 1, "serial_drop": 1,
                                    "firmware_reset": 1}
    kinds = Counter(e["kind"] for e in events)
    paused = Counter(e["device"] for e in events if e["kind"] == "paused")
    assert paused["camera"] == 1 and kinds["continued"] == kinds["paused"]
    # the reset and the pulled cable are found when the robot next moves: each time the
    # board is looked at again and the move is made once the machine answers
    assert kinds["robot-fault"] == 2 and kinds["mismatch"] >= 2
    assert world.robot.report()["squares"] == {
        str(s): session.game.position.piece(s) or "e" for s in range(1, 33)}
    # the live page has the last camera frame (JPEG) and the moves as recorded
    assert display.frame().startswith(b"\xff\xd8")
    assert display.state()["moves"] == session.game.notations()


def test_a_person_guided_by_the_led_grid_is_shown_a_forgotten_capture(tmp_path):
    options = PlayOptions(variant="english", engine="builtin:level=1", settle=0.3,
                          machine_sides=(BLACK,), max_plies=60)
    session, world, events = play(tmp_path, {"robot": None, "slip_rate": 0.5, "seed": 5},
                                  options)
    assert_record_is_true(session, world, events)
    shown = [e for e in events if e["kind"] == "shown"]
    assert world.visitor.forgotten >= 1
    assert len(shown) == world.visitor.forgotten  # each forgotten piece is lit, then fixed
    assert all(len(e["squares"]) == 1 for e in shown)
    assert world.table.leds == {}  # the grid is dark once the move is made


ENGINE = """
import os, runpy, sys
if os.path.exists(sys.argv[1]):
    sys.exit("engine broken")  # dies at once, like a missing library
sys.argv = ["damas", "hub", "--variant", "english", "--level", "1"]
runpy.run_module("damas", run_name="__main__")
"""


def test_an_engine_that_crashes_pauses_the_game_until_it_runs_again(tmp_path):
    """A Hub engine (a real process) is killed after the machine's third move and cannot
    start again for a while: the game pauses, then goes on when it runs again."""
    import sys

    script, broken = tmp_path / "engine.py", tmp_path / "broken"
    script.write_text(ENGINE)
    options = PlayOptions(variant="english", engine=f"hub:{sys.executable} {script} {broken}",
                          settle=0.3, machine_sides=(BLACK,), max_plies=10, retry=1.0)
    killed = []

    def break_the_engine_once(session, world):
        wait = session.wait

        class Watching:  # the visitor's turn after the engine's third move: it dies
            flagged = False  # slip_rate 0: nothing irregular to see

            @property
            def game(self):
                game = session.game
                if not killed and game.ply == 5 and session.engine:
                    broken.touch()
                    os.kill(session.engine._proc.proc.pid, signal.SIGKILL)
                    killed.append(game.ply)
                return game

        def waiting(seconds):  # someone mends it while the session waits
            broken.unlink(missing_ok=True)
            wait(seconds)

        world.visitor.sight = Watching()
        session.wait = waiting

    session, world, events = play(tmp_path, {"slip_rate": 0.0}, options,
                                  break_the_engine_once)
    assert killed and session.game.ply == 10
    assert_record_is_true(session, world, events)
    (pause,) = [e for e in events if e["kind"] == "paused"]
    assert pause["device"] == "engine" and "engine broken" in pause["reason"]
    assert [e["kind"] for e in events].count("continued") == 1


def test_a_kiosk_on_our_firmware_resets_the_board_between_games(tmp_path):
    from damas.robot.simavr import missing_toolchain

    if missing_toolchain():
        if os.environ.get("DAMAS_REQUIRE_FIRMWARE") == "1":
            pytest.fail("the firmware toolchain is missing [DAMAS_REQUIRE_FIRMWARE=1]")
        pytest.skip("the firmware toolchain is missing (firmware/install-deps.sh)")
    world = simulated_world("english", robot="sim-firmware", seed=2,
                            faults=Faults(at_frames={40: "firmware_reset"}))
    options = KioskOptions(PlayOptions(variant="english", engine="builtin:level=1",
                                       settle=0.3, retry=1.0),
                           attract_plies=8, archive=str(tmp_path / "a.pdn"),
                           journal=str(tmp_path / "k.jsonl"),
                           current=str(tmp_path / "c.pdn"))
    kiosk = Kiosk(options, world.watch, world.mover, clock=world.clock, wait=world.wait,
                  out=lambda *a: None)
    try:
        assert kiosk.run(games=2) == 2
        board = world.robot.report()["squares"]
    finally:
        world.close()
    events = read_journal(tmp_path / "k.jsonl")
    kinds = Counter(e["kind"] for e in events)
    assert kinds["kiosk-reset"] == 2 and kinds["game-end"] == 2 and kiosk.errors == 0
    assert world.table.injected["firmware_reset"] == 1 and kinds["robot-fault"] >= 1
    games = read_pdn((tmp_path / "a.pdn").read_text(encoding="utf-8"))
    assert [len(g.game.notations()) for g in games] == [8, 8]
    # the second game began from a board the robot set up again: it ends as recorded
    assert board == {str(s): games[1].game.position.piece(s) or "e" for s in range(1, 33)}


FAILING_ENGINE = """
import pathlib, runpy, sys
starts = pathlib.Path(sys.argv[1])
n = int(starts.read_text() or 0) + 1 if starts.exists() else 1
starts.write_text(str(n))
if n <= int(sys.argv[2]):
    sys.exit("engine broken")  # dies at once, start after start
sys.argv = ["damas", "hub", "--variant", "english", "--level", "1"]
runpy.run_module("damas", run_name="__main__")
"""


def test_an_engine_that_keeps_failing_is_tried_with_a_growing_wait_and_one_pause(tmp_path):
    """It fails to start nine times in a row: the session waits 1, 2, 4, … seconds (at
    most 60) between tries, and the journal has one `paused` and one `continued`, not a
    pair per try."""
    import sys

    script, starts = tmp_path / "engine.py", tmp_path / "starts"
    script.write_text(FAILING_ENGINE)
    options = PlayOptions(variant="english", engine=f"hub:{sys.executable} {script} {starts} 9",
                          settle=0.3, machine_sides=(BLACK,), max_plies=4, retry=1.0)
    waits = []

    def count_the_waits(session, world):
        wait = session.wait

        def waiting(seconds):
            waits.append(seconds)
            wait(seconds)

        session.wait = waiting

    session, world, events = play(tmp_path, {"slip_rate": 0.0}, options, count_the_waits)
    assert session.game.ply == 4
    kinds = [e["kind"] for e in events]
    assert kinds.count("paused") == 1 and kinds.count("continued") == 1
    (back,) = [e for e in events if e["kind"] == "continued"]
    assert back["tries"] == 9 and int(starts.read_text()) == 10
    assert waits == [1, 2, 4, 8, 16, 32, 60, 60, 60]


def test_an_engine_spec_that_can_never_work_is_a_usage_error(tmp_path):
    """`--engine bogus:1` used to pause and 'recover' in a loop, writing the journal
    without end: now it is refused at once, before anything starts."""
    import subprocess
    import sys

    for spec, words in (("bogus:1", "unknown engine spec"),
                        ("hub:/no/such/engine", "is not a program"),
                        ("builtin:level=99", "level 99 does not exist")):
        done = subprocess.run([sys.executable, "-m", "damas", "play", "--camera", "sim",
                               "--robot", "sim-python", "--engine", spec, "--journal",
                               str(tmp_path / "j.jsonl"), "--pdn", str(tmp_path / "p.pdn")],
                              capture_output=True, text=True, timeout=60)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith("damas: ") and words in done.stderr
        assert not (tmp_path / "j.jsonl").exists()


def test_a_dxp_engine_that_ends_the_game_ends_the_session_game(tmp_path):
    """A DXP engine may end the game itself (Scan 2.0 does at the move count of the game
    request): the session ends the game there, says why, and is not paused."""
    import socket
    import threading

    from damas.engine.dxpwire import Connection, GameAccept, GameEnd, MoveMessage
    from damas.rules import variant

    listener = socket.create_server(("127.0.0.1", 0))

    def remote():
        sock, _ = listener.accept()
        conn = Connection(sock, variant("english"), "session")
        conn.receive(30, "the game request")
        conn.send(GameAccept("ender", 0))
        conn.send(MoveMessage(0, 11, 15, ()))  # Black's first move: the engine plays Black
        conn.receive(60, "White's move")
        conn.send(GameEnd(0, 0))  # 0: the result is not known
        try:
            conn.receive(30, "the echo")
        finally:
            conn.close()

    threading.Thread(target=remote, daemon=True).start()
    options = PlayOptions(variant="english", engine=f"dxp:127.0.0.1:{listener.getsockname()[1]}",
                          settle=0.3, machine_sides=(BLACK,), max_plies=10, movetime=1.0)
    try:
        session, world, events = play(tmp_path, {"slip_rate": 0.0}, options)
    finally:
        listener.close()
    (end,) = [e for e in events if e["kind"] == "game-end"]
    assert session.game.ply == 2 and "ended the game" in end["reason"]
    assert not [e for e in events if e["kind"] == "paused"]


def test_play_goes_on_from_the_board_the_camera_sees(tmp_path):
    """`play --from-board`: a table left mid-game is read, shown, confirmed (the first read
    is turned down, as a person who sees a square read wrong would), and the game goes on
    from it, the machine answering, the PDN starting from it."""
    from damas.fromboard import board_position
    from damas.rules import Position

    adjourned = Position.from_fen("W:W21,22,25,30,31:B5,9,10,14", "english")
    world = simulated_world("english", position=adjourned)
    shown, said = [], []
    answers = iter([False, True])
    try:
        position, seen = board_position(world.watch.look, "english", "white",
                                        lambda p: shown.append(p) or next(answers),
                                        said.append)
        assert shown == [adjourned, adjourned] and position == adjourned
        assert "put the board right; reading it again" in said
        options = PlayOptions(variant="english", engine="builtin:level=1", settle=0.3,
                              max_plies=3, fen=position.fen())
        with Journal(tmp_path / "play.jsonl") as journal:
            session = PlaySession(options, world.watch, world.mover, journal,
                                  tmp_path / "play.pdn", clock=world.clock, wait=world.wait,
                                  out=lambda *a: None)
            world.visitor.join((WHITE,), session)
            session.run()
    finally:
        world.close()
    (game,) = read_pdn((tmp_path / "play.pdn").read_text(encoding="utf-8"))
    assert game.tags["FEN"] == adjourned.fen() and len(game.game.notations()) == 3
