"""The G-code driver and executor against the Python machine simulator: normal play,
and every fault the issue names. The same driver runs the firmware in simavr
(tests/firmware)."""

import random

import pytest

from damas.robot.executor import execute
from damas.robot.grbl import DriverError, GrblDriver, LinkLost
from damas.robot.leds import COLOURS, LedGrid
from damas.robot.planner import Planner
from damas.rules import Game, Position


def squares_seen(rig):
    layout = rig.world.layout()
    return {int(k): v for k, v in layout["squares"].items() if v != "e"}, layout


def test_a_game_is_played_and_the_pieces_end_where_the_rules_say(rig):
    r = rig("english")
    planner = Planner(r.machine)
    game = Game("english")
    rng = random.Random(5)
    while game.ply < 30 and game.outcome() is None:
        move = rng.choice(game.legal_moves())
        run = execute(r.driver, r.machine, planner.plan_move(r.state, move),
                      on_done=r.state.apply)
        assert run.complete
        game.push(move)
    seen, layout = squares_seen(r)
    assert seen == game.position.pieces() and not layout["stray"]
    assert r.world.min_clearance >= r.machine.piece_diameter - 1e-6


def test_banner_and_version(rig):
    r = rig()
    assert r.driver.version == "1.1h"
    assert r.driver.status().state == "Idle"


def test_a_wrong_port_is_a_clear_error():
    with pytest.raises(LinkLost, match="cannot open /dev/no-such-port"):
        GrblDriver("/dev/no-such-port", timeout=1).connect()


def test_error_replies_stop_the_stream(rig):
    r = rig()
    acked = []
    with pytest.raises(DriverError, match=r"line 2: error:20 \(unsupported"):
        r.driver.stream(["G0 X10 Y10", "G99", "G0 X20"], on_ack=acked.append)
    assert acked == [0]


def test_garbage_on_the_line_is_ignored(rig):
    r = rig()
    r.sim.send_garbage(b"\x00\xfe#junk\r\n[MSG:noise]\r\n")
    r.driver.stream(["G0 X5 Y5", "G0 X6 Y6"])
    assert r.driver.status().position[:2] == (6.0, 6.0)
    assert any("noise" in m for m in r.driver.messages)


@pytest.mark.parametrize("fault", ["drop", "reset", "limit"])
def test_a_fault_mid_move_is_reported_exactly(rig, fault):
    r = rig("english", fen="W:W19,21:B15,11")
    planner = Planner(r.machine)
    pos = Position.from_fen("W:W19,21:B15,11", "english")
    move = pos.parse_move("19x10")
    steps = planner.plan_move(r.state, move)
    assert [s.reason for s in steps] == ["capture", "move"]
    inject = {"drop": r.sim.drop_line, "reset": r.sim.power_cycle, "limit": r.sim.hit_limit}

    def after(step):
        r.state.apply(step)
        inject[fault]()

    run = execute(r.driver, r.machine, steps, on_done=after, reconnect_attempts=1)
    assert run.done == (steps[0],) and run.interrupted == steps[1]
    assert run.error and run.recovered == (fault != "drop")
    # everything but the interrupted piece is where the report says
    seen, layout = squares_seen(r)
    assert seen.get(21) == "w" and 15 not in seen
    assert layout["trays"]["black"].count("b") == 1
    moving_piece_places = [sq for sq, p in seen.items() if p == "w" and sq != 21]
    assert moving_piece_places in ([19], [10], []) and \
        len(moving_piece_places) + len(layout["stray"]) == 1


def test_led_grid_shows_a_move_and_an_irregularity(rig):
    r = rig("english")
    grid = LedGrid(r.driver, 32)
    move = Game("english").legal_moves()[0]
    grid.show_move(move)
    frame = r.frames[-1]
    assert frame[move.start - 1] == COLOURS["from"] and frame[move.end - 1] == COLOURS["to"]
    assert sum(1 for c in frame if c != (0, 0, 0)) == 2
    grid.show_irregular([27, 32])
    frame = r.frames[-1]
    assert [i + 1 for i, c in enumerate(frame) if c != (0, 0, 0)] == [27, 32]
    assert frame[26] == COLOURS["irregular"]
    grid.clear()
    assert set(r.frames[-1]) == {(0, 0, 0)}
